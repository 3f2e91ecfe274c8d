/*
 * The worker's counters around a pair run: the port's counters and
 * hw_counters (sysfs), and the netdev's `ethtool -S` pause, priority and
 * discard counters, read at setup and at finish.
 */
#ifndef FC_CTL_WORKER_QOS_H
#define FC_CTL_WORKER_QOS_H

#include <jansson.h>

#include "verbs/res.h"

#define WK_ETHTOOL_DEADLINE_S 5.0

struct wk_qos {
	char netdev[32];
	json_t *hw_before;  /* sysfs counters at setup */
	json_t *eth_before; /* kept ethtool -S counters at setup, or NULL */
	json_t *notes;	    /* why netdev counters are missing (strings) */
};

/* Reads the "before" counters of @r's port and netdev. */
void wk_qos_before(struct wk_qos *q, const struct vb_res *r);
/*
 * The "counters" object of the finish message: non-zero deltas of the
 * port's counters, the congestion counters (qos_is_cc_counter) even when
 * zero, and "netdev": the kept ethtool deltas. Sets *notes_p to the notes
 * (an array, maybe empty).
 */
json_t *wk_qos_after(struct wk_qos *q, const struct vb_res *r, json_t **notes_p);
void wk_qos_release(struct wk_qos *q);

/* A tool's path: $FABCHECK_<TOOL> (upper case), else $PATH, /usr/sbin,
 * /sbin. 0, or -ENOENT. */
int wk_find_tool(const char *tool, char *out, size_t len);

/* Runs `ethtool -S @netdev` with a deadline; its parsed output (every
 * counter), or NULL with @why set. */
json_t *wk_ethtool_stats(const char *netdev, char *why, size_t len);

#endif
