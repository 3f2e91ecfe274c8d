/* RDMA device and port discovery through libibverbs. */
#ifndef FC_VERBS_DEV_H
#define FC_VERBS_DEV_H

#include <jansson.h>

#include "core/gid.h"

#define VB_MAX_GIDS 256

struct vb_port_info {
	char dev[64];
	int port;
	int state;	  /* enum ibv_port_state */
	int is_ethernet;  /* link layer */
	int active_mtu;	  /* bytes */
	int max_mtu;	  /* bytes */
	unsigned width, speed, speed_ex; /* speed_ex: XDR (256), from sysfs */
	int vlan;	  /* the RoCE netdev is an 802.1Q VLAN device */
	double rate_gbps;
	int lid;
	char netdev[32];  /* fabric interface of a RoCE port, "" if none */
	char subnet[48];  /* RoCE: the netdev's IPv4 subnet; IB: GID prefix; "" unknown */
	int ngids;
	struct fc_gid gids[VB_MAX_GIDS];
	int chosen_gid;	  /* position in gids[], -1 when none is usable */
};

const char *vb_port_state_name(int state);

/*
 * Describes every port of every RDMA device on this host as a JSON list
 * ("devices"). Returns NULL with *why_p set to a message when there are none
 * or libibverbs cannot list them.
 */
json_t *vb_devices_json(const char **why_p);
/* Set by the program (src/main.c) to what adds to each InfiniBand port of
 * `devices` the switch it reaches (ctl/ibpeer.c, a layer above); NULL:
 * nothing is added. */
extern void (*vb_devices_peer_hook)(json_t *devices, json_t *doc);
/* Set by the program (src/main.c) to what reads the devices a capture
 * recorded (ctl/nodesrc.c fc_bundle_devices, a layer above): the list as
 * vb_devices_json gives it, or NULL with the reason in @why. */
struct fc_bundle;
extern json_t *(*vb_devices_from_hook)(struct fc_bundle *b, char *why, size_t whylen);

/* Fills @pi for DEV:PORT. Returns 0 or a negative errno (logged). */
int vb_port_query(const char *dev, int port, struct vb_port_info *pi);

/* The link facts of @pi for a payload ceiling at @mtu bytes, with its
 * chosen GID (-1: none) deciding RoCE v1/v2 and IPv4/IPv6. */
struct fc_link;
void vb_port_link(const struct vb_port_info *pi, int gid_pos, int mtu, struct fc_link *l);

/* JSON object for one port (shared by `devices` and `pair`). */
json_t *vb_port_json(const struct vb_port_info *pi);
/* Sets "gid_index", "gid" and "gid_type" of @o from @g; "gid_index": null
 * when @g is NULL (no usable GID). */
void vb_gid_json(json_t *o, const struct fc_gid *g);

#endif
