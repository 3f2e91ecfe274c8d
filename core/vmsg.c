/* --validate messages: fill, stamp and check (see vmsg.h for the layout). */
#include "core/vmsg.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/crc32c.h"

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The payload is a xorshift stream seeded by (tag, slot). */
static uint64_t pat_seed(const struct fc_vmsg_id *id)
{
	return ((uint64_t)id->tag << 32 | id->slot) * 0x9e3779b97f4a7c15ULL + 1;
}

/* Byte @i of the stream, @x its state: a new 64-bit word every 8 bytes. */
static uint8_t pat_next(uint64_t *x, size_t i)
{
	if (!(i & 7)) {
		*x ^= *x << 13;
		*x ^= *x >> 7;
		*x ^= *x << 17;
	}
	return (uint8_t)(*x >> ((i & 7) * 8));
}

static void pat_fill(uint8_t *p, size_t n, const struct fc_vmsg_id *id)
{
	uint64_t x = pat_seed(id);

	for (size_t i = 0; i < n; i++)
		p[i] = pat_next(&x, i);
}

/* Whether message offset @o is in a mark of a @len-byte message. */
static int in_mark(size_t o, size_t len)
{
	size_t c = o - o % FC_VMSG_CHUNK;

	return c >= FC_VMSG_CHUNK && o - c < FC_VMSG_MARK && c + FC_VMSG_MARK <= len;
}

/* @p: the payload (message offset FC_VMSG_HDR) of a @len-byte message. */
static int64_t pat_first_diff(const uint8_t *p, size_t len, const struct fc_vmsg_id *id)
{
	uint64_t x = pat_seed(id);

	for (size_t i = 0; i + FC_VMSG_HDR < len; i++)
		if (p[i] != pat_next(&x, i) && !in_mark(i + FC_VMSG_HDR, len))
			return (int64_t)i;
	return -1;
}

/* The payload's CRC32C, the marks skipped. */
static uint32_t payload_crc(const uint8_t *buf, size_t len)
{
	uint32_t crc = 0;
	size_t o = FC_VMSG_HDR;

	while (o < len) {
		size_t end = (o / FC_VMSG_CHUNK + 1) * FC_VMSG_CHUNK;

		if (end > len)
			end = len;
		crc = fc_crc32c(crc, buf + o, end - o);
		o = end + FC_VMSG_MARK <= len ? end + FC_VMSG_MARK : end;
	}
	return crc;
}

static void marks_put(uint8_t *buf, size_t len, uint32_t seq)
{
	for (size_t c = FC_VMSG_CHUNK; c + FC_VMSG_MARK <= len; c += FC_VMSG_CHUNK)
		put32(buf + c, seq);
}

void fc_vmsg_poison(uint8_t *buf, uint32_t len, uint8_t byte)
{
	memset(buf, byte, len < FC_VMSG_HDR ? len : FC_VMSG_HDR);
	for (size_t c = FC_VMSG_CHUNK; c + FC_VMSG_MARK <= len; c += FC_VMSG_CHUNK)
		memset(buf + c, byte, FC_VMSG_MARK);
}

static void hdr_encode(uint8_t *h, const struct fc_vmsg_id *id, uint32_t pcrc)
{
	put32(h + 4, id->seq);
	put32(h + 8, id->slot);
	put32(h + 12, id->len);
	put32(h + 16, id->tag);
	put32(h + 20, pcrc);
	put32(h, fc_crc32c(0, h + 4, FC_VMSG_HDR - 4));
}

void fc_vmsg_stamp(uint8_t *buf, const struct fc_vmsg_id *id)
{
	uint8_t h[FC_VMSG_HDR];

	hdr_encode(h, id, id->len >= FC_VMSG_HDR ? get32(buf + 20) : 0);
	memcpy(buf, h, id->len < FC_VMSG_HDR ? id->len : FC_VMSG_HDR);
	marks_put(buf, id->len, id->seq);
}

void fc_vmsg_fill(uint8_t *buf, const struct fc_vmsg_id *id)
{
	size_t n = id->len > FC_VMSG_HDR ? id->len - FC_VMSG_HDR : 0;

	uint8_t h[FC_VMSG_HDR];

	if (n)
		pat_fill(buf + FC_VMSG_HDR, n, id);
	marks_put(buf, id->len, id->seq);
	hdr_encode(h, id, n ? payload_crc(buf, id->len) : 0);
	memcpy(buf, h, id->len < FC_VMSG_HDR ? id->len : FC_VMSG_HDR);
}

static enum fc_vmsg_err bad_is(struct fc_vmsg_bad *bad, enum fc_vmsg_err err)
{
	bad->err = err;
	return err;
}

static void hdr_decode(const uint8_t *h, struct fc_vmsg_id *id)
{
	id->seq = get32(h + 4);
	id->slot = get32(h + 8);
	id->len = get32(h + 12);
	id->tag = get32(h + 16);
}

/* A message shorter than the header: its bytes are the header's first ones. */
static enum fc_vmsg_err check_tiny(const uint8_t *buf, const struct fc_vmsg_id *want,
				   struct fc_vmsg_bad *bad)
{
	uint8_t h[FC_VMSG_HDR];

	hdr_encode(h, want, 0);
	return memcmp(buf, h, want->len) ? bad_is(bad, FC_VMSG_HEADER) : FC_VMSG_OK;
}

enum fc_vmsg_err fc_vmsg_check(const uint8_t *buf, uint64_t byte_len,
			       const struct fc_vmsg_id *want, uint32_t last_seq,
			       struct fc_vmsg_bad *bad)
{
	const struct fc_vmsg_id *got = &bad->got;
	size_t n;

	memset(bad, 0, sizeof(*bad));
	bad->want = *want;
	bad->byte_len = byte_len;
	bad->bad_off = -1;
	if (byte_len < want->len)
		return bad_is(bad, FC_VMSG_SHORT);
	if (want->len < FC_VMSG_HDR)
		return check_tiny(buf, want, bad);
	if (get32(buf) != fc_crc32c(0, buf + 4, FC_VMSG_HDR - 4))
		return bad_is(bad, FC_VMSG_HEADER);
	hdr_decode(buf, &bad->got);
	if (got->tag != want->tag)
		return bad_is(bad, FC_VMSG_OTHER_TEST);
	if (last_seq != UINT32_MAX && got->seq == last_seq)
		return bad_is(bad, FC_VMSG_DUP);
	if (got->slot != want->slot)
		return bad_is(bad, FC_VMSG_SLOT);
	if (got->seq != want->seq)
		return bad_is(bad, got->seq < want->seq ? FC_VMSG_STALE : FC_VMSG_AHEAD);
	if (got->len != want->len)
		return bad_is(bad, FC_VMSG_LEN);
	for (n = FC_VMSG_CHUNK; n + FC_VMSG_MARK <= want->len; n += FC_VMSG_CHUNK)
		if (get32(buf + n) != want->seq) {
			bad->bad_off = (int64_t)n;
			bad->got.seq = get32(buf + n);
			return bad_is(bad, FC_VMSG_PARTIAL);
		}
	if (get32(buf + 20) != payload_crc(buf, want->len)) {
		bad->bad_off = pat_first_diff(buf + FC_VMSG_HDR, want->len, want);
		if (bad->bad_off >= 0)
			bad->bad_off += FC_VMSG_HDR;
		return bad_is(bad, FC_VMSG_PAYLOAD);
	}
	return FC_VMSG_OK;
}

enum fc_vmsg_err fc_vmsg_check_imm(uint32_t imm, const struct fc_vmsg_id *want,
				   struct fc_vmsg_bad *bad)
{
	if (imm == want->seq)
		return FC_VMSG_OK;
	memset(bad, 0, sizeof(*bad));
	bad->want = *want;
	bad->imm = imm;
	bad->bad_off = -1;
	return bad_is(bad, FC_VMSG_IMM);
}

static const char *const err_names[] = {
	[FC_VMSG_OK] = "ok",
	[FC_VMSG_SHORT] = "short",
	[FC_VMSG_HEADER] = "header",
	[FC_VMSG_OTHER_TEST] = "stale-test",
	[FC_VMSG_SLOT] = "slot",
	[FC_VMSG_DUP] = "duplicate",
	[FC_VMSG_STALE] = "stale",
	[FC_VMSG_AHEAD] = "missing",
	[FC_VMSG_LEN] = "length",
	[FC_VMSG_PAYLOAD] = "payload",
	[FC_VMSG_IMM] = "immediate",
	[FC_VMSG_PARTIAL] = "partial",
};

const char *fc_vmsg_err_name(enum fc_vmsg_err err)
{
	return (unsigned)err < sizeof(err_names) / sizeof(err_names[0]) ? err_names[err] : "?";
}

const char *fc_vmsg_why(const struct fc_vmsg_bad *b, char *buf, size_t len)
{
	const struct fc_vmsg_id *w = &b->want, *g = &b->got;
	int n = snprintf(buf, len, "message %u for slot %u (%u B): ", w->seq, w->slot, w->len);

	if (n < 0 || (size_t)n >= len)
		return buf;
	switch (b->err) {
	case FC_VMSG_OK: snprintf(buf + n, len - n, "good"); break;
	case FC_VMSG_SHORT:
		snprintf(buf + n, len - n, "short: %llu B arrived", (unsigned long long)b->byte_len);
		break;
	case FC_VMSG_HEADER:
		snprintf(buf + n, len - n, w->len < FC_VMSG_HDR ?
			 "header: the bytes are not this message's (corrupt, misplaced or stale)" :
			 "header: its CRC32C does not match (corrupt header)");
		break;
	case FC_VMSG_OTHER_TEST:
		snprintf(buf + n, len - n, "stale-test: it holds data of another test (tag %08x, not %08x)",
			 g->tag, w->tag);
		break;
	case FC_VMSG_SLOT:
		snprintf(buf + n, len - n, "slot: message %u for slot %u landed here (misplaced)",
			 g->seq, g->slot);
		break;
	case FC_VMSG_DUP:
		snprintf(buf + n, len - n, "duplicate: message %u arrived again", g->seq);
		break;
	case FC_VMSG_STALE:
		snprintf(buf + n, len - n, "stale: the older message %u is here", g->seq);
		break;
	case FC_VMSG_AHEAD:
		snprintf(buf + n, len - n, "missing: message %u came instead (messages were lost)",
			 g->seq);
		break;
	case FC_VMSG_LEN:
		snprintf(buf + n, len - n, "length: its header says %u B", g->len);
		break;
	case FC_VMSG_PAYLOAD:
		snprintf(buf + n, len - n, "payload: its CRC32C does not match, first bad byte at offset %lld",
			 (long long)b->bad_off);
		break;
	case FC_VMSG_PARTIAL:
		snprintf(buf + n, len - n, "partial: the %u-byte chunk at offset %lld is not this message's (its mark reads %08x): the header landed and this part did not",
			 FC_VMSG_CHUNK, (long long)b->bad_off, g->seq);
		break;
	case FC_VMSG_IMM:
		if (b->imm == 0xffffffffu)
			snprintf(buf + n, len - n, "immediate: the completion carries none");
		else
			snprintf(buf + n, len - n, "immediate: the completion carries %u", b->imm);
		break;
	}
	return buf;
}

int fc_cycle_layout(uint64_t size, uint64_t half, uint64_t *stride_p, uint32_t *nslots_p)
{
	uint64_t stride, n;

	if (!size || size > half)
		return -EINVAL;
	if (size <= FC_CYCLE_SMALL) {
		stride = (size + FC_CYCLE_LINE - 1) & ~(uint64_t)(FC_CYCLE_LINE - 1);
		n = FC_CYCLE_REGION / stride;
	} else {
		stride = (size + 4095) & ~4095ULL;
		n = FC_CYCLE_TARGET / stride;
		if (n < 2)
			n = 2;
		if (n > 256)
			n = 256;
	}
	if (n > half / stride)
		n = half / stride;
	if (n > FC_CYCLE_MAX_SLOTS)
		n = FC_CYCLE_MAX_SLOTS;
	if (!n) {
		/* A message that fits but not at a page-rounded stride. */
		stride = size;
		n = 1;
	}
	*stride_p = stride;
	*nslots_p = (uint32_t)n;
	return 0;
}
