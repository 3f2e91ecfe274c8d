/*
 * A generated store for the benches (see bench_store.h): the rows `matrix
 * --rails` writes, through the store's own API. Each row's document has
 * the keys and the shape of a real `pair --rails --loaded-only` document
 * with its default tests (write bandwidth, read latency): the aggregate,
 * both nodes' port sides, the options, and per rail its ports, its loaded
 * phase's results and counters. One document is built once and its
 * figures and names set per row, so that generating half a million rows
 * costs the dump and the insert, not building a tree each time.
 */
#include "tests/bench/bench_store.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched.h"
#include "matrix/mx_model.h"
#include "store/store.h"

/* The parts of a row that do not change from pair to pair. */
static const char options_text[] =
	"{\"rails\":\"all\",\"exclude_dev\":null,\"min_loaded_pct\":90.0,\"loaded_only\":true,"
	"\"tests\":[\"write\",\"read\"],\"exchange\":\"relayed\",\"launcher\":\"ssh\",\"qps\":1,"
	"\"tx_depth\":128,\"bidir\":false,\"reverse\":false,\"iters\":1000,\"duration_s\":0.0,"
	"\"timeout_s\":60.0,\"method\":\"fabcheck\",\"tclass\":null,\"sl\":null}";
static const char side_text[] =
	"{\"host\":\"\",\"device\":\"mlx5_0\",\"port\":1,\"link_layer\":\"InfiniBand\",\"mtu\":4096,"
	"\"max_mtu\":4096,\"rate_gbps\":400.0,\"rate\":\"NDR\",\"lid\":17,\"memory\":\"host\","
	"\"max_inline\":220,\"netdev\":\"ibp12s0\",\"width\":\"4X\",\"link\":{\"width_code\":2,"
	"\"speed_code\":128,\"speed_ex_code\":0,\"vlan\":false,\"rocev1\":false,\"ipv6\":false},"
	"\"gid_index\":0,\"gid\":\"fe80::a088:c203:64:1f2a\",\"gid_type\":\"IB\",\"link_downed\":0,"
	"\"numa\":{\"hca\":0,\"buffer\":0,\"cpus\":0,\"pinned\":true,\"cpu_list\":\"0-31\","
	"\"note\":null},\"hugepages\":false,\"page_bytes\":4096,\"relaxed_ordering\":true,\"v\":1,"
	"\"seq\":3,\"type\":\"setup\",\"node\":\"\",\"payload_gbps\":387.8,\"payload\":"
	"{\"data_gbps\":400.0,\"encoding\":\"64b/66b\",\"header_bytes\":58,\"mtu\":4096,"
	"\"share_of_port\":0.9695},\"tclass\":0,\"dscp\":0,\"ecn\":0,\"sl\":0,\"qos_source\":\"qp\"}";
static const char bw_text[] =
	"{\"test\":\"write\",\"metric\":\"bw\",\"size_bytes\":1048576,\"iters\":1000,\"method\":"
	"{\"name\":\"fabcheck\",\"warmup\":50,\"cq_mod\":64,\"inline\":0,\"buffer\":\"slots\","
	"\"post_list\":1,\"threads\":1},\"a_to_b_gbps\":0,\"samples_a_to_b_gbps\":[0,0,0,0,0],"
	"\"intervals_a_to_b\":{\"n\":5,\"min_gbps\":0,\"median_gbps\":0,\"max_gbps\":0,"
	"\"dip_below_gbps\":0,\"dips\":[],\"dips_total\":0},\"gbps\":0,\"msg_rate_mpps\":0,"
	"\"seconds\":0.5,\"interval_s\":0.1,\"qps\":1,\"threads\":1,\"post_list\":1,\"bidir\":false,"
	"\"posted\":[1050,0],\"timed_bytes\":[1048576000,0]}";
static const char lat_text[] =
	"{\"test\":\"read\",\"metric\":\"lat\",\"size_bytes\":2,\"iters\":1000,\"method\":"
	"{\"name\":\"fabcheck\",\"warmup\":50},\"min_us\":0,\"p50_us\":0,\"p90_us\":0,\"p99_us\":0,"
	"\"p999_us\":0,\"max_us\":0,\"avg_us\":0,\"stdev_us\":0.05,\"rounds\":1000}";
static const char counters_text[] =
	"{\"port_xmit_data\":0,\"port_rcv_data\":0,\"port_xmit_packets\":0,"
	"\"port_rcv_packets\":0}";

/* The figures of one rail's loaded phase, set per row. */
struct rail_slots {
	json_t *bw, *lat, *loaded, *rail;
	json_t *ca, *cb; /* counters: two objects under the nodes' names */
};

struct row {
	json_t *doc, *nodes, *a, *b, *agg_bw, *agg_lat, *counters, *matrix;
	json_t *ca, *cb;
	struct rail_slots r[FC_MXL_RAILS_MAX];
	int nrails;
};

static json_t *parse(const char *text)
{
	json_t *j = json_loads(text, 0, NULL);

	if (!j) {
		fprintf(stderr, "bench_store: a template does not parse\n");
		exit(3);
	}
	return j;
}

static json_t *port_json(int r)
{
	char dev[16], nd[16], sub[32];

	snprintf(dev, sizeof(dev), "mlx5_%d", r);
	snprintf(nd, sizeof(nd), "ibp%ds0", 12 + r);
	snprintf(sub, sizeof(sub), "10.%d.0.0/16", r);
	return json_pack("{s:s, s:i, s:s, s:s, s:s, s:i, s:i}", "device", dev, "port", 1, "netdev",
			 nd, "subnet", sub, "memory", "host", "mtu", 4096, "gid_index", 0);
}

static void rail_init(struct row *w, int r)
{
	struct rail_slots *s = &w->r[r];
	json_t *counters = json_object();
	char dev[16], sub[32];

	snprintf(dev, sizeof(dev), "mlx5_%d", r);
	snprintf(sub, sizeof(sub), "10.%d.0.0/16", r);
	s->bw = parse(bw_text);
	s->lat = parse(lat_text);
	s->ca = parse(counters_text);
	s->cb = parse(counters_text);
	s->loaded = json_pack("{s:s, s:[O, O], s:o, s:[]}", "verdict", "pass", "results", s->bw,
			      s->lat, "counters", counters, "findings");
	s->rail = json_pack("{s:i, s:s, s:s, s:o, s:o, s:n, s:O, s:s, s:b, s:n, s:f}", "rail", r,
			    "name", dev, "subnet", sub, "a", port_json(r), "b", port_json(r), "alone",
			    "loaded", s->loaded, "verdict", "pass", "host_limited", 0,
			    "alone_gbps", "loaded_gbps", 0.0);
	json_decref(s->bw);
	json_decref(s->lat);
	json_decref(s->loaded);
}

static void row_init(struct row *w, int nrails)
{
	json_t *rails = json_array();

	memset(w, 0, sizeof(*w));
	w->nrails = nrails;
	for (int r = 0; r < nrails; r++) {
		rail_init(w, r);
		json_array_append_new(rails, w->r[r].rail);
	}
	w->a = parse(side_text);
	w->b = parse(side_text);
	w->agg_bw = parse(bw_text);
	w->agg_lat = parse(lat_text);
	w->ca = parse(counters_text);
	w->cb = parse(counters_text);
	w->counters = json_object();
	w->nodes = json_array();
	w->matrix = json_pack("{s:i, s:i}", "run", 1, "round", 1);
	w->doc = json_pack("{s:s, s:[], s:O, s:O, s:o, s:O, s:O, s:o, s:[O, O], s:s, s:{s:f},"
			   " s:i, s:f, s:O}",
			   "verdict", "pass", "findings", "nodes", w->nodes, "counters",
			   w->counters, "options", parse(options_text), "a", w->a, "b", w->b,
			   "rails", rails, "results", w->agg_bw, w->agg_lat, "results_of",
			   "every rail loaded", "thresholds", "min_gbps", 0.0, "exit_code", 0,
			   "duration_s", 2.5, "matrix", w->matrix);
	if (!w->doc) {
		fprintf(stderr, "bench_store: cannot build a row\n");
		exit(3);
	}
	json_decref(w->a);
	json_decref(w->b);
	json_decref(w->agg_bw);
	json_decref(w->agg_lat);
	json_decref(w->counters);
	json_decref(w->nodes);
	json_decref(w->matrix);
}

static void row_release(struct row *w)
{
	for (int r = 0; r < w->nrails; r++) {
		json_decref(w->r[r].ca);
		json_decref(w->r[r].cb);
	}
	json_decref(w->ca);
	json_decref(w->cb);
	json_decref(w->doc);
}

static void set_num(json_t *o, const char *key, double v)
{
	json_object_set_new(o, key, json_real(v));
}

/* A bandwidth result's figures, all from @g. */
static void set_bw(json_t *bw, double g)
{
	json_t *iv = json_object_get(bw, "intervals_a_to_b"), *sm = json_object_get(bw,
										  "samples_a_to_b_gbps");

	set_num(bw, "gbps", g);
	set_num(bw, "a_to_b_gbps", g);
	set_num(bw, "msg_rate_mpps", g / 8 / 1048576 * 1e3);
	for (size_t i = 0; i < json_array_size(sm); i++)
		json_array_set_new(sm, i, json_real(g * (0.99 + 0.005 * (double)i)));
	set_num(iv, "min_gbps", g * 0.99);
	set_num(iv, "median_gbps", g);
	set_num(iv, "max_gbps", g * 1.01);
	set_num(iv, "dip_below_gbps", g / 2);
}

static void set_lat(json_t *lat, double us)
{
	set_num(lat, "min_us", us * 0.9);
	set_num(lat, "p50_us", us);
	set_num(lat, "p90_us", us * 1.05);
	set_num(lat, "p99_us", us * 1.2);
	set_num(lat, "p999_us", us * 1.5);
	set_num(lat, "max_us", us * 2);
	set_num(lat, "avg_us", us * 1.01);
}

/* Both nodes' counters under their names, in @to. */
static void set_counters(json_t *to, json_t *ca, json_t *cb, const char *a, const char *b,
			 double bytes)
{
	json_object_clear(to);
	set_num(ca, "port_xmit_data", bytes / 4);
	set_num(cb, "port_rcv_data", bytes / 4);
	json_object_set(to, a, ca);
	json_object_set(to, b, cb);
}

static void set_side(json_t *side, const char *name)
{
	json_object_set_new(side, "host", json_string(name));
	json_object_set_new(side, "node", json_string(name));
}

/* Fills the row for a -> b with one figure per rail (gbps[r], lat[r]). */
static void row_set(struct row *w, const char *a, const char *b, int round, const double *gbps,
		    const double *lat)
{
	double sum = 0, worst = 0;

	json_array_clear(w->nodes);
	json_array_append_new(w->nodes, json_string(a));
	json_array_append_new(w->nodes, json_string(b));
	set_side(w->a, a);
	set_side(w->b, b);
	for (int r = 0; r < w->nrails; r++) {
		struct rail_slots *s = &w->r[r];

		set_bw(s->bw, gbps[r]);
		set_lat(s->lat, lat[r]);
		set_counters(json_object_get(s->loaded, "counters"), s->ca, s->cb, a, b,
			     gbps[r] * 1.25e8 * 0.5);
		set_num(s->rail, "loaded_gbps", gbps[r]);
		sum += gbps[r];
		worst = lat[r] > worst ? lat[r] : worst;
	}
	set_bw(w->agg_bw, sum);
	set_lat(w->agg_lat, worst);
	set_counters(w->counters, w->ca, w->cb, a, b, sum * 1.25e8 * 0.5);
	json_object_set_new(w->matrix, "round", json_integer(round + 1));
}

/* The run's parameters: mx_params_new's, and the rails as mx_rails_params
 * keeps them (the list, each node's ports). */
static json_t *params_new(char **names, int n, int nrails)
{
	struct fc_mx_opts o = FC_MX_OPTS_DEFAULT;
	json_t *p = mx_params_new(names, n, 0, 0, &o, NULL, 0), *list = json_array();
	json_t *ports = json_object();

	for (int r = 0; r < nrails; r++) {
		char dev[16], sub[32];

		snprintf(dev, sizeof(dev), "mlx5_%d", r);
		snprintf(sub, sizeof(sub), "10.%d.0.0/16", r);
		json_array_append_new(list, json_pack("{s:i, s:s, s:s, s:n}", "rail", r, "name", dev,
						      "subnet", sub, "switch"));
	}
	for (int i = 0; i < n; i++) {
		json_t *pl = json_array();

		for (int r = 0; r < nrails; r++) {
			json_t *pj = port_json(r);

			json_object_del(pj, "subnet");
			json_object_del(pj, "memory");
			json_object_del(pj, "mtu");
			json_object_del(pj, "gid_index");
			json_array_append_new(pl, pj);
		}
		json_object_set_new(ports, names[i], pl);
	}
	json_object_set_new(p, "rails",
			    json_pack("{s:o, s:[], s:o, s:b, s:b, s:s}", "list", list, "findings",
				      "ports", ports, "by_name", 0, "by_switch", 0, "select", "all"));
	return p;
}

static int write_rows(struct fc_store *st, int64_t run, char **names, int n, int nrails,
		      int rounds, const unsigned char *bad, struct bench_store_stats *out)
{
	struct fc_pair_idx *p = calloc((size_t)fc_sched_round_max(n) + 1, sizeof(*p));
	double gbps[FC_MXL_RAILS_MAX], lat[FC_MXL_RAILS_MAX];
	struct row w;
	int rc = 0;

	if (!p)
		return -1;
	row_init(&w, nrails);
	for (int r = 0; r < rounds && !rc; r++) {
		int k = fc_sched_round(n, 0, r, p);

		rc = fc_store_begin(st);
		for (int i = 0; i < k && !rc; i++) {
			for (int q = 0; q < nrails; q++) {
				gbps[q] = 390 * (1 + 0.03 * (drand48() - 0.5) * 2);
				if (bad[p[i].a * nrails + q] || bad[p[i].b * nrails + q])
					gbps[q] *= 0.5;
				lat[q] = 3 + drand48();
			}
			row_set(&w, names[p[i].a], names[p[i].b], r, gbps, lat);
			rc = fc_store_pair_add(st, run, names[p[i].a], names[p[i].b], w.doc);
			out->rows++;
		}
		if (!rc)
			rc = fc_store_commit(st);
	}
	row_release(&w);
	free(p);
	return rc;
}

int bench_store_write(const char *path, int n, int nrails, int rounds,
		      struct bench_store_stats *out)
{
	unsigned char *bad = calloc((size_t)n * (size_t)nrails, 1);
	char **names = calloc((size_t)n, sizeof(*names));
	struct fc_store *st = NULL;
	int all = fc_sched_rounds(n, 0), rc = -1;
	json_t *params = NULL;
	int64_t run;

	memset(out, 0, sizeof(*out));
	if (!bad || !names)
		goto out_free;
	for (int i = 0; i < n; i++) {
		names[i] = malloc(24);
		if (!names[i])
			goto out_free;
		snprintf(names[i], 24, "gpu-node%04d", i);
	}
	/* 1% of the ports, at least one, at half rate. */
	for (int k = 0; k < (n * nrails + 99) / 100; k++)
		bad[(size_t)(drand48() * n * nrails) % ((size_t)n * nrails)] = 1;
	for (size_t i = 0; i < (size_t)n * (size_t)nrails; i++)
		out->bad_ports += bad[i];
	st = fc_store_open(path);
	params = st ? params_new(names, n, nrails) : NULL;
	run = params ? fc_store_run_begin(st, "matrix", params) : -1;
	if (run <= 0)
		goto out_free;
	out->run = run;
	rc = write_rows(st, run, names, n, nrails, !rounds || rounds > all ? all : rounds, bad,
			out);
	if (!rc)
		rc = fc_store_run_end(st, run, "fail");
out_free:
	json_decref(params);
	fc_store_close(st);
	for (int i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
	free(bad);
	return rc;
}
