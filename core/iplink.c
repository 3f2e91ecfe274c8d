/* One interface of iproute2's JSON (see iplink.h). */
#include "core/iplink.h"

#include <ctype.h>
#include <string.h>

static json_t *lower(const char *s)
{
	char buf[32];
	size_t i;

	for (i = 0; s[i] && i + 1 < sizeof(buf); i++)
		buf[i] = (char)tolower((unsigned char)s[i]);
	buf[i] = 0;
	return json_string(buf);
}

json_t *fc_ip_link(const char *text, const char *ifname)
{
	json_t *list = text ? json_loads(text, 0, NULL) : NULL, *e, *o = NULL, *v;
	size_t i;

	json_array_foreach(list, i, e) {
		const char *n = json_string_value(json_object_get(e, "ifname"));

		if (!n || strcmp(n, ifname))
			continue;
		o = json_object();
		if (json_is_integer(v = json_object_get(e, "mtu")))
			json_object_set(o, "mtu", v);
		if (json_is_string(v = json_object_get(e, "operstate")))
			json_object_set_new(o, "operstate", lower(json_string_value(v)));
		if (json_is_string(v = json_object_get(e, "link_type")))
			json_object_set(o, "link_type", v);
		if (json_is_string(v = json_object_get(e, "address")))
			json_object_set(o, "address", v);
		break;
	}
	json_decref(list);
	return o;
}
