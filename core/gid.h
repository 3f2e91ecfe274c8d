/* GID types, link rates and the GID choice: pure code over recorded facts. */
#ifndef FC_GID_H
#define FC_GID_H

#include <stddef.h>
#include <stdint.h>

enum fc_gid_type { FC_GID_IB, FC_GID_ROCE_V1, FC_GID_ROCE_V2 };

struct fc_gid {
	int index;
	uint8_t raw[16];
	enum fc_gid_type type;
	char netdev[32]; /* "" when the GID has no net device */
};

const char *fc_gid_type_name(enum fc_gid_type t); /* "IB", "RoCE v1", "RoCE v2" */
/* Parses "IB", "RoCE v1", "RoCE v2" (sysfs gid_attrs/types wording). */
int fc_gid_type_parse(const char *s, enum fc_gid_type *out_p);
int fc_gid_is_zero(const uint8_t raw[16]);
int fc_gid_is_ipv4_mapped(const uint8_t raw[16]);
int fc_gid_is_link_local(const uint8_t raw[16]);
/* Text form of a GID as an IPv6 address ("::ffff:10.0.0.1"). */
const char *fc_gid_fmt(const uint8_t raw[16], char *buf, size_t len);
int fc_gid_parse(const char *text, uint8_t raw[16]);

/*
 * Score of a GID for a test on a port: RoCE v2 over v1 (and IB only on an IB
 * port), IPv4-mapped over global IPv6 over link-local; a GID bound to
 * @prefer_netdev (the fabric interface, when known) wins ties. Zero GIDs
 * score -1 (unusable).
 */
int fc_gid_score(const struct fc_gid *g, int is_ethernet, const char *prefer_netdev);
/* Position in @gids of the best GID, or -1 when none is usable. */
int fc_gid_choose(const struct fc_gid *gids, int n, int is_ethernet,
		  const char *prefer_netdev);

/* Active rate in Gb/s from ibv_port_attr's active_width and active_speed
 * codes (and active_speed_ex when non-zero); 0 when unknown. */
double fc_port_rate_gbps(unsigned width_code, unsigned speed_code, unsigned speed_ex);
const char *fc_port_width_name(unsigned width_code); /* "4X" */
const char *fc_port_speed_name(unsigned speed_code, unsigned speed_ex); /* "HDR" */
/* MTU enum (1..5) to bytes (256..4096); 0 when unknown. */
int fc_mtu_bytes(int mtu_enum);
/* Bytes to MTU enum, or 0 when not one of 256..4096. */
int fc_mtu_enum(int bytes);

#endif
