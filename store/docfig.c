/* The figures inside a stored pair document, bounded on read as live
 * results are (store_int.h: store_doc_bounded). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/util.h"
#include "store/store_int.h"

/* The rows named in full before the rest are only counted: a store
 * crafted with a bad figure in every row says so, not once a row. */
#define DOCFIG_SAID_MAX 3

/* 1 when @v under @key is a figure a result may hold: from 0 to its top
 * (core/util.h fc_figure_max, the bound a live result has; Gb/s up to
 * STORE_GBPS_MAX, both ways), finite; an array: each of its numbers. Other
 * keys are not figures of a link (clock offsets may be negative) and
 * pass. */
static int figure_ok(const char *key, const json_t *v, double *bad, double *max)
{
	size_t i;
	json_t *x;

	*max = fc_figure_max(key, STORE_GBPS_MAX);
	if (*max == 0)
		return 1;
	if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			if (!figure_ok(key, x, bad, max))
				return 0;
		return 1;
	}
	if (!json_is_number(v))
		return 1;
	*bad = json_number_value(v);
	return isfinite(*bad) && *bad >= 0 && *bad <= *max;
}

struct docfig {
	const char *path, *a, *b;
	long long run, id;
	int left_out;
};

/* 1 when this left-out figure is to be named (the first DOCFIG_SAID_MAX). */
static int naming(const struct docfig *d)
{
	static int said;

	if (said++ < DOCFIG_SAID_MAX)
		return 1;
	if (said == DOCFIG_SAID_MAX + 1)
		fc_warn("store %s: more stored figures that are no measurement are left out, not "
			"named", d->path);
	return 0;
}

/* Takes out of @results each entry with a figure that is no measurement. */
static void bound_results(struct docfig *d, json_t *results)
{
	for (size_t i = 0; i < json_array_size(results);) {
		json_t *e = json_array_get(results, i), *v;
		const char *k, *badkey = NULL;
		double bad = 0, max = 0;

		json_object_foreach(e, k, v)
			if (!figure_ok(k, v, &bad, &max)) {
				badkey = k;
				break;
			}
		if (!badkey) {
			i++;
			continue;
		}
		if (naming(d))
			fc_warn("store %s: run %lld, pair %s-%s (row %lld): a stored result's \"%.40s\" "
				"of %g is no measurement (negative, not finite or above %g): the result "
				"is left out, as a live one would be refused; the store was changed "
				"outside fabcheck", d->path, d->run, d->a, d->b, d->id, badkey, bad, max);
		json_array_remove(results, i);
		d->left_out++;
	}
}

/* Takes out of @node (a document's "a" or "b": rate_gbps, the port's rate)
 * each figure that is no measurement. */
static void bound_node(struct docfig *d, json_t *node)
{
	const char *k;
	json_t *v;
	void *tmp;
	double bad = 0, max = 0;

	json_object_foreach_safe(node, tmp, k, v) {
		if (figure_ok(k, v, &bad, &max))
			continue;
		if (naming(d))
			fc_warn("store %s: run %lld, pair %s-%s (row %lld): a node's stored \"%.40s\" "
				"of %g is no measurement (negative, not finite or above %g): left out; the "
				"store was changed outside fabcheck", d->path, d->run, d->a, d->b, d->id,
				k, bad, max);
		json_object_del(node, k);
		d->left_out++;
	}
}

/* Every "results" array below @v (the pair's, each rail's phases), and
 * the nodes ("a", "b") of each. */
static void walk(struct docfig *d, json_t *v)
{
	const char *k;
	json_t *x;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach(v, k, x) {
			if (!strcmp(k, "results") && json_is_array(x))
				bound_results(d, x);
			else if ((!strcmp(k, "a") || !strcmp(k, "b")) && json_is_object(x))
				bound_node(d, x);
			else
				walk(d, x);
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			walk(d, x);
	}
}

char *store_doc_bounded(const char *path, int64_t run, int64_t id, const char *a,
			const char *b, const char *text)
{
	struct docfig d = { .path = path, .a = a, .b = b, .run = (long long)run,
			    .id = (long long)id };
	json_t *doc = text ? json_loads(text, 0, NULL) : NULL;
	char *out = NULL;

	if (!doc)
		return NULL; /* not a document: its reader says so */
	walk(&d, doc);
	if (d.left_out)
		out = json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(STORE_DOC_PRECISION));
	json_decref(doc);
	return out;
}

void store_params_bounded(json_t *params, int64_t run)
{
	const char *k;
	json_t *v;
	void *tmp;
	double bad = 0, max = 0;

	json_object_foreach_safe(params, tmp, k, v) {
		if (json_is_object(v)) {
			store_params_bounded(v, run);
			continue;
		}
		if (figure_ok(k, v, &bad, &max))
			continue;
		fc_warn("store: run %lld: its stored \"%.40s\" of %g is no measurement (negative, not "
			"finite or above %g): left out; the store was changed outside fabcheck",
			(long long)run, k, bad, max);
		json_object_del(params, k);
	}
}
