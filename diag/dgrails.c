/*
 * diagnose DIR --rails-from CAPTURE...: which arguments are captures, and
 * how the peers over every folder were matched (the rail set itself is
 * read by checks/preflight/pf_dgrails.c, as `preflight --from` reads it:
 * an evidence folder holds each tested port's readings, not the node's
 * addresses, LLDP neighbours or switches; the captures do).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/log.h"
#include "core/out.h"
#include "core/util.h"
#include "diag/diag.h"

int diag_is_capture(const char *path)
{
	char man[1024];
	struct stat st;

	if (stat(path, &st))
		return 0;
	if (S_ISREG(st.st_mode))
		return 1; /* a .tar.gz: the bundle reader says if it is not one */
	return snprintf(man, sizeof(man), "%s/manifest.json", path) < (int)sizeof(man) &&
	       !stat(man, &st);
}

/* 1 when @node has an evidence port in @sets. */
static int in_evidence(const json_t *sets, const char *node)
{
	const json_t *s, *p;
	size_t i, k;

	json_array_foreach(sets, i, s)
		json_array_foreach(json_object_get(s, "evidence"), k, p)
			if (!strcmp(fc_jstr(p, "node", ""), node))
				return 1;
	return 0;
}

void diag_peers_note(json_t *doc, const json_t *sets, const json_t *rails)
{
	const json_t *s, *p;
	size_t i, k;
	char byname[512] = "";
	size_t len = 0;

	json_array_foreach(sets, i, s)
		json_array_foreach(json_object_get(s, "evidence"), k, p) {
			const char *node = fc_jstr(p, "node", "?");
			char key[160];

			snprintf(key, sizeof(key), "%s,", node);
			if (json_object_get(json_object_get(rails, "rail_of"), node) ||
			    strstr(byname, key) || len >= sizeof(byname))
				continue;
			len += (size_t)snprintf(byname + len, sizeof(byname) - len, "%s, ", node);
		}
	if (len >= 2)
		byname[len - 2] = 0;
	if (!rails) {
		json_object_set_new(doc, "peers", json_pack("{s:s, s:s}", "matched_by", "name", "why",
							    "the same device and port on each node: no node capture given (diagnose DIR --rails-from CAPTURE...: each port's peers on its rail)"));
		return;
	}
	json_object_set_new(doc, "peers", json_pack("{s:s, s:s, s:O}", "matched_by",
						    *byname ? "rail, else name" : "rail",
						    "rails_matched_by", fc_jstr(rails, "matched_by", "?"),
						    "captures", json_object_get(rails, "captures")));
	if (*byname)
		json_object_set_new(json_object_get(doc, "peers"), "by_name", json_string(byname));
	/* a capture of a node with no evidence: said, not an error */
	len = 0;
	*byname = 0;
	json_array_foreach(json_object_get(rails, "captures"), i, p)
		if (!in_evidence(sets, json_string_value(p)) && len < sizeof(byname))
			len += (size_t)snprintf(byname + len, sizeof(byname) - len, "%s%s",
						len ? ", " : "", json_string_value(p));
	if (len)
		json_object_set_new(json_object_get(doc, "peers"), "no_evidence", json_string(byname));
}
