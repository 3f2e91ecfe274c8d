/*
 * Loss as a rate: the loss events a run's counters saw against the packets
 * its results moved, and whether one such rate is above another beyond
 * chance. Pure code.
 *
 * Events. The count held to a Poisson model is the retransmissions the
 * requesters started (fc_cg_is_retry, core/congest.c): one a loss episode,
 * whatever the number of packets resent in it. Counters of every packet of
 * an episode (rxe's duplicate_request, mlx5's out_of_sequence: go-back-N
 * resends the whole window after one drop) come in bursts, far more
 * variable than a Poisson count, and would make any difference look real.
 * Where neither run shows a retransmission started, every retransmission
 * counter is the count (FC_CG_RETRANS), said so in the evidence.
 *
 * Packets. The data packets each result moved: every message posted by
 * either side ("posted", warm-up included, as core/ctrcheck.h accounts
 * them), else the timed iterations (twice when bidirectional), in
 * ceil(size / path MTU) packets each, at least one.
 */
#ifndef FC_LOSSRATE_H
#define FC_LOSSRATE_H

#include <jansson.h>

/* Loss seen over some traffic: its counters' loss events, the packets
 * they are counted against. */
struct fc_loss {
	double retries;	/* retransmissions the requesters started */
	double retrans;	/* every retransmission counter (FC_CG_RETRANS) */
	double drops;	/* receive drops (FC_CG_RX_DROP) */
	double packets;	/* data packets the results moved */
};

/* Adds counter @name's @delta to @l by its kind (core/congest.h). */
void fc_loss_count(struct fc_loss *l, const char *name, double delta);

/* Adds every counter of {node: {name: delta}} @counters to @l. */
void fc_loss_counters(struct fc_loss *l, const json_t *counters);

/* The data packets the results of pair document @doc moved (each rail's
 * loaded and alone results for a document with "rails"). */
double fc_loss_packets(const json_t *doc);

/*
 * The one-sided p-value of "the rate @x1 / @t1 is no higher than @x0 / @t0"
 * for Poisson counts x over exposures t: the exact conditional test of two
 * Poisson rates (Przyborowski & Wilenski, Biometrika 31, 1940; R's
 * stats::poisson.test with two samples, alternative "greater", which
 * computes it through binom.test): given n = x1 + x0 events in all, x1 is
 * Binomial(n, t1 / (t1 + t0)) when the rates are equal; the p-value is
 * P(X >= x1). 1 when it cannot be computed (no exposure).
 */
double fc_poisson_rate_p(double x1, double t1, double x0, double t0);

#endif
