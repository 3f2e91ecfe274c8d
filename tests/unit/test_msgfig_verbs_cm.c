/*
 * Issue 39 item 5: verbs/cm.c's messages (--cm, QPs connected by rdma_cm)
 * fed known, distinct figures through a fake libibverbs (fake_verbs.h) and
 * a fake librdmacm (fake_rdmacm.h), each checked whole.
 *
 * The figures: rdma_cm's event names are librdmacm's own rdma_event_str;
 * an event's status is the kernel's (a negative errno for address and
 * route events, the CM's reject reason for REJECTED: IBTA CM REJ reason
 * 28, "consumer reject"); QPs are said from 1 ("QP 2" is the second), as
 * the client numbers them in its requests from 0 (vb_cm_connect).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "verbs/cm.h"
#include "verbs/res.h"
#include "fake_verbs.h"
#include "fake_rdmacm.h"
#include "lastlog.h"

/* Device mlx5_7: both ports active RoCE with 2 IPv4 GIDs; roomy limits. */
static int setup(void **state)
{
	(void)state;
	fv_roomy("mlx5_7");
	fr_reset();
	return lastlog_setup(state);
}

static struct vb_opts opts(int port, int nqps)
{
	return (struct vb_opts){ .dev = "mlx5_7", .port = port, .gid_index = -1, .nqps = nqps,
				 .max_size = 65536, .tx_depth = 64, .timeout = 5,
				 .tclass = -1, .sl = -1, .nthreads = 1 };
}

static void close_all(struct vb_res *r)
{
	vb_cm_close(r);
	vb_res_close(r);
}

/* InfiniBand port 2 (LID 417), -x 1: its GID is fe80::, no IP address. */
static void test_ib_gid_not_ip(void **state)
{
	struct vb_opts o = opts(2, 1);
	struct vb_res r = { 0 };

	(void)state;
	fv_port(2, IBV_PORT_ACTIVE, IBV_LINK_LAYER_INFINIBAND, 417, 2);
	o.gid_index = 1;
	assert_int_equal(vb_cm_listen(&r, &o), -EADDRNOTAVAIL);
	assert_string_equal(last, "mlx5_7 port 2: --cm needs an IP address on the fabric: GID index 1 is not IP-based (on InfiniBand, give the IPoIB interface an address and pass its GID with -x, or drop --cm)");
	close_all(&r);
}

/* RoCE port 1 whose GIDs 0 and 1 are link-local (fe80::), 2 an IPv4 one:
 * -x 1 is an IP address, but not one rdma_cm binds; the InfiniBand advice
 * ("not IP-based", IPoIB) would be false here. */
static void test_roce_link_local(void **state)
{
	struct vb_opts o = opts(1, 1);
	struct vb_res r = { 0 };

	(void)state;
	fv.ngids[1] = 3;
	fv.ll_gids[1] = 2;
	o.gid_index = 1;
	assert_int_equal(vb_cm_listen(&r, &o), -EADDRNOTAVAIL);
	assert_string_equal(last, "mlx5_7 port 1: --cm needs an IP address on the fabric: GID index 1 is a link-local IPv6 address, which rdma_cm cannot bind on its own (choose the GID of the port's IPv4 or global IPv6 address with -x: 'fabcheck devices' lists them)");
	close_all(&r);
	/* -x 2, the IPv4 GID, listens */
	memset(&r, 0, sizeof(r));
	o.gid_index = 2;
	assert_int_equal(vb_cm_listen(&r, &o), 0);
	close_all(&r);
}

/* --tclass 106 (DSCP 26, ECN 2) refused by rdma_set_option. */
static void test_tos_refused(void **state)
{
	struct vb_opts o = opts(1, 1);
	struct vb_res r = { 0 };

	(void)state;
	o.tclass = 106;
	fr.fail_tos = EINVAL;
	assert_true(vb_cm_listen(&r, &o) < 0);
	assert_string_equal(last, "mlx5_7: rdma_cm refused the type of service 106 (--tclass): Invalid argument");
	close_all(&r);
}

/* The peer's address never resolves: -t 2 s (o.timeout) of waiting. */
static void test_no_event(void **state)
{
	struct vb_opts o = opts(1, 1);
	struct vb_res r = { 0 };

	(void)state;
	o.timeout = 2;
	fr.silent = 1;
	assert_int_equal(vb_cm_client(&r, &o, "10.1.2.9", 18515), -ETIMEDOUT);
	assert_string_equal(last, "mlx5_7: rdma_cm: no 'RDMA_CM_EVENT_ADDR_RESOLVED' event within 2 s: is the peer's address reachable on the fabric (ping it), and its fabcheck running?");
	close_all(&r);
}

/* Another event than the one waited for, with its status: the route of
 * QP 1 (event 2) unreachable (-113, EHOSTUNREACH); then, with 2 QPs made
 * (events 1-4), the second connection (event 6) rejected, reason 28. */
static void test_wrong_event(void **state)
{
	struct vb_opts o = opts(1, 2);
	struct vb_peer p = { .nqps = 2, .rd_atom = 4, .mtu = 4096 };
	struct vb_res r = { 0 };

	(void)state;
	fr.swap_at = 2;
	fr.swap_type = RDMA_CM_EVENT_UNREACHABLE;
	fr.swap_status = -113;
	assert_int_equal(vb_cm_client(&r, &o, "10.1.2.9", 18515), -ECONNREFUSED);
	assert_string_equal(last, "mlx5_7: rdma_cm: got 'RDMA_CM_EVENT_UNREACHABLE' (status -113) while waiting for 'RDMA_CM_EVENT_ROUTE_RESOLVED': the peer's address is unreachable on the fabric");
	close_all(&r);

	fr_reset();
	memset(&r, 0, sizeof(r));
	fr.swap_at = 6;
	fr.swap_type = RDMA_CM_EVENT_REJECTED;
	fr.swap_status = 28;
	assert_int_equal(vb_cm_client(&r, &o, "10.1.2.9", 18515), 0);
	assert_int_equal(vb_cm_connect(&r, &p, 4096), -ECONNREFUSED);
	assert_string_equal(last, "mlx5_7: rdma_cm: got 'RDMA_CM_EVENT_REJECTED' (status 28) while waiting for 'RDMA_CM_EVENT_ESTABLISHED': the peer refused the connection");
	close_all(&r);
}

/* 3 QPs, the second refused (with inline data and without). */
static void test_qp_refused(void **state)
{
	struct vb_opts o = opts(1, 3);
	struct vb_res r = { 0 };

	(void)state;
	fv.fail_qp = 2;
	assert_true(vb_cm_client(&r, &o, "10.1.2.9", 18515) < 0);
	assert_string_equal(last, "mlx5_7: rdma_cm cannot create QP 2: Cannot allocate memory (lower -q or -t)");
	close_all(&r);
}

/*
 * The server of 2 QPs (indexes 0 and 1, said QP 1 and QP 2) refuses a
 * request for index 5 (said QP 6, as its client would say it), one that
 * names no QP, and a second request for index 0 once the first was
 * accepted. Each refused request's id is the test's to destroy.
 */
static void test_request_refused(void **state)
{
	struct vb_opts o = opts(1, 2);
	struct vb_peer p = { .nqps = 2, .rd_atom = 4, .mtu = 4096 };
	struct vb_res r = { 0 };

	(void)state;
	assert_int_equal(vb_cm_listen(&r, &o), 0);
	fr_request(5, 1);
	assert_int_equal(vb_cm_connect(&r, &p, 4096), -EPROTO);
	assert_string_equal(last, "rdma_cm: a connection request for QP 6, but this side has 2 QPs: refused");
	rdma_destroy_id(fr.req_id);

	fr_request(0, 0);
	assert_int_equal(vb_cm_connect(&r, &p, 4096), -EPROTO);
	assert_string_equal(last, "rdma_cm: a connection request that names no QP (not from fabcheck's --cm): refused");
	rdma_destroy_id(fr.req_id);

	fr_request(0, 1); /* accepted: r.cm_id[0] */
	fr_request(0, 1);
	assert_int_equal(vb_cm_connect(&r, &p, 4096), -EPROTO);
	assert_string_equal(last, "rdma_cm: a second connection request for QP 1: refused");
	assert_non_null(r.cm_id[0]);
	assert_ptr_not_equal(r.cm_id[0], fr.req_id);
	rdma_destroy_id(fr.req_id);
	close_all(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ib_gid_not_ip, setup, lastlog_teardown),
		cmocka_unit_test_setup_teardown(test_roce_link_local, setup, lastlog_teardown),
		cmocka_unit_test_setup_teardown(test_tos_refused, setup, lastlog_teardown),
		cmocka_unit_test_setup_teardown(test_no_event, setup, lastlog_teardown),
		cmocka_unit_test_setup_teardown(test_wrong_event, setup, lastlog_teardown),
		cmocka_unit_test_setup_teardown(test_qp_refused, setup, lastlog_teardown),
		cmocka_unit_test_setup_teardown(test_request_refused, setup, lastlog_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
