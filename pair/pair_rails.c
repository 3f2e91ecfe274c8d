/*
 * fabcheck pair --rails: the rails both nodes share (matched by the fabric,
 * core/rail.h), then each rail alone and every rail at once. Each rail's
 * test is a `fabcheck pair -d DEV_A,DEV_B --json` child of this same binary;
 * under load the children start each test together (--sync-fd: a barrier
 * here, through a socket to each child), as a training job loads every rail
 * at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/log.h"
#include "core/safefile.h"
#include "core/util.h"
#include "core/out.h"
#include "core/pairv.h"
#include "core/rail.h"
#include "store/store.h"
#include "ctl/barrier.h"
#include "ctl/child.h"
#include "diag/diag.h"
#include "pair/pair.h"

struct rails_run {
	struct pair_cfg *cfg;
	struct pair_ports ports[2];
	struct fc_rail_node nodes[2];
	struct fc_rail_map map;
	json_t *doc;
	json_t *alone[FC_RAIL_MAX], *loaded[FC_RAIL_MAX]; /* each rail's pair document */
	char exe[PATH_MAX];
	int exit;
	/* rails whose worker named its own node's device (node_fault), and
	 * rails that ran with both ends set up (measured, or failed on the
	 * data path) */
	int own_faults, worked;
};

static void raise_exit(struct rails_run *x, int code)
{
	if (code > x->exit)
		x->exit = code;
}

/* `fabcheck devices --json` on each node, through the launcher. */
static int list_ports(struct rails_run *x)
{
	const char *names[2] = { x->cfg->label[0], x->cfg->label[1] };
	int bad = pair_ports_list(&x->cfg->launch, names, 2, x->cfg->timeout + 10, x->ports);

	if (bad < 0)
		return bad;
	for (int i = 0; i < 2; i++) {
		if (x->ports[i].n < 0) {
			fc_finding(x->doc, FC_FAIL, "%s", x->ports[i].why);
			raise_exit(x, FC_EXIT_CANT);
		}
		x->nodes[i] = (struct fc_rail_node){ .name = x->cfg->label[i],
						     .ports = x->ports[i].p,
						     .nports = x->ports[i].n < 0 ? 0 : x->ports[i].n };
	}
	return bad ? -EIO : 0;
}

static int split(const char *list, char *buf, size_t len, const char **out, int max)
{
	int n;

	snprintf(buf, len, "%s", list);
	n = fc_rail_split_list(buf, out, max);
	if (n < 0)
		fc_err("'%s' is not a comma-separated list of names", list);
	return n;
}

static int match(struct rails_run *x)
{
	static char only_buf[512], excl_buf[512];
	const char *only[FC_RAIL_MAX], *excl[PAIR_PORTS_MAX];
	struct fc_rail_opts o = { 0 };
	const struct pair_cfg *cfg = x->cfg;

	if (strcmp(cfg->rails, "all")) {
		o.nonly = split(cfg->rails, only_buf, sizeof(only_buf), only, FC_RAIL_MAX);
		o.only = only;
	}
	if (cfg->exclude_dev) {
		o.nexclude = split(cfg->exclude_dev, excl_buf, sizeof(excl_buf), excl,
				   PAIR_PORTS_MAX);
		o.exclude = excl;
	}
	if (o.nonly < 0 || o.nexclude < 0)
		return -EINVAL;
	if (fc_rail_match(x->nodes, 2, &o, &x->map)) {
		fc_err("%s", x->map.err[0] ? x->map.err : "cannot match the nodes' rails");
		return -EINVAL;
	}
	for (int i = 0; i < x->map.nfindings; i++) {
		const struct fc_rail_finding *f = &x->map.findings[i];

		if (f->sev == FC_RAIL_NOTE) {
			pair_qos_note(x->doc, "%s", f->text);
			/* the ports left out and rails assumed, apart: soak says them */
			if (!json_object_get(x->doc, "rail_notes"))
				json_object_set_new(x->doc, "rail_notes", json_array());
			json_array_append_new(json_object_get(x->doc, "rail_notes"),
					      json_string(f->text));
		} else {
			fc_finding(x->doc, f->sev == FC_RAIL_FAIL ? FC_FAIL : FC_WARN, "%s", f->text);
			/* a port on no rail (no address, no gateway), a miswire:
			 * apart too, for soak, which keeps its slices' rails, not
			 * the pair's own findings (issue 39 item 4) */
			if (!json_object_get(x->doc, "rail_findings"))
				json_object_set_new(x->doc, "rail_findings", json_array());
			json_array_append_new(json_object_get(x->doc, "rail_findings"),
					      json_pack("{s:s, s:s}", "severity",
							f->sev == FC_RAIL_FAIL ? "fail" : "warn", "text",
							f->text));
		}
	}
	return 0;
}

/* The child's command line for rail @r. */
static void child_argv(const struct rails_run *x, int r, int sync_fd, int loaded, const char **argv,
		       char *dev, size_t dlen, char *fd, size_t flen, char *ev, size_t elen)
{
	const struct fc_rail_port *pa = fc_rail_port_of(&x->map, x->nodes, 0, r);
	const struct fc_rail_port *pb = fc_rail_port_of(&x->map, x->nodes, 1, r);
	size_t n = 0, i;
	json_t *v;

	snprintf(dev, dlen, "%s:%d,%s:%d", pa->dev, pa->port, pb->dev, pb->port);
	argv[n++] = x->exe;
	argv[n++] = "pair";
	argv[n++] = x->cfg->node[0];
	argv[n++] = x->cfg->node[1];
	argv[n++] = "--json";
	argv[n++] = "--no-db";
	argv[n++] = "-d";
	argv[n++] = dev;
	json_array_foreach(x->cfg->child_args, i, v)
		argv[n++] = json_string_value(v);
	if (sync_fd >= 0) {
		snprintf(fd, flen, "%d", sync_fd);
		argv[n++] = "--sync-fd";
		argv[n++] = fd;
	}
	if (x->cfg->evidence_dir) { /* DIR/alone-rail0, DIR/loaded-rail0, ... */
		snprintf(ev, elen, "%s/%s-rail%d", x->cfg->evidence_dir,
			 loaded ? "loaded" : "alone", x->map.rails[r].index);
		argv[n++] = "--save-evidence";
		argv[n++] = ev;
	}
	argv[n] = NULL;
}

/* A document for a rail whose child gave none. */
static json_t *no_doc(struct fc_child *k, int r)
{
	char why[1200];

	snprintf(why, sizeof(why), "rail %d: pair gave no result (%s)", r,
		 k->timed_out ? "killed at its deadline" :
		 k->exec_failed ? strerror(k->exec_failed) :
		 *k->err ? fc_child_last_err(k) : "no JSON document");
	/* no document: the launcher, the child or its deadline; nothing of
	 * the rail's was judged */
	return json_pack("{s:s, s:[s], s:[], s:{}, s:b}", "verdict", "error", "findings", why,
			 "results", "counters", "no_result", 1);
}

/* Runs the rails @rails[0..n) at once (a barrier per test when @n > 1);
 * their documents go to @out[rail]. */
static int run_phase(struct rails_run *x, const int *rails, int n, json_t **out)
{
	struct fc_child kids[FC_RAIL_MAX];
	struct fc_barrier bar;
	double deadline = 120 + 20 * x->cfg->timeout;
	int left, sync = n > 1 || x->cfg->sync_fd >= 0;

	/* Under a matrix pattern's round (--sync-fd given), the go of each
	 * test comes from the round's barrier through this one. */
	if (fc_barrier_init(&bar, n, 4 * x->cfg->timeout + 30, x->cfg->sync_fd))
		return -ENOMEM;
	memset(kids, 0, sizeof(kids));
	for (int k = 0; k < n; k++) {
		const char *argv[FC_LAUNCH_MAX_ARGS + 64];
		char dev[160], fd[16], ev[1024];
		int end = -1;

		if (sync && fc_barrier_pair(&bar, k, &end))
			fc_err("cannot create a socket pair for rail %d: %m", rails[k]);
		child_argv(x, rails[k], end, n > 1, argv, dev, sizeof(dev), fd, sizeof(fd), ev, sizeof(ev));
		snprintf(kids[k].name, sizeof(kids[k].name), "rail %d", x->map.rails[rails[k]].index);
		if (fc_child_start(&kids[k], x->exe, argv, deadline))
			kids[k].done = 1;
		if (end >= 0)
			close(end);
	}
	while ((left = fc_children_poll(kids, n, sync ? 20 : 1000)) > 0)
		fc_barrier_step(&bar, kids);
	if (left < 0)
		fc_children_stop(kids, n);
	x->cfg->sync_fd = bar.up;
	fc_barrier_release(&bar);
	for (int k = 0; k < n; k++) {
		json_t *d = kids[k].out ? json_loads(kids[k].out, 0, NULL) : NULL;

		if (json_is_object(d) && WIFEXITED(kids[k].status))
			json_object_set_new(d, "exit", json_integer(WEXITSTATUS(kids[k].status)));
		/* A rail's pair that could not run (fc_pair_end_judged) is
		 * "error", unless a worker said its node's RDMA device, port
		 * or rail failed (pair_msg.c "node_fault", or "connect_fault"
		 * in connecting): that stays a fault of the rail's port, "fail". */
		if (json_is_object(d) && !json_object_get(d, "node_fault") &&
		    !json_object_get(d, "connect_fault") &&
		    !fc_pair_end_judged(WIFEXITED(kids[k].status) ? WEXITSTATUS(kids[k].status) : -1, d))
			json_object_set_new(d, "verdict", json_string("error"));
		out[rails[k]] = json_is_object(d) ? d : no_doc(&kids[k], x->map.rails[rails[k]].index);
		if (!json_is_object(d))
			json_decref(d);
		fc_child_release(&kids[k]);
	}
	return 0;
}

static json_t *side(const json_t *child_side, const struct fc_rail_port *p)
{
	json_t *o = json_pack("{s:s, s:i, s:s, s:s}", "device", p->dev, "port", p->port, "netdev",
			      p->netdev, "subnet", p->subnet);
	static const char *const keep[] = { "gpu",	   "gpu_bus_id", "gpu_distance",
					    "gpu_count",   "memory",	 "mtu",
					    "gid_index",   "rate_gbps",	 "link_layer",
					    "hca",	   "gid",	 "gid_type",
					    "rate",	   "width",	 "lid",
					    "payload_gbps", "payload" };

	for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
		if (json_object_get(child_side, keep[i]))
			json_object_set(o, keep[i], json_object_get(child_side, keep[i]));
	return o;
}

static json_t *phase_json(const json_t *d)
{
	json_t *o;

	if (!d)
		return json_null();
	o = json_pack("{s:O, s:O, s:O, s:O}", "verdict", json_object_get(d, "verdict"), "results",
		      json_object_get(d, "results"), "counters", json_object_get(d, "counters"),
		      "findings", json_object_get(d, "findings"));
	/* whose own device failed on this rail (pair_msg.c): the matrix
	 * names that node, not the link (matrix/mxan.h, FC_MX_BAD_OWN) */
	if (o && json_is_string(json_object_get(d, "node_fault")))
		json_object_set(o, "node_fault", json_object_get(d, "node_fault"));
	/* counters set aside for a loss measured outside the nodes (core/hostloss.h) */
	if (o && json_object_get(d, "host_loss"))
		json_object_set(o, "host_loss", json_object_get(d, "host_loss"));
	return o;
}

/* A child's findings, named by rail and phase, at its verdict's level. */
static void child_findings(struct rails_run *x, const json_t *d, int r, const char *phase)
{
	const char *v = fc_jstr(d, "verdict", "fail");
	/* a rail that could not run says why as loudly as one that failed
	 * (as pair does: exit 3 with its finding) */
	enum fc_verdict lvl = !strcmp(v, "fail") || !strcmp(v, "error") ? FC_FAIL :
			      !strcmp(v, "warn") ? FC_WARN : FC_PASS;
	const json_t *f;
	size_t i;

	json_array_foreach(json_object_get(d, "findings"), i, f) {
		const char *t = json_string_value(f);
		size_t tl = t ? strlen(t) : 0, wl = strlen(": " FC_CTR_WHY);
		/* what error counters mean, once in the whole report */
		int cut = tl > wl && !strcmp(t + tl - wl, ": " FC_CTR_WHY) &&
			  fc_ctr_why_said(x->doc);

		if (t)
			fc_finding(x->doc, lvl, "rail %d (%s) %s: %.*s", x->map.rails[r].index,
				   x->map.rails[r].name, phase, (int)(cut ? tl - wl : tl), t);
	}
	/* A rail whose worker named its node's own device (pair_msg.c
	 * node_fault) is judged, "fail", where another rail ran: that port's
	 * fault, exit 1 (own_fault_exit); else nothing told it from the run's
	 * options or the rack's setup, exit 3 as for a rail that could not run. */
	if (json_is_string(json_object_get(d, "node_fault")))
		x->own_faults++;
	else if (json_is_true(json_object_get(d, "no_result")) || fc_jnum(d, "exit", 0) == FC_EXIT_CANT)
		raise_exit(x, FC_EXIT_CANT);
	else
		x->worked += strcmp(v, "error") != 0;
}

/* The exit for the rails of own faults (child_findings): 3 when no rail
 * worked beside them. When they all name one node, the pair's document
 * names it too ("node_fault", as pair_msg.c does for one port), for the
 * matrix's and soak's analyses of the whole pair. */
static void own_fault_exit(struct rails_run *x)
{
	const char *who = NULL;
	int one = 1;

	if (x->own_faults && !x->worked)
		raise_exit(x, FC_EXIT_CANT);
	for (int r = 0; r < x->map.nrails; r++) {
		const json_t *d[2] = { x->alone[r], x->loaded[r] };

		for (int k = 0; k < 2; k++) {
			const char *n = fc_jstr(d[k], "node_fault", NULL);

			if (n && who && strcmp(n, who))
				one = 0;
			if (n)
				who = n;
		}
	}
	if (who && one)
		json_object_set_new(x->doc, "node_fault", json_string(who));
}

static const char *worst(const char *a, const char *b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return !strcmp(a, "fail") || !strcmp(b, "fail") ? "fail" :
	       !strcmp(a, "error") || !strcmp(b, "error") ? "error" :
	       !strcmp(a, "warn") || !strcmp(b, "warn") ? "warn" : "pass";
}

static json_t *rail_json(struct rails_run *x, int r)
{
	const json_t *ref = x->loaded[r] ? x->loaded[r] : x->alone[r];
	double sz, ga = x->alone[r] ? fc_pair_doc_gbps(x->alone[r], &sz) : NAN;
	double gl = x->loaded[r] ? fc_pair_doc_gbps(x->loaded[r], &sz) : NAN;
	const char *v = worst(x->alone[r] ? fc_jstr(x->alone[r], "verdict", "fail") : NULL,
			      x->loaded[r] ? fc_jstr(x->loaded[r], "verdict", "fail") : NULL);
	json_t *o;

	o = json_pack("{s:i, s:s, s:s, s:o, s:o, s:o, s:o, s:s, s:b}", "rail", x->map.rails[r].index,
		      "name", x->map.rails[r].name, "subnet", x->map.rails[r].subnet, "a",
		      side(json_object_get(ref, "a"), fc_rail_port_of(&x->map, x->nodes, 0, r)),
		      "b", side(json_object_get(ref, "b"), fc_rail_port_of(&x->map, x->nodes, 1, r)),
		      "alone", phase_json(x->alone[r]), "loaded", phase_json(x->loaded[r]),
		      "verdict", v, "host_limited", 0);
	if (x->map.rails[r].peer[0])
		json_object_set_new(o, "switch", json_string(x->map.rails[r].peer));
	if (x->map.rails[r].peer_desc[0])
		json_object_set_new(o, "switch_desc", json_string(x->map.rails[r].peer_desc));
	if (x->map.rails[r].leaf[0])
		json_object_set_new(o, "leaf", json_string(x->map.rails[r].leaf));
	json_object_set_new(o, "matched_by", json_string(fc_rail_by_name(x->map.by)));
	fc_rail_add_leaves(o, &x->map.rails[r]);
	if (x->map.assumed[0])
		json_object_set_new(o, "assumed", json_string(x->map.assumed));
	json_object_set_new(o, "alone_gbps", isfinite(ga) ? json_real(ga) : json_null());
	json_object_set_new(o, "loaded_gbps", isfinite(gl) ? json_real(gl) : json_null());
	pair_loaded_judge(x->doc, o, x->alone[r] ? fc_jstr(x->alone[r], "verdict", "fail") : NULL,
			  x->cfg->min_loaded_pct, x->map.nrails);
	if (x->alone[r])
		child_findings(x, x->alone[r], r, "alone");
	if (x->loaded[r])
		child_findings(x, x->loaded[r], r, "loaded");
	return o;
}

/* Adds @from's counters into @to (per node, per counter). */
static void add_counters(json_t *to, const json_t *from)
{
	const char *node, *name;
	json_t *cs, *v;

	json_object_foreach((json_t *)from, node, cs) {
		json_t *t = json_object_get(to, node);

		if (!t) {
			t = json_object();
			json_object_set_new(to, node, t);
		}
		json_object_foreach(cs, name, v)
			if (json_is_number(v))
				json_object_set_new(t, name,
						    json_integer((json_int_t)(fc_jnum(t, name, 0) +
									      json_number_value(v))));
	}
}

/* The aggregate: with every rail loaded, bandwidths add up and latency is
 * the slowest rail's; with one rail, its results. */
static json_t *aggregate(struct rails_run *x)
{
	json_t **src = x->map.nrails > 1 && x->loaded[0] ? x->loaded : x->alone;
	json_t *res = json_deep_copy(json_object_get(src[0], "results"));
	json_t *e;
	size_t i;

	if (!res)
		return json_array();
	json_array_foreach(res, i, e) {
		int bw = !strcmp(fc_jstr(e, "metric", ""), "bw");
		double sum = 0;

		for (int r = 0; r < x->map.nrails; r++) {
			const json_t *o = json_array_get(json_object_get(src[r], "results"), i);

			if (!o)
				continue;
			if (bw)
				sum += fc_jnum(o, "gbps", 0);
			else if (fc_jnum(o, "p50_us", 0) > fc_jnum(e, "p50_us", 0))
				json_array_set(res, i, (json_t *)o);
		}
		e = json_array_get(res, i);
		if (bw)
			json_object_set_new(e, "gbps", json_real(sum));
		json_object_set_new(e, "rails", json_integer(x->map.nrails));
	}
	return res;
}

static void build_doc(struct rails_run *x)
{
	json_t *rails = json_array(), *counters = json_object_get(x->doc, "counters");
	const json_t *ref = x->alone[0] ? x->alone[0] : x->loaded[0];

	json_object_update_missing(json_object_get(x->doc, "options"), json_object_get(ref, "options"));
	json_object_set(x->doc, "a", json_object_get(ref, "a"));
	json_object_set(x->doc, "b", json_object_get(ref, "b"));
	for (int r = 0; r < x->map.nrails; r++) {
		json_array_append_new(rails, rail_json(x, r));
		if (x->alone[r])
			add_counters(counters, json_object_get(x->alone[r], "counters"));
		if (x->loaded[r])
			add_counters(counters, json_object_get(x->loaded[r], "counters"));
	}
	json_object_set_new(x->doc, "rails", rails);
	pair_loaded_note(x->doc);
	pair_rail_gpus_check(x->doc, rails, x->cfg->label[0], x->cfg->label[1]);
	json_object_set_new(x->doc, "results", aggregate(x));
	json_object_set_new(x->doc, "results_of", json_string(x->map.nrails > 1 && x->loaded[0] ?
								  "every rail loaded" : "rail alone"));
}

/* The aggregate as a pair report (with pair_rails_table under it). */
static void rails_render(FILE *f, const json_t *doc)
{
	if (!json_object_get(doc, "rails"))
		return; /* the findings say why */
	pair_render(f, doc);
}

static int self_exe(struct rails_run *x)
{
	ssize_t n = readlink("/proc/self/exe", x->exe, sizeof(x->exe) - 1);

	if (n <= 0) {
		fc_err("cannot find this fabcheck binary (/proc/self/exe): %m");
		return -errno;
	}
	x->exe[n] = 0;
	return 0;
}

/*
 * Every rail by default and one found (or the ports not listed): that rail
 * runs as one port, with the matching's notes (@rail < 0: the first active
 * port, the listing having failed).
 */
static int one_port(struct fc_ctx *ctx, struct rails_run *x, int rail)
{
	struct pair_cfg *cfg = x->cfg;
	json_t *notes = json_pack("{s:[], s:[]}", "notes", "findings");
	const json_t *v;
	size_t i;
	int rc;

	if (rail < 0) {
		json_array_foreach(json_object_get(x->doc, "findings"), i, v)
			pair_qos_note(notes, "%s; testing the first active port, not every rail",
				      json_string_value(v));
		if (!json_array_size(json_object_get(x->doc, "findings")))
			pair_qos_note(notes, "%s and %s share no rail: testing the first active port",
				      cfg->node[0], cfg->node[1]);
	} else {
		for (int f = 0; f < x->map.nfindings; f++) {
			const struct fc_rail_finding *rf = &x->map.findings[f];
			const char *key = rf->sev == FC_RAIL_FAIL ? "fail" :
					  rf->sev == FC_RAIL_WARN ? "findings" : "notes";

			if (!json_object_get(notes, key))
				json_object_set_new(notes, key, json_array());
			json_array_append_new(json_object_get(notes, key), json_string(rf->text));
		}
		json_object_set_new(notes, "rails_matched",
				    json_pack("{s:i, s:s, s:s}", "rails", 1, "matched_by",
					      fc_rail_by_name(x->map.by), "subnet",
					      x->map.rails[0].subnet));
		for (int k = 0; k < 2; k++) {
			const struct fc_rail_port *p = fc_rail_port_of(&x->map, x->nodes, k, rail);

			snprintf(cfg->dev[k], sizeof(cfg->dev[k]), "%s", p->dev);
			cfg->port[k] = p->port;
		}
		cfg->dev_given = 1;
	}
	if (!json_array_size(json_object_get(notes, "notes")))
		json_object_del(notes, "notes");
	cfg->rails = NULL;
	cfg->rail_notes = notes;
	json_decref(x->doc);
	fc_rail_map_release(&x->map);
	rc = pair_run(ctx, cfg);
	cfg->rail_notes = NULL;
	json_decref(notes);
	return rc;
}

/* --save-evidence DIR: made (or taken) as an evidence folder here, each
 * rail's pair writing its own DIR/alone-railN and DIR/loaded-railN. */
static int rails_evidence(struct rails_run *x)
{
	int fd = strlen(x->cfg->evidence_dir) > 990 ? -ENAMETOOLONG :
		 fc_evdir_open(x->cfg->evidence_dir);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	fc_finding(x->doc, FC_FAIL, "--save-evidence %s: %s", x->cfg->evidence_dir,
		   fd == -ENAMETOOLONG ? "the folder name is over 990 bytes; give a shorter one" :
					 "refused (see above)");
	/* as the one-port pair and the matrix: the folder cannot be used */
	raise_exit(x, fd == -ENAMETOOLONG ? FC_EXIT_USAGE : FC_EXIT_CANT);
	return fd;
}

int pair_rails_run(struct fc_ctx *ctx, struct pair_cfg *cfg)
{
	struct rails_run x = { .cfg = cfg };
	int idx[FC_RAIL_MAX], rc;

	snprintf(cfg->label[0], sizeof(cfg->label[0]), "%s", cfg->node[0]);
	snprintf(cfg->label[1], sizeof(cfg->label[1]), "%s", cfg->node[1]);
	x.doc = fc_doc_new();
	json_object_set_new(x.doc, "nodes", json_pack("[s, s]", cfg->node[0], cfg->node[1]));
	json_object_set_new(x.doc, "counters", json_object());
	json_object_set_new(x.doc, "options",
			    json_pack("{s:s, s:s?, s:f, s:b}", "rails", cfg->rails, "exclude_dev",
				      cfg->exclude_dev, "min_loaded_pct", cfg->min_loaded_pct,
				      "loaded_only", cfg->loaded_only));
	if (cfg->evidence_dir && rails_evidence(&x))
		goto out_emit;
	if (self_exe(&x) || list_ports(&x)) {
		if (cfg->rails_default)
			return one_port(ctx, &x, -1);
		goto out_emit;
	}
	if (match(&x)) {
		json_decref(x.doc);
		fc_rail_map_release(&x.map);
		return FC_EXIT_USAGE;
	}
	if (cfg->rails_default && x.map.nrails < 2)
		return one_port(ctx, &x, x.map.nrails ? 0 : -1);
	if (!x.map.nrails) {
		fc_finding(x.doc, FC_FAIL, "%s and %s share no rail: no active port of the fabric's "
			   "link layer on a network both reach", cfg->node[0], cfg->node[1]);
		raise_exit(&x, FC_EXIT_CANT);
		goto out_emit;
	}
	for (int r = 0; r < x.map.nrails; r++)
		idx[r] = r;
	if (!cfg->loaded_only || x.map.nrails == 1)
		for (int r = 0; r < x.map.nrails; r++)
			run_phase(&x, &idx[r], 1, x.alone);
	if (x.map.nrails > 1)
		run_phase(&x, idx, x.map.nrails, x.loaded);
	build_doc(&x);
	own_fault_exit(&x);
	json_object_set_new(x.doc, "thresholds",
			    json_deep_copy(json_object_get(x.alone[0] ? x.alone[0] : x.loaded[0],
							   "thresholds")));
	pair_ev_rails(x.doc, x.alone, x.loaded, x.map.nrails);

out_emit:
	for (int r = 0; r < FC_RAIL_MAX; r++) {
		json_decref(x.alone[r]);
		json_decref(x.loaded[r]);
	}
	fc_rail_map_release(&x.map);
	pair_judge_baseline(cfg, x.doc);
	pair_store_run(cfg, x.doc);
	rc = fc_emit(ctx, x.doc, rails_render);
	return x.exit ? x.exit : rc;
}
