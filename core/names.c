/* The one check of names from workers, stores, hostfiles, evidence (names.h). */
#include "core/names.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/log.h"

static const struct {
	const char *what;  /* "a node", for messages */
	const char *extra; /* characters allowed besides letters and digits */
	size_t max;
	int hex;	   /* hex digits only instead of letters and digits */
} kinds[] = {
	[FC_NAME_NODE] = { "node", "-_.@:", 253, 0 }, /* no [ ]: glob characters */
	[FC_NAME_DEV] = { "RDMA device", "-_.", 63, 0 },
	[FC_NAME_NETDEV] = { "net device", "-_.", 15, 0 },
	[FC_NAME_BDF] = { "PCI address", ":.", 16, 1 },
	[FC_NAME_RAIL] = { "rail", "-_.", 63, 0 },
};

const char *fc_name_why(enum fc_name_kind kind, const char *s)
{
	static __thread char why[48];
	size_t n;

	if ((unsigned)kind >= sizeof(kinds) / sizeof(kinds[0]))
		return "unknown kind of name";
	if (!s || !*s)
		return "it is empty";
	n = strnlen(s, kinds[kind].max + 1);
	if (n > kinds[kind].max) {
		snprintf(why, sizeof(why), "longer than %zu characters", kinds[kind].max);
		return why;
	}
	if (*s == '-' || *s == '.')
		return "it begins with '-' or '.'";
	for (const char *p = s; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if ((kinds[kind].hex ? isxdigit(c) : isalnum(c)) || strchr(kinds[kind].extra, c))
			continue;
		if (c > 0x20 && c < 0x7f)
			snprintf(why, sizeof(why), "it holds '%c'", c);
		else
			snprintf(why, sizeof(why), "it holds the byte 0x%02x", c);
		return why;
	}
	return NULL;
}

int fc_name_check(enum fc_name_kind kind, const char *s, const char *from)
{
	const char *why = fc_name_why(kind, s);
	char shown[96];

	if (!why)
		return 0;
	fc_err("%s: '%s' is not a valid %s name (%s): a name holds letters, digits and "
	       "\"%s\" only, at most %zu characters, and does not begin with '-' or '.'; fix "
	       "the name where it came from", from, fc_name_show(s ? s : "", shown, sizeof(shown)),
	       kinds[kind].what, why, kinds[kind].extra, kinds[kind].max);
	return -EINVAL;
}

const char *fc_name_or_unknown(enum fc_name_kind kind, const char *s, const char *from)
{
	const char *why = s ? fc_name_why(kind, s) : NULL;
	char shown[96];

	if (!s || !strcmp(s, "?")) /* "?": what a worker sends for an unknown one */
		return "?";
	if (!why)
		return s;
	fc_warn("%s: '%s' is not a valid %s name (%s): shown as '?'", from,
		fc_name_show(s, shown, sizeof(shown)), kinds[kind].what, why);
	return "?";
}

const char *fc_name_show(const char *s, char *buf, size_t len)
{
	size_t o = 0, keep = 0; /* keep: the last end at which "..." still fits */

	if (!len)
		return buf;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char piece[8];
		size_t k;

		if (c == '\\')
			k = (size_t)snprintf(piece, sizeof(piece), "\\\\");
		else if (c < 0x20 || c > 0x7e)
			k = (size_t)snprintf(piece, sizeof(piece), "\\x%02x", c);
		else
			k = (size_t)snprintf(piece, sizeof(piece), "%c", c);
		if (o + k + 1 > len) {
			snprintf(buf + keep, len - keep, "...");
			return buf;
		}
		memcpy(buf + o, piece, k);
		o += k;
		if (o + 4 <= len)
			keep = o;
	}
	buf[o] = '\0';
	return buf;
}

int fc_valid_node_name(const char *name)
{
	return fc_name_ok(FC_NAME_NODE, name);
}
