/*
 * fabcheck pair's controller: its messages with the two workers. A reply
 * awaited (with the evidence that may come before it), a worker's error
 * turned into a finding that names the node, a worker gone, a signal.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/log.h"
#include "core/names.h"
#include "core/out.h"
#include "core/util.h"
#include "ctl/child.h" /* fc_stop */
#include "pair/pair_run_int.h"

/* Records an infrastructure or worker failure; returns -EIO. */
int prun_fail(struct pair_run *p, int code, const char *fmt, const char *a, const char *b)
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
int prun_interrupted(struct pair_run *p)
{
	size_t n = json_array_size(json_object_get(p->doc, "results"));

	return prun_fail(p, FC_EXIT_CANT, "interrupted by %s%s", fc_stop_name(fc_stop_sig),
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
	prun_fail(p, !strcmp(kind, "fail") ? FC_EXIT_FAIL : FC_EXIT_CANT, "%s%s", msg, "");
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
	return prun_fail(p, FC_EXIT_CANT, "%s%s", p->chans[idx]->why, "");
}

int prun_expect(struct pair_run *p, int side, const char *type, json_t **msg_p)
{
	json_t *m;
	int failed, err;
	char why[300];

	/* "evidence" may come before any reply: kept, then the reply awaited */
	while (!(err = fc_chan_recv_grace(p->chans, 2, side, p->cfg->timeout, PRUN_GRACE_S, &m,
						  &failed)) &&
	       !strcmp(fc_wire_type(m), "evidence")) {
		err = pair_ev_absorb(p->ev[side], &p->ev_used[side], m, why, sizeof(why));
		json_decref(m);
		if (err)
			return prun_fail(p, FC_EXIT_CANT, "%s: refused: %s", p->cfg->label[side], why);
	}
	if (err == -EINTR)
		return prun_interrupted(p);
	if (err == -ETIME && failed == side) {
		if (p->in_test)
			return -ETIME; /* judged by slow_link() */

		snprintf(why, sizeof(why),
			 "no '%s' from the worker by the run's deadline (--deadline %.0f s)%s; give a longer --deadline",
			 type, p->cfg->deadline,
			 json_array_size(json_object_get(p->doc, "results")) ?
				 ": the tests finished before it are kept" : "");
		return prun_fail(p, FC_EXIT_CANT, "%s: %s", p->cfg->label[side], why);
	}
	if (err && failed != side)
		return report_gone(p, failed);
	if (err)
		return prun_fail(p, FC_EXIT_CANT, "%s%s", p->chans[failed]->why, "");
	if (!strcmp(fc_wire_type(m), "error"))
		return worker_error(p, side, m);
	if (strcmp(fc_wire_type(m), type)) {
		char msg[300];

		snprintf(msg, sizeof(msg), "the worker answered '%s' where '%s' was due",
			 fc_wire_type(m), type);
		prun_fail(p, FC_EXIT_CANT,
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

int prun_send_both(struct pair_run *p, const char *type, json_t *body0, json_t *body1)
{
	int err = 0;

	for (int i = 0; i < 2 && !err; i++)
		if (fc_chan_send(p->chans[i], type, i ? body1 : body0)) {
			err = prun_fail(p, FC_EXIT_CANT, "%s%s", p->chans[i]->why, "");
		}
	json_decref(body0);
	if (body1 != body0)
		json_decref(body1);
	return err;
}
