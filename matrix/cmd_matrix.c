/* fabcheck matrix: every node pair of a rack, in rounds, and who is bad. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "core/readfile.h"
#include "ctl/child.h"
#include "core/out.h"
#include "core/sched.h"
#include "core/summary.h"
#include "core/util.h"
#include "src/cmds.h"
#include "matrix/mx_pattern.h"
#include "matrix/mx_drain.h"
#include "matrix/mx_diag.h"
#include "matrix/mx_model.h"
#include "matrix/mx_history.h"
#include "matrix/mx_rails.h"
#include "matrix/mx_screen.h"
#include "matrix/mx_session.h"

const char usage_matrix[] =
	"usage: fabcheck matrix NODE... | --hostfile FILE [options]\n"
	"       fabcheck matrix --resume RUN [--db FILE] [--json]\n"
	"\n"
	"Tests every pair of the nodes with 'fabcheck pair', in rounds where each\n"
	"node is in one test at a time (N-1 rounds of N/2 pairs; a bye each round\n"
	"when N is odd), stores each result as it finishes, and names the node or\n"
	"the link that is bad.\n"
	"\n"
	"  --hostfile FILE      nodes, one a line ('#' comments)\n"
	"  --db FILE            result store (default fabcheck.db)\n"
	"  --resume RUN         finish an interrupted run (its nodes and options)\n"
	"  --both-directions    test A->B and B->A (reports asymmetry)\n"
	"  --retest             re-run each suspect's bad pairs before naming it, and\n"
	"                       once more those the retest's figures made bad\n"
	"  --screen             a few rounds of random pairings, then retests of what\n"
	"                       is in doubt against cleared peers, until each node is\n"
	"                       named or cleared (about log2(N) + 2 rounds at most)\n"
	"  --max-rounds N       the screen's round limit (default log2(N) + 2)\n"
	"  --full               every pair (the default)\n"
	"  --min-gbps X         a pair below X Gb/s is bad (also passed to pair)\n"
	"  --max-lat-us X       a pair above X us is bad (also passed to pair)\n"
	"  --min-rack-pct P     a pair below P% of the rack median is bad (default 90)\n"
	"  --asym-pct P         report A->B below P% of B->A (default 90)\n"
	"  --deadline SEC       each pair's deadline (default 300): a test still under way\n"
	"                       is judged on what it moved (pair --deadline)\n"
	"  --import FILE        store and analyse recorded 'pair --json' documents\n"
	"                       ({\"nodes\": [...], \"results\": [...]}) instead of testing\n"
	"  --pace SEC           with --import: wait between results (a replay)\n"
	"  --pattern NAME       pairs (default: each pair alone, a round at a time),\n"
	"                       incast (each node in turn receives from the others at\n"
	"                       once), fanout (sends to them at once), bisection (one\n"
	"                       half to the other at once, both ways), alltoall (every\n"
	"                       node of a group to every other at once); an incast's\n"
	"                       loss is held against the pairs' own: the store's last\n"
	"                       pair run of the same ports (run one first, same --db)\n"
	"  --fan-in K           incast/fanout: K senders (receivers) a round, not all\n"
	"  --group K            alltoall: groups of K nodes, not all\n"
	"  --baseline FILE      judge each result against the fleet's baseline ('fabcheck\n"
	"                       baseline'): more than its rule's P% below is defective\n"
	"  --save-evidence DIR  each pair's evidence in DIR/NNN-A-B (see 'pair --help',\n"
	"                       doc/diagnose.md); 'fabcheck diagnose DIR' judges it again\n"
	"  -j, --json           one JSON document on stdout\n"
	"\n"
	"Slurm (doc/slurm.md):\n" FC_DRAIN_HELP
	"\n"
	"rails (pair options, see 'fabcheck pair --help'):\n"
	"  --rails all|first|LIST  every rail by default (without -d): match every\n"
	"                       node's ports into rails (by the fabric: a shared\n"
	"                       subnet, the LLDP leaf or the position on routed RoCE,\n"
	"                       the switch on InfiniBand; ports off the GPU fabric left\n"
	"                       out, each said), then a\n"
	"                       cell per pair and rail, every rail of a pair loaded at\n"
	"                       once; the suspects get a level: the link (one cell),\n"
	"                       a node's port on one rail, the node on every rail, or\n"
	"                       a rail bad for every node; --retest retests a suspect\n"
	"                       rail against nodes that pass on it; with one rail\n"
	"                       shared each pair tests that port; first: the first\n"
	"                       active port of each node (before rails)\n"
	"  --exclude-dev LIST   devices that are no rail (storage, management)\n"
	"\n" MX_CLI_PAIR_HELP
	"\n"
	"Exit: 0 pass, 1 a suspect node or link, 2 usage, 3 pairs could not run\n"
	"or the run was interrupted (finish it with --resume).\n";

struct progress {
	struct mx_session *s;
	int done, total;
};

/* Why a pair did not pass: its error, else its first finding; "" when it
 * passed or says nothing. */
static const char *pair_reason(const json_t *doc)
{
	const char *err = fc_jstr(doc, "error", "");
	const json_t *f = json_array_get(json_object_get(doc, "findings"), 0);

	if (*err)
		return err;
	if (!strcmp(fc_jstr(doc, "verdict", "pass"), "pass"))
		return "";
	if (json_is_string(f))
		return json_string_value(f);
	return fc_jstr(f, "text", "");
}

/* The width of the names' column: the run's longest name (at most 24),
 * so the reason keeps the room that padding to a fixed 12 took. */
static int names_width(const struct mx_session *s)
{
	int w = 1;

	for (int i = 0; i < s->n; i++)
		if ((int)strlen(s->names[i]) > w)
			w = (int)strlen(s->names[i]);
	return w < 24 ? w : 24;
}

/* One line on stderr per finished pair. */
static void on_result(void *arg, const struct mx_job *job, const json_t *doc)
{
	struct progress *p = arg;
	struct mx_session *s = p->s;
	double size = 0, gbps = fc_pair_doc_gbps(doc, &size), lat = fc_pair_doc_lat_us(doc);
	const char *why;
	char round[96], *line = NULL, fit[1024];
	size_t len = 0;
	int room, cols, wrap;
	FILE *m;

	p->done++;
	if (job->round >= 0)
		snprintf(round, sizeof(round), "round %d/%d", job->round + 1, s->r.rounds);
	else if (job->retest > 1) /* a later round: its number (mx_session.h) */
		snprintf(round, sizeof(round), "retest %d%s%s", job->retest,
			 job->rail[0] ? " on " : "", job->rail);
	else /* one rail alone: its figure, not the rails' sum above */
		snprintf(round, sizeof(round), "retest%s%s", job->rail[0] ? " on " : "", job->rail);
	/* the names and the pair's reason from a store or a worker: the line
	 * goes through fc_put_safe, no escape sequence reaches the terminal */
	if (!(m = open_memstream(&line, &len)))
		return;
	fprintf(m, "  [%s] %-*s -> %-*s ", round, names_width(s), s->names[job->a], names_width(s),
		s->names[job->b]);
	if (isfinite(gbps))
		fprintf(m, "%9.3f Gb/s", gbps);
	else
		fprintf(m, "%14s", "-");
	if (isfinite(lat))
		fprintf(m, " %9.2f us", lat);
	else
		fprintf(m, " %12s", "-");
	fprintf(m, "  %s", fc_jstr(doc, "verdict", "?"));
	why = pair_reason(doc);
	/* the line fits the terminal (fc_err_cols: COLUMNS, else 100 on a
	 * terminal; piped, whole): the reason cut at a word, or left out where
	 * under 12 columns are left; where the names alone pass the width, the
	 * line wrapped at words (its figures on the next line, never cut away);
	 * whole in --json and the store */
	snprintf(fit, sizeof(fit), "%s", why);
	fflush(m);
	cols = fc_err_cols();
	wrap = cols > 0 && (int)len > cols;
	room = cols - (int)len - 2;
	if (*why && (cols <= 0 || wrap || room >= 12))
		fprintf(m, ": %s", cols <= 0 || wrap ? why : fc_fit_words(fit, room));
	if (fclose(m)) {
		free(line);
		return;
	}
	if (wrap) {
		fc_err_put(line, 4, FC_WRAP_LINES);
	} else {
		fc_put_safe(stderr, line, len);
		fputc('\n', stderr);
	}
	free(line);
}

static int run_to_end(struct mx_session *s)
{
	int rc;

	while ((rc = mx_run_poll(&s->r, 1000)) > 0)
		;
	return rc;
}

/* The grid of the pairs, of one rail (@rail >= 0, matrix --rails) or all,
 * under a heading that begins with @lead. */
static void render_grid(FILE *f, const json_t *doc, int rail, const char *lead)
{
	const json_t *nodes = json_object_get(doc, "nodes"), *pairs = json_object_get(doc, "pairs");
	size_t n = json_array_size(nodes), i, j, k;
	int both = json_is_true(json_object_get(doc, "both_directions"));
	struct fc_table *t;
	json_t *p;

	if (n > 12) {
		fprintf(f, "%s(%zu nodes: the grid is in 'fabcheck tui --run %lld' and "
			   "'fabcheck report')\n", lead, n, (long long)fc_jnum(doc, "run", 0));
		return;
	}
	fc_put_paraf(f, 2, "%sGb/s, row -> column%s (* bad, ! could not run):", lead,
		     both ? "" : ", one direction measured per pair");
	/* The header row is the table's last row until the first fc_table_row. */
	t = fc_table_new((int)n + 1, "FROM \\ TO", "", "", "", "", "", "", "", "", "", "", "",
			 "");
	for (j = 0; j < n; j++)
		fc_table_addf(t, (int)j + 1, "%s", json_string_value(json_array_get(nodes, j)));
	for (i = 0; i < n; i++) {
		const char *a = json_string_value(json_array_get(nodes, i));

		fc_table_row(t);
		fc_table_addf(t, 0, "%s", a);
		for (j = 0; j < n; j++) {
			const char *b = json_string_value(json_array_get(nodes, j));

			fc_table_addf(t, (int)j + 1, i == j ? "" : ".");
			json_array_foreach(pairs, k, p) {
				const char *v = fc_jstr(p, "verdict", "");
				const char *pa = fc_jstr(p, "a", ""), *pb = fc_jstr(p, "b", "");

				if (rail >= 0 && (int)fc_jnum(p, "rail", -1) != rail)
					continue;
				/* One direction measured: show it both ways. */
				if ((strcmp(pa, a) || strcmp(pb, b)) &&
				    (both || strcmp(pa, b) || strcmp(pb, a)))
					continue;
				if (!strcmp(v, "error"))
					fc_table_addf(t, (int)j + 1, "!");
				else if (!json_is_number(json_object_get(p, "gbps")))
					fc_table_addf(t, (int)j + 1, "-%s",
						      strcmp(v, "fail") ? "" : "*");
				else
					fc_table_addf(t, (int)j + 1, "%.3g%s",
						      fc_jnum(p, "gbps", NAN),
						      strcmp(v, "fail") ? "" : "*");
			}
		}
	}
	fc_table_print(t, f, "  ");
	fc_table_free(t);
}

/* "0.16 Gb/s", or "-" when there is no figure. */
static const char *num(double v, const char *unit, char *buf, size_t len)
{
	return fc_fmt_figure(v, "%.3g", unit, buf, len);
}

static void render_matrix(FILE *f, const json_t *doc)
{
	const json_t *per = json_object_get(doc, "per_node");
	struct fc_table *t;
	char b1[32], b2[32];
	size_t i;
	json_t *nd;

	double lat = fc_jnum(doc, "rack_median_lat_us", NAN);

	/* The latency only where one was measured (a bandwidth-only run has none). */
	fprintf(f, "matrix run %lld: %d nodes, %lld of %lld pair%s, %d round%s; rack median %s%s%s\n\n",
		(long long)fc_jnum(doc, "run", 0), (int)json_array_size(json_object_get(doc, "nodes")),
		(long long)fc_jnum(doc, "pairs_done", 0), (long long)fc_jnum(doc, "pairs_total", 0),
		fc_s((long long)fc_jnum(doc, "pairs_total", 0)), (int)fc_jnum(doc, "rounds", 0),
		fc_s((long long)fc_jnum(doc, "rounds", 0)),
		num(fc_jnum(doc, "rack_median_gbps", NAN), "Gb/s", b1, sizeof(b1)),
		isfinite(lat) ? ", " : "", isfinite(lat) ? num(lat, "us", b2, sizeof(b2)) : "");
	if (json_is_object(json_object_get(doc, "screen")))
		fprintf(f, "screen: %s\n\n", fc_jstr(json_object_get(doc, "screen"), "why", ""));
	mx_rails_notes_render(f, doc);
	if (json_array_size(json_object_get(doc, "rails"))) {
		const json_t *r;
		size_t k;

		json_array_foreach(json_object_get(doc, "rails"), k, r) {
			char lead[128];

			snprintf(lead, sizeof(lead), "rail %d (%s), ", (int)fc_jnum(r, "rail", 0),
				 fc_jstr(r, "name", "?"));
			render_grid(f, doc, (int)fc_jnum(r, "rail", 0), lead);
			fputc('\n', f);
		}
	} else {
		render_grid(f, doc, -1, "");
	}
	fprintf(f, "\n");
	t = fc_table_new(5, "NODE", "MEDIAN BW", "MEDIAN LAT", "BAD PEERS", "STATE");
	json_array_foreach(per, i, nd) {
		fc_table_row(t);
		fc_table_addf(t, 0, "%s", fc_jstr(nd, "node", "?"));
		fc_table_addf(t, 1, "%s", num(fc_jnum(nd, "median_gbps", NAN), "Gb/s", b1, sizeof(b1)));
		fc_table_addf(t, 2, "%s", num(fc_jnum(nd, "median_lat_us", NAN), "us", b2, sizeof(b2)));
		fc_table_addf(t, 3, "%d of %d", (int)fc_jnum(nd, "bad_peers", 0),
			      (int)fc_jnum(nd, "peers", 0));
		fc_table_addf(t, 4, "%s", fc_jstr(nd, "state", "?"));
	}
	fc_table_print(t, f, "  ");
	fc_table_free(t);
	mx_doc_diagnoses_render(f, doc);
	mx_pattern_render(f, doc);
	fc_drain_render(f, doc);
}

static void add_history(struct fc_store *st, const struct mx_model *m, json_t *doc)
{
	struct fc_hist_opts o = FC_HIST_OPTS_DEFAULT;
	struct mx_history h;

	if (mx_history_load(&h, st, m, &o))
		return;
	mx_history_doc(&h, m, doc);
	mx_history_release(&h);
}

/* The line that starts a retest round: the first's as before the rounds
 * (the rack cases read it), a later one with its round and why, fitted to
 * the terminal (the why whole in --json's "retests"). */
static void retest_said(const struct mx_session *s, int cnt)
{
	char line[512];

	if (s->retested <= 1) {
		fc_err_putf("retesting %d pair%s of the suspects", cnt, fc_s(cnt));
		return;
	}
	/* fitted to the terminal (fc_err_cols), cut at a word after the
	 * round's number; whole when piped */
	snprintf(line, sizeof(line), "retest %d: %s: retesting %d pair%s of new suspects",
		 s->retested, s->rounds[s->retested - 1].why, cnt, fc_s(cnt));
	fc_err_progress(line, strlen("retest N: "));
}

/* Analyses the stored run, runs the retest when asked, and reports. */
static int finish(struct fc_ctx *ctx, struct mx_session *s, const struct mx_screen *scr,
		  int *retest_queued, const struct mx_cli *c)
{
	const struct fc_drain_opts *drain = &c->drain;
	struct mx_model m;
	json_t *doc, *rounds;
	int rc, nerr = 0, doubt;

	rc = mx_model_load(&m, s->st, s->run);
	if (rc || mx_model_analyze(&m)) {
		if (!rc)
			mx_model_release(&m);
		return FC_EXIT_CANT;
	}
	if (retest_queued) {
		int before = s->retested;

		/* A resumed run that was retested already is not retested again. */
		for (size_t i = 0; i < m.nres && !before; i++)
			if (m.res[i].retest)
				s->retested = FC_MX_RETEST_ROUNDS;
		if (!before && s->retested)
			s->hist_retested = 1;
		*retest_queued = mx_session_retest(s, &m);
		if (*retest_queued > 0) {
			retest_said(s, *retest_queued);
			mx_model_release(&m);
			return 0;
		}
		/* A round that found nothing to retest ends the rounds. */
		s->retested = FC_MX_RETEST_ROUNDS;
		/* The links below their past, once, after the suspects' retest. */
		*retest_queued = scr && scr->ss ? 0 : mx_session_retest_history(s, &m);
		if (*retest_queued > 0) {
			fc_err_putf("measuring again %d link%s below their past runs",
				*retest_queued, fc_s(*retest_queued));
			mx_model_release(&m);
			return 0;
		}
	}
	for (int i = 0; i < m.an.nfindings; i++)
		nerr += m.an.findings[i].kind == FC_MX_UNREACHABLE ||
			m.an.findings[i].kind == FC_MX_PAIR_ERROR;
	doubt = scr ? mx_screen_hold(scr, &m) : 0;
	/* The text shows the pairs only in the grid of up to 12 nodes; at
	 * 1,024 x 8 the pairs list alone takes gigabytes. */
	doc = ctx->json || m.n <= 12 ? mx_model_doc(&m) : mx_model_doc_brief(&m);
	json_object_set_new(doc, "db", json_string(fc_store_path(s->st)));
	if ((rounds = mx_session_retests_doc(s)))
		json_object_set_new(doc, "retests", rounds);
	mx_doc_diagnoses(&m, s->st, doc);
	add_history(s->st, &m, doc);
	if (c->baseline)
		fc_bl_judge_run(s->st, s->run, &c->bl, c->baseline, doc);
	/* Only a pattern's run: reading every stored document again costs at
	 * rack scale. */
	if (json_object_get(s->params, "pattern") && mx_pattern_doc(s->st, s->run, doc))
		fc_finding(doc, FC_WARN, "the flows of run %lld's pattern could not be read back",
			   (long long)s->run);
	if (scr && scr->ss) {
		json_object_set_new(doc, "screen", mx_screen_doc(scr));
		json_object_set_new(doc, "rounds", json_integer(scr->s.round));
	}
	if (doubt) {
		char small[FC_SCREEN_SMALL_LEN];

		fc_screen_small_text(&scr->s, small, sizeof(small));
		fc_finding(doc, FC_WARN,
			   "%d more suspect%s in doubt, not named: the analysis leans that way on "
			   "too few of the screen's tests (a link not bad %d tr%s in a row, a port "
			   "not named); screen again or run the full matrix on those nodes%s",
			   doubt, fc_s(doubt), scr->s.k_confirm, scr->s.k_confirm == 1 ? "y" : "ies",
			   small);
	}
	if (fc_drain_wanted(drain)) {
		json_t *targets = json_array(), *passed = json_array();
		int measured = (m.nrails ? m.ran.nsuspects : m.an.nsuspects) > 0 || !nerr;

		mx_drain_targets(doc, targets, passed);
		mx_drain_run(doc, s->st, s->run, "matrix", drain, targets, passed, measured);
		json_decref(targets);
		json_decref(passed);
	}
	fc_store_run_end(s->st, s->run, fc_jstr(doc, "verdict", "fail"));
	rc = fc_emit(ctx, doc, render_matrix);
	/* A suspect is a failed check; pairs that could not run, when nothing
	 * is to blame, mean the matrix could not run. */
	if (rc != FC_EXIT_CANT) {
		if (m.nrails ? m.ran.nsuspects > 0 : fc_mx_failed(&m.an))
			rc = FC_EXIT_FAIL;
		else if (nerr)
			rc = FC_EXIT_CANT;
	}
	mx_model_release(&m);
	return rc;
}

/* Reads @path: {"nodes": [...], "results": [pair documents]} or a plain
 * list of pair documents; each names its nodes in "a"."node", "b"."node". */
static json_t *import_read(const char *path, json_t **nodes_p)
{
	json_error_t err;
	json_t *root = fc_load_json(path, 0, 0, &err), *results, *nodes, *d;
	size_t i;

	if (!root) {
		fc_err("--import %s: line %d: %s; give a file of 'fabcheck pair --json' documents",
		       path, err.line, err.text);
		return NULL;
	}
	results = json_is_array(root) ? root : json_object_get(root, "results");
	nodes = json_is_array(json_object_get(root, "nodes")) ?
			json_incref(json_object_get(root, "nodes")) : json_array();
	json_array_foreach(results, i, d) {
		const char *ab[2] = { fc_jstr(json_object_get(d, "a"), "node", NULL),
				      fc_jstr(json_object_get(d, "b"), "node", NULL) };

		for (int k = 0; k < 2; k++) {
			size_t j;
			json_t *v;
			int found = 0;

			if (!ab[k] || !fc_valid_node_name(ab[k])) {
				fc_err("--import %s: result %zu has no valid %s.node; each result "
				       "must be a 'fabcheck pair --json' document", path, i + 1,
				       k ? "b" : "a");
				goto out_free;
			}
			json_array_foreach(nodes, j, v)
				found |= !strcmp(json_string_value(v), ab[k]);
			if (!found)
				json_array_append_new(nodes, json_string(ab[k]));
		}
	}
	if (!json_array_size(results) || json_array_size(nodes) < 2) {
		fc_err("--import %s: no pair results between two nodes", path);
		goto out_free;
	}
	json_incref(results);
	json_decref(root);
	*nodes_p = nodes;
	return results;

out_free:
	json_decref(nodes);
	json_decref(root);
	return NULL;
}

/* --import: stores recorded pair documents as a matrix run (at --pace) and
 * analyses it as a live run. */
static int import_run(struct fc_ctx *ctx, const struct mx_cli *c)
{
	json_t *nodes = NULL, *results, *d, *params;
	struct mx_session s = { 0 };
	char **names;
	size_t i, n;
	int rc = FC_EXIT_CANT;

	if (c->n || c->resume) {
		fc_err("matrix --import: the nodes come from the file; drop the node names");
		return FC_EXIT_USAGE;
	}
	results = import_read(c->import, &nodes);
	if (!results)
		return FC_EXIT_USAGE;
	n = json_array_size(nodes);
	names = calloc(n, sizeof(*names));
	if (!names)
		goto out_free;
	for (i = 0; i < n; i++)
		names[i] = (char *)json_string_value(json_array_get(nodes, i));
	params = mx_params_new(names, (int)n, c->both, 0, &c->opts, NULL, 0);
	json_object_set_new(params, "imported", json_string(c->import));
	mx_rails_params_from_docs(params, results);
	free(names);
	s.st = fc_store_open(c->db);
	if (!s.st || (s.run = fc_store_run_begin(s.st, "matrix", params)) <= 0) {
		json_decref(params);
		goto out_close;
	}
	json_decref(params);
	fc_err_putf("matrix run %lld in %s: importing %zu result%s of %zu nodes from %s",
		(long long)s.run, fc_store_path(s.st), json_array_size(results),
		fc_s((long long)json_array_size(results)), n, c->import);
	fc_stop_on_signals();
	/* Without a pace, one transaction: a replay needs no per-pair sync. */
	if (!(c->pace_s > 0) && fc_store_begin(s.st))
		goto out_close;
	json_array_foreach(results, i, d) {
		if (fc_stop)
			break;
		if (fc_store_pair_add(s.st, s.run, fc_jstr(json_object_get(d, "a"), "node", ""),
				      fc_jstr(json_object_get(d, "b"), "node", ""), d))
			goto out_close;
		if (c->pace_s > 0)
			usleep((useconds_t)(c->pace_s * 1e6));
	}
	if (!(c->pace_s > 0) && fc_store_commit(s.st))
		goto out_close;
	if (fc_stop) {
		fc_store_run_end(s.st, s.run, "interrupted");
		fc_err("interrupted: run %lld keeps the results imported so far", (long long)s.run);
		goto out_close;
	}
	rc = finish(ctx, &s, NULL, NULL, c);
out_close:
	mx_session_close(&s);
out_free:
	json_decref(results);
	json_decref(nodes);
	return rc;
}

int cmd_matrix(struct fc_ctx *ctx, int argc, char **argv)
{
	struct mx_screen scr = { 0 };
	struct mx_session s;
	struct progress prog;
	struct mx_cli c;
	int rc, queued = 0;

	rc = mx_cli_parse(ctx, &c, argc, argv, MX_CLI_MATRIX, usage_matrix);
	if (rc)
		goto out_cli;
	fc_stop = 0;
	if (c.import) {
		rc = import_run(ctx, &c);
		goto out_cli;
	}
	rc = mx_session_open(&s, &c, &fc_stop);
	if (rc)
		goto out_cli;
	prog = (struct progress){ .s = &s };
	s.r.on_result = on_result;
	s.r.arg = &prog;
	rc = mx_screen_open(&scr, &s);
	if (rc < 0) {
		rc = FC_EXIT_CANT;
		goto out_session;
	}
	if (rc)
		fc_err_putf("matrix run %lld in %s: screening %d nodes in at most %d round%s of up "
			"to %d pair%s%s", (long long)s.run, fc_store_path(s.st), s.n, s.r.rounds,
			fc_s(s.r.rounds), s.n / 2, fc_s(s.n / 2), c.resume ? " (resumed)" : "");
	else
		fc_err_putf("matrix run %lld in %s: %d nodes, %d pair%s in %d round%s of up to "
			"%d%s", (long long)s.run, fc_store_path(s.st), s.n,
			s.n * (s.n - 1) / (s.both ? 1 : 2), fc_s(s.n * (s.n - 1) / (s.both ? 1 : 2)),
			s.r.rounds, fc_s(s.r.rounds), s.n / 2,
			c.resume ? " (resumed: finished pairs are kept)" : "");
	fc_stop_on_signals();
	do {
		rc = run_to_end(&s);
		if (rc == -EINTR) {
			fc_store_run_end(s.st, s.run, "interrupted");
			fc_err("interrupted: %d pair results of run %lld are kept in %s; finish with "
			       "'fabcheck matrix --resume %lld --db %s'", s.r.stored,
			       (long long)s.run, fc_store_path(s.st), (long long)s.run,
			       fc_store_path(s.st));
			rc = FC_EXIT_CANT;
			goto out_session;
		}
		if (rc) {
			fc_store_run_end(s.st, s.run, "error");
			rc = rc == -EINVAL ? FC_EXIT_USAGE : FC_EXIT_CANT;
			goto out_session;
		}
		rc = finish(ctx, &s, &scr, &queued, &c);
	} while (queued > 0 && !rc);

out_session:
	mx_screen_close(&scr);
	mx_session_close(&s);
out_cli:
	mx_cli_release(&c);
	return rc;
}
