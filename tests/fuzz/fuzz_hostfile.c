/* libFuzzer target: the hostfile reader (`--hostfile` of matrix, tui, soak,
 * preflight): any bytes in a file give a node list of valid names or an
 * error, never a crash, a leak or a name fabcheck would refuse on the
 * command line. The input goes through a memfd, as a file would.
 * fuzz-sources: matrix/mx_cli.c ctl/scale.c ctl/launch_opts.c core/opts.c core/cmd.c ctl/chan.c ctl/ssh_mux.c ctl/child.c core/wire.c core/log.c core/util.c core/names.c core/out.c core/summary.c core/dgroup.c core/holders.c core/sched.c core/safefile.c baseline/bl_pair.c core/baseline.c core/pattern.c
 * fuzz-seeds: tests/data/hostfiles/[[:lower:]]*
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/log.h"
#include "core/util.h"
#include "matrix/mx_cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], **nodes = NULL;
	int fd = memfd_create("hostfile", 0), n = 0;

	fc_log_level = -1; /* quiet: bad input is expected here */
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (mx_read_hostfile(path, &nodes, &n) == 0) {
		for (int i = 0; i < n; i++) {
			if (!fc_valid_node_name(nodes[i]))
				abort(); /* a name the command line would refuse */
			free(nodes[i]);
		}
		if (n ? !nodes || nodes[n] : nodes && nodes[0])
			abort(); /* the list is NULL-terminated (NULL when empty) */
		free(nodes);
	}
	close(fd);
	return 0;
}
