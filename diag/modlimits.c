/*
 * A module's numeric readings judged: each lane the link uses against the
 * module's own thresholds, then each lane's receive power against the same
 * port on the rack's other nodes.
 *
 * Against the module (diag_module_limits): a CMIS module not in state
 * ModuleReady; the thresholds the module
 * advertises in its EEPROM (SFF-8636 rev 2.10a page 03h bytes 176-199;
 * CMIS 5 page 02h), printed by ethtool's sff-common.c sff_show_thresholds
 * ("Laser output power low alarm threshold", "Laser bias current high
 * alarm threshold", "Laser rx power low warning threshold", ...). A lane's
 * transmit power below the low alarm, or its bias current outside the
 * alarm range, is this module's transmitter (named at the end that
 * transmits, issue 37 item 1); a receive power below the low warning (its
 * alarm is judged in diag/rules.c r_module_alarm) is the light arriving:
 * "possible", the far end's transmitter or the fibre.
 *
 * Against the peers (diag_rx_peers): the same port (device and port) on
 * two or more other nodes, each lane in use, the median of theirs. A lane
 * receiving more than DIAG_RX_PEER_DB less than that median is named: the
 * largest channel insertion loss of the short-reach optics these racks use
 * is 4 dB (IEEE 802.3cu-2021, 400GBASE-FR4 and 100GBASE-FR1, 2 km SMF;
 * 100GBASE-SR4 on OM4 allows 1.9 dB, IEEE 802.3bm clause 95), so a lane
 * that far below its peers loses more than any compliant channel's length
 * explains: the far end's transmitter on that lane, or the fibre and its
 * connectors, not this module (its receiver reads what arrives).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/out.h"
#include "diag/diag.h"
#include "diag/rules.h"

static double dbm(double mw)
{
	return mw > 0 ? 10.0 * log10(mw) : -99;
}

int diag_module_limits(const struct diag_module *m, char *why, size_t len)
{
	*why = 0;
	/* CMIS 5 section 6.3.2 and table 8-6: only in ModuleReady are the data
	 * paths powered; ModuleLowPwr, ModulePwrUp, ModulePwrDn and
	 * ModuleFault carry no traffic (ethtool cmis.c prints the state; the
	 * module carries no application table in ethtool's output) */
	if (*m->mod_state && strcmp(m->mod_state, "ModuleReady")) {
		snprintf(why, len, "module state %s, not ModuleReady (ethtool -m 'Module State', CMIS 5 table 8-6): its lanes are not powered for traffic",
			 m->mod_state);
		return 1;
	}
	for (int i = 0; i < m->nlanes; i++) {
		double tx = m->lane_tx_mw[i], bias = m->lane_bias_ma[i];

		if (!(m->used & (1u << i)))
			continue;
		if (tx >= 0 && m->tx_lo_alarm_dbm < 99 && dbm(tx) < m->tx_lo_alarm_dbm) {
			snprintf(why, len, "lane %d transmits %.2f dBm, below the module's low alarm %.2f dBm: its transmitter",
				 i + 1, dbm(tx), m->tx_lo_alarm_dbm);
			return 1;
		}
		if (bias >= 0 && m->bias_hi_alarm_ma > 0 &&
		    (bias > m->bias_hi_alarm_ma || bias < m->bias_lo_alarm_ma)) {
			snprintf(why, len, "lane %d laser bias %.3f mA outside the module's alarm range %.3f-%.3f mA: its transmitter",
				 i + 1, bias, m->bias_lo_alarm_ma, m->bias_hi_alarm_ma);
			return 1;
		}
	}
	for (int i = 0; i < m->nlanes; i++) {
		double tx = m->lane_tx_mw[i], rx = m->lane_rx_mw[i];

		if (!(m->used & (1u << i)))
			continue;
		if (tx >= 0 && m->tx_lo_warn_dbm < 99 && dbm(tx) < m->tx_lo_warn_dbm) {
			snprintf(why, len, "lane %d transmits %.2f dBm, below the module's low warning %.2f dBm: its transmitter",
				 i + 1, dbm(tx), m->tx_lo_warn_dbm);
			return 0;
		}
		if (rx >= 0 && m->rx_lo_warn_dbm < 99 && dbm(rx) < m->rx_lo_warn_dbm) {
			snprintf(why, len, "lane %d receives %.2f dBm, below the module's low warning %.2f dBm: the far end's transmitter or the fibre",
				 i + 1, dbm(rx), m->rx_lo_warn_dbm);
			return 0;
		}
	}
	return -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Lane @lane's receive power of evidence @ev (diag_port_json's
 * module.lanes_rx_dbm), or 99 when not read or not in use. */
static double lane_rx(const json_t *ev, size_t lane)
{
	const json_t *v = json_array_get(json_object_get(json_object_get(ev, "module"),
							 "lanes_rx_dbm"), lane);

	return json_is_number(v) ? json_number_value(v) : 99;
}

static int same_port(const json_t *a, const json_t *b)
{
	return !strcmp(fc_jstr(a, "device", ""), fc_jstr(b, "device", "")) &&
	       fc_jnum(a, "port", 0) == fc_jnum(b, "port", 0) &&
	       strcmp(fc_jstr(a, "node", ""), fc_jstr(b, "node", ""));
}

/* The median of lane @l's receive power on the other nodes' same port
 * (@peer: room for @n), or 99 with fewer than two. */
static double peer_median(const json_t *const *ev, int n, int a, size_t l, double *peer, int *k_p)
{
	int k = 0;

	for (int b = 0; b < n; b++)
		if (b != a && same_port(ev[a], ev[b]) && lane_rx(ev[b], l) < 99)
			peer[k++] = lane_rx(ev[b], l);
	*k_p = k;
	if (k < 2)
		return 99;
	qsort(peer, (size_t)k, sizeof(*peer), cmp_double);
	return k % 2 ? peer[k / 2] : (peer[k / 2 - 1] + peer[k / 2]) / 2;
}

int diag_rx_peers(struct diag_ctx *c, const json_t *const *ev, int n)
{
	double *peer = calloc((size_t)n + 1, sizeof(*peer));
	int found = 0;

	for (int a = 0; peer && a < n; a++) {
		size_t nl = json_array_size(json_object_get(json_object_get(ev[a], "module"),
							    "lanes_rx_dbm"));
		char subj[256], next[400], part[64], lanes[64] = "", ev_text[1024] = "";
		int low = 0;

		for (size_t l = 0; l < nl; l++) {
			double own = lane_rx(ev[a], l), med;
			int k;

			if (own >= 99 || (med = peer_median(ev, n, a, l, peer, &k)) >= 99 ||
			    med - own <= DIAG_RX_PEER_DB)
				continue;
			snprintf(lanes + strlen(lanes), sizeof(lanes) - strlen(lanes), "%s%zu",
				 low ? ", " : "", l + 1);
			snprintf(ev_text + strlen(ev_text), sizeof(ev_text) - strlen(ev_text),
				 "%slane %zu receives %.2f dBm where the same port on %d other nodes receives %.2f dBm (median), %.1f dB less",
				 low ? "; " : "", l + 1, own, k, med, med - own);
			low++;
		}
		if (!low)
			continue;
		snprintf(subj, sizeof(subj), "%s %s port %d", fc_jstr(ev[a], "node", "?"),
			 fc_jstr(ev[a], "device", "?"), (int)fc_jnum(ev[a], "port", 0));
		snprintf(part, sizeof(part), "far end's transmitter or fibre (lane%s %s)",
			 low > 1 ? "s" : "", lanes);
		snprintf(next, sizeof(next),
			 "read 'ethtool -m' of the module at the other end of this cable (the transmit power of lane%s %s), clean and inspect both ends of the fibre, then swap the fibre; if the light stays low, replace the far end's transceiver",
			 low > 1 ? "s" : "", lanes);
		diag_emit_f(c, "module_rx_peers", subj, part, 0, next,
			    "%s: more than the %.0f dB a compliant channel loses (ethtool -m)", ev_text,
			    DIAG_RX_PEER_DB);
		found++;
	}
	free(peer);
	return found;
}
