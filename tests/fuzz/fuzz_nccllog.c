/*
 * Fuzzes the NCCL log parser: the bytes are fed as log text in chunks whose
 * size the first byte chooses (so line assembly across chunk borders is
 * exercised), then the report is built with expectations the second byte
 * chooses, dumped as JSON (every string must be valid UTF-8) and rendered.
 *
 * fuzz-sources: checks/nccl/log/nccllog_*.c checks/nccl/env/ncclenv_check.c checks/nccl/env/ncclenv_kb.c checks/nccl/env/ncclenv_names.c checks/nccl/env/ncclenv_parse.c core/log.c core/util.c core/names.c core/out.c core/summary.c core/dgroup.c core/holders.c core/busbw.c core/safefile.c
 * Build: clang -g -O1 -fsanitize=fuzzer,address,undefined -I. \
 *          tests/fuzz/fuzz_nccllog.c checks/nccl/log/nccllog_*.c core/log.c core/util.c core/names.c \
 *          core/out.c -ljansson -o /tmp/fuzz_nccllog
 * Run with a scratch corpus first: libFuzzer writes new inputs into the first
 * folder, so never name the shared fixtures first:
 *   /tmp/fuzz_nccllog -max_total_time=20 /tmp/corpus $FABCHECK_SHARED/fixtures/nccl-logs
 * fuzz-seeds: $SHARED/fixtures/nccl-logs/[[:alnum:]]*.log tests/data/nccl/logs/[[:alnum:]]*.log
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "checks/nccl/log/nccllog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static json_t *topo_doc(void)
{
	static json_t *topo;

	if (!topo)
		topo = json_pack("{s:[{s:s, s:s, s:[s]}, {s:s, s:s, s:[s, s]}], s:[]}", "gpus",
				 "name", "GPU0", "bus_id", "0000:07:00.0", "nearest_nics",
				 "mlx5_0", "name", "GPU1", "bus_id", "0000:0b:00.0",
				 "nearest_nics", "mlx5_1", "mlx5_2", "nics");
	return topo;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const hcas[] = { "mlx5_0", "mlx5_1:1" };
	struct ncl_expect exp = { 0 };
	struct ncl_log *lg;
	size_t chunk = 1, off = 2;
	json_t *doc;
	char *dump;
	FILE *devnull;

	if (size < 2)
		return 0;
	chunk = data[0] ? data[0] : size;
	exp.gdr = data[1] & 1;
	exp.net = data[1] & 2 ? "IB" : data[1] & 4 ? "Socket" : NULL;
	if (data[1] & 8) {
		exp.hcas = hcas;
		exp.nhcas = 2;
	}
	if (data[1] & 16)
		exp.topo = topo_doc();
	lg = ncl_log_new();
	if (!lg)
		return 0;
	for (; off < size; off += chunk)
		ncl_log_feed(lg, (const char *)data + off, size - off < chunk ? size - off : chunk);
	ncl_log_end_file(lg, "fuzz");
	if (data[1] & 32) { /* a second file */
		ncl_log_feed(lg, (const char *)data + 2, (size - 2) / 2);
		ncl_log_end_file(lg, NULL);
	}
	doc = ncl_log_report(lg, &exp);
	if (!doc)
		abort();
	dump = json_dumps(doc, JSON_COMPACT);
	if (!dump)
		abort(); /* only invalid UTF-8 or a NULL value makes this fail */
	free(dump);
	devnull = fopen("/dev/null", "w");
	if (devnull) {
		ncl_render(devnull, doc);
		fclose(devnull);
	}
	json_decref(doc);
	ncl_log_free(lg);
	return 0;
}
