/* The matrix runner: `pair` children, a round at a time (see mx_run.h). */
#include "matrix/mx_run.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/log.h"
#include "core/out.h"
#include "core/sched.h"
#include "core/util.h"
#include "matrix/mx_model.h"

/* The most of a child's stdout kept (a pair document is a few KiB). */
#define KID_OUT_MAX (4u << 20)
#define KID_ERR_KEEP 2048
/* After SIGTERM, how long a child has before SIGKILL. */
#define KID_KILL_GRACE_S 5.0

struct mx_kid {
	pid_t pid;
	int fd[2]; /* stdout, stderr; -1 once closed */
	struct mx_job job;
	char *out;
	size_t olen, ocap;
	char err[KID_ERR_KEEP + 1];
	size_t elen;
	double start, term_at;
	int status;
};

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

int mx_run_init(struct mx_runner *r)
{
	r->rounds = fc_sched_rounds(r->n, r->both);
	r->round = -1;
	r->done = calloc((size_t)r->n * (size_t)r->n, 1);
	r->busy = calloc((size_t)r->n, sizeof(*r->busy));
	r->kids = calloc((size_t)r->n / 2 + 1, sizeof(*r->kids));
	if (!r->exe) {
		/* This binary's path (under valgrind, the program's, not the
		 * tool's, which exec of /proc/self/exe would start). */
		ssize_t len = readlink("/proc/self/exe", r->exe_buf, sizeof(r->exe_buf) - 1);

		if (len > 0) {
			r->exe_buf[len] = 0;
			r->exe = r->exe_buf;
		} else {
			r->exe = "/proc/self/exe";
		}
	}
	if (!r->done || !r->busy || !r->kids) {
		mx_run_release(r);
		return -ENOMEM;
	}
	return fc_store_pairs(r->st, r->run, 0, mark_done, r);
}

void mx_run_release(struct mx_runner *r)
{
	free(r->done);
	free(r->busy);
	free(r->kids);
	free(r->queue);
	r->done = NULL;
	r->busy = NULL;
	r->kids = NULL;
	r->queue = NULL;
}

int mx_run_add(struct mx_runner *r, int a, int b, int retest)
{
	if (r->nq == r->qcap) {
		int cap = r->qcap ? r->qcap * 2 : 16;
		struct mx_job *q = realloc(r->queue, (size_t)cap * sizeof(*q));

		if (!q)
			return -ENOMEM;
		r->queue = q;
		r->qcap = cap;
	}
	r->queue[r->nq++] = (struct mx_job){ .a = a, .b = b, .round = -1, .retest = retest };
	return 0;
}

/* Queues the next round's pairs not yet done; returns 0 when there is no
 * round left. */
static int next_round(struct mx_runner *r)
{
	struct fc_pair_idx p[FC_SCHED_MAX_NODES / 2];
	int cnt, i;

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

static int spawn(struct mx_runner *r, const struct mx_job *job)
{
	size_t nargs = json_array_size(r->pair_args), i;
	struct mx_kid *k = &r->kids[r->nkids];
	const char **argv;
	char evdir[1024];
	int out[2], err[2];
	pid_t pid;

	argv = calloc(nargs + 10, sizeof(*argv));
	if (!argv)
		return -ENOMEM;
	argv[0] = "fabcheck";
	argv[1] = "pair";
	argv[2] = r->names[job->a];
	argv[3] = r->names[job->b];
	argv[4] = "--json";
	argv[5] = "--no-db"; /* the matrix keeps each result in its own run */
	for (i = 0; i < nargs; i++)
		argv[6 + i] = json_string_value(json_array_get(r->pair_args, i));
	if (r->evidence_dir) {
		snprintf(evdir, sizeof(evdir), "%s/%03d-%s-%s", r->evidence_dir, ++r->spawned,
			 argv[2], argv[3]);
		argv[6 + nargs] = "--save-evidence";
		argv[7 + nargs] = evdir;
	}
	if (pipe2(out, O_CLOEXEC)) {
		fc_err("cannot create a pipe for pair %s-%s: %m", argv[2], argv[3]);
		free(argv);
		return -EMFILE;
	}
	if (pipe2(err, O_CLOEXEC)) {
		fc_err("cannot create a pipe for pair %s-%s: %m", argv[2], argv[3]);
		goto out_close_out;
	}
	pid = fork();
	if (pid < 0) {
		fc_err("cannot start pair %s-%s: %m", argv[2], argv[3]);
		goto out_close_err;
	}
	if (pid == 0) {
		int nul = open("/dev/null", O_RDONLY);

		/* Its own process group: a Ctrl-C reaches the matrix, which
		 * then ends each pair (and its ssh children) cleanly. */
		setpgid(0, 0);
		if (nul >= 0)
			dup2(nul, 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		execv(r->exe, (char *const *)argv);
		dprintf(2, "cannot run %s: %m\n", r->exe);
		_exit(127);
	}
	setpgid(pid, pid);
	close(out[1]);
	close(err[1]);
	free(argv);
	memset(k, 0, sizeof(*k));
	k->pid = pid;
	k->fd[0] = out[0];
	k->fd[1] = err[0];
	k->job = *job;
	k->start = fc_now();
	r->busy[job->a] = r->busy[job->b] = 1;
	r->nkids++;
	fc_info("round %d: started pair %s -> %s (pid %d)", job->round + 1, r->names[job->a],
		r->names[job->b], (int)pid);
	return 0;

out_close_err:
	close(err[0]);
	close(err[1]);
out_close_out:
	close(out[0]);
	close(out[1]);
	free(argv);
	return -EAGAIN;
}

/* Starts queued jobs whose two nodes are free. */
static int start_jobs(struct mx_runner *r)
{
	int i = 0, rc;

	while (i < r->nq && r->nkids < r->n / 2 + 1) {
		struct mx_job j = r->queue[i];

		if (r->busy[j.a] || r->busy[j.b]) {
			i++;
			continue;
		}
		rc = spawn(r, &j);
		if (rc)
			return rc;
		memmove(&r->queue[i], &r->queue[i + 1], (size_t)(r->nq - i - 1) * sizeof(j));
		r->nq--;
	}
	return 0;
}

static void kid_read(struct mx_kid *k, int which)
{
	char buf[8192];
	ssize_t got = read(k->fd[which], buf, sizeof(buf));

	if (got < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (got <= 0) {
		close(k->fd[which]);
		k->fd[which] = -1;
		return;
	}
	if (which == 0) {
		if (k->olen + (size_t)got > KID_OUT_MAX)
			return; /* an oversized document is dropped below */
		if (k->olen + (size_t)got + 1 > k->ocap) {
			size_t cap = (k->olen + (size_t)got + 1) * 2;
			char *o = realloc(k->out, cap);

			if (!o)
				return;
			k->out = o;
			k->ocap = cap;
		}
		memcpy(k->out + k->olen, buf, (size_t)got);
		k->olen += (size_t)got;
		return;
	}
	/* Keep the tail of stderr: the last lines say what went wrong. */
	if ((size_t)got >= KID_ERR_KEEP) {
		memcpy(k->err, buf + got - KID_ERR_KEEP, KID_ERR_KEEP);
		k->elen = KID_ERR_KEEP;
	} else {
		if (k->elen + (size_t)got > KID_ERR_KEEP) {
			size_t drop = k->elen + (size_t)got - KID_ERR_KEEP;

			memmove(k->err, k->err + drop, k->elen - drop);
			k->elen -= drop;
		}
		memcpy(k->err + k->elen, buf, (size_t)got);
		k->elen += (size_t)got;
	}
	k->err[k->elen] = 0;
}

/* The last non-empty line of the child's stderr. */
static const char *last_err_line(struct mx_kid *k)
{
	char *end;

	k->err[k->elen] = 0;
	while (k->elen && (k->err[k->elen - 1] == '\n' || k->err[k->elen - 1] == '\r'))
		k->err[--k->elen] = 0;
	end = strrchr(k->err, '\n');
	return end ? end + 1 : k->err;
}

/* The document to store for a finished child. */
static json_t *kid_doc(struct mx_runner *r, struct mx_kid *k)
{
	const char *a = r->names[k->job.a], *b = r->names[k->job.b];
	int code = WIFEXITED(k->status) ? WEXITSTATUS(k->status) : -1;
	json_t *doc = k->out ? json_loadb(k->out, k->olen, 0, NULL) : NULL;
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
	if (k->term_at > 0)
		snprintf(why, sizeof(why), "no result within %.0f s; killed", r->deadline_s);
	else if (code == -2)
		snprintf(why, sizeof(why), "pair exited %d without a JSON document%s%s",
			 WEXITSTATUS(k->status), *last_err_line(k) ? ": " : "", last_err_line(k));
	else if (code < 0)
		snprintf(why, sizeof(why), "pair died on signal %d", WTERMSIG(k->status));
	else if (!strncmp(last_err_line(k), "fabcheck: error: ", 17))
		snprintf(why, sizeof(why), "%s", last_err_line(k) + 17);
	else
		snprintf(why, sizeof(why), "%s", *last_err_line(k) ? last_err_line(k) :
					   "pair gave no result");
	if (code == 2)
		r->usage_error = 1;
	if (code != 0 && code != 1) {
		/* Could not run: an infrastructure error, not a bad link. */
		json_object_set_new(doc, "verdict", json_string("error"));
		json_object_set_new(doc, "error", json_string(why));
	}
	json_object_set_new(doc, "exit_code", json_integer(code));
	json_object_set_new(doc, "duration_s", json_real(fc_now() - k->start));
	json_object_set_new(doc, "matrix", json_pack("{s:I, s:i}", "run", (json_int_t)r->run,
						     "round", k->job.round + 1));
	if (k->job.retest)
		json_object_set_new(doc, "retest", json_true());
	return doc;
}

static int kid_finish(struct mx_runner *r, int idx)
{
	struct mx_kid *k = &r->kids[idx];
	json_t *doc;
	int rc;

	doc = kid_doc(r, k);
	rc = fc_store_pair_add(r->st, r->run, r->names[k->job.a], r->names[k->job.b], doc);
	if (!rc) {
		r->stored++;
		if (!strcmp(fc_jstr(doc, "verdict", ""), "error"))
			r->errors++;
		r->done[k->job.a * r->n + k->job.b] =
			strcmp(fc_jstr(doc, "verdict", ""), "error") != 0;
		if (r->on_result)
			r->on_result(r->arg, &k->job, doc);
	}
	json_decref(doc);
	r->busy[k->job.a] = r->busy[k->job.b] = 0;
	free(k->out);
	r->kids[idx] = r->kids[--r->nkids];
	return rc;
}

/* Signals the child's process group (the pair and what it started). */
static void kid_signal(struct mx_kid *k, int sig)
{
	if (kill(-k->pid, sig) && errno == ESRCH)
		kill(k->pid, sig);
}

static void kid_deadlines(struct mx_runner *r)
{
	double now = fc_now();

	for (int i = 0; i < r->nkids; i++) {
		struct mx_kid *k = &r->kids[i];

		if (!k->term_at && r->deadline_s > 0 && now - k->start > r->deadline_s) {
			fc_warn("pair %s -> %s: no result after %.0f s; ending it",
				r->names[k->job.a], r->names[k->job.b], r->deadline_s);
			kid_signal(k, SIGTERM);
			k->term_at = now;
		} else if (k->term_at && now - k->term_at > KID_KILL_GRACE_S) {
			kid_signal(k, SIGKILL);
		}
	}
}

/* Reaps children whose pipes are closed. */
static int kid_reap(struct mx_runner *r)
{
	int rc = 0;

	for (int i = 0; i < r->nkids;) {
		struct mx_kid *k = &r->kids[i];

		if (k->fd[0] >= 0 || k->fd[1] >= 0) {
			i++;
			continue;
		}
		if (waitpid(k->pid, &k->status, 0) < 0)
			k->status = 0x7f00; /* exit 127 */
		rc = kid_finish(r, i) ?: rc;
	}
	return rc;
}

/* Ends every child and drops its partial result (interrupted run). */
static void kill_all(struct mx_runner *r)
{
	double t0 = fc_now();
	int i, st;

	for (i = 0; i < r->nkids; i++)
		kid_signal(&r->kids[i], SIGTERM);
	for (i = 0; i < r->nkids; i++) {
		while (waitpid(r->kids[i].pid, &st, WNOHANG) == 0) {
			if (fc_now() - t0 > KID_KILL_GRACE_S)
				kid_signal(&r->kids[i], SIGKILL);
			usleep(20000);
		}
		for (int j = 0; j < 2; j++)
			if (r->kids[i].fd[j] >= 0)
				close(r->kids[i].fd[j]);
		free(r->kids[i].out);
		r->busy[r->kids[i].job.a] = r->busy[r->kids[i].job.b] = 0;
	}
	r->nkids = 0;
}

static int wait_kids(struct mx_runner *r, int timeout_ms)
{
	struct pollfd pfd[FC_SCHED_MAX_NODES + 2];
	int idx[FC_SCHED_MAX_NODES + 2], which[FC_SCHED_MAX_NODES + 2];
	int nfd = 0, got;

	for (int i = 0; i < r->nkids; i++) {
		for (int j = 0; j < 2; j++) {
			if (r->kids[i].fd[j] < 0)
				continue;
			pfd[nfd] = (struct pollfd){ .fd = r->kids[i].fd[j], .events = POLLIN };
			idx[nfd] = i;
			which[nfd++] = j;
		}
	}
	/* Wake up at least once a second for the deadlines. */
	if (timeout_ms < 0 || timeout_ms > 1000)
		timeout_ms = 1000;
	got = poll(pfd, (nfds_t)nfd, timeout_ms);
	if (got < 0)
		return errno == EINTR ? 0 : -errno;
	for (int f = 0; f < nfd && got; f++)
		if (pfd[f].revents)
			kid_read(&r->kids[idx[f]], which[f]);
	return 0;
}

int mx_run_poll(struct mx_runner *r, int timeout_ms)
{
	int rc;

	if (r->stop && *r->stop) {
		kill_all(r);
		return -EINTR;
	}
	if (!r->nkids && !r->nq) {
		rc = next_round(r);
		if (rc <= 0)
			return rc;
	}
	rc = start_jobs(r);
	if (rc) {
		kill_all(r);
		return rc;
	}
	rc = wait_kids(r, timeout_ms);
	if (!rc)
		rc = kid_reap(r);
	kid_deadlines(r);
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
	return r->nkids || r->nq || r->round + 1 < r->rounds ? 1 : 0;
}

int mx_run_active(const struct mx_runner *r, struct mx_job *out, int max)
{
	int i;

	for (i = 0; i < r->nkids && i < max; i++)
		out[i] = r->kids[i].job;
	return i;
}
