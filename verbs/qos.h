/*
 * RoCE QoS: congestion and pause counters (mlx5 hw_counters, `ethtool -S`),
 * the netdev's trust mode and PFC settings (`mlnx_qos -i DEV`), and the
 * findings they support. Pure code over recorded text.
 */
#ifndef FC_CHECKS_QOS_H
#define FC_CHECKS_QOS_H

#include <jansson.h>

/* Parses `ethtool -S DEV` output ("     name: value" lines after the
 * "NIC statistics:" header) into an object name -> integer. Lines that are
 * not counters are ignored. Returns NULL when no counter was found. */
json_t *qos_parse_ethtool_s(const char *text);

/* Counter deltas after - before for the names present in both, keeping
 * non-zero ones. A counter that went backwards (reset, wrap) is left out and
 * named in *reset_p (an array, may be NULL). */
json_t *qos_delta(const json_t *before, const json_t *after, json_t **reset_p);

/* The 802.1p priority a RoCE traffic class lands on with trust dscp and the
 * default dscp2prio map (DSCP / 8); @dscp2prio (64 entries) overrides it when
 * not NULL. */
int qos_tclass_priority(int tclass, const int *dscp2prio);

struct qos_dcb {
	char trust[16];	  /* "pcp" or "dscp", "" when unknown */
	int pfc_known;
	int pfc_enabled[8]; /* 1 when PFC protects the priority */
	int dscp_known;
	int dscp2prio[64];
};

/* Parses `mlnx_qos -i DEV` output. Returns 0, or -EINVAL when the text has
 * neither a trust state nor a PFC table. */
int qos_parse_mlnx_qos(const char *text, struct qos_dcb *out);

/*
 * Findings for one node's counter deltas during a test that used @tclass
 * (-1 when none was set): ECN marks without CNPs, CNPs ignored, pauses on a
 * priority other than the traffic's, sequence errors on a lossless class.
 * @hw and @eth are delta objects (either may be NULL). Appended to @doc with
 * fc_finding.
 */
void qos_counter_findings(json_t *doc, const char *node, const char *dev,
			  const json_t *hw, const json_t *eth, int tclass);

/* The mlx5 hw_counters that show congestion control and loss at work
 * (np_ecn_marked_roce_packets, np_cnp_sent, rp_cnp_handled, out_of_sequence,
 * ...): reported even when they did not move, where the device has them. */
int qos_is_cc_counter(const char *name);

/* The `ethtool -S` counters kept for a test: pause frames (global and per
 * priority), discards and out_of_buffer drops. */
int qos_is_netdev_counter(const char *name);

/* Deltas after - before of the counters present in both that @keep accepts
 * (all when @keep is NULL), zero ones included; counters that went backwards
 * (reset, wrap) are left out. */
json_t *qos_delta_keep(const json_t *before, const json_t *after,
		       int (*keep)(const char *name));

/* 1 when the deltas in @eth show PFC pauses on the priority @tclass maps to
 * (default dscp2prio): the traffic rode a lossless class. */
int qos_lossless(const json_t *eth, int tclass);

/* Sets "tclass", "dscp" (tclass >> 2) and "ecn" (tclass & 3) in @o. */
void qos_tclass_json(json_t *o, int tclass);

/* Findings for the node's trust/PFC settings against the traffic class. */
void qos_dcb_findings(json_t *doc, const char *node, const char *netdev,
		      const struct qos_dcb *dcb, int tclass);

#endif
