/* The nodes a matrix or soak names, for Slurm (see mx_drain.h). */
#include "matrix/mx_drain.h"

#include <stdio.h>
#include <string.h>

#include "core/out.h"

static int in_suspects(const json_t *suspects, const char *node)
{
	size_t i, k;
	json_t *s, *v;

	json_array_foreach(suspects, i, s) {
		if (!strcmp(fc_jstr(s, "node", ""), node))
			return 1;
		json_array_foreach(json_object_get(s, "link"), k, v)
			if (!strcmp(json_string_value(v) ? json_string_value(v) : "", node))
				return 1;
	}
	return 0;
}

void mx_drain_targets(const json_t *doc, json_t *targets, json_t *passed)
{
	const json_t *suspects = json_object_get(doc, "suspects");
	int rail_bad = 0;
	size_t i;
	json_t *s;

	/* Could not check: listed apart, never a target, never passed. */
	json_array_foreach(json_object_get(doc, "per_node"), i, s)
		if (!strcmp(fc_jstr(s, "state", ""), "unreachable"))
			fc_drain_unchecked((json_t *)doc, fc_jstr(s, "node", "?"),
					   "none of its pairs could run (ssh, the launcher, a worker or the host)");
	json_array_foreach(suspects, i, s) {
		const char *level = fc_jstr(s, "level", "");
		const char *node = fc_jstr(s, "node", NULL);

		rail_bad |= !strcmp(level, "rail");
		if (!node || (strcmp(level, "node") && strcmp(level, "port")))
			continue;
		fc_drain_target(targets, node, level, !strcmp(level, "port") ?
				fc_jstr(s, "device", "") : "", fc_jstr(s, "reason", ""));
	}
	if (rail_bad)
		return;
	json_array_foreach(json_object_get(doc, "per_node"), i, s) {
		const char *node = fc_jstr(s, "node", "");

		if (!strcmp(fc_jstr(s, "state", ""), "pass") && fc_jnum(s, "errors", 0) == 0 &&
		    !in_suspects(suspects, node))
			json_array_append_new(passed, json_string(node));
	}
}

void mx_drain_soak_targets(const json_t *doc, char *const *nodes, int n, json_t *targets,
			   json_t *passed)
{
	const json_t *events = json_object_get(doc, "events");
	int other = 0;
	size_t i;
	json_t *e;

	json_array_foreach(events, i, e) {
		const char *node = fc_jstr(e, "node", NULL);

		if (node && !strcmp(fc_jstr(e, "kind", ""), "flap")) {
			/* With rails a soak names NODE/RAIL. */
			const char *slash = strchr(node, '/');
			char name[256];

			snprintf(name, sizeof(name), "%.*s", (int)(slash ? slash - node : (long)strlen(node)), node);
			/* the node's own device on the rail (soak.c), else the rail's name */
			fc_drain_target(targets, name, "link flap",
					slash ? fc_jstr(e, "device", slash + 1) : "",
					fc_jstr(e, "text", ""));
		} else
			other = 1;
	}
	for (int k = 0; passed && !other && k < n; k++) {
		int bad = 0;

		json_array_foreach(targets, i, e)
			bad |= !strcmp(fc_jstr(e, "node", ""), nodes[k]);
		if (!bad)
			json_array_append_new(passed, json_string(nodes[k]));
	}
}

int mx_drain_run(json_t *doc, struct fc_store *st, int64_t run, const char *kind,
		 const struct fc_drain_opts *o, const json_t *targets, const json_t *passed,
		 int measured)
{
	if (!fc_drain_wanted(o))
		return 0;
	if (!measured) {
		json_object_set_new(doc, "slurm", json_array());
		fc_finding(doc, FC_WARN,
			   "Slurm: nothing drained or resumed: this run could not measure (pairs could not run); fix what stopped them and run again");
		return 0;
	}
	return fc_drain_apply(doc, st, run, kind, o, targets, passed);
}
