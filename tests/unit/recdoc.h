/* A recorded JSON document of the unit tests (tests/data/...) read whole;
 * the test fails naming the file and jansson's reason when it cannot be
 * (mxl_rec.h, rail_rec.h, pf_rec.h). Included after cmocka.h. */
#ifndef FC_TEST_RECDOC_H
#define FC_TEST_RECDOC_H

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>

/* The document at the path printf's @fmt makes. */
static inline json_t *rec_doc(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline json_t *rec_doc(const char *fmt, ...)
{
	char path[512];
	json_error_t err;
	va_list ap;
	json_t *d;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	d = json_load_file(path, 0, &err);
	if (!d)
		fail_msg("%s: %s", path, err.text);
	return d;
}

#endif
