/*
 * Routed RoCE without LLDP: the rails by the leaf each port's gateway is on
 * (rail_int.h). Each port's /31 (/30, /127, /126) has its gateway, the
 * leaf's end of the link; a leaf numbers its links from a pool of its own,
 * so the gateways fall in as many pools as the nodes have rails. The pools
 * are found where the gateways, cut to a common prefix length, take exactly
 * that many values (every such length gives the same pools); each port then
 * is on the rail of its gateway's pool, whatever its slot. Where no length
 * gives that (one pool for every rail, or every gateway its own), or a port
 * has no gateway, the rails stay by position.
 *
 * Where position cannot be had (a node's PCI addresses not recorded), the
 * gateways alone: the ports with one are pooled the same way, the most of
 * them a node has for the rails' count, and each node may have one port a
 * pool; a port without a gateway on such a fabric (a bond or front-end
 * port in a shared subnet) is on no rail, said. The real plan of
 * tests/real/ip/idx53226581302_* (four nodes, eight /31 rails, two server
 * models naming them differently, no PCI address) is matched so.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rail_int.h"

struct gw {
	unsigned char a[16];
	int pos;  /* the member's position */
	int pool; /* its pool, 0..npools-1 */
};

/* The gateway of member @m into @g; 4 or 16 (the address's bytes), 0 none. */
static int parse_gw(const struct match *x, const struct member *m, struct gw *g)
{
	const char *s = x->nodes[m->node].ports[m->port].gateway;

	memset(g, 0, sizeof(*g));
	if (inet_pton(AF_INET, s, g->a) == 1)
		return 4;
	if (inet_pton(AF_INET6, s, g->a) == 1)
		return 16;
	return 0;
}

/* Whether @a and @b share their first @bits bits. */
static int same_prefix(const unsigned char *a, const unsigned char *b, int bits)
{
	int full = bits / 8, rest = bits % 8;

	if (memcmp(a, b, (size_t)full))
		return 0;
	return !rest || !((a[full] ^ b[full]) & (0xff << (8 - rest)));
}

/* Pools at prefix length @bits: each gateway's pool number; the count. */
static int pools_at(struct gw *g, int n, int bits)
{
	int np = 0;

	for (int i = 0; i < n; i++) {
		g[i].pool = -1;
		for (int j = 0; j < i && g[i].pool < 0; j++)
			if (same_prefix(g[i].a, g[j].a, bits))
				g[i].pool = g[j].pool;
		if (g[i].pool < 0)
			g[i].pool = np++;
	}
	return np;
}

/* The prefix of @first, @bits long, as "ADDR/LEN". */
static void fmt_prefix(const unsigned char *first, int bits, int bytes, char *buf, size_t len)
{
	unsigned char net[16] = { 0 };
	char addr[INET6_ADDRSTRLEN];

	for (int b = 0; b < bits; b++)
		net[b / 8] |= (unsigned char)(first[b / 8] & (0x80 >> (b % 8)));
	inet_ntop(bytes == 4 ? AF_INET : AF_INET6, net, addr, sizeof(addr));
	snprintf(buf, len, "%s/%d", addr, bits);
}

/* The longest prefix the gateways of pool @p share, as "ADDR/LEN". */
static void pool_prefix(const struct gw *g, int n, int p, int bytes, char *buf, size_t len)
{
	int first = -1, bits = 8 * bytes;

	for (int i = 0; i < n; i++) {
		if (g[i].pool != p)
			continue;
		if (first < 0)
			first = i;
		while (bits > 0 && !same_prefix(g[first].a, g[i].a, bits))
			bits--;
	}
	if (first >= 0)
		fmt_prefix(g[first].a, bits, bytes, buf, len);
	else
		snprintf(buf, len, "?");
}

/* The position most of pool @p's ports have. */
static int pool_position(const struct gw *g, int n, int p)
{
	int best = -1, bestc = 0;

	for (int i = 0; i < n; i++) {
		int c = 0;

		for (int j = 0; g[i].pool == p && j < n; j++)
			c += g[j].pool == p && g[j].pos == g[i].pos;
		if (c > bestc || (c == bestc && g[i].pos < best)) {
			bestc = c;
			best = g[i].pos;
		}
	}
	return best;
}

/* The note of the rails by gateway, in place of the position note. */
static void note(struct match *x, const struct gw *g, int n, int np, int bytes)
{
	char *a = x->map->assumed, was[sizeof(x->map->assumed)], pre[64];
	size_t len = sizeof(x->map->assumed), off;

	snprintf(was, sizeof(was), "%s", a);
	off = (size_t)snprintf(a, len, "routed RoCE: rails matched by the leaf each port's "
			       "gateway is on, assumed from the gateways' %d pools (", np);
	for (int p = 0; p < np && off < len; p++) {
		pool_prefix(g, n, p, bytes, pre, sizeof(pre));
		off += (size_t)snprintf(a + off, len - off, "%s%s", p ? ", " : "", pre);
	}
	if (off < len)
		snprintf(a + off, len - off, "): lldpd running on the nodes (lldpctl -f json) "
			 "would confirm which leaf each port reaches");
	for (int i = 0; i < x->map->nfindings; i++)
		if (!strcmp(x->map->findings[i].text, was))
			snprintf(x->map->findings[i].text, sizeof(x->map->findings[i].text), "%s",
				 a);
}

/* Per node: the ports whose gateway is in another slot's pool (a cable to
 * another rail's leaf), one finding naming each with both pools. */
static int swaps(struct match *x, const struct gw *g, int bytes)
{
	int rc = 0;

	for (int a = 0; a < x->nm && !rc; a++) {
		int node = x->m[a].node, nsw = 0;
		char text[320] = "", pp[64], pk[64];
		size_t off = 0;

		if (a && x->m[a - 1].node == node)
			continue; /* a node's members are in a row */
		for (int b = a; b < x->nm && x->m[b].node == node; b++) {
			const struct fc_rail_port *p = &x->nodes[node].ports[x->m[b].port];

			if (g[b].pool == g[b].pos || off >= sizeof(text))
				continue;
			pool_prefix(g, x->nm, g[b].pool, bytes, pp, sizeof(pp));
			pool_prefix(g, x->nm, g[b].pos, bytes, pk, sizeof(pk));
			off += (size_t)snprintf(text + off, sizeof(text) - off,
						"%s%s (slot %d) has gateway %s in slot %d's pool %s, not in %s",
						nsw++ ? "; " : "", p->dev, g[b].pos, p->gateway,
						g[b].pool, pp, pk);
		}
		if (!nsw)
			continue;
		x->gw_swap[node] = 1;
		rc = rail_add_finding(x->map, FC_RAIL_FAIL, node,
				      "%s: %s: swapped cable%s? Each port reaches the leaf of "
				      "another slot's rail; traffic still flows, but a GPU's "
				      "rail-local HCA no longer reaches its peers' rail (lldpd on "
				      "the nodes, lldpctl -f json, would confirm the leaves)",
				      x->nodes[node].name, text, nsw > 1 ? "s" : "");
	}
	return rc;
}

/* The ports' gateways, cut to the longest common length that gives at
 * most @npos pools: the pool count when it is @npos (at least 2) and no
 * node has two ports in one pool, else 0. @node[i]: the node of @g[i]. */
static int pools_by_node(struct gw *g, const int *node, int n, int npos, int bytes)
{
	int bits, np = 0;

	for (bits = 8 * bytes; bits > 0; bits--)
		if ((np = pools_at(g, n, bits)) <= npos)
			break;
	if (np != npos || npos < 2)
		return 0;
	for (int a = 1; a < n; a++)
		for (int b = 0; b < a; b++)
			if (node[a] == node[b] && g[a].pool == g[b].pool)
				return 0; /* a pool per node, not per leaf */
	return np;
}

/* The gateways of the eligible ports that have one into @g (@node: their
 * nodes); their count, the most a node has in *@npos, the address size
 * in *@bytes; -1 for two address families. */
static int eligible_gws(const struct match *x, struct gw *g, int *node, int *npos, int *bytes)
{
	int n = 0;

	*npos = 0;
	*bytes = 0;
	for (int i = 0; i < x->n; i++) {
		int c = 0;

		for (int j = 0; j < x->nodes[i].nports; j++) {
			struct member m = { .node = i, .port = j };
			int b;

			if (!rail_eligible(x, i, j) || !(b = parse_gw(x, &m, &g[n])))
				continue;
			if (*bytes && b != *bytes)
				return -1;
			*bytes = b;
			node[n++] = i;
			c++;
		}
		*npos = c > *npos ? c : *npos;
	}
	return n;
}

int rail_gateway_pools_ok(const struct match *x)
{
	int total = 1, n, npos, bytes, ok = 0, *node;
	struct gw *g;

	if (x->map->link_layer != FC_RAIL_LL_ETH)
		return 0;
	for (int i = 0; i < x->n; i++)
		total += x->nodes[i].nports;
	g = calloc((size_t)total, sizeof(*g));
	node = calloc((size_t)total, sizeof(*node));
	if (g && node && (n = eligible_gws(x, g, node, &npos, &bytes)) > 1)
		ok = pools_by_node(g, node, n, npos, bytes) > 0;
	free(g);
	free(node);
	return ok;
}

int rail_gateway_only_keys(struct match *x)
{
	struct gw *g = calloc((size_t)x->nm + 1, sizeof(*g));
	int *node = calloc((size_t)x->nm + 1, sizeof(*node));
	int np = 0, bytes = 0, npos = 0;

	x->gw_only = 1;
	x->gw_swap = calloc((size_t)x->n + 1, 1);
	if (!g || !node || !x->gw_swap) {
		free(g);
		free(node);
		return -ENOMEM;
	}
	for (int a = 0, c = 0; a < x->nm; a++) {
		bytes = parse_gw(x, &x->m[a], &g[a]);
		node[a] = x->m[a].node;
		c = a && x->m[a - 1].node == node[a] ? c + 1 : 1;
		npos = c > npos ? c : npos;
	}
	if (bytes)
		np = pools_by_node(g, node, x->nm, npos, bytes);
	for (int a = 0; a < x->nm && np; a++)
		snprintf(x->m[a].key, sizeof(x->m[a].key), "gateway %d", g[a].pool);
	if (np)
		note(x, g, x->nm, np, bytes);
	free(g);
	free(node);
	return 0;
}

int rail_gateway_keys(struct match *x)
{
	struct gw *g;
	int bytes = 0, npos = 0, np = 0, bits, rc = 0;

	if (x->map->link_layer != FC_RAIL_LL_ETH || x->nm < 2)
		return 0;
	g = calloc((size_t)x->nm, sizeof(*g));
	x->gw_swap = calloc((size_t)x->n + 1, 1);
	if (!g || !x->gw_swap) {
		free(g);
		return -ENOMEM;
	}
	for (int a = 0; a < x->nm; a++) {
		int b = parse_gw(x, &x->m[a], &g[a]);

		if (!b || (bytes && b != bytes))
			goto out; /* a port without a gateway, or of two families */
		bytes = b;
		g[a].pos = atoi(x->m[a].key + 9); /* "position K" */
		npos = g[a].pos + 1 > npos ? g[a].pos + 1 : npos;
	}
	for (bits = 8 * bytes; bits > 0; bits--)
		if ((np = pools_at(g, x->nm, bits)) <= npos)
			break;
	if (np != npos || npos < 2)
		goto out; /* the gateways do not tell the leaves apart */
	for (int p = 0; p < np; p++)
		for (int q = 0; q < p; q++)
			if (pool_position(g, x->nm, p) == pool_position(g, x->nm, q))
				goto out; /* two pools mostly at one slot: no rail each */
	for (int a = 1; a < x->nm; a++)
		for (int b = 0; b < a; b++)
			if (x->m[a].node == x->m[b].node && g[a].pool == g[b].pool)
				goto out; /* a pool per node, not per leaf */
	for (int a = 0; a < x->nm; a++)
		snprintf(x->m[a].key, sizeof(x->m[a].key), "gateway %d",
			 pool_position(g, x->nm, g[a].pool));
	/* The pools in position order, named by their prefix, for the note. */
	for (int a = 0; a < x->nm; a++)
		g[a].pool = atoi(x->m[a].key + 8);
	note(x, g, x->nm, np, bytes);
	x->map->by = FC_RAIL_BY_GATEWAY;
	rc = swaps(x, g, bytes);
out:
	free(g);
	return rc;
}

int rail_gateway_in(const char *gw, const char *prefix)
{
	unsigned char a[16], b[16];
	char addr[INET6_ADDRSTRLEN];
	const char *slash = strchr(prefix, '/');
	int v6 = strchr(gw, ':') != NULL, af = v6 ? AF_INET6 : AF_INET;

	if (!gw[0] || !slash || (size_t)(slash - prefix) >= sizeof(addr))
		return 0;
	snprintf(addr, sizeof(addr), "%.*s", (int)(slash - prefix), prefix);
	if (inet_pton(af, gw, a) != 1 || inet_pton(af, addr, b) != 1)
		return 0;
	return same_prefix(a, b, atoi(slash + 1));
}

void rail_gateway_leaf(const struct match *x, const char *key, char *buf, size_t len)
{
	struct gw first, g;
	int n = 0, bytes = 0, bits = 0;

	buf[0] = 0;
	for (int a = 0; a < x->nm; a++) {
		if (strcmp(x->m[a].key, key) || !(bytes = parse_gw(x, &x->m[a], n ? &g : &first)))
			continue;
		if (!n++)
			bits = 8 * bytes;
		while (n > 1 && bits > 0 && !same_prefix(first.a, g.a, bits))
			bits--;
	}
	if (n)
		fmt_prefix(first.a, bits, bytes, buf, len);
}
