/* Rails matched across nodes by the fabric (see rail.h). */
#include "core/rail_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rail_in_list(const char *s, const char *const *list, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(s, list[i]))
			return 1;
	return 0;
}

int fc_rail_port_named(const struct fc_rail_map *map, int node, const char *dev, int port)
{
	for (int i = 0; i < map->nfindings; i++)
		if (map->findings[i].node == node && map->findings[i].dev[0] &&
		    !strcmp(map->findings[i].dev, dev) && map->findings[i].port == port)
			return 1;
	return 0;
}

int rail_add_finding(struct fc_rail_map *map, enum fc_rail_sev sev, int node, const char *fmt,
		     ...)
{
	struct fc_rail_finding *f;
	va_list ap;

	if (map->nfindings == map->findings_cap) {
		int cap = map->findings_cap ? 2 * map->findings_cap : 8;

		f = realloc(map->findings, (size_t)cap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		map->findings = f;
		map->findings_cap = cap;
	}
	f = &map->findings[map->nfindings++];
	f->sev = sev;
	f->node = node;
	f->dev[0] = '\0';
	f->port = 0;
	va_start(ap, fmt);
	vsnprintf(f->text, sizeof(f->text), fmt, ap);
	va_end(ap);
	return 0;
}

static const struct fc_rail_port *mport(const struct match *x, const struct member *m)
{
	return &x->nodes[m->node].ports[m->port];
}

int rail_candidate(const struct match *x, const struct fc_rail_port *p)
{
	return p->active && p->link_layer == x->map->link_layer &&
	       !rail_in_list(p->dev, x->o->exclude, x->o->nexclude) &&
	       !(p->netdev[0] && rail_in_list(p->netdev, x->o->exclude, x->o->nexclude));
}

int rail_eligible(const struct match *x, int node, int port)
{
	return rail_candidate(x, &x->nodes[node].ports[port]) && !x->left[node * x->stride + port];
}

/* What the rails are matched by, as a word for the findings. */
static const char *key_kind(const struct match *x)
{
	static const char *const kind[] = { "subnet", "switch", "leaf", "", "device", "leaf", "" };

	return kind[x->map->by];
}

static const char *member_key(const struct match *x, const struct member *m)
{
	const struct fc_rail_port *p = mport(x, m);

	switch (x->map->by) {
	case FC_RAIL_BY_SWITCH: return p->peer;
	case FC_RAIL_BY_LLDP: return p->lldp;
	case FC_RAIL_BY_POSITION:
	case FC_RAIL_BY_GATEWAY: return m->key;
	case FC_RAIL_BY_NAME: return p->dev;
	default: return p->subnet;
	}
}

/* The eligible ports (a port without the key warned of). */
static int members(struct match *x)
{
	int total = 0, rc = 0;

	for (int i = 0; i < x->n; i++)
		total += x->nodes[i].nports;
	x->m = calloc((size_t)total + 1, sizeof(*x->m));
	x->g = calloc((size_t)total + 1, sizeof(*x->g));
	if (!x->m || !x->g)
		return -ENOMEM;
	for (int i = 0; i < x->n && !rc; i++) {
		for (int j = 0; j < x->nodes[i].nports && !rc; j++) {
			const struct fc_rail_port *p = &x->nodes[i].ports[j];

			if (!rail_eligible(x, i, j))
				continue;
			if (x->map->by == FC_RAIL_BY_SUBNET && !p->subnet[0]) {
				rc = rail_add_finding(x->map, FC_RAIL_WARN, i,
						      "%s of %s has no IPv4 or IPv6 address on %s: "
						      "it is on no rail (RoCE v2 needs one)",
						      p->dev, x->nodes[i].name,
						      p->netdev[0] ? p->netdev : "its net device");
				continue;
			}
			if (x->map->by == FC_RAIL_BY_GATEWAY && !p->gateway[0]) {
				rc = rail_add_finding(x->map, FC_RAIL_NOTE, i,
						      "%s of %s has no gateway on %s (no /31 or /127 "
						      "link like the rail ports'): it is on no rail",
						      p->dev, x->nodes[i].name,
						      p->netdev[0] ? p->netdev : "its net device");
				continue;
			}
			x->m[x->nm++] = (struct member){ .node = i, .port = j, .rail = -1 };
		}
	}
	return rc;
}

/* Each member with its group (network). */
static int collect(struct match *x)
{
	int rc = members(x);

	if (!rc && x->map->by == FC_RAIL_BY_GATEWAY) {
		rc = rail_gateway_only_keys(x); /* chosen without positions */
	} else if (!rc && x->map->by == FC_RAIL_BY_POSITION) {
		rc = rail_position_keys(x);
		if (!rc && x->map->by == FC_RAIL_BY_POSITION)
			rc = rail_gateway_keys(x);
	}
	for (int a = 0; a < x->nm && !rc; a++) {
		struct member *m = &x->m[a];
		int k;

		for (k = 0; k < x->ng; k++)
			if (!strcmp(x->g[k].key, member_key(x, m)))
				break;
		if (k == x->ng)
			x->g[x->ng++] = (struct group){ .key = member_key(x, m), .rail = -1 };
		m->group = k;
	}
	return rc;
}

/* The device most nodes have on each group (the lowest node's on a tie),
 * and how many nodes have a port on it. */
static void name_groups(struct match *x)
{
	for (int k = 0; k < x->ng; k++) {
		struct group *g = &x->g[k];
		int best = 0, last_node = -1;

		for (int a = 0; a < x->nm; a++) {
			int cnt = 0;

			if (x->m[a].group != k)
				continue;
			if (x->m[a].node != last_node)
				g->nodes_with++;
			last_node = x->m[a].node;
			for (int b = 0; b < x->nm; b++)
				cnt += x->m[b].group == k &&
				       !strcmp(mport(x, &x->m[a])->dev, mport(x, &x->m[b])->dev);
			if (cnt > best) {
				best = cnt;
				g->name = mport(x, &x->m[a])->dev;
			}
		}
	}
}

/* One port per node and group: the one named like the group; the others
 * are two rails on one subnet. */
static int pick_members(struct match *x)
{
	int rc = 0;

	for (int a = 0; a < x->nm && !rc; a++) {
		struct member *m = &x->m[a];
		struct member *prev = NULL;

		for (int b = 0; b < x->nm; b++)
			if (b != a && x->m[b].used && x->m[b].node == m->node &&
			    x->m[b].group == m->group)
				prev = &x->m[b];
		if (!prev) {
			m->used = 1;
			continue;
		}
		if (!strcmp(mport(x, m)->dev, x->g[m->group].name)) {
			prev->used = 0;
			m->used = 1;
		}
		rc = rail_add_finding(x->map, FC_RAIL_FAIL, m->node,
				 "%s and %s of %s are both on %s %s: two rails on one %s "
				 "(%s is left out)",
				 mport(x, prev)->dev, mport(x, m)->dev, x->nodes[m->node].name,
				 key_kind(x), x->g[m->group].key,
				 x->map->by_switch ? "switch" : "subnet",
				 m->used ? mport(x, prev)->dev : mport(x, m)->dev);
	}
	return rc;
}

static struct match *sort_ctx;

static int cmp_group(const void *pa, const void *pb)
{
	const struct group *a = &sort_ctx->g[*(const int *)pa], *b = &sort_ctx->g[*(const int *)pb];
	int c = fc_rail_name_cmp(a->name, b->name);

	return c ? c : strcmp(a->key, b->key);
}

int rail_selected(const struct match *x, const char *name, int index)
{
	char num[16];

	if (!x->o->nonly)
		return 1;
	snprintf(num, sizeof(num), "%d", index);
	return rail_in_list(name, x->o->only, x->o->nonly) || rail_in_list(num, x->o->only, x->o->nonly);
}

int rail_check_only(struct match *x, const char *const *names, int nr)
{
	for (int e = 0; e < x->o->nonly; e++) {
		int hit = 0;

		for (int r = 0; r < nr && !hit; r++) {
			char num[16];

			snprintf(num, sizeof(num), "%d", r);
			hit = !strcmp(names[r], x->o->only[e]) || !strcmp(num, x->o->only[e]);
		}
		if (!hit) {
			size_t off = 0;

			off += (size_t)snprintf(x->map->err, sizeof(x->map->err),
						"--rails: no rail is named '%s'; the rails are",
						x->o->only[e]);
			for (int r = 0; r < nr && off < sizeof(x->map->err); r++)
				off += (size_t)snprintf(x->map->err + off, sizeof(x->map->err) - off,
							" %d (%s)", r, names[r]);
			if (!nr)
				snprintf(x->map->err, sizeof(x->map->err),
					 "--rails: no rail is named '%s': no node has an active "
					 "port on the fabric",
					 x->o->only[e]);
			return -EINVAL;
		}
	}
	return 0;
}

/* Whether node @i has a port on every network that two nodes or more share. */
static int complete(const struct match *x, int i)
{
	for (int k = 0; k < x->ng; k++) {
		int has = 0;

		if (x->g[k].nodes_with < 2)
			continue;
		for (int a = 0; a < x->nm && !has; a++)
			has = x->m[a].group == k && x->m[a].node == i && x->m[a].used;
		if (!has)
			return 0;
	}
	return 1;
}

/* Whether another node has a device named as @m's port down, or on a
 * network two nodes or more share: then @m's port is a rail gone wrong. */
static int named_elsewhere(const struct match *x, const struct member *m)
{
	const char *dev = mport(x, m)->dev;

	for (int i = 0; i < x->n; i++)
		for (int j = 0; j < x->nodes[i].nports && i != m->node; j++)
			if (!strcmp(x->nodes[i].ports[j].dev, dev) && !x->nodes[i].ports[j].active)
				return 1;
	for (int a = 0; a < x->nm; a++)
		if (x->m[a].node != m->node && x->m[a].used && x->g[x->m[a].group].nodes_with > 1 &&
		    !strcmp(mport(x, &x->m[a])->dev, dev))
			return 1;
	return 0;
}

/* A port on a network no other node has: left out where its node has a
 * port on every rail without it and no other node has that device down or
 * on a rail (a storage or front-end NIC), else a port that matches no rail
 * of its peers. */
int rail_lone_port(struct match *x, const struct member *m)
{
	const char *kind = key_kind(x);
	char why[200];

	if (complete(x, m->node) && !named_elsewhere(x, m)) {
		snprintf(why, sizeof(why), "no other node has a port on its %s%s%s, and the node "
			 "has a port on every rail without it", kind, *kind ? " " : "",
			 x->g[m->group].key);
		rail_left_add(x, m->node, m->port, why);
		return 0;
	}
	return rail_add_finding(x->map, FC_RAIL_FAIL, m->node,
				"%s of %s is on %s%s%s, which no other node has: it matches no "
				"rail of its peers (a cable in the wrong switch, or a wrong "
				"address?)",
				mport(x, m)->dev, x->nodes[m->node].name, kind, *kind ? " " : "",
				x->g[m->group].key);
}

/* Whether another node than those on group @k has a port on its subnet
 * that is down: the address stays on a port whose link is down (the
 * kernel keeps it, NO-CARRIER), so the network is that node's rail too,
 * and the port down is the fault, not the one that is up. Matched by
 * subnet only: a port down reaches no switch or LLDP neighbour. */
static int down_elsewhere(const struct match *x, int k)
{
	if (x->map->by != FC_RAIL_BY_SUBNET)
		return 0;
	for (int i = 0; i < x->n; i++)
		for (int j = 0; j < x->nodes[i].nports; j++) {
			const struct fc_rail_port *p = &x->nodes[i].ports[j];
			int on = 0;

			for (int a = 0; a < x->nm && !on; a++)
				on = x->m[a].group == k && x->m[a].node == i;
			if (!on && !p->active && p->link_layer == x->map->link_layer &&
			    !strcmp(p->subnet, x->g[k].key))
				return 1;
		}
	return 0;
}

/* Groups on two nodes or more are rails (any group, on one node; one of
 * one node whose peers have a port on its subnet down). */
static int make_rails(struct match *x)
{
	int order[FC_RAIL_MAX * 4], nr = 0, rc = 0;
	const char *names[FC_RAIL_MAX * 4] = { 0 };

	for (int k = 0; k < x->ng && !rc; k++) {
		if (x->n > 1 && x->g[k].nodes_with < 2 && !down_elsewhere(x, k)) {
			for (int a = 0; a < x->nm && !rc; a++)
				if (x->m[a].group == k && x->m[a].used)
					rc = rail_lone_port(x, &x->m[a]);
			continue;
		}
		if (nr == (int)(sizeof(order) / sizeof(order[0])))
			break;
		order[nr++] = k;
	}
	if (!rc)
		rc = rail_left_flush(x);
	if (rc)
		return rc;
	sort_ctx = x;
	qsort(order, (size_t)nr, sizeof(order[0]), cmp_group);
	sort_ctx = NULL;
	for (int r = 0; r < nr; r++)
		names[r] = x->g[order[r]].name;
	rc = rail_check_only(x, names, nr);
	if (rc)
		return rc;
	if (nr > FC_RAIL_MAX)
		rc = rail_add_finding(x->map, FC_RAIL_WARN, -1,
				 "%d rails found, only the first %d are tested", nr, FC_RAIL_MAX);
	for (int r = 0; r < nr && x->map->nrails < FC_RAIL_MAX; r++) {
		struct group *g = &x->g[order[r]];
		struct fc_rail *rl;

		if (!rail_selected(x, g->name, r))
			continue;
		g->rail = x->map->nrails;
		rl = &x->map->rails[x->map->nrails++];
		rl->index = r;
		snprintf(rl->name, sizeof(rl->name), "%s", g->name);
		snprintf(rl->subnet, sizeof(rl->subnet), "%s",
			 x->map->by == FC_RAIL_BY_SUBNET ? g->key : "");
		snprintf(rl->peer, sizeof(rl->peer), "%s", x->map->by_switch ? g->key : "");
		for (int a = 0; x->map->by_switch && !rl->peer_desc[0] && a < x->nm; a++)
			if (x->m[a].group == order[r])
				snprintf(rl->peer_desc, sizeof(rl->peer_desc), "%s",
					 mport(x, &x->m[a])->peer_desc);
		snprintf(rl->leaf, sizeof(rl->leaf), "%s",
			 x->map->by == FC_RAIL_BY_LLDP ? g->key : "");
		if (x->map->by == FC_RAIL_BY_GATEWAY)
			rail_gateway_leaf(x, g->key, rl->leaf, sizeof(rl->leaf));
	}
	return rc;
}

static int fill_ports(struct match *x)
{
	struct fc_rail_map *map = x->map;

	map->port = malloc(((size_t)x->n * (size_t)map->nrails + 1) * sizeof(*map->port));
	if (!map->port)
		return -ENOMEM;
	for (int i = 0; i < x->n * map->nrails; i++)
		map->port[i] = -1;
	for (int a = 0; a < x->nm; a++) {
		const struct member *m = &x->m[a];
		int r = m->rail;

		if (m->used && r >= 0)
			map->port[m->node * map->nrails + r] = m->port;
	}
	return 0;
}

/* "; mlx5_3 port 1 is not active" for the node's port on rail @rl's network
 * (its subnet, or its gateway in the rail's leaf pool) that is not active,
 * else for the one named as the rail, else for each of its slots that is
 * not active (its names may differ from the other nodes'). Rails by the
 * gateways' pools: the pool only (a port without a gateway is on no rail,
 * and names say nothing across server models). */
static void down_hint(const struct match *x, int node, const struct fc_rail *rl, char *buf,
		      size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (int pass = 0; pass < (x->gw_only ? 1 : 3) && !off; pass++)
		for (int j = 0; j < x->nodes[node].nports && off < len; j++) {
			const struct fc_rail_port *p = &x->nodes[node].ports[j];
			int hit = pass == 2 ? rail_slot_port(x, node, j) :
				  pass == 1 ? !strcmp(p->dev, rl->name) :
				  x->map->by == FC_RAIL_BY_GATEWAY ? rail_gateway_in(p->gateway, rl->leaf) :
				  rl->subnet[0] && !strcmp(p->subnet, rl->subnet);

			if (!p->active && hit)
				off += (size_t)snprintf(buf + off, len - off, "; %s port %d is not active",
							p->dev, p->port);
		}
}

static int rail_label(const struct fc_rail_map *map, int r, char *buf, size_t len)
{
	const struct fc_rail *rl = &map->rails[r];

	if (rl->nleaves > 1)
		return snprintf(buf, len, "rail %d (leaves %s; %s on the other nodes)", rl->index,
				rl->leaves, rl->name);
	if (rl->peer_desc[0])
		return snprintf(buf, len, "rail %d (switch %s \"%s\", %s on the other nodes)",
				rl->index, rl->peer, rl->peer_desc, rl->name);
	if (rl->subnet[0] || rl->peer[0] || rl->leaf[0])
		return snprintf(buf, len, "rail %d (%s%s, %s on the other nodes)", rl->index,
				rl->peer[0] ? "switch " : map->by == FC_RAIL_BY_GATEWAY ?
				"the leaf of gateways " : rl->leaf[0] ? "leaf " : "",
				rl->peer[0] ? rl->peer : rl->leaf[0] ? rl->leaf : rl->subnet,
				rl->name);
	return snprintf(buf, len, "rail %d (%s)", rl->index, rl->name);
}

/* Node @i's @nswap ports out of @ref's order (@swaps names them). */
static int swap_finding(struct match *x, const struct rail_ref *ref, int i, int nswap,
			const char *swaps)
{
	char tie[200] = "";

	if (ref->tied >= 0 && ref->node >= 0)
		snprintf(tie, sizeof(tie), " (as many nodes order their ports like %s as like %s: "
			 "the swapped cables may be %s's)", x->nodes[ref->node].name,
			 x->nodes[ref->tied].name, x->nodes[ref->node].name);
	return rail_add_finding(x->map, FC_RAIL_FAIL, i,
				"%s of %s: %s; swapped cable%s?%s Traffic still flows, but a "
				"GPU's rail-local HCA no longer reaches its peers' rail",
				nswap > 1 ? "ports" : "a port", x->nodes[i].name, swaps,
				nswap > 1 ? "s" : "", tie);
}

/* Per node: a rail without a port, and ports on a rail out of the order
 * of the other nodes' (core/rail_swap.c). */
static int check_nodes(struct match *x)
{
	struct fc_rail_map *map = x->map;
	int rc = 0, by_pos = map->by == FC_RAIL_BY_POSITION ||
			     (map->by == FC_RAIL_BY_GATEWAY && !x->gw_only);
	unsigned char bad[FC_RAIL_MAX];
	struct rail_ref ref;

	rail_order_ref(x, &ref);
	for (int i = 0; i < x->n && !rc; i++) {
		char swaps[320] = "", lbl[160], hint[96];
		size_t off = 0;
		int nswap = 0;

		rail_misplaced(x, &ref, i, bad);
		for (int r = 0; r < map->nrails && !rc; r++) {
			const struct fc_rail_port *p = fc_rail_port_of(map, x->nodes, i, r);

			rail_label(map, r, lbl, sizeof(lbl));
			if (!p) {
				down_hint(x, i, &map->rails[r], hint, sizeof(hint));
				rc = rail_add_finding(map, FC_RAIL_FAIL, i,
						 "%s has no active port on %s%s: a port down or a "
						 "cable out?",
						 x->nodes[i].name, lbl, hint);
			} else if ((by_pos ? strcmp(p->dev, map->rails[r].name) != 0 :
				    map->by != FC_RAIL_BY_NAME && bad[r]) &&
				   off < sizeof(swaps)) {
				off += (size_t)snprintf(swaps + off, sizeof(swaps) - off, "%s%s on %s",
							nswap++ ? ", " : "", p->dev, lbl);
			}
		}
		if (nswap && !rc && map->by == FC_RAIL_BY_GATEWAY && x->gw_swap[i])
			continue; /* said by the gateways (core/rail_gw.c) */
		if (nswap && !rc && by_pos)
			rc = rail_add_finding(map, FC_RAIL_NOTE, i,
					      "%s of %s: %s by position: its device names are not "
					      "in the PCIe order of the other nodes' (rails by "
					      "position cannot tell a swapped cable)",
					      nswap > 1 ? "ports" : "a port", x->nodes[i].name, swaps);
		else if (nswap && !rc)
			rc = swap_finding(x, &ref, i, nswap, swaps);
	}
	return rc;
}

int fc_rail_match(const struct fc_rail_node *nodes, int n, const struct fc_rail_opts *opts,
		  struct fc_rail_map *map)
{
	struct fc_rail_opts none = { 0 };
	struct match x = { .nodes = nodes, .n = n, .o = opts ? opts : &none, .map = map };
	int rc;

	memset(map, 0, sizeof(*map));
	if (n < 0)
		return -EINVAL;
	map->nnodes = n;
	for (int i = 0; i < n; i++)
		x.stride = nodes[i].nports > x.stride ? nodes[i].nports : x.stride;
	x.left = calloc((size_t)n * (size_t)x.stride + 1, 1);
	if (!x.left)
		return -ENOMEM;
	rc = rail_leave_out(&x);
	if (!rc)
		rc = rail_choose(&x);
	if (!rc)
		rc = collect(&x);
	if (!rc)
		name_groups(&x);
	if (!rc && (map->by == FC_RAIL_BY_SWITCH || map->by == FC_RAIL_BY_LLDP)) {
		rc = rail_reach(&x);
	} else if (!rc) {
		rc = pick_members(&x);
		if (!rc)
			rc = make_rails(&x);
		for (int a = 0; a < x.nm; a++)
			x.m[a].rail = x.g[x.m[a].group].rail;
	}
	if (!rc)
		rc = fill_ports(&x);
	if (!rc)
		rc = check_nodes(&x);
	free(x.m);
	free(x.g);
	free(x.left);
	free(x.gw_swap);
	return rc;
}
