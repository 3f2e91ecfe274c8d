/* The headline figures of a `fabcheck pair --json` document (pure). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/names.h"
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

const char *fc_pair_doc_fault_dev(const json_t *doc, int *port_p)
{
	const json_t *o = json_object_get(doc, "node_fault_port");
	const char *dev = fc_jstr(o, "device", NULL);
	json_int_t port = json_integer_value(json_object_get(o, "port"));

	*port_p = 0;
	if (!json_is_string(json_object_get(doc, "node_fault")) || !dev ||
	    !fc_name_ok(FC_NAME_DEV, dev))
		return NULL;
	*port_p = port >= 1 && port <= 255 ? (int)port : 0;
	return dev;
}

void fc_fault_dev_note(json_t *seen, const char *node, const char *dev, int port)
{
	const json_t *was = json_object_get(seen, node);

	if (!was && dev)
		json_object_set_new(seen, node, json_pack("{s:s, s:i}", "device", dev, "port", port));
	else if (!was || !dev || strcmp(fc_jstr(was, "device", ""), dev) ||
		 fc_jnum(was, "port", -1) != port)
		json_object_set_new(seen, node, json_null()); /* none, or they disagree */
}

const char *fc_fault_dev_of(const json_t *seen, const char *node, int *port_p)
{
	const json_t *o = json_object_get(seen, node);

	*port_p = (int)fc_jnum(o, "port", 0);
	return fc_jstr(o, "device", NULL);
}

const char *fc_fault_dev_words(char *buf, size_t len, const char *dev, int port)
{
	if (!dev)
		buf[0] = 0;
	else if (port > 0)
		snprintf(buf, len, " on %s port %d", dev, port);
	else
		snprintf(buf, len, " on %s", dev);
	return buf;
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
