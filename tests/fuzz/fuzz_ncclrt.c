/*
 * Fuzzes what `nccl run` reads from the other side of the wire: a JSON
 * object taken as the controller's "setup" message (ncr_params_from_json)
 * and, when that passes, as a rank's "result" for those parameters
 * (ncr_result_from_json), plus the unique-id hex codec. What is accepted must
 * be in range and survive a format / parse round trip.
 * fuzz-sources: checks/nccl/run/ncclrt.c core/out.c core/summary.c core/dgroup.c core/holders.c core/log.c core/util.c core/names.c core/safefile.c
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checks/nccl/run/ncclrt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_params(const json_t *m)
{
	struct ncr_params p, q;
	struct ncr_rank_result r, r2;
	char why[256];
	json_t *again;

	if (ncr_params_from_json(m, &p, why, sizeof(why))) {
		if (!why[0])
			abort();
		return;
	}
	if (p.rank < 0 || p.rank >= p.nranks || p.min_bytes > p.max_bytes || p.factor < 2 ||
	    p.iters < 1 || !(p.timeout > 0))
		abort();
	again = ncr_params_json(&p);
	if (ncr_params_from_json(again, &q, why, sizeof(why)) || memcmp(&p, &q, sizeof(p)))
		abort();
	json_decref(again);
	if (ncr_result_from_json(m, &p, &r, why, sizeof(why)))
		return;
	again = ncr_result_json(&r);
	if (ncr_result_from_json(again, &p, &r2, why, sizeof(why)) || r2.nsizes != r.nsizes)
		abort();
	json_decref(again);
	again = ncr_table(p.op, &r, 1);
	if (json_array_size(again) != (size_t)r.nsizes)
		abort();
	json_decref(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t id[NCR_ID_BYTES], id2[NCR_ID_BYTES];
	char hex[2 * NCR_ID_BYTES + 1], *text = malloc(size + 1);
	json_t *m;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (!ncr_hex_decode(text, id, NCR_ID_BYTES)) {
		ncr_hex_encode(id, NCR_ID_BYTES, hex);
		if (ncr_hex_decode(hex, id2, NCR_ID_BYTES) || memcmp(id, id2, sizeof(id)))
			abort();
	}
	m = json_loadb(text, size, JSON_DECODE_ANY, NULL);
	if (json_is_object(m))
		check_params(m);
	json_decref(m);
	free(text);
	return 0;
}
