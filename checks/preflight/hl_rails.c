/*
 * health's rail plan from the store (issue 38 item 1): one node alone
 * cannot tell a rail port from a spare, a storage or a management port,
 * but the rack's last matrix run that held this node matched its ports to
 * the rack's rails (params "rails" "ports", matrix/mx_rails.c): those
 * devices are this node's GPU fabric, the ones judged for a drain.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "checks/preflight/health.h"
#include "core/out.h"
#include "ctl/drain.h"
#include "store/store.h"

/* How many of the newest matrix runs are read for one that held the
 * node (each health check adds a run of its own: only matrix runs are
 * read, by kind, one at a time). */
#define HL_RAILS_RUNS 10

/* Run @r's rail devices of @node into the comma list @list; 1 when it
 * has some. */
static int run_rails(const struct fc_store_run *r, const char *node, char *list, size_t len)
{
	const json_t *ports = json_object_get(json_object_get(r->params, "rails"), "ports");
	const json_t *mine = json_object_get(ports, node), *p;
	size_t i, off = 0;

	list[0] = 0;
	json_array_foreach(mine, i, p) {
		const char *dev = fc_jstr(p, "device", "");

		/* a name the store holds is checked before it is used */
		if (!*dev || !fc_drain_device_ok(dev) || off + strlen(dev) + 2 > len)
			continue;
		off += (size_t)snprintf(list + off, len - off, "%s%s", off ? "," : "", dev);
	}
	return off > 0;
}

int64_t hl_rails_from_store(const char *db, const char *node, char *list, size_t len,
			    double *started_p)
{
	int64_t ids[HL_RAILS_RUNS], found = 0;
	struct fc_store *st;
	int n = 0;

	*started_p = 0;
	if (!len)
		return 0;
	list[0] = 0;
	if (!db || access(db, R_OK) || !(st = fc_store_open_ro(db)))
		return 0;
	ids[0] = fc_store_run_latest(st, "matrix");
	if (ids[0] > 0) {
		n = fc_store_runs_before(st, "matrix", ids[0], HL_RAILS_RUNS - 1, ids + 1);
		n = n < 0 ? 1 : n + 1;
	}
	for (int k = 0; k < n && !found; k++) {
		struct fc_store_run r;

		if (fc_store_run_get(st, ids[k], &r))
			continue;
		if (run_rails(&r, node, list, len)) {
			found = r.id;
			*started_p = r.started;
		}
		fc_store_run_release(&r);
	}
	fc_store_close(st);
	if (!found)
		list[0] = 0;
	return found;
}
