/*
 * fabcheck soak NODE... --duration T: continuous bidirectional traffic over
 * the matrix's round-robin schedule, in slices: each slice runs every pair
 * of one round at once as a `pair -b --bw -D SLICE --interval S --json`
 * child (the matrix runner, matrix/mx_run.c), and each finished slice goes to
 * the store at once (run kind "soak"; `fabcheck tui --run ID` follows it).
 * At the end, or on Ctrl-C, the slices are analysed (matrix/soak.c): per-pair
 * bandwidth series, drops below a share of the pair's own median, link
 * flaps per node, error counters, each with its time.
 */
#include <errno.h>
#include <signal.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "core/log.h"
#include "matrix/mx_drain.h"
#include "core/opts.h"
#include "ctl/child.h"
#include "core/out.h"
#include "core/sched.h"
#include "matrix/soak.h"
#include "core/summary.h"
#include "core/util.h"
#include "ctl/chan.h"
#include "store/store.h"
#include "src/cmds.h"
#include "matrix/mx_cli.h"
#include "matrix/mx_run.h"
#include "matrix/mx_diag.h"
#include "matrix/mx_rails.h"
#include "ctl/launch_opts.h"
#include "ctl/scale.h"
#include "ctl/ssh_mux.h"

const char usage_soak[] =
	"usage: fabcheck soak NODE... --duration T [options] [pair options]\n"
	"       fabcheck soak --hostfile FILE --duration T [options] [pair options]\n"
	"\n"
	"Runs bidirectional RDMA WRITE traffic for T over the round-robin schedule of\n"
	"the matrix (every node in one pair at a time), in slices: each slice runs\n"
	"the pairs of one round for --slice seconds, sampling bandwidth every\n"
	"--interval; the next slice takes the next round. Each finished slice is\n"
	"kept in the store (run kind \"soak\"; follow it with 'fabcheck tui --run ID').\n"
	"At the end, or on Ctrl-C (which keeps every finished slice), it reports per\n"
	"pair the bandwidth series, drops below --drop-pct of the pair's own median,\n"
	"slices that failed, and per node link flaps (link_downed, the netdev's\n"
	"carrier changes) and error counters, each with its time (wall clock and\n"
	"seconds since the start).\n"
	"\n"
	"  --duration T        how long to soak (e.g. 600, 30m, 8h); required\n"
	"  --slice T           length of each pair test (default 60s; the last is\n"
	"                      shorter when less time is left)\n"
	"  --interval T        bandwidth sample interval (default 1s)\n"
	"  --drop-pct P        a sample below P% of its pair's median is a drop (default 50)\n"
	"  --hostfile FILE     nodes, one a line\n"
	"  --db FILE           the store (default fabcheck.db)\n"
	"  --deadline T        a slice still running T after its end is killed (default 90s)\n"
	"  --save-evidence DIR each slice's evidence in DIR/NNN-A-B (doc/diagnose.md):\n"
	"                      counters, ethtool, PCIe readings before and after\n"
	"  -j, --json          one JSON document on stdout (per-pair samples, events)\n"
	"\n"
	"pair options, passed to each slice (see 'fabcheck pair --help'):\n"
	"  --test write|send, -s SIZE, -q N, -t N, -d DEV[:PORT], -x IDX, --cm,\n"
	"  --use-cuda[=GPU], --min-gbps X, --min-link-pct P, --ssh-config FILE,\n"
	"  --launcher ssh|slurm|local, --worker-cmd PATH, --timeout T,\n"
	"  --rails all|first|LIST, --exclude-dev LIST (every rail by default, of a\n"
	"  pair loaded at once; first: the first active port only;\n"
	"  a series, drops and flaps per rail: pairs and nodes named NODE/RAIL),\n"
	"  --pair-opt ARG (any other pair option, repeatable)\n"
	"\n"
	"Slurm (doc/slurm.md): a node whose link flapped is drained:\n" FC_DRAIN_HELP
	"  (the others are passed only when no slice failed or dropped)\n"
	"\n"
	"Exit: 0 pass, 1 a drop, a flap or a failed slice, 2 usage, 3 could not run\n"
	"(no slice gave a result) or stopped before the end.\n";

struct soak_cli {
	char **nodes;
	int n;
	const char *hostfile, *db;
	const char *evidence_dir; /* --save-evidence DIR */
	double duration, slice, interval, drop_pct, deadline;
	json_t *pair_args;
	int test_given;
	struct fc_drain_opts drain;
};

struct soak {
	struct soak_cli c;
	struct fc_store *st;
	int64_t run;
	json_t *slices;	  /* {"a","b","start","end","doc"} */
	json_t *rails;	  /* each rail once: how `pair` matched it */
	json_t *notes;	  /* each pair's "rail_notes" once: ports left out, assumed */
	json_t *rail_warns; /* each pair's "rail_findings" once: a port on no rail */
	double t0;	  /* unix time of the start */
	double slice_start;
	int cycle;
};

static double wall_now(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

static int opt_test(void *dst, const char *arg, const struct fc_opt *o)
{
	(void)o;
	if (strcmp(arg, "write") && strcmp(arg, "send")) {
		fc_err("--test: '%s' is not a soak test; expected write or send (one)", arg);
		return -EINVAL;
	}
	((struct soak_cli *)dst)->test_given = 1;
	return 0;
}

#define FC_OPT_T struct soak_cli
#define ARG required_argument

static const struct fc_opts soak_spec = {
	.opt = (const struct fc_opt[]){
		FCO_DURATION("duration", 0, duration, 1, 30 * 86400),
		FCO_DURATION("slice", 0, slice, 2, 86400),
		FCO_DURATION("interval", 0, interval, 0.1, 60),
		FCO_DOUBLE("drop-pct", 0, drop_pct, 1, 100),
		FCO_STR("hostfile", 0, hostfile),
		FCO_STR("db", 0, db),
		FCO_DURATION("deadline", 0, deadline, 1, 86400),
		FCO_STR("save-evidence", 0, evidence_dir),
		/* Passed to each slice's pair. */
		FCO_CALL("test", 0, opt_test, ARG, .flags = FC_OPT_PASSED),
		FCO_PASS("size", 's', ARG, .what = "-s"),
		FCO_PASS("min-gbps", 0, ARG),
		MX_PAIR_PASS_OPTS,
		FCO_CALL("launcher", 0, fc_launcher_opt, ARG, .flags = FC_OPT_PASSED | FC_OPT_CHECK),
		FCO_CALL_AT("rails", 0, mx_pass_rails, pair_args, json_t *),
		FCO_PASS("exclude-dev", 0, ARG),
		FC_DRAIN_OPTS(drain),
		FCO_JSON,
		{ 0 },
	},
	.cmd = "soak", .usage = "run 'fabcheck soak --help' for the options\n",
	.pass_at = FC_OPTS_PASS_AT(struct soak_cli, pair_args),
};
#undef ARG

static int soak_nodes(struct soak_cli *c, int argc, char **argv)
{
	if (mx_node_args("soak", c->hostfile, argc, argv, optind, &c->nodes, &c->n))
		return FC_EXIT_USAGE;
	if (c->n < 2) {
		fc_err("soak: give at least two nodes (or --hostfile FILE)");
		return FC_EXIT_USAGE;
	}
	if (c->n > FC_SCHED_MAX_NODES) {
		fc_err("soak: %d nodes; at most %d", c->n, FC_SCHED_MAX_NODES);
		return FC_EXIT_USAGE;
	}
	return 0;
}

/* Every rail by default (the pair's own), all at once as with --rails:
 * unless --rails or -d was given. */
static void soak_rails_default(json_t *args)
{
	size_t i;
	json_t *v;

	json_array_foreach(args, i, v) {
		const char *a = json_string_value(v);

		if (!strcmp(a, "--rails") || !strcmp(a, "-d") || !strcmp(a, "--dev") ||
		    !strcmp(a, "--device"))
			return;
	}
	json_array_append_new(args, json_string("--loaded-only"));
}

static int soak_parse(struct fc_ctx *ctx, struct soak_cli *c, int argc, char **argv)
{
	memset(c, 0, sizeof(*c));
	c->slice = 60;
	c->interval = 1;
	c->drop_pct = 50;
	c->deadline = 90;
	c->db = FC_STORE_DEFAULT;
	c->pair_args = json_array();
	if (fc_opts_parse(ctx, &soak_spec, c, argc, argv))
		return FC_EXIT_USAGE;
	soak_rails_default(c->pair_args);
	if (c->duration <= 0) {
		fc_err("soak: --duration T is required (e.g. --duration 8h)");
		return FC_EXIT_USAGE;
	}
	if (c->interval * 2 > c->slice) {
		fc_err("soak: --interval %.3g s leaves less than two samples in a %.3g s --slice; shorten the interval or lengthen the slice",
		       c->interval, c->slice);
		return FC_EXIT_USAGE;
	}
	return soak_nodes(c, argc, argv);
}

/* The slice's pair arguments: bidirectional bandwidth for @secs. */
static json_t *slice_args(const struct soak *s, double secs)
{
	json_t *a = json_array();
	char d[32], iv[32];

	snprintf(d, sizeof(d), "%.3f", secs);
	snprintf(iv, sizeof(iv), "%.3f", s->c.interval);
	json_array_append_new(a, json_string("--bw"));
	json_array_append_new(a, json_string("-b"));
	json_array_append_new(a, json_string("-D"));
	json_array_append_new(a, json_string(d));
	json_array_append_new(a, json_string("--interval"));
	json_array_append_new(a, json_string(iv));
	if (!s->c.test_given) {
		json_array_append_new(a, json_string("--test"));
		json_array_append_new(a, json_string("write"));
	}
	json_array_extend(a, s->c.pair_args);
	return a;
}

/* A slice of `pair --rails`: one slice per rail, its nodes named
 * "NODE/RAIL" (so that each rail of a pair has its own series, and each
 * port its own flaps and counters). */
/* Rail @e of a pair's document into s->rails, once per name: its number,
 * name and how it was matched (pair/pair_rails.c: "matched_by", the
 * switch or leaf or the leaves of a rail across scalable units). */
static void rail_seen(struct soak *s, const json_t *e)
{
	static const char *const keys[] = { "rail", "name", "subnet", "matched_by", "switch",
					     "switch_desc", "leaf", "leaves", "assumed" };
	const char *name = fc_jstr(e, "name", NULL);
	const json_t *r;
	json_t *o;
	size_t i;

	json_array_foreach(s->rails, i, r)
		if (name && !strcmp(fc_jstr(r, "name", ""), name))
			return;
	o = json_object();
	for (size_t k = 0; o && k < sizeof(keys) / sizeof(keys[0]); k++)
		if (json_object_get(e, keys[k]))
			json_object_set(o, keys[k], json_object_get(e, keys[k]));
	json_array_append_new(s->rails, o);
}

/* Whether the rails were matched by position ("assumed"), as matrix and
 * nccl run say it in their documents' "rails_assumed": the pairs' words
 * (each rail's "assumed"), else null, nothing assumed (issue 39 item 4:
 * soak's JSON said it in each rail only, and had no "rails_assumed"). */
static json_t *soak_assumed(const json_t *rails)
{
	const json_t *r;
	size_t i;

	json_array_foreach(rails, i, r)
		if (json_is_string(json_object_get(r, "assumed")))
			return json_copy(json_object_get(r, "assumed"));
	return json_null();
}

static void rail_slices(struct soak *s, const struct mx_job *job, const json_t *doc,
			double now)
{
	const char *na = s->c.nodes[job->a], *nb = s->c.nodes[job->b];
	size_t i;
	json_t *e;

	json_array_foreach(json_object_get(doc, "rails"), i, e) {
		const json_t *ph = json_object_get(e, "loaded");
		const char *rail = fc_jstr(e, "name", "?"), *node;
		json_t *d, *counters = json_object(), *cs;
		const json_t *dg;
		char la[200], lb[200], key[200];

		rail_seen(s, e);
		if (!json_is_object(ph))
			ph = json_object_get(e, "alone");
		if (!json_is_object(ph))
			continue;
		snprintf(la, sizeof(la), "%s/%s", na, rail);
		snprintf(lb, sizeof(lb), "%s/%s", nb, rail);
		json_object_foreach((json_t *)json_object_get(ph, "counters"), node, cs) {
			snprintf(key, sizeof(key), "%s/%s", node, rail);
			json_object_set(counters, key, cs);
		}
		d = json_pack("{s:O, s:O, s:O, s:o, s:{s:s}, s:{s:s}}", "verdict",
			      json_object_get(ph, "verdict"), "findings",
			      json_object_get(ph, "findings"), "results",
			      json_object_get(ph, "results"), "counters", counters, "a", "node",
			      la, "b", "node", lb);
		/* whose own device failed on this rail (pair_msg.c), as this
		 * slice names that node: NODE/RAIL */
		if (d && !strcmp(fc_jstr(ph, "node_fault", ""), na))
			json_object_set_new(d, "node_fault", json_string(la));
		else if (d && !strcmp(fc_jstr(ph, "node_fault", ""), nb))
			json_object_set_new(d, "node_fault", json_string(lb));
		/* This rail's diagnosis entry, for the soak's suspects. */
		dg = mx_diag_pick(doc, (int)fc_jnum(e, "rail", -1));
		if (d && dg)
			json_object_set_new(d, "diagnosis", json_pack("[O]", dg));
		/* each node's own device on the rail (the pair's "a" and "b"):
		 * servers of another model name it otherwise */
		if (d)
			json_array_append_new(s->slices,
					      json_pack("{s:s, s:s, s:s, s:f, s:f, s:o, s:[s, s]}",
							"a", la, "b", lb, "rail", rail, "start",
							s->slice_start, "end", now, "doc", d,
							"devices",
							fc_jstr(json_object_get(e, "a"), "device", rail),
							fc_jstr(json_object_get(e, "b"), "device", rail)));
	}
}

/* Each entry of @from not in @to yet, appended to @to: what every pair
 * of the soak says of its rails, said once. */
static void add_once(json_t *to, const json_t *from)
{
	size_t i, k;
	json_t *e, *have;

	json_array_foreach(from, i, e) {
		int seen = 0;

		json_array_foreach(to, k, have)
			seen |= json_equal(have, e);
		if (!seen)
			json_array_append(to, e);
	}
}

static void on_slice(void *arg, const struct mx_job *job, const json_t *doc)
{
	struct soak *s = arg;
	double now = wall_now(), g = fc_pair_doc_gbps(doc, NULL);
	char when[64], line[1024];
	int keep;

	add_once(s->notes, json_object_get(doc, "rail_notes"));
	add_once(s->rail_warns, json_object_get(doc, "rail_findings"));
	if (json_array_size(json_object_get(doc, "rails")))
		rail_slices(s, job, doc, now);
	else
		json_array_append_new(s->slices,
				      json_pack("{s:s, s:s, s:f, s:f, s:O}", "a", s->c.nodes[job->a],
						"b", s->c.nodes[job->b], "start", s->slice_start,
						"end", now, "doc", doc));
	/* names and verdict from a store or a pair: through fc_put_safe; the
	 * line fits the terminal (COLUMNS, else 100 on a terminal), cut at a
	 * word with " ..." where its figure stays, else (long names) wrapped
	 * with the figure on the next line (the slice is whole in --json and
	 * the store). The figure is the bidirectional result's, the two
	 * directions added (pair_run.c, pair_bw.c): "4.800 Gb/s both ways" of
	 * two directions at 2.4 each read as 4.8 each, beside the table's
	 * 2.400 per direction. */
	if (g == g)
		keep = snprintf(line, sizeof(line), "soak: %s %s-%s: %.3f Gb/s",
				fc_soak_when(now, s->t0, when, sizeof(when)), s->c.nodes[job->a],
				s->c.nodes[job->b], g);
	else
		keep = snprintf(line, sizeof(line), "soak: %s %s-%s: no result",
				fc_soak_when(now, s->t0, when, sizeof(when)), s->c.nodes[job->a],
				s->c.nodes[job->b]);
	if (keep > 0 && (size_t)keep < sizeof(line))
		snprintf(line + keep, sizeof(line) - (size_t)keep, "%s (%s)",
			 g == g ? " both ways added" : "", fc_jstr(doc, "verdict", "?"));
	fc_err_progress(line, keep > 0 ? (size_t)keep : 0);
}

/* Runs slices until the duration is spent or a signal; 0, -EINTR, or <0. */
static int soak_loop(struct soak *s)
{
	struct fc_pair_idx p[FC_SCHED_MAX_NODES / 2];
	int rounds = fc_sched_rounds(s->c.n, 0), rc = 0;
	double mono0 = fc_now();
	struct mx_runner r = {
		.st = s->st, .run = s->run, .n = s->c.n, .names = s->c.nodes,
		.deadline_s = 0, .stop = &fc_stop, .on_result = on_slice, .arg = s,
		.evidence_dir = s->c.evidence_dir,
		/* Every pair of a slice at once: the slices must overlap. */
		.fanout = 2 * s->c.n,
	};
	json_t *args = NULL;
	struct fc_launch l;
	double tmo;

	r.pair_args = s->c.pair_args;
	if (fc_fd_reserve("soak", s->c.n, 1, NULL))
		return -EMFILE;
	if ((rc = mx_run_init(&r)))
		return rc;
	mx_launch_of(s->c.pair_args, &l, &tmo);
	fc_ssh_mux_setup(&l, s->c.nodes[0], 0);
	r.rounds = 0; /* the soak queues its own rounds */
	while (!fc_stop) {
		double left = s->c.duration - (fc_now() - mono0);
		double secs = left < s->c.slice ? left : s->c.slice;
		int cnt;

		if (secs < 2 || secs < 2 * s->c.interval)
			break;
		json_decref(args);
		args = slice_args(s, secs);
		r.pair_args = args;
		r.deadline_s = secs + s->c.deadline;
		cnt = fc_sched_round(s->c.n, 0, s->cycle % rounds, p);
		for (int i = 0; i < cnt; i++)
			if ((rc = mx_run_add(&r, p[i].a, p[i].b, 0)))
				goto out;
		s->slice_start = wall_now();
		double slice_end = fc_now() + secs;

		while ((rc = mx_run_poll(&r, 500)) > 0)
			;
		if (rc < 0)
			goto out;
		/* A slice that failed early still takes its time: the soak
		 * keeps its pace, and a dead link is not hammered. */
		while (!fc_stop && fc_now() < slice_end)
			usleep(100000);
		s->cycle++;
	}
	rc = fc_stop ? -EINTR : 0;
out:
	if (r.nkids) {
		fc_stop = 1;
		mx_run_poll(&r, 0);
	}
	mx_run_release(&r);
	fc_ssh_mux_end();
	json_decref(args);
	return rc;
}

static void render_soak(FILE *f, const json_t *doc)
{
	static const char *const keys[] = { "median_a_to_b_gbps", "median_b_to_a_gbps",
					    "min_a_to_b_gbps", "min_b_to_a_gbps" };
	struct fc_table *t = fc_table_new(8, "PAIR", "SLICES", "FAILED", "NOT RUN", "MEDIAN A->B",
					  "MEDIAN B->A", "MIN A->B", "MIN B->A");
	char fig[32];
	size_t i;
	json_t *p;

	/* the nodes given, not "nodes" (keyed by node, and by node/rail with rails) */
	int nodes = (int)fc_jnum(doc, "node_count", 0), slices = (int)fc_jnum(doc, "slices", 0);

	fprintf(f, "soak of %d node%s: %.0f s of %.0f s, %d slice%s\n\n", nodes,
		nodes == 1 ? "" : "s", fc_jnum(doc, "elapsed_s", 0), fc_jnum(doc, "duration_s", 0),
		slices, slices == 1 ? "" : "s");
	mx_rails_notes_render(f, doc);
	json_array_foreach(json_object_get(doc, "pairs"), i, p) {
		fc_table_row(t);
		fc_table_addf(t, 0, "%s-%s", fc_jstr(p, "a", "?"), fc_jstr(p, "b", "?"));
		fc_table_addf(t, 1, "%d", (int)fc_jnum(p, "slices", 0));
		fc_table_addf(t, 2, "%d", (int)fc_jnum(p, "failed_slices", 0));
		fc_table_addf(t, 3, "%d", (int)fc_jnum(p, "unrun_slices", 0));
		for (int k = 0; k < 4; k++)
			fc_table_addf(t, 4 + k, "%s",
				      fc_fmt_figure(fc_jnum(p, keys[k], NAN), "%.3f", "Gb/s", fig,
						    sizeof(fig)));
	}
	fc_table_print(t, f, "");
	fc_table_free(t);
	mx_doc_diagnoses_render(f, doc);
	fc_drain_render(f, doc);
	if (json_object_get(doc, "store"))
		fprintf(f, "\nkept as run %lld in %s\n",
			(long long)fc_jnum(json_object_get(doc, "store"), "run", 0),
			fc_jstr(json_object_get(doc, "store"), "path", "?"));
	fprintf(f, "\n");
}

static json_t *soak_params(const struct soak *s)
{
	json_t *nodes = json_array();

	for (int i = 0; i < s->c.n; i++)
		json_array_append_new(nodes, json_string(s->c.nodes[i]));
	return json_pack("{s:o, s:f, s:f, s:f, s:f, s:O, s:b, s:b, s:f, s:f}", "nodes", nodes,
			 "duration_s", s->c.duration, "slice_s", s->c.slice, "interval_s",
			 s->c.interval, "drop_pct", s->c.drop_pct, "pair_args", s->c.pair_args,
			 "both_directions", 0, "retest", 0, "min_rack_pct", 0.0, "min_gbps", 0.0);
}

int cmd_soak(struct fc_ctx *ctx, int argc, char **argv)
{
	struct soak s;
	struct fc_soak_opts o;
	json_t *doc, *params, *e;
	int rc, good, vexit;
	size_t k;

	memset(&s, 0, sizeof(s));
	rc = soak_parse(ctx, &s.c, argc, argv);
	if (rc)
		goto out_cli;
	s.st = fc_store_open(s.c.db);
	if (!s.st) {
		rc = FC_EXIT_CANT;
		goto out_cli;
	}
	params = soak_params(&s);
	s.run = fc_store_run_begin(s.st, "soak", params);
	if (s.run <= 0) {
		json_decref(params);
		rc = FC_EXIT_CANT;
		goto out_store;
	}
	s.slices = json_array();
	s.rails = json_array();
	s.notes = json_array();
	s.rail_warns = json_array();
	s.t0 = wall_now();
	fc_err_putf("soak: %d nodes for %.0f s in slices of %.0f s; run %lld in %s (follow: fabcheck tui --run %lld --db %s)",
		s.c.n, s.c.duration, s.c.slice, (long long)s.run, s.c.db, (long long)s.run, s.c.db);
	fc_stop_on_signals();
	signal(SIGPIPE, SIG_IGN);
	rc = soak_loop(&s);
	doc = fc_doc_new();
	o = (struct fc_soak_opts){ .drop_pct = s.c.drop_pct, .t0 = s.t0 };
	good = fc_soak_analyze(doc, s.slices, &o);
	json_array_foreach(s.rail_warns, k, e) /* as pair and matrix judge them */
		fc_finding(doc, strcmp(fc_jstr(e, "severity", ""), "fail") ? FC_WARN : FC_FAIL, "%s",
			   fc_jstr(e, "text", "?"));
	json_object_set_new(doc, "node_count", json_integer(s.c.n));
	json_object_set_new(doc, "duration_s", json_real(s.c.duration));
	json_object_set_new(doc, "elapsed_s", json_real(wall_now() - s.t0));
	json_object_set_new(doc, "start", json_real(s.t0));
	json_object_set_new(doc, "slices", json_integer((json_int_t)json_array_size(s.slices)));
	if (json_array_size(s.rails))
		json_object_set(doc, "rails", s.rails);
	json_object_set(doc, "rail_notes", s.notes);
	json_object_set_new(doc, "rails_assumed", soak_assumed(s.rails));
	json_object_set_new(doc, "store", json_pack("{s:s, s:I}", "path", s.c.db, "run",
						   (json_int_t)s.run));
	if (rc == -EINTR)
		fc_finding(doc, FC_WARN,
			   "stopped by a signal after %.0f s of %.0f s: the finished slices are kept (run %lld in %s); rerun for the full duration",
			   wall_now() - s.t0, s.c.duration, (long long)s.run, s.c.db);
	else if (rc)
		fc_finding(doc, FC_FAIL, "the soak could not go on: %s", strerror(-rc));
	if (!good)
		fc_finding(doc, FC_FAIL,
			   "no slice gave a result: the pairs could not run (see the failures above)");
	if (fc_drain_wanted(&s.c.drain)) {
		json_t *targets = json_array(), *passed = json_array();

		mx_drain_soak_targets(doc, s.c.nodes, s.c.n, targets, rc ? NULL : passed);
		mx_drain_run(doc, s.st, s.run, "soak", &s.c.drain, targets, passed, good > 0);
		json_decref(targets);
		json_decref(passed);
	}
	json_object_set(params, "findings", json_object_get(doc, "findings"));
	json_object_set(params, "events", json_object_get(doc, "events"));
	fc_store_run_set_params(s.st, s.run, params);
	json_decref(params);
	fc_store_run_end(s.st, s.run, rc == -EINTR ? "interrupted" : fc_verdict_name(fc_doc_verdict(doc)));
	json_decref(s.slices);
	json_decref(s.rails);
	json_decref(s.notes);
	json_decref(s.rail_warns);
	/* fc_emit takes @doc. Pair refused its options: usage; stopped early
	 * or nothing ran: could not run. */
	vexit = fc_doc_exit(doc);
	/* stopped by a signal, what it measured kept: fc_out_finish says
	 * "interrupted" and ends the process as by the signal (core/out.h) */
	ctx->stop_sig = rc == -EINTR && fc_stop_sig ? fc_stop_sig : 0;
	good = fc_emit(ctx, doc, render_soak) == FC_EXIT_CANT ? -1 : good;
	if (rc == -EINVAL)
		rc = FC_EXIT_USAGE;
	else if (rc || good <= 0)
		rc = FC_EXIT_CANT;
	else
		rc = vexit;

out_store:
	fc_store_close(s.st);
out_cli:
	for (int i = 0; i < s.c.n; i++)
		free(s.c.nodes[i]);
	free(s.c.nodes);
	json_decref(s.c.pair_args);
	return rc;
}
