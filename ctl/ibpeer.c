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

/* The outcome of asking one port: read, a failure of this port (asked the
 * next one all the same), or a failure of the node's (smpquery could not be
 * started, is not installed or not executable, or gave no answer within its
 * deadline: asking the next port would fail the same way, or wait as long). */
enum { PEER_READ, PEER_PORT_FAILED, PEER_NODE_FAILED };

/* NodeInfo of the neighbour of @dev port @port into @ni; PEER_READ, or the
 * failure and its reason in @why. With @desc (room @dlen), its node
 * description instead: PEER_READ, or PEER_PORT_FAILED (none said: the GUID
 * is what matches the rails). */
static int neighbour(struct fc_src *s, const char *dev, int port, struct fc_smp_nodeinfo *ni,
		     char *why, size_t len, char *desc, size_t dlen)
{
	char p[16], route[24], err[256];
	const char *argv[] = { "smpquery", "-C", dev, "-P", p, "-D", desc ? "nodedesc" : "nodeinfo",
			       route, NULL };
	char *out;
	int code, rc = PEER_PORT_FAILED;

	snprintf(p, sizeof(p), "%d", port);
	snprintf(route, sizeof(route), "0,%d", port);
	out = fc_src_cmd(s, argv, IBPEER_DEADLINE_S, &code, err, sizeof(err));
	if (desc) {
		rc = out && code == 0 && !fc_smp_nodedesc_parse(out, desc, dlen) ? PEER_READ
										 : PEER_PORT_FAILED;
		free(out);
		return rc;
	}
	if (out && code == 0 && !fc_smp_nodeinfo_parse(out, ni))
		rc = PEER_READ;
	else
		snprintf(why, len, "smpquery -C %s -P %d -D nodeinfo %s (infiniband-diags): %s",
			 dev, port, route,
			 !out	     ? err :
			 code != 0 ? (*err ? err : "failed (umad access needs root or read-write "
						   "/dev/infiniband/umad*)") :
				     "no NodeInfo in its output");
	/* exit 126/127: ctl/child.c's child could not exec it (no permission, not found) */
	if (rc != PEER_READ && (!out || code == 126 || code == 127))
		rc = PEER_NODE_FAILED;
	free(out);
	return rc;
}

void fc_ib_switches_add(json_t *devices, json_t *doc)
{
	struct fc_src live;

	fc_src_live(&live, NULL);
	fc_ib_switches_add_src(&live, devices, doc);
}

/* A port not asked, after the node's failure @first: said on the port and,
 * when recording, in the capture's list of inputs not read. */
static void not_asked(struct fc_src *s, const char *dev, int port, json_t *p, const char *first)
{
	char pb[16], route[24], why[600];
	const char *argv[] = { "smpquery", "-C", dev, "-P", pb, "-D", "nodeinfo", route, NULL };

	snprintf(pb, sizeof(pb), "%d", port);
	snprintf(route, sizeof(route), "0,%d", port);
	snprintf(why, sizeof(why), "not asked: %s", first);
	json_object_set_new(p, "switch_error", json_string(why));
	fc_src_skip(s, argv, why);
}

/* One ACTIVE InfiniBand port asked: its outcome kept on @p. */
static int ask_port(struct fc_src *s, const char *dev, json_t *p, char *why, size_t len)
{
	struct fc_smp_nodeinfo ni;
	char desc[72];
	int port = (int)fc_jnum(p, "port", 0);
	int rc = neighbour(s, dev, port, &ni, why, len, NULL, 0);

	if (rc != PEER_READ) {
		json_object_set_new(p, "switch_error", json_string(why));
		return rc;
	}
	if (ni.local_port >= 0)
		json_object_set_new(p, "peer_port", json_integer(ni.local_port));
	if (strcmp(ni.type, "Switch")) {
		json_object_set_new(p, "peer_type", json_string(ni.type));
		return rc;
	}
	json_object_set_new(p, "switch_guid", json_string(ni.guid));
	/* its name, for the notes (the GUID matches) */
	if (neighbour(s, dev, port, &ni, why, len, desc, sizeof(desc)) == PEER_READ)
		json_object_set_new(p, "switch_desc", json_string(desc));
	return rc;
}

void fc_ib_switches_add_src(struct fc_src *s, json_t *devices, json_t *doc)
{
	char why[512], first[512] = "";
	int failed = 0, asked = 0, node_failed = 0;
	size_t i, j;
	json_t *d, *p;

	json_array_foreach(devices, i, d) {
		json_array_foreach(json_object_get(d, "ports"), j, p) {
			const char *dev = fc_jstr(d, "name", "?");
			int rc;

			if (strcmp(fc_jstr(p, "link_layer", ""), "InfiniBand") ||
			    strcmp(fc_jstr(p, "state", ""), "ACTIVE"))
				continue;
			asked++;
			if (node_failed) {
				not_asked(s, dev, (int)fc_jnum(p, "port", 0), p, first);
				failed++;
				continue;
			}
			rc = ask_port(s, dev, p, why, sizeof(why));
			if (rc == PEER_READ)
				continue;
			if (!failed++)
				snprintf(first, sizeof(first), "%s", why);
			node_failed = rc == PEER_NODE_FAILED;
		}
	}
	if (failed)
		json_object_set_new(doc, "switch_note",
				    json_sprintf("the switch each InfiniBand port reaches is not read "
						 "on %d of %d ports (each port's switch_error says "
						 "why): %s", failed, asked, first));
}
