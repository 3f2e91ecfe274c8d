/* fabcheck pair: the text report (the same document as --json). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "baseline/bl_pair.h"
#include "core/log.h"
#include "core/out.h"
#include "core/hostloss.h"
#include "core/pairv.h"
#include "core/rail.h"
#include "core/summary.h"
#include "core/util.h"
#include "diag/diag.h"
#include "pair/pair.h"
#include "store/store.h"

static void numa_part(char *buf, size_t len, const char *what, const json_t *v)
{
	size_t n = strlen(buf);

	if (json_is_integer(v))
		snprintf(buf + n, len - n, "%s node %d", what, (int)json_integer_value(v));
	else if (json_is_string(v))
		snprintf(buf + n, len - n, "%s %s", what, json_string_value(v));
	else
		snprintf(buf + n, len - n, "%s node ?", what);
}

/* What each test sent inline, as it ran (its "method"), once per test and
 * metric: "inline up to 236 B (the QPs' limit): write lat 236 B, write bw none". */
static void render_inline(FILE *f, const json_t *doc)
{
	const json_t *results = json_object_get(doc, "results"), *r;
	char seen[16][16];
	int n = 0;
	size_t i;

	fprintf(f, "inline up to %d B (the QPs' limit)",
		(int)fc_jnum(json_object_get(doc, "a"), "max_inline", 0));
	json_array_foreach(results, i, r) {
		const json_t *m = json_object_get(r, "method");
		char key[16];
		int in = (int)fc_jnum(m, "inline", 0), dup = 0;

		if (!m || n >= 16)
			continue;
		snprintf(key, sizeof(key), "%s %s", fc_jstr(r, "test", "?"), fc_jstr(r, "metric", "?"));
		for (int k = 0; k < n; k++)
			dup |= !strcmp(seen[k], key);
		if (dup)
			continue;
		snprintf(seen[n++], sizeof(seen[0]), "%s", key);
		if (in > 0)
			fprintf(f, "%s %s up to %d B", n == 1 ? ": used by" : ",", key, in);
		else
			fprintf(f, "%s %s none", n == 1 ? ": used by" : ",", key);
	}
	fputc('\n', f);
}

/* The NUMA node of each side's HCA, buffer and CPUs, on one line. */
static void render_numa(FILE *f, const json_t *doc)
{
	int said = 0;

	for (int i = 0; i < 2; i++) {
		const json_t *s = json_object_get(doc, i ? "b" : "a"), *n = json_object_get(s, "numa");
		char line[256] = "";

		/* an HCA of no NUMA node (no PCI device: rxe, siw, or a VM's)
		 * with its buffer on its CPUs' node: nothing to align, said in
		 * --json only */
		if (!n || (json_is_null(json_object_get(n, "hca")) &&
			   json_equal(json_object_get(n, "buffer"), json_object_get(n, "cpus")) &&
			   !json_is_true(json_object_get(n, "pinned"))))
			continue;
		numa_part(line, sizeof(line), "HCA", json_object_get(n, "hca"));
		numa_part(line, sizeof(line), ", buffer", json_object_get(n, "buffer"));
		numa_part(line, sizeof(line), ", CPUs", json_object_get(n, "cpus"));
		fprintf(f, "%s%s %s%s%s%s%s", said++ ? "; " : "  numa: ", i ? "b" : "a", line,
			json_is_true(json_object_get(n, "pinned")) ? " (pinned to " : "",
			json_is_true(json_object_get(n, "pinned")) ? fc_jstr(n, "cpu_list", "?") : "",
			json_is_true(json_object_get(n, "pinned")) ? ")" : "",
			json_is_true(json_object_get(s, "hugepages")) ? ", huge pages" : "");
	}
	if (said)
		fputc('\n', f);
}

/* The LINK cell: RoCE's GID type on Ethernet (its LID means nothing
 * there), "IB" with the LID on InfiniBand, else the link layer. */
static void link_cell(struct fc_table *t, int col, const json_t *s)
{
	const char *ll = fc_jstr(s, "link_layer", "?");
	const json_t *lid = json_object_get(s, "lid");

	if (!strcmp(ll, "InfiniBand") && json_is_integer(lid))
		fc_table_addf(t, col, "IB, LID %lld", (long long)json_integer_value(lid));
	else if (!strcmp(ll, "InfiniBand"))
		fc_table_addf(t, col, "IB");
	else if (!strcmp(ll, "Ethernet") && json_is_integer(json_object_get(s, "gid_index")))
		fc_table_addf(t, col, "%s", fc_jstr(s, "gid_type", "Ethernet"));
	else
		fc_table_addf(t, col, "%s", ll);
}

/* One side's row; its payload ceiling's headers a packet in *@hdr (-1:
 * none yet, -2: the sides differ). */
static void side_row(struct fc_table *t, const char *label, const char *node, const json_t *s,
		     int *hdr)
{
	fc_table_row(t);
	fc_table_addf(t, 0, "%s", label);
	fc_table_addf(t, 1, "%s", node);
	if (!json_object_get(s, "device"))
		return;
	fc_table_addf(t, 2, "%s:%d", fc_jstr(s, "device", "?"), (int)fc_jnum(s, "port", 0));
	link_cell(t, 3, s);
	if (json_is_integer(json_object_get(s, "gid_index")))
		fc_table_addf(t, 4, "%lld %s", (long long)json_integer_value(json_object_get(s, "gid_index")),
			      fc_jstr(s, "gid", "?"));
	else
		fc_table_addf(t, 4, "-");
	fc_table_addf(t, 5, "%d B", (int)fc_jnum(s, "mtu", 0));
	if (json_object_get(s, "width"))
		fc_table_addf(t, 6, "%g Gb/s %s %s", fc_jnum(s, "rate_gbps", 0),
			      fc_jstr(s, "width", "?"), fc_jstr(s, "rate", "?"));
	else
		fc_table_addf(t, 6, "%g Gb/s", fc_jnum(s, "rate_gbps", 0));
	fc_table_addf(t, 7, "%s", fc_jstr(s, "memory", "?"));
	if (json_is_number(json_object_get(s, "payload_gbps"))) {
		int h = (int)fc_jnum(json_object_get(s, "payload"), "header_bytes", 0);

		fc_table_addf(t, 8, "%.3f Gb/s", fc_jnum(s, "payload_gbps", 0));
		*hdr = *hdr == -1 || *hdr == h ? h : -2;
	} else {
		fc_table_addf(t, 8, "-");
	}
}

/* A row per side; with rails a row per side and rail (each rail's own
 * ports, not rail 0's alone). Nine columns, so that rxe's rows fit 100
 * (issue 39 item 3; they were 118 and 135 with rails): the port as
 * DEVICE:PORT, the GID's index before it, RoCE's LID (always 0) left out. */
static void render_sides(FILE *f, const json_t *doc)
{
	const json_t *opt = json_object_get(doc, "options"), *r;
	struct fc_table *t = fc_table_new(9, "SIDE", "NODE", "PORT", "LINK", "GID", "MTU", "RATE",
					  "MEMORY", "CEILING");
	int hdr = -1;
	size_t i;

	for (int k = 0; k < 2; k++) {
		const char *node = fc_jstr(json_object_get(doc, k ? "b" : "a"), "node", "?");
		char label[32];

		if (!json_array_size(json_object_get(doc, "rails"))) {
			side_row(t, k ? "b" : "a", node, json_object_get(doc, k ? "b" : "a"), &hdr);
			continue;
		}
		json_array_foreach(json_object_get(doc, "rails"), i, r) {
			snprintf(label, sizeof(label), "%s rail %d", k ? "b" : "a",
				 (int)fc_jnum(r, "rail", 0));
			side_row(t, label, node, json_object_get(r, k ? "b" : "a"), &hdr);
		}
	}
	fprintf(f, "pair %s <-> %s: %s launcher, %s QP exchange\n",
		fc_jstr(json_object_get(doc, "a"), "node", "?"),
		fc_jstr(json_object_get(doc, "b"), "node", "?"), fc_jstr(opt, "launcher", "?"),
		fc_jstr(opt, "exchange", "?"));
	if (json_object_get(json_object_get(doc, "a"), "device") ||
	    json_object_get(json_object_get(doc, "b"), "device")) {
		fputc('\n', f);
		fc_table_print(t, f, "  ");
		if (hdr >= 0)
			fprintf(f, "  CEILING: the payload the rate carries at the path MTU, %d B of headers a packet\n",
				hdr);
		else if (hdr == -2)
			fprintf(f, "  CEILING: the payload the rate carries at the path MTU, less each side's headers (--json: payload)\n");
	}
	fc_table_free(t);
	if (json_object_get(doc, "path_mtu")) {
		fprintf(f, "\n  path MTU %d B, %d QP%s for bandwidth, tx depth %d, ",
			(int)fc_jnum(doc, "path_mtu", 0), (int)fc_jnum(opt, "qps", 1),
			fc_jnum(opt, "qps", 1) > 1 ? "s" : "", (int)fc_jnum(opt, "tx_depth", 0));
		render_inline(f, doc);
	}
	render_numa(f, doc);
	pair_qos_render(f, doc);
}

/* The counters of @set that moved, " none" when none did; 0 when @set
 * holds no counter at all. */
static int moved(FILE *f, const json_t *set)
{
	const char *name;
	json_t *v;
	int n = 0, any = 0;

	json_object_foreach((json_t *)set, name, v) {
		if (!json_is_integer(v))
			continue;
		any = 1;
		if (!json_integer_value(v))
			continue;
		fprintf(f, " %s %+lld", name, (long long)json_integer_value(v));
		n++;
	}
	if (any && !n)
		fprintf(f, " none of %zu", json_object_size(set) - (json_object_get(set, "netdev") ? 1 : 0));
	return any;
}

/* 1 when a counter of a node (or of its netdev) moved. */
static int counters_moved(const json_t *c)
{
	const char *node, *name;
	json_t *set, *v, *w;

	json_object_foreach((json_t *)c, node, set)
		json_object_foreach(set, name, v) {
			if (json_is_integer(v) && json_integer_value(v))
				return 1;
			if (json_is_object(v))
				json_object_foreach(v, node, w)
					if (json_is_integer(w) && json_integer_value(w))
						return 1;
		}
	return 0;
}

/* 1 when an entry of @l names @key: the entry itself (a finding) or, with
 * @field, its member @field (a "host_loss" entry's "errors"). */
static int list_names(const json_t *l, const char *field, const char *key)
{
	const json_t *e;
	size_t i;

	json_array_foreach(l, i, e) {
		const char *t = field ? fc_jstr(e, field, "") : json_string_value(e);

		if (t && strstr(t, key))
			return 1;
	}
	return 0;
}

/* 1 when a finding of @doc names the counter @name with its delta (core/
 * pairv.c: "... error counters rose during the test: NAME +N, ..."). */
static int named_in_findings(const json_t *doc, const char *name)
{
	char key[160];

	snprintf(key, sizeof(key), " %s +", name);
	return list_names(json_object_get(doc, "findings"), NULL, key);
}

/* 1 when @name rose where its loss was set aside as measured outside the
 * nodes (core/hostloss.h: "host_loss", the doc's own or its rails'). */
static int set_aside_counter(const json_t *doc, const char *name)
{
	const json_t *lists[2 * FC_RAIL_MAX + 1];
	size_t n = fc_host_loss_lists(doc, lists, sizeof(lists) / sizeof(lists[0]));
	char key[160];

	snprintf(key, sizeof(key), "%s +", name);
	for (size_t i = 0; i < n; i++)
		if (list_names(lists[i], "errors", key))
			return 1;
	return 0;
}

/* When only traffic moved besides the error counters the findings name
 * with their deltas (each fact once, issue 39 item 2), and no netdev's
 * counters were read: one line, how many moved on each node; the figures
 * are in --json. 0 when another error counter moved, or a netdev's were
 * read: the whole block. */
static int traffic_only(FILE *f, const json_t *doc, const json_t *c)
{
	const char *node, *name;
	json_t *set, *v;
	int named = 0, traffic = 0, aside = 0;
	char line[1024];
	size_t off;

	json_object_foreach((json_t *)c, node, set) {
		if (json_object_get(set, "netdev"))
			return 0;
		json_object_foreach(set, name, v) {
			if (!json_is_integer(v) || !json_integer_value(v))
				continue;
			if (!fc_counter_is_error(name))
				traffic = 1;
			else if (named_in_findings(doc, name))
				named = 1;
			else if (set_aside_counter(doc, name))
				aside = 1;
			else
				return 0;
		}
	}
	off = (size_t)snprintf(line, sizeof(line), "port counters that moved: %s (",
			       named ? (traffic ? "errors in the findings below, and traffic"
						: "errors in the findings below")
			       : aside ? "traffic, and retransmissions (the note above)"
				       : "no error counter, traffic only");
	if (aside && !named) /* each fact once: the note says which ports, --json the rest */
		return 1;
	json_object_foreach((json_t *)c, node, set) {
		int n = 0;

		json_object_foreach(set, name, v)
			n += json_is_integer(v) && json_integer_value(v);
		if (off < sizeof(line))
			off += (size_t)snprintf(line + off, sizeof(line) - off, "%s%s %d of %zu",
						line[off - 1] == '(' ? "" : ", ", node, n,
						json_object_size(set));
	}
	if (off < sizeof(line))
		snprintf(line + off, sizeof(line) - off, "; in --json)");
	fputc('\n', f);
	fc_put_wrapped(f, "", 2, line, 0, FC_WRAP_LINES);
	return 1;
}

static void render_counters(FILE *f, const json_t *doc)
{
	const json_t *c = json_object_get(doc, "counters");
	const char *node;
	json_t *set;

	if (!json_object_size(c))
		return;
	if (!counters_moved(c)) { /* one line, not one per node */
		char *line = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&line, &len);
		int k = 0;

		if (!m)
			return;
		fprintf(m, "port counters that moved during the test: none (");
		json_object_foreach((json_t *)c, node, set)
			fprintf(m, "%s%zu read on %s", k++ ? ", " : "",
				json_object_size(set) - (json_object_get(set, "netdev") ? 1 : 0), node);
		fprintf(m, ")");
		fputc('\n', f);
		if (!fclose(m)) /* wrapped at words to the terminal */
			fc_put_paraf(f, 2, "%s", line);
		free(line);
		return;
	}
	if (traffic_only(f, doc, c))
		return;
	fprintf(f, "\nport counters that moved during the test:\n");
	json_object_foreach((json_t *)c, node, set) {
		const json_t *eth = json_object_get(set, "netdev");

		fprintf(f, "  %s:", node);
		if (!moved(f, set))
			fprintf(f, " none");
		fputc('\n', f);
		if (eth) {
			fprintf(f, "  %s netdev (ethtool -S):", node);
			if (!moved(f, eth))
				fprintf(f, " no pause, priority or discard counters");
			fputc('\n', f);
		}
	}
}

/* The counters check (core/ctrcheck.h): one line a direction. */
static void render_ctrcheck(FILE *f, const json_t *doc)
{
	const json_t *c = json_object_get(doc, "counters_check"), *d;
	size_t i;

	if (!c)
		return;
	if (!strcmp(fc_jstr(c, "verdict", ""), "not_judged")) {
		fprintf(f, "port counters against the results: not judged: %s\n", fc_jstr(c, "why", "?"));
		return;
	}
	fprintf(f, "port counters against the results (%s): %s\n", fc_jstr(c, "source", "?"),
		fc_jstr(c, "verdict", "?"));
	json_array_foreach(json_object_get(c, "directions"), i, d)
		fprintf(f, "  %s->%s: sent %.0f, received %.0f, at least %.0f and at most %.0f %s: %s\n",
			fc_jstr(d, "from", "?"), fc_jstr(d, "to", "?"), fc_jnum(d, "sent", 0),
			fc_jnum(d, "received", 0), fc_jnum(d, "least", 0), fc_jnum(d, "most", 0),
			fc_jstr(c, "unit", ""), fc_jstr(d, "verdict", "?"));
	if (json_object_get(c, "above_not_judged"))
		fprintf(f, "  at most: not judged: %s\n", fc_jstr(c, "above_not_judged", ""));
}

/* --validate: per test and checking side, what was checked. */
static void render_validate(FILE *f, const json_t *doc)
{
	const json_t *results = json_object_get(doc, "results"), *r;
	const json_t *nodes = json_object_get(doc, "nodes");
	size_t i;
	int head = 0;

	json_array_foreach((json_t *)results, i, r) {
		for (int k = 0; k < 2; k++) {
			const json_t *v = json_object_get(r, k ? "validate_b" : "validate_a");

			if (!v)
				continue;
			if (!head++)
				fprintf(f, "\nvalidated (each message checked where it landed: header, CRC32C, the completion's length\n"
					   "and immediate; writes went as RDMA WRITE WITH IMMEDIATE):\n");
			fprintf(f, "  %-5s %-3s %8lld B  %s: %.0f of %.0f messages good, %.0f B checked, %.0f of %.0f slots, %s memory%s\n",
				fc_jstr(r, "test", "?"), fc_jstr(r, "metric", "?"),
				(long long)fc_jnum(r, "size_bytes", 0),
				json_string_value(json_array_get(nodes, (size_t)k)) ?
					json_string_value(json_array_get(nodes, (size_t)k)) : "?",
				fc_jnum(v, "messages_validated", 0), fc_jnum(v, "sent", 0),
				fc_jnum(v, "bytes_checked", 0), fc_jnum(v, "slots_checked", 0),
				fc_jnum(v, "slots", 0), fc_jstr(v, "memory", "?"),
				fc_jnum(v, "messages_bad", 0) || fc_jnum(v, "stray", 0) ?
					" (FAILED: see the findings)" : "");
		}
	}
}

void pair_render(FILE *f, const json_t *doc)
{
	const json_t *results = json_object_get(doc, "results");

	render_sides(f, doc);
	if (!strcmp(fc_jstr(json_object_get(doc, "options"), "method", ""), "perftest"))
		pair_render_bw_pt(f, results,
			     json_is_true(json_object_get(json_object_get(doc, "options"), "report_gbits")));
	else
		pair_render_bw(f, results);
	pair_render_lat(f, results);
	render_validate(f, doc);
	render_counters(f, doc);
	render_ctrcheck(f, doc);
	if (json_object_get(doc, "rails"))
		pair_rails_table(f, doc);
	diag_render(f, doc); /* once, under the rails */
	if (json_object_get(doc, "store"))
		fprintf(f, "\nkept as run %d in %s\n",
			(int)fc_jnum(json_object_get(doc, "store"), "run", 0),
			fc_jstr(json_object_get(doc, "store"), "path", "?"));
}

void pair_judge_baseline(const struct pair_cfg *cfg, json_t *doc)
{
	struct fc_baseline bl;
	struct fc_bl_judge j;

	if (!cfg->baseline)
		return;
	if (fc_bl_read_file(&bl, cfg->baseline)) {
		fc_finding(doc, FC_WARN, "not judged against the baseline %s: it could not be read "
			   "again (see above)", cfg->baseline);
		return;
	}
	fc_bl_judge_init(&j, &bl);
	fc_bl_judge_doc(&j, doc);
	fc_bl_judge_finish(&j, doc, cfg->baseline);
	fc_bl_release(&bl);
}

void pair_store_run(const struct pair_cfg *cfg, json_t *doc)
{
	struct fc_store *st;
	int64_t run;

	if (cfg->no_db)
		return;
	st = fc_store_open(cfg->db);
	run = st ? fc_store_run_begin(st, "pair", json_object_get(doc, "options")) : -1;
	if (run > 0 && !fc_store_pair_add(st, run, cfg->label[0], cfg->label[1], doc) &&
	    !fc_store_run_end(st, run, fc_jstr(doc, "verdict", "fail")))
		json_object_set_new(doc, "store",
				    json_pack("{s:s, s:I}", "path", cfg->db, "run", (json_int_t)run));
	else /* as nccl run says it (checks/nccl/run ncr_store_record) */
		fc_finding(doc, FC_WARN, "--db %s: the result is not kept (see above); --no-db skips the store",
			   cfg->db);
	if (st)
		fc_store_close(st);
}

json_t *pair_new_doc(const struct pair_cfg *cfg)
{
	json_t *doc = fc_doc_new(), *tests = json_array();

	for (int op = VB_WRITE; op <= VB_SEND; op++)
		if (cfg->ops & (1u << op))
			json_array_append_new(tests, json_string(vb_op_name((enum vb_op)op)));
	json_object_set_new(doc, "nodes", json_pack("[s, s]", cfg->label[0], cfg->label[1]));
	json_object_set_new(doc, "a", json_pack("{s:s}", "node", cfg->label[0]));
	json_object_set_new(doc, "b", json_pack("{s:s}", "node", cfg->label[1]));
	json_object_set_new(doc, "results", json_array());
	json_object_set_new(doc, "counters", json_object());
	json_object_set_new(doc, "options",
			    json_pack("{s:o, s:s, s:s, s:i, s:i, s:b, s:b, s:I, s:f, s:f}",
				      "tests", tests, "exchange", cfg->cm ? "rdma_cm" : "relayed",
				      "launcher", fc_launcher_name(cfg->launch.kind),
				      "qps", cfg->qps, "tx_depth", cfg->tx_depth, "bidir",
				      cfg->bidir, "reverse", cfg->reverse, "iters",
				      (json_int_t)cfg->iters, "duration_s", cfg->duration,
				      "timeout_s", cfg->timeout));
	json_object_set_new(json_object_get(doc, "options"), "method",
			    json_string(vb_method_name((enum vb_method)cfg->method)));
	json_object_set_new(json_object_get(doc, "options"), "report_gbits",
			    json_boolean(cfg->report_gbits));
	pair_qos_options(cfg, json_object_get(doc, "options"));
	pair_rail_notes(doc, cfg->rail_notes);
	return doc;
}
