/* The diagnosis of a test from its evidence, as JSON and as text. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/dgroup.h"
#include "core/out.h"
#include "core/summary.h"
#include "core/util.h"
#include "diag/rules.h"

static json_t *class_json(const long long *sum, char (*detail)[160])
{
	json_t *o = json_object();

	for (int c = DIAG_C_PHYS; c < DIAG_C_NCLASS; c++)
		if (sum[c])
			json_object_set_new(o, diag_class_name((enum diag_class)c),
					    json_pack("{s:I, s:s}", "delta", (json_int_t)sum[c],
						      "counters", detail[c]));
	return o;
}

static json_t *ber_json(double v)
{
	return v < 0 ? json_null() : json_real(v);
}

/* The bits set of @mask below @n, each as its index + @base. */
static json_t *bits_json(unsigned mask, int n, int base)
{
	json_t *a = json_array();

	for (int i = 0; i < n; i++)
		if (mask & (1u << i))
			json_array_append_new(a, json_integer(i + base));
	return a;
}

static json_t *module_json(const struct diag_module *m, const char *pn)
{
	json_t *o;

	if (!m->known)
		return json_null();
	o = json_pack("{s:f, s:f, s:f, s:o, s:s, s:o, s:o, s:o}", "temp_c", m->temp_c,
			 "temp_warn_c", m->temp_warn_c, "volt", m->volt, "rx_dbm_min",
			 m->rx_dbm_min < 99 ? json_real(m->rx_dbm_min) : json_null(), "alarms",
			 m->alarms, "lanes_used", bits_json(m->used, m->nlanes, 1), "lanes_not_in_use",
			 bits_json(m->dark, m->nlanes, 1), "weak_lane",
			 m->weak_lane ? json_integer(m->weak_lane) : json_null());
	json_object_update_new(o, diag_module_readings(m, pn)); /* "pn", "readings", "lanes_rx_dbm" */
	return o;
}

static json_t *count_json(long long v)
{
	return v < 0 ? json_null() : json_integer(v);
}

/* Flow control, congestion control, configuration and the card's health. */
static json_t *fabric_json(const struct diag_port *p)
{
	return json_pack("{s:o, s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "paused_s",
			 p->pause_s < 0 ? json_null() : json_real(p->pause_s), "paused_estimated",
			 p->pause_estimated, "ecn_marked", count_json(p->ecn_marked), "cnp_sent",
			 count_json(p->cnp_sent), "cnp_handled", count_json(p->cnp_handled), "trust",
			 *p->trust ? json_string(p->trust) : json_null(), "gid_type",
			 *p->gid_type ? json_string(p->gid_type) : json_null(), "pfc_priorities",
			 p->pfc < 0 ? json_null() : bits_json((unsigned)p->pfc, 8, 0),
			 "card_health", *p->health ? json_string(p->health) : json_null());
}

static json_t *pcie_json(const struct diag_port *p)
{
	json_t *a = json_array();

	for (int i = 0; i < p->npcie; i++) {
		const struct diag_pcie *d = &p->pcie[i];

		json_array_append_new(
			a, json_pack("{s:s, s:s, s:f, s:i, s:f, s:i, s:i, s:f, s:o}", "role", d->role,
				     "bdf", d->bdf, "gts", d->cur_gts, "width", d->cur_width,
				     "max_gts", d->max_gts, "max_width", d->max_width,
				     "max_payload_bytes", d->mps, "ceiling_gbps", d->ceiling_gbps,
				     "aer", d->aer_known ? json_pack("{s:I, s:I, s:I}", "correctable",
								     (json_int_t)d->aer[0], "nonfatal",
								     (json_int_t)d->aer[1], "fatal",
								     (json_int_t)d->aer[2])
							 : json_null()));
	}
	return a;
}

json_t *diag_port_json(const struct diag_port *p)
{
	json_t *o = json_pack("{s:s, s:s, s:i, s:s, s:s, s:f, s:f, s:o, s:o, s:o, s:o, s:o}",
			      "node", p->node, "device", p->dev, "port", p->port, "netdev",
			      p->netdev, "link_layer", p->link_layer, "rate_gbps", p->rate_gbps,
			      "seconds", p->seconds, "counters",
			      class_json(p->sum, (char (*)[160])p->detail), "pre_fec_ber",
			      ber_json(p->pre_ber), "post_fec_ber", ber_json(p->post_ber),
			      "module", module_json(&p->mod, p->module_pn), "pcie", pcie_json(p));

	json_object_set_new(o, "far_end", p->have_far ? class_json(p->far_sum,
								    (char (*)[160])p->far_detail)
						      : json_null());
	json_object_set_new(o, "width", p->width ? json_integer(p->width) : json_null());
	json_object_set_new(o, "mtu", p->mtu_after ? json_integer(p->mtu_after) : json_null());
	json_object_set_new(o, "fabric", fabric_json(p));
	json_object_set_new(o, "fw_ver", *p->fw_ver ? json_string(p->fw_ver) : json_null());
	json_object_set_new(o, "module_pn", *p->module_pn ? json_string(p->module_pn) : json_null());
	json_object_set_new(o, "fw_stored", *p->fw_stored ? json_string(p->fw_stored) : json_null());
	json_object_set_new(o, "fw_psid", *p->fw_psid ? json_string(p->fw_psid) : json_null());
	json_object_set_new(o, "fw_state", json_string(diag_fw_state_name(diag_fw_state(p->fw_running, p->fw_stored))));
	json_object_set_new(o, "reporters", p->reporters ? json_deep_copy(p->reporters) : json_null());
	json_object_set(o, "notes", p->notes);
	return o;
}

json_t *diag_sorted(json_t *in)
{
	json_t *out = json_array(), *e;
	size_t i;

	for (int pass = 0; pass < 2; pass++)
		json_array_foreach(in, i, e)
			if (!strcmp(fc_jstr(e, "confidence", ""), "likely") == !pass)
				json_array_append(out, e);
	json_decref(in);
	return out;
}

void diag_run(json_t *doc, const struct diag_set *s)
{
	struct diag_ctx c = { .set = s, .test = s->test ? s->test : doc, .out = json_array() };
	json_t *ev = json_array();
	int n;
	const struct diag_rule *rules = diag_port_rules(&n);

	for (int i = 0; i < s->nports; i++) {
		for (int r = 0; r < n; r++)
			rules[r].port(&c, &s->ports[i]);
		json_array_append_new(ev, diag_port_json(&s->ports[i]));
	}
	diag_test_rules(&c);
	if (!json_array_size(c.out) && fc_doc_verdict(c.test) != FC_PASS)
		diag_emit(&c, "none", "the test", "not determined", 0,
			  "re-run with --save-evidence DIR and attach DIR",
			  "no rule matched: no physical, PCIe, drop or configuration cause in the counters");
	json_object_set_new(doc, "diagnosis", diag_sorted(c.out));
	json_object_set_new(doc, "evidence", ev);
}

void diag_render_entry(FILE *f, const json_t *e, const char *subject, const char *ev_label)
{
	char lead[64], *head = NULL;

	snprintf(lead, sizeof(lead), "  %-8s ", fc_jstr(e, "confidence", "?"));
	if (asprintf(&head, "%s: %s", subject, fc_jstr(e, "part", "?")) < 0)
		head = NULL;
	fc_put_wrapped(f, lead, DIAG_HANG, head ? head : subject, 0, FC_WRAP_LINES);
	free(head);
	fc_put_step(f, DIAG_HANG, ev_label, fc_jstr(e, "evidence", ""));
	fc_put_step(f, DIAG_HANG, "next", fc_jstr(e, "next", ""));
}

/* A problem once (core/dgroup.h): its subjects merged; the evidence of
 * its first entry, and how many more there are (each in --json). */
static void render_group(FILE *f, const json_t *d, const struct fc_dgroup *g)
{
	const json_t *e = json_array_get(d, g->first);
	const char *subj = fc_jstr(e, "subject", "?"), *colon = strstr(subj, ": ");
	char label[256];

	if (g->same_evidence || !colon)
		snprintf(label, sizeof(label), "evidence");
	else
		snprintf(label, sizeof(label), "evidence (%.*s; the %d other%s alike, each in --json)",
			 (int)(colon - subj), subj, g->n - 1, fc_s(g->n - 1));
	diag_render_entry(f, e, g->subject, label);
}

void diag_render_list(FILE *f, const json_t *doc)
{
	const json_t *d = json_object_get(doc, "diagnosis"), *p;
	struct fc_dgroup *g = calloc(json_array_size(d) + 1, sizeof(*g));
	int ng = g ? fc_dgroups(d, g) : 0;
	size_t i;

	if (!json_array_size(d)) {
		/* on a pass the summary under the verdict says it once */
		if (strcmp(fc_jstr(doc, "verdict", "pass"), "pass"))
			fprintf(f, "\ndiagnosis: nothing to name (no rule matched)\n");
	} else {
		fprintf(f, "\ndiagnosis (most likely first):\n");
	}
	for (int j = 0; j < ng; j++)
		render_group(f, d, &g[j]);
	if (!g) /* no memory to group them: each entry as it is */
		json_array_foreach(d, i, p)
			diag_render_entry(f, p, fc_jstr(p, "subject", "?"), "evidence");
	free(g);
}

void diag_render(FILE *f, const json_t *doc)
{
	json_t *notes = json_array();

	diag_render_list(f, doc);
	diag_notes_add(notes, doc);
	diag_notes_render(f, notes);
	json_decref(notes);
}
