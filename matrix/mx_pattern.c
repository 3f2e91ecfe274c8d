/* Judging a matrix run's traffic pattern from its stored flows (see mx_pattern.h). */
#include "matrix/mx_pattern.h"
#include "matrix/mx_pattern_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/congest.h"
#include "core/out.h"
#include "core/pattern.h"
#include "core/sched.h"
#include "core/util.h"

/* The stored flows of a run, grouped by round. */
struct flows {
	json_t *rounds;	 /* round number (text) -> [pair documents] */
	char pattern[32];
};

static int collect(const struct fc_store_pair *p, void *arg)
{
	struct flows *fl = arg;
	json_t *d = p->doc ? json_loads(p->doc, 0, NULL) : NULL;
	const json_t *m = json_object_get(d, "matrix");
	const char *pat = fc_jstr(m, "pattern", NULL);
	char key[32];

	if (!pat || json_is_true(json_object_get(d, "retest"))) {
		json_decref(d);
		return 0;
	}
	snprintf(fl->pattern, sizeof(fl->pattern), "%s", pat);
	snprintf(key, sizeof(key), "%d", (int)fc_jnum(m, "round", 0));
	if (!json_object_get(fl->rounds, key))
		json_object_set_new(fl->rounds, key, json_array());
	json_array_append_new(json_object_get(fl->rounds, key), d);
	return 0;
}

int mx_pattern_params(const json_t *params, enum fc_pattern *p, int *k)
{
	const json_t *pat = json_object_get(params, "pattern");
	json_int_t kk = json_integer_value(json_object_get(pat, "k"));

	*p = FC_PAT_PAIRS;
	*k = 0;
	if (!pat)
		return 0;
	if (fc_pattern_parse(fc_jstr(pat, "name", ""), p) || *p == FC_PAT_PAIRS || kk < 0 ||
	    kk > FC_SCHED_MAX_NODES) {
		*p = FC_PAT_PAIRS;
		return -EINVAL;
	}
	*k = (int)kk;
	return 0;
}

/* The leaf node @name's first rail port reaches, from @params; NULL unknown. */
static const char *leaf_of(const json_t *params, const char *name)
{
	const json_t *ports = json_object_get(json_object_get(json_object_get(params, "rails"),
							      "ports"), name);

	return json_string_value(json_object_get(json_array_get(ports, 0), "leaf"));
}

int *mx_pattern_leaves(const json_t *params, const char *const *names, int n)
{
	int *leaf = calloc((size_t)n + 1, sizeof(*leaf)), differ = 0;

	for (int i = 0; leaf && i < n; i++) {
		const char *l = leaf_of(params, names[i]);

		if (!l)
			goto out_none;
		leaf[i] = i;
		for (int j = 0; j < i; j++)
			if (!strcmp(leaf_of(params, names[j]), l)) {
				leaf[i] = leaf[j];
				break;
			}
		differ |= leaf[i] != leaf[0];
	}
	if (differ)
		return leaf;
out_none:
	free(leaf);
	return NULL;
}

/* The loss of a round's flows: the counters that moved on their ports
 * (@moved: {node: {name: delta}}), the packets @flows moved (those into
 * @to only, when given). */
static struct fc_loss round_loss(const json_t *moved, json_t *flows, const json_t *to)
{
	struct fc_loss l = { 0 };
	size_t i;
	json_t *d;

	fc_loss_counters(&l, moved);
	json_array_foreach(flows, i, d)
		if (!to || json_object_get(to, fc_jstr(json_object_get(d, "b"), "node", "?")))
			l.packets += fc_loss_packets(d);
	return l;
}

/* One incast round toward its receiver (@fan 0), or a fanout round from
 * its sender (@fan 1): the shares of the other ends, the target's port;
 * an incast's loss against the pairs' own @pairs (NULL: none stored). */
static int judge_target(json_t *flows, const double *g, json_t *out, const struct fc_loss *pairs,
			int fan)
{
	size_t n = json_array_size(flows), i;
	const char **end = calloc(n + 1, sizeof(*end)), *what = "port rate", *target;
	json_t *acc = json_object(), *d, *shares = json_object();
	double sum[FC_CG_NCLASS], drop = 0, ceiling;
	struct fc_loss loss;
	int level = 0;

	if (!end)
		goto out_free;
	json_array_foreach(flows, i, d) {
		end[i] = fc_jstr(json_object_get(d, fan ? "b" : "a"), "node", "?");
		json_object_set_new(shares, end[i], json_real(g[i]));
		mx_flow_counters(acc, d);
	}
	target = fc_jstr(json_object_get(json_array_get(flows, 0), "matrix"), "target", "?");
	ceiling = mx_side_ceiling(json_array_get(flows, 0), fan ? "a" : "b", &what);
	memset(sum, 0, sizeof(sum));
	json_object_set_new(out, "counters_moved", mx_counters_sum(acc, target, sum, &drop));
	loss = round_loss(json_object_get(out, "counters_moved"), flows, NULL);
	json_object_set_new(out, fan ? "sender" : "receiver", json_string(target));
	json_object_set_new(out, "ceiling_gbps", json_real(ceiling));
	json_object_set_new(out, "ceiling_is", json_string(what));
	json_object_set_new(out, fan ? "receivers" : "senders", shares);
	shares = NULL;
	if (fan) {
		struct fc_fanout_obs o = { target, (int)n, end, g, ceiling };

		level = fc_fanout_judge(&o, out);
	} else {
		struct fc_incast_obs o = { .receiver = target, .nsenders = (int)n, .sender = end,
					   .gbps = g, .ceiling_gbps = ceiling,
					   .rx_drop_receiver = drop, .loss = loss,
					   .pairs = pairs };

		memcpy(o.sum, sum, sizeof(sum));
		level = fc_incast_judge(&o, out);
	}
out_free:
	json_decref(shares);
	json_decref(acc);
	free(end);
	return level;
}

static int root_of(const int *up, int x)
{
	while (up[x] != x)
		x = up[x];
	return x;
}

/* The all-to-all groups of a round: the sets of nodes its flows connect
 * (each group a clique, core/pattern.c), as {node: group index}; NULL
 * without memory. */
static json_t *groups_of(json_t *flows, int *ngroups)
{
	size_t n = 2 * json_array_size(flows) + 1, i;
	int *up = calloc(n, sizeof(*up)), *grp = calloc(n, sizeof(*grp)), k = 0;
	json_t *idx = json_object(), *d, *v, *out = NULL;
	const char *name;

	if (!up || !grp)
		goto out_free;
	for (i = 0; i < n; i++) {
		up[i] = (int)i;
		grp[i] = -1;
	}
	json_array_foreach(flows, i, d) {
		int e[2];

		for (int s = 0; s < 2; s++) {
			name = fc_jstr(json_object_get(d, s ? "b" : "a"), "node", "?");
			if (!json_object_get(idx, name))
				json_object_set_new(idx, name, json_integer(k++));
			e[s] = root_of(up, (int)json_integer_value(json_object_get(idx, name)));
		}
		up[e[1]] = e[0];
	}
	out = json_object();
	*ngroups = 0;
	json_array_foreach(flows, i, d) /* numbered in the order the flows name them */
		for (int s = 0; s < 2; s++) {
			name = fc_jstr(json_object_get(d, s ? "b" : "a"), "node", "?");
			v = json_object_get(idx, name);
			k = root_of(up, (int)json_integer_value(v));
			if (grp[k] < 0)
				grp[k] = (*ngroups)++;
			json_object_set_new(out, name, json_integer(grp[k]));
		}
out_free:
	free(up);
	free(grp);
	json_decref(idx);
	return out;
}

/* One all-to-all group @gi of a round: each node's in and out. */
static int judge_group(json_t *flows, const double *g, const json_t *grp, int gi,
		       const struct fc_loss *pairs, json_t *out)
{
	struct fc_alltoall_obs o = { .pairs = pairs };
	json_t *acc = json_object(), *in = json_object(), *outg = json_object(), *ceil = json_object();
	json_t *d, *v, *moved;
	const char **node = calloc(json_object_size(grp) + 1, sizeof(*node)), *name;
	double *x = calloc(4 * json_object_size(grp) + 4, sizeof(*x)), drop = 0;
	size_t i;
	int n = 0, level = 0;

	if (!node || !x)
		goto out_free;
	json_object_foreach((json_t *)grp, name, v)
		if (json_integer_value(v) == gi)
			node[n++] = name;
	for (int k = 0; k < n; k++) {
		json_object_set_new(in, node[k], json_real(0));
		json_object_set_new(outg, node[k], json_real(0));
	}
	json_array_foreach(flows, i, d) {
		const char *a = fc_jstr(json_object_get(d, "a"), "node", "?");
		const char *b = fc_jstr(json_object_get(d, "b"), "node", "?"), *what;

		if (!json_object_get(in, b))
			continue;
		json_object_set_new(in, b, json_real(fc_jnum(in, b, 0) + g[i]));
		json_object_set_new(outg, a, json_real(fc_jnum(outg, a, 0) + g[i]));
		if (!json_object_get(ceil, b))
			json_object_set_new(ceil, b, json_real(mx_side_ceiling(d, "b", &what)));
		mx_flow_counters(acc, d);
	}
	for (int k = 0; k < n; k++) {
		x[k] = fc_jnum(in, node[k], 0);
		x[n + k] = fc_jnum(outg, node[k], 0);
		x[2 * n + k] = fc_jnum(ceil, node[k], 0);
		moved = mx_counters_sum(acc, node[k], o.sum, &x[3 * n + k]);
		json_decref(moved);
		memset(o.sum, 0, sizeof(o.sum));
	}
	o.nnodes = n;
	o.node = node;
	o.in_gbps = x;
	o.out_gbps = x + n;
	o.ceiling_gbps = x + 2 * n;
	o.rx_drop = x + 3 * n;
	json_object_set_new(out, "counters_moved", mx_counters_sum(acc, NULL, o.sum, &drop));
	o.loss = round_loss(json_object_get(out, "counters_moved"), flows, in);
	json_object_set_new(out, "in_gbps", in);
	json_object_set_new(out, "out_gbps", outg);
	json_object_set_new(out, "ceiling_gbps", ceil);
	in = outg = ceil = NULL;
	level = fc_alltoall_judge(&o, out);
out_free:
	json_decref(in);
	json_decref(outg);
	json_decref(ceil);
	json_decref(acc);
	free(node);
	free(x);
	return level;
}

/* An all-to-all round: its groups, each judged. */
static int judge_alltoall(json_t *flows, const double *g, json_t *out,
			  const struct fc_loss *pairs)
{
	int ngroups = 0, level = 0;
	json_t *grp = groups_of(flows, &ngroups), *arr = json_array();

	for (int gi = 0; grp && gi < ngroups; gi++) {
		json_t *one = json_object();
		int l = judge_group(flows, g, grp, gi, pairs, one);

		level = l > level ? l : level;
		json_array_append_new(arr, one);
	}
	json_object_set_new(out, "groups", arr);
	json_decref(grp);
	return level;
}

/* A round's total against the sum of its senders' ports (bisection), or
 * its total alone. */
static int judge_total(json_t *flows, const double *g, json_t *out, int bisection)
{
	double total = 0, ports = 0;
	const char *what = "payload ceiling";
	json_t *d, *seen = json_object(), *slow = json_array();
	size_t i;

	json_array_foreach(flows, i, d) {
		const char *a = fc_jstr(json_object_get(d, "a"), "node", "?"), *w;
		double own = mx_side_ceiling(d, "a", &w);

		total += g[i];
		if (bisection && own > 0 && g[i] < 0.9 * own) /* as the round's rule below */
			json_array_append_new(slow, json_pack("{s:s, s:s, s:f}", "from", a, "to",
							      fc_jstr(json_object_get(d, "b"),
								      "node", "?"), "gbps", g[i]));
		if (!json_object_get(seen, a)) { /* a sender's port counted once */
			ports += own;
			what = strcmp(w, "port rate") ? what : w;
			json_object_set_new(seen, a, json_true());
		}
	}
	json_decref(seen);
	json_object_set_new(out, "total_gbps", json_real(total));
	if (!bisection) {
		json_decref(slow);
		return 0;
	}
	json_object_set_new(out, "slow_flows", slow);
	json_object_set_new(out, "ports_gbps", json_real(ports));
	json_object_set_new(out, "ports_are", json_string(what));
	/* pair's default --min-link-pct: 90% of a port's ceiling */
	if (ports > 0 && total < 0.9 * ports) {
		json_object_set_new(out, "level", json_string("warn"));
		return 1;
	}
	json_object_set_new(out, "level", json_string("pass"));
	return 0;
}

/* The findings of @j's outcomes worse than pass, each after @what. */
static void outcome_findings(json_t *doc, const json_t *j, const char *what)
{
	size_t i;
	json_t *o;

	json_array_foreach(json_object_get(j, "outcomes"), i, o) {
		const char *lv = fc_jstr(o, "level", "pass");

		if (strcmp(lv, "pass"))
			fc_finding(doc, strcmp(lv, "fail") ? FC_WARN : FC_FAIL, "%s: %s: %s", what,
				   fc_jstr(o, "outcome", "?"), fc_jstr(o, "evidence", ""));
	}
}

/* The findings of a round's outcomes worse than pass. */
static void round_findings(json_t *doc, const json_t *rd)
{
	char what[200];
	size_t i;
	json_t *grp;

	if (json_object_get(rd, "receiver")) {
		snprintf(what, sizeof(what), "incast into %s", fc_jstr(rd, "receiver", "?"));
		outcome_findings(doc, rd, what);
	} else if (json_object_get(rd, "sender")) {
		snprintf(what, sizeof(what), "fanout from %s", fc_jstr(rd, "sender", "?"));
		outcome_findings(doc, rd, what);
	}
	json_array_foreach(json_object_get(rd, "groups"), i, grp) {
		snprintf(what, sizeof(what), "alltoall group %zu of round %d", i + 1,
			 (int)fc_jnum(rd, "round", 0));
		outcome_findings(doc, grp, what);
	}
	if (!strcmp(fc_jstr(rd, "level", ""), "warn"))
		fc_finding(doc, FC_WARN, "bisection round %d: %.4g Gb/s across the halves against "
			   "%.4g Gb/s of the senders' ports (%s): the fabric between the halves "
			   "carries less than its ports", (int)fc_jnum(rd, "round", 0),
			   fc_jnum(rd, "total_gbps", 0), fc_jnum(rd, "ports_gbps", 0),
			   fc_jstr(rd, "ports_are", "?"));
}

/* Flows by sender, then receiver: a round's flows are stored as they end,
 * in no fixed order; judged and shown in this one. */
static int flow_cmp(const void *x, const void *y)
{
	const json_t *a = *(json_t *const *)x, *b = *(json_t *const *)y;
	int c = strcmp(fc_jstr(json_object_get(a, "a"), "node", ""),
		       fc_jstr(json_object_get(b, "a"), "node", ""));

	return c ? c : strcmp(fc_jstr(json_object_get(a, "b"), "node", ""),
			      fc_jstr(json_object_get(b, "b"), "node", ""));
}

static int sort_flows(json_t *flows)
{
	size_t n = json_array_size(flows), i;
	json_t **v = calloc(n + 1, sizeof(*v)), *d;

	if (!v)
		return -ENOMEM;
	json_array_foreach(flows, i, d)
		v[i] = json_incref(d);
	qsort(v, n, sizeof(*v), flow_cmp);
	json_array_clear(flows);
	for (i = 0; i < n; i++)
		json_array_append_new(flows, v[i]);
	free(v);
	return 0;
}

static int round_cmp(const void *x, const void *y)
{
	return atoi(*(const char *const *)x) - atoi(*(const char *const *)y);
}

/* The number of leaf @l in @names, added when new. */
static int leaf_number(json_t *names, const char *l)
{
	size_t j;
	json_t *v;

	json_array_foreach(names, j, v)
		if (!strcmp(json_string_value(v), l))
			return (int)j;
	json_array_append_new(names, json_string(l));
	return (int)j;
}

/* The leaves of the low rounds' slow flows, from the run's @params: each
 * flow's ends in @src/@dst, the leaves' names in @names. -1: a node's leaf
 * is unknown; else the flows. */
static int slow_leaves(const json_t *rounds, const json_t *params, json_t *names, int *src,
		       int *dst)
{
	size_t r, i;
	json_t *rd, *f;
	int k = 0;

	json_array_foreach(rounds, r, rd)
		json_array_foreach(json_object_get(rd, "slow_flows"), i, f) {
			const char *a = leaf_of(params, fc_jstr(f, "from", ""));
			const char *b = leaf_of(params, fc_jstr(f, "to", ""));

			if (!a || !b)
				return -1;
			src[k] = leaf_number(names, a);
			dst[k++] = leaf_number(names, b);
		}
	return k;
}

/* The leaves a bisection's low rounds have in common (core/pattern.h),
 * named in @doc's "pattern"."low_rounds" and a finding. */
static void bisect_blame(struct fc_store *st, int64_t run, json_t *rounds, json_t *doc)
{
	struct fc_store_run info = { 0 };
	json_t *names = json_array(), *shared = json_array(), *lr = json_array(), *rd;
	int *a = NULL, k = -1, nf = 0;
	char list[160] = "", leaves[300] = "";
	size_t r;

	json_array_foreach(rounds, r, rd)
		if (!strcmp(fc_jstr(rd, "level", ""), "warn")) {
			json_array_append_new(lr, json_integer((json_int_t)fc_jnum(rd, "round", 0)));
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%d",
				 json_array_size(lr) > 1 ? ", " : "", (int)fc_jnum(rd, "round", 0));
			nf += (int)json_array_size(json_object_get(rd, "slow_flows"));
		}
	if (!json_array_size(lr) || fc_store_run_get(st, run, &info))
		goto out;
	a = calloc(4 * (size_t)nf + 4, sizeof(*a)); /* src, dst, then a flag per leaf */
	if (a)
		k = slow_leaves(rounds, info.params, names, a, a + nf);
	if (k <= 0) {
		json_object_set_new(json_object_get(doc, "pattern"), "low_rounds",
				    json_pack("{s:O, s:b}", "rounds", lr, "leaves_known", 0));
		fc_finding(doc, FC_WARN, "bisection: rounds %s are low; the nodes' leaves are not "
			   "known (no LLDP neighbour or InfiniBand switch on their first rail), so "
			   "no leaf is named", list);
		goto out;
	}
	fc_pattern_shared_leaves(k, a, a + nf, (int)json_array_size(names), a + 2 * nf);
	for (size_t l = 0; l < json_array_size(names); l++)
		if (a[2 * nf + (int)l]) {
			json_array_append(shared, json_array_get(names, l));
			snprintf(leaves + strlen(leaves), sizeof(leaves) - strlen(leaves), "%s%s",
				 json_array_size(shared) > 1 ? " and " : "",
				 json_string_value(json_array_get(names, l)));
		}
	json_object_set_new(json_object_get(doc, "pattern"), "low_rounds",
			    json_pack("{s:O, s:b, s:O}", "rounds", lr, "leaves_known", 1,
				      "shared_leaves", shared));
	if (json_array_size(shared) == 1)
		fc_finding(doc, FC_WARN, "bisection: rounds %s are low and every slow flow in them "
			   "goes through leaf %s: check its uplinks to the spine", list, leaves);
	else if (json_array_size(shared) > 1)
		fc_finding(doc, FC_WARN, "bisection: rounds %s are low and every slow flow in them "
			   "runs between leaves %s: check the spine links between them", list, leaves);
	else
		fc_finding(doc, FC_WARN, "bisection: rounds %s are low and their slow flows share "
			   "no leaf: the shortfall is spread over the spine (too few uplinks, or "
			   "ECMP hashing flows onto the same links)", list);
out:
	fc_store_run_release(&info);
	json_decref(names);
	json_decref(shared);
	json_decref(lr);
	free(a);
}

int mx_pattern_doc(struct fc_store *st, int64_t run, json_t *doc)
{
	struct flows fl = { .rounds = json_object() };
	struct fc_loss bg = { 0 };
	const struct fc_loss *pairs = NULL;
	const char **keys = NULL, *k;
	json_t *rounds, *v, *pairs_run = NULL;
	size_t n = 0;
	int rc;

	rc = fc_store_pairs(st, run, 0, collect, &fl);
	if (rc || !fl.pattern[0])
		goto out;
	if (!strcmp(fl.pattern, "incast") || !strcmp(fl.pattern, "alltoall"))
		pairs_run = mx_pattern_pairs(st, run, fl.rounds, &bg);
	/* the comparison needs pairs on these ports */
	pairs = json_integer_value(json_object_get(pairs_run, "pairs")) > 0 ? &bg : NULL;
	keys = calloc(json_object_size(fl.rounds) + 1, sizeof(*keys));
	if (!keys) {
		rc = -ENOMEM;
		goto out;
	}
	json_object_foreach(fl.rounds, k, v)
		keys[n++] = k;
	qsort(keys, n, sizeof(*keys), round_cmp);
	rounds = json_array();
	for (size_t i = 0; i < n; i++) {
		json_t *flows = json_object_get(fl.rounds, keys[i]);
		json_t *rd = json_pack("{s:i, s:i}", "round", atoi(keys[i]), "flows",
				       (int)json_array_size(flows));
		double *g = calloc(json_array_size(flows) + 1, sizeof(*g));

		if (!g || sort_flows(flows)) {
			free(g);
			json_decref(rd);
			json_decref(rounds);
			rc = -ENOMEM;
			goto out;
		}
		mx_round_rates(flows, g, rd);
		if (!strcmp(fl.pattern, "incast"))
			judge_target(flows, g, rd, pairs, 0);
		else if (!strcmp(fl.pattern, "fanout") && !judge_total(flows, g, rd, 0))
			judge_target(flows, g, rd, NULL, 1);
		else if (!strcmp(fl.pattern, "alltoall") && !judge_total(flows, g, rd, 0))
			judge_alltoall(flows, g, rd, pairs);
		else
			judge_total(flows, g, rd, !strcmp(fl.pattern, "bisection"));
		free(g);
		round_findings(doc, rd);
		json_array_append_new(rounds, rd);
	}
	json_object_set_new(doc, "pattern", json_pack("{s:s, s:o}", "name", fl.pattern,
						      "rounds", rounds));
	if (!strcmp(fl.pattern, "bisection"))
		bisect_blame(st, run, rounds, doc);
	if (pairs_run) /* the pair run the incast was held against */
		json_object_set(json_object_get(doc, "pattern"), "pairs_run", pairs_run);
out:
	json_decref(pairs_run);
	free(keys);
	json_decref(fl.rounds);
	return rc;
}
