/*
 * Preflight's judgement, private to checks/preflight: the nodes as pf_check
 * holds them and the pieces its files share (preflight.c: the run and the
 * agreement helpers; pf_port.c: one port's own checks; pf_across.c: values
 * compared across the nodes; pf_node.c: a node's GPUDirect, topology, QoS).
 */
#ifndef FC_CHECKS_PF_JUDGE_H
#define FC_CHECKS_PF_JUDGE_H

#include <jansson.h>

#include "checks/preflight/preflight.h"

struct pf_node {
	const char *name;
	const json_t *probe; /* NULL: could not be probed */
	json_t *sum;	     /* the summary row */
};

/* DEV:PORT of a port's summary row (or a probe's port with "device"). */
void pf_port_id(const json_t *p, char *id, size_t len);

/* One port's own checks (pf_port.c); adds its summary row to @ports. @left:
 * why the port is not one of the GPU fabric's (NULL: it is): its faults are
 * then warnings, never a drain. */
void pf_check_port(json_t *doc, const struct pf_node *nd, const json_t *dev, const json_t *p,
		   const struct pf_opts *o, json_t *ports, const char *left);

/* Compared across the nodes (pf_across.c): the node-level versions; the
 * HCAs' firmware and driver per device name; each port's rate against the
 * same port on the other nodes; a port's values per DEV:PORT. */
void pf_check_versions(json_t *doc, struct pf_node *nd, int n);
void pf_check_hca_versions(json_t *doc, struct pf_node *nd, int n);
void pf_check_port_rates(json_t *doc, struct pf_node *nd, int n, const struct pf_opts *o);
void pf_check_port_agreement(json_t *doc, struct pf_node *nd, int n, const struct pf_opts *o);

/* A node's GPUDirect RDMA path and topology findings, and its ports' trust
 * and PFC (pf_node.c); what could not be judged goes into @skipped. */
void pf_check_gpu_topo(json_t *doc, const struct pf_node *nd, json_t *skipped);
void pf_check_qos(json_t *doc, const struct pf_node *nd, int tclass, json_t *skipped);

#endif
