/* A test's scratch folder under /tmp and its removal (unit tests that
 * write files: test_safefile.c, test_msgfig_core.c). Included after
 * cmocka.h. */
#ifndef FC_TEST_TMPTREE_H
#define FC_TEST_TMPTREE_H

#include <stdio.h>
#include <stdlib.h>

/* A new empty folder, its path in a static buffer (the next call reuses it). */
static inline char *tmpdir(void)
{
	static char dir[64];

	snprintf(dir, sizeof(dir), "/tmp/fc-test-XXXXXX");
	assert_non_null(mkdtemp(dir));
	return dir;
}

/* Removes @dir and all it holds. */
static inline void rmtree(const char *dir)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

#endif
