/*
 * --validate in the data path: the sender numbers each message (its slot
 * and immediate value, and its header where the CPU may write the buffer);
 * the side the data reaches checks each one at its completion against the
 * message due on that QP, then poisons the slot's header (see test.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/crc32c.h"
#include "core/log.h"
#include "core/stats.h"
#include "core/util.h"
#include "verbs/test.h"

uint32_t vb_val_next(const struct vb_res *r, const struct vb_test *t, int q, int last,
		     uint32_t *imm_p)
{
	struct vb_val *v = t->val;
	uint64_t seq = v->tx_seq[q]++;
	uint32_t slot = vb_val_slot(t, q, seq);

	if (v->stamp && t->op != VB_READ) {
		struct fc_vmsg_id id = { .tag = v->tag, .seq = (uint32_t)seq, .slot = slot,
					 .len = (uint32_t)t->size };

		fc_vmsg_stamp(vb_test_local(r, t, 0, slot), &id);
	}
	*imm_p = (seq & FC_VIMM_SEQ) | (last ? FC_VIMM_LAST : 0);
	__atomic_add_fetch(&v->sent, 1, __ATOMIC_RELAXED);
	return slot;
}

/* Checks the message due on QP @q at @at (in the buffer), then poisons its header. */
static int check_at(struct vb_res *r, const struct vb_test *t, int q, uint8_t *at,
		    uint64_t byte_len, int has_imm, uint32_t imm, uint8_t *scratch)
{
	struct vb_val *v = t->val;
	uint64_t seq = v->rx_seq[q]++;
	uint32_t len = (uint32_t)t->size;
	struct fc_vmsg_id want = { .tag = v->tag, .seq = (uint32_t)seq, .slot = vb_val_slot(t, q, seq),
				   .len = len };
	uint32_t hdr_seq = (uint32_t)(v->peer_stamps && t->op != VB_READ ? seq : seq % v->part);
	const uint8_t *p = at;
	int err;

	if (v->read) {
		if ((err = v->read(v->arg, at, len, scratch)))
			return err;
		p = scratch;
	}
	fc_vtally_check(&v->tally, q, p, byte_len, &want, hdr_seq, has_imm, imm);
	/* The header and every chunk's mark poisoned (GPU memory: the whole
	 * message, one write), so that the next message of the slot must
	 * bring each of its chunks (core/vmsg.h). */
	if (v->poison)
		return v->poison(v->arg, at, len);
	fc_vmsg_poison(at, len, VB_VAL_POISON);
	(void)r;
	return 0;
}

int vb_val_recv(struct vb_res *r, const struct vb_test *t, int q, const struct ibv_wc *wc,
		uint32_t rslot, uint8_t *scratch)
{
	uint64_t due = t->val->rx_seq[q];
	uint8_t *at = t->op == VB_SEND ? vb_rx(r, rslot) :
					 vb_test_local(r, t, 1, vb_val_slot(t, q, due));
	uint32_t imm = wc->wc_flags & IBV_WC_WITH_IMM ? ntohl(wc->imm_data) : FC_VIMM_NONE;

	return check_at(r, t, q, at, wc->byte_len, 1, imm, scratch);
}

int vb_val_reads(struct vb_res *r, const struct vb_test *t, int q, uint64_t n,
		 const struct ibv_wc *wc, uint8_t *scratch)
{
	for (uint64_t i = 0; i < n; i++) {
		uint32_t slot = vb_val_slot(t, q, t->val->rx_seq[q]);
		/* Only a signalled read has a completion with its length. */
		uint64_t len = i + 1 == n && wc ? wc->byte_len : t->size;
		int err = check_at(r, t, q, vb_test_local(r, t, 1, slot), len, 0, 0, scratch);

		if (err)
			return err;
	}
	return 0;
}

int vb_val_rx_cap(const struct vb_res *r, uint64_t max_size)
{
	uint64_t half = r->stride * r->nslots, stride;
	uint64_t sizes[2] = { max_size < FC_CYCLE_SMALL ? max_size : FC_CYCLE_SMALL, max_size };
	uint32_t min = r->nslots, n;
	int cap;

	for (int k = 0; k < 2; k++)
		if (!fc_cycle_layout(sizes[k], half, &stride, &n) && n < min)
			min = n;
	/* Receive k + cap of a QP is posted only once message k was checked:
	 * with cap below the QP's slots, a message can reach a slot (even a
	 * multi-packet write, whose first packets need no receive) only once
	 * the slot's last message was checked and poisoned. */
	cap = r->nqps > 0 ? (int)(min / (uint32_t)r->nqps) - 1 : 1;
	if (cap < 1)
		cap = 1;
	return cap < r->rx_depth ? cap : r->rx_depth;
}

double vb_val_crc_rate(uint64_t size)
{
	static uint8_t buf[1 << 20];
	size_t n = size < sizeof(buf) ? (size_t)size : sizeof(buf);
	double t0 = fc_now(), t1;
	uint64_t bytes = 0;
	uint32_t crc = 0;

	/* about 20 ms: what the receiver's poll loop pays per message */
	do {
		crc = fc_crc32c(crc, buf, n);
		bytes += n;
		t1 = fc_now();
	} while (t1 - t0 < 0.02);
	buf[crc & 0xff]++; /* kept: the loop is not optimised away */
	return fc_gbps(bytes, t1 - t0);
}

double vb_val_copy_rate(const struct vb_val *v, uint8_t *at, uint64_t size, uint8_t *scratch)
{
	double t0 = fc_now(), t1;
	uint64_t bytes = 0;

	/* what check_at pays per message in GPU memory, besides the CRC */
	do {
		if ((v->copy ? v->copy : v->read)(v->arg, at, size, scratch) ||
		    (v->poison && v->poison(v->arg, at, size)))
			return -1;
		bytes += size;
		t1 = fc_now();
	} while (t1 - t0 < 0.02);
	return fc_gbps(bytes, t1 - t0);
}

double vb_val_ceiling(double crc, double copy)
{
	return copy > 0 && crc > 0 ? 1 / (1 / crc + 1 / copy) : crc;
}

/* GPU memory: the copy rate, on the slot of QP 0's first message (before
 * any traffic; the fill poisons the receive half again after). */
static int copy_ceiling(struct vb_res *r, struct vb_test *t)
{
	struct vb_val *v = t->val;
	uint8_t *scratch;

	v->copy_gbps = 0;
	if (!v->read)
		return 0;
	if (!(scratch = malloc((size_t)t->size))) {
		fc_err("--validate: no memory for a %llu-byte host image of a message",
		       (unsigned long long)t->size);
		return -ENOMEM;
	}
	v->copy_gbps = vb_val_copy_rate(v, vb_test_local(r, t, 1, vb_val_slot(t, 0, 0)), t->size,
					scratch);
	free(scratch);
	if (v->copy_gbps < 0) {
		fc_err("--validate: cannot copy a %llu-byte message out of GPU memory and back (see above)",
		       (unsigned long long)t->size);
		return -EIO;
	}
	return 0;
}

int vb_val_prepare(struct vb_res *r, struct vb_test *t)
{
	struct vb_val *v = t->val;
	uint32_t part = fc_vpart(t->cyc_nslots, r->nqps);
	int win, err;

	if (!part) {
		fc_err("--validate: %llu B messages cycle over %u slots, too few for %d QPs (2 each at least, so that a slot is not rewritten while its message is checked): use fewer QPs (-q) or smaller messages",
		       (unsigned long long)t->size, t->cyc_nslots, r->nqps);
		return -EINVAL;
	}
	memset(&v->tally, 0, sizeof(v->tally));
	memset(v->tx_seq, 0, sizeof(v->tx_seq));
	memset(v->rx_seq, 0, sizeof(v->rx_seq));
	v->sent = 0;
	v->part = part;
	v->crc_gbps = vb_val_crc_rate(t->size);
	if ((err = copy_ceiling(r, t)))
		return err;
	/* A window of at most a QP's slots: a slot is rewritten (stamped,
	 * read into) only once its last message completed; the post list and
	 * CQ moderation settled again for it (verbs/knobs.c). */
	win = r->tx_depth < (int)part ? r->tx_depth : (int)part;
	if ((err = vb_test_knobs(r, t, win)))
		return err;
	return 0;
}
