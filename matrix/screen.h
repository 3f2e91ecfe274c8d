/*
 * The screening schedule of `matrix --screen`: a few seed rounds that give
 * every (node, rail) several different peers, then adaptive rounds that
 * retest what is still in doubt against peers already cleared on the same
 * rail, until every (node, rail) is named bad or cleared, or a round limit.
 * Pure: takes judged results (bad or not, from the analysis), gives rounds
 * of node pairs (each pair measures all rails at once).
 *
 * Seed rounds are rounds of the circle schedule (core/sched.h) over a random
 * relabelling of the nodes, at distinct random round indices: each is a
 * random perfect matching, and no two of them repeat a pair, so each seed
 * round brings every node a new peer (independent matchings repeat one with
 * probability ~k^2/N: often at 4 or 8 nodes).
 *
 * Evidence, per (node, rail) item, from the latest result of each (pair,
 * rail): a pass clears both sides (a hard fault does not pass); a bad
 * result is direct evidence against one side only when the other side is
 * already cleared on that rail. Cleared (GOOD): more passes than direct
 * bad results (a pass rules out a hard fault; an intermittent one is the
 * history's to find). Named (BAD): direct >= K + 2 * passes, with K the number of direct bad
 * results that healthy noise alone reaches with odds under 0.01 in the whole
 * rack (SCR_FALSE_NAMES): K = ceil(ln(0.01 / items) / ln(q)), q the share of bad results
 * between cleared items (at least 1%), K in 2..8. A bad result between two
 * cleared items is a suspect link: that pair is retested on that rail; a
 * link bad in K tries in a row is named. q is measured on the seed rounds
 * (later rounds retest what was bad, which would bias it). A (node, rail)
 * has n - 1 peers, so where K > n - 1 (one bad result in the few seed
 * results of a 4-node rack) the screen cannot name one, and says so.
 */
#ifndef FC_SCREEN_H
#define FC_SCREEN_H

#include <stddef.h>
#include <stdint.h>

#define FC_SCR_MAX_RAILS 16

enum fc_scr_state {
	FC_SCR_UNKNOWN = 0, /* not enough evidence yet */
	FC_SCR_SUSPECT,	    /* a bad result not yet explained */
	FC_SCR_GOOD,	    /* cleared */
	FC_SCR_BAD,	    /* named */
	FC_SCR_UNREACHABLE, /* only errors, twice or more */
};

enum fc_scr_stop {
	FC_SCR_RUNNING = 0,
	FC_SCR_STOP_DONE,  /* every item named or cleared */
	FC_SCR_STOP_LIMIT, /* the round limit, items still in doubt */
	FC_SCR_STOP_STUCK, /* items in doubt but no peer to test them with */
};

struct fc_scr_opts {
	int seed_rounds; /* default 3 (fewer when the full matrix has fewer) */
	int max_rounds;	 /* 0: ceil(log2 N) + 2 */
	uint64_t seed;	 /* of the random relabelling; 0 = 1 */
};

/* One judged result: the pair and rail, and what the analysis made of it. */
struct fc_scr_res {
	int a, b, rail;
	int bad; /* 1 bad, 0 ok, -1 could not run */
};

/* A pair of a round and the rails whose results count: every rail, or for
 * the retest of a suspect link only the rails of that link (the others
 * are loaded but each of their figures would be one more chance of noise). */
struct fc_scr_pair {
	int a, b;
	unsigned rails; /* bit r: rail r */
};

struct fc_scr_item {
	int passes, direct, bads, errors; /* from the latest result of each key */
	unsigned char state;		  /* enum fc_scr_state */
};

struct fc_screen {
	int n, rails, round, max_rounds, seed_rounds, k_confirm;
	double noise; /* q above */
	struct fc_scr_opts o;
	int *perm;		  /* n: the seed rounds' relabelling */
	int *seed_idx;		  /* seed_rounds: circle rounds used */
	int *met;		  /* n * max_rounds: the peer met in round r, -1 */
	struct fc_scr_item *item; /* n * rails, [node * rails + rail] */
	struct fc_scr_pair *links; /* suspect links to retest, with their rails */
	int nlinks, links_cap;
	struct fc_scr_res *named_links; /* links bad K tries in a row */
	int links_named_cap;
	int undecided, named, cleared, unreachable, links_named;
	enum fc_scr_stop stop;
	uint64_t rng;
};

/* Prepares @s for @n nodes (2..FC_SCHED_MAX_NODES) and @rails rails
 * (1..FC_SCR_MAX_RAILS). 0, -EINVAL or -ENOMEM. */
int fc_screen_init(struct fc_screen *s, int n, int rails, const struct fc_scr_opts *o);
void fc_screen_release(struct fc_screen *s);

/* Recomputes every item from all judged results so far (@res in the order
 * they were measured; a later result of the same pair and rail replaces an
 * earlier one). 0 or -ENOMEM / -EINVAL. */
int fc_screen_update(struct fc_screen *s, const struct fc_scr_res *res, size_t nres);

/* The next round's pairs into @out (room for n / 2); returns their count,
 * 0 when the screen has stopped (s->stop says why), or -ENOMEM. Call after
 * fc_screen_update with the results of the rounds before. */
int fc_screen_next(struct fc_screen *s, struct fc_scr_pair *out);

/* Records that @a and @b met in round @round (0-based), as a resumed
 * screen reads its stored rounds back, so that retests still prefer new
 * peers; out-of-range input is ignored. */
void fc_screen_met(struct fc_screen *s, int a, int b, int round);

/* One measured (pair, rail) as the analysis takes it. */
struct fc_scr_meas {
	int a, b, rail;
	double gbps, lat_us; /* NAN when not measured */
	int state;	     /* enum fc_mx_state */
};

enum fc_scr_level { FC_SCR_LVL_PORT, FC_SCR_LVL_NODE, FC_SCR_LVL_RAIL, FC_SCR_LVL_LINK };

/* A part named by the analysis: port (node, rail), node (every rail),
 * rail (its switch), or link (a, b on rail). Unused fields are -1. */
struct fc_scr_culprit {
	enum fc_scr_level level;
	int node, rail, a, b;
};

/*
 * The analysis the screen runs (matrix/screen_judge.c): judges each of
 * @nm measurements into out[i] (same a, b, rail; bad 1/0/-1) and, when
 * @culprits_p is not NULL, names the parts to blame (a malloc'd array,
 * *ncul_p long). Returns 0 or a negative errno.
 */
struct fc_mx_opts;
int fc_scr_analyze(int n, int rails, const struct fc_scr_meas *m, size_t nm,
		   const struct fc_mx_opts *o, struct fc_scr_res *out,
		   struct fc_scr_culprit **culprits_p, int *ncul_p);
const char *fc_scr_level_name(enum fc_scr_level l);

static inline const struct fc_scr_item *fc_screen_item(const struct fc_screen *s, int node,
						       int rail)
{
	return &s->item[(size_t)node * (size_t)s->rails + (size_t)rail];
}

/* Whether the screen's evidence holds @c: a port whose (node, rail) it
 * named, a node named on most of its rails, a link bad K tries in a row;
 * a rail (drawn across rails by the analysis) always. A culprit it does
 * not hold is "in doubt": the analysis leans that way on too few tests. */
int fc_screen_holds(const struct fc_screen *s, const struct fc_scr_culprit *c);

/* Why it stopped, in words ("every (node, rail) named or cleared in 5
 * rounds"). */
void fc_screen_stop_text(const struct fc_screen *s, char *buf, size_t len);
const char *fc_screen_state_name(enum fc_scr_state st);

/* "" or, when the noise measured asks for more direct bad results than a
 * node has peers (K > n - 1), the clause that says so: no port can be
 * named by the screen on a rack this small. FC_SCREEN_SMALL_LEN holds it. */
#define FC_SCREEN_SMALL_LEN 224
void fc_screen_small_text(const struct fc_screen *s, char *buf, size_t len);

#endif
