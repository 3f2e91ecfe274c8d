/*
 * Rails: the ports left out by rule (another link layer, the management
 * port, another rate) and how the rails are matched on the fabric's
 * addressing plan (see rail.h).
 */
#include "core/rail_int.h"
#include "core/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *ll_name(enum fc_rail_ll ll)
{
	return ll == FC_RAIL_LL_ETH ? "Ethernet (RoCE)" : "InfiniBand";
}

void rail_left_add(struct match *x, int node, int port, const char *why)
{
	const struct fc_rail_port *p = &x->nodes[node].ports[port];
	int k;

	x->left[node * x->stride + port] = 1;
	for (k = 0; k < x->nlo; k++)
		if (!strcmp(x->lo[k].dev, p->dev) && !strcmp(x->lo[k].why, why))
			break;
	if (k == RAIL_LEFT_MAX) { /* no line left for its kind: counted apart */
		if (!x->rest++)
			x->rest_first = node;
		return;
	}
	if (k == x->nlo) {
		x->nlo++;
		snprintf(x->lo[k].dev, sizeof(x->lo[k].dev), "%s", p->dev);
		snprintf(x->lo[k].why, sizeof(x->lo[k].why), "%s", why);
		x->lo[k].first = node;
		x->lo[k].count = 0;
	}
	x->lo[k].count++;
}

int rail_left_flush(struct match *x)
{
	int rc = 0;

	for (int k = 0; k < x->nlo && !rc; k++) {
		const struct left_out *l = &x->lo[k];

		if (l->count > 1)
			rc = rail_add_finding(x->map, FC_RAIL_NOTE, -1,
					      "%s left out on %d nodes (%s and %d other%s): %s; "
					      "--exclude-dev %s leaves it out without this note",
					      l->dev, l->count, x->nodes[l->first].name, l->count - 1,
					      l->count > 2 ? "s" : "", l->why, l->dev);
		else
			rc = rail_add_finding(x->map, FC_RAIL_NOTE, l->first,
					      "%s of %s left out: %s; --exclude-dev %s leaves it out "
					      "without this note",
					      l->dev, x->nodes[l->first].name, l->why, l->dev);
	}
	if (x->rest && !rc)
		rc = rail_add_finding(x->map, FC_RAIL_NOTE, -1,
				      "%d more port%s left out (the first on %s) by a rule, beyond the "
				      "%d kinds named above one a line; --exclude-dev for the ports "
				      "that are not the GPU fabric's leaves them out without notes",
				      x->rest, x->rest > 1 ? "s" : "", x->nodes[x->rest_first].name,
				      RAIL_LEFT_MAX);
	x->nlo = 0;
	x->rest = 0;
	return rc;
}

/* The link layer most active ports have (InfiniBand on a tie). */
static enum fc_rail_ll fabric_ll(const struct match *x)
{
	int cnt[3] = { 0 };

	for (int i = 0; i < x->n; i++)
		for (int j = 0; j < x->nodes[i].nports; j++) {
			const struct fc_rail_port *p = &x->nodes[i].ports[j];

			if (p->active && p->link_layer > 0 && p->link_layer <= 2 &&
			    !rail_in_list(p->dev, x->o->exclude, x->o->nexclude) &&
			    !(p->netdev[0] && rail_in_list(p->netdev, x->o->exclude, x->o->nexclude)))
				cnt[p->link_layer]++;
		}
	return cnt[FC_RAIL_LL_ETH] > cnt[FC_RAIL_LL_IB] ? FC_RAIL_LL_ETH : FC_RAIL_LL_IB;
}

/* The ports of another link layer than the fabric's. */
static void other_ll(struct match *x)
{
	char why[200];

	for (int i = 0; i < x->n; i++)
		for (int j = 0; j < x->nodes[i].nports; j++) {
			const struct fc_rail_port *p = &x->nodes[i].ports[j];

			if (!p->active || rail_in_list(p->dev, x->o->exclude, x->o->nexclude) ||
			    (p->netdev[0] && rail_in_list(p->netdev, x->o->exclude, x->o->nexclude)) ||
			    p->link_layer == x->map->link_layer)
				continue;
			snprintf(why, sizeof(why), "on another link layer than the fabric's (%s)",
				 ll_name(x->map->link_layer));
			rail_left_add(x, i, j, why);
		}
}

/* Candidates of node @i not left out, other than port @skip. */
static int others(const struct match *x, int i, int skip)
{
	int c = 0;

	for (int j = 0; j < x->nodes[i].nports; j++)
		c += j != skip && rail_eligible(x, i, j) && !x->nodes[i].ports[j].mgmt[0];
	return c;
}

/* Whether port @j of node @i is addressed like most of the node's other
 * ports (the same prefix length, a gateway as they have one): a rail port
 * that a default route runs over (an ECMP route over the rails, of which
 * /proc/net/route shows the first next hop only: fib_route_seq_show in the
 * kernel's net/ipv4/fib_trie.c prints nexthop 0), not a management port. */
static int like_rails(const struct match *x, int i, int j)
{
	const struct fc_rail_port *p = &x->nodes[i].ports[j];
	int like = 0, all = 0;

	for (int k = 0; k < x->nodes[i].nports; k++) {
		const struct fc_rail_port *q = &x->nodes[i].ports[k];

		if (k == j || !rail_eligible(x, i, k) || q->mgmt[0])
			continue;
		all++;
		like += q->prefix_len == p->prefix_len && !q->gateway[0] == !p->gateway[0];
	}
	return all && 2 * like > all;
}

/* The port that carries the node's ssh address or default route, where
 * the node has other ports: the management network, not a rail. A default
 * route over a port addressed like the rails is over the rails. */
static void mgmt_ports(struct match *x)
{
	char why[200];

	for (int i = 0; i < x->n; i++)
		for (int j = 0; j < x->nodes[i].nports; j++) {
			const struct fc_rail_port *p = &x->nodes[i].ports[j];

			if (!rail_eligible(x, i, j) || !p->mgmt[0] || !others(x, i, j) ||
			    (strstr(p->mgmt, "default route") && like_rails(x, i, j)))
				continue;
			snprintf(why, sizeof(why), "it %s (the management network, not a rail)",
				 p->mgmt);
			rail_left_add(x, i, j, why);
		}
}

int rail_leave_out(struct match *x)
{
	int rc;

	x->map->link_layer = fabric_ll(x);
	other_ll(x);
	mgmt_ports(x);
	rail_other_rate(x);
	rc = rail_left_flush(x);
	for (int e = 0; e < x->o->nexclude && !rc; e++) {
		int hit = 0;

		for (int i = 0; i < x->n && !hit; i++)
			for (int j = 0; j < x->nodes[i].nports && !hit; j++)
				hit = !strcmp(x->nodes[i].ports[j].dev, x->o->exclude[e]) ||
				      !strcmp(x->nodes[i].ports[j].netdev, x->o->exclude[e]);
		if (!hit)
			rc = rail_add_finding(x->map, FC_RAIL_WARN, -1,
					      "--exclude-dev %s: no node has a device or net device "
					      "of that name",
					      x->o->exclude[e]);
	}
	return rc;
}

/* Ports that report a key, those that do not, the most eligible ports a node has. */
struct key_count {
	int with, without, maxports;
};

/* The key of a port for @by: the switch, the LLDP neighbour, the subnet. */
static const char *port_key(const struct fc_rail_port *p, enum fc_rail_by by)
{
	return by == FC_RAIL_BY_SWITCH ? p->peer : by == FC_RAIL_BY_LLDP ? p->lldp :
	       by == FC_RAIL_BY_POSITION ? p->pci : p->subnet;
}

/* Counts the key of each eligible port into @kc; @seen(@arg, port) for
 * each one reported. */
static void count_keys(const struct match *x, enum fc_rail_by by, struct key_count *kc,
		       void (*seen)(void *arg, const struct fc_rail_port *p), void *arg)
{
	memset(kc, 0, sizeof(*kc));
	for (int i = 0; i < x->n; i++) {
		int cand = 0;

		for (int j = 0; j < x->nodes[i].nports; j++) {
			const struct fc_rail_port *p = &x->nodes[i].ports[j];

			if (!rail_eligible(x, i, j))
				continue;
			cand++;
			if (!port_key(p, by)[0]) {
				kc->without++;
				continue;
			}
			kc->with++;
			if (seen)
				seen(arg, p);
		}
		kc->maxports = cand > kc->maxports ? cand : kc->maxports;
	}
}

/* The distinct keys the ports report, FC_RAIL_MAX + 1 at most. */
struct keys {
	const char *k[FC_RAIL_MAX + 1];
	int n;
	enum fc_rail_by by;
};

static void add_key(void *arg, const struct fc_rail_port *p)
{
	struct keys *s = arg;
	const char *key = port_key(p, s->by);
	int k;

	for (k = 0; k < s->n && strcmp(s->k[k], key); k++)
		;
	if (k == s->n && s->n <= FC_RAIL_MAX)
		s->k[s->n++] = key;
}

/* "GUID "DESC", ..." of the switches @s whose node description a port
 * reports (smpquery nodedesc); "" when none does. */
static void switch_names(const struct match *x, const struct keys *s, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (int k = 0; k < s->n && off < len; k++) {
		const char *desc = NULL;

		for (int i = 0; i < x->n && !desc; i++)
			for (int j = 0; j < x->nodes[i].nports && !desc; j++)
				if (!strcmp(x->nodes[i].ports[j].peer, s->k[k]) &&
				    x->nodes[i].ports[j].peer_desc[0])
					desc = x->nodes[i].ports[j].peer_desc;
		if (desc)
			off += (size_t)snprintf(buf + off, len - off, "%s%s \"%s\"", off ? ", " : "",
						s->k[k], desc);
	}
}

/*
 * InfiniBand: match by the switch each port reaches where every eligible
 * port reports one; a rail may span several (core/rail_reach.c).
 * Returns 1 to match by switch; 0 otherwise (a note says why, once).
 */
static int choose_by_switch(struct match *x, int *rc)
{
	struct keys s = { .n = 0, .by = FC_RAIL_BY_SWITCH };
	struct key_count kc;
	char names[300];

	*rc = 0;
	if (x->map->link_layer != FC_RAIL_LL_IB)
		return 0;
	count_keys(x, FC_RAIL_BY_SWITCH, &kc, add_key, &s);
	if (kc.without) {
		*rc = rail_add_finding(x->map, FC_RAIL_NOTE, -1,
				       "the switch %d InfiniBand port%s reach%s is not known "
				       "(fabcheck devices reads it with smpquery of "
				       "infiniband-diags, which needs umad access): rails are not "
				       "matched by switch",
				       kc.without, kc.without > 1 ? "s" : "",
				       kc.without > 1 ? "" : "es");
		return 0;
	}
	if (!kc.with || kc.maxports < 2)
		return 0;
	switch_names(x, &s, names, sizeof(names));
	*rc = rail_add_finding(x->map, FC_RAIL_NOTE, -1,
			       "rails matched by the switch each InfiniBand port reaches (%d "
			       "switch%s%s%s)", s.n, s.n == 1 ? "" : "es", names[0] ? ": " : "", names);
	return 1;
}

/* The first subnet reported, whether every port reports that one, and how
 * many are routed (a /31, /30, /127 or /126 per port). */
struct subnets {
	const char *first;
	int one, routed;
};

static void add_subnet(void *arg, const struct fc_rail_port *p)
{
	struct subnets *s = arg;
	int v6 = strchr(p->subnet, ':') != NULL;

	if (!s->first)
		s->first = p->subnet;
	else if (strcmp(s->first, p->subnet))
		s->one = 0;
	/* RFC 3021 (/31 point-to-point links), RFC 6164 (/127); /30 and /126
	 * keep a network and broadcast address for the two ends. */
	s->routed += p->link_layer == FC_RAIL_LL_ETH && p->prefix_len >= (v6 ? 126 : 30);
}

/* Where the subnet names no rail: by position where every port's PCI
 * address is known, else on routed RoCE by the pools of the ports'
 * gateways (what each port reaches, core/rail_gw.c), else by device name.
 * @why says what the subnets are. */
static enum fc_rail_by fallback(struct match *x, const char *why, int *rc)
{
	struct key_count kc;

	count_keys(x, FC_RAIL_BY_POSITION, &kc, NULL, NULL);
	if (kc.with && !kc.without) {
		snprintf(x->map->assumed, sizeof(x->map->assumed),
			 "rails assumed from position (the same NUMA node and PCIe order of "
			 "the ports on every node): %s; %s would confirm which leaf each port "
			 "reaches", why,
			 x->map->link_layer == FC_RAIL_LL_IB ?
				 "smpquery nodeinfo of infiniband-diags (umad access)" :
				 "lldpd running on the nodes (lldpctl -f json)");
		*rc = rail_add_finding(x->map, FC_RAIL_NOTE, -1, "%s", x->map->assumed);
		return FC_RAIL_BY_POSITION;
	}
	if (rail_gateway_pools_ok(x)) {
		/* the note names the pools (core/rail_gw.c) */
		snprintf(x->map->assumed, sizeof(x->map->assumed), "rails by gateway: %s", why);
		*rc = rail_add_finding(x->map, FC_RAIL_NOTE, -1, "%s", x->map->assumed);
		return FC_RAIL_BY_GATEWAY;
	}
	*rc = rail_add_finding(x->map, FC_RAIL_NOTE, -1, "rails matched by device name: %s%s",
			       why, kc.with ? "; position would need every port's PCI address" : "");
	return FC_RAIL_BY_NAME;
}

/* RoCE where every port has its own routed subnet: by the LLDP neighbour
 * (the leaf) where every port reports one, else by position. */
static enum fc_rail_by choose_routed(struct match *x, int *rc)
{
	struct keys s = { .n = 0, .by = FC_RAIL_BY_LLDP };
	struct key_count kc;

	count_keys(x, FC_RAIL_BY_LLDP, &kc, add_key, &s);
	if (kc.with && !kc.without) {
		*rc = rail_add_finding(x->map, FC_RAIL_NOTE, -1,
				       "rails matched by the LLDP neighbour each port reaches (%s%d leaf switch%s)",
				       s.n > FC_RAIL_MAX ? "more than " : "",
				       s.n > FC_RAIL_MAX ? FC_RAIL_MAX : s.n, s.n == 1 ? "" : "es");
		return FC_RAIL_BY_LLDP;
	}
	return fallback(x, kc.with ? "routed RoCE (a subnet per port or host), and not "
				     "every port reports an LLDP neighbour" :
				     "routed RoCE (a subnet per port or host), no LLDP neighbour "
				     "known",
			rc);
}

/* Whether any eligible port shares its subnet with another node's. */
static int any_shared_subnet(const struct match *x)
{
	for (int i = 0; i < x->n; i++)
		for (int j = 0; j < x->nodes[i].nports; j++) {
			const char *s = x->nodes[i].ports[j].subnet;

			if (!rail_eligible(x, i, j) || !s[0])
				continue;
			for (int a = i + 1; a < x->n; a++)
				for (int k = 0; k < x->nodes[a].nports; k++)
					if (rail_eligible(x, a, k) &&
					    !strcmp(x->nodes[a].ports[k].subnet, s))
						return 1;
		}
	return 0;
}

/* 1 when a node reports a port at all, eligible or not. */
static int any_port(const struct match *x)
{
	for (int i = 0; i < x->n; i++)
		if (x->nodes[i].nports > 0)
			return 1;
	return 0;
}

int rail_choose(struct match *x)
{
	struct subnets s = { NULL, 1, 0 };
	struct fc_rail_map *map = x->map;
	struct key_count kc;
	char why[160];
	int rc = 0;

	map->by = FC_RAIL_BY_SUBNET;
	if (choose_by_switch(x, &rc))
		map->by = FC_RAIL_BY_SWITCH;
	if (rc || map->by == FC_RAIL_BY_SWITCH)
		goto out;
	count_keys(x, FC_RAIL_BY_LLDP, &kc, NULL, NULL);
	if (map->link_layer == FC_RAIL_LL_ETH && kc.with && !kc.without && kc.maxports > 1) {
		/* every port names the leaf it reaches: that, not the addressing
		 * plan, says which ports share a rail */
		map->by = choose_routed(x, &rc);
		goto out;
	}
	count_keys(x, FC_RAIL_BY_SUBNET, &kc, add_subnet, &s);
	if (!kc.with && !kc.without) {
		/* nothing to match: no name, subnet or leaf was compared */
		map->by = FC_RAIL_BY_NONE;
		rc = rail_add_finding(map, FC_RAIL_NOTE, -1, "no rails: no port to match (%s)",
				      any_port(x) ? "every port was left out, each with its reason"
						  : "no node reports an RDMA port");
	} else if (!kc.with) {
		map->by = FC_RAIL_BY_NAME;
		rc = rail_add_finding(map, FC_RAIL_NOTE, -1,
				      "rails matched by device name: no port reports its subnet");
	} else if (map->link_layer == FC_RAIL_LL_IB && s.one && kc.maxports > 1) {
		snprintf(why, sizeof(why), "every InfiniBand port is on subnet prefix %s (one "
			 "subnet manager for all rails)", s.first);
		map->by = fallback(x, why, &rc);
	} else if (kc.without && map->link_layer == FC_RAIL_LL_IB) {
		snprintf(why, sizeof(why), "%d port%s report no subnet prefix", kc.without,
			 kc.without > 1 ? "s" : "");
		map->by = fallback(x, why, &rc);
	} else if (map->link_layer == FC_RAIL_LL_ETH &&
		   (2 * s.routed > kc.with || (x->n > 1 && !any_shared_subnet(x)))) {
		map->by = choose_routed(x, &rc);
	}
out:
	map->by_name = map->by == FC_RAIL_BY_NAME;
	map->by_switch = map->by == FC_RAIL_BY_SWITCH;
	return rc;
}

/* Position order: NUMA node, PCI address, device name. */
static const struct match *pos_ctx;
static int pos_node;

int rail_port_cmp(const struct match *x, int node, int ia, int ib)
{
	const struct fc_rail_port *a = &x->nodes[node].ports[ia];
	const struct fc_rail_port *b = &x->nodes[node].ports[ib];
	int c = a->numa != b->numa ? (a->numa < b->numa ? -1 : 1) : strcmp(a->pci, b->pci);

	return c ? c : fc_rail_name_cmp(a->dev, b->dev);
}

static int cmp_pos(const void *pa, const void *pb)
{
	return rail_port_cmp(pos_ctx, pos_node, *(const int *)pa, *(const int *)pb);
}

int rail_slot_port(const struct match *x, int node, int port)
{
	const struct fc_rail_port *p = &x->nodes[node].ports[port];

	if (p->active)
		return rail_eligible(x, node, port);
	return p->link_layer == x->map->link_layer && !p->mgmt[0] &&
	       !rail_in_list(p->dev, x->o->exclude, x->o->nexclude) &&
	       !(p->netdev[0] && rail_in_list(p->netdev, x->o->exclude, x->o->nexclude));
}

int rail_port_rank(const struct match *x, int node, int port)
{
	int r = 0;

	for (int q = 0; q < x->nodes[node].nports; q++)
		r += q != port && rail_slot_port(x, node, q) && rail_port_cmp(x, node, q, port) < 0;
	return r;
}

/* The NUMA node most nodes have at position @k (-1 unknown). */
static int numa_at(const struct match *x, int k)
{
	int best = -1, bestc = 0;

	for (int a = 0; a < x->nm; a++) {
		int c = 0, na;

		if (atoi(x->m[a].key + 9) != k)
			continue;
		na = x->nodes[x->m[a].node].ports[x->m[a].port].numa;
		for (int b = 0; b < x->nm; b++)
			c += atoi(x->m[b].key + 9) == k &&
			     x->nodes[x->m[b].node].ports[x->m[b].port].numa == na;
		if (c > bestc) {
			bestc = c;
			best = na;
		}
	}
	return best;
}

int rail_position_keys(struct match *x)
{
	int rc = 0, a = 0;

	while (a < x->nm) {
		int idx[FC_RAIL_MAX * 4], cnt = 0, node = x->m[a].node, b;

		for (b = a; b < x->nm && x->m[b].node == node; b++)
			if (cnt < (int)(sizeof(idx) / sizeof(idx[0])))
				idx[cnt++] = x->m[b].port;
		pos_ctx = x;
		pos_node = node;
		qsort(idx, (size_t)cnt, sizeof(idx[0]), cmp_pos);
		for (int k = a; k < b; k++) /* among every slot, a port down too */
			snprintf(x->m[k].key, sizeof(x->m[k].key), "position %d",
				 rail_port_rank(x, node, x->m[k].port));
		a = b;
	}
	for (int k = 0; !rc && k < FC_RAIL_MAX; k++) {
		int want = numa_at(x, k);

		for (int m = 0; !rc && m < x->nm; m++) {
			const struct fc_rail_port *p = &x->nodes[x->m[m].node].ports[x->m[m].port];

			if (atoi(x->m[m].key + 9) != k || want < 0 || p->numa == want)
				continue;
			rc = rail_add_finding(x->map, FC_RAIL_WARN, x->m[m].node,
					      "%s of %s is at position %d on NUMA node %d, where the "
					      "other nodes have NUMA node %d: the rack is not uniform, "
					      "and rails by position may pair the wrong ports",
					      p->dev, x->nodes[x->m[m].node].name, k, p->numa, want);
		}
	}
	return rc;
}
