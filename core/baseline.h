/*
 * A bandwidth baseline learned from the fleet: per fabric profile (HCA model,
 * port rate, link layer; test, message size, direction, traffic pattern) the
 * mean of the healthy results, found by pruning. The rule is SuperBench's
 * (microsoft/superbenchmark, docs/user-tutorial/baseline-generation and
 * data-diagnosis: the "variance" rule, (value - baseline) / baseline with the
 * criterion x < -0.05): take the mean, drop the values more than 5% below it,
 * and repeat until nothing is dropped; a result more than 5% below the
 * baseline is defective. Pure code: the file is JSON, the samples come from
 * whoever reads the store.
 */
#ifndef FC_BASELINE_H
#define FC_BASELINE_H

#include <jansson.h>

/* The default rule: more than 5% below is defective (SuperBench's). */
#define FC_BL_BELOW_PCT 5.0
/* The fewest healthy results a profile's baseline is made from: fewer say
 * little about a fleet (a pair of nodes is two results a direction). */
#define FC_BL_MIN_COUNT 3

struct fc_bl_profile {
	char hca[32];	     /* "<vendor>:<part>" in hex:decimal, "" when not known */
	double rate_gbps;    /* the port's rate */
	char link_layer[16]; /* "InfiniBand", "Ethernet" */
	char test[16];	     /* "write", "read", "send" */
	double size_bytes;
	char direction[8]; /* "uni" or "bidir" */
	char pattern[16];  /* "pairs", "incast", ... */
};

/* The pruned mean of @n values: kept and dropped counts, the mean, spread
 * (sample standard deviation) and extremes of what was kept. */
struct fc_bl_stat {
	double mean, stdev, min, max;
	int count, pruned, rounds;
};
/* Prunes @v (@n values, finite ones only are used) by the rule at
 * @below_pct. Returns 0, or -1 when no finite value was given. */
int fc_bl_prune(const double *v, int n, double below_pct, struct fc_bl_stat *out);

/* The profile as one line ("Ethernet 400 Gb/s 02c9:4129 write 65536 B uni
 * pairs"), for messages. */
void fc_bl_profile_text(const struct fc_bl_profile *p, char *buf, size_t len);
/* The profile as a JSON object and back: 0, or -1 with @why set. */
json_t *fc_bl_profile_json(const struct fc_bl_profile *p);
int fc_bl_profile_parse(const json_t *o, struct fc_bl_profile *p, char *why, size_t wlen);

/* A baseline file read whole: its entries and rule. */
struct fc_bl_entry {
	struct fc_bl_profile prof;
	struct fc_bl_stat st;
};
struct fc_baseline {
	struct fc_bl_entry *e;
	int n;
	double below_pct;
};
/* Reads the baseline document @doc (as fc_bl_doc writes it); @name names it
 * in errors. Returns 0, or -1 after printing what is wrong and the fix. */
int fc_bl_load(struct fc_baseline *b, const json_t *doc, const char *name);
void fc_bl_release(struct fc_baseline *b);
/* The document of @n entries under @below_pct. */
json_t *fc_bl_doc(const struct fc_bl_entry *e, int n, double below_pct);

/* The entry for @p: NULL when none, with @why saying which part of the
 * profile differs from the nearest entry (another HCA, rate, link layer,
 * size...), for the refusal. */
const struct fc_bl_entry *fc_bl_find(const struct fc_baseline *b, const struct fc_bl_profile *p,
				     char *why, size_t wlen);
/* The first part of the profile in which @a and @b differ ("port rate",
 * "message size", ...), or NULL when they are the same profile. */
const char *fc_bl_profile_differs(const struct fc_bl_profile *a, const struct fc_bl_profile *b);
/* How far @gbps is below the entry's mean, in percent (negative: above). */
double fc_bl_below_pct(const struct fc_bl_entry *e, double gbps);

#endif
