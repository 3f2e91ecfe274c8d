/*
 * Which port of another node is "the same port" as a port of the evidence,
 * for the comparisons over every folder (diag/expect.c, diag/modpeers.c)
 * and preflight's module peers (checks/preflight/pf_module.c): the port
 * on the same rail where the rail set places both (the nodes' captures
 * matched by the one rail matching, core/rail.h, as `preflight --from`
 * matches them: subnet, the switch or LLDP leaf each port reaches, ...),
 * else the same device name and port number. Server models name their
 * HCAs differently (one DGX model's compute HCAs are mlx5_0..mlx5_7,
 * another's mlx5_2..mlx5_9 behind two storage ports: tests/data/rails/
 * ib-shifted-names.json), so a name stands for a rail only where no rail
 * was read.
 */
#include <stdio.h>
#include <string.h>

#include "core/out.h"
#include "core/util.h"
#include "diag/diag.h"

int diag_rail_of(const json_t *set, const char *node, const char *dev, int port)
{
	char key[96];
	const json_t *r;

	snprintf(key, sizeof(key), "%s:%d", dev, port);
	r = json_object_get(json_object_get(json_object_get(set, "rail_of"), node), key);
	return json_is_integer(r) ? (int)json_integer_value(r) : -1;
}

/* The rail of evidence port @e in @rails, or -1. */
static int ev_rail(const json_t *rails, const json_t *e)
{
	return diag_rail_of(rails, fc_jstr(e, "node", ""), fc_jstr(e, "device", ""),
			    (int)fc_jnum(e, "port", 0));
}

int diag_same_port(const json_t *rails, const json_t *a, const json_t *b)
{
	int ra = ev_rail(rails, a), rb = ev_rail(rails, b);

	if (!strcmp(fc_jstr(a, "node", ""), fc_jstr(b, "node", "")))
		return 0;
	if (ra >= 0 && rb >= 0)
		return ra == rb ? DIAG_PEER_BY_RAIL : 0;
	return !strcmp(fc_jstr(a, "device", ""), fc_jstr(b, "device", "")) &&
			       fc_jnum(a, "port", 0) == fc_jnum(b, "port", 0)
		       ? DIAG_PEER_BY_NAME
		       : 0;
}

void diag_peer_note(const json_t *rails, const json_t *e, char *buf, size_t len)
{
	int r = ev_rail(rails, e);

	*buf = 0;
	if (r >= 0)
		snprintf(buf, len, " (its peers: the ports on its rail, rail %d (%s), matched by %s)", r,
			 json_string_value(json_array_get(json_object_get(rails, "names"), (size_t)r))
				 ?: "?",
			 fc_jstr(rails, "matched_by", "?"));
}
