/*
 * Which ports a preflight or health check judges for a drain: the GPU
 * fabric's (the rail set, pf_check_rails), never a management, storage,
 * front-end or unused port (see preflight.h, pf_port_left).
 */
#include <stdio.h>
#include <string.h>

#include "checks/preflight/preflight.h"
#include "core/out.h"

/* @name is an entry of the comma list @list. */
static int in_list(const char *list, const char *name)
{
	size_t nl = strlen(name);

	for (const char *p = list; p && *p && nl;) {
		size_t l = strcspn(p, ",");

		if (l == nl && !strncmp(p, name, nl))
			return 1;
		p += l + (p[l] == ',');
	}
	return 0;
}

/* @ref (a preflight --json document of the rack) has @dev on a rail, or,
 * with no rails recorded, @dev port @port ACTIVE on most of its nodes. */
static int ref_has_rail(const json_t *ref, const char *dev, int port)
{
	size_t i, j;
	json_t *nd, *p;
	int up = 0, all = 0;

	if (fc_jnamed(json_object_get(ref, "rails"), dev))
		return 1;
	json_array_foreach(json_object_get(ref, "nodes"), i, nd) {
		all++;
		json_array_foreach(json_object_get(nd, "ports"), j, p)
			up += !strcmp(fc_jstr(p, "device", ""), dev) &&
			      (int)fc_jnum(p, "port", 0) == port && !fc_jstr(p, "left_out", NULL) &&
			      !strcmp(fc_jstr(p, "state", ""), "ACTIVE");
	}
	return all && 2 * up > all;
}

const char *pf_port_left(const char *node, const json_t *dev, const json_t *p, const json_t *set,
			 int probed, const struct pf_opts *o)
{
	const char *dn = fc_jstr(dev, "name", "?"), *ifn = fc_jstr(p, "netdev", "");
	int port = (int)fc_jnum(p, "port", 0);
	char key[96];

	if (o->exclude_dev && (in_list(o->exclude_dev, dn) || (*ifn && in_list(o->exclude_dev, ifn))))
		return "--exclude-dev";
	if (o->rails)
		return in_list(o->rails, dn) || (*ifn && in_list(o->rails, ifn)) ? NULL :
		       o->rails_why ? o->rails_why : "not in --rails";
	if (!json_object_get(set, "ports"))
		return NULL; /* no rail set: every port judged, as before rails */
	snprintf(key, sizeof(key), "%s:%d", dn, port);
	if (json_object_get(json_object_get(json_object_get(set, "ports"), node), key))
		return NULL;
	/* Not on a rail: a port that should be on one (down, or at another
	 * rate than its rail, which the rules take for a storage NIC) is
	 * judged; the other nodes, or the rack's reference, say which. */
	if (probed >= 2)
		return fc_jhas_str(json_object_get(set, "names"), dn) ?
			       NULL :
			       "its device is on no rail of the other nodes (a management, storage, front-end or unused port; the notes say why)";
	if (o->ref)
		return ref_has_rail(o->ref, dn, port) ?
			       NULL :
			       "its device is on no rail of the rack's reference (a management, storage, front-end or unused port)";
	if (!strcmp(fc_jstr(p, "state", ""), "ACTIVE"))
		return "a management, storage or front-end port by the rail rules (the notes say why)";
	/* Down, one node, nothing to compare with: judged only when the node
	 * shows the port was in use (its link was up: hl_in_use), else it may
	 * be a spare never cabled (issue 38 item 1). */
	if (json_object_get(o->in_use, key))
		return NULL;
	return "one node, no --reference or --rails, no sign it was in use (no link since boot, not ACTIVE at the last check): a spare, or a rail never up; give --rails LIST to judge it";
}
