/* Preflight: judging the probe documents of a rack (see preflight.h). */
#include "checks/preflight/preflight.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/out.h"
#include "core/util.h"
#include "diag/diag.h"
#include "verbs/qos.h"

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

void pf_blame(json_t *doc, const char *node, const char *part, const char *device)
{
	json_t *list = json_object_get(doc, "blame");

	if (!list) {
		list = json_array();
		json_object_set_new(doc, "blame", list);
	}
	json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:O?}", "node", node, "part", part,
					      "device", device ? device : "", "text",
					      json_array_get(json_object_get(doc, "findings"),
							     json_array_size(json_object_get(doc, "findings")) - 1)));
}

void pf_agree(json_t *doc, enum fc_verdict lvl, const char *what, const char *const *vals,
	      const char *const *names, int n, const char *fix)
{
	pf_agree_on(doc, lvl, what, NULL, NULL, NULL, vals, names, n, fix);
}

void pf_agree_on(json_t *doc, enum fc_verdict lvl, const char *what, const char *part,
		 const char *dev, const char *const *devs, const char *const *vals,
		 const char *const *names, int n, const char *fix)
{
	int m = fc_majority(vals, n), have = 0;
	char list[2048];
	size_t len = 0;

	for (int i = 0; i < n; i++)
		have += vals[i] != NULL;
	if (have < 2)
		return;
	if (m >= 0) {
		for (int i = 0; i < n; i++)
			if (vals[i] && strcmp(vals[i], vals[m])) {
				fc_finding(doc, lvl, "%s: %s is %s where the other nodes have %s: %s",
					   names[i], what, vals[i], vals[m], fix);
				if (lvl == FC_FAIL) {
					json_t *b;

					pf_blame(doc, names[i], part ? part : what,
						 devs ? devs[i] : dev);
					/* Found by comparing: only as many nodes clear it. */
					b = json_object_get(doc, "blame");
					json_object_set_new(json_array_get(b, json_array_size(b) - 1),
							    "across", json_integer(have));
				}
			}
		return;
	}
	list[0] = 0;
	for (int i = 0; i < n && len < sizeof(list) - 200; i++)
		if (vals[i])
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s %s",
						len ? ", " : "", names[i], vals[i]);
	fc_finding(doc, lvl, "%s differs across nodes (%s): %s", what, list, fix);
}

struct pf_node {
	const char *name;
	const json_t *probe; /* NULL: could not be probed */
	json_t *sum;	     /* the summary row */
};

const struct pf_value_rule pf_values[PF_NVALUES] = {
	[PF_FW] = { "fw_ver", "firmware", "", "firmware",
		    "flash the same firmware on every HCA (mlxfwmanager, or the vendor's tool)" },
	[PF_RATE] = { "rate_gbps", "rate", " Gb/s", "port rate",
		      "reseat or replace the slower link's cable or transceiver; check the switch port's speed and width" },
	[PF_ACTIVE_MTU] = { "active_mtu", "active MTU", " B", "mtu",
			    "set one MTU across the rack (netdev MTU 9000 for RoCE) and on the switch ports" },
	[PF_NETDEV_MTU] = { "netdev_mtu", "netdev MTU", " B", "mtu",
			    "set one MTU across the rack (ip link set DEV mtu 9000) and on the switch ports" },
};

/* Node-level values compared across nodes. */
static void check_versions(json_t *doc, struct pf_node *nd, int n)
{
	static const struct {
		const char *key, *what, *fix;
		enum fc_verdict lvl;
	} keys[] = {
		{ "fabcheck", "the fabcheck version",
		  "install the same fabcheck on every node", FC_FAIL },
		{ "kernel", "the kernel", "run one kernel across the rack (uname -r)", FC_WARN },
		{ "rdma_core", "rdma-core", "install the same rdma-core (libibverbs) on every node",
		  FC_WARN },
	};
	const char **vals = calloc((size_t)n, sizeof(*vals));
	const char **names = calloc((size_t)n, sizeof(*names));

	if (!vals || !names)
		goto out;
	for (int i = 0; i < n; i++)
		names[i] = nd[i].name;
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		for (int i = 0; i < n; i++)
			vals[i] = nd[i].probe ? json_string_value(json_object_get(nd[i].probe,
										   keys[k].key)) :
						NULL;
		pf_agree(doc, keys[k].lvl, keys[k].what, vals, names, n, keys[k].fix);
	}
out:
	free(vals);
	free(names);
}

/* Room to compare one value across the nodes: their names, each one's value
 * (NULL: it has none) and room for its text; the ids already compared. */
struct pf_column {
	const struct pf_node *nd;
	int n;
	const char **names, **vals;
	char (*text)[160];
	json_t *seen;
};

/* Compares values across the nodes for @e, an element of the array @key of
 * a node's probe or summary row, named by @id. */
typedef void pf_compare_fn(json_t *doc, struct pf_column *c, const json_t *e, const char *id,
			   const void *arg);

/*
 * @fn once per distinct id (@id_of) among the elements of the array @key of
 * the nodes' probes (@sum: of their summary rows), in the order first seen.
 */
static void each_distinct(json_t *doc, const struct pf_node *nd, int n, int sum, const char *key,
			  void (*id_of)(const json_t *e, char *id, size_t len), pf_compare_fn *fn,
			  const void *arg)
{
	struct pf_column c = { nd, n, calloc((size_t)n, sizeof(*c.names)),
			       calloc((size_t)n, sizeof(*c.vals)),
			       calloc((size_t)n, sizeof(*c.text)), json_object() };

	for (int i = 0; i < n && c.names; i++)
		c.names[i] = nd[i].name;
	for (int a = 0; a < n && c.names && c.vals && c.text && c.seen; a++) {
		size_t k;
		json_t *e;

		json_array_foreach(json_object_get(sum ? nd[a].sum : nd[a].probe, key), k, e) {
			char id[128];

			id_of(e, id, sizeof(id));
			if (json_object_get(c.seen, id))
				continue;
			json_object_set_new(c.seen, id, json_true());
			fn(doc, &c, e, id, arg);
		}
	}
	json_decref(c.seen);
	free(c.names);
	free(c.vals);
	free(c.text);
}

static void hca_id(const json_t *h, char *id, size_t len)
{
	snprintf(id, len, "%s", fc_jstr(h, "name", "?"));
}

/* Some node has a port of @dev in the rail set: a device of the GPU
 * fabric, whose difference can drain; else a storage or management HCA,
 * whose difference is a warning. */
static int on_rail(const struct pf_column *c, const char *dev)
{
	size_t q;
	json_t *pp;

	for (int i = 0; i < c->n; i++)
		json_array_foreach(json_object_get(c->nd[i].sum, "ports"), q, pp)
			if (!strcmp(fc_jstr(pp, "device", ""), dev) && !json_object_get(pp, "left_out"))
				return 1;
	return 0;
}

/* Firmware and driver of the HCAs named @dev agree across the nodes that have one. */
static void hca_versions(json_t *doc, struct pf_column *c, const json_t *h, const char *dev,
			 const void *arg)
{
	char what[200];

	(void)h, (void)arg;
	for (int i = 0; i < c->n; i++) {
		const json_t *pr = c->nd[i].probe;
		const json_t *o = pr ? fc_jnamed(json_object_get(pr, "hcas"), dev) : NULL;

		c->vals[i] = o ? json_string_value(json_object_get(o, "fw_ver")) : NULL;
		c->text[i][0] = 0;
		if (o)
			snprintf(c->text[i], sizeof(c->text[i]), "%s %s", fc_jstr(o, "driver", "?"),
				 fc_jstr(o, "driver_version", "?"));
	}
	snprintf(what, sizeof(what), "%s firmware", dev);
	pf_agree_on(doc, on_rail(c, dev) ? FC_FAIL : FC_WARN, what, "firmware", dev, NULL, c->vals,
		    c->names, c->n, pf_values[PF_FW].fix);
	for (int i = 0; i < c->n; i++)
		c->vals[i] = c->text[i][0] ? c->text[i] : NULL;
	snprintf(what, sizeof(what), "%s driver", dev);
	pf_agree_on(doc, FC_FAIL, what, "driver", dev, NULL, c->vals, c->names, c->n,
		    "install the same driver (MLNX_OFED/DOCA or kernel) on every node");
}

/* Per device name: firmware and driver agree across the nodes that have it. */
static void check_hca_versions(json_t *doc, struct pf_node *nd, int n)
{
	each_distinct(doc, nd, n, 0, "hcas", hca_id, hca_versions, NULL);
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
	} else if (strcmp(fc_jstr(p, "gid_type", ""), "RoCE v2")) {
		fc_finding(doc, j->lvl,
			   "%s: %s port %d has no RoCE v2 GID (best is %s): enable RoCE v2 (cma_roce_mode, or the HCA's settings) and give %s an IPv4 address%s",
			   node, dn, port, fc_jstr(p, "gid_type", "?"), *ifn ? ifn : "its netdev", j->note);
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

/* One port's own checks; adds its summary row to @ports. @left: why the
 * port is not one of the GPU fabric's (NULL: it is): its faults are then
 * warnings, never a drain. */
static void check_port(json_t *doc, const struct pf_node *nd, const json_t *dev,
		       const json_t *p, const struct pf_opts *o, json_t *ports, const char *left)
{
	const char *node = nd->name, *dn = fc_jstr(dev, "name", "?");
	const char *ll = fc_jstr(p, "link_layer", "?"), *ifn = fc_jstr(p, "netdev", "");
	int port = (int)fc_jnum(p, "port", 0), amtu = (int)fc_jnum(p, "active_mtu", 0);
	const json_t *ndv = json_object_get(json_object_get(nd->probe, "netdevs"), ifn);
	int nmtu = (int)fc_jnum(ndv, "mtu", 0);
	double rate = fc_jnum(p, "rate_gbps", 0);
	struct pf_judge j = { .lvl = left ? FC_WARN : FC_FAIL, .left = left };
	/* gid_unknown: a device list from ibstat/ibv_devinfo text (verbs/devtext.c) */
	const char *gid_type = fc_jstr(p, "gid_type", json_is_true(json_object_get(p, "gid_unknown")) ?
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

static void port_id(const json_t *p, char *id, size_t len)
{
	snprintf(id, len, "%s:%d", fc_jstr(p, "device", "?"), (int)fc_jnum(p, "port", 0));
}

/*
 * The rate of the port @id on each node against the same port on the other
 * nodes, by the model `diagnose` uses (diag/expect.c): below the rate most
 * of two or more of them run at is named with its lanes, whether or not the
 * rails left it out (a port trained on fewer lanes is left out as "another
 * rate": that is the fault). Returns how many were named; none: the
 * agreement lists what differs (two nodes cannot outvote each other).
 * @doc NULL: counted only.
 */
static int port_rate_model(json_t *doc, const struct pf_column *c, const char *id)
{
	struct diag_peer_rate *all = calloc((size_t)c->n + 1, sizeof(*all));
	struct diag_peer_rate *peers = calloc((size_t)c->n + 1, sizeof(*peers));
	int *rail_named = calloc((size_t)c->n + 1, sizeof(*rail_named));
	int named = 0;

	for (int i = 0; all && peers && rail_named && i < c->n; i++) {
		size_t q;
		json_t *pp;
		char pid[128];

		json_array_foreach(json_object_get(c->nd[i].sum, "ports"), q, pp) {
			port_id(pp, pid, sizeof(pid));
			if (!strcmp(pid, id) && !strcmp(fc_jstr(pp, "state", ""), "ACTIVE")) {
				all[i] = (struct diag_peer_rate){ c->names[i], fc_jnum(pp, "rate_gbps", 0),
								  (int)fc_jnum(pp, "width", 0) };
				rail_named[i] = json_is_true(json_object_get(pp, "rail_named"));
			}
		}
	}
	for (int i = 0; all && peers && rail_named && i < c->n; i++) {
		struct diag_expect e;
		char now[48];
		int np = 0;

		for (int j = 0; j < c->n; j++)
			if (j != i && all[j].gbps > 0)
				peers[np++] = all[j];
		diag_expect_rate(all[i].gbps, all[i].width, NULL, peers, np, &e);
		if (all[i].gbps <= 0 || e.gbps <= 0 || !e.likely)
			continue;
		named++;
		if (!doc || rail_named[i])
			continue; /* counted only, or the rails named it (one finding per fault) */
		diag_rate_text(all[i].gbps, all[i].width, now, sizeof(now));
		fc_finding(doc, FC_FAIL,
			   "%s: %.*s port %s runs at %s where %s: reseat or replace its cable or transceiver (ethtool -m: a lane's Tx fault), check the switch port's speed",
			   c->names[i], (int)strcspn(id, ":"), id, strchr(id, ':') + 1, now, e.why);
		pf_blame(doc, c->names[i], "port rate", NULL);
	}
	free(all);
	free(peers);
	free(rail_named);
	return named;
}

/* The values of the port @id (DEV:PORT, @p one of its summary rows) agree
 * across the nodes where it is ACTIVE. */
static void port_values(json_t *doc, struct pf_column *c, const json_t *p, const char *id,
			const void *arg)
{
	static const enum pf_value keys[] = { PF_RATE, PF_ACTIVE_MTU, PF_NETDEV_MTU };
	const struct pf_opts *o = arg;

	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		char what[200];

		const struct pf_value_rule *r = &pf_values[keys[k]];

		if ((keys[k] == PF_RATE && o->expect_rate_gbps > 0) ||
		    (keys[k] == PF_NETDEV_MTU && o->expect_mtu > 0))
			continue;
		if (keys[k] == PF_RATE && port_rate_model(NULL, c, id))
			continue; /* named by check_port_rates */
		for (int i = 0; i < c->n; i++) {
			size_t q;
			json_t *pp;

			c->vals[i] = NULL;
			json_array_foreach(json_object_get(c->nd[i].sum, "ports"), q, pp) {
				double v = fc_jnum(pp, r->key, 0);
				char pid[128];

				port_id(pp, pid, sizeof(pid));
				if (strcmp(pid, id) || v <= 0 || strcmp(fc_jstr(pp, "state", ""), "ACTIVE") ||
				    json_object_get(pp, "left_out"))
					continue;
				snprintf(c->text[i], sizeof(c->text[i]), "%g%s", v, r->unit);
				c->vals[i] = c->text[i];
			}
		}
		snprintf(what, sizeof(what), "%s port %s %s", fc_jstr(p, "device", "?"),
			 strchr(id, ':') + 1, r->what);
		pf_agree_on(doc, FC_FAIL, what, r->part, fc_jstr(p, "device", NULL), NULL, c->vals,
			    c->names, c->n, r->fix);
	}
}

static void port_rate(json_t *doc, struct pf_column *c, const json_t *p, const char *id,
		      const void *arg)
{
	(void)p, (void)arg;
	port_rate_model(doc, c, id);
}

/* Each port's rate against the same port on the other nodes (with rails or
 * without: the rails leave a port of another rate out). */
static void check_port_rates(json_t *doc, struct pf_node *nd, int n, const struct pf_opts *o)
{
	if (o->expect_rate_gbps <= 0)
		each_distinct(doc, nd, n, 1, "ports", port_id, port_rate, o);
}

/* Port values compared across nodes, per DEV:PORT. */
static void check_port_agreement(json_t *doc, struct pf_node *nd, int n, const struct pf_opts *o)
{
	each_distinct(doc, nd, n, 1, "ports", port_id, port_values, o);
}

static int module_loaded(const json_t *probe, const char *m)
{
	return json_object_get(json_object_get(probe, "modules"), m) != NULL;
}

/* dma-buf registration of GPU memory: NVIDIA driver 515+ on kernel 5.12+. */
static int dmabuf_usable(const json_t *probe)
{
	int kmaj = 0, kmin = 0;

	if (sscanf(fc_jstr(probe, "kernel", ""), "%d.%d", &kmaj, &kmin) != 2)
		return 0;
	return atoi(fc_jstr(json_object_get(probe, "modules"), "nvidia", "0")) >= 515 &&
	       kmaj * 100 + kmin >= 512;
}

/* GPUDirect RDMA where GPUs exist; the topology's findings. */
static void check_gpu_topo(json_t *doc, const struct pf_node *nd, json_t *skipped)
{
	const json_t *topo = json_object_get(nd->probe, "topo");
	size_t ngpu = json_array_size(json_object_get(topo, "gpus"));
	const char *gdr = "none";
	size_t i;
	json_t *f;

	if (!topo) {
		json_array_append_new(skipped,
				      json_sprintf("%s: topology: %s", nd->name,
						   fc_jstr(nd->probe, "topo_error", "no topo document")));
	} else if (!ngpu && !json_array_size(json_object_get(topo, "nics"))) {
		json_array_append_new(skipped,
				      json_sprintf("%s: PCIe and topology: no PCI GPU or HCA on the node (a software RDMA device has no PCIe link); skipped",
						   nd->name));
	} else {
		int fail = !strcmp(fc_jstr(topo, "verdict", ""), "fail");

		json_array_foreach(json_object_get(topo, "findings"), i, f) {
			const char *t = json_string_value(f);

			if (!t)
				continue;
			fc_finding(doc, fail || strstr(t, "trained at") ? FC_FAIL : FC_WARN, "%s: %s",
				   nd->name, t);
			if (fail || strstr(t, "trained at"))
				pf_blame(doc, nd->name, "topology", NULL);
		}
	}
	json_object_set_new(nd->sum, "gpus", json_integer((json_int_t)ngpu));
	if (!ngpu) {
		json_object_set_new(nd->sum, "gdr", json_string("no GPU"));
		return;
	}
	if (module_loaded(nd->probe, "nvidia_peermem") || module_loaded(nd->probe, "nv_peer_mem") ||
	    json_is_true(json_object_get(topo, "peermem")))
		gdr = "peermem";
	else if (dmabuf_usable(nd->probe))
		gdr = "dma-buf";
	json_object_set_new(nd->sum, "gdr", json_string(gdr));
	if (!strcmp(gdr, "none")) {
		fc_finding(doc, FC_FAIL,
			   "%s: %zu GPU%s but no GPUDirect RDMA path: neither nvidia_peermem is loaded nor dma-buf usable (NVIDIA driver 515+ on kernel 5.12+); run 'modprobe nvidia_peermem'",
			   nd->name, ngpu, fc_s((long long)ngpu));
		pf_blame(doc, nd->name, "no GPUDirect RDMA", NULL);
	}
}

static void check_qos(json_t *doc, const struct pf_node *nd, int tclass, json_t *skipped)
{
	const char *ifn;
	json_t *q;

	json_object_foreach(json_object_get(nd->probe, "qos"), ifn, q) {
		struct qos_dcb dcb;

		if (json_object_get(q, "skip")) {
			json_array_append_new(skipped, json_sprintf("%s: %s trust and PFC: %s", nd->name,
								    ifn, fc_jstr(q, "skip", "?")));
		} else if (json_object_get(q, "error")) {
			json_array_append_new(skipped,
					      json_sprintf("%s: %s trust and PFC: mlnx_qos failed: %s",
							   nd->name, ifn, fc_jstr(q, "error", "?")));
		} else if (qos_parse_mlnx_qos(fc_jstr(q, "text", ""), &dcb)) {
			json_array_append_new(skipped,
					      json_sprintf("%s: %s trust and PFC: mlnx_qos output not understood",
							   nd->name, ifn));
		} else {
			qos_dcb_findings(doc, nd->name, ifn, &dcb, tclass);
		}
	}
}

static void check_node(json_t *doc, struct pf_node *nd, const struct pf_opts *o,
		       json_t *skipped, const json_t *set, int probed)
{
	json_t *ports = json_array(), *d, *p;
	size_t i, j;

	json_object_set_new(nd->sum, "ports", ports);
	if (json_object_get(nd->probe, "devices_error")) {
		fc_finding(doc, FC_FAIL,
			   "%s: %s: load the HCA driver (e.g. modprobe mlx5_ib) or check the HCA is seated",
			   nd->name, fc_jstr(nd->probe, "devices_error", "?"));
		pf_blame(doc, nd->name, "no RDMA device", NULL);
	}
	json_array_foreach(json_object_get(nd->probe, "devices"), i, d)
		json_array_foreach(json_object_get(d, "ports"), j, p)
			check_port(doc, nd, d, p, o, ports,
				   pf_port_left(nd->name, d, p, set, probed, o));
	json_array_foreach(ports, i, p) { /* named by the rails: pf_rails.c rail_set */
		char key[96];

		port_id(p, key, sizeof(key));
		if (json_object_get(json_object_get(json_object_get(set, "named"), nd->name), key))
			json_object_set_new(p, "rail_named", json_true());
	}
	check_gpu_topo(doc, nd, skipped);
	check_qos(doc, nd, o->tclass, skipped);
}

/* The HCAs' firmware state and health reporters (pf_fwstate.c) and the
 * ports' modules (pf_module.c), each node against its own limits and peers. */
static void check_hca_and_modules(json_t *doc, const struct pf_node *nd, int n)
{
	const char **names = calloc((size_t)n + 1, sizeof(*names));
	const json_t **probes = calloc((size_t)n + 1, sizeof(*probes));
	const json_t **sums = calloc((size_t)n + 1, sizeof(*sums));

	for (int i = 0; names && probes && sums && i < n; i++) {
		names[i] = nd[i].name;
		probes[i] = nd[i].probe;
		sums[i] = nd[i].sum;
	}
	if (names && probes && sums) {
		pf_check_fw_state(doc, names, probes, sums, n);
		pf_check_modules(doc, names, probes, sums, n);
	}
	free(names);
	free(probes);
	free(sums);
}

/* The rails of the nodes that could be probed (pf_rails.c). */
static int check_rails(json_t *doc, const struct pf_node *nd, int n, const char *exclude,
		       json_t *set)
{
	const char **names = calloc((size_t)n + 1, sizeof(*names));
	const json_t **probes = calloc((size_t)n + 1, sizeof(*probes));
	int k = 0, rails = 0;

	for (int i = 0; names && probes && i < n; i++)
		if (nd[i].probe) {
			names[k] = nd[i].name;
			probes[k++] = nd[i].probe;
		}
	if (names && probes)
		rails = pf_check_rails(doc, names, probes, k, exclude, set);
	free(names);
	free(probes);
	return rails;
}

int pf_check(json_t *doc, const json_t *nodes, const struct pf_opts *o)
{
	int n = (int)json_array_size(nodes), bad = 0, gpu_nodes = 0;
	struct pf_node *nd = calloc((size_t)n + 1, sizeof(*nd));
	json_t *sums = json_array(), *skipped = json_array(), *set = json_object();
	int probed = 0, rails;

	json_object_set_new(doc, "nodes", sums);
	json_object_set_new(doc, "skipped", skipped);
	if (!nd)
		return -1;
	for (int i = 0; i < n; i++) {
		const json_t *e = json_array_get(nodes, (size_t)i);
		const json_t *probe = json_object_get(e, "probe");

		nd[i].name = fc_jstr(e, "node", "?");
		nd[i].probe = json_is_object(probe) ? probe : NULL;
		nd[i].sum = json_pack("{s:s, s:s}", "node", nd[i].name, "status",
				      nd[i].probe ? "ok" : "unreachable");
		json_array_append_new(sums, nd[i].sum);
		if (!nd[i].probe) {
			bad++;
			fc_finding(doc, FC_FAIL, "%s: could not be probed: %s", nd[i].name,
				   fc_jstr(e, "error", "no answer"));
			continue;
		}
		json_object_set_new(nd[i].sum, "host", json_string(fc_jstr(probe, "host", "?")));
		json_object_set_new(nd[i].sum, "kernel", json_string(fc_jstr(probe, "kernel", "?")));
		json_object_set(nd[i].sum, "rdma_core", json_object_get(probe, "rdma_core"));
		probed++;
	}
	/* The rail set first: only the GPU fabric's ports are judged for a
	 * drain. With two rails or more, ports are compared per rail (matched
	 * by the fabric) rather than per device name. */
	rails = check_rails(doc, nd, n, o->exclude_dev, set);
	for (int i = 0; i < n; i++)
		if (nd[i].probe) {
			check_node(doc, &nd[i], o, skipped, set, probed);
			gpu_nodes += fc_jnum(nd[i].sum, "gpus", 0) > 0;
		}
	json_decref(set);
	check_versions(doc, nd, n);
	check_hca_versions(doc, nd, n);
	check_hca_and_modules(doc, nd, n);
	check_port_rates(doc, nd, n, o);
	if (!rails)
		check_port_agreement(doc, nd, n, o);
	json_object_set_new(doc, "gpu_nodes", json_integer(gpu_nodes));
	free(nd);
	return bad;
}
