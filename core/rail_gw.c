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
