/* The LLDP neighbour of each RoCE port (see lldp.h). */
#include "ctl/lldp.h"

#include <stdlib.h>
#include <string.h>

#include "core/lldp.h"
#include "core/out.h"
#include "ctl/child.h"

/* lldpctl answers from the running lldpd at once; a hung daemon is not
 * waited for longer than this. */
#define LLDP_DEADLINE_S 3

void fc_lldp_add(json_t *devices, json_t *doc)
{
	const char *argv[] = { "lldpctl", "-f", "json", NULL };
	char err[256], chassis[64], port[32];
	json_t *d, *p, *nb;
	size_t i, j;
	int code, eth = 0;
	char *out;

	json_array_foreach(devices, i, d)
		json_array_foreach(json_object_get(d, "ports"), j, p)
			eth |= !strcmp(fc_jstr(p, "link_layer", ""), "Ethernet");
	if (!eth)
		return;
	out = fc_capture(argv, LLDP_DEADLINE_S, &code, err, sizeof(err));
	nb = out && code == 0 ? json_loads(out, 0, NULL) : NULL;
	free(out);
	if (!nb) {
		json_object_set_new(doc, "lldp_note",
				    json_string("no LLDP neighbours read (lldpctl -f json of lldpd "
						"is not installed, lldpd is not running, or its "
						"answer was not JSON)"));
		return;
	}
	json_array_foreach(devices, i, d)
		json_array_foreach(json_object_get(d, "ports"), j, p) {
			const char *nd = fc_jstr(p, "netdev", "");

			if (*nd && !fc_lldp_neighbour(nb, nd, chassis, sizeof(chassis), port,
						      sizeof(port)))
				json_object_set_new(p, "lldp", json_pack("{s:s, s:s}", "chassis",
									 chassis, "port", port));
		}
	json_decref(nb);
}

void fc_port_neighbours_add(json_t *devices, json_t *doc)
{
	fc_ib_switches_add(devices, doc);
	fc_lldp_add(devices, doc);
}
