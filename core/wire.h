/*
 * Controller-worker wire messages: one JSON object a line,
 *   {"v": FC_WIRE_VERSION, "seq": N, "type": "...", ...}
 * Each direction numbers its messages 1, 2, 3... A line that is too long,
 * not a JSON object, of another protocol version or out of sequence is
 * refused with a reason. Pure code: no file descriptors here.
 */
#ifndef FC_WIRE_H
#define FC_WIRE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* The longest line either side accepts, newline excluded. */
#define FC_WIRE_MAX_LINE (64 * 1024)

/* Splits a byte stream into lines of at most @max bytes. */
struct fc_linebuf {
	char *buf;
	size_t start, len, cap, max;
};

void fc_linebuf_init(struct fc_linebuf *lb, size_t max);
void fc_linebuf_release(struct fc_linebuf *lb);
/* Appends @n bytes. Returns 0, -ENOMEM, or -E2BIG when a line has grown past
 * max without a newline (the stream is then unusable). */
int fc_linebuf_feed(struct fc_linebuf *lb, const char *data, size_t n);
/* Takes the next complete line (without its newline, NUL-terminated; valid
 * until the next call). Returns 1 with *line_p and *len_p set, 0 when none. */
int fc_linebuf_next(struct fc_linebuf *lb, char **line_p, size_t *len_p);
/* Bytes held that do not yet form a line. */
size_t fc_linebuf_pending(const struct fc_linebuf *lb);

/* A worker's side of the channel: what the controller sends on a file
 * descriptor (its stdin), checked message by message. */
struct fc_wire_in {
	struct fc_linebuf lb;
	uint64_t rx_seq; /* the last message taken */
	uint64_t pings;	 /* "ping" messages seen: the controller is alive */
	int eof;	 /* the controller closed the channel */
	int proto_err;	 /* a message was refused: the channel is unusable */
};

/* Reads what @fd has. 0, -EPIPE at end of file, -EPROTO for a line over
 * FC_WIRE_MAX_LINE (logged). */
int fc_wire_in_fill(struct fc_wire_in *in, int fd);
/* The next complete message other than "ping": 1 with *msg_p, 0 when none
 * is complete yet, or -EPROTO for a refused message (logged). */
int fc_wire_in_next(struct fc_wire_in *in, json_t **msg_p);

/*
 * Parses one line. On success returns 0 and *msg_p (a new reference) whose
 * "seq" equals @want_seq and whose "v" equals @version. Otherwise returns
 * -EPROTO (or -E2BIG for a line over FC_WIRE_MAX_LINE) and writes the reason
 * into @why ("message 3 is out of order: expected 2"). When the message is
 * of another version, *peer_version_p (if given) receives it.
 */
int fc_wire_parse(const char *line, size_t len, int version, uint64_t want_seq,
		  json_t **msg_p, int *peer_version_p, char *why, size_t whylen);

/* The message's "type" ("" when absent; parse guarantees a string). */
const char *fc_wire_type(const json_t *msg);

/*
 * Formats @body (an object, or NULL for none; not consumed) as a message of
 * @type numbered @seq, with a trailing newline. Returns a malloc'd string or
 * NULL when it would exceed FC_WIRE_MAX_LINE (errno E2BIG) or on ENOMEM.
 */
char *fc_wire_format(int version, uint64_t seq, const char *type, const json_t *body);

#endif
