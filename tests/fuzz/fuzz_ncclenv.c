/* libFuzzer target: the env-file shell splitter of `nccl env --file` (shell
 * assignments, export, env, mpirun -x / -genv, csh setenv, docker -e, quotes,
 * backslash continuations, comments): any text gives NCCL_* variables with
 * names and values, or an error naming the line, never a crash or a leak.
 * fuzz-sources: checks/nccl/env/ncclenv_parse.c core/log.c core/util.c core/names.c core/out.c core/summary.c core/dgroup.c core/holders.c core/safefile.c
 * fuzz-seeds: tests/data/ncclenv/[[:lower:]]*.env tests/data/ncclenv/[[:lower:]]*.sh
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checks/nccl/env/ncclenv.h"
#include "core/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ncclenv_vars vs = { 0 };
	char *text = malloc(size + 1);

	fc_log_level = -1; /* quiet: bad input is expected here */
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	if (ncclenv_parse(text, "fuzz", &vs) == 0) {
		for (size_t i = 0; i < vs.n; i++)
			if (strncmp(vs.v[i].name, "NCCL_", 5) || !vs.v[i].value)
				abort(); /* only NCCL_* names, each with a value */
	}
	ncclenv_vars_free(&vs);
	free(text);
	return 0;
}
