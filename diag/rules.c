/*
 * The rules that name a part. Each row of `rules` below looks at one port,
 * one HCA, one node or the whole test, and adds at most one diagnosis:
 * a part, a confidence ("likely" or "possible"), the evidence in one line
 * and the next step that confirms it. Rows run in order; the list is
 * sorted likely first, then by row. To add a case, add a function and a
 * row; tests/unit/test_diag.c feeds each row recorded evidence.
 *
 *   row              looks at  part it names
 *   hca_all_ports    card      HCA (errors or flaps on every port of one PCI
 *                              device in the window; cables second)
 *   hca_all_tests    card      HCA (every test of two or more of its ports
 *                              failed, over several tests: diag/cards.c)
 *   hca_health       card      HCA (a devlink health reporter of the card in
 *                              error or counting errors during the test)
 *   port_below       port      transceiver (lane N transmitter), cable or
 *                              transceiver (lanes), or port speed: the port
 *                              below its module's lanes, the same port on
 *                              its peers or the link modes both ends support
 *                              (diag/expect.c, diag/linkmodes.c, with their
 *                              sources): configuration (advertised link
 *                              modes), cable or transceiver (link training),
 *                              link partner or cable;
 *                              over every folder, rule "port_peers"
 *   module_tx        port      transceiver (a transmitter fault on a port at
 *                              its full rate: a latched flag, "possible")
 *   module_alarm     port      transceiver (module alarm, hot, voltage, rx power
 *                              of the lanes in use)
 *   module_lane      port      transceiver or fibre (one lane weak, or carrying
 *                              most corrected bits of a port with errors)
 *   module_lanes     port      transceiver (one lane's transmit power or bias
 *                              apart from the module's other lanes), or the
 *                              far end's transmitter or fibre (its receive
 *                              power); rule module_flags: a lane's loss of
 *                              signal or lock, at the end that transmits
 *                              (diag/modlanes.c, with the sources)
 *   link_flap        port      cable or transceiver, then the far port
 *   ber              port      cable or transceiver (pre-/post-FEC BER over limit)
 *   phys_errors      port      cable or transceiver, then the far port (at most
 *                              "possible" under the error-rate limit)
 *   far_end          port      the switch port at the other end (or its module),
 *                              then the cable (errors counted only there); this
 *                              port's transceiver first when its module reports
 *                              a transmitter fault or low transmit power alarm
 *                              on a lane in use: the end that transmits
 *   remote_phys      port      another link upstream
 *   hca_aer          port      HCA (AER on its function); GPU for the GPU's
 *                              (rule "gpu_aer")
 *   pcie_limit       port      host PCIe (HCA or GPU link downtrained, ceiling)
 *   bridge           port      host PCIe (a bridge downtrained or with AER; a
 *                              bridge slow only while the GPU below is idle
 *                              is not)
 *   rails_slow       node      host PCIe (every rail of the node slow)
 *   config           test      configuration (MTU, GID type, trust, PFC)
 *   congestion       test      congestion or flow control
 *   drops            test      buffers or QoS configuration; the switch or the
 *                              receiver's NIC or host where the drop counter
 *                              that moved says so (diag/rules_test.c)
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
 *   physical errors per bit 1e-12 (DIAG_PHYS_BER_MAX): symbol, receive, CRC and uncorrected
 *                errors over the bits received in the window (rx_bits_phy,
 *                else the port rate, its lanes x the lane rate, x the
 *                window): the IBTA link BER target (vol. 2) that ibdiagnet
 *                uses as its default --ber_thresh; under it a count is no
 *                suspect, only a note (one uncorrected symbol in 60 s at 200
 *                Gb/s is a rate of 8e-14; issue 37: judged as a rate, never
 *                by its presence).
 *   module       the module's own alarm and warning thresholds from its
 *                EEPROM (SFF-8636 / SFF-8472 / CMIS) as `ethtool -m`
 *                prints them; 70 C where the module gives none (the top of
 *                the commercial range of SFF-8636 modules). Only the lanes
 *                the link uses are judged: the first WIDTH lanes (the "4X"
 *                of the port's rate) with light; a lane reading 0 mW
 *                ("-inf dBm", what CMIS modules print for lanes the
 *                application leaves unused, OIF CMIS 5 table 8-79) or with
 *                its transmitter off is "not in use".
 *   lane imbalance 2 dB (DIAG_LANE_IMBALANCE_DB): one lane's receive power
 *                that far below the mean of the others. No standard sets a
 *                limit on the spread at a receiver for parallel modules
 *                (SR8, DR4: one fibre a lane, each lane bounded alone). For
 *                WDM modules the 400G-FR4 figures allow a 4 dB "difference
 *                in launch power between any two lanes (OMAouter)" and 4.1
 *                dB in receive power (as tabulated in the Edgecore ET7502-
 *                FR4 datasheet, IEEE 802.3cu / 100G Lambda MSA FR4): a
 *                spread of 2 dB is within what a compliant link may show,
 *                so alone it is only "possible". The public captures in
 *                tests/data/diag/ (SOURCE there) spread 0.4 to 0.9 dB from
 *                the weakest lane to the others' mean; 2 dB is the issue's
 *                figure, above that spread and half the FR4 allowance. With
 *                errors on the port it is "likely".
 *   corrected bits of one lane: rx_err_lane_N_phy (mlx5 en_stats.c: the
 *                corrected bits of lane N) with one lane over half of the
 *                port's total names that lane, only on a port with errors
 *                (corrected bits under the pre-FEC limit are normal, Dell KB
 *                000286734) and only when every lane in use counts some: the
 *                ConnectX-6 Dx output in that KB counts all of them on lane
 *                0 and none on the others.
 */
#include "diag/diag.h"

#include <stdarg.h>
#include <string.h>

#include "core/out.h"
#include "diag/rules.h"

#define PHYS_BER_MAX DIAG_PHYS_BER_MAX
#define LANE_CORR_SHARE 0.5	/* "most" of the corrected bits */

#define emit diag_emit_f

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

/* Physical errors over their limit, or counted where their rate is not
 * known: a count under the limit per bit is not a suspect (diag/port.c
 * notes it). */
static int phys_bad(const struct diag_port *p)
{
	return p->sum[DIAG_C_PHYS] + p->sum[DIAG_C_POSTFEC] > 0 &&
	       !(p->phys_ber >= 0 && p->phys_ber <= PHYS_BER_MAX);
}

static int errors_any(const struct diag_port *p)
{
	return phys_bad(p) || p->sum[DIAG_C_FLAP] > 0;
}

static void r_module_alarm(struct diag_ctx *c, const struct diag_port *p)
{
	char subj[256], next[512], why[400] = "", cmd[64];
	int likely = diag_module_verdict(&p->mod, why, sizeof(why));

	if (!*why)
		return;
	port_subject(p, subj, sizeof(subj));
	snprintf(next, sizeof(next),
		 "check the airflow and seating of the module in %s (%s), then swap the transceiver with a known-good one and re-run ",
		 p->netdev[0] ? p->netdev : p->dev,
		 diag_module_cmd(p->netdev, p->dev, p->hca_bdf, 0, cmd, sizeof(cmd)));
	rerun(c, p, next + strlen(next), sizeof(next) - strlen(next));
	emit(c, "module_alarm", subj, "transceiver", likely > 0, next, "%s (ethtool -m)", why);
}

static void cable_next(const struct diag_ctx *c, const struct diag_port *p, char *next, size_t len)
{
	snprintf(next, len, "swap the cable (then the transceiver) of %s %s port %d with a known-good one and re-run ",
		 p->node, p->dev, p->port);
	rerun(c, p, next + strlen(next), len - strlen(next));
	snprintf(next + strlen(next), len - strlen(next),
		 "; if it follows the port, try the switch port at the other end");
}

/* @p and @q are on one card: one node, one ibdev, or HCA functions of one
 * PCI device (a dual-port ConnectX in Ethernet mode is mlx5_0 and mlx5_1
 * on functions .0 and .1 of one device). */
static int same_card(const struct diag_port *p, const struct diag_port *q)
{
	size_t n = strcspn(p->hca_bdf, ".");

	if (strcmp(p->node, q->node))
		return 0;
	if (!strcmp(p->dev, q->dev))
		return 1;
	return *p->hca_bdf && p->hca_bdf[n] == '.' && !strncmp(p->hca_bdf, q->hca_bdf, n + 1);
}

/* Every port of @p's card in the evidence is bad (and there are two or
 * more): the card comes first, each cable second. */
static int hca_all_bad(const struct diag_ctx *c, const struct diag_port *p)
{
	int n = 0, bad = 0;

	for (int i = 0; i < c->set->nports; i++) {
		const struct diag_port *q = &c->set->ports[i];

		if (same_card(p, q)) {
			n++;
			bad += errors_any(q);
		}
	}
	return n >= 2 && bad == n;
}

/* The card itself reports a fault: a devlink health reporter of it in
 * error, or non-fatal or fatal AER on its function. */
static int card_fault(const struct diag_ctx *c, const struct diag_port *p)
{
	for (int i = 0; i < c->set->nports; i++) {
		const struct diag_port *q = &c->set->ports[i];

		if (!same_card(p, q))
			continue;
		if (*q->health)
			return 1;
		for (int k = 0; k < q->npcie; k++)
			if (!strcmp(q->pcie[k].role, "hca") && q->pcie[k].aer[1] + q->pcie[k].aer[2] > 0)
				return 1;
	}
	return 0;
}

/* A common cause on the card: the port's own part is second to it. */
static int card_cause(const struct diag_ctx *c, const struct diag_port *p)
{
	return hca_all_bad(c, p) || card_fault(c, p);
}

/* The first port of @p's card in the evidence (rows once per card). */
static int card_first(const struct diag_ctx *c, const struct diag_port *p)
{
	for (const struct diag_port *q = c->set->ports; q < p; q++)
		if (same_card(p, q))
			return 0;
	return 1;
}

/* "nodeF mlx5_4" or "nodeF mlx5_0, mlx5_1 (PCIe 0000:17:00)". */
static void card_subject(const struct diag_ctx *c, const struct diag_port *p, char *buf,
			 size_t len)
{
	int devs = 0;

	snprintf(buf, len, "%s %s", p->node, p->dev);
	for (int i = 0; i < c->set->nports; i++) {
		const struct diag_port *q = &c->set->ports[i];
		size_t used = strlen(buf);

		if (same_card(p, q) && strcmp(q->dev, p->dev) && !strstr(buf, q->dev)) {
			snprintf(buf + used, len - used, ", %s", q->dev);
			devs++;
		}
	}
	if (devs && *p->hca_bdf)
		snprintf(buf + strlen(buf), len - strlen(buf), " (PCIe %.*s)",
			 (int)strcspn(p->hca_bdf, "."), p->hca_bdf);
}

static void r_hca_health(struct diag_ctx *c, const struct diag_port *p)
{
	char subj[256], next[400], ev[600] = "";

	if (!card_first(c, p))
		return;
	for (int i = 0; i < c->set->nports; i++) {
		const struct diag_port *q = &c->set->ports[i];
		size_t used = strlen(ev);

		if (same_card(p, q) && *q->health && !strstr(ev, q->health))
			snprintf(ev + used, sizeof(ev) - used, "%s%s", used ? "; " : "", q->health);
	}
	if (!*ev)
		return;
	card_subject(c, p, subj, sizeof(subj));
	snprintf(next, sizeof(next),
		 "read 'devlink health diagnose pci/%s reporter fw' and the kernel log (dmesg | grep mlx5); update the firmware (mlxfwmanager), then replace the card if a reporter goes to error again; its ports' cables are second",
		 *p->hca_bdf ? p->hca_bdf : "BDF");
	emit(c, "hca_health", subj, "HCA", 1, next, "the card's devlink health reporters in error: %s (devlink health show)", ev);
}

static void r_link_flap(struct diag_ctx *c, const struct diag_port *p)
{
	char subj[256], next[512];

	if (p->sum[DIAG_C_FLAP] <= 0)
		return;
	port_subject(p, subj, sizeof(subj));
	cable_next(c, p, next, sizeof(next));
	emit(c, "link_flap", subj, "cable or transceiver", !card_cause(c, p), next,
	     "the link went down or retrained during the test: %s", p->detail[DIAG_C_FLAP]);
}

/* The lane carrying over half of the corrected bits, among the lanes the
 * link uses; 0 none. */
static int lane_corr_skew(const struct diag_port *p, long long *lane_n, long long *total_n)
{
	int n = p->width > 0 && p->width < p->nlane_corr ? p->width : p->nlane_corr, at = -1;
	long long total = 0;

	for (int i = 0; i < n; i++) {
		if (p->lane_corr[i] <= 0)
			return 0; /* some drivers count every lane's bits on lane 0 */
		total += p->lane_corr[i];
		if (at < 0 || p->lane_corr[i] > p->lane_corr[at])
			at = i;
	}
	if (n < 2 || total <= 0 || p->lane_corr[at] <= LANE_CORR_SHARE * (double)total)
		return 0;
	*lane_n = p->lane_corr[at];
	*total_n = total;
	return at + 1;
}

/* The port shows a fault of its own: errors, flaps, FEC at its limit. */
static int port_troubled(const struct diag_port *p)
{
	return errors_any(p) || p->pre_ber > DIAG_PRE_FEC_BER_MAX;
}

static void r_module_lane(struct diag_ctx *c, const struct diag_port *p)
{
	const struct diag_module *m = &p->mod;
	char subj[256], next[600], why[400], part[64], cmd[64];
	long long ln = 0, total = 0;
	int lane = 0, skew = port_troubled(p) ? lane_corr_skew(p, &ln, &total) : 0;

	if (m->known && m->weak_lane) {
		lane = m->weak_lane;
		snprintf(why, sizeof(why),
			 "lane %d receives %.2f dBm, %.1f dB below the mean of the other lanes in use (over %.0f dB)",
			 lane, m->rx_dbm_min, m->weak_db, DIAG_LANE_IMBALANCE_DB);
	} else if (skew) {
		lane = skew;
		snprintf(why, sizeof(why), "lane %d carries %.0f%% of the corrected bits (rx_err_lane_%d_phy +%lld of +%lld)",
			 lane, 100.0 * (double)ln / (double)total, lane - 1, ln, total);
	}
	if (!lane)
		return;
	port_subject(p, subj, sizeof(subj));
	snprintf(part, sizeof(part), "transceiver or fibre (lane %d)", lane);
	snprintf(next, sizeof(next),
		 "clean and inspect both ends of the fibre and the module's connector, read '%s' again (lane %d); swap the transceiver with a known-good one and re-run ",
		 diag_module_cmd(p->netdev, p->dev, p->hca_bdf, 0, cmd, sizeof(cmd)), lane);
	rerun(c, p, next + strlen(next), sizeof(next) - strlen(next));
	snprintf(next + strlen(next), sizeof(next) - strlen(next),
		 "; if the weak lane stays with the fibre, replace the fibre");
	emit(c, "module_lane", subj, part, port_troubled(p), next, "%s%s", why,
	     port_troubled(p) ? ", on a port with errors" : " (the port shows no error of its own)");
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

/* ", 2.1e-11 errors per bit over 60 s (limit 1e-12)", or why not known. */
static void rate_text(const struct diag_port *p, double ber, char *buf, size_t len)
{
	if (ber < 0)
		snprintf(buf, len, " (no rate or time window: the error rate is not known)");
	else
		snprintf(buf, len, "; %.2g errors per bit over %.0f s%s (limit %.0e)", ber, p->seconds,
			 p->bits_estimated ? ", bits from the port rate" : "", PHYS_BER_MAX);
}

static void r_phys_errors(struct diag_ctx *c, const struct diag_port *p)
{
	char subj[256], next[512], rate[160], far[256] = "";
	int likely;

	if (!phys_bad(p) || p->post_ber > DIAG_POST_FEC_BER_MAX)
		return; /* the BER row said it */
	port_subject(p, subj, sizeof(subj));
	cable_next(c, p, next, sizeof(next));
	rate_text(p, p->phys_ber, rate, sizeof(rate));
	likely = !card_cause(c, p) && p->phys_ber > PHYS_BER_MAX;
	if (p->have_far && p->far_sum[DIAG_C_PHYS] > 0)
		snprintf(far, sizeof(far), "; the switch port at the other end counts errors too (%s): the cable first",
			 p->far_detail[DIAG_C_PHYS]);
	emit(c, "phys_errors", subj, "cable or transceiver", likely, next,
	     "physical-layer errors during the test: %s%s%s%s%s", p->detail[DIAG_C_PHYS],
	     *p->detail[DIAG_C_PHYS] && *p->detail[DIAG_C_POSTFEC] ? ", " : "",
	     p->detail[DIAG_C_POSTFEC], rate, far);
}

/* The lane of @p's module whose transmitter is faulted (CMIS TxFailure,
 * ethtool's "Tx fault") or below its low transmit power alarm, from 1; 0
 * none. */
int diag_tx_lane(const struct diag_port *p)
{
	const struct diag_module *m = &p->mod;

	if (!m->known)
		return 0;
	for (int i = 0; i < m->nlanes; i++)
		if ((m->tx_fault & (1u << i)) ||
		    ((m->used & (1u << i)) && strstr(m->lane_flags[i], "tx power low alarm")))
			return i + 1;
	return 0;
}

/* Errors the switch port at the other end counts (its receiver): over the
 * limit per bit, or with no rate to judge them by. */
static double far_ber(const struct diag_port *p)
{
	return p->bits > 0 ? (double)p->far_sum[DIAG_C_PHYS] / p->bits : -1;
}

static int far_errors(const struct diag_port *p)
{
	double ber = far_ber(p);

	return p->far_sum[DIAG_C_PHYS] > 0 && !(ber >= 0 && ber <= PHYS_BER_MAX);
}

int diag_far_tx_blamed(const struct diag_port *p)
{
	return p->have_far && far_errors(p) && !errors_any(p) && diag_tx_lane(p);
}

/* The far port's receiver counts errors and this port's module reports
 * its transmitter faulted: the fault is named at the end that transmits
 * (the light the far port receives is this module's). */
static void far_tx(struct diag_ctx *c, const struct diag_port *p, const char *subj,
		   const char *what, const char *rate)
{
	char part[64], next[600], cmd[64];
	int lane = diag_tx_lane(p);

	snprintf(part, sizeof(part), "transceiver (lane %d transmitter)", lane);
	snprintf(next, sizeof(next), "replace the transceiver of %s %s (%s, lane %d) with a known-good one and re-run ",
		 p->node, p->dev, diag_module_cmd(p->netdev, p->dev, p->hca_bdf, 0, cmd, sizeof(cmd)),
		 lane);
	rerun(c, p, next + strlen(next), sizeof(next) - strlen(next));
	snprintf(next + strlen(next), sizeof(next) - strlen(next),
		 ": the switch port's errors (perfquery) should stop");
	emit(c, "far_end", subj, part, 1, next,
	     "the switch port at the other end of the cable counts errors on what this port sends (%s, perfquery)%s, and this port's module reports its lane %d transmitter %s (ethtool -m): the fault is at the end that transmits",
	     what, rate, lane, p->mod.tx_fault & (1u << (lane - 1)) ? "faulted (Tx fault)" : "below its low power alarm");
}

static void r_far_end(struct diag_ctx *c, const struct diag_port *p)
{
	char subj[256], next[600], rate[160], what[400];
	double ber = far_ber(p);
	int errs = far_errors(p);

	if (!p->have_far || (!errs && p->far_sum[DIAG_C_FLAP] <= 0) || errors_any(p))
		return;
	port_subject(p, subj, sizeof(subj));
	rate_text(p, errs ? ber : -1, rate, sizeof(rate));
	snprintf(what, sizeof(what), "%s%s%s", p->far_detail[DIAG_C_PHYS],
		 *p->far_detail[DIAG_C_PHYS] && *p->far_detail[DIAG_C_FLAP] ? ", " : "",
		 p->far_detail[DIAG_C_FLAP]);
	if (diag_far_tx_blamed(p))
		far_tx(c, p, subj, what, errs ? rate : "");
	snprintf(next, sizeof(next),
		 "move the cable from that switch port to a spare one on the same switch and re-run ");
	rerun(c, p, next + strlen(next), sizeof(next) - strlen(next));
	snprintf(next + strlen(next), sizeof(next) - strlen(next),
		 ": if the errors stay with the switch port, replace its module or use another port; if they follow the cable, replace the cable");
	emit(c, "far_end", subj, "the switch port at the other end (or its module)",
	     !diag_far_tx_blamed(p), next,
	     "only the switch port at the other end of the cable counts errors, this port none: %s (perfquery)%s",
	     what, errs ? rate : "");
	cable_next(c, p, next, sizeof(next));
	emit(c, "far_end", subj, "the cable", 0, next,
	     "the signal into the switch port is bad and this port's receiver is clean: a cable damaged one way is second to the far port (%s)",
	     what);
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
		int severe = d->aer[1] + d->aer[2] > 0, gpu = !strcmp(d->role, "gpu");

		if ((strcmp(d->role, "hca") && !gpu) || !d->aer_known ||
		    d->aer[0] + d->aer[1] + d->aer[2] <= 0)
			continue;
		snprintf(subj, sizeof(subj), "%s %s (PCIe %s)", p->node, gpu ? "GPU" : p->dev, d->bdf);
		snprintf(next, sizeof(next),
			 "read 'lspci -vvv -s %s' (DevSta, AER) and the kernel log (dmesg | grep -i aer); reseat the %s, then replace it if the errors stay",
			 d->bdf, gpu ? "GPU" : "HCA");
		emit(c, gpu ? "gpu_aer" : "hca_aer", subj, gpu ? "GPU" : "HCA", severe, next,
		     "PCIe AER on the %s's function: %lld correctable, %lld non-fatal, %lld fatal",
		     gpu ? "GPU" : "HCA", d->aer[0], d->aer[1], d->aer[2]);
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
		int gpu = !strcmp(d->role, "gpu");
		/* A GPU lowers its link speed when idle: it is judged at its top
		 * speed and its trained width (as diag/ceiling.c does) */
		int idle_gpu = gpu && !d->under_load; /* read under load: judged as read */
		double gts = idle_gpu && d->max_gts > d->cur_gts ? d->max_gts : d->cur_gts;
		double ceiling = idle_gpu ? diag_pcie_gbps(gts, d->cur_width, d->mps) : d->ceiling_gbps;
		int below = p->rate_gbps > 0 && ceiling > 0 && ceiling < p->rate_gbps;
		int width_only = idle_gpu && !(d->cur_width < d->max_width);

		if (strcmp(d->role, "hca") && !gpu)
			continue;
		if ((idle_gpu ? !(d->cur_width < d->max_width) : !downtrained(d)) && !below)
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
		     diag_about(ceiling), p->rate_gbps);
	}
}

/* A GPU on the path reads below its top speed: idle (GPUs lower their
 * link speed when idle, and the bridges above them follow). */
static int gpu_idle(const struct diag_port *p)
{
	for (int i = 0; i < p->npcie; i++)
		if (!strcmp(p->pcie[i].role, "gpu") && !p->pcie[i].under_load && p->pcie[i].cur_gts > 0 &&
		    p->pcie[i].cur_gts < p->pcie[i].max_gts)
			return 1;
	return 0;
}

static void r_bridge(struct diag_ctx *c, const struct diag_port *p)
{
	char subj[256], next[320];

	for (int i = 0; i < p->npcie; i++) {
		const struct diag_pcie *d = &p->pcie[i];
		long long aer = d->aer[0] + d->aer[1] + d->aer[2];
		int narrow = d->max_width > 0 && d->cur_width > 0 && d->cur_width < d->max_width;

		if (strcmp(d->role, "bridge") || (!downtrained(d) && aer <= 0))
			continue;
		if (aer <= 0 && !narrow && gpu_idle(p))
			continue; /* its speed follows the idle GPU below it */
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

	if (!card_first(c, p) || !hca_all_bad(c, p))
		return;
	for (int i = 0; i < c->set->nports; i++)
		n += same_card(p, &c->set->ports[i]);
	card_subject(c, p, subj, sizeof(subj));
	emit(c, "hca_all_ports", subj, "HCA", 1,
	     "move one port's cable to a known-good port of another HCA; if the errors stay on this HCA, replace it",
	     "physical errors or flaps on all %d ports of the card in the same window, each with its own cable",
	     n);
}

static const struct diag_rule rules[] = {
	{ "hca_all_ports", r_hca_all_ports }, { "hca_health", r_hca_health },
	{ "hca_fw", diag_r_hca_fw },
	{ "port_below", diag_r_port_below },  { "module_tx", diag_r_module_tx },
	{ "module_alarm", r_module_alarm },
	{ "module_lane", r_module_lane },     { "module_lanes", diag_r_module_lanes },
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

void diag_emit_f(struct diag_ctx *c, const char *rule, const char *subject, const char *part,
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
