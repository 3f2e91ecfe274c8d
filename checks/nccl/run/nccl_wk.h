/*
 * fabcheck nccl-worker: one NCCL rank, driven by `fabcheck nccl run` over
 * stdin/stdout (wire messages through ctl/wk_io.h, as `fabcheck worker`).
 * This header joins the watchdog (nccl_wk_guard.c) and the rank itself
 * (nccl_worker.c).
 */
#ifndef FC_CTL_NCCL_WK_H
#define FC_CTL_NCCL_WK_H

#include <jansson.h>
#include <pthread.h>
#include <stdint.h>

#include "ctl/wk_io.h"

/*
 * The watchdog over calls that block inside NCCL (init, destroy): when
 * @seconds pass before ncw_guard_off, it sends an error naming @what and
 * the node, and exits; when the controller goes away meanwhile, it exits.
 */
void ncw_guard_start(struct fc_wk_io *io);
void ncw_guard_on(double seconds, const char *what);
void ncw_guard_off(void);
/* @hint is appended to the watchdog's message (the NCCL log's last
 * warnings); @cleanup runs before it exits (both may be NULL). */
void ncw_guard_set_hooks(const char *(*hint)(char *buf, size_t len), void (*cleanup)(void));

/* The node's topology as `fabcheck topo --json` reports it from sysfs
 * ($FABCHECK_SYSFS or /sys), or JSON null when it has no GPU and no HCA. */
json_t *ncw_node_topo(void);

#endif
