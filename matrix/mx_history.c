/* Links against their own past, from the store (see mx_history.h). */
#include "matrix/mx_history.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/out.h"

struct gather {
	struct mx_history *h;
	const struct mx_model *m;
	const char **sorted; /* the model's names, sorted, for bsearch */
	int *idx;	     /* their indices */
	struct fc_hist_point *p;
	size_t np, cap;
	int run; /* offset of the run being read */
};

static int cmp_idx(const void *x, const void *y, void *arg)
{
	const struct mx_model *m = arg;

	return strcmp(m->names[*(const int *)x], m->names[*(const int *)y]);
}

static int node_index(const struct gather *g, const char *name)
{
	int lo = 0, hi = g->m->n - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2, c = strcmp(name, g->m->names[g->idx[mid]]);

		if (!c)
			return g->idx[mid];
		if (c < 0)
			hi = mid - 1;
		else
			lo = mid + 1;
	}
	return -1;
}

static int add_point(struct gather *g, int a, int b, double gbps)
{
	if (g->np == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 1024;
		struct fc_hist_point *p = realloc(g->p, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		g->p = p;
		g->cap = cap;
	}
	g->p[g->np++] = (struct fc_hist_point){ .a = a, .b = b, .run = g->run, .gbps = gbps };
	return 0;
}

static int past_row(const struct fc_store_pair *p, void *arg)
{
	struct gather *g = arg;
	int a = node_index(g, p->a), b = node_index(g, p->b);
	enum fc_mx_state st = mx_state_of(p->verdict);

	if (a < 0 || b < 0 || a == b || !isfinite(p->gbps) ||
	    (st != FC_MX_OK && st != FC_MX_FAIL))
		return 0;
	return add_point(g, a, b, p->gbps);
}

static int pick_run(const struct fc_store_run *r, void *arg)
{
	struct gather *g = arg;
	struct mx_history *h = g->h;

	if (strcmp(r->kind, "matrix") || r->id >= h->runs[0] || h->nruns >= h->o.k)
		return 0;
	h->runs[++h->nruns] = r->id;
	return 0;
}

static int gather(struct gather *g, struct fc_store *st)
{
	const struct mx_model *m = g->m;
	int rc;

	for (size_t i = 0; i < m->nres; i++) {
		const struct fc_mx_result *r = &m->res[i];

		if ((r->state == FC_MX_OK || r->state == FC_MX_FAIL) && isfinite(r->gbps) &&
		    add_point(g, r->a, r->b, r->gbps))
			return -ENOMEM;
	}
	rc = fc_store_run_list(st, 0, pick_run, g);
	for (int i = 1; i <= g->h->nruns && !rc; i++) {
		g->run = i;
		rc = fc_store_pairs(st, g->h->runs[i], 0, past_row, g);
	}
	return rc;
}

int mx_history_load(struct mx_history *h, struct fc_store *st, const struct mx_model *m,
		    const struct fc_hist_opts *o)
{
	struct gather g = { .h = h, .m = m };
	int rc;

	memset(h, 0, sizeof(*h));
	h->o = *o;
	h->runs[0] = m->run;
	g.idx = malloc(((size_t)m->n + 1) * sizeof(*g.idx));
	if (!g.idx)
		return -ENOMEM;
	for (int i = 0; i < m->n; i++)
		g.idx[i] = i;
	qsort_r(g.idx, (size_t)m->n, sizeof(*g.idx), cmp_idx, (void *)m);
	rc = gather(&g, st);
	if (!rc)
		rc = fc_hist_links(g.p, g.np, o, &h->links, &h->nlinks);
	free(g.p);
	free(g.idx);
	if (rc) {
		fc_err("history of run %lld: cannot read the runs before it (%s)",
		       (long long)m->run, strerror(-rc));
		return rc;
	}
	for (int i = 0; i < h->nlinks; i++)
		h->nflagged += h->links[i].flagged;
	return 0;
}

void mx_history_release(struct mx_history *h)
{
	fc_hist_free(h->links);
	memset(h, 0, sizeof(*h));
}

static json_t *series_json(const struct mx_history *h, const struct fc_hist_link *l)
{
	json_t *s = json_array();

	for (int i = h->nruns; i >= 0; i--)
		json_array_append_new(s, isfinite(l->series[i]) ?
						 json_pack("{s:I, s:f}", "run", (json_int_t)h->runs[i],
							   "gbps", l->series[i]) :
						 json_pack("{s:I, s:n}", "run", (json_int_t)h->runs[i],
							   "gbps"));
	return s;
}

void mx_history_doc(const struct mx_history *h, const struct mx_model *m, json_t *doc)
{
	json_t *flagged = json_array();

	for (int i = 0; i < h->nlinks; i++) {
		const struct fc_hist_link *l = &h->links[i];

		if (!l->flagged)
			continue;
		json_array_append_new(flagged, json_pack(
			"{s:s, s:s, s:i, s:f, s:f, s:f, s:i, s:o}", "a", m->names[l->a], "b",
			m->names[l->b], "rail", l->rail, "gbps", l->now, "median_gbps", l->median,
			"drop_pct", l->drop_pct, "runs", l->runs, "series", series_json(h, l)));
		fc_finding(doc, FC_WARN,
			   "link %s-%s: %.3g Gb/s is %.0f%% below its median of the last %d runs "
			   "(%.3g Gb/s); 'fabcheck report --history' shows its trend",
			   m->names[l->a], m->names[l->b], l->now, l->drop_pct, l->runs, l->median);
	}
	json_object_set_new(doc, "history",
			    json_pack("{s:i, s:f, s:i, s:i, s:o}", "k", h->o.k, "drop_pct",
				      h->o.drop_pct, "past_runs", h->nruns, "links", h->nlinks,
				      "flagged", flagged));
}

int mx_history_csv(FILE *f, const struct mx_history *h, const struct mx_model *m)
{
	fputs("runs_ago,run,a,b,rail,gbps,median_gbps,flagged\n", f);
	for (int i = 0; i < h->nlinks; i++) {
		const struct fc_hist_link *l = &h->links[i];

		for (int r = h->nruns; r >= 0; r--) {
			if (!isfinite(l->series[r]))
				continue;
			fprintf(f, "%d,%lld,%s,%s,%d,%.6g,", r, (long long)h->runs[r],
				m->names[l->a], m->names[l->b], l->rail, l->series[r]);
			if (r == 0 && isfinite(l->median))
				fprintf(f, "%.6g,%d\n", l->median, l->flagged);
			else
				fprintf(f, ",\n");
		}
	}
	return ferror(f) ? -1 : 0;
}
