/*
 * --validate message by message (pure): the tally of a validated test and
 * the check of one received message against the stream it belongs to.
 *
 * Each QP is a stream: its messages are numbered from 0 (warm-up
 * included) and message m of QP q goes to slot q * part + m % part of the
 * test's cycle (fc_vslot), so every QP has its own slots and a slot is
 * reused only after part messages. The receiver knows which message is due
 * on each QP; a completion (receive, or the reader's own read) names the
 * bytes that arrived and, for a receive, the immediate value, which
 * carries the message number (bit 31 marks the last message of the test).
 * The tally is shared by the data path's threads (atomic counts, the first
 * problem kept once).
 */
#ifndef FC_VSTREAM_H
#define FC_VSTREAM_H

#include <stdint.h>

#include "core/vmsg.h"

#define FC_VIMM_LAST 0x80000000u
#define FC_VIMM_SEQ 0x7fffffffu
#define FC_VIMM_NONE 0xffffffffu /* the completion carried no immediate value */

struct fc_vtally {
	uint64_t msgs;	  /* messages that passed every check */
	uint64_t bytes;	  /* bytes those held */
	uint64_t bad;	  /* messages that failed one */
	uint64_t slot_bits[FC_CYCLE_MAX_SLOTS / 64]; /* slots a good message was checked in */
	int first_set;	  /* first problem kept (set once) */
	int first_qp;
	struct fc_vmsg_bad first;
};

/* Slot of message @seq of QP @q: q * part + seq % part. */
static inline uint32_t fc_vslot(int q, uint64_t seq, uint32_t part)
{
	return (uint32_t)q * part + (uint32_t)(seq % part);
}

/* Slots per QP for @nslots slots over @nqps QPs; 0 when fewer than 2
 * (a slot must not be rewritten while its last message is checked). */
uint32_t fc_vpart(uint32_t nslots, int nqps);

/*
 * Checks one message of QP @q that arrived at @buf: @byte_len bytes by its
 * completion, immediate @imm when @has_imm, against @want (want->seq: the
 * message due; the header's seq must equal @hdr_seq, which is want->seq
 * when the sender wrote each message's number into its header, or the
 * number its slot was filled with when it could not). Tallies the result.
 */
enum fc_vmsg_err fc_vtally_check(struct fc_vtally *t, int q, const uint8_t *buf,
				 uint64_t byte_len, const struct fc_vmsg_id *want, uint32_t hdr_seq,
				 int has_imm, uint32_t imm);
/* Slots a good message was checked in. */
uint32_t fc_vtally_slots(const struct fc_vtally *t);
/* "QP 2, message 12 for slot 3 (4096 B): slot: ..." for the first problem. */
const char *fc_vtally_why(const struct fc_vtally *t, char *buf, size_t len);

#endif
