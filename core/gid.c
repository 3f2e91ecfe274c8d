/* GID types, link rates and the GID choice (see gid.h). */
#include "core/gid.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *const gid_type_names[] = {
	[FC_GID_IB] = "IB",
	[FC_GID_ROCE_V1] = "RoCE v1",
	[FC_GID_ROCE_V2] = "RoCE v2",
};

const char *fc_gid_type_name(enum fc_gid_type t)
{
	return gid_type_names[t];
}

int fc_gid_type_parse(const char *s, enum fc_gid_type *out_p)
{
	if (!strcasecmp(s, "IB/RoCE v1") || !strcasecmp(s, "RoCE v1")) {
		*out_p = FC_GID_ROCE_V1;
		return 0;
	}
	if (!strcasecmp(s, "RoCE v2")) {
		*out_p = FC_GID_ROCE_V2;
		return 0;
	}
	if (!strcasecmp(s, "IB")) {
		*out_p = FC_GID_IB;
		return 0;
	}
	return -EINVAL;
}

int fc_gid_is_zero(const uint8_t raw[16])
{
	for (int i = 0; i < 16; i++)
		if (raw[i])
			return 0;
	return 1;
}

int fc_gid_is_ipv4_mapped(const uint8_t raw[16])
{
	static const uint8_t pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return !memcmp(raw, pfx, sizeof(pfx));
}

int fc_gid_is_link_local(const uint8_t raw[16])
{
	return raw[0] == 0xfe && (raw[1] & 0xc0) == 0x80;
}

const char *fc_gid_fmt(const uint8_t raw[16], char *buf, size_t len)
{
	if (!inet_ntop(AF_INET6, raw, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}

int fc_gid_parse(const char *text, uint8_t raw[16])
{
	return inet_pton(AF_INET6, text, raw) == 1 ? 0 : -EINVAL;
}

int fc_gid_score(const struct fc_gid *g, int is_ethernet, const char *prefer_netdev)
{
	int score = 0;

	if (fc_gid_is_zero(g->raw))
		return -1;
	if (is_ethernet) {
		if (g->type == FC_GID_ROCE_V2)
			score += 400;
		else if (g->type == FC_GID_ROCE_V1)
			score += 200;
		else
			return -1;
		if (fc_gid_is_ipv4_mapped(g->raw))
			score += 40;
		else if (!fc_gid_is_link_local(g->raw))
			score += 20;
	} else {
		/* InfiniBand: the port GID; the default (index 0) subnet prefix is
		 * what every peer can route to. */
		score += 100 - (g->index < 100 ? g->index : 99);
	}
	if (prefer_netdev && *prefer_netdev && !strcmp(g->netdev, prefer_netdev))
		score += 10;
	return score;
}

int fc_gid_choose(const struct fc_gid *gids, int n, int is_ethernet,
		  const char *prefer_netdev)
{
	int best = -1, best_score = -1;

	for (int i = 0; i < n; i++) {
		int s = fc_gid_score(&gids[i], is_ethernet, prefer_netdev);

		/* Lower index wins ties: it is the one perftest users expect. */
		if (s > best_score) {
			best_score = s;
			best = i;
		}
	}
	return best;
}

static int width_lanes(unsigned code)
{
	switch (code) {
	case 1: return 1;
	case 2: return 4;
	case 4: return 8;
	case 8: return 12;
	case 16: return 2;
	default: return 0;
	}
}

const char *fc_port_width_name(unsigned code)
{
	switch (code) {
	case 1: return "1X";
	case 2: return "4X";
	case 4: return "8X";
	case 8: return "12X";
	case 16: return "2X";
	default: return "?";
	}
}

/* Data rate per lane in Gb/s as the kernel's rate_show reports it. */
static double lane_gbps(unsigned speed, unsigned speed_ex)
{
	if (speed_ex) {
		switch (speed_ex) {
		case 256: return 200.0; /* XDR */
		default: break;
		}
	}
	switch (speed) {
	case 1: return 2.5;    /* SDR */
	case 2: return 5.0;    /* DDR */
	case 4: return 10.0;   /* QDR */
	case 8: return 10.0;   /* FDR10 */
	case 16: return 14.0;  /* FDR */
	case 32: return 25.0;  /* EDR */
	case 64: return 50.0;  /* HDR */
	case 128: return 100.0; /* NDR */
	default: return 0.0;
	}
}

const char *fc_port_speed_name(unsigned speed, unsigned speed_ex)
{
	if (speed_ex == 256)
		return "XDR";
	switch (speed) {
	case 1: return "SDR";
	case 2: return "DDR";
	case 4: return "QDR";
	case 8: return "FDR10";
	case 16: return "FDR";
	case 32: return "EDR";
	case 64: return "HDR";
	case 128: return "NDR";
	default: return "?";
	}
}

double fc_port_rate_gbps(unsigned width_code, unsigned speed_code, unsigned speed_ex)
{
	return width_lanes(width_code) * lane_gbps(speed_code, speed_ex);
}

int fc_mtu_bytes(int mtu_enum)
{
	return mtu_enum >= 1 && mtu_enum <= 5 ? 128 << mtu_enum : 0;
}

int fc_mtu_enum(int bytes)
{
	for (int e = 1; e <= 5; e++)
		if ((128 << e) == bytes)
			return e;
	return 0;
}
