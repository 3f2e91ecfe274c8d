/*
 * fabcheck nccl run: the controller. One channel per rank (node-major:
 * rank = node * gpus_per_node + gpu). Steps, each sent to every rank and
 * answered by every rank before the next: hello, setup (rank 0 answers
 * with the unique id), init (the id relayed), run (results), finish (the
 * NCCL log in pieces). Errors are gathered over all ranks of a step, so a
 * run on nodes without GPUs names every such node.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/nccl/log/nccllog.h"
#include "core/log.h"
#include "core/out.h"
#include "core/util.h"
#include "ctl/scale.h"
#include "checks/nccl/run/nccl_run.h"

extern char **environ;

/* Seconds a wait for a rank lasts past --timeout (the worker's own), so a
 * rank that gives up at its --timeout says why before it is called gone;
 * the messages name both (ctl/chan.h fc_chan_recv_grace). */
#define NCR_GRACE 5

/* Records the first failure of rank @i (@what: the message without the
 * rank's label, NULL: @msg) and raises the exit code. Findings are made in
 * rank order by report_failures(). */
static void rank_fail_once(struct ncr_state *s, int i, int code, const char *what,
			   const char *msg)
{
	struct ncr_rank *r = &s->r[i];

	if (code > s->exit)
		s->exit = code;
	if (r->failed)
		return;
	r->failed = 1;
	snprintf(r->fail_what, sizeof(r->fail_what), "%s", what ? what : msg);
	snprintf(r->fail_msg, sizeof(r->fail_msg), "%s", msg);
}

/* One finding per node and failure, in rank order. */
static void report_failures(struct ncr_state *s)
{
	for (int i = 0; i < s->n; i++) {
		char key[1400];

		if (!s->r[i].failed)
			continue;
		snprintf(key, sizeof(key), "%s\n%s", s->r[i].node, s->r[i].fail_what);
		if (json_object_get(s->seen, key))
			continue;
		json_object_set_new(s->seen, key, json_true());
		fc_err("%s", s->r[i].fail_msg);
		fc_finding(s->doc, FC_FAIL, "%s", s->r[i].fail_msg);
	}
}

static void rank_fail(struct ncr_state *s, int i, int code, const char *msg)
{
	rank_fail_once(s, i, code, NULL, msg);
}

/* A worker's "error" message; takes @m. */
static void worker_error(struct ncr_state *s, int i, json_t *m)
{
	const char *kind = fc_jstr(m, "kind", "cant");
	char msg[1400];

	snprintf(msg, sizeof(msg), "%s: %s", s->r[i].label, fc_jstr(m, "msg", "?"));
	rank_fail_once(s, i, strcmp(kind, "fail") ? FC_EXIT_CANT : FC_EXIT_FAIL,
		       fc_jstr(m, "msg", "?"), msg);
	json_decref(m);
}

/* Rank @i's channel died without a word: the rank and its node named. */
static void rank_died(struct ncr_state *s, int i)
{
	const char *why = s->r[i].ch.why, *node = s->r[i].node;
	size_t n = strlen(node);
	char msg[1400];

	if (!strncmp(why, node, n) && !strncmp(why + n, ": ", 2))
		why += n + 2; /* the channel names the node; the label does */
	snprintf(msg, sizeof(msg), "rank %d on %s: %s", i, s->r[i].label, why);
	rank_fail_once(s, i, FC_EXIT_CANT, s->r[i].ch.why, msg);
}

/* Rank @i's channel died: its last words if it left any, else why. The
 * 1 s wait for last words sets the channel's why of its own ("no message
 * ... for 1 s"): why the channel died, said before it, is kept. */
static void rank_gone(struct ncr_state *s, int i)
{
	char why[sizeof(s->r[i].ch.why)];
	json_t *m;
	int failed;

	if (s->r[i].failed)
		return;
	snprintf(why, sizeof(why), "%s", s->r[i].ch.why);
	while (!fc_chan_recv(s->chans, s->n, i, 1, &m, &failed)) {
		if (!strcmp(fc_wire_type(m), "error")) {
			worker_error(s, i, m);
			return;
		}
		json_decref(m);
	}
	if (why[0])
		snprintf(s->r[i].ch.why, sizeof(s->r[i].ch.why), "%s", why);
	rank_died(s, i);
}

/* The next message of rank @i, of @type, within @timeout (--timeout) and
 * NCR_GRACE; -EIO after recording a failure. */
static int expect(struct ncr_state *s, int i, const char *type, double timeout, json_t **msg_p)
{
	json_t *m;
	int failed, err;

	for (;;) {
		err = fc_chan_recv_grace(s->chans, s->n, i, timeout, NCR_GRACE, &m, &failed);
		if (!err || failed == i)
			break;
		rank_gone(s, failed);
	}
	if (err) {
		rank_gone(s, i);
		if (!s->r[i].failed)
			rank_died(s, i);
		return -EIO;
	}
	if (!strcmp(fc_wire_type(m), "error")) {
		worker_error(s, i, m);
		return -EIO;
	}
	if (strcmp(fc_wire_type(m), type)) {
		char msg[400];

		snprintf(msg, sizeof(msg),
			 "%s: protocol error: the worker answered '%s' where '%s' was due; install "
			 "the same fabcheck on every node", s->r[i].label, fc_wire_type(m), type);
		json_decref(m);
		rank_fail(s, i, FC_EXIT_CANT, msg);
		return -EPROTO;
	}
	*msg_p = m;
	return 0;
}

/* Sends @type to every rank still alive (@body not consumed). */
static int send_all(struct ncr_state *s, const char *type, const json_t *body)
{
	for (int i = 0; i < s->n; i++)
		if (!s->r[i].failed && fc_chan_send(&s->r[i].ch, type, body))
			rank_gone(s, i);
	return s->exit ? -EIO : 0;
}

/* Receives @type from every rank into @out (or drops it): -EIO if any failed. */
static int gather(struct ncr_state *s, const char *type, double timeout, json_t **out)
{
	for (int i = 0; i < s->n; i++) {
		json_t *m;

		if (s->r[i].failed || expect(s, i, type, timeout, &m))
			continue;
		if (out)
			out[i] = m;
		else
			json_decref(m);
	}
	return s->exit ? -EIO : 0;
}

static int start(struct ncr_state *s)
{
	const struct ncr_cfg *cfg = s->cfg;
	json_t *h;
	int err, short_fds;

	/* Every rank at once (an NCCL job's ranks run together): three
	 * descriptors a channel. */
	short_fds = fc_fd_reserve("nccl run", s->n, 3, NULL);
	for (int i = 0; i < s->n; i++) {
		struct ncr_rank *r = &s->r[i];

		r->node = cfg->nodes[i / cfg->gpus_per_node];
		r->gpu = i % cfg->gpus_per_node;
		if (cfg->gpus_per_node > 1)
			snprintf(r->label, sizeof(r->label), "%s (GPU %d)", r->node, r->gpu);
		else
			snprintf(r->label, sizeof(r->label), "%s", r->node);
		s->chans[i] = &r->ch;
		if (short_fds) {
			r->ch.to_fd = r->ch.from_fd = r->ch.err_fd = -1;
			r->ch.dead = 1;
			rank_fail(s, i, FC_EXIT_CANT,
				  "too few open files for every rank at once (see above)");
			continue;
		}
		if (fc_chan_start(&r->ch, r->node, &cfg->launch))
			rank_fail(s, i, FC_EXIT_CANT, r->ch.why);
	}
	h = json_pack("{s:s, s:f}", "node", "", "timeout", cfg->p.timeout);
	for (int i = 0; i < s->n; i++) {
		json_object_set_new(h, "node", json_string(s->r[i].label));
		if (!s->r[i].failed && fc_chan_send(&s->r[i].ch, "hello", h))
			rank_gone(s, i);
	}
	json_decref(h);
	err = gather(s, "hello", cfg->p.timeout, NULL);
	return err;
}

static json_t *nccl_env(void)
{
	json_t *env = json_object();

	for (char **e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		char name[80];

		if (strncmp(*e, "NCCL_", 5) || !eq || (size_t)(eq - *e) >= sizeof(name))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(eq - *e), *e);
		json_object_set_new(env, name, json_string(eq + 1));
	}
	return env;
}

static int setup(struct ncr_state *s)
{
	struct ncr_params p = s->cfg->p;
	json_t *env = nccl_env(), **out = calloc((size_t)s->n, sizeof(json_t *));
	int err = 0;

	p.nranks = s->n;
	for (int i = 0; i < s->n && out; i++) {
		json_t *m;

		p.rank = i;
		p.gpu = s->r[i].gpu;
		p.want_topo = s->r[i].gpu == 0; /* one per node */
		m = ncr_params_json(&p);
		json_object_set(m, "env", env);
		if (!s->r[i].failed && fc_chan_send(&s->r[i].ch, "setup", m))
			rank_gone(s, i);
		json_decref(m);
	}
	json_decref(env);
	if (!out)
		return -ENOMEM;
	err = gather(s, "setup", s->cfg->p.timeout, out);
	for (int i = 0; i < s->n; i++)
		s->r[i].setup = out[i];
	free(out);
	return err;
}

static int init(struct ncr_state *s)
{
	const char *id = fc_jstr(s->r[0].setup, "unique_id", "");
	uint8_t raw[NCR_ID_BYTES];
	json_t *m;

	if (ncr_hex_decode(id, raw, NCR_ID_BYTES)) {
		rank_fail(s, 0, FC_EXIT_CANT,
			  "rank 0 sent no valid NCCL unique id; install the same fabcheck on every node");
		return -EIO;
	}
	m = json_pack("{s:s}", "unique_id", id);
	if (!send_all(s, "init", m))
		gather(s, "init", s->cfg->p.timeout, NULL);
	json_decref(m);
	return s->exit ? -EIO : 0;
}

static int run(struct ncr_state *s)
{
	json_t **out = calloc((size_t)s->n, sizeof(json_t *));
	char why[256], msg[512];

	if (!out)
		return -ENOMEM;
	if (!send_all(s, "run", NULL))
		gather(s, "result", s->cfg->p.timeout, out);
	for (int i = 0; i < s->n; i++) {
		if (out[i] && ncr_result_from_json(out[i], &s->cfg->p, &s->r[i].res, why,
						   sizeof(why))) {
			snprintf(msg, sizeof(msg), "%s: protocol error: %s", s->r[i].label, why);
			rank_fail(s, i, FC_EXIT_CANT, msg);
		}
		json_decref(out[i]);
	}
	free(out);
	return s->exit ? -EIO : 0;
}

/* The most of a rank's NCCL log the controller keeps: a rank's log at
 * NCCL_DEBUG=INFO with INIT,ENV,NET is tens of KiB (../shared/fixtures/
 * nccl-logs); 8 MiB is a rank that floods, refused. */
#define NCR_LOG_MAX (8u << 20)

/* Appends @data (@len bytes) to rank @i's log; -EFBIG past NCR_LOG_MAX. */
static int log_append(struct ncr_rank *r, const char *data, size_t len)
{
	char *nb;

	if (r->loglen + len > NCR_LOG_MAX)
		return -EFBIG;
	nb = realloc(r->log, r->loglen + len + 1);
	if (!nb)
		return -ENOMEM;
	memcpy(nb + r->loglen, data, len + 1);
	r->log = nb;
	r->loglen += len;
	return 0;
}

/* Rank @i's log, until its "finish": bounded (NCR_LOG_MAX) and with one
 * deadline for all of it (the channel's until), however fast it sends. */
static int take_log(struct ncr_state *s, int i)
{
	struct ncr_rank *r = &s->r[i];
	json_t *m;

	r->ch.until = fc_now() + s->cfg->p.timeout + NCR_GRACE;
	for (;;) {
		const char *data;
		int failed;

		if (fc_chan_recv_grace(s->chans, s->n, i, s->cfg->p.timeout, NCR_GRACE, &m, &failed)) {
			if (failed != i)
				rank_gone(s, failed);
			else
				rank_fail(s, i, FC_EXIT_CANT, r->ch.why);
			return -EIO;
		}
		if (!strcmp(fc_wire_type(m), "finish"))
			break;
		if (!strcmp(fc_wire_type(m), "error")) {
			worker_error(s, i, m);
			return -EIO;
		}
		data = fc_jstr(m, "data", "");
		if (!strcmp(fc_wire_type(m), "log") && log_append(r, data, strlen(data))) {
			char msg[512];

			json_decref(m);
			snprintf(msg, sizeof(msg), "%s: its NCCL log is over 8 MiB: refused (a rank "
				 "that floods its log; NCCL_DEBUG=INFO logs tens of KiB)", r->label);
			rank_fail(s, i, FC_EXIT_CANT, msg);
			return -EIO;
		}
		json_decref(m);
	}
	json_decref(m);
	return 0;
}

static int finish(struct ncr_state *s)
{
	/* Each rank exits once its log is sent, maybe while another's is read. */
	for (int i = 0; i < s->n; i++)
		s->r[i].ch.expect_eof = 1;
	if (send_all(s, "finish", NULL))
		return -EIO;
	for (int i = 0; i < s->n; i++)
		if (!s->r[i].failed)
			take_log(s, i);
	return s->exit ? -EIO : 0;
}

static int run_all(struct ncr_state *s)
{
	int err = start(s);

	if (!err)
		err = setup(s);
	if (!err)
		err = init(s);
	if (!err)
		err = run(s);
	if (!err)
		err = finish(s);
	return err;
}

int ncr_run(struct fc_ctx *ctx, const struct ncr_cfg *cfg)
{
	struct ncr_state s = { .cfg = cfg, .n = cfg->nnodes * cfg->gpus_per_node };
	const json_t *e;
	size_t k;
	int rc;

	s.r = calloc((size_t)s.n, sizeof(*s.r));
	s.chans = calloc((size_t)s.n, sizeof(*s.chans));
	s.doc = fc_doc_new();
	s.seen = json_object();
	if (!s.r || !s.chans || !s.doc || !s.seen) {
		fc_err("nccl run: out of memory");
		rc = FC_EXIT_CANT;
		goto out_free;
	}
	/* A rank that exits is seen as EPIPE on its channel, not a signal. */
	signal(SIGPIPE, SIG_IGN);
	json_object_set_new(s.doc, "rail_notes",
			    cfg->rail_notes ? json_incref(cfg->rail_notes) : json_array());
	json_object_set_new(s.doc, "rails_assumed",
			    cfg->rails_assumed ? json_string(cfg->rails_assumed) : json_null());
	json_array_foreach(cfg->rail_findings, k, e)
		fc_finding(s.doc, strcmp(fc_jstr(e, "severity", ""), "fail") ? FC_WARN : FC_FAIL, "%s",
			   fc_jstr(e, "text", "?"));
	if (cfg->port_down)
		fc_finding(s.doc, FC_FAIL,
			   "%s: NCCL lists only active ports, so that node's GPUs use fewer HCAs and the whole job runs at its pace; the other nodes keep every rail (NCCL_IB_HCA); bring the port up or leave the node out",
			   cfg->port_down);
	fc_info("nccl run: %d rank%s on %d node%s, %s", s.n, s.n == 1 ? "" : "s", cfg->nnodes,
		cfg->nnodes == 1 ? "" : "s", ncr_op_name(cfg->p.op));
	if (!run_all(&s))
		ncr_report(&s);
	report_failures(&s);
	for (int i = 0; i < s.n; i++)
		if (s.r[i].ch.pid > 0 || s.r[i].ch.to_fd >= 0)
			fc_chan_close(&s.r[i].ch, s.exit ? 1 : 5);
	rc = fc_emit(ctx, s.doc, ncr_render);
	s.doc = NULL;
	if (s.exit > rc)
		rc = s.exit;
out_free:
	for (int i = 0; s.r && i < s.n; i++) {
		json_decref(s.r[i].setup);
		free(s.r[i].log);
	}
	json_decref(s.doc);
	json_decref(s.seen);
	free(s.chans);
	free(s.r);
	return rc;
}
