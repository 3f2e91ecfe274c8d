/* Links against their own past, from the store (see mx_history.h). */
#include "matrix/mx_history.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/csv.h"
#include "core/log.h"
#include "core/out.h"
#include "matrix/mx_rails.h"
#include "matrix/mxlevel.h"

struct gather {
	struct mx_history *h;
	const struct mx_model *m;
	int *idx; /* the model's node indices, sorted by name, for the search */
	struct fc_hist_point *p;
	size_t np, cap;
	int run;	   /* offset of the run being read; -1: look it up */
	int only_a, only_b; /* one link (mx_history_link), else -1 */
	int only_rail;
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

static int add_point(struct gather *g, int a, int b, int rail, int run, double gbps)
{
	if (g->np == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 1024;
		struct fc_hist_point *p = realloc(g->p, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		g->p = p;
		g->cap = cap;
	}
	g->p[g->np++] = (struct fc_hist_point){ .a = a, .b = b, .rail = rail, .run = run,
						.gbps = gbps };
	return 0;
}

/* The offset of run @id among the runs judged, -1 when not one of them. */
static int run_offset(const struct mx_history *h, int64_t id)
{
	for (int i = 0; i <= h->nruns; i++)
		if (h->runs[i] == id)
			return i;
	return -1;
}

/* The model's rail of a stored link: -1 for a result without rails in a
 * run without rails; -2 when it has no place in this model (a rail of a
 * run with rails that this one lacks, or the other kind of run). */
static int link_rail(const struct mx_model *m, const struct fc_store_link *l)
{
	int r;

	if (l->rail < 0)
		return m->nrails ? -2 : -1;
	if (!m->nrails)
		return -2;
	r = mx_rail_find(m, l->device, l->subnet);
	return r < 0 ? -2 : r;
}

/* The point of a stored link into *p: 1, or 0 when it is none of the
 * history's (a node or rail not in the model, a run not judged, no figure,
 * not the link asked for). */
static int link_point(const struct gather *g, const struct fc_store_link *l,
		      struct fc_hist_point *p)
{
	int a = node_index(g, l->a), b = node_index(g, l->b), rail = link_rail(g->m, l);
	int run = g->run >= 0 ? g->run : run_offset(g->h, l->run);
	enum fc_mx_state st = mx_state_of(l->verdict);

	if (a < 0 || b < 0 || a == b || rail == -2 || run < 0 || !isfinite(l->gbps) ||
	    (st != FC_MX_OK && st != FC_MX_FAIL))
		return 0;
	if (g->only_a >= 0 &&
	    ((g->only_rail != MX_HIST_ANY_RAIL && rail != g->only_rail) ||
	     !((a == g->only_a && b == g->only_b) || (a == g->only_b && b == g->only_a))))
		return 0;
	*p = (struct fc_hist_point){ .a = a, .b = b, .rail = rail, .run = run, .gbps = l->gbps };
	return 1;
}

static int link_row(const struct fc_store_link *l, void *arg)
{
	struct gather *g = arg;
	struct fc_hist_point p;

	return link_point(g, l, &p) ? add_point(g, p.a, p.b, p.rail, p.run, p.gbps) : 0;
}

/* The matrix runs before the model's, up to k of them. */
static int pick_runs(struct mx_history *h, struct fc_store *st)
{
	int n = fc_store_runs_before(st, "matrix", h->runs[0], h->o.k, h->runs + 1);

	if (n < 0)
		return n;
	h->nruns = n;
	return 0;
}

/* Every link of the model's run and of the runs before it, a run at a time. */
static int gather_all(struct gather *g, struct fc_store *st)
{
	int rc = 0;

	for (int i = 0; i <= g->h->nruns && !rc; i++) {
		g->run = i;
		rc = fc_store_links(st, g->h->runs[i], link_row, g);
	}
	return rc;
}

/* One link's rows, all its runs in one read. */
static int gather_link(struct gather *g, struct fc_store *st)
{
	const struct mx_history *h = g->h;

	g->run = -1;
	return fc_store_link_history(st, g->m->names[g->only_a], g->m->names[g->only_b],
				     h->runs[h->nruns], h->runs[0], link_row, g);
}

/* The runs and the node lookup of @g for the history of @m; -EINVAL for
 * a k out of range (nothing allocated). */
static int gather_begin(struct mx_history *h, struct fc_store *st, const struct mx_model *m,
			const struct fc_hist_opts *o, struct gather *g)
{
	memset(h, 0, sizeof(*h));
	h->o = *o;
	h->runs[0] = m->run;
	g->h = h;
	g->m = m;
	if (o->k < 1 || o->k > FC_HIST_K_MAX)
		return -EINVAL;
	g->idx = malloc(((size_t)m->n + 1) * sizeof(*g->idx));
	if (!g->idx)
		return -ENOMEM;
	for (int i = 0; i < m->n; i++)
		g->idx[i] = i;
	qsort_r(g->idx, (size_t)m->n, sizeof(*g->idx), cmp_idx, (void *)m);
	return pick_runs(h, st);
}

/* Frees @g; logs @rc when it is an error. */
static int gather_end(const struct mx_model *m, struct gather *g, int rc)
{
	int began = g->idx != NULL;

	free(g->p);
	free(g->idx);
	if (rc && began)
		fc_err("history of run %lld: cannot read the runs before it (%s)",
		       (long long)m->run, strerror(-rc));
	return rc;
}

static int load(struct mx_history *h, struct fc_store *st, const struct mx_model *m,
		const struct fc_hist_opts *o, struct gather *g)
{
	int rc = gather_begin(h, st, m, o, g);

	if (!rc)
		rc = g->only_a >= 0 ? gather_link(g, st) : gather_all(g, st);
	if (!rc)
		rc = fc_hist_links(g->p, g->np, o, &h->links, &h->nlinks);
	rc = gather_end(m, g, rc);
	h->nseen = h->nlinks;
	for (int i = 0; !rc && i < h->nlinks; i++)
		h->nflagged += h->links[i].flagged;
	return rc;
}

int mx_history_load(struct mx_history *h, struct fc_store *st, const struct mx_model *m,
		    const struct fc_hist_opts *o)
{
	struct gather g = { .only_a = -1, .only_b = -1, .only_rail = -1 };

	return load(h, st, m, o, &g);
}

int mx_history_link(struct mx_history *h, struct fc_store *st, const struct mx_model *m, int a,
		    int b, int rail, const struct fc_hist_opts *o)
{
	struct gather g = { .only_a = a, .only_b = b, .only_rail = rail };

	if (a < 0 || b < 0 || a >= m->n || b >= m->n || a == b || rail < MX_HIST_ANY_RAIL ||
	    rail >= (m->nrails ? m->nrails : 0)) {
		memset(h, 0, sizeof(*h));
		return -EINVAL;
	}
	return load(h, st, m, o, &g);
}

/* A flagged link kept by mx_history_scan, its series inline. */
struct kept {
	struct fc_hist_link l;
	double key;   /* fc_hist_order */
	int64_t rank; /* its place in link order (fc_hist_links: node, node, rail) */
	double series[FC_HIST_K_MAX + 1];
};

struct scan {
	struct gather g;
	int lo, hi; /* the pair whose rows are being read, -1 before the first */
	double series[FC_MXL_RAILS_MAX + 1][FC_HIST_K_MAX + 1]; /* [rail + 1] */
	struct kept *top; /* a heap of the `keep` worst flagged: the least of them first */
	int ntop, keep;
	mx_hist_link_cb each;
	void *arg;
};

int64_t mx_history_rank(const struct mx_model *m, const struct fc_hist_link *l)
{
	return ((int64_t)l->a * m->n + l->b) * (m->nrails + 1) + l->rail + 1;
}

/* 1 when @x comes before @y, worst drop first (the order of h->links). */
static int before(const struct kept *x, const struct kept *y)
{
	return x->key > y->key || (x->key == y->key && x->rank < y->rank);
}

static void heap_swap(struct kept *t, int i, int j)
{
	struct kept k = t[i];

	t[i] = t[j];
	t[j] = k;
}

/* Keeps @k when it is among the sc->keep worst flagged links so far. */
static void keep_link(struct scan *sc, const struct kept *k)
{
	struct kept *t = sc->top;
	int i;

	if (sc->ntop < sc->keep) {
		for (t[i = sc->ntop++] = *k; i && before(&t[(i - 1) / 2], &t[i]); i = (i - 1) / 2)
			heap_swap(t, i, (i - 1) / 2);
		return;
	}
	if (!sc->keep || !before(k, &t[0]))
		return;
	t[0] = *k;
	for (i = 0;;) {
		int c = 2 * i + 1;

		if (c + 1 < sc->ntop && before(&t[c], &t[c + 1]))
			c++;
		if (c >= sc->ntop || !before(&t[i], &t[c]))
			break;
		heap_swap(t, i, c);
		i = c;
	}
}

/* Judges the links of the pair read (one per rail it has a figure of in
 * the run judged), in rail order. */
static int pair_end(struct scan *sc)
{
	struct mx_history *h = sc->g.h;
	int nslots = sc->g.m->nrails + 1, k = h->o.k, rc = 0;

	for (int r = 0; r < nslots && sc->lo >= 0; r++) {
		struct kept e = { .l = { .a = sc->lo, .b = sc->hi, .rail = r - 1,
					 .series = sc->series[r] } };

		if (!isfinite(sc->series[r][0]))
			continue;
		fc_hist_judge(&e.l, &h->o);
		h->nseen++;
		if (e.l.flagged) {
			h->nflagged++;
			e.key = fc_hist_order(&e.l);
			e.rank = mx_history_rank(sc->g.m, &e.l);
			memcpy(e.series, e.l.series, ((size_t)k + 1) * sizeof(double));
			keep_link(sc, &e);
		}
		if (!rc && sc->each)
			rc = sc->each(&e.l, sc->arg);
	}
	for (int r = 0; r < nslots; r++)
		for (int i = 0; i <= k; i++)
			sc->series[r][i] = NAN;
	return rc;
}

static int scan_row(const struct fc_store_link *l, void *arg)
{
	struct scan *sc = arg;
	struct fc_hist_point p;
	int lo, hi, rc = 0;

	if (!link_point(&sc->g, l, &p))
		return 0;
	lo = p.a < p.b ? p.a : p.b;
	hi = p.a < p.b ? p.b : p.a;
	if (lo != sc->lo || hi != sc->hi) {
		rc = pair_end(sc);
		sc->lo = lo;
		sc->hi = hi;
	}
	sc->series[p.rail + 1][p.run] = p.gbps;
	return rc;
}

static int cmp_kept(const void *x, const void *y)
{
	return before(y, x) - before(x, y);
}

/* The kept links, worst first, into h->links (one block, as fc_hist_links). */
static int kept_links(struct scan *sc)
{
	struct mx_history *h = sc->g.h;
	size_t per = (size_t)h->o.k + 1;
	double *series;

	qsort(sc->top, (size_t)sc->ntop, sizeof(*sc->top), cmp_kept);
	h->links = malloc((size_t)(sc->ntop + 1) * (sizeof(*h->links) + per * sizeof(double)));
	if (!h->links)
		return -ENOMEM;
	series = (double *)(h->links + sc->ntop + 1);
	for (int i = 0; i < sc->ntop; i++) {
		h->links[i] = sc->top[i].l;
		h->links[i].series = series + (size_t)i * per;
		memcpy(h->links[i].series, sc->top[i].series, per * sizeof(double));
	}
	h->nlinks = sc->ntop;
	return 0;
}

int mx_history_scan(struct mx_history *h, struct fc_store *st, const struct mx_model *m,
		    const struct fc_hist_opts *o, int keep, mx_hist_link_cb each, void *arg)
{
	struct scan *sc = calloc(1, sizeof(*sc));
	int rc;

	if (!sc)
		return -ENOMEM;
	*sc = (struct scan){ .g = { .run = -1, .only_a = -1, .only_b = -1, .only_rail = -1 },
			     .lo = -1, .hi = -1, .keep = keep > 0 ? keep : 0, .each = each,
			     .arg = arg };
	sc->top = malloc(((size_t)sc->keep + 1) * sizeof(*sc->top));
	rc = sc->top ? gather_begin(h, st, m, o, &sc->g) : -ENOMEM;
	if (!rc) {
		pair_end(sc); /* every slot NAN */
		rc = fc_store_links_by_pair(st, h->runs, h->nruns + 1, scan_row, sc);
	}
	if (!rc)
		rc = pair_end(sc);
	if (!rc)
		rc = kept_links(sc);
	rc = gather_end(m, &sc->g, rc);
	free(sc->top);
	free(sc);
	return rc;
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

const char *mx_history_rail(const struct mx_model *m, int rail, char *buf, size_t len)
{
	if (rail < 0 || rail >= m->nrails)
		snprintf(buf, len, "all");
	else
		snprintf(buf, len, "%d (%s)", m->rails[rail].index, m->rails[rail].name);
	return buf;
}

void mx_history_doc(const struct mx_history *h, const struct mx_model *m, json_t *doc)
{
	json_t *flagged = json_array();
	char rail[96];

	for (int i = 0; i < h->nlinks; i++) {
		const struct fc_hist_link *l = &h->links[i];
		int on_rail = l->rail >= 0 && l->rail < m->nrails;
		const char *own_a = on_rail ? mx_rail_own_device(m, m->names[l->a], l->rail) : "";
		const char *own_b = on_rail ? mx_rail_own_device(m, m->names[l->b], l->rail) : "";
		char own[300] = "";
		json_t *o;

		if (!l->flagged)
			continue;
		/* each node's own device on the rail, where the run's rail plan
		 * matched another name than the rail's (another server model) */
		if (on_rail && (strcmp(own_a, m->rails[l->rail].name) ||
				strcmp(own_b, m->rails[l->rail].name)))
			snprintf(own, sizeof(own), " (%s %s, %s %s)", m->names[l->a], own_a,
				 m->names[l->b], own_b);
		o = json_pack("{s:s, s:s, s:o, s:f, s:f, s:f, s:i, s:o}", "a", m->names[l->a], "b",
			      m->names[l->b], "rail",
			      on_rail ? json_integer(m->rails[l->rail].index) : json_null(), "gbps",
			      l->now, "median_gbps", l->median, "drop_pct", l->drop_pct, "runs",
			      l->runs, "series", series_json(h, l));
		if (on_rail) {
			json_object_set_new(o, "device", json_string(m->rails[l->rail].name));
			json_object_set_new(o, "devices", json_pack("[s, s]", own_a, own_b));
		}
		json_array_append_new(flagged, o);
		mx_history_rail(m, l->rail, rail, sizeof(rail));
		fc_finding(doc, FC_WARN,
			   "link %s-%s%s%s%s: %.3g Gb/s is %.0f%% below its median of the last %d "
			   "runs (%.3g Gb/s); 'fabcheck report --history' shows its trend",
			   m->names[l->a], m->names[l->b], on_rail ? " on rail " : "",
			   on_rail ? rail : "", own, l->now, l->drop_pct, l->runs, l->median);
	}
	json_object_set_new(doc, "history",
			    json_pack("{s:i, s:f, s:i, s:i, s:o}", "k", h->o.k, "drop_pct",
				      h->o.drop_pct, "past_runs", h->nruns, "links", h->nseen,
				      "flagged", flagged));
}

void mx_history_csv_head(FILE *f)
{
	fputs("runs_ago,run,a,b,rail,device,gbps,median_gbps,flagged\n", f);
}

void mx_history_csv_link(FILE *f, const struct mx_history *h, const struct mx_model *m,
			 const struct fc_hist_link *l)
{
	int on_rail = l->rail >= 0 && l->rail < m->nrails;

	for (int r = h->nruns; r >= 0; r--) {
		if (!isfinite(l->series[r]))
			continue;
		fprintf(f, "%d,%lld,", r, (long long)h->runs[r]);
		fc_csv_cell(f, m->names[l->a]);
		fputc(',', f);
		fc_csv_cell(f, m->names[l->b]);
		fprintf(f, ",%d,", on_rail ? m->rails[l->rail].index : -1);
		fc_csv_cell(f, on_rail ? m->rails[l->rail].name : "all");
		fprintf(f, ",%.6g,", l->series[r]);
		if (r == 0 && isfinite(l->median))
			fprintf(f, "%.6g,%d\n", l->median, l->flagged);
		else
			fprintf(f, ",\n");
	}
}
