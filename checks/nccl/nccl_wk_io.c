/* fabcheck nccl-worker: wire messages and the watchdog (see nccl_wk.h). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/fc.h"
#include "core/log.h"
#include "core/util.h"
#include "checks/nccl/nccl_wk.h"

void ncw_io_init(struct ncw_io *io)
{
	memset(io, 0, sizeof(*io));
	io->idle = 60;
	fc_linebuf_init(&io->in.lb, FC_WIRE_MAX_LINE);
	pthread_mutex_init(&io->lock, NULL);
}

void ncw_io_release(struct ncw_io *io)
{
	fc_linebuf_release(&io->in.lb);
	pthread_mutex_destroy(&io->lock);
}

int ncw_send(struct ncw_io *io, const char *type, json_t *body)
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


int ncw_recv(struct ncw_io *io, const char *want, json_t **msg_p)
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
			/* the controller waits on other ranks: keep waiting */
			pings = io->in.pings;
			deadline = fc_now() + io->idle;
		}
		left = deadline - fc_now();
		if (left <= 0) {
			fc_err("no message from the controller for %.0f s: giving up", io->idle);
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

int ncw_poll_abort(struct ncw_io *io)
{
	struct pollfd p = { .fd = 0, .events = POLLIN };
	json_t *msg;
	int err;

	if (poll(&p, 1, 0) <= 0)
		return 0;
	if (fc_wire_in_fill(&io->in, 0)) {
		if (io->in.eof)
			fc_err("the controller went away during the run");
		return 1;
	}
	err = fc_wire_in_next(&io->in, &msg);
	if (err == 1) {
		fc_err("the controller sent '%s' during the run", fc_wire_type(msg));
		io->in.proto_err = 1;
		json_decref(msg);
		return 1;
	}
	return err < 0;
}

/* ---- watchdog ---- */

static struct {
	pthread_mutex_t lock;
	struct ncw_io *io;
	double deadline; /* 0: off */
	char what[256];
	const char *(*hint)(char *buf, size_t len);
	void (*cleanup)(void);
} guard = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void guard_expired(void)
{
	char hint[1024] = "", msg[1500];

	if (guard.hint)
		guard.hint(hint, sizeof(hint));
	snprintf(msg, sizeof(msg),
		 "%s did not return within its deadline: a peer rank did not join or "
		 "stalled, or the network between the nodes drops NCCL's traffic; check "
		 "every node's worker and NCCL_SOCKET_IFNAME / NCCL_IB_HCA%s%s",
		 guard.what, *hint ? "; NCCL said: " : "", hint);
	fc_err("%s", msg);
	ncw_send(guard.io, "error", json_pack("{s:s, s:s}", "kind", "fail", "msg", msg));
	if (guard.cleanup)
		guard.cleanup();
	_exit(FC_EXIT_CANT);
}

static void *guard_main(void *arg)
{
	(void)arg;
	for (;;) {
		struct pollfd p = { .fd = 0, .events = POLLRDHUP };
		struct timespec ts = { .tv_nsec = 200 * 1000 * 1000 };
		double dl;

		nanosleep(&ts, NULL);
		pthread_mutex_lock(&guard.lock);
		dl = guard.deadline;
		pthread_mutex_unlock(&guard.lock);
		if (!dl)
			continue;
		/* A controller that is gone cannot be told anything. */
		if (poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLRDHUP | POLLERR))) {
			if (guard.cleanup)
				guard.cleanup();
			fc_err("the controller went away during %s: exiting", guard.what);
			_exit(FC_EXIT_CANT);
		}
		if (fc_now() > dl)
			guard_expired();
	}
	return NULL;
}

void ncw_guard_start(struct ncw_io *io)
{
	pthread_t t;

	guard.io = io;
	if (pthread_create(&t, NULL, guard_main, NULL) == 0)
		pthread_detach(t);
	else
		fc_warn("cannot start the watchdog thread: blocking NCCL calls have no deadline");
}

void ncw_guard_on(double seconds, const char *what)
{
	pthread_mutex_lock(&guard.lock);
	snprintf(guard.what, sizeof(guard.what), "%s", what);
	guard.deadline = fc_now() + seconds;
	pthread_mutex_unlock(&guard.lock);
}

void ncw_guard_off(void)
{
	pthread_mutex_lock(&guard.lock);
	guard.deadline = 0;
	pthread_mutex_unlock(&guard.lock);
}

void ncw_guard_set_hooks(const char *(*hint)(char *buf, size_t len), void (*cleanup)(void))
{
	guard.hint = hint;
	guard.cleanup = cleanup;
}
