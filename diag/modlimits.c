/*
 * A module's numeric readings judged: each lane the link uses against the
 * module's own thresholds.
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
 * alarm is judged by diag_module_verdict below) is the light arriving:
 * "possible", the far end's transmitter or the fibre.
 *
 * diag_module_verdict: the module's own word first (its flags, its
 * temperature and supply against its thresholds), then the limits above;
 * r_module_alarm (diagnose) and preflight's probe (pf_probe.c probe_module,
 * judged in pf_module.c) both ask it.
 * Against the same port on other nodes: diag/modpeers.c.
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

/* A module above this temperature with no high warning threshold of its own
 * is out of the commercial operating case temperature range QSFP28
 * datasheets state, 0 to 70 C (e.g. the 100G CWDM4 QSFP28 of
 * sino-telecom.com/100g-1310nm-10km-qsfp28-cwdm4, "Operating case
 * temperature: 0 to 70 C"; the LAQ2-8485-SR 100G SR4, "Case operating
 * temperature range: 0 C to 70 C"). */
#define MODULE_HOT_C 70.0

/* The module's own word, at its own two levels. SFF-8472 rev 12.4
 * section 9 (the thresholds SFF-8636 page 03h and CMIS page 02h carry over
 * unchanged): alarm flags are "likely to be associated with an inoperable
 * link and cause for immediate action", warning flags mark readings
 * "outside the normally guaranteed bounds but not necessarily causes of
 * immediate link failures". So an alarm (flag or threshold) is 1, a
 * warning alone 0; with no thresholds of its own, the commercial case limit
 * above stands for the alarm. -1 when nothing is said. */
static int own_word(const struct diag_module *m, char *why, size_t len)
{
	if (strstr(m->alarms, "alarm")) {
		snprintf(why, len, "module flags on: %s", m->alarms);
		return 1;
	}
	if (m->temp_alarm_c > 0 && m->temp_c >= m->temp_alarm_c) {
		snprintf(why, len, "module at %.1f C, at or above its high alarm threshold %.1f C", m->temp_c,
			 m->temp_alarm_c);
		return 1;
	}
	if (m->temp_warn_c <= 0 && m->temp_alarm_c <= 0 && m->temp_c >= MODULE_HOT_C) {
		snprintf(why, len, "module at %.1f C, at or above the commercial limit %.1f C", m->temp_c,
			 MODULE_HOT_C);
		return 1;
	}
	if (m->volt > 0 && m->volt_lo_alarm > 0 && (m->volt < m->volt_lo_alarm || m->volt > m->volt_hi_alarm)) {
		snprintf(why, len, "module supply %.3f V outside its alarm range %.3f-%.3f V", m->volt,
			 m->volt_lo_alarm, m->volt_hi_alarm);
		return 1;
	}
	if (m->rx_dbm_min < 99 && m->rx_lo_alarm_dbm < 99 && m->rx_dbm_min < m->rx_lo_alarm_dbm) {
		snprintf(why, len, "receive power %.2f dBm on lane %d below the module's low alarm %.2f dBm",
			 m->rx_dbm_min, m->rx_min_lane, m->rx_lo_alarm_dbm);
		return 1;
	}
	if (*m->alarms) {
		snprintf(why, len, "module warning flags on (no alarm): %s", m->alarms);
		return 0;
	}
	if (m->temp_warn_c > 0 && m->temp_c >= m->temp_warn_c) {
		snprintf(why, len, "module at %.1f C, at or above its high warning threshold %.1f C (no alarm)",
			 m->temp_c, m->temp_warn_c);
		return 0;
	}
	return -1;
}

int diag_module_verdict(const struct diag_module *m, char *why, size_t len)
{
	char lim[512];
	int own, l;

	*why = 0;
	if (!m->known)
		return -1;
	own = own_word(m, why, len);
	if (own > 0)
		return own;
	/* each lane's transmit power, bias and receive power: an alarm there
	 * outranks a warning of the module's own */
	l = diag_module_limits(m, lim, sizeof(lim));
	if (l > own || own < 0) {
		snprintf(why, len, "%s", lim);
		return l;
	}
	return own;
}
