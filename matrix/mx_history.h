/*
 * Links against their own past, from the store's link rows: the figures of
 * this run's links in the last k matrix runs before it (matrix/history.h
 * judges). A link is a node pair on one rail of a run with rails (rail the
 * model's 0 .. nrails-1, matched across runs by subnet, or name without
 * one), or the pair as a whole in a run without (rail -1, "all"); a run of
 * the other kind, or without that rail, is no part of its past.
 * Used by `matrix` (findings and the "history" object), `report --history`
 * (HTML with an SVG chart per flagged link, and CSV) and the TUI's trend.
 */
#ifndef FC_MX_HISTORY_H
#define FC_MX_HISTORY_H

#include <jansson.h>
#include <stdio.h>

#include "matrix/history.h"
#include "matrix/mx_model.h"

struct mx_history {
	struct fc_hist_opts o;
	struct fc_hist_link *links; /* worst drop first: every link, or (mx_history_scan)
				     * the worst flagged ones kept */
	int nlinks;		    /* entries of links */
	int nseen, nflagged;	    /* the run's links judged, and flagged among them */
	int64_t runs[FC_HIST_K_MAX + 1]; /* [0] = the model's run, [i] = i runs before; 0 none */
	int nruns;			 /* past runs found */
};

/* Reads the history of @m's links from @st. 0 or a negative errno (logged). */
int mx_history_load(struct mx_history *h, struct fc_store *st, const struct mx_model *m,
		    const struct fc_hist_opts *o);
/* The same in memory that does not grow with the links or the runs: the
 * rows of the run and of the k before it are read grouped by pair
 * (fc_store_links_by_pair: SQLite sorts them, spilling to temporary
 * files), each link judged when its pair's rows end and passed to @each
 * (when not NULL; a non-zero return stops and is returned) in that order,
 * by the nodes' names, not worst first. h->links keeps only the @keep
 * worst flagged links, worst first; nseen and nflagged count every link.
 * Memory: O(nodes + keep x k + nrails x k), plus SQLite's sorter (its
 * cache, 2 MB by default), whatever the number of links or runs; @each's
 * own apart. `report --history` at 1,024 x 8 (4.2 million links a run)
 * reads through it. 0 or a negative errno (logged). */
typedef int (*mx_hist_link_cb)(const struct fc_hist_link *l, void *arg);
int mx_history_scan(struct mx_history *h, struct fc_store *st, const struct mx_model *m,
		    const struct fc_hist_opts *o, int keep, mx_hist_link_cb each, void *arg);
/* @l's place in link order (node, node, rail: the order of ties in
 * h->links), unique among the links of @m. */
int64_t mx_history_rank(const struct mx_model *m, const struct fc_hist_link *l);
/* The same for one link: nodes @a, @b (model indices), @rail (-1 or the
 * model's rail; MX_HIST_ANY_RAIL: the pair on each rail, worst drop
 * first), read in one query (the TUI's trend). h->nlinks is 0 when the run
 * has no figure of it yet. 0, -EINVAL (not a link of the model) or
 * another negative errno (logged). */
#define MX_HIST_ANY_RAIL (-2)
int mx_history_link(struct mx_history *h, struct fc_store *st, const struct mx_model *m, int a,
		    int b, int rail, const struct fc_hist_opts *o);
void mx_history_release(struct mx_history *h);
/* "all", or "INDEX (NAME)" of the model's @rail, into @buf. */
const char *mx_history_rail(const struct mx_model *m, int rail, char *buf, size_t len);

/* Adds "history" to @doc (k, drop, runs, flagged links with their series)
 * and a finding per flagged link. */
void mx_history_doc(const struct mx_history *h, const struct mx_model *m, json_t *doc);
/* CSV: the header runs_ago,run,a,b,rail,device,gbps,median_gbps,flagged,
 * then a row per figure of a link's series, oldest first (rail -1 and
 * device "all" without rails; median and flag on the run judged's row). */
void mx_history_csv_head(FILE *f);
void mx_history_csv_link(FILE *f, const struct mx_history *h, const struct mx_model *m,
			 const struct fc_hist_link *l);

#endif
