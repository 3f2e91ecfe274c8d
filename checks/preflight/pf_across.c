/* Preflight: values compared across the nodes (versions, HCA firmware and
 * driver, each port's rate and values against the same port elsewhere). */
#include "checks/preflight/pf_judge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/out.h"
#include "core/util.h"
#include "diag/diag.h"

/* Node-level values compared across nodes. */
void pf_check_versions(json_t *doc, struct pf_node *nd, int n)
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
void pf_check_hca_versions(json_t *doc, struct pf_node *nd, int n)
{
	each_distinct(doc, nd, n, 0, "hcas", hca_id, hca_versions, NULL);
}

/* The module of the port of summary row @row says surely that the port runs
 * below it (pf_module.c names it). */
static int module_below(const json_t *probe, const json_t *row)
{
	const json_t *net = json_object_get(json_object_get(probe, "netdevs"),
					    fc_jstr(row, "netdev", ""));

	return json_is_true(json_object_get(
		json_object_get(json_object_get(net, "module"), "below"), "likely"));
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
			pf_port_id(pp, pid, sizeof(pid));
			if (!strcmp(pid, id) && !strcmp(fc_jstr(pp, "state", ""), "ACTIVE")) {
				all[i] = (struct diag_peer_rate){ c->names[i], fc_jnum(pp, "rate_gbps", 0),
								  (int)fc_jnum(pp, "width", 0) };
				rail_named[i] = json_is_true(json_object_get(pp, "rail_named")) ||
						module_below(c->nd[i].probe, pp);
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
			continue; /* counted only, or the rails or its module named it (one
				   * finding per fault) */
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
			continue; /* named by pf_check_port_rates */
		for (int i = 0; i < c->n; i++) {
			size_t q;
			json_t *pp;

			c->vals[i] = NULL;
			json_array_foreach(json_object_get(c->nd[i].sum, "ports"), q, pp) {
				double v = fc_jnum(pp, r->key, 0);
				char pid[128];

				pf_port_id(pp, pid, sizeof(pid));
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
void pf_check_port_rates(json_t *doc, struct pf_node *nd, int n, const struct pf_opts *o)
{
	if (o->expect_rate_gbps <= 0)
		each_distinct(doc, nd, n, 1, "ports", pf_port_id, port_rate, o);
}

/* Port values compared across nodes, per DEV:PORT. */
void pf_check_port_agreement(json_t *doc, struct pf_node *nd, int n, const struct pf_opts *o)
{
	each_distinct(doc, nd, n, 1, "ports", pf_port_id, port_values, o);
}

