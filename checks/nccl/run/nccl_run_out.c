/* fabcheck nccl run: the report (ranks, result table, the NCCL logs). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checks/nccl/log/nccllog.h"
#include "core/log.h"
#include "core/names.h"
#include "core/out.h"
#include "core/util.h"
#include "matrix/mx_rails.h"
#include "core/safefile.h"
#include "checks/nccl/run/nccl_run.h"

static json_t *ranks_json(const struct ncr_state *s)
{
	json_t *a = json_array();

	for (int i = 0; i < s->n; i++) {
		const json_t *st = s->r[i].setup;

		json_array_append_new(
			a, json_pack("{s:i, s:s, s:i, s:s, s:s, s:s, s:s}", "rank", i, "node",
				     s->r[i].node, "gpu", s->r[i].gpu, "gpu_name",
				     fc_jstr(st, "gpu_name", "?"), "gpu_bus_id",
				     fc_name_or_unknown(FC_NAME_BDF, fc_jstr(st, "gpu_bus_id", NULL),
							"a rank's GPU bus id"), "nccl_version",
				     fc_jstr(st, "nccl_version", "?"), "nccl_lib",
				     fc_jstr(st, "nccl_lib", "?")));
	}
	return a;
}

static void version_findings(const struct ncr_state *s)
{
	const char *v0 = fc_jstr(s->r[0].setup, "nccl_version", "?");

	for (int i = 1; i < s->n; i++) {
		const char *v = fc_jstr(s->r[i].setup, "nccl_version", "?");

		if (strcmp(v, v0)) {
			fc_finding(s->doc, FC_WARN,
				   "%s runs NCCL %s where rank 0 (%s) runs %s; install one NCCL "
				   "version on every node", s->r[i].label, v, s->r[0].label, v0);
			return;
		}
	}
}

static void results(struct ncr_state *s)
{
	struct ncr_rank_result *res = calloc((size_t)s->n, sizeof(*res));
	json_t *table, *e;
	size_t i;

	if (!res)
		return;
	for (int k = 0; k < s->n; k++)
		res[k] = s->r[k].res;
	table = ncr_table(s->cfg->p.op, res, s->n);
	free(res);
	json_array_foreach(table, i, e) {
		double wrong = fc_jnum(e, "wrong", 0);

		if (wrong)
			fc_finding(s->doc, FC_FAIL,
				   "%s of %.0f bytes gave %.0f wrong sum%s (of the elements checked at "
				   "both ends on every rank): data is corrupted between the GPUs; "
				   "rerun with NCCL_P2P_DISABLE=1 or NCCL_NET_GDR_LEVEL=LOC to find the path",
				   ncr_op_name(s->cfg->p.op), fc_jnum(e, "size_bytes", 0), wrong,
				   fc_s((long long)wrong));
	}
	json_object_set_new(s->doc, "avg_busbw_gbytes_s", json_real(ncr_avg_busbw(table)));
	json_object_set_new(s->doc, "results", table);
}

/* Rank @i's log as the new file NODE-rankR.log of the --log-dir folder
 * @dfd (core/safefile.h: O_CREAT | O_EXCL | O_NOFOLLOW, what was at the name
 * removed first, never written through). */
static void keep_log(const struct ncr_state *s, int dfd, int i)
{
	char name[300];

	if (fc_name_check(FC_NAME_NODE, s->r[i].node, "--log-dir: the node"))
		return;
	snprintf(name, sizeof(name), "%s-rank%d.log", s->r[i].node, i);
	if (fc_write_new_at(dfd, name, s->r[i].log ? s->r[i].log : "", s->r[i].loglen,
			    s->cfg->log_dir))
		fc_warn("--log-dir: rank %d's log is not kept", i);
}

/* The topology sent by rank 0's node, when it is one check-log can use. */
static const json_t *expect_topo(const struct ncr_state *s)
{
	const json_t *t = json_object_get(s->r[0].setup, "topo");
	const char *why;

	return json_is_object(t) && !ncl_topo_check(t, &why) ? t : NULL;
}

/* "GPU0:mlx5_0,mlx5_1;GPU1:..." for comparing nodes. */
static void topo_sig(const json_t *topo, char *buf, size_t len)
{
	size_t i, k, o = 0;
	json_t *g, *n;

	buf[0] = '\0';
	json_array_foreach(json_object_get(topo, "gpus"), i, g) {
		if (o < len)
			o += (size_t)snprintf(buf + o, len - o, "%s:", fc_jstr(g, "name", "?"));
		json_array_foreach(json_object_get(g, "nearest_nics"), k, n)
			if (o < len)
				o += (size_t)snprintf(buf + o, len - o, "%s%s", k ? "," : "",
						      json_string_value(n) ? json_string_value(n) : "?");
		if (o < len)
			o += (size_t)snprintf(buf + o, len - o, ";");
	}
}

/* The nearest-HCA check uses rank 0's node: say so when another differs. */
static void topo_findings(struct ncr_state *s, const json_t *t0)
{
	char a[2048], b[2048];

	topo_sig(t0, a, sizeof(a));
	for (int i = 1; i < s->n; i++) {
		const json_t *t = json_object_get(s->r[i].setup, "topo");

		if (s->r[i].gpu || !t)
			continue;
		topo_sig(json_is_object(t) ? t : NULL, b, sizeof(b));
		if (strcmp(a, b)) {
			fc_finding(s->doc, FC_WARN,
				   "%s's GPUs have other nearest HCAs than %s's (fabcheck topo on "
				   "each): the nearest-HCA check of the log used %s's; run "
				   "'fabcheck topo' on both and make the nodes alike",
				   s->r[i].node, s->r[0].node, s->r[0].node);
			return;
		}
	}
}

static void analyse_logs(struct ncr_state *s)
{
	struct ncl_expect exp = { .net = s->cfg->expect_net, .gdr = s->cfg->expect_gdr };
	struct ncl_log *lg = ncl_log_new();
	json_t *rep, *f;
	char name[200];
	size_t i;
	int logfd;

	if (!lg)
		return;
	exp.topo = expect_topo(s);
	if (exp.topo)
		topo_findings(s, exp.topo);
	logfd = s->cfg->log_dir ? fc_evdir_open(s->cfg->log_dir) : -1;
	for (int k = 0; k < s->n; k++) {
		if (logfd >= 0)
			keep_log(s, logfd, k);
		ncl_log_feed(lg, s->r[k].log ? s->r[k].log : "", s->r[k].loglen);
		snprintf(name, sizeof(name), "%s rank %d", s->r[k].node, k);
		ncl_log_end_file(lg, name);
	}
	if (logfd >= 0)
		close(logfd);
	if (!ncl_log_nccl_lines(lg)) {
		fc_finding(s->doc, FC_WARN,
			   "no rank sent NCCL_DEBUG=INFO lines back: NCCL wrote no log to "
			   "NCCL_DEBUG_FILE; the network, HCAs and GPUDirect were not checked");
		ncl_log_free(lg);
		return;
	}
	rep = ncl_log_report(lg, &exp);
	ncl_log_free(lg);
	if (!rep)
		return;
	json_array_foreach(json_object_get(rep, "findings"), i, f)
		fc_finding(s->doc, FC_WARN, "NCCL log: %s", json_string_value(f));
	if (!strcmp(fc_jstr(rep, "verdict", ""), "fail"))
		json_object_set_new(s->doc, "verdict", json_string("fail"));
	if (exp.topo)
		json_object_set_new(s->doc, "topo_node", json_string(s->r[0].node));
	json_object_set_new(s->doc, "nccl_log", rep);
}

void ncr_report(struct ncr_state *s)
{
	const struct ncr_cfg *cfg = s->cfg;
	json_t *nodes = json_array();

	for (int i = 0; i < cfg->nnodes; i++)
		json_array_append_new(nodes, json_string(cfg->nodes[i]));
	json_object_set_new(s->doc, "op", json_string(ncr_op_name(cfg->p.op)));
	json_object_set_new(s->doc, "nodes", nodes);
	json_object_set_new(s->doc, "gpus_per_node", json_integer(cfg->gpus_per_node));
	json_object_set_new(s->doc, "nranks", json_integer(s->n));
	json_object_set_new(s->doc, "iters", json_integer(cfg->p.iters));
	json_object_set_new(s->doc, "warmup", json_integer(cfg->p.warmup));
	json_object_set_new(s->doc, "nccl_version",
			    json_string(fc_jstr(s->r[0].setup, "nccl_version", "?")));
	json_object_set_new(s->doc, "ranks", ranks_json(s));
	version_findings(s);
	results(s);
	analyse_logs(s);
	ncr_rails_report(s);
	ncr_store_record(s);
}

/* ---- text ---- */

static void render_ranks(FILE *f, const json_t *doc)
{
	struct fc_table *t = fc_table_new(5, "RANK", "NODE", "GPU", "NAME", "BUS ID");
	size_t i;
	json_t *r;

	json_array_foreach(json_object_get(doc, "ranks"), i, r) {
		fc_table_row(t);
		fc_table_addf(t, 0, "%d", (int)fc_jnum(r, "rank", -1));
		fc_table_addf(t, 1, "%s", fc_jstr(r, "node", "?"));
		fc_table_addf(t, 2, "%d", (int)fc_jnum(r, "gpu", -1));
		fc_table_addf(t, 3, "%s", fc_jstr(r, "gpu_name", "?"));
		fc_table_addf(t, 4, "%s", fc_jstr(r, "gpu_bus_id", "?"));
	}
	fc_table_print(t, f, "  ");
	fc_table_free(t);
}

static void render_results(FILE *f, const json_t *doc)
{
	struct fc_table *t = fc_table_new(8, "SIZE (B)", "COUNT (elems)", "TYPE", "TIME (us)",
					  "MAX TIME (us)", "ALGBW (GB/s)", "BUSBW (GB/s)",
					  "WRONG");
	size_t i;
	json_t *r;

	json_array_foreach(json_object_get(doc, "results"), i, r) {
		fc_table_row(t);
		fc_table_addf(t, 0, "%.0f", fc_jnum(r, "size_bytes", 0));
		fc_table_addf(t, 1, "%.0f", fc_jnum(r, "count", 0));
		fc_table_addf(t, 2, "%s", fc_jstr(r, "type", "?"));
		fc_table_addf(t, 3, "%.2f", fc_jnum(r, "time_us", 0));
		fc_table_addf(t, 4, "%.2f", fc_jnum(r, "max_time_us", 0));
		fc_table_addf(t, 5, "%.2f", fc_jnum(r, "algbw_gbytes_s", 0));
		fc_table_addf(t, 6, "%.2f", fc_jnum(r, "busbw_gbytes_s", 0));
		fc_table_addf(t, 7, "%.0f", fc_jnum(r, "wrong", 0));
	}
	fc_table_print(t, f, "  ");
	fc_table_free(t);
}

void ncr_render(FILE *f, const json_t *doc)
{
	const json_t *log = json_object_get(doc, "nccl_log");

	/* the ports left out, the rails assumed; then the findings (no blank
	 * line of its own before theirs when the run got no further) */
	if (!json_object_get(doc, "ranks")) {
		mx_rails_notes_lines(f, doc);
		return; /* the run did not get that far: the findings say why */
	}
	mx_rails_notes_render(f, doc);
	fprintf(f, "%s over %d rank%s (%d per node), NCCL %s, %d iterations after %d warm-up\n\n",
		fc_jstr(doc, "op", "?"), (int)fc_jnum(doc, "nranks", 0),
		fc_jnum(doc, "nranks", 0) == 1 ? "" : "s", (int)fc_jnum(doc, "gpus_per_node", 0),
		fc_jstr(doc, "nccl_version", "?"), (int)fc_jnum(doc, "iters", 0),
		(int)fc_jnum(doc, "warmup", 0));
	render_ranks(f, doc);
	fputc('\n', f);
	render_results(f, doc);
	fprintf(f, "\n  avg bus bandwidth: %.3f GB/s\n", fc_jnum(doc, "avg_busbw_gbytes_s", 0));
	ncr_rails_render(f, doc);
	if (log) {
		fprintf(f, "\nNCCL log of every rank:\n");
		ncl_render(f, log);
	}
	fputc('\n', f);
}
