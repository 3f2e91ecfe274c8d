/* Incast rounds judged for flow control and fairness (core/congest.h). */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/congest.h"
#include "core/lossrate.h"
#include "core/pattern.h"

/* Each class's counter names, as glob patterns (the sources in congest.h).
 * retry: the counter counts one retransmission a requester started (a loss
 * episode, core/lossrate.h): rxe's completer_retry_err is counted once a
 * retry of the send queue starts, after a NAK or a timeout
 * (drivers/infiniband/sw/rxe/rxe_comp.c, COMPST_ERROR_RETRY,
 * RXE_CNT_COMP_RETRY; its rcvd_seq_err counts the NAKs that lead there, so
 * is not counted again); mlx5's packet_seq_err (NAK sequence errors
 * received), local_ack_timeout_err (the ack timer expired at the sender)
 * and implied_nak_seq_err (a read response past the expected PSN), each
 * "the QP retry limit was not exceeded" (NVIDIA, "Understanding mlx5 Linux
 * Counters"). */
static const struct {
	const char *pat;
	enum fc_cg_class c;
	int retry;
} classes[] = {
	{ "*_pause_duration", FC_CG_PAUSE_US, 0 },
	{ "rx_prio[0-7]_pause", FC_CG_PAUSE, 0 },
	{ "tx_prio[0-7]_pause", FC_CG_PAUSE, 0 },
	{ "rx_pause_ctrl_phy", FC_CG_PAUSE, 0 },
	{ "tx_pause_ctrl_phy", FC_CG_PAUSE, 0 },
	{ "port_xmit_wait", FC_CG_PAUSE, 0 },
	{ "np_ecn_marked_roce_packets", FC_CG_ECN, 0 },
	{ "np_cnp_sent", FC_CG_CNP_SENT, 0 },
	{ "rp_cnp_handled", FC_CG_CNP_HANDLED, 0 },
	{ "out_of_sequence", FC_CG_RETRANS, 0 },
	{ "packet_seq_err", FC_CG_RETRANS, 1 },
	{ "local_ack_timeout_err", FC_CG_RETRANS, 1 },
	{ "implied_nak_seq_err", FC_CG_RETRANS, 1 },
	{ "rcvd_seq_err", FC_CG_RETRANS, 0 },
	{ "completer_retry_err", FC_CG_RETRANS, 1 },
	{ "retry_exceeded_err", FC_CG_RETRANS, 0 },
	{ "out_of_seq_request", FC_CG_RETRANS, 0 },
	{ "duplicate_request", FC_CG_RETRANS, 0 },
	{ "out_of_buffer", FC_CG_RX_DROP, 0 },
	{ "rx_out_of_buffer", FC_CG_RX_DROP, 0 },
	{ "rx_discards_phy", FC_CG_RX_DROP, 0 },
	{ "rx_prio[0-7]_buf_discard", FC_CG_RX_DROP, 0 },
};

enum fc_cg_class fc_cg_class_of(const char *name)
{
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (!fnmatch(classes[i].pat, name, 0))
			return classes[i].c;
	return FC_CG_OTHER;
}

int fc_cg_is_retry(const char *name)
{
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (!fnmatch(classes[i].pat, name, 0))
			return classes[i].retry;
	return 0;
}

const char *fc_cg_class_name(enum fc_cg_class c)
{
	static const char *const n[] = { "other", "pause", "pause_us", "ecn_marked",
					  "cnp_sent", "cnp_handled", "retransmissions",
					  "rx_drops" };

	return (unsigned)c < FC_CG_NCLASS ? n[c] : "?";
}

static int outcome(json_t *out, int level, const char *name, const char *evidence)
{
	json_array_append_new(json_object_get(out, "outcomes"),
			      json_pack("{s:s, s:s, s:s}", "outcome", name, "level",
					level == 2 ? "fail" : level ? "warn" : "pass", "evidence",
					evidence));
	return level;
}

/* The confidence at which a round's loss rate is called higher than the
 * pairs' own: 99%, one-sided (core/lossrate.h's test). */
#define LOSS_ALPHA 0.01

/* The round's loss @r against the pairs' own @p, written after @ev and in
 * @out's "loss_vs_pairs": 1 higher, 0 not, -1 not comparable. */
static int above_pairs(const struct fc_loss *r, const struct fc_loss *p, char *ev, size_t len,
		       json_t *out)
{
	int retries = r->retries > 0 || p->retries > 0;
	double x1 = retries ? r->retries : r->retrans, x0 = retries ? p->retries : p->retrans, pv;
	size_t n = strlen(ev);

	if (!(r->packets > 0) || !(p->packets > 0)) {
		snprintf(ev + n, len - n, "; the packets %s moved are not known: the comparison with "
			 "the pairs' own loss could not be made", r->packets > 0 ? "the pairs" : "it");
		return -1;
	}
	pv = fc_poisson_rate_p(x1, r->packets, x0, p->packets);
	json_object_set_new(out, "loss_vs_pairs",
			    json_pack("{s:s, s:f, s:f, s:f, s:f, s:f, s:f}", "counted",
				      retries ? "retransmissions started" : "retransmission counters",
				      "events", x1, "packets", r->packets, "pairs_events", x0,
				      "pairs_packets", p->packets, "p_value", pv, "confidence",
				      1 - LOSS_ALPHA));
	snprintf(ev + n, len - n, "; %.0f %s in %.0f packets (%.3g%%) against the pairs' own %.0f in "
		 "%.0f (%.3g%%): %s at %.0f%% confidence (exact Poisson rate comparison, one-sided "
		 "p %.2g)", x1, retries ? "retransmissions started" : "retransmission counts",
		 r->packets, 100 * x1 / r->packets, x0, p->packets, 100 * x0 / p->packets,
		 pv < LOSS_ALPHA ? "higher" : "not higher", 100 * (1 - LOSS_ALPHA), pv);
	return pv < LOSS_ALPHA;
}

/* The flow-control outcome of counters summed by class @s over a round's
 * ports (its loss @r), against the pairs' own loss @p (NULL: none stored):
 * which mechanism held the traffic, or none. -1: nothing to say. */
static int flow_control(const double *s, const struct fc_loss *r, const struct fc_loss *p,
			json_t *out)
{
	double cnp = s[FC_CG_CNP_SENT] + s[FC_CG_CNP_HANDLED];
	char ev[600];
	size_t n;

	n = (size_t)snprintf(ev, sizeof(ev), "pause %.0f (%.0f us), ECN-marked %.0f, CNP sent %.0f "
			     "handled %.0f, retransmissions %.0f", s[FC_CG_PAUSE], s[FC_CG_PAUSE_US],
			     s[FC_CG_ECN], s[FC_CG_CNP_SENT], s[FC_CG_CNP_HANDLED], s[FC_CG_RETRANS]);
	if (!(s[FC_CG_RETRANS] > 0)) {
		if (s[FC_CG_PAUSE] > 0)
			return outcome(out, 0, "lossless flow control working", ev);
		return cnp > 0 ? outcome(out, 0, "ECN/DCQCN working", ev) : -1;
	}
	if (s[FC_CG_PAUSE] > 0 || cnp > 0) /* a mechanism at work, and loss still */
		return outcome(out, 1, "loss under incast", ev);
	if (!p) {
		snprintf(ev + n, sizeof(ev) - n, "; no pair run of these ports stored before it: the "
			 "comparison with the pairs' own loss could not be made (run matrix without "
			 "--pattern on the same nodes into the same --db first)");
		return outcome(out, 1, "loss under incast", ev);
	}
	if (!(p->retrans > 0) && !(p->drops > 0)) { /* the strict case */
		snprintf(ev + n, sizeof(ev) - n, "; pairs clean (no retransmission or drop in %.0f "
			 "packets)", p->packets);
		return outcome(out, 2, "no working flow control", ev);
	}
	if (above_pairs(r, p, ev, sizeof(ev), out) > 0)
		return outcome(out, 2, "no working flow control", ev);
	return outcome(out, 1, "loss under incast", ev);
}

/* Drops at @node's own receive buffers: its host cannot drain the port. */
static int drain(const char *node, double drops, json_t *out)
{
	char ev[300];

	if (drops <= 0)
		return -1;
	snprintf(ev, sizeof(ev), "%.0f packets dropped for want of receive buffers on %s's "
		 "own port: its host (PCIe, receive queues) cannot drain the port", drops, node);
	return outcome(out, 2, "receiver cannot drain", ev);
}

/* The starved one of @n shares, if one is below half the fair share:
 * "@name[i] @verb X Gb/s ...: check its path @toward". */
static int fairness(const char *const *name, const double *g, int n, const char *verb,
		    const char *toward, json_t *out)
{
	double agg = 0, fair;
	int worst = -1;
	char ev[300];

	for (int i = 0; i < n; i++)
		agg += g[i];
	fair = n ? agg / n : 0;
	for (int i = 0; i < n; i++)
		if (g[i] < fair / 2 && (worst < 0 || g[i] < g[worst]))
			worst = i;
	if (worst < 0)
		return -1;
	snprintf(ev, sizeof(ev), "%s %s %.4g Gb/s against a fair share of %.4g Gb/s (Jain %.3f): "
		 "check its path %s", name[worst], verb, g[worst], fair, fc_jain(g, n), toward);
	return outcome(out, 1, "unfair", ev);
}

static int worse(int a, int b)
{
	return a > b ? a : b;
}

/* "aggregate_gbps", "jain" and an empty "outcomes" in @out; the aggregate. */
static double shares_json(const double *g, int n, json_t *out)
{
	double agg = 0, jain = fc_jain(g, n);

	for (int i = 0; i < n; i++)
		agg += g[i];
	json_object_set_new(out, "aggregate_gbps", json_real(agg));
	json_object_set_new(out, "jain", isfinite(jain) ? json_real(jain) : json_null());
	if (!json_object_get(out, "outcomes"))
		json_object_set_new(out, "outcomes", json_array());
	return agg;
}

/* Under 90% of the port's ceiling (pair's default --min-link-pct) with no
 * other outcome to explain it. */
static int below_ceiling(double agg, double ceiling, const char *what, json_t *out)
{
	char ev[300];

	if (json_array_size(json_object_get(out, "outcomes")) || ceiling <= 0 ||
	    agg >= 0.9 * ceiling)
		return -1;
	snprintf(ev, sizeof(ev), "%.4g Gb/s %s against its port's ceiling %.4g Gb/s, no loss, "
		 "pause or CNP", agg, what, ceiling);
	return outcome(out, 1, "below the port ceiling", ev);
}

int fc_incast_judge(const struct fc_incast_obs *o, json_t *out)
{
	double agg = shares_json(o->gbps, o->nsenders, out);
	char toward[80], what[80];
	int worst = 0;

	snprintf(toward, sizeof(toward), "to %s", o->receiver);
	snprintf(what, sizeof(what), "into %s", o->receiver);
	worst = worse(worst, drain(o->receiver, o->rx_drop_receiver, out));
	worst = worse(worst, flow_control(o->sum, &o->loss, o->pairs, out));
	worst = worse(worst, fairness(o->sender, o->gbps, o->nsenders, "sent", toward, out));
	return worse(worst, below_ceiling(agg, o->ceiling_gbps, what, out));
}

int fc_fanout_judge(const struct fc_fanout_obs *o, json_t *out)
{
	double agg = shares_json(o->gbps, o->nreceivers, out);
	char from[80], what[80];
	int worst = 0;

	snprintf(from, sizeof(from), "from %s", o->sender);
	snprintf(what, sizeof(what), "out of %s", o->sender);
	worst = worse(worst, fairness(o->receiver, o->gbps, o->nreceivers, "received", from, out));
	return worse(worst, below_ceiling(agg, o->ceiling_gbps, what, out));
}

int fc_alltoall_judge(const struct fc_alltoall_obs *o, json_t *out)
{
	int worst = 0;

	shares_json(o->in_gbps, o->nnodes, out);
	for (int i = 0; i < o->nnodes; i++)
		worst = worse(worst, drain(o->node[i], o->rx_drop[i], out));
	worst = worse(worst, flow_control(o->sum, &o->loss, o->pairs, out));
	worst = worse(worst, fairness(o->node, o->in_gbps, o->nnodes, "received",
				      "from the rest of its group", out));
	worst = worse(worst, fairness(o->node, o->out_gbps, o->nnodes, "sent",
				      "to the rest of its group", out));
	if (json_array_size(json_object_get(out, "outcomes")))
		return worst;
	for (int i = 0; i < o->nnodes && worst < 1; i++) {
		char what[80];

		snprintf(what, sizeof(what), "into %s", o->node[i]);
		worst = worse(worst, below_ceiling(o->in_gbps[i], o->ceiling_gbps[i], what, out));
		snprintf(what, sizeof(what), "out of %s", o->node[i]);
		worst = worse(worst, below_ceiling(o->out_gbps[i], o->ceiling_gbps[i], what, out));
	}
	return worst;
}
