/*
 * Fuzzes the controller-worker wire: the byte stream is split into lines
 * (in chunks of the sizes the first bytes choose) and each line is parsed as
 * the next message. Whatever parses must format and parse again unchanged.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/fc.h"
#include "core/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_line(const char *line, size_t len, uint64_t *seq)
{
	char why[256], *again;
	json_t *msg = NULL, *msg2 = NULL;
	int peer = 0;

	if (fc_wire_parse(line, len, FC_WIRE_VERSION, *seq + 1, &msg, &peer, why, sizeof(why))) {
		if (msg || !why[0])
			abort(); /* a refusal must say why and return nothing */
		return;
	}
	(*seq)++;
	again = fc_wire_format(FC_WIRE_VERSION, *seq, fc_wire_type(msg), msg);
	if (again) {
		if (fc_wire_parse(again, strlen(again) - 1, FC_WIRE_VERSION, *seq, &msg2, NULL,
				  why, sizeof(why)))
			abort();
		if (!json_equal(msg, msg2))
			abort();
		json_decref(msg2);
		free(again);
	}
	json_decref(msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fc_linebuf lb;
	size_t off = 0, chunk = size ? (size_t)data[0] % 64 + 1 : 1;
	uint64_t seq = 0;
	char *line;
	size_t len;

	fc_linebuf_init(&lb, 4096);
	while (off < size) {
		size_t n = size - off < chunk ? size - off : chunk;

		if (fc_linebuf_feed(&lb, (const char *)data + off, n))
			break;
		off += n;
		while (fc_linebuf_next(&lb, &line, &len))
			check_line(line, len, &seq);
	}
	fc_linebuf_release(&lb);
	return 0;
}
