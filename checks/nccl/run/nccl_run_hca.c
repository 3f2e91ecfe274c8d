/*
 * nccl run: every rail by default, the ports off the GPU fabric left out.
 * NCCL takes every RDMA device it finds (NCCL_IB_HCA unset), a storage or
 * management NIC included; here the nodes' ports are matched into rails
 * (core/rail.h) and NCCL_IB_HCA names the rails' devices exactly, where a
 * port was left out or --rails chose some. NCCL_IB_HCA of this environment,
 * or --rails first, leaves NCCL's own choice.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/nccl/run/nccl_run.h"
#include "core/log.h"
#include "core/rail.h"
#include "pair/pair.h"
#include "topo/pcitopo.h"

/* The rails of the nodes' ports (@o: --rails, --exclude-dev) into @hca
 * ("=mlx5_0:1,mlx5_3:1"); 1 when some port of a node is not on them. */
static int rails_hca(const struct fc_rail_map *map, const struct fc_rail_node *nodes, int n,
		     char *hca, size_t len)
{
	size_t off = (size_t)snprintf(hca, len, "=");
	int used = 0, active = 0;

	for (int r = 0; r < map->nrails && off < len; r++) {
		const struct fc_rail_port *p = NULL;

		for (int i = 0; i < n && !p; i++)
			p = fc_rail_port_of(map, nodes, i, r);
		if (p)
			off += (size_t)snprintf(hca + off, len - off, "%s%s:%d", r ? "," : "",
						map->rails[r].name, p->port);
	}
	for (int i = 0; i < n; i++)
		for (int j = 0; j < nodes[i].nports; j++)
			active += nodes[i].ports[j].active;
	for (int i = 0; i < n; i++)
		for (int r = 0; r < map->nrails; r++)
			used += fc_rail_port_of(map, nodes, i, r) != NULL;
	return used < active;
}

static int down_ports(const struct fc_rail_node *nd)
{
	int k = 0;

	for (int j = 0; j < nd->nports; j++)
		k += !nd->ports[j].active;
	return k;
}

/* Another port of @p's card on @nd (a function of the same PCI device,
 * topo_nccl_same_card), up when @up; NULL none or the address unknown. */
static const struct fc_rail_port *card_peer(const struct fc_rail_node *nd,
					    const struct fc_rail_port *p, int up)
{
	for (int j = 0; p->pci[0] && j < nd->nports; j++)
		if (&nd->ports[j] != p && (!up || nd->ports[j].active) &&
		    topo_nccl_same_card(p->pci, nd->ports[j].pci))
			return &nd->ports[j];
	return NULL;
}

/*
 * Nodes with more ports down than the node with fewest: a port its peers
 * have up (a spare port down on every node is no fault). NCCL lists active
 * ports only (net_ib ncclIbInitDevices), so such a node runs on fewer HCAs.
 * Those nodes are named in @why ("nodeB: rxe3:1 DOWN") and left out of
 * @healthy, whose rails the others keep. Returns the healthy count.
 */
static int split_down(const struct fc_rail_node *nodes, int n, struct fc_rail_node *healthy,
		      char *why, size_t len)
{
	int least = -1, nh = 0;
	size_t off = 0;

	why[0] = '\0';
	for (int i = 0; i < n; i++)
		if (least < 0 || down_ports(&nodes[i]) < least)
			least = down_ports(&nodes[i]);
	for (int i = 0; i < n; i++) {
		if (down_ports(&nodes[i]) == least) {
			healthy[nh++] = nodes[i];
			continue;
		}
		for (int j = 0; j < nodes[i].nports && off < len; j++) {
			const struct fc_rail_port *p = &nodes[i].ports[j], *o;

			if (p->active)
				continue;
			off += (size_t)snprintf(why + off, len - off, "%s%s: port %s:%d is down",
						off ? "; " : "", nodes[i].name, p->dev, p->port);
			if ((o = card_peer(&nodes[i], p, 1)) && off < len)
				off += (size_t)snprintf(why + off, len - off,
							" (%s, the other port of its card, runs alone, "
							"where NCCL 2.20.3+ fuses a card's ports into one "
							"NIC of both ports' rate on the other nodes)", o->dev);
		}
	}
	return nh;
}

/*
 * The ports of one card among the rails (NCCL 2.20.3+ runs them as one NIC
 * while NCCL_IB_HCA names both; doc/nccl-versions.md), as notes: a pair of
 * rails that are one card's, on the first node that has both; a rail's port
 * whose card's other port is on no rail (--rails, --exclude-dev), which
 * NCCL then runs alone at one port's rate.
 */
static void card_notes(json_t *notes, const struct fc_rail_map *map,
		       const struct fc_rail_node *nodes, int n)
{
	char t[320];

	for (int r = 0; r < map->nrails; r++)
		for (int i = 0; i < n; i++) {
			const struct fc_rail_port *p = fc_rail_port_of(map, nodes, i, r), *o;
			int on = -1;

			if (!p || !(o = card_peer(&nodes[i], p, 0)))
				continue;
			for (int s = 0; s < map->nrails && on < 0; s++)
				if (fc_rail_port_of(map, nodes, i, s) == o)
					on = s;
			if (on >= 0 && on < r)
				break; /* the pair was said at rail @on */
			if (on > r)
				snprintf(t, sizeof(t), "%s and %s are the two ports of one card (%s): "
					 "NCCL 2.20.3 and later run them as one NIC of both ports' "
					 "rate, both listed in NCCL_IB_HCA", p->dev, o->dev, nodes[i].name);
			else
				snprintf(t, sizeof(t), "%s is on a rail without %s, the other port of "
					 "its card (%s): NCCL runs it alone, at one port's rate; with "
					 "both on rails NCCL 2.20.3 and later fuse them into one NIC",
					 p->dev, o->dev, nodes[i].name);
			json_array_append_new(notes, json_string(t));
			break;
		}
}

/* The matching's notes (ports left out with their rule, rails assumed)
 * into the document's "rail_notes" and "rails_assumed", as matrix and
 * pair keep them; its warnings and failures (a port on no rail: no
 * address, no gateway; a miswire) into "rail_findings", judged among the
 * run's findings as matrix judges them (issue 39 item 4: they were said on
 * stderr only). */
static void rail_notes(struct ncr_cfg *cfg, const struct fc_rail_map *map)
{
	static char assumed[sizeof(map->assumed)];

	cfg->rail_notes = json_array();
	cfg->rail_findings = json_array();
	for (int i = 0; i < map->nfindings; i++)
		if (map->findings[i].sev == FC_RAIL_NOTE)
			json_array_append_new(cfg->rail_notes, json_string(map->findings[i].text));
		else
			json_array_append_new(cfg->rail_findings,
					      json_pack("{s:s, s:s}", "severity",
							map->findings[i].sev == FC_RAIL_FAIL ? "fail" : "warn",
							"text", map->findings[i].text));
	if (map->assumed[0]) {
		snprintf(assumed, sizeof(assumed), "%s", map->assumed);
		cfg->rails_assumed = assumed;
	}
}

int ncr_choose_rails(struct ncr_cfg *cfg)
{
	static char down[512];
	static char hca[1024], obuf[512], ebuf[512];
	const char *only[FC_RAIL_MAX], *excl[PAIR_PORTS_MAX];
	struct fc_rail_opts o = { .only = only, .exclude = excl };
	struct pair_ports *ports;
	struct fc_rail_node *nodes, *healthy;
	struct fc_rail_map map = { 0 };
	int rc = 0, n = cfg->nnodes, nh;

	if ((cfg->rails && !strcmp(cfg->rails, "first")) || getenv("NCCL_IB_HCA"))
		return 0;
	snprintf(obuf, sizeof(obuf), "%s", cfg->rails ? cfg->rails : "");
	snprintf(ebuf, sizeof(ebuf), "%s", cfg->exclude_dev ? cfg->exclude_dev : "");
	if ((cfg->rails && strcmp(cfg->rails, "all") &&
	     (o.nonly = fc_rail_split_list(obuf, only, FC_RAIL_MAX)) < 0) ||
	    (cfg->exclude_dev && (o.nexclude = fc_rail_split_list(ebuf, excl, PAIR_PORTS_MAX)) < 0)) {
		fc_err("nccl run: --rails and --exclude-dev take a comma-separated list of names");
		return -1;
	}
	ports = calloc((size_t)n + 1, sizeof(*ports));
	nodes = calloc((size_t)n + 1, sizeof(*nodes));
	healthy = calloc((size_t)n + 1, sizeof(*healthy));
	if (!ports || !nodes || !healthy || pair_ports_list(&cfg->launch, (const char *const *)cfg->nodes, n,
						  cfg->p.timeout + 10, ports) < 0)
		goto out;
	for (int i = 0; i < n; i++)
		nodes[i] = (struct fc_rail_node){ .name = cfg->nodes[i], .ports = ports[i].p,
						  .nports = ports[i].n < 0 ? 0 : ports[i].n };
	/* the rails of the nodes whose ports are all up; the others named */
	nh = split_down(nodes, n, healthy, down, sizeof(down));
	if (down[0])
		cfg->port_down = down;
	if (fc_rail_match(healthy, nh, &o, &map)) {
		fc_err("nccl run: %s", map.err[0] ? map.err : "cannot match the nodes' rails");
		rc = -1;
	} else if (map.nrails && (rails_hca(&map, healthy, nh, hca, sizeof(hca)) || o.nonly || down[0])) {
		rail_notes(cfg, &map);
		card_notes(cfg->rail_notes, &map, healthy, nh);
		setenv("NCCL_IB_HCA", hca, 1); /* relayed to every rank with the other NCCL_* */
		cfg->ib_hca = hca;
		fprintf(stderr, "nccl run: NCCL_IB_HCA=%s (the %d rail%s; --rails first leaves "
			"NCCL's own choice)\n", hca, map.nrails, map.nrails > 1 ? "s" : "");
	}
out:
	fc_rail_map_release(&map);
	free(ports);
	free(nodes);
	free(healthy);
	return rc;
}
