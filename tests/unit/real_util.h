/* Helpers of the real-capture tests (test_real.c, test_real_host.c): each
 * capture of tests/real/<kind> against its <name>.expect.json, the facts
 * right counted per kind, each miss printed. Included after cmocka.h. */
#ifndef FC_TEST_REAL_UTIL_H
#define FC_TEST_REAL_UTIL_H

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REAL_DIR "tests/real"

struct tally {
	const char *kind;
	int files, right, total;
};

/* One fact: counted, and printed when wrong. */
static inline void fact(struct tally *t, const char *file, const char *what, const char *want,
		 const char *got)
{
	t->total++;
	if (got && !strcmp(want, got)) {
		t->right++;
		return;
	}
	print_message("  miss %s/%s: %s: want '%s', got '%s'\n", t->kind, file, what, want,
		      got ? got : "(nothing)");
}

static inline const char *jstr(const json_t *v, char *buf, size_t len)
{
	if (json_is_string(v))
		return json_string_value(v);
	if (json_is_integer(v)) {
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
		return buf;
	}
	if (json_is_boolean(v))
		return json_is_true(v) ? "true" : "false";
	if (json_is_null(v))
		return "null";
	return NULL;
}

/* Every <name>.<ext> of tests/real/<kind> with its expectation, in name order. */
static inline void walk(struct tally *t, const char *ext,
		 void (*one)(struct tally *t, const char *name, const char *path, const json_t *want))
{
	char dir[256], path[1024];
	struct dirent **ents = NULL;
	size_t el = strlen(ext);
	int n;

	snprintf(dir, sizeof(dir), "%s/%s", REAL_DIR, t->kind);
	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0)
		fail_msg("cannot read %s: run from the repository root (tests/run-unit.sh)", dir);
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		size_t nl = strlen(name);
		json_error_t jerr;
		json_t *want;

		if (nl > el && !strcmp(name + nl - el, ext) && !strstr(name, ".expect.")) {
			snprintf(path, sizeof(path), "%s/%.*s.expect.json", dir, (int)(nl - el), name);
			want = json_load_file(path, 0, &jerr);
			if (!want)
				fail_msg("%s: no readable expectation (%s)", path, jerr.text);
			snprintf(path, sizeof(path), "%s/%s", dir, name);
			one(t, name, path, want);
			json_decref(want);
			t->files++;
		}
		free(ents[i]);
	}
	free(ents);
}

static inline void report(const struct tally *t, int floor)
{
	print_message("real %s: %d captures, %d of %d facts right\n", t->kind, t->files, t->right,
		      t->total);
	assert_true(t->files > 0);
	assert_true(t->right >= floor);
}

/* A figure as "%.6g", or "null" when the parser has none (@none). */
static inline const char *num(double v, int none, char *buf, size_t len)
{
	if (none)
		return "null";
	snprintf(buf, len, "%.6g", v);
	return buf;
}

static inline const char *want_num(const json_t *v, char *buf, size_t len)
{
	if (json_is_number(v))
		return num(json_number_value(v), 0, buf, len);
	return json_is_null(v) ? "null" : NULL;
}

#endif
