/*
 * One interface of iproute2's JSON (`ip -j link`, `ip -j addr`: a list of
 * objects, one per interface, ip/ipaddress.c print_linkinfo): its MTU, its
 * operational state as sysfs spells it, its link type and address. A
 * replay reads it where a capture holds no sys/class/net/IF files (the same
 * kernel attributes: IFLA_MTU, IFLA_OPERSTATE). Pure.
 */
#ifndef FC_IPLINK_H
#define FC_IPLINK_H

#include <jansson.h>

/* {"mtu", "operstate", "link_type", "address"} of @ifname in @text (each
 * only where @text gives it), or NULL when @text is not such a list or does
 * not name @ifname. "operstate" is lower case, as sysfs prints it
 * (net/core/net-sysfs.c operstates[]: "up", "down", "unknown",
 * "lowerlayerdown", ...): ip prints the same names in upper case
 * (ip/ipaddress.c oper_states[]). */
json_t *fc_ip_link(const char *text, const char *ifname);

#endif
