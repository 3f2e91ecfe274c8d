/* The heat maps of the HTML report: an inline SVG, a cell per pair (or per
 * block of nodes on a large run), the node labels and the legend. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/out.h"
#include "core/util.h"
#include "matrix/mx_model.h"
#include "report/report.h"

#define CELL 28	  /* px per matrix cell */
/* Above RP_BLOCK_NODES nodes, or when the page's heat maps (one for every
 * rail together and one per rail) would have more than RP_PAGE_CELLS cells
 * between them, each heat map has a cell per block of nodes, at most
 * RP_BLOCKS a side: the worst pair inside it. A 1,024-node, 8-rail run's
 * report stays a few megabytes and a browser draws it in seconds; so does a
 * 256-node, 8-rail one (a cell per pair: 9 maps of 65,280 cells, 127 MB). */
#define RP_BLOCK_NODES 256
#define RP_PAGE_CELLS (RP_BLOCK_NODES * (RP_BLOCK_NODES - 1))
#define RP_BLOCKS 32

static const char *short_label(const char *name, char *buf, size_t len)
{
	size_t l = strlen(name);

	if (l < 14)
		return name;
	snprintf(buf, len, "%.6s~%s", name, name + l - 6);
	return buf;
}

static void svg_cell(FILE *f, const struct mx_model *m, const struct fc_mx_analysis *an, int a,
		     int b, int x, int y)
{
	int mirrored;
	const struct fc_mx_cell *c = mx_model_show_in(m, an, a, b, &mirrored);
	unsigned char rgb[3] = { 238, 238, 238 };
	const char *cls = "pending";
	char val[96] = "not measured", g[32], l[32];

	if (a == b) {
		fprintf(f, "<rect class=\"diag\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
			   "fill=\"#444444\"/>\n", x, y, CELL - 1, CELL - 1);
		return;
	}
	if (c && c->state == FC_MX_ERROR) {
		rgb[0] = rgb[1] = rgb[2] = 136;
		cls = "error";
		snprintf(val, sizeof(val), "could not run");
	} else if (c && c->state != FC_MX_NONE) {
		/* No bandwidth measured (a latency-only run): no colour for it,
		 * unless pair failed it (a completion error before any figure):
		 * that is as bad as a cell gets. */
		if (isfinite(mx_model_share_in(an, c)))
			mx_heat_rgb(mx_model_share_in(an, c), rgb);
		else if (c->state == FC_MX_FAIL)
			mx_heat_rgb(0, rgb);
		cls = c->bad ? "bad" : "ok";
		snprintf(val, sizeof(val), "%s, %s", fc_fmt_figure(c->gbps, "%.3g", "Gb/s", g, sizeof(g)),
			 fc_fmt_figure(c->lat_us, "%.3g", "us", l, sizeof(l)));
	}
	fprintf(f, "<rect class=\"cell %s\" data-a=\"", cls);
	rp_html_escape(f, m->names[a]);
	fprintf(f, "\" data-b=\"");
	rp_html_escape(f, m->names[b]);
	fprintf(f, "\" data-gbps=\"%g\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
		   "fill=\"#%02x%02x%02x\"%s><title>",
		c && isfinite(c->gbps) ? c->gbps : -1.0, x, y, CELL - 1, CELL - 1, rgb[0], rgb[1],
		rgb[2], c && c->bad ? " stroke=\"#000000\" stroke-width=\"2\"" : "");
	rp_html_escape(f, m->names[mirrored ? b : a]);
	fputs(" -&gt; ", f);
	rp_html_escape(f, m->names[mirrored ? a : b]);
	fprintf(f, ": %s%s</title></rect>\n", val, c && c->bad ? " (bad)" : "");
}

/* A block of @g x @g nodes from (a0, b0): coloured by its worst pair. */
static void svg_block(FILE *f, const struct mx_model *m, const struct fc_mx_analysis *an, int a0,
		      int b0, int g, int x, int y)
{
	int a1 = a0 + g < m->n ? a0 + g : m->n, b1 = b0 + g < m->n ? b0 + g : m->n;
	unsigned char rgb[3] = { 238, 238, 238 };
	struct mx_block k;
	char v[32];

	mx_model_block(m, an, a0, b0, g, &k);
	if (k.worst && isfinite(mx_model_share_in(an, k.worst)))
		mx_heat_rgb(mx_model_share_in(an, k.worst), rgb);
	else if (k.worst && k.worst->state == FC_MX_FAIL)
		mx_heat_rgb(0, rgb);
	else if (k.errors)
		rgb[0] = rgb[1] = rgb[2] = 136;
	fprintf(f, "<rect class=\"cell block %s\" x=\"%d\" y=\"%d\" width=\"%d\" "
		   "height=\"%d\" fill=\"#%02x%02x%02x\"%s><title>",
		k.bad ? "bad" : k.worst ? "ok" : k.errors ? "error" : "pending", x, y, CELL - 1,
		CELL - 1, rgb[0], rgb[1], rgb[2],
		k.bad ? " stroke=\"#000000\" stroke-width=\"2\"" : "");
	rp_html_escape(f, m->names[a0]);
	fputs(" .. ", f);
	rp_html_escape(f, m->names[a1 - 1]);
	fputs(" -&gt; ", f);
	rp_html_escape(f, m->names[b0]);
	fputs(" .. ", f);
	rp_html_escape(f, m->names[b1 - 1]);
	if (k.worst) {
		fputs(": worst ", f);
		rp_html_escape(f, m->names[k.wa]);
		fputs(" -&gt; ", f);
		rp_html_escape(f, m->names[k.wb]);
		fprintf(f, " %s", fc_fmt_figure(k.worst->gbps, "%.3g", "Gb/s", v, sizeof(v)));
	}
	fprintf(f, "; %d bad of %d measured, %d could not run</title></rect>\n", k.bad,
		k.measured, k.errors);
}

/* Row and column labels: a node's, or a block's first node's and how many
 * follow it ("node0032 +31"), unescaped, in @buf. */
static const char *label_text(const struct mx_model *m, int i, int g, char *buf, size_t len)
{
	char s[32];
	int last = i + g < m->n ? i + g - 1 : m->n - 1;

	snprintf(buf, len, "%s", short_label(m->names[i], s, sizeof(s)));
	if (g > 1 && last > i)
		snprintf(buf + strlen(buf), len - strlen(buf), " +%d", last - i);
	return buf;
}

/* The px a label's character takes in the map's 11-px sans-serif:
 * measured in headless Chromium (getComputedTextLength), "nodeA" 35.0 px
 * (7.0 a character), bold "rack7-~-gpuA" 84.8 (7.07), bold "gpu07 +2"
 * 59.6 (7.45, inside its band's 4-px gap); wide letters take more (bold
 * "W" 10.8): the band fits the names racks use, not every string. */
#define CHAR_PX 7

/* The label bands of a heat map of @n labels a side: the rows' at its left,
 * the columns' (turned 60 degrees) above it and past its right edge, each as
 * deep as the longest label needs, so that short names leave no blank band
 * above the map (issue 39 item 7: 110 px for any name, 80 of them blank
 * above "nodeA"'s map). */
struct bands {
	int left, top, right;
};

static void label_bands(const struct mx_model *m, int n, int g, struct bands *b)
{
	size_t most = 1;
	char buf[48];

	for (int i = 0; i < n; i++) {
		size_t l = strlen(label_text(m, i * g, g, buf, sizeof(buf)));

		most = l > most ? l : most;
	}
	b->left = (int)most * CHAR_PX + 8;
	/* sin 60 and cos 60 of the turned text; +12: its 4-px gap and ascent */
	b->top = (int)ceil((double)most * CHAR_PX * 0.866) + 12;
	b->right = (int)ceil((double)most * CHAR_PX * 0.5) + 10;
}

static void svg_label(FILE *f, const struct mx_model *m, int i, int g)
{
	char buf[48];

	rp_html_escape(f, label_text(m, i, g, buf, sizeof(buf)));
}

/* The nodes a heat map's cell holds a side: 1, a cell per pair, while the
 * page stays within RP_PAGE_CELLS. */
static int heat_group(const struct mx_model *m)
{
	double maps = m->nrails ? m->nrails + 1 : 1;

	if (m->n <= RP_BLOCK_NODES && maps * m->n * (m->n - 1) <= RP_PAGE_CELLS)
		return 1;
	return (m->n + RP_BLOCKS - 1) / RP_BLOCKS;
}

void rp_svg_heatmap(FILE *f, const struct mx_model *m, const struct fc_mx_analysis *an,
			const char *id)
{
	int g = heat_group(m);
	int n = (m->n + g - 1) / g, w, h;
	struct bands b;
	char buf[32];

	label_bands(m, n, g, &b);
	w = b.left + n * CELL + b.right;
	h = b.top + n * CELL + 40;
	/* Room for the legend's text under a small matrix. */
	if (w < b.left + 11 * 18 + 300)
		w = b.left + 11 * 18 + 300;
	fprintf(f, "<svg id=\"%s\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		   "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" "
		   "font-size=\"11\">\n<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
		id, w, h, w, h, w, h);
	for (int i = 0; i < n; i++) {
		int susp = 0;
		const char *style;

		for (int j = i * g; j < (i + 1) * g && j < m->n; j++)
			susp |= an->nodes[j].state == FC_MX_NODE_SUSPECT;
		style = susp ? " fill=\"#b00000\" font-weight=\"bold\"" : "";
		fprintf(f, "<text class=\"row%s\" x=\"%d\" y=\"%d\" text-anchor=\"end\"%s>",
			susp ? " suspect" : "", b.left - 4, b.top + i * CELL + CELL / 2 + 4, style);
		svg_label(f, m, i * g, g);
		fprintf(f, "</text>\n<text class=\"col%s\" transform=\"translate(%d,%d) "
			   "rotate(-60)\"%s>", susp ? " suspect" : "",
			b.left + i * CELL + CELL / 2, b.top - 4, style);
		svg_label(f, m, i * g, g);
		fputs("</text>\n", f);
	}
	for (int a = 0; a < n; a++)
		for (int c = 0; c < n; c++)
			if (g > 1)
				svg_block(f, m, an, a * g, c * g, g, b.left + c * CELL, b.top + a * CELL);
			else
				svg_cell(f, m, an, a, c, b.left + c * CELL, b.top + a * CELL);
	/* Legend: share of the best pair. */
	for (int i = 0; i <= 10; i++) {
		unsigned char rgb[3];

		mx_heat_rgb(i / 10.0, rgb);
		fprintf(f, "<rect class=\"legend\" x=\"%d\" y=\"%d\" width=\"18\" height=\"12\" "
			   "fill=\"#%02x%02x%02x\"/>\n", b.left + i * 18, h - 28, rgb[0], rgb[1], rgb[2]);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\">0%% .. 100%% of the best pair (%s)</text>\n",
		b.left + 11 * 18 + 6, h - 18, fc_fmt_figure(an->best_gbps, "%.3g", "Gb/s", buf,
							  sizeof(buf)));
	fputs("</svg>\n", f);
}

