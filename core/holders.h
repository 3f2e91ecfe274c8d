/*
 * Each fact once (issue 39 item 2): the same sentence said of many nodes or
 * ports is one line naming every one it holds for ("nodeA-nodeD: ...",
 * "all 4 nodes: ..."), not a line each: preflight's skipped reasons, the
 * findings of every command, the summary under the verdict, diagnose's
 * evidence notes and its "not determined", the suspects' parts. Text
 * output only: the JSON keeps every entry.
 */
#ifndef FC_HOLDERS_H
#define FC_HOLDERS_H

#include <jansson.h>
#include <stddef.h>

/* Adds @holder to the group of @text in @groups (an array of
 * {"text": T, "holders": [H, ...]}, in the order each text was first
 * added; a holder is listed once). Returns 0, or -1 without memory. */
int fc_holders_add(json_t *groups, const char *text, const char *holder);
/* fc_holders_add, returning the group of @text (held by @groups), or NULL
 * without memory: a caller keeps what the text stands for in it. */
json_t *fc_holders_group(json_t *groups, const char *text, const char *holder);
/* Names @holders (an array of strings) in @buf: "nodeA-nodeD" when they
 * are three or more names next to one another in @order (an array of
 * strings, the run's own order; NULL: none), else "nodeA, nodeC". */
void fc_holders_name(const json_t *holders, const json_t *order, char *buf, size_t len);

/* The name a line of a list begins with ("nodeA: X", "nodeA rxe0 port 1:
 * X", "nodeA/rxe0-nodeB/rxe0: X"): the text before its first ": ", of at
 * most @words words, 64 bytes and no bracket (not "rail 1 (rxe1) alone",
 * a phase); its length, 0 when it has none. */
size_t fc_holders_lead(const char *t, int words);
/* The strings of @list grouped by what they say after their leading name
 * (fc_holders_lead): groups as fc_holders_add makes them, each text with
 * the names that say it; a string with no leading name is its own text,
 * held by "". Every list that says one fact of many nodes or ports once
 * (the findings, the summary under the verdict, preflight's skipped
 * reasons) groups through it. NULL without memory. */
json_t *fc_holders_by_lead(const json_t *list, int words);
/* The lead that names @holders (a group's): "" for the holder "" alone;
 * "all N nodes" ("both nodes") where they are every name of @nodes (an
 * array of strings; NULL: none); names with the same words after their
 * first one ("nodeA rxe0", "nodeB rxe0") as "nodeA, nodeB rxe0", those with
 * the same words before their last one as "link nodeA-nodeB on rxe0, rxe1"; else
 * each, comma-separated; where that passes @max bytes, the first and a
 * count ("nodeA and 5 others", the rest in --json). */
void fc_holders_lead_name(const json_t *holders, const json_t *nodes, char *buf, size_t len,
			  size_t max);
/* Group @g's line: "LEAD: TEXT" (fc_holders_lead_name), TEXT alone where
 * it has no lead; a new string, NULL without memory. */
char *fc_holders_line(const json_t *g, const json_t *nodes, size_t max);
/* The node names of @doc's "nodes" (strings, or objects with "node"), a
 * new array; empty where it lists none. */
json_t *fc_holders_doc_nodes(const json_t *doc);

#endif
