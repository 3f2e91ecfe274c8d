/* The matrix runner: `pair` children, a round at a time (see mx_run.h). */
#include "matrix/mx_run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/log.h"
#include "core/names.h"
#include "core/out.h"
#include "core/safefile.h"
#include "core/sched.h"
#include "core/util.h"
#include "ctl/child.h"
#include "ctl/scale.h"
#include "matrix/mx_model.h"

/* The most of a child's stdout kept (a pair document is a few KiB). */

static int mark_done(const struct fc_store_pair *p, void *arg)
{
	struct mx_runner *r = arg;
	int a = -1, b = -1;

	for (int i = 0; i < r->n; i++) {
		if (!strcmp(r->names[i], p->a))
			a = i;
		if (!strcmp(r->names[i], p->b))
			b = i;
	}
	if (a >= 0 && b >= 0 && mx_state_of(p->verdict) != FC_MX_ERROR)
		r->done[a * r->n + b] = 1;
	return 0;
}

/* The most flows a round of the run holds. */
static int round_most(struct mx_runner *r)
{
	int most = r->n / 2 + 1;

	for (int i = 0; i < r->pplan.nrounds; i++)
		if (r->pplan.r[i].n > most)
			most = r->pplan.r[i].n;
	return most;
}

int mx_run_init(struct mx_runner *r)
{
	int most;

	r->evfd = -1;
	r->rounds = fc_sched_rounds(r->n, r->both);
	if (r->pattern != FC_PAT_PAIRS) {
		if (fc_pattern_plan(r->pattern, r->n, r->pattern_k, r->leaf, &r->pplan))
			return -ENOMEM;
		r->rounds = r->pplan.nrounds;
	}
	most = round_most(r);
	r->round = -1;
	r->done = calloc((size_t)r->n * (size_t)r->n, 1);
	r->busy = calloc((size_t)r->n, sizeof(*r->busy));
	r->kids = calloc((size_t)most, sizeof(*r->kids));
	r->kid_jobs = calloc((size_t)most, sizeof(*r->kid_jobs));
	if (!r->exe)
		r->exe = fc_self_exe();
	if (!r->done || !r->busy || !r->kids || !r->kid_jobs) {
		mx_run_release(r);
		return -ENOMEM;
	}
	/* DIR/NNN-A-B-railR: room for two node names and a rail past DIR */
	if (r->evidence_dir && strlen(r->evidence_dir) > PATH_MAX - 600) {
		fc_err("--save-evidence: the folder name is %zu bytes; give one under %d",
		       strlen(r->evidence_dir), PATH_MAX - 600);
		mx_run_release(r);
		return -ENAMETOOLONG;
	}
	if (r->evidence_dir && (r->evfd = fc_evdir_open(r->evidence_dir)) < 0) {
		int err = r->evfd;

		mx_run_release(r);
		return err;
	}
	return fc_store_pairs(r->st, r->run, 0, mark_done, r);
}

void mx_run_release(struct mx_runner *r)
{
	free(r->done);
	free(r->busy);
	free(r->kids);
	free(r->kid_jobs);
	free(r->queue);
	fc_pattern_release(&r->pplan);
	free(r->leaf);
	r->leaf = NULL;
	if (r->bar_on)
		fc_barrier_release(&r->bar);
	r->bar_on = 0;
	if (r->evidence_dir && r->evfd >= 0)
		close(r->evfd);
	r->evfd = -1;
	r->done = NULL;
	r->busy = NULL;
	r->kids = NULL;
	r->kid_jobs = NULL;
	r->queue = NULL;
}

int mx_run_add(struct mx_runner *r, int a, int b, int retest)
{
	return mx_run_add_rail(r, a, b, retest, NULL);
}

int mx_run_add_rail(struct mx_runner *r, int a, int b, int retest, const char *rail)
{
	if (r->nq == r->qcap) {
		int cap = r->qcap ? r->qcap * 2 : 16;
		struct mx_job *q = realloc(r->queue, (size_t)cap * sizeof(*q));

		if (!q)
			return -ENOMEM;
		r->queue = q;
		r->qcap = cap;
	}
	r->queue[r->nq] = (struct mx_job){ .a = a, .b = b, .round = -1, .retest = retest };
	snprintf(r->queue[r->nq++].rail, sizeof(r->queue[0].rail), "%s", rail ? rail : "");
	return 0;
}

/* Whether every flow of pattern round @pr was measured (a resumed run). */
static int pattern_round_done(const struct mx_runner *r, const struct fc_pround *pr)
{
	for (int i = 0; i < pr->n; i++)
		if (!r->done[pr->f[i].src * r->n + pr->f[i].dst])
			return 0;
	return 1;
}

/* Queues the flows of a pattern's next round not yet measured whole (its
 * flows run together: all of them again when one is missing); 0 when there
 * is none left. */
static int next_pattern_round(struct mx_runner *r)
{
	const struct fc_pround *pr;

	do {
		if (++r->round >= r->rounds)
			return 0;
		pr = &r->pplan.r[r->round];
	} while (pattern_round_done(r, pr));
	for (int i = 0; i < pr->n; i++) {
		if (mx_run_add(r, pr->f[i].src, pr->f[i].dst, 0))
			return -ENOMEM;
		r->queue[r->nq - 1].round = r->round;
	}
	return 1;
}

/* Queues the next round's pairs not yet done; returns 0 when there is no
 * round left. */
static int next_round(struct mx_runner *r)
{
	struct fc_pair_idx p[FC_SCHED_MAX_NODES / 2];
	int cnt, i;

	if (r->pattern != FC_PAT_PAIRS) /* a pattern's round: all its flows */
		return next_pattern_round(r);
	while (++r->round < r->rounds) {
		cnt = fc_sched_round(r->n, r->both, r->round, p);
		for (i = 0; i < cnt; i++) {
			int a = p[i].a, b = p[i].b;

			if (r->done[a * r->n + b] || (!r->both && r->done[b * r->n + a]))
				continue;
			if (mx_run_add(r, a, b, 0))
				return -ENOMEM;
			r->queue[r->nq - 1].round = r->round;
		}
		if (r->nq)
			return 1;
	}
	return 0;
}

/* How long a pair may overrun its --deadline (its teardown) before it is killed. */
#define MX_PAIR_GRACE_S 30

/* DIR/NNN-A-B (-railR) for a pair, NNN the next number no entry of DIR
 * has (a resumed run's numbers start again at 1). Node and rail names are
 * names (core/names.h), so it is one folder of DIR. */
static int evidence_sub(struct mx_runner *r, const struct mx_job *job, char *buf, size_t len)
{
	const char *a = r->names[job->a], *b = r->names[job->b];
	char sub[NAME_MAX + 1];
	struct stat st;

	if (fc_name_check(FC_NAME_NODE, a, "--save-evidence") ||
	    fc_name_check(FC_NAME_NODE, b, "--save-evidence") ||
	    (job->rail[0] && fc_name_check(FC_NAME_RAIL, job->rail, "--save-evidence")))
		return -EINVAL;
	do {
		if (snprintf(sub, sizeof(sub), "%03d-%s-%s%s%s", ++r->spawned, a, b,
			     job->rail[0] ? "-rail" : "", job->rail) >= (int)sizeof(sub) ||
		    snprintf(buf, len, "%s/%s", r->evidence_dir, sub) >= (int)len) {
			fc_err("--save-evidence: the folder of pair %s -> %s would be longer than "
			       "%d bytes; give shorter node names or folder", a, b, NAME_MAX);
			return -ENAMETOOLONG;
		}
	} while (!fstatat(r->evfd, sub, &st, AT_SYMLINK_NOFOLLOW));
	return 0;
}

static int spawn(struct mx_runner *r, const struct mx_job *job, int sync_fd)
{
	size_t nargs = json_array_size(r->pair_args), i, n;
	struct fc_child *k = &r->kids[r->nkids];
	char deadline[32], fd[16];
	const char **argv;
	char evdir[PATH_MAX];
	int rc;

	argv = calloc(nargs + 16, sizeof(*argv));
	if (!argv)
		return -ENOMEM;
	argv[0] = "fabcheck";
	argv[1] = "pair";
	argv[2] = r->names[job->a];
	argv[3] = r->names[job->b];
	argv[4] = "--json";
	argv[5] = "--no-db"; /* the matrix keeps each result in its own run */
	/* The pair ends itself at the deadline and judges a test under way as
	 * a slow link; it is killed only when it overruns that by the grace. */
	n = 6;
	if (r->deadline_s >= 1) {
		snprintf(deadline, sizeof(deadline), "%.0f", r->deadline_s);
		argv[n++] = "--deadline";
		argv[n++] = deadline;
	}
	for (i = 0; i < nargs; i++)
		argv[n++] = json_string_value(json_array_get(r->pair_args, i));
	if (job->rail[0]) { /* the last --rails wins */
		argv[n++] = "--rails";
		argv[n++] = job->rail;
	}
	if (sync_fd >= 0) { /* the round's start signal */
		snprintf(fd, sizeof(fd), "%d", sync_fd);
		argv[n++] = "--sync-fd";
		argv[n++] = fd;
	}
	if (r->evidence_dir) {
		if (evidence_sub(r, job, evdir, sizeof(evdir))) {
			free(argv);
			return -ENAMETOOLONG;
		}
		argv[n++] = "--save-evidence";
		argv[n++] = evdir;
	}
	memset(k, 0, sizeof(*k));
	snprintf(k->name, sizeof(k->name), "pair %s -> %s", argv[2], argv[3]);
	rc = fc_child_start(k, r->exe, argv,
			   r->deadline_s >= 1 ? r->deadline_s + MX_PAIR_GRACE_S : 0);
	free(argv);
	if (rc)
		return rc == -EMFILE || rc == -ENFILE ? -EMFILE : -EAGAIN;
	r->kid_jobs[r->nkids] = *job;
	r->busy[job->a] = r->busy[job->b] = 1;
	r->nkids++;
	r->started++;
	fc_info("round %d: started pair %s -> %s (pid %d)", job->round + 1, r->names[job->a],
		r->names[job->b], (int)k->pid);
	return 0;
}

/* A pattern's round: every queued flow at once, on one start signal (a
 * round must load the fabric together, so it is not cut into waves). */
static int start_round(struct mx_runner *r)
{
	int rc;

	if (r->nkids || !r->nq)
		return 0;
	/* pair's own barrier waits 4 timeouts and 30 s; the matrix knows no timeout */
	rc = fc_barrier_init(&r->bar, r->nq, 60, -1);
	if (rc)
		return rc;
	r->bar_on = 1;
	while (r->nq) {
		int end = -1;

		rc = fc_barrier_pair(&r->bar, r->nkids, &end);
		if (!rc)
			rc = spawn(r, &r->queue[0], end);
		if (end >= 0)
			close(end);
		if (rc)
			return rc;
		memmove(&r->queue[0], &r->queue[1], (size_t)(r->nq - 1) * sizeof(r->queue[0]));
		r->nq--;
	}
	return 0;
}

/* Starts queued jobs whose two nodes are free, at most fanout / 2 pairs
 * (two workers each) at once: a round of more pairs runs in waves. */
static int start_jobs(struct mx_runner *r)
{
	int i = 0, rc, most = fc_fanout_of(r->fanout) / 2;

	if (r->pattern != FC_PAT_PAIRS)
		return start_round(r);

	if (most < 1)
		most = 1;
	if (most > r->n / 2 + 1)
		most = r->n / 2 + 1;
	while (i < r->nq && r->nkids < most) {
		struct mx_job j = r->queue[i];

		if (r->busy[j.a] || r->busy[j.b]) {
			i++;
			continue;
		}
		rc = spawn(r, &j, -1);
		if (rc)
			return rc;
		memmove(&r->queue[i], &r->queue[i + 1], (size_t)(r->nq - i - 1) * sizeof(j));
		r->nq--;
	}
	return 0;
}

/* A pattern flow's place: the pattern, and its round's receiver (incast)
 * or sender (fanout) and flow count. */
static void pattern_mark(const struct mx_runner *r, const struct mx_job *job, json_t *m)
{
	const struct fc_pround *pr = &r->pplan.r[job->round];

	json_object_set_new(m, "pattern", json_string(fc_pattern_name(r->pattern)));
	json_object_set_new(m, "flows", json_integer(pr->n));
	if (pr->target >= 0)
		json_object_set_new(m, "target", json_string(r->names[pr->target]));
}

/* The document to store for a finished child. */
static json_t *kid_doc(struct mx_runner *r, struct fc_child *k, const struct mx_job *job)
{
	const char *a = r->names[job->a], *b = r->names[job->b];
	int code = WIFEXITED(k->status) ? WEXITSTATUS(k->status) : -1;
	json_t *doc = k->out && !k->out_cut ? json_loadb(k->out, k->olen, 0, NULL) : NULL;
	char why[512];

	if (!json_is_object(doc) || !json_is_array(json_object_get(doc, "results"))) {
		/* No document: whatever the exit code, the pair did not run. */
		json_decref(doc);
		doc = fc_doc_new();
		json_object_set_new(doc, "a", json_pack("{s:s}", "node", a));
		json_object_set_new(doc, "b", json_pack("{s:s}", "node", b));
		json_object_set_new(doc, "results", json_array());
		if (code == 0 || code == 1)
			code = -2;
	}
	if (k->term_at > 0) /* it had its --deadline and the grace (spawn) */
		snprintf(why, sizeof(why),
			 "no result within %.0f s (--deadline %.0f s and %d s to end); killed",
			 r->deadline_s + MX_PAIR_GRACE_S, r->deadline_s, MX_PAIR_GRACE_S);
	else if (code == -2)
		snprintf(why, sizeof(why), "pair exited %d without a JSON document%s%s",
			 WEXITSTATUS(k->status), *fc_child_last_err(k) ? ": " : "", fc_child_last_err(k));
	else if (code < 0)
		snprintf(why, sizeof(why), "pair died on signal %d", WTERMSIG(k->status));
	else if (!strncmp(fc_child_last_err(k), "fabcheck: error: ", 17))
		snprintf(why, sizeof(why), "%s", fc_child_last_err(k) + 17);
	else
		snprintf(why, sizeof(why), "%s", *fc_child_last_err(k) ? fc_child_last_err(k) :
					   "pair gave no result");
	if (code == 2)
		r->usage_error = 1;
	if (!fc_pair_end_judged(k->term_at > 0 ? -1 : code, doc)) {
		/* Could not run: an infrastructure error, not a bad link. */
		json_object_set_new(doc, "verdict", json_string("error"));
		json_object_set_new(doc, "error", json_string(why));
	}
	json_object_set_new(doc, "exit_code", json_integer(code));
	json_object_set_new(doc, "duration_s", json_real(fc_now() - k->start));
	json_object_set_new(doc, "matrix", json_pack("{s:I, s:i}", "run", (json_int_t)r->run,
						     "round", job->round + 1));
	if (r->pattern != FC_PAT_PAIRS && job->round >= 0)
		pattern_mark(r, job, json_object_get(doc, "matrix"));
	if (job->retest) {
		json_object_set_new(doc, "retest", json_true());
		json_object_set_new(doc, "retest_round", json_integer(job->retest));
	}
	return doc;
}

/* Kid @idx finished and the last took its place: so does its barrier slot. */
static void bar_slot_drop(struct mx_runner *r, int idx)
{
	struct fc_barrier *b = &r->bar;

	if (b->fd[idx] >= 0)
		close(b->fd[idx]);
	b->fd[idx] = b->fd[r->nkids];
	b->since[idx] = b->since[r->nkids];
	b->fd[r->nkids] = -1;
	b->since[r->nkids] = 0;
	b->n = r->nkids;
	if (!r->nkids) {
		fc_barrier_release(b);
		r->bar_on = 0;
	}
}

static int kid_finish(struct mx_runner *r, int idx)
{
	struct fc_child *k = &r->kids[idx];
	const struct mx_job *job = &r->kid_jobs[idx];
	json_t *doc;
	int rc;

	doc = kid_doc(r, k, job);
	rc = fc_store_pair_add(r->st, r->run, r->names[job->a], r->names[job->b], doc);
	if (!rc) {
		r->stored++;
		if (!strcmp(fc_jstr(doc, "verdict", ""), "error"))
			r->errors++;
		r->done[job->a * r->n + job->b] = strcmp(fc_jstr(doc, "verdict", ""), "error") != 0;
		if (r->on_result)
			r->on_result(r->arg, job, doc);
	}
	json_decref(doc);
	r->busy[job->a] = r->busy[job->b] = 0;
	fc_child_release(k);
	r->nkids--;
	r->kids[idx] = r->kids[r->nkids];
	r->kid_jobs[idx] = r->kid_jobs[r->nkids];
	if (r->bar_on)
		bar_slot_drop(r, idx);
	return rc;
}

/* Stores the results of the children that are done. */
static int kid_reap(struct mx_runner *r)
{
	int rc = 0;

	for (int i = 0; i < r->nkids;) {
		if (!r->kids[i].done) {
			i++;
			continue;
		}
		rc = kid_finish(r, i) ?: rc;
	}
	return rc;
}

/* Ends every child and drops its partial result (interrupted run). */
static void kill_all(struct mx_runner *r)
{
	fc_children_stop(r->kids, r->nkids);
	for (int i = 0; i < r->nkids; i++) {
		fc_child_release(&r->kids[i]);
		r->busy[r->kid_jobs[i].a] = r->busy[r->kid_jobs[i].b] = 0;
	}
	r->nkids = 0;
	if (r->bar_on)
		fc_barrier_release(&r->bar);
	r->bar_on = 0;
}

int mx_run_poll(struct mx_runner *r, int timeout_ms)
{
	int rc;

	if (r->stop && *r->stop) {
		kill_all(r);
		return -EINTR;
	}
	if (!r->nkids && !r->nq) {
		rc = r->plan ? r->plan(r->plan_arg, r) : next_round(r);
		if (rc <= 0) {
			r->planned_all = rc == 0;
			return rc;
		}
	}
	rc = start_jobs(r);
	if (rc) {
		kill_all(r);
		return rc;
	}
	if (r->bar_on && timeout_ms > 20) /* the start signal waits on this loop */
		timeout_ms = 20;
	rc = fc_children_poll(r->kids, r->nkids, timeout_ms);
	if (rc >= 0 && r->bar_on)
		fc_barrier_step(&r->bar, r->kids);
	rc = rc < 0 ? rc : kid_reap(r);
	if (r->usage_error) {
		kill_all(r);
		fc_err("pair refused the options matrix passed to it (see above); "
		       "fix the pair options of this matrix");
		return -EINVAL;
	}
	if (rc) {
		kill_all(r);
		return rc;
	}
	if (r->stop && *r->stop) {
		kill_all(r);
		return -EINTR;
	}
	if (r->plan)
		return r->nkids || r->nq || !r->planned_all ? 1 : 0;
	return r->nkids || r->nq || r->round + 1 < r->rounds ? 1 : 0;
}

int mx_run_active(const struct mx_runner *r, struct mx_job *out, int max)
{
	int i;

	for (i = 0; i < r->nkids && i < max; i++)
		out[i] = r->kid_jobs[i];
	return i;
}
