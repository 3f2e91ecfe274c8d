/*
 * The worker's evidence around a pair test (diag/diag.h): read as a
 * snapshot at setup and at finish, sent to the controller in "evidence"
 * messages {"phase": "before"|"after", "files": {path: text}}; a file too
 * long for one message comes in pieces, to be appended in order.
 */
#ifndef FC_CTL_WORKER_EV_H
#define FC_CTL_WORKER_EV_H

#include <jansson.h>

struct wk_ev_src {
	const char *dev;
	int port;
	const char *netdev; /* "" for none */
	int ib;		    /* InfiniBand: perfquery of both ends */
	const char *gpu_bdf; /* GPU memory: the GPU's PCI function, or NULL */
	int gid_index;	     /* the GID the QPs use: its type is read; -1 none */
};

/* Reads the evidence of @s now (sysfs, ethtool -S/-m, PCIe, perfquery). */
json_t *wk_ev_read(const struct wk_ev_src *s);
/* The PCIe link files of @s only, with the time: the reading taken while a
 * test runs (phase "during": idle links lower their speed). */
json_t *wk_ev_read_pcie(const struct wk_ev_src *s);
/* Sends @snap as "evidence" bodies through @send (which owns each body);
 * 0 or the first error of @send. */
int wk_ev_send(json_t *snap, const char *phase, int (*send)(void *arg, json_t *body), void *arg);

#endif
