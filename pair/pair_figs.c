/* fabcheck pair's text report: the bandwidth and latency tables and the
 * notes under them (pair_out.c prints the rest of the same document). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/out.h"
#include "core/summary.h"
#include "core/util.h"
#include "pair/pair.h"

#include <stdarg.h>
#include <stdlib.h>

/* One note under a table, "  - ...", on one line that fits the terminal,
 * as the table's cells do (fc_put_wrapped; the note whole in --json). */
__attribute__((format(printf, 2, 3))) static void note(FILE *f, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	fc_put_wrapped(f, "  - ", 4, s ? s : "?", 0, 1);
	free(s);
}

/* Under the table: both ways, the common window; every interval's summary. */
static void render_bw_notes(FILE *f, const json_t *results)
{
	static const char *const iv_keys[2] = { "intervals_a_to_b", "intervals_b_to_a" };
	static const char *const dirs[2] = { "A->B", "B->A" };
	size_t i;
	json_t *r;
	char sz[32];

	json_array_foreach(results, i, r) {
		const json_t *ov = json_object_get(r, "overlap");

		if (strcmp(fc_jstr(r, "metric", ""), "bw"))
			continue;
		fc_fmt_size((uint64_t)fc_jnum(r, "size_bytes", 0), sz, sizeof(sz));
		if (ov)
			note(f, "%s %s both ways: counted over the %.3f s both ran, %.0f%% of the run (clocks within %.1f ms)",
				fc_jstr(r, "test", "?"), sz, fc_jnum(ov, "window_s", 0),
				fc_jnum(ov, "share", 0) * 100,
				fc_jnum(ov, "clock_uncertainty_s", 0) * 1e3);
		for (int d = 0; d < 2; d++) {
			const json_t *iv = json_object_get(r, iv_keys[d]);

			/* one interval is the BW column again, and intervals
			 * without a dip say nothing the column does not: said
			 * once (the intervals whole in --json) */
			if (!iv || fc_jnum(iv, "n", 0) < 2 || fc_jnum(iv, "dips_total", 0) <= 0)
				continue;
			note(f, "%s %s %s: %.0f intervals, min %.3f, median %.3f, max %.3f Gb/s, %.0f dip%s below %.3f Gb/s",
				fc_jstr(r, "test", "?"), sz, dirs[d], fc_jnum(iv, "n", 0),
				fc_jnum(iv, "min_gbps", 0), fc_jnum(iv, "median_gbps", 0),
				fc_jnum(iv, "max_gbps", 0), fc_jnum(iv, "dips_total", 0),
				fc_s((long long)fc_jnum(iv, "dips_total", 0)),
				fc_jnum(iv, "dip_below_gbps", 0));
		}
	}
}

/* A figure column of the bw and lat tables: the result's key, its format, its unit. */
struct fig_col {
	const char *key, *fmt, *unit;
};

/* A row of @t for the result @r: its test (marked when cut short), size,
 * iterations, then its @n figures @cols from column 3. */
static void fig_row(struct fc_table *t, const json_t *r, const struct fig_col *cols, int n)
{
	char sz[32], fig[48];

	fc_table_row(t);
	fc_table_addf(t, 0, "%s%s", fc_jstr(r, "test", "?"),
		      json_is_false(json_object_get(r, "complete")) ? " (cut short)" : "");
	fc_table_addf(t, 1, "%s", fc_fmt_size((uint64_t)fc_jnum(r, "size_bytes", 0), sz, sizeof(sz)));
	fc_table_addf(t, 2, "%.0f", fc_jnum(r, "iters", 0));
	for (int k = 0; k < n; k++)
		fc_table_addf(t, 3 + k, "%s",
			      fc_fmt_figure(fc_jnum(r, cols[k].key, NAN), cols[k].fmt, cols[k].unit,
					    fig, sizeof(fig)));
}

/* The table of one metric's results: its header, its figure columns from
 * column 3, a text column after them (@last, or none when NULL), its title
 * (a line of prose, printed after a blank line). */
struct fig_table {
	const char *metric;
	int ncols;
	const char *const *heads;
	int nfigs;
	const struct fig_col *figs;
	const char *last, *title;
};

/* Prints the table of @ft's results; 0 when there is none. */
static int render_figs(FILE *f, const json_t *results, const struct fig_table *ft)
{
	struct fc_table *t = NULL;
	size_t i;
	json_t *r;

	json_array_foreach(results, i, r) {
		if (strcmp(fc_jstr(r, "metric", ""), ft->metric))
			continue;
		if (!t)
			t = fc_table_newv(ft->ncols, ft->heads);
		fig_row(t, r, ft->figs, ft->nfigs);
		if (ft->last)
			fc_table_addf(t, 3 + ft->nfigs, "%s", fc_jstr(r, ft->last, "-"));
	}
	if (!t)
		return 0;
	fputc('\n', f); /* the title is prose: wrapped at words to the terminal */
	fc_put_paraf(f, 2, "%s", ft->title);
	fc_table_print(t, f, "  ");
	fc_table_free(t);
	return 1;
}

void pair_render_bw(FILE *f, const json_t *results)
{
	static const char *const heads[] = { "TEST", "SIZE", "ITERS", "BW", "A->B", "B->A",
					     "MSG RATE", "TIME" };
	static const struct fig_col figs[] = {
		{ "gbps", "%.3f", "Gb/s" }, { "a_to_b_gbps", "%.3f", "Gb/s" },
		{ "b_to_a_gbps", "%.3f", "Gb/s" }, { "msg_rate_mpps", "%.4f", "Mpps" },
		{ "seconds", "%.3f", "s" },
	};
	static const struct fig_table ft = {
		"bw", 8, heads, 5, figs, NULL,
		"bandwidth (1 Gb/s = 1e9 bit/s, first post to last completion):",
	};

	if (render_figs(f, results, &ft))
		render_bw_notes(f, results);
}

/*
 * --perftest: perftest's columns and units (perftest_parameters.c,
 * print_report_bw and print_full_bw_report, REPORT_FMT): #bytes,
 * #iterations (messages per QP times the QPs with -n, what completed with
 * -D: num_of_calculated_iters), BW peak and BW average in MiB/sec (2^20
 * B/s, its default report_fmt MBS) or, with --report-gbits, Gb/sec (1e9
 * bit/s, GBS), MsgRate in Mpps. A BW peak not measured is 0.00, as there.
 */
void pair_render_bw_pt(FILE *f, const json_t *results, int gbits)
{
	const char *const heads[] = { "TEST", "#bytes", "#iterations",
				      gbits ? "BW peak[Gb/sec]" : "BW peak[MiB/sec]",
				      gbits ? "BW average[Gb/sec]" : "BW average[MiB/sec]",
				      "MsgRate[Mpps]" };
	double unit = gbits ? 1 : 1e9 / 8 / 1048576; /* from Gb/s */
	struct fc_table *t = NULL;
	int nopeak = 0;
	size_t i;
	json_t *r;

	json_array_foreach(results, i, r) {
		double it = fc_jnum(r, "iters", 0);

		if (strcmp(fc_jstr(r, "metric", ""), "bw"))
			continue;
		if (!t)
			t = fc_table_newv(6, heads);
		if (!(fc_jnum(r, "duration_s", 0) > 0))
			it *= fc_jnum(r, "qps", 1);
		nopeak |= !json_object_get(r, "peak_gbps");
		fc_table_row(t);
		fc_table_addf(t, 0, "%s%s", fc_jstr(r, "test", "?"),
			      json_is_false(json_object_get(r, "complete")) ? " (cut short)" : "");
		fc_table_addf(t, 1, "%.0f", fc_jnum(r, "size_bytes", 0));
		fc_table_addf(t, 2, "%.0f", it);
		fc_table_addf(t, 3, "%.2f", fc_jnum(r, "peak_gbps", 0) * unit);
		fc_table_addf(t, 4, "%.2f", fc_jnum(r, "gbps", 0) * unit);
		fc_table_addf(t, 5, "%.6f", fc_jnum(r, "msg_rate_mpps", 0));
	}
	if (!t)
		return;
	fputc('\n', f);
	fc_put_paraf(f, 2, "bandwidth as perftest reports it (%s; both ways: each side's own window, added):",
		gbits ? "1 Gb/sec = 1e9 bit/s" : "1 MiB/sec = 2^20 bytes/s; --report-gbits for Gb/sec");
	fc_table_print(t, f, "  ");
	fc_table_free(t);
	if (nopeak)
		note(f, "BW peak 0.00: not measured, as perftest does not with -D, above %d iterations a QP, with --threads or --validate",
			VB_PT_PEAK_MAX);
	render_bw_notes(f, results);
}

/* @r's label in the notes: "write 64 KiB". */
static const char *lat_label(const json_t *r, char *buf, size_t len)
{
	char sz[32];

	snprintf(buf, len, "%s %s", fc_jstr(r, "test", "?"),
		 fc_fmt_size((uint64_t)fc_jnum(r, "size_bytes", 0), sz, sizeof(sz)));
	return buf;
}

/* 1 when latency result @r has the note @text. */
static int has_note(const json_t *r, const char *text)
{
	size_t k;
	json_t *note;

	json_array_foreach(json_object_get(r, "notes"), k, note)
		if (json_is_string(note) && !strcmp(json_string_value(note), text))
			return 1;
	return 0;
}

/* 1 when @text, a note of @r, says a rank is not reported that @r's note on
 * a lower rank already implies (core/stats.c: p999_us needs more rounds
 * than p99_us): said once, both in --json. */
static int superseded(const json_t *r, const char *text)
{
	static const char *const order[] = { "p90_us", "p99_us", "p999_us" };
	const char *tail = strstr(text, " not reported: it needs at least ");
	size_t k;
	json_t *note;

	for (int lo = 0; tail && lo < 3; lo++) {
		size_t l = strlen(order[lo]);

		if ((size_t)(tail - text) == l && !strncmp(text, order[lo], l))
			return 0; /* @text is this rank's: only lower ranks supersede it */
		json_array_foreach(json_object_get(r, "notes"), k, note) {
			const char *t = json_is_string(note) ? json_string_value(note) : "";

			if (!strncmp(t, order[lo], l) && !strncmp(t + l, " not reported: ", 15))
				return 1;
		}
	}
	return 0;
}

/* "-" in the table: why, each note once, with the tests and sizes it is
 * about ("write 64 KiB, read 64 KiB: p99_us not reported: ..."). */
static void render_lat_notes(FILE *f, const json_t *results)
{
	size_t i, j, k, n;
	json_t *r, *o, *v;
	char lab[64], tests[1024];

	json_array_foreach(results, i, r) {
		if (strcmp(fc_jstr(r, "metric", ""), "lat"))
			continue;
		json_array_foreach(json_object_get(r, "notes"), k, v) {
			const char *text = json_is_string(v) ? json_string_value(v) : "?";
			int said = superseded(r, text);

			for (j = 0; j < i && !said; j++)
				said = !strcmp(fc_jstr(o = json_array_get(results, j), "metric", ""), "lat") &&
				       has_note(o, text);
			if (said)
				continue;
			snprintf(tests, sizeof(tests), "%s", lat_label(r, lab, sizeof(lab)));
			for (j = i + 1; j < json_array_size(results); j++)
				if (!strcmp(fc_jstr(o = json_array_get(results, j), "metric", ""), "lat") &&
				    has_note(o, text) && (n = strlen(tests)) < sizeof(tests))
					snprintf(tests + n, sizeof(tests) - n, ", %s",
						 lat_label(o, lab, sizeof(lab)));
			note(f, "%s: %s", tests, text);
		}
	}
}

void pair_render_lat(FILE *f, const json_t *results)
{
	static const char *const heads[] = { "TEST", "SIZE", "ITERS", "MIN", "P50", "P90",
					     "P99", "P99.9", "MAX", "AVG", "STDEV", "MODE" };
	static const struct fig_col figs[] = {
		{ "min_us", "%.2f", NULL }, { "p50_us", "%.2f", NULL }, { "p90_us", "%.2f", NULL },
		{ "p99_us", "%.2f", NULL }, { "p999_us", "%.2f", NULL }, { "max_us", "%.2f", NULL },
		{ "avg_us", "%.2f", NULL }, { "stdev_us", "%.2f", NULL },
	};
	/* the legend says the modes the rows have: imm's is longer */
	static const struct fig_table ft = {
		"lat", 12, heads, 8, figs, "lat_mode",
		"latency in us (write, send: half the round trip; read: the whole read; MODE "
		"poll: the CPU polls the last byte, imm: each side waits on its receive completion):",
	}, ft_poll = {
		"lat", 12, heads, 8, figs, "lat_mode",
		"latency in us (write, send: half the round trip; read: the whole read; MODE poll: "
		"the CPU polls):",
	};
	const json_t *r;
	size_t i;
	int imm = 0;

	json_array_foreach(results, i, r)
		imm |= !strcmp(fc_jstr(r, "lat_mode", ""), "imm");
	if (render_figs(f, results, imm ? &ft : &ft_poll))
		render_lat_notes(f, results);
}
