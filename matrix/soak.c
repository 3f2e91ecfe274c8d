/* Soak analysis (see soak.h). */
#include "matrix/soak.h"
#include "core/stats.h"
#include "core/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/out.h"
#include "core/pairv.h"
#include "matrix/mxan.h"
#include "store/store.h"

const char *fc_soak_when(double t, double t0, char *buf, size_t len)
{
	char hms[16];

	fc_fmt_time(t, "%H:%M:%S", hms, sizeof(hms));
	snprintf(buf, len, "%s (+%.0f s)", hms, t - t0);
	return buf;
}

static const char *const dir_keys[2] = { "samples_a_to_b_gbps", "samples_b_to_a_gbps" };

/* The bandwidth result of a slice's document (the first bw entry). */
static const json_t *bw_result(const json_t *doc)
{
	size_t i;
	json_t *r;

	json_array_foreach(json_object_get(doc, "results"), i, r)
		if (!strcmp(fc_jstr(r, "metric", ""), "bw"))
			return r;
	return NULL;
}

static int slice_ok(const json_t *s)
{
	const char *v = fc_jstr(json_object_get(s, "doc"), "verdict", "error");

	return bw_result(json_object_get(s, "doc")) && strcmp(v, "error");
}

/* The reason a slice failed: the pair's error, else its first finding. */
static const char *slice_why(const json_t *s)
{
	const json_t *doc = json_object_get(s, "doc");
	const char *why = fc_jstr(doc, "error", NULL);

	if (!why)
		why = json_string_value(json_array_get(json_object_get(doc, "findings"), 0));
	if (why && !strncmp(why, "fabcheck: error: ", 17))
		why += 17;
	return why ? why : "no result";
}

static void add_event(json_t *events, double t, double t0, const char *kind, const char *node,
		      const char *pair, const char *text)
{
	char when[64];

	json_array_append_new(events,
			      json_pack("{s:f, s:f, s:s, s:s, s:s?, s:s?, s:s}", "time", t,
					"since_start_s", t - t0, "when",
					fc_soak_when(t, t0, when, sizeof(when)), "kind", kind,
					"node", node, "pair", pair, "text", text));
}

/* One event for a run of failed slices of a pair. */
static void flush_failures(json_t *events, const char *label, int *n, double t, double last,
			   const char *why, double t0)
{
	char text[1500], w[64];

	if (!*n)
		return;
	char w0[64];

	fc_soak_when(t, t0, w0, sizeof(w0));
	if (*n == 1)
		snprintf(text, sizeof(text), "%s: traffic failed at %s: %s", label, w0, why);
	else
		snprintf(text, sizeof(text),
			 "%s: traffic failed at %s and in %d slices in a row, until %s: %s", label, w0,
			 *n, fc_soak_when(last, t0, w, sizeof(w)), why);
	add_event(events, t, t0, "failed", NULL, label, text);
	*n = 0;
}

/* Per pair: series, medians, drops, failed slices. */
static int analyze_pair(json_t *pairs, json_t *events, const json_t *slices, const char *a,
			const char *b, const struct fc_soak_opts *o)
{
	json_t *samples = json_array(), *p;
	double *vals[2] = { NULL, NULL }, med[2] = { 0, 0 }, lo[2] = { INFINITY, INFINITY };
	size_t nv[2] = { 0, 0 }, cap = 0, i;
	int nslices = 0, failed = 0, good = 0, fail_n = 0, unrun = 0;
	double fail_t = 0, fail_last = 0;
	const char *fail_why = NULL;
	char label[300];
	json_t *s;

	snprintf(label, sizeof(label), "%s-%s", a, b);
	json_array_foreach(slices, i, s)
		if (!strcmp(fc_jstr(s, "a", ""), a) && !strcmp(fc_jstr(s, "b", ""), b))
			cap += 2 * json_array_size(json_object_get(bw_result(json_object_get(s, "doc")),
								  dir_keys[0])) + 2;
	vals[0] = calloc(cap + 1, sizeof(double));
	vals[1] = calloc(cap + 1, sizeof(double));
	json_array_foreach(slices, i, s) {
		const json_t *r = bw_result(json_object_get(s, "doc"));

		if (strcmp(fc_jstr(s, "a", ""), a) || strcmp(fc_jstr(s, "b", ""), b))
			continue;
		nslices++;
		if (!slice_ok(s)) {
			/* A slice that could not run (fc_pair_end_judged: ssh,
			 * the launcher, a worker that could not start) is
			 * counted apart from one whose traffic failed: said in
			 * the events, no evidence against its nodes
			 * (fc_soak_suspects). So is one whose worker named its
			 * own node's device (fc_soak_own_fault): evidence
			 * against that node alone, not the link. */
			int judged = fc_pair_doc_judged(json_object_get(s, "doc")) &&
				     !fc_soak_own_fault(s);

			failed += judged;
			unrun += !judged;
			if (!fail_n) {
				fail_t = fc_jnum(s, "end", o->t0);
				fail_why = slice_why(s);
			}
			fail_last = fc_jnum(s, "end", o->t0);
			fail_n++;
			continue;
		}
		flush_failures(events, label, &fail_n, fail_t, fail_last, fail_why, o->t0);
		good++;
		for (int d = 0; d < 2; d++) {
			const json_t *arr = json_object_get(r, dir_keys[d]);
			size_t n = json_array_size(arr), k;
			double iv = fc_jnum(r, "interval_s", 1), end = fc_jnum(s, "end", o->t0);

			for (k = 0; k < n; k++) {
				double g = json_number_value(json_array_get(arr, k));
				double t = end - (double)(n - 1 - k) * iv;

				if (vals[d] && nv[d] < cap)
					vals[d][nv[d]++] = g;
				json_array_append_new(samples, json_pack("[f, i, f]", t - o->t0, d, g));
			}
		}
	}
	flush_failures(events, label, &fail_n, fail_t, fail_last, fail_why, o->t0);
	for (int d = 0; d < 2; d++) {
		med[d] = nv[d] && vals[d] ? fc_median(vals[d], nv[d]) : 0;
		for (size_t k = 0; k < nv[d]; k++)
			lo[d] = vals[d][k] < lo[d] ? vals[d][k] : lo[d];
	}
	/* Drops: runs of samples below the share of the median, per direction. */
	for (int d = 0; d < 2; d++) {
		double th = med[d] * o->drop_pct / 100, run_t = 0, run_lo = 0, prev_t = -1e9;
		int run_n = 0;
		size_t k;
		json_t *smp;

		if (med[d] <= 0)
			continue;
		for (k = 0; k <= json_array_size(samples); k++) {
			smp = json_array_get(samples, k);
			if (smp && (int)json_integer_value(json_array_get(smp, 1)) != d)
				continue;
			double t = smp ? json_number_value(json_array_get(smp, 0)) : 0;
			double g = smp ? json_number_value(json_array_get(smp, 2)) : 0;
			int low = smp && g < th;

			if (run_n && (!low || t - prev_t > 5)) {
				char text[600], w[64];

				snprintf(text, sizeof(text),
					 "%s: %s bandwidth dropped to %.3g Gb/s (%.0f%% of its median %.3g Gb/s) at %s for %d sample%s: congestion, a flapping link or a failing cable; check the counters and the switch port",
					 label, d ? "B->A" : "A->B", run_lo, 100 * run_lo / med[d],
					 med[d], fc_soak_when(o->t0 + run_t, o->t0, w, sizeof(w)), run_n,
					 fc_s(run_n));
				add_event(events, o->t0 + run_t, o->t0, "drop", NULL, label, text);
				run_n = 0;
			}
			if (low) {
				if (!run_n) {
					run_t = t;
					run_lo = g;
				}
				run_lo = g < run_lo ? g : run_lo;
				run_n++;
				prev_t = t;
			}
		}
	}
	p = json_pack("{s:s, s:s, s:i, s:i, s:i, s:o}", "a", a, "b", b, "slices", nslices,
		      "failed_slices", failed, "unrun_slices", unrun, "samples", samples);
	json_object_set_new(p, "median_a_to_b_gbps", json_real(med[0]));
	json_object_set_new(p, "median_b_to_a_gbps", json_real(med[1]));
	json_object_set_new(p, "min_a_to_b_gbps", json_real(isfinite(lo[0]) ? lo[0] : 0));
	json_object_set_new(p, "min_b_to_a_gbps", json_real(isfinite(lo[1]) ? lo[1] : 0));
	json_object_set_new(p, "verdict", json_string(failed ? "fail" : unrun ? "error" : "pass"));
	json_array_append_new(pairs, p);
	free(vals[0]);
	free(vals[1]);
	return good;
}

/* The side object ("a" or "b") of @node in a slice's document. */
static const json_t *side_of(const json_t *s, const char *node)
{
	const json_t *doc = json_object_get(s, "doc");

	if (!strcmp(fc_jstr(s, "a", ""), node))
		return json_object_get(doc, "a");
	if (!strcmp(fc_jstr(s, "b", ""), node))
		return json_object_get(doc, "b");
	return NULL;
}

/* With rails (@node "NODE/RAIL"): the node's own device on that rail, from
 * slice @s's "devices" (matrix/cmd_soak.c), on the event just added, for a
 * drain to name (servers of another model name it otherwise). */
static void event_device(json_t *events, const json_t *s, const char *node)
{
	const json_t *d = json_object_get(s, "devices");
	const json_t *dev = json_array_get(d, strcmp(fc_jstr(s, "a", ""), node) ? 1 : 0);

	if (json_is_string(dev))
		json_object_set(json_array_get(events, json_array_size(events) - 1), "device",
				(json_t *)dev);
}

/* Per node: counters summed over slices, and flaps between and within. */
static void analyze_node(json_t *nodes, json_t *events, const json_t *slices, const char *node,
			 const struct fc_soak_opts *o)
{
	static const char *const flap_keys[] = { "link_downed", "netdev_carrier_changes" };
	json_t *totals = json_object(), *flaps = json_array(), *s, *v;
	double last_val[2] = { -1, -1 }, last_t[2] = { 0, 0 };
	const char *name;
	size_t i;

	json_array_foreach(slices, i, s) {
		const json_t *side = side_of(s, node);
		const json_t *cnt = json_object_get(json_object_get(json_object_get(s, "doc"),
								    "counters"), node);
		double start = fc_jnum(s, "start", o->t0), end = fc_jnum(s, "end", o->t0);

		if (!side)
			continue;
		json_object_foreach((json_t *)cnt, name, v) {
			json_int_t prev = json_integer_value(json_object_get(totals, name));

			if (json_is_integer(v))
				json_object_set_new(totals, name, json_integer(prev + json_integer_value(v)));
		}
		for (int k = 0; k < 2; k++) {
			const json_t *abs = json_object_get(side, flap_keys[k]);
			json_int_t within = json_integer_value(json_object_get(cnt, flap_keys[k]));
			char text[700], w1[64], w2[64];

			if (within > 0) {
				snprintf(text, sizeof(text),
					 "%s: link flap: %s rose by %lld during the slice from %s to %s: check the cable, the transceiver and the switch port's log",
					 node, flap_keys[k], (long long)within,
					 fc_soak_when(start, o->t0, w1, sizeof(w1)),
					 fc_soak_when(end, o->t0, w2, sizeof(w2)));
				add_event(events, start, o->t0, "flap", node, NULL, text);
				event_device(events, s, node);
				json_array_append_new(flaps, json_pack("{s:s, s:f, s:f, s:I}", "counter",
								       flap_keys[k], "from_s", start - o->t0,
								       "to_s", end - o->t0, "count",
								       (json_int_t)within));
			}
			if (!json_is_integer(abs))
				continue;
			if (last_val[k] >= 0 && json_integer_value(abs) > last_val[k]) {
				double d = (double)json_integer_value(abs) - last_val[k];

				snprintf(text, sizeof(text),
					 "%s: link flap: %s rose by %.0f between %s and %s: check the cable, the transceiver and the switch port's log",
					 node, flap_keys[k], d, fc_soak_when(last_t[k], o->t0, w1, sizeof(w1)),
					 fc_soak_when(start, o->t0, w2, sizeof(w2)));
				add_event(events, last_t[k], o->t0, "flap", node, NULL, text);
				event_device(events, s, node);
				json_array_append_new(flaps, json_pack("{s:s, s:f, s:f, s:f}", "counter",
								       flap_keys[k], "from_s",
								       last_t[k] - o->t0, "to_s",
								       start - o->t0, "count", d));
			}
			last_val[k] = (double)json_integer_value(abs);
			last_t[k] = start;
		}
	}
	json_object_set_new(nodes, node, json_pack("{s:o, s:o}", "counters", totals, "flaps", flaps));
}

static int by_time(const void *x, const void *y)
{
	double a = fc_jnum(*(json_t *const *)x, "time", 0), b = fc_jnum(*(json_t *const *)y, "time", 0);

	return a < b ? -1 : a > b;
}

/* Events in time order, each a finding. */
static void sort_events(json_t *doc, json_t *events)
{
	size_t n = json_array_size(events), i;
	json_t **v = calloc(n + 1, sizeof(*v)), *sorted = json_array();

	for (i = 0; v && i < n; i++)
		v[i] = json_incref(json_array_get(events, i));
	if (v)
		qsort(v, n, sizeof(*v), by_time);
	for (i = 0; v && i < n; i++) {
		fc_finding(doc, FC_FAIL, "%s", fc_jstr(v[i], "text", "?"));
		json_array_append_new(sorted, v[i]);
	}
	free(v);
	json_object_set_new(doc, "events", sorted);
}

/* What error counters that rose mean, said after the first port's only. */
#define SOAK_CTR_WHY                                                                       \
	"packets were lost, retried or corrupted (with --save-evidence, 'fabcheck diagnose' " \
	"names the likely part)"

/* One finding per port (@name, "node/device"): the error counters that rose
 * over the soak, each with its delta; what they mean once in the report
 * (*@said; issue 39 item 2). "nodes" keeps every counter. */
static void port_errors(json_t *doc, const char *name, const json_t *counters, int *said)
{
	char list[700] = "";
	size_t off = 0;
	const char *cn;
	json_t *c;

	json_object_foreach((json_t *)counters, cn, c)
		if (json_integer_value(c) > 0 && fc_counter_is_error(cn) && strcmp(cn, "link_downed") &&
		    off < sizeof(list))
			off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s +%lld",
						off ? ", " : "", cn, (long long)json_integer_value(c));
	if (!off)
		return;
	fc_finding(doc, FC_WARN, "%s: error counters rose over the soak: %s%s%s", name, list,
		   *said ? "" : ": ", *said ? "" : SOAK_CTR_WHY);
	*said = 1;
}

int fc_soak_analyze(json_t *doc, const json_t *slices, const struct fc_soak_opts *o)
{
	json_t *pairs = json_array(), *nodes = json_object(), *events = json_array(), *seen, *done;
	const char *name;
	int good = 0, said = 0;
	size_t i;
	json_t *s, *v;

	seen = json_object();
	done = json_object();
	json_array_foreach(slices, i, s) {
		char key[300];

		json_object_set_new(seen, fc_jstr(s, "a", "?"), json_true());
		json_object_set_new(seen, fc_jstr(s, "b", "?"), json_true());
		snprintf(key, sizeof(key), "%s\x1f%s", fc_jstr(s, "a", "?"), fc_jstr(s, "b", "?"));
		if (json_object_get(done, key))
			continue;
		json_object_set_new(done, key, json_true());
		good += analyze_pair(pairs, events, slices, fc_jstr(s, "a", "?"), fc_jstr(s, "b", "?"),
				     o);
	}
	json_decref(done);
	json_object_foreach(seen, name, v)
		analyze_node(nodes, events, slices, name, o);
	json_decref(seen);
	json_object_foreach(nodes, name, v)
		port_errors(doc, name, json_object_get(v, "counters"), &said);
	sort_events(doc, events);
	json_decref(events);
	json_object_set_new(doc, "pairs", pairs);
	json_object_set_new(doc, "nodes", nodes);
	fc_soak_suspects(doc, slices);
	return good;
}
