/* The text of a matrix run's traffic pattern (matrix/mx_pattern.h). */
#include <math.h>
#include <string.h>

#include "core/out.h"
#include "core/util.h"
#include "matrix/mx_pattern.h"

/* The counters that moved and the outcomes of @j (a round or a group). */
static void render_outcomes(FILE *f, const json_t *j, const char *indent)
{
	const char *node, *name;
	json_t *o, *set, *v;
	size_t i;

	json_object_foreach(json_object_get(j, "counters_moved"), node, set)
		json_object_foreach(set, name, v)
			fprintf(f, "%smoved: %s %s +%.0f\n", indent, node, name, json_number_value(v));
	json_array_foreach(json_object_get(j, "outcomes"), i, o)
		fprintf(f, "%s%s: %s: %s\n", indent, fc_jstr(o, "level", "?"),
			fc_jstr(o, "outcome", "?"), fc_jstr(o, "evidence", ""));
}

/* Each flow of a round toward (incast) or from (fanout) its target. */
static void render_shares(FILE *f, const json_t *rd, const char *key, int from_target)
{
	const char *t = fc_jstr(rd, from_target ? "sender" : "receiver", "?"), *name;
	json_t *v;

	json_object_foreach(json_object_get(rd, key), name, v)
		fprintf(f, "    %s -> %s  %.4g Gb/s\n", from_target ? t : name, from_target ? name : t,
			json_number_value(v));
}

/* An incast round into its receiver, or a fanout round from its sender. */
static void render_target(FILE *f, const json_t *rd, int fan)
{
	fprintf(f, "  round %d: %s %s %s %d %s%s: %.4g Gb/s of %.4g Gb/s (%s), Jain %.3f\n",
		(int)fc_jnum(rd, "round", 0), fan ? "from" : "into",
		fc_jstr(rd, fan ? "sender" : "receiver", "?"), fan ? "to" : "from",
		(int)fc_jnum(rd, "flows", 0), fan ? "receiver" : "sender",
		fc_s((long long)fc_jnum(rd, "flows", 0)),
		fc_jnum(rd, "aggregate_gbps", 0), fc_jnum(rd, "ceiling_gbps", 0),
		fc_jstr(rd, "ceiling_is", "?"), fc_jnum(rd, "jain", NAN));
	render_shares(f, rd, fan ? "receivers" : "senders", fan);
	render_outcomes(f, rd, "    ");
}

/* An all-to-all round: each group, each node's in and out. */
static void render_alltoall(FILE *f, const json_t *rd)
{
	const char *name;
	json_t *grp, *v;
	size_t i;

	fprintf(f, "  round %d: %d flow%s, %.4g Gb/s in all\n", (int)fc_jnum(rd, "round", 0),
		(int)fc_jnum(rd, "flows", 0), fc_s((long long)fc_jnum(rd, "flows", 0)),
		fc_jnum(rd, "total_gbps", 0));
	json_array_foreach(json_object_get(rd, "groups"), i, grp) {
		size_t n = json_object_size(json_object_get(grp, "in_gbps"));

		/* its index and its size: "group 1 of 2 nodes" read as one of two */
		fprintf(f, "    group %zu, %zu node%s, Jain %.3f over what each received:\n", i + 1, n,
			n == 1 ? "" : "s", fc_jnum(grp, "jain", NAN));
		json_object_foreach(json_object_get(grp, "in_gbps"), name, v)
			fprintf(f, "      %s  in %.4g Gb/s, out %.4g Gb/s, port %.4g Gb/s\n", name,
				json_number_value(v), fc_jnum(json_object_get(grp, "out_gbps"), name, 0),
				fc_jnum(json_object_get(grp, "ceiling_gbps"), name, 0));
		render_outcomes(f, grp, "      ");
	}
}

/* Over which window a round's rates are. */
static void render_window(FILE *f, const json_t *w)
{
	if (!w)
		return;
	if (!strcmp(fc_jstr(w, "measured_over", ""), "common window"))
		fprintf(f, "    measured over the window all its flows ran in: %.3f s, %.0f%% of "
			"the round\n", fc_jnum(w, "window_s", 0), 100 * fc_jnum(w, "share", 0));
	else
		fprintf(f, "    measured over each flow's own test: %s\n", fc_jstr(w, "why", "?"));
}

void mx_pattern_render(FILE *f, const json_t *doc)
{
	const json_t *p = json_object_get(doc, "pattern");
	size_t i;
	json_t *rd;

	if (!p)
		return;
	fprintf(f, "\npattern %s, %zu round%s (each round's flows started together):\n",
		fc_jstr(p, "name", "?"), json_array_size(json_object_get(p, "rounds")),
		fc_s((long long)json_array_size(json_object_get(p, "rounds"))));
	json_array_foreach(json_object_get(p, "rounds"), i, rd) {
		if (json_object_get(rd, "receiver") || json_object_get(rd, "sender"))
			render_target(f, rd, json_object_get(rd, "sender") != NULL);
		else if (json_object_get(rd, "groups"))
			render_alltoall(f, rd);
		else if (json_object_get(rd, "ports_gbps"))
			fprintf(f, "  round %d: %d flow%s, %.4g Gb/s across against %.4g Gb/s of "
				"the senders' ports (%s): %s\n", (int)fc_jnum(rd, "round", 0),
				(int)fc_jnum(rd, "flows", 0), fc_s((long long)fc_jnum(rd, "flows", 0)),
				fc_jnum(rd, "total_gbps", 0),
				fc_jnum(rd, "ports_gbps", 0), fc_jstr(rd, "ports_are", "?"),
				fc_jstr(rd, "level", "?"));
		else
			fprintf(f, "  round %d: %d flow%s, %.4g Gb/s in all\n",
				(int)fc_jnum(rd, "round", 0), (int)fc_jnum(rd, "flows", 0),
				fc_s((long long)fc_jnum(rd, "flows", 0)),
				fc_jnum(rd, "total_gbps", 0));
		render_window(f, json_object_get(rd, "window"));
	}
}
