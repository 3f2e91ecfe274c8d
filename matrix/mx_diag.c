/*
 * The part diagnosis on a matrix's suspects (mx_diag.h): each suspect's
 * worst pair, read back from the store, and that pair's diagnosis (diag/:
 * part, confidence, evidence, next step) on the suspect's rail.
 */
#include "matrix/mx_diag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/holders.h"
#include "core/out.h"
#include "core/summary.h"
#include "store/store.h"

/* The model's rail of a suspect's "rail" (the rail's index), -1 for none. */
static int model_rail(const struct mx_model *m, const json_t *s)
{
	const json_t *r = json_object_get(s, "rail");

	for (int i = 0; json_is_integer(r) && i < m->nrails; i++)
		if (m->rails[i].index == json_integer_value(r))
			return i;
	return -1;
}

/* The suspect's worst pair on its rail: the link's bad direction, or the
 * node's slowest pair. 0, or -1 when there is none. */
static int worst_pair(const struct mx_model *m, const struct fc_mx_analysis *an, const json_t *s,
		      int *a, int *b)
{
	const json_t *link = json_object_get(s, "link");
	const struct fc_mx_cell *c;
	size_t k;

	if (json_is_array(link)) {
		*a = mx_model_node(m, json_string_value(json_array_get(link, 0)) ?: "");
		*b = mx_model_node(m, json_string_value(json_array_get(link, 1)) ?: "");
		if (*a < 0 || *b < 0 || *a == *b)
			return -1;
		if (!fc_mx_cell(an, *a, *b)->bad && fc_mx_cell(an, *b, *a)->bad) {
			int t = *a;

			*a = *b;
			*b = t;
		}
		return 0;
	}
	*a = mx_model_node(m, fc_jstr(s, "node", ""));
	if (*a < 0 || !(c = mx_model_worst(an, *a)))
		return -1;
	k = (size_t)(c - an->cells);
	*b = (int)(k % (size_t)an->n);
	*a = (int)(k / (size_t)an->n);
	return 0;
}

const json_t *mx_diag_pick(const json_t *pair, int rail_index)
{
	const json_t *list = json_object_get(pair, "diagnosis"), *e;
	char pre[32];
	size_t i;
	int r;

	snprintf(pre, sizeof(pre), "rail %d ", rail_index);
	json_array_foreach(list, i, e)
		if (rail_index >= 0 && !strncmp(fc_jstr(e, "subject", ""), pre, strlen(pre)))
			return e;
	if (rail_index < 0)
		return json_array_get(list, 0);
	/* No entry of that rail: the pair's own rows, never another rail's. */
	json_array_foreach(list, i, e)
		if (sscanf(fc_jstr(e, "subject", ""), "rail %d ", &r) != 1)
			return e;
	return NULL;
}

json_t *mx_diag_entry(const json_t *e, const char *a, const char *b)
{
	if (!json_is_object(e))
		return NULL;
	return json_pack("{s:[s,s], s:s, s:s, s:s, s:s, s:s}", "pair", a, b,
			 "subject", fc_jstr(e, "subject", ""), "part", fc_jstr(e, "part", "?"),
			 "confidence", fc_jstr(e, "confidence", "?"), "evidence",
			 fc_jstr(e, "evidence", ""), "next", fc_jstr(e, "next", ""));
}

static json_t *diagnosis_of(const struct mx_model *m, struct fc_store *st, int a, int b, int r)
{
	json_t *pair = NULL, *out = NULL;
	const json_t *e;
	char *text = NULL;

	for (size_t i = m->nres; i-- > 0 && !text;)
		if (m->res[i].a == a && m->res[i].b == b)
			text = fc_store_pair_doc(st, m->res_id[i]);
	if (text)
		pair = json_loads(text, 0, NULL);
	free(text);
	e = pair ? mx_diag_pick(pair, r >= 0 ? m->rails[r].index : -1) : NULL;
	out = mx_diag_entry(e, m->names[a], m->names[b]);
	json_decref(pair);
	return out;
}

void mx_doc_diagnoses(const struct mx_model *m, struct fc_store *st, json_t *doc)
{
	json_t *s;
	size_t i;

	json_array_foreach(json_object_get(doc, "suspects"), i, s) {
		int r = model_rail(m, s), a, b;
		const struct fc_mx_analysis *an = r >= 0 ? &m->ran.rails[r] : &m->an;
		json_t *d;

		if (worst_pair(m, an, s, &a, &b))
			continue;
		d = diagnosis_of(m, st, a, b, r);
		if (d)
			json_object_set_new(s, "diagnosis", d);
	}
}

/* "link A-B" or "node X", and " on DEV" with rails. */
static void label(const json_t *s, char *buf, size_t len)
{
	const json_t *link = json_object_get(s, "link");
	const char *dev = fc_jstr(s, "device", NULL);

	if (json_is_array(link))
		snprintf(buf, len, "link %s-%s", json_string_value(json_array_get(link, 0)) ?: "?",
			 json_string_value(json_array_get(link, 1)) ?: "?");
	else
		snprintf(buf, len, "node %s", fc_jstr(s, "node", "?"));
	if (dev)
		snprintf(buf + strlen(buf), len - strlen(buf), " on %s", dev);
}

/* The suspects a part's line names at most before it counts the rest. */
#define MX_DIAG_NAMES_MAX 200

/* The suspects' diagnoses, one group per diagnosis (its part, how sure,
 * its pair, evidence and next step) naming every suspect it holds for
 * (core/holders.h): a "not determined" of each rail's link is said once. */
static json_t *diag_groups(const json_t *doc)
{
	json_t *groups = json_array(), *g;
	const json_t *s, *d;
	char who[256], *key;
	size_t i;

	json_array_foreach(json_object_get(doc, "suspects"), i, s) {
		if (!(d = json_object_get(s, "diagnosis")))
			continue;
		label(s, who, sizeof(who));
		if (asprintf(&key, "%s %s (pair %s -> %s)\x1f%s\x1f%s", fc_jstr(d, "confidence", "?"),
			     fc_jstr(d, "part", "?"),
			     json_string_value(json_array_get(json_object_get(d, "pair"), 0)) ?: "?",
			     json_string_value(json_array_get(json_object_get(d, "pair"), 1)) ?: "?",
			     fc_jstr(d, "evidence", ""), fc_jstr(d, "next", "")) < 0)
			continue;
		if ((g = fc_holders_group(groups, key, who)) && !json_object_get(g, "entry"))
			json_object_set(g, "entry", (json_t *)d);
		free(key);
	}
	return groups;
}

/* Group @g of diag_groups: "WHO: CONFIDENCE PART (pair A -> B)", its
 * evidence and next step. */
static void put_group(FILE *f, const json_t *g)
{
	const char *key = fc_jstr(g, "text", "?");
	const json_t *d = json_object_get(g, "entry");
	char who[1024], *head = NULL;

	fc_holders_lead_name(json_object_get(g, "holders"), NULL, who, sizeof(who), MX_DIAG_NAMES_MAX);
	if (asprintf(&head, "%s: %.*s", who, (int)strcspn(key, "\x1f"), key) < 0)
		head = NULL;
	fc_put_wrapped(f, "  ", 4, head ? head : who, 0, FC_WRAP_LINES);
	free(head);
	fc_put_step(f, 6, "evidence", fc_jstr(d, "evidence", ""));
	fc_put_step(f, 6, "next", fc_jstr(d, "next", ""));
}

void mx_doc_diagnoses_render(FILE *f, const json_t *doc)
{
	json_t *groups = diag_groups(doc), *g;
	size_t i;

	json_array_foreach(groups, i, g) {
		if (!i)
			fprintf(f, "\nthe suspects' parts (the diagnosis of each one's worst pair):\n");
		put_group(f, g);
	}
	json_decref(groups);
}
