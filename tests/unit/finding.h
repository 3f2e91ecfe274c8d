/* Lists of sentences looked up by a part of their text: a document's
 * "findings", "notes" or any array of strings (unit tests of checks that
 * write them: test_ctrcheck.c, the NCCL log tests through nccllog_util.h,
 * test_nccllog_env.c, test_pair.c, test_pairbw.c, test_pf_budget.c,
 * test_pf_roles.c, test_qos.c, test_qos_worker.c, test_topo.c). Included
 * after cmocka.h. */
#ifndef FC_TEST_FINDING_H
#define FC_TEST_FINDING_H

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* How many strings of @arr hold @part and, unless NULL, @also (an element
 * that is not a string holds nothing). */
static inline int strs_holding(const json_t *arr, const char *part, const char *also)
{
	size_t i;
	json_t *v;
	int n = 0;

	json_array_foreach(arr, i, v) {
		const char *s = json_string_value(v) ? json_string_value(v) : "";

		n += strstr(s, part) && (!also || strstr(s, also));
	}
	return n;
}

/* 1 when a string of @arr holds @part; else 0. */
static inline int has_text(const json_t *arr, const char *part)
{
	return strs_holding(arr, part, NULL) > 0;
}

/* How many findings of @doc hold @part. */
static inline int findings_with(const json_t *doc, const char *part)
{
	return strs_holding(json_object_get(doc, "findings"), part, NULL);
}

/* 1 when one finding of @doc holds @part and, unless NULL, @also; else 0. */
static inline int has_finding_both(const json_t *doc, const char *part, const char *also)
{
	return strs_holding(json_object_get(doc, "findings"), part, also) > 0;
}

/* 1 when one finding of @doc holds @part; else 0. */
static inline int has_finding_part(const json_t *doc, const char *part)
{
	return has_finding_both(doc, part, NULL);
}

/* The findings of @doc, each ended by a newline, whole (caller frees). */
static inline char *findings_joined(const json_t *doc)
{
	const json_t *list = json_object_get(doc, "findings");
	size_t i, len = 1;
	json_t *f;
	char *all;

	json_array_foreach(list, i, f)
		len += strlen(json_string_value(f) ? json_string_value(f) : "") + 1;
	all = calloc(1, len);
	assert_non_null(all);
	json_array_foreach(list, i, f) {
		strcat(all, json_string_value(f) ? json_string_value(f) : "");
		strcat(all, "\n");
	}
	return all;
}

#endif
