/* A cause of loss outside the nodes (see hostloss.h). */
#include "core/hostloss.h"

#include <string.h>

#include "core/out.h"

double (*fc_host_loss)(const char *node, const char *ip, char *why, size_t len);

double fc_host_loss_side(const json_t *side, char *why, size_t len)
{
	const char *gid, *v4;

	if (!fc_host_loss || !side)
		return 0;
	/* a RoCE GID of an IPv4 address is its IPv4-mapped IPv6 form
	 * (::ffff:a.b.c.d, IBTA RoCE v2 annex A17.4.5.2) */
	gid = fc_jstr(side, "gid", "");
	v4 = strncmp(gid, "::ffff:", 7) ? NULL : gid + 7;
	return v4 ? fc_host_loss(fc_jstr(side, "host", ""), v4, why, len) : 0;
}

/* 1 when an entry of @list is about @side's node and device. */
static int listed(const json_t *list, const json_t *side)
{
	const json_t *e;
	size_t i;

	json_array_foreach(list, i, e)
		if (!strcmp(fc_jstr(e, "node", ""), fc_jstr(side, "node", "?")) &&
		    !strcmp(fc_jstr(e, "device", ""), fc_jstr(side, "device", "?")))
			return 1;
	return 0;
}

int fc_host_loss_recorded(const json_t *test)
{
	const json_t *list = json_object_get(test, "host_loss");

	return listed(list, json_object_get(test, "a")) && listed(list, json_object_get(test, "b"));
}

size_t fc_host_loss_lists(const json_t *doc, const json_t **out, size_t max)
{
	static const char *const phases[] = { "alone", "loaded" };
	const json_t *r, *l;
	size_t n = 0, i;

	if ((l = json_object_get(doc, "host_loss")) && n < max)
		out[n++] = l;
	json_array_foreach(json_object_get(doc, "rails"), i, r)
		for (int k = 0; k < 2; k++)
			if ((l = json_object_get(json_object_get(r, phases[k]), "host_loss")) && n < max)
				out[n++] = l;
	return n;
}
