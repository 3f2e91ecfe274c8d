/*
 * The network facts of a port for `fabcheck devices --json` and the rail
 * matching (core/rail.h): "addrs" (every IPv4 then IPv6 address of its net
 * device, ADDR/LEN), "subnet" and "prefix_len" (IPv4 first, else a
 * non-link-local IPv6 one), "gateway" (a route's next hop through the net
 * device, else the other end of a /31 or /127 link), "mgmt" (why it is the
 * management port: it carries this ssh session's server address or the
 * default route), "pci" and "numa_node" (of the device, or of the net device
 * for Soft-RoCE).
 */
#ifndef FC_VERBS_DEV_NET_H
#define FC_VERBS_DEV_NET_H

#include <jansson.h>

/* The addresses of @netdev as "ADDR/LEN", IPv4 first, @max at most; the count. */
int vb_netdev_addrs(const char *netdev, char (*addrs)[64], int max);
/* Adds the facts above for device @dev with net device @netdev ("" none) to @o. */
void vb_port_net_json(const char *dev, const char *netdev, json_t *o);

#endif
