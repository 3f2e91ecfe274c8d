/*
 * matrix --rails (matrix/mx_rails.c): the rack's rails in the run's
 * parameters, a cell per (pair, rail) in the model, and their part of the
 * matrix document. Used by mx_model, mx_doc and the session.
 */
#ifndef FC_MX_RAILS_H
#define FC_MX_RAILS_H

#include <jansson.h>

#include "matrix/mxan.h"

struct mx_model;

/* Lists every node's ports (@fanout at once), matches them into rails (--rails, --exclude-dev)
 * and keeps the rails, each node's port on each and the findings (a swapped
 * cable...) in @params "rails". Returns 0, or -EINVAL (logged: a usage
 * error, or no rail shared) or -ENOMEM. @dflt: every rail by default, not
 * asked for: with two rails or more as --rails all (its pair options added
 * to @params "pair_args"), with fewer 1 (the findings logged) and nothing kept. */
int mx_rails_params(json_t *params, char **names, int n, const char *rails,
		    const char *exclude, int fanout, int dflt);

/* The launcher options among the pair options @args (--launcher,
 * --ssh-config, --worker-cmd, --timeout into *timeout). */
struct fc_launch;
void mx_launch_of(const json_t *args, struct fc_launch *l, double *timeout);

/* matrix --import: the rails the recorded pair documents name, in their
 * order of first appearance. Returns 1 when they name any. */
int mx_rails_params_from_docs(json_t *params, const json_t *docs);

/* The model's rail of a pair document's rail @name, @subnet: by subnet, or
 * by name when it has none (the rack's rails matched by name); -1 none. */
int mx_rail_find(const struct mx_model *m, const char *name, const char *subnet);

/* The model's side (mx_model.c). */
int mx_rails_load(struct mx_model *m);
/* Node @node's own device on rail position @r, as the run's rail plan
 * matched it (params "rails" "ports": another server model names the HCA
 * on a rail otherwise), else the rail's name. */
const char *mx_rail_own_device(const struct mx_model *m, const char *node, int r);
/* The rails on which none of node @i's pairs could run while its other
 * rails ran (fc_mxl_unchecked), "rail 1 (rxe1), rail 2 (rxe2)" into
 * @buf; their count (0: none, @buf ""). */
int mx_rails_unchecked_of(const struct mx_model *m, int i, char *buf, size_t len);
/* Room for @more cells at once (a load knows how many: a row's rails),
 * where growing by doubling would copy and overshoot. 0 or -ENOMEM. */
int mx_rails_reserve(struct mx_model *m, size_t more);
/* A measured rail of a pair row: its rack rail (-1: none of the rack's),
 * figures and state. */
struct mx_rail_fig {
	int rail;
	double gbps, lat_us;
	enum fc_mx_state state;
	unsigned char fault; /* FC_MX_FAULT_*: whose own device failed on it */
};
/* The cells of a pair row from its measured rails @f (those whose rail is
 * -1 left out); none: the pair could not run, an error (a failure, after
 * @row_state) on every rail. A row that could not run (@row_state
 * FC_MX_ERROR) with no rail measured is an error on each of its rails
 * whatever their verdicts: never evidence against its nodes. */
int mx_rails_add(struct mx_model *m, int a, int b, const struct mx_rail_fig *f, size_t nf,
		 int retest, enum fc_mx_state row_state);
/* The same from the row's document (its rails with a phase). */
int mx_rails_row(struct mx_model *m, int a, int b, const char *doc, int retest,
		 enum fc_mx_state row_state);
int mx_rails_analyze(struct mx_model *m);
void mx_rails_release(struct mx_model *m);

/* The rails, the pairs per (pair, rail) (with @pairs), the rails' findings
 * and the suspects with their level, into a matrix document (mx_doc.c). */
void mx_rails_doc(const struct mx_model *m, json_t *doc, json_t *suspects, int pairs);

/* The "rails: NOTE" lines of @doc's rail_notes; how many. */
int mx_rails_notes_lines(FILE *f, const json_t *doc);
/* The rails' notes of a matrix document ("rail_notes": the ports left out,
 * each with its rule, and rails matched by position, "assumed"), a line
 * each, as pair says them, and a blank line under them. */
void mx_rails_notes_render(FILE *f, const json_t *doc);

#endif
