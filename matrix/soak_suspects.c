/*
 * The soak's suspects (soak.h): each pair with failed slices or drops (a
 * link) and each node with flaps or error counters that rose (a node; with
 * rails a port, its NODE/RAIL name split into node and device), with the
 * part diagnosis of its worst slice (matrix/mx_diag.h: the same entry the
 * matrix's suspects carry).
 */
#include "matrix/soak.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/out.h"
#include "core/pairv.h"
#include "matrix/mx_diag.h"
#include "store/store.h"

/* The sum of the error counters of @node that rose in slice @s. */
static double node_errors(const json_t *s, const char *node)
{
	const json_t *cnt = json_object_get(json_object_get(json_object_get(s, "doc"), "counters"),
					    node), *v;
	const char *name;
	double sum = 0;

	json_object_foreach((json_t *)cnt, name, v)
		if (json_is_integer(v) && json_integer_value(v) > 0 && fc_counter_is_error(name))
			sum += (double)json_integer_value(v);
	return sum;
}

/* How bad slice @s is, for the worst of a suspect's slices: a failed slice
 * first, then the most error counts on @node (NULL: none), then the lowest
 * bandwidth. Larger is worse. */
static double badness(const json_t *s, const char *node)
{
	const json_t *doc = json_object_get(s, "doc");
	double g = fc_pair_doc_gbps(doc, NULL);

	if (!strcmp(fc_jstr(doc, "verdict", "error"), "error") || !(g == g))
		return INFINITY;
	return (node ? node_errors(s, node) * 1e6 : 0) - g;
}

/* The worst slice of @a-@b (@b NULL: every slice with @a on either side)
 * that has a diagnosis; NULL when none has. */
static const json_t *worst_slice(const json_t *slices, const char *a, const char *b)
{
	const json_t *s, *worst = NULL;
	double wb = -INFINITY;
	size_t i;

	json_array_foreach(slices, i, s) {
		const char *sa = fc_jstr(s, "a", ""), *sb = fc_jstr(s, "b", "");
		int mine = b ? !strcmp(sa, a) && !strcmp(sb, b) : !strcmp(sa, a) || !strcmp(sb, a);
		double x;

		if (!mine || !json_array_size(json_object_get(json_object_get(s, "doc"), "diagnosis")))
			continue;
		x = badness(s, b ? NULL : a);
		if (!worst || x > wb) {
			worst = s;
			wb = x;
		}
	}
	return worst;
}

/* The rail of @name's slices ("rail" of the first slice it is in), or NULL. */
static const char *rail_of(const json_t *slices, const char *name)
{
	const json_t *s;
	size_t i;

	json_array_foreach(slices, i, s)
		if (!strcmp(fc_jstr(s, "a", ""), name) || !strcmp(fc_jstr(s, "b", ""), name))
			return fc_jstr(s, "rail", NULL);
	return NULL;
}

/* @name's own device on its rail: the "devices" entry of the first slice
 * it is in (NODE/RAIL names the rail, not the node's device on it), else
 * @rail. */
static const char *own_device(const json_t *slices, const char *name, const char *rail)
{
	const json_t *s;
	size_t i;

	json_array_foreach(slices, i, s) {
		const json_t *d = json_object_get(s, "devices");

		if (!strcmp(fc_jstr(s, "a", ""), name) && json_is_string(json_array_get(d, 0)))
			return json_string_value(json_array_get(d, 0));
		if (!strcmp(fc_jstr(s, "b", ""), name) && json_is_string(json_array_get(d, 1)))
			return json_string_value(json_array_get(d, 1));
	}
	return rail;
}

/* @name without its "/RAIL" (a soak with rails names NODE/RAIL). */
static json_t *base_name(const char *name, const char *rail)
{
	size_t n = strlen(name), r = rail ? strlen(rail) : 0;

	if (rail && n > r + 1 && name[n - r - 1] == '/' && !strcmp(name + n - r, rail))
		return json_stringn(name, n - r - 1);
	return json_string(name);
}

static void add_suspect(json_t *list, const json_t *slices, const char *level, const char *a,
			const char *b, const char *reason)
{
	const char *rail = rail_of(slices, a);
	const json_t *w = worst_slice(slices, a, b);
	json_t *s = json_pack("{s:s, s:s}", "level", rail && !b ? "port" : level, "reason", reason);
	json_t *d;

	if (b)
		json_object_set_new(s, "link", json_pack("[o, o]", base_name(a, rail),
							 base_name(b, rail)));
	else
		json_object_set_new(s, "node", base_name(a, rail));
	if (rail) {
		json_object_set_new(s, "device", json_string(own_device(slices, a, rail)));
		json_object_set_new(s, "rail_name", json_string(rail));
	}
	if (rail && b)
		json_object_set_new(s, "devices", json_pack("[s, s]", own_device(slices, a, rail),
							    own_device(slices, b, rail)));
	if (w) {
		json_t *wa = base_name(fc_jstr(w, "a", "?"), rail), *wb = base_name(fc_jstr(w, "b", "?"), rail);

		d = mx_diag_entry(mx_diag_pick(json_object_get(w, "doc"), -1), json_string_value(wa),
				  json_string_value(wb));
		if (d)
			json_object_set_new(s, "diagnosis", d);
		json_decref(wa);
		json_decref(wb);
	}
	json_array_append_new(list, s);
}

const char *fc_soak_own_fault(const json_t *s)
{
	const char *n = fc_jstr(json_object_get(s, "doc"), "node_fault", NULL);

	return n && (!strcmp(n, fc_jstr(s, "a", "")) || !strcmp(n, fc_jstr(s, "b", ""))) ? n : NULL;
}

/* Each node named by its own fault (fc_soak_own_fault) in some slice,
 * when a slice of the soak measured: a suspect of its own; without
 * rails, on the device and port its workers named (store.h
 * fc_pair_doc_fault_dev: checked names), a port as with rails. */
static void own_suspects(json_t *doc, json_t *list, const json_t *slices)
{
	json_t *own = json_object(), *devs = json_object(), *v, *x;
	const json_t *s;
	const char *name;
	int worked = 0, port;
	size_t i;

	json_array_foreach(slices, i, s) {
		const char *n = fc_soak_own_fault(s), *d;

		worked |= fc_pair_doc_gbps(json_object_get(s, "doc"), NULL) >= 0 && !n &&
			  strcmp(fc_jstr(json_object_get(s, "doc"), "verdict", "error"), "error");
		if (!n)
			continue;
		json_object_set_new(own, n, json_integer(json_integer_value(json_object_get(own, n)) + 1));
		d = fc_pair_doc_fault_dev(json_object_get(s, "doc"), &port);
		fc_fault_dev_note(devs, n, d, port);
	}
	json_object_foreach(own, name, v) {
		const char *dev = rail_of(slices, name) ? NULL : fc_fault_dev_of(devs, name, &port);
		char reason[600], on[96];

		if (!worked)
			break;
		fc_fault_dev_words(on, sizeof(on), dev, port);
		snprintf(reason, sizeof(reason),
			 "%s%s: its own RDMA device, port or rail could not be set up or connected in %lld slice%s (its worker said so: the node's fault, not a link's): check its HCA, that port's state and cable, and its RDMA setup ('fabcheck devices' on it)",
			 name, on, (long long)json_integer_value(v), json_integer_value(v) == 1 ? "" : "s");
		fc_finding(doc, FC_FAIL, "%s", reason);
		add_suspect(list, slices, "node", name, NULL, reason);
		/* its worker named it: no slice's counters to diagnose */
		x = json_array_get(list, json_array_size(list) - 1);
		json_object_del(x, "diagnosis");
		json_object_set_new(x, "own", json_true());
		if (dev) {
			json_object_set_new(x, "level", json_string("port"));
			json_object_set_new(x, "device", json_string(dev));
		}
	}
	json_decref(own);
	json_decref(devs);
}

/* Whether an event of @kind names pair @label. */
static int has_event(const json_t *events, const char *kind, const char *label)
{
	const json_t *e;
	size_t i;

	json_array_foreach(events, i, e)
		if (!strcmp(fc_jstr(e, "kind", ""), kind) && !strcmp(fc_jstr(e, "pair", ""), label))
			return 1;
	return 0;
}

void fc_soak_suspects(json_t *doc, const json_t *slices)
{
	const json_t *events = json_object_get(doc, "events"), *p, *n, *c;
	json_t *list = json_array();
	const char *name, *cn;
	char label[600];
	size_t i;

	json_array_foreach(json_object_get(doc, "pairs"), i, p) {
		const char *a = fc_jstr(p, "a", "?"), *b = fc_jstr(p, "b", "?");
		/* slices that could not run (ssh, the launcher, a worker:
		 * fc_pair_end_judged) are "unrun_slices", apart: no evidence */
		int failed = fc_jnum(p, "failed_slices", 0) > 0, drop;

		snprintf(label, sizeof(label), "%s-%s", a, b);
		drop = has_event(events, "drop", label);
		if (failed || drop)
			add_suspect(list, slices, "link", a, b,
				    failed && drop ? "failed slices and drops" :
				    failed ? "failed slices" : "bandwidth drops");
	}
	json_object_foreach((json_t *)json_object_get(doc, "nodes"), name, n) {
		int errors = 0, flaps = json_array_size(json_object_get(n, "flaps")) > 0;

		json_object_foreach((json_t *)json_object_get(n, "counters"), cn, c)
			errors |= json_integer_value(c) > 0 && fc_counter_is_error(cn) &&
				  strcmp(cn, "link_downed");
		if (flaps || errors)
			add_suspect(list, slices, "node", name, NULL,
				    flaps && errors ? "link flaps and error counters" :
				    flaps ? "link flaps" : "error counters");
	}
	own_suspects(doc, list, slices);
	json_object_set_new(doc, "suspects", list);
}
