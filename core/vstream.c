/* --validate message by message: the per-stream check and the tally (see vstream.h). */
#include "core/vstream.h"

#include <stdio.h>
#include <string.h>

uint32_t fc_vpart(uint32_t nslots, int nqps)
{
	uint32_t part = nqps > 0 ? nslots / (uint32_t)nqps : 0;

	return part >= 2 ? part : 0;
}

/* The immediate carries the message number: a repeat of the last one is a
 * duplicate, an older one stale, a later one says messages went missing. */
static enum fc_vmsg_err check_imm(uint32_t imm, const struct fc_vmsg_id *want,
				  struct fc_vmsg_bad *bad)
{
	uint32_t got = imm & FC_VIMM_SEQ, due = want->seq & FC_VIMM_SEQ;

	if (imm != FC_VIMM_NONE && got == due)
		return FC_VMSG_OK;
	fc_vmsg_check_imm(imm, want, bad);
	if (imm == FC_VIMM_NONE)
		return FC_VMSG_IMM;
	bad->got.seq = got;
	if (due && got == due - 1)
		bad->err = FC_VMSG_DUP;
	else if (got < due)
		bad->err = FC_VMSG_STALE;
	else
		bad->err = FC_VMSG_AHEAD;
	return bad->err;
}

static void keep_first(struct fc_vtally *t, int q, const struct fc_vmsg_bad *bad)
{
	int unset = 0;

	__atomic_add_fetch(&t->bad, 1, __ATOMIC_RELAXED);
	if (__atomic_compare_exchange_n(&t->first_set, &unset, 1, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_RELAXED)) {
		t->first = *bad;
		t->first_qp = q;
	}
}

enum fc_vmsg_err fc_vtally_check(struct fc_vtally *t, int q, const uint8_t *buf,
				 uint64_t byte_len, const struct fc_vmsg_id *want, uint32_t hdr_seq,
				 int has_imm, uint32_t imm)
{
	struct fc_vmsg_id hw = *want;
	struct fc_vmsg_bad bad;
	enum fc_vmsg_err e;

	hw.seq = hdr_seq;
	if (byte_len != want->len) {
		/* fc_vmsg_check names a short message; a longer one is as wrong. */
		e = fc_vmsg_check(buf, byte_len, want, UINT32_MAX, &bad);
		if (!e) {
			bad.err = FC_VMSG_LEN;
			bad.got.len = (uint32_t)byte_len;
			e = FC_VMSG_LEN;
		}
	} else if (has_imm && (e = check_imm(imm, want, &bad))) {
		;
	} else {
		e = fc_vmsg_check(buf, byte_len, &hw,
				  hdr_seq == want->seq && want->seq ? want->seq - 1 : UINT32_MAX, &bad);
		bad.want.seq = want->seq;
	}
	if (e) {
		keep_first(t, q, &bad);
		return e;
	}
	__atomic_add_fetch(&t->msgs, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&t->bytes, want->len, __ATOMIC_RELAXED);
	if (want->slot < FC_CYCLE_MAX_SLOTS)
		__atomic_fetch_or(&t->slot_bits[want->slot / 64], 1ULL << (want->slot % 64),
				  __ATOMIC_RELAXED);
	return FC_VMSG_OK;
}

uint32_t fc_vtally_slots(const struct fc_vtally *t)
{
	uint32_t n = 0;

	for (size_t i = 0; i < sizeof(t->slot_bits) / sizeof(t->slot_bits[0]); i++)
		n += (uint32_t)__builtin_popcountll(t->slot_bits[i]);
	return n;
}

const char *fc_vtally_why(const struct fc_vtally *t, char *buf, size_t len)
{
	char why[224];
	int n;

	if (!t->first_set)
		return "";
	n = snprintf(buf, len, "QP %d, ", t->first_qp);
	if (n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "%s", fc_vmsg_why(&t->first, why, sizeof(why)));
	return buf;
}
