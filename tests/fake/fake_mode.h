/*
 * TEST ONLY: the behaviours a stand-in library is asked for, a comma
 * separated list of words in an environment variable (FAKECUDA of
 * tests/gdr/fakecuda.c, FAKENCCL of tests/ncclrun/fakenccl.c). The
 * stand-ins are built alone (cc -shared file.c, no -I): they include this
 * file by its path from their own folder.
 */
#ifndef FC_TEST_FAKE_MODE_H
#define FC_TEST_FAKE_MODE_H

#include <stdlib.h>
#include <string.h>

/* 1 when the list in $@var holds the word @what; else 0. */
static inline int fake_mode(const char *var, const char *what)
{
	const char *env = getenv(var);
	size_t n = strlen(what);

	for (const char *p = env; p && *p;) {
		if (!strncmp(p, what, n) && (p[n] == ',' || !p[n]))
			return 1;
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	return 0;
}

#endif
