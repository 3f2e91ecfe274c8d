/*
 * --validate messages (pure): every message carries who it is and a
 * CRC32C of what it holds, so a receiver can tell a misplaced, duplicated,
 * stale, short or corrupted message from a good one.
 *
 * Layout, little-endian, FC_VMSG_HDR bytes then the payload:
 *   0 hcrc  CRC32C of bytes 4..23 (the rest of the header)
 *   4 seq   message number in its stream (per QP, from 0)
 *   8 slot  the slot the message was meant for (seq % nslots of the test)
 *  12 len   message length in bytes
 *  16 tag   the test's tag (changes every test: a stale message shows)
 *  20 pcrc  CRC32C of the payload (bytes 24..len-1)
 *  24 payload: a pattern of (tag, slot), but for a mark of 4 bytes at
 *     the start of every FC_VMSG_CHUNK bytes after the first chunk (when
 *     the message holds all 4): the message's seq. The payload CRC skips
 *     the marks, so a sender renumbers a message by rewriting its header
 *     and marks (fc_vmsg_stamp); a receiver that poisons the header and
 *     every mark after its check (fc_vmsg_poison) sees a chunk of a later
 *     message that did not land (a partial write: IOMMU, ACS, a lost
 *     packet) as a mark that is not the message's.
 * A message shorter than the header holds the header's first len bytes:
 * a 2-byte message still carries 16 bits of hcrc, which depends on every
 * field, so a wrong seq, slot, length or test shows with odds 1 - 2^-16.
 */
#ifndef FC_VMSG_H
#define FC_VMSG_H

#include <stddef.h>
#include <stdint.h>

#define FC_VMSG_HDR 24
/*
 * The marks' spacing: 256 B, the smallest path MTU (IB and RoCE), not the
 * QP's path MTU, because it is the stricter of the two. Every path MTU is
 * 256 B times a power of two and the packets of a message start at its
 * multiples from the message's start, so a lost packet at any MTU loses
 * at least one whole chunk and its mark; and the partial write --validate
 * exists for happens on PCIe (IOMMU, ACS, GPUDirect), where the unit is a
 * write of the max payload size (256 B on most servers, 128..512 B), not a
 * packet: a lost 256 B write inside a 4 KiB packet (page-aligned slots:
 * every message above 4 KiB) loses a mark, where marks a path MTU apart
 * would not see it. Not seen: a lost write of less than 256 B that holds
 * no mark (128 B max payload). The cost is 4 bytes stamped and poisoned
 * per 256 B, off the CRC (tests/unit/test_valloop.c test_partial_chunk).
 */
#define FC_VMSG_CHUNK 256
#define FC_VMSG_MARK 4

struct fc_vmsg_id {
	uint32_t tag, seq, slot, len;
};

/* What a check found; names the first problem. */
enum fc_vmsg_err {
	FC_VMSG_OK = 0,
	FC_VMSG_SHORT,	   /* fewer bytes arrived than were sent (byte_len) */
	FC_VMSG_HEADER,	   /* the header is not one of this test's (corrupt) */
	FC_VMSG_OTHER_TEST,/* a good header from another test: stale data */
	FC_VMSG_SLOT,	   /* a message for another slot landed here */
	FC_VMSG_DUP,	   /* a message seen before arrived again */
	FC_VMSG_STALE,	   /* an older message than the one due */
	FC_VMSG_AHEAD,	   /* a later message than the one due: some went missing */
	FC_VMSG_LEN,	   /* the header names another length */
	FC_VMSG_PAYLOAD,   /* the payload's CRC differs: a byte changed */
	FC_VMSG_IMM,	   /* the immediate value is not the message's */
	FC_VMSG_PARTIAL,   /* a chunk's mark is not the message's: part of it did not land */
};

struct fc_vmsg_bad {
	enum fc_vmsg_err err;
	struct fc_vmsg_id want, got; /* got: what the header said (when readable) */
	uint64_t byte_len;	     /* bytes that arrived */
	uint32_t imm;
	int64_t bad_off;	     /* payload: first byte that differs from the pattern */
};

/* Writes the whole message @id (header and payload) into @buf (id->len bytes). */
void fc_vmsg_fill(uint8_t *buf, const struct fc_vmsg_id *id);
/* Rewrites only the header and the marks, for a new seq: the payload of a
 * slot and its CRC (read from the header fc_vmsg_fill wrote) stay. */
void fc_vmsg_stamp(uint8_t *buf, const struct fc_vmsg_id *id);
/* Writes @byte over the header and every mark of a @len-byte message at
 * @buf: what a receiver does once it checked it. */
void fc_vmsg_poison(uint8_t *buf, uint32_t len, uint8_t byte);

/*
 * Checks @byte_len bytes at @buf against the message @want. @last_seq is
 * the last message accepted in this stream (UINT32_MAX: none yet), to tell
 * a duplicate from a stale message. Returns FC_VMSG_OK or the problem,
 * with @bad filled.
 */
enum fc_vmsg_err fc_vmsg_check(const uint8_t *buf, uint64_t byte_len,
			       const struct fc_vmsg_id *want, uint32_t last_seq,
			       struct fc_vmsg_bad *bad);
/* Also checks the immediate value of a receive: it must be want->seq. */
enum fc_vmsg_err fc_vmsg_check_imm(uint32_t imm, const struct fc_vmsg_id *want,
				   struct fc_vmsg_bad *bad);

/* One sentence: "message 12 for slot 3 (4096 B): a message for slot 5 (seq 13) landed here". */
const char *fc_vmsg_why(const struct fc_vmsg_bad *bad, char *buf, size_t len);
/* The short name of @err: "short", "header", "slot", "duplicate", ... */
const char *fc_vmsg_err_name(enum fc_vmsg_err err);

/* ---- Slots a test cycles through (pure) ---- */

#define FC_CYCLE_LINE 64	   /* small messages step by a cache line */
#define FC_CYCLE_SMALL 4096	   /* up to this size: the small region */
#define FC_CYCLE_REGION (64u << 10) /* small messages cycle within 64 KiB */
#define FC_CYCLE_TARGET (4u << 20) /* larger ones over about 4 MiB of pages */
#define FC_CYCLE_MAX_SLOTS 1024

/*
 * The slots a test of @size bytes uses in a buffer half of @half bytes:
 * small messages step by a cache line within FC_CYCLE_REGION, larger ones
 * by whole pages over about FC_CYCLE_TARGET bytes (2..256 slots). The
 * result depends only on @size while @half is large enough, never on the
 * other sizes of the run. Returns 0, or -EINVAL when @size exceeds @half.
 */
int fc_cycle_layout(uint64_t size, uint64_t half, uint64_t *stride_p, uint32_t *nslots_p);

#endif
