/* Diagnosis entries that say the same, as one problem (see dgroup.h). */
#include "core/dgroup.h"
#include "core/out.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The keys two entries of one problem share: how sure, what, what next. */
static int same_problem(const json_t *x, const json_t *y)
{
	static const char *const keys[] = { "confidence", "part", "next" };

	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		if (strcmp(fc_jstr(x, keys[k], ""), fc_jstr(y, keys[k], "")))
			return 0;
	return 1;
}

int fc_dgroup_has(const json_t *list, const struct fc_dgroup *g, const json_t *e)
{
	return same_problem(json_array_get(list, g->first), e);
}

static void add(char *buf, size_t len, const char *s)
{
	size_t n = strlen(buf);

	snprintf(buf + n, len - n, "%s", s);
}

/* Appends @v to the "/"-list @buf unless it is there already. */
static void add_alt(char *buf, size_t len, const char *v, size_t vlen)
{
	char one[256];
	const char *p = buf;

	snprintf(one, sizeof(one), "%.*s", (int)(vlen < 255 ? vlen : 255), v);
	while (*buf && p) {
		size_t k = strcspn(p, "/");

		if (k == strlen(one) && !strncmp(p, one, k))
			return;
		p = p[k] ? p + k + 1 : NULL;
	}
	if (*buf)
		add(buf, len, "/");
	add(buf, len, one);
}

/* One side of "NODE DEV[ more]": its node and the rest. */
static void side(const char *s, size_t len, size_t *node_len, const char **dev, size_t *dev_len)
{
	const char *sp = memchr(s, ' ', len);

	*node_len = sp ? (size_t)(sp - s) : len;
	*dev = sp ? sp + 1 : s + len;
	*dev_len = len - (size_t)(*dev - s);
}

/* @rest's two sides around @arrow (one side, the whole, without one);
 * 0 when @arrow is given and @rest has none. */
static int split(const char *rest, const char *arrow, const char *part[2], size_t plen[2])
{
	const char *mid = arrow ? strstr(rest, arrow) : NULL;

	part[0] = rest;
	plen[0] = mid ? (size_t)(mid - rest) : strlen(rest);
	part[1] = mid ? mid + strlen(arrow) : "";
	plen[1] = strlen(part[1]);
	return !arrow || mid;
}

/*
 * The places @rests name, merged: "nodeB rxe0 -> nodeA rxe0" and "nodeB
 * rxe1 -> nodeA rxe1" are "nodeB rxe0/rxe1 -> nodeA rxe0/rxe1" when every
 * one has the same arrow and the same node on each side (a swapped
 * direction is not merged); otherwise each distinct one, "; " between.
 */
static void merge_rests(const char *const *rests, int n, char *out, size_t len)
{
	static const char *const arrows[] = { " <-> ", " -> " };
	const char *arrow = NULL, *first[2], *part[2];
	char devs[2][256] = { "", "" };
	size_t flen[2], plen[2], nl[2] = { 0, 0 };
	int ok = 1, sides;

	for (int a = 0; a < 2 && !arrow; a++)
		if (strstr(rests[0], arrows[a]))
			arrow = arrows[a];
	sides = arrow ? 2 : 1;
	split(rests[0], arrow, first, flen);
	for (int i = 0; i < n && ok; i++) {
		ok = split(rests[i], arrow, part, plen);
		for (int k = 0; k < sides && ok; k++) {
			const char *dev, *fdev;
			size_t node_len, dev_len, first_node, fdev_len;

			side(first[k], flen[k], &first_node, &fdev, &fdev_len);
			side(part[k], plen[k], &node_len, &dev, &dev_len);
			ok = node_len == first_node && !strncmp(part[k], first[k], node_len);
			nl[k] = node_len;
			add_alt(devs[k], sizeof(devs[k]), dev, dev_len);
		}
	}
	out[0] = 0;
	for (int k = 0; ok && k < sides; k++)
		snprintf(out + strlen(out), len - strlen(out), "%s%.*s%s%s", k ? arrow : "",
			 (int)nl[k], first[k], *devs[k] ? " " : "", devs[k]);
	for (int i = 0; !ok && i < n; i++) {
		int dup = 0;

		for (int j = 0; j < i; j++)
			dup |= !strcmp(rests[i], rests[j]);
		if (!dup) {
			if (out[0])
				add(out, len, "; ");
			add(out, len, rests[i]);
		}
	}
}

/* " on rail 0", " on rails 0 and 1", " on rails 0, 1 and 2". */
static void list_words(char *out, size_t len, const char *one, const char *many,
		       char words[][16], int n)
{
	add(out, len, n > 1 ? many : one);
	for (int i = 0; i < n; i++) {
		add(out, len, i == 0 ? "" : i == n - 1 ? " and " : ", ");
		add(out, len, words[i]);
	}
}

/* Adds @w to @words (@n of them) unless it is there; @rail words sort. */
static void add_word(char words[][16], int *n, const char *w, int max)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(words[i], w))
			return;
	if (*n < max)
		snprintf(words[(*n)++], 16, "%s", w);
}

/* The subject of a group: "WHERE on rails 0 and 1" when every entry is a
 * rail's phase (pair --rails: "rail 0 alone: WHERE"), "..., loaded" when
 * all are one phase; else the places merged. */
static void group_subject(const json_t *list, struct fc_dgroup *g)
{
	const char **rests = calloc((size_t)g->n, sizeof(*rests));
	char rails[16][16], phases[8][16], num[16], ph[16];
	int nr = 0, np = 0, k = 0, all = 1;
	size_t i;
	json_t *e;

	if (!rests) {
		snprintf(g->subject, sizeof(g->subject), "%s",
			 fc_jstr(json_array_get(list, g->first), "subject", "?"));
		return;
	}
	json_array_foreach((json_t *)list, i, e) {
		const char *s = fc_jstr(e, "subject", "?");
		int rail, used = 0;

		if (i < g->first || !fc_dgroup_has(list, g, e))
			continue;
		if (sscanf(s, "rail %d %15[a-z]: %n", &rail, ph, &used) == 2 && used > 0) {
			snprintf(num, sizeof(num), "%d", rail);
			add_word(rails, &nr, num, 16);
			add_word(phases, &np, ph, 8);
			rests[k++] = s + used;
		} else {
			all = 0;
			rests[k++] = s;
		}
	}
	g->subject[0] = 0;
	merge_rests(rests, k, g->subject, sizeof(g->subject));
	if (all) { /* both phases: it is not the load's; one: say which */
		list_words(g->subject, sizeof(g->subject), " on rail ", " on rails ", rails, nr);
		if (np == 1)
			snprintf(g->subject + strlen(g->subject), sizeof(g->subject) - strlen(g->subject),
				 ", %s", phases[0]);
	}
	free(rests);
}

int fc_dgroups(const json_t *list, struct fc_dgroup *g)
{
	int n = 0;
	size_t i, j;
	json_t *e;

	json_array_foreach((json_t *)list, i, e) {
		int seen = 0;

		for (int k = 0; k < n && !seen; k++)
			seen = fc_dgroup_has(list, &g[k], e);
		if (seen)
			continue;
		g[n] = (struct fc_dgroup){ .first = i, .n = 0, .same_evidence = 1 };
		for (j = i; j < json_array_size(list); j++) {
			const json_t *o = json_array_get(list, j);

			if (!fc_dgroup_has(list, &g[n], o))
				continue;
			g[n].n++;
			g[n].same_evidence &= !strcmp(fc_jstr(o, "evidence", ""), fc_jstr(e, "evidence", ""));
		}
		if (g[n].n > 1)
			group_subject(list, &g[n]);
		else
			snprintf(g[n].subject, sizeof(g[n].subject), "%s", fc_jstr(e, "subject", "?"));
		n++;
	}
	return n;
}
