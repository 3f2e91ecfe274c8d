/*
 * The worker's side of the controller's channel, for the pair worker
 * (`fabcheck worker`) and the NCCL rank worker (`fabcheck nccl-worker`):
 * wire messages read from stdin and written to stdout.
 *
 * The keep-alive rule: a worker waits for the controller at most `idle`
 * seconds without any message, and a "ping" counts. The controller pings
 * every worker once a second while it waits on any of them (fc_chan_recv),
 * so a worker whose peer runs a long test keeps waiting as long as the
 * controller is alive; a controller that is gone closes the channel (the
 * worker stops at once) and one that hangs stops pinging (the worker gives
 * up after `idle`).
 */
#ifndef FC_CTL_WK_IO_H
#define FC_CTL_WK_IO_H

#include <jansson.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "core/wire.h"

struct fc_wk_io {
	struct fc_wire_in in; /* what the controller sends (stdin) */
	uint64_t tx_seq;
	double idle;	      /* seconds without a message, pings included */
	pthread_mutex_t lock; /* one writer of stdout at a time */
};

void fc_wk_io_init(struct fc_wk_io *io, double idle);
void fc_wk_io_release(struct fc_wk_io *io);
/*
 * A worker's start, `fabcheck @cmd` (a worker takes no argument): 0 after
 * naming the log lines "fabcheck @cmd", keeping the last error logged (see
 * fc_wk_last_error) and readying @io with a keep-alive of 60 s until the
 * hello; FC_EXIT_USAGE after logging an argument it was given.
 */
int fc_wk_begin(struct fc_wk_io *io, const char *cmd, int argc, char **argv);
/* The last error logged since fc_wk_begin, or @fallback when none was. */
const char *fc_wk_last_error(const char *fallback);
/* A worker's end: releases @io and stops keeping errors. */
void fc_wk_end(struct fc_wk_io *io);
/* Sends @type with @body (consumed; NULL for none): 0 or -errno. */
int fc_wk_send(struct fc_wk_io *io, const char *type, json_t *body);
/* Waits for the next message other than "ping" (see the keep-alive rule);
 * with @want, it must be of that type. 0 with *msg_p, or -errno after
 * logging (-ETIMEDOUT: the controller was silent for `idle` seconds). */
int fc_wk_recv(struct fc_wk_io *io, const char *want, json_t **msg_p);
/*
 * The hello exchange that opens the conversation: waits for the
 * controller's "hello", takes the node name it gives this worker into @node
 * and the keep-alive from its timeout (3 x timeout + 10 s), logs as
 * "@who@NODE" from then on (@prefix holds it and must outlive the worker),
 * and answers with the version, host name and pid. 0 or -errno.
 */
int fc_wk_hello(struct fc_wk_io *io, const char *who, char *node, size_t node_len,
		char *prefix, size_t prefix_len);
/* Without blocking, during @what ("a test"): 0 when nothing but pings came,
 * 1 when the controller closed the channel or sent something else (logged;
 * the channel is then unusable). */
int fc_wk_poll_abort(struct fc_wk_io *io, const char *what);

#endif
