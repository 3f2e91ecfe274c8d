/*
 * fabcheck preflight NODE...: before any traffic, what each node reports
 * about itself: ports up at the expected rate, firmware and driver versions
 * that agree, MTUs, RoCE v2 GIDs, GPUDirect RDMA where GPUs exist, PCIe
 * links and topology, QoS settings. Runs `fabcheck preflight-probe --json`
 * on every node at once through the launcher (ssh, slurm, local), each with
 * its own deadline, and judges the documents here (checks/preflight/preflight.c).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "checks/preflight/preflight.h"
#include "core/log.h"
#include "core/out.h"
#include "core/util.h"
#include "ctl/chan.h"
#include "ctl/drain.h"
#include "ctl/launch_opts.h"
#include "src/cmds.h"
#include "matrix/mx_cli.h"
#include "ctl/child.h"
#include "ctl/scale.h"
#include "ctl/ssh_mux.h"
#include "store/store.h"

const char usage_preflight[] =
	"usage: fabcheck preflight NODE... [options]\n"
	"       fabcheck preflight --hostfile FILE [options]\n"
	"       fabcheck preflight --from BUNDLE... [options]\n"
	"\n"
	"Checks every node before traffic runs, all nodes at once: RDMA ports ACTIVE\n"
	"at the expected rate, firmware and driver versions that agree across nodes,\n"
	"active and netdev MTUs as expected and equal across nodes, a RoCE v2 GID on\n"
	"Ethernet ports, nvidia_peermem or dma-buf where GPUs exist, PCIe links of\n"
	"GPUs and HCAs at full speed and width and the checks of 'fabcheck topo', and\n"
	"where mlnx_qos exists, trust mode and PFC against the traffic class. One line\n"
	"per problem, naming the node and the part; checks that cannot run on a node\n"
	"are listed as skipped with the reason.\n"
	"\n"
	"  --hostfile FILE     nodes, one a line ('#' comments)\n"
	"  --expect-rate GBPS  every port at least this rate (default: equal across nodes)\n"
	"  --expect-mtu N      RoCE: the netdev MTU (e.g. 9000); InfiniBand: the active\n"
	"                      MTU (e.g. 4096) (default: equal across nodes)\n"
	"  --tclass N          traffic class for the trust/PFC check (default 106)\n"
	"  --exclude-dev LIST  devices or net devices that are no rail (storage,\n"
	"                      management); every rail is checked, and ports off the\n"
	"                      GPU fabric (the ssh or default-route port, another\n"
	"                      link layer or rate, no peer) are left out, each noted\n"
	"  --launcher ssh|slurm|local  how to reach the nodes (default ssh)\n"
	"  --ssh-config FILE   ssh -F FILE\n"
	"  --worker-cmd PATH   fabcheck's path on the nodes (default 'fabcheck', or\n"
	"                      $FABCHECK_WORKER_CMD)\n"
	"  --timeout T         deadline for each node's answer (default 60s)\n"
	"  --fanout N          nodes probed at once, as pdsh -f (default 256)\n"
	"  --no-ssh-mux        no ssh connection sharing (ControlMaster)\n"
	"  --from BUNDLE...    judge captures (fabcheck capture; folders or .tar.gz)\n"
	"                      as these nodes live: the rack is the set of them\n"
	"  -j, --json          one JSON document on stdout\n"
	"\n"
	"Slurm (doc/slurm.md): each node a check names is drained with what failed;\n"
	"the actions are kept as a 'preflight' run of the store (report --slurm):\n"
	FC_DRAIN_HELP
	"  --db FILE           the store for them (default fabcheck.db)\n"
	"\n"
	"Exit: 0 pass (warnings allowed), 1 a check failed, 2 usage, 3 a node could not\n"
	"be reached or probed.\n";

struct pf_cli {
	char **nodes;
	int n;
	const char *hostfile;
	struct pf_opts o;
	struct fc_launch l;
	double timeout;
	int no_mux;
	struct fc_drain_opts drain;
	const char *db;
	const char *from; /* --from: the first capture; the arguments are the others */
	int plan;	  /* fabcheck rails: the rail plan only */
};

/* The most of a probe's document kept (one is a few KiB). */
#define PF_OUT_MAX (1u << 20)

#define FC_OPT_T struct pf_cli
static const struct fc_opts pf_spec = {
	.opt = (const struct fc_opt[]){
		FCO_STR("hostfile", 0, hostfile),
		FCO_DOUBLE("expect-rate", 0, o.expect_rate_gbps, 0.001, 1e5),
		FCO_INT("expect-mtu", 0, o.expect_mtu, 256, 65536),
		FCO_INT("tclass", 0, o.tclass, 0, 255),
		FCO_STR("exclude-dev", 0, o.exclude_dev),
		FC_LAUNCH_OPTS(l),
		FCO_DURATION("timeout", 0, timeout, 1, 3600),
		FCO_CALL_AT("fanout", 0, fc_fanout_opt, l.fanout, int),
		FCO_FLAG("no-ssh-mux", 0, no_mux),
		FC_DRAIN_OPTS(drain),
		FCO_STR("db", 0, db),
		FCO_STR("from", 0, from),
		FCO_JSON,
		{ 0 },
	},
	.cmd = "preflight", .usage = "run 'fabcheck preflight --help' for the options\n",
};

static int pf_from_args(struct pf_cli *c, int argc, char **argv);

static int pf_parse(struct fc_ctx *ctx, struct pf_cli *c, int argc, char **argv)
{
	const char *env = getenv("FABCHECK_WORKER_CMD");
	struct fc_opts spec = pf_spec;

	int plan = c->plan;

	memset(c, 0, sizeof(*c));
	c->plan = plan;
	c->o.tclass = 106;
	c->timeout = 60;
	c->l.kind = FC_LAUNCH_SSH;
	c->l.worker_cmd = env && *env ? env : NULL;
	c->l.verbose = ctx->verbose;
	if (c->plan) {
		spec.cmd = "rails";
		spec.usage = "run 'fabcheck rails --help' for the options\n";
	}
	if (fc_opts_parse(ctx, &spec, c, argc, argv))
		return FC_EXIT_USAGE;
	if (c->plan && fc_drain_wanted(&c->drain)) {
		fc_err("rails: prints the plan; no Slurm action (use 'fabcheck preflight')");
		return FC_EXIT_USAGE;
	}
	c->l.connect_timeout = (int)c->timeout;
	if (c->from)
		return pf_from_args(c, argc, argv);
	if (mx_node_args("preflight", c->hostfile, argc, argv, optind, &c->nodes, &c->n))
		return FC_EXIT_USAGE;
	if (c->n < 1) {
		fc_err("preflight: no nodes; give them as arguments or with --hostfile FILE");
		return FC_EXIT_USAGE;
	}
	if (c->l.ssh_config) {
		FILE *f = fopen(c->l.ssh_config, "r");

		if (!f) {
			fc_err("--ssh-config: cannot read '%s': %m", c->l.ssh_config);
			return FC_EXIT_USAGE;
		}
		fclose(f);
	}
	return 0;
}

/* --from A B ...: the captures, as the nodes are otherwise. */
static int pf_from_args(struct pf_cli *c, int argc, char **argv)
{
	if (c->hostfile || fc_drain_wanted(&c->drain)) {
		fc_err("preflight: --from judges captures: no --hostfile, no Slurm action");
		return FC_EXIT_USAGE;
	}
	c->nodes = calloc((size_t)(argc - optind + 1), sizeof(*c->nodes));
	if (!c->nodes)
		return FC_EXIT_CANT;
	c->nodes[c->n++] = strdup(c->from);
	for (int i = optind; i < argc; i++)
		c->nodes[c->n++] = strdup(argv[i]);
	return 0;
}

/* Why a probe gave no document, in words that say what to do. */
static void probe_why(struct fc_child *k, const struct pf_cli *c, char *why, size_t len)
{
	int code = WIFEXITED(k->status) ? WEXITSTATUS(k->status) : -1;
	const char *last = fc_child_last_err(k);

	if (k->exec_failed)
		snprintf(why, len, "cannot start the %s launcher: %s", fc_launcher_name(c->l.kind),
			 strerror(k->exec_failed));
	else if (k->timed_out && c->l.kind == FC_LAUNCH_SLURM)
		snprintf(why, len, "srun gave no answer within %.0f s (--timeout)%s%s: check that slurmctld answers (sinfo), the node is in the partition, and SLURM_CONF",
			 c->timeout, *last ? "; srun said: " : "", last);
	else if (k->timed_out)
		snprintf(why, len, "no answer within %.0f s (--timeout): the node or its fabcheck hangs%s%s",
			 c->timeout, *last ? "; it said: " : "", last);
	else if (k->out_cut)
		snprintf(why, len, "the probe wrote more than %u MiB; its output was not read",
			 PF_OUT_MAX >> 20);
	else if (code == 255 && c->l.kind == FC_LAUNCH_SSH)
		snprintf(why, len, "cannot reach the node over ssh (exit 255%s%s): check the name, ~/.ssh/config or --ssh-config",
			 *last ? ": " : "", last);
	else if (code == 127 || code == 126)
		snprintf(why, len, "fabcheck is not installed or not runnable there (exit %d%s%s): install it or give --worker-cmd",
			 code, *last ? ": " : "", last);
	else if (c->l.kind == FC_LAUNCH_SLURM && code != 0)
		snprintf(why, len, "srun failed (exit %d%s%s): check 'srun --nodelist=%s -N1 -n1 true' and SLURM_CONF",
			 code, *last ? ": " : "", last, k->name);
	else if (code != 0)
		snprintf(why, len, "the probe exited %d%s%s", code, *last ? ": " : "", last);
	else
		snprintf(why, len, "the probe's output is not a JSON document (an old fabcheck there?)");
}

struct pf_start {
	const struct pf_cli *c;
	const char *const *sub;
};

static int start_probe(void *arg, int i, struct fc_child *k)
{
	const struct pf_start *ps = arg;
	const struct pf_cli *c = ps->c;
	const char *argv[FC_LAUNCH_MAX_ARGS];
	char buf[2048];

	snprintf(k->name, sizeof(k->name), "%s", c->nodes[i]);
	k->out_max = PF_OUT_MAX;
	fc_info("%s: probing (%s)", c->nodes[i], fc_launcher_name(c->l.kind));
	if (fc_launch_argv(&c->l, c->nodes[i], ps->sub, argv, buf, sizeof(buf)) < 0) {
		k->exec_failed = E2BIG;
		return -E2BIG;
	}
	return fc_child_start(k, NULL, argv, c->timeout);
}

static json_t *run_probes(const struct pf_cli *c)
{
	struct fc_child *kids = calloc((size_t)c->n, sizeof(*kids));
	json_t *nodes = json_array();
	char tmo[32];
	const char *sub[] = { "preflight-probe", "--json", "--timeout", tmo, NULL };
	struct pf_start ps = { .c = c, .sub = sub };

	if (!kids)
		return nodes;
	snprintf(tmo, sizeof(tmo), "%d", c->timeout > 10 ? (int)(c->timeout / 2) : 5);
	fc_children_run(kids, c->n, c->l.fanout, start_probe, &ps);
	for (int i = 0; i < c->n; i++) {
		json_t *doc = kids[i].out && !kids[i].timed_out && !kids[i].out_cut ? json_loads(kids[i].out, 0, NULL) : NULL;
		char why[1024];

		if (json_is_object(doc) && json_object_get(doc, "probe")) {
			json_array_append_new(nodes, json_pack("{s:s, s:o}", "node", c->nodes[i], "probe",
								doc));
		} else {
			json_decref(doc);
			probe_why(&kids[i], c, why, sizeof(why));
			fc_err("%s: %s", c->nodes[i], why);
			json_array_append_new(nodes, json_pack("{s:s, s:s}", "node", c->nodes[i], "error",
								why));
		}
		fc_child_release(&kids[i]);
	}
	free(kids);
	return nodes;
}

static void render_preflight(FILE *f, const json_t *doc)
{
	struct fc_table *t = fc_table_new(12, "NODE", "DEVICE", "PORT", "STATE", "RATE", "ACT MTU",
					  "NETDEV", "NETDEV MTU", "GID", "FIRMWARE", "GPUS", "GDR");
	size_t i, j;
	json_t *n, *p;

	json_array_foreach(json_object_get(doc, "nodes"), i, n) {
		if (!json_array_size(json_object_get(n, "ports"))) {
			fc_table_row(t);
			fc_table_addf(t, 0, "%s", fc_jstr(n, "node", "?"));
			fc_table_addf(t, 3, "%s", strcmp(fc_jstr(n, "status", ""), "ok") ?
							  fc_jstr(n, "status", "?") : "no ports");
			continue;
		}
		json_array_foreach(json_object_get(n, "ports"), j, p) {
			fc_table_row(t);
			fc_table_addf(t, 0, "%s", j ? "" : fc_jstr(n, "node", "?"));
			fc_table_addf(t, 1, "%s", fc_jstr(p, "device", "?"));
			fc_table_addf(t, 2, "%d", (int)fc_jnum(p, "port", 0));
			fc_table_addf(t, 3, "%s", fc_jstr(p, "state", "?"));
			fc_table_addf(t, 4, "%g Gb/s", fc_jnum(p, "rate_gbps", 0));
			if (fc_jnum(p, "active_mtu", 0) > 0) /* 0: not recorded (ibstat) */
				fc_table_addf(t, 5, "%d B", (int)fc_jnum(p, "active_mtu", 0));
			else
				fc_table_addf(t, 5, "-");
			fc_table_addf(t, 6, "%s", *fc_jstr(p, "netdev", "") ? fc_jstr(p, "netdev", "") : "-");
			if (fc_jnum(p, "netdev_mtu", 0) > 0)
				fc_table_addf(t, 7, "%d B", (int)fc_jnum(p, "netdev_mtu", 0));
			else
				fc_table_addf(t, 7, "-");
			fc_table_addf(t, 8, "%s", fc_jstr(p, "gid_type", "-"));
			fc_table_addf(t, 9, "%s", fc_jstr(p, "fw_ver", "?"));
			fc_table_addf(t, 10, "%d", (int)fc_jnum(n, "gpus", 0));
			fc_table_addf(t, 11, "%s", fc_jstr(n, "gdr", "-"));
		}
	}
	fc_table_print(t, f, "");
	fc_table_free(t);
	fc_drain_render(f, doc);
	pf_render_skipped(f, doc);
}

/* What a preflight could not have seen (ctl/drain.h, unseen): a port
 * rate or MTU drain set against --expect-rate or --expect-mtu (not by a
 * comparison: @across 0) by a run given none. */
static const char *pf_unseen(const char *node, const char *part, const char *device, int across,
			     const void *arg)
{
	const struct pf_opts *o = arg;

	(void)node;
	(void)device;
	if (across)
		return NULL;
	if (!strcmp(part, "port rate") && o->expect_rate_gbps <= 0)
		return "this run had no --expect-rate to judge the rate against";
	if (!strcmp(part, "mtu") && o->expect_mtu <= 0)
		return "this run had no --expect-mtu to judge the MTU against";
	return NULL;
}

/* Removes @node's entries from @targets. */
static void drop_targets(json_t *targets, const char *node)
{
	for (size_t i = json_array_size(targets); i-- > 0;)
		if (!strcmp(fc_jstr(json_array_get(targets, i), "node", ""), node))
			json_array_remove(targets, i);
}

/* --drain, --resume-passed: the nodes the checks named, and those probed
 * and named by none; nothing when no node could be probed. */
static void pf_drain(json_t *doc, const json_t *nodes, const struct pf_cli *c)
{
	const json_t *blame = json_object_get(doc, "blame");
	json_t *targets = blame ? json_copy((json_t *)blame) : json_array();
	json_t *passed = json_array(), *e, *params;
	struct fc_store *st = fc_store_open(c->db ? c->db : FC_STORE_DEFAULT);
	int64_t run = 0;
	size_t i, k;
	int probed = 0;

	json_array_foreach(nodes, i, e) {
		const char *node = fc_jstr(e, "node", "");
		const json_t *late = json_object_get(json_object_get(e, "probe"), "ran_out");
		int named = 0;
		json_t *t;

		if (!json_object_get(e, "probe")) {
			fc_drain_unchecked(doc, node, fc_jstr(e, "error", "could not be probed"));
			continue;
		}
		/* A tool of its probe ran out of time: what it reads was not
		 * judged; the node is neither drained nor resumed. */
		if (json_array_size(late)) {
			char why[512];

			snprintf(why, sizeof(why), "a tool of its probe ran out of time: %s",
				 json_string_value(json_array_get(late, 0)) ?: "?");
			fc_drain_unchecked(doc, node, why);
			drop_targets(targets, node);
			continue;
		}
		probed++;
		json_array_foreach(targets, k, t)
			named |= !strcmp(fc_jstr(t, "node", ""), node);
		if (!named)
			json_array_append_new(passed, json_string(node));
	}
	params = json_pack("{s:O}", "nodes", json_object_get(doc, "nodes"));
	if (st)
		run = fc_store_run_begin(st, "preflight", params);
	json_decref(params);
	if (!st || run <= 0)
		fc_finding(doc, FC_WARN, "Slurm: the store %s cannot be written: the actions below are not kept",
			   c->db ? c->db : FC_STORE_DEFAULT);
	if (!probed) {
		json_object_set_new(doc, "slurm", json_array());
		fc_finding(doc, FC_WARN, "Slurm: nothing drained or resumed: no node could be probed");
	} else {
		struct fc_drain_opts d = c->drain;

		d.compared = probed;
		d.unseen = pf_unseen;
		d.unseen_arg = &c->o;
		fc_drain_apply(doc, run > 0 ? st : NULL, run, "preflight", &d, targets, passed);
	}
	if (st && run > 0)
		fc_store_run_end(st, run, fc_verdict_name(fc_doc_verdict(doc)));
	fc_store_close(st);
	json_decref(targets);
	json_decref(passed);
}

/* The nodes read, live (their probes) or from captures: the list of
 * {"node", "probe"} or {"node", "error"}; NULL when none could be started. */
static json_t *pf_gather(struct pf_cli *c)
{
	json_t *nodes;

	signal(SIGPIPE, SIG_IGN);
	if (c->from)
		return pf_nodes_from(c->nodes, c->n, c->timeout);
	/* Two pipes a probe. */
	if (fc_fd_reserve(c->plan ? "rails" : "preflight",
			  c->n < fc_fanout_of(c->l.fanout) ? c->n : fc_fanout_of(c->l.fanout), 2,
			  "--fanout "))
		return NULL;
	fc_ssh_mux_setup(&c->l, c->nodes[0], c->no_mux);
	nodes = run_probes(c);
	fc_ssh_mux_end();
	return nodes;
}

static void pf_cli_free(struct pf_cli *c)
{
	for (int i = 0; i < c->n; i++)
		free(c->nodes[i]);
	free(c->nodes);
}

/* preflight, or with @plan the rail plan (fabcheck rails), of the nodes
 * read live or from captures. */
static int pf_run(struct fc_ctx *ctx, int argc, char **argv, int plan)
{
	struct pf_cli c = { .plan = plan };
	const char *launcher;
	json_t *doc, *nodes;
	int rc, bad;

	rc = pf_parse(ctx, &c, argc, argv);
	if (rc)
		goto out;
	if (!(nodes = pf_gather(&c))) {
		rc = FC_EXIT_CANT;
		goto out;
	}
	doc = fc_doc_new();
	launcher = c.from ? "from" : fc_launcher_name(c.l.kind);
	if (plan) {
		json_object_set_new(doc, "launcher", json_string(launcher));
		bad = pf_rails_doc(doc, nodes);
	} else {
		json_object_set_new(doc, "expect",
				    json_pack("{s:f, s:i, s:i, s:s}", "rate_gbps", c.o.expect_rate_gbps,
					      "mtu", c.o.expect_mtu, "tclass", c.o.tclass, "launcher",
					      launcher));
		bad = pf_check(doc, nodes, &c.o);
		if (fc_drain_wanted(&c.drain))
			pf_drain(doc, nodes, &c);
	}
	json_decref(nodes);
	rc = fc_emit(ctx, doc, plan ? pf_render_rails : render_preflight);
	if (bad)
		rc = FC_EXIT_CANT;
out:
	pf_cli_free(&c);
	return rc;
}

int cmd_rails(struct fc_ctx *ctx, int argc, char **argv)
{
	return pf_run(ctx, argc, argv, 1);
}

int cmd_preflight(struct fc_ctx *ctx, int argc, char **argv)
{
	return pf_run(ctx, argc, argv, 0);
}
