/*
 * The pairs an incast's loss is held against: the store's latest ended
 * matrix run with no pattern before the pattern run, its pairs between the
 * pattern run's own ports (node, and device where both name one). Their
 * loss, summed over the pairs (a matrix round runs each node in one pair at
 * a time, so a port's deltas in two pairs are two windows), against the
 * packets their results moved: the background loss rate of those ports
 * (core/lossrate.h).
 */
#include <string.h>

#include "core/lossrate.h"
#include "core/out.h"
#include "matrix/mx_pattern_int.h"

struct pairs_ref {
	int64_t before, id;
	const json_t *ports; /* {node: device} of the pattern run's flows */
	struct fc_loss loss;
	int pairs;
};

static int pick_pairs_run(const struct fc_store_run *r, void *arg)
{
	struct pairs_ref *p = arg;

	if (!strcmp(r->kind, "matrix") && r->id < p->before && r->id > p->id && r->ended > 0 &&
	    !json_object_get(r->params, "pattern"))
		p->id = r->id;
	return 0;
}

/* Whether side @ab of @d is one of @ports. */
static int same_port(const json_t *ports, const json_t *d, const char *ab)
{
	const json_t *s = json_object_get(d, ab);
	const json_t *dev = json_object_get(ports, fc_jstr(s, "node", ""));
	const char *mine = fc_jstr(s, "device", "");

	return dev && (!*mine || !*json_string_value(dev) || !strcmp(mine, json_string_value(dev)));
}

static int add_pair(const struct fc_store_pair *sp, void *arg)
{
	struct pairs_ref *p = arg;
	json_t *d = sp->doc ? json_loads(sp->doc, 0, NULL) : NULL;

	if (d && !json_is_true(json_object_get(d, "retest")) && same_port(p->ports, d, "a") &&
	    same_port(p->ports, d, "b")) {
		fc_loss_counters(&p->loss, json_object_get(d, "counters"));
		p->loss.packets += fc_loss_packets(d);
		p->pairs++;
	}
	json_decref(d);
	return 0;
}

/* {node: device} of every flow of @rounds ({round: [documents]}). */
static json_t *flow_ports(const json_t *rounds)
{
	json_t *ports = json_object(), *flows, *d;
	const char *k;
	size_t i;

	json_object_foreach((json_t *)rounds, k, flows)
		json_array_foreach(flows, i, d)
			for (int s = 0; s < 2; s++) {
				const json_t *side = json_object_get(d, s ? "b" : "a");

				if (!json_object_get(ports, fc_jstr(side, "node", "")))
					json_object_set_new(ports, fc_jstr(side, "node", ""),
							    json_string(fc_jstr(side, "device", "")));
			}
	return ports;
}

json_t *mx_pattern_pairs(struct fc_store *st, int64_t run, const json_t *rounds,
			 struct fc_loss *loss)
{
	json_t *ports = flow_ports(rounds);
	struct pairs_ref pr = { .before = run, .ports = ports };
	json_t *out = NULL;

	memset(loss, 0, sizeof(*loss));
	if (!fc_store_run_list(st, 0, pick_pairs_run, &pr) && pr.id &&
	    !fc_store_pairs(st, pr.id, 0, add_pair, &pr)) {
		*loss = pr.loss;
		out = json_pack("{s:I, s:i, s:f, s:f, s:f, s:f}", "run", (json_int_t)pr.id, "pairs",
				pr.pairs, "packets", pr.loss.packets, "retransmissions_started",
				pr.loss.retries, "retransmissions", pr.loss.retrans, "drops",
				pr.loss.drops);
		json_object_set_new(out, "clean", !pr.pairs ? json_null() :
					  json_boolean(!(pr.loss.retrans > 0) && !(pr.loss.drops > 0)));
	}
	json_decref(ports);
	return out;
}
