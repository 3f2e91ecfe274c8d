/* The switch each InfiniBand port reaches (see ibpeer.h). */
#include "ctl/ibpeer.h"
#include "ctl/nodesrc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/out.h"
#include "core/smpinfo.h"
#include "ctl/child.h"

#define IBPEER_DEADLINE_S 5

/* NodeInfo of the neighbour of @dev port @port into @ni; 0, or the reason
 * in @why. With @desc (room @dlen), its node description instead: 0, or -1
 * (none said: the GUID is what matches the rails). */
static int neighbour(struct fc_src *s, const char *dev, int port, struct fc_smp_nodeinfo *ni,
		     char *why, size_t len, char *desc, size_t dlen)
{
	char p[16], route[24], err[256];
	const char *argv[] = { "smpquery", "-C", dev, "-P", p, "-D", desc ? "nodedesc" : "nodeinfo",
			       route, NULL };
	char *out;
	int code, rc = -1;

	snprintf(p, sizeof(p), "%d", port);
	snprintf(route, sizeof(route), "0,%d", port);
	out = fc_src_cmd(s, argv, IBPEER_DEADLINE_S, &code, err, sizeof(err));
	if (desc) {
		rc = out && code == 0 ? fc_smp_nodedesc_parse(out, desc, dlen) : -1;
		free(out);
		return rc ? -1 : 0;
	}
	if (out && code == 0 && !fc_smp_nodeinfo_parse(out, ni))
		rc = 0;
	else
		snprintf(why, len, "smpquery -C %s -P %d -D nodeinfo %s (infiniband-diags): %s",
			 dev, port, route,
			 !out	     ? err :
			 code != 0 ? (*err ? err : "failed (umad access needs root or read-write "
						   "/dev/infiniband/umad*)") :
				     "no NodeInfo in its output");
	free(out);
	return rc;
}

void fc_ib_switches_add(json_t *devices, json_t *doc)
{
	struct fc_src live;

	fc_src_live(&live, NULL);
	fc_ib_switches_add_src(&live, devices, doc);
}

void fc_ib_switches_add_src(struct fc_src *s, json_t *devices, json_t *doc)
{
	size_t i, j;
	json_t *d, *p;

	json_array_foreach(devices, i, d) {
		json_array_foreach(json_object_get(d, "ports"), j, p) {
			struct fc_smp_nodeinfo ni;
			char why[512], desc[72];

			if (strcmp(fc_jstr(p, "link_layer", ""), "InfiniBand") ||
			    strcmp(fc_jstr(p, "state", ""), "ACTIVE"))
				continue;
			if (neighbour(s, fc_jstr(d, "name", "?"), (int)fc_jnum(p, "port", 0), &ni, why,
				      sizeof(why), NULL, 0)) {
				json_object_set_new(doc, "switch_note",
						    json_pack("s++", "the switch each InfiniBand "
						    "port reaches is not read: ", why, ""));
				return;
			}
			if (!strcmp(ni.type, "Switch")) {
				json_object_set_new(p, "switch_guid", json_string(ni.guid));
				/* its name, for the notes (the GUID matches) */
				if (!neighbour(s, fc_jstr(d, "name", "?"), (int)fc_jnum(p, "port", 0),
					       &ni, why, sizeof(why), desc, sizeof(desc)))
					json_object_set_new(p, "switch_desc", json_string(desc));
			} else
				json_object_set_new(p, "peer_type", json_string(ni.type));
		}
	}
}
