/*
 * Only the GPU fabric's ports are judged for a drain (pf_port_left): a
 * rack of three recorded rxe nodes with two rails (rxe0, rxe1 at 25 Gb/s),
 * a storage NIC (rxe2 at 10 Gb/s, same subnet on every node) and an
 * uncabled port (rxe3, DOWN). With --expect-rate 20 the storage and the
 * uncabled ports are warnings and blame no node; a rail port below the
 * rate, or down, blames its node.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "checks/preflight/preflight.h"
#include "core/out.h"

#include "tests/unit/finding.h"

/* Device @name on @netdev, subnet 10.@net.@node.0/24... at @rate, @state. */
static json_t *dev(const json_t *tmpl, const char *name, const char *netdev, int net, double rate,
		   const char *state)
{
	json_t *d = json_deep_copy(tmpl), *port = json_array_get(json_object_get(d, "ports"), 0);
	char sub[32];

	snprintf(sub, sizeof(sub), "10.%d.0.0/24", net);
	json_object_set_new(d, "name", json_string(name));
	json_object_set_new(port, "device", json_string(name));
	json_object_set_new(port, "netdev", json_string(netdev));
	json_object_set_new(port, "rate_gbps", json_real(rate));
	json_object_set_new(port, "state", json_string(state));
	json_object_set_new(port, "subnet", json_string(sub));
	return d;
}

/* A node's probe; @rail1_rate: its rxe1's rate, @rail1_state its state. */
static json_t *probe(double rail1_rate, const char *rail1_state)
{
	json_t *p = json_load_file("tests/data/preflight/rxe-node.json", 0, NULL), *devs, *t;
	static const char *const nd[] = { "eth0", "eth2", "eth3", "eth4" };

	assert_non_null(p);
	devs = json_object_get(p, "devices");
	t = json_deep_copy(json_array_get(devs, 0));
	json_array_clear(devs);
	json_array_append_new(devs, dev(t, "rxe0", "eth0", 77, 25, "ACTIVE"));
	json_array_append_new(devs, dev(t, "rxe1", "eth2", 78, rail1_rate, rail1_state));
	json_array_append_new(devs, dev(t, "rxe2", "eth3", 99, 10, "ACTIVE"));
	json_array_append_new(devs, dev(t, "rxe3", "eth4", 98, 25, "DOWN"));
	for (int i = 0; i < 4; i++)
		json_object_set_new(json_object_get(p, "netdevs"), nd[i],
				    json_pack("{s:s, s:i}", "name", nd[i], "mtu", 9000));
	json_decref(t);
	return p;
}

static json_t *rack(double c_rate, const char *c_state)
{
	return json_pack("[{s:s, s:o}, {s:s, s:o}, {s:s, s:o}]", "node", "nodeA", "probe",
			 probe(25, "ACTIVE"), "node", "nodeB", "probe", probe(25, "ACTIVE"), "node",
			 "nodeC", "probe", probe(c_rate, c_state));
}

static int blamed(const json_t *doc, const char *node, const char *dev)
{
	size_t i;
	json_t *b;
	int n = 0;

	json_array_foreach(json_object_get(doc, "blame"), i, b)
		n += (!node || !strcmp(fc_jstr(b, "node", ""), node)) &&
		     (!dev || !strcmp(fc_jstr(b, "device", ""), dev));
	return n;
}

static void test_healthy_rack_blames_nothing(void **state)
{
	struct pf_opts o = { .expect_rate_gbps = 20, .tclass = 106 };
	json_t *doc = fc_doc_new(), *nodes = rack(25, "ACTIVE");

	(void)state;
	pf_check(doc, nodes, &o);
	assert_int_equal(blamed(doc, NULL, NULL), 0);
	assert_string_not_equal(fc_jstr(doc, "verdict", ""), "fail");
	/* Reported, as warnings that say why they are not judged. */
	assert_true(has_finding_part(doc, "nodeA: rxe2 port 1 runs at 10 Gb/s"));
	assert_true(has_finding_part(doc, "nodeA: rxe3 port 1 is DOWN"));
	assert_true(has_finding_part(doc, "not judged for a drain"));
	json_decref(nodes);
	json_decref(doc);
}

static void test_rail_port_faults_blame(void **state)
{
	struct pf_opts o = { .expect_rate_gbps = 20, .tclass = 106 };
	json_t *doc = fc_doc_new(), *nodes = rack(10, "ACTIVE");

	(void)state;
	pf_check(doc, nodes, &o);
	assert_true(blamed(doc, "nodeC", "rxe1") >= 1);
	assert_int_equal(blamed(doc, "nodeA", NULL) + blamed(doc, "nodeB", NULL), 0);
	assert_int_equal(blamed(doc, NULL, "rxe2") + blamed(doc, NULL, "rxe3"), 0);
	json_decref(nodes);
	json_decref(doc);
	doc = fc_doc_new();
	nodes = rack(25, "DOWN");
	pf_check(doc, nodes, &o);
	assert_true(blamed(doc, "nodeC", "rxe1") >= 1);
	assert_int_equal(blamed(doc, NULL, "rxe3"), 0);
	json_decref(nodes);
	json_decref(doc);
}

/* --exclude-dev: a rail device named is left out too. */
static void test_exclude_dev(void **state)
{
	struct pf_opts o = { .expect_rate_gbps = 20, .tclass = 106, .exclude_dev = "rxe9,rxe1" };
	json_t *doc = fc_doc_new(), *nodes = rack(10, "ACTIVE");

	(void)state;
	pf_check(doc, nodes, &o);
	assert_int_equal(blamed(doc, NULL, "rxe1"), 0);
	json_decref(nodes);
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_healthy_rack_blames_nothing),
		cmocka_unit_test(test_rail_port_faults_blame),
		cmocka_unit_test(test_exclude_dev),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
