/*
 * The RDMA devices and ports from the text `ibv_devinfo [-v]` or `ibstat`
 * print (verbs/devtext.c), for a capture that holds that text but not the
 * device list libibverbs gave (ctl/nodesrc.c). Pure.
 */
#ifndef FC_VERBS_DEVTEXT_H
#define FC_VERBS_DEVTEXT_H

#include <jansson.h>

/* [{name, fw_ver, transport, ports: [{device, port, state, phys_state,
 * link_layer, active_mtu, max_mtu, rate_gbps, lid, netdev "", gids [],
 * subnet "", gid_index null, gid_unknown true}]}] as `devices --json` names them (state
 * "ACTIVE", "DOWN", ...); NULL when @text names no device. */
json_t *vb_devices_from_text(const char *text);

#endif
