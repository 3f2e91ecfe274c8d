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
