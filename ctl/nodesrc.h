/*
 * Where a node's inputs come from: the node itself (live), the node itself
 * with every input recorded into a capture (`fabcheck capture`), or a
 * capture (`--from BUNDLE`). The readers that fill a node's model (the
 * preflight probe, the switch each IB port reaches) take their commands'
 * output, the RDMA devices and the sysfs root from here, so the live and the
 * replayed judgment run the same code on the same inputs.
 */
#ifndef FC_CTL_NODESRC_H
#define FC_CTL_NODESRC_H

#include <jansson.h>
#include <stddef.h>

#include "core/bundle.h"

struct fc_src {
	const char *sys;	  /* the sysfs root the readers read */
	struct fc_bundle *from;	  /* replay: the capture; NULL: live */
	struct fc_bundle_w *rec;  /* capture: each command's output is recorded here */
	char why[256];		  /* the reason kept for a replayed device list */
	char sysbuf[4096];
};

/* The node itself (sysfs root fc_sysfs_root()); @rec: record into it. */
void fc_src_live(struct fc_src *s, struct fc_bundle_w *rec);
/* The capture @b (its sys/ as the sysfs root). */
void fc_src_replay(struct fc_src *s, struct fc_bundle *b);
/*
 * @argv's stdout as fc_capture gives it (ctl/child.h): live, run with the
 * deadline @timeout (and recorded as cmd/NAME when capturing); replayed,
 * what the capture recorded: the same text, exit code and stderr line, or
 * NULL with the reason it was not read.
 */
char *fc_src_cmd(struct fc_src *s, const char *const *argv, double timeout, int *exit_p,
		 char *why, size_t whylen);
/* @argv not run, for @why: when capturing, listed as not read (its
 * command line and the cmd/NAME it would have made). */
void fc_src_skip(struct fc_src *s, const char *const *argv, const char *why);
/* The RDMA devices as `devices --json` lists them (verbs/dev.h), or NULL
 * with the reason in *@why_p. */
json_t *fc_src_devices(struct fc_src *s, const char **why_p);
/* The same of the capture @b (`devices --from`), the reason in @why. */
json_t *fc_bundle_devices(struct fc_bundle *b, char *why, size_t whylen);

/* .tar.gz bundles by a child `tar` with fixed arguments and a deadline. */
int fc_bundle_pack(const char *parent, const char *name, const char *out, char *err,
		   size_t errlen);
int fc_bundle_untar(const char *tgz, const char *dir, char *err, size_t errlen);
/* The deadline of packing or unpacking (s): a bundle is at most 256 MiB. */
#define FC_BUNDLE_TAR_S 120.0

#endif
