/* libFuzzer target: the `nvidia-smi topo -m` text parser and what reads its
 * result (cells, nearest NICs, islands, the JSON summary).
 * Run with a scratch corpus folder FIRST: libFuzzer writes new inputs into the
 * first folder it is given, so never make that the shared fixtures:
 *   ./fuzz_topo -max_total_time=20 "$(mktemp -d)" "$FABCHECK_SHARED/fixtures/topo"
 * fuzz-seeds: $SHARED/fixtures/topo/[[:alnum:]]*.txt tests/real/topo/[[:alnum:]]*.txt
 */
#include <stdint.h>
#include <stdlib.h>

#include "topo/nvsmi_topo.h"
#include "core/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nvsmi_topo *m;
	int comp[NVSMI_MAX_COLS], near[NVSMI_MAX_COLS];
	json_t *j;

	fc_log_level = -1; /* quiet: bad input is expected here */
	if (nvsmi_topo_parse((const char *)data, size, "fuzz", &m))
		return 0;
	for (int c = 0; c < m->ncols; c++) {
		nvsmi_topo_nearest_nics(m, c, near, NVSMI_MAX_COLS);
		for (int d = 0; d < m->ncols; d++)
			nvsmi_cell_rank(nvsmi_topo_cell(m, c, d));
	}
	nvsmi_topo_islands(m, comp);
	j = nvsmi_topo_summary(m);
	json_decref(j);
	free(m);
	return 0;
}
