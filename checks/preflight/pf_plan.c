/*
 * fabcheck rails: the rack's rail plan, from the nodes as preflight reads
 * them (live or --from captures; checks/preflight/cmd_preflight.c) and the
 * one rail matching (core/rail.h through pf_rail_plan).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/preflight/preflight.h"
#include "core/out.h"

const char usage_rails[] =
	"usage: fabcheck rails NODE... [options]\n"
	"       fabcheck rails --hostfile FILE [options]\n"
	"       fabcheck rails --from BUNDLE... [options]\n"
	"\n"
	"Prints the rack's rail plan: which port of which node is on which rail, and\n"
	"how the rails were matched (subnet, the switch each InfiniBand port reaches,\n"
	"the LLDP leaf, the gateways' pool, the ports' position or the device name;\n"
	"position is assumed and says what would confirm it). The nodes are read as\n"
	"'fabcheck preflight' reads them, live or from captures (--from), and their\n"
	"ports matched by the same code; ports left out (the ssh or default-route\n"
	"port, another link layer or rate, --exclude-dev) are listed with why, and a\n"
	"swapped cable or a port on no rail is a finding.\n"
	"\n"
	"  --hostfile FILE     nodes, one a line ('#' comments)\n"
	"  --exclude-dev LIST  devices or net devices that are no rail\n"
	"  --launcher ssh|slurm|local, --ssh-config FILE, --worker-cmd PATH,\n"
	"  --timeout T, --fanout N, --no-ssh-mux   as for 'fabcheck preflight'\n"
	"  --from BUNDLE...    captures (fabcheck capture; folders or .tar.gz)\n"
	"  -j, --json          one JSON document on stdout\n"
	"\n"
	"Exit: 0 the plan (warnings allowed), 1 a rail finding failed, 2 usage, 3 a\n"
	"node could not be reached or probed.\n";

void pf_render_rails(FILE *f, const json_t *doc)
{
	struct fc_table *t = fc_table_new(5, "RAIL", "NAME", "BY", "NETWORK", "NODE PORT");
	size_t i, j;
	json_t *r, *n;
	const char *node;

	if (!strcmp(fc_jstr(doc, "matched_by", ""), "none"))
		fprintf(f, "no rails: no port to match (why below)\n");
	else
		fprintf(f, "rails matched by %s\n", fc_jstr(doc, "matched_by", "?"));
	if (json_object_get(doc, "assumed"))
		fprintf(f, "assumed: %s\n", fc_jstr(doc, "assumed", ""));
	json_array_foreach(json_object_get(doc, "rails"), i, r) {
		j = 0;
		json_object_foreach(json_object_get(r, "ports"), node, n) {
			const char *net = *fc_jstr(r, "subnet", "") ? fc_jstr(r, "subnet", "") :
					  fc_jstr(r, "switch_desc", fc_jstr(r, "switch",
									     fc_jstr(r, "leaf", "-")));

			fc_table_row(t);
			if (!j++) {
				fc_table_addint(t, 0, r, "rail");
				fc_table_addf(t, 1, "%s", fc_jstr(r, "name", "?"));
				fc_table_addf(t, 2, "%s", fc_jstr(r, "matched_by", "?"));
				fc_table_addf(t, 3, "%s", net);
			}
			if (json_is_null(n))
				fc_table_addf(t, 4, "%s: none", node);
			else
				fc_table_addf(t, 4, "%s: %s port %d%s%s", node, fc_jstr(n, "device", "?"),
					      (int)fc_jnum(n, "port", 0), *fc_jstr(n, "netdev", "") ?
					      " " : "", fc_jstr(n, "netdev", ""));
		}
	}
	if (json_array_size(json_object_get(doc, "rails")))
		fc_table_print(t, f, "");
	fc_table_free(t);
	json_array_foreach(json_object_get(doc, "notes"), i, n)
		fprintf(f, "%s  %s\n", i ? "" : "\nnotes (ports left out, how matched):\n",
			json_string_value(n));
	fputc('\n', f);
}

/* The rail plan of the nodes read (pf_rail_plan); a node that could not be
 * read is a failure naming it. Returns nonzero when one could not. */
int pf_rails_doc(json_t *doc, const json_t *nodes)
{
	size_t n = json_array_size(nodes), k = 0, i;
	const char **names = calloc(n + 1, sizeof(*names));
	const json_t **probes = calloc(n + 1, sizeof(*probes));
	json_t *e;
	int bad = 0;

	json_array_foreach(nodes, i, e) {
		if (!json_object_get(e, "probe")) {
			fc_finding(doc, FC_FAIL, "%s: %s", fc_jstr(e, "node", "?"),
				   fc_jstr(e, "error", "could not be probed"));
			bad = 1;
		} else if (names && probes) {
			names[k] = fc_jstr(e, "node", "?");
			probes[k++] = json_object_get(e, "probe");
		}
	}
	if (names && probes)
		pf_rail_plan(doc, names, probes, (int)k, NULL);
	free(names);
	free(probes);
	return bad;
}

