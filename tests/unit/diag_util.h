/* Helpers of the diag/ unit tests (test_diag.c, test_diag_real.c,
 * test_diag_cards.c): a fixture folder or snapshots built here, diagnosed,
 * and the diagnosis entries looked up. Included after cmocka.h. */
#ifndef FC_TEST_DIAG_UTIL_H
#define FC_TEST_DIAG_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag/diag.h"

#define DATA "tests/data/diag/"

/* The text of @path (a real capture) with its first @from replaced by @to
 * (@from NULL: as it is); free() it. */
static inline char *capture_edited(const char *path, const char *from, const char *to)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 65536), *out = calloc(1, 65536), *at;
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, 65535, f);
	fclose(f);
	buf[n] = 0;
	at = from ? strstr(buf, from) : NULL;
	if (from)
		assert_non_null(at);
	if (at)
		snprintf(out, 65536, "%.*s%s%s", (int)(at - buf), buf, to, at + strlen(from));
	else
		snprintf(out, 65536, "%s", buf);
	free(buf);
	return out;
}

/* Diagnoses @s and releases it; returns the document. */
static inline json_t *run_set(struct diag_set *s)
{
	json_t *doc = json_object();

	diag_run(doc, s);
	diag_set_release(s);
	return doc;
}

/* Diagnoses a fixture folder; returns the document. */
static inline json_t *diagnose(const char *name)
{
	struct diag_set s;
	char dir[256];

	snprintf(dir, sizeof(dir), DATA "%s", name);
	assert_int_equal(diag_set_read(dir, &s), 0);
	return run_set(&s);
}

/* Diagnosis entry @i, or NULL. */
static inline const json_t *entry(const json_t *doc, size_t i)
{
	return json_array_get(json_object_get(doc, "diagnosis"), i);
}

static inline size_t ndiag(const json_t *doc)
{
	return json_array_size(json_object_get(doc, "diagnosis"));
}

/* The evidence of port @port. */
static inline const json_t *port_evidence(const json_t *doc, size_t port)
{
	return json_array_get(json_object_get(doc, "evidence"), port);
}

static inline const json_t *first(const json_t *doc)
{
	const json_t *d = entry(doc, 0);

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

/* No diagnosis whose @key holds @text. */
static inline void none_with(const json_t *doc, const char *key, const char *text)
{
	const json_t *e;
	size_t i;

	json_array_foreach(json_object_get(doc, "diagnosis"), i, e)
		if (strstr(str(e, key), text))
			fail_msg("'%s' in %s: %s (%s)", text, key, str(e, key), str(e, "evidence"));
}

/* No diagnosis whose part is a module, cable or port. */
static inline void no_part(const json_t *doc, const char *what)
{
	none_with(doc, "part", what);
}

static inline int has_note(const json_t *doc, int port, const char *text)
{
	const json_t *p = port_evidence(doc, (size_t)port), *n;
	size_t i;

	json_array_foreach(json_object_get(p, "notes"), i, n)
		if (strstr(json_string_value(n), text))
			return 1;
	return 0;
}

/* A snapshot of the files named in @kv (name, text, ..., NULL), with those
 * of @base (NULL: none) it does not name. */
static inline json_t *snap_on(const char *kv[], const char *base[])
{
	json_t *s = json_object();

	for (int i = 0; kv[i]; i += 2)
		json_object_set_new(s, kv[i], json_string(kv[i + 1]));
	for (int i = 0; base && base[i]; i += 2)
		if (!json_object_get(s, base[i]))
			json_object_set_new(s, base[i], json_string(base[i + 1]));
	return s;
}

static inline json_t *snap(const char *kv[])
{
	return snap_on(kv, NULL);
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

/* Diagnoses ports given as {node, dev, before kv, after kv}, each snapshot
 * with the files of @base (NULL: none) it does not name; @test may be NULL
 * (no test.json). */
struct side {
	const char *node, *dev;
	const char **before, **after;
};

static inline json_t *run_sides_on(json_t *test, const char *base[], const struct side *sd,
				   int n)
{
	struct diag_set s = { 0 };

	s.test = test;
	for (int i = 0; i < n; i++) {
		json_t *b = snap_on(sd[i].before, base), *a = snap_on(sd[i].after, base);

		diag_set_add(&s, sd[i].node, sd[i].dev, 1, b, a);
		json_decref(b);
		json_decref(a);
	}
	return run_set(&s);
}

static inline json_t *run_sides(json_t *test, const struct side *sd, int n)
{
	return run_sides_on(test, NULL, sd, n);
}

/* Diagnoses nodeA mlx5_0 port 1 alone, no test.json. */
static inline json_t *run_port(const char *before[], const char *after[])
{
	const struct side sd[] = { { "nodeA", "mlx5_0", before, after } };

	return run_sides(NULL, sd, 1);
}

/* Each folder of a matrix diagnosed, then the rack over every folder,
 * each port's peers on its rail where the rail set @rails (NULL: none,
 * by name) places them. */
static inline json_t *rack_on(const char *name, const char *const *folders, const json_t *rails,
			      json_t **sets_p)
{
	json_t *doc = json_object(), *sets = json_array();

	json_object_set_new(doc, "diagnosis", json_array());
	for (const char *const *f = folders; *f; f++) {
		char dir[256];
		struct diag_set s;
		json_t *one = json_object();

		snprintf(dir, sizeof(dir), DATA "%s/%s", name, *f);
		assert_int_equal(diag_set_read(dir, &s), 0);
		diag_run(one, &s);
		diag_set_release(&s);
		json_array_extend(json_object_get(doc, "diagnosis"), json_object_get(one, "diagnosis"));
		json_array_append_new(sets, one);
	}
	diag_peers(doc, sets, rails);
	*sets_p = sets;
	return doc;
}

/* rack_on by name. */
static inline json_t *rack(const char *name, const char *const *folders, json_t **sets_p)
{
	return rack_on(name, folders, NULL, sets_p);
}

#endif
