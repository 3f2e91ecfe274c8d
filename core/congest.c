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

/* The flow-control outcome: which mechanism held the incast, or none. */
static int flow_control(const struct fc_incast_obs *o, json_t *out)
{
	const double *s = o->sum;
	double cnp = s[FC_CG_CNP_SENT] + s[FC_CG_CNP_HANDLED];
	int loss = s[FC_CG_RETRANS] > 0;
	char ev[300];

	snprintf(ev, sizeof(ev), "pause %.0f (%.0f us), ECN-marked %.0f, CNP sent %.0f handled "
		 "%.0f, retransmissions %.0f; pairs %s", s[FC_CG_PAUSE], s[FC_CG_PAUSE_US],
		 s[FC_CG_ECN], s[FC_CG_CNP_SENT], s[FC_CG_CNP_HANDLED], s[FC_CG_RETRANS],
		 o->pairs_clean ? "clean" : "not clean");
	if (loss && !s[FC_CG_PAUSE] && !cnp && o->pairs_clean)
		return outcome(out, 2, "no working flow control", ev);
	if (loss)
		return outcome(out, 1, "loss under incast", ev);
	if (s[FC_CG_PAUSE] > 0)
		return outcome(out, 0, "lossless flow control working", ev);
	if (cnp > 0)
		return outcome(out, 0, "ECN/DCQCN working", ev);
	return -1;
}

/* The starved sender, if one is below half its fair share. */
static int fairness(const struct fc_incast_obs *o, double agg, json_t *out)
{
	double fair = o->nsenders ? agg / o->nsenders : 0;
	int worst = -1;
	char ev[300];

	for (int i = 0; i < o->nsenders; i++)
		if (o->gbps[i] < fair / 2 && (worst < 0 || o->gbps[i] < o->gbps[worst]))
			worst = i;
	if (worst < 0)
		return -1;
	snprintf(ev, sizeof(ev), "%s sent %.4g Gb/s against a fair share of %.4g Gb/s (Jain %.3f): "
		 "check its path to %s", o->sender[worst], o->gbps[worst], fair,
		 fc_jain(o->gbps, o->nsenders), o->receiver);
	return outcome(out, 1, "unfair", ev);
}

int fc_incast_judge(const struct fc_incast_obs *o, json_t *out)
{
	double agg = 0, jain = fc_jain(o->gbps, o->nsenders);
	int worst = 0, l;
	char ev[300];

	for (int i = 0; i < o->nsenders; i++)
		agg += o->gbps[i];
	json_object_set_new(out, "aggregate_gbps", json_real(agg));
	json_object_set_new(out, "jain", isfinite(jain) ? json_real(jain) : json_null());
	json_object_set_new(out, "outcomes", json_array());
	if (o->rx_drop_receiver > 0) {
		snprintf(ev, sizeof(ev), "%.0f packets dropped for want of receive buffers on %s's "
			 "own port: its host (PCIe, receive queues) cannot drain the port",
			 o->rx_drop_receiver, o->receiver);
		worst = outcome(out, 2, "receiver cannot drain", ev);
	}
	l = flow_control(o, out);
	worst = l > worst ? l : worst;
	l = fairness(o, agg, out);
	worst = l > worst ? l : worst;
	if (json_array_size(json_object_get(out, "outcomes")) == 0 && o->ceiling_gbps > 0 &&
	    agg < 0.9 * o->ceiling_gbps) {
		snprintf(ev, sizeof(ev), "%.4g Gb/s into %s against its port's ceiling %.4g Gb/s, "
			 "no loss, pause or CNP", agg, o->receiver, o->ceiling_gbps);
		worst = outcome(out, 1, "below the port ceiling", ev) > worst ? 1 : worst;
	}
	return worst;
}
