/*
 * matrix --rails, when the run begins: the rack's rails matched once over
 * every node's ports (or read back from an imported run's documents), kept
 * in the run's parameters; mx_rails.c reads them into the model.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/util.h"
#include "core/out.h"
#include "core/summary.h"
#include "matrix/mx_model.h"
#include "matrix/mx_rails.h"
#include "pair/pair.h"
#include "store/store.h"
/* ---- the rack's rails, when the run begins ------------------------------ */

void mx_launch_of(const json_t *args, struct fc_launch *l, double *timeout)
{
	size_t i, n = json_array_size(args);

	*l = (struct fc_launch){ .kind = FC_LAUNCH_SSH, .connect_timeout = 30 };
	*timeout = 30;
	for (i = 0; i + 1 < n; i++) {
		const char *k = json_string_value(json_array_get(args, i));
		const char *v = json_string_value(json_array_get(args, i + 1));

		if (!strcmp(k, "--ssh-config"))
			l->ssh_config = v;
		else if (!strcmp(k, "--worker-cmd"))
			l->worker_cmd = v;
		else if (!strcmp(k, "--launcher"))
			fc_launcher_parse(v, &l->kind);
		else if (!strcmp(k, "--timeout"))
			fc_parse_duration("--timeout", v, 1, 3600, timeout);
	}
	if (!l->worker_cmd && getenv("FABCHECK_WORKER_CMD") && *getenv("FABCHECK_WORKER_CMD"))
		l->worker_cmd = getenv("FABCHECK_WORKER_CMD");
}

static const char *sev_name(enum fc_rail_sev s)
{
	return s == FC_RAIL_FAIL ? "fail" : s == FC_RAIL_WARN ? "warn" : "note";
}

static json_t *map_json(const struct fc_rail_map *map, const struct fc_rail_node *nodes, int n,
			const struct pair_ports *ports)
{
	json_t *o = json_object(), *list = json_array(), *fnd = json_array(), *per = json_object();

	for (int r = 0; r < map->nrails; r++) {
		json_array_append_new(list, json_pack("{s:i, s:s, s:s, s:s?, s:s?, s:s?, s:s}", "rail",
						      map->rails[r].index, "name", map->rails[r].name,
						      "subnet", map->rails[r].subnet, "switch",
						      map->rails[r].peer[0] ? map->rails[r].peer : NULL,
						      "switch_desc", map->rails[r].peer_desc[0] ?
						      map->rails[r].peer_desc : NULL, "leaf",
						      map->rails[r].leaf[0] ? map->rails[r].leaf : NULL,
						      "matched_by", fc_rail_by_name(map->by)));
		fc_rail_add_leaves(json_array_get(list, json_array_size(list) - 1), &map->rails[r]);
	}
	for (int i = 0; i < map->nfindings; i++)
		json_array_append_new(fnd, json_pack("{s:s, s:s}", "severity",
						     sev_name(map->findings[i].sev), "text",
						     map->findings[i].text));
	for (int i = 0; i < n; i++) {
		json_t *pl = json_array();

		for (int r = 0; r < map->nrails; r++) {
			const struct fc_rail_port *p = fc_rail_port_of(map, nodes, i, r);

			/* the leaf the port reaches: its LLDP neighbour, or the
			 * switch its InfiniBand port is cabled to (a matrix
			 * pattern's bisection splits the nodes by it) */
			const char *leaf = !p ? NULL : p->lldp[0] ? p->lldp : p->peer[0] ? p->peer : NULL;

			json_array_append_new(pl, p ? json_pack("{s:s, s:i, s:s, s:s?}", "device",
								p->dev, "port", p->port, "netdev",
								p->netdev, "leaf", leaf) :
						      json_null());
		}
		json_object_set_new(per, nodes[i].name, pl);
		if (ports[i].n < 0)
			json_array_append_new(fnd, json_pack("{s:s, s:s}", "severity", "warn", "text",
							     ports[i].why));
	}
	json_object_set_new(o, "list", list);
	json_object_set_new(o, "findings", fnd);
	json_object_set_new(o, "ports", per);
	json_object_set_new(o, "by_name", json_boolean(map->by_name));
	json_object_set_new(o, "by_switch", json_boolean(map->by_switch));
	json_object_set_new(o, "matched_by", json_string(fc_rail_by_name(map->by)));
	if (map->assumed[0])
		json_object_set_new(o, "assumed", json_string(map->assumed));
	return o;
}

static int split(const char *opt, const char *list, char *buf, size_t len, const char **out,
		 int max)
{
	int n;

	snprintf(buf, len, "%s", list);
	n = fc_rail_split_list(buf, out, max);
	if (n < 0)
		fc_err("%s: '%s' is not a comma-separated list of names", opt, list);
	return n;
}

/* Every rail by default: fewer than two found, the pairs run one port
 * each (--rails first: the rack was listed once here), the findings said
 * here. */
static int one_rail(const struct fc_rail_map *map, const struct pair_ports *ports, int n)
{
	for (int i = 0; i < map->nfindings; i++)
		fc_warn("rails: %s", map->findings[i].text);
	for (int i = 0; i < n; i++)
		if (ports[i].n < 0)
			fc_warn("rails: %s", ports[i].why);
	fc_err_putf("%d rail%s shared: each pair tests one port", map->nrails,
		map->nrails == 1 ? "" : "s");
	return 1;
}

int mx_rails_params(json_t *params, char **names, int n, const char *rails,
		    const char *exclude, int fanout, int dflt)
{
	static char obuf[512], ebuf[512];
	const char *only[FC_RAIL_MAX], *excl[PAIR_PORTS_MAX];
	struct fc_rail_opts o = { 0 };
	struct pair_ports *ports = calloc((size_t)n + 1, sizeof(*ports));
	struct fc_rail_node *nodes = calloc((size_t)n + 1, sizeof(*nodes));
	struct fc_rail_map map = { 0 };
	struct fc_launch l;
	double timeout;
	json_t *rj;
	int rc = -ENOMEM;

	if (!ports || !nodes)
		goto out_free;
	rc = -EINVAL;
	if (strcmp(rails, "all")) {
		o.only = only;
		o.nonly = split("--rails", rails, obuf, sizeof(obuf), only, FC_RAIL_MAX);
	}
	if (exclude) {
		o.exclude = excl;
		o.nexclude = split("--exclude-dev", exclude, ebuf, sizeof(ebuf), excl, PAIR_PORTS_MAX);
	}
	if (o.nonly < 0 || o.nexclude < 0)
		goto out_free;
	mx_launch_of(json_object_get(params, "pair_args"), &l, &timeout);
	l.fanout = fanout;
	fc_err_putf("listing the RDMA ports of %d nodes to match their rails", n);
	if (pair_ports_list(&l, (const char *const *)names, n, timeout + 10, ports) < 0)
		goto out_free;
	for (int i = 0; i < n; i++)
		nodes[i] = (struct fc_rail_node){ .name = names[i], .ports = ports[i].p,
						  .nports = ports[i].n < 0 ? 0 : ports[i].n };
	if (fc_rail_match(nodes, n, &o, &map)) {
		fc_err("%s", map.err[0] ? map.err : "cannot match the nodes' rails");
		goto out_free;
	}
	if (dflt && map.nrails < 2) {
		/* the rack was listed once here: the pairs list no ports again */
		json_t *pa = json_object_get(params, "pair_args");

		json_array_append_new(pa, json_string("--rails"));
		json_array_append_new(pa, json_string("first"));
		rc = one_rail(&map, ports, n);
		goto out_free;
	}
	if (!map.nrails) {
		fc_err("matrix --rails: the nodes share no rail (no active port of the fabric's "
		       "link layer on a network two nodes reach)");
		goto out_free;
	}
	rj = map_json(&map, nodes, n, ports);
	json_object_set_new(rj, "select", json_string(rails));
	if (exclude)
		json_object_set_new(rj, "exclude_dev", json_string(exclude));
	json_object_set_new(params, "rails", rj);
	if (dflt) { /* what --rails all passes to each pair */
		json_t *pa = json_object_get(params, "pair_args");

		json_array_append_new(pa, json_string("--rails"));
		json_array_append_new(pa, json_string("all"));
		json_array_append_new(pa, json_string("--loaded-only"));
	}
	rc = 0;
out_free:
	fc_rail_map_release(&map);
	free(ports);
	free(nodes);
	return rc;
}

/* Node @node's port on rail position @k from a rail entry's side @sd
 * ("a" or "b" of pair_rails.c: device, port, netdev) into @per, when the
 * names are sound and the place is empty. */
static void port_from_side(json_t *per, const char *node, const json_t *sd, size_t k, size_t n)
{
	const char *dev = fc_jstr(sd, "device", ""), *ifn = fc_jstr(sd, "netdev", "");
	json_t *pl = json_object_get(per, node);

	if (!*dev || !fc_name_ok(FC_NAME_DEV, dev) || (*ifn && !fc_name_ok(FC_NAME_NETDEV, ifn)) ||
	    !fc_valid_node_name(node))
		return;
	if (!pl) {
		pl = json_array();
		for (size_t i = 0; i < n; i++)
			json_array_append_new(pl, json_null());
		json_object_set_new(per, node, pl);
	}
	if (json_is_null(json_array_get(pl, k)))
		json_array_set_new(pl, k, json_pack("{s:s, s:i, s:s}", "device", dev, "port",
						    (int)fc_jnum(sd, "port", 1), "netdev", ifn));
}

/* Each node's own port on each rail of @list, as the documents' rail
 * entries name them: what a live run's rail matching records
 * (mx_rails_params' "ports"), so an imported run names each node's own
 * device too (drain reasons, health's rails from the store). */
static json_t *ports_from_docs(const json_t *docs, const json_t *list)
{
	json_t *per = json_object(), *d, *e, *o;
	size_t i, j, k;

	json_array_foreach(docs, i, d)
		json_array_foreach(json_object_get(d, "rails"), j, e)
			json_array_foreach(list, k, o) {
				if (strcmp(fc_jstr(o, "subnet", ""), fc_jstr(e, "subnet", "")) ||
				    strcmp(fc_jstr(o, "name", ""), fc_jstr(e, "name", "")))
					continue;
				for (int s = 0; s < 2; s++)
					port_from_side(per, fc_jstr(json_object_get(d, s ? "b" : "a"), "node", ""),
						       json_object_get(e, s ? "b" : "a"), k,
						       json_array_size(list));
				break;
			}
	return per;
}

int mx_rails_params_from_docs(json_t *params, const json_t *docs)
{
	json_t *list = json_array(), *d, *e, *o;
	size_t i, j, k;

	json_array_foreach(docs, i, d)
		json_array_foreach(json_object_get(d, "rails"), j, e) {
			int seen = 0;

			json_array_foreach(list, k, o)
				seen |= !strcmp(fc_jstr(o, "subnet", ""), fc_jstr(e, "subnet", "")) &&
					!strcmp(fc_jstr(o, "name", ""), fc_jstr(e, "name", ""));
			if (!seen)
				json_array_append_new(list, json_pack("{s:i, s:s, s:s}", "rail",
								      (int)fc_jnum(e, "rail", 0),
								      "name", fc_jstr(e, "name", "?"),
								      "subnet", fc_jstr(e, "subnet", "")));
		}
	if (!json_array_size(list)) {
		json_decref(list);
		return 0;
	}
	json_object_set_new(params, "rails", json_pack("{s:o, s:[], s:o}", "list", list,
						       "findings", "ports", ports_from_docs(docs, list)));
	return 1;
}
