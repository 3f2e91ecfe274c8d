/*
 * Rails: which port of each node is on which rail of the fabric. Pure: takes
 * recorded port lists (one per node), gives the rails and the findings.
 *
 * A rail is the set of ports, one per node, on one network of the fabric:
 * on RoCE the IP subnet of the port's net device, on InfiniBand the subnet
 * prefix. Rails are matched by that network, not by device name; the name of
 * a rail is the device most of its nodes have on it, and rails are numbered
 * in the natural order of those names (mlx5_2 before mlx5_10). A node whose
 * ports (in position order: NUMA node, PCI address, name) sit on the rails
 * in another order than most nodes' has swapped cables, whatever their names
 * (server models name their HCAs differently; core/rail_swap.c); a network that
 * only one node has is a port that matches no rail of its peers; two ports
 * of one node on one network is two rails on one subnet. When the ports
 * carry no network (or every InfiniBand port shares one subnet prefix, as on
 * a fabric with one subnet manager) rails are matched by device name, and
 * the map says so. Where every port reports the leaf it reaches (on
 * InfiniBand the switch's node GUID and description read over umad, on
 * Ethernet the LLDP neighbour), rails are matched by that leaf, a rail may
 * span several leaves (one a scalable unit) and a leaf may carry several
 * rails (core/rail_reach.c); a port's position only orders the rails.
 *
 * Routed RoCE (each port in its own /31, /30, /127 or /126 to its leaf):
 * every subnet differs, so the leaf names the rail: the LLDP neighbour
 * (as above), else the port's position (its
 * NUMA node and PCIe address, in order, on every node of a uniform rack),
 * which the map marks as assumed; where every port has a gateway and the
 * gateways fall in one pool per rail (core/rail_gw.c), by that pool, the
 * leaf's (assumed too). InfiniBand with one subnet manager and no
 * switch known falls back to position the same way, then to the name.
 *
 * Left out by rule, each said once per device: a port on another link
 * layer than the fabric's, one that carries the node's ssh address or
 * default route (when the node has other ports, and the port is not
 * addressed like them: an ECMP default route over the rails is no
 * management port), one whose rate differs
 * from the majority of the node's ports (unless it is a rail port trained
 * below its rate: it reaches the rails' network or leaf, or runs on fewer
 * lanes than the same port of its peers; it stays on its rail, failed;
 * core/rail_rate.c), and one on a network no other
 * node has while its node has a port on every rail without it.
 */
#ifndef FC_RAIL_H
#define FC_RAIL_H

#include <jansson.h>
#include <stddef.h>

#define FC_RAIL_MAX 32 /* rails of a fabric */
#define FC_RAIL_SUBNET_LEN 48

enum fc_rail_ll { FC_RAIL_LL_UNKNOWN = 0, FC_RAIL_LL_IB, FC_RAIL_LL_ETH };

struct fc_rail_port {
	char dev[64];
	int port;
	int active;			  /* port state ACTIVE */
	enum fc_rail_ll link_layer;
	char netdev[32];		  /* RoCE: the port's net device */
	char subnet[FC_RAIL_SUBNET_LEN]; /* "10.0.0.0/24", "fe80:0000:0000:0000"; "" unknown */
	char peer[24];			  /* InfiniBand: the switch's node GUID, "0x..."; "" unknown */
	char peer_desc[72];		  /* and its node description (smpquery nodedesc), "" none */
	double rate;			  /* Gb/s, 0 unknown */
	int width;			  /* lanes the link trained on ("4X" 4), 0 unknown */
	int prefix_len;			  /* of the subnet's address, -1 unknown */
	char gateway[48];		  /* routed RoCE: the next hop on the port's link */
	int numa;			  /* the device's NUMA node, -1 unknown */
	char pci[16];			  /* the device's PCI address, "" unknown */
	char lldp[64];			  /* the LLDP neighbour's chassis name, "" none */
	char lldp_port[32];		  /* and its port */
	char mgmt[96];			  /* why it is the node's management port, "" not */
};

struct fc_rail_node {
	const char *name;
	const struct fc_rail_port *ports;
	int nports;
};

struct fc_rail_opts {
	const char *const *only;    /* --rails LIST: rail names or numbers; NULL: all */
	int nonly;
	const char *const *exclude; /* --exclude-dev LIST: devices or net devices */
	int nexclude;
};

/* How the rails were matched across nodes. */
enum fc_rail_by {
	FC_RAIL_BY_SUBNET = 0, /* a shared IPv4/IPv6 subnet, or IB subnet prefix */
	FC_RAIL_BY_SWITCH,     /* InfiniBand: the switch each port is cabled to */
	FC_RAIL_BY_LLDP,       /* routed RoCE: the LLDP neighbour (the leaf) */
	FC_RAIL_BY_POSITION,   /* NUMA node and PCIe order: assumed on a uniform rack */
	FC_RAIL_BY_NAME,       /* the device name */
	FC_RAIL_BY_GATEWAY,    /* routed RoCE: the leaf's pool the port's gateway is in */
	FC_RAIL_BY_NONE,       /* no port to match: no node has one, or each was left out */
};
/* "subnet", "switch", "lldp", "position", "name", "gateway", "none". */
const char *fc_rail_by_name(enum fc_rail_by by);

struct fc_rail {
	int index;		    /* number among all the fabric's rails */
	char name[64];		    /* the device most nodes have on it */
	char subnet[FC_RAIL_SUBNET_LEN]; /* "" when matched by name or switch */
	char peer[24];		    /* the switch, when matched by switch */
	char peer_desc[72];	    /* its node description, "" unknown */
	char leaf[64];		    /* the LLDP neighbour, when matched by LLDP; the
				     * gateways' pool "ADDR/LEN" by gateway */
	int nleaves;		    /* by switch or LLDP: the leaves the rail spans
				     * (one a scalable unit) */
	char leaves[200];	    /* and their names, ", " between */
};

enum fc_rail_sev { FC_RAIL_NOTE, FC_RAIL_WARN, FC_RAIL_FAIL };

struct fc_rail_finding {
	enum fc_rail_sev sev;
	int node; /* index, -1 for the fabric */
	char text[384];
	/* the one port it is about: a rail port trained below the rails' rate
	 * (core/rail_rate.c), so no other check names that fault again; "" none */
	char dev[64];
	int port;
};

struct fc_rail_map {
	int nnodes, nrails;
	enum fc_rail_ll link_layer;
	int by_name;		 /* matched by device name */
	int by_switch;		 /* matched by the switch each port reaches */
	enum fc_rail_by by;	 /* how (by_name, by_switch kept for the callers) */
	char assumed[320];	 /* by position: what was assumed, what would confirm it */
	struct fc_rail rails[FC_RAIL_MAX];
	int *port;		 /* nnodes * nrails: [node * nrails + rail] = port index or -1 */
	struct fc_rail_finding *findings;
	int nfindings, findings_cap;
	char err[256];		 /* why fc_rail_match refused (a usage error) */
};

/*
 * Matches the ports of @n nodes into rails. Returns 0 (findings may hold
 * failures), -EINVAL with map->err set when @opts name a rail no node has,
 * or -ENOMEM. Release @map with fc_rail_map_release, also after an error.
 */
int fc_rail_match(const struct fc_rail_node *nodes, int n, const struct fc_rail_opts *opts,
		  struct fc_rail_map *map);
void fc_rail_map_release(struct fc_rail_map *map);

/* The port of @node on rail position @r (0..nrails-1), or NULL. */
const struct fc_rail_port *fc_rail_port_of(const struct fc_rail_map *map,
					   const struct fc_rail_node *nodes, int node, int r);
/* A rail that spans several leaves (scalable units): sets "leaves":
 * [names] in @o (the JSON of the rail, beside its "matched_by"). */
void fc_rail_add_leaves(json_t *o, const struct fc_rail *rl);
/* A finding of @map names port @port of @dev on node @node (a rail port
 * trained below the rails' rate): 1, else 0. */
int fc_rail_port_named(const struct fc_rail_map *map, int node, const char *dev, int port);
/* Worst severity among the findings (FC_RAIL_NOTE when none). */
enum fc_rail_sev fc_rail_worst(const struct fc_rail_map *map);

/*
 * Reads the ports of a `fabcheck devices --json` "devices" list into @out
 * (room for @max): device, port, state, link layer, net device, "subnet"
 * (else from "addrs"), "switch_guid", "switch_desc", "rate_gbps", "gateway", "numa_node",
 * "pci", "lldp" {"chassis", "port"} and "mgmt".
 * Returns the count, or -EINVAL when @devices is not such a list, -E2BIG past
 * @max.
 */
int fc_rail_ports_from_json(const json_t *devices, struct fc_rail_port *out, int max);

/* On a /31 (RFC 3021) or /127 (RFC 6164) link without a route through it,
 * the other end of the link is the next hop: "10.0.0.1/31" -> "10.0.0.0"
 * into @gw; @gw is left as it is for any other address. */
void fc_rail_link_peer(const char *addr, char *gw, size_t len);
/* "10.0.3.7", 24 -> "10.0.3.0/24". Returns 0 or -EINVAL. */
int fc_rail_subnet_ipv4(const char *addr, int prefix_len, char *buf, size_t len);
/* "fd00:1::7", 64 -> "fd00:1::/64". Returns 0 or -EINVAL. */
int fc_rail_subnet_ipv6(const char *addr, int prefix_len, char *buf, size_t len);
/*
 * The subnet rails are matched by among a port's addresses ("10.0.0.1/24",
 * "fd00:1::1/64"): the first IPv4 one, else the first IPv6 one that is not
 * link-local (fe80::/10). Returns its prefix length, or -1 (@buf "") when
 * none is usable.
 */
int fc_rail_subnet_of(const char *const *addrs, int n, char *buf, size_t len);
/* The subnet prefix (first 8 bytes) of an InfiniBand GID as
 * "fe80:0000:0000:0000". */
void fc_rail_subnet_ib(const unsigned char gid[16], char *buf, size_t len);
/* Splits a comma list ("mlx5_0,mlx5_3") into @out (pointers into @buf, which
 * is modified). Returns the count, or -E2BIG past @max, -EINVAL for an
 * empty entry. */
int fc_rail_split_list(char *buf, const char **out, int max);
/* strcmp with runs of digits compared as numbers. */
int fc_rail_name_cmp(const char *a, const char *b);

#endif
