/*
 * One port's evidence from its before and after snapshots: counter deltas
 * by class, bit error rates, the module, the PCIe path, the far end.
 */
#include "diag/diag.h"

#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/names.h"
#include "core/util.h"
#include "topo/pcitopo.h" /* topo_parse_gts */
#include "verbs/qos.h"	    /* qos_parse_ethtool_s, qos_delta */

static const char *snap_str(const json_t *snap, const char *rel)
{
	return json_string_value(json_object_get(snap, rel));
}

static void note(struct diag_port *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct diag_port *p, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	json_t *v;
	size_t i;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	json_array_foreach(p->notes, i, v) /* once, when each file of a folder says it */
		if (!strcmp(json_string_value(v), msg))
			return;
	json_array_append_new(p->notes, json_string(msg));
}

/* counters/ and hw_counters/ files, carrier_changes, perfquery.txt where
 * sysfs has no counters/, and ethtool-S.txt: one object name -> value. */
static json_t *snap_counters(const json_t *snap, int *ib_p, int *phy_p)
{
	json_t *o = json_object(), *v, *eth, *pq;
	const char *rel, *s;

	json_object_foreach((json_t *)snap, rel, v) {
		const char *name = NULL;
		char *end;
		long long n;

		if (!strncmp(rel, "counters/", 9))
			name = rel + 9, *ib_p = 1;
		else if (!strncmp(rel, "hw_counters/", 12))
			name = rel + 12;
		else if (!strcmp(rel, "carrier_changes"))
			name = "netdev_carrier_changes";
		s = json_string_value(v); /* a live worker's snapshot may hold anything */
		if (!name || strchr(name, '/') || !s)
			continue;
		n = strtoll(s, &end, 10);
		if (end != s && (*end == '\n' || !*end))
			json_object_set_new(o, name, json_integer(n));
	}
	if (!*ib_p && (s = snap_str(snap, "perfquery.txt")) && (pq = diag_parse_perfquery(s))) {
		json_object_update(o, pq);
		json_decref(pq);
		*ib_p = 1;
	}
	if ((s = snap_str(snap, "ethtool-S.txt")) && (eth = qos_parse_ethtool_s(s))) {
		const char *k;

		json_object_foreach(eth, k, v)
			if (strstr(k, "_phy") && diag_counter_class(k) != DIAG_C_NONE)
				*phy_p = 1;
		json_object_update_missing(o, eth);
		json_decref(eth);
	}
	return o;
}

/* IB PortCounters widths: a counter at its maximum has stopped counting. */
static long long ib_max(const char *name)
{
	static const struct {
		const char *name;
		long long max;
	} w[] = {
		{ "symbol_error", 65535 }, { "link_error_recovery", 255 },
		{ "link_downed", 255 }, { "port_rcv_errors", 65535 },
		{ "port_rcv_remote_physical_errors", 65535 }, { "port_xmit_discards", 65535 },
		{ "local_link_integrity_errors", 15 }, { "excessive_buffer_overrun_errors", 15 },
	};

	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (!strcmp(name, w[i].name))
			return w[i].max;
	return 0;
}

/* Packet counts: rxe hw_counters, IB PortCounters, mlx5 ethtool. */
static int is_pkts(const char *name)
{
	return !strcmp(name, "sent_pkts") || !strcmp(name, "rcvd_pkts") ||
	       !strcmp(name, "port_xmit_packets") || !strcmp(name, "port_rcv_packets") ||
	       !strcmp(name, "rx_packets_phy") || !strcmp(name, "tx_packets_phy");
}

static void add_detail(char *buf, size_t len, const char *name, long long d)
{
	size_t used = strlen(buf);

	if (used + 4 >= len)
		return;
	snprintf(buf + used, len - used, "%s%s +%lld", used ? ", " : "", name, d);
}

/* Deltas of @before -> @after into @sum/@detail; reset and saturated
 * counters become notes. */
static void classify(struct diag_port *p, const json_t *before, const json_t *after,
		     long long *sum, char (*detail)[160], const char *where)
{
	json_t *reset = NULL, *d = qos_delta(before, after, &reset), *v;
	const char *k;
	size_t i;

	json_object_foreach(d, k, v) {
		enum diag_class c = diag_counter_class(k);

		sum[c] += json_integer_value(v);
		if (sum == p->sum && is_pkts(k))
			p->pkts += json_integer_value(v);
		if (c != DIAG_C_NONE && c != DIAG_C_BITS)
			add_detail(detail[c], sizeof(detail[c]), k, json_integer_value(v));
	}
	json_object_foreach((json_t *)after, k, v)
		if (ib_max(k) && json_integer_value(v) >= ib_max(k))
			note(p, "%s%s is at its maximum (%lld) and no longer counts: clear it (perfquery -R) and re-run",
			     where, k, (long long)json_integer_value(v));
	json_array_foreach(reset, i, v)
		note(p, "%s%s went backwards (reset or wrapped during the test): left out", where,
		     json_string_value(v));
	json_decref(reset);
	json_decref(d);
}

static long long phys_total(const struct diag_port *p)
{
	return p->sum[DIAG_C_PHYS] + p->sum[DIAG_C_POSTFEC];
}

static double snap_time(const json_t *snap)
{
	const char *s = snap_str(snap, "time");

	return s ? strtod(s, NULL) : 0;
}

/* The bits received over the window: rx_bits_phy, else the port's rate
 * (its lanes x the lane rate) x the window, said so. */
static double window_bits(struct diag_port *p)
{
	double bits = (double)p->sum[DIAG_C_BITS];

	if (bits > 0)
		return bits;
	if (p->rate_gbps <= 0 || p->seconds <= 0)
		return 0;
	p->bits_estimated = 1;
	if (p->have_phy || phys_total(p) > 0) {
		char lanes[48] = "";

		if (p->width)
			snprintf(lanes, sizeof(lanes), ", %d lane%s x %g Gb/s", p->width,
				 fc_s(p->width), p->rate_gbps / p->width);
		note(p, "bits in the window estimated as the port rate (%g Gb/s%s) x %.1f s%s",
		     p->rate_gbps, lanes, p->seconds,
		     p->have_phy ? ": ethtool -S has no rx_bits_phy" : "");
	}
	return p->rate_gbps * 1e9 * p->seconds;
}

static void lanes_corrected(struct diag_port *p, const json_t *before, const json_t *after)
{
	for (int i = 0; i < DIAG_MAX_LANES; i++) {
		char name[32];
		const json_t *b, *a;

		snprintf(name, sizeof(name), "rx_err_lane_%d_phy", i);
		b = json_object_get(before, name);
		a = json_object_get(after, name);
		if (!a || !b)
			continue;
		p->lane_corr[i] = json_integer_value(a) - json_integer_value(b);
		if (p->lane_corr[i] < 0)
			p->lane_corr[i] = 0;
		p->nlane_corr = i + 1;
	}
}

static void ber(struct diag_port *p, const json_t *before, const json_t *after)
{
	double bits = window_bits(p);

	p->pre_ber = p->post_ber = p->phys_ber = -1;
	p->bits = bits;
	if (bits > 0)
		p->phys_ber = (double)phys_total(p) / bits;
	if (phys_total(p) > 0 && p->phys_ber >= 0 && p->phys_ber <= DIAG_PHYS_BER_MAX)
		note(p, "physical-layer errors %s%s%s: %.2g errors per bit over %.0f s, under the %.0e limit (IBTA link BER target): not a suspect",
		     p->detail[DIAG_C_PHYS], *p->detail[DIAG_C_PHYS] && *p->detail[DIAG_C_POSTFEC] ? ", " : "",
		     p->detail[DIAG_C_POSTFEC], p->phys_ber, p->seconds, DIAG_PHYS_BER_MAX);
	lanes_corrected(p, before, after);
	if (!p->have_phy)
		return;
	if (bits <= 0) {
		note(p, "bit error rate not computed: no rx_bits_phy and no rate or time window");
		return;
	}
	if (json_object_get(after, "rx_corrected_bits_phy") &&
	    json_object_get(before, "rx_corrected_bits_phy"))
		p->pre_ber = (double)(p->sum[DIAG_C_CORRECTED] + p->sum[DIAG_C_POSTFEC]) / bits;
	else
		note(p, "pre-FEC bit error rate not computed: ethtool -S has no rx_corrected_bits_phy");
	if (json_object_get(after, "rx_pcs_symbol_err_phy"))
		p->post_ber = (double)p->sum[DIAG_C_POSTFEC] / bits;
}

static long long delta_of(const json_t *before, const json_t *after, const char *name)
{
	const json_t *b = json_object_get(before, name), *a = json_object_get(after, name);
	long long d;

	if (!a || !b)
		return -1;
	d = json_integer_value(a) - json_integer_value(b);
	return d < 0 ? -1 : d;
}

/* The sum of the deltas of the counters matching @pat; -1 when none. */
static long long delta_sum(const json_t *before, const json_t *after, const char *pat,
			   char *detail, size_t len)
{
	long long sum = -1, d;
	const char *k;
	json_t *v;

	json_object_foreach((json_t *)after, k, v) {
		if (fnmatch(pat, k, 0) || (d = delta_of(before, after, k)) < 0)
			continue;
		sum = (sum < 0 ? 0 : sum) + d;
		if (d > 0 && detail)
			add_detail(detail, len, k, d);
	}
	return sum;
}

/* Pause 802.3 Annex 31B / 802.1Qbb: a quantum is 512 bit times, a frame
 * asks for at most 65535 of them. */
#define PAUSE_QUANTA_MAX 65535.0

/* Time this port was told to stop sending: the *_pause_duration counters
 * (mlx5 counters.rst: microseconds), else pause frames received x the
 * longest pause at the port rate (an upper bound: frames refresh a pause
 * before it ends). */
static void pause_time(struct diag_port *p, const json_t *before, const json_t *after)
{
	long long us = delta_sum(before, after, "rx*pause_duration", p->pause_detail,
				 sizeof(p->pause_detail));
	long long frames = delta_sum(before, after, "rx_prio[0-7]_pause", NULL, 0);

	if (frames < 0)
		frames = delta_of(before, after, "rx_pause_ctrl_phy");
	if (frames < 0)
		frames = delta_of(before, after, "rx_global_pause");
	p->pause_frames = frames;
	p->pause_s = -1;
	if (us >= 0) {
		p->pause_s = (double)us / 1e6;
	} else if (frames >= 0 && p->rate_gbps > 0) {
		p->pause_s = (double)frames * PAUSE_QUANTA_MAX * 512 / (p->rate_gbps * 1e9);
		p->pause_estimated = 1;
		if (frames > 0)
			snprintf(p->pause_detail, sizeof(p->pause_detail),
				 "%lld pause frames x 65535 quanta of 512 bit times at %g Gb/s", frames,
				 p->rate_gbps);
	}
	p->ecn_marked = delta_of(before, after, "np_ecn_marked_roce_packets");
	p->cnp_sent = delta_of(before, after, "np_cnp_sent");
	p->cnp_handled = delta_of(before, after, "rp_cnp_handled");
}

/* PortXmitWait as time: ticks in which the port had data to send and sent
 * nothing, for want of credits or arbitration (IBA PortCounters). NVIDIA's
 * ibdiagnet manual ("Congestion Assessment on InfiniBand Links") gives the
 * tick of Quantum, Quantum-2 and -3 switches as 8 bytes of the port
 * whatever its width (lost bytes = counter x 8) and of Switch-IB(-2) and
 * Switch-X as 32 bytes per lane: 8 bytes at the port rate is the shorter,
 * so the time is a lower bound (said so). -1 when not read. */
#define XMIT_WAIT_TICK_BYTES 8.0

static double wait_time(const struct diag_port *p, const json_t *before, const json_t *after,
			char *detail, size_t len)
{
	long long ticks = delta_of(before, after, "port_xmit_wait");

	if (ticks < 0 || p->rate_gbps <= 0)
		return -1;
	if (ticks > 0)
		snprintf(detail, len, "PortXmitWait +%lld ticks, each at least the time of 8 bytes at %g Gb/s: the share is a lower bound",
			 ticks, p->rate_gbps);
	return (double)ticks * XMIT_WAIT_TICK_BYTES * 8 / (p->rate_gbps * 1e9);
}

static int slashes(const char *s)
{
	int n = 0;

	for (; s && *s; s++)
		n += *s == '/';
	return n;
}

/* Trust and PFC as read after the test; the card's devlink health. */
static void config_files(struct diag_port *p, const json_t *before, const json_t *after)
{
	json_t *hb = diag_parse_devlink(snap_str(before, "devlink-health.txt"));
	json_t *ha = diag_parse_devlink(snap_str(after, "devlink-health.txt"));
	const json_t *r;
	size_t i;

	diag_parse_trust(snap_str(after, "trust"), p->trust, sizeof(p->trust));
	p->pfc = diag_parse_pfc(snap_str(after, "pfc"));
	json_array_foreach(ha, i, r) {
		const char *name = json_string_value(json_object_get(r, "reporter"));
		long long err = json_integer_value(json_object_get(r, "error")), was = -1;
		int bad = !strcmp(json_string_value(json_object_get(r, "state")), "error");
		const json_t *q;
		size_t k, used = strlen(p->health);

		json_array_foreach(hb, k, q)
			if (!strcmp(json_string_value(json_object_get(q, "reporter")), name) &&
			    json_equal(json_object_get(q, "handle"), json_object_get(r, "handle")))
				was = json_integer_value(json_object_get(q, "error"));
		if (was >= 0 && err > was)
			bad = 1;
		/* port reporters (tx, rx: "pci/BDF/PORT") are the port's, not the card's */
		if (slashes(json_string_value(json_object_get(r, "handle"))) != 1)
			continue;
		if (!bad) { /* its count against the same HCA's on the other nodes */
			if (!p->reporters)
				p->reporters = json_object();
			json_object_set_new(p->reporters, name, json_integer(err));
			continue;
		}
		snprintf(p->health + used, sizeof(p->health) - used, "%s%s %s (state %s, error %lld%s)",
			 used ? "; " : "", json_string_value(json_object_get(r, "handle")), name,
			 json_string_value(json_object_get(r, "state")), err,
			 was >= 0 ? (err > was ? ", rose during the test" : "") : "");
	}
	json_decref(hb);
	json_decref(ha);
}

static void pcie_file(struct diag_pcie *d, const char *file, const char *text, int after)
{
	long long aer;

	if (!strcmp(file, "current_link_speed"))
		*(after ? &d->cur_gts : &d->other_gts) = topo_parse_gts(text);
	else if (!strcmp(file, "max_link_speed"))
		d->max_gts = topo_parse_gts(text);
	else if (!strcmp(file, "current_link_width"))
		*(after ? &d->cur_width : &d->other_width) = atoi(text);
	else if (!strcmp(file, "max_link_width"))
		d->max_width = atoi(text);
	else if (!strcmp(file, "max_payload"))
		d->mps = atoi(text);
	else if (!strncmp(file, "aer_dev_", 8) && (aer = diag_parse_aer(text)) >= 0) {
		int i = !strcmp(file + 8, "correctable") ? 0 : !strcmp(file + 8, "nonfatal") ? 1 :
			!strcmp(file + 8, "fatal") ? 2 : -1;

		if (i >= 0) {
			d->aer[i] += after ? aer : -aer;
			d->aer_known = 1;
		}
	}
}

static struct diag_pcie *pcie_slot(struct diag_port *p, const char *name, size_t nlen)
{
	const char *dash = memchr(name, '-', nlen);

	for (int i = 0; i < p->npcie; i++)
		if (strlen(p->pcie[i].role) + 1 + strlen(p->pcie[i].bdf) == nlen &&
		    !strncmp(name, p->pcie[i].role, strlen(p->pcie[i].role)) &&
		    !strncmp(dash ? dash + 1 : "", p->pcie[i].bdf, strlen(p->pcie[i].bdf)))
			return &p->pcie[i];
	if (!dash || p->npcie == DIAG_MAX_PCIE)
		return NULL;
	char role[sizeof(p->pcie[0].role)], bdf[sizeof(p->pcie[0].bdf)], raw[96], shown[200];
	size_t rl = (size_t)(dash - name), bl = (size_t)(name + nlen - dash - 1);

	/* the folder's name from the evidence: ROLE a name, BDF a PCI address
	 * (core/names.h) before either is a line of the diagnosis */
	if (rl < sizeof(role) && bl < sizeof(bdf)) {
		snprintf(role, sizeof(role), "%.*s", (int)rl, name);
		snprintf(bdf, sizeof(bdf), "%.*s", (int)bl, dash + 1);
	}
	if (rl >= sizeof(role) || bl >= sizeof(bdf) || !fc_name_ok(FC_NAME_DEV, role) ||
	    !fc_name_ok(FC_NAME_BDF, bdf)) {
		snprintf(raw, sizeof(raw), "%.*s", (int)nlen, name);
		note(p, "pcie/%s: not ROLE-BDF with a PCI address (e.g. hca-0000:17:00.0): "
		     "left out", fc_name_show(raw, shown, sizeof(shown)));
		return NULL;
	}
	struct diag_pcie *d = &p->pcie[p->npcie++];

	memset(d, 0, sizeof(*d));
	snprintf(d->role, sizeof(d->role), "%s", role);
	snprintf(d->bdf, sizeof(d->bdf), "%s", bdf);
	return d;
}

/* during/pcie/ROLE-BDF/current_link_*: the link as read while the test ran
 * replaces the after/ reading (idle links lower their speed). */
static void pcie_during(struct diag_port *p, const json_t *after)
{
	const char *rel;
	json_t *v;

	json_object_foreach((json_t *)after, rel, v) {
		const char *name = rel + 12, *slash;
		struct diag_pcie *d;
		double gts;

		if (strncmp(rel, "during/pcie/", 12) || !(slash = strchr(name, '/')) ||
		    !(d = pcie_slot(p, name, (size_t)(slash - name))))
			continue;
		if (!strcmp(slash + 1, "current_link_speed") &&
		    (gts = topo_parse_gts(json_string_value(v))) > 0) {
			d->cur_gts = gts;
			d->under_load = 1;
		} else if (!strcmp(slash + 1, "current_link_width") && atoi(json_string_value(v)) > 0) {
			d->cur_width = atoi(json_string_value(v));
		}
	}
}

/* pcie/ROLE-BDF/FILE in both snapshots; AER as after - before (after alone
 * when there is no before: counts since boot). */
static void pcie(struct diag_port *p, const json_t *before, const json_t *after)
{
	const json_t *snaps[2] = { after, before };
	const char *rel;
	json_t *v;

	for (int s = 0; s < 2; s++)
		json_object_foreach((json_t *)snaps[s], rel, v) {
			const char *name = rel + 5, *slash;
			struct diag_pcie *d;

			if (strncmp(rel, "pcie/", 5) || !(slash = strchr(name, '/')))
				continue;
			d = pcie_slot(p, name, (size_t)(slash - name));
			if (d && (s == 0 || !strncmp(slash + 1, "aer_dev_", 8) ||
				  !strncmp(slash + 1, "current_link_", 13)))
				pcie_file(d, slash + 1, json_string_value(v), s == 0);
		}
	pcie_during(p, after);
	for (int i = 0; i < p->npcie; i++) {
		struct diag_pcie *d = &p->pcie[i];

		if (d->under_load) {
			note(p, "PCIe %s %s judged as read during the test: %g GT/s x%d", d->role, d->bdf,
			     d->cur_gts, d->cur_width);
		} else if (d->other_gts > d->cur_gts || d->other_width > d->cur_width) {
			note(p, "PCIe %s %s read %g GT/s x%d before the test and %g GT/s x%d after: the higher judged (links lower their speed when idle)",
			     d->role, d->bdf, d->other_gts, d->other_width, d->cur_gts, d->cur_width);
			d->cur_gts = d->other_gts > d->cur_gts ? d->other_gts : d->cur_gts;
			d->cur_width = d->other_width > d->cur_width ? d->other_width : d->cur_width;
		}
		d->ceiling_gbps = diag_pcie_gbps(d->cur_gts, d->cur_width, d->mps);
		if (d->cur_gts > 0)
			p->have_pcie = 1;
		if (!strcmp(d->role, "hca") && !*p->hca_bdf)
			snprintf(p->hca_bdf, sizeof(p->hca_bdf), "%s", d->bdf);
	}
}

/* Why FILE could not be read: FILE.why as the worker writes it, or the
 * name without its extension (NAME.why, as older folders have it). */
static const char *why_of(const json_t *snap, const char *file)
{
	char rel[96];
	const char *s;

	snprintf(rel, sizeof(rel), "%s.why", file);
	if ((s = snap_str(snap, rel)))
		return s;
	snprintf(rel, sizeof(rel), "%.*s.why", (int)strcspn(file, "."), file);
	return snap_str(snap, rel);
}

/* The module's lanes against the link's width: dark ones said once. */
static void module_lanes(struct diag_port *p)
{
	struct diag_module *m = &p->mod;
	char dark[96] = "";

	diag_module_judge(m, p->width);
	for (int i = 0; i < m->nlanes; i++)
		if (m->dark & (1u << i))
			snprintf(dark + strlen(dark), sizeof(dark) - strlen(dark), "%s%d",
				 *dark ? "," : "", i + 1);
	if (m->tx_fault) {
		char bad[96] = "";

		for (int i = 0; i < DIAG_MAX_LANES; i++)
			if (m->tx_fault & (1u << i))
				snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad), "%s%d", *bad ? "," : "", i + 1);
		note(p, "module lane %s reports a transmitter fault (ethtool -m 'Tx fault'): it carries nothing, judged as a fault, not as a lane out of use", bad);
	}
	if (*dark)
		note(p, "module lanes %s not in use (no light, transmitter off, or outside the active application): not judged%s", dark,
		     p->width ? "" : " (the link's width is not known: every lane with light is)");
}

static void exposed_notes(struct diag_port *p, const json_t *after)
{
	const char *why;

	if (!p->have_ib && !p->have_phy)
		note(p, "physical-layer counters not exposed (no symbol, FEC or CRC counters in sysfs counters/ or ethtool -S): the cable cannot be judged from this port");
	if (!p->mod.known) {
		why = why_of(after, "ethtool-m.txt");
		note(p, "transceiver readings not exposed%s%s", why ? ": " : "", why ? why : "");
	}
	if (!strcmp(p->link_layer, "Ethernet") && !snap_str(after, "ethtool-S.txt")) {
		why = why_of(after, "ethtool-S.txt");
		note(p, "NIC statistics (ethtool -S) not read%s%s: PHY counters, pause and FEC not judged",
		     why ? ": " : "", why ? why : "");
	}
	if (!p->have_pcie) {
		why = snap_str(after, "pcie.why");
		note(p, "PCIe link not exposed%s%s", why ? ": " : "", why ? why : "");
	}
	if (!strcmp(p->link_layer, "InfiniBand") && !p->have_far) {
		why = snap_str(after, "perfquery-far.why");
		snprintf(p->far_why, sizeof(p->far_why), "%s", why ? why : "not read");
		note(p, "far end (switch port) not seen: %s", p->far_why);
	}
}

static void far_end(struct diag_port *p, const json_t *before, const json_t *after)
{
	const char *sb = snap_str(before, "perfquery-far.txt");
	const char *sa = snap_str(after, "perfquery-far.txt");
	json_t *fb = sb ? diag_parse_perfquery(sb) : NULL, *fa = sa ? diag_parse_perfquery(sa) : NULL;

	p->far_wait_s = -1;
	if (fb && fa) {
		p->have_far = 1;
		classify(p, fb, fa, p->far_sum, p->far_detail, "far end: ");
		p->far_wait_s = wait_time(p, fb, fa, p->far_wait_detail, sizeof(p->far_wait_detail));
	}
	json_decref(fb);
	json_decref(fa);
}

static void text_field(char *out, size_t len, const json_t *a, const json_t *b, const char *rel)
{
	const char *s = snap_str(a, rel);

	if (!s)
		s = snap_str(b, rel);
	if (s)
		snprintf(out, len, "%.*s", (int)strcspn(s, "\n"), s);
}

/* The port's net device from the evidence, when it is a net device's name
 * (core/names.h) before it is a word of a suggested command; else none,
 * said. */
static void netdev_field(struct diag_port *p, const json_t *a, const json_t *b)
{
	char raw[sizeof(p->netdev)] = "", shown[200]; /* a longer one is no netdev name */
	const char *why;

	text_field(raw, sizeof(raw), a, b, "netdev");
	why = raw[0] ? fc_name_why(FC_NAME_NETDEV, raw) : NULL;
	if (!why) {
		snprintf(p->netdev, sizeof(p->netdev), "%s", raw);
		return;
	}
	note(p, "netdev: '%s' is not a net device name (%s): left out",
	     fc_name_show(raw, shown, sizeof(shown)), why);
}

/* `ethtool DEV` (diag/linkmodes.c): what both ends support; a note when
 * the partner's modes hold the port below its HCA's. */
static void link_modes(struct diag_port *p, const json_t *after)
{
	char n[300];

	if (diag_parse_link(snap_str(after, "ethtool.txt"), &p->link))
		return;
	diag_link_note(&p->link, &p->mod, p->rate_gbps, n, sizeof(n));
	if (*n)
		note(p, "%s", n);
}

void diag_port_from_snaps(struct diag_port *p, const json_t *before, const json_t *after)
{
	int ib_b = 0, phy_b = 0;
	json_t *cb, *ca;
	const char *m;

	p->notes = json_array();
	netdev_field(p, after, before);
	text_field(p->link_layer, sizeof(p->link_layer), after, before, "link_layer");
	text_field(p->gid_type, sizeof(p->gid_type), after, before, "gid_type");
	p->rate_gbps = diag_parse_rate(snap_str(after, "rate"));
	p->width = diag_parse_width(snap_str(after, "rate"));
	p->mtu_before = atoi(snap_str(before, "mtu") ? snap_str(before, "mtu") : "0");
	p->mtu_after = atoi(snap_str(after, "mtu") ? snap_str(after, "mtu") : "0");
	if (snap_time(after) > 0 && snap_time(before) > 0)
		p->seconds = snap_time(after) - snap_time(before);
	cb = snap_counters(before, &ib_b, &phy_b);
	ca = snap_counters(after, &p->have_ib, &p->have_phy);
	if (!json_object_size(before))
		note(p, "no 'before' readings: counters cannot be compared");
	classify(p, cb, ca, p->sum, p->detail, "");
	ber(p, cb, ca);
	pause_time(p, cb, ca);
	p->wait_s = wait_time(p, cb, ca, p->wait_detail, sizeof(p->wait_detail));
	json_decref(cb);
	json_decref(ca);
	text_field(p->fw_ver, sizeof(p->fw_ver), after, before, "fw_ver");
	diag_port_fw(p, snap_str(after, "devlink-info.txt") ? snap_str(after, "devlink-info.txt")
							   : snap_str(before, "devlink-info.txt"));
	m = snap_str(after, "ethtool-m.txt");
	diag_module_pn(m, p->module_pn, sizeof(p->module_pn));
	if (!m || diag_parse_module(m, &p->mod))
		memset(&p->mod, 0, sizeof(p->mod));
	else
		module_lanes(p);
	link_modes(p, after);
	pcie(p, before, after);
	config_files(p, before, after);
	far_end(p, before, after);
	exposed_notes(p, after);
}

void diag_port_release(struct diag_port *p)
{
	json_decref(p->notes);
	p->notes = NULL;
	json_decref(p->reporters);
	p->reporters = NULL;
}
