/*
 * Analysis of a node-pair matrix: per-node medians, bad pairs, and the node
 * or link to blame. Pure: takes results as structs, names as strings.
 *
 * A directed result a -> b is bad when `pair` itself failed it, when its
 * bandwidth is below the absolute threshold (min_gbps), below min_rack_pct
 * of the rack median, or its latency above max_lat_us. The rack median is
 * the median of the per-node medians, so that one slow node (which drags
 * down a third or a half of all pairs in a small rack) does not drag the
 * reference with it; of an even count of nodes it is the upper median
 * (the lower for latency), never the mean of the middle two, so that a
 * screen round of two pairs, one through a slow node, keeps the healthy
 * pair's figure as the reference (core/stats.h fc_median_hi).
 *
 * A node that is bad with most of its peers is a suspect node, found
 * greedily, worst first (the higher share of bad peers, then more of them,
 * then the lower median), and a failed pair with a suspect node is no
 * evidence against the other end: the next node is judged on the pairs
 * that remain. A node is a suspect only beside a peer that is fine with
 * most of its own other peers: of three nodes all bad with each other none
 * is to blame, and they are one finding (FC_MX_SPREAD), not a suspect
 * each. A bad pair whose two nodes are not suspects is a suspect link.
 * When every pair is below min_gbps, that is one finding (FC_MX_FLOOR)
 * and the suspects are judged without the floor.
 *
 * A node whose own RDMA device, port or rail its worker could not set up
 * or connect (the pair document's "node_fault", pair/pair_msg.c, from
 * ctl/worker.c's kind "node") is a suspect node of its own (FC_MX_BAD_OWN),
 * whatever its peers, and its pairs are no evidence against them: its
 * worker said whose the fault is, no comparison is needed. Only where the
 * run saw some device work (a pair that measured, or failed on its data
 * path with both ends set up; a caller may say one did elsewhere,
 * fc_mx_opts.own_contrast): when no device worked at all, each node's
 * failure cannot be told from the run's own options (-d, -x, the rail
 * plan) or the rack's setup, and those pairs stay what they were (could
 * not run, FC_MX_ERROR; or failed, FC_MX_FAIL), judged as before.
 */
#ifndef FC_MXAN_H
#define FC_MXAN_H

#include <stddef.h>

enum fc_mx_state {
	FC_MX_NONE = 0, /* not measured (yet) */
	FC_MX_OK,	/* `pair` passed or warned */
	FC_MX_FAIL,	/* `pair` failed it (its own thresholds, counters) */
	FC_MX_ERROR,	/* could not run: unreachable, no device, timeout */
};

/* Why a directed result is bad (bits). */
enum {
	FC_MX_BAD_VERDICT = 1, /* `pair` said fail */
	FC_MX_BAD_ABS = 2,     /* bandwidth below min_gbps */
	FC_MX_BAD_RACK = 4,    /* bandwidth below min_rack_pct of the rack median */
	FC_MX_BAD_LAT = 8,     /* latency above max_lat_us */
	FC_MX_BAD_OWN = 16,    /* its own device failed to set up (a node's finding only) */
};

/* Which end's own RDMA device, port or rail failed in a pair (fault bits). */
enum { FC_MX_FAULT_A = 1, FC_MX_FAULT_B = 2 };

struct fc_mx_result {
	int a, b;      /* node indices, a -> b */
	double gbps;   /* NAN when not measured */
	double lat_us; /* NAN when not measured */
	enum fc_mx_state state;
	int retest;    /* measured again by --retest: its round (1, 2), 0 none */
	unsigned char fault; /* FC_MX_FAULT_*: the document's node_fault named that end */
};

struct fc_mx_opts {
	double min_gbps;     /* absolute floor, 0 = none */
	double min_rack_pct; /* share of the rack median, 0 = none */
	double max_lat_us;   /* absolute ceiling, 0 = none */
	double asym_pct;     /* A->B vs B->A: the slower below this share of the faster */
	/* Set by a caller that saw a device work elsewhere in the same run
	 * (another rail of it): a node fault is named without a device that
	 * worked among these results. Not an option of the user's. */
	int own_contrast;
};
#define FC_MX_OPTS_DEFAULT { .min_rack_pct = 90, .asym_pct = 90 }

struct fc_mx_cell {
	double gbps, lat_us;
	unsigned char state; /* enum fc_mx_state */
	unsigned char bad;   /* FC_MX_BAD_* bits */
	unsigned char retest; /* its --retest round, 0 none */
	unsigned char fault; /* FC_MX_FAULT_*, from the result */
};

enum fc_mx_node_state {
	FC_MX_NODE_UNTESTED = 0,
	FC_MX_NODE_OK,
	FC_MX_NODE_SUSPECT,
	FC_MX_NODE_UNREACHABLE, /* every pair it was in could not run */
};

struct fc_mx_node {
	double median_gbps, median_lat_us; /* NAN when none */
	int peers;  /* peers with a measured result */
	int bad;    /* of those, peers whose pair is bad */
	int errors; /* peers whose pairs only errored */
	enum fc_mx_node_state state;
};

enum fc_mx_kind {
	FC_MX_SUSPECT_NODE, /* a: the node */
	FC_MX_SUSPECT_LINK, /* a, b: the link */
	FC_MX_UNREACHABLE,  /* a: the node */
	FC_MX_PAIR_ERROR,   /* a -> b could not run */
	FC_MX_ASYMMETRY,    /* a -> b (v1) vs b -> a (v2) */
	FC_MX_RACK_WIDE,    /* most nodes look bad: the threshold or the fabric */
	FC_MX_FLOOR,	    /* every pair is below min_gbps: the floor or the fabric */
	FC_MX_SPREAD,	    /* a: nodes (3 or more, no suspect among them) all bad with each other */
};

struct fc_mx_finding {
	enum fc_mx_kind kind;
	int a, b;
	double v1, v2;
	int fail; /* 1 fail, 0 warn */
	/* Suspect node: the peers it was judged on (those that remained when it
	 * was found), the bad ones among them, their FC_MX_BAD_* bits, and the
	 * slowest of those pairs (NAN when none had a figure) with its peer. */
	int peers, nbad, worst_peer;
	unsigned char why;
	double worst_gbps;
};

struct fc_mx_analysis {
	int n;
	double rack_median_gbps, rack_median_lat_us, best_gbps; /* NAN when none */
	struct fc_mx_cell *cells; /* n * n, [a * n + b] = a -> b */
	struct fc_mx_node *nodes; /* n */
	struct fc_mx_finding *findings;
	int nfindings, findings_cap;
	int nsuspects;	/* suspect nodes + suspect links */
	int nbad_pairs; /* unordered pairs with a bad direction */
	int nmeasured;	/* directed results that ran */
	int nfaults;	/* results whose document named an end's own device */
	unsigned char judge; /* the FC_MX_BAD_* bits suspects are judged on */
	struct fc_mx_opts opts;
};

/* Analyses @nres results among @n nodes (a later result for the same a -> b
 * replaces an earlier one). Returns 0 or -ENOMEM / -EINVAL (index out of
 * range); release @out with fc_mx_release. */
int fc_mx_analyze(int n, const struct fc_mx_result *res, size_t nres,
		  const struct fc_mx_opts *opts, struct fc_mx_analysis *out);
void fc_mx_release(struct fc_mx_analysis *an);
/* The same into @an, which holds an earlier analysis (or is zeroed): its
 * memory is used again when @n is the same, which spares the page faults of
 * fresh memory when a run is analysed again as results come in. The result
 * is fc_mx_analyze's; after an error @an is released. */
int fc_mx_reanalyze(int n, const struct fc_mx_result *res, size_t nres,
		    const struct fc_mx_opts *opts, struct fc_mx_analysis *an);

static inline const struct fc_mx_cell *fc_mx_cell(const struct fc_mx_analysis *an, int a, int b)
{
	return &an->cells[(size_t)a * (size_t)an->n + (size_t)b];
}

/* Whether the test a -> b ran to a figure (passed or failed). */
static inline int fc_mx_ran(const struct fc_mx_cell *c)
{
	return c->state == FC_MX_OK || c->state == FC_MX_FAIL;
}

/* Whether either direction of {a, b} ran. */
static inline int fc_mx_pair_ran(const struct fc_mx_analysis *an, int a, int b)
{
	return fc_mx_ran(fc_mx_cell(an, a, b)) || fc_mx_ran(fc_mx_cell(an, b, a));
}
/* The unordered pair {a, b} is bad in either direction. */
int fc_mx_pair_bad(const struct fc_mx_analysis *an, int a, int b);
/* A finding that fails the run: a suspect, or one about the whole rack
 * (FC_MX_RACK_WIDE, FC_MX_FLOOR, a failing FC_MX_SPREAD). */
int fc_mx_failed(const struct fc_mx_analysis *an);

/* One line for @f: which node or link and why. */
/* The floor finding: every pair (of @pairs among @nodes, on each of
 * @nrails rails when more than one) below --min-gbps @min_gbps, the best
 * @best: one finding, the same words with rails as without. */
void fc_mx_floor_text(char *buf, size_t len, double min_gbps, int pairs, int nodes, int nrails,
		      double best);
/* The same as @doc's "floor" {min_gbps, pairs, nodes, rails, best_gbps},
 * for the summary under the verdict (core/summary.h). */
struct json_t;
void fc_mx_floor_doc(struct json_t *doc, double min_gbps, int pairs, int nodes, int nrails,
		     double best);
void fc_mx_finding_text(const struct fc_mx_analysis *an, const struct fc_mx_finding *f,
			const char *const *names, char *buf, size_t len);
/* The evidence of a finding, the same words in the single-port analysis's
 * findings and in each rail's (matrix/mxlevel.c): the same results say the
 * same thing with rails as without.
 * fc_mx_node_why: a suspect node's (FC_MX_SUSPECT_NODE) "bad with 2 of 3
 * peers (below 90% of the rack median 0.1 Gb/s; the slowest 0.02 Gb/s,
 * with nodeA; its median 0.03 Gb/s)", ", still bad on retest" after it
 * when one of those pairs was measured again. */
void fc_mx_node_why(const struct fc_mx_analysis *an, const struct fc_mx_finding *f,
		    const char *const *names, char *buf, size_t len);
/* The finding of a suspect node whose own device its worker could not set
 * up (FC_MX_BAD_OWN): "suspect node nodeC on mlx5_3 port 1: its own RDMA
 * device ... : check its HCA, ...", with the device and port (@port 0: not
 * said) its worker tried when known (@dev NULL: "suspect node nodeC: ..."):
 * names checked by the caller (store.h fc_pair_doc_fault_dev). */
void fc_mx_own_text(const struct fc_mx_analysis *an, const struct fc_mx_finding *f,
		    const char *const *names, const char *dev, int port, char *buf, size_t len);
/* A suspect link's (FC_MX_SUSPECT_LINK) "0.05 Gb/s (below 90% of the rack
 * median 0.1 Gb/s)"; returns 1 when either direction was retested. */
int fc_mx_link_why(const struct fc_mx_analysis *an, const struct fc_mx_finding *f, char *buf,
		   size_t len);
/* The floor's "every pair is below --min-gbps 1 (6 pairs of 4 nodes, the
 * best 0.5 Gb/s)" (fc_mx_floor_text's first clause). */
void fc_mx_floor_why(char *buf, size_t len, double min_gbps, int pairs, int nodes, int nrails,
		     double best);
/* FC_MX_RACK_WIDE's "3 of 4 nodes are bad with most of their peers". */
void fc_mx_rack_wide_why(char *buf, size_t len, const struct fc_mx_finding *f);
/* @an's first finding of @kind about node @a (-1: any); NULL none. */
const struct fc_mx_finding *fc_mx_finding_of(const struct fc_mx_analysis *an,
					     enum fc_mx_kind kind, int a);
/* "none of its 3 pairs could run", "its one pair could not run". */
const char *fc_mx_none_ran(char *buf, size_t len, int pairs);
/* Words for a FC_MX_BAD_* set ("below 90% of the rack median"). */
void fc_mx_bad_text(const struct fc_mx_analysis *an, const struct fc_mx_cell *c, char *buf,
		    size_t len);


/* The pairs --retest runs again: each bad pair of a suspect node with a
 * node that is not a suspect, and each suspect link, in the direction that
 * was bad; after each, a reference for each good end of it (one of its good
 * pairs with another good node, not planned already), so that the suspect
 * is judged against readings of the same moment. Fills @out (room for
 * @max) and returns the count. */
int fc_mx_retest_plan(const struct fc_mx_analysis *an, int *out_a, int *out_b, int max);

/*
 * The rounds of --retest. A retest replaces the first pass's figures of the
 * suspects' pairs and their references, and so can move the median every
 * pair is held against: the demo rack's healthy rail 0 went from about 0.04
 * to 0.08 Gb/s when a pair first measured at 0.018 measured 0.119, and a
 * pair measured once at 0.023, good against the old bar, fell below the
 * new one (tests/unit/test_mx_retest2.c has those figures). So after the
 * retest the run is analysed again, and a suspect that is new is retested
 * in a second round with its own references (fc_mx_retest_plan_new).
 * Two rounds: the second measures only what the first's figures moved; a
 * bar that moves again after it moves with the noise of the rack itself
 * (readings that do not hold still between two passes), which a third
 * round would chase without end, each round as long as the first's. What
 * is still bad and never retested after the second is said so ("measured
 * once, not retested", core/summary.c).
 */
#define FC_MX_RETEST_ROUNDS 2
/* The second round's plan: fc_mx_retest_plan's, of @an (the analysis after
 * a retest round), for the bad pairs that are new to it: not bad in @first
 * (the analysis of the first pass, before any retest), or bad there but
 * not measured again in a bad direction (a retest figure). A pair bad in
 * both and retested is settled and not planned; each planned pair gets its
 * own references of this round. Returns the count, or -EINVAL when @first
 * is of another node count. */
int fc_mx_retest_plan_new(const struct fc_mx_analysis *an, const struct fc_mx_analysis *first,
			  int *out_a, int *out_b, int max);

#endif
