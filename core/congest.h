/*
 * What an incast round says about the fabric's flow control: the senders'
 * shares against the fair share, the aggregate against the receiver's port
 * ceiling, and the congestion counters that moved on the ports involved,
 * turned into named outcomes with their evidence. Pure code: the counters
 * come as (name, delta) pairs as the workers read them.
 *
 * Counter names: mlx5's RDMA hardware counters (np_cnp_sent, rp_cnp_handled,
 * np_ecn_marked_roce_packets, out_of_sequence, packet_seq_err,
 * local_ack_timeout_err, implied_nak_seq_err, out_of_buffer: the kernel's
 * drivers/infiniband/hw/mlx5/counters.c and NVIDIA's "Understanding mlx5
 * Linux Counters"), mlx5's ethtool counters (rx/tx_prioN_pause,
 * rx/tx_prioN_pause_duration in microseconds, rx/tx_pause_ctrl_phy,
 * rx_discards_phy, rx_prioN_buf_discard, rx_out_of_buffer: the kernel's
 * Documentation/networking/device_drivers/ethernet/mellanox/mlx5/counters.rst),
 * InfiniBand's PortXmitWait (IBTA vol. 1, PortCounters: credit-based link
 * flow control stalls), and rdma_rxe's (rcvd_seq_err, completer_retry_err,
 * retry_exceeded_err, out_of_seq_request, duplicate_request).
 */
#ifndef FC_CONGEST_H
#define FC_CONGEST_H

#include <jansson.h>

#include "core/lossrate.h"

enum fc_cg_class {
	FC_CG_OTHER,
	FC_CG_PAUSE,	 /* link-level pause or credit-wait frames/ticks */
	FC_CG_PAUSE_US,	 /* pause duration, microseconds */
	FC_CG_ECN,	 /* ECN-marked RoCE packets at the receiver */
	FC_CG_CNP_SENT,	 /* congestion notifications sent (notification point) */
	FC_CG_CNP_HANDLED, /* handled by the sender (reaction point) */
	FC_CG_RETRANS,	 /* out-of-sequence, NAKs, timeouts, retries */
	FC_CG_RX_DROP,	 /* dropped at the receiving port for want of its own buffers */
	FC_CG_NCLASS
};
/* The class of counter @name. */
enum fc_cg_class fc_cg_class_of(const char *name);
const char *fc_cg_class_name(enum fc_cg_class c);
/* Whether counter @name counts one retransmission a requester started (a
 * loss episode: core/lossrate.h; the sources in congest.c). */
int fc_cg_is_retry(const char *name);

/* One incast round toward one receiver. */
struct fc_incast_obs {
	const char *receiver;
	int nsenders;
	const char *const *sender;
	const double *gbps;	/* each sender's rate over the common window */
	double ceiling_gbps;	/* the receiver port's payload ceiling (core/payload.h) */
	double sum[FC_CG_NCLASS]; /* counter deltas by class, every port of the round */
	double rx_drop_receiver;  /* FC_CG_RX_DROP on the receiver's own port */
	struct fc_loss loss;	/* the round's loss and the packets its flows moved */
	const struct fc_loss *pairs; /* the same ports' pairs' own, NULL: none stored */
};

/*
 * The named outcomes of @o, each {"outcome", "level" (pass/warn/fail),
 * "evidence"}, appended to @out:
 *   "lossless flow control working"  pauses, no loss;
 *   "ECN/DCQCN working"              CNPs sent or handled, no loss;
 *   "no working flow control"        loss under incast, no pause and no CNP,
 *                                    with pairs at no loss at all, or at a
 *                                    loss rate the round's is above (at 99%
 *                                    confidence: core/lossrate.h), both
 *                                    rates in the evidence;
 *   "loss under incast"              loss with pauses or CNPs, or not above
 *                                    the pairs' own rate, or with no pair
 *                                    figures to hold it against (said so);
 *   "receiver cannot drain"          drops at the receiver's own buffers;
 *   "unfair"                         a sender below half its fair share;
 *   "below the port ceiling"         the aggregate under 90% of the ceiling
 *                                    (pair's default --min-link-pct) with no
 *                                    other outcome to explain it.
 * Also sets "jain" (the fairness index) and "aggregate_gbps". Returns the
 * worst level (0 pass, 1 warn, 2 fail).
 */
int fc_incast_judge(const struct fc_incast_obs *o, json_t *out);

/* One fanout round from one sender. */
struct fc_fanout_obs {
	const char *sender;
	int nreceivers;
	const char *const *receiver;
	const double *gbps;	/* each receiver's rate over the common window */
	double ceiling_gbps;	/* the sender port's payload ceiling */
};
/*
 * The sender's aggregate against its port's ceiling and the receivers'
 * fairness: "unfair" (a receiver below half its fair share: its path from
 * the sender), "below the port ceiling" (under 90% with nothing else to
 * explain it). Sets "jain", "aggregate_gbps", "outcomes"; the worst level.
 * A fanout is one NIC's scheduling across its QPs: no receiver's port is
 * shared, so the congestion outcomes of an incast do not apply.
 */
int fc_fanout_judge(const struct fc_fanout_obs *o, json_t *out);

/* One all-to-all group: every node writes to every other at once, so each
 * node's port is both an incast's receiver and a fanout's sender. */
struct fc_alltoall_obs {
	int nnodes;
	const char *const *node;
	const double *in_gbps, *out_gbps; /* each node's aggregates in and out */
	const double *ceiling_gbps;	  /* each node port's payload ceiling */
	const double *rx_drop;		  /* FC_CG_RX_DROP on each node's port */
	double sum[FC_CG_NCLASS];	  /* counter deltas by class, the group's ports */
	struct fc_loss loss;		  /* the group's loss, the packets it moved */
	const struct fc_loss *pairs;	  /* as fc_incast_obs */
};
/*
 * The incast outcomes over the group ("receiver cannot drain" per node, the
 * flow-control outcome of the group's counters), "unfair" (a node whose in
 * or out aggregate is below half the group's fair share), else "below the
 * port ceiling" (a node's in or out under 90% of its port). "jain" is over
 * the nodes' in aggregates. The worst level.
 */
int fc_alltoall_judge(const struct fc_alltoall_obs *o, json_t *out);

#endif
