/* A generated matrix run in a result store (gen_store.h). */
#include "tests/bench/gen_store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "core/sched.h"
#include "matrix/mx_model.h"
#include "store/store.h"

#define GEN_RAIL_GBPS 390.0

static void node_name(char *buf, size_t len, int i)
{
	snprintf(buf, len, "gpu-node%04d", i);
}

static json_t *port_json(int rail)
{
	char netdev[16], dev[16];

	snprintf(dev, sizeof(dev), "mlx5_%d", rail);
	snprintf(netdev, sizeof(netdev), "eth%d", rail + 2);
	return json_pack("{s:s, s:i, s:s}", "device", dev, "port", 1, "netdev", netdev);
}

/* The run's parameters: what `matrix --rails all` keeps (nodes, thresholds,
 * the rack's rails and each node's port on each). */
static json_t *gen_params(const struct gen_rack *r)
{
	struct fc_mx_opts o = FC_MX_OPTS_DEFAULT;
	char **names = calloc((size_t)r->nodes, sizeof(*names));
	json_t *p, *list = json_array(), *ports = json_object();
	char buf[64];

	if (!names)
		return NULL;
	for (int i = 0; i < r->nodes; i++) {
		json_t *pl = json_array();

		node_name(buf, sizeof(buf), i);
		names[i] = strdup(buf);
		for (int q = 0; q < r->rails; q++)
			json_array_append_new(pl, port_json(q));
		json_object_set_new(ports, buf, pl);
	}
	p = mx_params_new(names, r->nodes, 0, 0, &o, NULL, 0);
	for (int i = 0; i < r->nodes; i++)
		free(names[i]);
	free(names);
	for (int q = 0; q < r->rails; q++) {
		char name[16], subnet[32];

		snprintf(name, sizeof(name), "mlx5_%d", q);
		snprintf(subnet, sizeof(subnet), "10.%d.0.0/16", q);
		json_array_append_new(list, json_pack("{s:i, s:s, s:s}", "rail", q, "name", name,
						      "subnet", subnet));
	}
	json_object_set_new(p, "rails", json_pack("{s:o, s:[], s:o, s:b, s:b, s:s}", "list", list,
						  "findings", "ports", ports, "by_name", 0,
						  "by_switch", 0, "select", "all"));
	return p;
}

static json_t *phase_json(double gbps, double lat)
{
	return json_pack("{s:s, s:[{s:s, s:s, s:i, s:i, s:f}, {s:s, s:s, s:i, s:i, s:f}], "
			 "s:{}, s:[]}",
			 "verdict", "pass", "results", "test", "write", "metric", "bw",
			 "size_bytes", 1048576, "iters", 200, "gbps", gbps, "test", "read",
			 "metric", "lat", "size_bytes", 2, "iters", 1000, "p50_us", lat,
			 "counters", "findings");
}

static json_t *side_json(const char *node, int nrails)
{
	return json_pack("{s:s, s:s, s:i, s:f}", "node", node, "device", "mlx5_0", "port", 1,
			 "rate_gbps", 400.0 * nrails);
}

/* The document of one pair: a rail entry each, the sum as its result. */
static json_t *pair_doc(const struct gen_rack *r, const char *a, const char *b,
			const double *gbps, const double *lat)
{
	json_t *rails = json_array();
	double sum = 0, worst = 0;
	char name[16], subnet[32];

	for (int q = 0; q < r->rails; q++) {
		snprintf(name, sizeof(name), "mlx5_%d", q);
		snprintf(subnet, sizeof(subnet), "10.%d.0.0/16", q);
		json_array_append_new(rails, json_pack("{s:i, s:s, s:s, s:o, s:o, s:n, s:o, s:s, "
						       "s:b, s:n, s:f}",
						       "rail", q, "name", name, "subnet", subnet, "a",
						       port_json(q), "b", port_json(q), "alone",
						       "loaded", phase_json(gbps[q], lat[q]),
						       "verdict", "pass", "host_limited", 0,
						       "alone_gbps", "loaded_gbps", gbps[q]));
		sum += gbps[q];
		worst = lat[q] > worst ? lat[q] : worst;
	}
	return json_pack("{s:s, s:[], s:o, s:o, s:o, s:[{s:s, s:s, s:i, s:i, s:f}, "
			 "{s:s, s:s, s:i, s:i, s:f}], s:{}}",
			 "verdict", "pass", "findings", "a", side_json(a, r->rails), "b",
			 side_json(b, r->rails), "rails", rails, "results", "test", "write",
			 "metric", "bw", "size_bytes", 1048576, "iters", 200, "gbps", sum,
			 "test", "read", "metric", "lat", "size_bytes", 2, "iters", 1000,
			 "p50_us", worst, "counters");
}

/* A pair's figures on each rail: half rate through a bad port. */
static void pair_figures(const struct gen_rack *r, const unsigned char *bad, int a, int b,
			 double *gbps, double *lat)
{
	for (int q = 0; q < r->rails; q++) {
		double g = GEN_RAIL_GBPS * (1 + r->noise_pct / 100 * (drand48() - 0.5) * 2);

		if (bad[a * r->rails + q] || bad[b * r->rails + q])
			g *= 0.5;
		gbps[q] = g;
		lat[q] = 3 + drand48();
	}
}

static int gen_pairs(struct fc_store *st, int64_t run, const struct gen_rack *r,
		     const unsigned char *bad)
{
	int n = r->nodes, all = fc_sched_rounds(n, 0);
	int rounds = r->rounds && r->rounds < all ? r->rounds : all;
	struct fc_pair_idx *p = calloc((size_t)fc_sched_round_max(n), sizeof(*p));
	double gbps[FC_MXL_RAILS_MAX], lat[FC_MXL_RAILS_MAX];
	char na[32], nb[32];
	int rc = p ? 0 : -ENOMEM;

	for (int k = 0; !rc && k < rounds; k++) {
		int cnt = fc_sched_round(n, 0, k, p);

		for (int i = 0; !rc && i < cnt; i++) {
			json_t *doc;

			node_name(na, sizeof(na), p[i].a);
			node_name(nb, sizeof(nb), p[i].b);
			pair_figures(r, bad, p[i].a, p[i].b, gbps, lat);
			doc = pair_doc(r, na, nb, gbps, lat);
			rc = doc ? fc_store_pair_add(st, run, na, nb, doc) : -ENOMEM;
			json_decref(doc);
		}
	}
	free(p);
	return rc;
}

int64_t gen_store(const char *path, const struct gen_rack *r)
{
	size_t nports = (size_t)r->nodes * (size_t)r->rails;
	unsigned char *bad = calloc(nports, 1);
	struct fc_store *st;
	json_t *params;
	int64_t run = -ENOMEM;

	if (!bad)
		return -ENOMEM;
	srand48(r->seed);
	for (size_t k = 0; k < (size_t)(nports * r->bad_pct / 100) || k < 1; k++)
		bad[(size_t)(drand48() * (double)nports) % nports] = 1;
	unlink(path);
	st = fc_store_open(path);
	params = st ? gen_params(r) : NULL;
	if (params)
		run = fc_store_run_begin(st, "matrix", params);
	if (run > 0) {
		int rc = fc_store_begin(st);

		rc = rc ? rc : gen_pairs(st, run, r, bad);
		rc = rc ? rc : fc_store_commit(st);
		rc = rc ? rc : fc_store_run_end(st, run, "fail");
		if (rc)
			run = rc;
	}
	json_decref(params);
	if (st)
		fc_store_close(st);
	free(bad);
	return run;
}
