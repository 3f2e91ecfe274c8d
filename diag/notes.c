/*
 * The evidence notes of a diagnosis as text (issue 39 item 2, each fact
 * once): a note read at many ports ("transceiver readings not exposed", at
 * every port of every phase of a rack's run) is said once under a heading
 * naming every port it holds for. The JSON keeps each port's notes.
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
