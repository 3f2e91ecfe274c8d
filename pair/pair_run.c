/*
 * fabcheck pair: the controller. Starts a worker on each node, relays the
 * setup reports, runs each test (test -> ready -> go -> result on both
 * sides), gathers the counters and judges. An error on either side ends
 * the run with a finding that names the node.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "core/out.h"
#include "core/util.h"
#include "ctl/child.h" /* fc_stop */
#include "diag/diag.h"
#include "gdr/numa.h"
#include "pair/pair.h"
#include "verbs/test.h"

struct pair_run {
	struct pair_cfg *cfg;
	struct fc_chan ch[2];
	struct fc_chan *chans[2];
	json_t *doc;
	json_t *setup[2];
	json_t *ev[2]; /* the workers' evidence (pair_ev.c) */
	size_t ev_used[2];
	int exit;
	int in_test; /* waiting for the results of a test under way */
	double deadline_at; /* --deadline as fc_now() time, 0: none */
};

/* Records an infrastructure or worker failure; returns -EIO. */
static int run_fail(struct pair_run *p, int code, const char *fmt, const char *a,
		    const char *b)
{
	char msg[1500];

	snprintf(msg, sizeof(msg), fmt, a, b);
	fc_err("%s", msg);
	fc_finding(p->doc, FC_FAIL, "%s", msg);
	if (code > p->exit)
		p->exit = code;
	return -EIO;
}

/* A signal came (fc_stop, pair_run's fc_stop_on_signals): the run ends
 * here, what finished before it is judged, kept and stored. */
static int interrupted(struct pair_run *p)
{
	size_t n = json_array_size(json_object_get(p->doc, "results"));

	return run_fail(p, FC_EXIT_CANT, "interrupted by %s%s", fc_stop_name(fc_stop_sig),
			n ? ": the results measured before it are kept, judged and stored" :
			    "; nothing was judged");
}

/* The device and port a worker's own fault was on (ctl/worker.c: the
 * port it opened, else the one asked for; absent when it could not say),
 * beside "node_fault" as "node_fault_port": {"device", "port"}, for the
 * drain that names the node's own device (matrix/mx_drain.c). A name that
 * is not a device name (core/names.h) is left out, said, never kept: the
 * fault stays the node's, with no device. */
static void fault_port(struct pair_run *p, int side, const json_t *m)
{
	const char *dev = fc_jstr(m, "device", NULL);
	json_int_t port = json_integer_value(json_object_get(m, "port"));
	char from[200];
	json_t *o;

	snprintf(from, sizeof(from), "%s's worker, the device of its own fault", p->cfg->label[side]);
	if (!dev || fc_name_check(FC_NAME_DEV, dev, from))
		return;
	o = json_pack("{s:s}", "device", dev);
	/* ports are 1..255 (ibv_port_attr's port_num is a uint8_t, 0 none) */
	if (o && port >= 1 && port <= 255)
		json_object_set_new(o, "port", json_integer(port));
	json_object_set_new(p->doc, "node_fault_port", o);
}

/* Turns a worker's "error" message into a finding; takes @m. */
static int worker_error(struct pair_run *p, int side, json_t *m)
{
	const char *kind = fc_jstr(m, "kind", "cant");
	char msg[1200];

	/* A data-path failure seen on one node may be the other's fault. */
	snprintf(msg, sizeof(msg), "%s: %s%s%s", p->cfg->label[side], fc_jstr(m, "msg", "?"),
		 strcmp(kind, "fail") ? "" : "; the peer in this test was ",
		 strcmp(kind, "fail") ? "" : p->cfg->label[1 - side]);
	/* A fault of that node's RDMA device, port or rail ("node",
	 * ctl/worker.c): no figure, so the pair still exits 3, but its
	 * document says whose it is ("node_fault"), for pair --rails and for
	 * the matrix's and soak's analyses, which name that node for it.
	 * Connecting ("stage": "connect") also depends on the peer and the
	 * path: "connect_fault", kept by pair --rails as a fail of the rail,
	 * named by no analysis (the matrix compares its nodes instead). */
	if (!strcmp(kind, "node")) {
		int connect = !strcmp(fc_jstr(m, "stage", ""), "connect");

		json_object_set_new(p->doc, connect ? "connect_fault" : "node_fault",
				    json_string(p->cfg->label[side]));
		if (!connect)
			fault_port(p, side, m);
	}
	run_fail(p, !strcmp(kind, "fail") ? FC_EXIT_FAIL : FC_EXIT_CANT, "%s%s", msg, "");
	json_decref(m);
	return -EIO;
}

/* The other worker went away while we waited: its last words, or its exit. */
static int report_gone(struct pair_run *p, int idx)
{
	json_t *m;
	int failed;

	while (!fc_chan_recv(p->chans, 2, idx, 1, &m, &failed)) {
		if (!strcmp(fc_wire_type(m), "error"))
			return worker_error(p, idx, m);
		if (!strcmp(fc_wire_type(m), "evidence")) /* read before it failed */
			pair_ev_absorb(p->ev[idx], &p->ev_used[idx], m, NULL, 0);
		json_decref(m);
	}
	return run_fail(p, FC_EXIT_CANT, "%s%s", p->chans[idx]->why, "");
}

static int expect(struct pair_run *p, int side, const char *type, json_t **msg_p)
{
	json_t *m;
	int failed, err;
	char why[300];

	/* "evidence" may come before any reply: kept, then the reply awaited */
	while (!(err = fc_chan_recv_grace(p->chans, 2, side, p->cfg->timeout, 2, &m, &failed)) &&
	       !strcmp(fc_wire_type(m), "evidence")) {
		err = pair_ev_absorb(p->ev[side], &p->ev_used[side], m, why, sizeof(why));
		json_decref(m);
		if (err)
			return run_fail(p, FC_EXIT_CANT, "%s: refused: %s", p->cfg->label[side], why);
	}
	if (err == -EINTR)
		return interrupted(p);
	if (err == -ETIME && failed == side) {
		if (p->in_test)
			return -ETIME; /* judged by slow_link() */

		snprintf(why, sizeof(why),
			 "no '%s' from the worker by the run's deadline (--deadline %.0f s)%s; give a longer --deadline",
			 type, p->cfg->deadline,
			 json_array_size(json_object_get(p->doc, "results")) ?
				 ": the tests finished before it are kept" : "");
		return run_fail(p, FC_EXIT_CANT, "%s: %s", p->cfg->label[side], why);
	}
	if (err && failed != side)
		return report_gone(p, failed);
	if (err)
		return run_fail(p, FC_EXIT_CANT, "%s%s", p->chans[failed]->why, "");
	if (!strcmp(fc_wire_type(m), "error"))
		return worker_error(p, side, m);
	if (strcmp(fc_wire_type(m), type)) {
		char msg[300];

		snprintf(msg, sizeof(msg), "the worker answered '%s' where '%s' was due",
			 fc_wire_type(m), type);
		run_fail(p, FC_EXIT_CANT,
			 "%s: protocol error: %s; install the same fabcheck on every node",
			 p->cfg->label[side], msg);
		json_decref(m);
		return -EPROTO;
	}
	if (msg_p)
		*msg_p = m;
	else
		json_decref(m);
	return 0;
}

static int send_both(struct pair_run *p, const char *type, json_t *body0, json_t *body1)
{
	int err = 0;

	for (int i = 0; i < 2 && !err; i++)
		if (fc_chan_send(p->chans[i], type, i ? body1 : body0)) {
			err = run_fail(p, FC_EXIT_CANT, "%s%s", p->chans[i]->why, "");
		}
	json_decref(body0);
	if (body1 != body0)
		json_decref(body1);
	return err;
}

static int start(struct pair_run *p)
{
	struct pair_cfg *cfg = p->cfg;
	json_t *m;

	for (int i = 0; i < 2; i++) {
		p->chans[i] = &p->ch[i];
		if (fc_chan_start(&p->ch[i], cfg->node[i], &cfg->launch))
			return run_fail(p, FC_EXIT_CANT, "%s%s", p->ch[i].why, "");
		p->ch[i].until = p->deadline_at;
	}
	for (int i = 0; i < 2; i++) {
		json_t *h = json_pack("{s:s, s:f}", "node", cfg->label[i], "timeout", cfg->timeout);
		int err = fc_chan_send(p->chans[i], "hello", h);

		json_decref(h);
		if (err)
			return run_fail(p, FC_EXIT_CANT, "%s%s", p->ch[i].why, "");
	}
	for (int i = 0; i < 2; i++) {
		if (expect(p, i, "hello", &m))
			return -EIO;
		fc_info("%s: worker %d (fabcheck %s) on host %s", cfg->label[i],
			(int)fc_jnum(m, "pid", 0), fc_jstr(m, "version", "?"), fc_jstr(m, "host", "?"));
		json_decref(m);
	}
	return 0;
}

static json_t *setup_msg(const struct pair_cfg *cfg, int i, uint64_t max_size)
{
	return json_pack("{s:s, s:i, s:i, s:i, s:I, s:i, s:i, s:f, s:o, s:i, s:i, s:i}", "dev",
			 cfg->dev[i], "port", cfg->port[i], "gid_index", cfg->gid[i], "qps",
			 cfg->qps, "max_size", (json_int_t)max_size, "tx_depth", cfg->tx_depth,
			 "rx_depth", pair_rx_depth(cfg), "timeout", cfg->timeout, "mem", gdr_opts_json(&cfg->mem), "tclass",
			 cfg->tclass, "sl", cfg->sl, "threads", cfg->threads);
}

/* The "a"/"b" objects of the report from a setup reply. */
static json_t *side_json(const char *label, const json_t *s)
{
	json_t *o = json_deep_copy(s);
	static const char *const internal[] = { "qpn", "psn", "rkey", "addr", "stride",
						"nslots", "rd_atom", "cm_addr", "cm_port" };

	for (size_t i = 0; i < sizeof(internal) / sizeof(internal[0]); i++)
		json_object_del(o, internal[i]);
	json_object_set_new(o, "node", json_string(label));
	return o;
}

static int setup(struct pair_run *p, uint64_t max_size)
{
	struct pair_cfg *cfg = p->cfg;
	int srv = 1, cli = 0; /* with --cm, B listens and A connects */

	if (!cfg->cm) {
		if (send_both(p, "setup", setup_msg(cfg, 0, max_size), setup_msg(cfg, 1, max_size)))
			return -EIO;
		for (int i = 0; i < 2; i++)
			if (expect(p, i, "setup", &p->setup[i]))
				return -EIO;
	} else {
		json_t *m = setup_msg(cfg, srv, max_size);

		json_object_set_new(m, "cm", json_string("server"));
		if (fc_chan_send(p->chans[srv], "setup", m))
			run_fail(p, FC_EXIT_CANT, "%s%s", p->ch[srv].why, "");
		json_decref(m);
		if (p->exit || expect(p, srv, "setup", &p->setup[srv]))
			return -EIO;
		m = setup_msg(cfg, cli, max_size);
		json_object_set_new(m, "cm", json_string("client"));
		json_object_set(m, "server_addr", json_object_get(p->setup[srv], "cm_addr"));
		json_object_set(m, "server_port", json_object_get(p->setup[srv], "cm_port"));
		if (fc_chan_send(p->chans[cli], "setup", m))
			run_fail(p, FC_EXIT_CANT, "%s%s", p->ch[cli].why, "");
		json_decref(m);
		if (p->exit || expect(p, cli, "setup", &p->setup[cli]))
			return -EIO;
	}
	for (int i = 0; i < 2; i++) /* names are data: checked before any use */
		if (pair_setup_names(p->setup[i]))
			return run_fail(p, FC_EXIT_CANT, "%s: %s", cfg->label[i],
					"the worker's setup names its port wrongly (see above)");
	json_object_set_new(p->doc, "a", side_json(cfg->label[0], p->setup[0]));
	json_object_set_new(p->doc, "b", side_json(cfg->label[1], p->setup[1]));
	gdr_side_findings(p->doc, json_object_get(p->doc, "a"));
	gdr_side_findings(p->doc, json_object_get(p->doc, "b"));
	gdr_numa_findings(p->doc, json_object_get(p->doc, "a"));
	gdr_numa_findings(p->doc, json_object_get(p->doc, "b"));
	return 0;
}

static int connect_both(struct pair_run *p)
{
	const char *ll0 = fc_jstr(p->setup[0], "link_layer", "?");
	const char *ll1 = fc_jstr(p->setup[1], "link_layer", "?");
	int m0 = (int)fc_jnum(p->setup[0], "mtu", 0), m1 = (int)fc_jnum(p->setup[1], "mtu", 0);
	int mtu = m0 < m1 ? m0 : m1;
	json_t *c0, *c1, *r;
	char why[1000];

	if (strcmp(ll0, ll1)) {
		char msg[400];

		snprintf(msg, sizeof(msg),
			 "link layers differ: %s is %s, %s is %s; RC QPs cannot connect across them: choose ports of one fabric with -d",
			 p->cfg->label[0], ll0, p->cfg->label[1], ll1);
		return run_fail(p, FC_EXIT_CANT, "%s%s", msg, "");
	}
	if (pair_gid_check(why, sizeof(why), json_object_get(p->doc, "a"),
			   json_object_get(p->doc, "b")))
		return run_fail(p, FC_EXIT_FAIL, "%s%s", why, "");
	c0 = json_pack("{s:O, s:i}", "peer", p->setup[1], "path_mtu", mtu);
	c1 = json_pack("{s:O, s:i}", "peer", p->setup[0], "path_mtu", mtu);
	if (send_both(p, "connect", c0, c1))
		return -EIO;
	for (int i = 0; i < 2; i++) {
		if (expect(p, i, "connected", &r))
			return -EIO;
		if (i == 0) {
			json_object_set_new(p->doc, "path_mtu",
					    json_integer((json_int_t)fc_jnum(r, "path_mtu", mtu)));
			pair_link_ceiling(p->doc, (int)fc_jnum(r, "path_mtu", mtu));
		}
		pair_qos_side(p->doc, p->cfg, i, r);
		json_decref(r);
	}
	return 0;
}

/* How far @side's clock is ahead of ours: the reading with the shortest
 * round trip of a few, within half that round trip (*err_p). */
static int clock_offset(struct pair_run *p, int side, double *off_p, double *err_p)
{
	double best = -1;

	for (int k = 0; k < 5; k++) {
		double t1 = fc_now(), t2, now;
		json_t *m;

		if (fc_chan_send(p->chans[side], "clock", NULL))
			return run_fail(p, FC_EXIT_CANT, "%s%s", p->chans[side]->why, "");
		if (expect(p, side, "clock", &m))
			return -EIO;
		t2 = fc_now();
		now = fc_jnum(m, "now", 0);
		json_decref(m);
		if (best < 0 || t2 - t1 < best) {
			best = t2 - t1;
			*off_p = now - (t1 + t2) / 2;
		}
	}
	if (best / 2 > *err_p)
		*err_p = best / 2;
	return 0;
}

/* @ans: the answering side's result (write and send), for its count. */
static void lat_entry(json_t *e, const json_t *res, const json_t *ans)
{
	static const char *const keys[] = { "min_us", "p50_us", "p90_us", "p99_us",
					    "p999_us", "max_us", "avg_us", "stdev_us" };

	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		json_object_set(e, keys[k], json_object_get(res, keys[k]));
	json_object_set_new(e, "samples", json_integer((json_int_t)fc_jnum(res, "msgs", 0)));
	if (!fc_jnum(e, "iters", 0)) /* by duration: the rounds it ran */
		json_object_set_new(e, "iters", json_integer((json_int_t)fc_jnum(res, "msgs", 0)));
	if (json_object_get(res, "notes"))
		json_object_set(e, "notes", json_object_get(res, "notes"));
	if (json_object_get(res, "pct_short"))
		json_object_set(e, "pct_short", json_object_get(res, "pct_short"));
	if (json_object_get(res, "stats_method"))
		json_object_set(e, "stats_method", json_object_get(res, "stats_method"));
	/* Every round the peer answered, the warm-up's among them: the
	 * samples are those less the warm-up (one fewer in perftest's method,
	 * which times from post to post). */
	if (ans)
		json_object_set_new(e, "rounds_answered",
				    json_integer((json_int_t)fc_jnum(ans, "msgs", 0)));
}

/* --validate: each side data went to checks what it holds against the
 * pattern, once both sides have finished. */
static int check_sinks(struct pair_run *p, json_t *e, enum vb_op op, uint64_t size,
		       const int *sink, json_t **res)
{
	uint64_t sent[2] = { (uint64_t)fc_jnum(res[0], "validate_sent", 0),
			     (uint64_t)fc_jnum(res[1], "validate_sent", 0) };
	json_t *m;

	for (int i = 0; i < 2; i++) {
		if (!sink[i])
			continue;
		if (fc_chan_send(p->chans[i], "check", NULL))
			return run_fail(p, FC_EXIT_CANT, "%s%s", p->chans[i]->why, "");
		if (expect(p, i, "checked", &m))
			return -EIO;
		/* Messages the other side sent (or, for read, this side read). */
		json_object_set_new(json_object_get(m, "validate"), "sent",
				    json_integer((json_int_t)sent[op == VB_READ ? i : 1 - i]));
		gdr_validate_findings(p->doc, p->cfg->label[i], vb_op_name(op), size,
				      json_object_get(m, "validate"));
		json_object_set(e, i ? "validate_b" : "validate_a", json_object_get(m, "validate"));
		json_decref(m);
		pair_val_ceiling(e, res[i]);
	}
	return 0;
}

/*
 * The run's deadline came while a test was under way: the link is slow. The
 * test's entry holds what the active side(s) had moved by their last
 * progress report ("complete": false), so the bandwidth verdict judges it.
 */
static void slow_link(struct pair_run *p, enum vb_op op, int lat, uint64_t size,
		      const int *active, double go_at)
{
	double done = 0, secs = fc_now() - go_at, planned = 0, total = 0, duration;
	uint64_t iters;
	json_t *e;
	char sz[32], rate[96], when[200], moved[160];

	/* the test's own length, defaults included (not cfg->iters: 0 there
	 * when the default or -D gave it) */
	pair_test_length(p->cfg, op, lat, &iters, &duration);
	e = json_pack("{s:s, s:s, s:I, s:I, s:b}", "test", vb_op_name(op), "metric",
		      lat ? "lat" : "bw", "size_bytes", (json_int_t)size, "iters", (json_int_t)iters,
		      "complete", 0);

	for (int i = 0; i < 2; i++) {
		struct fc_chan *c = &p->ch[i];
		int from = op == VB_READ ? 1 - i : i;

		if (!active[i] || (lat && i != (p->cfg->reverse ? 1 : 0)))
			continue;
		fc_chan_progress(c);
		done += c->progress_done;
		planned += lat ? (double)iters : (double)iters * p->cfg->qps;
		if (c->progress_at > go_at && !lat) {
			double g = c->progress_done * (double)size * 8 / (c->progress_at - go_at) / 1e9;

			json_object_set_new(e, from == 0 ? "a_to_b_gbps" : "b_to_a_gbps", json_real(g));
			total += g;
		}
		if (c->progress_at > go_at && c->progress_at - go_at < secs)
			secs = c->progress_at - go_at;
	}
	json_object_set_new(e, "messages_done", json_integer((json_int_t)done));
	json_object_set_new(e, "seconds", json_real(secs));
	if (lat) {
		json_object_set_new(e, "avg_us", done > 0 ? json_real(secs / done * 1e6) : json_null());
		if (done > 0)
			snprintf(rate, sizeof(rate), "%.1f us a round trip", secs / done * 1e6);
		else
			snprintf(rate, sizeof(rate), "not one round trip");
	} else {
		json_object_set_new(e, "gbps", json_real(total));
		json_object_set_new(e, "qps", json_integer(p->cfg->qps));
		json_object_set_new(e, "bidir", json_boolean(p->cfg->bidir));
		snprintf(rate, sizeof(rate), "%.3g Gb/s", total);
	}
	json_array_append_new(json_object_get(p->doc, "results"), e);
	if (p->deadline_at > 0 && fc_now() >= p->deadline_at)
		snprintf(when, sizeof(when), "the run's deadline (--deadline %.0f s)", p->cfg->deadline);
	else if (p->ch[0].test_until > fc_now()) /* progress came, its count did not grow */
		snprintf(when, sizeof(when), "%.0f s (twice --timeout) with no message done, the worker sending only progress,",
			 2 * p->cfg->timeout);
	else /* progress kept the wait going up to the test's own deadline */
		snprintf(when, sizeof(when), "the test's own deadline (%.0f s: its length at %.0f Mbit/s and %.0f ms a message, and --timeout)",
			 p->ch[0].test_until - go_at, PAIR_FLOOR_BPS / 1e6, PAIR_FLOOR_MSG_S * 1e3);
	pair_moved_text(moved, sizeof(moved), done, planned, duration, lat ? "round trips" : "messages",
			secs);
	fc_finding(p->doc, FC_FAIL,
		   "%s %s at %s: the link is slow: %s (%s) when %s came; the tests finished before it are kept; check the port rate and error counters on both nodes (fabcheck devices, ibstat), or give a longer --deadline or fewer --iters",
		   vb_op_name(op), lat ? "latency" : "bandwidth",
		   fc_fmt_size(size, sz, sizeof(sz)), moved, rate, when);
}

/* --sync-fd: this test starts with the other rails' (pair --rails). Tells
 * the parent it is ready and waits for its go, pinging the workers so that
 * they keep waiting; the parent gives up on slow rails itself, and a closed
 * socket ends the lockstep. */
static void rail_sync(struct pair_run *p)
{
	double deadline = fc_now() + 10 * p->cfg->timeout;
	struct pollfd pfd = { .fd = p->cfg->sync_fd, .events = POLLIN };
	char b = 'r';

	if (pfd.fd < 0)
		return;
	if (write(pfd.fd, &b, 1) != 1)
		goto out_stop;
	while (fc_now() < deadline) {
		int n = poll(&pfd, 1, 1000);

		if (n < 0 && errno != EINTR)
			goto out_stop;
		if (n > 0)
			goto out_read;
		for (int i = 0; i < 2; i++)
			fc_chan_send(p->chans[i], "ping", NULL);
	}
	fc_warn("the other rails did not start this test within %.0f s; going on alone",
		10 * p->cfg->timeout);
	goto out_stop;
out_read:
	if (read(pfd.fd, &b, 1) == 1)
		return;
out_stop:
	close(pfd.fd);
	p->cfg->sync_fd = -1;
}

/* The data path knobs of a test message (verbs/test.h). */
static void test_knobs(const struct pair_cfg *cfg, int lat, json_t *m)
{
	if (cfg->cq_mod)
		json_object_set_new(m, "cq_mod", json_integer(cfg->cq_mod));
	if (cfg->inline_max != -2)
		json_object_set_new(m, "inline", json_integer(cfg->inline_max));
	json_object_set_new(m, "post_list", json_integer(cfg->post_list));
	json_object_set_new(m, "all_sizes", json_boolean(cfg->all_sizes));
	json_object_set_new(m, "threads", json_integer(lat ? 1 : cfg->threads));
	json_object_set_new(m, "lat_mode",
			    json_string(cfg->lat_mode == VB_LAT_IMM ? "imm" : "poll"));
}

static int run_one(struct pair_run *p, enum vb_op op, int lat, uint64_t size)
{
	struct pair_cfg *cfg = p->cfg;
	int init = cfg->reverse ? 1 : 0, active[2] = { 0 }, passive[2] = { 0 }, sink[2];
	json_t *msg[2], *res[2] = { NULL, NULL }, *e;
	double go_at;
	double duration, off[2] = { 0, 0 }, clock_err = 0;
	char why[200];
	uint64_t iters;
	int err = 0, synced;

	pair_test_length(cfg, op, lat, &iters, &duration);
	active[init] = 1;
	if (!lat) {
		active[1 - init] = cfg->bidir;
		/* Validated, a write carries an immediate value: the receiver
		 * takes a completion per message, as for a send. */
		if (op == VB_SEND || (op == VB_WRITE && cfg->mem.validate)) {
			passive[1 - init] = 1;
			passive[init] = cfg->bidir;
		}
	} else {
		passive[1 - init] = op != VB_READ;
	}
	for (int i = 0; i < 2; i++) {
		/* --validate: the side data flows to checks it; a latency
		 * ping-pong of writes or sends flows both ways. */
		sink[i] = cfg->mem.validate &&
			  (op == VB_READ ? active[i] : lat || cfg->bidir || !active[i]);
		msg[i] = json_pack("{s:s, s:s, s:I, s:I, s:f, s:b, s:b, s:f, s:s, s:i}", "op",
				   vb_op_name(op), "metric", lat ? "lat" : "bw", "size",
				   (json_int_t)size, "iters", (json_int_t)iters, "duration",
				   duration, "active", active[i], "passive", passive[i],
				   "interval", cfg->interval, "method",
				   vb_method_name((enum vb_method)cfg->method), "warmup", cfg->warmup);
		test_knobs(cfg, lat, msg[i]);
	}
	/* Both ways: each worker's clock against ours, to cut the window; in
	 * a round started with others (--sync-fd), the sending side's too, so
	 * that its curve can be put on the clock of the round's other flows. */
	synced = !lat && cfg->sync_fd >= 0;
	if (!lat && ((active[0] && active[1]) || synced) &&
	    ((active[0] && clock_offset(p, 0, &off[0], &clock_err)) ||
	     (active[1] && clock_offset(p, 1, &off[1], &clock_err))))
		return -EIO;
	if (send_both(p, "test", msg[0], msg[1]) || expect(p, 0, "ready", NULL) ||
	    expect(p, 1, "ready", NULL))
		return -EIO;
	rail_sync(p);
	if (send_both(p, "go", NULL, NULL))
		return -EIO;
	go_at = fc_now();
	for (int i = 0; i < 2; i++) {
		p->ch[i].progress_done = p->ch[i].progress_at = 0;
		p->ch[i].test_until = go_at + pair_test_budget(cfg, lat, iters, duration, size);
	}
	p->in_test = 1;
	for (int i = 0; i < 2 && !err; i++)
		err = expect(p, i, "result", &res[i]);
	p->in_test = 0;
	for (int i = 0; i < 2 && !err; i++)
		if (pair_result_check(res[i], why, sizeof(why)))
			err = run_fail(p, FC_EXIT_CANT, "%s: refused its result: %s", cfg->label[i], why);
	if (err == -ETIME)
		slow_link(p, op, lat, size, active, go_at);
	p->ch[0].test_until = p->ch[1].test_until = 0;
	if (!err) {
		e = json_pack("{s:s, s:s, s:I, s:I}", "test", vb_op_name(op), "metric",
			      lat ? "lat" : "bw", "size_bytes", (json_int_t)size, "iters",
			      (json_int_t)iters);
		json_object_set(e, "method", json_object_get(res[init], "method"));
		if (lat)
			lat_entry(e, res[init], passive[1 - init] ? res[1 - init] : NULL);
		else
			pair_bw_entry(p->doc, cfg, e, op, res, active, off, clock_err);
		if (!lat && synced)
			pair_bw_curves(e, op, res, active, off);
		if (lat && op == VB_WRITE)
			json_object_set_new(e, "lat_mode", json_string(cfg->lat_mode == VB_LAT_IMM ?
								       "imm" : "poll"));
		if (!lat && duration > 0)
			json_object_set_new(e, "duration_s", json_real(duration));
		if (!lat) {
			json_object_set_new(e, "qps", json_integer(cfg->qps));
			/* As the posting side ran them (capped by its device). */
			json_object_set(e, "threads", json_object_get(json_object_get(res[init], "method"),
								      "threads"));
			json_object_set(e, "post_list",
					json_object_get(json_object_get(res[init], "method"), "post_list"));
			json_object_set_new(e, "bidir", json_boolean(cfg->bidir));
		}
		/* What each side put on the wire, for the counters check. */
		json_object_set_new(e, "posted", json_pack("[I, I]", (json_int_t)fc_jnum(res[0], "posted", 0),
							   (json_int_t)fc_jnum(res[1], "posted", 0)));
		if (!lat)
			json_object_set_new(e, "timed_bytes",
					    json_pack("[I, I]", (json_int_t)fc_jnum(res[0], "bytes", 0),
						      (json_int_t)fc_jnum(res[1], "bytes", 0)));
		json_array_append_new(json_object_get(p->doc, "results"), e);
		/* Both sides are done: every byte has landed. */
		err = check_sinks(p, e, op, size, sink, res);
	}
	json_decref(res[0]);
	json_decref(res[1]);
	return err;
}

static int run_tests(struct pair_run *p)
{
	uint64_t sizes[PAIR_MAX_SIZES];

	for (int op = VB_WRITE; op <= VB_SEND; op++) {
		if (!(p->cfg->ops & (1u << op)))
			continue;
		for (int lat = 0; lat < 2; lat++) {
			int n;

			if (lat ? !p->cfg->lat : !p->cfg->bw)
				continue;
			n = pair_sizes(p->cfg, lat, sizes);
			for (int k = 0; k < n; k++)
				if (fc_stop ? interrupted(p) : run_one(p, (enum vb_op)op, lat, sizes[k]))
					return -EIO;
		}
	}
	return 0;
}

static int finish(struct pair_run *p)
{
	json_t *counters = json_object_get(p->doc, "counters"), *m, *note;
	size_t k;

	/* After "finish" a worker exits: that is no failure any more. */
	p->ch[0].expect_eof = p->ch[1].expect_eof = 1;
	if (send_both(p, "finish", NULL, NULL))
		return -EIO;
	for (int i = 0; i < 2; i++) {
		if (expect(p, i, "finish", &m))
			return -EIO;
		json_object_set(counters, p->cfg->label[i], json_object_get(m, "counters"));
		json_array_foreach(json_object_get(m, "notes"), k, note)
			if (json_is_string(note))
				pair_qos_note(p->doc, "%s: %s", p->cfg->label[i],
					      json_string_value(note));
		json_decref(m);
	}
	pair_qos_finish(p->doc, p->cfg);
	return 0;
}

/* Keeps the run in the SQLite store; a store that fails is a warning only. */
int pair_run(struct fc_ctx *ctx, struct pair_cfg *cfg)
{
	struct pair_run p = { .cfg = cfg };
	struct diag_set evs = { 0 };
	int err, rc, evi[2];

	snprintf(cfg->label[0], sizeof(cfg->label[0]), "%s", cfg->node[0]);
	snprintf(cfg->label[1], sizeof(cfg->label[1]), "%s%s", cfg->node[1],
		 strcmp(cfg->node[0], cfg->node[1]) ? "" : "#2");
	signal(SIGPIPE, SIG_IGN);
	/* SIGINT, SIGTERM, SIGHUP end the run at the next wait, not the
	 * process: what was measured before is judged, printed and stored */
	fc_stop_on_signals();
	p.doc = pair_new_doc(cfg);
	pair_knobs_notes(cfg, p.doc);
	p.ev[0] = json_object();
	p.ev[1] = json_object();
	if (cfg->deadline > 0)
		p.deadline_at = fc_now() + cfg->deadline;
	err = start(&p);
	if (!err)
		err = setup(&p, pair_largest_size(cfg));
	if (!err)
		err = connect_both(&p);
	if (!err)
		err = run_tests(&p);
	if (!err)
		err = finish(&p);
	for (int i = 0; i < 2; i++)
		if (p.chans[i])
			fc_chan_close(&p.ch[i], err ? 2 : 5);
	json_decref(p.setup[0]);
	json_decref(p.setup[1]);
	/* What finished is judged, whatever stopped the run later. */
	pair_ev_read(&evs, p.doc, p.ev, evi);
	pair_ev_ceilings(p.doc, &evs, evi);
	fc_pair_verdict(p.doc, &cfg->lim);
	pair_ev_finish(p.doc, &evs, p.ev, cfg);
	json_decref(p.ev[0]);
	json_decref(p.ev[1]);
	pair_judge_baseline(cfg, p.doc);
	pair_store_run(cfg, p.doc);
	ctx->stop_sig = fc_stop ? fc_stop_sig : 0; /* fc_out_finish ends as by it */
	rc = fc_emit(ctx, p.doc, pair_render);
	return p.exit ? p.exit : rc;
}
