/*
 * --validate with messages that say who they are (core/vmsg.h): every slot
 * a test cycles through holds its own message (header with seq, slot,
 * length and the test's tag, CRC32C of the payload), the receive side is
 * poisoned first, and the check reads every slot back (through the driver
 * for GPU memory, after GPUDirect writes are flushed).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/vmsg.h"
#include "gdr/gdr.h"

#define POISON 0xa5

/* A host view of [off, off + len): the memory itself, or a copy. */
static uint8_t *view(struct gdr_mem *m, uint64_t off, size_t len, int *copied, int *err)
{
	uint8_t *p;

	*err = 0;
	*copied = 0;
	if (off > m->len || len > m->len - off) {
		fc_err("--validate: slots %llu+%zu are outside the %zu-byte buffer",
		       (unsigned long long)off, len, m->len);
		*err = -ERANGE;
		return NULL;
	}
	if (gdr_mem_host_accessible(m))
		return (uint8_t *)m->base + off;
	p = malloc(len ? len : 1);
	if (!p) {
		fc_err("--validate: no memory for a %zu-byte host image of the buffer", len);
		*err = -ENOMEM;
		return NULL;
	}
	*copied = 1;
	return p;
}

/* Writes a host image back to GPU memory and waits for the copy. */
static int put_back(struct gdr_mem *m, uint64_t off, const uint8_t *p, size_t len)
{
	int err = m->dev->ops->copy_from_host(m, off, p, len);

	return err ? err : m->dev->ops->sync(m->dev);
}

int gdr_mem_fill_msgs(struct gdr_mem *m, uint64_t tx, uint64_t stride, uint32_t nslots,
		      uint32_t len, uint32_t tag, uint64_t rx, size_t rx_len)
{
	size_t span = (size_t)stride * nslots;
	int copied, err;
	uint8_t *p = view(m, tx, span, &copied, &err);

	if (!p)
		return err;
	for (uint32_t j = 0; j < nslots; j++) {
		struct fc_vmsg_id id = { .tag = tag, .seq = j, .slot = j, .len = len };

		fc_vmsg_fill(p + (size_t)j * stride, &id);
	}
	if (copied) {
		err = put_back(m, tx, p, span);
		free(p);
		if (err)
			return err;
	}
	p = view(m, rx, rx_len, &copied, &err);
	if (!p)
		return err;
	memset(p, POISON, rx_len);
	if (copied) {
		err = put_back(m, rx, p, rx_len);
		free(p);
	}
	return err;
}

static int untouched(const uint8_t *p, uint32_t len)
{
	for (uint32_t i = 0; i < len; i++)
		if (p[i] != POISON)
			return 0;
	return 1;
}

/* Any message of this test (send: the receiver chose the slot). */
static enum fc_vmsg_err check_any(const uint8_t *p, uint32_t len, uint32_t tag, uint32_t n,
				  struct fc_vmsg_bad *bad)
{
	struct fc_vmsg_id want = { .tag = tag, .len = len };
	enum fc_vmsg_err e = fc_vmsg_check(p, len, &want, UINT32_MAX, bad);

	if (e == FC_VMSG_SLOT && bad->got.slot < n) {
		want.seq = want.slot = bad->got.slot;
		return fc_vmsg_check(p, len, &want, UINT32_MAX, bad);
	}
	/* A message shorter than the header names no slot: try each. */
	for (uint32_t j = 1; e == FC_VMSG_HEADER && len < FC_VMSG_HDR && j < n; j++) {
		want.seq = want.slot = j;
		e = fc_vmsg_check(p, len, &want, UINT32_MAX, bad);
	}
	return e;
}

int gdr_mem_check_msgs(struct gdr_mem *m, uint64_t rx, uint64_t stride, uint32_t nslots,
		       uint32_t len, uint32_t tag, uint32_t fixed_n, struct gdr_msg_check *c)
{
	size_t span = (size_t)stride * nslots;
	int copied, err;
	uint8_t *p;

	memset(c, 0, sizeof(*c));
	c->slots = nslots;
	if (m->dev->ops->flush && (err = m->dev->ops->flush(m->dev)))
		return err;
	p = view(m, rx, span, &copied, &err);
	if (!p)
		return err;
	if (copied && (err = m->dev->ops->copy_to_host(m, p, rx, span))) {
		free(p);
		return err;
	}
	for (uint32_t j = 0; j < nslots && !c->bad; j++) {
		const uint8_t *s = p + (size_t)j * stride;
		struct fc_vmsg_id want = { .tag = tag, .seq = j, .slot = j, .len = len };
		struct fc_vmsg_bad bad;
		enum fc_vmsg_err e;

		if (untouched(s, len)) {
			c->untouched++;
			continue;
		}
		e = fixed_n ? fc_vmsg_check(s, len, &want, UINT32_MAX, &bad) :
			      check_any(s, len, tag, nslots, &bad);
		if (e) {
			c->bad = 1;
			c->bad_slot = j;
			c->kind = fc_vmsg_err_name(e);
			fc_vmsg_why(&bad, c->why, sizeof(c->why));
			break;
		}
		c->validated++;
		c->bytes += len;
	}
	if (copied)
		free(p);
	return 0;
}
