/*
 * Links against their own past, from the store: the figures of this run's
 * links in the last k matrix runs before it (matrix/history.h judges).
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
	struct fc_hist_link *links; /* worst drop first */
	int nlinks, nflagged;
	int64_t runs[FC_HIST_K_MAX + 1]; /* [0] = the model's run, [i] = i runs before; 0 none */
	int nruns;			 /* past runs found */
};

/* Reads the history of @m's links from @st. 0 or a negative errno (logged). */
int mx_history_load(struct mx_history *h, struct fc_store *st, const struct mx_model *m,
		    const struct fc_hist_opts *o);
void mx_history_release(struct mx_history *h);

/* Adds "history" to @doc (k, drop, runs, flagged links with their series)
 * and a finding per flagged link. */
void mx_history_doc(const struct mx_history *h, const struct mx_model *m, json_t *doc);
/* CSV: run_offset,run,a,b,gbps,median_gbps,flagged for every link's series. */
int mx_history_csv(FILE *f, const struct mx_history *h, const struct mx_model *m);

#endif
