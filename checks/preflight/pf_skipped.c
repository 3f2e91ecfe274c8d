/*
 * Preflight's "skipped:" block (issue 39 items 2 and 3): a reason that
 * holds for many nodes or ports is one line naming them ("nodeA-nodeD:
 * PCIe and topology: ...", "eth0, eth2 of nodeA-nodeD: trust and PFC:
 * ..."), fitted to the terminal. The JSON keeps every entry as it is.
 */
#include "checks/preflight/preflight.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/holders.h"
#include "core/out.h"
#include "core/summary.h"
#include "core/util.h"

/* The lines a skipped reason takes at most; the rest is in --json. */
#define PF_SKIP_LINES 2

/* Each entry "NODE: TEXT" (pf_node.c, pf_module.c) under TEXT, with the
 * nodes it holds for; an entry of another form under itself. */
static json_t *by_text(const json_t *skipped)
{
	return fc_holders_by_lead(skipped, 1) ?: json_array();
}

/* @head's last words that @other ends with too, leaving at least one word
 * before them in each: their length, 0 when none. */
static size_t common_tail(const char *head, size_t hl, const char *other, size_t ol)
{
	size_t best = 0;

	for (size_t k = 1; k < hl && k < ol; k++) {
		if (head[hl - k] != other[ol - k])
			break;
		if (head[hl - k - 1] == ' ' && other[ol - k - 1] == ' ')
			best = k;
	}
	return best;
}

/* The part of group @g's text before its first ": ", its length. */
static size_t head_len(const json_t *g)
{
	const char *t = json_string_value(json_object_get(g, "text")) ?: "", *c = strstr(t, ": ");

	return c ? (size_t)(c - t) : 0;
}

/* Prints group @i with the later groups of @groups that hold for the same
 * nodes, for the same reason, of the same check on another object ("eth0
 * trust and PFC", "eth2 trust and PFC"), marking those in @used. */
static void put_group(FILE *f, const json_t *groups, size_t i, char *used, const json_t *order)
{
	const json_t *g = json_array_get(groups, i);
	const char *t = json_string_value(json_object_get(g, "text")), *why;
	size_t hl = head_len(g), tail = 0, at;
	char who[512], objs[1024], line[2048];

	fc_holders_name(json_object_get(g, "holders"), order, who, sizeof(who));
	why = t + hl;
	at = (size_t)snprintf(objs, sizeof(objs), "%.*s", (int)hl, t);
	for (size_t j = i + 1; hl && j < json_array_size(groups); j++) {
		const json_t *o = json_array_get(groups, j);
		const char *ot = json_string_value(json_object_get(o, "text"));
		size_t ol = head_len(o), k;

		if (used[j] || !ol || strcmp(ot + ol, why) ||
		    !json_equal(json_object_get(o, "holders"), json_object_get(g, "holders")))
			continue;
		k = common_tail(t, hl, ot, ol);
		if (!k || (tail && (k < tail || strncmp(t + hl - tail, ot + ol - tail, tail))))
			continue;
		if (!tail) { /* the first partner fixes the check's words */
			tail = k;
			at = (size_t)snprintf(objs, sizeof(objs), "%.*s", (int)(hl - tail - 1), t);
		}
		if (at < sizeof(objs))
			at += (size_t)snprintf(objs + at, sizeof(objs) - at, ", %.*s",
					       (int)(ol - tail - 1), ot);
		used[j] = 1;
	}
	if (tail)
		snprintf(line, sizeof(line), "%s of %s: %.*s%s", objs, who, (int)tail, t + hl - tail, why);
	else
		snprintf(line, sizeof(line), "%s%s%s", who, *who ? ": " : "", t);
	fc_put_wrapped(f, "  ", 4, line, 0, PF_SKIP_LINES);
}

void pf_render_skipped(FILE *f, const json_t *doc)
{
	json_t *groups = by_text(json_object_get(doc, "skipped")), *order = json_array(), *n;
	size_t i, ng = json_array_size(groups);
	char *used = calloc(ng + 1, 1);

	json_array_foreach(json_object_get(doc, "nodes"), i, n)
		json_array_append_new(order, json_string(fc_jstr(n, "node", "")));
	if (ng)
		fprintf(f, "\nskipped:\n");
	for (i = 0; i < ng && used; i++)
		if (!used[i])
			put_group(f, groups, i, used, order);
	if (ng && !used) /* no memory to group them: each entry as it is */
		json_array_foreach(json_object_get(doc, "skipped"), i, n)
			fprintf(f, "  %s\n", json_string_value(n));
	free(used);
	json_decref(order);
	json_decref(groups);
}
