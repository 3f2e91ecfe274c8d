/*
 * Rails by the leaf each port reaches (rail_int.h): on InfiniBand the
 * switch's node GUID (smpquery nodeinfo), on Ethernet the LLDP neighbour's
 * chassis (lldpctl -f json). A rail is the set of ports that reach the same
 * set of leaves across nodes:
 *
 * - A scalable unit is a group of leaves no node reaches outside of: the
 *   nodes of one unit share its leaves, the units do not (NVIDIA DGX
 *   SuperPOD reference architecture: 8 leaves, one a rail, for each SU; 2 SUs
 *   16 leaves). Each unit gives its rails; rail K of the fabric is rail K of
 *   every unit, joined by the leaves' names with the unit's number left out
 *   ("MF0;su1-ib-leaf-r3:MQM9790/U1" and "...su2...r3..." are rail 3) where
 *   the names tell, else in the order of the ports that reach them (said).
 * - A leaf may carry several rails: a node's ports on it are its slots,
 *   told apart by their position on the node (NUMA node, PCI address).
 * - A unit of one leaf that carries every port of its nodes is a
 *   top-of-rack switch: not rail-optimized, one warning that says so; its
 *   rails are the ports in position order, all through that switch.
 * - The rails of a unit are ordered by the ports' position on the nodes
 *   (most nodes' order), which never moves a port off the leaf it reaches.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rail_int.h"
#include "core/util.h"

#define SLOTS_MAX (FC_RAIL_MAX * 4)

struct sub {
	int comp, group, slot;
	int order;     /* among its unit's rails, -1 none */
	double ref;    /* the mean position rank of its ports */
	double refsum;
	int refn;
	char join[80]; /* the leaf's name with the unit's number left out */
};

struct reach {
	struct match *x;
	int *comp, ncomp;  /* [group]: its unit; -1 a lone leaf */
	int *slots;	   /* [group]: ports one node has on it, at most */
	int *msub, *rank;  /* [member]: its sub-rail (-1 none), its position */
	struct sub *s;
	int ns;
	int by_name;	   /* units joined by the leaves' names */
};

static const struct fc_rail_port *port_of(const struct match *x, const struct member *m)
{
	return &x->nodes[m->node].ports[m->port];
}

/* The name a leaf goes by: the switch's node description, else its GUID;
 * the LLDP chassis. */
static const char *leaf_name(const struct match *x, int g)
{
	for (int a = 0; a < x->nm; a++)
		if (x->m[a].group == g && port_of(x, &x->m[a])->peer_desc[0])
			return port_of(x, &x->m[a])->peer_desc;
	return x->g[g].key;
}

static int find(int *p, int a)
{
	while (p[a] != a)
		a = p[a] = p[p[a]];
	return a;
}

/* Units: the groups joined by a node that reaches both. */
static void units(struct reach *R)
{
	struct match *x = R->x;
	int *p = R->comp, *id = R->slots; /* id: scratch, reset below */

	for (int k = 0; k < x->ng; k++)
		p[k] = k;
	for (int a = 1; a < x->nm; a++)
		if (x->m[a].node == x->m[a - 1].node)
			p[find(p, x->m[a].group)] = find(p, x->m[a - 1].group);
	for (int k = 0; k < x->ng; k++)
		id[k] = find(p, k); /* the root of each */
	R->ncomp = 0;
	for (int k = 0; k < x->ng; k++) {
		int root = id[k], c = -1;

		for (int j = 0; j < k && c < 0; j++)
			if (id[j] == root)
				c = p[j];
		p[k] = c >= 0 ? c : R->ncomp++;
	}
	for (int k = 0; k < x->ng; k++) {
		id[k] = 0;
		for (int a = 0, cnt = 0; a < x->nm; a++) {
			cnt = a && x->m[a - 1].node == x->m[a].node ? cnt : 0;
			cnt += x->m[a].group == k;
			id[k] = cnt > id[k] ? cnt : id[k];
		}
	}
}

/* In a unit of several nodes, more leaf slots than its nodes have ports:
 * the leaves only one node reaches are a cable astray (or a storage port),
 * not a rail. */
static int lone_leaves(struct reach *R)
{
	struct match *x = R->x;
	int rc = 0;

	for (int c = 0; c < R->ncomp && !rc; c++) {
		int nodes = 0, most = 0, slots = 0, last = -1;

		for (int a = 0; a < x->nm; a++)
			if (R->comp[x->m[a].group] == c && x->m[a].node != last) {
				int cnt = 0;

				last = x->m[a].node;
				nodes++;
				for (int q = 0; q < x->nodes[last].nports; q++)
					cnt += rail_slot_port(x, last, q);
				most = cnt > most ? cnt : most;
			}
		for (int k = 0; k < x->ng; k++)
			slots += R->comp[k] == c ? R->slots[k] : 0;
		if (nodes < 2 || slots <= most)
			continue;
		for (int k = 0; k < x->ng && !rc; k++) {
			if (R->comp[k] != c || x->g[k].nodes_with != 1)
				continue;
			for (int a = 0; a < x->nm && !rc; a++)
				if (x->m[a].group == k)
					rc = rail_lone_port(x, &x->m[a]);
			R->comp[k] = -1;
		}
	}
	return rc ? rc : rail_left_flush(x);
}

/* A node's members on group @g, in position order; the count. */
static int on_group(const struct reach *R, int first, int g, int *idx)
{
	const struct match *x = R->x;
	int n = 0;

	for (int a = first; a < x->nm && x->m[a].node == x->m[first].node; a++) {
		int k = n;

		if (x->m[a].group != g || n == SLOTS_MAX)
			continue;
		while (k > 0 && R->rank[idx[k - 1]] > R->rank[a]) {
			idx[k] = idx[k - 1];
			k--;
		}
		idx[k] = a;
		n++;
	}
	return n;
}

static int sub_of(const struct reach *R, int g, int slot)
{
	for (int i = 0; i < R->ns; i++)
		if (R->s[i].group == g && R->s[i].slot == slot)
			return i;
	return -1;
}

/* Node's members @idx (@n, position order) on group @g to its slots: in
 * order where the node has a port in every slot; with fewer (a port down),
 * each to the free slot whose ports are nearest its own position, so the
 * others stay where they are. */
static void place(struct reach *R, int g, const int *idx, int n)
{
	for (int k = 0; k < n; k++) {
		int best = n == R->slots[g] ? k : -1, si;
		double bd = 0;

		for (int sl = 0; best < 0 || (n < R->slots[g] && sl < R->slots[g]); sl++) {
			const struct sub *s;
			double d;
			int taken = 0;

			if (sl >= R->slots[g])
				break;
			s = &R->s[sub_of(R, g, sl)];
			d = s->refn ? s->refsum / s->refn - R->rank[idx[k]] : sl - k;
			for (int j = 0; j < k; j++)
				taken |= R->msub[idx[j]] == sub_of(R, g, sl);
			d = d < 0 ? -d : d;
			if (!taken && (best < 0 || d < bd)) {
				best = sl;
				bd = d;
			}
		}
		si = sub_of(R, g, best < 0 ? 0 : best);
		R->msub[idx[k]] = si;
		R->s[si].refsum += R->rank[idx[k]];
		R->s[si].refn++;
	}
}

static void assign(struct reach *R)
{
	const struct match *x = R->x;
	int idx[SLOTS_MAX];

	for (int pass = 0; pass < 2; pass++)
		for (int a = 0; a < x->nm; a++) {
			if (a && x->m[a - 1].node == x->m[a].node)
				continue; /* from a node's first member */
			for (int g = 0; g < x->ng; g++) {
				int n = R->comp[g] < 0 ? 0 : on_group(R, a, g, idx);

				if (n && (n == R->slots[g]) == !pass)
					place(R, g, idx, n);
			}
		}
}

/* [node * ns + sub]: the position rank of the node's port on the sub-rail, -1 none. */
static int *node_ranks(const struct reach *R)
{
	const struct match *x = R->x;
	int *rk = malloc(((size_t)x->n * (size_t)R->ns + 1) * sizeof(*rk));

	if (!rk)
		return NULL;
	for (int i = 0; i < x->n * R->ns; i++)
		rk[i] = -1;
	for (int a = 0; a < x->nm; a++)
		if (R->msub[a] >= 0)
			rk[x->m[a].node * R->ns + R->msub[a]] = R->rank[a];
	return rk;
}

/* Whether sub-rail @a comes before @b: most nodes with a port on both have
 * @a's first; else the lower mean position; else the leaf's key, the slot. */
static int before(const struct reach *R, const int *rk, int a, int b)
{
	const struct sub *sa = &R->s[a], *sb = &R->s[b];
	int vote = 0, c;

	for (int i = 0; i < R->x->n; i++) {
		int ra = rk[i * R->ns + a], rb = rk[i * R->ns + b];

		if (ra >= 0 && rb >= 0)
			vote += ra < rb ? 1 : -1;
	}
	if (vote)
		return vote > 0;
	if (sa->refsum * sb->refn != sb->refsum * sa->refn)
		return sa->refsum * sb->refn < sb->refsum * sa->refn;
	c = strcmp(R->x->g[sa->group].key, R->x->g[sb->group].key);
	return c ? c < 0 : sa->slot < sb->slot;
}

/* Each unit's sub-rails in order; @count[c] of them. */
static int order_units(struct reach *R, int *count)
{
	int *rk = node_ranks(R), list[SLOTS_MAX];

	if (!rk)
		return -ENOMEM;
	for (int c = 0; c < R->ncomp; c++) {
		int n = 0;

		for (int i = 0; i < R->ns && n < SLOTS_MAX; i++) {
			int k = n;

			if (R->s[i].comp != c)
				continue;
			while (k > 0 && before(R, rk, i, list[k - 1])) {
				list[k] = list[k - 1];
				k--;
			}
			list[k] = i;
			n++;
		}
		for (int k = 0; k < n; k++)
			R->s[list[k]].order = k;
		count[c] = n;
	}
	free(rk);
	return 0;
}

/* @name with its digit run @run as '#' into @buf, its value in @val; 0
 * when it has fewer runs. */
static int mask_run(const char *name, int run, char *buf, size_t len, long *val)
{
	size_t o = 0;
	int r = 0, hit = 0;

	for (const char *c = name; *c && o + 2 < len;) {
		if (!isdigit((unsigned char)*c)) {
			buf[o++] = *c++;
			continue;
		}
		if (r++ == run) {
			*val = strtol(c, NULL, 10);
			buf[o++] = '#';
			hit = 1;
			while (isdigit((unsigned char)*c))
				c++;
			continue;
		}
		while (isdigit((unsigned char)*c) && o + 2 < len)
			buf[o++] = *c++;
	}
	buf[o] = 0;
	return hit;
}

/* The name a leaf is known by for a join: the switch's node description
 * (InfiniBand), the LLDP chassis (a system name); NULL for a bare GUID. */
static const char *join_name(const struct match *x, int g)
{
	const char *n = leaf_name(x, g);

	return x->map->by == FC_RAIL_BY_SWITCH && n == x->g[g].key ? NULL : n;
}

/* Whether digit run @run of the leaves' names is the unit's number: one
 * value in each unit, another in every unit, and the names with it left
 * out (and the slot) pair each unit's rails with the largest unit's. */
static int join_at(struct reach *R, int run, const int *count, int big)
{
	const struct match *x = R->x;
	long *val = calloc((size_t)R->ncomp, sizeof(*val));
	int ok = val != NULL;

	for (int c = 0; c < R->ncomp && ok; c++)
		val[c] = -1;
	for (int i = 0; i < R->ns && ok; i++) {
		struct sub *s = &R->s[i];
		const char *n = join_name(x, s->group);
		char m[72];
		long v = -1;

		ok = n && mask_run(n, run, m, sizeof(m), &v) && (val[s->comp] < 0 || val[s->comp] == v);
		val[s->comp] = v;
		snprintf(s->join, sizeof(s->join), "%s/%d", m, s->slot);
	}
	for (int c = 0; c < R->ncomp && ok; c++)
		for (int d = 0; d < c && ok; d++)
			ok = val[c] != val[d];
	for (int i = 0; i < R->ns && ok; i++) {
		int hits = 0;

		for (int j = 0; j < R->ns; j++)
			hits += R->s[j].comp == big && !strcmp(R->s[j].join, R->s[i].join);
		ok = hits == 1;
	}
	free(val);
	(void)count;
	return ok;
}

/*
 * Whether digit run @run of the leaves' names is the rail's number: every
 * leaf of a unit has its own value (with its slot), and each leaf of every
 * unit finds exactly one leaf of the largest unit with its value. Where the
 * rest of a name also changes from unit to unit (a row or room as well as
 * the unit: "MF0;A09-P1-IBLEAF-04-01" and "MF0;B09-P1-IBLEAF-04-08", rail 4
 * of units 1 and 8 in tests/real/ibnetdiscover), join_at cannot tell; the
 * rail's number still does. Leaves named by rail and unit: NVIDIA DGX
 * SuperPOD reference architecture (one leaf a rail in each SU).
 */
static int join_rail_at(struct reach *R, int run, int big)
{
	int ok = 1;

	for (int i = 0; i < R->ns && ok; i++) {
		struct sub *s = &R->s[i];
		const char *n = join_name(R->x, s->group);
		char m[72];
		long v = -1;

		ok = n && mask_run(n, run, m, sizeof(m), &v);
		snprintf(s->join, sizeof(s->join), "%ld/%d", v, s->slot);
	}
	for (int i = 0; i < R->ns && ok; i++) {
		int hits = 0;

		for (int j = 0; j < R->ns; j++) {
			int same = !strcmp(R->s[j].join, R->s[i].join);

			ok &= j == i || R->s[j].comp != R->s[i].comp || !same;
			hits += R->s[j].comp == big && same;
		}
		ok &= hits == 1;
	}
	return ok;
}

/* Rail K of every unit: by the leaves' names where they tell, else by order. */
static void join_units(struct reach *R, const int *count)
{
	int big = 0;

	for (int c = 1; c < R->ncomp; c++)
		big = count[c] > count[big] ? c : big;
	if (R->ncomp < 2)
		return;
	for (int run = 0; run < 8 && !R->by_name; run++)
		R->by_name = join_at(R, run, count, big);
	for (int run = 0; run < 8 && !R->by_name; run++)
		R->by_name = join_rail_at(R, run, big);
	for (int i = 0; i < R->ns && R->by_name; i++)
		for (int j = 0; j < R->ns; j++)
			if (R->s[j].comp == big && !strcmp(R->s[j].join, R->s[i].join))
				R->s[i].order = R->s[j].order;
}

/* The device most of rail @k's ports are named (the first on a tie). */
static const char *rail_dev(const struct reach *R, int k)
{
	const struct match *x = R->x;
	const char *name[64];
	int cnt[64], n = 0, best = -1;

	for (int a = 0; a < x->nm; a++) {
		const char *d = port_of(x, &x->m[a])->dev;
		int j;

		if (R->msub[a] < 0 || R->s[R->msub[a]].order != k)
			continue;
		for (j = 0; j < n && strcmp(name[j], d); j++)
			;
		if (j == n && n == 64)
			continue;
		if (j == n) {
			name[n] = d;
			cnt[n++] = 0;
		}
		if (++cnt[j] > (best < 0 ? 0 : cnt[best]))
			best = j;
	}
	return best < 0 ? "" : name[best];
}

/* Rail @k's leaves into @rl (each leaf once, by the name it goes by). */
static void rail_leaves(const struct reach *R, int k, struct fc_rail *rl)
{
	const struct match *x = R->x;
	size_t off = 0;

	for (int i = 0; i < R->ns; i++) {
		const struct sub *s = &R->s[i];
		int dup = 0;

		if (s->order != k)
			continue;
		for (int j = 0; j < i; j++)
			dup |= R->s[j].order == k && R->s[j].group == s->group;
		if (dup)
			continue;
		if (!rl->nleaves++) {
			snprintf(rl->peer, sizeof(rl->peer), "%s",
				 x->map->by == FC_RAIL_BY_SWITCH ? x->g[s->group].key : "");
			snprintf(rl->peer_desc, sizeof(rl->peer_desc), "%s",
				 x->map->by == FC_RAIL_BY_SWITCH && leaf_name(x, s->group) !=
				 x->g[s->group].key ? leaf_name(x, s->group) : "");
			snprintf(rl->leaf, sizeof(rl->leaf), "%s",
				 x->map->by == FC_RAIL_BY_LLDP ? x->g[s->group].key : "");
		}
		if (off < sizeof(rl->leaves))
			off += (size_t)snprintf(rl->leaves + off, sizeof(rl->leaves) - off, "%s%s",
						off ? ", " : "", leaf_name(x, s->group));
	}
}

static int make(struct reach *R, int nr)
{
	struct match *x = R->x;
	const char *names[SLOTS_MAX] = { 0 };
	int pos[SLOTS_MAX], rc;

	for (int k = 0; k < nr; k++)
		names[k] = rail_dev(R, k);
	rc = rail_check_only(x, names, nr);
	if (!rc && nr > FC_RAIL_MAX)
		rc = rail_add_finding(x->map, FC_RAIL_WARN, -1,
				      "%d rails found, only the first %d are tested", nr, FC_RAIL_MAX);
	for (int k = 0; k < nr && !rc; k++) {
		struct fc_rail *rl;

		pos[k] = -1;
		if (x->map->nrails == FC_RAIL_MAX || !rail_selected(x, names[k], k))
			continue;
		pos[k] = x->map->nrails;
		rl = &x->map->rails[x->map->nrails++];
		rl->index = k;
		snprintf(rl->name, sizeof(rl->name), "%s", names[k]);
		rail_leaves(R, k, rl);
	}
	for (int a = 0; a < x->nm && !rc; a++) {
		int o = R->msub[a] < 0 ? -1 : R->s[R->msub[a]].order;

		x->m[a].rail = o >= 0 && o < nr ? pos[o] : -1;
	}
	return rc;
}

/* Top-of-rack units: one leaf that carries every port of its nodes. */
static int tor_note(const struct reach *R)
{
	const struct match *x = R->x;
	char leaves[200] = "";
	size_t off = 0;
	int ntor = 0, ports = 0;

	for (int c = 0; c < R->ncomp; c++) {
		int g = -1, ng = 0;

		for (int k = 0; k < x->ng; k++)
			if (R->comp[k] == c) {
				g = k;
				ng++;
			}
		if (ng != 1 || R->slots[g] < 2)
			continue;
		ports = R->slots[g] > ports ? R->slots[g] : ports;
		if (off < sizeof(leaves))
			off += (size_t)snprintf(leaves + off, sizeof(leaves) - off, "%s%s",
						ntor ? ", " : "", leaf_name(x, g));
		ntor++;
	}
	if (!ntor)
		return 0;
	/* A warning, once for the rack: the wiring is a choice, not a failed
	 * part, but every rail test then runs through one switch (Juniper JVD
	 * "Rail Optimized Fabric"; NVIDIA DGX SuperPOD RA: each scalable unit
	 * "rail-aligned"), so the rack is tested as a ToR rack, said here. */
	return rail_add_finding(x->map, FC_RAIL_WARN, -1,
				"not rail-optimized: every port of a node reaches one switch "
				"(%s; %d ports a node): the rails are the ports in PCIe order, all "
				"through %s, and traffic between rails never leaves it, so each port "
				"is tested through that switch; a rail-optimized fabric cables each "
				"of a node's NICs to the leaf of its own rail", leaves, ports,
				ntor > 1 ? "the node's switch" : "that switch");
}

/* Leaves that carry several rails in a unit of several leaves. */
static int shared_leaf_notes(const struct reach *R)
{
	const struct match *x = R->x;
	int rc = 0;

	for (int k = 0; k < x->ng && !rc; k++) {
		int others = 0;

		if (R->comp[k] < 0 || R->slots[k] < 2)
			continue;
		for (int j = 0; j < x->ng; j++)
			others += j != k && R->comp[j] == R->comp[k];
		if (others)
			rc = rail_add_finding(x->map, FC_RAIL_NOTE, -1,
					      "leaf %s carries %d rails: a node's ports on it are "
					      "told apart by their position on the node (NUMA node, "
					      "PCI address)", leaf_name(x, k), R->slots[k]);
	}
	return rc;
}

/* How the units were joined; units with fewer rails than the others. */
static int unit_notes(const struct reach *R, const int *count, int nr)
{
	const struct match *x = R->x;
	int rc = 0;

	if (R->ncomp < 2)
		return 0;
	rc = rail_add_finding(x->map, FC_RAIL_NOTE, -1,
			      "%d scalable units (groups of leaves no node reaches across): "
			      "rail K of each joined %s", R->ncomp, R->by_name ?
			      "by the leaves' names with the unit's number left out" :
			      "in the order of the ports that reach them (assumed: the "
			      "leaves' names do not tell which leaf of one unit carries the "
			      "rail of which leaf of another)");
	for (int c = 0; c < R->ncomp && !rc; c++) {
		int g = 0;

		while (R->comp[g] != c)
			g++;
		if (count[c] < nr)
			rc = rail_add_finding(x->map, FC_RAIL_WARN, -1,
					      "the scalable unit of leaf %s has %d rail%s, another "
					      "has %d: its nodes have no port on the others",
					      leaf_name(x, g), count[c], fc_s(count[c]), nr);
	}
	return rc;
}

int rail_reach(struct match *x)
{
	struct reach R = { .x = x };
	int *count = NULL, nr = 0, rc = -ENOMEM;

	R.comp = calloc((size_t)x->ng + 1, sizeof(int));
	R.slots = calloc((size_t)x->ng + 1, sizeof(int));
	R.msub = calloc((size_t)x->nm + 1, sizeof(int));
	R.rank = calloc((size_t)x->nm + 1, sizeof(int));
	R.s = calloc((size_t)x->nm + 1, sizeof(*R.s));
	if (!R.comp || !R.slots || !R.msub || !R.rank || !R.s)
		goto out;
	for (int a = 0; a < x->nm; a++) {
		x->m[a].used = 1;
		R.msub[a] = -1;
		R.rank[a] = rail_port_rank(x, x->m[a].node, x->m[a].port);
	}
	units(&R);
	count = calloc((size_t)R.ncomp + 1, sizeof(int));
	rc = count ? lone_leaves(&R) : -ENOMEM;
	for (int k = 0; k < x->ng && !rc; k++)
		for (int sl = 0; R.comp[k] >= 0 && sl < R.slots[k] && R.ns < x->nm; sl++)
			R.s[R.ns++] = (struct sub){ .comp = R.comp[k], .group = k, .slot = sl,
						    .order = -1 };
	if (!rc) {
		assign(&R);
		rc = order_units(&R, count);
	}
	if (!rc) {
		join_units(&R, count);
		for (int c = 0; c < R.ncomp; c++)
			nr = count[c] > nr ? count[c] : nr;
		rc = make(&R, nr);
	}
	if (!rc)
		rc = tor_note(&R);
	if (!rc)
		rc = shared_leaf_notes(&R);
	if (!rc)
		rc = unit_notes(&R, count, nr);
out:
	free(R.comp);
	free(R.slots);
	free(R.msub);
	free(R.rank);
	free(R.s);
	free(count);
	return rc;
}
