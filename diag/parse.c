/*
 * Recorded text as the tools print it: the class of each counter name,
 * `perfquery`, `ethtool -m`, sysfs rate and AER files. Pure code.
 */
#include "diag/diag.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/out.h"

/*
 * Counter names and what they show. Sources: the kernel's mlx5 counters
 * documentation (Documentation/networking/device_drivers/ethernet/mellanox/
 * mlx5/counters.rst: *_phy, hw_counters), the InfiniBand PortCounters
 * attribute (IBTA vol. 1, 16.1.3.5; sysfs counters/ and perfquery), and the
 * rxe driver's hw_counters (drivers/infiniband/sw/rxe/rxe_hw_counters.c).
 * A name not listed is evidence of nothing. Patterns as fnmatch(3).
 */
static const struct {
	const char *pat;
	enum diag_class cls;
} counter_classes[] = {
	{ "symbol_error", DIAG_C_PHYS },
	{ "port_rcv_errors", DIAG_C_PHYS },
	{ "local_link_integrity_errors", DIAG_C_PHYS },
	{ "rx_symbol_err_phy", DIAG_C_PHYS },
	{ "rx_crc_errors_phy", DIAG_C_PHYS },
	{ "rx_pcs_symbol_err_phy", DIAG_C_POSTFEC },
	{ "rx_corrected_bits_phy", DIAG_C_CORRECTED },
	{ "rx_bits_phy", DIAG_C_BITS },
	{ "link_downed", DIAG_C_FLAP },
	{ "link_error_recovery", DIAG_C_FLAP },
	{ "link_down_events_phy", DIAG_C_FLAP },
	{ "netdev_carrier_changes", DIAG_C_FLAP },
	{ "port_rcv_remote_physical_errors", DIAG_C_REMOTE },
	{ "excessive_buffer_overrun_errors", DIAG_C_DROP },
	{ "port_xmit_discards", DIAG_C_DROP },
	{ "VL15_dropped", DIAG_C_DROP },
	/* Receive not ready (fc_counter_is_rnr, core/pairv.c): mlx5
	 * out_of_buffer, "drops due to lack of WQE for the associated QPs";
	 * rnr_nak_retry_err, RNR NAKs received within the retry limit; rxe
	 * rcvd_rnr_err / send_rnr_err, RNR NAKs received / sent. */
	{ "out_of_buffer", DIAG_C_RNR },
	{ "rx_out_of_buffer", DIAG_C_DROP },
	{ "rx_discards_phy", DIAG_C_DROP },
	{ "tx_discards_phy", DIAG_C_DROP },
	{ "rx_prio[0-7]_discards", DIAG_C_DROP },
	{ "rx_prio[0-7]_buf_discard", DIAG_C_DROP },
	{ "rx_prio[0-7]_cong_discard", DIAG_C_DROP },
	{ "out_of_sequence", DIAG_C_SEQ_IN },
	{ "out_of_seq_request", DIAG_C_SEQ_IN },
	{ "rcvd_seq_err", DIAG_C_SEQ_OUT },
	{ "packet_seq_err", DIAG_C_SEQ_OUT },
	{ "implied_nak_seq_err", DIAG_C_SEQ },
	{ "local_ack_timeout_err", DIAG_C_SEQ },
	{ "duplicate_request", DIAG_C_SEQ_OUT },
	{ "rnr_nak_retry_err", DIAG_C_RNR },
	{ "roce_adp_retrans", DIAG_C_SEQ },
	{ "roce_adp_retrans_to", DIAG_C_SEQ },
	{ "req_transport_retries_exceeded", DIAG_C_SEQ },
	{ "retry_exceeded_err", DIAG_C_SEQ },
	{ "retry_rnr_exceeded_err", DIAG_C_SEQ },
	{ "completer_retry_err", DIAG_C_SEQ },
	{ "rcvd_rnr_err", DIAG_C_RNR },
	{ "send_rnr_err", DIAG_C_RNR },
	{ "port_xmit_wait", DIAG_C_PAUSE },
	{ "rx_pause_ctrl_phy", DIAG_C_PAUSE },
	{ "tx_pause_ctrl_phy", DIAG_C_PAUSE },
	{ "rx_prio[0-7]_pause", DIAG_C_PAUSE },
	{ "tx_prio[0-7]_pause", DIAG_C_PAUSE },
	{ "rx_global_pause", DIAG_C_PAUSE },
	{ "tx_global_pause", DIAG_C_PAUSE },
	{ "np_ecn_marked_roce_packets", DIAG_C_ECN },
	{ "np_cnp_sent", DIAG_C_ECN },
	{ "rp_cnp_handled", DIAG_C_ECN },
	{ "rp_cnp_ignored", DIAG_C_ECN },
	{ "port_rcv_switch_relay_errors", DIAG_C_CONFIG },
	{ "port_xmit_constraint_errors", DIAG_C_CONFIG },
	{ "port_rcv_constraint_errors", DIAG_C_CONFIG },
};

enum diag_class diag_counter_class(const char *name)
{
	for (size_t i = 0; i < sizeof(counter_classes) / sizeof(counter_classes[0]); i++)
		if (!fnmatch(counter_classes[i].pat, name, 0))
			return counter_classes[i].cls;
	return DIAG_C_NONE;
}

const char *diag_class_name(enum diag_class c)
{
	static const char *const names[DIAG_C_NCLASS] = {
		[DIAG_C_NONE] = "other",	  [DIAG_C_PHYS] = "physical",
		[DIAG_C_POSTFEC] = "uncorrected", [DIAG_C_CORRECTED] = "fec_corrected",
		[DIAG_C_BITS] = "bits",		  [DIAG_C_FLAP] = "flap",
		[DIAG_C_REMOTE] = "remote_physical", [DIAG_C_DROP] = "drop",
		[DIAG_C_SEQ_IN] = "sequence_gap", [DIAG_C_SEQ_OUT] = "sent_lost",
		[DIAG_C_SEQ] = "retry",
		[DIAG_C_PAUSE] = "pause",	  [DIAG_C_ECN] = "ecn_cnp",
		[DIAG_C_CONFIG] = "constraint",	  [DIAG_C_RNR] = "receive_not_ready",
	};

	return c < DIAG_C_NCLASS ? names[c] : "?";
}

/* perfquery's names (IBTA PortCounters) to the sysfs ones. */
static const char *const pq_names[][2] = {
	{ "SymbolErrorCounter", "symbol_error" },
	{ "LinkErrorRecoveryCounter", "link_error_recovery" },
	{ "LinkDownedCounter", "link_downed" },
	{ "PortRcvErrors", "port_rcv_errors" },
	{ "PortRcvRemotePhysicalErrors", "port_rcv_remote_physical_errors" },
	{ "PortRcvSwitchRelayErrors", "port_rcv_switch_relay_errors" },
	{ "PortXmitDiscards", "port_xmit_discards" },
	{ "PortXmitConstraintErrors", "port_xmit_constraint_errors" },
	{ "PortRcvConstraintErrors", "port_rcv_constraint_errors" },
	{ "LocalLinkIntegrityErrors", "local_link_integrity_errors" },
	{ "ExcessiveBufferOverrunErrors", "excessive_buffer_overrun_errors" },
	{ "VL15Dropped", "VL15_dropped" },
	{ "PortXmitWait", "port_xmit_wait" },
	{ "PortXmitData", "port_xmit_data" },
	{ "PortRcvData", "port_rcv_data" },
	{ "PortXmitPkts", "port_xmit_packets" },
	{ "PortRcvPkts", "port_rcv_packets" },
};

/* One line "Name:......value" of perfquery; 1 when it is a counter. */
static int pq_line(const char *line, size_t len, char *name, size_t nlen,
		   unsigned long long *v_p)
{
	const char *colon = memchr(line, ':', len), *p;
	char *end;

	if (!colon || line[0] == '#' || colon == line || (size_t)(colon - line) >= nlen)
		return 0;
	for (p = line; p < colon; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return 0;
	memcpy(name, line, (size_t)(colon - line));
	name[colon - line] = '\0';
	for (p = colon + 1; p < line + len && *p == '.'; p++)
		;
	if (p == line + len || !isdigit((unsigned char)*p) || !strncmp(p, "0x", 2))
		return 0;
	*v_p = strtoull(p, &end, 10);
	return end <= line + len && (end == line + len || isspace((unsigned char)*end));
}

/* A perfquery counter the evidence reads, under its own name. */
static int pq_counter(const char *line, size_t len, char *name, size_t nlen,
		      unsigned long long *v_p)
{
	char raw[64];

	if (!pq_line(line, len, raw, sizeof(raw), v_p))
		return 0;
	for (size_t i = 0; i < sizeof(pq_names) / sizeof(pq_names[0]); i++)
		if (!strcmp(raw, pq_names[i][0])) {
			snprintf(name, nlen, "%s", pq_names[i][1]);
			return 1;
		}
	return 0;
}

json_t *diag_parse_perfquery(const char *text)
{
	return fc_json_counters(text, pq_counter);
}

double diag_parse_rate(const char *s)
{
	char *end;
	double v = s ? strtod(s, &end) : 0;

	return s && end != s && v > 0 ? v : 0;
}

/*
 * A counter's decimal text: the kernel's AER totals are u64 printed with
 * %llu (drivers/pci/pcie/aer.c, aer_stats_dev_attr), so a count is never
 * negative; one above DIAG_COUNT_MAX is no count a device reached (at a
 * billion a second it takes 73 years) but a crafted file, and the sums and
 * differences of a few counts (r_bridge's, a before/after delta) must not
 * overflow. -1 for no count.
 */
static long long diag_count(const char *p)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(p, &end, 10);
	return end == p || errno || v < 0 || v > DIAG_COUNT_MAX ? -1 : v;
}

long long diag_parse_aer(const char *text)
{
	const char *p = text ? strstr(text, "TOTAL_ERR_") : NULL;

	if (!p)
		return -1;
	p += strcspn(p, " \t");
	return diag_count(p);
}

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

int diag_parse_width(const char *s)
{
	const char *p = s ? strchr(s, '(') : NULL;
	int w = p ? atoi(p + 1) : 0;

	return w > 0 && w <= DIAG_MAX_LANES && p[1 + strspn(p + 1, "0123456789")] == 'X' ? w : 0;
}

/*
 * PCIe payload ceiling. Encoding: 8b/10b at 2.5 and 5 GT/s, 128b/130b at
 * 8-32 GT/s, 242/256 FLITs at 64 GT/s (PCIe base specification). Per TLP
 * of @mps payload bytes: 4 B header-prefix framing and sequence number, a
 * 16 B header (4DW, 64-bit addresses) and a 4 B LCRC: 24 B. DLLPs (ACKs,
 * flow-control updates) take about 5% more. A 16 GT/s x8 link at 256 B
 * gives 128 * 128/130 * 256/280 * 0.95 = about 110 Gb/s.
 */
double diag_pcie_gbps(double gts, int width, int mps)
{
	double enc = gts <= 5.0 ? 0.8 : gts <= 32.0 ? 128.0 / 130.0 : 242.0 / 256.0;

	if (gts <= 0 || width <= 0)
		return 0;
	if (mps <= 0)
		mps = 256;
	return gts * width * enc * ((double)mps / (mps + 24)) * 0.95;
}

int diag_pcie_mps_from_config(const uint8_t *cfg, size_t len)
{
	size_t ptr = len > 0x34 ? cfg[0x34] & ~3u : 0;

	/* the capability list (PCIe base spec 7.5.3): the PCI Express
	 * capability (ID 0x10) holds Device Control at +8, MPS in bits 7:5 */
	for (int steps = 0; ptr >= 0x40 && ptr + 10 <= len && steps < 48; steps++) {
		if (cfg[ptr] == 0x10)
			return 128 << ((cfg[ptr + 8] >> 5) & 7);
		ptr = cfg[ptr + 1] & ~3u;
	}
	return 0;
}

/* The trust mode of `mlnx_qos -i` ("Priority trust state: dscp") or of a
 * file holding the word alone (sysfs qos/trust); "" when none. */
void diag_parse_trust(const char *text, char *out, size_t len)
{
	const char *p = text ? strstr(text, "trust state:") : NULL;

	*out = '\0';
	if (p)
		p += strlen("trust state:");
	else if (text && (!strncmp(text, "pcp", 3) || !strncmp(text, "dscp", 4)))
		p = text;
	if (!p)
		return;
	p += strspn(p, " \t");
	snprintf(out, len, "%.*s", (int)strcspn(p, " \t\n"), p);
	if (strcmp(out, "pcp") && strcmp(out, "dscp"))
		*out = '\0';
}

/* Eight 0/1 flags from @p on ("0 0 0 1 0 0 0 0", "0,0,0,1,0,0,0,0"). */
static int pfc_flags(const char *p)
{
	int mask = 0, n = 0;

	for (; *p && *p != '\n' && n < 8; p++) {
		if (*p == '0' || *p == '1')
			mask |= (*p == '1') << n++;
		else if (*p != ' ' && *p != '\t' && *p != ',')
			return -1;
	}
	return n == 8 ? mask : -1;
}

/* The priorities with PFC on, a bit each: `mlnx_qos -i` ("enabled  0 0 0 1
 * ..." under "PFC configuration:"), `dcb pfc show dev` ("prio-pfc 0:off
 * 1:off 2:off 3:on ..."), or the eight flags alone; -1 unknown. */
int diag_parse_pfc(const char *text)
{
	const char *p;
	int mask = 0;

	if (!text)
		return -1;
	if ((p = strstr(text, "PFC configuration:")) && (p = strstr(p, "enabled")))
		return pfc_flags(p + strlen("enabled"));
	if ((p = strstr(text, "prio-pfc"))) {
		for (int prio = 0; prio < 8; prio++) {
			char key[8];
			const char *q;

			snprintf(key, sizeof(key), " %d:on", prio);
			q = strstr(p, key);
			mask |= q && (!strchr(p, '\n') || q < strchr(p, '\n')) ? 1 << prio : 0;
		}
		return mask;
	}
	return pfc_flags(text + strspn(text, " \t"));
}

/* `devlink health show` ("pci/BDF:", "  reporter NAME", "    state S error
 * N recover M ..."): [{handle, reporter, state, error}] in output order;
 * NULL when no reporter line. */
json_t *diag_parse_devlink(const char *text)
{
	json_t *out = json_array(), *cur = NULL;
	char handle[64] = "";

	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n'), *p = line + strspn(line, " \t");
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char word[64];

		while (len && (line[len - 1] == ' ' || line[len - 1] == '\r'))
			len--;
		if ((!strncmp(p, "pci/", 4) || !strncmp(p, "auxiliary/", 10)) && len > 1 && line[len - 1] == ':' &&
		    (size_t)(line + len - p) < sizeof(handle))
			snprintf(handle, sizeof(handle), "%.*s", (int)(line + len - p) - 1, p);
		else if (sscanf(p, "reporter %63s", word) == 1 || sscanf(p, "name %63s", word) == 1) {
			cur = json_pack("{s:s, s:s, s:s, s:I}", "handle", handle, "reporter", word,
					"state", "", "error", (json_int_t)-1);
			json_array_append_new(out, cur);
		} else if (cur && !strncmp(p, "state ", 6)) {
			long long err = -1;
			const char *e = NULL;

			if (sscanf(p, "state %63s", word) == 1) {
				json_object_set_new(cur, "state", json_string(word));
				e = strstr(p + 6 + strlen(word), " error ");
			}
			if (e && e < line + len)
				err = strtoll(e + 7, NULL, 10);
			json_object_set_new(cur, "error", json_integer(err));
		}
		line = nl ? nl + 1 : NULL;
	}
	if (!json_array_size(out)) {
		json_decref(out);
		return NULL;
	}
	return out;
}
