/*
 * The workers' evidence on the controller: pieces of snapshots kept per
 * side, the diagnosis over them (diag/), and --save-evidence DIR.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "core/names.h"
#include "core/out.h"
#include "core/safefile.h"
#include "diag/diag.h"
#include "pair/pair.h"

/* The bytes @msg adds to a side's evidence: its files' names and texts,
 * PAIR_EV_MSG_MIN at least. */
static size_t ev_cost(const json_t *msg)
{
	size_t add = 0;
	const char *rel;
	json_t *v;

	json_object_foreach(json_object_get(msg, "files"), rel, v)
		add += strlen(rel) + json_string_length(v);
	return add > PAIR_EV_MSG_MIN ? add : PAIR_EV_MSG_MIN;
}

/* A later piece @v of the file @rel of @snap: kept beside the ones before
 * as [bytes so far, piece, piece...], joined once by join_pieces. */
static int add_piece(json_t *snap, const char *rel, json_t *v, char *why, size_t len)
{
	json_t *old = json_object_get(snap, rel), *arr = old;
	size_t had = json_is_string(old) ? json_string_length(old) :
		     (size_t)json_integer_value(json_array_get(old, 0));

	if (had + json_string_length(v) > DIAG_SNAP_FILE_MAX) {
		snprintf(why, len, "its evidence file '%.100s' is over %u KiB (a snapshot's files are at most that)",
			 rel, DIAG_SNAP_FILE_MAX >> 10);
		return -E2BIG;
	}
	if (json_is_string(old)) {
		arr = json_pack("[I, O]", (json_int_t)had, old);
		json_object_set_new(snap, rel, arr);
	}
	json_array_set_new(arr, 0, json_integer((json_int_t)(had + json_string_length(v))));
	json_array_append(arr, v);
	return 0;
}

int pair_ev_absorb(json_t *ev, size_t *used, const json_t *msg, char *why, size_t len)
{
	const char *phase = fc_jstr(msg, "phase", ""), *rel;
	size_t add = ev_cost(msg);
	json_t *snap, *v;

	if (*used + add > PAIR_EV_MAX) {
		snprintf(why, len, "it sent more than %u MiB of evidence (a snapshot before and one after the tests, of %u MiB at most each)",
			 PAIR_EV_MAX >> 20, DIAG_SNAP_TOTAL_MAX >> 20);
		return -E2BIG;
	}
	*used += add;
	if (strcmp(phase, "before") && strcmp(phase, "during") && strcmp(phase, "after"))
		return 0;
	snap = json_object_get(ev, phase);
	if (!snap) {
		snap = json_object();
		json_object_set_new(ev, phase, snap);
	}
	json_object_foreach(json_object_get(msg, "files"), rel, v) {
		int err;

		if (!json_is_string(v))
			continue;
		if (!json_object_get(snap, rel))
			json_object_set(snap, rel, v);
		else if ((err = add_piece(snap, rel, v, why, len)))
			return err;
	}
	return 0;
}

/* Each file that came in pieces as one text, in one pass. */
static void join_pieces(json_t *snap)
{
	const char *rel;
	json_t *v, *piece;
	size_t i;

	json_object_foreach(snap, rel, v) {
		size_t n = (size_t)json_integer_value(json_array_get(v, 0)), off = 0;
		char *buf;

		if (!json_is_array(v) || !(buf = malloc(n + 1)))
			continue;
		json_array_foreach(v, i, piece) {
			size_t k = json_string_length(piece);

			if (i && off + k <= n) {
				memcpy(buf + off, json_string_value(piece), k);
				off += k;
			}
		}
		json_object_set_new(snap, rel, json_stringn(buf, off));
		free(buf);
	}
}

int pair_setup_names(const json_t *setup)
{
	const char *netdev = fc_jstr(setup, "netdev", ""), *host = fc_jstr(setup, "host", "");

	if (fc_name_check(FC_NAME_DEV, fc_jstr(setup, "device", ""), "the worker's device") ||
	    (*netdev && fc_name_check(FC_NAME_NETDEV, netdev, "the worker's net device")) ||
	    (*host && fc_name_check(FC_NAME_NODE, host, "the worker's host name")))
		return -EINVAL;
	return 0;
}

/* A side's node as the report names it: a node name, or one with "#2" when
 * both sides are the same node. */
static int side_node_ok(const char *label)
{
	size_t n = strlen(label);
	char base[256];

	if (fc_name_ok(FC_NAME_NODE, label))
		return 1;
	if (n < 3 || n - 2 >= sizeof(base) || strcmp(label + n - 2, "#2"))
		return 0;
	snprintf(base, sizeof(base), "%.*s", (int)(n - 2), label);
	return fc_name_ok(FC_NAME_NODE, base);
}

/* DIR/NODE/DEV-PORT/{before,after}/ of one side, each a capture
 * (diag/snapcap.c): every name checked, every folder and file made relative
 * to the one above it (core/safefile.h). */
static int save_side(int dfd, const json_t *side, json_t *ev, const char *dir)
{
	static const char *const phases[] = { "before", "during", "after" };
	const char *node = fc_jstr(side, "node", ""), *dev = fc_jstr(side, "device", NULL);
	double port = fc_jnum(side, "port", 0);
	char comp[96], shown[1024];
	int nfd, pfd, err = 0;

	if (!dev || (!json_object_get(ev, "before") && !json_object_get(ev, "after")))
		return 0; /* setup never said which, or nothing came */
	if (!side_node_ok(node))
		return fc_name_check(FC_NAME_NODE, node, "evidence: the node");
	if (fc_name_check(FC_NAME_DEV, dev, "evidence: the device the worker named"))
		return -EINVAL;
	if (!(port >= 1 && port <= 255 && port == (int)port)) { /* u8 port_num, ibv_query_port(3) */
		fc_err("evidence: port %g of %s is not a port number (1 to 255)", port, dev);
		return -EINVAL;
	}
	snprintf(comp, sizeof(comp), "%s-%d", dev, (int)port);
	if ((nfd = fc_subdir_at(dfd, node, dir)) < 0)
		return nfd;
	snprintf(shown, sizeof(shown), "%s/%s", dir, node);
	pfd = fc_subdir_at(nfd, comp, shown);
	close(nfd);
	if (pfd < 0)
		return pfd;
	snprintf(shown, sizeof(shown), "%s/%s/%s", dir, node, comp);
	for (int k = 0; k < 3 && !err; k++) {
		const json_t *snap = json_object_get(ev, phases[k]);

		if (snap)
			err = diag_snap_write_bundle(pfd, phases[k], shown, snap, node, dev, (int)port);
	}
	close(pfd);
	return err;
}

/* DIR/test.json and DIR/NODE/DEV-PORT/{before,after}/ (doc/diagnose.md). */
static void save(const json_t *doc, json_t *const ev[2], const json_t *side[2], const char *dir)
{
	int dfd = fc_evdir_open(dir), err = dfd < 0 ? dfd : 0;
	char *text;

	for (int i = 0; i < 2 && !err; i++)
		err = save_side(dfd, side[i], ev[i], dir);
	if (!err) {
		text = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
		err = text ? fc_write_new_at(dfd, "test.json", text, strlen(text), dir) : -ENOMEM;
		free(text);
	}
	if (dfd >= 0)
		close(dfd);
	if (err)
		fc_finding((json_t *)doc, FC_WARN, "the evidence was not saved to %s (see above)", dir);
	else
		fc_info("evidence saved to %s ('fabcheck diagnose %s')", dir, dir);
}

/* Each side's port, read once from its snapshots: the ceilings before
 * the verdict and the diagnosis after it share it. */
void pair_ev_read(struct diag_set *s, const json_t *doc, json_t *const ev[2], int idx[2])
{
	for (int i = 0; i < 2; i++) {
		const json_t *side = json_object_get(doc, i ? "b" : "a");

		join_pieces(json_object_get(ev[i], "before"));
		join_pieces(json_object_get(ev[i], "after"));
		join_pieces(json_object_get(ev[i], "during"));
		idx[i] = -1;
		if (!json_object_size(ev[i]) || !fc_jstr(side, "device", NULL))
			continue;
		json_t *after = diag_snap_with_during(json_object_get(ev[i], "after"),
						      json_object_get(ev[i], "during"));

		if (diag_set_add(s, fc_jstr(side, "node", "?"), fc_jstr(side, "device", "?"),
				 (int)fc_jnum(side, "port", 0), json_object_get(ev[i], "before"), after))
			idx[i] = s->nports - 1;
		json_decref(after);
	}
}

void pair_ev_ceilings(json_t *doc, const struct diag_set *s, const int idx[2])
{
	for (int i = 0; i < 2; i++) {
		json_t *c;

		if (idx[i] < 0)
			continue;
		c = diag_path_ceiling_json(&s->ports[idx[i]]);
		if (c)
			json_object_set_new(json_object_get(doc, i ? "b" : "a"), "pcie_ceiling", c);
	}
}

void pair_ev_finish(json_t *doc, struct diag_set *s, json_t *const ev[2],
		    const struct pair_cfg *cfg)
{
	const json_t *side[2] = { json_object_get(doc, "a"), json_object_get(doc, "b") };

	diag_run(doc, s);
	diag_set_release(s);
	if (cfg->evidence_dir)
		save(doc, ev, side, cfg->evidence_dir);
}

static void rail_diagnoses(json_t *all, const json_t *d, const json_t *rail, const char *phase)
{
	const json_t *e;
	size_t i;

	json_array_foreach(json_object_get(d, "diagnosis"), i, e) {
		json_t *c = json_deep_copy(e);

		json_object_set_new(c, "subject",
				    json_sprintf("rail %d %s: %s", (int)fc_jnum(rail, "rail", 0), phase,
						 fc_jstr(e, "subject", "?")));
		json_array_append_new(all, c);
	}
}

/* The rails alone: a card whose ports failed every rail's test (diag/cards.c). */
static void card_rails(json_t *doc, json_t *const *alone, int nrails)
{
	json_t *sets = json_array();

	for (int r = 0; r < nrails; r++)
		if (alone[r])
			json_array_append(sets, alone[r]);
	diag_cards(doc, sets);
	json_decref(sets);
}

void pair_ev_rails(json_t *doc, json_t *const *alone, json_t *const *loaded, int nrails)
{
	const json_t *rails = json_object_get(doc, "rails");
	struct diag_set s = { 0 };
	json_t *all = json_array(), *per = json_array();
	const json_t *e;
	size_t i;

	diag_run(doc, &s); /* the rows over every rail (no port evidence here) */
	for (int r = 0; r < nrails; r++) {
		if (alone[r])
			rail_diagnoses(per, alone[r], json_array_get(rails, (size_t)r), "alone");
		if (loaded[r])
			rail_diagnoses(per, loaded[r], json_array_get(rails, (size_t)r), "loaded");
	}
	/* "no rule matched" over every rail is not true where a rail's rule did */
	json_array_foreach(json_object_get(doc, "diagnosis"), i, e)
		if (!json_array_size(per) || strcmp(fc_jstr(e, "rule", ""), "none"))
			json_array_append(all, (json_t *)e);
	json_array_extend(all, per);
	json_decref(per);
	json_object_set_new(doc, "diagnosis", diag_sorted(all));
	json_object_del(doc, "evidence");
	card_rails(doc, alone, nrails);
}
