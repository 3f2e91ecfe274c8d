/*
 * Pair documents against the fleet's baseline (core/baseline.h): each
 * bandwidth result of a `pair --json` document as a sample of its fabric
 * profile, and a run's results judged by the baseline's rule.
 */
#ifndef FC_BL_PAIR_H
#define FC_BL_PAIR_H

#include <jansson.h>
#include <stdint.h>

#include "core/baseline.h"

/* One bandwidth result of a pair document; the strings live in it. */
struct fc_bl_sample {
	struct fc_bl_profile prof;
	double gbps;
	const char *a, *b;	   /* the nodes */
	const char *dev_a, *dev_b; /* each node's own device ("" when not named) */
	int rail;		   /* the rail's index, -1 for a pair without rails */
};
typedef void (*fc_bl_sample_fn)(const struct fc_bl_sample *s, void *arg);
/* Calls @fn for each bandwidth result of @doc: per rail and phase in a
 * document with rails ("pairs" alone, "pairs, rails loaded" with every
 * rail at once), else its results. Results without a figure, and those of
 * a pair whose two ends differ in link layer, are skipped. */
void fc_bl_doc_samples(const json_t *doc, fc_bl_sample_fn fn, void *arg);

/* A judgment of many results: what was below the rule, and what the
 * baseline could not judge (another profile), with the first reason. */
struct fc_bl_judge {
	const struct fc_baseline *bl;
	json_t *below;	 /* the defective results, objects */
	json_t *links;	 /* per node: the links (a, b, rail) judged, as object keys */
	int judged, defective, unmatched;
	char unmatched_why[400];
};
void fc_bl_judge_init(struct fc_bl_judge *j, const struct fc_baseline *bl);
/* Judges each sample of @doc. */
void fc_bl_judge_doc(struct fc_bl_judge *j, const json_t *doc);
/* Writes the judgment into @doc: a "baseline" object (the file, the rule,
 * the counts, the results below it) and a finding per defective result
 * (fail) or about results the baseline does not apply to (warn). Returns
 * the number of defective results. Releases @j's list. */
int fc_bl_judge_finish(struct fc_bl_judge *j, json_t *doc, const char *file);

/* Each stored result of matrix run @run in @st judged, as
 * fc_bl_judge_finish writes it into @doc (matrix --baseline, report
 * --baseline). Returns the number of defective results. */
struct fc_store;
int fc_bl_judge_run(struct fc_store *st, int64_t run, const struct fc_baseline *bl,
		    const char *file, json_t *doc);

/* Reads the baseline FILE (bounded) into @b: 0, or -1 after saying why. */
int fc_bl_read_file(struct fc_baseline *b, const char *file);

#endif
