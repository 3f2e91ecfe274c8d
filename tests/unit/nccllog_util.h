/* Helpers of the NCCL log parser's unit tests (test_nccllog.c,
 * test_nccllog_facts.c): a log fed to the parser and the report's entries
 * looked up. Included after cmocka.h. */
#ifndef FC_TEST_NCCLLOG_UTIL_H
#define FC_TEST_NCCLLOG_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/nccl/log/nccllog.h"
#include "tests/unit/finding.h"

static inline char *slurp(const char *path, size_t *len_p)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		if (buf) {
			buf[n] = '\0';
			*len_p = (size_t)n;
		}
	}
	fclose(f);
	return buf;
}

/* Parses @text fed in chunks of @chunk bytes (0: all at once) into a report. */
static inline json_t *report_text(const char *text, size_t len, size_t chunk,
			   const struct ncl_expect *exp)
{
	struct ncl_log *lg = ncl_log_new();
	json_t *doc;

	assert_non_null(lg);
	if (!chunk)
		chunk = len ? len : 1;
	for (size_t off = 0; off < len; off += chunk)
		ncl_log_feed(lg, text + off, len - off < chunk ? len - off : chunk);
	ncl_log_end_file(lg, "test");
	doc = ncl_log_report(lg, exp);
	assert_non_null(doc);
	ncl_log_free(lg);
	return doc;
}

static inline json_t *report_file(const char *path, const struct ncl_expect *exp)
{
	size_t len = 0;
	char *text = slurp(path, &len);
	json_t *doc;

	if (!text)
		fail_msg("cannot read %s", path);
	doc = report_text(text, len, 0, exp);
	free(text);
	return doc;
}

static inline const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static inline const json_t *chan(const json_t *doc, int ch, int from, int to, const char *dir)
{
	size_t i;
	json_t *c;

	json_array_foreach(json_object_get(doc, "channels"), i, c)
		if (json_integer_value(json_object_get(c, "channel")) == ch &&
		    json_integer_value(json_object_get(c, "from_rank")) == from &&
		    json_integer_value(json_object_get(c, "to_rank")) == to &&
		    (!dir ? json_is_null(json_object_get(c, "direction")) :
			    !strcmp(str(c, "direction"), dir)))
			return c;
	return NULL;
}

/* The entry of rank @r in the list @key ("ranks", "gpu_rails"). */
static inline const json_t *by_rank(const json_t *doc, const char *key, int r)
{
	size_t i;
	json_t *o;

	json_array_foreach(json_object_get(doc, key), i, o)
		if (json_integer_value(json_object_get(o, "rank")) == r)
			return o;
	return NULL;
}

static inline json_t *fixture(const char *name, const struct ncl_expect *exp)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/fixtures/nccl-logs/%s", getenv("FABCHECK_SHARED"), name);
	return report_file(path, exp);
}

static inline json_t *report_str(const char *text)
{
	return report_text(text, strlen(text), 0, NULL);
}

#endif
