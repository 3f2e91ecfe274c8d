/*
 * fabcheck health: this node alone, in a few seconds, for Slurm's
 * HealthCheckProgram (doc/slurm.md). The preflight probe of this node
 * (pf_probe_doc, the same code `preflight` runs on each node) judged as a
 * rack of one, against the rack's recorded reference and the node's last
 * readings (health.h). No controller, no connection: it reads sysfs and
 * the files it is given, writes its state file, and with --drain-self runs
 * scontrol for its own node.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "checks/preflight/health.h"
#include "checks/preflight/preflight.h"
#include "core/log.h"
#include "core/readfile.h"
#include "core/safefile.h"
#include "core/opts.h"
#include "core/out.h"
#include "core/util.h"
#include "ctl/drain.h"
#include "ctl/nodesrc.h"
#include "store/store.h"
#include "src/cmds.h"
#include "verbs/counters.h"

#define HL_STATE_DEFAULT "/var/lib/fabcheck/health-state.json"
#define HL_DB_DEFAULT "/var/lib/fabcheck/health.db"
/* slurmd kills a HealthCheckProgram that runs longer than 60 s
 * (slurm.conf(5), HealthCheckProgram: "This program will be killed if it
 * does not terminate normally within 60 seconds"): the default leaves
 * half of that for scontrol and a loaded node. */
#define HL_DEADLINE_S 30.0

const char usage_health[] =
	"usage: fabcheck health [--reference FILE] [--state FILE] [--drain-self] [options]\n"
	"       fabcheck health --from BUNDLE [--reference FILE] [options]\n"
	"\n"
	"Checks this node alone, in a few seconds, as Slurm's HealthCheckProgram\n"
	"runs it (doc/slurm.md): RDMA ports ACTIVE, with --reference at the rate,\n"
	"firmware and netdev MTU most of the rack had when it was recorded; the\n"
	"MTU and rate given; GPU-to-HCA locality and PCIe links (fabcheck topo);\n"
	"nvidia_peermem or dma-buf where GPUs exist; and, against its state file,\n"
	"no error counter and no carrier count moved and no HCA PCIe link trained\n"
	"lower since the last check. Opens no connection.\n"
	"\n"
	"  --reference FILE    the rack's 'fabcheck preflight --json' document (take\n"
	"                      it on a healthy rack): its majority per device and port\n"
	"  --state FILE        the last readings (default " HL_STATE_DEFAULT ")\n"
	"  --no-state          neither read nor write a state file\n"
	"  --node NAME         this node's Slurm name (default $SLURMD_NODENAME, else\n"
	"                      the short host name)\n"
	"  --expect-rate GBPS  every port at least this rate\n"
	"  --expect-mtu N      RoCE: the netdev MTU; InfiniBand: the active MTU\n"
	"  --exclude-dev LIST  devices or net devices that are no rail (storage,\n"
	"                      management): reported at most as a warning, never\n"
	"                      drained; so are ports the rail rules leave out (the\n"
	"                      ssh or default-route port, another link layer or\n"
	"                      rate) and, with --reference, ports on none of its\n"
	"                      rails; without --reference or --rails, a port down\n"
	"                      that shows no sign of use (its link never came up\n"
	"                      since boot, not ACTIVE at the last check): a spare\n"
	"                      or a rail that never came up\n"
	"  --rails LIST        this node's rail devices or net devices (e.g.\n"
	"                      mlx5_0,mlx5_3): only these are judged for a drain;\n"
	"                      without it or --reference, the rails the newest\n"
	"                      matrix run in the --db store recorded for this node\n"
	"                      (give --db the rack's store), when it holds one\n"
	"  --timeout T         each tool's budget (default 10s), within --deadline\n"
	"  --deadline T        the whole check's (default 30s: slurmd ends a\n"
	"                      HealthCheckProgram after 60 s); a tool that runs out\n"
	"                      of it is 'could not check': exit 3, nothing drained\n"
	"  --db FILE           the store its drains and resumes are kept in, shown by\n"
	"                      'fabcheck report --slurm' (default " HL_DB_DEFAULT ")\n"
	"  --from BUNDLE       judge a node capture (fabcheck capture) instead of\n"
	"                      this node, by the same reader; the node is the\n"
	"                      capture's host, and no state file is read or written\n"
	"                      unless --state is given\n"
	"  --probe-doc FILE    judge a recorded 'preflight-probe --json' document\n"
	"                      instead of this node (tests, a replay)\n"
	"  --drain-self        drain this node in Slurm when a check fails, with the\n"
	"                      failed part as the reason\n"
	"  --drain-dry-run     print the scontrol command instead\n"
	"  --resume-passed     resume this node when it passes and Slurm shows it\n"
	"                      drained by fabcheck health (never another drain)\n"
	"  -j, --json          one JSON document on stdout\n"
	"\n"
	"Exit (NHC's convention): 0 healthy (warnings allowed), 1 a check failed;\n"
	"2 usage, 3 could not check (a file could not be read, a tool ran out of\n"
	"time: nothing drained or resumed).\n";

struct hl_cli {
	const char *reference, *state, *node, *probe_doc, *from;
	int no_state;
	struct pf_opts o;
	double timeout, deadline;
	struct fc_drain_opts drain;
	const char *db;
};

#define FC_OPT_T struct hl_cli
static const struct fc_opts hl_spec = {
	.opt = (const struct fc_opt[]){
		FCO_STR("reference", 0, reference),
		FCO_STR("state", 0, state),
		FCO_FLAG("no-state", 0, no_state),
		FCO_STR("node", 0, node),
		FCO_STR("probe-doc", 0, probe_doc),
		FCO_STR("from", 0, from),
		FCO_DOUBLE("expect-rate", 0, o.expect_rate_gbps, 0.001, 1e5),
		FCO_INT("expect-mtu", 0, o.expect_mtu, 256, 65536),
		FCO_STR("exclude-dev", 0, o.exclude_dev),
		FCO_STR("rails", 0, o.rails),
		FCO_DURATION("timeout", 0, timeout, 1, 600),
		FCO_DURATION("deadline", 0, deadline, 1, 600),
		FCO_STR("db", 0, db),
		FCO_FLAG("drain-self", 0, drain.drain),
		FCO_FLAG("drain-dry-run", 0, drain.dry_run),
		FCO_FLAG("resume-passed", 0, drain.resume_passed),
		FCO_JSON,
		{ 0 },
	},
	.cmd = "health", .usage = usage_health, .no_args = "",
};

static double now_s(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

void hl_read_counters(json_t *probe, const char *sysfs)
{
	json_t *all = json_object(), *d, *p;
	char root[512];
	size_t i, j;

	snprintf(root, sizeof(root), "%s/class/infiniband", sysfs);
	json_array_foreach(json_object_get(probe, "devices"), i, d)
		json_array_foreach(json_object_get(d, "ports"), j, p) {
			char key[160];

			snprintf(key, sizeof(key), "%s:%d", fc_jstr(d, "name", "?"),
				 (int)fc_jnum(p, "port", 0));
			json_object_set_new(all, key, vb_counters_read(root, fc_jstr(d, "name", "?"),
								       (int)fc_jnum(p, "port", 0)));
		}
	json_object_set_new(probe, "counters", all);
}

/* A JSON file, or NULL after an error naming it and @what it is. */
static json_t *load_doc(const char *path, const char *what)
{
	json_error_t err;
	json_t *d = fc_load_json(path, 0, 0, &err);
	char line[32];

	if (!json_is_object(d)) {
		fc_err("%s %s: %s%s; give %s", what, path, d ? "not a JSON object" : err.text,
		       d ? "" : fc_json_err_line(&err, line, sizeof(line)),
		       !strcmp(what, "--reference") ? "a 'fabcheck preflight --json' document of the rack" :
						      "a 'fabcheck preflight-probe --json' document");
		json_decref(d);
		return NULL;
	}
	return d;
}

/* The last state, NULL when there is none or it is another node's or
 * not readable (said as a warning: the counters start over). */
static json_t *state_read(json_t *doc, const char *path, const char *node)
{
	json_error_t err;
	json_t *st;

	if (access(path, F_OK))
		return NULL;
	st = fc_load_json(path, FC_READ_NOFOLLOW, 0, &err);
	if (!st)
		fc_warn("--state %s: %s", path, err.text);
	if (!json_is_object(st) || (int)fc_jnum(st, "version", 0) != HL_STATE_VERSION ||
	    strcmp(fc_jstr(st, "node", ""), node)) {
		fc_finding(doc, FC_WARN,
			   "state file %s is not this node's (%s) last check: the counters start over from this one",
			   path, node);
		json_decref(st);
		return NULL;
	}
	return st;
}

static int fill_state(FILE *f, void *st)
{
	return json_dumpf(st, f, JSON_COMPACT) ? -EIO : 0;
}

/* Written whole or not at all, never through a link (fc_replace_file).
 * A failure is said once, as the finding, with the writer's reason: its
 * error is kept (core/log.h) but not also printed on stderr. */
static void state_write(json_t *doc, const char *path, const json_t *st)
{
	const char *msgs[FC_LOG_KEEP], *why = NULL;
	int level = fc_log_level, before = fc_log_errors(NULL, 0), after, rc;

	fc_log_level = -1; /* below FC_LOG_ERR: kept, not printed */
	rc = fc_replace_file("--state", path, fill_state, (void *)st);
	fc_log_level = level;
	if (!rc)
		return;
	after = fc_log_errors(msgs, FC_LOG_KEEP);
	/* "--state: cannot write PATH: REASON[; ADVICE]" (core/safefile.c):
	 * the reason; the finding gives its own advice */
	if (after > before && before < FC_LOG_KEEP && (why = strstr(msgs[before], path)))
		why = !strncmp(why + strlen(path), ": ", 2) ? why + strlen(path) + 2 : NULL;
	fc_finding(doc, FC_WARN,
		   "cannot write the state file %s%s%.*s%s: the next check cannot tell what moved; give --state FILE in a writable folder",
		   path, why ? " (" : "", why ? (int)strcspn(why, ";") : 0, why ? why : "",
		   why ? ")" : "");
}

/*
 * This node's readings, live or from a capture (ctl/nodesrc.h): the probe
 * that preflight runs and the port counters, both under the source's sysfs
 * root, so a capture is judged by the code that judges the node. NULL after
 * an error naming the input.
 */
static json_t *node_read(const struct hl_cli *c)
{
	struct fc_bundle *b = NULL;
	struct fc_src s;
	json_t *probe;
	char err[1024];

	if (c->probe_doc)
		return load_doc(c->probe_doc, "--probe-doc");
	if (c->from && !(b = fc_bundle_open(c->from, err, sizeof(err)))) {
		fc_err("--from %s", err);
		return NULL;
	}
	if (b)
		fc_src_replay(&s, b);
	else
		fc_src_live(&s, NULL);
	probe = pf_probe_doc_by(&s, c->timeout, c->drain.deadline, 0);
	hl_read_counters(probe, s.sys);
	fc_bundle_close(b);
	return probe;
}

static void node_name(struct hl_cli *c, const json_t *probe, char *buf, size_t len)
{
	const char *env = getenv("SLURMD_NODENAME");

	if (c->node)
		snprintf(buf, len, "%s", c->node);
	else if (c->from) { /* the capture's host, short */
		snprintf(buf, len, "%s", fc_jstr(probe, "host", "?"));
		buf[strcspn(buf, ".")] = 0;
	} else if (env && *env)
		snprintf(buf, len, "%s", env);
	else if (gethostname(buf, len - 1) == 0)
		buf[strcspn(buf, ".")] = 0;
	else
		snprintf(buf, len, "localhost");
}

/* The node's name into @buf; 1 (said) when it is none. */
static int bad_node_name(struct hl_cli *c, const json_t *probe, char *buf, size_t len)
{
	node_name(c, probe, buf, len);
	if (fc_valid_node_name(buf))
		return 0;
	fc_err("health: '%s' is not a node name; give --node NAME", buf);
	return 1;
}

/* Without --rails or --reference: this node's rails as the store's
 * newest matrix run matched them (hl_rails_from_store), said in @doc's
 * "rails_from"; NULL (malloc'd list otherwise) when there is none. */
static char *rails_from_store(const struct hl_cli *c, const char *node, json_t *doc)
{
	const char *db = c->db ? c->db : HL_DB_DEFAULT;
	char list[512], when[32];
	double started = 0;
	int64_t run = hl_rails_from_store(db, node, list, sizeof(list), &started);
	time_t t = (time_t)started;
	struct tm tm;

	if (run <= 0)
		return NULL;
	if (!gmtime_r(&t, &tm) || !strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(when, sizeof(when), "?");
	json_object_set_new(doc, "rails_from", json_pack("{s:s, s:s, s:I, s:s, s:s}", "store", db,
							 "kind", "matrix", "run", (json_int_t)run,
							 "started", when, "rails", list));
	return strdup(list);
}

static void render_health(FILE *f, const json_t *doc)
{
	const json_t *rf = json_object_get(doc, "rails_from");

	fprintf(f, "health of %s%s%s\n", fc_jstr(doc, "node", "?"),
		json_object_get(doc, "reference") ? ", against " : "",
		fc_jstr(doc, "reference", ""));
	if (rf)
		fprintf(f, "rails: %s, as matrix run %lld of %s (%s) matched them; only these are judged for a drain\n",
			fc_jstr(rf, "rails", "?"), (long long)fc_jnum(rf, "run", 0),
			fc_jstr(rf, "store", "?"), fc_jstr(rf, "started", "?"));
	fc_drain_render(f, doc);
}

/* Judges @probe into @doc; the new state into *state_p. */
static void judge(json_t *doc, const struct hl_cli *c, const char *node, json_t *probe,
		  const json_t *ref, const json_t *last, json_t **state_p)
{
	json_t *nodes = json_pack("[{s:s, s:O}]", "node", node, "probe", probe);
	struct pf_opts o = c->o;

	o.in_use = hl_in_use(probe, last);
	pf_check(doc, nodes, &o);
	json_decref((json_t *)o.in_use);
	json_decref(nodes);
	if (ref)
		hl_check_reference(doc, node, probe, ref, c->reference);
	hl_check_state(doc, node, probe, last);
	*state_p = hl_state_new(node, probe, now_s());
}

/* The tools that ran out of time (the probe's "ran_out"), as one line;
 * 0 when none did. */
static int ran_out_text(const json_t *probe, char *buf, size_t len)
{
	const json_t *list = json_object_get(probe, "ran_out"), *v;
	size_t i, at = 0;

	buf[0] = 0;
	json_array_foreach(list, i, v)
		if (json_is_string(v) && at + 1 < len)
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? "; " : "",
					       json_string_value(v));
	return json_array_size(list) > 0;
}

/* --drain-self, --resume-passed: this node's drain or resume, kept as a
 * "health" run of the store (report --slurm). */
static void hl_drain(json_t *doc, struct hl_cli *c, const char *node)
{
	const json_t *blame = json_object_get(doc, "blame");
	json_t *passed = json_array(), *targets = json_array();
	const char *db = c->db ? c->db : HL_DB_DEFAULT;
	struct fc_store *st = fc_store_open(db);
	json_t *params = json_pack("{s:[s]}", "nodes", node);
	int64_t run = st ? fc_store_run_begin(st, "health", params) : 0;

	json_decref(params);
	if (run <= 0)
		fc_finding(doc, FC_WARN, "Slurm: the store %s cannot be written: the actions below are not kept (give --db FILE in a writable folder)",
			   db);
	c->drain.resume_kind = "health";
	if (fc_doc_verdict(doc) == FC_FAIL && json_array_size(blame))
		json_array_append(targets, json_array_get(blame, 0));
	else if (fc_doc_verdict(doc) == FC_FAIL)
		fc_drain_target(targets, node, "failed check", "",
				json_string_value(json_array_get(json_object_get(doc, "findings"), 0)));
	else
		json_array_append_new(passed, json_string(node));
	fc_drain_apply(doc, run > 0 ? st : NULL, run, "health", &c->drain, targets, passed);
	if (st && run > 0)
		fc_store_run_end(st, run, fc_verdict_name(fc_doc_verdict(doc)));
	fc_store_close(st);
	json_decref(targets);
	json_decref(passed);
}

int cmd_health(struct fc_ctx *ctx, int argc, char **argv)
{
	struct hl_cli c = { .timeout = 10, .deadline = HL_DEADLINE_S, .o.tclass = 106 };
	double start = fc_now();
	char late[1024];
	int unchecked;
	char *store_rails = NULL;
	json_t *doc, *probe, *ref = NULL, *last = NULL, *state = NULL;
	const char *spath;
	char node[256];
	int rc;

	if (fc_opts_parse(ctx, &hl_spec, &c, argc, argv))
		return FC_EXIT_USAGE;
	if (c.from && (c.probe_doc || fc_drain_wanted(&c.drain))) {
		fc_err("health: --from judges a capture: give it without --probe-doc, --drain-self, "
		       "--drain-dry-run or --resume-passed (drain the node itself where it runs)");
		return FC_EXIT_USAGE;
	}
	if (c.o.rails && (!*c.o.rails || c.o.rails[strspn(c.o.rails, "abcdefghijklmnopqrstuvwxyz"
				"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-,")])) {
		fc_err("health: --rails '%s' is not a comma-separated list of devices or net devices (e.g. mlx5_0,mlx5_3)",
		       c.o.rails);
		return FC_EXIT_USAGE;
	}
	c.no_state |= c.from && !c.state; /* a capture never touches this node's state */
	if (!c.from && bad_node_name(&c, NULL, node, sizeof(node)))
		return FC_EXIT_USAGE;
	if (c.reference && !(ref = load_doc(c.reference, "--reference")))
		return FC_EXIT_CANT;
	c.o.ref = ref;
	c.drain.deadline = start + c.deadline;
	if (!(probe = node_read(&c))) {
		json_decref(ref);
		return FC_EXIT_CANT;
	}
	if (c.from && bad_node_name(&c, probe, node, sizeof(node))) {
		json_decref(probe);
		json_decref(ref);
		return FC_EXIT_USAGE;
	}
	spath = c.state ? c.state : HL_STATE_DEFAULT;
	doc = fc_doc_new();
	json_object_set_new(doc, "node", json_string(node));
	if (c.reference)
		json_object_set_new(doc, "reference", json_string(c.reference));
	if (!c.no_state)
		last = state_read(doc, spath, node);
	if (!c.o.rails && !ref && (c.o.rails = store_rails = rails_from_store(&c, node, doc)))
		c.o.rails_why = "not on this node's rails in the store's last matrix run";
	judge(doc, &c, node, probe, ref, last, &state);
	if (!c.no_state)
		state_write(doc, spath, state);
	/* A tool that ran out of its budget: what it reads was not judged,
	 * so the node is neither drained nor resumed (NHC: a check never
	 * fails a node for its own infrastructure). */
	unchecked = ran_out_text(probe, late, sizeof(late));
	if (unchecked) {
		fc_drain_unchecked(doc, node, late);
		fc_finding(doc, FC_WARN, "%s: could not check within the deadline (%s): nothing drained or resumed; find what is slow on the node, or give --timeout/--deadline",
			   node, late);
	} else if (fc_drain_wanted(&c.drain)) {
		hl_drain(doc, &c, node);
	}
	json_decref(state);
	json_decref(last);
	json_decref(probe);
	json_decref(ref);
	rc = fc_emit(ctx, doc, render_health);
	free(store_rails);
	return unchecked && rc != FC_EXIT_USAGE ? FC_EXIT_CANT : rc;
}
