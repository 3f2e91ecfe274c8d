/*
 * Issue 39 item 5: verbs/res.c's and verbs/qp.c's messages (device and port
 * choice, the resources of a pair test, QP bring-up) fed known, distinct
 * figures through a fake libibverbs (fake_verbs.h) and checked whole.
 *
 * The limits are ibv_query_device's (man ibv_query_device): max_qp_wr the
 * work requests of each queue, max_cqe "Maximum number of entries in each
 * CQ", max_qp_init_rd_atom the reads a QP issues at once. The buffer is
 * verbs/res.c's layout: a slot per message size rounded up to 4096 B,
 * VB_BUF_TARGET (4 MiB) of slots (2 to 256) per half, two halves.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "core/log.h"
#include "verbs/res.h"
#include "verbs/test.h"
#include "fake_verbs.h"

static char last[1024];
static int logged;

static void keep(enum fc_log_level lvl, const char *msg)
{
	(void)lvl;
	snprintf(last, sizeof(last), "%s", msg);
	logged++;
}

/* Device mlx5_7's defaults: both ports active RoCE with 2 GIDs; roomy limits. */
static int setup(void **state)
{
	(void)state;
	fv_roomy("mlx5_7");
	last[0] = '\0';
	logged = 0;
	fc_log_hook = keep;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fc_log_hook = NULL;
	return 0;
}

static struct vb_opts opts(int port, int nqps, int tx_depth)
{
	return (struct vb_opts){ .dev = "mlx5_7", .port = port, .gid_index = -1, .nqps = nqps,
				 .max_size = 65536, .tx_depth = tx_depth, .timeout = 5,
				 .tclass = -1, .sl = -1, .nthreads = 1 };
}

/* vb_res_pick then vb_res_open: the first error, or 0. */
static int open_res(struct vb_res *r, const struct vb_opts *o)
{
	int err;

	memset(r, 0, sizeof(*r));
	err = vb_res_pick(r, o);
	return err ? err : vb_res_open(r, o, NULL);
}

static void test_port_not_active(void **state)
{
	struct vb_opts o = opts(2, 1, 64);
	struct vb_res r;

	(void)state;
	fv.port[2].state = IBV_PORT_DOWN;
	assert_int_equal(open_res(&r, &o), -ENETDOWN);
	assert_string_equal(last, "mlx5_7 port 2 is not active (or does not exist): check the cable and link (ibstat, ip link), or choose another with -d DEV:PORT");
	vb_res_close(&r);
}

/* -x 6 on a port whose GIDs are at 0 and 1. */
static void test_no_gid_at_index(void **state)
{
	struct vb_opts o = opts(1, 1, 64);
	struct vb_res r;

	(void)state;
	o.gid_index = 6;
	assert_int_equal(open_res(&r, &o), -ENOENT);
	assert_string_equal(last, "mlx5_7 port 1 has no GID at index 6 (-x): run 'fabcheck devices' to see the GID table, or drop -x for the scored choice");
	vb_res_close(&r);
}

static void test_roce_no_gid(void **state)
{
	struct vb_opts o = opts(2, 1, 64);
	struct vb_res r;

	(void)state;
	fv.ngids[2] = 0;
	assert_int_equal(open_res(&r, &o), -ENOENT);
	assert_string_equal(last, "mlx5_7 port 2 has no usable GID: give its network interface an IP address (RoCE needs one)");
	vb_res_close(&r);
}

static void test_ib_no_lid(void **state)
{
	struct vb_opts o = opts(2, 1, 64);
	struct vb_res r;

	(void)state;
	fv_port(2, IBV_PORT_ACTIVE, IBV_LINK_LAYER_INFINIBAND, 0, 1);
	assert_int_equal(open_res(&r, &o), -ENETDOWN);
	assert_string_equal(last, "mlx5_7 port 2 has no LID: is a subnet manager running on the fabric (opensm, or the switch's)?");
	vb_res_close(&r);
}

/*
 * max_cqe bounds each CQ: 5 QPs of -t 200 (receives 400 each, twice -t)
 * need a send CQ of 5 * 200 + 1 = 1001 entries and a receive CQ of
 * 5 * 400 + 1 = 2001. Under max_cqe 1500 the receive CQ cannot be made.
 */
static void test_cq_over_max_cqe(void **state)
{
	struct vb_opts o = opts(1, 5, 200);
	struct vb_res r;

	(void)state;
	fv.da.max_cqe = 1500;
	assert_int_equal(open_res(&r, &o), -EINVAL);
	assert_string_equal(last, "mlx5_7: 5 QPs of 400 receives each need a completion queue of 2001 entries, the device allows 1500 per queue (max_cqe): lower -q or -t");
	assert_int_equal(fv.cqs, 0);
	vb_res_close(&r);
}

/* Under max_cqe 2500 both CQs fit (1001 and 2001 entries): the test opens
 * (the sum of both, 3000, is no limit of the device). */
static void test_cq_under_max_cqe(void **state)
{
	struct vb_opts o = opts(1, 5, 200);
	struct vb_res r;

	(void)state;
	fv.da.max_cqe = 2500;
	assert_int_equal(open_res(&r, &o), 0);
	assert_int_equal(logged, 0);
	assert_int_equal(r.scq->cqe, 1001);
	assert_int_equal(r.rcq->cqe, 2001);
	vb_res_close(&r);
}

/* The receive CQ (3 QPs of 100 receives: 301 entries) refused, the send
 * CQ (3 * 50 + 1 = 151) made: the message names the one refused. */
static void test_recv_cq_refused(void **state)
{
	struct vb_opts o = opts(1, 3, 50);
	struct vb_res r;

	(void)state;
	fv.fail_cq = 2;
	assert_int_equal(open_res(&r, &o), -ENOMEM);
	assert_string_equal(last, "mlx5_7: cannot create the receive completion queue of 301 entries: Invalid argument");
	vb_res_close(&r);
}

/* 4 threads: the send CQ of thread 3's set (call 5) refused. */
static void test_thread_cq_refused(void **state)
{
	struct vb_opts o = opts(1, 8, 40);
	struct vb_res r;

	(void)state;
	o.nthreads = 4;
	fv.fail_cq = 5;
	assert_int_equal(open_res(&r, &o), -ENOMEM);
	assert_string_equal(last, "mlx5_7: cannot create the send completion queue of 321 entries for thread 3 of 4: Invalid argument");
	vb_res_close(&r);
}

/* 1000000-byte messages: slots of 1003520 B (245 pages), 4 of them in
 * 4 MiB, two halves: 8028160 bytes to register. */
static void test_mr_refused(void **state)
{
	struct vb_opts o = opts(1, 1, 64);
	struct vb_res r;

	(void)state;
	o.max_size = 1000000;
	fv.fail_mr = 1;
	assert_int_equal(open_res(&r, &o), -ENOMEM);
	assert_string_equal(last, "mlx5_7: cannot register 8028160 bytes of host memory: Cannot allocate memory (raise 'ulimit -l', the locked-memory limit)");
	vb_res_close(&r);
}

static void test_qp_refused(void **state)
{
	struct vb_opts o = opts(1, 4, 64);
	struct vb_res r;

	(void)state;
	fv.fail_qp = 3;
	assert_int_equal(open_res(&r, &o), -ENOMEM);
	assert_string_equal(last, "mlx5_7: cannot create RC QP 3 of 4: Cannot allocate memory (lower -q or -t)");
	vb_res_close(&r);
}

/* STATE|PKEY_INDEX|PORT|ACCESS_FLAGS: 0x1 | 0x10 | 0x20 | 0x8 = 0x39. */
static void test_init_refused(void **state)
{
	struct vb_opts o = opts(2, 2, 64);
	struct vb_res r;

	(void)state;
	fv.fail_state = IBV_QPS_INIT;
	assert_int_equal(open_res(&r, &o), -EINVAL);
	assert_string_equal(last, "mlx5_7 qp 0x120: RESET->INIT refused: Invalid argument (attribute mask 0x39: STATE|PKEY_INDEX|PORT|ACCESS_FLAGS, port 2)");
	vb_res_close(&r);
}

static void test_post_recv_refused(void **state)
{
	struct vb_opts o = opts(1, 2, 64);
	struct vb_res r;

	(void)state;
	assert_int_equal(open_res(&r, &o), 0);
	fv.fail_post_recv = ENOSPC;
	assert_int_equal(vb_post_recvs(&r, 1), -ENOSPC);
	assert_string_equal(last, "mlx5_7 qp 0x121: cannot post a receive: No space left on device");
	vb_res_close(&r);
}

/* A peer of 3 QPs at 10.1.2.9, reads 4 at once, toward this side's 2 QPs. */
static struct vb_peer peer(int nqps)
{
	struct vb_peer p = { .nqps = nqps, .qpn = { 0x310, 0x311, 0x312 }, .mtu = 4096,
			     .rd_atom = 4, .gid = { [10] = 0xff, [11] = 0xff, [12] = 10, [13] = 1,
						    [14] = 2, [15] = 9 } };

	return p;
}

static void test_connect_refusals(void **state)
{
	struct vb_opts o = opts(1, 2, 64);
	struct vb_peer p = peer(3);
	struct vb_res r;

	(void)state;
	assert_int_equal(open_res(&r, &o), 0);
	assert_int_equal(vb_res_connect(&r, &p, 1000), -EINVAL);
	assert_string_equal(last, "mlx5_7: path MTU 1000 B is not one of 256..4096");
	assert_int_equal(vb_res_connect(&r, &p, 2048), -EPROTO);
	assert_string_equal(last, "mlx5_7: the peer has 3 QPs, this side 2");
	vb_res_close(&r);
}

/*
 * INIT->RTR's mask: STATE 0x1, AV 0x80, PATH_MTU 0x100, RQ_PSN 0x1000,
 * MIN_RNR_TIMER 0x8000, MAX_DEST_RD_ATOMIC 0x20000, DEST_QPN 0x100000:
 * 0x129181. GID index 1 (-x 1), traffic class 106, SL 5, MTU 2048.
 */
static void test_rtr_refused(void **state)
{
	struct vb_opts o = opts(1, 2, 64);
	struct vb_peer p = peer(2);
	struct vb_res r;

	(void)state;
	o.gid_index = 1;
	o.tclass = 106;
	o.sl = 5;
	assert_int_equal(open_res(&r, &o), 0);
	fv.fail_state = IBV_QPS_RTR;
	assert_int_equal(vb_res_connect(&r, &p, 2048), -EINVAL);
	assert_string_equal(last, "mlx5_7 qp 0x120: INIT->RTR refused: Invalid argument (attribute mask 0x129181: STATE|AV|PATH_MTU|DEST_QPN|RQ_PSN|MAX_DEST_RD_ATOMIC|MIN_RNR_TIMER; peer qp 0x310, GID ::ffff:10.1.2.9, path MTU 2048 B, GID index 1, traffic class 106, SL 5): check -x, --tclass, --sl and that both ports share a subnet or VLAN");
	vb_res_close(&r);
}

/* RTS: this side issues 16 reads at once, the peer takes 4: 4 agreed.
 * Then the QoS read-back refused: a warning. */
static void test_rts_refused(void **state)
{
	struct vb_opts o = opts(1, 2, 64);
	struct vb_peer p = peer(2);
	struct vb_res r;
	int tc, sl;

	(void)state;
	assert_int_equal(open_res(&r, &o), 0);
	fv.fail_state = IBV_QPS_RTS;
	assert_int_equal(vb_res_connect(&r, &p, 1024), -EINVAL);
	assert_string_equal(last, "mlx5_7 qp 0x120: RTR->RTS refused: Invalid argument (attribute mask 0x12e01: STATE|TIMEOUT|RETRY_CNT|RNR_RETRY|SQ_PSN|MAX_QP_RD_ATOMIC, max_rd_atomic 4)");
	fv.fail_query_qp = 1;
	assert_int_equal(vb_qp_qos(&r, &tc, &sl), -EOPNOTSUPP);
	assert_string_equal(last, "mlx5_7 qp 0x120: cannot read back its address vector: Operation not supported; the traffic class and SL reported are the ones asked for");
	vb_res_close(&r);
}

/* The peer's slots hold 4096 B, this side's 65536 B: an 8192-byte message
 * fits here but not there; the refusal names the peer's slots. */
static void test_message_over_peer_slots(void **state)
{
	struct vb_opts o = opts(1, 1, 64);
	struct vb_test t = { .op = VB_WRITE, .size = 8192 };
	struct vb_res r;

	(void)state;
	assert_int_equal(open_res(&r, &o), 0);
	r.peer.stride = 4096;
	assert_int_equal(vb_test_prepare(&r, &t), -EINVAL);
	assert_string_equal(last, "mlx5_7: message of 8192 bytes is larger than the peer's buffer slots (4096 bytes)");
	r.peer.stride = 1 << 20;
	t.size = 131072;
	assert_int_equal(vb_test_prepare(&r, &t), -EINVAL);
	assert_string_equal(last, "mlx5_7: message of 131072 bytes is larger than the buffer slots (65536 bytes)");
	vb_res_close(&r);
}

/* -t 3 s: 5 s without a completion after 1234 of them. */
static void test_no_progress(void **state)
{
	struct vb_opts o = opts(1, 1, 64);
	struct vb_clock c;
	struct vb_res r;

	(void)state;
	o.timeout = 3;
	assert_int_equal(open_res(&r, &o), 0);
	vb_clock_start(&c, "write bandwidth");
	c.done = 1234;
	assert_int_equal(vb_clock_tick(&r, &c, c.last_progress + 5), -ETIMEDOUT);
	assert_string_equal(last, "mlx5_7: no progress for 3 s while write bandwidth (1234 completions so far): the peer node or the link stopped; check that the peer is up, its port is active and the link is not dropping packets");
	vb_res_close(&r);
}

/* --validate's 5 slots of 1 MiB for 3 QPs: 1 each, 2 needed. */
static void test_validate_too_few_slots(void **state)
{
	struct vb_opts o = opts(1, 3, 64);
	struct vb_val v = { 0 };
	struct vb_test t = { .op = VB_WRITE, .size = 1048576, .cyc_nslots = 5, .val = &v };
	struct vb_res r;

	(void)state;
	assert_int_equal(open_res(&r, &o), 0);
	assert_int_equal(vb_val_prepare(&r, &t), -EINVAL);
	assert_string_equal(last, "--validate: 1048576 B messages cycle over 5 slots, too few for 3 QPs (2 each at least, so that a slot is not rewritten while its message is checked): use fewer QPs (-q) or smaller messages");
	vb_res_close(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_port_not_active, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_gid_at_index, setup, teardown),
		cmocka_unit_test_setup_teardown(test_roce_no_gid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ib_no_lid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cq_over_max_cqe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cq_under_max_cqe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recv_cq_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_thread_cq_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mr_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_qp_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_init_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_post_recv_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_connect_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rtr_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rts_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_message_over_peer_slots, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_progress, setup, teardown),
		cmocka_unit_test_setup_teardown(test_validate_too_few_slots, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
