/* The worker's side of the controller's channel (see wk_io.h). */
#include "ctl/wk_io.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fc.h"
#include "core/log.h"
#include "core/out.h"
#include "core/util.h"

void fc_wk_io_init(struct fc_wk_io *io, double idle)
{
	memset(io, 0, sizeof(*io));
	io->idle = idle;
	fc_linebuf_init(&io->in.lb, FC_WIRE_MAX_LINE);
	pthread_mutex_init(&io->lock, NULL);
}

void fc_wk_io_release(struct fc_wk_io *io)
{
	fc_linebuf_release(&io->in.lb);
	pthread_mutex_destroy(&io->lock);
}

static char last_error[1024];

static void keep_error(enum fc_log_level lvl, const char *msg)
{
	if (lvl == FC_LOG_ERR)
		snprintf(last_error, sizeof(last_error), "%s", msg);
}

int fc_wk_begin(struct fc_wk_io *io, const char *cmd, int argc, char **argv)
{
	static char prefix[64];

	if (argc > 1) {
		fc_err("%s: unexpected argument '%s'; it takes none", cmd, argv[1]);
		return FC_EXIT_USAGE;
	}
	/* A controller gone is an EPIPE from write, so the worker ends through
	 * its own path (its QPs, memory and GPU released, the reason logged),
	 * not by SIGPIPE in the middle of a message; as the NCCL rank worker. */
	signal(SIGPIPE, SIG_IGN);
	snprintf(prefix, sizeof(prefix), "fabcheck %s", cmd);
	fc_log_prefix = prefix;
	last_error[0] = '\0';
	fc_log_hook = keep_error;
	fc_wk_io_init(io, 60);
	return 0;
}

const char *fc_wk_last_error(const char *fallback)
{
	return last_error[0] ? last_error : fallback;
}

void fc_wk_end(struct fc_wk_io *io)
{
	fc_wk_io_release(io);
	fc_log_hook = NULL;
}

int fc_wk_send(struct fc_wk_io *io, const char *type, json_t *body)
{
	char *line;
	size_t len, off = 0;
	int err = 0;

	pthread_mutex_lock(&io->lock);
	line = fc_wire_format(FC_WIRE_VERSION, ++io->tx_seq, type, body);
	json_decref(body);
	if (!line) {
		err = -errno;
		fc_err("cannot format a '%s' message: %s", type, strerror(errno));
		goto out_unlock;
	}
	len = strlen(line);
	while (off < len) {
		ssize_t n = write(1, line + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = -EPIPE;
			break;
		}
		off += (size_t)n;
	}
	free(line);
out_unlock:
	pthread_mutex_unlock(&io->lock);
	return err;
}

int fc_wk_recv(struct fc_wk_io *io, const char *want, json_t **msg_p)
{
	double deadline = fc_now() + io->idle;
	uint64_t pings = io->in.pings;
	int err;

	for (;;) {
		struct pollfd p = { .fd = 0, .events = POLLIN };
		double left;

		err = fc_wire_in_next(&io->in, msg_p);
		if (err < 0)
			return err;
		if (err == 1)
			break;
		if (io->in.pings != pings) {
			/* The controller is alive and waits on something else. */
			pings = io->in.pings;
			deadline = fc_now() + io->idle;
		}
		left = deadline - fc_now();
		if (left <= 0) {
			fc_err("no message from the controller for %.0f s, not even a ping: it hangs or its host is unreachable; giving up",
			       io->idle);
			return -ETIMEDOUT;
		}
		if (poll(&p, 1, (int)(left * 1000) + 1) > 0 && (err = fc_wire_in_fill(&io->in, 0)))
			return err;
	}
	if (want && strcmp(fc_wire_type(*msg_p), want)) {
		fc_err("expected a '%s' message from the controller, got '%s'", want,
		       fc_wire_type(*msg_p));
		json_decref(*msg_p);
		io->in.proto_err = 1;
		return -EPROTO;
	}
	return 0;
}

int fc_wk_poll_abort(struct fc_wk_io *io, const char *what)
{
	struct pollfd p = { .fd = 0, .events = POLLIN };
	json_t *msg;
	int err;

	if (poll(&p, 1, 0) <= 0)
		return 0;
	if (fc_wire_in_fill(&io->in, 0)) {
		if (io->in.eof)
			fc_err("the controller went away during %s", what);
		return 1;
	}
	err = fc_wire_in_next(&io->in, &msg);
	if (err == 1) {
		fc_err("the controller sent '%s' during %s", fc_wire_type(msg), what);
		io->in.proto_err = 1;
		json_decref(msg);
		return 1;
	}
	return err < 0;
}

int fc_wk_hello(struct fc_wk_io *io, const char *who, char *node, size_t node_len,
		char *prefix, size_t prefix_len)
{
	char host[256] = "?";
	json_t *m;
	int err = fc_wk_recv(io, "hello", &m);

	if (err)
		return err;
	snprintf(node, node_len, "%s", fc_jstr(m, "node", "?"));
	io->idle = fc_jnum(m, "timeout", 30) * 3 + 10;
	json_decref(m);
	snprintf(prefix, prefix_len, "%s@%s", who, node);
	fc_log_prefix = prefix;
	gethostname(host, sizeof(host) - 1);
	return fc_wk_send(io, "hello", json_pack("{s:s, s:s, s:i}", "version", FC_VERSION, "host",
						 host, "pid", (int)getpid()));
}
