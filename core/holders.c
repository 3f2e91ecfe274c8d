/* One line per sentence, naming whom it holds for (see holders.h). */
#include "core/holders.h"

#include <stdio.h>
#include <string.h>

int fc_holders_add(json_t *groups, const char *text, const char *holder)
{
	json_t *g = NULL, *h, *list;
	size_t i;

	json_array_foreach(groups, i, g)
		if (!strcmp(json_string_value(json_object_get(g, "text")) ?: "", text))
			break;
	if (!g || i == json_array_size(groups)) {
		g = json_pack("{s:s, s:[]}", "text", text, "holders");
		if (!g || json_array_append_new(groups, g))
			return -1;
	}
	list = json_object_get(g, "holders");
	json_array_foreach(list, i, h)
		if (!strcmp(json_string_value(h) ?: "", holder))
			return 0;
	return json_array_append_new(list, json_string(holder));
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

void fc_holders_name(const json_t *holders, const json_t *order, char *buf, size_t len)
{
	size_t n = json_array_size(holders), at = 0;

	if (!len)
		return;
	buf[0] = '\0';
	if (in_a_row(holders, order)) {
		snprintf(buf, len, "%s-%s", json_string_value(json_array_get(holders, 0)),
			 json_string_value(json_array_get(holders, n - 1)));
		return;
	}
	for (size_t i = 0; i < n && at < len; i++) {
		int w = snprintf(buf + at, len - at, "%s%s", i ? ", " : "",
				 json_string_value(json_array_get(holders, i)) ?: "?");

		if (w < 0)
			return;
		at += (size_t)w;
	}
}
