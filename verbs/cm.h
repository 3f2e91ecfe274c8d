/*
 * --cm: the QPs are connected by rdma_cm on the fabric addresses (the IP of
 * the chosen GID) instead of the relayed QP exchange. The controller still
 * relays the buffer address and rkey, and the server's address and port.
 */
#ifndef FC_VERBS_CM_H
#define FC_VERBS_CM_H

#include <jansson.h>

#include "verbs/res.h"

/* Server side: picks the port, listens on its address, opens resources. */
int vb_cm_listen(struct vb_res *r, const struct vb_opts *o);
/* Client side: resolves the server's address and route, opens resources,
 * creates the QPs. */
int vb_cm_client(struct vb_res *r, const struct vb_opts *o, const char *addr, int port);
/* Accepts (server) or makes (client) one connection per QP. */
int vb_cm_connect(struct vb_res *r, const struct vb_peer *p, int path_mtu);
/* Adds "cm_addr" and "cm_port" to a setup report (nothing without --cm). */
void vb_cm_json(const struct vb_res *r, json_t *o);
/* Destroys the rdma_cm QPs, ids and channel (before vb_res_close). */
void vb_cm_close(struct vb_res *r);

#endif
