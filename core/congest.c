/* Incast rounds judged for flow control and fairness (core/congest.h). */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/congest.h"
#include "core/pattern.h"

/* Each class's counter names, as glob patterns (the sources in congest.h). */
static const struct {
	const char *pat;
	enum fc_cg_class c;
} classes[] = {
	{ "*_pause_duration", FC_CG_PAUSE_US },
	{ "rx_prio[0-7]_pause", FC_CG_PAUSE },
	{ "tx_prio[0-7]_pause", FC_CG_PAUSE },
	{ "rx_pause_ctrl_phy", FC_CG_PAUSE },
	{ "tx_pause_ctrl_phy", FC_CG_PAUSE },
	{ "port_xmit_wait", FC_CG_PAUSE },
	{ "np_ecn_marked_roce_packets", FC_CG_ECN },
	{ "np_cnp_sent", FC_CG_CNP_SENT },
	{ "rp_cnp_handled", FC_CG_CNP_HANDLED },
	{ "out_of_sequence", FC_CG_RETRANS },
	{ "packet_seq_err", FC_CG_RETRANS },
	{ "local_ack_timeout_err", FC_CG_RETRANS },
	{ "implied_nak_seq_err", FC_CG_RETRANS },
	{ "rcvd_seq_err", FC_CG_RETRANS },
	{ "completer_retry_err", FC_CG_RETRANS },
	{ "retry_exceeded_err", FC_CG_RETRANS },
	{ "out_of_seq_request", FC_CG_RETRANS },
	{ "duplicate_request", FC_CG_RETRANS },
	{ "out_of_buffer", FC_CG_RX_DROP },
	{ "rx_out_of_buffer", FC_CG_RX_DROP },
	{ "rx_discards_phy", FC_CG_RX_DROP },
	{ "rx_prio[0-7]_buf_discard", FC_CG_RX_DROP },
};

enum fc_cg_class fc_cg_class_of(const char *name)
{
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (!fnmatch(classes[i].pat, name, 0))
			return classes[i].c;
	return FC_CG_OTHER;
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

/* The flow-control outcome of counters summed by class @s over a round's
 * ports: which mechanism held the traffic, or none. -1: nothing to say. */
static int flow_control(const double *s, int pairs_clean, json_t *out)
{
	double cnp = s[FC_CG_CNP_SENT] + s[FC_CG_CNP_HANDLED];
	int loss = s[FC_CG_RETRANS] > 0;
	char ev[300];

	snprintf(ev, sizeof(ev), "pause %.0f (%.0f us), ECN-marked %.0f, CNP sent %.0f handled "
		 "%.0f, retransmissions %.0f; pairs %s", s[FC_CG_PAUSE], s[FC_CG_PAUSE_US],
		 s[FC_CG_ECN], s[FC_CG_CNP_SENT], s[FC_CG_CNP_HANDLED], s[FC_CG_RETRANS],
		 pairs_clean ? "clean" : "not clean");
	if (loss && !s[FC_CG_PAUSE] && !cnp && pairs_clean)
		return outcome(out, 2, "no working flow control", ev);
	if (loss)
		return outcome(out, 1, "loss under incast", ev);
	if (s[FC_CG_PAUSE] > 0)
		return outcome(out, 0, "lossless flow control working", ev);
	if (cnp > 0)
		return outcome(out, 0, "ECN/DCQCN working", ev);
	return -1;
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
	worst = worse(worst, flow_control(o->sum, o->pairs_clean, out));
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
	worst = worse(worst, flow_control(o->sum, o->pairs_clean, out));
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
