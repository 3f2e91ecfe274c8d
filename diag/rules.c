/*
 * The rules that name a part. Each row of `rules` below looks at one port,
 * one HCA, one node or the whole test, and adds at most one diagnosis:
 * a part, a confidence ("likely" or "possible"), the evidence in one line
 * and the next step that confirms it. Rows run in order; the list is
 * sorted likely first, then by row. To add a case, add a function and a
 * row; tests/unit/test_diag.c feeds each row recorded evidence.
 *
 *   row              looks at  part it names
 *   hca_all_ports    HCA       HCA (errors on every port of it; cables second)
 *   module_alarm     port      transceiver (module alarm, hot, voltage, rx power)
 *   link_flap        port      cable or transceiver, then the far port
 *   ber              port      cable or transceiver (pre-/post-FEC BER over limit)
 *   phys_errors      port      cable or transceiver, then the far port
 *   far_end          port      cable or transceiver (errors seen at the switch)
 *   remote_phys      port      another link upstream
 *   hca_aer          port      HCA (AER on its function)
 *   pcie_limit       port      host PCIe (HCA or GPU link downtrained, ceiling)
 *   bridge           port      host PCIe (a bridge downtrained or with AER)
 *   rails_slow       node      host PCIe (every rail of the node slow)
 *   config           test      configuration (MTU, GID type, trust, PFC)
 *   congestion       test      congestion or flow control
 *   drops            test      buffers or QoS configuration
 *   slow_clean       test      port speed or a rate limit on the path
 *   none             test      "not determined" for a bad test no row explains
 *
 * Thresholds, as the vendors publish them:
 *   pre-FEC BER  2.4e-4: IEEE 802.3 (cl. 91/134) limit for RS(544,514) FEC
 *                on PAM4 lanes, as NVIDIA and Dell state it for ConnectX
 *                (Dell KB 000286734, "High Corrected Bits on PAM4 NICs");
 *                corrected bits below it are normal on PAM4 links.
 *   post-FEC BER 1e-12: the IEEE 802.3 and IBTA link target after FEC;
 *                rx_pcs_symbol_err_phy counts "traffic is lost" (kernel
 *                mlx5 counters.rst).
 *   module       the module's own alarm and warning thresholds from its
 *                EEPROM (SFF-8636 / SFF-8472 / CMIS) as `ethtool -m`
 *                prints them; 70 C where the module gives none (the top of
 *                the commercial range of SFF-8636 modules).
 */
#include "diag/diag.h"

#include <stdarg.h>
#include <string.h>

#include "core/out.h"
#include "diag/rules.h"

#define MODULE_HOT_C 70.0

static void emit(struct diag_ctx *c, const char *rule, const char *subject, const char *part,
		 int likely, const char *next, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
static void emit(struct diag_ctx *c, const char *rule, const char *subject, const char *part,
		 int likely, const char *next, const char *fmt, ...)
{
	char ev[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ev, sizeof(ev), fmt, ap);
	va_end(ap);
	json_array_append_new(c->out, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "rule", rule,
						"subject", subject, "part", part, "confidence",
						likely ? "likely" : "possible", "evidence", ev,
						"next", next));
}

static void port_subject(const struct diag_port *p, char *buf, size_t len)
{
	snprintf(buf, len, "%s %s port %d", p->node, p->dev, p->port);
}

/* "fabcheck pair NODE PEER -d DEV" to re-run after a swap. */
static void rerun(const struct diag_ctx *c, const struct diag_port *p, char *buf, size_t len)
{
	const char *peer = diag_ctx_peer(c, p);

	if (peer)
		snprintf(buf, len, "'fabcheck pair %s %s -d %s:%d,%s'", p->node, peer, p->dev,
			 p->port, diag_ctx_peer_dev(c, p));
	else
		snprintf(buf, len, "'fabcheck pair %s PEER -d %s:%d'", p->node, p->dev, p->port);
}

static int phys_bad(const struct diag_port *p)
{
	return p->sum[DIAG_C_PHYS] + p->sum[DIAG_C_POSTFEC] > 0;
}

static int errors_any(const struct diag_port *p)
{
	return phys_bad(p) || p->sum[DIAG_C_FLAP] > 0;
}

static void r_module_alarm(struct diag_ctx *c, const struct diag_port *p)
{
	const struct diag_module *m = &p->mod;
	double hot = m->temp_warn_c > 0 ? m->temp_warn_c : MODULE_HOT_C;
	char subj[256], next[512], why[400] = "";

	if (!m->known)
		return;
	if (*m->alarms)
		snprintf(why, sizeof(why), "module flags on: %s", m->alarms);
	else if (m->temp_c >= hot)
		snprintf(why, sizeof(why), "module at %.1f C, at or above %s %.1f C", m->temp_c,
			 m->temp_warn_c > 0 ? "its high warning threshold" : "the commercial limit",
			 hot);
	else if (m->volt > 0 && m->volt_lo_alarm > 0 &&
		 (m->volt < m->volt_lo_alarm || m->volt > m->volt_hi_alarm))
		snprintf(why, sizeof(why), "module supply %.3f V outside its alarm range %.3f-%.3f V",
			 m->volt, m->volt_lo_alarm, m->volt_hi_alarm);
	else if (m->rx_dbm_min < 99 && m->rx_lo_alarm_dbm < 99 && m->rx_dbm_min < m->rx_lo_alarm_dbm)
		snprintf(why, sizeof(why), "receive power %.2f dBm below the module's low alarm %.2f dBm",
			 m->rx_dbm_min, m->rx_lo_alarm_dbm);
	if (!*why)
		return;
	port_subject(p, subj, sizeof(subj));
	snprintf(next, sizeof(next),
		 "check the airflow and seating of the module in %s (ethtool -m %s), then swap the transceiver with a known-good one and re-run ",
		 p->netdev[0] ? p->netdev : p->dev, p->netdev[0] ? p->netdev : p->dev);
	rerun(c, p, next + strlen(next), sizeof(next) - strlen(next));
	emit(c, "module_alarm", subj, "transceiver", 1, next, "%s (ethtool -m)", why);
}

static void cable_next(const struct diag_ctx *c, const struct diag_port *p, char *next, size_t len)
{
	snprintf(next, len, "swap the cable (then the transceiver) of %s %s port %d with a known-good one and re-run ",
		 p->node, p->dev, p->port);
	rerun(c, p, next + strlen(next), len - strlen(next));
	snprintf(next + strlen(next), len - strlen(next),
		 "; if it follows the port, try the switch port at the other end");
}

/* Every port of @p's HCA in the evidence is bad (and there are two or more):
 * the HCA comes first, each cable second. */
static int hca_all_bad(const struct diag_ctx *c, const struct diag_port *p)
{
	int n = 0, bad = 0;

	for (int i = 0; i < c->set->nports; i++) {
		const struct diag_port *q = &c->set->ports[i];

		if (!strcmp(q->node, p->node) && !strcmp(q->dev, p->dev)) {
			n++;
			bad += errors_any(q);
		}
	}
	return n >= 2 && bad == n;
}

static void r_link_flap(struct diag_ctx *c, const struct diag_port *p)
{
	char subj[256], next[512];

	if (p->sum[DIAG_C_FLAP] <= 0)
		return;
	port_subject(p, subj, sizeof(subj));
	cable_next(c, p, next, sizeof(next));
	emit(c, "link_flap", subj, "cable or transceiver", !hca_all_bad(c, p), next,
	     "the link went down or retrained during the test: %s", p->detail[DIAG_C_FLAP]);
}

static void r_ber(struct diag_ctx *c, const struct diag_port *p)
{
	char subj[256], next[512];

	if (p->post_ber <= DIAG_POST_FEC_BER_MAX && p->pre_ber <= DIAG_PRE_FEC_BER_MAX)
		return;
	port_subject(p, subj, sizeof(subj));
	cable_next(c, p, next, sizeof(next));
	if (p->post_ber > DIAG_POST_FEC_BER_MAX)
		emit(c, "ber", subj, "cable or transceiver", 1, next,
		     "post-FEC bit error rate %.2g over %.0f s is above %.0e (IEEE 802.3/IBTA target): traffic is lost (%s)",
		     p->post_ber, p->seconds, DIAG_POST_FEC_BER_MAX, p->detail[DIAG_C_POSTFEC]);
	else
		emit(c, "ber", subj, "cable or transceiver", 1, next,
		     "pre-FEC bit error rate %.2g over %.0f s is above %.1e (IEEE 802.3 RS(544,514) limit): FEC is at its limit (%s)",
		     p->pre_ber, p->seconds, DIAG_PRE_FEC_BER_MAX, p->detail[DIAG_C_CORRECTED]);
}

static void r_phys_errors(struct diag_ctx *c, const struct diag_port *p)
{
	char subj[256], next[512];

	if (!phys_bad(p) || p->post_ber > DIAG_POST_FEC_BER_MAX)
		return; /* the BER row said it */
	port_subject(p, subj, sizeof(subj));
	cable_next(c, p, next, sizeof(next));
	emit(c, "phys_errors", subj, "cable or transceiver", !hca_all_bad(c, p), next,
	     "physical-layer errors during the test: %s%s%s", p->detail[DIAG_C_PHYS],
	     *p->detail[DIAG_C_PHYS] && *p->detail[DIAG_C_POSTFEC] ? ", " : "",
	     p->detail[DIAG_C_POSTFEC]);
}

static void r_far_end(struct diag_ctx *c, const struct diag_port *p)
{
	char subj[256], next[512];

	if (!p->have_far || p->far_sum[DIAG_C_PHYS] + p->far_sum[DIAG_C_FLAP] <= 0 || errors_any(p))
		return;
	port_subject(p, subj, sizeof(subj));
	cable_next(c, p, next, sizeof(next));
	emit(c, "far_end", subj, "cable or transceiver", 1, next,
	     "the switch port at the other end of the cable saw errors, this port none: %s%s%s (perfquery)",
	     p->far_detail[DIAG_C_PHYS], *p->far_detail[DIAG_C_PHYS] && *p->far_detail[DIAG_C_FLAP] ? ", " : "",
	     p->far_detail[DIAG_C_FLAP]);
}

static void r_remote_phys(struct diag_ctx *c, const struct diag_port *p)
{
	char subj[256];

	if (p->sum[DIAG_C_REMOTE] <= 0)
		return;
	port_subject(p, subj, sizeof(subj));
	emit(c, "remote_phys", subj, "another link upstream", 0,
	     "run 'ibqueryerrors' (infiniband-diags) to find the switch link with symbol errors",
	     "packets arrived marked bad by an earlier hop: %s", p->detail[DIAG_C_REMOTE]);
}

static void r_hca_aer(struct diag_ctx *c, const struct diag_port *p)
{
	char subj[256], next[320];

	for (int i = 0; i < p->npcie; i++) {
		const struct diag_pcie *d = &p->pcie[i];
		int severe = d->aer[1] + d->aer[2] > 0;

		if (strcmp(d->role, "hca") || !d->aer_known || d->aer[0] + d->aer[1] + d->aer[2] <= 0)
			continue;
		snprintf(subj, sizeof(subj), "%s %s (PCIe %s)", p->node, p->dev, d->bdf);
		snprintf(next, sizeof(next),
			 "read 'lspci -vvv -s %s' (DevSta, AER) and the kernel log (dmesg | grep -i aer); reseat the HCA, then replace it if the errors stay",
			 d->bdf);
		emit(c, "hca_aer", subj, "HCA", severe, next,
		     "PCIe AER on the HCA's function: %lld correctable, %lld non-fatal, %lld fatal",
		     d->aer[0], d->aer[1], d->aer[2]);
		return;
	}
}

static int downtrained(const struct diag_pcie *d)
{
	return (d->max_gts > 0 && d->cur_gts > 0 && d->cur_gts < d->max_gts) ||
	       (d->max_width > 0 && d->cur_width > 0 && d->cur_width < d->max_width);
}

static void r_pcie_limit(struct diag_ctx *c, const struct diag_port *p)
{
	char subj[256], next[320];

	for (int i = 0; i < p->npcie; i++) {
		const struct diag_pcie *d = &p->pcie[i];
		int gpu = !strcmp(d->role, "gpu"), below = p->rate_gbps > 0 &&
							  d->ceiling_gbps > 0 &&
							  d->ceiling_gbps < p->rate_gbps;
		/* A GPU lowers its link speed when idle; only its width says it. */
		int width_only = gpu && !(d->cur_width < d->max_width);

		if (strcmp(d->role, "hca") && !gpu)
			continue;
		if (!downtrained(d) && !below)
			continue;
		snprintf(subj, sizeof(subj), "%s %s (%s %s)", p->node, gpu ? "GPU" : p->dev,
			 gpu ? "GPU" : "PCIe", d->bdf);
		snprintf(next, sizeof(next),
			 "compare 'lspci -vv -s %s' LnkSta with LnkCap; reseat the card or move it to a full-width slot, and check the slot's setting in the BIOS",
			 d->bdf);
		emit(c, "pcie_limit", subj, "host PCIe", downtrained(d) && !width_only, next,
		     "%s trained to %g GT/s x%d%s%g GT/s x%d): at most about %.0f Gb/s, port is %g Gb/s",
		     gpu ? "the GPU" : p->dev, d->cur_gts, d->cur_width,
		     downtrained(d) ? " (capable of " : " (its maximum, ", d->max_gts, d->max_width,
		     diag_about(d->ceiling_gbps), p->rate_gbps);
	}
}

static void r_bridge(struct diag_ctx *c, const struct diag_port *p)
{
	char subj[256], next[320];

	for (int i = 0; i < p->npcie; i++) {
		const struct diag_pcie *d = &p->pcie[i];
		long long aer = d->aer[0] + d->aer[1] + d->aer[2];

		if (strcmp(d->role, "bridge") || (!downtrained(d) && aer <= 0))
			continue;
		snprintf(subj, sizeof(subj), "%s PCIe bridge %s (above %s)", p->node, d->bdf, p->dev);
		snprintf(next, sizeof(next),
			 "read 'lspci -vvv -s %s' (LnkSta, AER); reseat the riser or card behind it; if the errors stay, the board's PCIe switch",
			 d->bdf);
		emit(c, "bridge", subj, "host PCIe", 1, next,
		     "bridge between the HCA and the host %s%s: %g GT/s x%d of %g GT/s x%d, AER %lld correctable, %lld non-fatal, %lld fatal",
		     downtrained(d) ? "downtrained" : "with errors", "", d->cur_gts, d->cur_width,
		     d->max_gts, d->max_width, d->aer[0], d->aer[1], d->aer[2]);
	}
}

static void r_hca_all_ports(struct diag_ctx *c, const struct diag_port *p)
{
	char subj[256];
	int n = 0;

	for (int i = 0; i < c->set->nports; i++) {
		const struct diag_port *q = &c->set->ports[i];

		if (!strcmp(q->node, p->node) && !strcmp(q->dev, p->dev)) {
			if (q < p)
				return; /* once per HCA */
			n++;
		}
	}
	if (!hca_all_bad(c, p))
		return;
	snprintf(subj, sizeof(subj), "%s %s", p->node, p->dev);
	emit(c, "hca_all_ports", subj, "HCA", 1,
	     "move one port's cable to a known-good port of another HCA; if the errors stay on this HCA, replace it",
	     "physical errors or flaps on all %d ports of %s, each with its own cable", n, p->dev);
}

static const struct diag_rule rules[] = {
	{ "hca_all_ports", r_hca_all_ports }, { "module_alarm", r_module_alarm },
	{ "link_flap", r_link_flap },
	{ "ber", r_ber },		      { "phys_errors", r_phys_errors },
	{ "far_end", r_far_end },	      { "remote_phys", r_remote_phys },
	{ "hca_aer", r_hca_aer },	      { "pcie_limit", r_pcie_limit },
	{ "bridge", r_bridge },
};

const struct diag_rule *diag_port_rules(int *n_p)
{
	*n_p = (int)(sizeof(rules) / sizeof(rules[0]));
	return rules;
}

double diag_about(double gbps)
{
	double step = gbps >= 100 ? 10 : 1;

	return (double)(long long)(gbps / step + 0.5) * step;
}

int diag_port_errors(const struct diag_port *p)
{
	return errors_any(p);
}

void diag_emit(struct diag_ctx *c, const char *rule, const char *subject, const char *part,
	       int likely, const char *next, const char *evidence)
{
	emit(c, rule, subject, part, likely, next, "%s", evidence);
}
