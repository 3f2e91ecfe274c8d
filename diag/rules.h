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

/* The other end of @p's test (its node, its device), or NULL / "". */
const char *diag_ctx_peer(const struct diag_ctx *c, const struct diag_port *p);
const char *diag_ctx_peer_dev(const struct diag_ctx *c, const struct diag_port *p);

/* 1 when @p shows physical errors or flaps. */
int diag_port_errors(const struct diag_port *p);
void diag_emit(struct diag_ctx *c, const char *rule, const char *subject, const char *part,
	       int likely, const char *next, const char *evidence);

#endif
