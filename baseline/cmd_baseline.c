/* fabcheck baseline: the fleet's bandwidth baseline from the store. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline/bl_pair.h"
#include "core/summary.h"
#include "core/log.h"
#include "core/opts.h"
#include "core/out.h"
#include "core/safefile.h"
#include "core/util.h"
#include "src/cmds.h"
#include "store/store.h"

const char usage_baseline[] =
	"usage: fabcheck baseline [--db FILE] [--runs N] [--below-pct P] [--min-count N]\n"
	"                         -o FILE [--json]\n"
	"\n"
	"Learns a bandwidth baseline from the stored pair and matrix results: per fabric\n"
	"profile (HCA model, port rate, link layer; test, message size, direction,\n"
	"pattern) the mean of the results, found by pruning: take the mean, drop the\n"
	"results more than P% below it, repeat until none is dropped (SuperBench's\n"
	"rule). Keep the file per server model; 'matrix', 'pair' and 'report' take\n"
	"--baseline FILE and judge each result more than P% below it as defective.\n"
	"\n"
	"  --db FILE        result store (default fabcheck.db)\n"
	"  --runs N         the newest N runs (default all)\n"
	"  --below-pct P    the rule: more than P% below is dropped and defective\n"
	"                   (default 5)\n"
	"  --min-count N    the fewest results a profile's baseline is made of\n"
	"                   (default 3); a profile with fewer is left out, said\n"
	"  -o, --out FILE   the baseline JSON file to write\n"
	"\n"
	"Exit: 0 written, 2 usage, 3 the store or the file could not be read or written,\n"
	"or no profile had enough results.\n";

struct bl_args {
	const char *db, *out;
	int runs, min_count;
	double below_pct;
};

/* The samples of one profile. */
struct bl_group {
	struct fc_bl_profile prof;
	double *v;
	int n, cap;
};
struct bl_acc {
	struct bl_group *g;
	int n, cap, oom;
	int64_t *runs;
	int nruns, runs_cap;
};

static void add_sample(const struct fc_bl_sample *s, void *arg)
{
	struct bl_acc *acc = arg;
	struct bl_group *g = NULL;

	for (int i = 0; i < acc->n && !g; i++)
		if (!fc_bl_profile_differs(&acc->g[i].prof, &s->prof))
			g = &acc->g[i];
	if (!g) {
		if (fc_grow((void **)&acc->g, &acc->cap, acc->n, sizeof(*acc->g))) {
			acc->oom = 1;
			return;
		}
		g = &acc->g[acc->n++];
		memset(g, 0, sizeof(*g));
		g->prof = s->prof;
	}
	if (fc_grow((void **)&g->v, &g->cap, g->n, sizeof(*g->v))) {
		acc->oom = 1;
		return;
	}
	g->v[g->n++] = s->gbps;
}

static int on_pair(const struct fc_store_pair *p, void *arg)
{
	json_t *doc = p->doc ? json_loads(p->doc, 0, NULL) : NULL;

	if (doc)
		fc_bl_doc_samples(doc, add_sample, arg);
	json_decref(doc);
	return ((struct bl_acc *)arg)->oom ? -1 : 0;
}

static int on_run(const struct fc_store_run *r, void *arg)
{
	struct bl_acc *acc = arg;

	if (strcmp(r->kind, "matrix") && strcmp(r->kind, "pair"))
		return 0;
	if (fc_grow((void **)&acc->runs, &acc->runs_cap, acc->nruns, sizeof(*acc->runs)))
		return -1;
	acc->runs[acc->nruns++] = r->id;
	return 0;
}

static json_t *build(const struct bl_args *a, struct bl_acc *acc, int *nkept)
{
	struct fc_bl_entry *e = calloc(acc->n ? (size_t)acc->n : 1, sizeof(*e));
	json_t *doc, *left = json_array();
	int k = 0;

	for (int i = 0; e && i < acc->n; i++) {
		struct fc_bl_stat st;
		char prof[200];

		if (fc_bl_prune(acc->g[i].v, acc->g[i].n, a->below_pct, &st))
			continue;
		if (st.count < a->min_count) {
			fc_bl_profile_text(&acc->g[i].prof, prof, sizeof(prof));
			json_array_append_new(left, json_sprintf("%s: %d result%s kept of %d, fewer "
								 "than --min-count %d", prof,
								 st.count, fc_s(st.count), acc->g[i].n,
								 a->min_count));
			continue;
		}
		e[k].prof = acc->g[i].prof;
		e[k++].st = st;
	}
	doc = fc_bl_doc(e, k, a->below_pct);
	json_object_set_new(doc, "left_out", left);
	json_object_set_new(doc, "runs", json_integer(acc->nruns));
	free(e);
	*nkept = k;
	return doc;
}

static int fill(FILE *f, void *arg)
{
	return json_dumpf(arg, f, JSON_INDENT(2)) || fputc('\n', f) == EOF ? -1 : 0;
}

static void render(FILE *f, const json_t *doc)
{
	const json_t *p, *l;
	size_t i;

	fprintf(f, "baseline of %d run%s, rule: more than %g%% below the pruned mean\n",
		(int)fc_jnum(doc, "runs", 0), fc_s((long long)fc_jnum(doc, "runs", 0)),
		fc_jnum(json_object_get(doc, "rule"), "below_pct", 0));
	json_array_foreach(json_object_get(doc, "profiles"), i, p) {
		struct fc_bl_profile prof;
		char why[8], text[200];

		if (fc_bl_profile_parse(p, &prof, why, sizeof(why)))
			continue;
		fc_bl_profile_text(&prof, text, sizeof(text));
		fc_put_paraf(f, 4, "  %s: %.4g Gb/s (sd %.3g) of %d result%s, %d pruned", text,
			fc_jnum(p, "mean_gbps", 0), fc_jnum(p, "stdev_gbps", 0),
			(int)fc_jnum(p, "count", 0), fc_s((long long)fc_jnum(p, "count", 0)),
			(int)fc_jnum(p, "pruned", 0));
	}
	json_array_foreach(json_object_get(doc, "left_out"), i, l)
		fc_put_paraf(f, 4, "  left out: %s", json_string_value(l));
}

static void acc_release(struct bl_acc *acc)
{
	for (int i = 0; i < acc->n; i++)
		free(acc->g[i].v);
	free(acc->g);
	free(acc->runs);
}

#define FC_OPT_T struct bl_args
static const struct fc_opt bl_opts[] = {
	FCO_STR("db", 0, db),
	FCO_STR("out", 'o', out),
	FCO_INT("runs", 0, runs, 1, 1000000),
	FCO_INT("min-count", 0, min_count, 1, 1000000),
	FCO_DOUBLE("below-pct", 0, below_pct, 0.1, 50),
	FCO_JSON,
	{ 0 },
};

int cmd_baseline(struct fc_ctx *ctx, int argc, char **argv)
{
	struct bl_args a = { .db = "fabcheck.db", .min_count = FC_BL_MIN_COUNT,
			     .below_pct = FC_BL_BELOW_PCT };
	const struct fc_opts spec = { .opt = bl_opts, .cmd = "baseline", .usage = usage_baseline,
				      .no_args = "" };
	struct bl_acc acc = { 0 };
	struct fc_store *st;
	json_t *doc;
	int rc = 0, kept;

	if (fc_opts_parse(ctx, &spec, &a, argc, argv))
		return FC_EXIT_USAGE;
	if (!a.out) {
		fc_err("baseline: -o FILE is required: the baseline file to write");
		return FC_EXIT_USAGE;
	}
	st = fc_store_open_ro(a.db);
	if (!st)
		return FC_EXIT_CANT;
	rc = fc_store_run_list(st, a.runs, on_run, &acc);
	for (int i = 0; !rc && i < acc.nruns; i++)
		rc = fc_store_pairs(st, acc.runs[i], 0, on_pair, &acc);
	fc_store_close(st);
	if (rc || acc.oom) {
		fc_err("baseline: cannot read the results of %s", a.db);
		acc_release(&acc);
		return FC_EXIT_CANT;
	}
	doc = build(&a, &acc, &kept);
	acc_release(&acc);
	if (!kept) {
		fc_err("baseline: no profile in %s has %d or more results (runs read: %d); run the "
		       "matrix on healthy nodes first, or lower --min-count", a.db, a.min_count,
		       (int)fc_jnum(doc, "runs", 0));
		json_decref(doc);
		return FC_EXIT_CANT;
	}
	if (fc_replace_file("-o", a.out, fill, doc)) {
		json_decref(doc);
		return FC_EXIT_CANT;
	}
	json_object_set_new(doc, "file", json_string(a.out));
	json_object_set_new(doc, "verdict", json_string("pass"));
	json_object_set_new(doc, "findings", json_array());
	return fc_emit(ctx, doc, render);
}
