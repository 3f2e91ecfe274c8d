/*
 * The topo report of a loaded tree as `fabcheck topo --json` builds it, and
 * a recommendation's value, for the tests of topo/ (static definitions;
 * included by one test file each, after cmocka and sysfs_trees.h).
 */
#ifndef FC_TEST_TOPO_DOC_H
#define FC_TEST_TOPO_DOC_H

#include <stdlib.h>
#include <string.h>

#include "core/out.h"
#include "topo/topo_report.h"

static json_t *report(struct topo *t)
{
	struct topo_view *v = calloc(1, sizeof(*v));
	json_t *doc = fc_doc_new();

	assert_non_null(v);
	topo_view_from_sysfs(v, t, NULL, doc);
	topo_view_report(v, doc);
	topo_sysfs_report(t, v, doc);
	free(v);
	return doc;
}

/* The value recommended for @env, or NULL. */
static const char *rec(const json_t *doc, const char *env)
{
	size_t i;
	json_t *r;

	json_array_foreach(json_object_get(doc, "recommendations"), i, r)
		if (!strcmp(fc_jstr(r, "env", ""), env))
			return fc_jstr(r, "value", NULL);
	return NULL;
}

#endif
