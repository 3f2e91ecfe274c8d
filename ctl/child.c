/* Children with deadlines whose stdout is kept (see pf_exec.h). */
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

/* The most of a child's stdout kept. */
#define PF_OUT_MAX (8u << 20)

int pf_child_start(struct pf_child *c, const char *const *argv, double timeout_s)
{
	int out[2], err[2];

	c->fd[0] = c->fd[1] = -1;
	c->out = NULL;
	c->olen = c->ocap = c->elen = 0;
	c->err[0] = 0;
	c->timed_out = c->done = c->exec_failed = c->status = 0;
	if (pipe2(out, O_CLOEXEC)) {
		fc_err("%s: cannot create a pipe: %m", c->name);
		return -errno;
	}
	if (pipe2(err, O_CLOEXEC)) {
		fc_err("%s: cannot create a pipe: %m", c->name);
		goto out_close_out;
	}
	fflush(NULL);
	c->pid = fork();
	if (c->pid < 0) {
		fc_err("%s: cannot start %s: %m", c->name, argv[0]);
		goto out_close_err;
	}
	if (c->pid == 0) {
		int nul = open("/dev/null", O_RDONLY);

		setpgid(0, 0);
		if (nul >= 0)
			dup2(nul, 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		execvp(argv[0], (char *const *)argv);
		dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	setpgid(c->pid, c->pid);
	close(out[1]);
	close(err[1]);
	c->fd[0] = out[0];
	c->fd[1] = err[0];
	c->deadline = fc_now() + timeout_s;
	return 0;

out_close_err:
	close(err[0]);
	close(err[1]);
out_close_out:
	close(out[0]);
	close(out[1]);
	c->done = 1;
	c->exec_failed = errno ? errno : EIO;
	return -c->exec_failed;
}

static void child_read(struct pf_child *c, int which)
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
	if (which == 0) {
		if (c->olen + (size_t)got + 1 > PF_OUT_MAX)
			return;
		if (c->olen + (size_t)got + 1 > c->ocap) {
			size_t cap = (c->olen + (size_t)got + 1) * 2;
			char *o = realloc(c->out, cap);

			if (!o)
				return;
			c->out = o;
			c->ocap = cap;
		}
		memcpy(c->out + c->olen, buf, (size_t)got);
		c->olen += (size_t)got;
		c->out[c->olen] = 0;
		return;
	}
	if ((size_t)got >= sizeof(c->err) - 1) {
		memcpy(c->err, buf + got - (ssize_t)sizeof(c->err) + 1, sizeof(c->err) - 1);
		c->elen = sizeof(c->err) - 1;
	} else {
		if (c->elen + (size_t)got > sizeof(c->err) - 1) {
			size_t drop = c->elen + (size_t)got - (sizeof(c->err) - 1);

			memmove(c->err, c->err + drop, c->elen - drop);
			c->elen -= drop;
		}
		memcpy(c->err + c->elen, buf, (size_t)got);
		c->elen += (size_t)got;
	}
	c->err[c->elen] = 0;
}

static void child_kill(struct pf_child *c)
{
	if (kill(-c->pid, SIGKILL) && errno == ESRCH)
		kill(c->pid, SIGKILL);
}

static int child_poll_done(struct pf_child *c)
{
	if (c->done)
		return 1;
	if (c->fd[0] >= 0 || c->fd[1] >= 0)
		return 0;
	if (waitpid(c->pid, &c->status, 0) < 0)
		c->status = 0x7f00;
	c->done = 1;
	return 1;
}

void pf_children_wait(struct pf_child *c, int n)
{
	struct pollfd *pfd = calloc((size_t)n * 2 + 1, sizeof(*pfd));
	int *map = calloc((size_t)n * 2 + 1, sizeof(*map));

	if (!pfd || !map) {
		for (int i = 0; i < n; i++)
			if (!c[i].done)
				child_kill(&c[i]);
	}
	for (;;) {
		int np = 0, left = 0;
		double now = fc_now(), next = now + 1;

		for (int i = 0; i < n; i++) {
			if (child_poll_done(&c[i]))
				continue;
			left++;
			if (now >= c[i].deadline && !c[i].timed_out) {
				c[i].timed_out = 1;
				child_kill(&c[i]);
			}
			if (c[i].deadline < next)
				next = c[i].deadline;
			for (int j = 0; j < 2 && pfd; j++) {
				if (c[i].fd[j] < 0)
					continue;
				pfd[np] = (struct pollfd){ .fd = c[i].fd[j], .events = POLLIN };
				map[np++] = i * 2 + j;
			}
		}
		if (!left || !pfd)
			break;
		int ms = (int)((next - now) * 1000) + 5;

		if (ms < 5)
			ms = 5;
		if (poll(pfd, (nfds_t)np, ms) < 0 && errno != EINTR)
			break;
		for (int k = 0; k < np; k++)
			if (pfd[k].revents)
				child_read(&c[map[k] / 2], map[k] % 2);
	}
	for (int i = 0; i < n; i++) {
		if (c[i].done)
			continue;
		/* Only when poll itself failed: end it. */
		child_kill(&c[i]);
		for (int j = 0; j < 2; j++)
			if (c[i].fd[j] >= 0)
				close(c[i].fd[j]);
		c[i].fd[0] = c[i].fd[1] = -1;
		waitpid(c[i].pid, &c[i].status, 0);
		c[i].done = 1;
	}
	free(pfd);
	free(map);
}

void pf_child_release(struct pf_child *c)
{
	free(c->out);
	c->out = NULL;
}

const char *pf_child_last_err(struct pf_child *c)
{
	char *end;

	while (c->elen && (c->err[c->elen - 1] == '\n' || c->err[c->elen - 1] == '\r'))
		c->err[--c->elen] = 0;
	end = strrchr(c->err, '\n');
	return end ? end + 1 : c->err;
}

char *pf_capture(const char *const *argv, double timeout_s, int *exit_p, char *why,
		 size_t whylen)
{
	struct pf_child c = { .name = argv[0] };
	char *out;

	*exit_p = -1;
	if (pf_child_start(&c, argv, timeout_s)) {
		snprintf(why, whylen, "cannot start %s", argv[0]);
		return NULL;
	}
	pf_children_wait(&c, 1);
	if (c.timed_out) {
		snprintf(why, whylen, "%s gave no answer within %.0f s", argv[0], timeout_s);
		pf_child_release(&c);
		return NULL;
	}
	*exit_p = WIFEXITED(c.status) ? WEXITSTATUS(c.status) : -1;
	snprintf(why, whylen, "%s", pf_child_last_err(&c));
	out = c.out ? c.out : strdup("");
	return out;
}
