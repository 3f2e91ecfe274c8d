/*
 * The LLDP neighbour (the leaf switch) of each RoCE port, read from lldpd
 * with `lldpctl -f json` where it runs, for `fabcheck devices --json` and
 * the rail matching of routed RoCE (core/rail.h).
 */
#ifndef FC_CTL_LLDP_H
#define FC_CTL_LLDP_H

#include <jansson.h>

#include "ctl/ibpeer.h"

/* Adds "lldp": {"chassis", "port"} to each port of @devices whose net
 * device has a neighbour; without lldpctl (or an answer) a "lldp_note" in
 * @doc says so. */
void fc_lldp_add(json_t *devices, json_t *doc);
/* The switch of each InfiniBand port (ctl/ibpeer.h), then the LLDP
 * neighbour of each RoCE port: what `devices` adds to its ports. */
void fc_port_neighbours_add(json_t *devices, json_t *doc);

#endif
