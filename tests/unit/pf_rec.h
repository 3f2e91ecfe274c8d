/* Helpers of the unit tests of preflight's judgement (test_preflight.c,
 * test_pf_fwstate.c, test_pf_rails.c): a recorded text read, a rack of
 * probes named nodeA, nodeB, ..., a node's probe and port, and the check run
 * with its findings joined. Included after cmocka.h. */
#ifndef FC_TEST_PF_REC_H
#define FC_TEST_PF_REC_H

#include <stdio.h>
#include <stdlib.h>

#include "checks/preflight/preflight.h"
#include "core/out.h"
#include "tests/unit/finding.h"
#include "tests/unit/recdoc.h"

/* The virtual rack's options: RoCE traffic class 106 (the lab's). */
static const struct pf_opts lab = { .tclass = 106 };

/* The text of @path, at most 64 KiB (caller frees). */
static inline char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 65536);
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, 65535, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/* Appends @probe (taken) to @nodes as the next node: nodeA, nodeB, ... */
static inline void rack_add(json_t *nodes, json_t *probe)
{
	char name[16];

	snprintf(name, sizeof(name), "node%c", 'A' + (int)json_array_size(nodes));
	json_array_append_new(nodes, json_pack("{s:s, s:o}", "node", name, "probe", probe));
}

/* A rack of @n copies of @probe; returns the nodes array. */
static inline json_t *rack(const json_t *probe, int n)
{
	json_t *nodes = json_array();

	for (int i = 0; i < n; i++)
		rack_add(nodes, json_deep_copy(probe));
	return nodes;
}

static inline json_t *probe_of(json_t *nodes, int i)
{
	return json_object_get(json_array_get(nodes, (size_t)i), "probe");
}

/* The first port of device @dev of node @i's probe. */
static inline json_t *port_of(json_t *nodes, int i, int dev)
{
	json_t *d = json_array_get(json_object_get(probe_of(nodes, i), "devices"), (size_t)dev);

	return json_array_get(json_object_get(d, "ports"), 0);
}

/* Runs the check; returns the findings joined by newlines (caller frees),
 * the document in *@doc_p unless @doc_p is NULL. */
static inline char *judge(json_t *nodes, const struct pf_opts *o, json_t **doc_p)
{
	json_t *doc = fc_doc_new();
	char *all;

	pf_check(doc, nodes, o);
	all = findings_joined(doc);
	if (doc_p)
		*doc_p = doc;
	else
		json_decref(doc);
	return all;
}

#endif
