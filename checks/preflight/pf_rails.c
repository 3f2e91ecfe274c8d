/*
 * Preflight per rail (see preflight.h): the rails matched across the nodes
 * (core/rail.h) from their probes' port lists, the same rate, MTU,
 * firmware and HCA PCIe link speed and width on every node's port of a rail,
 * and each GPU's rail-local HCA.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/preflight/preflight.h"
#include "core/out.h"
#include "core/util.h"
#include "core/rail.h"
#include "topo/pcitopo.h"

#define PF_PORTS_MAX 64

struct pf_rail_in {
	struct fc_rail_port *ports; /* [n][PF_PORTS_MAX] */
	struct fc_rail_node *nodes;
	struct fc_rail_map map;
	const json_t *const *probes;
	int n;
};

/* The probe's device entry of @dev. */
static const json_t *probe_dev(const json_t *probe, const char *dev)
{
	return fc_jnamed(json_object_get(probe, "devices"), dev);
}

static const json_t *probe_port(const json_t *probe, const struct fc_rail_port *p)
{
	size_t i;
	json_t *q;

	json_array_foreach(json_object_get(probe_dev(probe, p->dev), "ports"), i, q)
		if ((int)fc_jnum(q, "port", 0) == p->port)
			return q;
	return NULL;
}

/* Value @key of port @p of @probe into @buf; 0 when the probe has none. */
static int port_value(const json_t *probe, const struct fc_rail_port *p, const json_t *q,
		      const char *key, char *buf, size_t len)
{
	const json_t *pcie = json_object_get(fc_jnamed(json_object_get(probe, "hcas"), p->dev), "pcie");
	double v;

	if (!strcmp(key, "fw_ver")) {
		snprintf(buf, len, "%s", fc_jstr(probe_dev(probe, p->dev), "fw_ver", ""));
		return buf[0] != 0;
	}
	if (!strcmp(key, "pcie_gts") || !strcmp(key, "pcie_width")) {
		v = fc_jnum(pcie, key + 5, 0); /* the HCA's current link, diag/live.c */
		if (v > 0)
			snprintf(buf, len, key[5] == 'g' ? "%g GT/s" : "x%g", v);
		return v > 0;
	}
	if (!strcmp(key, "netdev_mtu"))
		v = fc_jnum(json_object_get(json_object_get(probe, "netdevs"), p->netdev), "mtu", 0);
	else
		v = fc_jnum(q, key, 0);
	if (v > 0)
		snprintf(buf, len, "%g%s", v, !strcmp(key, "rate_gbps") ? " Gb/s" : " B");
	return v > 0;
}

/* One value of every node's port on rail @r into @vals (NULL: none). */
static void rail_values(const struct pf_rail_in *x, int r, const char *key, char (*buf)[64],
			const char **vals)
{
	for (int i = 0; i < x->n; i++) {
		const struct fc_rail_port *p = fc_rail_port_of(&x->map, x->nodes, i, r);
		const json_t *q = p ? probe_port(x->probes[i], p) : NULL;

		/* a rail port the rails named below their rate: that finding is the
		 * one for its rate (one finding per fault) */
		if (p && !strcmp(key, "rate_gbps") && fc_rail_port_named(&x->map, i, p->dev, p->port))
			q = NULL;
		vals[i] = q && port_value(x->probes[i], p, q, key, buf[i], sizeof(buf[i])) ? buf[i]
										      : NULL;
	}
}

static void check_rail_agreement(json_t *doc, const struct pf_rail_in *x, const char **names)
{
	static const struct {
		const char *key, *what, *fix, *of;
	} keys[] = {
		{ "rate_gbps", "rate", "reseat or replace that port's cable or transceiver; check its switch port's speed", "port" },
		{ "active_mtu", "active MTU", "set one MTU on every port of the rail (netdev MTU 9000 for RoCE) and on its switch", "port" },
		{ "netdev_mtu", "netdev MTU", "set one MTU on every port of the rail (ip link set DEV mtu 9000) and on its switch", "port" },
		{ "fw_ver", "firmware", "flash the same firmware on every HCA of the rail", "port" },
		{ "pcie_gts", "PCIe link speed", "reseat the HCA or check its slot and the BIOS's PCIe settings (lspci -vv: LnkSta against LnkCap)", "HCA" },
		{ "pcie_width", "PCIe link width", "reseat the HCA or check its slot and the BIOS's PCIe settings (lspci -vv: LnkSta against LnkCap)", "HCA" },
	};
	const char **vals = calloc((size_t)x->n + 1, sizeof(*vals));
	char (*buf)[64] = calloc((size_t)x->n + 1, sizeof(*buf));
	const char **devs = calloc((size_t)x->n + 1, sizeof(*devs));

	for (int r = 0; vals && buf && r < x->map.nrails; r++)
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			char what[160];

			rail_values(x, r, keys[k].key, buf, vals);
			snprintf(what, sizeof(what), "the %s of its %s on rail %d (%s)", keys[k].what, keys[k].of,
				 x->map.rails[r].index, x->map.rails[r].name);
			/* Each node's own device on the rail, for its drain. */
			for (int i = 0; devs && i < x->n; i++) {
				const struct fc_rail_port *p = fc_rail_port_of(&x->map, x->nodes, i, r);

				devs[i] = p ? p->dev : NULL;
			}
			pf_agree_on(doc, FC_FAIL, what, keys[k].what, NULL, devs, vals, names, x->n,
				    keys[k].fix);
		}
	free(vals);
	free(buf);
	free(devs);
}

/*
 * Node @i's rail HCAs against each other: the same PCIe link speed and width
 * on every rail (where most agree, the odd rail named). Run where fewer than
 * three nodes are checked: two nodes cannot outvote each other, so the
 * comparison across nodes lists both values; a node's other rails can.
 */
static void check_node_pcie(json_t *doc, const struct pf_rail_in *x, int i, const char *node)
{
	static const char *const keys[] = { "pcie_gts", "pcie_width" };
	const char **vals = calloc((size_t)x->map.nrails + 1, sizeof(*vals));
	char (*buf)[64] = calloc((size_t)x->map.nrails + 1, sizeof(*buf));

	for (size_t k = 0; vals && buf && k < sizeof(keys) / sizeof(keys[0]); k++) {
		int m;

		for (int r = 0; r < x->map.nrails; r++) {
			const struct fc_rail_port *p = fc_rail_port_of(&x->map, x->nodes, i, r);

			vals[r] = p && port_value(x->probes[i], p, probe_port(x->probes[i], p), keys[k],
						  buf[r], sizeof(buf[r])) ? buf[r] : NULL;
		}
		m = fc_majority(vals, x->map.nrails);
		for (int r = 0; m >= 0 && r < x->map.nrails; r++)
			if (vals[r] && strcmp(vals[r], vals[m]))
				fc_finding(doc, FC_FAIL,
					   "%s: the PCIe link %s of its HCA %s on rail %d is %s where its "
					   "other rails' HCAs have %s: reseat that HCA or check its slot "
					   "and the BIOS's PCIe settings (lspci -vv: LnkSta against LnkCap)",
					   node, k ? "width" : "speed",
					   fc_rail_port_of(&x->map, x->nodes, i, r)->dev,
					   x->map.rails[r].index, vals[r], vals[m]);
	}
	free(vals);
	free(buf);
}

/* A PCIe distance's rank (PIX best); TOPO_UNKNOWN when not one. */
static int dist_rank(const char *d)
{
	enum topo_dist t;

	return d && !topo_dist_parse(d, &t) ? (int)t : (int)TOPO_UNKNOWN;
}

/* The topology label ("NIC3") of HCA @dev. */
static const char *nic_label(const json_t *topo, const char *dev)
{
	return fc_jstr(fc_jnamed(json_object_get(topo, "nics"), dev), "label", NULL);
}

/* Each GPU's nearest rail HCA: PIX or PXB, and one of its own where the
 * node has as many rail HCAs as GPUs. */
static void check_gpu_rails(json_t *doc, const struct pf_rail_in *x, int i, const char *node)
{
	const json_t *topo = json_object_get(x->probes[i], "topo"), *g;
	size_t ngpu = json_array_size(json_object_get(topo, "gpus")), k;
	int nhca = 0, *best = calloc(ngpu + 1, sizeof(*best));

	for (int r = 0; r < x->map.nrails; r++)
		nhca += fc_rail_port_of(&x->map, x->nodes, i, r) != NULL;
	json_array_foreach(json_object_get(topo, "gpus"), k, g) {
		const char *gname = fc_jstr(g, "name", "?");
		const json_t *row = json_object_get(json_object_get(topo, "matrix"), gname);
		int rank = TOPO_UNKNOWN + 1;
		const char *dist = "?";

		best[k] = -1;
		for (int r = 0; best && r < x->map.nrails; r++) {
			const struct fc_rail_port *p = fc_rail_port_of(&x->map, x->nodes, i, r);
			const char *lbl = p ? nic_label(topo, p->dev) : NULL;
			const char *d = lbl ? fc_jstr(row, lbl, NULL) : NULL;

			if (d && dist_rank(d) < TOPO_UNKNOWN && dist_rank(d) < rank) {
				rank = dist_rank(d);
				dist = d;
				best[k] = r;
			}
		}
		if (!best || best[k] < 0)
			continue; /* no distance known: the topology's own findings say why */
		if (rank > TOPO_PXB)
			fc_finding(doc, FC_FAIL,
				   "%s: %s has no rail-local HCA: its nearest rail HCA, %s (rail %d), is %s, "
				   "not PIX or PXB: its traffic crosses the CPU; seat the GPU and its HCA "
				   "under one PCIe switch, or check the BIOS's PCIe settings",
				   node, gname, x->map.rails[best[k]].name,
				   x->map.rails[best[k]].index, dist);
		for (size_t j = 0; nhca >= (int)ngpu && j < k; j++)
			if (best[j] == best[k])
				fc_finding(doc, FC_FAIL,
					   "%s: %s and %s share their nearest HCA %s (rail %d) although the "
					   "node has %d rail HCAs for %zu GPUs: one of them has no HCA of "
					   "its own; check how the HCAs are seated",
					   node, fc_jstr(json_array_get(json_object_get(topo, "gpus"), j),
							 "name", "?"),
					   gname, x->map.rails[best[k]].name, x->map.rails[best[k]].index,
					   nhca, ngpu);
	}
	free(best);
}

/* Where @p is, as the plan prints it: device, port, net device and what
 * its rail was matched by on it. */
static json_t *port_json(const struct fc_rail_port *p)
{
	return json_pack("{s:s, s:i, s:s?, s:s?, s:s?, s:s?}", "device", p->dev, "port", p->port,
			 "netdev", p->netdev[0] ? p->netdev : NULL, "subnet",
			 p->subnet[0] ? p->subnet : NULL, "switch", p->peer[0] ? p->peer : NULL,
			 "lldp", p->lldp[0] ? p->lldp : NULL);
}

/* The rails; @detail: each node's port whole ("ports"), for the plan. */
static json_t *rails_json(const struct pf_rail_in *x, int detail)
{
	json_t *list = json_array();

	for (int r = 0; r < x->map.nrails; r++) {
		json_t *ports = json_object(), *where = json_object();

		for (int i = 0; i < x->n; i++) {
			const struct fc_rail_port *p = fc_rail_port_of(&x->map, x->nodes, i, r);

			json_object_set_new(ports, x->nodes[i].name,
					    p ? json_string(p->dev) : json_null());
			json_object_set_new(where, x->nodes[i].name, p ? port_json(p) : json_null());
		}
		json_array_append_new(list, json_pack("{s:i, s:s, s:s, s:s?, s:s?, s:s?, s:s, s:o}",
						      "rail", x->map.rails[r].index, "name",
						      x->map.rails[r].name, "subnet",
						      x->map.rails[r].subnet, "switch",
						      x->map.rails[r].peer[0] ? x->map.rails[r].peer
									      : NULL, "switch_desc",
						      x->map.rails[r].peer_desc[0] ?
						      x->map.rails[r].peer_desc : NULL,
						      "leaf",
						      x->map.rails[r].leaf[0] ? x->map.rails[r].leaf
									      : NULL,
						      "matched_by", fc_rail_by_name(x->map.by),
						      "devices", ports));
		fc_rail_add_leaves(json_array_get(list, json_array_size(list) - 1),
				   &x->map.rails[r]);
		if (detail)
			json_object_set_new(json_array_get(list, json_array_size(list) - 1),
					    "ports", where);
		else
			json_decref(where);
	}
	return list;
}

/* The rail notes (ports left out, how rails were matched) into "notes". */
static void rail_notes(json_t *doc, const struct fc_rail_map *map)
{
	json_t *notes = json_object_get(doc, "notes");

	for (int i = 0; i < map->nfindings; i++) {
		if (map->findings[i].sev != FC_RAIL_NOTE)
			continue;
		if (!notes) {
			notes = json_array();
			json_object_set_new(doc, "notes", notes);
		}
		json_array_append_new(notes, json_string(map->findings[i].text));
	}
}

/* The rail set into @set: {"ports": {NODE: {"DEV:PORT": true}}, "names":
 * [the rails' names], "named": the ports the rails named, "rail_of":
 * {NODE: {"DEV:PORT": rail index}}, "matched_by": how (fc_rail_by_name)}. */
static void rail_set(const struct pf_rail_in *x, json_t *set)
{
	json_t *ports = json_object(), *rn = json_array(), *named = json_object();
	json_t *rail_of = json_object();

	for (int i = 0; i < x->n; i++) {
		json_t *mine = json_object(), *nm = json_object(), *ro = json_object();

		for (int r = 0; r < x->map.nrails; r++) {
			const struct fc_rail_port *p = fc_rail_port_of(&x->map, x->nodes, i, r);
			char key[96];

			if (!p)
				continue;
			snprintf(key, sizeof(key), "%s:%d", p->dev, p->port);
			json_object_set_new(mine, key, json_true());
			json_object_set_new(ro, key, json_integer(r));
			if (fc_rail_port_named(&x->map, i, p->dev, p->port))
				json_object_set_new(nm, key, json_true());
		}
		json_object_set_new(ports, x->nodes[i].name, mine);
		json_object_set_new(named, x->nodes[i].name, nm);
		json_object_set_new(rail_of, x->nodes[i].name, ro);
	}
	json_object_set_new(set, "named", named);
	json_object_set_new(set, "rail_of", rail_of);
	json_object_set_new(set, "matched_by", json_string(fc_rail_by_name(x->map.by)));
	for (int r = 0; r < x->map.nrails; r++)
		json_array_append_new(rn, json_string(x->map.rails[r].name));
	json_object_set_new(set, "ports", ports);
	json_object_set_new(set, "names", rn);
}

/* The nodes' ports read from their probes and matched into rails (the one
 * matching, core/rail.h) into @x; 0, or -1 (released by rails_end). */
static int rails_begin(struct pf_rail_in *x, json_t *doc, const char *const *names,
		       const json_t *const *probes, int n, const char *exclude)
{
	const char *excl[PF_PORTS_MAX];
	struct fc_rail_opts o = { .exclude = excl };
	char ebuf[512];

	memset(x, 0, sizeof(*x));
	x->probes = probes;
	x->n = n;
	snprintf(ebuf, sizeof(ebuf), "%s", exclude ? exclude : "");
	if (exclude && (o.nexclude = fc_rail_split_list(ebuf, excl, PF_PORTS_MAX)) < 0) {
		fc_finding(doc, FC_WARN, "--exclude-dev '%s' is not a comma-separated list of "
			   "devices: nothing left out by it", exclude);
		o.nexclude = 0;
	}

	x->ports = calloc((size_t)n * PF_PORTS_MAX + 1, sizeof(*x->ports));
	x->nodes = calloc((size_t)n + 1, sizeof(*x->nodes));
	if (!x->ports || !x->nodes)
		return -1;
	for (int i = 0; i < n; i++) {
		int cnt = probes[i] ? fc_rail_ports_from_json(json_object_get(probes[i], "devices"),
							     x->ports + i * PF_PORTS_MAX,
							     PF_PORTS_MAX) : 0;

		x->nodes[i] = (struct fc_rail_node){ .name = names[i],
						     .ports = x->ports + i * PF_PORTS_MAX,
						     .nports = cnt < 0 ? 0 : cnt };
	}
	return fc_rail_match(x->nodes, n, &o, &x->map) ? -1 : 0;
}

static void rails_end(struct pf_rail_in *x)
{
	fc_rail_map_release(&x->map);
	free(x->ports);
	free(x->nodes);
}

/* The map's findings other than notes, as the document's. */
static void rail_findings(json_t *doc, const struct fc_rail_map *map)
{
	for (int i = 0; i < map->nfindings; i++)
		if (map->findings[i].sev != FC_RAIL_NOTE)
			fc_finding(doc, map->findings[i].sev == FC_RAIL_FAIL ? FC_FAIL : FC_WARN, "%s",
				   map->findings[i].text);
}

/* No port to match: why each node that has none has none (the probe's
 * devices_error, as 'fabcheck devices' said it), into "notes". */
static void no_port_notes(json_t *doc, const struct pf_rail_in *x)
{
	json_t *notes = json_object_get(doc, "notes");

	for (int i = 0; notes && i < x->n; i++) {
		const json_t *pr = x->probes[i];

		if (x->nodes[i].nports > 0)
			continue;
		if (json_is_string(json_object_get(pr, "devices_error")))
			json_array_append_new(notes, json_sprintf("%s: no RDMA port read: %s", x->nodes[i].name,
								  fc_jstr(pr, "devices_error", "")));
		else
			json_array_append_new(notes, json_sprintf("%s: no RDMA port (its device list is empty)",
								  x->nodes[i].name));
	}
}

json_t *pf_rail_plan(json_t *doc, const char *const *names, const json_t *const *probes, int n,
		     const char *exclude)
{
	struct pf_rail_in x;

	if (rails_begin(&x, doc, names, probes, n, exclude)) {
		if (x.map.err[0])
			fc_finding(doc, FC_FAIL, "%s", x.map.err);
		rails_end(&x);
		return NULL;
	}
	json_object_set_new(doc, "matched_by", json_string(fc_rail_by_name(x.map.by)));
	if (x.map.assumed[0])
		json_object_set_new(doc, "assumed", json_string(x.map.assumed));
	json_object_set_new(doc, "rails", rails_json(&x, 1));
	rail_notes(doc, &x.map);
	if (x.map.by == FC_RAIL_BY_NONE)
		no_port_notes(doc, &x);
	rail_findings(doc, &x.map);
	rails_end(&x);
	return doc;
}

int pf_check_rails(json_t *doc, const char *const *names, const json_t *const *probes, int n,
		   const char *exclude, json_t *set)
{
	struct pf_rail_in x;
	int rails = 0;

	if (rails_begin(&x, doc, names, probes, n, exclude))
		goto out_free;
	if (set)
		rail_set(&x, set);
	rail_notes(doc, &x.map);
	if (x.map.nrails < 2)
		goto out_free;
	rails = x.map.nrails;
	json_object_set_new(doc, "rails", rails_json(&x, 0));
	rail_findings(doc, &x.map);
	check_rail_agreement(doc, &x, (const char **)names);
	for (int i = 0; i < n; i++)
		if (probes[i]) {
			check_gpu_rails(doc, &x, i, names[i]);
			if (n < 3)
				check_node_pcie(doc, &x, i, names[i]);
		}
out_free:
	rails_end(&x);
	return rails;
}
