/*
 * Names are data, never paths: the one check of every name that comes from
 * a worker, a store, a hostfile or an evidence folder (node, RDMA device,
 * net device, PCI address, rail) before it is used in a path, a terminal
 * line or a command. A name that passes holds only the characters of its
 * kind, is not empty, is not longer than its kind allows and does not
 * begin with '-' or '.', so it is one path component that is neither "."
 * nor "..", one shell word and no option.
 *
 *   node    host name or address: letters, digits, "-_.@:", <= 253 (DNS);
 *           an IPv6 address without brackets (ssh takes it so); no [ or ],
 *           which a shell or Slurm's hostlist reads as a pattern
 *   device  RDMA device (mlx5_0, rxe0): letters, digits, "-_.", <= 63
 *           (IB_DEVICE_NAME_MAX is 64 with its NUL, include/rdma/ib_verbs.h)
 *   netdev  net device (eth0, enp1s0f0np0, ib0.8001): letters, digits,
 *           "-_.", <= 15 (IFNAMSIZ is 16 with its NUL, include/uapi/linux/if.h)
 *   bdf     PCI address (0000:17:00.0): hex digits, ':', '.', <= 16
 *   rail    a rail's name (the device most of its nodes have): as device
 */
#ifndef FC_NAMES_H
#define FC_NAMES_H

#include <stddef.h>

enum fc_name_kind { FC_NAME_NODE, FC_NAME_DEV, FC_NAME_NETDEV, FC_NAME_BDF, FC_NAME_RAIL };

/* NULL when @s is a name of @kind, else why it is not ("holds '/'"). */
const char *fc_name_why(enum fc_name_kind kind, const char *s);
static inline int fc_name_ok(enum fc_name_kind kind, const char *s)
{
	return !fc_name_why(kind, s);
}
/* 0 when @s is a name of @kind; else logs "@from: 'S' is not a KIND name
 * (WHY): ..." with S shown escaped, and returns -EINVAL. */
int fc_name_check(enum fc_name_kind kind, const char *s, const char *from);
/* @s when it is a name of @kind; "?" when @s is NULL; else "?", logged as a warning "@from:
 * 'S' is not a valid KIND name (WHY): shown as '?'" (S escaped): for a name
 * that only labels a line (a worker's GPU bus id in a finding). */
const char *fc_name_or_unknown(enum fc_name_kind kind, const char *s, const char *from);
/* @s for a message: bytes outside printable ASCII as \xHH, '\\' doubled,
 * cut to fit @len (NUL included) with "..." at the end. Returns @buf. */
const char *fc_name_show(const char *s, char *buf, size_t len);
/* Node names (passed to ssh): fc_name_ok(FC_NAME_NODE, name). */
int fc_valid_node_name(const char *name);

#endif
