/* RoCE QoS: congestion and pause counters, trust and PFC settings (see qos.h). */
#include "verbs/qos.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/out.h"

/* One line "   name: value" of `ethtool -S`; 1 when it is a counter. */
static int ethtool_counter(const char *line, size_t len, char *name, size_t nlen,
			   unsigned long long *v_p)
{
	char buf[256], *n = buf, *colon, *end;

	if (len >= sizeof(buf))
		return 0;
	memcpy(buf, line, len);
	buf[len] = '\0';
	while (isspace((unsigned char)*n))
		n++;
	colon = strrchr(n, ':');
	if (!colon || colon == n)
		return 0;
	*colon = '\0';
	for (char *p = colon - 1; p > n && isspace((unsigned char)*p); p--)
		*p = '\0';
	while (isspace((unsigned char)colon[1]))
		colon++;
	errno = 0;
	*v_p = strtoull(colon + 1, &end, 10);
	while (isspace((unsigned char)*end))
		end++;
	if (errno || end == colon + 1 || *end || strchr(n, ' '))
		return 0;
	snprintf(name, nlen, "%s", n);
	return 1;
}

json_t *qos_parse_ethtool_s(const char *text)
{
	return fc_json_counters(text, ethtool_counter);
}

json_t *qos_delta(const json_t *before, const json_t *after, json_t **reset_p)
{
	json_t *d = json_object();
	const char *k;
	json_t *va;

	if (reset_p)
		*reset_p = json_array();
	json_object_foreach((json_t *)after, k, va) {
		json_t *vb = json_object_get(before, k);
		json_int_t a, b;

		if (!json_is_integer(va) || !json_is_integer(vb))
			continue;
		a = json_integer_value(va);
		b = json_integer_value(vb);
		if (a < b) {
			if (reset_p)
				json_array_append_new(*reset_p, json_string(k));
		} else if (a > b) {
			json_object_set_new(d, k, json_integer(a - b));
		}
	}
	return d;
}

int qos_tclass_priority(int tclass, const int *dscp2prio)
{
	int dscp = (tclass >> 2) & 0x3f;

	if (dscp2prio)
		return dscp2prio[dscp] & 7;
	return dscp >> 3;
}

static int next_ints(const char *s, int *out, int max)
{
	int n = 0;

	while (*s && n < max) {
		char *end;
		long v;

		while (*s && !isdigit((unsigned char)*s))
			s++;
		if (!*s)
			break;
		v = strtol(s, &end, 10);
		out[n++] = (int)v;
		s = end;
	}
	return n;
}

int qos_parse_mlnx_qos(const char *text, struct qos_dcb *out)
{
	const char *line = text;
	int in_dscp = 0, in_pfc = 0;

	memset(out, 0, sizeof(*out));
	for (int i = 0; i < 64; i++)
		out->dscp2prio[i] = i >> 3;
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char buf[512];
		const char *p;

		if (len >= sizeof(buf))
			len = sizeof(buf) - 1;
		memcpy(buf, line, len);
		buf[len] = '\0';
		p = buf;
		while (isspace((unsigned char)*p))
			p++;
		if (!strncasecmp(p, "Priority trust state:", 21)) {
			sscanf(p + 21, " %15s", out->trust);
			in_dscp = in_pfc = 0;
		} else if (!strncasecmp(p, "dscp2prio mapping:", 18)) {
			in_dscp = 1;
			in_pfc = 0;
		} else if (in_dscp && !strncmp(p, "prio:", 5)) {
			int prio = atoi(p + 5);
			const char *d = strstr(p, "dscp:");
			int vals[64], n;

			if (d && prio >= 0 && prio < 8) {
				n = next_ints(d + 5, vals, 64);
				for (int i = 0; i < n; i++)
					if (vals[i] >= 0 && vals[i] < 64)
						out->dscp2prio[vals[i]] = prio;
				out->dscp_known = 1;
			}
		} else if (!strncasecmp(p, "PFC configuration:", 18)) {
			in_pfc = 1;
			in_dscp = 0;
		} else if (in_pfc && !strncmp(p, "enabled", 7)) {
			int vals[8];

			if (next_ints(p + 7, vals, 8) == 8) {
				for (int i = 0; i < 8; i++)
					out->pfc_enabled[i] = vals[i] != 0;
				out->pfc_known = 1;
			}
			in_pfc = 0;
		} else if (*p && in_dscp && strncmp(p, "prio:", 5)) {
			in_dscp = 0;
		}
		line = nl ? nl + 1 : NULL;
	}
	return out->trust[0] || out->pfc_known ? 0 : -EINVAL;
}

static json_int_t cnt(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);

	return json_is_integer(v) ? json_integer_value(v) : 0;
}

/* Per-priority pause counters in ethtool -S: rx_prio3_pause, tx_prio3_pause. */
static int pause_prio(const char *name)
{
	int prio;
	char dir[3], tail[16];

	if (sscanf(name, "%2[rt]x_prio%d_%15s", dir, &prio, tail) == 3 &&
	    !strcmp(tail, "pause") && prio >= 0 && prio < 8)
		return prio;
	return -1;
}

int qos_is_cc_counter(const char *name)
{
	static const char *const cc[] = {
		"np_ecn_marked_roce_packets", "np_cnp_sent", "rp_cnp_handled",
		"rp_cnp_ignored", "out_of_buffer", "out_of_sequence", "packet_seq_err",
		"implied_nak_seq_err", "local_ack_timeout_err", "rnr_nak_retry_err",
	};

	for (size_t i = 0; i < sizeof(cc) / sizeof(cc[0]); i++)
		if (!strcmp(name, cc[i]))
			return 1;
	return 0;
}

int qos_is_netdev_counter(const char *name)
{
	return strstr(name, "pause") || strstr(name, "discard") ||
	       strstr(name, "out_of_buffer");
}

json_t *qos_delta_keep(const json_t *before, const json_t *after,
		       int (*keep)(const char *name))
{
	json_t *d = json_object(), *va;
	const char *k;

	json_object_foreach((json_t *)after, k, va) {
		json_t *vb = json_object_get(before, k);

		if (!json_is_integer(va) || !json_is_integer(vb) || (keep && !keep(k)) ||
		    json_integer_value(va) < json_integer_value(vb))
			continue;
		json_object_set_new(d, k, json_integer(json_integer_value(va) -
						       json_integer_value(vb)));
	}
	return d;
}

void qos_tclass_json(json_t *o, int tclass)
{
	json_object_set_new(o, "tclass", json_integer(tclass));
	json_object_set_new(o, "dscp", json_integer(tclass >> 2));
	json_object_set_new(o, "ecn", json_integer(tclass & 3));
}

int qos_lossless(const json_t *eth, int tclass)
{
	int prio = tclass >= 0 ? qos_tclass_priority(tclass, NULL) : -1;
	char name[32];

	if (!eth || prio < 0)
		return 0;
	snprintf(name, sizeof(name), "rx_prio%d_pause", prio);
	if (cnt(eth, name) > 0)
		return 1;
	snprintf(name, sizeof(name), "tx_prio%d_pause", prio);
	return cnt(eth, name) > 0;
}

/* Drops counted by the NIC (ethtool -S *discard*, *out_of_buffer*). */
static void discard_findings(json_t *doc, const char *node, const char *dev,
			     const json_t *eth, int lossless)
{
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)eth, k, v) {
		if ((!strstr(k, "discard") && !strstr(k, "out_of_buffer")) ||
		    !json_is_integer(v) || json_integer_value(v) <= 0)
			continue;
		fc_finding(doc, lossless ? FC_FAIL : FC_WARN,
			   "%s %s: %s rose by %" JSON_INTEGER_FORMAT "%s: the NIC dropped packets for want of buffers; check that the traffic class rides a PFC-protected priority and the NIC's buffer settings",
			   node, dev, k, json_integer_value(v),
			   lossless ? " on a lossless priority" : "");
	}
}

void qos_counter_findings(json_t *doc, const char *node, const char *dev,
			  const json_t *hw, const json_t *eth, int tclass)
{
	static const char *const seq_errs[] = { "out_of_sequence", "packet_seq_err",
						"implied_nak_seq_err", "rcvd_seq_err" };
	int prio = tclass >= 0 ? qos_tclass_priority(tclass, NULL) : -1;
	int lossless = qos_lossless(eth, tclass);
	const char *k;
	json_t *v;

	if (hw) {
		json_int_t marked = cnt(hw, "np_ecn_marked_roce_packets");
		json_int_t sent = cnt(hw, "np_cnp_sent");
		json_int_t ignored = cnt(hw, "rp_cnp_ignored");

		if (marked > 0 && sent == 0)
			fc_finding(doc, FC_WARN,
				   "%s %s: %" JSON_INTEGER_FORMAT " ECN-marked RoCE packets received but no CNP sent: congestion control (DCQCN) is off on this node's notification point; enable it (mlxreg / sysfs roce_np)",
				   node, dev, marked);
		if (ignored > 0)
			fc_finding(doc, FC_WARN,
				   "%s %s: %" JSON_INTEGER_FORMAT " CNPs ignored (rp_cnp_ignored): the reaction point does not slow down under congestion; enable DCQCN on this node (roce_rp)",
				   node, dev, ignored);
		for (size_t i = 0; i < sizeof(seq_errs) / sizeof(seq_errs[0]); i++) {
			json_int_t n = cnt(hw, seq_errs[i]);

			if (n <= 0)
				continue;
			if (lossless)
				fc_finding(doc, FC_FAIL,
					   "%s %s: %s rose by %" JSON_INTEGER_FORMAT " on lossless priority %d: packets were dropped despite PFC; check buffer and PFC settings on the switch port and the NIC",
					   node, dev, seq_errs[i], n, prio);
			else
				fc_finding(doc, FC_WARN,
					   "%s %s: %s rose by %" JSON_INTEGER_FORMAT ": packets were lost: check whether the traffic class rides a PFC-protected priority (the diagnosis says whether the physical layer shows errors)",
					   node, dev, seq_errs[i], n);
		}
	}
	if (eth) {
		json_object_foreach((json_t *)eth, k, v) {
			int p = pause_prio(k);

			if (p < 0 || !json_is_integer(v) || json_integer_value(v) <= 0)
				continue;
			/* Pauses on the traffic's own priority too (lossless):
			 * PFC does protect it; the others are other traffic's. */
			if (prio >= 0 && p != prio && !lossless)
				fc_finding(doc, FC_WARN,
					   "%s %s: %s rose by %" JSON_INTEGER_FORMAT " but the traffic used priority %d (traffic class %d): PFC protects the wrong priority; align the switch and the NIC's dscp2prio/PFC maps",
					   node, dev, k, json_integer_value(v), prio, tclass);
		}
		discard_findings(doc, node, dev, eth, lossless);
	}
}

void qos_dcb_findings(json_t *doc, const char *node, const char *netdev,
		      const struct qos_dcb *dcb, int tclass)
{
	int prio, any_pfc = 0;

	if (tclass < 0)
		tclass = 0;
	prio = qos_tclass_priority(tclass, dcb->dscp_known ? dcb->dscp2prio : NULL);
	if (dcb->trust[0] && strcmp(dcb->trust, "dscp"))
		fc_finding(doc, FC_WARN,
			   "%s %s: trust mode is %s, so the DSCP of traffic class %d is not used to pick the priority; set 'mlnx_qos -i %s --trust dscp'",
			   node, netdev, dcb->trust, tclass, netdev);
	if (!dcb->pfc_known)
		return;
	for (int i = 0; i < 8; i++)
		any_pfc |= dcb->pfc_enabled[i];
	if (!any_pfc)
		fc_finding(doc, FC_WARN,
			   "%s %s: PFC is enabled on no priority: RoCE runs lossy; enable PFC on the RoCE priority (mlnx_qos -i %s --pfc ...) or confirm the fabric is designed lossy",
			   node, netdev, netdev);
	/* Under trust pcp the DSCP picks no priority: a priority "the DSCP
	 * maps to" would contradict the trust finding above. */
	else if (!dcb->pfc_enabled[prio] && (!dcb->trust[0] || !strcmp(dcb->trust, "dscp")))
		fc_finding(doc, FC_FAIL,
			   "%s %s: traffic class %d (DSCP %d) maps to priority %d, which PFC does not protect: use the traffic class of the lossless priority or enable PFC on %d",
			   node, netdev, tclass, tclass >> 2, prio, prio);
}
