/*
 * fabcheck pair: traffic class and service level (what each QP carries, read
 * back after connect), the notes that say what was recorded only, and the
 * congestion, pause and discard counters judged with the traffic class.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "verbs/qos.h"
#include "core/out.h"
#include "core/summary.h"
#include "pair/pair.h"

void pair_qos_options(const struct pair_cfg *cfg, json_t *opts)
{
	json_object_set_new(opts, "tclass", cfg->tclass >= 0 ? json_integer(cfg->tclass) : json_null());
	json_object_set_new(opts, "sl", cfg->sl >= 0 ? json_integer(cfg->sl) : json_null());
	if (cfg->tclass >= 0) {
		json_object_set_new(opts, "dscp", json_integer(cfg->tclass >> 2));
		json_object_set_new(opts, "ecn", json_integer(cfg->tclass & 3));
	}
}

void pair_qos_note(json_t *doc, const char *fmt, ...)
{
	json_t *notes = json_object_get(doc, "notes");
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!notes) {
		notes = json_array();
		json_object_set_new(doc, "notes", notes);
	}
	json_array_append_new(notes, json_string(msg));
}

/* Every rail by default, one found: what the matching said, and which. */
void pair_rail_notes(json_t *doc, const json_t *from)
{
	const json_t *v;
	size_t i;

	if (!from)
		return;
	json_array_foreach(json_object_get(from, "notes"), i, v)
		pair_qos_note(doc, "%s", json_string_value(v));
	json_array_foreach(json_object_get(from, "findings"), i, v)
		fc_finding(doc, FC_WARN, "%s", json_string_value(v));
	json_array_foreach(json_object_get(from, "fail"), i, v)
		fc_finding(doc, FC_FAIL, "%s", json_string_value(v));
	json_object_set(doc, "rails_matched", json_object_get(from, "rails_matched"));
}

/* What was recorded only, said once (with the second side). */
static void qos_notes(json_t *doc, const struct pair_cfg *cfg, int roce)
{
	if (roce && cfg->sl >= 0)
		pair_qos_note(doc, "--sl %d is in the QPs' address vector: on mlx5 RoCE it is the VLAN priority (PCP) of tagged frames; untagged frames, and ports that trust DSCP, take the priority from the traffic class",
			      cfg->sl);
	if (!roce && cfg->tclass >= 0)
		pair_qos_note(doc, "--tclass %d is recorded only: on InfiniBand these QPs run without a GRH, so no traffic class is sent; use --sl",
			      cfg->tclass);
	if (!roce && cfg->cm && cfg->sl >= 0)
		pair_qos_note(doc, "with --cm the SL comes from the subnet manager's path record: --sl %d is recorded only",
			      cfg->sl);
}

void pair_qos_side(json_t *doc, const struct pair_cfg *cfg, int side, const json_t *reply)
{
	json_t *s = json_object_get(doc, side ? "b" : "a");
	const json_t *qt = json_object_get(reply, "qp_tclass");
	const json_t *qs = json_object_get(reply, "qp_sl");
	int roce = !strcmp(fc_jstr(s, "link_layer", ""), "Ethernet");
	int tclass = cfg->tclass >= 0 ? cfg->tclass : 0, sl = cfg->sl >= 0 ? cfg->sl : 0;
	int read_back = json_is_integer(qs);

	if (roce && json_is_integer(qt))
		tclass = (int)json_integer_value(qt);
	if (read_back)
		sl = (int)json_integer_value(qs);
	qos_tclass_json(s, tclass);
	json_object_set_new(s, "sl", json_integer(sl));
	json_object_set_new(s, "qos_source", json_string(read_back ? "qp" : "asked"));
	if (roce && cfg->tclass >= 0 && json_is_integer(qt) && tclass != cfg->tclass)
		fc_finding(doc, FC_WARN,
			   "%s %s: its QPs carry traffic class %d, not the %d asked for with --tclass: the driver or rdma_cm changed it; check the device's default ToS (configfs default_roce_tos) and the driver",
			   fc_jstr(s, "node", "?"), fc_jstr(s, "device", "?"), tclass, cfg->tclass);
	if ((roce || !cfg->cm) && cfg->sl >= 0 && read_back && sl != cfg->sl)
		fc_finding(doc, FC_WARN,
			   roce ? "%s %s: its QPs carry SL %d, not the %d asked for with --sl: the driver keeps no SL in a RoCE address vector (Soft-RoCE does not), so no VLAN priority comes from it; set the priority by DSCP with --tclass" :
				  "%s %s: its QPs carry SL %d, not the %d asked for with --sl: check the driver",
			   fc_jstr(s, "node", "?"), fc_jstr(s, "device", "?"), sl, cfg->sl);
	if (side == 1)
		qos_notes(doc, cfg, roce);
}

/* One node's counters: the congestion findings with the traffic class. */
static void node_findings(json_t *doc, const struct pair_cfg *cfg, const char *node,
			  const json_t *set)
{
	static const char *const seq[] = { "out_of_sequence", "packet_seq_err",
					   "implied_nak_seq_err", "rcvd_seq_err" };
	const json_t *side = json_object_get(doc, !strcmp(node, cfg->label[1]) ? "b" : "a");
	const json_t *eth = json_object_get(set, "netdev");
	json_t *hw = json_deep_copy(set);

	json_object_del(hw, "netdev");
	/* Sequence errors off a lossless class are the verdict's error
	 * counters already; here they matter on a lossless class only. */
	if (!qos_lossless(eth, cfg->tclass))
		for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++)
			json_object_del(hw, seq[i]);
	qos_counter_findings(doc, node, fc_jstr(side, "device", "?"), hw, eth, cfg->tclass);
	json_decref(hw);
}

void pair_qos_finish(json_t *doc, const struct pair_cfg *cfg)
{
	const char *node;
	json_t *set;

	json_object_foreach(json_object_get(doc, "counters"), node, set)
		if (json_is_object(set))
			node_findings(doc, cfg, node, set);
}

void pair_qos_render(FILE *f, const json_t *doc)
{
	const json_t *opt = json_object_get(doc, "options");
	const json_t *notes = json_object_get(doc, "notes"), *n;
	size_t i;

	if (json_object_get(json_object_get(doc, "a"), "tclass")) {
		char side[2][256];

		for (int k = 0; k < 2; k++) {
			const json_t *s = json_object_get(doc, k ? "b" : "a");

			snprintf(side[k], sizeof(side[k]), "%s %d (DSCP %d, ECN %d), SL %d",
				 fc_jstr(s, "node", "?"), (int)fc_jnum(s, "tclass", 0),
				 (int)fc_jnum(s, "dscp", 0), (int)fc_jnum(s, "ecn", 0),
				 (int)fc_jnum(s, "sl", 0));
		}
		fc_put_paraf(f, 4, "  traffic class%s: %s; %s",
			     json_is_integer(json_object_get(opt, "tclass")) ? "" : " (default)",
			     side[0], side[1]);
	}
	json_array_foreach(notes, i, n) /* each fitted, whole in --json */
		if (!json_equal(n, json_object_get(doc, "rails_cpu_note")))
			fc_put_wrapped(f, "  note: ", 8, json_string_value(n), 0, 2);
}
