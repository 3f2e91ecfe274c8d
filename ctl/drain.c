/* Draining and resuming the nodes a run named, in Slurm (see drain.h). */
#include "ctl/drain.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/names.h"
#include "core/out.h"
#include "core/util.h"
#include "ctl/child.h"
#include "store/store.h"


/* A byte a reason keeps: letters, digits, blank and "_.,:;/()+=@%-";
 * nothing a shell would read in the printed command ('"', '$', '`', '\\',
 * '!'), nothing outside printable ASCII. */
static int reason_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr(" _.,:;/()+=@%-", c));
}

/* Appends @s to @buf (@len, at @*at) with each byte a reason does not
 * keep as '?'. */
static void put_clean(char *buf, size_t len, size_t *at, const char *s)
{
	for (; s && *s && *at + 1 < len; s++)
		buf[(*at)++] = reason_byte((unsigned char)*s) ? *s : '?';
	buf[*at < len ? *at : len - 1] = 0;
}

int fc_drain_device_ok(const char *device)
{
	return !device || !*device || fc_name_ok(FC_NAME_DEV, device) ||
	       fc_name_ok(FC_NAME_NETDEV, device);
}

size_t fc_drain_reason(char *buf, size_t len, const char *part, const char *device,
		       const char *kind, int64_t run)
{
	return fc_drain_reason_across(buf, len, part, device, kind, run, 0);
}

size_t fc_drain_reason_across(char *buf, size_t len, const char *part, const char *device,
			      const char *kind, int64_t run, int across)
{
	char tail[96], over[40] = "";
	size_t at = 0, room;

	if (!len)
		return 0;
	if (across > 1)
		snprintf(over, sizeof(over), " across %d nodes", across);
	if (run > 0)
		snprintf(tail, sizeof(tail), " (%.20s run %lld%s)", kind ? kind : "fabcheck",
			 (long long)run, over);
	else
		snprintf(tail, sizeof(tail), " (%.20s%s)", kind ? kind : "fabcheck", over);
	room = len < FC_DRAIN_REASON_MAX + 1 ? len : FC_DRAIN_REASON_MAX + 1;
	/* The run's tail is kept whole: the part and the device give way. */
	room = room > strlen(tail) + 1 ? room - strlen(tail) : 1;
	buf[0] = 0;
	put_clean(buf, room, &at, FC_DRAIN_PREFIX);
	put_clean(buf, room, &at, part && *part ? part : "failed check");
	if (device && *device) {
		put_clean(buf, room, &at, " on ");
		/* A name the one check refuses never reaches the command. */
		put_clean(buf, room, &at, fc_drain_device_ok(device) ? device : "a device with an invalid name");
	}
	room = len < FC_DRAIN_REASON_MAX + 1 ? len : FC_DRAIN_REASON_MAX + 1;
	put_clean(buf, room, &at, tail);
	return at;
}

/* A reason of fabcheck's cut in its parts: the body after the prefix,
 * its tail "(...)" (or its end) and the last " on " before it (NULL:
 * none; no part names one). -1 when it is not one of fabcheck's. */
static int reason_split(const char *reason, const char **body, const char **tail,
			const char **last_on)
{
	const char *on;

	if (!fc_drain_is_ours(reason))
		return -1;
	*body = reason + strlen(FC_DRAIN_PREFIX);
	*tail = strrchr(*body, '(');
	if (!*tail)
		*tail = *body + strlen(*body);
	*last_on = NULL;
	for (on = *body; (on = strstr(on, " on ")) && on < *tail; on += 4)
		*last_on = on;
	return 0;
}

int fc_drain_reason_read(const char *reason, char *part, size_t plen, int *across)
{
	const char *body, *tail, *on;
	size_t n;

	*across = 0;
	if (plen)
		part[0] = 0;
	if (reason_split(reason, &body, &tail, &on))
		return -1;
	if (*tail && strstr(tail, " across ")) {
		*across = atoi(strstr(tail, " across ") + 8);
		if (*across < 0)
			*across = 0;
	}
	/* The device follows the last " on ". */
	n = (size_t)((on ? on : tail) - body);
	while (n && body[n - 1] == ' ')
		n--;
	if (plen)
		snprintf(part, plen, "%.*s", (int)n, body);
	return 0;
}

void fc_drain_reason_device(const char *reason, char *dev, size_t dlen)
{
	const char *body, *tail, *on;

	if (!dlen)
		return;
	dev[0] = 0;
	if (!reason_split(reason, &body, &tail, &on) && on)
		snprintf(dev, dlen, "%.*s", (int)strcspn(on + 4, " ("), on + 4);
}

int fc_drain_is_ours(const char *reason)
{
	return reason && !strncmp(reason, FC_DRAIN_PREFIX, strlen(FC_DRAIN_PREFIX));
}

int fc_drain_may_resume(const char *state, const char *reason)
{
	return state && strstr(state, "DRAIN") && fc_drain_is_ours(reason);
}

/* The value of "KEY=" at a word's start in @line (up to @end), to the next
 * blank (@to_eol: to the end of the line), into @out. 1 when found. */
static int line_value(const char *line, const char *end, const char *key, int to_eol, char *out,
		      size_t olen)
{
	size_t kl = strlen(key);

	for (const char *p = line; p + kl <= end; p++) {
		const char *v, *e;

		if ((p != line && !isspace((unsigned char)p[-1])) || strncmp(p, key, kl))
			continue;
		v = p + kl;
		for (e = v; e < end && (to_eol || !isspace((unsigned char)*e)); e++)
			;
		snprintf(out, olen, "%.*s", (int)(e - v), v);
		return 1;
	}
	return 0;
}

int fc_slurm_node_parse(const char *text, const char *node, char *state, size_t slen,
			char *reason, size_t rlen)
{
	char name[256] = "";
	int found_state = 0;

	state[0] = reason[0] = 0;
	for (const char *l = text; l && *l;) {
		const char *end = strchr(l, '\n'), *b = l;

		if (!end)
			end = l + strlen(l);
		while (b < end && isspace((unsigned char)*b))
			b++;
		/* The reason runs to the end of its line and may hold any word. */
		if (!strncmp(b, "Reason=", 7)) {
			line_value(b, end, "Reason=", 1, reason, rlen);
		} else {
			if (!name[0])
				line_value(b, end, "NodeName=", 0, name, sizeof(name));
			found_state |= line_value(b, end, "State=", 0, state, slen);
		}
		l = *end ? end + 1 : end;
	}
	if (strcmp(name, node) || !found_state)
		return -ENOENT;
	/* Slurm adds " [user@time]" to the reason it shows. */
	{
		char *tail = strrchr(reason, '[');
		size_t n = strlen(reason);

		if (tail && n && reason[n - 1] == ']' && strchr(tail, '@')) {
			while (tail > reason && tail[-1] == ' ')
				tail--;
			*tail = 0;
		}
	}
	return 0;
}

void fc_drain_target(json_t *targets, const char *node, const char *part, const char *device,
		     const char *text)
{
	json_array_append_new(targets, json_pack("{s:s, s:s, s:s, s:s}", "node", node, "part",
						 part ? part : "", "device", device ? device : "",
						 "text", text ? text : ""));
}

void fc_drain_target_across(json_t *targets, const char *node, const char *part,
			    const char *device, const char *text, int across)
{
	fc_drain_target(targets, node, part, device, text);
	if (across > 1)
		json_object_set_new(json_array_get(targets, json_array_size(targets) - 1), "across",
				    json_integer(across));
}

void fc_drain_unchecked(json_t *doc, const char *node, const char *why)
{
	json_t *list = json_object_get(doc, "unchecked");

	if (!list) {
		list = json_array();
		json_object_set_new(doc, "unchecked", list);
	}
	json_array_append_new(list, json_pack("{s:s, s:s}", "node", node, "why", why ? why : ""));
}
