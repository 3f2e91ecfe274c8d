/* Preflight: one port's own checks (state, rate, PCIe ceiling, RoCE GID
 * and MTU), each node on its own (pf_judge.h). */
#include "checks/preflight/pf_judge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/out.h"
#include "core/util.h"
#include "diag/diag.h"

/* The IB MTU a RoCE port can run with a netdev MTU (the RoCEv2 headers take
 * about 100 bytes: Ethernet, IP, UDP, BTH, ICRC). */
static int roce_mtu_for(int netdev_mtu)
{
	static const int mtus[] = { 4096, 2048, 1024, 512, 256 };

	for (size_t i = 0; i < sizeof(mtus) / sizeof(mtus[0]); i++)
		if (netdev_mtu >= mtus[i] + 100)
			return mtus[i];
	return 256;
}

/* How a port is judged: @lvl for its failures, blamed (for a drain) only
 * when it is one of the GPU fabric's ports; @left says why it is not. */
struct pf_judge {
	enum fc_verdict lvl;
	const char *left; /* NULL: a rail port, judged */
	char note[320];	  /* " (left out of the rails: WHY: not judged for a drain)" */
};

static void judge_blame(json_t *doc, const struct pf_judge *j, const char *node, const char *part,
			const char *device)
{
	if (!j->left)
		pf_blame(doc, node, part, device);
}

/* The HCA's PCIe link as trained against its port's rate (the probe's
 * "pcie" of each HCA, diag/live.c): a ceiling below the port is named
 * before any traffic, a failure when the link trained below its maximum. */
static void check_pcie_ceiling(json_t *doc, const struct pf_node *nd, const char *dn, int port,
			       double rate, const struct pf_judge *j)
{
	const json_t *h, *pc = NULL;
	double ceil, gts, mgts;
	int w, mw, down;
	size_t i;

	json_array_foreach(json_object_get(nd->probe, "hcas"), i, h)
		if (!strcmp(fc_jstr(h, "name", ""), dn))
			pc = json_object_get(h, "pcie");
	ceil = fc_jnum(pc, "ceiling_gbps", 0);
	if (ceil <= 0 || rate <= 0 || ceil >= rate)
		return;
	gts = fc_jnum(pc, "gts", 0), mgts = fc_jnum(pc, "max_gts", 0);
	w = (int)fc_jnum(pc, "width", 0), mw = (int)fc_jnum(pc, "max_width", 0);
	down = gts < mgts || w < mw;
	fc_finding(doc, down ? j->lvl : FC_WARN,
		   "%s: %s trained to %g GT/s x%d (%s %g GT/s x%d): at most about %.0f Gb/s over PCIe, port %d is %g Gb/s: %s%s",
		   nd->name, dn, gts, w, down ? "capable of" : "its maximum,", mgts, mw,
		   diag_about(ceil), port, rate,
		   down ? "reseat the HCA, check the riser and the slot's PCIe setting in the BIOS (lspci -vv LnkSta against LnkCap)"
			: "the slot cannot carry the port: move the HCA to a slot of its own PCIe generation and width",
		   j->note);
	if (down)
		judge_blame(doc, j, nd->name, "pcie link", dn);
}

/* A RoCE port's GID and netdev MTU. */
static void check_eth(json_t *doc, const struct pf_node *nd, const char *dn, const json_t *p,
		      const struct pf_opts *o, const struct pf_judge *j)
{
	const char *node = nd->name, *ifn = fc_jstr(p, "netdev", "");
	int port = (int)fc_jnum(p, "port", 0), amtu = (int)fc_jnum(p, "active_mtu", 0);
	const json_t *ndv = json_object_get(json_object_get(nd->probe, "netdevs"), ifn);
	int nmtu = (int)fc_jnum(ndv, "mtu", 0);

	if (json_is_true(json_object_get(p, "gid_unknown"))) {
		/* a device list from ibstat or ibv_devinfo text (verbs/devtext.c):
		 * no GID was recorded, which says nothing of the port's GIDs */
	} else if (!json_is_integer(json_object_get(p, "gid_index"))) {
		fc_finding(doc, j->lvl, "%s: %s port %d has no usable GID: give %s an IP address%s",
			   node, dn, port, *ifn ? ifn : "its netdev", j->note);
		judge_blame(doc, j, node, "no GID", dn);
	} else if (!json_is_string(json_object_get(p, "gid_type"))) {
		/* a GID whose type was not recorded (an older capture's device
		 * list): not a sign that the port lacks RoCE v2 */
	} else if (strcmp(fc_jstr(p, "gid_type", ""), "RoCE v2")) {
		fc_finding(doc, j->lvl,
			   "%s: %s port %d has no RoCE v2 GID (best is %s): enable RoCE v2 (cma_roce_mode, or the HCA's settings) and give %s an IPv4 address%s",
			   node, dn, port, fc_jstr(p, "gid_type", ""), *ifn ? ifn : "its netdev", j->note);
		judge_blame(doc, j, node, "no RoCE v2 GID", dn);
	}
	if (o->expect_mtu > 0 && nmtu && nmtu != o->expect_mtu) {
		fc_finding(doc, j->lvl,
			   "%s: %s MTU is %d, expected %d (%s port %d runs at an active MTU of %d B): set 'ip link set %s mtu %d' and the same on the switch port%s",
			   node, ifn, nmtu, o->expect_mtu, dn, port, amtu, ifn, o->expect_mtu, j->note);
		judge_blame(doc, j, node, "mtu", ifn);
	} else if (nmtu && amtu && amtu < 4096 && roce_mtu_for(nmtu) == amtu)
		fc_finding(doc, FC_WARN,
			   "%s: %s port %d runs at an active MTU of %d B because %s has MTU %d: RoCE needs jumbo frames (MTU 9000) for 4096 B; set it on the node and the switch",
			   node, dn, port, amtu, ifn, nmtu);
}

/* One port's own checks (pf_judge.h). */
void pf_check_port(json_t *doc, const struct pf_node *nd, const json_t *dev,
		   const json_t *p, const struct pf_opts *o, json_t *ports, const char *left)
{
	const char *node = nd->name, *dn = fc_jstr(dev, "name", "?");
	const char *ll = fc_jstr(p, "link_layer", "?"), *ifn = fc_jstr(p, "netdev", "");
	int port = (int)fc_jnum(p, "port", 0), amtu = (int)fc_jnum(p, "active_mtu", 0);
	const json_t *ndv = json_object_get(json_object_get(nd->probe, "netdevs"), ifn);
	int nmtu = (int)fc_jnum(ndv, "mtu", 0);
	double rate = fc_jnum(p, "rate_gbps", 0);
	struct pf_judge j = { .lvl = left ? FC_WARN : FC_FAIL, .left = left };
	/* gid_unknown: a device list from ibstat/ibv_devinfo text (verbs/devtext.c);
	 * a GID without its type: an older capture's list */
	const char *gid_type = fc_jstr(p, "gid_type", json_is_true(json_object_get(p, "gid_unknown")) ||
								      json_is_integer(json_object_get(p, "gid_index")) ?
							      "not recorded" : "none");
	json_t *row = json_pack("{s:s, s:i, s:s, s:s, s:f, s:i, s:s, s:i, s:s, s:s}", "device", dn,
				"port", port, "state", fc_jstr(p, "state", "?"), "link_layer", ll,
				"rate_gbps", rate, "active_mtu", amtu, "netdev", ifn, "netdev_mtu",
				nmtu, "gid_type", gid_type, "fw_ver", fc_jstr(dev, "fw_ver", "?"));

	json_object_set_new(row, "width", json_integer(atoi(fc_jstr(p, "width", "0"))));
	if (left) {
		snprintf(j.note, sizeof(j.note), " (left out of the rails: %s: not judged for a drain)",
			 left);
		json_object_set_new(row, "left_out", json_string(left));
	}
	json_array_append_new(ports, row);
	if (strcmp(fc_jstr(p, "state", ""), "ACTIVE")) {
		fc_finding(doc, j.lvl,
			   "%s: %s port %d is %s: check the cable, the transceiver and the switch port (and 'ip link' for RoCE)%s",
			   node, dn, port, fc_jstr(p, "state", "?"), j.note);
		judge_blame(doc, &j, node, "port state", dn);
		return;
	}
	check_pcie_ceiling(doc, nd, dn, port, rate, &j);
	if (o->expect_rate_gbps > 0 && rate + 1e-6 < o->expect_rate_gbps) {
		fc_finding(doc, j.lvl,
			   "%s: %s port %d runs at %g Gb/s (%s %s), expected %g Gb/s: reseat or replace the cable or transceiver, check the switch port's speed%s",
			   node, dn, port, rate, fc_jstr(p, "width", "?"), fc_jstr(p, "speed", "?"),
			   o->expect_rate_gbps, j.note);
		judge_blame(doc, &j, node, "port rate", dn);
	}
	if (!strcmp(ll, "Ethernet")) {
		check_eth(doc, nd, dn, p, o, &j);
	} else if (o->expect_mtu > 0 && amtu && amtu != o->expect_mtu) {
		fc_finding(doc, j.lvl,
			   "%s: %s port %d active MTU is %d B, expected %d B: check the subnet manager's MTU for the partition%s",
			   node, dn, port, amtu, o->expect_mtu, j.note);
		judge_blame(doc, &j, node, "mtu", dn);
	}
}

void pf_port_id(const json_t *p, char *id, size_t len)
{
	snprintf(id, len, "%s:%d", fc_jstr(p, "device", "?"), (int)fc_jnum(p, "port", 0));
}
