/*
 * The bandwidth knobs of a pair run checked together before any traffic
 * (verbs/knobs.c has the rule): --post-list, --cq-mod, -t, -q, --threads,
 * -a, -s, --validate and the method. A combination that would stall is
 * refused naming the options; a default the rule changes is a note in the
 * report. The workers settle the same way on what their devices allow.
 */
#include <errno.h>
#include <string.h>

#include "core/log.h"
#include "core/util.h"
#include "pair/pair.h"

/* Adds @note to the doc's notes once. */
static void note_once(json_t *doc, const char *note)
{
	size_t i;
	json_t *n;

	json_array_foreach(json_object_get(doc, "notes"), i, n)
		if (!strcmp(json_string_value(n), note))
			return;
	pair_qos_note(doc, "%s", note);
}

/* The settling of @op at @size; -EINVAL when refused (logged). */
static int knobs_one(const struct pair_cfg *cfg, enum vb_op op, uint64_t size,
		     uint64_t max_size, json_t *doc)
{
	struct vb_knob_in in = {
		.method = (enum vb_method)cfg->method, .op = op, .size = size,
		.all_sizes = cfg->all_sizes, .tx_depth = cfg->tx_depth, .window = cfg->tx_depth,
		.nqps = cfg->qps, .validate = cfg->mem.validate, .post_list = cfg->post_list,
		.cq_mod = cfg->cq_mod,
	};
	struct vb_knob_out out;
	char note[600];
	double duration;

	pair_test_length(cfg, op, 0, &in.iters, &duration);
	if (duration > 0)
		in.iters = 0;

	if (cfg->mem.validate) {
		in.window = vb_val_window(cfg->tx_depth, size, max_size, cfg->qps);
		if (!in.window) /* refused by the worker, naming -q and the size */
			return 0;
	}
	if (vb_pt_refused(&in, out.why, sizeof(out.why)) || vb_knobs_settle(&in, &out) < 0) {
		fc_err("pair: %s bandwidth at %llu B: %s", vb_op_name(op), (unsigned long long)size,
		       out.why);
		return -EINVAL;
	}
	if (doc && out.note[0]) {
		snprintf(note, sizeof(note), "%s bandwidth: %s", vb_op_name(op), out.note);
		note_once(doc, note);
	}
	return 0;
}

static int knobs_each(const struct pair_cfg *cfg, json_t *doc)
{
	uint64_t sizes[PAIR_MAX_SIZES], max = pair_largest_size(cfg);
	int n = cfg->bw ? pair_sizes(cfg, 0, sizes) : 0;

	for (int op = VB_WRITE; op <= VB_SEND; op++)
		for (int k = 0; (cfg->ops & (1u << op)) && k < n; k++)
			if (knobs_one(cfg, (enum vb_op)op, sizes[k], max, doc))
				return -EINVAL;
	return 0;
}

int pair_knobs_check(const struct pair_cfg *cfg)
{
	return knobs_each(cfg, NULL);
}

void pair_knobs_notes(const struct pair_cfg *cfg, json_t *doc)
{
	/* the verdict and the diagnosis read the RNR NAKs of a validated run
	 * as its receive cap's, not loss (core/pairv.h fc_doc_validated) */
	json_object_set_new(json_object_get(doc, "options"), "validate",
			    json_boolean(cfg->mem.validate));
	knobs_each(cfg, doc);
}
