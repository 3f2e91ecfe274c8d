/* Controller-worker wire messages, one JSON object a line (see wire.h). */
#include "core/wire.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fc.h"
#include "core/log.h"

void fc_linebuf_init(struct fc_linebuf *lb, size_t max)
{
	memset(lb, 0, sizeof(*lb));
	lb->max = max;
}

void fc_linebuf_release(struct fc_linebuf *lb)
{
	free(lb->buf);
	memset(lb, 0, sizeof(*lb));
}

size_t fc_linebuf_pending(const struct fc_linebuf *lb)
{
	return lb->len - lb->start;
}

static int linebuf_room(struct fc_linebuf *lb, size_t n)
{
	size_t need;
	char *p;

	if (lb->start) {
		memmove(lb->buf, lb->buf + lb->start, lb->len - lb->start);
		lb->len -= lb->start;
		lb->start = 0;
	}
	need = lb->len + n + 1;
	if (need <= lb->cap)
		return 0;
	if (need < 4096)
		need = 4096;
	if (need < lb->cap * 2)
		need = lb->cap * 2;
	p = realloc(lb->buf, need);
	if (!p)
		return -ENOMEM;
	lb->buf = p;
	lb->cap = need;
	return 0;
}

int fc_linebuf_feed(struct fc_linebuf *lb, const char *data, size_t n)
{
	const char *nl;
	size_t tail;

	if (!n)
		return 0;
	if (linebuf_room(lb, n))
		return -ENOMEM;
	memcpy(lb->buf + lb->len, data, n);
	lb->len += n;
	/* The unterminated tail must not pass the limit. */
	nl = memrchr(lb->buf, '\n', lb->len);
	tail = nl ? lb->len - (size_t)(nl - lb->buf) - 1 : lb->len;
	if (tail > lb->max)
		return -E2BIG;
	/* Nor may any complete line inside the chunk. */
	for (const char *s = lb->buf, *e; (e = memchr(s, '\n', lb->len - (size_t)(s - lb->buf)));
	     s = e + 1)
		if ((size_t)(e - s) > lb->max)
			return -E2BIG;
	return 0;
}

int fc_linebuf_next(struct fc_linebuf *lb, char **line_p, size_t *len_p)
{
	char *s, *nl;

	if (lb->start >= lb->len)
		return 0;
	s = lb->buf + lb->start;
	nl = memchr(s, '\n', lb->len - lb->start);
	if (!nl)
		return 0;
	*nl = '\0';
	*line_p = s;
	*len_p = (size_t)(nl - s);
	lb->start += *len_p + 1;
	return 1;
}

const char *fc_wire_type(const json_t *msg)
{
	const char *t = json_string_value(json_object_get(msg, "type"));

	return t ? t : "";
}

static int valid_type(const char *t)
{
	size_t n = strlen(t);

	if (n == 0 || n > 32)
		return 0;
	for (; *t; t++)
		if (!((*t >= 'a' && *t <= 'z') || *t == '_'))
			return 0;
	return 1;
}

int fc_wire_parse(const char *line, size_t len, int version, uint64_t want_seq,
		  json_t **msg_p, int *peer_version_p, char *why, size_t whylen)
{
	json_error_t jerr;
	json_t *msg, *v, *seq;
	const char *type;

	if (len > FC_WIRE_MAX_LINE) {
		snprintf(why, whylen, "message of %zu bytes is over the %d-byte limit", len,
			 FC_WIRE_MAX_LINE);
		return -E2BIG;
	}
	if (memchr(line, '\0', len)) {
		snprintf(why, whylen, "message holds a NUL byte");
		return -EPROTO;
	}
	msg = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!msg) {
		snprintf(why, whylen, "message is not JSON (%s at column %d)", jerr.text,
			 jerr.column);
		return -EPROTO;
	}
	if (!json_is_object(msg)) {
		snprintf(why, whylen, "message is not a JSON object");
		goto bad;
	}
	v = json_object_get(msg, "v");
	if (!json_is_integer(v)) {
		snprintf(why, whylen, "message has no protocol version \"v\"");
		goto bad;
	}
	if (json_integer_value(v) != version) {
		json_int_t pv = json_integer_value(v);

		if (peer_version_p)
			*peer_version_p = pv > 0 && pv < 1000000 ? (int)pv : -1;
		snprintf(why, whylen,
			 "it speaks wire protocol %lld, this fabcheck speaks %d: install the same fabcheck version on every node",
			 (long long)pv, version);
		goto bad;
	}
	seq = json_object_get(msg, "seq");
	if (!json_is_integer(seq) || json_integer_value(seq) < 0) {
		snprintf(why, whylen, "message has no sequence number \"seq\"");
		goto bad;
	}
	if ((uint64_t)json_integer_value(seq) != want_seq) {
		snprintf(why, whylen, "message %lld is out of order: expected %llu",
			 (long long)json_integer_value(seq), (unsigned long long)want_seq);
		goto bad;
	}
	type = json_string_value(json_object_get(msg, "type"));
	if (!type || !valid_type(type)) {
		snprintf(why, whylen, "message %llu has no valid \"type\"",
			 (unsigned long long)want_seq);
		goto bad;
	}
	*msg_p = msg;
	return 0;
bad:
	json_decref(msg);
	return -EPROTO;
}

char *fc_wire_format(int version, uint64_t seq, const char *type, const json_t *body)
{
	json_t *msg = body ? json_deep_copy(body) : json_object();
	char *s, *line;
	size_t n;

	if (!msg || !json_is_object(msg)) {
		json_decref(msg);
		errno = EINVAL;
		return NULL;
	}
	json_object_set_new(msg, "v", json_integer(version));
	json_object_set_new(msg, "seq", json_integer((json_int_t)seq));
	json_object_set_new(msg, "type", json_string(type));
	s = json_dumps(msg, JSON_COMPACT | JSON_REAL_PRECISION(17));
	json_decref(msg);
	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	n = strlen(s);
	if (n > FC_WIRE_MAX_LINE) {
		free(s);
		errno = E2BIG;
		return NULL;
	}
	line = realloc(s, n + 2);
	if (!line) {
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	line[n] = '\n';
	line[n + 1] = '\0';
	return line;
}

int fc_wire_in_fill(struct fc_wire_in *in, int fd)
{
	char buf[8192];
	ssize_t n = read(fd, buf, sizeof(buf));

	if (n < 0 && errno == EINTR)
		return 0;
	if (n <= 0) {
		in->eof = 1;
		return -EPIPE;
	}
	if (fc_linebuf_feed(&in->lb, buf, (size_t)n)) {
		fc_err("refused the controller's input: a line over %d bytes", FC_WIRE_MAX_LINE);
		in->proto_err = 1;
		return -EPROTO;
	}
	return 0;
}

int fc_wire_in_next(struct fc_wire_in *in, json_t **msg_p)
{
	char *line, why[512];
	size_t len;

	while (fc_linebuf_next(&in->lb, &line, &len)) {
		if (fc_wire_parse(line, len, FC_WIRE_VERSION, in->rx_seq + 1, msg_p, NULL, why,
				  sizeof(why))) {
			fc_err("refused a message from the controller: %s", why);
			in->proto_err = 1;
			return -EPROTO;
		}
		in->rx_seq++;
		if (strcmp(fc_wire_type(*msg_p), "ping"))
			return 1;
		in->pings++;
		json_decref(*msg_p);
	}
	return 0;
}
