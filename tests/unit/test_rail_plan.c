/*
 * Rail matching (issue 37 item 3) on a published RoCE addressing plan of a
 * real fabric: the GPU Servers table of a rail-routed lab (two Nexus 9332PQ
 * leaves, one per rail, SVI gateways .254; two servers, one dual-port
 * ConnectX-3 Pro each), tests/real/topo-extra/enizaksoy-lab_..._EXCERPT.txt
 * (source in that folder's SOURCES.tsv). Each server row gives the address
 * of each port, one column per net device with the plan's rail:
 * "ens6d1 (Rail 0)", "ens6 (Rail 1)". The plan puts the second port
 * (ens6d1: mlx4_en names a card's second port with the "d1" suffix of its
 * dev_port) on rail 0 and the first on rail 1, so the rails do not follow
 * the ports' order on the card; rails are matched by the network each port
 * is on (core/rail.h), and each rail must hold the same column's port of
 * both servers, with nothing to report. A port taken down on one server
 * leaves the other on its rail and is named on the right one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rail.h"

#define PLAN "tests/real/topo-extra/enizaksoy-lab_2node-2rail-roce_nexus9332pq_ip-plan_EXCERPT.txt"
#define MAXN 4
#define MAXC 4

struct plan {
	char col[MAXC][32];		/* the net device of each address column */
	int ncol;
	char host[MAXN][32];
	struct fc_rail_port ports[MAXN][MAXC];
	struct fc_rail_node nodes[MAXN];
	int n;
};

/* "| Server | OS | NIC | Mgmt IP | ens6d1 (Rail 0) | ens6 (Rail 1) |": the
 * cells that name a rail, in order. */
static void header(struct plan *p, const char *line)
{
	for (const char *c = strchr(line, '|'); c && p->ncol < MAXC; c = strchr(c + 1, '|')) {
		const char *rail = strstr(c + 1, " (Rail");
		const char *next = strchr(c + 1, '|');

		if (rail && next && rail < next)
			assert_int_equal(sscanf(c + 1, " %31s", p->col[p->ncol++]), 1);
	}
	assert_int_equal(p->ncol, 2);
}

/* "10.0.0.1/24 |": the next address column of the last server. */
static void address(struct plan *p, const char *line)
{
	struct fc_rail_node *nd = &p->nodes[p->n - 1];
	struct fc_rail_port *pt = &p->ports[p->n - 1][nd->nports];
	char addr[32];
	int len;

	assert_true(nd->nports < p->ncol);
	assert_int_equal(sscanf(line, "%31[0-9.]/%d |", addr, &len), 2);
	memset(pt, 0, sizeof(*pt));
	snprintf(pt->dev, sizeof(pt->dev), "mlx4_0");
	memcpy(pt->netdev, p->col[nd->nports], sizeof(p->col[0]));
	pt->port = strstr(pt->netdev, "d1") ? 2 : 1;
	pt->active = 1;
	pt->link_layer = FC_RAIL_LL_ETH;
	pt->prefix_len = len;
	assert_int_equal(fc_rail_subnet_ipv4(addr, len, pt->subnet, sizeof(pt->subnet)), 0);
	pt->rate = 40;
	pt->width = 4;
	pt->numa = -1;
	nd->nports++;
}

/* Ports in the order the probe lists them: by port number on the card. */
static void order(struct plan *p)
{
	for (int h = 0; h < p->n; h++)
		if (p->nodes[h].nports == 2 && p->ports[h][0].port > p->ports[h][1].port) {
			struct fc_rail_port x = p->ports[h][0];

			p->ports[h][0] = p->ports[h][1];
			p->ports[h][1] = x;
		}
}

static void load(struct plan *p)
{
	FILE *in = fopen(PLAN, "r");
	char line[256], name[32];

	assert_non_null(in);
	memset(p, 0, sizeof(*p));
	while (fgets(line, sizeof(line), in)) {
		if (!strncmp(line, "| Server |", 10))
			header(p, line);
		else if (sscanf(line, "| %31s |", name) == 1 && strcmp(name, "---|---|---|---|---|---|")) {
			assert_true(p->n < MAXN);
			snprintf(p->host[p->n], sizeof(p->host[0]), "%s", name);
			p->nodes[p->n] = (struct fc_rail_node){ .name = p->host[p->n],
							       .ports = p->ports[p->n] };
			p->n++;
		} else if (line[0] >= '0' && line[0] <= '9' && p->n)
			address(p, line);
	}
	fclose(in);
	assert_int_equal(p->n, 2);
	order(p);
}

static int count(const struct fc_rail_map *m, enum fc_rail_sev sev, const char *a, const char *b)
{
	int c = 0;

	for (int i = 0; i < m->nfindings; i++) {
		print_message("  [%d] %s\n", m->findings[i].sev, m->findings[i].text);
		c += m->findings[i].sev >= sev && strstr(m->findings[i].text, a) &&
		     (!b || strstr(m->findings[i].text, b));
	}
	return c;
}

/* The rail (fabcheck's index) whose subnet is @subnet; -1 none. */
static int rail_of(const struct fc_rail_map *m, const char *subnet)
{
	for (int r = 0; r < m->nrails; r++)
		if (!strcmp(m->rails[r].subnet, subnet))
			return r;
	return -1;
}

/* Every rail holds one column's port on every server that has it up. */
static void same_column(const struct plan *p, const struct fc_rail_map *m)
{
	for (int c = 0; c < p->ncol; c++) {
		const struct fc_rail_port *want = NULL;
		int r;

		for (int k = 0; k < 2; k++)
			if (!strcmp(p->ports[0][k].netdev, p->col[c]))
				want = &p->ports[0][k];
		assert_non_null(want);
		r = rail_of(m, want->subnet);
		assert_true(r >= 0);
		for (int h = 0; h < p->n; h++) {
			const struct fc_rail_port *got = fc_rail_port_of(m, p->nodes, h, r);

			if (got)
				assert_string_equal(got->netdev, p->col[c]);
		}
	}
}

static void test_plan_as_published(void **state)
{
	struct plan p;
	struct fc_rail_map m;

	(void)state;
	load(&p);
	memset(&m, 0, sizeof(m));
	assert_int_equal(fc_rail_match(p.nodes, p.n, NULL, &m), 0);
	assert_int_equal(m.nrails, 2);
	assert_int_equal(m.by, FC_RAIL_BY_SUBNET);
	same_column(&p, &m);
	for (int h = 0; h < p.n; h++)
		for (int r = 0; r < m.nrails; r++)
			assert_non_null(fc_rail_port_of(&m, p.nodes, h, r));
	assert_int_equal(count(&m, FC_RAIL_WARN, "", NULL), 0);
	fc_rail_map_release(&m);
}

/* gpuserver2's ens6 (the plan's rail 1, 10.0.1.0/24) down: its ens6d1 stays
 * on 10.0.0.0/24 and the failure names gpuserver2 on the other rail. */
static void test_plan_one_port_down(void **state)
{
	struct plan p;
	struct fc_rail_map m;
	char on[48];
	int r1;

	(void)state;
	load(&p);
	for (int k = 0; k < 2; k++)
		if (!strcmp(p.ports[1][k].netdev, "ens6"))
			p.ports[1][k].active = 0;
	memset(&m, 0, sizeof(m));
	assert_int_equal(fc_rail_match(p.nodes, p.n, NULL, &m), 0);
	assert_int_equal(m.nrails, 2);
	same_column(&p, &m);
	r1 = rail_of(&m, "10.0.1.0/24");
	assert_true(r1 >= 0);
	assert_null(fc_rail_port_of(&m, p.nodes, 1, r1));
	assert_non_null(fc_rail_port_of(&m, p.nodes, 1, rail_of(&m, "10.0.0.0/24")));
	snprintf(on, sizeof(on), "no active port on rail %d ", r1);
	assert_int_equal(count(&m, FC_RAIL_FAIL, "gpuserver2", on), 1);
	assert_int_equal(count(&m, FC_RAIL_FAIL, "", NULL), 1);
	fc_rail_map_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_as_published),
		cmocka_unit_test(test_plan_one_port_down),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
