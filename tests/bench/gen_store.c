/*
 * A generated matrix run in a result store (gen_store.h). Each row's
 * document has the keys and the shape of a real `pair --rails
 * --loaded-only` document with its default tests (write bandwidth, read
 * latency), about 16 KB at 8 rails: the aggregate, both nodes' port sides,
 * the options, and per rail its ports, its loaded phase's results and
 * counters. One document is built once and its figures and names set per
 * row, so that half a million rows cost the dump and the insert, not
 * building a tree each time.
 */
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
	"\"note\":null},\"hugepages\":false,\"page_bytes\":4096,\"relaxed_ordering\":\"requested\",\"v\":1,"
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
		fprintf(stderr, "gen_store: a template does not parse\n");
		exit(3);
	}
	return j;
}

static json_t *side_port(int r)
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
			    "name", dev, "subnet", sub, "a", side_port(r), "b", side_port(r), "alone",
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
		fprintf(stderr, "gen_store: cannot build a row\n");
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
	struct row w;

	row_init(&w, r->rails);
	for (int k = 0; !rc && k < rounds; k++) {
		int cnt = fc_sched_round(n, 0, k, p);

		for (int i = 0; !rc && i < cnt; i++) {
			node_name(na, sizeof(na), p[i].a);
			node_name(nb, sizeof(nb), p[i].b);
			pair_figures(r, bad, p[i].a, p[i].b, gbps, lat);
			row_set(&w, na, nb, k, gbps, lat);
			rc = fc_store_pair_add(st, run, na, nb, w.doc);
		}
	}
	row_release(&w);
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
