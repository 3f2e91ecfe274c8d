/* Helpers of the unit tests of messages with figures (issue 39 item 5:
 * test_msgfig_checks.c, test_msgfig_gdr.c). Included after cmocka.h. */
#ifndef FC_TEST_MSGFIG_H
#define FC_TEST_MSGFIG_H

#include <jansson.h>
#include <string.h>

/* 1 when @doc has the finding @want word for word; else 0, and each
 * finding printed (the sentence the code wrote instead). */
static inline int has_finding(const json_t *doc, const char *want)
{
	size_t i;
	json_t *f;

	json_array_foreach(json_object_get(doc, "findings"), i, f)
		if (!strcmp(json_string_value(f), want))
			return 1;
	json_array_foreach(json_object_get(doc, "findings"), i, f)
		print_message("  finding: %s\n", json_string_value(f));
	return 0;
}

#endif
