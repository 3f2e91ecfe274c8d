/* Report writers over a matrix model: HTML, CSV, Prometheus text. */
#ifndef FC_REPORT_H
#define FC_REPORT_H

#include <jansson.h>
#include <stdio.h>

struct mx_model;
struct mx_history;

/* @doc is mx_model_doc_brief(m) (or the whole mx_model_doc). Each returns 0 or -1 when the stream failed. */
int rp_write_html(FILE *f, const struct mx_model *m, const json_t *doc);
int rp_write_csv(FILE *f, const struct mx_model *m);
/* Per node and (node, rail) gauges and a series per bad pair; every pair's
 * series with @all_pairs. */
int rp_write_prom(FILE *f, const struct mx_model *m, int all_pairs);
void rp_html_escape(FILE *f, const char *s);
/* report --history: flagged links' trends (an SVG chart each). */
int rp_write_history_html(FILE *f, const struct mx_history *h, const struct mx_model *m);

#endif
