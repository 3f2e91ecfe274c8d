/*
 * The worker's memory: host or GPU (gdr/), chosen by the controller's
 * "mem" options, and --validate around each bandwidth test.
 */
#ifndef FC_CTL_WORKER_GDR_H
#define FC_CTL_WORKER_GDR_H

#include <jansson.h>

#include "gdr/gdr.h"
#include "gdr/numa.h"
#include "verbs/res.h"
#include "verbs/test.h"

struct wk_mem {
	struct gdr_opts opts;
	struct gdr_dev dev;
	int dev_open;
	struct gdr_mem mem;
	struct topo *topo;
	char node[128];
	char hca[64];
	uint64_t ntests; /* both workers count the same tests: seeds agree */
	struct vb_val val; /* --validate: the last test's checks (verbs/test.h) */
	struct vb_res *res; /* the resources the checks run on (loopback flush) */
	int flush_said;
	uint64_t loop_base; /* loopback reads before the last test */
	struct vb_test last; /* the test prepared last */
	struct gdr_numa numa; /* where the buffer and the threads went */
};

/*
 * Reads the "mem" options of a setup message and hooks the buffer of @r to
 * gdr. With GPU memory and no device asked for (@o->dev empty), opens the
 * GPU now and puts the HCA nearest it into @o->dev. 0 or -errno (logged).
 */
int wk_mem_setup(struct wk_mem *wm, const json_t *setup, struct vb_opts *o, struct vb_res *r,
		 const char *node);
/* After the resources are open: the memory fields of the setup report. */
void wk_mem_report(struct wk_mem *wm, struct vb_res *r, json_t *rep);
/* Before a test: refuses what GPU memory cannot do; with --validate sets
 * @t->val, fills the tx half and poisons the rx half. 0 or -errno (logged). */
int wk_mem_prepare(struct wk_mem *wm, struct vb_res *r, struct vb_test *t);
/* After the last test, on the side data went to (once the controller has
 * both results): what the data path's checks found, and the rx half's
 * headers all poisoned again, into @result's "validate". 0, or -errno when
 * there is nothing to check or the memory cannot be read. */
int wk_mem_verify(struct wk_mem *wm, struct vb_res *r, json_t *result);
void wk_mem_close(struct wk_mem *wm);

#endif
