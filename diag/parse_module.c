/*
 * `ethtool -m` as it prints a module: each key read into struct diag_module
 * (diag/diag.h), the per-lane figures and flags, and the module judged
 * against its own thresholds (the weakest lane). Pure code; split from
 * diag/parse.c.
 */
#include "diag/diag.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* `ethtool -m` "Key   : value" with the key's spaces collapsed. */
static int module_kv(const char *line, size_t len, char *key, size_t klen, const char **val)
{
	const char *colon = memchr(line, ':', len);
	size_t k = 0;

	if (!colon)
		return 0;
	for (const char *p = line; p < colon && k + 1 < klen; p++) {
		if (isspace((unsigned char)*p) && (!k || key[k - 1] == ' '))
			continue;
		key[k++] = isspace((unsigned char)*p) ? ' ' : *p;
	}
	while (k && key[k - 1] == ' ')
		k--;
	key[k] = '\0';
	for (*val = colon + 1; **val == ' ' || **val == '\t'; (*val)++)
		;
	return k > 0;
}

/* The dBm figure of "0.5000 mW / -3.01 dBm"; 99 when absent. A threshold
 * of 0 mW ("0.0000 mW / -inf dBm") is none: a module that gives no
 * thresholds reads 0 there (tests/real/ethtool_m, the Finisar SR4). */
static double dbm_of(const char *v)
{
	const char *slash = strchr(v, '/');

	if (!slash || !strstr(slash, "dBm") || !(strtod(v, NULL) > 0))
		return 99;
	return strtod(slash + 1, NULL);
}

/* The `ethtool -m` keys read into one figure: where it goes, whether it is
 * the dBm of "mW / dBm", whether it makes the module known. */
static const struct {
	const char *key;
	size_t off;
	int dbm, known;
} module_keys[] = {
	{ "Module temperature", offsetof(struct diag_module, temp_c), 0, 1 },
	{ "Module temperature high alarm threshold", offsetof(struct diag_module, temp_alarm_c), 0, 0 },
	{ "Module temperature high warning threshold", offsetof(struct diag_module, temp_warn_c), 0, 0 },
	{ "Module voltage", offsetof(struct diag_module, volt), 0, 1 },
	{ "Module voltage high alarm threshold", offsetof(struct diag_module, volt_hi_alarm), 0, 0 },
	/* SFF-8636 byte 140, units of 100 MBd (ethtool qsfp.c "BR, Nominal"):
	 * the lane signalling rate the module is built for */
	{ "BR, Nominal", offsetof(struct diag_module, br_mbd), 0, 0 },
	{ "Module voltage low alarm threshold", offsetof(struct diag_module, volt_lo_alarm), 0, 0 },
	{ "Laser rx power low alarm threshold", offsetof(struct diag_module, rx_lo_alarm_dbm), 1, 0 },
	{ "Laser rx power low warning threshold", offsetof(struct diag_module, rx_lo_warn_dbm), 1, 0 },
	{ "Laser rx power high warning threshold", offsetof(struct diag_module, rx_hi_warn_dbm), 1, 0 },
	{ "Laser output power low alarm threshold", offsetof(struct diag_module, tx_lo_alarm_dbm), 1, 0 },
	{ "Laser output power low warning threshold", offsetof(struct diag_module, tx_lo_warn_dbm), 1, 0 },
	{ "Laser bias current low alarm threshold", offsetof(struct diag_module, bias_lo_alarm_ma), 0, 0 },
	{ "Laser bias current high alarm threshold", offsetof(struct diag_module, bias_hi_alarm_ma), 0, 0 },
	{ "Laser bias current low warning threshold", offsetof(struct diag_module, bias_lo_warn_ma), 0, 0 },
	{ "Laser bias current high warning threshold", offsetof(struct diag_module, bias_hi_warn_ma), 0, 0 },
	{ "Laser output power high warning threshold", offsetof(struct diag_module, tx_hi_warn_dbm), 1, 0 },
	{ "Module voltage low warning threshold", offsetof(struct diag_module, volt_lo_warn), 0, 0 },
	{ "Module voltage high warning threshold", offsetof(struct diag_module, volt_hi_warn), 0, 0 },
};

/* The lane of "...(Channel 3)" or "... (Chan 3)", from 1; 0 none. */
static int key_lane(const char *key)
{
	const char *p = strstr(key, "(Chan");
	int lane;

	if (!p)
		return 0;
	p += strcspn(p, " 0123456789");
	lane = atoi(p);
	return lane >= 1 && lane <= DIAG_MAX_LANES ? lane : 0;
}

static int starts(const char *key, const char *prefix)
{
	return !strncmp(key, prefix, strlen(prefix));
}

/* A per-lane figure: receive power (average or OMA), transmit power, bias.
 * A single-lane SFP's figures are lane 1. */
static int lane_value(struct diag_module *m, const char *key, const char *val)
{
	int lane = key_lane(key), thr = strstr(key, "threshold") || strstr(key, "alarm") ||
					strstr(key, "warning");
	double *slot;

	if (thr)
		return 0;
	if (starts(key, "Rcvr signal avg optical power") || starts(key, "Receiver signal OMA") ||
	    starts(key, "Receiver signal average optical power"))
		slot = m->lane_rx_mw;
	else if (starts(key, "Transmit avg optical power") || starts(key, "Laser output power"))
		slot = m->lane_tx_mw;
	else if (starts(key, "Laser tx bias current") || starts(key, "Laser bias current"))
		slot = m->lane_bias_ma;
	else
		return 0;
	if (!lane)
		lane = 1;
	slot[lane - 1] = strtod(val, NULL);
	if (lane > m->nlanes)
		m->nlanes = lane;
	m->known = 1;
	return 1;
}

/* A flag that is On: the module's own, or a lane's (judged once the lanes
 * in use are known). */
static void flag_on(struct diag_module *m, const char *key)
{
	int lane = key_lane(key);
	char *buf = lane ? m->lane_flags[lane - 1] : m->alarms;
	size_t size = lane ? sizeof(m->lane_flags[0]) : sizeof(m->alarms);
	size_t klen = lane ? strcspn(key, "(") : strlen(key);

	while (klen && key[klen - 1] == ' ')
		klen--;
	if (strlen(buf) + klen + 3 >= size)
		return;
	snprintf(buf + strlen(buf), size - strlen(buf), "%s%.*s", *buf ? ", " : "", (int)klen, key);
	if (lane > m->nlanes)
		m->nlanes = lane;
}

/* "Active application selected code assigned to host lane N: 1" (a lane
 * in the active application) or ": N/A" (none): CMIS 5 page 11h, as SONiC
 * prints it (sonic-utilities PR 4207, a 400G QSFP+C using lanes 1-4). */
static int app_lane(struct diag_module *m, const char *key, const char *val)
{
	static const char pre[] = "Active application selected code assigned to host lane ";
	char *end;
	long lane, code;

	if (strncmp(key, pre, sizeof(pre) - 1))
		return 0;
	lane = strtol(key + sizeof(pre) - 1, &end, 10);
	code = strtol(val, &end, 10);
	if (lane >= 1 && lane <= DIAG_MAX_LANES && end != val && code > 0)
		m->app_lanes |= 1u << (lane - 1);
	return 1;
}

/* "Tx fault : [ No, No, Yes, No ]" or "None": ethtool cmis.c
 * cmis_show_signals prints each lane-specific flag of CMIS page 11h
 * (CMIS 5 table 8-80: TxFailure "an internal failure that causes an
 * unspecified malfunction in the Tx facility used by media lane <i>";
 * Tx/Rx LOS, Tx/Rx CDR LOL) and qsfp.c sff8636_show_signals those of
 * SFF-8636 bytes 3-5 (Rx/Tx LOS, Tx fault, Rx/Tx CDR LOL), each through
 * sff_show_lane_status (module_show_lane_status in ethtool 6.x), lane 1
 * first. */
static int lane_list(struct diag_module *m, const char *key, const char *val)
{
	unsigned *slot = !strcmp(key, "Tx fault")	    ? &m->tx_fault :
			 !strcmp(key, "Tx loss of signal") ? &m->tx_los :
			 !strcmp(key, "Rx loss of signal") ? &m->rx_los :
			 !strcmp(key, "Tx loss of lock")   ? &m->tx_lol :
			 !strcmp(key, "Rx loss of lock")   ? &m->rx_lol :
							     NULL;
	int lane = 0;

	if (!slot)
		return 0;
	for (const char *p = strchr(val, '['); p && *p && *p != ']' && lane < DIAG_MAX_LANES;) {
		p += strspn(p, "[ ,\t");
		if (!*p || *p == ']')
			break;
		if (!strncmp(p, "Yes", 3))
			*slot |= 1u << lane;
		lane++;
		p += strcspn(p, ",]");
	}
	return 1;
}

void diag_module_pn(const char *text, char *buf, size_t len)
{
	const char *s = text ? strstr(text, "Vendor PN") : NULL;

	*buf = 0;
	if (!s || !(s = strchr(s, ':')))
		return;
	s += 1 + strspn(s + 1, " \t");
	snprintf(buf, len, "%.*s", (int)strcspn(s, "\r\n"), s);
	for (size_t n = strlen(buf); n && (buf[n - 1] == ' ' || buf[n - 1] == '\t'); n--)
		buf[n - 1] = 0;
}

static void module_line(struct diag_module *m, const char *key, const char *val)
{
	int thr = strstr(key, "threshold") != NULL;

	if (app_lane(m, key, val) || lane_list(m, key, val))
		return;
	if (!strcmp(key, "Module State")) {
		const char *w = strchr(val, '(');

		if (w)
			snprintf(m->mod_state, sizeof(m->mod_state), "%.*s",
				 (int)strcspn(w + 1, ")\r\n"), w + 1);
		return;
	}

	for (size_t i = 0; i < sizeof(module_keys) / sizeof(module_keys[0]); i++)
		if (!strcmp(key, module_keys[i].key)) {
			*(double *)((char *)m + module_keys[i].off) =
				module_keys[i].dbm ? dbm_of(val) : strtod(val, NULL);
			m->known |= module_keys[i].known;
			return;
		}
	if (lane_value(m, key, val))
		return;
	if (!thr && (strstr(key, "alarm") || strstr(key, "warning")) && !strncmp(val, "On", 2))
		flag_on(m, key);
}

int diag_parse_module(const char *text, struct diag_module *m)
{
	memset(m, 0, sizeof(*m));
	m->rx_dbm_min = 99;
	m->rx_lo_alarm_dbm = m->rx_lo_warn_dbm = m->tx_lo_alarm_dbm = m->tx_lo_warn_dbm = 99;
	m->tx_hi_warn_dbm = m->rx_hi_warn_dbm = 99;
	for (int i = 0; i < DIAG_MAX_LANES; i++)
		m->lane_rx_mw[i] = m->lane_tx_mw[i] = m->lane_bias_ma[i] = -1;
	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n'), *val;
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char key[96], vbuf[96];

		if (len < 200 && module_kv(line, len, key, sizeof(key), &val)) {
			snprintf(vbuf, sizeof(vbuf), "%.*s", (int)(line + len - val), val);
			module_line(m, key, vbuf);
		}
		line = nl ? nl + 1 : NULL;
	}
	/*
	 * ethtool (qsfp.c, sff8636_show_dom) takes a module temperature of
	 * raw 0x0 or 0xFFFF (printed 0.00 or -0.00 degrees C) as a module
	 * without monitors and prints no lane after it: that temperature and
	 * the voltage beside it are no readings (a passive copper cable,
	 * tests/real/ethtool_m).
	 */
	if (!m->nlanes && m->temp_c > -0.005 && m->temp_c < 0.005) {
		m->known = 0;
		m->temp_c = m->volt = 0;
	}
	return m->known ? 0 : -1;
}

/*
 * The smallest optical power a module reports: SFF-8636 rev 2.10a section
 * 6.2.4 (Rx and Tx power, bytes 34-49), SFF-8472 rev 12.4 section 9.2 and
 * CMIS 5 table 8-10 encode it as an unsigned count of 0.1 uW, which ethtool
 * prints as "0.0001 mW / -40.00 dBm" for a count of 1. Many modules floor
 * a dark receiver or an idle laser there rather than at 0: a ConnectX-4
 * port whose card turned the laser off reads 0 mA of bias and 0.0001 mW
 * out and in on every lane (tests/real/ethtool_m, the CWDM4 module before
 * its OUI was set). A reading at or under one count is no light.
 */
#define MODULE_POWER_LSB_MW 0.0001

static int no_power(double mw)
{
	return !(mw > MODULE_POWER_LSB_MW * 1.5);
}

/* No light, or its transmitter off: no power out or 0 mA of bias and
 * neither above that (active cables read 0 mW out with their bias on). */
static int lane_dark(const struct diag_module *m, int i)
{
	const double tx = m->lane_tx_mw[i], bias = m->lane_bias_ma[i];

	return no_power(m->lane_rx_mw[i]) ||
	       (((tx >= 0 && no_power(tx)) || bias == 0) && no_power(tx) && !(bias > 0));
}

int diag_module_lane_lit(const struct diag_module *m, int i)
{
	return i >= 0 && i < m->nlanes && !lane_dark(m, i);
}

static void weakest(struct diag_module *m)
{
	double sum = 0, low = 0;
	int n = 0, at = -1;

	for (int i = 0; i < m->nlanes; i++) {
		double d;

		if (!(m->used & (1u << i)) || !(m->lane_rx_mw[i] > 0))
			continue;
		d = 10 * log10(m->lane_rx_mw[i]);
		sum += d;
		n++;
		if (at < 0 || d < low)
			low = d, at = i;
	}
	if (at < 0)
		return;
	m->rx_dbm_min = low;
	m->rx_min_lane = at + 1;
	if (n >= 2 && (sum - low) / (n - 1) - low > DIAG_LANE_IMBALANCE_DB) {
		m->weak_lane = at + 1;
		m->weak_db = (sum - low) / (n - 1) - low;
	}
}

void diag_module_judge(struct diag_module *m, int width)
{
	int used = 0, values = 0;

	m->used = m->dark = 0;
	m->width = width;
	m->rx_dbm_min = 99;
	m->rx_min_lane = m->weak_lane = 0;
	m->weak_db = 0;
	for (int i = 0; i < m->nlanes; i++)
		values += m->lane_rx_mw[i] >= 0 || m->lane_tx_mw[i] >= 0 || m->lane_bias_ma[i] >= 0;
	for (int i = 0; i < m->nlanes; i++) {
		if (!values) { /* flags alone: the first lanes of the link's width */
			m->used |= !width || i < width ? 1u << i : 0;
			continue;
		}
		if (m->lane_rx_mw[i] < 0 && m->lane_tx_mw[i] < 0 && m->lane_bias_ma[i] < 0)
			continue;
		if (m->tx_fault & (1u << i))
			continue; /* faulted: not in use, and not idle either (diag/expect.c) */
		if (m->app_lanes && !(m->app_lanes & (1u << i))) {
			m->dark |= 1u << i; /* outside the active application */
			continue;
		}
		if (lane_dark(m, i) || (width > 0 && used >= width)) {
			m->dark |= lane_dark(m, i) ? 1u << i : 0;
			continue;
		}
		m->used |= 1u << i;
		used++;
	}
	for (int i = 0; i < m->nlanes; i++) {
		size_t n = strlen(m->alarms);

		if (!(m->used & (1u << i)) || !*m->lane_flags[i] || n + 24 >= sizeof(m->alarms))
			continue;
		snprintf(m->alarms + n, sizeof(m->alarms) - n, "%slane %d: %s", n ? ", " : "", i + 1,
			 m->lane_flags[i]);
	}
	weakest(m);
}
