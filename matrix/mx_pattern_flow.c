/* Reading a pattern run's stored flows: rates, curves, ceilings, counters. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/bwlog.h"
#include "core/congest.h"
#include "core/out.h"
#include "core/util.h"
#include "matrix/mx_pattern_int.h"

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
void mx_round_rates(const json_t *flows, double *g, json_t *rd)
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
double mx_side_ceiling(const json_t *d, const char *ab, const char **what)
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

void mx_flow_counters(json_t *acc, const json_t *d)
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
json_t *mx_counters_sum(json_t *acc, const char *receiver, double *sum, double *rx_drop)
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
