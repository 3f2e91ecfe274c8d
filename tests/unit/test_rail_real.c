/*
 * Rail matching (issue 37 item 3) on a real fabric: the ibnetdiscover of a
 * DGX H100 InfiniBand fabric that NVIDIA/topograph keeps as test output
 * (tests/real/ibnetdiscover/topograph-example_8su-dgx-h100-4rail.out,
 * SOURCES.tsv). Each host port's line in a leaf's block names the host and
 * the HCA ("a06-p1-dgx-02-c01 HCA-1"), so each node's port list is what its
 * own probe reads (the switch's GUID and node description, as smpquery gives
 * them: core/rail_ports.c), here for the 119 hosts named *-dgx-*.
 *
 * What the capture shows, read off it (not off fabcheck): the leaves are
 * named MF0;<row>-P1-IBLEAF-<rail>-<unit>:MQM9701/U1, 8 scalable units
 * (rows A and B) of 4 leaves; in every unit the leaf of rail R carries one
 * HCA of each of its hosts, all of one name (HCA-1, HCA-2, HCA-5, HCA-6; unit
 * 4 names them mlx5_0, mlx5_1, mlx5_4, mlx5_5), except:
 *  - unit 1 has no rail-3 leaf in the capture: its 10 named hosts list 3 ports;
 *  - b08-p1-dgx-08-c01 has HCA-5 on IBLEAF-04-08 and HCA-6 on IBLEAF-03-08,
 *    where its 13 unit peers have HCA-5 on 03-08 and HCA-6 on 04-08.
 * So: 4 rails, rail R = the ports on the leaves IBLEAF-0R-*, every port on
 * the rail of the leaf it reaches.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/rail.h"

#define CAPTURE "tests/real/ibnetdiscover/topograph-example_8su-dgx-h100-4rail.out"
#define EXPECT "tests/real/ibnetdiscover/topograph-example_8su-dgx-h100-4rail.expect.json"
#define MAXH 160
#define MAXP 8

struct fabric {
	char host[MAXH][64];
	struct fc_rail_port ports[MAXH][MAXP];
	int want[MAXH][MAXP]; /* the rail the capture's leaf name says */
	struct fc_rail_node nodes[MAXH];
	int n;
};

static int host_index(struct fabric *f, const char *h)
{
	for (int i = 0; i < f->n; i++)
		if (!strcmp(f->host[i], h))
			return i;
	assert_true(f->n < MAXH);
	snprintf(f->host[f->n], sizeof(f->host[0]), "%s", h);
	f->nodes[f->n] = (struct fc_rail_node){ .name = f->host[f->n], .ports = f->ports[f->n] };
	return f->n++;
}

/* A host line of a leaf's block: [N]\t"H-GUID"[1](GUID) \t\t# "HOST DEV" ... */
static void host_line(struct fabric *f, const char *line, const char *guid, const char *desc)
{
	const char *q = strstr(line, "# \"");
	char host[64], dev[64], rest[8];
	const char *leaf = strstr(desc, "IBLEAF-");
	struct fc_rail_port *p;
	int h;

	if (strncmp(line, "[", 1) || !strstr(line, "\"H-") || !q || !leaf)
		return;
	if (sscanf(q + 3, "%63s %63[^\" ]%7[^\n]", host, dev, rest) != 3 || rest[0] != '"' ||
	    !strstr(host, "-dgx-"))
		return; /* an unnamed HCA, the aggregation node, a UFM server */
	h = host_index(f, host);
	assert_true(f->nodes[h].nports < MAXP);
	p = &f->ports[h][f->nodes[h].nports];
	memset(p, 0, sizeof(*p));
	snprintf(p->dev, sizeof(p->dev), "%s", dev);
	p->port = 1;
	p->active = 1;
	p->link_layer = FC_RAIL_LL_IB;
	snprintf(p->subnet, sizeof(p->subnet), "fe80:0000:0000:0000");
	snprintf(p->peer, sizeof(p->peer), "0x%s", guid);
	snprintf(p->peer_desc, sizeof(p->peer_desc), "%s", desc);
	p->rate = strstr(line, "4xNDR") ? 400 : 0;
	p->width = 4;
	p->prefix_len = -1;
	p->numa = -1;
	f->want[h][f->nodes[h].nports++] = atoi(leaf + 7);
}

static void load(struct fabric *f)
{
	FILE *in = fopen(CAPTURE, "r");
	char line[512], guid[20] = "", desc[72] = "";

	assert_non_null(in);
	memset(f, 0, sizeof(*f));
	while (fgets(line, sizeof(line), in)) {
		const char *q;

		if (!strncmp(line, "Switch\t", 7) && (q = strstr(line, "\"S-")) &&
		    sscanf(q + 3, "%16[0-9a-f]", guid) == 1 && (q = strstr(line, "# \"")))
			snprintf(desc, sizeof(desc), "%.*s", (int)strcspn(q + 3, "\""), q + 3);
		else if (line[0] == '\n')
			desc[0] = 0;
		else if (desc[0])
			host_line(f, line, guid, desc);
	}
	fclose(in);
}

static void show(const struct fc_rail_map *m)
{
	for (int i = 0; i < m->nfindings; i++)
		print_message("  [%d] %s\n", m->findings[i].sev, m->findings[i].text);
}

static int count(const struct fc_rail_map *m, enum fc_rail_sev sev, const char *a, const char *b)
{
	int c = 0;

	for (int i = 0; i < m->nfindings; i++)
		c += m->findings[i].sev == sev && strstr(m->findings[i].text, a) &&
		     (!b || strstr(m->findings[i].text, b));
	return c;
}

/* What the capture shows as faults, and only those: c01's two cables
 * swapped against its unit's peers; unit 1's hosts without a port on rail 3
 * (its leaf absent) named on rail 3 (fabcheck's index @r3), not on another;
 * the units joined by the leaves' names. */
static void findings(const struct fc_rail_map *m, int r3)
{
	char on[32];

	snprintf(on, sizeof(on), "no active port on rail %d ", r3);
	assert_int_equal(count(m, FC_RAIL_FAIL, "ports of b08-p1-dgx-08-c01: ", "swapped cables?"), 1);
	assert_int_equal(count(m, FC_RAIL_FAIL, "a05-p1-dgx-01-c", on), 10);
	assert_int_equal(count(m, FC_RAIL_FAIL, "", NULL), 11);
	assert_int_equal(count(m, FC_RAIL_NOTE, "8 scalable units", "by the leaves' names"), 1);
}

static int want(const char *key)
{
	json_t *e = json_load_file(EXPECT, 0, NULL);
	int v;

	assert_non_null(e);
	assert_true(json_is_integer(json_object_get(e, key)));
	v = (int)json_integer_value(json_object_get(e, key));
	json_decref(e);
	return v;
}

/* The capture as read: its hosts and ports, the hosts with 3 ports (the
 * counts of its .expect.json). */
static void test_capture_read(void **state)
{
	static struct fabric f;
	int three = 0, ports = 0;

	(void)state;
	load(&f);
	for (int i = 0; i < f.n; i++) {
		three += f.nodes[i].nports == 3;
		ports += f.nodes[i].nports;
	}
	assert_int_equal(f.n, want("dgx_hosts"));
	assert_int_equal(three, want("hosts_with_3_ports"));
	assert_int_equal(ports, want("dgx_ports"));
}

/* Every port on the rail of the leaf it reaches: capture rail R <-> one
 * fabcheck rail, the same for every host. */
static void test_rails_as_cabled(void **state)
{
	static struct fabric f;
	struct fc_rail_map m;
	int of[5] = { -1, -1, -1, -1, -1 }, right = 0, total = 0;

	(void)state;
	load(&f);
	assert_int_equal(fc_rail_match(f.nodes, f.n, NULL, &m), 0);
	show(&m);
	assert_int_equal(m.nrails, want("rails"));
	for (int i = 0; i < f.n; i++)
		for (int j = 0; j < f.nodes[i].nports; j++) {
			int got = -1, r = f.want[i][j];

			for (int k = 0; k < m.nrails; k++)
				if (fc_rail_port_of(&m, f.nodes, i, k) == &f.ports[i][j])
					got = k;
			total++;
			if (r >= 1 && r <= 4 && of[r] < 0)
				of[r] = got;
			if (got >= 0 && r >= 1 && r <= 4 && of[r] == got)
				right++;
			else
				print_message("  %s %s (leaf rail %d): fabcheck rail %d\n", f.host[i],
					      f.ports[i][j].dev, r, got);
		}
	print_message("real ibnetdiscover: %d of %d ports on their leaf's rail\n", right, total);
	assert_int_equal(right, total);
	for (int a = 1; a <= 4; a++)
		for (int b = 1; b < a; b++)
			assert_int_not_equal(of[a], of[b]);
	findings(&m, of[3]);
	fc_rail_map_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture_read),
		cmocka_unit_test(test_rails_as_cabled),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
