/*
 * --from BUNDLE...: the nodes' probe documents read from captures (fabcheck
 * capture) by the same reader the live probe runs (pf_probe_doc_src), so the
 * judges that follow see what they would have seen on the nodes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/preflight/preflight.h"
#include "core/log.h"
#include "core/out.h"
#include "ctl/nodesrc.h"

json_t *pf_probe_from(const char *path, double timeout, char *err, size_t errlen)
{
	struct fc_bundle *b = fc_bundle_open(path, err, errlen);
	struct fc_src s;
	json_t *doc;

	if (!b)
		return NULL;
	fc_src_replay(&s, b);
	doc = pf_probe_doc_src(&s, timeout, 0);
	fc_bundle_close(b);
	return doc;
}

json_t *pf_nodes_from(char *const *paths, int n, double timeout)
{
	json_t *nodes = json_array(), *e;
	size_t k;

	for (int i = 0; i < n; i++) {
		char err[1024];
		json_t *doc = pf_probe_from(paths[i], timeout, err, sizeof(err));
		const char *host;
		int twice = 0;

		if (!doc) {
			fc_err("--from %s", err);
			json_array_append_new(nodes, json_pack("{s:s, s:s}", "node", paths[i], "error",
								err));
			continue;
		}
		host = fc_jstr(doc, "host", "?");
		json_array_foreach(nodes, k, e)
			twice |= !strcmp(fc_jstr(e, "node", ""), host);
		if (twice) {
			snprintf(err, sizeof(err), "%s: a second capture of node %s: give one a node",
				 paths[i], host);
			fc_err("--from %s", err);
			json_array_append_new(nodes, json_pack("{s:s, s:s}", "node", paths[i], "error",
								err));
			json_decref(doc);
			continue;
		}
		json_array_append_new(nodes, json_pack("{s:s, s:o}", "node", host, "probe", doc));
	}
	return nodes;
}
