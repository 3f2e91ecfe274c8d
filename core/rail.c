/* Rails matched across nodes by the fabric (see rail.h). */
#include "core/rail.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One eligible port, and the network it is on. */
struct member {
	int node, port, group;
	int used; /* the node's port on that group's rail */
};

struct group {
	const char *key;  /* subnet, switch, or the device name when matching by name */
	const char *name; /* the device most nodes have on it */
	int nodes_with;	  /* nodes with a port on it */
	int rail;	  /* position in map->rails, -1 when not a rail */
};

struct match {
	const struct fc_rail_node *nodes;
	int n;
	const struct fc_rail_opts *o;
	struct fc_rail_map *map;
	struct member *m;
	int nm;
	struct group *g;
	int ng;
};

static int in_list(const char *s, const char *const *list, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(s, list[i]))
			return 1;
	return 0;
}

static int add_finding(struct fc_rail_map *map, enum fc_rail_sev sev, int node,
		       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int add_finding(struct fc_rail_map *map, enum fc_rail_sev sev, int node,
		       const char *fmt, ...)
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
	va_start(ap, fmt);
	vsnprintf(f->text, sizeof(f->text), fmt, ap);
	va_end(ap);
	return 0;
}

static const struct fc_rail_port *mport(const struct match *x, const struct member *m)
{
	return &x->nodes[m->node].ports[m->port];
}

static int excluded(const struct match *x, const struct fc_rail_port *p)
{
	return in_list(p->dev, x->o->exclude, x->o->nexclude) ||
	       (p->netdev[0] && in_list(p->netdev, x->o->exclude, x->o->nexclude));
}

static const char *ll_name(enum fc_rail_ll ll)
{
	return ll == FC_RAIL_LL_ETH ? "Ethernet (RoCE)" : "InfiniBand";
}

/* The link layer most active ports have (InfiniBand on a tie). */
static enum fc_rail_ll fabric_ll(const struct match *x)
{
	int cnt[3] = { 0 };

	for (int i = 0; i < x->n; i++)
		for (int j = 0; j < x->nodes[i].nports; j++) {
			const struct fc_rail_port *p = &x->nodes[i].ports[j];

			if (p->active && !excluded(x, p) && p->link_layer > 0 && p->link_layer <= 2)
				cnt[p->link_layer]++;
		}
	return cnt[FC_RAIL_LL_ETH] > cnt[FC_RAIL_LL_IB] ? FC_RAIL_LL_ETH : FC_RAIL_LL_IB;
}

/* Notes on ports left out: another link layer, and --exclude-dev entries
 * that name nothing. */
static int note_left_out(struct match *x)
{
	int rc = 0, other = 0;
	const struct fc_rail_port *first = NULL;
	int first_node = -1;

	for (int i = 0; i < x->n; i++)
		for (int j = 0; j < x->nodes[i].nports; j++) {
			const struct fc_rail_port *p = &x->nodes[i].ports[j];

			if (p->active && !excluded(x, p) && p->link_layer != x->map->link_layer) {
				if (!other++) {
					first = p;
					first_node = i;
				}
			}
		}
	if (other)
		rc = add_finding(x->map, FC_RAIL_NOTE, -1,
				 "%d active port%s on another link layer than the fabric's (%s) "
				 "left out (%s of %s first); --exclude-dev %s leaves them out "
				 "without this note",
				 other, other > 1 ? "s" : "", ll_name(x->map->link_layer),
				 first->dev, x->nodes[first_node].name, first->dev);
	for (int e = 0; e < x->o->nexclude && !rc; e++) {
		int hit = 0;

		for (int i = 0; i < x->n && !hit; i++)
			for (int j = 0; j < x->nodes[i].nports && !hit; j++)
				hit = !strcmp(x->nodes[i].ports[j].dev, x->o->exclude[e]) ||
				      !strcmp(x->nodes[i].ports[j].netdev, x->o->exclude[e]);
		if (!hit)
			rc = add_finding(x->map, FC_RAIL_WARN, -1,
					 "--exclude-dev %s: no node has a device or net device "
					 "of that name",
					 x->o->exclude[e]);
	}
	return rc;
}

/* What the rails are matched by, as a word for the findings. */
static const char *key_kind(const struct match *x)
{
	return x->map->by_switch ? "switch" : x->map->by_name ? "device" : "subnet";
}

/* A port the rails take: active, not left out, on the fabric's link layer. */
static int eligible(const struct match *x, const struct fc_rail_port *p)
{
	return p->active && !excluded(x, p) && p->link_layer == x->map->link_layer;
}

/* Ports that report a key, those that do not, the most eligible ports a node has. */
struct key_count {
	int with, without, maxports;
};

/* Counts the key of each eligible port (the switch it reaches when
 * @by_switch, else its subnet) into @kc; @seen(@arg, key) for each one reported. */
static void count_keys(const struct match *x, int by_switch, struct key_count *kc,
		       void (*seen)(void *arg, const char *key), void *arg)
{
	memset(kc, 0, sizeof(*kc));
	for (int i = 0; i < x->n; i++) {
		int cand = 0;

		for (int j = 0; j < x->nodes[i].nports; j++) {
			const struct fc_rail_port *p = &x->nodes[i].ports[j];
			const char *key = by_switch ? p->peer : p->subnet;

			if (!eligible(x, p))
				continue;
			cand++;
			if (!key[0]) {
				kc->without++;
				continue;
			}
			kc->with++;
			seen(arg, key);
		}
		kc->maxports = cand > kc->maxports ? cand : kc->maxports;
	}
}

/* The switches the ports reach, FC_RAIL_MAX + 1 at most. */
struct switches {
	const char *sw[FC_RAIL_MAX + 1];
	int n;
};

static void add_switch(void *arg, const char *peer)
{
	struct switches *s = arg;
	int k;

	for (k = 0; k < s->n && strcmp(s->sw[k], peer); k++)
		;
	if (k == s->n && s->n <= FC_RAIL_MAX)
		s->sw[s->n++] = peer;
}

/*
 * InfiniBand: match by the switch each port reaches where every eligible
 * port reports one and there are as many switches as a node has ports.
 * Returns 1 to match by switch; 0 otherwise (a note says why, once).
 */
static int choose_by_switch(struct match *x, int *rc)
{
	struct switches s = { .n = 0 };
	struct key_count kc;
	int nsw;

	*rc = 0;
	if (x->map->link_layer != FC_RAIL_LL_IB)
		return 0;
	count_keys(x, 1, &kc, add_switch, &s);
	nsw = s.n;
	if (kc.without) {
		*rc = add_finding(x->map, FC_RAIL_NOTE, -1,
				  "the switch %d InfiniBand port%s reach%s is not known (fabcheck "
				  "devices reads it with smpquery of infiniband-diags, which needs "
				  "umad access): rails are not matched by switch",
				  kc.without, kc.without > 1 ? "s" : "", kc.without > 1 ? "" : "es");
		return 0;
	}
	if (!kc.with || kc.maxports < 2)
		return 0;
	if (nsw != kc.maxports) {
		*rc = add_finding(x->map, FC_RAIL_NOTE, -1,
				  "the InfiniBand ports reach %s%d switches for %d ports a node "
				  "(rails that span several leaf switches): rails are not matched "
				  "by switch", nsw > FC_RAIL_MAX ? "more than " : "",
				  nsw > FC_RAIL_MAX ? FC_RAIL_MAX : nsw, kc.maxports);
		return 0;
	}
	*rc = add_finding(x->map, FC_RAIL_NOTE, -1,
			  "rails matched by the switch each InfiniBand port reaches (%d switches)",
			  nsw);
	return 1;
}

/* The first subnet reported, and whether every port reports that one. */
struct subnets {
	const char *first;
	int one;
};

static void add_subnet(void *arg, const char *subnet)
{
	struct subnets *s = arg;

	if (!s->first)
		s->first = subnet;
	else if (strcmp(s->first, subnet))
		s->one = 0;
}

/* Matching by device name: no subnet known, or one InfiniBand subnet for
 * every port. */
static int choose_by_name(struct match *x, int *rc)
{
	struct subnets s = { NULL, 1 };
	struct key_count kc;

	*rc = 0;
	count_keys(x, 0, &kc, add_subnet, &s);
	if (!kc.with) {
		*rc = add_finding(x->map, FC_RAIL_NOTE, -1,
				  "rails matched by device name: no port reports its subnet");
		return 1;
	}
	if (x->map->link_layer == FC_RAIL_LL_IB && s.one && kc.maxports > 1) {
		*rc = add_finding(x->map, FC_RAIL_NOTE, -1,
				  "rails matched by device name: every InfiniBand port is on "
				  "subnet prefix %s (one subnet manager for all rails)",
				  s.first);
		return 1;
	}
	if (kc.without && x->map->link_layer == FC_RAIL_LL_IB) {
		*rc = add_finding(x->map, FC_RAIL_NOTE, -1,
				  "rails matched by device name: %d port%s report no subnet "
				  "prefix",
				  kc.without, kc.without > 1 ? "s" : "");
		return 1;
	}
	return 0;
}

static const char *member_key(const struct match *x, const struct member *m)
{
	const struct fc_rail_port *p = mport(x, m);

	return x->map->by_switch ? p->peer : x->map->by_name ? p->dev : p->subnet;
}

/* The eligible ports, each with its group (network). */
static int collect(struct match *x)
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
			struct member *m = &x->m[x->nm];
			int k;

			if (!eligible(x, p))
				continue;
			if (!x->map->by_name && !x->map->by_switch && !p->subnet[0]) {
				rc = add_finding(x->map, FC_RAIL_WARN, i,
						 "%s of %s has no IPv4 address on %s: it is on no "
						 "rail (RoCE v2 needs one)",
						 p->dev, x->nodes[i].name,
						 p->netdev[0] ? p->netdev : "its net device");
				continue;
			}
			m->node = i;
			m->port = j;
			x->nm++;
			for (k = 0; k < x->ng; k++)
				if (!strcmp(x->g[k].key, member_key(x, m)))
					break;
			if (k == x->ng)
				x->g[x->ng++] = (struct group){ .key = member_key(x, m), .rail = -1 };
			m->group = k;
		}
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
		rc = add_finding(x->map, FC_RAIL_FAIL, m->node,
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

static int selected(const struct match *x, const struct group *g, int index)
{
	char num[16];

	if (!x->o->nonly)
		return 1;
	snprintf(num, sizeof(num), "%d", index);
	return in_list(g->name, x->o->only, x->o->nonly) || in_list(num, x->o->only, x->o->nonly);
}

static int check_only(struct match *x, const int *order, int nr)
{
	for (int e = 0; e < x->o->nonly; e++) {
		int hit = 0;

		for (int r = 0; r < nr && !hit; r++) {
			char num[16];

			snprintf(num, sizeof(num), "%d", r);
			hit = !strcmp(x->g[order[r]].name, x->o->only[e]) || !strcmp(num, x->o->only[e]);
		}
		if (!hit) {
			size_t off = 0;

			off += (size_t)snprintf(x->map->err, sizeof(x->map->err),
						"--rails: no rail is named '%s'; the rails are",
						x->o->only[e]);
			for (int r = 0; r < nr && off < sizeof(x->map->err); r++)
				off += (size_t)snprintf(x->map->err + off, sizeof(x->map->err) - off,
							" %d (%s)", r, x->g[order[r]].name);
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

/* Groups on two nodes or more are rails (any group, on one node). */
static int make_rails(struct match *x)
{
	int order[FC_RAIL_MAX * 4], nr = 0, rc = 0;

	for (int k = 0; k < x->ng && !rc; k++) {
		if (x->n > 1 && x->g[k].nodes_with < 2) {
			for (int a = 0; a < x->nm && !rc; a++)
				if (x->m[a].group == k && x->m[a].used)
					rc = add_finding(
						x->map, FC_RAIL_FAIL, x->m[a].node,
						"%s of %s is on %s %s, which no other node has: it "
						"matches no rail of its peers (a cable in the wrong "
						"switch, or a wrong address?)",
						mport(x, &x->m[a])->dev, x->nodes[x->m[a].node].name,
						key_kind(x), x->g[k].key);
			continue;
		}
		if (nr == (int)(sizeof(order) / sizeof(order[0])))
			break;
		order[nr++] = k;
	}
	if (rc)
		return rc;
	sort_ctx = x;
	qsort(order, (size_t)nr, sizeof(order[0]), cmp_group);
	sort_ctx = NULL;
	rc = check_only(x, order, nr);
	if (rc)
		return rc;
	if (nr > FC_RAIL_MAX)
		rc = add_finding(x->map, FC_RAIL_WARN, -1,
				 "%d rails found, only the first %d are tested", nr, FC_RAIL_MAX);
	for (int r = 0; r < nr && x->map->nrails < FC_RAIL_MAX; r++) {
		struct group *g = &x->g[order[r]];
		struct fc_rail *rl;

		if (!selected(x, g, r))
			continue;
		g->rail = x->map->nrails;
		rl = &x->map->rails[x->map->nrails++];
		rl->index = r;
		snprintf(rl->name, sizeof(rl->name), "%s", g->name);
		snprintf(rl->subnet, sizeof(rl->subnet), "%s",
			 x->map->by_name || x->map->by_switch ? "" : g->key);
		snprintf(rl->peer, sizeof(rl->peer), "%s", x->map->by_switch ? g->key : "");
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
		int r = x->g[m->group].rail;

		if (m->used && r >= 0)
			map->port[m->node * map->nrails + r] = m->port;
	}
	return 0;
}

/* "rxe1 is DOWN" when the node has the rail's device but not active. */
static void down_hint(const struct match *x, int node, const char *dev, char *buf, size_t len)
{
	buf[0] = 0;
	for (int j = 0; j < x->nodes[node].nports; j++) {
		const struct fc_rail_port *p = &x->nodes[node].ports[j];

		if (!strcmp(p->dev, dev) && !p->active)
			snprintf(buf, len, "; %s port %d is not active", p->dev, p->port);
	}
}

static int rail_label(const struct fc_rail_map *map, int r, char *buf, size_t len)
{
	const struct fc_rail *rl = &map->rails[r];

	if (rl->subnet[0] || rl->peer[0])
		return snprintf(buf, len, "rail %d (%s%s, %s on the other nodes)", rl->index,
				rl->peer[0] ? "switch " : "", rl->peer[0] ? rl->peer : rl->subnet,
				rl->name);
	return snprintf(buf, len, "rail %d (%s)", rl->index, rl->name);
}

/* Per node: a rail without a port, and ports on a rail named otherwise. */
static int check_nodes(struct match *x)
{
	struct fc_rail_map *map = x->map;
	int rc = 0;

	for (int i = 0; i < x->n && !rc; i++) {
		char swaps[320] = "", lbl[128], hint[96];
		size_t off = 0;
		int nswap = 0;

		for (int r = 0; r < map->nrails && !rc; r++) {
			const struct fc_rail_port *p = fc_rail_port_of(map, x->nodes, i, r);

			rail_label(map, r, lbl, sizeof(lbl));
			if (!p) {
				down_hint(x, i, map->rails[r].name, hint, sizeof(hint));
				rc = add_finding(map, FC_RAIL_FAIL, i,
						 "%s has no active port on %s%s: a port down or a "
						 "cable out?",
						 x->nodes[i].name, lbl, hint);
			} else if (strcmp(p->dev, map->rails[r].name) && off < sizeof(swaps)) {
				off += (size_t)snprintf(swaps + off, sizeof(swaps) - off, "%s%s on %s",
							nswap++ ? ", " : "", p->dev, lbl);
			}
		}
		if (nswap && !rc)
			rc = add_finding(map, FC_RAIL_FAIL, i,
					 "%s of %s: %s; swapped cable%s? Traffic still flows, but a "
					 "GPU's rail-local HCA no longer reaches its peers' rail",
					 nswap > 1 ? "ports" : "a port", x->nodes[i].name, swaps,
					 nswap > 1 ? "s" : "");
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
	map->link_layer = fabric_ll(&x);
	rc = note_left_out(&x);
	if (!rc)
		map->by_switch = choose_by_switch(&x, &rc);
	if (!rc && !map->by_switch)
		map->by_name = choose_by_name(&x, &rc);
	if (!rc)
		rc = collect(&x);
	if (!rc) {
		name_groups(&x);
		rc = pick_members(&x);
	}
	if (!rc)
		rc = make_rails(&x);
	if (!rc)
		rc = fill_ports(&x);
	if (!rc)
		rc = check_nodes(&x);
	free(x.m);
	free(x.g);
	return rc;
}
