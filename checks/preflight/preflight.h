/*
 * Preflight: the judgement of the documents that `fabcheck preflight-probe`
 * gathered on each node. Pure code (jansson, core, checks/qos): tested on
 * recorded probe documents. Every finding names the node and the part.
 */
#ifndef FC_CHECKS_PREFLIGHT_H
#define FC_CHECKS_PREFLIGHT_H

#include <jansson.h>

struct pf_opts {
	double expect_rate_gbps; /* 0: ports must agree across nodes */
	int expect_mtu;		 /* netdev MTU of RoCE ports (IB: active MTU); 0: agree */
	int tclass;		 /* traffic class for the QoS check */
};

/*
 * @nodes: an array of {"node": NAME, "probe": DOCUMENT} or
 * {"node": NAME, "error": WHY} (a node that could not be probed).
 * Adds to @doc (from fc_doc_new): findings, "nodes" (a summary per node),
 * "skipped" (checks that could not run, with the reason), "gpu_nodes".
 * Returns the number of nodes that could not be probed.
 */
int pf_check(json_t *doc, const json_t *nodes, const struct pf_opts *o);

/*
 * The odd ones out: @vals[i] (NULL: node i has no value, skipped) against the
 * value most nodes have. Returns the index of the majority value (a strict
 * majority of the nodes that have one), or -1 when there is none (every
 * value differs from some other: all are reported). Exposed for tests.
 */
int pf_majority(const char *const *vals, int n);

#endif
