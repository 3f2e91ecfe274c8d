/* A recorded matrix with rails (tests/data/matrix/rails-*.json: nodes,
 * rails, a pair per (pair, rail) with its figures and verdict) loaded as
 * the cells fc_mxl_analyze takes (test_mxlevel.c, test_mxsame.c).
 * Included after cmocka.h and jansson.h. */
#ifndef FC_TEST_MXL_REC_H
#define FC_TEST_MXL_REC_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "matrix/mxlevel.h"
#include "tests/unit/recdoc.h"

#define MAXC 1024

struct rec {
	char names[16][16];
	const char *np[16];
	char rails[FC_MXL_RAILS_MAX][16];
	const char *rp[FC_MXL_RAILS_MAX];
	int n, nrails;
	struct fc_mxl_cell cells[MAXC];
	size_t ncells;
};

static inline int node_idx(const struct rec *r, const char *name)
{
	for (int i = 0; i < r->n; i++)
		if (!strcmp(r->names[i], name))
			return i;
	return -1;
}

static inline void load(const char *file, struct rec *r)
{
	json_t *doc = rec_doc("tests/data/matrix/%s", file), *v;
	size_t i;

	memset(r, 0, sizeof(*r));
	json_array_foreach(json_object_get(doc, "nodes"), i, v) {
		snprintf(r->names[i], sizeof(r->names[i]), "%s", json_string_value(v));
		r->np[i] = r->names[i];
		r->n++;
	}
	json_array_foreach(json_object_get(doc, "rails"), i, v) {
		snprintf(r->rails[i], sizeof(r->rails[i]), "%s",
			 json_string_value(json_object_get(v, "name")));
		r->rp[i] = r->rails[i];
		r->nrails++;
	}
	json_array_foreach(json_object_get(doc, "pairs"), i, v) {
		const char *verdict = json_string_value(json_object_get(v, "verdict"));
		json_t *g = json_object_get(v, "gbps"), *l = json_object_get(v, "lat_us");

		assert_true(r->ncells < MAXC);
		r->cells[r->ncells++] = (struct fc_mxl_cell){
			.a = node_idx(r, json_string_value(json_object_get(v, "a"))),
			.b = node_idx(r, json_string_value(json_object_get(v, "b"))),
			.rail = (int)json_integer_value(json_object_get(v, "rail")),
			.gbps = json_is_number(g) ? json_number_value(g) : NAN,
			.lat_us = json_is_number(l) ? json_number_value(l) : NAN,
			.state = !strcmp(verdict, "error") ? FC_MX_ERROR :
				 !strcmp(verdict, "fail")  ? FC_MX_FAIL :
							     FC_MX_OK,
		};
	}
	json_decref(doc);
}

#endif
