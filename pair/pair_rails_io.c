/*
 * pair --rails, its input and its table: each node's RDMA ports, listed by
 * `fabcheck devices --json` through the launcher (also for matrix --rails
 * and nccl run), and the table of each rail alone and loaded under the
 * pair's report (pair/pair_rails.c runs the rails).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/out.h"
#include "core/summary.h"
#include "core/rail.h"
#include "core/util.h"
#include "ctl/child.h"
#include "pair/pair.h"

struct ports_start {
	const struct fc_launch *l;
	const char *const *nodes;
	double timeout;
};

static int start_devices(void *arg, int i, struct fc_child *k)
{
	const struct ports_start *ps = arg;
	const char *sub[] = { "devices", "--json", NULL };
	const char *argv[FC_LAUNCH_MAX_ARGS];
	char buf[2048];

	snprintf(k->name, sizeof(k->name), "%s", ps->nodes[i]);
	if (fc_launch_argv(ps->l, ps->nodes[i], sub, argv, buf, sizeof(buf)) < 0) {
		k->exec_failed = E2BIG;
		return -E2BIG;
	}
	return fc_child_start(k, NULL, argv, ps->timeout);
}

int pair_ports_list(const struct fc_launch *l, const char *const *nodes, int n, double timeout,
		    struct pair_ports *out)
{
	struct fc_child *kids = calloc((size_t)n + 1, sizeof(*kids));
	struct ports_start ps = { .l = l, .nodes = nodes, .timeout = timeout };
	int bad = 0;

	if (!kids)
		return -ENOMEM;
	fc_children_run(kids, n, l->fanout, start_devices, &ps);
	for (int i = 0; i < n; i++) {
		json_t *d = kids[i].out ? json_loads(kids[i].out, 0, NULL) : NULL;
		const json_t *devs = json_object_get(d, "devices");
		const json_t *f = json_array_get(json_object_get(d, "findings"), 0);

		out[i].n = devs ? fc_rail_ports_from_json(devs, out[i].p, PAIR_PORTS_MAX) : -EINVAL;
		if (out[i].n < 0) {
			snprintf(out[i].why, sizeof(out[i].why), "%s: cannot list its RDMA ports "
				 "(fabcheck devices --json): %s", nodes[i],
				 json_is_string(f)	       ? json_string_value(f) :
				 kids[i].timed_out	       ? "no answer in time" :
				 *fc_child_last_err(&kids[i]) ? fc_child_last_err(&kids[i]) :
								"no document");
			bad++;
		}
		json_decref(d);
		fc_child_release(&kids[i]);
	}
	free(kids);
	return bad;
}

static void gbps_cell(struct fc_table *t, int col, const json_t *v)
{
	if (json_is_number(v))
		fc_table_addf(t, col, "%.3g Gb/s", json_number_value(v));
	else
		fc_table_addf(t, col, "-");
}

void pair_rails_table(FILE *f, const json_t *doc)
{
	const json_t *r;
	struct fc_table *t;
	size_t i;

	fprintf(f, "\nrails (%s above; each rail alone, then all %zu at once):\n",
		fc_jstr(doc, "results_of", "?"), json_array_size(json_object_get(doc, "rails")));
	t = fc_table_new(7, "RAIL", "A", "B", "GPU A/B", "ALONE", "LOADED", "VERDICT");
	json_array_foreach(json_object_get(doc, "rails"), i, r) {
		const json_t *a = json_object_get(r, "a"), *b = json_object_get(r, "b");

		fc_table_row(t);
		fc_table_addf(t, 0, "%d %s", (int)fc_jnum(r, "rail", 0), fc_jstr(r, "subnet", ""));
		fc_table_addf(t, 1, "%s:%d", fc_jstr(a, "device", "?"), (int)fc_jnum(a, "port", 0));
		fc_table_addf(t, 2, "%s:%d", fc_jstr(b, "device", "?"), (int)fc_jnum(b, "port", 0));
		if (json_is_integer(json_object_get(a, "gpu")) || json_is_integer(json_object_get(b, "gpu")))
			fc_table_addf(t, 3, "%d %s/%d %s", (int)fc_jnum(a, "gpu", -1),
				      fc_jstr(a, "gpu_distance", "?"), (int)fc_jnum(b, "gpu", -1),
				      fc_jstr(b, "gpu_distance", "?"));
		else
			fc_table_addf(t, 3, "-");
		gbps_cell(t, 4, json_object_get(r, "alone_gbps"));
		gbps_cell(t, 5, json_object_get(r, "loaded_gbps"));
		fc_table_addf(t, 6, "%s%s", fc_jstr(r, "verdict", "?"),
			      json_is_true(json_object_get(r, "host_limited")) ? " (host)" :
			      json_is_true(json_object_get(r, "cpu_limited"))	 ? " (CPU)" : "");
	}
	fc_table_print(t, f, "  ");
	fc_table_free(t);
	/* the rails' own figures above say how far; what it means, once */
	if (json_object_get(doc, "rails_cpu_note"))
		fc_put_wrapped(f, "  ", 4, "(CPU): " PAIR_CPU_SHARED ": not a fault", 0, 2);
}
