/* Helpers of the diag/ unit tests (test_diag.c, test_diag_real.c): a
 * fixture folder or snapshots built here, diagnosed, and the diagnosis
 * entries looked up. Included after cmocka.h. */
#ifndef FC_TEST_DIAG_UTIL_H
#define FC_TEST_DIAG_UTIL_H

#include "diag/diag.h"

#define DATA "tests/data/diag/"

/* Diagnoses a fixture folder; returns the document. */
static inline json_t *diagnose(const char *name)
{
	struct diag_set s;
	char dir[256];
	json_t *doc = json_object();

	snprintf(dir, sizeof(dir), DATA "%s", name);
	assert_int_equal(diag_set_read(dir, &s), 0);
	diag_run(doc, &s);
	diag_set_release(&s);
	return doc;
}

static inline const json_t *first(const json_t *doc)
{
	const json_t *d = json_array_get(json_object_get(doc, "diagnosis"), 0);

	if (!d) {
		json_dumpf(doc, stderr, JSON_INDENT(1));
		fail_msg("no diagnosis");
	}
	return d;
}

static inline const char *str(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

/* The diagnosis entry of rule @rule, or NULL. */
static inline const json_t *by_rule(const json_t *doc, const char *rule)
{
	const json_t *e;
	size_t i;

	json_array_foreach(json_object_get(doc, "diagnosis"), i, e)
		if (!strcmp(str(e, "rule"), rule))
			return e;
	return NULL;
}

/* No diagnosis whose part is a module, cable or port. */
static inline void no_part(const json_t *doc, const char *what)
{
	const json_t *e;
	size_t i;

	json_array_foreach(json_object_get(doc, "diagnosis"), i, e)
		if (strstr(str(e, "part"), what))
			fail_msg("'%s' named: %s (%s)", what, str(e, "part"), str(e, "evidence"));
}

static inline int has_note(const json_t *doc, int port, const char *text)
{
	const json_t *p = json_array_get(json_object_get(doc, "evidence"), (size_t)port), *n;
	size_t i;

	json_array_foreach(json_object_get(p, "notes"), i, n)
		if (strstr(json_string_value(n), text))
			return 1;
	return 0;
}

static inline json_t *snap(const char *kv[])
{
	json_t *s = json_object();

	for (int i = 0; kv[i]; i += 2)
		json_object_set_new(s, kv[i], json_string(kv[i + 1]));
	return s;
}

static inline json_t *pair_doc(int mtu_a, int mtu_b, double floor, double gbps)
{
	return json_pack("{s:s, s:{s:s, s:s, s:i, s:i}, s:{s:s, s:s, s:i, s:i}, s:{s:f},"
			 " s:[{s:s, s:s, s:i, s:f}]}",
			 "verdict", "warn", "a", "node", "nodeA", "device", "rxe0", "port", 1, "mtu",
			 mtu_a, "b", "node", "nodeB", "device", "rxe0", "port", 1, "mtu", mtu_b,
			 "thresholds", "min_gbps", floor, "results", "test", "write", "metric", "bw",
			 "size_bytes", 65536, "gbps", gbps);
}

/* Diagnoses ports given as {node, dev, before kv, after kv}; @test may be
 * NULL (no test.json). */
struct side {
	const char *node, *dev;
	const char **before, **after;
};

static inline json_t *run_sides(json_t *test, const struct side *sd, int n)
{
	json_t *doc = json_object();
	struct diag_set s = { 0 };

	s.test = test;
	for (int i = 0; i < n; i++) {
		json_t *b = snap(sd[i].before), *a = snap(sd[i].after);

		diag_set_add(&s, sd[i].node, sd[i].dev, 1, b, a);
		json_decref(b);
		json_decref(a);
	}
	diag_run(doc, &s);
	diag_set_release(&s);
	return doc;
}

#endif
