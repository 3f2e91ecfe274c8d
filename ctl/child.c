/* Children with deadlines whose output is kept (see child.h). */
#include "ctl/child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/log.h"
#include "core/util.h"
#include "ctl/scale.h"

static void close_pair(int p[2])
{
	close(p[0]);
	close(p[1]);
}

static void child_exec(const char *exe, const char *const *argv, int out, int err)
{
	int nul = open("/dev/null", O_RDONLY);

	/* Its own process group: a Ctrl-C reaches the parent, which then
	 * ends each child (and what it started) cleanly. */
	setpgid(0, 0);
	if (nul >= 0)
		dup2(nul, 0);
	dup2(out, 1);
	dup2(err, 2);
	if (exe)
		execv(exe, (char *const *)argv);
	else
		execvp(argv[0], (char *const *)argv);
	dprintf(2, "cannot run %s: %s\n", exe ? exe : argv[0], strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

int fc_child_start(struct fc_child *c, const char *exe, const char *const *argv,
		   double timeout_s)
{
	int out[2], err[2];

	c->fd[0] = c->fd[1] = -1;
	c->out = NULL;
	c->olen = c->ocap = c->elen = 0;
	c->err[0] = 0;
	c->out_cut = c->timed_out = c->done = c->exec_failed = c->status = 0;
	c->term_at = 0;
	if (pipe2(out, O_CLOEXEC)) {
		fc_err("%s: cannot create a pipe: %m", c->name);
		goto out_fail;
	}
	if (pipe2(err, O_CLOEXEC)) {
		fc_err("%s: cannot create a pipe: %m", c->name);
		close_pair(out);
		goto out_fail;
	}
	fflush(NULL);
	c->pid = fork();
	if (c->pid < 0) {
		fc_err("%s: cannot start %s: %m", c->name, exe ? exe : argv[0]);
		close_pair(err);
		close_pair(out);
		goto out_fail;
	}
	if (c->pid == 0)
		child_exec(exe, argv, out[1], err[1]);
	setpgid(c->pid, c->pid);
	close(out[1]);
	close(err[1]);
	c->fd[0] = out[0];
	c->fd[1] = err[0];
	c->start = fc_now();
	c->deadline = timeout_s > 0 ? c->start + timeout_s : 0;
	return 0;

out_fail:
	c->done = 1;
	c->exec_failed = errno ? errno : EIO;
	return -c->exec_failed;
}

static void keep_out(struct fc_child *c, const char *buf, size_t got)
{
	if (c->out_cut)
		return;
	if (c->olen + got > (c->out_max ? c->out_max : FC_CHILD_OUT_MAX)) {
		c->out_cut = 1;
		return;
	}
	if (c->olen + got + 1 > c->ocap) {
		size_t cap = (c->olen + got + 1) * 2;
		char *o = realloc(c->out, cap);

		if (!o) {
			c->out_cut = 1;
			return;
		}
		c->out = o;
		c->ocap = cap;
	}
	memcpy(c->out + c->olen, buf, got);
	c->olen += got;
	c->out[c->olen] = 0;
}

static void keep_err_tail(struct fc_child *c, const char *buf, size_t got)
{
	if (got >= FC_CHILD_ERR_KEEP) {
		memcpy(c->err, buf + got - FC_CHILD_ERR_KEEP, FC_CHILD_ERR_KEEP);
		c->elen = FC_CHILD_ERR_KEEP;
	} else {
		if (c->elen + got > FC_CHILD_ERR_KEEP) {
			size_t drop = c->elen + got - FC_CHILD_ERR_KEEP;

			memmove(c->err, c->err + drop, c->elen - drop);
			c->elen -= drop;
		}
		memcpy(c->err + c->elen, buf, got);
		c->elen += got;
	}
	c->err[c->elen] = 0;
}

static void child_read(struct fc_child *c, int which)
{
	char buf[8192];
	ssize_t got = read(c->fd[which], buf, sizeof(buf));

	if (got < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (got <= 0) {
		close(c->fd[which]);
		c->fd[which] = -1;
		return;
	}
	if (which == 0)
		keep_out(c, buf, (size_t)got);
	else
		keep_err_tail(c, buf, (size_t)got);
}

/* Signals the child's process group (the child and what it started). */
static void child_signal(struct fc_child *c, int sig)
{
	if (kill(-c->pid, sig) && errno == ESRCH)
		kill(c->pid, sig);
}

static void child_deadline(struct fc_child *c, double now)
{
	if (!c->term_at && c->deadline > 0 && now >= c->deadline) {
		fc_warn("%s: no answer within %.0f s; ending it", c->name, c->deadline - c->start);
		c->timed_out = 1;
		c->term_at = now;
		child_signal(c, SIGTERM);
	} else if (c->term_at && now - c->term_at > FC_CHILD_GRACE_S) {
		child_signal(c, SIGKILL);
	}
}

/* Reaps @c once both pipes are closed. Returns 1 when it is done. */
static int child_reap(struct fc_child *c)
{
	if (c->done)
		return 1;
	if (c->fd[0] >= 0 || c->fd[1] >= 0)
		return 0;
	if (waitpid(c->pid, &c->status, 0) < 0)
		c->status = 0x7f00; /* exit 127 */
	c->done = 1;
	return 1;
}

static int poll_fds(struct fc_child *c, int n, struct pollfd *pfd, int *map, int timeout_ms)
{
	int np = 0, got;

	for (int i = 0; i < n; i++)
		for (int j = 0; j < 2 && !c[i].done; j++) {
			if (c[i].fd[j] < 0)
				continue;
			pfd[np] = (struct pollfd){ .fd = c[i].fd[j], .events = POLLIN };
			map[np++] = i * 2 + j;
		}
	if (timeout_ms < 0 || timeout_ms > 1000)
		timeout_ms = 1000;
	got = poll(pfd, (nfds_t)np, timeout_ms);
	if (got < 0)
		return errno == EINTR ? 0 : -errno;
	for (int k = 0; k < np && got; k++)
		if (pfd[k].revents)
			child_read(&c[map[k] / 2], map[k] % 2);
	return 0;
}

int fc_children_poll(struct fc_child *c, int n, int timeout_ms)
{
	struct pollfd *pfd = calloc((size_t)n * 2 + 1, sizeof(*pfd));
	int *map = calloc((size_t)n * 2 + 1, sizeof(*map));
	int rc = pfd && map ? poll_fds(c, n, pfd, map, timeout_ms) : -ENOMEM;
	int left = 0;
	double now = fc_now();

	free(pfd);
	free(map);
	for (int i = 0; i < n; i++) {
		if (child_reap(&c[i]))
			continue;
		child_deadline(&c[i], now);
		left++;
	}
	return rc < 0 ? rc : left;
}

void fc_children_stop(struct fc_child *c, int n)
{
	double t0 = fc_now();

	for (int i = 0; i < n; i++)
		if (!c[i].done)
			child_signal(&c[i], SIGTERM);
	for (int i = 0; i < n; i++) {
		int st;

		if (c[i].done)
			continue;
		for (int j = 0; j < 2; j++)
			if (c[i].fd[j] >= 0)
				close(c[i].fd[j]);
		c[i].fd[0] = c[i].fd[1] = -1;
		while (waitpid(c[i].pid, &st, WNOHANG) == 0) {
			if (fc_now() - t0 > FC_CHILD_GRACE_S)
				child_signal(&c[i], SIGKILL);
			usleep(20000);
		}
		c[i].status = st;
		c[i].done = 1;
	}
}

void fc_children_wait(struct fc_child *c, int n)
{
	int left;

	while ((left = fc_children_poll(c, n, 1000)) > 0)
		;
	if (left < 0) /* poll itself failed: end them */
		fc_children_stop(c, n);
}

int fc_children_run(struct fc_child *c, int n, int fanout, fc_child_start_fn start, void *arg)
{
	int started = 0, running = 0, left;

	fanout = fc_fanout_of(fanout);
	for (;;) {
		while (started < n && running < fanout && !fc_stop) {
			if (!start(arg, started, &c[started]))
				running++;
			else
				c[started].done = 1;
			started++;
		}
		left = fc_children_poll(c, started, 1000);
		if (left < 0) { /* poll itself failed: end them */
			fc_children_stop(c, started);
			break;
		}
		running = left;
		if (!running && (started == n || fc_stop))
			break;
	}
	for (int i = started; i < n; i++) {
		c[i].done = 1;
		c[i].exec_failed = EINTR; /* never started: stopped first */
	}
	return started;
}

void fc_child_release(struct fc_child *c)
{
	free(c->out);
	c->out = NULL;
	c->olen = c->ocap = 0;
}

const char *fc_child_last_err(struct fc_child *c)
{
	char *end;

	c->err[c->elen] = 0;
	while (c->elen && (c->err[c->elen - 1] == '\n' || c->err[c->elen - 1] == '\r'))
		c->err[--c->elen] = 0;
	end = strrchr(c->err, '\n');
	return end ? end + 1 : c->err;
}

char *fc_capture(const char *const *argv, double timeout_s, int *exit_p, char *why,
		 size_t whylen)
{
	struct fc_child c = { 0 };

	snprintf(c.name, sizeof(c.name), "%s", argv[0]);
	*exit_p = -1;
	if (fc_child_start(&c, NULL, argv, timeout_s)) {
		snprintf(why, whylen, "cannot start %s", argv[0]);
		return NULL;
	}
	fc_children_wait(&c, 1);
	if (c.timed_out || c.out_cut) {
		if (c.timed_out)
			snprintf(why, whylen, "%s gave no answer within %.0f s", argv[0], timeout_s);
		else
			snprintf(why, whylen, "%s wrote more than %u MiB; its output was not read",
				 argv[0], FC_CHILD_OUT_MAX >> 20);
		fc_child_release(&c);
		return NULL;
	}
	*exit_p = WIFEXITED(c.status) ? WEXITSTATUS(c.status) : -1;
	snprintf(why, whylen, "%s", fc_child_last_err(&c));
	return c.out ? c.out : strdup("");
}

volatile sig_atomic_t fc_stop, fc_stop_sig;

static void on_stop_signal(int sig)
{
	fc_stop_sig = sig;
	fc_stop = 1;
}

void fc_stop_on_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop_signal };

	fc_stop = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}
