/*
 * What a link can carry as payload: the data rate from width and speed
 * (active_speed_ex for XDR), less the line encoding, times the share of a
 * packet at the path MTU that is payload once the link layer's per-packet
 * headers are paid. Pure code over recorded facts.
 *
 * Per packet: InfiniBand LRH 8 + BTH 12 + ICRC 4 + VCRC 2 (+ GRH 40 when
 * global); RoCE v2 preamble and SFD 8 + Ethernet 14 (+ VLAN 4) + IPv4 20 or
 * IPv6 40 + UDP 8 + BTH 12 + ICRC 4 + FCS 4 + inter-frame gap 12; RoCE v1
 * the same without IP and UDP but with a GRH of 40. The extended headers of
 * a message's first packet (RETH 16 for a write or a read) are not counted:
 * they are per message, not per packet.
 */
#ifndef FC_PAYLOAD_H
#define FC_PAYLOAD_H

#include <jansson.h>

struct fc_link {
	int is_ethernet;
	unsigned width, speed, speed_ex; /* ibv_port_attr codes */
	int mtu;	/* path MTU, bytes of payload per packet */
	int global;	/* InfiniBand: a GRH on every packet */
	int rocev1;	/* Ethernet: RoCE v1 (GRH, no IP/UDP) */
	int ipv6;	/* RoCE v2 over IPv6 */
	int vlan;	/* an 802.1Q tag */
};

struct fc_ceiling {
	double port_gbps;	/* the rate ibverbs reports */
	double data_gbps;	/* after the line encoding */
	const char *encoding;
	int overhead;		/* header bytes per packet */
	double payload_gbps;
	double share;		/* payload_gbps / port_gbps */
};

/* Returns 0, or -EINVAL when the rate or the MTU is unknown. */
int fc_payload_ceiling(const struct fc_link *l, struct fc_ceiling *c);

/* Sets "payload_gbps" (null when unknown) and "payload" (data rate,
 * encoding, header bytes, MTU, share of the port rate) in @obj for @l.
 * Returns what fc_payload_ceiling returned; @c_p gets the ceiling. */
int fc_payload_json(json_t *obj, const struct fc_link *l, struct fc_ceiling *c_p);

/* Parses sysfs's ports/N/rate ("800 Gb/sec (4X XDR)") into ibverbs codes,
 * for libibverbs that has no active_speed_ex. Returns 0 or -EINVAL. */
int fc_rate_text_parse(const char *text, unsigned *width, unsigned *speed,
		       unsigned *speed_ex);

#endif
