/*
 * Preflight: each fabric port's module, from the probe's "module" of the
 * netdev (pf_probe.c probe_module: `ethtool -m`, live or from a capture).
 *
 * On the node (pf_module_facts, at the probe; judged here):
 *   "own": what the module says of itself against its own thresholds
 *     (diag/modlimits.c diag_module_verdict: its flags that are On, its
 *     temperature and supply, each lane's transmit power, bias and receive
 *     power against the alarm and warning thresholds it publishes,
 *     SFF-8636 page 03h / CMIS page 02h). An alarm fails a rail port (its
 *     transceiver is blamed, so a drain names it); a warning, or any
 *     finding of a port off the rails, warns.
 *   "below": the port trained on fewer lanes than its module is set for
 *     (diag/expect.c diag_expect_rate: the active application's lanes, or
 *     the lanes with light plus those with a transmitter fault), or below
 *     the fastest mode its HCA, its link partner and its module support
 *     (diag/linkmodes.c diag_expect_link, from `ethtool IF`); with no
 *     link modes read, below what the module is built for (SFF-8636 "BR,
 *     Nominal" x its lanes): possible. Sure (a transmitter fault, the
 *     application, or modes both ends advertise): a failure that blames
 *     the transceiver on a fault, else the part the link modes name; else
 *     a warning.
 *   "lanes": a lane apart from the module's other lanes, inside its
 *     warning window (diag/modlanes.c diag_module_lanes): a warning, unless
 *     the comparison with the other nodes below named the module.
 *   "flags": a lane's Tx fault, loss of signal or of lock, named at the
 *     end that transmits (diag/modlanes.c diag_module_signals): latched
 *     flags, a warning.
 * Across the nodes: the module's temperature, supply voltage and each
 * lane's transmit power and bias against the same port on two or more
 * other nodes, in units of its own warning window (diag/modpeers.c
 * diag_module_peer), and each lane's receive power against theirs (more
 * than DIAG_RX_PEER_DB below their median, diag_rx_peer): warnings. The
 * same port is the port on the same rail where the rails placed both
 * (device names differ between server models), else the same device and
 * port.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/preflight/preflight.h"
#include "core/out.h"
#include "diag/diag.h"

/* The port at @gbps below what module @m is built to carry, with nothing
 * read of what the HCA and the link partner support: "possible", the
 * port's or the switch port's speed setting may hold it lower. */
static void module_speed(const struct diag_module *m, double gbps, struct diag_expect *e)
{
	int lanes;
	long mod = diag_module_mbps(m, &lanes);

	if (mod <= 0 || gbps <= 0 || mod <= (long)(gbps * 1000 + 0.5))
		return;
	e->gbps = mod / 1000.0;
	e->width = lanes;
	snprintf(e->why, sizeof(e->why),
		 "its module is built for %g Gb/s (ethtool -m 'BR, Nominal' %.0f MBd x %d lanes); what the HCA and its link partner support was not read (ethtool's link modes), so the port's or the switch port's speed setting may hold it lower",
		 mod / 1000.0, m->br_mbd, lanes);
	snprintf(e->part, sizeof(e->part), "configuration or link partner (speed setting)");
}

void pf_module_facts(json_t *o, const struct diag_module *m, const json_t *p,
		     const struct diag_link *link)
{
	double gbps = fc_jnum(p, "rate_gbps", 0);
	char why[1024], part[96];
	struct diag_expect e;
	int lvl = diag_module_verdict(m, why, sizeof(why));

	if (*why)
		json_object_set_new(o, "own", json_pack("{s:i, s:s}", "level", lvl, "why", why));
	/* the model diagnose uses (diag/expect.c, diag/linkmodes.c): the lanes
	 * the module is set for, then what both ends and the module support */
	diag_expect_rate(gbps, atoi(fc_jstr(p, "width", "0")), m, NULL, 0, &e);
	diag_expect_link(gbps, link, m, &e);
	if (e.gbps <= 0 && !link)
		module_speed(m, gbps, &e);
	if (e.gbps > 0)
		json_object_set_new(o, "below",
				    json_pack("{s:f, s:i, s:b, s:b, s:s, s:s}", "gbps", e.gbps, "width",
					      e.width, "likely", e.likely, "fault", e.fault != 0, "why",
					      e.why, "part", e.part));
	if (diag_module_lanes(m, 0, why, sizeof(why), part, sizeof(part)))
		json_object_set_new(o, "lanes", json_pack("{s:s, s:s}", "why", why, "part", part));
	/* a fault that left the port below is said there */
	if (diag_module_signals(m, e.gbps <= 0, why, sizeof(why), part, sizeof(part)))
		json_object_set_new(o, "flags", json_pack("{s:s, s:s}", "why", why, "part", part));
}

/* One module of one node, as the judgment sees it. */
struct pf_mod {
	const char *node, *netdev;
	const json_t *mod;
	int rail; /* on the GPU fabric: its faults can drain */
};

/* A finding "NODE: DEV port N (IF) TEXT" on @x at @lvl. */
static void mod_finding(json_t *doc, const struct pf_mod *x, enum fc_verdict lvl, const char *text)
{
	fc_finding(doc, lvl, "%s: %s port %d (%s) %s", x->node, fc_jstr(x->mod, "device", "?"),
		   (int)fc_jnum(x->mod, "port", 0), x->netdev, text);
}

static void own(json_t *doc, const struct pf_mod *x)
{
	const json_t *o = json_object_get(x->mod, "own");
	int alarm = fc_jnum(o, "level", -1) > 0;
	char text[1536];

	if (!o)
		return;
	snprintf(text, sizeof(text),
		 "module: %s (ethtool -m %s): check the airflow and seating of the module, then swap it with a known-good transceiver and re-run%s",
		 fc_jstr(o, "why", "?"), x->netdev,
		 alarm && !x->rail ? " (not a rail port: not judged for a drain)" : "");
	mod_finding(doc, x, alarm && x->rail ? FC_FAIL : FC_WARN, text);
	if (alarm && x->rail)
		pf_blame(doc, x->node, "transceiver", fc_jstr(x->mod, "device", NULL));
}

/* The port runs below what its module (and, where read, its HCA and link
 * partner) support: sure (a transmitter fault, the module's application,
 * or link modes both ends advertise), a failure whether or not the rails
 * took the port (a port trained on fewer lanes is left out of them as
 * "another rate": that is the fault), as the same port below its peers is
 * (pf_across.c port_rate_model); else a warning. */
static void below(json_t *doc, const struct pf_mod *x, const json_t *port)
{
	const json_t *b = json_object_get(x->mod, "below");
	int sure = json_is_true(json_object_get(b, "likely"));
	int fault = json_is_true(json_object_get(b, "fault"));
	const char *part = fc_jstr(b, "part", "");
	char now[48], want[48], text[1536];

	if (!b || !port)
		return;
	diag_rate_text(fc_jnum(port, "rate_gbps", 0), (int)fc_jnum(port, "width", 0), now,
		       sizeof(now));
	diag_rate_text(fc_jnum(b, "gbps", 0), (int)fc_jnum(b, "width", 0), want, sizeof(want));
	if (fault || !*part)
		snprintf(text, sizeof(text),
			 "runs at %s where it should run at %s: %s: reseat the module, read 'ethtool -m %s' again, then replace the transceiver (a lane's Tx fault is its transmitter) and check the switch port's speed",
			 now, want, fc_jstr(b, "why", "?"), x->netdev);
	else
		snprintf(text, sizeof(text),
			 "runs at %s where it should run at %s: %s: compare 'ethtool %s' (Speed, advertised and link partner modes) with the same port on a good node and the switch port's speed setting, then reseat and swap the cable or transceiver",
			 now, want, fc_jstr(b, "why", "?"), x->netdev);
	mod_finding(doc, x, sure ? FC_FAIL : FC_WARN, text);
	if (sure)
		pf_blame(doc, x->node, fault ? "transceiver" : *part ? part : "port rate",
			 fc_jstr(x->mod, "device", NULL));
}

/* A lane apart from its siblings (unless @peered: the same port on the
 * other nodes named the module, the stronger comparison of the same
 * readings), and the lane flags. */
static void lanes(json_t *doc, const struct pf_mod *x, int peered)
{
	const json_t *l = peered ? NULL : json_object_get(x->mod, "lanes");
	const json_t *f = json_object_get(x->mod, "flags");
	char next[400], text[1536], cmd[64];

	if (l) {
		diag_module_lanes_next(diag_module_cmd(x->netdev, NULL, NULL, 0, cmd, sizeof(cmd)),
				       next, sizeof(next));
		snprintf(text, sizeof(text), "module, %s: %s (ethtool -m): %s", fc_jstr(l, "part", "?"),
			 fc_jstr(l, "why", "?"), next);
		mod_finding(doc, x, FC_WARN, text);
	}
	if (f) {
		diag_module_signals_next(diag_module_cmd(x->netdev, NULL, NULL, 0, cmd, sizeof(cmd)),
					 next, sizeof(next));
		snprintf(text, sizeof(text), "module flags %s (ethtool -m %s; latched until read): %s",
			 fc_jstr(f, "why", "?"), x->netdev, next);
		mod_finding(doc, x, FC_WARN, text);
	}
}

/* The rail of port DEV:PORT of @mod on @node in the rail set, or -1. */
static int rail_of(const json_t *set, const char *node, const json_t *mod)
{
	return diag_rail_of(set, node, fc_jstr(mod, "device", "?"), (int)fc_jnum(mod, "port", 0));
}

/* The modules of the same port as @mod (of node @i) on the other nodes,
 * with @key read, into @peers: by rail where the rail set places it and
 * the peer's port, else by device and port. */
static int same_port(const char *const *names, const json_t *const *probes, int n, int i,
		     const json_t *mod, const json_t *set, const char *key, const json_t **peers)
{
	int k = 0, rail = rail_of(set, names[i], mod);

	for (int j = 0; j < n; j++) {
		const json_t *net, *m;
		const char *nd;

		if (j == i || !probes[j])
			continue;
		json_object_foreach(json_object_get(probes[j], "netdevs"), nd, net) {
			int r;

			m = json_object_get(net, "module");
			if (!json_object_get(m, key))
				continue;
			r = rail_of(set, names[j], m);
			if (rail >= 0 && r >= 0 ? r == rail :
			    !strcmp(fc_jstr(m, "device", ""), fc_jstr(mod, "device", "?")) &&
				    fc_jnum(m, "port", 0) == fc_jnum(mod, "port", -1)) {
				peers[k++] = m;
				break;
			}
		}
	}
	return k;
}

static int against_peers(json_t *doc, const char *const *names, const json_t *const *probes,
			 int n, int i, const struct pf_mod *x, const json_t *set)
{
	const json_t **peers = calloc((size_t)n + 1, sizeof(*peers));
	char why[2048], next[400], lanes_at[64], text[3072], cmd[64];
	const char *part;
	int k, named = 0;

	if (!peers)
		return 0;
	k = same_port(names, probes, n, i, x->mod, set, "readings", peers);
	if (k >= 2 && diag_module_peer(x->mod, peers, k, why, sizeof(why), &part)) {
		named++;
		diag_module_peer_next(diag_module_cmd(x->netdev, NULL, NULL, 0, cmd, sizeof(cmd)),
				      next, sizeof(next));
		snprintf(text, sizeof(text), "module, %s: %s (ethtool -m): %s", part, why, next);
		mod_finding(doc, x, FC_WARN, text);
	}
	k = same_port(names, probes, n, i, x->mod, set, "lanes_rx_dbm", peers);
	if ((k = diag_rx_peer(x->mod, peers, k, why, sizeof(why), lanes_at, sizeof(lanes_at)))) {
		diag_rx_peer_next(lanes_at, k, next, sizeof(next));
		snprintf(text, sizeof(text),
			 "module, far end's transmitter or fibre (lane%s %s): %s: more than the %.0f dB a compliant channel loses (ethtool -m): %s",
			 k > 1 ? "s" : "", lanes_at, why, DIAG_RX_PEER_DB, next);
		mod_finding(doc, x, FC_WARN, text);
		named++;
	}
	free(peers);
	return named;
}

/* The port row of @mod's port in node summary @sum, or NULL. */
static const json_t *port_row(const json_t *sum, const json_t *mod)
{
	const json_t *r;
	size_t i;

	json_array_foreach(json_object_get(sum, "ports"), i, r)
		if (!strcmp(fc_jstr(r, "device", ""), fc_jstr(mod, "device", "?")) &&
		    fc_jnum(r, "port", 0) == fc_jnum(mod, "port", -1))
			return r;
	return NULL;
}

void pf_check_modules(json_t *doc, const char *const *names, const json_t *const *probes,
		      const json_t *const *sums, int n, const json_t *set)
{
	for (int i = 0; i < n; i++) {
		const json_t *net, *mod;
		const char *nd;

		json_object_foreach(probes[i] ? json_object_get(probes[i], "netdevs") : NULL, nd, net) {
			struct pf_mod x = { names[i], nd, NULL, 0 };

			mod = json_object_get(net, "module");
			x.mod = mod;
			x.rail = pf_hca_on_rail(sums[i], fc_jstr(mod, "device", ""));
			if (json_object_get(mod, "skip"))
				json_array_append_new(json_object_get(doc, "skipped"),
						      json_sprintf("%s: %s port %d (%s) module: %s", names[i],
								   fc_jstr(mod, "device", "?"),
								   (int)fc_jnum(mod, "port", 0), nd,
								   fc_jstr(mod, "skip", "?")));
			if (!json_object_get(mod, "readings"))
				continue;
			own(doc, &x);
			below(doc, &x, port_row(sums[i], mod));
			lanes(doc, &x, against_peers(doc, names, probes, n, i, &x, set));
		}
	}
}
