/* LLDP neighbours from lldpctl -f json (see lldp.h). */
#include "core/lldp.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The object of interface @ifname: in the object, or in one of the list's. */
static const json_t *iface(const json_t *doc, const char *ifname)
{
	const json_t *ifs = json_object_get(json_object_get(doc, "lldp"), "interface"), *e;
	size_t i;

	if (json_is_object(ifs))
		return json_object_get(ifs, ifname);
	json_array_foreach(ifs, i, e)
		if (json_object_get(e, ifname))
			return json_object_get(e, ifname);
	return NULL;
}

static const char *id_value(const json_t *o)
{
	return json_string_value(json_object_get(json_object_get(o, "id"), "value"));
}

/* json0 (`lldpcli -f json0`, lldpd's src/client/json_writer.c: every value
 * in a list, names as values): "lldp": [{"interface": [{"name": IF,
 * "chassis": [{"id": [{"value"}], "name": [{"value"}]}], "port": [{"id":
 * [{"value"}], "descr": [{"value"}]}]}]}]. The first value of @key of @o. */
static const char *v0(const json_t *o, const char *key)
{
	return json_string_value(
		json_object_get(json_array_get(json_object_get(o, key), 0), "value"));
}

static int neighbour0(const json_t *doc, const char *ifname, char *chassis, size_t clen,
		      char *port, size_t plen)
{
	const json_t *ifs = json_object_get(json_array_get(json_object_get(doc, "lldp"), 0),
					    "interface");
	const json_t *e, *ch, *pt;
	const char *name;
	size_t i;

	json_array_foreach(ifs, i, e) {
		const char *n = json_string_value(json_object_get(e, "name"));

		if (!n || strcmp(n, ifname))
			continue;
		ch = json_array_get(json_object_get(e, "chassis"), 0);
		name = v0(ch, "name") ? v0(ch, "name") : v0(ch, "id");
		if (!name || !*name)
			return -ENOENT;
		snprintf(chassis, clen, "%s", name);
		pt = json_array_get(json_object_get(e, "port"), 0);
		name = v0(pt, "id") ? v0(pt, "id") : v0(pt, "descr");
		snprintf(port, plen, "%s", name ? name : "");
		return 0;
	}
	return -ENOENT;
}

int fc_lldp_neighbour(const json_t *doc, const char *ifname, char *chassis, size_t clen,
		      char *port, size_t plen)
{
	const json_t *in = iface(doc, ifname), *ch = json_object_get(in, "chassis"), *pt;
	const char *name = NULL, *key;
	json_t *v;

	chassis[0] = port[0] = 0;
	if (json_is_array(json_object_get(doc, "lldp")))
		return neighbour0(doc, ifname, chassis, clen, port, plen);
	if (!json_is_object(ch))
		return -ENOENT;
	if (json_object_get(ch, "id")) { /* no system name: the chassis id */
		name = id_value(ch);
	} else {
		json_object_foreach((json_t *)ch, key, v) {
			name = key;
			break;
		}
	}
	if (!name || !*name)
		return -ENOENT;
	snprintf(chassis, clen, "%s", name);
	pt = json_object_get(in, "port");
	name = id_value(pt);
	if (!name)
		name = json_string_value(json_object_get(pt, "descr"));
	snprintf(port, plen, "%s", name ? name : "");
	return 0;
}
