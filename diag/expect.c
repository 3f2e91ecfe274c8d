/*
 * What a port should run at, and the port judged against it before any
 * test (issue 37 item 1). The model:
 *
 *   module   the lanes its module is set for: the host lanes of its active
 *            application (CMIS 5 page 11h, "Active application selected
 *            code assigned to host lane N", as SONiC prints it), else every
 *            lane with light or with a transmitter fault (a transmitter
 *            that fails is one the module was asked to drive: CMIS 5
 *            table 8-80 TxFailure, "affecting media lane <i>"; ethtool
 *            cmis.c prints it as "Tx fault : [ No, No, Yes, No ]"). A link
 *            trained on fewer lanes than that (the sysfs rate's "2X" where
 *            the module drives 4) runs below its module. Lanes with light
 *            alone may be a breakout's other port, so that is "possible";
 *            a transmitter fault or the application makes it "likely".
 *            The lane rate is the port's own (rate / width): a 400G-4 lane
 *            port on 2 lanes is 200 Gb/s, what mlx5 reports for
 *            200GAUI-2 (drivers/infiniband/hw/mlx5/main.c,
 *            translate_eth_ext_proto_oper: IB_WIDTH_2X, IB_SPEED_HDR).
 *   peers    the rate most of the other nodes run the same port (DEV and
 *            port number) at: above this port's, it is below its peers;
 *            "likely" when two or more peers and most of them agree, as
 *            preflight's agreement across nodes judges (checks/preflight/
 *            preflight.c pf_agree), "possible" with one peer (the other
 *            end of a pair may be another model).
 *   PCIe     an HCA in a slower link than it supports (LnkSta below
 *            LnkCap) is judged by the pcie_limit row (diag/rules.c) against
 *            the port's rate.
 *
 *   link     what both ends support (`ethtool DEV`, diag/linkmodes.c):
 *            the fastest mode of the HCA's supported modes and the link
 *            partner's advertised ones; a port below it is held by its own
 *            advertised modes, by a partner whose modes are not reported
 *            ("possible"), or by a link that trained lower than both ask.
 */
#include "diag/diag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/out.h"
#include "core/util.h"
#include "diag/rules.h"

#define RATE_EPS 1e-6

void diag_rate_text(double gbps, int width, char *buf, size_t len)
{
	if (width > 0)
		snprintf(buf, len, "%g Gb/s on %d lane%s", gbps, width, width == 1 ? "" : "s");
	else
		snprintf(buf, len, "%g Gb/s", gbps);
}

static int popcount(unsigned v)
{
	int n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

/* "3" or "3,4": the lanes of @mask, from 1. */
static void lanes_text(unsigned mask, char *buf, size_t len)
{
	*buf = 0;
	for (int i = 0; i < DIAG_MAX_LANES; i++)
		if (mask & (1u << i))
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%d", *buf ? "," : "", i + 1);
}

/* The lanes @m is set for (bit per lane), with how that is known. */
static unsigned module_meant(const struct diag_module *m, int *sure, char *how, size_t len)
{
	unsigned meant = 0;

	*sure = 0;
	if (!m || !m->known)
		return 0;
	if (m->app_lanes) {
		*sure = 1;
		snprintf(how, len, "its module's active application uses %d host lanes", popcount(m->app_lanes));
		return m->app_lanes;
	}
	for (int i = 0; i < m->nlanes; i++)
		if ((m->tx_fault & (1u << i)) || diag_module_lane_lit(m, i))
			meant |= 1u << i;
	*sure = m->tx_fault != 0;
	snprintf(how, len, "its module drives %d lanes (light on %d", popcount(meant),
		 popcount(meant & ~m->tx_fault));
	if (m->tx_fault) {
		char l[48];

		lanes_text(m->tx_fault, l, sizeof(l));
		snprintf(how + strlen(how), len - strlen(how), ", transmitter fault on lane %s", l);
	}
	snprintf(how + strlen(how), len - strlen(how), ": ethtool -m)");
	return meant;
}

/* The rate most of @peers run at (ties: the higher), and how many. */
static double peers_rate(const struct diag_peer_rate *peers, int n, int *count, int *width)
{
	double best = 0;

	*count = 0;
	for (int i = 0; i < n; i++) {
		int k = 0;

		for (int j = 0; j < n; j++)
			k += peers[j].gbps > 0 && peers[j].gbps == peers[i].gbps;
		if (peers[i].gbps > 0 && (k > *count || (k == *count && peers[i].gbps > best))) {
			best = peers[i].gbps, *count = k;
			*width = peers[i].width;
		}
	}
	return best;
}

static void peers_text(const struct diag_peer_rate *peers, int n, double gbps, char *buf,
		       size_t len)
{
	int shown = 0;

	for (int i = 0; i < n && strlen(buf) + 40 < len; i++)
		if (peers[i].gbps == gbps)
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", shown++ ? ", " : "",
				 peers[i].node);
}

void diag_expect_rate(double gbps, int width, const struct diag_module *m,
		      const struct diag_peer_rate *peers, int npeers, struct diag_expect *e)
{
	char how[200] = "";
	int sure, count = 0, pw = 0;
	unsigned meant = module_meant(m, &sure, how, sizeof(how));
	int lanes = popcount(meant);
	double peer = peers_rate(peers, npeers, &count, &pw);

	memset(e, 0, sizeof(*e));
	e->fault = m && m->known ? m->tx_fault : 0;
	if (gbps <= 0)
		return;
	if (width > 0 && lanes > width) {
		e->gbps = gbps / width * lanes;
		e->width = lanes;
		e->likely = sure;
		snprintf(e->why, sizeof(e->why), "%s", how);
	}
	if (peer > gbps + RATE_EPS && peer + RATE_EPS >= e->gbps) {
		char rate[48], who[200] = "";

		diag_rate_text(peer, pw, rate, sizeof(rate));
		peers_text(peers, npeers, peer, who, sizeof(who));
		if (peer > e->gbps + RATE_EPS) /* a sure module still says the port is below */
			e->gbps = peer, e->width = pw;
		e->likely |= count >= 2 && 2 * count > npeers;
		e->peers_at = count;
		if (npeers == 1)
			snprintf(e->why + strlen(e->why), sizeof(e->why) - strlen(e->why),
				 "%sthe other node (%s) runs the same port at %s", *e->why ? "; " : "",
				 who, rate);
		else
			snprintf(e->why + strlen(e->why), sizeof(e->why) - strlen(e->why),
				 "%s%d of %d other nodes (%s) run the same port at %s", *e->why ? "; " : "",
				 count, npeers, who, rate);
	}
}

/* The same port (DEV, port number) on the test's other nodes. */
static int set_peers(const struct diag_ctx *c, const struct diag_port *p,
		     struct diag_peer_rate *peers, int max)
{
	int n = 0;

	for (int i = 0; i < c->set->nports && n < max; i++) {
		const struct diag_port *q = &c->set->ports[i];

		if (strcmp(q->node, p->node) && !strcmp(q->dev, p->dev) && q->port == p->port &&
		    q->rate_gbps > 0)
			peers[n++] = (struct diag_peer_rate){ q->node, q->rate_gbps, q->width };
	}
	return n;
}

/* The first lane of @mask, from 1; 0 none. */
static int first_lane(unsigned mask)
{
	for (int i = 0; i < DIAG_MAX_LANES; i++)
		if (mask & (1u << i))
			return i + 1;
	return 0;
}

/* "; the test ran on the reduced link: ..." when a test was judged. */
static void test_text(const struct diag_ctx *c, const struct diag_port *p,
		      const struct diag_expect *e, char *buf, size_t len)
{
	if (!c->test || !json_object_get(c->test, "a"))
		return;
	snprintf(buf, len, "; the test ran on the reduced link: its figures are judged against %g Gb/s, not the %g Gb/s the port should carry",
		 p->rate_gbps, e->gbps);
}

void diag_r_port_below(struct diag_ctx *c, const struct diag_port *p)
{
	struct diag_peer_rate peers[32];
	struct diag_expect e;
	char subj[256], part[96], next[1024], now[48], want[48], test[200] = "", mcmd[64], lcmd[64];
	const char *dev = p->netdev[0] ? p->netdev : p->dev, *peer = diag_ctx_peer(c, p);
	int lane;

	diag_expect_rate(p->rate_gbps, p->width, &p->mod, peers, set_peers(c, p, peers, 32), &e);
	diag_expect_link(p->rate_gbps, &p->link, &p->mod, &e);
	if (e.gbps <= 0)
		return;
	lane = first_lane(e.fault);
	diag_module_cmd(p->netdev, p->dev, p->hca_bdf, 0, mcmd, sizeof(mcmd));
	diag_module_cmd(p->netdev, p->dev, p->hca_bdf, 1, lcmd, sizeof(lcmd));
	diag_rate_text(p->rate_gbps, p->width, now, sizeof(now));
	diag_rate_text(e.gbps, e.width, want, sizeof(want));
	test_text(c, p, &e, test, sizeof(test));
	snprintf(subj, sizeof(subj), "%s %s port %d", p->node, p->dev, p->port);
	if (lane)
		snprintf(part, sizeof(part), "transceiver (lane %d transmitter)", lane);
	else if (*e.part)
		snprintf(part, sizeof(part), "%s", e.part);
	else
		snprintf(part, sizeof(part), "%s",
			 p->width && e.width > p->width ? "cable or transceiver (lanes)"
							: "port speed (cable, transceiver or switch port setting)");
	if (lane)
		snprintf(next, sizeof(next),
			 "replace the transceiver of %s %s (%s: Tx fault on lane %d) with a known-good one; the port should train to %s (sysfs rate; '%s' Speed and Lanes); then re-run 'fabcheck pair %s %s -d %s'",
			 p->node, p->dev, mcmd, lane, want, lcmd, p->node, peer ? peer : "PEER", p->dev);
	else if (!strncmp(e.part, "configuration", 13))
		snprintf(next, sizeof(next),
			 "advertise the modes the HCA supports ('ethtool -s %s autoneg on', or 'ethtool -s %s speed %g autoneg on'), check the switch port allows %s, and confirm 'ethtool %s' Speed; then re-run 'fabcheck pair %s %s -d %s'",
			 dev, dev, e.gbps * 1000, want, dev, p->node, peer ? peer : "PEER", p->dev);
	else
		snprintf(next, sizeof(next),
			 "compare '%s' (Speed, Lanes) and '%s' with the same port on a good node and the switch port's speed setting; reseat, then swap the cable or transceiver until the port trains to %s; then re-run 'fabcheck pair %s %s -d %s'",
			 lcmd, mcmd, want, p->node, peer ? peer : "PEER", p->dev);
	diag_emit_f(c, "port_below", subj, part, e.likely, next,
		    "the port runs at %s where it should run at %s: %s%s", now, want, e.why, test);
}

/* A transmitter fault on a port that runs at its full width: a latched
 * flag, or a lane the link does not use. The far_end row names it when
 * the other end of the cable counts errors; port_below when the port is
 * below its module. */
void diag_r_module_tx(struct diag_ctx *c, const struct diag_port *p)
{
	struct diag_peer_rate peers[32];
	struct diag_expect e;
	char subj[256], part[64], lanes[48];
	const char *dev = p->netdev[0] ? p->netdev : p->dev;

	if (!p->mod.known || !p->mod.tx_fault)
		return;
	diag_expect_rate(p->rate_gbps, p->width, &p->mod, peers, set_peers(c, p, peers, 32), &e);
	diag_expect_link(p->rate_gbps, &p->link, &p->mod, &e);
	if (e.gbps > 0 || diag_far_tx_blamed(p))
		return;
	lanes_text(p->mod.tx_fault, lanes, sizeof(lanes));
	snprintf(subj, sizeof(subj), "%s %s port %d", p->node, p->dev, p->port);
	snprintf(part, sizeof(part), "transceiver (lane %d transmitter)", first_lane(p->mod.tx_fault));
	diag_emit_f(c, "module_tx", subj, part, 0,
		    "read 'ethtool -m' again: a flag that stays on after it is read is a live fault; replace the transceiver with a known-good one",
		    "the module of %s reports a transmitter fault on lane %s (ethtool -m 'Tx fault'), with the port at its full rate: the flag may be latched from an earlier fault",
		    dev, lanes);
}

#define RACK_PORTS 1024

struct rack_port {
	const char *node, *dev;
	int port, width;
	double gbps;
	const json_t *ev; /* its evidence (diag_port_json) */
};

/* Each (node, device, port) of every folder's evidence once. */
static int rack_ports(const json_t *sets, struct rack_port *rp)
{
	const json_t *set, *p;
	size_t i, k;
	int n = 0;

	json_array_foreach(sets, i, set)
		json_array_foreach(json_object_get(set, "evidence"), k, p) {
			struct rack_port r = { fc_jstr(p, "node", ""), fc_jstr(p, "device", ""),
					       (int)fc_jnum(p, "port", 0), (int)fc_jnum(p, "width", 0),
					       fc_jnum(p, "rate_gbps", 0), p };
			int dup = 0;

			for (int j = 0; j < n && !dup; j++)
				dup = !strcmp(rp[j].node, r.node) && !strcmp(rp[j].dev, r.dev) &&
				      rp[j].port == r.port;
			if (!dup && r.gbps > 0 && n < RACK_PORTS)
				rp[n++] = r;
		}
	return n;
}

/*
 * Port-level readings against the same port on the rack's other nodes, by
 * the model preflight compares a reading across nodes with (core/util.h
 * fc_majority, checks/preflight/preflight.c pf_agree_on): the value a
 * strict majority of the nodes that read it have; a port with another
 * value is named when three or more nodes read it (two others agree: two
 * nodes cannot outvote each other, and both ends of one pair are already
 * compared in each folder, diag/rules_test.c r_config). The readings: the
 * netdev MTU, the trust mode, the PFC priorities and the GID type the test
 * used, the HCA's firmware (sysfs fw_ver, as preflight's firmware
 * agreement reads it) and the module's part number (ethtool -m "Vendor
 * PN": a port cabled with another module or cable type than its peers);
 * the HCA's firmware stored in flash, what it runs after its next reset,
 * and its board's PSID (devlink dev info: devlink-info.rst "stored",
 * "fixed"; diag/devlink.c); the error count of each of the card's health
 * reporters in state healthy, the errors it recovered from (devlink
 * health show; net/devlink/health.c counts each report, and the state
 * goes back to healthy only when recovery succeeds; mlx5's card reporters
 * fw and fw_fatal, Documentation/networking/devlink/mlx5.rst), as
 * preflight compares them (checks/preflight/pf_fwstate.c error_counts).
 * The firmware's own state (an update pending, a version unreadable) is
 * the port's own rule (diag/devlink.c hca_fw), not a comparison. Each
 * port's peers: the port on its rail, else the same device and port
 * (diag/peerport.c).
 */
static const struct {
	const char *key, *what, *part, *under; /* under: the evidence object it is in */
	int likely;
} settings[] = {
	{ "mtu", "netdev MTU", "configuration (MTU)", NULL, 1 },
	{ "trust", "trust mode", "configuration (trust)", "fabric", 1 },
	{ "pfc_priorities", "PFC priorities", "configuration (PFC)", "fabric", 1 },
	{ "gid_type", "GID type", "configuration (GID type)", "fabric", 1 },
	{ "fw_ver", "HCA firmware", "HCA (firmware)", NULL, 1 },
	{ "module_pn", "module part number", "cable or transceiver (another part)", NULL, 0 },
	{ "fw_stored", "firmware stored in flash (devlink dev info)", "HCA (firmware)", NULL, 0 },
	{ "fw_psid", "board (PSID, devlink dev info)", "HCA (another board)", NULL, 0 },
	{ "fw", "HCA's health reporter fw error count (errors it recovered from, devlink health show)",
	  "HCA (firmware health)", "reporters", 0 },
	{ "fw_fatal", "HCA's health reporter fw_fatal error count (errors it recovered from, devlink health show)",
	  "HCA (firmware health)", "reporters", 0 },
};

/* Setting @k of @r as text into @buf; 0 when not read. */
static int setting(const struct rack_port *r, size_t k, char *buf, size_t len)
{
	const json_t *o = settings[k].under ? json_object_get(r->ev, settings[k].under) : r->ev;
	const json_t *v = json_object_get(o, settings[k].key);
	char *t;

	if (json_is_string(v)) {
		snprintf(buf, len, "%s", json_string_value(v));
		return *buf != 0;
	}
	if (!v || json_is_null(v) || !(t = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY)))
		return 0;
	snprintf(buf, len, "%s", t);
	free(t);
	return 1;
}

/* @b is @a or the same port on another node (diag/peerport.c). */
static int same_port(const struct rack_port *a, const struct rack_port *b, const json_t *rails)
{
	return a == b || diag_same_port(rails, a->ev, b->ev);
}

static const char *setting_next(size_t k)
{
	if (!strcmp(settings[k].key, "fw_ver"))
		return "flash the firmware the other nodes run on this HCA (mlxfwmanager, or the vendor's tool) and reset it (mlxfwreset), then re-run";
	if (!strcmp(settings[k].key, "fw_stored"))
		return "after its next reset this HCA runs another firmware than its peers: flash the image the other nodes have (mlxfwmanager) and reset it (mlxfwreset), then re-run";
	if (!strcmp(settings[k].key, "fw_psid"))
		return "the HCA is another board type or configuration than its peers': check its part number (lspci -vv [PN]) and fit the one the other nodes have";
	if (!strcmp(settings[k].under ? settings[k].under : "", "reporters"))
		return "the HCA recovered from firmware errors its peers did not have: read 'devlink health diagnose pci/BDF reporter NAME' and the kernel log (dmesg | grep mlx5); update the firmware (mlxfwmanager), then replace the card if the count keeps rising";
	if (!strcmp(settings[k].key, "module_pn"))
		return "compare 'ethtool -m' of this port with a good node's: fit the module or cable type the other nodes use on this port, then re-run";
	return "set the value the other nodes have on this port (MTU: 'ip link set DEV mtu'; trust and PFC: mlnx_qos or dcb; GID type: the RoCE version the fabric uses) and re-run";
}

/* The port's own rule named it: a stored firmware that differs because the
 * port's own update is pending (diag/devlink.c rule "hca_fw"). */
static int named_by_port(const struct rack_port *r, size_t k)
{
	return !strcmp(settings[k].key, "fw_stored") &&
	       strcmp(fc_jstr(r->ev, "fw_state", "unknown"), "active");
}

/* Setting @k of the ports like @rp[a] (the same port on every node: on its
 * rail, else by name): each one off the majority named once, at its first
 * port @a. */
static int config_group(struct diag_ctx *c, const struct rack_port *rp, int n, int a, size_t k,
			const json_t *rails)
{
	static char text[RACK_PORTS][128];
	static const char *vals[RACK_PORTS];
	int idx[RACK_PORTS], g = 0, have = 0, m, found = 0;

	for (int b = 0; b < n; b++)
		if (same_port(&rp[a], &rp[b], rails)) {
			if (b < a)
				return 0; /* the group was judged at its first port */
			idx[g] = b;
			vals[g] = setting(&rp[b], k, text[g], sizeof(text[g])) ? text[g] : NULL;
			have += vals[g] != NULL;
			g++;
		}
	if (have < 3 || (m = fc_majority(vals, g)) < 0)
		return 0;
	for (int i = 0; i < g; i++) {
		char subj[256], by[160];
		int agree = 0;

		if (!vals[i] || !strcmp(vals[i], vals[m]) || named_by_port(&rp[idx[i]], k))
			continue;
		for (int j = 0; j < g; j++)
			agree += vals[j] && !strcmp(vals[j], vals[m]);
		snprintf(subj, sizeof(subj), "%s %s port %d", rp[idx[i]].node, rp[idx[i]].dev, rp[idx[i]].port);
		diag_peer_note(rails, rp[idx[i]].ev, by, sizeof(by));
		diag_emit_f(c, "port_config_peers", subj, settings[k].part, settings[k].likely,
			    setting_next(k), "the port's %s is %s where %d of %d other nodes have %s on the same port%s",
			    settings[k].what, vals[i], agree, have - 1, vals[m], by);
		found++;
	}
	return found;
}

static int config_peers(struct diag_ctx *c, const struct rack_port *rp, int n, const json_t *rails)
{
	int found = 0;

	for (int a = 0; a < n; a++)
		for (size_t k = 0; k < sizeof(settings) / sizeof(settings[0]); k++)
			found += config_group(c, rp, n, a, k, rails);
	return found;
}

/* Each lane's receive power, and the module's own readings, against the
 * same port on the other nodes (diag/modpeers.c). */
static int rx_peers(struct diag_ctx *c, const struct rack_port *rp, int n, const json_t *rails)
{
	static const json_t *ev[RACK_PORTS];

	for (int i = 0; i < n; i++)
		ev[i] = rp[i].ev;
	return diag_rx_peers(c, ev, n, rails) + diag_module_peers(c, ev, n, rails);
}

void diag_peers(json_t *doc, const json_t *sets, const json_t *rails)
{
	static struct rack_port rp[RACK_PORTS]; /* ~40 KiB: not on the stack */
	static struct diag_peer_rate peers[RACK_PORTS];
	struct diag_ctx c = { .out = json_deep_copy(json_object_get(doc, "diagnosis")) };
	int n = rack_ports(sets, rp), found = 0;

	if (!c.out)
		c.out = json_array();
	for (int a = 0; a < n; a++) {
		struct diag_expect e;
		char subj[256], now[48], want[48], next[600], by[160];
		int np = 0;

		for (int b = 0; b < n; b++)
			if (b != a && diag_same_port(rails, rp[a].ev, rp[b].ev))
				peers[np++] = (struct diag_peer_rate){ rp[b].node, rp[b].gbps, rp[b].width };
		if (np < 2)
			continue; /* one peer: each folder's port_below said it */
		diag_expect_rate(rp[a].gbps, rp[a].width, NULL, peers, np, &e);
		if (e.gbps <= 0 || !e.likely)
			continue;
		diag_rate_text(rp[a].gbps, rp[a].width, now, sizeof(now));
		diag_rate_text(e.gbps, e.width, want, sizeof(want));
		snprintf(subj, sizeof(subj), "%s %s port %d", rp[a].node, rp[a].dev, rp[a].port);
		diag_peer_note(rails, rp[a].ev, by, sizeof(by));
		snprintf(next, sizeof(next),
			 "compare 'ethtool DEV' (Speed, Lanes) and 'ethtool -m DEV' of %s %s with a good node's and the switch port's speed setting; reseat, then swap the cable or transceiver until it trains to %s",
			 rp[a].node, rp[a].dev, want);
		diag_emit_f(&c, "port_peers", subj,
			    rp[a].width && e.width > rp[a].width ? "cable or transceiver (lanes)"
								 : "port speed (cable, transceiver or switch port setting)",
			    1, next, "the port runs at %s where %s: every test through it was judged against its reduced rate%s",
			    now, e.why, by);
		found++;
	}
	found += config_peers(&c, rp, n, rails);
	found += rx_peers(&c, rp, n, rails);
	diag_fold_lanes(c.out, (json_t *)sets);
	if (found)
		json_object_set_new(doc, "diagnosis", diag_sorted(c.out));
	else
		json_decref(c.out);
}
