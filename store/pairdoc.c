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
