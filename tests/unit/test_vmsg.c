/* --validate messages: CRC32C vectors, the header and payload checks, slot cycling. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/crc32c.h"
#include "core/vmsg.h"
#include "core/vstream.h"

/* RFC 3720 B.4 and the usual check value. */
static void test_crc_vectors(void **state __attribute__((unused)))
{
	uint8_t b[32];

	assert_int_equal(fc_crc32c(0, "123456789", 9), 0xe3069283u);
	memset(b, 0, sizeof(b));
	assert_int_equal(fc_crc32c(0, b, 32), 0x8a9136aau);
	memset(b, 0xff, sizeof(b));
	assert_int_equal(fc_crc32c(0, b, 32), 0x62a8ab43u);
	for (int i = 0; i < 32; i++)
		b[i] = (uint8_t)i;
	assert_int_equal(fc_crc32c(0, b, 32), 0x46dd794eu);
	for (int i = 0; i < 32; i++)
		b[i] = (uint8_t)(31 - i);
	assert_int_equal(fc_crc32c(0, b, 32), 0x113fdb5cu);
	assert_int_equal(fc_crc32c(0, b, 0), 0);
	/* In pieces, at odd alignments, as in one go. */
	{
		uint8_t big[1000];
		uint32_t whole, part;

		for (int i = 0; i < 1000; i++)
			big[i] = (uint8_t)(i * 7 + 3);
		whole = fc_crc32c(0, big + 1, 999);
		part = fc_crc32c(fc_crc32c(0, big + 1, 13), big + 14, 986);
		assert_int_equal(whole, part);
	}
}

static uint8_t *msg(uint32_t tag, uint32_t seq, uint32_t slot, uint32_t len)
{
	struct fc_vmsg_id id = { .tag = tag, .seq = seq, .slot = slot, .len = len };
	uint8_t *b = calloc(1, len + 8);

	assert_non_null(b);
	fc_vmsg_fill(b, &id);
	return b;
}

static enum fc_vmsg_err chk(const uint8_t *b, uint64_t got_len, uint32_t seq, uint32_t slot,
			    uint32_t len, uint32_t last, struct fc_vmsg_bad *bad)
{
	struct fc_vmsg_id want = { .tag = 77, .seq = seq, .slot = slot, .len = len };

	return fc_vmsg_check(b, got_len, &want, last, bad);
}

static void test_good_and_flipped(void **state __attribute__((unused)))
{
	struct fc_vmsg_bad bad;
	char why[256];
	uint8_t *b = msg(77, 5, 5, 4096);

	assert_int_equal(chk(b, 4096, 5, 5, 4096, 4, &bad), FC_VMSG_OK);
	/* A flipped payload byte: named with its offset. */
	b[1000] ^= 0x10;
	assert_int_equal(chk(b, 4096, 5, 5, 4096, 4, &bad), FC_VMSG_PAYLOAD);
	assert_int_equal(bad.bad_off, 1000);
	assert_non_null(strstr(fc_vmsg_why(&bad, why, sizeof(why)), "offset 1000"));
	b[1000] ^= 0x10;
	/* A flipped header byte. */
	b[9] ^= 1;
	assert_int_equal(chk(b, 4096, 5, 5, 4096, 4, &bad), FC_VMSG_HEADER);
	assert_non_null(strstr(fc_vmsg_why(&bad, why, sizeof(why)), "header"));
	free(b);
}

static void test_slot_dup_stale_short(void **state __attribute__((unused)))
{
	struct fc_vmsg_bad bad;
	char why[256];
	uint8_t *s3 = msg(77, 3, 3, 512), *s4 = msg(77, 4, 4, 512), *old = msg(76, 4, 4, 512);

	/* Swapped slots: slot 4 holds slot 3's message. */
	assert_int_equal(chk(s3, 512, 4, 4, 512, UINT32_MAX, &bad), FC_VMSG_SLOT);
	assert_int_equal(bad.got.slot, 3);
	assert_non_null(strstr(fc_vmsg_why(&bad, why, sizeof(why)), "misplaced"));
	/* In a stream: message 3 again where 4 is due is a duplicate. */
	assert_int_equal(chk(s3, 512, 4, 4, 512, 3, &bad), FC_VMSG_DUP);
	assert_non_null(strstr(fc_vmsg_why(&bad, why, sizeof(why)), "duplicate"));
	/* Data of the previous test. */
	assert_int_equal(chk(old, 512, 4, 4, 512, 3, &bad), FC_VMSG_OTHER_TEST);
	/* Short: fewer bytes arrived than were sent. */
	assert_int_equal(chk(s4, 500, 4, 4, 512, 3, &bad), FC_VMSG_SHORT);
	assert_non_null(strstr(fc_vmsg_why(&bad, why, sizeof(why)), "500 B arrived"));
	/* Seq differs with the slot right: stale (older) or ahead (lost ones). */
	assert_int_equal(chk(s4, 512, 6, 4, 512, UINT32_MAX, &bad), FC_VMSG_STALE);
	assert_int_equal(chk(s4, 512, 2, 4, 512, UINT32_MAX, &bad), FC_VMSG_AHEAD);
	/* The header's length against the test's. */
	assert_int_equal(chk(s4, 512, 4, 4, 256, UINT32_MAX, &bad), FC_VMSG_LEN);
	assert_int_equal(chk(s4, 512, 4, 4, 512, 3, &bad), FC_VMSG_OK);
	free(s3);
	free(s4);
	free(old);
}

/* Each problem's sentence whole (issue 39 item 5), its figures distinct:
 * message 9 of slot 5, 768 B (three 256-byte chunks: marks at 256 and
 * 512), checked where other messages, lengths or immediates were due. */
static void test_why_whole(void **state __attribute__((unused)))
{
	struct fc_vmsg_bad bad;
	struct fc_vmsg_id want = { .tag = 77, .seq = 9, .slot = 5, .len = 768 };
	char why[320];
	uint8_t *m = msg(77, 9, 5, 768);

	assert_int_equal(chk(m, 768, 11, 5, 768, UINT32_MAX, &bad), FC_VMSG_STALE);
	assert_string_equal(fc_vmsg_why(&bad, why, sizeof(why)), "message 11 for slot 5 (768 B): stale: the older message 9 is here");
	assert_int_equal(chk(m, 768, 7, 5, 768, UINT32_MAX, &bad), FC_VMSG_AHEAD);
	assert_string_equal(fc_vmsg_why(&bad, why, sizeof(why)), "message 7 for slot 5 (768 B): missing: message 9 came instead (messages were lost)");
	assert_int_equal(chk(m, 768, 9, 5, 512, UINT32_MAX, &bad), FC_VMSG_LEN);
	assert_string_equal(fc_vmsg_why(&bad, why, sizeof(why)), "message 9 for slot 5 (512 B): length: its header says 768 B");
	assert_int_equal(chk(m, 700, 9, 5, 768, UINT32_MAX, &bad), FC_VMSG_SHORT);
	assert_string_equal(fc_vmsg_why(&bad, why, sizeof(why)), "message 9 for slot 5 (768 B): short: 700 B arrived");
	assert_int_equal(fc_vmsg_check_imm(8, &want, &bad), FC_VMSG_IMM);
	assert_string_equal(fc_vmsg_why(&bad, why, sizeof(why)), "message 9 for slot 5 (768 B): immediate: the completion carries 8");
	/* The chunk at 512 holds message 16's mark (little-endian): it did not land. */
	m[512] = 16;
	m[513] = m[514] = m[515] = 0;
	assert_int_equal(chk(m, 768, 9, 5, 768, UINT32_MAX, &bad), FC_VMSG_PARTIAL);
	assert_string_equal(fc_vmsg_why(&bad, why, sizeof(why)), "message 9 for slot 5 (768 B): partial: the 256-byte chunk at offset 512 is not this message's (its mark reads 00000010): the header landed and this part did not");
	free(m);
}

static void test_tiny_and_imm(void **state __attribute__((unused)))
{
	struct fc_vmsg_bad bad;
	struct fc_vmsg_id want = { .tag = 77, .seq = 9, .slot = 1, .len = 2 };
	uint8_t *b = msg(77, 9, 1, 2), *o = msg(77, 10, 2, 2);

	assert_int_equal(fc_vmsg_check(b, 2, &want, 8, &bad), FC_VMSG_OK);
	assert_int_equal(fc_vmsg_check(o, 2, &want, 8, &bad), FC_VMSG_HEADER);
	assert_int_equal(fc_vmsg_check(b, 1, &want, 8, &bad), FC_VMSG_SHORT);
	assert_int_equal(fc_vmsg_check_imm(9, &want, &bad), FC_VMSG_OK);
	assert_int_equal(fc_vmsg_check_imm(8, &want, &bad), FC_VMSG_IMM);
	assert_string_equal(fc_vmsg_err_name(bad.err), "immediate");
	/* Stamping a new seq keeps the payload good. */
	{
		uint8_t *m = msg(77, 0, 3, 300);
		struct fc_vmsg_id id = { .tag = 77, .seq = 1027, .slot = 3, .len = 300 };

		fc_vmsg_stamp(m, &id);
		assert_int_equal(fc_vmsg_check(m, 300, &id, 3, &bad), FC_VMSG_OK);
		free(m);
	}
	free(b);
	free(o);
}

static void test_cycle_layout(void **state __attribute__((unused)))
{
	uint64_t stride, s2;
	uint32_t n, n2;

	/* 8 B messages step by a cache line within 64 KiB, whatever the half. */
	assert_int_equal(fc_cycle_layout(8, 1 << 20, &stride, &n), 0);
	assert_int_equal(stride, 64);
	assert_int_equal(n, 1024);
	assert_int_equal(fc_cycle_layout(8, 16 << 20, &s2, &n2), 0);
	assert_true(s2 == stride && n2 == n);
	assert_int_equal(fc_cycle_layout(100, 1 << 20, &stride, &n), 0);
	assert_int_equal(stride, 128);
	assert_int_equal(n, 512);
	assert_int_equal(fc_cycle_layout(4096, 1 << 20, &stride, &n), 0);
	assert_int_equal(stride, 4096);
	assert_int_equal(n, 16);
	/* Larger: pages over about 4 MiB, the same with -a up to 8 MiB or not. */
	assert_int_equal(fc_cycle_layout(1 << 20, 4 << 20, &stride, &n), 0);
	assert_int_equal(fc_cycle_layout(1 << 20, 16 << 20, &s2, &n2), 0);
	assert_true(stride == 1 << 20 && n == 4 && s2 == stride && n2 == n);
	assert_int_equal(fc_cycle_layout(5000, 8 << 20, &stride, &n), 0);
	assert_int_equal(stride, 8192);
	assert_int_equal(n, 256);
	/* Bounded by the half; a message larger than it is refused. */
	assert_int_equal(fc_cycle_layout(8 << 20, 8 << 20, &stride, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(fc_cycle_layout(9 << 20, 8 << 20, &stride, &n), -EINVAL);
	assert_int_equal(fc_cycle_layout(0, 8 << 20, &stride, &n), -EINVAL);
}

/* Checks @b as message @seq of QP 1 (part 4: slot 4 + seq % 4) into @t;
 * the first problem's sentence in @why. */
static enum fc_vmsg_err tchk(struct fc_vtally *t, const uint8_t *b, uint64_t byte_len,
			     uint32_t seq, uint32_t hdr_seq, int has_imm, uint32_t imm, char *why)
{
	struct fc_vmsg_id want = { .tag = 77, .seq = seq, .slot = fc_vslot(1, seq, 4), .len = 512 };
	enum fc_vmsg_err e = fc_vtally_check(t, 1, b, byte_len, &want, hdr_seq, has_imm, imm);

	fc_vtally_why(t, why, 320);
	return e;
}

/* One message at a time, as the receiver checks them: each problem named. */
static void test_tally(void **state __attribute__((unused)))
{
	char why[320];
	struct fc_vtally t;
	/* Messages 5 and 6 of QP 1 (slots 5, 6), numbered in their headers. */
	uint8_t *m5 = msg(77, 5, 5, 512), *m6 = msg(77, 6, 6, 512);
	/* In GPU memory the header keeps its fill number (seq % part). */
	uint8_t *g6 = msg(77, 2, 6, 512);

	assert_int_equal(fc_vslot(1, 5, 4), 5);
	assert_int_equal(fc_vslot(3, 9, 4), 13);
	assert_int_equal(fc_vpart(16, 4), 4);
	assert_int_equal(fc_vpart(4, 4), 0);
	assert_int_equal(fc_vpart(3, 1), 3);
	memset(&t, 0, sizeof(t));
	assert_int_equal(tchk(&t, m5, 512, 5, 5, 1, 5, why), FC_VMSG_OK);
	assert_int_equal(tchk(&t, m6, 512, 6, 6, 1, 6 | FC_VIMM_LAST, why), FC_VMSG_OK);
	assert_int_equal(tchk(&t, g6, 512, 6, 2, 1, 6, why), FC_VMSG_OK);
	assert_true(t.msgs == 3 && t.bytes == 3 * 512 && !t.bad && !t.first_set);
	assert_int_equal(fc_vtally_slots(&t), 2);
	/* A flipped payload byte, named with its offset. */
	m6[300] ^= 4;
	assert_int_equal(tchk(&t, m6, 512, 6, 6, 1, 6, why), FC_VMSG_PAYLOAD);
	assert_non_null(strstr(why, "QP 1, message 6 for slot 6 (512 B): payload"));
	assert_non_null(strstr(why, "offset 300"));
	m6[300] ^= 4;
	/* Only the first problem is kept; every bad one is counted. */
	memset(&t, 0, sizeof(t));
	/* Swapped slots: message 5 where 6 is due (numbered headers: a
	 * duplicate of the one before), and on GPU memory a message of
	 * another slot. */
	assert_int_equal(tchk(&t, m5, 512, 6, 6, 0, 0, why), FC_VMSG_DUP);
	assert_non_null(strstr(why, "duplicate: message 5 arrived again"));
	memset(&t, 0, sizeof(t));
	assert_int_equal(tchk(&t, m5, 512, 6, 2, 0, 0, why), FC_VMSG_SLOT);
	assert_non_null(strstr(why, "QP 1, message 6 for slot 6 (512 B): slot: message 5 for slot 5 landed here (misplaced)"));
	/* A duplicate by its immediate value (headers not numbered). */
	memset(&t, 0, sizeof(t));
	assert_int_equal(tchk(&t, g6, 512, 7, 3, 1, 6, why), FC_VMSG_DUP);
	assert_non_null(strstr(why, "QP 1, message 7 for slot 7 (512 B): duplicate: message 6"));
	/* Older and later immediates: stale, and messages lost. */
	memset(&t, 0, sizeof(t));
	assert_int_equal(tchk(&t, g6, 512, 9, 1, 1, 6, why), FC_VMSG_STALE);
	assert_non_null(strstr(why, "stale: the older message 6"));
	memset(&t, 0, sizeof(t));
	assert_int_equal(tchk(&t, g6, 512, 4, 0, 1, 6, why), FC_VMSG_AHEAD);
	assert_non_null(strstr(why, "missing: message 6 came instead"));
	/* No immediate value on the completion. */
	memset(&t, 0, sizeof(t));
	assert_int_equal(tchk(&t, m6, 512, 6, 6, 1, FC_VIMM_NONE, why), FC_VMSG_IMM);
	assert_non_null(strstr(why, "immediate: the completion carries none"));
	/* Short and long by the completion's byte_len. */
	memset(&t, 0, sizeof(t));
	assert_int_equal(tchk(&t, m6, 100, 6, 6, 1, 6, why), FC_VMSG_SHORT);
	assert_non_null(strstr(why, "short: 100 B arrived"));
	assert_int_equal(tchk(&t, m6, 600, 6, 6, 1, 6, why), FC_VMSG_LEN);
	assert_true(t.bad == 2 && t.first.err == FC_VMSG_SHORT && t.msgs == 0);
	/* A stale header from the previous test, and a poisoned one (the
	 * message did not arrive). */
	memset(&t, 0, sizeof(t));
	{
		uint8_t *old = msg(76, 6, 6, 512);

		assert_int_equal(tchk(&t, old, 512, 6, 6, 1, 6, why), FC_VMSG_OTHER_TEST);
		assert_non_null(strstr(why, "stale-test"));
		memset(old, 0xa5, 24);
		memset(&t, 0, sizeof(t));
		assert_int_equal(tchk(&t, old, 512, 6, 6, 1, 6, why), FC_VMSG_HEADER);
		assert_non_null(strstr(why, "header: its CRC32C does not match"));
		assert_true(t.bad == 1 && t.msgs == 0);
		free(old);
	}
	free(m5);
	free(m6);
	free(g6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc_vectors),
		cmocka_unit_test(test_good_and_flipped),
		cmocka_unit_test(test_slot_dup_stale_short),
		cmocka_unit_test(test_tiny_and_imm),
		cmocka_unit_test(test_why_whole),
		cmocka_unit_test(test_cycle_layout),
		cmocka_unit_test(test_tally),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
