/*
 * fabcheck pair: what the two ports agree on before any traffic. The GIDs
 * must be of one type (RoCE v1 or v2) and one address family; the payload
 * ceiling of each port is worked out at the path MTU (core/payload.h).
 */
#include <stdio.h>
#include <string.h>

#include "core/gid.h"
#include "core/out.h"
#include "core/payload.h"
#include "core/util.h"
#include "pair/pair.h"

static const char *family(const json_t *s)
{
	uint8_t raw[16];
	const char *gid = fc_jstr(s, "gid", NULL);

	if (!gid || fc_gid_parse(gid, raw))
		return NULL;
	return fc_gid_is_ipv4_mapped(raw) ? "IPv4" : "IPv6";
}

int pair_gid_check(char *why, size_t len, const json_t *s0, const json_t *s1)
{
	const char *t0 = fc_jstr(s0, "gid_type", NULL), *t1 = fc_jstr(s1, "gid_type", NULL);
	const char *f0 = family(s0), *f1 = family(s1);
	const char *what = NULL;

	if (!t0 || !t1)
		return 0; /* InfiniBand without a GRH: LIDs */
	if (strcmp(t0, t1))
		what = "GID types differ";
	else if (f0 && f1 && strcmp(f0, f1) && strcmp(t0, "IB"))
		what = "GID address families differ";
	if (!what)
		return 0;
	snprintf(why, len,
		 "%s: %s uses %s %s GID %s (index %d), %s uses %s %s GID %s (index %d); the QPs cannot reach each other: choose GIDs of one type and family on both with -x A,B ('fabcheck devices' lists them)",
		 what, fc_jstr(s0, "node", "A"), t0, f0 ? f0 : "", fc_jstr(s0, "gid", "?"),
		 (int)fc_jnum(s0, "gid_index", -1), fc_jstr(s1, "node", "B"), t1, f1 ? f1 : "",
		 fc_jstr(s1, "gid", "?"), (int)fc_jnum(s1, "gid_index", -1));
	return -1;
}

static void side_ceiling(json_t *side, int path_mtu, double *small_p, int *hdr_p)
{
	const json_t *lk = json_object_get(side, "link");
	struct fc_link l = {
		.is_ethernet = !strcmp(fc_jstr(side, "link_layer", ""), "Ethernet"),
		.width = (unsigned)fc_jnum(lk, "width_code", 0),
		.speed = (unsigned)fc_jnum(lk, "speed_code", 0),
		.speed_ex = (unsigned)fc_jnum(lk, "speed_ex_code", 0),
		.mtu = path_mtu,
		.global = json_is_integer(json_object_get(side, "gid_index")),
		.rocev1 = json_is_true(json_object_get(lk, "rocev1")),
		.ipv6 = json_is_true(json_object_get(lk, "ipv6")),
		.vlan = json_is_true(json_object_get(lk, "vlan")),
	};
	struct fc_ceiling c;

	if (!lk)
		return;
	if (!l.is_ethernet)
		l.global = 0; /* relayed exchange on InfiniBand: LID-routed, no GRH */
	if (fc_payload_json(side, &l, &c))
		return;
	if (l.is_ethernet && path_mtu <= 1024)
		*small_p = c.share;
	*hdr_p = c.overhead;
}

void pair_link_ceiling(json_t *doc, int path_mtu)
{
	double small = 0;
	int hdr = 0;

	side_ceiling(json_object_get(doc, "a"), path_mtu, &small, &hdr);
	side_ceiling(json_object_get(doc, "b"), path_mtu, &small, &hdr);
	if (small > 0)
		fc_finding(doc, FC_WARN,
			   "RoCE at path MTU %d B carries at most %.1f%% of the port rate as payload (%d B of Ethernet, IP, UDP and RoCE headers per packet): jumbo frames are off; set MTU 9000 on the fabric interfaces and the switch ports for a 4096 B path MTU",
			   path_mtu, small * 100, hdr);
}
