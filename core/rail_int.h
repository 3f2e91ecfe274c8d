/* Rails: what core/rail.c and core/rail_rules.c share (private). */
#ifndef FC_RAIL_INT_H
#define FC_RAIL_INT_H

#include "core/rail.h"

/* One eligible port, and the network it is on. */
struct member {
	int node, port, group;
	int used;     /* the node's port on that group's rail */
	char key[24]; /* by position: "position K" */
	int rail;     /* position in map->rails, -1 none */
};

struct group {
	const char *key;  /* subnet, switch, leaf, position or the device name */
	const char *name; /* the device most nodes have on it */
	int nodes_with;	  /* nodes with a port on it */
	int rail;	  /* position in map->rails, -1 when not a rail */
};

/* Ports left out by a rule, said once per device and reason. */
#define RAIL_LEFT_MAX 32
struct left_out {
	char dev[64], why[200];
	int count, first; /* nodes, the first of them */
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
	unsigned char *left; /* [node * stride + port]: left out by a rule */
	int stride;
	struct left_out lo[RAIL_LEFT_MAX];
	int nlo;
	int rest, rest_first; /* ports left out beyond lo's kinds, the first's node */
	unsigned char *gw_swap; /* [node]: a port whose gateway is in another slot's pool */
	int gw_only;		/* rails by the gateways' pools alone, no position */
};

int rail_add_finding(struct fc_rail_map *map, enum fc_rail_sev sev, int node, const char *fmt,
		     ...) __attribute__((format(printf, 4, 5)));
int rail_in_list(const char *s, const char *const *list, int n);
/* Active, not --exclude-dev, on the fabric's link layer. */
int rail_candidate(const struct match *x, const struct fc_rail_port *p);
/* A candidate no rule left out: the ports the rails take. */
int rail_eligible(const struct match *x, int node, int port);

/* A port of another rate than its node's others: left out as a storage or
 * front-end NIC, or kept on its rail as a port trained below its rate, a
 * finding (core/rail_rate.c). */
void rail_other_rate(struct match *x);
/* Link layer, management port, rate; the notes of --exclude-dev (rail_rules.c). */
int rail_leave_out(struct match *x);
/* Notes port @port of @node left out for @why (grouped by device and why). */
void rail_left_add(struct match *x, int node, int port, const char *why);
/* One note per device and reason left out. */
int rail_left_flush(struct match *x);
/* How the rails are matched: sets map->by (and by_name, by_switch); a note says why. */
int rail_choose(struct match *x);
/* By position: each node's members ordered by NUMA node, PCI address and
 * name get "position K"; a node laid out unlike the others is a warning. */
int rail_position_keys(struct match *x);
/* Routed RoCE by position: where every port has a gateway and the gateways
 * fall in one pool per position, each port's key becomes "gateway K", K
 * its pool's position, and map->by FC_RAIL_BY_GATEWAY; the note says so
 * (core/rail_gw.c). Else nothing changes. 0 or -ENOMEM. */
int rail_gateway_keys(struct match *x);
/* Routed RoCE without positions: 1 when the gateways of the eligible ports
 * that have one fall in one pool per rail, a node one port a pool (then
 * map->by is FC_RAIL_BY_GATEWAY); the keys "gateway K" of the members
 * (members with a gateway only) by rail_gateway_only_keys (core/rail_gw.c).
 * 0 or -ENOMEM. */
int rail_gateway_pools_ok(const struct match *x);
int rail_gateway_only_keys(struct match *x);
/* Whether gateway @gw is in @prefix ("10.99.93.32/27", a rail's leaf pool). */
int rail_gateway_in(const char *gw, const char *prefix);
/* Ports @a and @b of node @node in position order (NUMA node, PCI address,
 * device name): <0, 0, >0. */
int rail_port_cmp(const struct match *x, int node, int a, int b);
/* A port of the fabric's link layer a rule did not leave out, active or
 * not: a slot of its node whatever its state. */
int rail_slot_port(const struct match *x, int node, int port);
/* --rails: -EINVAL (map->err set) when an entry names none of the @nr
 * rails @names (numbered in that order); whether rail @index named @name
 * is selected (core/rail.c). */
int rail_check_only(struct match *x, const char *const *names, int nr);
int rail_selected(const struct match *x, const char *name, int index);
/* Its place among its node's slot ports in position order. */
int rail_port_rank(const struct match *x, int node, int port);
/* A port on a network no other node has (core/rail.c). */
int rail_lone_port(struct match *x, const struct member *m);
/* By the leaf each port reaches (map->by switch or LLDP): the rails of
 * every scalable unit, joined; sets each member's rail (core/rail_reach.c). */
int rail_reach(struct match *x);

/* The order of the rails most nodes' ports follow (core/rail_swap.c). */
struct rail_ref {
	int node;		/* whose order it is, -1 none */
	int tied;		/* a node of another order as many nodes follow, -1 none */
	int rank[FC_RAIL_MAX];	/* [rail]: its place in that order, -1 not judged */
};
void rail_order_ref(const struct match *x, struct rail_ref *out);
/* @bad[r] set where node @i's port on rail r is not the one its position
 * puts there in @ref's order of the rails (a swapped cable). */
void rail_misplaced(const struct match *x, const struct rail_ref *ref, int i, unsigned char *bad);

/* The pool "ADDR/LEN" of the gateways of key @key ("gateway K"). */
void rail_gateway_leaf(const struct match *x, const char *key, char *buf, size_t len);

#endif
