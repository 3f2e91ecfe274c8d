/*
 * One module's lanes against each other, and its lane flags named at the
 * end that transmits (issue 37 item 1).
 *
 * Lanes against their siblings (diag_module_lanes). The lanes of a module
 * share its case temperature, its supply, its laser driver and its host
 * connector, so its healthy lanes sit close together; a lane apart from
 * them is that lane: its laser, its fibre, or the light sent into it. Each
 * lane in use's transmit power, laser bias and receive power is compared
 * with the same reading of the module's other lanes in use, by the rule the
 * same port's module on other nodes is judged with (diag_window_apart,
 * diag/modpeers.c): outside the band its sibling lanes form and more than
 * half the way from their median to the module's own warning threshold of
 * that reading. The allowed spread is therefore the module's own window:
 * SFF-8636 rev 2.10a page 03h bytes 176-199 (Rx power, Tx bias and Tx
 * power alarm and warning thresholds, one set for every channel) and CMIS
 * 5.2 page 02h bytes 176-199 (the lane-related thresholds), which ethtool
 * sff-common.c sff_show_thresholds prints as "Laser output power low
 * warning threshold", "Laser bias current high warning threshold", "Laser
 * rx power low warning threshold", ... No spread is picked here: IEEE
 * bounds the launch power difference between lanes only for WDM PMDs
 * (400GBASE-FR4 4 dB, IEEE 802.3cu table 151-7) and not for parallel ones
 * (SR4, DR4: each lane bounded alone, 802.3bm table 95-6), and `ethtool
 * -m` does not reliably name the PMD. Three lanes in use at least: with
 * two, either one is as far from the other. A reading past its warning
 * threshold is the module's own flag (diag_module_verdict), not judged
 * here. Nothing past the warning means the module says the lane is in
 * spec, so a lane apart is "possible" (diagnose) or a warning (preflight).
 *
 * Lane flags (diag_module_signals): the per-lane status flags of SFF-8636
 * rev 2.10a bytes 3-5 (Rx LOS and Tx LOS byte 3, Tx fault byte 4, Rx and
 * Tx CDR loss of lock byte 5) and CMIS 5.2 page 11h (table 8-80 Tx flags:
 * TxFailure, TxLOS, TxCDRLOL; table 8-81 Rx flags: RxLOS, RxCDRLOL), as
 * ethtool qsfp.c sff8636_show_signals and cmis.c cmis_show_signals print
 * them ("Rx loss of signal : [ No, Yes, No, No ]"). Each is named at the
 * end that transmits what the flag says is missing:
 *   Tx fault: this module's transmitter;
 *   Tx LOS / Tx LOL: the electrical signal the host sends into the module
 *     (SFF-8636: "loss of signal on the host electrical input"): this
 *     port's HCA lane, or the module's host side;
 *   Rx LOS / Rx LOL: the light arriving: the far end's transmitter or the
 *     fibre.
 * The flags are latched until read (SFF-8636 and CMIS: clear on read), so
 * a flag may be older than the reading: "possible" or a warning.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/out.h"
#include "diag/diag.h"
#include "diag/rules.h"

/* One per-lane reading of a module. */
struct lane_reading {
	const char *name, *unit;
	int far; /* the light arriving: the far end's */
};

static const struct lane_reading lane_readings[] = {
	{ "transmit power", "dBm", 0 },
	{ "laser bias", "mA", 0 },
	{ "receive power", "dBm", 1 },
};

/* Lane @i's reading @r of @m and its window; 0 when not read. */
static int lane_value(const struct diag_module *m, size_t r, int i, struct diag_window *w)
{
	double v = r == 0 ? m->lane_tx_mw[i] : r == 1 ? m->lane_bias_ma[i] : m->lane_rx_mw[i];
	double lo = r == 0 ? m->tx_lo_warn_dbm : r == 1 ? m->bias_lo_warn_ma : m->rx_lo_warn_dbm;
	double hi = r == 0 ? m->tx_hi_warn_dbm : r == 1 ? m->bias_hi_warn_ma : m->rx_hi_warn_dbm;

	if (!(v > 0))
		return 0;
	if (r == 1) /* mA, 0 when not given */
		*w = (struct diag_window){ v, lo, hi, lo > 0, hi > 0, lane_readings[r].unit };
	else /* dBm, 99 when not given */
		*w = (struct diag_window){ 10.0 * log10(v), lo, hi, lo < 99, hi < 99,
					   lane_readings[r].unit };
	if (w->has_lo && w->has_hi && w->lo >= w->hi)
		w->has_lo = w->has_hi = 0; /* no window: a module that gives zeros */
	return 1;
}

/* Reading @r of lane @i against the module's other lanes in use. */
static int lane_apart(const struct diag_module *m, size_t r, int i, char *why, size_t len)
{
	struct diag_window w, o;
	double p[DIAG_MAX_LANES];
	char key[64], whose[96];
	int k = 0;

	if (!(m->used & (1u << i)) || !lane_value(m, r, i, &w))
		return 0;
	for (int j = 0; j < m->nlanes; j++)
		if (j != i && (m->used & (1u << j)) && lane_value(m, r, j, &o))
			p[k++] = o.v;
	if (k < 2)
		return 0;
	snprintf(key, sizeof(key), "lane %d %s", i + 1, lane_readings[r].name);
	snprintf(whose, sizeof(whose), "the module's %d other lanes in use read", k);
	return diag_window_apart(key, &w, p, k, whose, why, len);
}

int diag_module_lanes(const struct diag_module *m, unsigned rx_skip, char *why, size_t len,
		      char *part, size_t plen)
{
	int named = 0;

	*why = *part = 0;
	if (!m->known)
		return 0;
	for (size_t r = 0; r < sizeof(lane_readings) / sizeof(lane_readings[0]); r++)
		for (int i = 0; i < m->nlanes; i++) {
			if (lane_readings[r].far && (rx_skip & (1u << i)))
				continue;
			if (!lane_apart(m, r, i, why, len) || named++)
				continue;
			snprintf(part, plen, lane_readings[r].far ?
					     "far end's transmitter or fibre (lane %d)" :
					     "transceiver (lane %d transmitter)", i + 1);
		}
	return named;
}

/* One lane flag: its bits, its name and the end that transmits. */
struct lane_flag {
	unsigned bits;
	const char *name, *what, *part;
};

/* "3" or "2, 3": the lanes of @mask, from 1. */
static void lanes_of(unsigned mask, char *buf, size_t len)
{
	*buf = 0;
	for (int i = 0; i < DIAG_MAX_LANES; i++)
		if (mask & (1u << i))
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%d", *buf ? ", " : "", i + 1);
}

/* The lanes whose loss of signal or lock says something: the active
 * application's host lanes, else the first @m->width (the port's), else
 * every lane read. */
static unsigned flag_lanes(const struct diag_module *m)
{
	unsigned all = m->nlanes >= 32 ? ~0u : (1u << m->nlanes) - 1;

	if (m->app_lanes)
		return m->app_lanes;
	return m->width > 0 && m->width < 32 ? all & ((1u << m->width) - 1) : all;
}

int diag_module_signals(const struct diag_module *m, int faults, char *why, size_t len,
			char *part, size_t plen)
{
	const unsigned in = flag_lanes(m);
	const struct lane_flag flags[] = {
		{ faults ? m->tx_fault : 0, "Tx fault",
		  "its transmitter reports a failure: this end's transceiver",
		  "transceiver (lane %s transmitter)" },
		{ m->tx_los & in, "Tx loss of signal",
		  "no electrical signal from the host reaches its transmitter: this end, the HCA's lane or the module's host side",
		  "HCA or transceiver host side (lane %s)" },
		{ m->tx_lol & in, "Tx loss of lock",
		  "it cannot lock to the host's signal: this end, the HCA's lane or the module's host side",
		  "HCA or transceiver host side (lane %s)" },
		{ m->rx_los & in, "Rx loss of signal",
		  "no light arrives: the far end's transmitter or the fibre",
		  "far end's transmitter or fibre (lane %s)" },
		{ m->rx_lol & in, "Rx loss of lock",
		  "it cannot lock to the light arriving: the far end's transmitter or the fibre",
		  "far end's transmitter or fibre (lane %s)" },
	};
	int named = 0;

	*why = *part = 0;
	if (!m->known)
		return 0;
	for (size_t f = 0; f < sizeof(flags) / sizeof(flags[0]); f++) {
		char lanes[48];

		if (!flags[f].bits)
			continue;
		lanes_of(flags[f].bits, lanes, sizeof(lanes));
		snprintf(why + strlen(why), len - strlen(why), "%s'%s' on lane%s %s (%s)",
			 named ? "; " : "", flags[f].name, strchr(lanes, ',') ? "s" : "", lanes,
			 flags[f].what);
		if (!named++)
			snprintf(part, plen, flags[f].part, lanes);
	}
	return named;
}

void diag_r_module_lanes(struct diag_ctx *c, const struct diag_port *p)
{
	const char *dev = p->netdev[0] ? p->netdev : p->dev;
	char subj[256], why[1024], part[96], next[400], cmd[64];

	snprintf(subj, sizeof(subj), "%s %s port %d", p->node, p->dev, p->port);
	/* the weak lane of module_lane is named there */
	if (diag_module_lanes(&p->mod, p->mod.weak_lane ? 1u << (p->mod.weak_lane - 1) : 0, why,
			      sizeof(why), part, sizeof(part))) {
		diag_module_lanes_next(diag_module_cmd(p->netdev, p->dev, p->hca_bdf, 0, cmd,
						       sizeof(cmd)),
				       next, sizeof(next));
		diag_emit_f(c, "module_lanes", subj, part, 0, next, "%s (ethtool -m)", why);
	}
	/* a Tx fault is named by port_below or module_tx */
	if (diag_module_signals(&p->mod, 0, why, sizeof(why), part, sizeof(part))) {
		diag_module_signals_next(diag_module_cmd(p->netdev, p->dev, p->hca_bdf, 0, cmd,
							 sizeof(cmd)),
					 next, sizeof(next));
		diag_emit_f(c, "module_flags", subj, part, 0, next,
			    "the module of %s flags %s (ethtool -m; latched until read)", dev, why);
	}
}

const char *diag_module_cmd(const char *netdev, const char *dev, const char *bdf, int link,
			    char *buf, size_t len)
{
	if (netdev && *netdev)
		snprintf(buf, len, "ethtool%s %s", link ? "" : " -m", netdev);
	else
		snprintf(buf, len, "mlxlink -d %s%s", bdf && *bdf ? bdf : dev ? dev : "?",
			 link ? "" : " -m");
	return buf;
}

void diag_module_lanes_next(const char *cmd, char *buf, size_t len)
{
	snprintf(buf, len,
		 "read '%s' again and compare the lane with the module's other lanes; clean and inspect that lane's fibre at both ends, then swap the transceiver with a known-good one: a lane that stays apart with the module is the module's, one that stays with the fibre or the far end is theirs",
		 cmd);
}

void diag_module_signals_next(const char *cmd, char *buf, size_t len)
{
	snprintf(buf, len,
		 "read '%s' twice (the flags are latched): a flag on again is live; for the far end, read its module's transmit power and clean the fibre; for this end, reseat and swap the transceiver",
		 cmd);
}
