/*
 * fabcheck pair: the controller. Starts a worker on each node, relays the
 * setup reports, runs each test (test -> ready -> go -> result on both
 * sides), gathers the counters and judges. An error on either side ends
 * the run with a finding that names the node. Its messages with the
 * workers are in pair/pair_msg.c, the tests in pair/pair_one.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "core/log.h"
#include "core/out.h"
#include "core/util.h"
#include "ctl/child.h" /* fc_stop */
#include "diag/diag.h"
#include "gdr/numa.h"
#include "pair/pair_run_int.h"
#include "verbs/test.h"

static int start(struct pair_run *p)
{
	struct pair_cfg *cfg = p->cfg;
	json_t *m;

	for (int i = 0; i < 2; i++) {
		p->chans[i] = &p->ch[i];
		if (fc_chan_start(&p->ch[i], cfg->node[i], &cfg->launch))
			return prun_fail(p, FC_EXIT_CANT, "%s%s", p->ch[i].why, "");
		p->ch[i].until = p->deadline_at;
	}
	for (int i = 0; i < 2; i++) {
		json_t *h = json_pack("{s:s, s:f}", "node", cfg->label[i], "timeout", cfg->timeout);
		int err = fc_chan_send(p->chans[i], "hello", h);

		json_decref(h);
		if (err)
			return prun_fail(p, FC_EXIT_CANT, "%s%s", p->ch[i].why, "");
	}
	for (int i = 0; i < 2; i++) {
		if (prun_expect(p, i, "hello", &m))
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
		if (prun_send_both(p, "setup", setup_msg(cfg, 0, max_size), setup_msg(cfg, 1, max_size)))
			return -EIO;
		for (int i = 0; i < 2; i++)
			if (prun_expect(p, i, "setup", &p->setup[i]))
				return -EIO;
	} else {
		json_t *m = setup_msg(cfg, srv, max_size);

		json_object_set_new(m, "cm", json_string("server"));
		if (fc_chan_send(p->chans[srv], "setup", m))
			prun_fail(p, FC_EXIT_CANT, "%s%s", p->ch[srv].why, "");
		json_decref(m);
		if (p->exit || prun_expect(p, srv, "setup", &p->setup[srv]))
			return -EIO;
		m = setup_msg(cfg, cli, max_size);
		json_object_set_new(m, "cm", json_string("client"));
		json_object_set(m, "server_addr", json_object_get(p->setup[srv], "cm_addr"));
		json_object_set(m, "server_port", json_object_get(p->setup[srv], "cm_port"));
		if (fc_chan_send(p->chans[cli], "setup", m))
			prun_fail(p, FC_EXIT_CANT, "%s%s", p->ch[cli].why, "");
		json_decref(m);
		if (p->exit || prun_expect(p, cli, "setup", &p->setup[cli]))
			return -EIO;
	}
	for (int i = 0; i < 2; i++) /* names are data: checked before any use */
		if (pair_setup_names(p->setup[i]))
			return prun_fail(p, FC_EXIT_CANT, "%s: %s", cfg->label[i],
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
		return prun_fail(p, FC_EXIT_CANT, "%s%s", msg, "");
	}
	if (pair_gid_check(why, sizeof(why), json_object_get(p->doc, "a"),
			   json_object_get(p->doc, "b")))
		return prun_fail(p, FC_EXIT_FAIL, "%s%s", why, "");
	c0 = json_pack("{s:O, s:i}", "peer", p->setup[1], "path_mtu", mtu);
	c1 = json_pack("{s:O, s:i}", "peer", p->setup[0], "path_mtu", mtu);
	if (prun_send_both(p, "connect", c0, c1))
		return -EIO;
	for (int i = 0; i < 2; i++) {
		if (prun_expect(p, i, "connected", &r))
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

static int finish(struct pair_run *p)
{
	json_t *counters = json_object_get(p->doc, "counters"), *m, *note;
	size_t k;

	/* After "finish" a worker exits: that is no failure any more. */
	p->ch[0].expect_eof = p->ch[1].expect_eof = 1;
	if (prun_send_both(p, "finish", NULL, NULL))
		return -EIO;
	for (int i = 0; i < 2; i++) {
		if (prun_expect(p, i, "finish", &m))
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
		err = prun_tests(&p);
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
