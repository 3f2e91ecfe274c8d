/* The self-contained HTML report: the findings and the tables; the heat
 * maps are drawn by report_svg.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/out.h"
#include "core/summary.h"
#include "core/util.h"
#include "matrix/mx_model.h"
#include "report/report.h"

/* @n bytes of @s, escaped. */
static void escape_n(FILE *f, const char *s, size_t n)
{
	for (const char *end = s + n; s < end && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	}
}

void rp_html_escape(FILE *f, const char *s)
{
	escape_n(f, s, strlen(s));
}

void rp_html_cell(FILE *f, const char *s)
{
	char *cut;

	if (strlen(s) <= RP_CELL_CHARS || !(cut = strdup(s))) {
		fputs("<td>", f);
		rp_html_escape(f, s);
		fputs("</td>", f);
		return;
	}
	fputs("<td title=\"", f);
	rp_html_escape(f, s);
	fputs("\">", f);
	rp_html_escape(f, fc_fit_words(cut, RP_CELL_CHARS));
	fputs("</td>", f);
	free(cut);
}

/* What each mark of the heat map means, as text that no width cuts short. */
static void html_legend(FILE *f)
{
	static const char *const marks[][3] = {
		{ "#d73027", "#1a9850", "colour: the pair's bandwidth as a share of the best pair's, red 0% to green 100%" },
		{ "#ffffff", "#000000", "black border: a bad pair (below a threshold, or failed by pair; the findings say which)" },
		{ "#888888", "#888888", "grey: the pair could not run (an infrastructure error, not a verdict on the link)" },
		{ "#eeeeee", "#eeeeee", "light grey: not measured (yet)" },
		{ "#444444", "#444444", "dark: a node with itself" },
		{ "#ffffff", "#b00000", "red bold name: a suspect node" },
		{ "#ffffff", "#ffffff", "-: a figure that was not measured" },
	};

	fputs("<ul id=\"legend\">\n", f);
	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		fprintf(f, "<li><span style=\"display:inline-block;width:12px;height:12px;"
			   "background:%s;border:2px solid %s\"></span> %s</li>\n",
			marks[i][0], marks[i][1], marks[i][2]);
	fputs("</ul>\n", f);
}

static void html_findings(FILE *f, const json_t *doc)
{
	const json_t *list = json_object_get(doc, "findings");
	size_t i;
	json_t *v;

	fputs("<h2>Findings</h2>\n<ul id=\"findings\">\n", f);
	if (!json_array_size(list))
		fputs("<li>none: every pair is within the thresholds</li>\n", f);
	json_array_foreach(list, i, v) {
		fputs("<li>", f);
		rp_html_escape(f, json_string_value(v));
		fputs("</li>\n", f);
	}
	/* what the run left out and assumed, as matrix prints it ("rails: ") */
	json_array_foreach(json_object_get(doc, "rail_notes"), i, v) {
		if (!json_is_string(v))
			continue;
		fputs("<li class=\"note\">rails: ", f);
		rp_html_escape(f, json_string_value(v));
		fputs("</li>\n", f);
	}
	fputs("</ul>\n", f);
}

/* Each suspect's part: the diagnosis of its worst pair (matrix/mx_diag.h). */
static void html_parts(FILE *f, const json_t *doc)
{
	const json_t *s, *d;
	size_t i;
	int any = 0;

	json_array_foreach(json_object_get(doc, "suspects"), i, s) {
		const json_t *link = json_object_get(s, "link");

		if (!(d = json_object_get(s, "diagnosis")))
			continue;
		if (!any++)
			fputs("<h2>The suspects' parts (the diagnosis of each one's worst pair)</h2>\n"
			      "<ul id=\"parts\">\n", f);
		fputs("<li><b>", f);
		rp_html_escape(f, json_is_array(link) ? json_string_value(json_array_get(link, 0)) ?: "?" :
							fc_jstr(s, "node", "?"));
		if (json_is_array(link)) {
			fputs("-", f);
			rp_html_escape(f, json_string_value(json_array_get(link, 1)) ?: "?");
		}
		if (fc_jstr(s, "device", NULL)) {
			fputs(" on ", f);
			rp_html_escape(f, fc_jstr(s, "device", ""));
		}
		fputs("</b>: ", f);
		rp_html_escape(f, fc_jstr(d, "confidence", "?"));
		fputs(" ", f);
		rp_html_escape(f, fc_jstr(d, "part", "?"));
		fputs("; evidence: ", f);
		rp_html_escape(f, fc_jstr(d, "evidence", ""));
		fputs("; next: ", f);
		rp_html_escape(f, fc_jstr(d, "next", ""));
		fputs("</li>\n", f);
	}
	if (any)
		fputs("</ul>\n", f);
}

/* The Slurm drains and resumes of the run (ctl/drain.h), when any. */
static void html_slurm(FILE *f, const json_t *doc)
{
	const json_t *list = json_object_get(doc, "slurm");
	size_t i;
	json_t *a;

	if (!json_array_size(list))
		return;
	fputs("<h2>Slurm</h2>\n<table id=\"slurm\"><tr><th>action</th><th>node</th>"
	      "<th>reason</th><th>command</th><th>result</th></tr>\n", f);
	json_array_foreach(list, i, a) {
		static const char *const keys[] = { "action", "node", "reason", "command", "result" };

		fputs("<tr>", f);
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			rp_html_cell(f, fc_jstr(a, keys[k], ""));
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void html_nodes(FILE *f, const json_t *doc)
{
	const json_t *per = json_object_get(doc, "per_node");
	char g[32], l[32];
	size_t i;
	json_t *nd;

	fputs("<h2>Nodes</h2>\n<table><tr><th>node</th><th>median bandwidth</th>"
	      "<th>median latency</th><th>bad peers</th><th>state</th></tr>\n", f);
	json_array_foreach(per, i, nd) {
		fprintf(f, "<tr class=\"%s\"><td>", fc_jstr(nd, "state", ""));
		rp_html_escape(f, fc_jstr(nd, "node", "?"));
		fprintf(f, "</td><td>%s</td><td>%s</td><td>%d of %d</td><td>%s</td></tr>\n",
			fc_fmt_figure(fc_jnum(nd, "median_gbps", NAN), "%.3g", "Gb/s", g, sizeof(g)),
			fc_fmt_figure(fc_jnum(nd, "median_lat_us", NAN), "%.3g", "us", l, sizeof(l)),
			(int)fc_jnum(nd, "bad_peers", 0), (int)fc_jnum(nd, "peers", 0),
			fc_jstr(nd, "state", "?"));
	}
	fputs("</table>\n", f);
}

/* One cell of the nodes x rails table: coloured by the node's own median
 * on the rail (a share of the rail's best pair), so that a healthy node is
 * not painted by its pair with a bad one; its worst pair, when bad, names
 * the peer and marks it when that peer is the suspect. */
static void html_rail_cell(FILE *f, const struct mx_model *m, const struct fc_mx_analysis *an,
			   int i)
{
	const struct fc_mx_cell *worst = mx_model_worst(an, i);
	double med = an->nodes[i].median_gbps;
	unsigned char rgb[3] = { 238, 238, 238 };

	if (isfinite(med) && isfinite(an->best_gbps) && an->best_gbps > 0)
		mx_heat_rgb(fmax(0, fmin(1, med / an->best_gbps)), rgb);
	fprintf(f, "<td class=\"rail-cell%s\" style=\"background:#%02x%02x%02x\">",
		an->nodes[i].state == FC_MX_NODE_SUSPECT ? " suspect" : "", rgb[0], rgb[1], rgb[2]);
	if (!isfinite(med)) {
		fputs("-</td>", f);
		return;
	}
	fprintf(f, "%.3g Gb/s", med);
	if (worst && worst->bad) {
		size_t k = (size_t)(worst - an->cells);
		int a = (int)(k / (size_t)an->n), b = (int)(k % (size_t)an->n), peer = a == i ? b : a;

		fprintf(f, "<br><small>worst %.3g Gb/s, with ", worst->gbps);
		if (an->nodes[peer].state == FC_MX_NODE_SUSPECT)
			fputs("<b class=\"bad-peer\">", f);
		rp_html_escape(f, m->names[peer]);
		fputs(an->nodes[peer].state == FC_MX_NODE_SUSPECT ? "</b> (suspect)" : "", f);
		fputs("</small>", f);
	}
	fputs("</td>", f);
}

/* Nodes x rails: each node's median on each rail and its worst bad pair;
 * then a heat map per rail. */
static void html_rails(FILE *f, const struct mx_model *m)
{
	char id[32];

	fputs("<h2>Nodes and rails (each node's median on each rail; its worst pair when "
	      "bad)</h2>\n<table id=\"rails\"><tr><th>node</th>", f);
	for (int r = 0; r < m->nrails; r++) {
		fprintf(f, "<th>rail %d (", m->rails[r].index);
		rp_html_escape(f, m->rails[r].name);
		fputs(")</th>", f);
	}
	fputs("</tr>\n", f);
	for (int i = 0; i < m->n; i++) {
		fputs("<tr><td>", f);
		rp_html_escape(f, m->names[i]);
		fputs("</td>", f);
		for (int r = 0; r < m->nrails; r++)
			html_rail_cell(f, m, &m->ran.rails[r], i);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
	for (int r = 0; r < m->nrails; r++) {
		fprintf(f, "<h2>Rail %d (", m->rails[r].index);
		rp_html_escape(f, m->rails[r].name);
		fprintf(f, "), row to column</h2>\n");
		snprintf(id, sizeof(id), "heatmap-rail%d", m->rails[r].index);
		rp_svg_heatmap(f, m, &m->ran.rails[r], id);
	}
}

/* One bar of a flow's share: its Gb/s against the round's port ceiling
 * (the receiver's for incast, the sender's for fanout), 300 px full. */
static void html_bar(FILE *f, const char *from, const char *to, double gbps, double ceiling)
{
	double w = ceiling > 0 ? 300 * gbps / ceiling : 0;
	char g[32];

	fputs("<tr><td>", f);
	rp_html_escape(f, from);
	fputs(" &rarr; ", f);
	rp_html_escape(f, to);
	fprintf(f, "</td><td><div class=\"bar\" style=\"width:%.0fpx\"></div></td><td>%s</td></tr>\n",
		w > 300 ? 300 : w < 1 && gbps > 0 ? 1 : w,
		fc_fmt_figure(gbps, "%.4g", "Gb/s", g, sizeof(g)));
}

/* A pattern run's incast and fanout rounds: a bar for each flow's share
 * of the target's port, with the round's Jain index and outcomes. */
static void html_pattern(FILE *f, const json_t *doc)
{
	const json_t *p = json_object_get(doc, "pattern");
	const char *name;
	json_t *rd, *o, *v;
	size_t i, k;

	if (!p)
		return;
	/* its own style, so that a page without a pattern is as before */
	fputs("<style>.bar{background:#4a7fb5;height:12px}.outcome-fail{color:#b00000}"
	      ".outcome-warn{color:#9a6700}</style>\n<h2>Pattern ", f);
	rp_html_escape(f, fc_jstr(p, "name", "?"));
	fputs("</h2>\n", f);
	json_array_foreach(json_object_get(p, "rounds"), i, rd) {
		int fan = json_object_get(rd, "sender") != NULL;
		const char *t = fc_jstr(rd, fan ? "sender" : "receiver", NULL);

		if (!t)
			continue;
		fprintf(f, "<h3>Round %d: %s ", (int)fc_jnum(rd, "round", 0), fan ? "from" : "into");
		rp_html_escape(f, t);
		fprintf(f, ", %.4g of %.4g Gb/s (%s), Jain %.3f</h3>\n<table class=\"shares\">\n",
			fc_jnum(rd, "aggregate_gbps", 0), fc_jnum(rd, "ceiling_gbps", 0),
			fc_jstr(rd, "ceiling_is", "?"), fc_jnum(rd, "jain", NAN));
		json_object_foreach(json_object_get(rd, fan ? "receivers" : "senders"), name, v)
			html_bar(f, fan ? t : name, fan ? name : t, json_number_value(v),
				 fc_jnum(rd, "ceiling_gbps", 0));
		fputs("</table>\n", f);
		json_array_foreach(json_object_get(rd, "outcomes"), k, o) {
			fprintf(f, "<p class=\"outcome-%s\">%s: ", fc_jstr(o, "level", "?"),
				fc_jstr(o, "level", "?"));
			rp_html_escape(f, fc_jstr(o, "outcome", "?"));
			fputs(": ", f);
			rp_html_escape(f, fc_jstr(o, "evidence", ""));
			fputs("</p>\n", f);
		}
	}
}

/* One problem of the summary, "where: what (how sure); next: step", with
 * its place and its next step in bold; another line as it is. */
static void html_problem(FILE *f, const char *t)
{
	const char *colon = strstr(t, ": "), *next = colon ? strstr(colon, "; next: ") : NULL;

	fputs("<li>", f);
	if (!colon) {
		rp_html_escape(f, t);
		fputs("</li>\n", f);
		return;
	}
	fputs("<b>", f);
	escape_n(f, t, (size_t)(colon - t));
	fputs("</b>: ", f);
	if (next) {
		escape_n(f, colon + 2, (size_t)(next - colon - 2));
		fputs("; <b>next</b>: ", f);
		rp_html_escape(f, next + 8);
	} else {
		rp_html_escape(f, colon + 2);
	}
	fputs("</li>\n", f);
}

/* The answer first (issue 39 item 1): the summary the text output ends
 * with, the same lines (core/summary.h fc_summary_lines): the verdict and
 * one line per named problem, where, what, how sure and the next step; the
 * detail (findings, heat maps, nodes) below it. */
static void html_summary(FILE *f, const json_t *doc)
{
	json_t *lines = fc_summary_lines(doc, "below"), *l;
	size_t i;

	fputs("<section id=\"summary\">\n", f);
	json_array_foreach(lines, i, l) {
		if (!json_is_string(l))
			continue;
		if (i == 0) {
			fprintf(f, "<p class=\"answer verdict-%s\">",
				fc_verdict_name(fc_doc_verdict(doc)));
			rp_html_escape(f, json_string_value(l));
			fputs("</p>\n", f);
			if (json_array_size(lines) > 1)
				fputs("<ul id=\"problems\">\n", f);
			continue;
		}
		html_problem(f, json_string_value(l));
	}
	if (json_array_size(lines) > 1)
		fputs("</ul>\n", f);
	fputs("</section>\n", f);
	json_decref(lines);
}

int rp_write_html(FILE *f, const struct mx_model *m, const json_t *doc)
{
	char when[64], g[32], l[32];

	fc_fmt_time(m->info.started, "%Y-%m-%d %H:%M:%S %Z", when, sizeof(when));
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		   "<title>fabcheck %s run %lld: %s</title>\n<style>\n"
		   "body{font-family:sans-serif;margin:2em;color:#222;background:#fff}\n"
		   "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px}\n"
		   ".verdict-fail{color:#b00000}.verdict-pass{color:#1a7f37}"
		   ".verdict-warn{color:#9a6700}\n"
		   "#summary{border-left:4px solid #888;padding:0.2em 1em;margin:0 0 1em 0}\n"
		   "#summary .answer{font-size:1.2em;font-weight:bold;margin:0.3em 0}\n"
		   "#summary ul{margin:0.3em 0;padding-left:1.2em}\n"
		   "tr.suspect td{background:#fde0dd;font-weight:bold}\n"
		   "</style></head><body>\n",
		m->info.kind, (long long)m->run, fc_jstr(doc, "verdict", "?"));
	/* The latency only where one was measured; the run's kind (matrix or
	 * soak: report refuses a pair's) as the store holds it; the verdict
	 * once, in the summary. */
	fprintf(f, "<h1>fabcheck %s run %lld</h1>\n", m->info.kind, (long long)m->run);
	html_summary(f, doc);
	fprintf(f, "<p>%d nodes, %lld of %lld pair%s, "
		   "started %s; rack median %s%s%s.</p>\n",
		m->n, (long long)fc_jnum(doc, "pairs_done", 0),
		(long long)fc_jnum(doc, "pairs_total", 0),
		fc_s((long long)fc_jnum(doc, "pairs_total", 0)), when,
		fc_fmt_figure(m->an.rack_median_gbps, "%.3g", "Gb/s", g, sizeof(g)),
		isfinite(m->an.rack_median_lat_us) ? ", " : "",
		isfinite(m->an.rack_median_lat_us) ?
			fc_fmt_figure(m->an.rack_median_lat_us, "%.3g", "us", l, sizeof(l)) : "");
	html_findings(f, doc);
	html_parts(f, doc);
	html_slurm(f, doc);
	if (m->nrails)
		html_rails(f, m);
	fputs(m->nrails ? "<h2>Bandwidth of each pair, every rail together, row to column</h2>\n" :
			  "<h2>Bandwidth, row to column</h2>\n", f);
	rp_svg_heatmap(f, m, &m->an, "heatmap");
	html_legend(f);
	html_nodes(f, doc);
	html_pattern(f, doc);
	fputs("<p>Written by fabcheck report.</p>\n</body></html>\n", f);
	return ferror(f) ? -1 : 0;
}
