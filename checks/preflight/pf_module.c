/*
 * Preflight: each fabric port's module, from the probe's "module" of the
 * netdev (pf_probe.c probe_module: `ethtool -m`, live or from a capture).
 *
 * On the node: what the module says of itself against its own thresholds
 * (diag/modlimits.c diag_module_verdict: its flags that are On, its
 * temperature and supply, each lane's transmit power, bias and receive
 * power against the alarm and warning thresholds it publishes, SFF-8636
 * page 03h / CMIS page 02h). An alarm fails a rail port (its transceiver is
 * blamed, so a drain names it); a warning, or any finding of a port off the
 * rails, warns.
 * Across the nodes: the module's temperature, supply voltage and each
 * lane's transmit power and bias against the same port (device and port)
 * on two or more other nodes, in units of its own warning window
 * (diag/modpeers.c diag_module_peer, where the rule and its sources are):
 * a warning naming the reading, its peers and its threshold.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/preflight/preflight.h"
#include "core/out.h"
#include "diag/diag.h"

static void own(json_t *doc, const char *node, const char *nd, const json_t *mod, int rail)
{
	const json_t *o = json_object_get(mod, "own");
	const char *dev = fc_jstr(mod, "device", "?");
	int alarm = fc_jnum(o, "level", -1) > 0;

	if (!o)
		return;
	fc_finding(doc, alarm && rail ? FC_FAIL : FC_WARN,
		   "%s: %s port %d (%s) module: %s (ethtool -m %s): check the airflow and seating of the module, then swap it with a known-good transceiver and re-run%s",
		   node, dev, (int)fc_jnum(mod, "port", 0), nd, fc_jstr(o, "why", "?"), nd,
		   alarm && !rail ? " (not a rail port: not judged for a drain)" : "");
	if (alarm && rail)
		pf_blame(doc, node, "transceiver", dev);
}

/* The modules of the same port as @mod on the nodes but @i into @peers. */
static int same_port(const json_t *const *probes, int n, int i, const json_t *mod,
		     const json_t **peers)
{
	int k = 0;

	for (int j = 0; j < n; j++) {
		const json_t *net, *m;
		const char *nd;

		if (j == i || !probes[j])
			continue;
		json_object_foreach(json_object_get(probes[j], "netdevs"), nd, net) {
			m = json_object_get(net, "module");
			if (json_object_get(m, "readings") &&
			    !strcmp(fc_jstr(m, "device", ""), fc_jstr(mod, "device", "?")) &&
			    fc_jnum(m, "port", 0) == fc_jnum(mod, "port", -1)) {
				peers[k++] = m;
				break;
			}
		}
	}
	return k;
}

static void against_peers(json_t *doc, const char *const *names, const json_t *const *probes,
			  int n, int i, const char *nd, const json_t *mod)
{
	const json_t **peers = calloc((size_t)n + 1, sizeof(*peers));
	char why[2048], next[400];
	const char *part;
	int k = peers ? same_port(probes, n, i, mod, peers) : 0;

	if (k >= 2 && diag_module_peer(mod, peers, k, why, sizeof(why), &part)) {
		diag_module_peer_next(nd, next, sizeof(next));
		fc_finding(doc, FC_WARN, "%s: %s port %d (%s) module, %s: %s (ethtool -m): %s",
			   names[i], fc_jstr(mod, "device", "?"), (int)fc_jnum(mod, "port", 0), nd,
			   part, why, next);
	}
	free(peers);
}

void pf_check_modules(json_t *doc, const char *const *names, const json_t *const *probes,
		      const json_t *const *sums, int n)
{
	for (int i = 0; i < n; i++) {
		const json_t *net, *mod;
		const char *nd;

		json_object_foreach(probes[i] ? json_object_get(probes[i], "netdevs") : NULL, nd, net) {
			mod = json_object_get(net, "module");
			if (!json_object_get(mod, "readings"))
				continue;
			own(doc, names[i], nd, mod, pf_hca_on_rail(sums[i], fc_jstr(mod, "device", "")));
			against_peers(doc, names, probes, n, i, nd, mod);
		}
	}
}
