/* Port counters from sysfs: counters/ (IB PMA) and hw_counters/ (driver). */
#ifndef FC_VERBS_COUNTERS_H
#define FC_VERBS_COUNTERS_H

#include <jansson.h>

/* {"name": value, ...} for DEV port PORT under @root (NULL: /sys/class/infiniband).
 * Returns an empty object when the port has none. */
json_t *vb_counters_read(const char *root, const char *dev, int port);

/* Adds "netdev_carrier_changes" (link up/down transitions of the netdev of
 * a RoCE port, from /sys/class/net/NETDEV/carrier_changes) to @out. */
void vb_netdev_counters_read(json_t *out, const char *netdev);

#endif
