/*
 * --validate in the data path on the fake HCA (tests/fake/fake_hca.h): a
 * validated write bandwidth test checks every message where it lands; a
 * message whose header landed and one of whose pages did not (the IOMMU,
 * ACS or GPUDirect failure --validate exists for) fails, named.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "core/vstream.h"
#include "tests/fake/fake_hca.h"

#define SIZE 16384
#define ITERS 400

/* Whether senders write each message's number into its header and marks
 * (host memory); 0: GPU memory, each slot keeps the message it was filled
 * with, and a slot's messages are the same bytes every time. */
static int stamping = 1;

/* What a worker does for --validate (fk_val_side), with stamping. */
static void val_side(struct fk_side *s, struct vb_test *t, struct vb_val *v)
{
	assert_int_equal(fk_val_side(s, t, v, SIZE, stamping), 0);
}

/* A validated write test of 2 QPs, A to B; returns B's tally. */
static struct fc_vtally run_val(struct fk_side *a, struct fk_side *b)
{
	struct vb_test base = { .op = VB_WRITE, .size = SIZE, .iters = ITERS, .interval = 0.1,
				.method = VB_METHOD_FABCHECK, .warmup = 0,
				.cq_mod = VB_KNOB_DEFAULT, .inline_max = VB_KNOB_DEFAULT,
				.cycle = VB_CYCLE_DEFAULT, .post_list = 1, .threads = 1 };
	struct vb_test ta = base, tb = base;
	struct vb_val va, vb;
	struct vb_result ra, rb;
	int ea, eb;

	ta.active = 1;
	tb.passive = 1;
	val_side(b, &tb, &vb);
	val_side(a, &ta, &va);
	fk_run_pair(a, &ta, &ra, &ea, b, &tb, &rb, &eb);
	assert_int_equal(ea, 0);
	assert_int_equal(eb, 0);
	assert_int_equal(va.sent, 2 * ITERS);
	vb_result_release(&ra);
	vb_result_release(&rb);
	return vb.tally;
}

static void pair_up(struct fk_side *a, struct fk_side *b)
{
	struct fk_cfg c = { .nqps = 2, .tx_depth = 64, .threads = 1, .max_size = SIZE,
			    .timeout = 5, .max_inline = 236 };

	assert_int_equal(fk_side_init(a, &c), 0);
	assert_int_equal(fk_side_init(b, &c), 0);
	fk_connect(a, b);
}

/* A healthy link: every message checked, none bad, every slot used. */
static void test_validated_clean(void **state)
{
	struct fk_side a, b;
	struct fc_vtally t;

	(void)state;
	pair_up(&a, &b);
	t = run_val(&a, &b);
	assert_int_equal(t.msgs, 2 * ITERS);
	assert_int_equal(t.bad, 0);
	fk_side_free(&a);
	fk_side_free(&b);
}

/* Message 300 of QP 1 loses @len bytes at @off (0: its page) and nothing
 * else: one bad message, that one, "partial" at @off, named in the text. */
static struct fc_vtally drop_one(uint64_t off, uint32_t len)
{
	struct fk_side a, b;
	struct fc_vtally t;
	char why[512];

	pair_up(&a, &b);
	a.fault.qp = 1;
	a.fault.seq = 300;
	a.fault.drop_off = off;
	if (len)
		a.fault.drop_len = len;
	t = run_val(&a, &b);
	assert_int_equal(t.bad, 1);
	assert_int_equal(t.first_qp, 1);
	assert_int_equal(t.first.want.seq, 300);
	assert_int_equal(t.first.err, FC_VMSG_PARTIAL);
	assert_int_equal(t.first.bad_off, off);
	fc_vtally_why(&t, why, sizeof(why));
	assert_non_null(strstr(why, "message 300"));
	assert_non_null(strstr(why, "partial"));
	fk_side_free(&a);
	fk_side_free(&b);
	return t;
}

/* Message 300 of QP 1 (its slot, 172, held messages 44 and 172 before,
 * of the same payload) loses its page at offset 8192; the header and
 * every other page land. It fails, named. */
static void test_partial_write(void **state)
{
	(void)state;
	assert_int_equal(drop_one(8192, 0).msgs, 2 * ITERS - 1);
}

/* One 256-byte chunk of message 300 of QP 1 does not land, at offset 4352:
 * not a whole packet at the 4096-byte path MTU, but what a PCIe write of
 * 256 B (a common max payload) that the IOMMU or ACS dropped loses. The
 * marks every 256 B (core/vmsg.h) name the message; marks every path MTU
 * would not see it (its stale bytes hold the same pattern). */
static void test_partial_chunk(void **state)
{
	(void)state;
	drop_one(4096 + 256, FC_VMSG_CHUNK);
}

/* A GPU sender (no stamp: message 300 is the same bytes as the messages
 * its slot held before) loses a page: only the receiver's poison of the
 * header and marks after each check (core/vmsg.c fc_vmsg_poison) leaves
 * the lost page's marks unlike the message's; without it the page holds
 * the last message's identical bytes and the loss goes unseen. */
static void test_gpu_sender_lost_page(void **state)
{
	(void)state;
	stamping = 0;
	drop_one(8192, 0);
	drop_one(4096 + 256, FC_VMSG_CHUNK);
	stamping = 1;
}

/* A stand-in for the driver's copies (gdr_mem_read_at, gdr_mem_poison_at
 * on GPU memory): a copy of @len bytes takes len * 8 / STANDIN_GBPS ns. */
#define STANDIN_GBPS 8.0
static uint64_t standin_calls;

static void standin_wait(size_t len, double t0)
{
	while (fc_now() - t0 < (double)len * 8 / (STANDIN_GBPS * 1e9))
		;
}

static int standin_read(void *arg, const uint8_t *p, size_t len, uint8_t *out)
{
	double t0 = fc_now();

	(void)arg;
	memcpy(out, p, len);
	standin_wait(len, t0);
	standin_calls++;
	return 0;
}

static int standin_poison(void *arg, uint8_t *p, size_t len)
{
	double t0 = fc_now();

	(void)arg;
	memset(p, VB_VAL_POISON, len);
	standin_wait(len, t0);
	return 0;
}

/* GPU memory's checks: vb_val_prepare measures the copy (read and poison,
 * each at 8 Gb/s: 4 Gb/s the two) besides the CRC; the ceiling is the two
 * in series, below both (which is lower depends on the host's load: the
 * CRC is CPU time, the stand-in's copy wall time). */
static void test_copy_ceiling(void **state)
{
	struct fk_side a, b;
	struct vb_test t = { .op = VB_WRITE, .size = SIZE, .iters = ITERS, .interval = 0.1,
			     .method = VB_METHOD_FABCHECK, .warmup = 0, .cq_mod = VB_KNOB_DEFAULT,
			     .inline_max = VB_KNOB_DEFAULT, .cycle = VB_CYCLE_DEFAULT,
			     .post_list = 1, .threads = 1, .passive = 1 };
	struct vb_val v = { .tag = 0x26, .read = standin_read, .poison = standin_poison };
	double ceil;

	(void)state;
	pair_up(&a, &b);
	b.r.rx_cap = vb_val_rx_cap(&b.r, SIZE);
	assert_int_equal(vb_test_resolve(&b.r, &t), 0);
	t.val = &v;
	standin_calls = 0;
	assert_int_equal(vb_val_prepare(&b.r, &t), 0);
	assert_true(standin_calls > 0);
	/* at most the stand-in's rate (a loaded host only makes it slower) */
	if (v.copy_gbps > STANDIN_GBPS / 2 * 1.05 || v.copy_gbps <= 0)
		fail_msg("copy rate %.3f Gb/s: the stand-in copies at 4 Gb/s a message", v.copy_gbps);
	ceil = vb_val_ceiling(v.crc_gbps, v.copy_gbps);
	assert_true(ceil < v.copy_gbps && ceil < v.crc_gbps);
	/* host memory: no copy, the CRC alone */
	v.read = NULL;
	v.poison = NULL;
	assert_int_equal(vb_val_prepare(&b.r, &t), 0);
	assert_true(v.copy_gbps == 0 && vb_val_ceiling(v.crc_gbps, v.copy_gbps) == v.crc_gbps);
	fk_side_free(&a);
	fk_side_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_validated_clean),
		cmocka_unit_test(test_partial_write),
		cmocka_unit_test(test_partial_chunk),
		cmocka_unit_test(test_gpu_sender_lost_page),
		cmocka_unit_test(test_copy_ceiling),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
