/*
 * fabcheck pair's controller: the tests. Each one: test -> ready -> go ->
 * result on both sides, the clocks read for a both-way test, the result's
 * entry, --validate's check, and a link too slow to finish by the deadline.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "core/out.h"
#include "core/util.h"
#include "ctl/child.h" /* fc_stop */
#include "pair/pair_run_int.h"
#include "verbs/test.h"

/* How far @side's clock is ahead of ours: the reading with the shortest
 * round trip of a few, within half that round trip (*err_p). */
static int clock_offset(struct pair_run *p, int side, double *off_p, double *err_p)
{
	double best = -1;

	for (int k = 0; k < 5; k++) {
		double t1 = fc_now(), t2, now;
		json_t *m;

		if (fc_chan_send(p->chans[side], "clock", NULL))
			return prun_fail(p, FC_EXIT_CANT, "%s%s", p->chans[side]->why, "");
		if (prun_expect(p, side, "clock", &m))
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
			return prun_fail(p, FC_EXIT_CANT, "%s%s", p->chans[i]->why, "");
		if (prun_expect(p, i, "checked", &m))
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
	char sz[32], rate[96], when[256], moved[160];

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
	} else {
		json_object_set_new(e, "gbps", json_real(total));
		json_object_set_new(e, "qps", json_integer(p->cfg->qps));
		json_object_set_new(e, "bidir", json_boolean(p->cfg->bidir));
	}
	pair_rate_text(rate, sizeof(rate), lat, done, secs, total);
	json_array_append_new(json_object_get(p->doc, "results"), e);
	if (p->deadline_at > 0 && fc_now() >= p->deadline_at)
		snprintf(when, sizeof(when), "the run's deadline (--deadline %.0f s)", p->cfg->deadline);
	else if (p->ch[0].test_until > fc_now()) /* progress came, its count did not grow: */
		/* twice the whole wait past its last growth (ctl/chan.c chan_recv) */
		snprintf(when, sizeof(when), "%.0f s (twice the wait: --timeout %.0f s, then %.0f s for the worker's own report) with the count of messages done not growing, the worker sending only progress,",
			 2 * (p->cfg->timeout + PRUN_GRACE_S), p->cfg->timeout, (double)PRUN_GRACE_S);
	else if (p->ch[0].test_until - go_at >= p->cfg->timeout + PRUN_GRACE_S)
		/* progress kept the wait going up to the test's own deadline */
		snprintf(when, sizeof(when), "the test's own deadline (%.0f s: its length at %.0f Mbit/s and %.0f ms a message, and --timeout)",
			 p->ch[0].test_until - go_at, PAIR_FLOOR_BPS / 1e6, PAIR_FLOOR_MSG_S * 1e3);
	else /* a wait is never shorter than one (ctl/chan.c chan_recv) */
		snprintf(when, sizeof(when), "the end of the wait (%.0f s: --timeout %.0f s, then %.0f s for the worker's own report; the test's own deadline, %.0f s, came before it)",
			 p->cfg->timeout + PRUN_GRACE_S, p->cfg->timeout, (double)PRUN_GRACE_S,
			 p->ch[0].test_until - go_at);
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
	if (prun_send_both(p, "test", msg[0], msg[1]) || prun_expect(p, 0, "ready", NULL) ||
	    prun_expect(p, 1, "ready", NULL))
		return -EIO;
	rail_sync(p);
	if (prun_send_both(p, "go", NULL, NULL))
		return -EIO;
	go_at = fc_now();
	for (int i = 0; i < 2; i++) {
		p->ch[i].progress_done = p->ch[i].progress_at = 0;
		p->ch[i].test_until = go_at + pair_test_budget(cfg, lat, iters, duration, size);
	}
	p->in_test = 1;
	for (int i = 0; i < 2 && !err; i++)
		err = prun_expect(p, i, "result", &res[i]);
	p->in_test = 0;
	for (int i = 0; i < 2 && !err; i++)
		if (pair_result_check(res[i], why, sizeof(why)))
			err = prun_fail(p, FC_EXIT_CANT, "%s: refused its result: %s", cfg->label[i], why);
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

int prun_tests(struct pair_run *p)
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
				if (fc_stop ? prun_interrupted(p) : run_one(p, (enum vb_op)op, lat, sizes[k]))
					return -EIO;
		}
	}
	return 0;
}
