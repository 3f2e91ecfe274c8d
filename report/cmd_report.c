/* fabcheck report: a stored matrix run as HTML, CSV or Prometheus text. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/csv.h"
#include "core/log.h"
#include "core/opts.h"
#include "core/out.h"
#include "core/safefile.h"
#include "core/util.h"
#include "src/cmds.h"
#include "baseline/bl_pair.h"
#include "matrix/mx_diag.h"
#include "matrix/mx_history.h"
#include "matrix/mx_model.h"
#include "matrix/mx_pattern.h"
#include "report/report.h"

const char usage_report[] =
	"usage: fabcheck report [--run ID] [--db FILE] --html FILE | --csv FILE | --prom FILE\n"
	"       fabcheck report --list [--db FILE]\n"
	"       fabcheck report --slurm [--run ID] [--db FILE]\n"
	"       fabcheck report --baseline FILE [--run ID] [--db FILE] [--html FILE ...]\n"
	"\n"
	"Writes a stored matrix run (the newest when --run is not given); several\n"
	"outputs may be given at once.\n"
	"\n"
	"  --run ID      the run (see --list)\n"
	"  --db FILE     result store (default fabcheck.db)\n"
	"  --html FILE   self-contained page: SVG heat map, findings, nodes\n"
	"  --csv FILE    one line per measured direction and rail (columns run, a,\n"
	"                b, rail, device, gbps, lat_us, verdict, retest; rail -1 and\n"
	"                device \"all\" in a run without rails)\n"
	"  --prom FILE   Prometheus text for node_exporter's textfile collector:\n"
	"                per node and per (node, rail) median and verdict, and the\n"
	"                bandwidth, latency and verdict of each suspect link (a few\n"
	"                MB at 1,024 nodes x 8 rails)\n"
	"  --prom-all-pairs  every pair's series in --prom (8 million at 1,024 x 8:\n"
	"                about 1 GB; mind the scraper's limits)\n"
	"  --baseline FILE  judge the run's stored results against the fleet's\n"
	"                baseline ('fabcheck baseline'): more than its rule's P% below\n"
	"                is defective; printed, and in the --html findings\n"
	"  --list        the runs in the store\n"
	"  --slurm       the Slurm drains and resumes of the runs (of --run ID):\n"
	"                what --drain and --resume-passed did, and what failed\n"
	"  --history     with --html: each link (node pair, on each rail of a run\n"
	"                with rails) more than 15% below the median of its last 7\n"
	"                runs, with a chart of its trend; with --csv: every link's\n"
	"                figures in those runs\n"
	"\n"
	"Exit: 0 written, 1 results below the --baseline, 2 usage, 3 the store or a\n"
	"file could not be read or written.\n";

static const char *cell_verdict(const struct fc_mx_cell *c)
{
	if (c->state == FC_MX_ERROR)
		return "error";
	return c->bad || c->state == FC_MX_FAIL ? "fail" : "pass";
}

static void csv_row(FILE *f, const struct mx_model *m, const struct fc_mx_analysis *an, int a,
		    int b, int r)
{
	const struct fc_mx_cell *c = a == b ? NULL : fc_mx_cell(an, a, b);

	if (!c || c->state == FC_MX_NONE)
		return;
	fprintf(f, "%lld,", (long long)m->run);
	fc_csv_cell(f, m->names[a]);
	fputc(',', f);
	fc_csv_cell(f, m->names[b]);
	fprintf(f, ",%d,", r < 0 ? -1 : m->rails[r].index);
	fc_csv_cell(f, r < 0 ? "all" : m->rails[r].name);
	if (isfinite(c->gbps))
		fprintf(f, ",%.6g", c->gbps);
	else
		fputc(',', f);
	if (isfinite(c->lat_us))
		fprintf(f, ",%.6g", c->lat_us);
	else
		fputc(',', f);
	fprintf(f, ",%s,%d\n", cell_verdict(c), c->retest);
}

/* A row per measured direction and rail: the rail's index and device, or
 * -1 and "all" in a run without rails (as the history's CSV). */
int rp_write_csv(FILE *f, const struct mx_model *m)
{
	fputs("run,a,b,rail,device,gbps,lat_us,verdict,retest\n", f);
	for (int r = m->nrails ? 0 : -1; r < m->nrails; r++) {
		const struct fc_mx_analysis *an = r < 0 ? &m->an : &m->ran.rails[r];

		for (int a = 0; a < m->n; a++)
			for (int b = 0; b < m->n; b++)
				csv_row(f, m, an, a, b, r);
	}
	return ferror(f) ? -1 : 0;
}

/* A label value in the Prometheus text format. */
static void prom_label(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

/* One pair's sample; with rails (matrix --rails) labelled with the rail's
 * name, the device most nodes have on it. */
static void prom_pair(FILE *f, const struct mx_model *m, const char *metric, int a, int b,
		      int rail, double v)
{
	fprintf(f, "%s{src=\"", metric);
	prom_label(f, m->names[a]);
	fputs("\",dst=\"", f);
	prom_label(f, m->names[b]);
	if (rail >= 0) {
		fputs("\",rail=\"", f);
		prom_label(f, m->rails[rail].name);
	}
	fprintf(f, "\",run=\"%lld\"} %.6g\n", (long long)m->run, v);
}

/* One cell's sample of @metric (@which: 0 bandwidth, 1 latency, 2 ok). */
static void prom_cell(FILE *f, const struct mx_model *m, const char *metric, int which, int a,
		      int b, int r)
{
	const struct fc_mx_analysis *an = r < 0 ? &m->an : &m->ran.rails[r];
	const struct fc_mx_cell *c = a == b ? NULL : fc_mx_cell(an, a, b);
	double v;

	if (!c || c->state == FC_MX_NONE)
		return;
	v = which == 0 ? c->gbps : which == 1 ? c->lat_us : !strcmp(cell_verdict(c), "pass");
	if (isfinite(v))
		prom_pair(f, m, metric, a, b, r, v);
}

/* Each pair's sample with @all; without, only the suspect links' (a bad
 * node or port is in the node and port gauges): a series per flagged link,
 * so that a 1,024 x 8 run is a few MB, not the 8 million series of every
 * pair. */
static void prom_pairs(FILE *f, const struct mx_model *m, const char *metric, const char *help,
		       int which, int all)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", metric, help, metric);
	for (int r = m->nrails ? 0 : -1; all && r < m->nrails; r++)
		for (int a = 0; a < m->n; a++)
			for (int b = 0; b < m->n; b++)
				prom_cell(f, m, metric, which, a, b, r);
	for (int i = 0; !all && m->nrails && i < m->ran.nsuspects; i++) {
		const struct fc_mxl_suspect *s = &m->ran.suspects[i];

		if (s->level != FC_MXL_LINK)
			continue;
		prom_cell(f, m, metric, which, s->node, s->peer, s->rail);
		prom_cell(f, m, metric, which, s->peer, s->node, s->rail);
	}
	for (int i = 0; !all && !m->nrails && i < m->an.nfindings; i++) {
		const struct fc_mx_finding *fd = &m->an.findings[i];

		if (fd->kind != FC_MX_SUSPECT_LINK)
			continue;
		prom_cell(f, m, metric, which, fd->a, fd->b, -1);
		prom_cell(f, m, metric, which, fd->b, fd->a, -1);
	}
}

static void prom_nodes(FILE *f, const struct mx_model *m, const char *metric, const char *help,
		       int which)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", metric, help, metric);
	for (int i = 0; i < m->n; i++) {
		const struct fc_mx_node *nd = &m->an.nodes[i];
		double v = which == 0 ? nd->state == FC_MX_NODE_OK : which == 1 ?
			nd->state == FC_MX_NODE_SUSPECT : nd->median_gbps;

		if (!isfinite(v))
			continue;
		fprintf(f, "%s{node=\"", metric);
		prom_label(f, m->names[i]);
		fprintf(f, "\",run=\"%lld\"} %.6g\n", (long long)m->run, v);
	}
}

/* Per (node, rail): its median on the rail and whether it is a suspect
 * there (a port of a run with rails). */
static void prom_ports(FILE *f, const struct mx_model *m)
{
	static const char *const metric[2] = { "fabcheck_port_median_gbps", "fabcheck_port_suspect" };
	static const char *const help[2] = {
		"Median bandwidth of the node's pairs on the rail in Gb/s.",
		"1 when the matrix names the node as bad on the rail."
	};

	for (int w = 0; w < 2 && m->nrails; w++) {
		fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", metric[w], help[w], metric[w]);
		for (int r = 0; r < m->nrails; r++) {
			for (int i = 0; i < m->n; i++) {
				const struct fc_mx_node *nd = &m->ran.rails[r].nodes[i];
				double v = w ? nd->state == FC_MX_NODE_SUSPECT : nd->median_gbps;

				if (!isfinite(v) || nd->state == FC_MX_NODE_UNTESTED)
					continue;
				fprintf(f, "%s{node=\"", metric[w]);
				prom_label(f, m->names[i]);
				fputs("\",rail=\"", f);
				prom_label(f, m->rails[r].name);
				fprintf(f, "\",run=\"%lld\"} %.6g\n", (long long)m->run, v);
			}
		}
	}
}

int rp_write_prom(FILE *f, const struct mx_model *m, int all_pairs)
{
	const char *which = all_pairs ? "" : " Suspect links only (--prom-all-pairs: every pair).";
	char help[3][160];

	snprintf(help[0], sizeof(help[0]), "RDMA bandwidth from src to dst in Gb/s (1e9 bit/s).%s", which);
	snprintf(help[1], sizeof(help[1]), "RDMA latency p50 from src to dst in microseconds.%s", which);
	snprintf(help[2], sizeof(help[2]), "1 when the pair passed the matrix's thresholds.%s", which);
	prom_pairs(f, m, "fabcheck_pair_bandwidth_gbps", help[0], 0, all_pairs);
	prom_pairs(f, m, "fabcheck_pair_latency_us", help[1], 1, all_pairs);
	prom_pairs(f, m, "fabcheck_pair_ok", help[2], 2, all_pairs);
	prom_ports(f, m);
	prom_nodes(f, m, "fabcheck_node_ok",
		   "1 when the node passed (not a suspect, reachable).", 0);
	prom_nodes(f, m, "fabcheck_node_suspect", "1 when the matrix names the node as bad.", 1);
	prom_nodes(f, m, "fabcheck_node_median_gbps",
		   "Median bandwidth of the node's pairs in Gb/s.", 2);
	fprintf(f, "# HELP fabcheck_matrix_suspects Suspect nodes and links of the run.\n"
		   "# TYPE fabcheck_matrix_suspects gauge\nfabcheck_matrix_suspects{run=\"%lld\"} %d\n",
		(long long)m->run, m->nrails ? m->ran.nsuspects : m->an.nsuspects);
	fprintf(f, "# HELP fabcheck_matrix_start_time_seconds When the run started (unix time).\n"
		   "# TYPE fabcheck_matrix_start_time_seconds gauge\n"
		   "fabcheck_matrix_start_time_seconds{run=\"%lld\"} %.0f\n",
		(long long)m->run, m->info.started);
	return ferror(f) ? -1 : 0;
}

enum { OUT_HTML, OUT_CSV, OUT_PROM, OUT_N };

struct out_job {
	int kind;
	const struct mx_model *m;
	const json_t *doc;
	const struct rp_history *h;
	int all_pairs;
};

static int fill_out(FILE *f, void *arg)
{
	const struct out_job *j = arg;

	if (j->h)
		return j->kind == OUT_HTML ? rp_write_history_html(f, &j->h->h, j->m) :
					     rp_write_history_csv(f, j->h);
	return j->kind == OUT_HTML ? rp_write_html(f, j->m, j->doc) :
	       j->kind == OUT_CSV  ? rp_write_csv(f, j->m) : rp_write_prom(f, j->m, j->all_pairs);
}

/* Through a mkstemp file and a rename (core/safefile.h), so a reader
 * (node_exporter) never sees half a file and no planted link redirects it. */
static int write_out(int kind, const char *path, const struct mx_model *m, const json_t *doc,
		     const struct rp_history *h, int all_pairs)
{
	static const char *const opt[OUT_N] = { "--html", "--csv", "--prom" };
	struct out_job j = { kind, m, doc, h, all_pairs };

	return fc_replace_file(opt[kind], path, fill_out, &j);
}

/* A run of the store into the "runs" array @arg. */
static int list_run(const struct fc_store_run *r, void *arg)
{
	char when[32];

	fc_fmt_time(r->started, "%Y-%m-%d %H:%M:%S", when, sizeof(when));
	json_array_append_new(arg, json_pack("{s:I, s:o, s:s, s:f, s:I, s:o, s:i}", "id",
					     (json_int_t)r->id, "kind", fc_json_text(r->kind),
					     "started", when, "started_unix",
					     isfinite(r->started) ? r->started : 0, "pairs",
					     (json_int_t)r->npairs, "verdict",
					     *r->verdict ? fc_json_text(r->verdict) : json_null(),
					     "nodes", (int)json_array_size(json_object_get(
						     r->params, "nodes"))));
	return 0;
}

/* report --list as text, from its document: what the store holds (a kind,
 * a verdict) reaches the terminal through fc_emit's escaping. */
static void render_runs(FILE *f, const json_t *doc)
{
	const json_t *r;
	size_t i;

	json_array_foreach(json_object_get(doc, "runs"), i, r) {
		long long pairs = (long long)fc_jnum(r, "pairs", 0), nodes = (long long)fc_jnum(r, "nodes", 0);

		fprintf(f, "%6lld  %-7s %s  %5lld pair%-1s  %-11s %lld node%s\n",
			(long long)fc_jnum(r, "id", 0), fc_jstr(r, "kind", ""),
			fc_jstr(r, "started", "?"), pairs, fc_s(pairs),
			fc_jstr(r, "verdict", "running"), nodes, fc_s(nodes));
	}
}

static int slurm_action_json(const struct fc_store_action *a, void *arg)
{
	json_array_append_new(arg, json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:f}", "run",
					     (json_int_t)a->run, "node", fc_json_text(a->node),
					     "action", fc_json_text(a->action), "reason",
					     fc_json_text(a->reason), "detail",
					     fc_json_text(a->detail), "command",
					     fc_json_text(a->command), "result",
					     fc_json_text(a->result), "time", a->time));
	return 0;
}

/* report --slurm as text, from its document (escaped as render_runs). */
static void render_slurm(FILE *f, const json_t *doc)
{
	const json_t *a;
	size_t i;
	char when[32];

	json_array_foreach(json_object_get(doc, "slurm"), i, a) {
		const char *reason = fc_jstr(a, "reason", ""), *result = fc_jstr(a, "result", "ok");
		const char *command = fc_jstr(a, "command", ""), *detail = fc_jstr(a, "detail", "");

		fc_fmt_time(fc_jnum(a, "time", NAN), "%Y-%m-%d %H:%M:%S", when, sizeof(when));
		fprintf(f, "%6lld  %s  %-12s %-12s %s%s%s\n", (long long)fc_jnum(a, "run", 0), when,
			fc_jstr(a, "action", ""), fc_jstr(a, "node", ""), *reason ? reason : "-",
			strcmp(result, "ok") ? ": " : "", strcmp(result, "ok") ? result : "");
		if (*command)
			fprintf(f, "        command: %s\n", command);
		if (*detail)
			fprintf(f, "        finding: %s\n", detail);
	}
}

/* @wrote: with --json, what was written goes there instead of stdout. */
/* The text of a --baseline judgment (its findings follow). */
static void render_baseline(FILE *f, const json_t *doc)
{
	const json_t *b = json_object_get(doc, "baseline");

	fprintf(f, "run %lld against the baseline %s: %d result%s judged, %d more than %.4g%% "
		"below it, %d not judged\n", (long long)fc_jnum(doc, "run", 0),
		fc_jstr(b, "file", "?"), (int)fc_jnum(b, "judged", 0),
		fc_s((long long)fc_jnum(b, "judged", 0)),
		(int)fc_jnum(b, "defective", 0), fc_jnum(b, "below_pct", 0),
		(int)fc_jnum(b, "not_judged", 0));
}

/* @bl: --baseline, judged into @bl_doc (printed by the caller) and into
 * the outputs' findings. */
struct report_bl {
	const struct fc_baseline *bl;
	const char *file;
	json_t *doc;
};

static int report_run(const char *db, int64_t run, const char *const *out, int history,
		      int all_pairs, json_t *wrote, const struct report_bl *bl)
{
	struct fc_store *st = fc_store_open_ro(db);
	struct fc_hist_opts ho = FC_HIST_OPTS_DEFAULT;
	struct rp_history h = { 0 };
	struct mx_model m;
	json_t *doc;
	int rc = FC_EXIT_PASS;

	if (!st)
		return FC_EXIT_CANT;
	if (!run)
		run = fc_store_run_latest(st, "matrix");
	if (run <= 0) {
		fc_err("no matrix run in %s; run 'fabcheck matrix NODE...' first, or pass --db",
		       fc_store_path(st));
		fc_store_close(st);
		return FC_EXIT_CANT;
	}
	if (mx_model_load(&m, st, run)) {
		fc_store_close(st);
		return FC_EXIT_CANT;
	}
	if (!strcmp(m.info.kind, "pair")) {
		/* judged as a matrix of one pair, a pair run read as another
		 * verdict ("pass" for a pair whose counters warned) */
		fc_err("report: run %lld in %s is a %s run, not a matrix or soak run: the report "
		       "(heat map, suspects, verdict) is of a matrix or soak run; a pair's own "
		       "report is its text or --json ('fabcheck report --list' lists the runs)",
		       (long long)run, fc_store_path(st), m.info.kind);
		rc = FC_EXIT_CANT;
		goto out_release;
	}
	if (mx_model_analyze(&m)) {
		rc = FC_EXIT_CANT;
		goto out_release;
	}
	if (history && rp_history_load(&h, st, &m, &ho, out[OUT_CSV] != NULL)) {
		rc = FC_EXIT_CANT;
		goto out_release;
	}
	doc = mx_model_doc_brief(&m);
	mx_doc_diagnoses(&m, st, doc);
	/* a pattern run judged as matrix judged it (its rounds, the receivers' shares) */
	if (json_object_get(m.info.params, "pattern") && mx_pattern_doc(st, run, doc)) {
		rc = FC_EXIT_CANT;
		goto out_release;
	}
	json_object_set_new(doc, "slurm", json_array());
	fc_store_actions(st, run, slurm_action_json, json_object_get(doc, "slurm"));
	if (history)
		mx_history_doc(&h.h, &m, doc);
	if (bl->bl) {
		fc_bl_judge_run(st, run, bl->bl, bl->file, doc);
		fc_bl_judge_run(st, run, bl->bl, bl->file, bl->doc);
		json_object_set_new(bl->doc, "run", json_integer(run));
	}
	for (int k = 0; k < OUT_N; k++) {
		if (!out[k])
			continue;
		if (write_out(k, out[k], &m, doc, history ? &h : NULL, all_pairs))
			rc = FC_EXIT_CANT;
		else if (wrote)
			json_array_append_new(wrote, json_pack("{s:s, s:I, s:i, s:s}", "file", out[k],
							       "run", (json_int_t)run, "nodes", m.n,
							       "verdict", fc_jstr(doc, "verdict", "?")));
		else
			printf("wrote %s (run %lld, %d nodes, verdict %s)\n", out[k],
			       (long long)run, m.n, fc_jstr(doc, "verdict", "?"));
	}
	json_decref(doc);
out_release:
	rp_history_release(&h);
	mx_model_release(&m);
	fc_store_close(st);
	return rc;
}

struct report_args {
	const char *out[OUT_N], *db, *baseline;
	int64_t run;
	int list, history, slurm, prom_all_pairs;
};

#define FC_OPT_T struct report_args
static const struct fc_opts report_spec = {
	.opt = (const struct fc_opt[]){
		FCO_ID("run", 0, run),
		FCO_STR("db", 0, db),
		FCO_STR("html", 0, out[OUT_HTML]),
		FCO_STR("csv", 0, out[OUT_CSV]),
		FCO_STR("prom", 0, out[OUT_PROM]),
		FCO_FLAG("list", 0, list),
		FCO_FLAG("history", 0, history),
		FCO_FLAG("slurm", 0, slurm),
		FCO_FLAG("prom-all-pairs", 0, prom_all_pairs),
		FCO_STR("baseline", 0, baseline),
		FCO_JSON,
		{ 0 },
	},
	.cmd = "report", .usage = usage_report, .no_args = "see 'fabcheck report --help'",
};

/* report --baseline FILE: the run judged against the baseline, printed
 * (or the --json document), with the outputs asked for written beside. */
static int report_baseline(struct fc_ctx *ctx, const struct report_args *a)
{
	struct fc_baseline b;
	struct report_bl bl = { .bl = &b, .file = a->baseline };
	int rc;

	if (fc_bl_read_file(&b, a->baseline))
		return FC_EXIT_USAGE;
	bl.doc = fc_doc_new();
	json_object_set_new(bl.doc, "wrote", json_array());
	rc = report_run(a->db, a->run, a->out, a->history, a->prom_all_pairs,
			ctx->json ? json_object_get(bl.doc, "wrote") : NULL, &bl);
	fc_bl_release(&b);
	if (rc) {
		json_decref(bl.doc);
		return rc;
	}
	return fc_emit(ctx, bl.doc, render_baseline);
}

int cmd_report(struct fc_ctx *ctx, int argc, char **argv)
{
	struct report_args a = { 0 };
	const char *const *out = a.out;

	if (fc_opts_parse(ctx, &report_spec, &a, argc, argv))
		return FC_EXIT_USAGE;
	if (a.list || a.slurm) {
		struct fc_store *st = fc_store_open_ro(a.db);
		json_t *doc = fc_doc_new(), *list = json_array();
		int rc;

		json_object_set_new(doc, a.list ? "runs" : "slurm", list);
		if (!st) {
			json_decref(doc);
			return FC_EXIT_CANT;
		}
		rc = a.list ? fc_store_run_list(st, 0, list_run, list) :
			      fc_store_actions(st, a.run, slurm_action_json, list);
		fc_store_close(st);
		if (rc) {
			json_decref(doc);
			return FC_EXIT_CANT;
		}
		return fc_emit_listing(ctx, doc, a.list ? render_runs : render_slurm);
	}
	if (!out[OUT_HTML] && !out[OUT_CSV] && !out[OUT_PROM] && !a.baseline) {
		fc_err("report: give at least one of --html FILE, --csv FILE, --prom FILE, "
		       "--baseline FILE");
		return FC_EXIT_USAGE;
	}
	if (a.baseline)
		return report_baseline(ctx, &a);
	if (a.history && out[OUT_PROM]) {
		fc_err("report --history writes --html and --csv; drop --prom (or --history)");
		return FC_EXIT_USAGE;
	}
	{
		json_t *doc = ctx->json ? fc_doc_new() : NULL, *wrote = json_array();
		struct report_bl none = { 0 };
		int rc = report_run(a.db, a.run, a.out, a.history, a.prom_all_pairs,
				    doc ? wrote : NULL, &none);

		if (doc)
			json_object_set_new(doc, "wrote", wrote);
		else
			json_decref(wrote);
		if (rc || !doc) {
			json_decref(doc);
			return rc;
		}
		/* what it wrote, not a judgment: no summary (--json only here) */
		return fc_emit_listing(ctx, doc, NULL);
	}
}
