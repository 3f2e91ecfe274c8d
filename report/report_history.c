/*
 * report --history: per-link trends as HTML (a small SVG chart per flagged
 * link) and CSV, read in bounded memory (mx_history_scan): the page's
 * CHARTS_MAX worst flagged links are kept, and the CSV's rows go to an
 * on-disk sort (store/spill.h) to come out worst drop first. Memory:
 * O(nodes + CHARTS_MAX x k) and SQLite's caches, not the links or the runs
 * (the run's model, read beside it, is the report's own).
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "matrix/mx_history.h"
#include "report/report.h"
#include "store/spill.h"

#define CH_W 240
#define CH_H 60
/* At most this many charts on a page: the worst drops first; the CSV has all. */
#define CHARTS_MAX 500

/* The series as a polyline, oldest left; the median as a dashed line and
 * the flag threshold as a dotted one. */
static void chart(FILE *f, const struct mx_history *h, const struct fc_hist_link *l)
{
	double hi = 0;
	int n = h->nruns + 1;

	for (int i = 0; i < n; i++)
		if (isfinite(l->series[i]) && l->series[i] > hi)
			hi = l->series[i];
	if (isfinite(l->median) && l->median > hi)
		hi = l->median;
	hi = hi > 0 ? hi * 1.1 : 1;
	fprintf(f, "<svg class=\"trend\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">"
		   "<rect width=\"%d\" height=\"%d\" fill=\"#f8f8f8\"/>", CH_W, CH_H, CH_W, CH_H,
		CH_W, CH_H);
	if (isfinite(l->median)) {
		double y = CH_H - l->median / hi * CH_H;
		double yt = CH_H - l->median * (1 - h->o.drop_pct / 100) / hi * CH_H;

		fprintf(f, "<line class=\"median\" x1=\"0\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" "
			   "stroke=\"#888\" stroke-dasharray=\"4 3\"/>", CH_W, y, y);
		fprintf(f, "<line class=\"threshold\" x1=\"0\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" "
			   "stroke=\"#d33\" stroke-dasharray=\"1 3\"/>", CH_W, yt, yt);
	}
	fputs("<polyline fill=\"none\" stroke=\"#2464b4\" stroke-width=\"2\" points=\"", f);
	for (int i = n - 1; i >= 0; i--) {
		double x = n > 1 ? (double)(n - 1 - i) * (CH_W - 8) / (n - 1) + 4 : CH_W / 2.0;

		if (isfinite(l->series[i]))
			fprintf(f, "%.1f,%.1f ", x, CH_H - l->series[i] / hi * CH_H);
	}
	fputs("\"/>", f);
	if (isfinite(l->now))
		fprintf(f, "<circle class=\"now\" cx=\"%d\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>",
			CH_W - 4, CH_H - l->now / hi * CH_H, l->flagged ? "#d33" : "#2464b4");
	fputs("</svg>", f);
}

int rp_write_history_html(FILE *f, const struct mx_history *h, const struct mx_model *m)
{
	char rail[96];
	int shown = 0;

	fprintf(f, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>fabcheck: link "
		   "history of run %lld</title>\n<style>body{font-family:sans-serif;margin:1em}"
		   "table{border-collapse:collapse}td,th{padding:2px 8px;text-align:left}"
		   "tr.flagged td{color:#a00}</style></head><body>\n", (long long)m->run);
	fprintf(f, "<h1>Links against their own past: run %lld</h1>\n<p>%d links; %d flagged: "
		   "more than %.0f%% below the median of their last %d runs (%d found). Dashed: "
		   "the median; dotted: the flag threshold.</p>\n", (long long)m->run, h->nseen,
		h->nflagged, h->o.drop_pct, h->o.k, h->nruns);
	fputs("<table><tr><th>link</th><th>rail</th><th>now</th><th>median</th><th>drop</th>"
	      "<th>trend (oldest left)</th></tr>\n", f);
	for (int i = 0; i < h->nlinks && shown < CHARTS_MAX; i++) {
		const struct fc_hist_link *l = &h->links[i];

		if (!l->flagged)
			continue;
		shown++;
		fputs("<tr class=\"flagged\"><td>", f);
		rp_html_escape(f, m->names[l->a]);
		fputs(" - ", f);
		rp_html_escape(f, m->names[l->b]);
		fputs("</td><td>", f);
		rp_html_escape(f, mx_history_rail(m, l->rail, rail, sizeof(rail)));
		fprintf(f, "</td><td>%.3g Gb/s</td><td>%.3g Gb/s</td><td>%.0f%%</td><td>", l->now,
			l->median, l->drop_pct);
		chart(f, h, l);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	if (!shown)
		fputs("<p class=\"none\">No link is below its own past.</p>\n", f);
	else if (shown < h->nflagged)
		fprintf(f, "<p>%d more flagged link%s in the CSV (--history --csv).</p>\n",
			h->nflagged - shown, h->nflagged - shown == 1 ? " is" : "s are");
	fputs("</body></html>\n", f);
	return ferror(f) ? -1 : 0;
}

/* A link as the CSV's sort keeps it: its series' k + 1 figures only. */
struct csv_rec {
	int a, b, rail, flagged;
	double median;
	double series[FC_HIST_K_MAX + 1];
};

static int spill_link(const struct fc_hist_link *l, void *arg)
{
	struct rp_history *rh = arg;
	struct csv_rec r = { .a = l->a, .b = l->b, .rail = l->rail, .flagged = l->flagged,
			     .median = l->median };
	size_t per = (size_t)rh->h.o.k + 1;

	memcpy(r.series, l->series, per * sizeof(double));
	return fc_spill_add(rh->csv, fc_hist_order(l), mx_history_rank(rh->m, l), &r,
			    offsetof(struct csv_rec, series) + per * sizeof(double));
}

int rp_history_load(struct rp_history *rh, struct fc_store *st, const struct mx_model *m,
		    const struct fc_hist_opts *o, int csv)
{
	int rc;

	memset(rh, 0, sizeof(*rh));
	rh->m = m;
	if (csv && !(rh->csv = fc_spill_open("report --history --csv")))
		return -EIO;
	rc = mx_history_scan(&rh->h, st, m, o, CHARTS_MAX, csv ? spill_link : NULL, rh);
	if (rc)
		rp_history_release(rh);
	return rc;
}

struct csv_out {
	FILE *f;
	const struct rp_history *rh;
};

static int csv_row(const void *rec, size_t len, void *arg)
{
	const struct csv_out *o = arg;
	struct csv_rec r = { 0 };
	struct fc_hist_link l;

	memcpy(&r, rec, len < sizeof(r) ? len : sizeof(r));
	l = (struct fc_hist_link){ .a = r.a, .b = r.b, .rail = r.rail, .median = r.median,
				   .flagged = r.flagged, .series = r.series };
	mx_history_csv_link(o->f, &o->rh->h, o->rh->m, &l);
	return ferror(o->f) ? -1 : 0;
}

int rp_write_history_csv(FILE *f, const struct rp_history *rh)
{
	struct csv_out o = { f, rh };

	mx_history_csv_head(f);
	if (rh->csv && fc_spill_each(rh->csv, csv_row, &o))
		return -1;
	return ferror(f) ? -1 : 0;
}

void rp_history_release(struct rp_history *rh)
{
	fc_spill_close(rh->csv);
	mx_history_release(&rh->h);
	rh->csv = NULL;
}
