/*
 * fabcheck nccl-worker: one NCCL rank, driven by `fabcheck nccl run` over
 * stdin/stdout (wire messages, as `fabcheck worker`). This header joins the
 * message plumbing (nccl_wk_io.c) and the rank itself (nccl_worker.c).
 */
#ifndef FC_CTL_NCCL_WK_H
#define FC_CTL_NCCL_WK_H

#include <jansson.h>
#include <pthread.h>
#include <stdint.h>

#include "core/wire.h"

struct ncw_io {
	struct fc_wire_in in; /* what the controller sends (stdin) */
	uint64_t tx_seq;
	double idle;	 /* seconds to wait for the controller */
	pthread_mutex_t lock; /* one writer of stdout at a time */
};

void ncw_io_init(struct ncw_io *io);
void ncw_io_release(struct ncw_io *io);
/* Sends @type with @body (consumed; NULL for none): 0 or -errno. */
int ncw_send(struct ncw_io *io, const char *type, json_t *body);
/* Waits for the next message other than "ping"; with @want, it must be of
 * that type. 0 with *msg_p, or -errno after logging. */
int ncw_recv(struct ncw_io *io, const char *want, json_t **msg_p);
/* Without blocking: reads what the controller sent. 0 when nothing but
 * pings came, 1 when it closed or sent something else (logged). */
int ncw_poll_abort(struct ncw_io *io);

/*
 * The watchdog over calls that block inside NCCL (init, destroy): when
 * @seconds pass before ncw_guard_off, it sends an error naming @what and
 * the node, and exits; when the controller goes away meanwhile, it exits.
 */
void ncw_guard_start(struct ncw_io *io);
void ncw_guard_on(double seconds, const char *what);
void ncw_guard_off(void);
/* @hint is appended to the watchdog's message (the NCCL log's last
 * warnings); @cleanup runs before it exits (both may be NULL). */
void ncw_guard_set_hooks(const char *(*hint)(char *buf, size_t len), void (*cleanup)(void));

/* The node's topology as `fabcheck topo --json` reports it from sysfs
 * ($FABCHECK_SYSFS or /sys), or JSON null when it has no GPU and no HCA. */
json_t *ncw_node_topo(void);

#endif
