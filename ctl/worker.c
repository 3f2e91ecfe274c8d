/*
 * fabcheck worker: one side of a pair test, driven by the controller over
 * stdin/stdout (one wire message a line). Logs go to stderr, which the
 * controller never parses. When stdin closes the worker frees what it holds
 * and exits.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fc.h"
#include "core/log.h"
#include "core/out.h"
#include "core/pairv.h"
#include "core/stats.h"
#include "core/util.h"
#include "core/wire.h"
#include "src/cmds.h"
#include "verbs/cm.h"
#include "verbs/test.h"
#include "ctl/wk_io.h"
#include "ctl/worker_ev.h"
#include "ctl/worker_gdr.h"
#include "ctl/worker_qos.h"

const char usage_worker[] =
	"usage: fabcheck worker\n"
	"\n"
	"Internal: one side of 'fabcheck pair', started by the controller through ssh\n"
	"(or --launcher local). It reads wire messages on stdin and answers on stdout.\n";

struct worker {
	struct fc_wk_io io;
	char node[128];
	char prefix[192];
	struct vb_res r;
	struct wk_mem mem;
	struct wk_qos qos;
	int ev_before; /* the "before" evidence went out: "after" is due */
	int ev_during; /* the PCIe reading during a test went out */
	/* The error came from this node's RDMA device, its port or the path
	 * over its rail (setting up: 1; connecting to the peer: 2): a fault of
	 * the node's, error kind "node", apart from "cant" (the worker could
	 * not run: its options, memory, the controller). Connecting also
	 * depends on the peer and the path, so its message says "stage":
	 * "connect" (pair_msg.c keeps it apart from the node's own device). */
	int node_fault;
	/* The device and port the setup asked for (after the GPU's nearest
	 * HCA was chosen): "" and 0 when any would do. */
	char asked_dev[64];
	int asked_port;
};

/* Whether @err from setting up or connecting the RDMA device is the
 * device's, its port's or its rail's (verbs/res.c: no device -ENODEV, the
 * port not active -ENETDOWN; verbs/cm.c: the peer's address not reached
 * over the rail -ETIMEDOUT, refused -ECONNREFUSED...), not the host's
 * memory (-ENOMEM) nor options or a message that made no sense. */
static int rdma_fault(int err)
{
	return err && err != -ENOMEM && err != -EINVAL && err != -EPROTO && err != -E2BIG;
}

/* A fault of the node's own ("node"): the device and port it tried, for
 * the drain that names them (pair_msg.c "node_fault_port"): the port it
 * opened when one was picked, else the device and port the setup asked
 * for, else nothing (no device at all: the worker cannot say which). */
static void fault_port(const struct worker *w, json_t *m)
{
	const char *dev = w->r.pi ? w->r.pi->dev : w->asked_dev;
	int port = w->r.pi ? w->r.pi->port : w->asked_port;

	if (!dev[0])
		return;
	json_object_set_new(m, "device", json_string(dev));
	if (port > 0)
		json_object_set_new(m, "port", json_integer(port));
}

static int wk_error(struct worker *w, const char *kind, const char *fallback)
{
	json_t *m = json_pack("{s:s, s:s}", "kind", kind, "msg", fc_wk_last_error(fallback));

	if (m && w->node_fault == 2 && !strcmp(kind, "node"))
		json_object_set_new(m, "stage", json_string("connect"));
	if (m && !strcmp(kind, "node"))
		fault_port(w, m);
	return fc_wk_send(&w->io, "error", m);
}

/* During a test: stop when stdin closed or something other than a ping came. */
static int wk_abort(void *arg)
{
	struct worker *w = arg;

	return fc_wk_poll_abort(&w->io, "a test");
}

static void wk_ev_src_of(const struct worker *w, struct wk_ev_src *src)
{
	*src = (struct wk_ev_src){ .dev = w->r.pi->dev, .port = w->r.pi->port,
				   .netdev = w->r.pi->netdev, .ib = !w->r.pi->is_ethernet,
				   .gpu_bdf = w->mem.dev_open ? w->mem.dev.gpu.bus_id : NULL,
				   .gid_index = w->r.gid_index };
}

static int ev_send(void *arg, json_t *body);

/* The first progress of a test comes a second into it: the PCIe links are
 * read then, under load, once ("during", doc/diagnose.md). */
static void wk_progress(void *arg, uint64_t done)
{
	struct worker *w = arg;

	fc_wk_send(&w->io, "progress", json_pack("{s:I}", "done", (json_int_t)done));
	if (w->ev_before && !w->ev_during && done > 0) {
		struct wk_ev_src src;
		json_t *snap;

		w->ev_during = 1;
		wk_ev_src_of(w, &src);
		snap = wk_ev_read_pcie(&src);
		wk_ev_send(snap, "during", ev_send, w);
		json_decref(snap);
	}
}

static int opts_from(const json_t *m, struct vb_opts *o)
{
	memset(o, 0, sizeof(*o));
	snprintf(o->dev, sizeof(o->dev), "%s", fc_jstr(m, "dev", ""));
	o->port = (int)fc_jnum(m, "port", 0);
	o->gid_index = (int)fc_jnum(m, "gid_index", -1);
	o->nqps = (int)fc_jnum(m, "qps", 1);
	o->max_size = (uint64_t)fc_jnum(m, "max_size", 65536);
	o->tx_depth = (int)fc_jnum(m, "tx_depth", 128);
	o->rx_depth = (int)fc_jnum(m, "rx_depth", 0);
	o->timeout = fc_jnum(m, "timeout", 30);
	o->tclass = (int)fc_jnum(m, "tclass", -1);
	o->sl = (int)fc_jnum(m, "sl", -1);
	o->nthreads = (int)fc_jnum(m, "threads", 1);
	if (o->nthreads < 1 || o->nthreads > VB_MAX_CQSETS || o->tclass < -1 || o->tclass > 255 || o->sl < -1 || o->sl > 15 || o->nqps < 1 || o->nqps > VB_MAX_QPS || o->max_size < 2 ||
	    o->max_size > (1ULL << 30) || o->tx_depth < 1 || o->tx_depth > 8192 ||
	    o->rx_depth < 0 || o->rx_depth > 8192 ||
	    o->timeout <= 0 || o->port < 0 || o->port > 255 || o->gid_index < -1) {
		fc_err("the controller's setup message is out of range");
		return -EPROTO;
	}
	return 0;
}

static int ev_send(void *arg, json_t *body)
{
	struct worker *w = arg;

	return fc_wk_send(&w->io, "evidence", body);
}

/* The port's evidence (ctl/worker_ev.h) as "evidence" messages. */
static int wk_evidence(struct worker *w, const char *phase)
{
	struct wk_ev_src src;
	json_t *snap;
	int err;

	wk_ev_src_of(w, &src);
	snap = wk_ev_read(&src);
	err = wk_ev_send(snap, phase, ev_send, w);

	json_decref(snap);
	w->ev_before = !err && !strcmp(phase, "before");
	return err;
}

static int wk_setup(struct worker *w, const json_t *m)
{
	const char *cm = fc_jstr(m, "cm", "");
	struct vb_opts o;
	json_t *rep;
	int err;

	if ((err = opts_from(m, &o)))
		return err;
	if ((err = wk_mem_setup(&w->mem, m, &o, &w->r, w->node)))
		return err;
	snprintf(w->asked_dev, sizeof(w->asked_dev), "%s", o.dev);
	w->asked_port = o.port;
	if (!strcmp(cm, "server"))
		err = vb_cm_listen(&w->r, &o);
	else if (!strcmp(cm, "client"))
		err = vb_cm_client(&w->r, &o, fc_jstr(m, "server_addr", ""),
				   (int)fc_jnum(m, "server_port", 0));
	else if (!(err = vb_res_pick(&w->r, &o)))
		err = vb_res_open(&w->r, &o, NULL);
	if (err) {
		w->node_fault = rdma_fault(err);
		return err;
	}
	w->r.abort_cb = wk_abort;
	w->r.progress_cb = wk_progress;
	w->r.cb_arg = w;
	wk_qos_before(&w->qos, &w->r);
	if ((err = wk_evidence(w, "before")))
		return err;
	rep = vb_res_json(&w->r);
	/* Absolute link-flap counts: a soak compares them across its slices. */
	json_object_set(rep, "link_downed", json_object_get(w->qos.hw_before, "link_downed"));
	json_object_set(rep, "netdev_carrier_changes",
			json_object_get(w->qos.hw_before, "netdev_carrier_changes"));
	vb_cm_json(&w->r, rep);
	wk_mem_report(&w->mem, &w->r, rep);
	if (w->mem.opts.validate)
		w->r.rx_cap = vb_val_rx_cap(&w->r, o.max_size);
	return fc_wk_send(&w->io, "setup", rep);
}

static int wk_connect(struct worker *w, const json_t *m)
{
	struct vb_peer peer;
	char why[256];
	int err, tclass, sl;
	json_t *rep;

	if (vb_peer_from_json(json_object_get(m, "peer"), &peer, why, sizeof(why))) {
		fc_err("the peer's %s", why);
		return -EPROTO;
	}
	if (w->r.ec)
		err = vb_cm_connect(&w->r, &peer, (int)fc_jnum(m, "path_mtu", 0));
	else
		err = vb_res_connect(&w->r, &peer, (int)fc_jnum(m, "path_mtu", 0));
	if (err) {
		w->node_fault = rdma_fault(err) ? 2 : 0;
		return err;
	}
	rep = json_pack("{s:i}", "path_mtu", w->r.path_mtu);
	/* What the QP really carries, not what was asked for. */
	if (!vb_qp_qos(&w->r, &tclass, &sl)) {
		json_object_set_new(rep, "qp_tclass", tclass >= 0 ? json_integer(tclass) : json_null());
		json_object_set_new(rep, "qp_sl", json_integer(sl));
	}
	return fc_wk_send(&w->io, "connected", rep);
}

static int test_from(const json_t *m, struct vb_test *t)
{
	memset(t, 0, sizeof(*t));
	if (vb_op_parse(fc_jstr(m, "op", ""), &t->op)) {
		fc_err("the controller asked for an unknown test '%s'", fc_jstr(m, "op", ""));
		return -EPROTO;
	}
	t->lat = !strcmp(fc_jstr(m, "metric", ""), "lat");
	t->size = (uint64_t)fc_jnum(m, "size", 0);
	t->iters = (uint64_t)fc_jnum(m, "iters", 0);
	t->duration = fc_jnum(m, "duration", 0);
	t->active = json_is_true(json_object_get(m, "active"));
	t->passive = json_is_true(json_object_get(m, "passive"));
	t->interval = fc_jnum(m, "interval", 0.1);
	if (vb_method_parse(fc_jstr(m, "method", "fabcheck"), &t->method)) {
		fc_err("the controller asked for an unknown method '%s'", fc_jstr(m, "method", ""));
		return -EPROTO;
	}
	/* The knobs: absent or -1 is the method's default. */
	t->warmup = (int)fc_jnum(m, "warmup", VB_KNOB_DEFAULT);
	t->cq_mod = (int)fc_jnum(m, "cq_mod", VB_KNOB_DEFAULT);
	t->inline_max = (int)fc_jnum(m, "inline", VB_KNOB_DEFAULT);
	t->cycle = VB_CYCLE_DEFAULT;
	t->post_list = (int)fc_jnum(m, "post_list", 1);
	t->threads = (int)fc_jnum(m, "threads", 1);
	t->lat_mode = !strcmp(fc_jstr(m, "lat_mode", "poll"), "imm") ? VB_LAT_IMM : VB_LAT_POLL;
	t->all_sizes = json_is_true(json_object_get(m, "all_sizes"));
	if (t->warmup < VB_KNOB_ON || t->warmup > 100000000 || t->cq_mod < -1 || t->cq_mod > 8192 ||
	    t->inline_max < -1 || t->inline_max > 4096 || t->post_list < 1 ||
	    t->post_list > 1024 || t->threads < 1 || t->threads > VB_MAX_THREADS) {
		fc_err("the controller's test knobs are out of range");
		return -EPROTO;
	}
	if (t->size < 2 || t->size > (1ULL << 30) || (!t->iters && t->duration <= 0) ||
	    t->interval <= 0) {
		fc_err("the controller's test message is out of range");
		return -EPROTO;
	}
	return 0;
}

static json_t *result_json(const struct vb_test *t, struct vb_result *res)
{
	json_t *o = json_pack("{s:f, s:I, s:I, s:I}", "seconds", res->seconds, "bytes",
			      (json_int_t)res->bytes, "msgs", (json_int_t)res->msgs, "posted",
			      (json_int_t)res->posted);

	/* What ran: the method and its knobs as resolved. */
	json_object_set_new(o, "method", json_pack("{s:s, s:i, s:i, s:i, s:s}", "name",
						   vb_method_name(t->method), "warmup", t->warmup,
						   "cq_mod", t->cq_mod, "inline", t->inline_max,
						   "buffer", t->cycle == VB_CYCLE_PAGE ? "per_qp" : "slots"));
	json_object_set_new(json_object_get(o, "method"), "post_list", json_integer(t->post_list));
	json_object_set_new(json_object_get(o, "method"), "threads", json_integer(t->threads));
	/* What the knobs' rule changed (verbs/knobs.c). */
	if (t->note[0])
		json_object_set_new(json_object_get(o, "method"), "note", json_string(t->note));
	/* --validate: every message this side posted, the warm-up's too. */
	if (t->val) {
		json_object_set_new(o, "validate_sent", json_integer((json_int_t)t->val->sent));
		/* the rate this side's checking confirms at most (its threads) */
		json_object_set_new(o, "validate_crc_gbps", json_real(t->val->crc_gbps * t->threads));
		/* GPU memory: the copy each check makes, and the two in series */
		if (t->val->copy_gbps > 0)
			json_object_set_new(o, "validate_copy_gbps",
					    json_real(t->val->copy_gbps * t->threads));
		json_object_set_new(o, "validate_check_gbps",
				    json_real(vb_val_ceiling(t->val->crc_gbps, t->val->copy_gbps) *
					      t->threads));
	}
	if (t->lat && t->active && res->lat.n) {
		fc_lat_hist_json(o, &res->lat, t->method == VB_METHOD_PERFTEST ? FC_LAT_PERFTEST :
										 FC_LAT_FABCHECK);
	} else if (!t->lat && t->active) {
		json_t *s = json_array();

		for (size_t i = 0; i < res->nsamples; i++)
			json_array_append_new(s, json_real(res->samples[i]));
		json_object_set_new(o, "samples_gbps", s);
		json_object_set_new(o, "gbps", json_real(fc_gbps(res->bytes, res->seconds)));
		/* --perftest: perftest's BW peak; one above the fastest port is a
		 * stretch shorter than the clock can tell, not a figure */
		if (res->peak_gbps > 0 && res->peak_gbps <= FC_GBPS_MAX)
			json_object_set_new(o, "peak_gbps", json_real(res->peak_gbps));
		if (res->have_bw)
			fc_bwlog_json(&res->bw, o);
	}
	return o;
}

static int wk_test(struct worker *w, const json_t *m)
{
	struct vb_result res;
	struct vb_test t;
	json_t *go;
	int err;

	if ((err = test_from(m, &t)))
		return err;
	if ((err = vb_test_resolve(&w->r, &t)))
		return err;
	if ((err = wk_mem_prepare(&w->mem, &w->r, &t)))
		return err;
	if ((err = vb_test_prepare(&w->r, &t)))
		return err;
	if ((err = fc_wk_send(&w->io, "ready", NULL)) || (err = fc_wk_recv(&w->io, "go", &go)))
		return err;
	json_decref(go);
	err = vb_test_run(&w->r, &t, &res);
	if (!err)
		err = fc_wk_send(&w->io, "result", result_json(&t, &res));
	else
		err = -EIO;
	vb_result_release(&res);
	return err;
}

/* --validate: what the last test left in the receive half. */
static int wk_check(struct worker *w)
{
	json_t *rep = json_object();
	int err = wk_mem_verify(&w->mem, &w->r, rep);

	if (err) {
		json_decref(rep);
		return err;
	}
	return fc_wk_send(&w->io, "checked", rep);
}

static int wk_finish(struct worker *w)
{
	json_t *notes, *counters = wk_qos_after(&w->qos, &w->r, &notes);

	if (wk_evidence(w, "after")) {
		json_decref(counters);
		json_decref(notes);
		return -EPIPE;
	}
	return fc_wk_send(&w->io, "finish", json_pack("{s:o, s:o}", "counters", counters, "notes", notes));
}

/* Runs the conversation; returns 0 after "finish", or -errno. */
static int wk_run(struct worker *w)
{
	json_t *m;
	int err;

	if ((err = fc_wk_hello(&w->io, "fabcheck worker", w->node, sizeof(w->node), w->prefix,
				 sizeof(w->prefix))))
		return err;
	if ((err = fc_wk_recv(&w->io, "setup", &m)))
		return err;
	err = wk_setup(w, m);
	json_decref(m);
	if (err)
		return err;
	if ((err = fc_wk_recv(&w->io, "connect", &m)))
		return err;
	err = wk_connect(w, m);
	json_decref(m);
	while (!err) {
		if ((err = fc_wk_recv(&w->io, NULL, &m)))
			break;
		if (!strcmp(fc_wire_type(m), "test")) {
			err = wk_test(w, m);
		} else if (!strcmp(fc_wire_type(m), "check")) {
			err = wk_check(w);
		} else if (!strcmp(fc_wire_type(m), "clock")) {
			/* The controller lines up the two nodes' clocks. */
			err = fc_wk_send(&w->io, "clock", json_pack("{s:f}", "now", fc_now()));
		} else if (!strcmp(fc_wire_type(m), "finish")) {
			json_decref(m);
			return wk_finish(w);
		} else {
			fc_err("unexpected '%s' message from the controller", fc_wire_type(m));
			w->io.in.proto_err = 1;
			err = -EPROTO;
		}
		json_decref(m);
	}
	return err;
}

int cmd_worker(struct fc_ctx *ctx, int argc, char **argv)
{
	struct worker w;
	int err;

	(void)ctx;
	memset(&w, 0, sizeof(w));
	if (fc_wk_begin(&w.io, "worker", argc, argv))
		return FC_EXIT_USAGE;
	srand48((long)getpid() ^ (long)(fc_now() * 1e6));
	err = wk_run(&w);
	/* a test that failed still shows what the port counted meanwhile */
	if (err && !w.io.in.eof && w.ev_before && !w.io.in.proto_err)
		wk_evidence(&w, "after");
	/* Only a failed data path is "fail"; the node's own RDMA device, port
	 * or rail that could not be set up or connected is "node"; a silent
	 * controller or the worker's own setup is neither ("cant"). */
	if (err && !w.io.in.eof)
		wk_error(&w, w.io.in.proto_err ? "protocol" : err == -EIO ? "fail" :
			     w.node_fault ? "node" : "cant",
			 strerror(-err));
	if (w.r.pi || w.r.ec)
		vb_cm_close(&w.r);
	vb_res_close(&w.r);
	wk_mem_close(&w.mem);
	wk_qos_release(&w.qos);
	fc_wk_end(&w.io);
	return err ? FC_EXIT_CANT : FC_EXIT_PASS;
}
