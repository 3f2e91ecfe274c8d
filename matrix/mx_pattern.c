/* Judging a matrix run's traffic pattern from its stored flows (see mx_pattern.h). */
#include "matrix/mx_pattern.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/bwlog.h"
#include "core/congest.h"
#include "core/out.h"
#include "core/util.h"

/* The stored flows of a run, grouped by round. */
struct flows {
	json_t *rounds;	 /* round number (text) -> [pair documents] */
	char pattern[32];
};

static int collect(const struct fc_store_pair *p, void *arg)
{
	struct flows *fl = arg;
	json_t *d = p->doc ? json_loads(p->doc, 0, NULL) : NULL;
	const json_t *m = json_object_get(d, "matrix");
	const char *pat = fc_jstr(m, "pattern", NULL);
	char key[32];

	if (!pat || json_is_true(json_object_get(d, "retest"))) {
		json_decref(d);
		return 0;
	}
	snprintf(fl->pattern, sizeof(fl->pattern), "%s", pat);
	snprintf(key, sizeof(key), "%d", (int)fc_jnum(m, "round", 0));
	if (!json_object_get(fl->rounds, key))
		json_object_set_new(fl->rounds, key, json_array());
	json_array_append_new(json_object_get(fl->rounds, key), d);
	return 0;
}

/* A flow's rate: the write bandwidth from a to b at its largest size, every
 * rail of the pair together (pair's own figure); NAN when none. */
static double flow_gbps(const json_t *d)
{
	double best = NAN, size = -1;
	size_t i;
	json_t *r;

	json_array_foreach(json_object_get(d, "results"), i, r) {
		if (strcmp(fc_jstr(r, "metric", ""), "bw") || strcmp(fc_jstr(r, "test", ""), "write"))
			continue;
		if (fc_jnum(r, "size_bytes", 0) >= size) {
			size = fc_jnum(r, "size_bytes", 0);
			best = fc_jnum(r, "gbps", NAN);
		}
	}
	return best;
}

/* The byte curve ("curves" a_to_b, on the controller's clock: pair
 * --sync-fd) of @d's write result at its largest size, in @c (@t, @b
 * owned by the caller). 0, or -1 when it has none. */
static int result_curve(const json_t *results, struct fc_curve *c, double **t, double **b)
{
	const json_t *best = NULL, *pts, *pt;
	double size = -1;
	size_t i;
	json_t *r;

	json_array_foreach(results, i, r)
		if (!strcmp(fc_jstr(r, "metric", ""), "bw") && !strcmp(fc_jstr(r, "test", ""), "write") &&
		    fc_jnum(r, "size_bytes", 0) >= size) {
			size = fc_jnum(r, "size_bytes", 0);
			best = r;
		}
	pts = json_object_get(json_object_get(best, "curves"), "a_to_b");
	if (json_array_size(pts) < 2)
		return -1;
	*t = calloc(json_array_size(pts), sizeof(double));
	*b = calloc(json_array_size(pts), sizeof(double));
	if (!*t || !*b)
		return -1;
	json_array_foreach(pts, i, pt) {
		(*t)[i] = json_number_value(json_array_get(pt, 0));
		(*b)[i] = json_number_value(json_array_get(pt, 1));
		if (i && ((*t)[i] < (*t)[i - 1] || (*b)[i] < (*b)[i - 1]))
			return -1; /* not a cumulative curve */
	}
	c->t = *t;
	c->bytes = *b;
	c->n = (int)json_array_size(pts);
	return 0;
}

/* A round's streams: each flow's curve, or each of its rails' under load. */
struct streams {
	struct fc_curve *c;
	double **t, **b;
	int *flow, n, cap;
};

static int add_stream(struct streams *s, const json_t *results, int flow)
{
	if (s->n >= s->cap) {
		int cap = s->cap ? 2 * s->cap : 8;

		if (fc_resize((void **)&s->c, (size_t)cap, sizeof(*s->c)) ||
		    fc_resize((void **)&s->t, (size_t)cap, sizeof(*s->t)) ||
		    fc_resize((void **)&s->b, (size_t)cap, sizeof(*s->b)) ||
		    fc_resize((void **)&s->flow, (size_t)cap, sizeof(*s->flow)))
			return -1;
		s->cap = cap;
	}
	s->t[s->n] = s->b[s->n] = NULL;
	s->flow[s->n] = flow;
	if (result_curve(results, &s->c[s->n], &s->t[s->n], &s->b[s->n])) {
		free(s->t[s->n]);
		free(s->b[s->n]);
		return -1;
	}
	s->n++;
	return 0;
}

static void streams_free(struct streams *s)
{
	for (int i = 0; i < s->n; i++) {
		free(s->t[i]);
		free(s->b[i]);
	}
	free(s->c);
	free(s->t);
	free(s->b);
	free(s->flow);
}

/*
 * Each flow's rate in @g, measured over the round's common window: from the
 * latest start to the earliest end of its flows (each rail of a flow under
 * load a stream of its own), as issue 42 item 1 asks, so that no flow is
 * credited with time it ran alone. Without a curve for every stream (a
 * worker that sends none, --perftest), each flow's own test figure, said so
 * in @rd's "window".
 */
static void round_rates(const json_t *flows, double *g, json_t *rd)
{
	struct streams s = { 0 };
	struct fc_common w;
	double *sg = NULL;
	const char *why = "a flow has no byte curve on the controller's clock";
	size_t i;
	json_t *d;
	int ok = 1;

	json_array_foreach(flows, i, d) {
		const json_t *rails = json_object_get(d, "rails");
		size_t k;
		json_t *r;

		g[i] = flow_gbps(d);
		g[i] = isfinite(g[i]) ? g[i] : 0;
		if (!json_array_size(rails))
			ok = ok && !add_stream(&s, json_object_get(d, "results"), (int)i);
		json_array_foreach(rails, k, r)
			ok = ok && !add_stream(&s, json_object_get(json_object_get(r, "loaded"),
								   "results"), (int)i);
	}
	sg = ok && s.n ? calloc((size_t)s.n, sizeof(*sg)) : NULL;
	if (sg && fc_bw_window(s.c, s.n, sg, &w)) {
		why = "the flows ran at no one time together";
		free(sg);
		sg = NULL;
	}
	if (sg) {
		json_array_foreach(flows, i, d)
			g[i] = 0;
		for (int k = 0; k < s.n; k++)
			g[s.flow[k]] += sg[k];
		json_object_set_new(rd, "window", json_pack("{s:s, s:f, s:f}", "measured_over",
							    "common window", "window_s",
							    w.end - w.start, "share", w.share));
	} else {
		json_object_set_new(rd, "window", json_pack("{s:s, s:s}", "measured_over",
							    "each flow's own test", "why", why));
	}
	free(sg);
	streams_free(&s);
}

/* The payload ceiling of side @ab ("a" or "b") of a flow: each rail's
 * payload_gbps (core/payload.h), else its port rate, summed over the rails;
 * *@what says which. */
static double side_ceiling(const json_t *d, const char *ab, const char **what)
{
	const json_t *rails = json_object_get(d, "rails");
	double sum = 0;
	size_t i;
	json_t *r;

	*what = "payload ceiling";
	if (!json_array_size(rails)) {
		const json_t *s = json_object_get(d, ab);

		if (fc_jnum(s, "payload_gbps", 0) > 0)
			return fc_jnum(s, "payload_gbps", 0);
		*what = "port rate";
		return fc_jnum(s, "rate_gbps", 0);
	}
	json_array_foreach(rails, i, r) {
		const json_t *s = json_object_get(r, ab);

		if (fc_jnum(s, "payload_gbps", 0) > 0) {
			sum += fc_jnum(s, "payload_gbps", 0);
		} else {
			*what = "port rate";
			sum += fc_jnum(s, "rate_gbps", 0);
		}
	}
	return sum;
}

/* Every (node, counter) of @d's "counters" and of its rails' loaded and
 * alone documents, with the largest delta any flow of the round saw: the
 * flows of a round read the same ports over overlapping windows, so their
 * deltas are not added. */
static void counters_max(json_t *acc, const json_t *counters)
{
	const char *node, *name;
	json_t *set, *v;

	json_object_foreach((json_t *)counters, node, set) {
		json_t *mine = json_object_get(acc, node);

		if (!json_is_object(set))
			continue;
		if (!mine) {
			mine = json_object();
			json_object_set_new(acc, node, mine);
		}
		json_object_foreach(set, name, v) {
			if (!json_is_number(v) || fc_cg_class_of(name) == FC_CG_OTHER ||
			    json_number_value(v) <= fc_jnum(mine, name, 0))
				continue;
			json_object_set_new(mine, name, json_real(json_number_value(v)));
		}
	}
}

static void flow_counters(json_t *acc, const json_t *d)
{
	size_t i;
	json_t *r;

	counters_max(acc, json_object_get(d, "counters"));
	json_array_foreach(json_object_get(d, "rails"), i, r) {
		counters_max(acc, json_object_get(json_object_get(r, "loaded"), "counters"));
		counters_max(acc, json_object_get(json_object_get(r, "alone"), "counters"));
	}
}

/* The counters that moved, by class over every port, and on @receiver. */
static json_t *counters_sum(json_t *acc, const char *receiver, double *sum, double *rx_drop)
{
	json_t *moved = json_object(), *set, *v;
	const char *node, *name;

	json_object_foreach(acc, node, set) {
		json_object_foreach(set, name, v) {
			enum fc_cg_class c = fc_cg_class_of(name);

			if (json_number_value(v) <= 0)
				continue;
			sum[c] += json_number_value(v);
			if (c == FC_CG_RX_DROP && receiver && !strcmp(node, receiver))
				*rx_drop += json_number_value(v);
			if (!json_object_get(moved, node))
				json_object_set_new(moved, node, json_object());
			json_object_set(json_object_get(moved, node), name, v);
		}
	}
	return moved;
}

/* The pair run the incast is held against: the store's latest ended
 * matrix run before it with no pattern (0: none). */
struct pairs_ref {
	int64_t before, id;
	json_t *acc; /* its counters, largest delta per (node, counter) */
};

static int pick_pairs_run(const struct fc_store_run *r, void *arg)
{
	struct pairs_ref *p = arg;

	if (!strcmp(r->kind, "matrix") && r->id < p->before && r->id > p->id && r->ended > 0 &&
	    !json_object_get(r->params, "pattern"))
		p->id = r->id;
	return 0;
}

static int pairs_counters(const struct fc_store_pair *sp, void *arg)
{
	json_t *d = sp->doc ? json_loads(sp->doc, 0, NULL) : NULL;

	if (d)
		flow_counters(arg, d);
	json_decref(d);
	return 0;
}

/* Whether the pair run @p showed no loss (no retransmission, no drop) on
 * any port: core/congest.h's "pairs_clean". -1: no pair run to tell. */
static int pairs_clean(struct pairs_ref *p)
{
	double sum[FC_CG_NCLASS] = { 0 }, drop = 0;
	json_t *moved;

	if (!p->id)
		return -1;
	moved = counters_sum(p->acc, NULL, sum, &drop);
	json_decref(moved);
	return sum[FC_CG_RETRANS] == 0 && sum[FC_CG_RX_DROP] == 0;
}

/* One incast round toward its receiver. */
static int judge_incast(json_t *flows, const double *g, json_t *out, int clean)
{
	size_t n = json_array_size(flows), i;
	const char **snd = calloc(n + 1, sizeof(*snd)), *what = "port rate";
	struct fc_incast_obs o = { 0 };
	json_t *acc = json_object(), *d, *shares = json_object();
	int level = 0;

	if (!snd)
		goto out_free;
	json_array_foreach(flows, i, d) {
		snd[i] = fc_jstr(json_object_get(d, "a"), "node", "?");
		json_object_set_new(shares, snd[i], json_real(g[i]));
		flow_counters(acc, d);
	}
	o.receiver = fc_jstr(json_object_get(json_array_get(flows, 0), "matrix"), "target", "?");
	o.nsenders = (int)n;
	o.sender = snd;
	o.gbps = g;
	o.ceiling_gbps = side_ceiling(json_array_get(flows, 0), "b", &what);
	json_object_set_new(out, "counters_moved",
			    counters_sum(acc, o.receiver, o.sum, &o.rx_drop_receiver));
	json_object_set_new(out, "receiver", json_string(o.receiver));
	json_object_set_new(out, "ceiling_gbps", json_real(o.ceiling_gbps));
	json_object_set_new(out, "ceiling_is", json_string(what));
	json_object_set_new(out, "senders", shares);
	shares = NULL;
	o.pairs_clean = clean > 0;
	level = fc_incast_judge(&o, out);
out_free:
	json_decref(shares);
	json_decref(acc);
	free(snd);
	return level;
}

/* A round's total against the sum of its senders' ports (bisection), or
 * its total alone. */
static int judge_total(json_t *flows, const double *g, json_t *out, int bisection)
{
	double total = 0, ports = 0;
	const char *what = "payload ceiling";
	json_t *d, *seen = json_object();
	size_t i;

	json_array_foreach(flows, i, d) {
		const char *a = fc_jstr(json_object_get(d, "a"), "node", "?");
		total += g[i];
		if (!json_object_get(seen, a)) { /* a sender's port counted once */
			const char *w;

			ports += side_ceiling(d, "a", &w);
			what = strcmp(w, "port rate") ? what : w;
			json_object_set_new(seen, a, json_true());
		}
	}
	json_decref(seen);
	json_object_set_new(out, "total_gbps", json_real(total));
	if (!bisection)
		return 0;
	json_object_set_new(out, "ports_gbps", json_real(ports));
	json_object_set_new(out, "ports_are", json_string(what));
	/* pair's default --min-link-pct: 90% of a port's ceiling */
	if (ports > 0 && total < 0.9 * ports) {
		json_object_set_new(out, "level", json_string("warn"));
		return 1;
	}
	json_object_set_new(out, "level", json_string("pass"));
	return 0;
}

/* The findings of a round's outcomes worse than pass. */
static void round_findings(json_t *doc, const json_t *rd)
{
	size_t i;
	json_t *o;

	json_array_foreach(json_object_get(rd, "outcomes"), i, o) {
		const char *lv = fc_jstr(o, "level", "pass");

		if (strcmp(lv, "pass"))
			fc_finding(doc, strcmp(lv, "fail") ? FC_WARN : FC_FAIL,
				   "incast into %s: %s: %s", fc_jstr(rd, "receiver", "?"),
				   fc_jstr(o, "outcome", "?"), fc_jstr(o, "evidence", ""));
	}
	if (!strcmp(fc_jstr(rd, "level", ""), "warn"))
		fc_finding(doc, FC_WARN, "bisection round %d: %.4g Gb/s across the halves against "
			   "%.4g Gb/s of the senders' ports (%s): the fabric between the halves "
			   "carries less than its ports", (int)fc_jnum(rd, "round", 0),
			   fc_jnum(rd, "total_gbps", 0), fc_jnum(rd, "ports_gbps", 0),
			   fc_jstr(rd, "ports_are", "?"));
}

static int round_cmp(const void *x, const void *y)
{
	return atoi(*(const char *const *)x) - atoi(*(const char *const *)y);
}

int mx_pattern_doc(struct fc_store *st, int64_t run, json_t *doc)
{
	struct flows fl = { .rounds = json_object() };
	struct pairs_ref pr = { .before = run, .acc = json_object() };
	const char **keys = NULL, *k;
	json_t *rounds, *v;
	size_t n = 0;
	int rc, clean = -1;

	rc = fc_store_pairs(st, run, 0, collect, &fl);
	if (rc || !fl.pattern[0])
		goto out;
	if (!strcmp(fl.pattern, "incast") && !fc_store_run_list(st, 0, pick_pairs_run, &pr) &&
	    pr.id && !fc_store_pairs(st, pr.id, 0, pairs_counters, pr.acc))
		clean = pairs_clean(&pr);
	keys = calloc(json_object_size(fl.rounds) + 1, sizeof(*keys));
	if (!keys) {
		rc = -ENOMEM;
		goto out;
	}
	json_object_foreach(fl.rounds, k, v)
		keys[n++] = k;
	qsort(keys, n, sizeof(*keys), round_cmp);
	rounds = json_array();
	for (size_t i = 0; i < n; i++) {
		json_t *flows = json_object_get(fl.rounds, keys[i]);
		json_t *rd = json_pack("{s:i, s:i}", "round", atoi(keys[i]), "flows",
				       (int)json_array_size(flows));
		double *g = calloc(json_array_size(flows) + 1, sizeof(*g));

		if (!g) {
			json_decref(rd);
			json_decref(rounds);
			rc = -ENOMEM;
			goto out;
		}
		round_rates(flows, g, rd);
		if (!strcmp(fl.pattern, "incast"))
			judge_incast(flows, g, rd, clean);
		else
			judge_total(flows, g, rd, !strcmp(fl.pattern, "bisection"));
		free(g);
		round_findings(doc, rd);
		json_array_append_new(rounds, rd);
	}
	json_object_set_new(doc, "pattern", json_pack("{s:s, s:o}", "name", fl.pattern,
						      "rounds", rounds));
	if (clean >= 0) /* the pair run the incast was held against */
		json_object_set_new(json_object_get(doc, "pattern"), "pairs_run",
				    json_pack("{s:I, s:b}", "run", (json_int_t)pr.id, "clean", clean));
out:
	json_decref(pr.acc);
	free(keys);
	json_decref(fl.rounds);
	return rc;
}

/* The outcomes and the counters that moved of an incast round. */
static void render_incast(FILE *f, const json_t *rd)
{
	const char *node, *name;
	json_t *o, *set, *v;
	size_t i;

	fprintf(f, "  round %d: into %s from %d senders: %.4g Gb/s of %.4g Gb/s (%s), Jain %.3f\n",
		(int)fc_jnum(rd, "round", 0), fc_jstr(rd, "receiver", "?"),
		(int)fc_jnum(rd, "flows", 0), fc_jnum(rd, "aggregate_gbps", 0),
		fc_jnum(rd, "ceiling_gbps", 0), fc_jstr(rd, "ceiling_is", "?"),
		fc_jnum(rd, "jain", NAN));
	json_object_foreach(json_object_get(rd, "senders"), name, v)
		fprintf(f, "    %s -> %s  %.4g Gb/s\n", name, fc_jstr(rd, "receiver", "?"),
			json_number_value(v));
	json_object_foreach(json_object_get(rd, "counters_moved"), node, set)
		json_object_foreach(set, name, v)
			fprintf(f, "    moved: %s %s +%.0f\n", node, name, json_number_value(v));
	json_array_foreach(json_object_get(rd, "outcomes"), i, o)
		fprintf(f, "    %s: %s: %s\n", fc_jstr(o, "level", "?"), fc_jstr(o, "outcome", "?"),
			fc_jstr(o, "evidence", ""));
}

/* Over which window a round's rates are. */
static void render_window(FILE *f, const json_t *w)
{
	if (!w)
		return;
	if (!strcmp(fc_jstr(w, "measured_over", ""), "common window"))
		fprintf(f, "    measured over the window all its flows ran in: %.3f s, %.0f%% of "
			"the round\n", fc_jnum(w, "window_s", 0), 100 * fc_jnum(w, "share", 0));
	else
		fprintf(f, "    measured over each flow's own test: %s\n", fc_jstr(w, "why", "?"));
}

void mx_pattern_render(FILE *f, const json_t *doc)
{
	const json_t *p = json_object_get(doc, "pattern");
	size_t i;
	json_t *rd;

	if (!p)
		return;
	fprintf(f, "\npattern %s, %zu rounds (each round's flows started together):\n",
		fc_jstr(p, "name", "?"), json_array_size(json_object_get(p, "rounds")));
	json_array_foreach(json_object_get(p, "rounds"), i, rd) {
		if (json_object_get(rd, "receiver"))
			render_incast(f, rd);
		else if (json_object_get(rd, "ports_gbps"))
			fprintf(f, "  round %d: %d flows, %.4g Gb/s across against %.4g Gb/s of "
				"the senders' ports (%s): %s\n", (int)fc_jnum(rd, "round", 0),
				(int)fc_jnum(rd, "flows", 0), fc_jnum(rd, "total_gbps", 0),
				fc_jnum(rd, "ports_gbps", 0), fc_jstr(rd, "ports_are", "?"),
				fc_jstr(rd, "level", "?"));
		else
			fprintf(f, "  round %d: %d flows, %.4g Gb/s in all\n",
				(int)fc_jnum(rd, "round", 0), (int)fc_jnum(rd, "flows", 0),
				fc_jnum(rd, "total_gbps", 0));
		render_window(f, json_object_get(rd, "window"));
	}
}
