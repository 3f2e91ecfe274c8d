/*
 * Recorded sysfs trees for unit tests: tests/topo/mksysfs.sh writes the
 * scenarios a test names (TREES_SCENARIOS, defined before this header) into
 * a temporary folder for the group, removed after it. Included by one test
 * file each (static definitions).
 */
#ifndef FC_TEST_SYSFS_TREES_H
#define FC_TEST_SYSFS_TREES_H

#include <stdio.h>
#include <stdlib.h>

#include "topo/pcitopo.h"

static char tmpdir[] = "/tmp/fabcheck-trees-XXXXXX";

static int trees_setup(void **state)
{
	char cmd[512];

	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(cmd, sizeof(cmd),
		 "for s in " TREES_SCENARIOS "; do tests/topo/mksysfs.sh %s/$s $s || exit 1; done",
		 tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static int trees_teardown(void **state)
{
	char cmd[512];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* The topology of scenario @sc. */
static struct topo *load(const char *sc)
{
	char root[256];
	struct topo *t = NULL;

	snprintf(root, sizeof(root), "%s/%s", tmpdir, sc);
	assert_int_equal(topo_load(root, &t), 0);
	/* NCCL's choices by the newest rules, not by the NCCL this host has */
	topo_nccl_set_version(t, TOPO_NCCL_NEWEST, "test");
	return t;
}

#endif
