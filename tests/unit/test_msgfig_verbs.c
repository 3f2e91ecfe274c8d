/*
 * Issue 39 item 5: messages with figures of verbs/ fed known, distinct
 * figures and checked whole: the QoS findings (verbs/qos.c) on counter
 * deltas and DCB settings, a port the device cannot query (verbs/dev.c),
 * the loopback read that flushes GPUDirect writes (verbs/loop.c) through
 * the fake libibverbs of fake_verbs.h.
 *
 * The QoS model (verbs/qos.c, after mlnx_qos's dscp2prio and PFC tables):
 * a traffic class is the GRH byte, DSCP << 2 | ECN, so 106 is DSCP 26 and
 * 40 is DSCP 10; the default dscp2prio map is DSCP >> 3 (26 -> priority
 * 3, 10 -> 1); the class is lossless when its priority paused
 * ({rx,tx}_prioN_pause rose). Under trust pcp the DSCP picks no priority.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "core/out.h"
#include "verbs/dev.h"
#include "verbs/qos.h"
#include "verbs/res.h"
#include "fake_verbs.h"
#include "lastlog.h"

/* The findings, one a line. */
static void findings(const json_t *doc, char *buf, size_t len)
{
	size_t i, off = 0;
	json_t *v;

	buf[0] = '\0';
	json_array_foreach(json_object_get(doc, "findings"), i, v)
		if (off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s\n", json_string_value(v));
}

/* Loss on the traffic's lossless priority (106: priority 3, which paused
 * 41 times), pauses on another priority while the traffic's own did not. */
static void test_counter_findings(void **state)
{
	json_t *hw = json_pack("{s:I}", "packet_seq_err", (json_int_t)7);
	json_t *eth = json_pack("{s:I}", "rx_prio3_pause", (json_int_t)41);
	json_t *doc = fc_doc_new();
	char text[2048];

	(void)state;
	qos_counter_findings(doc, "nodeB", "mlx5_2", hw, eth, 106);
	findings(doc, text, sizeof(text));
	assert_string_equal(text, "nodeB mlx5_2: packet_seq_err rose by 7 on lossless priority 3: packets were dropped despite PFC; check buffer and PFC settings on the switch port and the NIC\n");
	json_decref(doc);
	json_decref(eth);

	eth = json_pack("{s:I, s:I}", "rx_prio3_pause", (json_int_t)0, "tx_prio5_pause",
			(json_int_t)19);
	doc = fc_doc_new();
	qos_counter_findings(doc, "nodeB", "mlx5_2", NULL, eth, 106);
	findings(doc, text, sizeof(text));
	assert_string_equal(text, "nodeB mlx5_2: tx_prio5_pause rose by 19 but the traffic used priority 3 (traffic class 106): PFC protects the wrong priority; align the switch and the NIC's dscp2prio/PFC maps\n");
	json_decref(doc);
	json_decref(eth);
	json_decref(hw);
}

/* No traffic class set (-1): CNPs ignored, a sequence error on no known
 * priority. */
static void test_no_tclass(void **state)
{
	json_t *hw = json_pack("{s:I, s:I}", "rp_cnp_ignored", (json_int_t)23, "out_of_sequence",
			       (json_int_t)5);
	json_t *doc = fc_doc_new();
	char text[2048];

	(void)state;
	qos_counter_findings(doc, "nodeD", "mlx5_6", hw, NULL, -1);
	findings(doc, text, sizeof(text));
	assert_string_equal(text, "nodeD mlx5_6: 23 CNPs ignored (rp_cnp_ignored): the reaction point does not slow down under congestion; enable DCQCN on this node (roce_rp)\n"
				  "nodeD mlx5_6: out_of_sequence rose by 5: packets were lost: check whether the traffic class rides a PFC-protected priority (the diagnosis says whether the physical layer shows errors)\n");
	json_decref(doc);
	json_decref(hw);
}

/* Pauses on priority 5 and on the traffic's own 3 (41): PFC does protect
 * the traffic's priority, so no "wrong priority"; the loss is on a
 * lossless priority. */
static void test_pauses_on_both(void **state)
{
	json_t *hw = json_pack("{s:I}", "out_of_sequence", (json_int_t)13);
	json_t *eth = json_pack("{s:I, s:I}", "rx_prio3_pause", (json_int_t)41, "tx_prio5_pause",
				(json_int_t)19);
	json_t *doc = fc_doc_new();
	char text[2048];

	(void)state;
	qos_counter_findings(doc, "nodeB", "mlx5_2", hw, eth, 106);
	findings(doc, text, sizeof(text));
	assert_string_equal(text, "nodeB mlx5_2: out_of_sequence rose by 13 on lossless priority 3: packets were dropped despite PFC; check buffer and PFC settings on the switch port and the NIC\n");
	json_decref(doc);
	json_decref(eth);
	json_decref(hw);
}

/* Trust pcp: the DSCP of 106 picks nothing, and no priority is said to be
 * the DSCP's. Trust dscp, PFC on priority 3 only: class 40 (DSCP 10) maps
 * to priority 1. */
static void test_dcb_findings(void **state)
{
	struct qos_dcb dcb = { .trust = "pcp", .pfc_known = 1, .pfc_enabled = { [3] = 1 } };
	json_t *doc = fc_doc_new();
	char text[2048];

	(void)state;
	for (int i = 0; i < 64; i++)
		dcb.dscp2prio[i] = i >> 3;
	qos_dcb_findings(doc, "nodeC", "ens2f1", &dcb, 40);
	findings(doc, text, sizeof(text));
	assert_string_equal(text, "nodeC ens2f1: trust mode is pcp, so the DSCP of traffic class 40 is not used to pick the priority; set 'mlnx_qos -i ens2f1 --trust dscp'\n");
	json_decref(doc);

	snprintf(dcb.trust, sizeof(dcb.trust), "dscp");
	dcb.dscp_known = 1;
	doc = fc_doc_new();
	qos_dcb_findings(doc, "nodeC", "ens2f1", &dcb, 40);
	findings(doc, text, sizeof(text));
	assert_string_equal(text, "nodeC ens2f1: traffic class 40 (DSCP 10) maps to priority 1, which PFC does not protect: use the traffic class of the lossless priority or enable PFC on 1\n");
	json_decref(doc);
}

static int setup(void **state)
{
	(void)state;
	fv_roomy("mlx5_7");
	return lastlog_setup(state);
}

/* The fake device has ports 1 and 2: port 3 is refused by the query. */
static void test_port_query_refused(void **state)
{
	struct vb_port_info pi;

	(void)state;
	assert_int_equal(vb_port_query("mlx5_7", 3, &pi), -EINVAL);
	assert_string_equal(last, "mlx5_7 port 3: ibv_query_port failed: Invalid argument");
}

static int post_refused(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	(void)qp;
	*bad = wr;
	return ENOMEM;
}

static int post_taken(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	(void)qp;
	(void)wr;
	*bad = NULL;
	return 0;
}

static int poll_nothing(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	(void)cq;
	(void)n;
	(void)wc;
	return 0;
}

/* One QP (0x120), the loopback QP next (0x121): its read refused, then
 * taken but never completed within -t 2 s. */
static void test_loopback_read(void **state)
{
	struct vb_opts o = { .dev = "mlx5_7", .port = 1, .gid_index = -1, .nqps = 1,
			     .max_size = 65536, .tx_depth = 64, .timeout = 2, .tclass = -1,
			     .sl = -1, .nthreads = 1 };
	struct vb_res r = { 0 };

	(void)state;
	assert_int_equal(vb_res_pick(&r, &o), 0);
	assert_int_equal(vb_res_open(&r, &o, NULL), 0);
	r.ctx->ops.post_send = post_refused;
	r.ctx->ops.poll_cq = poll_nothing;
	assert_int_equal(vb_loop_read(&r, r.buf), -ENOMEM);
	assert_string_equal(last, "mlx5_7 qp 0x121: cannot post the loopback RDMA READ: Cannot allocate memory");
	r.ctx->ops.post_send = post_taken;
	assert_int_equal(vb_loop_read(&r, r.buf), -ETIMEDOUT);
	assert_string_equal(last, "mlx5_7: the loopback RDMA READ that flushes GPUDirect writes did not complete in 2 s");
	vb_res_close(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counter_findings),
		cmocka_unit_test(test_pauses_on_both),
		cmocka_unit_test(test_no_tclass),
		cmocka_unit_test(test_dcb_findings),
		cmocka_unit_test_setup_teardown(test_port_query_refused, setup, lastlog_teardown),
		cmocka_unit_test_setup_teardown(test_loopback_read, setup, lastlog_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
