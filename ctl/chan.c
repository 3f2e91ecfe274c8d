/* The controller's channel to one worker over ssh, srun or a local child (see chan.h). */
#include "ctl/chan.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/fc.h"
#include "core/log.h"
#include "core/out.h"
#include "core/util.h"
#include "ctl/child.h" /* fc_stop */
#include "ctl/ssh_mux.h"

static const char *const launcher_names[] = {
	[FC_LAUNCH_SSH] = "ssh",
	[FC_LAUNCH_LOCAL] = "local",
	[FC_LAUNCH_SLURM] = "slurm",
};

int fc_launcher_parse(const char *s, enum fc_launcher *out_p)
{
	for (size_t i = 0; i < FC_ARRAY_SIZE(launcher_names); i++) {
		if (!strcmp(s, launcher_names[i])) {
			*out_p = (enum fc_launcher)i;
			return 0;
		}
	}
	fc_err("--launcher: '%s' is not a launcher; expected ssh, slurm or local", s);
	return -EINVAL;
}

const char *fc_launcher_name(enum fc_launcher k)
{
	return (size_t)k < FC_ARRAY_SIZE(launcher_names) ? launcher_names[k] : "?";
}

/* The remote shell line of ssh: every word of the worker command and of
 * @sub quoted, so that the node's shell runs exactly these words. */
static int ssh_line(const char *const *cmd, int ncmd, const char *const *sub, int verbose,
		    char *buf, size_t len)
{
	size_t off = 0;
	int rc = 0;

	buf[0] = 0;
	for (int i = 0; !rc && i < ncmd; i++)
		rc = fc_sh_append(buf, len, &off, cmd[i]);
	if (!rc && verbose)
		rc = fc_sh_append(buf, len, &off, "-v");
	for (size_t i = 0; !rc && sub[i]; i++)
		rc = fc_sh_append(buf, len, &off, sub[i]);
	return rc ? rc : (int)off;
}

static int ssh_argv(const struct fc_launch *l, const char *node, const char **argv, int n,
		    const char *remote, char *opt, size_t optlen)
{
	const char *mux = fc_ssh_mux_dir();
	int w = snprintf(opt, optlen, "ConnectTimeout=%d", l->connect_timeout);

	argv[n++] = "ssh";
	argv[n++] = "-T";
	argv[n++] = "-o";
	argv[n++] = "BatchMode=yes";
	argv[n++] = "-o";
	argv[n++] = opt;
	argv[n++] = "-o";
	argv[n++] = "ServerAliveInterval=5";
	argv[n++] = "-o";
	argv[n++] = "ServerAliveCountMax=3";
	if (mux && w > 0 && (size_t)w + 1 < optlen) {
		char *cp = opt + w + 1, *cpe;
		size_t left = optlen - (size_t)w - 1;
		int wp = snprintf(cp, left, "ControlPath=%s/%%C", mux);

		if (wp > 0 && (size_t)wp + 1 < left) {
			cpe = cp + wp + 1;
			snprintf(cpe, left - (size_t)wp - 1, "ControlPersist=%d", FC_SSH_PERSIST_S);
			argv[n++] = "-o";
			argv[n++] = "ControlMaster=auto";
			argv[n++] = "-o";
			argv[n++] = cp;
			argv[n++] = "-o";
			argv[n++] = cpe;
		}
	}
	if (l->ssh_config) {
		argv[n++] = "-F";
		argv[n++] = l->ssh_config;
	}
	argv[n++] = "--";
	argv[n++] = node;
	argv[n++] = remote;
	argv[n] = NULL;
	return n;
}

int fc_launch_argv(const struct fc_launch *l, const char *node, const char *const *sub,
		   const char **argv, char *buf, size_t buflen)
{
	const char *dflt = l->kind == FC_LAUNCH_LOCAL ? fc_self_exe() : "fabcheck";
	const char *cmd = l->worker_cmd ? l->worker_cmd : dflt;
	const char *words[FC_LAUNCH_MAX_ARGS];
	size_t nsub = 0, used = strlen(cmd) + 1;
	int n = 0, nw;

	while (sub[nsub])
		nsub++;
	/* Room for ssh's 22 options, -v, the subcommand and the NULL. */
	if (used + 192 > buflen || nsub + 26 > FC_LAUNCH_MAX_ARGS)
		return -E2BIG;
	memcpy(buf, cmd, used);
	nw = fc_split_words(buf, words, FC_LAUNCH_MAX_ARGS - 9 - (int)nsub);
	if (nw <= 0)
		return nw < 0 ? nw : -EINVAL;
	if (l->kind == FC_LAUNCH_SSH) {
		int w = ssh_line(words, nw, sub, l->verbose, buf + used, buflen - used - 160);

		if (w < 0)
			return w;
		return ssh_argv(l, node, argv, 0, buf + used, buf + used + w + 1,
				buflen - used - (size_t)w - 1);
	}
	if (l->kind == FC_LAUNCH_SLURM) {
		/* One task on the named node; --overlap lets a step share the
		 * node with the steps of other pairs still ending. srun runs the
		 * words as they are (no shell). */
		int w = snprintf(buf + used, buflen - used, "--nodelist=%s", node);

		if (w < 0 || (size_t)w >= buflen - used)
			return -E2BIG;
		argv[n++] = "srun";
		argv[n++] = buf + used;
		argv[n++] = "-N1";
		argv[n++] = "-n1";
		argv[n++] = "--quiet";
		argv[n++] = "--overlap";
		argv[n++] = "--job-name=fabcheck";
	}
	for (int i = 0; i < nw; i++)
		argv[n++] = words[i];
	if (l->verbose)
		argv[n++] = "-v";
	for (size_t i = 0; i < nsub; i++)
		argv[n++] = sub[i];
	argv[n] = NULL;
	return n;
}

static void child_exec(const char *node, const struct fc_launch *l)
{
	const char *sub[] = { l->worker_sub ? l->worker_sub : "worker", NULL };
	const char *argv[FC_LAUNCH_MAX_ARGS];
	char buf[2048];

	if (fc_launch_argv(l, node, sub, argv, buf, sizeof(buf)) < 0) {
		fprintf(stderr, "%s: the worker's command line is empty or too long\n", node);
		_exit(126);
	}
	if (l->kind == FC_LAUNCH_LOCAL)
		execv(argv[0], (char **)argv);
	else
		execvp(argv[0], (char **)argv);
	fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(errno == ENOENT && l->kind == FC_LAUNCH_LOCAL ? 127 : 126);
}

int fc_chan_start(struct fc_chan *c, const char *node, const struct fc_launch *l)
{
	int in[2], out[2], err[2];

	memset(c, 0, sizeof(*c));
	c->to_fd = c->from_fd = c->err_fd = -1;
	snprintf(c->node, sizeof(c->node), "%s", node);
	c->kind = l->kind;
	c->verbose = l->verbose;
	fc_linebuf_init(&c->lb, FC_WIRE_MAX_LINE);
	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC))
		goto fail;
	if (pipe2(err, O_CLOEXEC))
		goto fail;
	fflush(NULL);
	c->pid = fork();
	if (c->pid < 0)
		goto fail;
	if (c->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		child_exec(node, l);
	}
	close(in[0]);
	close(out[1]);
	close(err[1]);
	c->to_fd = in[1];
	c->from_fd = out[0];
	c->err_fd = err[0];
	return 0;
fail:
	snprintf(c->why, sizeof(c->why), "%s: cannot start the worker: %s", node, strerror(errno));
	fc_err("%s", c->why);
	c->dead = 1;
	return -errno;
}

static void explain_exit(struct fc_chan *c);

int fc_chan_send(struct fc_chan *c, const char *type, const json_t *body)
{
	char *line;
	size_t len, off = 0;

	if (c->dead)
		return -EPIPE;
	line = fc_wire_format(FC_WIRE_VERSION, ++c->tx_seq, type, body);
	if (!line) {
		snprintf(c->why, sizeof(c->why), "%s: cannot format a '%s' message: %s", c->node,
			 type, strerror(errno));
		return -errno;
	}
	len = strlen(line);
	while (off < len) {
		ssize_t w = write(c->to_fd, line + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			free(line);
			explain_exit(c);
			return -EPIPE;
		}
		off += (size_t)w;
	}
	free(line);
	return 0;
}

/* Keeps the last lines of the worker's stderr; prints them with -v. */
static void drain_stderr(struct fc_chan *c)
{
	char buf[4096];
	ssize_t n = read(c->err_fd, buf, sizeof(buf));

	if (n <= 0) {
		close(c->err_fd);
		c->err_fd = -1;
		return;
	}
	if (c->verbose) { /* the worker's words: no escape sequence reaches the terminal */
		fprintf(stderr, "[%s] ", c->node);
		fc_put_safe(stderr, buf, (size_t)n);
	}
	if ((size_t)n >= sizeof(c->err_tail)) {
		memcpy(c->err_tail, buf + n - (ssize_t)sizeof(c->err_tail) + 1,
		       sizeof(c->err_tail) - 1);
		c->err_len = sizeof(c->err_tail) - 1;
	} else {
		if (c->err_len + (size_t)n >= sizeof(c->err_tail)) {
			size_t drop = c->err_len + (size_t)n - sizeof(c->err_tail) + 1;

			memmove(c->err_tail, c->err_tail + drop, c->err_len - drop);
			c->err_len -= drop;
		}
		memcpy(c->err_tail + c->err_len, buf, (size_t)n);
		c->err_len += (size_t)n;
	}
	c->err_tail[c->err_len] = '\0';
}

/* The last non-empty line the worker wrote to stderr. */
static const char *last_err_line(struct fc_chan *c, char *buf, size_t len)
{
	char *end = c->err_tail + c->err_len, *s;

	while (end > c->err_tail && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	s = end;
	while (s > c->err_tail && s[-1] != '\n')
		s--;
	snprintf(buf, len, "%.*s", (int)(end - s), s);
	return buf;
}

static void explain_exit(struct fc_chan *c)
{
	char last[512];
	int status = 0;
	double end = fc_now() + 3;
	pid_t p;

	while ((p = waitpid(c->pid, &status, WNOHANG)) == 0 && fc_now() < end)
		usleep(10000);
	if (c->err_fd >= 0)
		while (c->err_fd >= 0)
			drain_stderr(c);
	last_err_line(c, last, sizeof(last));
	if (p == c->pid)
		c->pid = 0;
	if (p <= 0) {
		snprintf(c->why, sizeof(c->why),
			 "%s: lost the worker (its output closed)%s%s", c->node,
			 *last ? "; it said: " : "", last);
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 255 && c->kind == FC_LAUNCH_SSH &&
		   c->rx_seq > 0) {
		snprintf(c->why, sizeof(c->why),
			 "%s: lost the worker: its ssh session ended (exit 255%s%s): the worker died or the management network dropped; check the node (dmesg, its load) and rerun with -v",
			 c->node, *last ? ": " : "", last);
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 255 && c->kind == FC_LAUNCH_SSH) {
		snprintf(c->why, sizeof(c->why),
			 "%s: cannot reach the node over ssh (exit 255%s%s): check the name, ~/.ssh/config or --ssh-config, and that 'ssh %s true' works",
			 c->node, *last ? ": " : "", last, c->node);
	} else if (WIFEXITED(status) && c->kind == FC_LAUNCH_SLURM && c->rx_seq == 0) {
		snprintf(c->why, sizeof(c->why),
			 "%s: srun could not start the worker (exit %d%s%s): check that 'srun --nodelist=%s -N1 -n1 fabcheck version' works (the node in the allocation or partition, slurmd up, SLURM_CONF), or install fabcheck there",
			 c->node, WEXITSTATUS(status), *last ? ": " : "", last, c->node);
	} else if (WIFEXITED(status) && (WEXITSTATUS(status) == 127 || WEXITSTATUS(status) == 126)) {
		snprintf(c->why, sizeof(c->why),
			 "%s: fabcheck is not installed or not runnable there (exit %d%s%s): install it on the node or give its path with --worker-cmd",
			 c->node, WEXITSTATUS(status), *last ? ": " : "", last);
	} else if (WIFEXITED(status)) {
		snprintf(c->why, sizeof(c->why), "%s: the worker exited with status %d%s%s",
			 c->node, WEXITSTATUS(status), *last ? "; it said: " : "", last);
	} else {
		snprintf(c->why, sizeof(c->why), "%s: the worker was killed by signal %d%s%s",
			 c->node, WTERMSIG(status), *last ? "; it said: " : "", last);
	}
	c->dead = 1;
}

/* Reads what the worker wrote to stdout. 0, or -EPIPE when it closed. */
static int drain_stdout(struct fc_chan *c)
{
	char buf[8192];
	ssize_t n = read(c->from_fd, buf, sizeof(buf));
	int err;

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0) {
		explain_exit(c);
		return -EPIPE;
	}
	err = fc_linebuf_feed(&c->lb, buf, (size_t)n);
	if (err) {
		snprintf(c->why, sizeof(c->why),
			 "%s: refused the worker's output: a line over %d bytes without a newline",
			 c->node, FC_WIRE_MAX_LINE);
		c->dead = 1;
		return -EPROTO;
	}
	return 0;
}

/* Takes the next complete message of @c, if any: 1, 0 none, or -errno. */
static int next_msg(struct fc_chan *c, json_t **msg_p)
{
	char *line, why[512];
	size_t len;
	int err;

	if (!fc_linebuf_next(&c->lb, &line, &len))
		return 0;
	err = fc_wire_parse(line, len, FC_WIRE_VERSION, c->rx_seq + 1, msg_p, NULL, why,
			    sizeof(why));
	if (err) {
		snprintf(c->why, sizeof(c->why), "%s: refused a message from the worker: %s",
			 c->node, why);
		c->dead = 1;
		return err;
	}
	c->rx_seq++;
	return 1;
}

/* Keeps the count of a "progress" message and takes it (1), or leaves any
 * other message alone (0). */
static int take_progress(struct fc_chan *c, json_t *m)
{
	if (strcmp(fc_wire_type(m), "progress"))
		return 0;
	double done = fc_jnum(m, "done", fc_jnum(m, "bytes", 0));

	c->progress_grew = done > c->progress_done;
	c->progress_done = done;
	c->progress_at = fc_now();
	json_decref(m);
	return 1;
}

void fc_chan_progress(struct fc_chan *c)
{
	struct pollfd p = { .fd = c->from_fd, .events = POLLIN };
	json_t *m;

	if (!c->dead && c->from_fd >= 0 && poll(&p, 1, 0) > 0)
		drain_stdout(c);
	while (!c->held && next_msg(c, &m) == 1)
		if (!take_progress(c, m))
			c->held = m;
}

static void ping_all(struct fc_chan **chans, int n)
{
	for (int i = 0; i < n; i++)
		if (!chans[i]->dead)
			fc_chan_send(chans[i], "ping", NULL);
}

/* What set a wait of @timeout + @grace seconds, for the messages. */
static const char *wait_said(double timeout, double grace, char *buf, size_t len)
{
	if (grace > 0)
		snprintf(buf, len, "--timeout %.0f s, then %.0f s for the worker's own report",
			 timeout, grace);
	else
		snprintf(buf, len, "--timeout");
	return buf;
}

/* Why the wait for @c ended with no message (c->why): @last the worker's
 * last stderr line. */
static void wait_ended(struct fc_chan *c, double timeout, double grace, const char *last)
{
	char w[96];

	wait_said(timeout, grace, w, sizeof(w));
	if (c->kind == FC_LAUNCH_SLURM && c->rx_seq == 0)
		snprintf(c->why, sizeof(c->why),
			 "%s: srun started no worker within %.0f s (%s)%s%s: check that slurmctld answers (sinfo), that the node is in the allocation or partition, and SLURM_CONF",
			 c->node, timeout + grace, w, *last ? "; srun said: " : "", last);
	else
		snprintf(c->why, sizeof(c->why),
			 "%s: no message from the worker for %.0f s (%s): the node or its fabcheck hangs; rerun with -v to see its log%s%s",
			 c->node, timeout + grace, w, *last ? "; it said: " : "", last);
}

static int chan_recv(struct fc_chan **chans, int n, int which, double limit, double grace,
		     json_t **msg_p, int *failed_p, struct pollfd *pfd, int *map)
{
	struct fc_chan *c = chans[which];
	double timeout = limit + grace; /* the whole wait */
	double deadline = fc_now() + timeout, next_ping = fc_now() + 1, grew_at = fc_now();
	int err, progressed = 0; /* a "progress" came in this wait */
	char w[96];

	*failed_p = which;
	for (;;) {
		int np = 0, ms;
		double now, wake;

		if (c->held) {
			*msg_p = c->held;
			c->held = NULL;
			return 0;
		}
		/* Lines read before the worker closed are still delivered. */
		while ((err = next_msg(c, msg_p)) == 1) {
			double ext;

			if (!take_progress(c, *msg_p))
				return 0;
			/* progress extends the wait, up to the test's own
			 * deadline, to twice @timeout past the last growth of its
			 * count: a worker gives up itself, and says so, at
			 * @timeout with no completion (verbs/test.c
			 * vb_clock_tick); a count that stays extends no further */
			if (c->progress_grew)
				grew_at = fc_now();
			ext = grew_at + 2 * timeout;
			if (ext > c->test_until)
				ext = c->test_until;
			if (ext > deadline)
				deadline = ext;
			progressed = 1;
		}
		if (err < 0 || c->dead)
			return err < 0 ? err : -EPIPE;
		if (fc_stop) { /* a signal, where fc_stop_on_signals() ran */
			snprintf(c->why, sizeof(c->why), "interrupted by %s", fc_stop_name(fc_stop_sig));
			*failed_p = which;
			return -EINTR;
		}
		now = fc_now();
		if (c->until > 0 && now >= c->until) {
			snprintf(c->why, sizeof(c->why), "%s: the run's deadline came", c->node);
			return -ETIME;
		}
		if (now >= deadline && progressed && c->test_until > 0) {
			if (now >= c->test_until)
				snprintf(c->why, sizeof(c->why), "%s: the test's own deadline came", c->node);
			else
				snprintf(c->why, sizeof(c->why),
					 "%s: its count of messages done stayed at %.0f for %.0f s (twice %s%s)",
					 c->node, c->progress_done, 2 * timeout,
					 grace > 0 ? "the wait: " : "", wait_said(limit, grace, w, sizeof(w)));
			return -ETIME;
		}
		if (now >= deadline) {
			char last[512];

			last_err_line(c, last, sizeof(last));
			wait_ended(c, limit, grace, last);
			return -ETIMEDOUT;
		}
		if (now >= next_ping) {
			ping_all(chans, n);
			next_ping = now + 1;
		}
		for (int i = 0; i < n; i++) {
			if (chans[i]->dead)
				continue;
			pfd[np] = (struct pollfd){ .fd = chans[i]->from_fd, .events = POLLIN };
			map[np++] = i;
			if (chans[i]->err_fd >= 0) {
				pfd[np] = (struct pollfd){ .fd = chans[i]->err_fd, .events = POLLIN };
				map[np++] = -1 - i;
			}
		}
		wake = deadline < next_ping ? deadline : next_ping;
		if (c->until > 0 && c->until < wake)
			wake = c->until;
		ms = (int)((wake - now) * 1000) + 5;
		if (poll(pfd, (nfds_t)np, ms) < 0 && errno != EINTR) {
			snprintf(c->why, sizeof(c->why), "%s: poll failed: %s", c->node, strerror(errno));
			return -errno;
		}
		for (int k = 0; k < np; k++) {
			struct fc_chan *o = chans[map[k] < 0 ? -1 - map[k] : map[k]];

			if (!(pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (map[k] < 0) {
				if (o->err_fd >= 0)
					drain_stderr(o);
			} else if (!o->dead && drain_stdout(o) && o != c && !o->expect_eof) {
				*failed_p = map[k];
				return -EPIPE;
			}
		}
	}
}

int fc_chan_recv(struct fc_chan **chans, int n, int which, double timeout, json_t **msg_p,
		 int *failed_p)
{
	return fc_chan_recv_grace(chans, n, which, timeout, 0, msg_p, failed_p);
}

int fc_chan_recv_grace(struct fc_chan **chans, int n, int which, double timeout, double grace,
		       json_t **msg_p, int *failed_p)
{
	/* Two descriptors a channel, however many channels. */
	struct pollfd *pfd = calloc((size_t)n * 2 + 1, sizeof(*pfd));
	int *map = calloc((size_t)n * 2 + 1, sizeof(*map)), rc;

	if (!pfd || !map) {
		free(pfd);
		free(map);
		*failed_p = which;
		snprintf(chans[which]->why, sizeof(chans[which]->why), "%s: out of memory",
			 chans[which]->node);
		return -ENOMEM;
	}
	rc = chan_recv(chans, n, which, timeout, grace, msg_p, failed_p, pfd, map);
	free(pfd);
	free(map);
	return rc;
}

void fc_chan_close(struct fc_chan *c, double grace)
{
	double end = fc_now() + grace;
	int status;

	if (c->to_fd >= 0)
		close(c->to_fd);
	c->to_fd = -1;
	if (c->pid > 0) {
		while (waitpid(c->pid, &status, WNOHANG) == 0) {
			if (fc_now() >= end) {
				kill(c->pid, SIGTERM);
				usleep(200000);
				if (waitpid(c->pid, &status, WNOHANG) == 0) {
					kill(c->pid, SIGKILL);
					waitpid(c->pid, &status, 0);
				}
				break;
			}
			if (c->err_fd >= 0) {
				struct pollfd p = { .fd = c->err_fd, .events = POLLIN };

				if (poll(&p, 1, 20) > 0)
					drain_stderr(c);
			} else {
				usleep(20000);
			}
		}
		c->pid = 0;
	}
	if (c->from_fd >= 0)
		close(c->from_fd);
	if (c->err_fd >= 0)
		close(c->err_fd);
	c->from_fd = c->err_fd = -1;
	fc_linebuf_release(&c->lb);
	json_decref(c->held);
	c->held = NULL;
}
