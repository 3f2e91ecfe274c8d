/* The headline figures of a `fabcheck pair --json` document (pure). */
#include <math.h>
#include <string.h>

#include "core/out.h"
#include "store/store.h"

/* The @metric result of @test (any test when NULL) with a number @key, at the
 * largest size (@largest) or the smallest; the first of equal sizes. */
static const json_t *pick(const json_t *results, const char *metric, const char *test,
			  const char *key, int largest)
{
	const json_t *best = NULL, *r;
	size_t i;

	json_array_foreach(results, i, r) {
		double size = fc_jnum(r, "size_bytes", 0);

		if (strcmp(fc_jstr(r, "metric", ""), metric) ||
		    (test && strcmp(fc_jstr(r, "test", ""), test)) ||
		    !json_is_number(json_object_get(r, key)))
			continue;
		if (!best || (largest ? size > fc_jnum(best, "size_bytes", 0) :
					size < fc_jnum(best, "size_bytes", 0)))
			best = r;
	}
	return best;
}

double fc_pair_doc_gbps(const json_t *doc, double *size_bytes_p)
{
	const json_t *results = json_object_get(doc, "results");
	const json_t *r = pick(results, "bw", "write", "gbps", 1);

	if (!r)
		r = pick(results, "bw", NULL, "gbps", 1);
	if (size_bytes_p)
		*size_bytes_p = r ? fc_jnum(r, "size_bytes", 0) : 0;
	return r ? fc_jnum(r, "gbps", NAN) : NAN;
}

/* The p50 of the latency result of read (of any test when read has none) at
 * the smallest size. */
double fc_pair_doc_lat_us(const json_t *doc)
{
	const json_t *results = json_object_get(doc, "results");
	const json_t *r = pick(results, "lat", "read", "p50_us", 0);

	if (!r)
		r = pick(results, "lat", NULL, "p50_us", 0);
	return r ? fc_jnum(r, "p50_us", NAN) : NAN;
}

int fc_pair_end_judged(int code, const json_t *doc)
{
	return (code == FC_EXIT_PASS || code == FC_EXIT_FAIL) && json_is_object(doc) &&
	       json_is_array(json_object_get(doc, "results"));
}

int fc_pair_doc_judged(const json_t *doc)
{
	const char *v = fc_jstr(doc, "verdict", "error");

	return !strcmp(v, "pass") || !strcmp(v, "warn") || !strcmp(v, "fail");
}

int fc_pair_doc_rail(const json_t *doc, size_t i, struct fc_pair_rail *out)
{
	const json_t *e = json_array_get(json_object_get(doc, "rails"), i), *ph;

	if (!json_is_object(e))
		return 0;
	ph = json_object_get(e, "loaded");
	if (!json_is_object(ph))
		ph = json_object_get(e, "alone");
	*out = (struct fc_pair_rail){ .rail = (int)fc_jnum(e, "rail", -1),
				      .name = fc_jstr(e, "name", ""),
				      .subnet = fc_jstr(e, "subnet", ""),
				      .phase = json_is_object(ph) ? ph : NULL,
				      .gbps = NAN, .lat_us = NAN };
	if (out->phase) {
		out->verdict = fc_jstr(ph, "verdict", "error");
		out->node_fault = fc_jstr(ph, "node_fault", NULL);
		out->gbps = fc_pair_doc_gbps(ph, &out->size_bytes);
		out->lat_us = fc_pair_doc_lat_us(ph);
	}
	return 1;
}
