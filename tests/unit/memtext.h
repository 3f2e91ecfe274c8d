/* What a printer writes, as a string: the unit tests that read a command's
 * text (test_dgroup.c, test_msgfig.c). Included after cmocka.h. */
#ifndef FC_TEST_MEMTEXT_H
#define FC_TEST_MEMTEXT_H

#include <jansson.h>
#include <stdio.h>

/* @fn's text of @doc; the caller frees it. */
static inline char *render(void (*fn)(FILE *, const json_t *), const json_t *doc)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	assert_non_null(m);
	fn(m, doc);
	assert_int_equal(fclose(m), 0);
	return text;
}

#endif
