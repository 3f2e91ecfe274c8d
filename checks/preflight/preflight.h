/*
 * Preflight: the judgement of the documents that `fabcheck preflight-probe`
 * gathered on each node. Pure code (jansson, core, checks/qos): tested on
 * recorded probe documents. Every finding names the node and the part.
 */
#ifndef FC_CHECKS_PREFLIGHT_H
#define FC_CHECKS_PREFLIGHT_H

#include <jansson.h>
#include <stdio.h>

#include "core/out.h"

/* The node side of preflight (checks/preflight/pf_probe.c): this node's
 * probe document, as `fabcheck preflight-probe --json` prints it; @timeout
 * bounds each tool it runs, @no_topo leaves out `fabcheck topo`. */
json_t *pf_probe_doc(double timeout, int no_topo);
/* The same from @s (ctl/nodesrc.h): the node, recorded into a capture, or a
 * capture replayed. */
struct fc_src;
json_t *pf_probe_doc_src(struct fc_src *s, double timeout, int no_topo);
/* pf_probe_doc_src within @deadline (fc_now, core/util.h; 0: none) too: a
 * tool is given what is left of it, at most @timeout, and one that ran out
 * (or was not started) is a line of the document's "ran_out" list. */
json_t *pf_probe_doc_by(struct fc_src *s, double timeout, double deadline, int no_topo);

/* The probe document of the capture @path (checks/preflight/pf_from.c), or
 * NULL with @err naming the file and what is wrong. */
json_t *pf_probe_from(const char *path, double timeout, char *err, size_t errlen);
/* The captures @paths as preflight's "nodes" (as pf_check takes them): each
 * named by the host it recorded, or an "error" naming the capture. */
json_t *pf_nodes_from(char *const *paths, int n, double timeout);

struct pf_opts {
	double expect_rate_gbps; /* 0: ports must agree across nodes */
	int expect_mtu;		 /* netdev MTU of RoCE ports (IB: active MTU); 0: agree */
	int tclass;		 /* traffic class for the QoS check */
	const char *exclude_dev; /* --exclude-dev LIST: devices that are no rail */
	const json_t *ref;	 /* health: the rack's preflight document (NULL: none) */
	const char *rails;	 /* health --rails LIST: the node's rail devices or netdevs */
	const char *rails_why;	 /* why a port is not in @rails (NULL: "not in --rails") */
	const json_t *in_use;	 /* health: {"DEV:PORT": WHY} ports shown in use (hl_in_use) */
};

/*
 * @nodes: an array of {"node": NAME, "probe": DOCUMENT} or
 * {"node": NAME, "error": WHY} (a node that could not be probed).
 * Adds to @doc (from fc_doc_new): findings, "nodes" (a summary per node),
 * "skipped" (checks that could not run, with the reason), "gpu_nodes".
 * Returns the number of nodes that could not be probed.
 */
int pf_check(json_t *doc, const json_t *nodes, const struct pf_opts *o);

/* Why port @p of device @dev on @node is no port of the GPU fabric, or
 * NULL when it is one (its faults can drain the node): excluded by
 * o->exclude_dev; else a port in the rail set @set (pf_check_rails) is
 * judged; one that is not (down, or left out by the rules: management,
 * storage or front-end, another link layer or rate, no peer) is judged
 * when its device is a rail of the other nodes (@probed >= 2) or of the
 * rack's reference o->ref (one node). o->rails (health --rails) names the
 * rails outright: a port on none of them is left out. One node with
 * neither: an ACTIVE port left out by the rules is not judged, nor is a
 * down one unless the node shows it was in use (o->in_use): one node alone
 * cannot tell an unused spare from a rail port that went down, so such a
 * port is a warning that says how to make it judged. With no rail set
 * every port is judged (checks/preflight/pf_roles.c). */
const char *pf_port_left(const char *node, const json_t *dev, const json_t *p, const json_t *set,
			 int probed, const struct pf_opts *o);

/* Names @node as failed in @part (@device: NULL or the device) for the
 * finding just added: an entry {"node", "part", "device", "text"} of the
 * document's "blame" list, what preflight --drain and health --drain-self
 * drain. */
void pf_blame(json_t *doc, const char *node, const char *part, const char *device);

/* The values a rack must agree on, per device or port: the probe's key,
 * what it is called, its unit, the part a difference blames, and the fix.
 * preflight compares them across the nodes, health against the rack's
 * recorded majority: one table for both. */
enum pf_value { PF_FW, PF_RATE, PF_ACTIVE_MTU, PF_NETDEV_MTU, PF_NVALUES };
struct pf_value_rule {
	const char *key, *what, *unit, *part, *fix;
};
extern const struct pf_value_rule pf_values[PF_NVALUES];

/* Compares one value across nodes (NULL: none); one finding at @lvl per
 * odd node, or one that lists every node when there is no majority. */
void pf_agree(json_t *doc, enum fc_verdict lvl, const char *what, const char *const *vals,
	      const char *const *names, int n, const char *fix);
/* pf_agree whose odd node is blamed for @part on its own device (a drain
 * reason's "firmware on mlx5_0"): @devs[i] for node i (a rail's device
 * differs by server model), else @dev; not for the whole of @what. */
void pf_agree_on(json_t *doc, enum fc_verdict lvl, const char *what, const char *part,
		 const char *dev, const char *const *devs, const char *const *vals,
		 const char *const *names, int n, const char *fix);

/* Each HCA's firmware state and health reporters (the probe's "devlink" of
 * the HCA, checks/preflight/pf_fwstate.c): a stored firmware not yet
 * running, a version the driver could not read, a reporter in error (a
 * failure of a rail HCA, by the node's summary rows @sums) on each node;
 * the board's PSID, the stored firmware and each reporter's error count
 * compared across the @n nodes (@probes[i] NULL: not probed): with the HCA
 * on the same rail where the rail set @set (pf_check_rails) places a port
 * of it, else with the HCA of the same name. */
void pf_check_fw_state(json_t *doc, const char *const *names, const json_t *const *probes,
		       const json_t *const *sums, int n, const json_t *set);
/* The HCA @dev has a port of the GPU fabric on the node (its summary @sum's
 * rows, checks/preflight/pf_fwstate.c): its faults fail and drain; else
 * they are warnings. */
int pf_hca_on_rail(const json_t *sum, const char *dev);
/* Each fabric port's module (checks/preflight/pf_module.c): against its own
 * thresholds on the node, its lanes against each other, the port's rate
 * against its module's lanes, and its readings against the same port's
 * module on the other nodes: the port on the same rail where the rail set
 * @set (pf_check_rails) places it, else the same device and port. A module
 * that could not be read goes into the document's "skipped" with why. */
void pf_check_modules(json_t *doc, const char *const *names, const json_t *const *probes,
		      const json_t *const *sums, int n, const json_t *set);
/* What module @m (read and judged by diag/parse_module.c) of port @p says of
 * itself, into its probe object @o (pf_module.c): "own" (against its
 * thresholds, diag_module_verdict), "lanes" (a lane apart from the
 * others), "flags" (lane flags at the end that transmits), "below" (the
 * port runs below what its module, and @link (NULL: not read) the HCA and
 * its link partner, support), each {.., "why"}. */
struct diag_module;
struct diag_link;
void pf_module_facts(json_t *o, const struct diag_module *m, const json_t *p,
		     const struct diag_link *link);

/*
 * Per rail (checks/preflight/pf_rails.c), where the nodes' probes show two
 * rails or more: the rails matched by the fabric and their findings (a
 * swapped cable, a port on no rail), the same rate, active and netdev MTU,
 * firmware and HCA PCIe link speed and width on every node's port of a rail
 * (the odd one named; with fewer than three nodes also against the node's
 * other rails), and each
 * GPU's nearest rail HCA: PIX or PXB, and its own where the node has as many
 * rail HCAs as GPUs. Adds "rails" to @doc. Returns the number of rails (0:
 * fewer than two, nothing checked). @exclude: --exclude-dev LIST or NULL;
 * the ports left out by rule or by it go into "notes". @set (NULL: none)
 * gets the rail set, also with one rail: {"ports": {NODE: {"DEV:PORT":
 * true}}, "names": [rail names]}: the ports a drain may judge; "rail_of":
 * {NODE: {"DEV:PORT": rail index}}: each port's rail.
 */
int pf_check_rails(json_t *doc, const char *const *names, const json_t *const *probes, int n,
		   const char *exclude, json_t *set);
/*
 * The rail plan (fabcheck rails): the same matching of the nodes' ports
 * (core/rail.h) as pf_check_rails, with one rail too, into @doc: how the
 * rails were matched ("matched_by", "assumed"), each rail with each node's
 * port on it ("rails"), the ports left out ("notes") and the matching's
 * findings. Returns @doc, or NULL when the matching refused (said).
 */
json_t *pf_rail_plan(json_t *doc, const char *const *names, const json_t *const *probes, int n,
		     const char *exclude);
/* fabcheck rails (pf_plan.c): the plan of the nodes read ({"node",
 * "probe"} or {"node", "error"}: a failure naming it; returns nonzero when
 * one could not be read), and its text. */
int pf_rails_doc(json_t *doc, const json_t *nodes);
void pf_render_rails(FILE *f, const json_t *doc);
/* Preflight's "skipped:" block: a reason that holds for many nodes or
 * ports said once, naming them, fitted to the terminal (pf_skipped.c). */
void pf_render_skipped(FILE *f, const json_t *doc);

#endif
