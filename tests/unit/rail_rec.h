/* Helpers of the rail-matching unit tests (test_rail.c, test_rail_plans.c):
 * a recorded port list (tests/data/rails/) loaded and matched, and the
 * findings and devices of the match looked up. Included after cmocka.h. */
#ifndef FC_TEST_RAIL_REC_H
#define FC_TEST_RAIL_REC_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/rail.h"
#include "tests/unit/recdoc.h"

#define MAXN 8
#define MAXP 16

struct rec {
	struct fc_rail_node nodes[MAXN];
	struct fc_rail_port ports[MAXN][MAXP];
	char names[MAXN][32];
	int n;
};

static inline void load(const char *file, struct rec *r)
{
	json_t *doc = rec_doc("tests/data/rails/%s", file), *nd;
	size_t i;

	memset(r, 0, sizeof(*r));
	json_array_foreach(json_object_get(doc, "nodes"), i, nd) {
		int cnt = fc_rail_ports_from_json(json_object_get(nd, "devices"), r->ports[i], MAXP);

		assert_true(cnt > 0);
		snprintf(r->names[i], sizeof(r->names[i]), "%s",
			 json_string_value(json_object_get(nd, "name")));
		r->nodes[i] = (struct fc_rail_node){ .name = r->names[i], .ports = r->ports[i],
						     .nports = cnt };
		r->n++;
	}
	json_decref(doc);
}

/* Loads tests/data/rails/@file into @r and matches its rails with @o (NULL:
 * the defaults) into @m; the match must succeed. */
static inline void match_file(const char *file, const struct fc_rail_opts *o, struct rec *r,
		       struct fc_rail_map *m)
{
	load(file, r);
	assert_int_equal(fc_rail_match(r->nodes, r->n, o, m), 0);
}

static inline int count_sev(const struct fc_rail_map *m, enum fc_rail_sev s)
{
	int c = 0;

	for (int i = 0; i < m->nfindings; i++)
		c += m->findings[i].sev == s;
	return c;
}

/* The findings that mention every word given (NULL-terminated). */
static inline int count_text(const struct fc_rail_map *m, ...)
{
	int c = 0;

	for (int i = 0; i < m->nfindings; i++) {
		va_list ap;
		const char *w;
		int all = 1;

		va_start(ap, m);
		while ((w = va_arg(ap, const char *)))
			all &= strstr(m->findings[i].text, w) != NULL;
		va_end(ap);
		c += all;
	}
	return c;
}

static inline const char *dev_on(const struct fc_rail_map *m, const struct rec *r, int node, int rail)
{
	const struct fc_rail_port *p = fc_rail_port_of(m, r->nodes, node, rail);

	return p ? p->dev : "-";
}

/* Prints the findings (what a failed assertion was looking at). */
static inline void show(const struct fc_rail_map *m)
{
	for (int i = 0; i < m->nfindings; i++)
		print_message("  [%d] %s\n", m->findings[i].sev, m->findings[i].text);
}

/* 8 nodes (gpu00..gpu07) of 8 InfiniBand rail ports at 400 Gb/s, each with
 * 5 storage HCAs of its own names at 200 Gb/s (st<node>_<k>): 40 kinds of
 * port left out, each on one node (test_rail.c, test_msgfig_core_rail.c). */
static inline void storage_rack(struct fc_rail_port ports[8][13], char names[8][16],
				struct fc_rail_node nodes[8])
{
	for (int i = 0; i < 8; i++) {
		for (int j = 0; j < 13; j++) {
			struct fc_rail_port *p = &ports[i][j];

			memset(p, 0, sizeof(*p));
			p->port = 1;
			p->active = 1;
			p->link_layer = FC_RAIL_LL_IB;
			p->width = 4;
			p->numa = -1;
			p->prefix_len = -1;
			if (j < 8) {
				snprintf(p->dev, sizeof(p->dev), "mlx5_%d", j);
				snprintf(p->peer, sizeof(p->peer), "0xb8599f0300aa00%02d", j);
				p->rate = 400;
			} else {
				snprintf(p->dev, sizeof(p->dev), "st%d_%d", i, j - 8);
				snprintf(p->peer, sizeof(p->peer), "0xb8599f0300bb00%02d", j);
				p->rate = 200;
			}
		}
		snprintf(names[i], sizeof(names[i]), "gpu%02d", i);
		nodes[i] = (struct fc_rail_node){ .name = names[i], .ports = ports[i], .nports = 13 };
	}
}

#endif
