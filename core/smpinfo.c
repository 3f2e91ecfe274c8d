/* smpquery nodeinfo output (see smpinfo.h). */
#include "core/smpinfo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The value of line @line if its key is @key ("Guid:.....0x1" -> "0x1"),
 * up to the end of the line, into @buf; 0 when the key differs. */
static int line_value(const char *line, const char *key, char *buf, size_t len)
{
	size_t k = strlen(key), n;
	const char *v;

	if (strncmp(line, key, k) || line[k] != ':')
		return 0;
	v = line + k + 1;
	v += strspn(v, ". \t");
	n = strcspn(v, "\r\n");
	while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	snprintf(buf, len, "%.*s", (int)(n < len - 1 ? n : len - 1), v);
	return 1;
}

static int guid_norm(const char *v, char *out, size_t len)
{
	unsigned long long g;
	size_t digits;

	if (strncmp(v, "0x", 2))
		return -EINVAL;
	digits = strspn(v + 2, "0123456789abcdefABCDEF");
	if (!digits || digits > 16 || v[2 + digits])
		return -EINVAL;
	g = strtoull(v, NULL, 16);
	snprintf(out, len, "0x%016llx", g);
	return 0;
}

int fc_smp_nodeinfo_parse(const char *text, struct fc_smp_nodeinfo *out)
{
	char v[64];
	int guid = 0;

	memset(out, 0, sizeof(*out));
	out->local_port = out->num_ports = -1;
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (line_value(l, "NodeType", v, sizeof(v)))
			snprintf(out->type, sizeof(out->type), "%.23s", v);
		else if (line_value(l, "Guid", v, sizeof(v)))
			guid = !guid_norm(v, out->guid, sizeof(out->guid));
		else if (line_value(l, "LocalPort", v, sizeof(v)))
			out->local_port = atoi(v);
		else if (line_value(l, "NumPorts", v, sizeof(v)))
			out->num_ports = atoi(v);
	}
	return out->type[0] && guid ? 0 : -EINVAL;
}

int fc_smp_nodedesc_parse(const char *text, char *buf, size_t len)
{
	static const char key[] = "Node Description:";

	buf[0] = 0;
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		size_t n, i;

		if (strncmp(l, key, sizeof(key) - 1))
			continue;
		l += sizeof(key) - 1;
		l += strspn(l, ".");
		n = strcspn(l, "\r\n");
		for (i = 0; i < n && i + 1 < len; i++)
			buf[i] = l[i] >= 0x20 && l[i] < 0x7f ? l[i] : '?';
		buf[i] = 0;
		while (i > 0 && buf[i - 1] == ' ')
			buf[--i] = 0;
		return buf[0] ? 0 : -EINVAL;
	}
	return -EINVAL;
}
