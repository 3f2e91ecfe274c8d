/*
 * --validate with messages that say who they are (core/vmsg.h): every slot
 * a test cycles through holds its own message (header with seq, slot,
 * length and the test's tag, CRC32C of the payload), the receive side is
 * poisoned first; the data path checks each message as it completes
 * (verbs/val.c) through gdr_mem_read_at (the driver for GPU memory, after
 * GPUDirect writes are flushed) and poisons its header again after; at the
 * end every slot's header must hold the poison (nothing arrived late).
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
		      uint32_t part, uint32_t len, uint32_t tag, uint64_t rx, size_t rx_len)
{
	size_t span = (size_t)stride * nslots;
	int copied, err;
	uint8_t *p = view(m, tx, span, &copied, &err);

	if (!p)
		return err;
	for (uint32_t j = 0; j < nslots; j++) {
		struct fc_vmsg_id id = { .tag = tag, .seq = part ? j % part : j, .slot = j,
					 .len = len };

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

/*
 * Where @len bytes at @p, at most @max, lie in @m: their offset in *@off_p,
 * and 1 when the host reaches the memory, 0 when it does not (the device is
 * then bound to this thread); else logs that it cannot @what them and
 * returns a negative errno.
 */
static int reach(struct gdr_mem *m, const void *p, size_t len, size_t max, const char *what,
		 uint64_t *off_p)
{
	uint64_t off = (uint64_t)((const uint8_t *)p - (const uint8_t *)m->base);
	int err;

	*off_p = off;
	if (off > m->len || len > m->len - off || len > max) {
		fc_err("--validate: cannot %s bytes %llu+%zu of the %zu-byte buffer", what,
		       (unsigned long long)off, len, m->len);
		return -ERANGE;
	}
	if (gdr_mem_host_accessible(m))
		return 1;
	if (m->dev->ops->bind && (err = m->dev->ops->bind(m->dev)))
		return err;
	return 0;
}

static int copy_at(struct gdr_mem *m, const void *p, size_t len, void *out, int flush)
{
	uint64_t off;
	int err = reach(m, p, len, m->len, "read", &off);

	if (err > 0)
		memcpy(out, p, len);
	if (err)
		return err > 0 ? 0 : err;
	if (flush && m->dev->ops->flush && (err = m->dev->ops->flush(m->dev)))
		return err;
	return m->dev->ops->copy_to_host(m, out, off, len);
}

int gdr_mem_read_at(struct gdr_mem *m, const void *p, size_t len, void *out)
{
	return copy_at(m, p, len, out, 1);
}

int gdr_mem_copy_at(struct gdr_mem *m, const void *p, size_t len, void *out)
{
	return copy_at(m, p, len, out, 0);
}

/* The range is poisoned a piece at a time: a header, or (GPU memory, where
 * the marks cannot be reached one by one) a whole message. */
int gdr_mem_poison_at(struct gdr_mem *m, void *p, size_t len)
{
	uint8_t img[4096];
	uint64_t off;
	int err = reach(m, p, len, m->len, "poison", &off);

	if (err > 0)
		memset(p, POISON, len);
	if (err)
		return err > 0 ? 0 : err;
	memset(img, POISON, len < sizeof(img) ? len : sizeof(img));
	for (size_t done = 0; done < len && !err; done += sizeof(img))
		err = put_back(m, off + done, img, len - done < sizeof(img) ? len - done : sizeof(img));
	return err;
}

int gdr_mem_stray(struct gdr_mem *m, uint64_t rx, uint64_t stride, uint32_t nslots, size_t hl,
		  int64_t *first_p)
{
	size_t span = (size_t)stride * nslots;
	int copied, err, n = 0;
	uint8_t *p;

	*first_p = -1;
	p = view(m, rx, span, &copied, &err);
	if (!p)
		return err;
	if (copied && (err = m->dev->ops->copy_to_host(m, p, rx, span))) {
		free(p);
		return err;
	}
	for (uint32_t j = 0; j < nslots; j++) {
		const uint8_t *s = p + (size_t)j * stride;
		size_t i = 0;

		while (i < hl && s[i] == POISON)
			i++;
		if (i < hl && !n++)
			*first_p = j;
	}
	if (copied)
		free(p);
	return n;
}
