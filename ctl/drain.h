/*
 * Acting on what a run found, in Slurm: each node it named is drained with
 * `scontrol update NodeName=N State=DRAIN Reason="fabcheck: PART on DEVICE
 * (KIND run RUN)"`, and with --resume-passed a node that passed is resumed,
 * only when Slurm still shows it drained with a reason of fabcheck's own
 * (never an operator's drain). scontrol runs by argv (execvp), never
 * through a shell; what `scontrol show node` prints is read as data. Each
 * action (and each that failed, with the command) is a line of the
 * document's "slurm" list, a finding where it failed, and a row of the
 * store (store/drains.c) that `report` shows.
 */
#ifndef FC_CTL_DRAIN_H
#define FC_CTL_DRAIN_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "core/opts.h"

struct fc_store;

/*
 * The longest reason kept. Slurm's accounting stores a node's reason in
 * the event table's `reason` column, a MySQL TINYTEXT: 255 bytes at most
 * (SchedMD/slurm src/plugins/accounting_storage/mysql/
 * accounting_storage_mysql.c, event_table_fields: { "reason", "tinytext
 * not null" }); scontrol itself sets no limit (src/scontrol/update_node.c).
 * The full text of the finding stays in the store.
 */
#define FC_DRAIN_REASON_MAX 255
/* What marks a reason as fabcheck's own. */
#define FC_DRAIN_PREFIX "fabcheck: "

struct fc_drain_opts {
	int drain;	   /* --drain */
	int dry_run;	   /* --drain-dry-run: print the commands, run none */
	int resume_passed; /* --resume-passed */
	/* Resume only fabcheck's drains of this kind ("health": those whose
	 * reason ends "(health)"); NULL: of the kind of the run at hand, so
	 * that a matrix that passes never clears what preflight or health
	 * found (a firmware a matrix cannot see). */
	const char *resume_kind;
	/* The nodes this run compared (its checked nodes): a drain set by a
	 * comparison across N nodes (the reason's "across N nodes") is
	 * resumed only by a run that compared at least N. */
	int compared;
	/* NULL, or why this run could not have seen @part fail on @node's
	 * @device ("" when the reason names none) (a check it did not run:
	 * preflight without --expect-rate cannot clear a port rate drain set
	 * against one; a matrix whose rail could not tell its nodes apart
	 * cannot clear a port on it); @across: the drain's comparison (0:
	 * none). NULL from it: it could. */
	const char *(*unseen)(const char *node, const char *part, const char *device, int across,
			      const void *arg);
	const void *unseen_arg;
	/* 0, or the time (fc_now, core/util.h) by which every scontrol must
	 * be done (health's --deadline): each gets what is left of it. */
	double deadline;
};

/* --drain, --drain-dry-run and --resume-passed into the struct
 * fc_drain_opts @d of FC_OPT_T (core/opts.h); more fields of each entry
 * follow (.only = ...). */
#define FC_DRAIN_OPTS(d, ...)                                                     \
	FCO_FLAG("drain", 0, d.drain, __VA_ARGS__),                               \
		FCO_FLAG("drain-dry-run", 0, d.dry_run, __VA_ARGS__),             \
		FCO_FLAG("resume-passed", 0, d.resume_passed, __VA_ARGS__)

#define FC_DRAIN_HELP                                                                  \
	"  --drain             drain in Slurm each node named at node or port level\n"    \
	"                      (scontrol update ... State=DRAIN Reason=\"fabcheck: ...\")\n" \
	"  --drain-dry-run     print the scontrol commands --drain would run\n"          \
	"  --resume-passed     resume a node that passed, only when Slurm shows it\n"     \
	"                      drained with fabcheck's reason (never an operator's)\n"

static inline int fc_drain_wanted(const struct fc_drain_opts *o)
{
	return o->drain || o->dry_run || o->resume_passed;
}

/* Pure. The reason for @part (a word or two: "port", "mtu") on @device
 * ("" or NULL: none) of @kind run @run (<= 0: none), within
 * FC_DRAIN_REASON_MAX and @len: "fabcheck: port on mlx5_1 (matrix run
 * 12)". A byte other than letters, digits, blank and "_.,:;/()+=@%-"
 * becomes '?' (the printed command is safe to paste into a shell); a device
 * that is neither an RDMA nor a net device name (core/names.h) is not
 * shown. Returns its length. */
size_t fc_drain_reason(char *buf, size_t len, const char *part, const char *device,
		       const char *kind, int64_t run);
/* Pure. fc_drain_reason with, for a drain set by comparing @across (> 1)
 * nodes, " across N nodes" in its tail: "fabcheck: firmware (preflight
 * run 3 across 4 nodes)". */
size_t fc_drain_reason_across(char *buf, size_t len, const char *part, const char *device,
			      const char *kind, int64_t run, int across);
/* Pure. What a reason of fabcheck's says: its part into @part (@plen) and
 * the number of nodes its comparison spanned (0: none). -1 when it is not
 * one of fabcheck's. */
int fc_drain_reason_read(const char *reason, char *part, size_t plen, int *across);
/* Pure. The device a reason of fabcheck's names (what follows its last
 * " on " before the tail) into @dev; "" when none. */
void fc_drain_reason_device(const char *reason, char *dev, size_t dlen);
/* Pure. True when @device is empty or an RDMA or net device name. */
int fc_drain_device_ok(const char *device);
/* Pure. True when @reason (as `scontrol show node` prints it) is one that
 * fabcheck set. */
int fc_drain_is_ours(const char *reason);
/* Pure. Reads `scontrol show node NODE` output: the State= word into
 * @state and the Reason= text (without Slurm's " [user@time]" tail, ""
 * when none) into @reason. Returns 0, or -ENOENT when the text is not
 * that node's. */
int fc_slurm_node_parse(const char *text, const char *node, char *state, size_t slen,
			char *reason, size_t rlen);
/* Pure: the resume rule. A node may be resumed when its @state has DRAIN
 * and its @reason is fabcheck's. */
int fc_drain_may_resume(const char *state, const char *reason);

/*
 * Drains each node of @targets (an array of {"node", "part", "device",
 * "text"}; the first target of a node gives its reason) and, with
 * o->resume_passed, resumes the nodes of @passed (node names) drained by
 * fabcheck in a run of the same kind (o->resume_kind). A node already
 * drained with another reason is left so. A node of @doc's "unchecked"
 * list (fc_drain_unchecked) is never drained, whatever target names it: a
 * warning says so. So every reason fabcheck writes ("fabcheck: " first)
 * is a fault a check saw on that node; there is no reason for a check
 * that could not run, because such a node is never drained.
 * Adds the "slurm" list and a finding per failed command to @doc, records
 * each action in @st (NULL: none) under run @run. Returns the number of
 * commands that failed.
 */
/* Set by main where a run's results may be set aside as a whole
 * (lab/starve.h): when it returns 1, fc_drain_apply drains and resumes
 * nothing and says why (@why) in @doc's "drain_held". */
extern int (*fc_drain_hold)(char *why, size_t len);

int fc_drain_apply(json_t *doc, struct fc_store *st, int64_t run, const char *kind,
		   const struct fc_drain_opts *o, const json_t *targets, const json_t *passed);

/* @node could not be checked (unreachable, a launcher or worker that
 * failed, a tool that timed out): an entry {"node", "why"} of @doc's
 * "unchecked" list, apart from the findings; such a node is never drained
 * and never resumed. */
void fc_drain_unchecked(json_t *doc, const char *node, const char *why);

/* The "unchecked" and "slurm" lists of @doc as text (nothing when empty). */
void fc_drain_render(FILE *f, const json_t *doc);

/* Appends {"node", "part", "device", "text"} to @targets. */
void fc_drain_target(json_t *targets, const char *node, const char *part, const char *device,
		     const char *text);
/* fc_drain_target for a finding made by comparing @across nodes (the
 * target's "across"; its reason says so, and only a run that compares as
 * many can resume it). */
void fc_drain_target_across(json_t *targets, const char *node, const char *part,
			    const char *device, const char *text, int across);

#endif
