/* A stored run's results against the fleet's baseline (see bl_pair.h). */
#include <stdio.h>

#include "baseline/bl_pair.h"
#include "core/out.h"
#include "store/store.h"

static int judge_pair(const struct fc_store_pair *p, void *arg)
{
	json_t *d = p->doc ? json_loads(p->doc, 0, NULL) : NULL;

	if (d)
		fc_bl_judge_doc(arg, d);
	json_decref(d);
	return 0;
}

int fc_bl_judge_run(struct fc_store *st, int64_t run, const struct fc_baseline *bl,
		    const char *file, json_t *doc)
{
	struct fc_bl_judge j;

	fc_bl_judge_init(&j, bl);
	if (fc_store_pairs(st, run, 0, judge_pair, &j))
		fc_finding(doc, FC_WARN, "the results of run %lld could not be read back for the "
			   "baseline %s", (long long)run, file);
	return fc_bl_judge_finish(&j, doc, file);
}
