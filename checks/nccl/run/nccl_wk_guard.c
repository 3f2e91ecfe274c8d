/* fabcheck nccl-worker: the watchdog over calls that block inside NCCL (see nccl_wk.h). */
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
#include "checks/nccl/run/nccl_wk.h"

static struct {
	pthread_mutex_t lock;
	struct fc_wk_io *io;
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
	fc_wk_send(guard.io, "error", json_pack("{s:s, s:s}", "kind", "fail", "msg", msg));
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

void ncw_guard_start(struct fc_wk_io *io)
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
