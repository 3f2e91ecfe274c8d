/* A document's findings looked up by a part of their text (unit tests of
 * checks that write "findings": test_ctrcheck.c, test_pair.c,
 * test_pf_roles.c, test_qos.c, test_topo.c). Included after cmocka.h. */
#ifndef FC_TEST_FINDING_H
#define FC_TEST_FINDING_H

#include <jansson.h>
#include <string.h>

/* 1 when one finding of @doc holds @part and, unless NULL, @also; else 0. */
static inline int has_finding_both(const json_t *doc, const char *part, const char *also)
{
	size_t i;
	json_t *f;

	json_array_foreach(json_object_get(doc, "findings"), i, f) {
		const char *s = json_string_value(f) ? json_string_value(f) : "";

		if (strstr(s, part) && (!also || strstr(s, also)))
			return 1;
	}
	return 0;
}

/* 1 when one finding of @doc holds @part; else 0. */
static inline int has_finding_part(const json_t *doc, const char *part)
{
	return has_finding_both(doc, part, NULL);
}

#endif
