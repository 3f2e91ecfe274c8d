/*
 * The evidence notes of a diagnosis as text (issue 39 item 2, each fact
 * once): a note read at many ports ("transceiver readings not exposed", at
 * every port of every phase of a rack's run) is said once under a heading
 * naming every port it holds for. The JSON keeps each port's notes. A
 * "not determined" of several sets (no rule matched in any) is said once,
 * naming the sets; the JSON keeps each set's entry.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/holders.h"
#include "core/out.h"
#include "core/summary.h"
#include "core/util.h"
#include "diag/diag.h"

/* The heading of a port's notes: at most this many lines, cut after. */
#define DIAG_NOTES_HEAD_LINES 2

void diag_notes_add(json_t *notes, const json_t *doc)
{
	const json_t *p, *n;
	size_t i, k;

	json_array_foreach(json_object_get(doc, "evidence"), i, p) {
		char port[256];

		snprintf(port, sizeof(port), "%s %s port %d", fc_jstr(p, "node", "?"),
			 fc_jstr(p, "device", "?"), (int)fc_jnum(p, "port", 0));
		json_array_foreach(json_object_get(p, "notes"), k, n)
			fc_holders_add(notes, json_string_value(n) ?: "", port);
	}
}

void diag_notes_render(FILE *f, const json_t *notes)
{
	size_t n = json_array_size(notes);
	char *said = calloc(n + 1, 1), who[2048], head[2100];

	for (size_t i = 0; i < n; i++) {
		const json_t *g = json_array_get(notes, i), *h = json_object_get(g, "holders");

		if (said && said[i])
			continue;
		fc_holders_name(h, NULL, who, sizeof(who));
		snprintf(head, sizeof(head), "evidence notes, %s:", who);
		fc_put_wrapped(f, "  ", 4, head, 0, DIAG_NOTES_HEAD_LINES);
		/* every note of these same ports under this one heading */
		for (size_t j = i; j < n; j++) {
			const json_t *o = json_array_get(notes, j);

			if (j != i && (!said || said[j] || !json_equal(json_object_get(o, "holders"), h)))
				continue;
			if (said)
				said[j] = 1;
			fc_put_wrapped(f, "    - ", 6, fc_jstr(o, "text", ""), 0, 1);
		}
	}
	free(said);
}

/* The entry of @set when its diagnosis is diag_run's "not determined"
 * alone (rule "none": no rule matched), else NULL. */
static const json_t *undetermined(const json_t *set)
{
	const json_t *d = json_object_get(set, "diagnosis"), *e = json_array_get(d, 0);

	return json_array_size(d) == 1 && !strcmp(fc_jstr(e, "rule", ""), "none") ? e : NULL;
}

json_t *diag_undetermined(const json_t *sets)
{
	json_t *groups = json_array(), *g;
	const json_t *s, *e;
	size_t i;

	json_array_foreach(sets, i, s) {
		char *key = (e = undetermined(s)) ? json_dumps(e, JSON_SORT_KEYS | JSON_COMPACT) : NULL;

		g = key ? fc_holders_group(groups, key, fc_jstr(s, "path", "?")) : NULL;
		if (g && !json_object_get(g, "entry"))
			json_object_set(g, "entry", (json_t *)e);
		free(key);
	}
	return groups;
}

/* The group of @groups that holds @set's entry, or NULL. */
static const json_t *group_of(const json_t *groups, const json_t *set)
{
	const json_t *g, *e = undetermined(set);
	size_t i;

	json_array_foreach(groups, i, g)
		if (e && json_equal(json_object_get(g, "entry"), e) &&
		    fc_jhas_str(json_object_get(g, "holders"), fc_jstr(set, "path", "?")))
			return g;
	return NULL;
}

int diag_undetermined_shared(const json_t *groups, const json_t *set)
{
	return json_array_size(json_object_get(group_of(groups, set), "holders")) > 1;
}

/* The sets a "not determined" names at most before it counts the rest. */
#define DIAG_UNDET_NAMES_MAX 200

void diag_undetermined_render(FILE *f, const json_t *groups)
{
	const json_t *g;
	size_t i;

	json_array_foreach(groups, i, g) {
		const json_t *h = json_object_get(g, "holders"), *e = json_object_get(g, "entry");
		char who[1024], subj[1200];

		if (json_array_size(h) < 2)
			continue;
		fc_holders_lead_name(h, NULL, who, sizeof(who), DIAG_UNDET_NAMES_MAX);
		fprintf(f, "\nnot determined in %zu sets (each one's own diagnosis):\n", json_array_size(h));
		snprintf(subj, sizeof(subj), "%s of %s", fc_jstr(e, "subject", "?"), who);
		diag_render_entry(f, e, subj, "evidence");
	}
}
