/*
 * fabcheck pair: a bandwidth result from both sides' reports. One way, the
 * posting side's figure. Both ways, each side's curve of cumulative bytes is
 * put on the controller's clock (each worker's offset measured over its
 * channel) and only the window in which both directions ran is counted:
 * each direction, their sum, and the window as a share of the run.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bwlog.h"
#include "core/out.h"
#include "core/util.h"
#include "pair/pair.h"

#define OVERLAP_MIN 0.9

/* A worker's "curve" ([[s since t0, bytes], ...]) on the controller's clock. */
static int curve_from(const json_t *res, double offset, struct fc_curve *c, double **t_p,
		      double **b_p)
{
	const json_t *pts = json_object_get(res, "curve");
	double t0 = fc_jnum(res, "t0", 0);
	size_t n = json_array_size(pts), i;
	json_t *pt;

	*t_p = calloc(n ? n : 1, sizeof(double));
	*b_p = calloc(n ? n : 1, sizeof(double));
	if (!*t_p || !*b_p)
		return -1;
	json_array_foreach(pts, i, pt) {
		(*t_p)[i] = t0 + json_number_value(json_array_get(pt, 0)) - offset;
		(*b_p)[i] = json_number_value(json_array_get(pt, 1));
	}
	c->t = *t_p;
	c->bytes = *b_p;
	c->n = (int)n;
	return 0;
}

static void overlap_finding(json_t *doc, const json_t *e, const struct fc_common *c,
			    double run_s)
{
	char sz[32];

	fc_finding(doc, FC_WARN,
		   "%s bandwidth at %s both ways: the two directions ran together for %.0f%% of the run (%.3f s of %.3f s): the figures are over that window only; one worker started late or ended early (a slow node, ssh or CPU contention)",
		   fc_jstr(e, "test", "?"),
		   fc_fmt_size((uint64_t)fc_jnum(e, "size_bytes", 0), sz, sizeof(sz)),
		   c->share * 100, c->end > c->start ? c->end - c->start : 0, run_s);
}

/* Both ways: the common window. @dir[i] is the direction side i's
 * result measured (0: a->b). */
static void common_window(json_t *doc, json_t *e, json_t **res, const int *dir,
			  const double *offset, double clock_err)
{
	struct fc_curve c[2];
	double *t[2] = { NULL, NULL }, *b[2] = { NULL, NULL };
	struct fc_common w;
	const char *key[2] = { "a_to_b_gbps", "b_to_a_gbps" };
	double first, last;

	if (curve_from(res[0], offset[0], &c[0], &t[0], &b[0]) ||
	    curve_from(res[1], offset[1], &c[1], &t[1], &b[1]) || c[0].n < 2 || c[1].n < 2) {
		fc_finding(doc, FC_WARN, "both ways: a side sent no byte curve; the sum is of each side's own window");
		goto out;
	}
	fc_bw_common(&c[0], &c[1], &w);
	first = c[0].t[0] < c[1].t[0] ? c[0].t[0] : c[1].t[0];
	last = c[0].t[c[0].n - 1] > c[1].t[c[1].n - 1] ? c[0].t[c[0].n - 1] : c[1].t[c[1].n - 1];
	for (int i = 0; i < 2; i++) {
		char own[32];

		snprintf(own, sizeof(own), "%s_own_window_gbps", dir[i] ? "b_to_a" : "a_to_b");
		json_object_set(e, own, json_object_get(e, key[dir[i]]));
		json_object_set_new(e, key[dir[i]], json_real(w.gbps[i]));
	}
	json_object_set_new(e, "gbps", json_real(w.sum));
	/* the message rate over the same common window, not the longer side's time */
	if (fc_jnum(e, "size_bytes", 0) > 0)
		json_object_set_new(e, "msg_rate_mpps",
				    json_real(w.sum * 1e9 / 8 / fc_jnum(e, "size_bytes", 0) / 1e6));
	json_object_set_new(e, "overlap",
			    json_pack("{s:f, s:f, s:f, s:f, s:[f, f], s:[f, f], s:[f, f]}", "share",
				      w.share, "window_s", w.end > w.start ? w.end - w.start : 0,
				      "run_s", last - first, "clock_uncertainty_s", clock_err,
				      "clock_offsets_s", offset[0], offset[1], "starts_s",
				      c[0].t[0] - first, c[1].t[0] - first, "ends_s",
				      c[0].t[c[0].n - 1] - first, c[1].t[c[1].n - 1] - first));
	if (w.share < OVERLAP_MIN)
		overlap_finding(doc, e, &w, last - first);
out:
	for (int i = 0; i < 2; i++) {
		free(t[i]);
		free(b[i]);
	}
}

/* pair_result_check over @v, found under the key @key. */
static int figures_ok(const json_t *v, const char *key, char *why, size_t len)
{
	const char *k;
	json_t *x;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach((json_t *)v, k, x) /* "method": knobs, -1 for none */
			if (strcmp(k, "method") && figures_ok(x, k, why, len))
				return -EINVAL;
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			if (figures_ok(x, key, why, len))
				return -EINVAL;
	} else if (json_is_number(v)) {
		double d = json_number_value(v), max = fc_figure_max(key, PAIR_GBPS_MAX);

		/* the one bound of figures (core/util.h), which a stored
		 * result is read back through too (store/docfig.c) */
		if (!isfinite(d) || d < 0)
			snprintf(why, len, "its \"%.40s\" of %g is no figure (not a finite number of 0 or more)",
				 key, d);
		else if (max > 0 && d > max)
			snprintf(why, len, "its \"%.40s\" of %g is no figure (above %s%g%s)", key, d,
				 max == PAIR_GBPS_MAX ? "the fastest port, " : "", max,
				 max == PAIR_GBPS_MAX ? " Gb/s" : max == FC_LAT_US_MAX ? " us" : "");
		else
			return 0;
		return -EINVAL;
	}
	return 0;
}

int pair_result_check(const json_t *res, char *why, size_t len)
{
	return figures_ok(res, "", why, len);
}

/* --perftest both ways: each side's own window, added, as perftest's
 * client adds the server's report to its own (perftest_parameters.c,
 * print_full_bw_report with rem_bw_rep: bw_avg, bw_peak and msgRate_avg
 * of both); the figures are already each side's own. */
static void own_windows(json_t *e, json_t **res)
{
	double rate = 0, peak = 0;
	int peaks = 0;

	for (int i = 0; i < 2; i++) {
		double s = fc_jnum(res[i], "seconds", 0);

		rate += s > 0 ? fc_jnum(res[i], "msgs", 0) / s / 1e6 : 0;
		if (fc_jnum(res[i], "peak_gbps", 0) > 0) {
			peak += fc_jnum(res[i], "peak_gbps", 0);
			peaks++;
		}
	}
	json_object_set_new(e, "msg_rate_mpps", json_real(rate));
	json_object_set_new(e, "bidir_window", json_string("each side's own"));
	if (peaks == 2)
		json_object_set_new(e, "peak_gbps", json_real(peak));
	else
		json_object_del(e, "peak_gbps");
}

void pair_bw_entry(json_t *doc, const struct pair_cfg *cfg, json_t *e, enum vb_op op,
		   json_t **res, const int *active, const double *offset, double clock_err)
{
	double total = 0, secs = 0, msgs = 0;
	int dir[2];

	for (int i = 0; i < 2; i++) {
		/* Data flows from the sender, or toward the reader. */
		int from = op == VB_READ ? 1 - i : i;
		const char *key = from == 0 ? "a_to_b_gbps" : "b_to_a_gbps";
		const char *skey = from == 0 ? "samples_a_to_b_gbps" : "samples_b_to_a_gbps";
		const char *ikey = from == 0 ? "intervals_a_to_b" : "intervals_b_to_a";
		double g;

		dir[i] = from;
		if (!active[i])
			continue;
		g = fc_jnum(res[i], "gbps", 0);
		total += g;
		json_object_set_new(e, key, json_real(g));
		json_object_set(e, skey, json_object_get(res[i], "samples_gbps"));
		if (json_object_get(res[i], "intervals"))
			json_object_set(e, ikey, json_object_get(res[i], "intervals"));
		if (fc_jnum(res[i], "seconds", 0) > secs)
			secs = fc_jnum(res[i], "seconds", 0);
		msgs += fc_jnum(res[i], "msgs", 0);
		if (fc_jnum(res[i], "peak_gbps", 0) > 0)
			json_object_set(e, "peak_gbps", json_object_get(res[i], "peak_gbps"));
	}
	json_object_set_new(e, "gbps", json_real(total));
	json_object_set_new(e, "msg_rate_mpps", json_real(secs > 0 ? msgs / secs / 1e6 : 0));
	json_object_set_new(e, "seconds", json_real(secs));
	json_object_set_new(e, "interval_s", json_real(cfg->interval));
	if (!fc_jnum(e, "iters", 0)) /* by duration: the messages it moved */
		json_object_set_new(e, "iters", json_integer((json_int_t)msgs));
	if (active[0] && active[1] && cfg->method == VB_METHOD_PERFTEST)
		own_windows(e, res);
	else if (active[0] && active[1])
		common_window(doc, e, res, dir, offset, clock_err);
}

void pair_val_ceiling(json_t *e, const json_t *res)
{
	double crc = fc_jnum(res, "validate_crc_gbps", 0), copy = fc_jnum(res, "validate_copy_gbps", 0);
	/* the two in series (vb_val_ceiling); older workers: the CRC alone */
	double check = fc_jnum(res, "validate_check_gbps", crc), now = fc_jnum(e, "validate_ceiling_gbps", 0);

	if (strcmp(fc_jstr(e, "metric", ""), "bw") || check <= 0 || (now > 0 && check >= now))
		return;
	json_object_set_new(e, "validate_ceiling_gbps", json_real(check));
	json_object_set_new(e, "validate_ceiling_from",
			    json_string(copy > 0 && copy < crc ? "copy" : "crc"));
	json_object_set_new(e, "validate_crc_gbps", json_real(crc));
	if (copy > 0)
		json_object_set_new(e, "validate_copy_gbps", json_real(copy));
	else
		json_object_del(e, "validate_copy_gbps");
}

void pair_bw_curves(json_t *e, enum vb_op op, json_t **res, const int *active,
		    const double *offset)
{
	json_t *all = json_object();

	for (int i = 0; i < 2; i++) {
		int from = op == VB_READ ? 1 - i : i; /* as pair_bw_entry */
		struct fc_curve c;
		double *t = NULL, *b = NULL;

		if (active[i] && !curve_from(res[i], offset[i], &c, &t, &b) && c.n >= 2) {
			json_t *pts = json_array();

			for (int k = 0; k < c.n; k++)
				json_array_append_new(pts, json_pack("[f, f]", c.t[k], c.bytes[k]));
			json_object_set_new(all, from ? "b_to_a" : "a_to_b", pts);
		}
		free(t);
		free(b);
	}
	if (json_object_size(all))
		json_object_set_new(e, "curves", all);
	else
		json_decref(all);
}
