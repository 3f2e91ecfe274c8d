/* Running scontrol for the drains and resumes of a run (see drain.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/out.h"
#include "core/util.h"
#include "core/summary.h"
#include "ctl/child.h"
#include "ctl/drain.h"
#include "store/store.h"

/* How long one scontrol may take: it waits on slurmctld for up to
 * MessageTimeout (default 10 s, slurm.conf(5)), and tries again once. */
#define DRAIN_SCONTROL_TIMEOUT_S 30.0

struct drain_ctx {
	json_t *doc, *list;
	struct fc_store *st;
	int64_t run;
	const char *kind;
	const struct fc_drain_opts *o;
	const char *scontrol;
	int failed;
};

/* scontrol, or $FABCHECK_SCONTROL (a path: tests, a wrapper). */
static const char *scontrol_cmd(void)
{
	const char *e = getenv("FABCHECK_SCONTROL");

	return e && *e ? e : "scontrol";
}

/* The command as a shell would show it (for the reader; it is never run
 * through one): arguments with blanks in double quotes. */
static void cmd_text(const char *const *argv, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = 0;
	for (int i = 0; argv[i] && at + 1 < len; i++) {
		const char *eq = strchr(argv[i], '=');
		int q = strchr(argv[i], ' ') != NULL;

		if (q && eq)
			at += (size_t)snprintf(buf + at, len - at, "%s%.*s\"%s\"", i ? " " : "",
					       (int)(eq + 1 - argv[i]), argv[i], eq + 1);
		else
			at += (size_t)snprintf(buf + at, len - at, q ? "%s\"%s\"" : "%s%s",
					       i ? " " : "", argv[i]);
		if (at >= len)
			at = len - 1;
	}
}

/* Runs @argv; 0 when it exited 0 (its stdout in *out_p, the caller frees
 * it), else -1 with what went wrong in @why. */
static int run_scontrol(const struct drain_ctx *c, const char *const *argv, char **out_p,
			char *why, size_t wl)
{
	char err[512];
	int code;
	double t = DRAIN_SCONTROL_TIMEOUT_S;
	char *out;

	*out_p = NULL;
	if (c->o->deadline > 0 && c->o->deadline - fc_now() < t)
		t = c->o->deadline - fc_now();
	if (t < 0.5) {
		snprintf(why, wl, "not run: the check's deadline was spent (give a longer --deadline)");
		return -1;
	}
	out = fc_capture(argv, t, &code, err, sizeof(err));
	if (!out) {
		snprintf(why, wl, "%s", err);
		return -1;
	}
	if (code == 127 || code == 126) {
		snprintf(why, wl, "%s is not installed or not runnable here (%s): install "
			 "slurm-client, or run where scontrol is", argv[0], *err ? err : "exit 127");
	} else if (code) {
		snprintf(why, wl, "exit %d%s%s%s", code, *err ? ": " : "", err,
			 strstr(err, "ermission") || strstr(err, "denied") ?
				 " (draining needs Slurm's operator or admin rights: run as root or SlurmUser)" :
				 strstr(err, "not found") || strstr(err, "nvalid node") ?
				 " (a node Slurm does not know: name the nodes as slurm.conf does)" : "");
	} else {
		*out_p = out;
		return 0;
	}
	free(out);
	return -1;
}

/* One line of the "slurm" list, a row of the store, a line on stderr. */
static void record(struct drain_ctx *c, const char *node, const char *action, const char *reason,
		   const char *detail, const char *command, const char *result)
{
	struct fc_store_action a = { .node = node, .action = action, .reason = reason,
				     .detail = detail, .command = command, .result = result };

	json_array_append_new(c->list, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "node", node,
						 "action", action, "reason", reason ? reason : "",
						 "command", command ? command : "", "result",
						 result ? result : "", "detail", detail ? detail : ""));
	if (c->st)
		fc_store_action_add(c->st, c->run, &a);
	fc_err_putf("slurm: %s %s: %s%s%s", action, node, command ? command : "",
		command && result && strcmp(result, "ok") ? ": " : "",
		result && strcmp(result, "ok") ? result : "");
}

static void failed(struct drain_ctx *c, enum fc_verdict lvl, const char *node, const char *what,
		   const char *reason, const char *detail, const char *command, const char *why)
{
	c->failed++;
	record(c, node, "failed", reason, detail, command, why);
	fc_finding(c->doc, lvl, "%s: cannot %s it in Slurm: '%s' failed: %s", node, what, command,
		   why);
}

/* What scontrol showed, for a line of ours: each byte that is not
 * printable ASCII as '?'. */
static void clean_text(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			*s = '?';
}

/* Reads the node's state and reason: 0, or -1 after recording why. */
static int show_node(struct drain_ctx *c, const char *node, const char *what, char *state,
		     size_t slen, char *reason, size_t rlen)
{
	const char *argv[] = { c->scontrol, "show", "node", node, NULL };
	char cmd[512], why[768];
	char *out;

	cmd_text(argv, cmd, sizeof(cmd));
	/* Reading the state to resume a node that passed: Slurm out of reach
	 * is a note on a healthy node, not a failed check. */
	if (run_scontrol(c, argv, &out, why, sizeof(why))) {
		failed(c, strcmp(what, "resume") ? FC_FAIL : FC_WARN, node, what, NULL, NULL, cmd, why);
		return -1;
	}
	if (fc_slurm_node_parse(out, node, state, slen, reason, rlen)) {
		snprintf(why, sizeof(why), "its output names no node %s with a State", node);
		failed(c, FC_FAIL, node, what, NULL, NULL, cmd, why);
		free(out);
		return -1;
	}
	free(out);
	return 0;
}

/* Runs the update @argv (@cmd as text): the action @what done, or a
 * finding at @lvl with the command. */
static void act(struct drain_ctx *c, enum fc_verdict lvl, const char *node, const char *what,
		const char *const *argv, const char *cmd, const char *reason, const char *detail)
{
	char why[768], *out;

	if (run_scontrol(c, argv, &out, why, sizeof(why))) {
		failed(c, lvl, node, what, reason, detail, cmd, why);
		return;
	}
	free(out);
	record(c, node, what, reason, detail, cmd, "ok");
}

/* @r without the " run N" of its tail, into @out. */
static void reason_core(const char *r, char *out, size_t len)
{
	const char *tail = strrchr(r, '('), *run = tail ? strstr(tail, " run ") : NULL;
	size_t n = run ? (size_t)(run - r) : strlen(r);
	const char *rest = run ? run + 5 : "";

	while (run && *rest >= '0' && *rest <= '9')
		rest++;
	snprintf(out, len, "%.*s%s", (int)n, r, rest);
}

/* The same drain: the same part, device, check and comparison, whatever
 * run set it (a health check that fails again changes nothing). */
static int same_reason(const char *a, const char *b)
{
	char x[FC_DRAIN_REASON_MAX + 64], y[FC_DRAIN_REASON_MAX + 64];

	reason_core(a, x, sizeof(x));
	reason_core(b, y, sizeof(y));
	return !strcmp(x, y);
}

static void drain_one(struct drain_ctx *c, const json_t *t)
{
	const char *node = fc_jstr(t, "node", "?"), *text = fc_jstr(t, "text", "");
	char reason[FC_DRAIN_REASON_MAX + 1], arg[FC_DRAIN_REASON_MAX + 16], cmd[768];
	char nodearg[300], state[128], cur[512], why[768];
	const char *argv[] = { c->scontrol, "update", nodearg, "State=DRAIN", arg, NULL };

	if (!fc_valid_node_name(node)) {
		failed(c, FC_FAIL, node, "drain", NULL, text, "scontrol update", "not a node name");
		return;
	}
	fc_drain_reason_across(reason, sizeof(reason), fc_jstr(t, "part", ""),
			       fc_jstr(t, "device", ""), c->kind, c->run,
			       (int)fc_jnum(t, "across", 0));
	snprintf(nodearg, sizeof(nodearg), "NodeName=%s", node);
	snprintf(arg, sizeof(arg), "Reason=%s", reason);
	cmd_text(argv, cmd, sizeof(cmd));
	/* The dry run reads the node's state too: it is the real run minus
	 * the write. */
	if (show_node(c, node, "drain", state, sizeof(state), cur, sizeof(cur)))
		return;
	clean_text(cur);
	/* An operator's drain stays as it is, reason and all. */
	if (strstr(state, "DRAIN") && !fc_drain_is_ours(cur)) {
		snprintf(why, sizeof(why), "already drained by hand (%s): left as it is", cur);
		record(c, node, "left", cur, text, NULL, why);
		return;
	}
	/* Drained with this very reason already (a health check that fails
	 * again): nothing to change. */
	if (strstr(state, "DRAIN") && same_reason(cur, reason)) {
		record(c, node, "kept", cur, text, NULL, "drained with this reason already");
		return;
	}
	if (c->o->dry_run) {
		snprintf(why, sizeof(why), "dry run: not run (Slurm shows it %s%s%s)", state,
			 *cur ? ", reason " : "", cur);
		record(c, node, "would-drain", reason, text, cmd, why);
		return;
	}
	act(c, FC_FAIL, node, "drain", argv, cmd, reason, text);
}

/* The reason ends "(KIND)" or "(KIND run N)". */
static int drained_by_kind(const char *reason, const char *kind)
{
	const char *p = strrchr(reason, '(');
	size_t kl = strlen(kind);

	return p && !strncmp(p + 1, kind, kl) && (p[1 + kl] == ')' || p[1 + kl] == ' ');
}

static int same_comparison(struct drain_ctx *c, const char *node, const char *cur, char *why,
			   size_t wl);

static void resume_one(struct drain_ctx *c, const char *node)
{
	char nodearg[300], state[128], cur[512], cmd[512], why[768];
	const char *argv[] = { c->scontrol, "update", nodearg, "State=RESUME", NULL };

	if (!fc_valid_node_name(node))
		return;
	snprintf(nodearg, sizeof(nodearg), "NodeName=%s", node);
	cmd_text(argv, cmd, sizeof(cmd));
	if (show_node(c, node, "resume", state, sizeof(state), cur, sizeof(cur)))
		return;
	clean_text(cur);
	if (!strstr(state, "DRAIN"))
		return;
	if (!fc_drain_may_resume(state, cur)) {
		snprintf(why, sizeof(why), "passed, but drained by hand (%s): left drained", cur);
		record(c, node, "left", cur, NULL, NULL, why);
		return;
	}
	if (!drained_by_kind(cur, c->o->resume_kind ? c->o->resume_kind : c->kind)) {
		snprintf(why, sizeof(why), "passed, but drained by another of fabcheck's checks (%s), which this one cannot clear: left drained", cur);
		record(c, node, "left", cur, NULL, NULL, why);
		return;
	}
	if (!same_comparison(c, node, cur, why, sizeof(why))) {
		record(c, node, "left", cur, NULL, NULL, why);
		return;
	}
	if (c->o->dry_run) {
		snprintf(why + strlen(why), sizeof(why) - strlen(why), "; dry run: not run");
		record(c, node, "would-resume", cur, why, cmd, why);
		return;
	}
	act(c, FC_WARN, node, "resume", argv, cmd, cur, why);
}

/* Whether this run could have seen the fault of the drain @cur (a reason
 * of fabcheck's of this run's kind): it ran the check that set it, on the
 * same comparison. @why says either way. */
static int same_comparison(struct drain_ctx *c, const char *node, const char *cur, char *why,
			   size_t wl)
{
	char part[192], dev[64];
	const char *unseen;
	int across;

	fc_drain_reason_read(cur, part, sizeof(part), &across);
	/* A node is judged against its peers: one node, or fewer nodes than
	 * the drain's comparison, has not the same peers to be compared with
	 * (an odd firmware needs the others' to be odd). */
	if (across > 1 && c->o->compared < across) {
		snprintf(why, wl, "passed, but its drain came from a comparison across %d nodes and this run compared %d: only a run over as many nodes (the rack) can clear it: left drained",
			 across, c->o->compared);
		return 0;
	}
	fc_drain_reason_device(cur, dev, sizeof(dev));
	unseen = c->o->unseen && *part ? c->o->unseen(node, part, dev, across, c->o->unseen_arg) :
					 NULL;
	if (unseen) {
		snprintf(why, wl, "passed, but this run could not have seen its '%s' fault (%s): left drained",
			 part, unseen);
		return 0;
	}
	if (across > 1 && c->o->compared > across)
		snprintf(why, wl, "passed %s (%s) across %d nodes, more than the %d of the comparison that drained it",
			 c->kind, *part ? part : "its check", c->o->compared, across);
	else if (across > 1)
		snprintf(why, wl, "passed %s (%s) across %d nodes, the comparison that drained it",
			 c->kind, *part ? part : "its check", c->o->compared);
	else
		snprintf(why, wl, "passed %s, the check (%s) that drained it", c->kind,
			 *part ? part : "its check");
	return 1;
}

/* A node this run could not check: never resumed; with --resume-passed,
 * said when Slurm shows it drained by fabcheck. */
static void unchecked_one(struct drain_ctx *c, const json_t *u)
{
	const char *node = fc_jstr(u, "node", "");
	char state[128], cur[512], why[768];

	if (!fc_valid_node_name(node) ||
	    show_node(c, node, "resume", state, sizeof(state), cur, sizeof(cur)))
		return;
	clean_text(cur);
	if (!fc_drain_may_resume(state, cur))
		return;
	snprintf(why, sizeof(why), "could not be checked (%s): left drained",
		 fc_jstr(u, "why", "?"));
	record(c, node, "left", cur, NULL, NULL, why);
}

static int named(const json_t *targets, const char *node)
{
	size_t i;
	json_t *t;

	json_array_foreach(targets, i, t)
		if (!strcmp(fc_jstr(t, "node", ""), node))
			return 1;
	return 0;
}

/* Whether @node is in @doc's "unchecked" list (fc_drain_unchecked). */
static int unchecked(const json_t *doc, const char *node)
{
	size_t i;
	json_t *u;

	json_array_foreach(json_object_get(doc, "unchecked"), i, u)
		if (!strcmp(fc_jstr(u, "node", ""), node))
			return 1;
	return 0;
}

int (*fc_drain_hold)(char *why, size_t len);

int fc_drain_apply(json_t *doc, struct fc_store *st, int64_t run, const char *kind,
		   const struct fc_drain_opts *o, const json_t *targets, const json_t *passed)
{
	struct drain_ctx c = { .doc = doc, .list = json_array(), .st = st, .run = run,
			       .kind = kind, .o = o, .scontrol = scontrol_cmd() };
	char why[1024];
	size_t i;
	json_t *t;

	json_object_set_new(doc, "slurm", c.list);
	if ((o->drain || o->dry_run || o->resume_passed) && fc_drain_hold &&
	    fc_drain_hold(why, sizeof(why))) {
		json_object_set_new(doc, "drain_held", fc_json_text(why));
		return 0;
	}
	json_array_foreach(targets, i, t) {
		/* One drain a node: its first target gives the reason. */
		int first = 1;

		for (size_t j = 0; j < i; j++)
			first &= strcmp(fc_jstr(json_array_get(targets, j), "node", ""),
					fc_jstr(t, "node", "")) != 0;
		/* A node that could not be checked is never drained, whatever
		 * named it: a drain is for a fault this run saw (issue 38), so
		 * no reason ever says "could not run". */
		if (first && unchecked(doc, fc_jstr(t, "node", ""))) {
			fc_finding(doc, FC_WARN,
				   "%s: not drained: it could not be checked in this run, and nothing that could not run drains a node",
				   fc_jstr(t, "node", "?"));
			continue;
		}
		if (first && (o->drain || o->dry_run))
			drain_one(&c, t);
	}
	json_array_foreach(passed, i, t)
		if (o->resume_passed && json_is_string(t) && !named(targets, json_string_value(t)))
			resume_one(&c, json_string_value(t));
	json_array_foreach(json_object_get(doc, "unchecked"), i, t)
		if (o->resume_passed)
			unchecked_one(&c, t);
	return c.failed;
}

void fc_drain_render(FILE *f, const json_t *doc)
{
	const json_t *list = json_object_get(doc, "slurm");
	size_t i;
	json_t *a;

	if (json_array_size(json_object_get(doc, "unchecked")))
		fprintf(f, "\ncould not check (not judged, never drained):\n");
	json_array_foreach(json_object_get(doc, "unchecked"), i, a)
		fprintf(f, "  %-12s %s\n", fc_jstr(a, "node", "?"), fc_jstr(a, "why", ""));
	if (!json_array_size(list))
		return;
	fprintf(f, "\nSlurm:\n");
	json_array_foreach(list, i, a) {
		/* A resume says why: the check and comparison it passed. */
		int why = !strcmp(fc_jstr(a, "action", ""), "resume") && *fc_jstr(a, "detail", "");

		fprintf(f, "  %-12s %-12s %s%s%s%s%s\n", fc_jstr(a, "action", "?"), fc_jstr(a, "node", "?"),
			fc_jstr(a, "command", ""),
			*fc_jstr(a, "command", "") && strcmp(fc_jstr(a, "result", "ok"), "ok") ? ": " : "",
			strcmp(fc_jstr(a, "result", "ok"), "ok") ? fc_jstr(a, "result", "") : "",
			why ? ": " : "", why ? fc_jstr(a, "detail", "") : "");
	}
}
