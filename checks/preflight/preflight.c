/* Preflight: judging the probe documents of a rack (see preflight.h): the
 * run over the nodes and the agreement helpers; the checks are in pf_port.c,
 * pf_across.c and pf_node.c (pf_judge.h). */
#include "checks/preflight/preflight.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/preflight/pf_judge.h"
#include "core/out.h"
#include "core/util.h"

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
			pf_check_port(doc, nd, d, p, o, ports,
				      pf_port_left(nd->name, d, p, set, probed, o));
	json_array_foreach(ports, i, p) { /* named by the rails: pf_rails.c rail_set */
		char key[96];

		pf_port_id(p, key, sizeof(key));
		if (json_object_get(json_object_get(json_object_get(set, "named"), nd->name), key))
			json_object_set_new(p, "rail_named", json_true());
	}
	pf_check_gpu_topo(doc, nd, skipped);
	pf_check_qos(doc, nd, o->tclass, skipped);
}

/* The HCAs' firmware state and health reporters (pf_fwstate.c) and the
 * ports' modules (pf_module.c), each node against its own limits and peers. */
static void check_hca_and_modules(json_t *doc, const struct pf_node *nd, int n, const json_t *set)
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
		pf_check_fw_state(doc, names, probes, sums, n, set);
		pf_check_modules(doc, names, probes, sums, n, set);
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
	pf_check_versions(doc, nd, n);
	pf_check_hca_versions(doc, nd, n);
	check_hca_and_modules(doc, nd, n, set);
	json_decref(set);
	pf_check_port_rates(doc, nd, n, o);
	if (!rails)
		pf_check_port_agreement(doc, nd, n, o);
	json_object_set_new(doc, "gpu_nodes", json_integer(gpu_nodes));
	free(nd);
	return bad;
}
