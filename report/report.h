/* Report writers over a matrix model: HTML, CSV, Prometheus text. */
#ifndef FC_REPORT_H
#define FC_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "matrix/mx_history.h"

struct mx_model;
struct fc_store;
struct fc_spill;

/* @doc is mx_model_doc_brief(m) (or the whole mx_model_doc). Each returns 0 or -1 when the stream failed. */
int rp_write_html(FILE *f, const struct mx_model *m, const json_t *doc);
int rp_write_csv(FILE *f, const struct mx_model *m);
/* Per node and (node, rail) gauges and a series per bad pair; every pair's
 * series with @all_pairs. */
int rp_write_prom(FILE *f, const struct mx_model *m, int all_pairs);
void rp_html_escape(FILE *f, const char *s);
/* A table cell of text: whole up to RP_CELL_CHARS bytes; longer, cut at a
 * word with " ..." (core/summary.h fc_fit_words, the terminal tables' own
 * cutter) and the whole text in the cell's title attribute, which the
 * browser shows on hover (and in --json, where the document keeps it).
 * 40: about 320 px of the page's 16-px sans-serif, a third of the 1000-px
 * window the report is looked at in (issue 39 item 7). Measured in headless
 * Chromium at 1000 px on the Slurm table of tests/cli/cases_slurm.sh's drain:
 * whole, its reason and command wrapped the row to 3 lines; cut, the row is
 * one line, 860 px wide. */
#define RP_CELL_CHARS 40
void rp_html_cell(FILE *f, const char *s);
/* The heat map of @an (the run's, or one rail's) as an inline SVG with
 * the HTML id @id (report_svg.c). */
struct fc_mx_analysis;
void rp_svg_heatmap(FILE *f, const struct mx_model *m, const struct fc_mx_analysis *an,
		    const char *id);
/* report --history: flagged links' trends (an SVG chart each). */
int rp_write_history_html(FILE *f, const struct mx_history *h, const struct mx_model *m);

/* The history of @m's run for report --history (report_history.c): h keeps
 * the flagged links the page charts; with @csv, every link goes to an
 * on-disk sort for rp_write_history_csv. 0 or a negative errno (logged). */
struct rp_history {
	struct mx_history h;
	struct fc_spill *csv;
	const struct mx_model *m;
};
int rp_history_load(struct rp_history *rh, struct fc_store *st, const struct mx_model *m,
		    const struct fc_hist_opts *o, int csv);
/* Every link's series, worst drop first (as mx_history_csv_link writes them). */
int rp_write_history_csv(FILE *f, const struct rp_history *rh);
void rp_history_release(struct rp_history *rh);

#endif
