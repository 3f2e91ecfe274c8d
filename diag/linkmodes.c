/*
 * What both ends of an Ethernet link can run at, from `ethtool DEV`
 * (issue 37 item 1): the HCA's "Supported link modes", its own
 * "Advertised link modes", the "Link partner advertised link modes" and
 * the "Speed"/"Lanes" the link trained to.
 *
 * A link mode is ethtool's name for it (ethtool's netlink link modes,
 * kernel include/uapi/linux/ethtool.h ETHTOOL_LINK_MODE_*_BIT, printed by
 * ethtool/netlink/settings.c as "40000baseCR4/Full"): the leading number is
 * the speed in Mb/s; the digit after the medium (CR4, SR2, KR) is the
 * number of lanes, none meaning one (IEEE 802.3 clause 1.4 names,
 * "100GBASE-CR2 ... over two lanes"). Auto-negotiation resolves to the
 * fastest mode both ends advertise (IEEE 802.3 clause 73.7.6, priority
 * resolution), so a link below the fastest mode both ends support runs
 * below its capability: held there by this port's own advertised modes, by
 * the partner, or by a link that trained lower than both asked for. mlx5
 * reports the partner's modes from the PTYS register's lp_advertise
 * (drivers/net/ethernet/mellanox/mlx5/core/en_ethtool.c
 * get_lp_advertising); a port whose partner does not negotiate prints no
 * such line, and then the partner is not known.
 *
 * The module: an SFF-8636 module's nominal lane signalling rate ("BR,
 * Nominal", byte 140 in units of 100 MBd, ethtool qsfp.c) times its lanes
 * is what it is built to carry (25500 MBd x 4: a 100G QSFP28; 10300 MBd x
 * 4: a 40G QSFP+). Read for NRZ lanes only (at most 25.78125 GBd, 100GBASE-R
 * lanes: IEEE 802.3 clause 82): a PAM4 lane carries twice its baud rate, so
 * above that the figure does not give the rate and is not used.
 */
#include "diag/diag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* "40000baseCR4/Full" -> 40000 Mb/s on 4 lanes; 0 when not a link mode. */
static long mode_mbps(const char *tok, int *lanes)
{
	char *end;
	long mbps = strtol(tok, &end, 10);
	const char *p;

	*lanes = 1;
	if (mbps <= 0 || strncmp(end, "base", 4))
		return 0;
	for (p = end + 4; *p && *p != '/' && *p != '_'; p++)
		if (*p >= '1' && *p <= '9' && (p[1] == '/' || p[1] == '_' || !p[1]))
			*lanes = *p - '0';
	return mbps;
}

/* The fastest mode in the list that starts after @label's colon and goes
 * on over the indented lines that hold modes only. A CR before the line end
 * is blank too: a capture saved with CR LF line ends (as some public notes
 * are stored, tests/real/mlnx_qos/idx41001320304_*) would otherwise run the
 * list on into the next fields, the partner's modes included. */
static long list_max(const char *text, const char *label, int *lanes, int *found)
{
	const char *s = strstr(text, label);
	long best = 0;

	*found = 0;
	*lanes = 0;
	if (!s)
		return 0;
	s = strchr(s, ':');
	if (!s)
		return 0;
	*found = 1;
	for (s++;;) {
		char tok[64];
		int n = 0, l;
		long m;

		while (*s == ' ' || *s == '\t' || *s == '\r')
			s++;
		if (*s == '\n') {
			const char *t = s + 1;

			while (*t == ' ' || *t == '\t')
				t++;
			if (!mode_mbps(t, &l)) /* the next field, not a mode */
				break;
			s = t;
			continue;
		}
		if (!*s || sscanf(s, "%63s%n", tok, &n) != 1)
			break;
		if ((m = mode_mbps(tok, &l)) > best)
			best = m, *lanes = l;
		s += n;
	}
	return best;
}

int diag_parse_link(const char *text, struct diag_link *l)
{
	const char *s;
	int found;

	memset(l, 0, sizeof(*l));
	if (!text)
		return -1;
	l->sup_mbps = list_max(text, "Supported link modes:", &l->sup_lanes, &found);
	l->adv_mbps = list_max(text, "Advertised link modes:", &l->adv_lanes, &found);
	l->lp_mbps = list_max(text, "Link partner advertised link modes:", &l->lp_lanes, &found);
	if ((s = strstr(text, "Speed:")))
		l->speed_mbps = strtol(s + 6, NULL, 10);
	if ((s = strstr(text, "Lanes:")))
		l->lanes = (int)strtol(s + 6, NULL, 10);
	l->known = l->sup_mbps > 0;
	return l->known ? 0 : -1;
}

static void mode_text(long mbps, int lanes, char *buf, size_t len)
{
	snprintf(buf, len, "%g Gb/s on %d lane%s", mbps / 1000.0, lanes, lanes == 1 ? "" : "s");
}

#define NRZ_MAX_MBD 25781 /* 25.78125 GBd, 100GBASE-R4 lanes */

long diag_module_mbps(const struct diag_module *m, int *lanes)
{
	*lanes = 0;
	if (!m || !m->known || m->br_mbd <= 0 || m->br_mbd > NRZ_MAX_MBD || m->nlanes <= 0)
		return 0;
	*lanes = m->nlanes;
	return (long)(m->br_mbd / 1000) * 1000 * m->nlanes;
}

/* What the ends support, as a clause: "the HCA supports and the link
 * partner advertises up to 56 Gb/s on 4 lanes". */
static void ends_text(const struct diag_link *l, long cap, int lanes, char *buf, size_t len)
{
	char c[48], h[48];

	mode_text(cap, lanes, c, sizeof(c));
	if (l->lp_mbps <= 0)
		snprintf(buf, len, "the HCA supports up to %s ('ethtool DEV' Supported link modes)", c);
	else if (l->lp_mbps < l->sup_mbps) {
		mode_text(l->sup_mbps, l->sup_lanes, h, sizeof(h));
		snprintf(buf, len, "the link partner advertises up to %s and the HCA supports %s ('ethtool DEV')", c, h);
	} else
		snprintf(buf, len, "the HCA supports and the link partner advertises up to %s ('ethtool DEV')", c);
}

void diag_expect_link(double gbps, const struct diag_link *l, const struct diag_module *m,
		      struct diag_expect *e)
{
	long cap, run = (long)(gbps * 1000 + 0.5), mod;
	int lanes, ml;
	char ends[300], why[500];

	if (!l || !l->known || run <= 0)
		return;
	cap = l->sup_mbps, lanes = l->sup_lanes;
	if (l->lp_mbps > 0 && l->lp_mbps < cap)
		cap = l->lp_mbps, lanes = l->lp_lanes;
	mod = diag_module_mbps(m, &ml);
	if (mod > 0 && mod < cap)
		cap = mod, lanes = ml;
	if (run >= cap || cap / 1000.0 <= e->gbps)
		return;
	ends_text(l, cap, lanes, ends, sizeof(ends));
	if (mod > 0 && mod == cap)
		snprintf(ends + strlen(ends), sizeof(ends) - strlen(ends),
			 ", and its module is built for %g Gb/s (ethtool -m BR, Nominal x %d lane%s)",
			 mod / 1000.0, ml, fc_s(ml));
	if (l->adv_mbps > 0 && l->adv_mbps < cap && run >= l->adv_mbps) {
		char a[48];

		mode_text(l->adv_mbps, l->adv_lanes, a, sizeof(a));
		snprintf(e->part, sizeof(e->part), "configuration (advertised link modes)");
		snprintf(why, sizeof(why), "%s, but the port advertises no mode above %s (Advertised link modes)", ends, a);
		e->likely = 1;
	} else if (l->lp_mbps <= 0) {
		snprintf(e->part, sizeof(e->part), "link partner or cable (the partner's modes are not reported)");
		snprintf(why, sizeof(why), "%s; the link partner's modes are not reported, so the switch port's speed or the cable may hold it lower", ends);
	} else {
		snprintf(e->part, sizeof(e->part), "cable or transceiver (link training)");
		snprintf(why, sizeof(why), "%s and the port advertises it, so the link trained below what both ends ask for", ends);
		e->likely = 1;
	}
	e->gbps = cap / 1000.0;
	e->width = lanes;
	snprintf(e->why + strlen(e->why), sizeof(e->why) - strlen(e->why), "%s%s",
		 *e->why ? "; " : "", why);
}

void diag_link_note(const struct diag_link *l, const struct diag_module *m, double gbps, char *buf,
		    size_t len)
{
	long run = (long)(gbps * 1000 + 0.5);
	int ml;
	long mod = diag_module_mbps(m, &ml);
	char c[48];

	*buf = 0;
	if (!l->known || run >= l->sup_mbps)
		return;
	mode_text(l->sup_mbps, l->sup_lanes, c, sizeof(c));
	if (l->lp_mbps > 0 && run == l->lp_mbps)
		snprintf(buf, len,
			 "the link runs at %g Gb/s, the most its link partner advertises, where the HCA supports %s: the partner (switch port or its setting) limits it",
			 gbps, c);
	else if (mod > 0 && run == mod)
		snprintf(buf, len,
			 "the link runs at %g Gb/s, what its module is built for (ethtool -m BR, Nominal x %d lane%s), where the HCA supports %s: the module limits it",
			 gbps, ml, fc_s(ml), c);
}
