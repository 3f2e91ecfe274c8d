/* fabcheck nccl-worker: the node's topology, for the log's expectations. */
#include <stdlib.h>

#include "topo/pcitopo.h"
#include "topo/topo_report.h"
#include "core/out.h"
#include "checks/nccl/run/nccl_wk.h"

json_t *ncw_node_topo(void)
{
	struct topo_view *v;
	struct topo *t = NULL;
	json_t *doc;

	if (topo_load(getenv("FABCHECK_SYSFS"), &t))
		return json_null();
	if (!t->ngpus && !t->nnics) {
		topo_free(t);
		return json_null();
	}
	v = calloc(1, sizeof(*v));
	doc = fc_doc_new();
	if (!v || !doc) {
		free(v);
		json_decref(doc);
		topo_free(t);
		return json_null();
	}
	topo_view_from_sysfs(v, t, NULL, doc);
	topo_view_report(v, doc);
	topo_sysfs_report(t, v, doc);
	free(v);
	topo_free(t);
	return doc;
}
