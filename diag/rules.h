/* The rules' context and table (diag/rules.c, diag/rules_test.c). */
#ifndef FC_DIAG_RULES_H
#define FC_DIAG_RULES_H

#include "diag/diag.h"

struct diag_ctx {
	const struct diag_set *set;
	const json_t *test; /* the test's document, or NULL */
	json_t *out;	    /* the diagnosis array being built */
	int congested;	    /* the congestion row named flow control */
};

struct diag_rule {
	const char *name;
	void (*port)(struct diag_ctx *c, const struct diag_port *p);
};

/* The per-port rows, in order. */
const struct diag_rule *diag_port_rules(int *n_p);
/* The rows over the whole test (configuration, congestion, drops, slow). */
void diag_test_rules(struct diag_ctx *c);
/* pair --rails: the rails that pass alone and fall short loaded (rule
 * rails_slow, diag/rules_rails.c). */
void diag_r_rails_slow(struct diag_ctx *c);

/* The other end of @p's test (its node, its device), or NULL / "". */
const char *diag_ctx_peer(const struct diag_ctx *c, const struct diag_port *p);
const char *diag_ctx_peer_dev(const struct diag_ctx *c, const struct diag_port *p);

/* 1 when @p shows physical errors or flaps. */
int diag_port_errors(const struct diag_port *p);
void diag_emit(struct diag_ctx *c, const char *rule, const char *subject, const char *part,
	       int likely, const char *next, const char *evidence);
void diag_emit_f(struct diag_ctx *c, const char *rule, const char *subject, const char *part,
		 int likely, const char *next, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));

/* The port against what it should run at (diag/expect.c): below its
 * module or its peers (rule "port_below"); a transmitter fault on a port
 * at its full rate (rule "module_tx"). */
void diag_r_port_below(struct diag_ctx *c, const struct diag_port *p);
void diag_r_module_tx(struct diag_ctx *c, const struct diag_port *p);
/* The HCA's firmware state (diag/devlink.c): a stored firmware not yet
 * running, or a version the driver could not read (rule "hca_fw"). */
void diag_r_hca_fw(struct diag_ctx *c, const struct diag_port *p);
/* A lane in use of @m beyond the module's own thresholds (diag/modlimits.c):
 * 1 an alarm of its transmitter, 0 a warning, -1 none; what in @why. */
int diag_module_limits(const struct diag_module *m, char *why, size_t len);
/* A reading and its warning window (has_lo/has_hi 0: that side not given). */
struct diag_window {
	double v, lo, hi;
	int has_lo, has_hi;
	const char *unit;
};
/* Reading @key (@w) against the values @p (@k >= 2, sorted here) of what it
 * is compared with (@whose: "the same port's module on 2 other nodes
 * reads"): outside their band and more than half the way from their median
 * to its own warning threshold (diag/modpeers.c, where the rule's sources
 * are); then appended to @why ("; " between) and 1. */
int diag_window_apart(const char *key, const struct diag_window *w, double *p, int k,
		      const char *whose, char *why, size_t len);
/* The lanes of one module against each other and its lane flags
 * (diag/modlanes.c), rule "module_lanes". */
void diag_r_module_lanes(struct diag_ctx *c, const struct diag_port *p);
/* The receive power of each lane against the same port on two or more other
 * nodes' evidence @ev (diag_port_json), rule "module_rx_peers"; returns how
 * many were named. */
int diag_rx_peers(struct diag_ctx *c, const json_t *const *ev, int n, const json_t *rails);
/* The module's own readings against the same port's module on two or more
 * other nodes' evidence (diag/modpeers.c diag_module_peer), rule
 * "module_peers"; returns how many ports were named. */
int diag_module_peers(struct diag_ctx *c, const json_t *const *ev, int n, const json_t *rails);
/* The lane (from 1) of @p's module whose transmitter reports a fault or a
 * low transmit power alarm; 0 none. */
int diag_tx_lane(const struct diag_port *p);
/* The far_end row names @p's own transmitter (the switch port at the other
 * end counts errors, this port none, and its module's transmitter is
 * faulted). */
int diag_far_tx_blamed(const struct diag_port *p);

#endif
