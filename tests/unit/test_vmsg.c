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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc_vectors),
		cmocka_unit_test(test_good_and_flipped),
		cmocka_unit_test(test_slot_dup_stale_short),
		cmocka_unit_test(test_tiny_and_imm),
		cmocka_unit_test(test_cycle_layout),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
