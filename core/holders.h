/*
 * Each fact once (issue 39 item 2): the same sentence said of many nodes or
 * ports is one line naming every one it holds for ("nodeA-nodeD: ..."),
 * not a line each. Text output only: the JSON keeps every entry.
 */
#ifndef FC_HOLDERS_H
#define FC_HOLDERS_H

#include <jansson.h>
#include <stddef.h>

/* Adds @holder to the group of @text in @groups (an array of
 * {"text": T, "holders": [H, ...]}, in the order each text was first
 * added; a holder is listed once). Returns 0, or -1 without memory. */
int fc_holders_add(json_t *groups, const char *text, const char *holder);
/* Names @holders (an array of strings) in @buf: "nodeA-nodeD" when they
 * are three or more names next to one another in @order (an array of
 * strings, the run's own order; NULL: none), else "nodeA, nodeC". */
void fc_holders_name(const json_t *holders, const json_t *order, char *buf, size_t len);

#endif
