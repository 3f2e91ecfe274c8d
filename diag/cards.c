/*
 * The card over several tests (rule "hca_all_tests"): when every test of
 * every port of one PCI device failed (two or more of its ports, each in a
 * test of its own: the rails of pair --rails, the pairs of a matrix), the
 * card they share is the common cause, named with no single port. Judged
 * over the tests' documents after each was diagnosed alone (their
 * "verdict" and "evidence": the ports, with their HCA's PCI function).
 * Cards of two ends that both failed every test cannot be told apart by
 * these tests: each is then "possible", with the test that separates them.
 */
#include <stdio.h>
#include <string.h>

#include "core/out.h"
#include "diag/diag.h"

#define CARDS_MAX 64
#define CARD_PORTS 8
#define CARD_SETS 64

struct card {
	char node[128], key[24]; /* PCI device ("0000:17:00"), or the ibdev */
	char ports[CARD_PORTS][72];
	int nports, tests, failed, last_set;
	int sets[CARD_SETS]; /* the tests it was in (the first CARD_SETS) */
};

/* The PCI device of the port's HCA function ("0000:17:00.1" -> "0000:17:00"),
 * else its RDMA device. */
static void card_key(const json_t *port, char *key, size_t len)
{
	const json_t *d;
	size_t i;

	snprintf(key, len, "%s", fc_jstr(port, "device", "?"));
	json_array_foreach(json_object_get(port, "pcie"), i, d)
		if (!strcmp(fc_jstr(d, "role", ""), "hca")) {
			const char *bdf = fc_jstr(d, "bdf", "");

			snprintf(key, len, "%.*s", (int)strcspn(bdf, "."), bdf);
			return;
		}
}

static struct card *card_of(struct card *cards, int *n, const json_t *port)
{
	char key[24];
	const char *node = fc_jstr(port, "node", "?");

	card_key(port, key, sizeof(key));
	for (int i = 0; i < *n; i++)
		if (!strcmp(cards[i].node, node) && !strcmp(cards[i].key, key))
			return &cards[i];
	if (*n == CARDS_MAX)
		return NULL;
	struct card *c = &cards[(*n)++];

	memset(c, 0, sizeof(*c));
	snprintf(c->node, sizeof(c->node), "%s", node);
	snprintf(c->key, sizeof(c->key), "%s", key);
	c->last_set = -1;
	return c;
}

static void card_port(struct card *c, const json_t *port)
{
	char id[72];

	snprintf(id, sizeof(id), "%s port %d", fc_jstr(port, "device", "?"),
		 (int)fc_jnum(port, "port", 0));
	for (int i = 0; i < c->nports; i++)
		if (!strcmp(c->ports[i], id))
			return;
	if (c->nports < CARD_PORTS)
		snprintf(c->ports[c->nports++], sizeof(c->ports[0]), "%s", id);
}

/* Every set with a verdict: its ports' cards, and whether it failed. */
static int gather(const json_t *sets, struct card *cards)
{
	const json_t *set, *port;
	size_t i, k;
	int n = 0;

	json_array_foreach(sets, i, set) {
		const char *verdict = fc_jstr(set, "verdict", NULL);

		if (!verdict)
			continue; /* no test.json: pass or fail is not known */
		json_array_foreach(json_object_get(set, "evidence"), k, port) {
			struct card *c = card_of(cards, &n, port);

			if (!c)
				continue;
			card_port(c, port);
			if (c->last_set != (int)i) {
				c->last_set = (int)i;
				if (c->tests < CARD_SETS)
					c->sets[c->tests] = (int)i;
				c->tests++;
				c->failed += !strcmp(verdict, "fail");
			}
		}
	}
	return n;
}

static int all_failed(const struct card *c)
{
	return c->nports >= 2 && c->tests > 0 && c->failed == c->tests;
}

/* Another card that failed every test was in each test of @c: the two
 * cannot be told apart. */
static int twin(const struct card *cards, int n, const struct card *c)
{
	for (int i = 0; i < n; i++) {
		const struct card *o = &cards[i];
		int shared = 0;

		if (o == c || !all_failed(o) || c->tests > CARD_SETS)
			continue;
		for (int a = 0; a < c->tests; a++)
			for (int b = 0; b < o->tests && b < CARD_SETS; b++)
				shared += c->sets[a] == o->sets[b];
		if (shared == c->tests)
			return 1;
	}
	return 0;
}

static void emit(json_t *out, const struct card *c, int likely)
{
	char subj[400], ports[600] = "", ev[900];

	for (int i = 0; i < c->nports; i++)
		snprintf(ports + strlen(ports), sizeof(ports) - strlen(ports), "%s%s", i ? ", " : "",
			 c->ports[i]);
	snprintf(subj, sizeof(subj), "%.127s HCA %s%.23s", c->node, strchr(c->key, ':') ? "PCIe " : "",
		 c->key);
	snprintf(ev, sizeof(ev), "every test of each of its %d ports failed (%d of %d tests: %s)%s",
		 c->nports, c->failed, c->tests, ports,
		 likely ? ": the card is what they share"
			: "; so did every test of the card at the other end, so these tests cannot tell the two apart");
	json_array_append_new(
		out, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "rule", "hca_all_tests", "subject", subj,
			       "part", "HCA", "confidence", likely ? "likely" : "possible", "evidence",
			       ev, "next",
			       likely ? "read 'devlink health show' and the kernel log (dmesg | grep mlx5) of the card; test one of its ports against a third node; if it fails there too, reseat, update the firmware, then replace the card"
				      : "test each of these cards' ports against a third node ('fabcheck pair NODE OTHER -d DEV'): the card that fails there is the one"));
}

void diag_cards(json_t *doc, const json_t *sets)
{
	struct card cards[CARDS_MAX];
	int n = gather(sets, cards), cand = 0;
	json_t *all;

	for (int i = 0; i < n; i++)
		cand += all_failed(&cards[i]);
	if (!cand)
		return;
	all = json_deep_copy(json_object_get(doc, "diagnosis"));
	if (!all)
		all = json_array();
	for (int i = 0; i < n; i++)
		if (all_failed(&cards[i]))
			emit(all, &cards[i], !twin(cards, n, &cards[i]));
	json_object_set_new(doc, "diagnosis", diag_sorted(all));
}
