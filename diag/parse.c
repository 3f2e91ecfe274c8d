/*
 * Recorded text as the tools print it: the class of each counter name,
 * `perfquery`, sysfs rate and AER files, PCIe width and payload, QoS trust
 * and PFC, `devlink health`; `ethtool -m` in diag/parse_module.c. Pure code.
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
