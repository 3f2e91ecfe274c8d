/*
 * `matrix --screen`: the screening schedule (matrix/screen.h) driving the
 * matrix runner. After each round it reads the run's new results from the
 * store, has the analysis judge them, and plans the next round; it stops
 * by itself and says why. Results are stored like any matrix run's, so
 * the TUI, reports and --resume read them as they are.
 */
#ifndef FC_MX_SCREEN_H
#define FC_MX_SCREEN_H

#include <jansson.h>

#include "matrix/mx_session.h"
#include "matrix/screen.h"

struct mx_screen {
	struct fc_screen s;
	struct mx_session *ss; /* borrowed */
	struct fc_mx_opts opts;
	struct fc_scr_meas *meas;
	struct fc_scr_res *res;
	size_t nmeas, cap;
	int rails;
};

/* Keeps of @mm's suspects (its levels analysis, with rails) those the
 * screen's own evidence holds (fc_screen_holds: a port it named, a link
 * bad K tries in a row); returns how many it dropped, in doubt: the
 * analysis leans that way on too few tests (a noise dip between two
 * ports not yet cleared). The screen exits 1 for what it holds only. */
struct mx_model;
int mx_screen_hold(const struct mx_screen *m, struct mx_model *mm);
/* The run parameters of a screen ("screen": {...}) from the options. */
json_t *mx_screen_params(int max_rounds, unsigned long long seed);
/* Sets up the screen of session @ss when its parameters ask for one
 * (returns 1), 0 when they do not, or a negative errno (logged). On
 * resume the rounds stored are read back first. */
int mx_screen_open(struct mx_screen *m, struct mx_session *ss);
void mx_screen_close(struct mx_screen *m);
/* The "screen" object of the matrix document: rounds, stop and why, and
 * each (node, rail) in doubt. */
json_t *mx_screen_doc(const struct mx_screen *m);

#endif
