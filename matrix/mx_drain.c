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

/* A part of the fabric outside the node (diag/rules.c's parts): draining
 * the node mends none of them; the finding says where to look. */
static int fabric_part(const char *part)
{
	static const char *const outside[] = { "switch", "upstream", "congestion", "QoS",
					       "on the path" };

	for (size_t i = 0; i < sizeof(outside) / sizeof(outside[0]); i++)
		if (strstr(part, outside[i]))
			return 1;
	return 0;
}

/* The suspect's diagnosis when it is "likely" and names a part of @node
 * ("NODE DEV port N" or "NODE DEV"): its part, and its device into @dev
 * when @dev is empty. NULL when there is none such. */
static const char *likely_part(const json_t *s, const char *node, char *dev, size_t dlen)
{
	const json_t *d = json_object_get(s, "diagnosis");
	const char *subj = fc_jstr(d, "subject", ""), *part = fc_jstr(d, "part", "");
	size_t nl = strlen(node);

	if (!d || strcmp(fc_jstr(d, "confidence", ""), "likely") || !*part || fabric_part(part) ||
	    strncmp(subj, node, nl) || subj[nl] != ' ')
		return NULL;
	if (!*dev) {
		snprintf(dev, dlen, "%.*s", (int)strcspn(subj + nl + 1, " ,"), subj + nl + 1);
		if (!fc_drain_device_ok(dev))
			dev[0] = 0;
	}
	return part;
}

/* A target for suspect @s on @node (its own device @device, "" or NULL:
 * the suspect's "device"): the part its likely diagnosis names, else
 * @fallback (NULL: none, no target). */
static void suspect_target(json_t *targets, const json_t *s, const char *node,
			   const char *device, const char *fallback, int across)
{
	char dev[64], text[1024];
	const char *part;

	snprintf(dev, sizeof(dev), "%s", device && *device ? device : fc_jstr(s, "device", ""));
	part = likely_part(s, node, dev, sizeof(dev));
	if (!part && !fallback)
		return;
	snprintf(text, sizeof(text), "%s%s%s", fc_jstr(s, "reason", ""),
		 part ? ": likely " : "", part ? fc_jstr(json_object_get(s, "diagnosis"), "evidence", "") : "");
	fc_drain_target_across(targets, node, part ? part : fallback, dev, text, across);
}

static int checked_nodes(const json_t *doc)
{
	size_t i;
	json_t *s;
	int n = 0;

	json_array_foreach(json_object_get(doc, "per_node"), i, s)
		n += strcmp(fc_jstr(s, "state", ""), "unreachable") != 0;
	return n;
}

/* Why @node could not be checked into @why: on which rails none of its
 * pairs could run while its other rails ran ("unchecked_ports"), else
 * on none. */
static void unchecked_why(const json_t *doc, const char *node, char *why, size_t len)
{
	char rails[200] = "";
	size_t i, off = 0;
	const json_t *u;

	json_array_foreach(json_object_get(doc, "unchecked_ports"), i, u)
		if (!strcmp(fc_jstr(u, "node", ""), node) && off < sizeof(rails))
			off += (size_t)snprintf(rails + off, sizeof(rails) - off, "%srail %d (%s)",
						off ? ", " : "", (int)fc_jnum(u, "rail", -1),
						fc_jstr(u, "rail_name", "?"));
	if (off)
		snprintf(why, len,
			 "none of its pairs could run on %s (ssh, the launcher, a worker that crashed or timed out), while its other rails ran",
			 rails);
	else
		snprintf(why, len, "none of its pairs could run (ssh, the launcher, a worker or the host)");
}

void mx_drain_targets(const json_t *doc, json_t *targets, json_t *passed)
{
	const json_t *suspects = json_object_get(doc, "suspects");
	int across = checked_nodes(doc);
	char why[400];
	size_t i;
	json_t *s;

	/* Could not check: listed apart, never a target, never passed. */
	json_array_foreach(json_object_get(doc, "per_node"), i, s) {
		if (strcmp(fc_jstr(s, "state", ""), "unreachable"))
			continue;
		unchecked_why(doc, fc_jstr(s, "node", "?"), why, sizeof(why));
		fc_drain_unchecked((json_t *)doc, fc_jstr(s, "node", "?"), why);
	}
	/* A matrix names a node or port by comparing it with its peers
	 * (matrix/mxlevel.c): the drain says across how many nodes. */
	json_array_foreach(suspects, i, s) {
		const char *level = fc_jstr(s, "level", "");
		const char *node = fc_jstr(s, "node", NULL);

		if (!node || (strcmp(level, "node") && strcmp(level, "port")))
			continue;
		suspect_target(targets, s, node, NULL, level, across);
	}
	/* A rail bad as a whole leaves its nodes' passes standing: whether
	 * they clear a drain is the drain's own question (mx_drain_unseen). */
	json_array_foreach(json_object_get(doc, "per_node"), i, s) {
		const char *node = fc_jstr(s, "node", "");

		if (!strcmp(fc_jstr(s, "state", ""), "pass") && fc_jnum(s, "errors", 0) == 0 &&
		    !in_suspects(suspects, node))
			json_array_append_new(passed, json_string(node));
	}
}

/* The position in @doc's "rails" of the rail on which @node's own device
 * is @device (its "rail_ports", else the rail's name); -1: none. */
static int rail_of_device(const json_t *doc, const char *node, const char *device)
{
	const json_t *own = json_object_get(json_object_get(doc, "rail_ports"), node), *r;
	size_t i;

	json_array_foreach(json_object_get(doc, "rails"), i, r) {
		const char *d = fc_jstr(json_array_get(own, i), "device", fc_jstr(r, "name", ""));

		if (*device && !strcmp(d, device))
			return (int)i;
	}
	return -1;
}

/* Whether no pair at all could run on rail @rail ("unchecked_rails"). */
static int rail_unrun(const json_t *doc, int rail)
{
	const json_t *s;
	size_t i;

	json_array_foreach(json_object_get(doc, "unchecked_rails"), i, s)
		if (fc_jnum(s, "rail", -2) == rail)
			return 1;
	return 0;
}

/*
 * What a matrix drain's reason needs seen again (ctl/drain.h, unseen).
 * A matrix drains a node or port found far below its peers (matrix/
 * mxlevel.c). A run that measured that port against those same peers on
 * its rail, and found it in line, has seen what the drain was about,
 * whether or not that rail as a whole ran slower than the best: a rail
 * only slower ("nodes_judged") still holds each node against its peers
 * on it, the comparison that named the port. A rail whose nodes could not
 * be told apart (most nodes suspect, its floor) saw no port of it, nor
 * did one on which no pair could run ("unchecked_rails"), nor a node's
 * port none of whose pairs could run ("unchecked_ports"): a drain on it
 * stays, and so does a drain of the whole node (no device), which needs
 * every rail seen.
 */
const char *mx_drain_unseen(const char *node, const char *part, const char *device, int across,
			    const void *arg)
{
	const json_t *doc = arg, *s, *rails = json_object_get(doc, "rails");
	int at = rail_of_device(doc, node, device ? device : "");
	static char why[256];
	size_t i;

	(void)part;
	(void)across;
	/* A port of the node that could not be checked (no pair of it could
	 * run on its rail): a drain on it, or on the whole node, stays. */
	json_array_foreach(json_object_get(doc, "unchecked_ports"), i, s) {
		if (strcmp(fc_jstr(s, "node", ""), node) ||
		    (at >= 0 && fc_jnum(json_array_get(rails, (size_t)at), "rail", -1) !=
					fc_jnum(s, "rail", -2)))
			continue;
		if (rail_unrun(doc, (int)fc_jnum(s, "rail", -1)))
			snprintf(why, sizeof(why),
				 "no pair could run on rail %d (%s) in this run: it could not tell its nodes apart",
				 (int)fc_jnum(s, "rail", -1), fc_jstr(s, "rail_name", "?"));
		else
			snprintf(why, sizeof(why), "its port on rail %d (%s) could not be checked in this run",
				 (int)fc_jnum(s, "rail", -1), fc_jstr(s, "rail_name", "?"));
		return why;
	}
	json_array_foreach(json_object_get(doc, "suspects"), i, s) {
		if (strcmp(fc_jstr(s, "level", ""), "rail") ||
		    json_is_true(json_object_get(s, "nodes_judged")))
			continue;
		if (at >= 0 && fc_jnum(json_array_get(rails, (size_t)at), "rail", -1) !=
				       fc_jnum(s, "rail", -2))
			continue;
		snprintf(why, sizeof(why),
			 "rail %d (%s) was bad as a whole in this run and could not tell its nodes apart",
			 (int)fc_jnum(s, "rail", -1), fc_jstr(s, "rail_name", "?"));
		return why;
	}
	return NULL;
}

/* Whether soak pair @name ("NODE" or "NODE/RAIL") is @node's. */
static int soak_side(const char *name, const char *node)
{
	size_t n = strlen(node);

	return !strncmp(name, node, n) && (!name[n] || name[n] == '/');
}

/* Whether a slice of @node's gave a judged result (matrix/soak.c's
 * "unrun_slices": those that could not run). */
static int soak_checked(const json_t *doc, const char *node)
{
	size_t i;
	json_t *p;

	json_array_foreach(json_object_get(doc, "pairs"), i, p)
		if ((soak_side(fc_jstr(p, "a", ""), node) || soak_side(fc_jstr(p, "b", ""), node)) &&
		    fc_jnum(p, "slices", 0) > fc_jnum(p, "unrun_slices", 0))
			return 1;
	return 0;
}

void mx_drain_soak_targets(const json_t *doc, char *const *nodes, int n, json_t *targets,
			   json_t *passed)
{
	const json_t *suspects = json_object_get(doc, "suspects");
	size_t i, k;
	json_t *s, *v;

	/* Each suspect class at "likely" (matrix/soak_suspects.c): a node or
	 * port whose link flapped (its counters say so whatever the
	 * diagnosis), or whose error counters rose, and either side of a
	 * link that failed or dropped, when the diagnosis names a part of
	 * that node. Flaps and counters are the node's own: no comparison. */
	json_array_foreach(suspects, i, s) {
		const char *level = fc_jstr(s, "level", "");

		if (!strcmp(level, "link")) {
			/* Each side's own device on the rail ("devices"). */
			json_array_foreach(json_object_get(s, "link"), k, v)
				if (json_is_string(v))
					suspect_target(targets, s, json_string_value(v),
						       json_string_value(json_array_get(json_object_get(s, "devices"), k)),
						       NULL, 0);
		} else if (fc_jstr(s, "node", NULL)) {
			/* its own device (soak.h fc_soak_own_fault): its worker said so */
			suspect_target(targets, s, fc_jstr(s, "node", ""), NULL,
				       json_is_true(json_object_get(s, "own")) ? level :
				       strstr(fc_jstr(s, "reason", ""), "flap") ? "link flap" : NULL, 0);
		}
	}
	for (int j = 0; j < n; j++) {
		/* Could not check: listed apart, never a target, never passed. */
		if (!soak_checked(doc, nodes[j]) && !in_suspects(suspects, nodes[j]))
			fc_drain_unchecked((json_t *)doc, nodes[j],
					   "none of its slices could run (ssh, the launcher, a worker or the host)");
		else if (passed && !in_suspects(suspects, nodes[j]))
			json_array_append_new(passed, json_string(nodes[j]));
	}
}

int mx_drain_run(json_t *doc, struct fc_store *st, int64_t run, const char *kind,
		 const struct fc_drain_opts *o, const json_t *targets, const json_t *passed,
		 int measured)
{
	if (!fc_drain_wanted(o))
		return 0;
	/* Pairs that could not run leave the nodes of those that did
	 * judged: the others are listed as not checked. */
	if (!measured && checked_nodes(doc) < 2) {
		json_object_set_new(doc, "slurm", json_array());
		fc_finding(doc, FC_WARN,
			   "Slurm: nothing drained or resumed: this run could not measure (pairs could not run); fix what stopped them and run again");
		return 0;
	}
	{
		struct fc_drain_opts d = *o;

		d.compared = checked_nodes(doc);
		d.unseen = mx_drain_unseen;
		d.unseen_arg = doc;
		return fc_drain_apply(doc, st, run, kind, &d, targets, passed);
	}
}
