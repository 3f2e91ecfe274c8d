#include "core/payload.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "core/gid.h"

/* Per lane: the data rate after the line encoding, for each speed. SDR-QDR
 * report their signalling rate (8b/10b: 80% is data); from FDR10 on the
 * reported rate is already the data rate (64b/66b; HDR and later PAM4 with
 * RS-FEC), except FDR, whose 14 is the rounded 14.0625 Gb/s signal
 * (64b/66b: 13.64 data). An Ethernet port's rate is its MAC rate: the
 * coding of its PCS lies below it. */
static double encoded_share(const struct fc_link *l, const char **enc_p)
{
	if (l->is_ethernet) {
		*enc_p = "Ethernet MAC rate";
		return 1.0;
	}
	if (l->speed_ex) {
		*enc_p = "PAM4, RS-FEC (data rate)";
		return 1.0;
	}
	switch (l->speed) {
	case 1: case 2: case 4:
		*enc_p = "8b/10b";
		return 0.8;
	case 16:
		*enc_p = "64b/66b";
		return 14.0625 / 14.0 * 64.0 / 66.0;
	case 8: case 32:
		*enc_p = "64b/66b (data rate)";
		return 1.0;
	default:
		*enc_p = "PAM4, RS-FEC (data rate)";
		return 1.0;
	}
}

static int overhead(const struct fc_link *l)
{
	int eth = 8 + 14 + 4 + 12 + (l->vlan ? 4 : 0); /* preamble, header, FCS, gap */

	if (!l->is_ethernet)
		return 8 + 12 + 4 + 2 + (l->global ? 40 : 0); /* LRH BTH ICRC VCRC (GRH) */
	if (l->rocev1)
		return eth + 40 + 12 + 4; /* GRH BTH ICRC */
	return eth + (l->ipv6 ? 40 : 20) + 8 + 12 + 4; /* IP UDP BTH ICRC */
}

int fc_payload_ceiling(const struct fc_link *l, struct fc_ceiling *c)
{
	memset(c, 0, sizeof(*c));
	c->port_gbps = fc_port_rate_gbps(l->width, l->speed, l->speed_ex);
	if (c->port_gbps <= 0 || l->mtu <= 0)
		return -EINVAL;
	c->data_gbps = c->port_gbps * encoded_share(l, &c->encoding);
	c->overhead = overhead(l);
	c->payload_gbps = c->data_gbps * l->mtu / (double)(l->mtu + c->overhead);
	c->share = c->payload_gbps / c->port_gbps;
	return 0;
}

int fc_payload_json(json_t *obj, const struct fc_link *l, struct fc_ceiling *c_p)
{
	int err = fc_payload_ceiling(l, c_p);

	if (err) {
		json_object_set_new(obj, "payload_gbps", json_null());
		return err;
	}
	json_object_set_new(obj, "payload_gbps", json_real(c_p->payload_gbps));
	json_object_set_new(obj, "payload", json_pack("{s:f, s:s, s:i, s:i, s:f}", "data_gbps",
						      c_p->data_gbps, "encoding", c_p->encoding,
						      "header_bytes", c_p->overhead, "mtu", l->mtu,
						      "share_of_port", c_p->share));
	return 0;
}

int fc_rate_text_parse(const char *text, unsigned *width, unsigned *speed, unsigned *speed_ex)
{
	static const struct { const char *name; unsigned code, ex; } speeds[] = {
		{ "SDR", 1, 0 }, { "DDR", 2, 0 }, { "QDR", 4, 0 }, { "FDR10", 8, 0 },
		{ "FDR", 16, 0 }, { "EDR", 32, 0 }, { "HDR", 64, 0 }, { "NDR", 128, 0 },
		{ "XDR", 0, 256 },
	};
	static const struct { int lanes; unsigned code; } widths[] = {
		{ 1, 1 }, { 2, 16 }, { 4, 2 }, { 8, 4 }, { 12, 8 },
	};
	char name[16];
	double gbps;
	int lanes;

	if (!text || sscanf(text, "%lf Gb/sec (%dX %15[A-Z0-9])", &gbps, &lanes, name) != 3)
		return -EINVAL;
	*width = 0;
	for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); i++)
		if (widths[i].lanes == lanes)
			*width = widths[i].code;
	for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++)
		if (!strcmp(speeds[i].name, name) && *width) {
			*speed = speeds[i].code;
			*speed_ex = speeds[i].ex;
			return 0;
		}
	return -EINVAL;
}
