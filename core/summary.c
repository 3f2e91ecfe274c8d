/* The summary under the verdict (see summary.h). */
#include "core/summary.h"
#include "core/out.h"

#include <stdlib.h>
#include <string.h>

int fc_term_cols(void)
{
	const char *c = getenv("COLUMNS");
	char *end;
	long v;

	if (!c || !*c)
		return 100;
	v = strtol(c, &end, 10);
	return *end || v < 40 || v > 1000 ? 100 : (int)v;
}

char *fc_fit_words(char *s, int width)
{
	static const char mark[] = " ...";
	size_t keep, w = width > (int)sizeof(mark) ? (size_t)width : sizeof(mark);

	if (strlen(s) <= w)
		return s;
	keep = w - (sizeof(mark) - 1);
	while (keep > 0 && s[keep] != ' ')
		keep--;
	if (!keep) /* one word longer than the line: cut inside it */
		keep = w - (sizeof(mark) - 1);
	while (keep > 0 && (s[keep - 1] == ' ' || s[keep - 1] == ':' || s[keep - 1] == ','))
		keep--;
	memcpy(s + keep, mark, sizeof(mark));
	return s;
}

/* The lines of the named problems, each once (a diagnose document holds
 * its set's diagnosis twice: the command's and the set's). */
struct sum {
	char *lines[64];
	int n;
};

static void line(struct sum *s, const char *fmt, const char *a, const char *b, const char *c,
		 const char *d)
{
	char *buf = NULL;

	if (s->n >= (int)(sizeof(s->lines) / sizeof(s->lines[0])) ||
	    asprintf(&buf, fmt, a, b, c, d) < 0)
		return;
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->lines[i], buf)) {
			free(buf);
			return;
		}
	s->lines[s->n++] = buf;
}

/* A diagnosis list: its likely entries, else its possible ones; an entry
 * that names no part ("not determined") is no problem named. */
static void from_diagnosis(struct sum *s, const json_t *list)
{
	const char *want[] = { "likely", "possible" };
	const json_t *e;
	size_t i;
	int n = 0;

	for (int k = 0; k < 2 && !n; k++)
		json_array_foreach((json_t *)list, i, e) {
			if (strcmp(fc_jstr(e, "confidence", ""), want[k]) ||
			    strstr(fc_jstr(e, "part", ""), "not determined"))
				continue;
			n++;
			line(s, "%s: %s (%s); next: %s", fc_jstr(e, "subject", "?"),
			     fc_jstr(e, "part", "?"), want[k], fc_jstr(e, "next", "?"));
		}
}

/* A matrix suspect: where, its level, whether a retest confirmed it, and
 * the reason's last clause (the part or the step). */
static void suspect_line(struct sum *s, const json_t *e)
{
	const char *reason = fc_jstr(e, "reason", "?"), *last = strrchr(reason, ':');
	const json_t *link = json_object_get(e, "link");
	char where[300];

	snprintf(where, sizeof(where), "%s%s%s", fc_jstr(e, "node", ""),
		 json_is_string(json_object_get(e, "node")) &&
				 json_is_string(json_object_get(e, "device")) ? " " : "",
		 fc_jstr(e, "device", ""));
	if (json_is_integer(json_object_get(e, "rail")))
		snprintf(where + strlen(where), sizeof(where) - strlen(where), "%srail %lld",
			 where[0] ? " on " : "",
			 (long long)json_integer_value(json_object_get(e, "rail")));
	if (json_array_size(link) == 2)
		snprintf(where, sizeof(where), "%s - %s", json_string_value(json_array_get(link, 0)),
			 json_string_value(json_array_get(link, 1)));
	line(s, "%s: %s level (%s); %s", where[0] ? where : "?", fc_jstr(e, "level", "?"),
	     strstr(reason, "retest") ? "still bad on retest" : "measured once, not retested",
	     last ? last + 2 : reason);
}

void fc_summary_render(FILE *f, const json_t *doc)
{
	struct sum s = { .n = 0 };
	const json_t *list = json_object_get(doc, "findings"), *e;
	const char *v = fc_jstr(doc, "verdict", "pass");
	int cols = fc_term_cols();
	char first[2048];
	size_t i;

	if (json_is_true(json_object_get(json_object_get(doc, "lab"), "starved"))) {
		/* a starved virtual rack (lab/starve.h): no part is named */
		snprintf(first, sizeof(first), "summary: %s",
			 fc_jstr(json_object_get(doc, "lab"), "why", "?"));
		fprintf(f, "%s\n", fc_fit_words(first, cols));
		return;
	}
	from_diagnosis(&s, json_object_get(doc, "diagnosis"));
	json_array_foreach(json_object_get(doc, "sets"), i, e)
		from_diagnosis(&s, json_object_get(e, "diagnosis"));
	json_array_foreach(json_object_get(doc, "suspects"), i, e)
		suspect_line(&s, e);
	if (s.n) {
		fprintf(f, "summary: %s, %d problem%s named:\n", v, s.n, s.n > 1 ? "s" : "");
		for (int k = 0; k < s.n; k++) {
			if (k < FC_SUMMARY_MAX)
				fprintf(f, "  %s\n", fc_fit_words(s.lines[k], cols - 2));
			free(s.lines[k]);
		}
		if (s.n > FC_SUMMARY_MAX)
			fprintf(f, "  ... and %d more (above, and in --json)\n", s.n - FC_SUMMARY_MAX);
		return;
	}
	if (!json_array_size(list)) {
		fprintf(f, "summary: %s, nothing named\n", v);
		return;
	}
	snprintf(first, sizeof(first), "summary: %s, %zu finding%s above, no part named; the first: %s",
		 v, json_array_size(list), json_array_size(list) > 1 ? "s" : "",
		 json_string_value(json_array_get(list, 0)) ?
			 json_string_value(json_array_get(list, 0)) : "?");
	fprintf(f, "%s\n", fc_fit_words(first, cols));
}
