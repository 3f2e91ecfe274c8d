/*
 * Rail matching (issue 37 item 3) on a real rail-routed RoCE fabric of more
 * than 2 nodes x 2 rails: four GPU nodes of one cluster, eight rails, each
 * rail port in a /31 to its leaf, as tests/real/ip/idx53226581302_..._EXCERPT.txt
 * records each node's `ip -br -c a` and `ibdev2netdev` (source in
 * tests/real/SOURCES.tsv). The plan as published: the /31s of one rail come
 * from one /24, 10.99.9R.0 for rail R, on every node; the expectation
 * ("rails_as_published" in the capture's .expect.json) is read off the
 * addresses. Two server models: aihub0007/0008 put the rails on mlx5_0, 1,
 * 2, 5, 6, 7, 8, 11, aihub0009 on mlx5_0, 3, 4, 5, 6, 9, 10, 11, aihub0012 on
 * mlx5_0..7, so names say nothing of the rail.
 *
 * Each node's port list is what `fabcheck devices` records there: per
 * RDMA device (ibdev2netdev) its port 1, net device and state, the net
 * device's first IPv4 address (subnet, prefix length), and for a /31 with no
 * route through it the other end of the link as its gateway (the probe's
 * rule, fc_rail_link_peer); Ethernet (RoCE: the same file sets
 * NCCL_IB_GID_INDEX=3); no NUMA node, PCI address, rate or LLDP neighbour
 * (the capture has none). Ports in the order the probe lists them (by name).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rail.h"

#define CAP "tests/real/ip/idx53226581302_4node-8rail-roce-31_ip-br-ibdev2netdev_shifted-names_EXCERPT"
#define MAXN 4
#define MAXP 16
#define NRAILS 8

struct ifc {
	char name[32], state[16], addr[48];
};

struct node {
	char host[32];
	struct ifc ifs[24];
	int nifs;
	struct fc_rail_port ports[MAXP];
	int nports;
};

struct plan {
	struct node nd[MAXN];
	int n;
	struct fc_rail_node nodes[MAXN];
	char want[MAXN][NRAILS][16]; /* the published device of each rail */
};

static const struct ifc *ifc_of(const struct node *nd, const char *name)
{
	for (int i = 0; i < nd->nifs; i++)
		if (!strcmp(nd->ifs[i].name, name))
			return &nd->ifs[i];
	return NULL;
}

/* "mlx5_0 port 1 ==> enp25s0np0 (Up)": one port of the node's list. */
static void add_port(struct node *nd, const char *line)
{
	struct fc_rail_port *p = &nd->ports[nd->nports];
	char dev[64], netdev[32], st[8];
	const struct ifc *f;
	char *slash;

	assert_int_equal(sscanf(line, "%63s port %d ==> %31s (%7[A-Za-z])", dev, &p->port, netdev, st), 4);
	assert_true(nd->nports < MAXP);
	memcpy(p->dev, dev, sizeof(p->dev));
	memcpy(p->netdev, netdev, sizeof(p->netdev));
	p->active = !strcmp(st, "Up");
	p->link_layer = FC_RAIL_LL_ETH;
	p->prefix_len = -1;
	p->numa = -1;
	f = ifc_of(nd, netdev);
	assert_non_null(f);
	if (f->addr[0]) {
		const char *list[1] = { f->addr };

		p->prefix_len = fc_rail_subnet_of(list, 1, p->subnet, sizeof(p->subnet));
		fc_rail_link_peer(f->addr, p->gateway, sizeof(p->gateway));
		slash = strchr(f->addr, '/');
		assert_non_null(slash);
	}
	nd->nports++;
}

static int by_name(const void *a, const void *b)
{
	return fc_rail_name_cmp(((const struct fc_rail_port *)a)->dev,
				((const struct fc_rail_port *)b)->dev);
}

/* The capture: prompts name the node and the command; `ip -br` lines are
 * "NAME STATE [ADDR ...]"; the nvidia-smi table between is skipped. */
static void load(struct plan *p)
{
	FILE *f = fopen(CAP ".txt", "r");
	char line[512], host[32], cmd[64];
	struct node *nd = NULL;
	int mode = 0; /* 1 ip -br, 2 ibdev2netdev */

	assert_non_null(f);
	memset(p, 0, sizeof(*p));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "((sglang-0.5.9) ) [dcbsr_dev@%31[^ ] ~]$ %63[^\n]", host, cmd) == 2) {
			if (!nd || strcmp(nd->host, host)) {
				assert_true(p->n < MAXN);
				nd = &p->nd[p->n++];
				snprintf(nd->host, sizeof(nd->host), "%s", host);
			}
			mode = !strncmp(cmd, "ip -br", 6) ? 1 : !strncmp(cmd, "ibdev2netdev", 12) ? 2 : 0;
			continue;
		}
		if (mode == 1 && line[0] != '\n') {
			struct ifc *i = &nd->ifs[nd->nifs++];

			assert_true(sscanf(line, "%31s %15s %47s", i->name, i->state, i->addr) >= 2);
		} else if (mode == 2 && line[0] != '\n') {
			add_port(nd, line);
		}
	}
	fclose(f);
	assert_int_equal(p->n, MAXN);
	for (int i = 0; i < p->n; i++) {
		qsort(p->nd[i].ports, (size_t)p->nd[i].nports, sizeof(p->nd[i].ports[0]), by_name);
		p->nodes[i] = (struct fc_rail_node){ .name = p->nd[i].host, .ports = p->nd[i].ports,
						     .nports = p->nd[i].nports };
	}
}

/* The published rails, from the capture's expectation. */
static void published(struct plan *p)
{
	json_error_t je;
	json_t *doc = json_load_file(CAP ".expect.json", 0, &je), *nd;
	size_t i;

	assert_non_null(doc);
	json_array_foreach(json_object_get(doc, "nodes"), i, nd) {
		assert_string_equal(json_string_value(json_object_get(nd, "name")), p->nd[i].host);
		for (int r = 0; r < NRAILS; r++) {
			char key[8];
			const char *dev;

			snprintf(key, sizeof(key), "rail%d", r + 1);
			dev = json_string_value(json_object_get(json_object_get(nd, "rails_as_published"), key));
			assert_non_null(dev);
			snprintf(p->want[i][r], sizeof(p->want[i][r]), "%s", dev);
		}
	}
	json_decref(doc);
}

static void show(const struct fc_rail_map *m)
{
	printf("  %d rails by %s%s%s\n", m->nrails, fc_rail_by_name(m->by), m->assumed[0] ? ": " : "",
	       m->assumed);
	for (int i = 0; i < m->nfindings; i++)
		printf("  [%d] node %d: %s\n", m->findings[i].sev, m->findings[i].node, m->findings[i].text);
}

/* The map's rail that holds node @i's device @dev, or -1. */
static int rail_of(const struct fc_rail_map *m, const struct plan *p, int i, const char *dev)
{
	for (int r = 0; r < m->nrails; r++) {
		const struct fc_rail_port *q = fc_rail_port_of(m, p->nodes, i, r);

		if (q && !strcmp(q->dev, dev))
			return r;
	}
	return -1;
}

/* Each published rail is one rail of the map holding each node's published
 * device, but @skip_node's on @skip_rail (-1: none), which is on none. */
static void expect_published(const struct fc_rail_map *m, const struct plan *p, int skip_node,
			     int skip_rail)
{
	int seen[FC_RAIL_MAX] = { 0 };

	assert_int_equal(m->nrails, NRAILS);
	for (int r = 0; r < NRAILS; r++) {
		int mr = rail_of(m, p, skip_node == 0 && skip_rail == r ? 1 : 0,
				 p->want[skip_node == 0 && skip_rail == r ? 1 : 0][r]);

		assert_true(mr >= 0);
		assert_int_equal(seen[mr]++, 0);
		for (int i = 0; i < p->n; i++) {
			const struct fc_rail_port *q = fc_rail_port_of(m, p->nodes, i, mr);

			if (i == skip_node && r == skip_rail) {
				assert_true(!q || strcmp(q->dev, p->want[i][r]) || !q->active);
				continue;
			}
			assert_non_null(q);
			assert_string_equal(q->dev, p->want[i][r]);
		}
	}
}

static int count(const struct fc_rail_map *m, enum fc_rail_sev sev, const char *w1, const char *w2)
{
	int c = 0;

	for (int i = 0; i < m->nfindings; i++)
		c += m->findings[i].sev == sev && (!w1 || strstr(m->findings[i].text, w1)) &&
		     (!w2 || strstr(m->findings[i].text, w2));
	return c;
}

/* As published: eight rails, each the same /24's port of every node,
 * whatever its name; nothing fails, no swap is named. */
static void test_as_published(void **state)
{
	struct plan p;
	struct fc_rail_map m;

	(void)state;
	load(&p);
	published(&p);
	assert_int_equal(fc_rail_match(p.nodes, p.n, NULL, &m), 0);
	show(&m);
	expect_published(&m, &p, -1, -1);
	assert_int_equal(m.by, FC_RAIL_BY_GATEWAY);
	assert_int_equal(count(&m, FC_RAIL_FAIL, NULL, NULL), 0);
	assert_int_equal(count(&m, FC_RAIL_WARN, "swapped", NULL), 0);
	fc_rail_map_release(&m);
}

/* aihub0009's rail 3 port (mlx5_4, ens110np0) goes down, its address kept
 * (the kernel keeps it on a NO-CARRIER link): every other port stays on its
 * rail, and the one failure names that node and device. */
static void test_one_port_down(void **state)
{
	struct plan p;
	struct fc_rail_map m;
	struct node *nd;

	(void)state;
	load(&p);
	published(&p);
	nd = &p.nd[2];
	assert_string_equal(nd->host, "tpgds-aihub0009");
	for (int j = 0; j < nd->nports; j++)
		if (!strcmp(nd->ports[j].dev, p.want[2][2]))
			nd->ports[j].active = 0;
	assert_int_equal(fc_rail_match(p.nodes, p.n, NULL, &m), 0);
	show(&m);
	expect_published(&m, &p, 2, 2);
	assert_true(count(&m, FC_RAIL_FAIL, NULL, NULL) >= 1);
	assert_int_equal(count(&m, FC_RAIL_FAIL, NULL, NULL),
			 count(&m, FC_RAIL_FAIL, "tpgds-aihub0009", "mlx5_4"));
	fc_rail_map_release(&m);
}

/* The same port gone from the list (a card that did not come up): the
 * others stay where they are; the node is named for the missing rail. */
static void test_port_missing(void **state)
{
	struct plan p;
	struct fc_rail_map m;
	struct node *nd;
	int k = 0;

	(void)state;
	load(&p);
	published(&p);
	nd = &p.nd[2];
	for (int j = 0; j < nd->nports; j++)
		if (strcmp(nd->ports[j].dev, p.want[2][2]))
			nd->ports[k++] = nd->ports[j];
	nd->nports = k;
	p.nodes[2].nports = k;
	assert_int_equal(fc_rail_match(p.nodes, p.n, NULL, &m), 0);
	show(&m);
	expect_published(&m, &p, 2, 2);
	assert_true(count(&m, FC_RAIL_FAIL, "tpgds-aihub0009", NULL) >= 1);
	assert_int_equal(count(&m, FC_RAIL_FAIL, NULL, NULL),
			 count(&m, FC_RAIL_FAIL, "tpgds-aihub0009", NULL));
	/* no other port of that node (its unaddressed, down mlx5_2) is blamed */
	assert_int_equal(count(&m, FC_RAIL_FAIL, "is not active", NULL), 0);
	fc_rail_map_release(&m);
}

/* A default route over the eight rail ports (ECMP): /proc/net/route shows
 * its first next hop only, so the probe marks each node's rail 1 port as
 * carrying the default route. It stays a rail. */
static void test_ecmp_default(void **state)
{
	struct plan p;
	struct fc_rail_map m;

	(void)state;
	load(&p);
	published(&p);
	for (int i = 0; i < p.n; i++)
		for (int j = 0; j < p.nd[i].nports; j++)
			if (!strcmp(p.nd[i].ports[j].dev, p.want[i][0]))
				snprintf(p.nd[i].ports[j].mgmt, sizeof(p.nd[i].ports[j].mgmt),
					 "carries the node's default route");
	assert_int_equal(fc_rail_match(p.nodes, p.n, NULL, &m), 0);
	show(&m);
	expect_published(&m, &p, -1, -1);
	assert_int_equal(count(&m, FC_RAIL_FAIL, NULL, NULL), 0);
	fc_rail_map_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_as_published),
		cmocka_unit_test(test_one_port_down),
		cmocka_unit_test(test_port_missing),
		cmocka_unit_test(test_ecmp_default),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
