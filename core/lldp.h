/*
 * The LLDP neighbour of each interface, from lldpd's `lldpctl -f json`
 * (Debian package lldpd): "lldp": {"interface": {IF: {...}}} for one
 * interface, a list of such objects for several; each with "chassis":
 * {NAME: {"id": ...}} (or {"id": {"value": ...}} without a system name) and
 * "port": {"id": {"value": ...}, "descr": ...}; or `lldpcli -f json0`'s
 * form of the same (every value in a list: core/lldp.c), which some tools
 * record instead. Pure.
 */
#ifndef FC_LLDP_H
#define FC_LLDP_H

#include <jansson.h>
#include <stddef.h>

/* The neighbour of interface @ifname in @doc: its chassis (system name,
 * else chassis id) and port (port id, else its description). Returns 0, or
 * -ENOENT when @doc names no neighbour on @ifname. */
int fc_lldp_neighbour(const json_t *doc, const char *ifname, char *chassis, size_t clen,
		      char *port, size_t plen);

#endif
