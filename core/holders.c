/* One line per sentence, naming whom it holds for (see holders.h). */
#include "core/holders.h"
#include "core/out.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *fc_holders_group(json_t *groups, const char *text, const char *holder)
{
	json_t *g = NULL, *h, *list;
	size_t i;

	json_array_foreach(groups, i, g)
		if (!strcmp(json_string_value(json_object_get(g, "text")) ?: "", text))
			break;
	if (!g || i == json_array_size(groups)) {
		g = json_pack("{s:s, s:[]}", "text", text, "holders");
		if (!g || json_array_append_new(groups, g))
			return NULL;
	}
	list = json_object_get(g, "holders");
	json_array_foreach(list, i, h)
		if (!strcmp(json_string_value(h) ?: "", holder))
			return g;
	return json_array_append_new(list, json_string(holder)) ? NULL : g;
}

int fc_holders_add(json_t *groups, const char *text, const char *holder)
{
	return fc_holders_group(groups, text, holder) ? 0 : -1;
}

/* The place of @name in @order, or -1. */
static long order_of(const json_t *order, const char *name)
{
	const json_t *v;
	size_t i;

	json_array_foreach(order, i, v)
		if (!strcmp(json_string_value(v) ?: "", name))
			return (long)i;
	return -1;
}

/* 1 when @holders are three or more names in a row of @order. */
static int in_a_row(const json_t *holders, const json_t *order)
{
	size_t n = json_array_size(holders);
	long first;

	if (n < 3 || !order || (first = order_of(order, json_string_value(json_array_get(holders, 0)) ?: "")) < 0)
		return 0;
	for (size_t i = 1; i < n; i++)
		if (order_of(order, json_string_value(json_array_get(holders, i)) ?: "") != first + (long)i)
			return 0;
	return 1;
}

/* @holders comma-separated into @buf, each without its first @head bytes
 * (the words they all begin with, said once before them) and cut at its
 * first space where @rest is given (the words they all end with, said
 * once after them); returns the bytes written. */
static size_t list_names(const json_t *holders, size_t head, const char *rest, char *buf,
			 size_t len)
{
	size_t n = json_array_size(holders), at = 0;

	if (head)
		at = (size_t)snprintf(buf, len, "%.*s", (int)head,
				      json_string_value(json_array_get(holders, 0)));
	for (size_t i = 0; i < n && at < len; i++) {
		const char *h = json_string_value(json_array_get(holders, i)) ?: "?";
		int w;

		if (!*h)
			continue;
		h += head;
		w = snprintf(buf + at, len - at, "%s%.*s", at > head ? ", " : "",
			     rest ? (int)(strchr(h, ' ') - h) : (int)strlen(h), h);
		if (w < 0)
			break;
		at += (size_t)w;
	}
	if (rest && at < len)
		at += (size_t)snprintf(buf + at, len - at, "%s", rest);
	return at;
}

void fc_holders_name(const json_t *holders, const json_t *order, char *buf, size_t len)
{
	size_t n = json_array_size(holders);

	if (!len)
		return;
	buf[0] = '\0';
	if (in_a_row(holders, order)) {
		snprintf(buf, len, "%s-%s", json_string_value(json_array_get(holders, 0)),
			 json_string_value(json_array_get(holders, n - 1)));
		return;
	}
	list_names(holders, 0, NULL, buf, len);
}

size_t fc_holders_lead(const char *t, int words)
{
	const char *c = strstr(t, ": ");
	size_t n = c ? (size_t)(c - t) : 0;
	int w = 1;

	if (!n || n > 64 || t[0] == ' ' || t[n - 1] == ' ')
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (strchr("()[]{}", t[i]))
			return 0;
		if (t[i] == ' ' && ++w > words)
			return 0;
	}
	return n;
}

json_t *fc_holders_by_lead(const json_t *list, int words)
{
	json_t *groups = json_array();
	const json_t *v;
	size_t i;

	json_array_foreach(list, i, v) {
		const char *s = json_string_value(v) ?: "";
		size_t ln = fc_holders_lead(s, words);
		char *lead = ln ? strndup(s, ln) : NULL;
		int err = ln && lead ? fc_holders_add(groups, s + ln + 2, lead) :
				       fc_holders_add(groups, s, "");

		free(lead);
		if (err || !groups) {
			json_decref(groups);
			return NULL;
		}
	}
	return groups;
}

json_t *fc_holders_doc_nodes(const json_t *doc)
{
	json_t *names = json_array();
	const json_t *n;
	size_t i;

	json_array_foreach(json_object_get(doc, "nodes"), i, n) {
		const char *s = json_is_string(n) ? json_string_value(n) :
						    json_string_value(json_object_get(n, "node"));

		if (s && !fc_jhas_str(names, s))
			json_array_append_new(names, json_string(s));
	}
	return names;
}

/* 1 when @holders are every name of @nodes (two or more). */
static int every_node(const json_t *holders, const json_t *nodes)
{
	const json_t *h;
	size_t i, n = json_array_size(nodes);

	if (n < 2 || json_array_size(holders) != n)
		return 0;
	json_array_foreach(holders, i, h)
		if (!fc_jhas_str(nodes, json_string_value(h) ?: ""))
			return 0;
	return 1;
}

/* The words after the first of every holder when they are the same (" rxe0
 * port 1"), else NULL; each holder's first word is then what differs. */
static const char *common_rest(const json_t *holders)
{
	const char *first = json_string_value(json_array_get(holders, 0)) ?: "",
		   *rest = strchr(first, ' ');
	const json_t *h;
	size_t i;

	if (!rest || json_array_size(holders) < 2)
		return NULL;
	json_array_foreach(holders, i, h) {
		const char *r = strchr(json_string_value(h) ?: "", ' ');

		if (!r || strcmp(r, rest))
			return NULL;
	}
	return rest;
}

/* The words every holder begins with, all of them but its last ("link
 * nodeA-nodeB on " of "link nodeA-nodeB on rxe0" and "... on rxe1"): their
 * bytes with the space after them, 0 where they differ. */
static size_t common_head(const json_t *holders)
{
	const char *first = json_string_value(json_array_get(holders, 0)) ?: "",
		   *last = strrchr(first, ' ');
	size_t head = last ? (size_t)(last - first) + 1 : 0;
	const json_t *h;
	size_t i;

	if (!head || json_array_size(holders) < 2)
		return 0;
	json_array_foreach(holders, i, h) {
		const char *s = json_string_value(h) ?: "", *l = strrchr(s, ' ');

		if (!l || (size_t)(l - s) + 1 != head || strncmp(s, first, head))
			return 0;
	}
	return head;
}

void fc_holders_lead_name(const json_t *holders, const json_t *nodes, char *buf, size_t len,
			  size_t max)
{
	size_t n = json_array_size(holders), head;
	const char *rest;

	if (!len)
		return;
	buf[0] = '\0';
	if (every_node(holders, nodes)) {
		if (n == 2)
			snprintf(buf, len, "both nodes");
		else
			snprintf(buf, len, "all %zu nodes", n);
		return;
	}
	rest = common_rest(holders);
	head = rest ? 0 : common_head(holders);
	if (list_names(holders, head, rest, buf, len) > max && n > 1)
		snprintf(buf, len, "%s and %zu other%s", json_string_value(json_array_get(holders, 0)) ?: "?",
			 n - 1, n > 2 ? "s" : "");
}

char *fc_holders_line(const json_t *g, const json_t *nodes, size_t max)
{
	const char *text = fc_jstr(g, "text", "");
	char who[1024], *line = NULL;

	fc_holders_lead_name(json_object_get(g, "holders"), nodes, who, sizeof(who), max);
	if (asprintf(&line, "%s%s%s", who, *who ? ": " : "", text) < 0)
		return NULL;
	return line;
}
