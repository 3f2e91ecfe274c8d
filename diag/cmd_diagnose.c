/* fabcheck diagnose DIR: the diagnosis of an evidence folder, offline. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/opts.h"
#include "core/fc.h"
#include "core/log.h"
#include "core/names.h"
#include "core/out.h"
#include "core/summary.h"
#include "diag/diag.h"
#include "src/cmds.h"

const char usage_diagnose[] =
	"usage: fabcheck diagnose DIR [--rails-from CAPTURE...] [--json]\n"
	"       fabcheck diagnose --from CAPTURE [CAPTURE] [--json]\n"
	"\n"
	"Names the most likely failed part (cable or transceiver, switch port, HCA,\n"
	"host PCIe, configuration, congestion, buffers) from an evidence folder:\n"
	"what 'pair', 'matrix' or 'soak --save-evidence DIR' wrote, or one put\n"
	"together by hand from sysfs, ethtool -S, ethtool -m and perfquery output on\n"
	"a machine without fabcheck (layout: doc/diagnose.md). Each diagnosis comes\n"
	"with its confidence (likely, possible), its evidence in one line and the\n"
	"next step to confirm it. A folder of such folders (matrix pairs, soak\n"
	"slices, each rail's test) is diagnosed folder by folder.\n"
	"\n"
	"  --from CAPTURE [CAPTURE]  the ports of a node's capture ('fabcheck\n"
	"               capture', folder or .tar.gz); two of one node: before, then\n"
	"               after\n"
	"  --rails-from CAPTURE...  the rack's nodes' captures: their rails, matched\n"
	"               as 'preflight --from' matches them, give each port's peers\n"
	"               over every folder (the port on its rail); without them, or\n"
	"               where they place no port, the same device name and port\n"
	"  -j, --json   one JSON document on stdout\n"
	"  -h, --help   this text\n"
	"\n"
	"The verdict is the recorded test's (test.json), pass without one. Exit: 0\n"
	"pass or warnings, 1 the test failed, 2 usage error or an unreadable folder.\n";

static int has_file(const char *dir, const char *name)
{
	char path[1024];

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return 0;
	return access(path, F_OK) == 0;
}

/* The set @s (read from @dir) diagnosed into @sets and @doc; released. */
static void judge_set(const char *dir, struct diag_set *s, json_t *doc, json_t *sets)
{
	json_t *one = fc_doc_new();

	json_object_set_new(one, "path", json_string(dir));
	if (s->test) {
		json_object_set(one, "verdict", json_object_get(s->test, "verdict"));
		json_object_set(one, "findings", json_object_get(s->test, "findings"));
		if (!json_is_string(json_object_get(one, "verdict")))
			json_object_set_new(one, "verdict", json_string("pass"));
		if (!json_is_array(json_object_get(one, "findings")))
			json_object_set_new(one, "findings", json_array());
	} else {
		json_object_del(one, "verdict");
	}
	diag_run(one, s);
	diag_set_release(s);
	if (fc_doc_verdict(one) > fc_doc_verdict(doc))
		json_object_set(doc, "verdict", json_object_get(one, "verdict"));
	json_array_extend(json_object_get(doc, "diagnosis"), json_object_get(one, "diagnosis"));
	json_array_append_new(sets, one);
}

static int diagnose_one(const char *dir, json_t *doc, json_t *sets)
{
	struct diag_set s;
	int err = diag_set_read(dir, &s);

	if (!err)
		judge_set(dir, &s, doc, sets);
	return err;
}

/* --from CAPTURE [CAPTURE]: the node's ports, judged as one folder. */
static int diagnose_from(char *const *paths, int n, json_t *doc)
{
	json_t *sets = json_array();
	struct diag_set s;
	int err;

	json_object_set_new(doc, "diagnosis", json_array());
	json_object_set_new(doc, "sets", sets);
	err = diag_set_from_captures(paths, n, &s);
	if (!err)
		judge_set(paths[n - 1], &s, doc, sets);
	return err;
}

/* NODE/DEV-PORT/before|after below @dir. */
static int has_ports(const char *dir)
{
	struct dirent *n, *p;
	DIR *dn, *dp;
	int found = 0;

	if (!(dn = opendir(dir)))
		return 0;
	while (!found && (n = readdir(dn))) {
		char node[1024];

		if (n->d_name[0] == '.' ||
		    snprintf(node, sizeof(node), "%s/%s", dir, n->d_name) >= (int)sizeof(node) ||
		    !(dp = opendir(node)))
			continue;
		while (!found && (p = readdir(dp))) {
			char port[1100];

			if (p->d_name[0] != '.' &&
			    snprintf(port, sizeof(port), "%s/%s", node, p->d_name) < (int)sizeof(port))
				found = has_file(port, "before") || has_file(port, "after");
		}
		closedir(dp);
	}
	closedir(dn);
	return found;
}

static int name_cmp(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* The sub-folders of @dir, sorted (so that the sets come in the order
 * they were written: NNN-A-B, alone-rail0, loaded-rail0, ...); NULL-ended. */
static char **sub_folders(const char *dir)
{
	char **v = NULL, **nv;
	size_t n = 0;
	struct dirent *e;
	DIR *d = opendir(dir);
	int dlen = (int)strlen(dir);

	if (!d)
		return NULL;
	while (dlen > 1 && dir[dlen - 1] == '/') /* "DIR/" as a shell completes it: no "DIR//NNN" */
		dlen--;
	while ((e = readdir(d))) {
		char sub[1024];
		struct stat st;

		if (e->d_name[0] == '.' ||
		    snprintf(sub, sizeof(sub), "%.*s/%s", dlen, dir, e->d_name) >= (int)sizeof(sub) ||
		    lstat(sub, &st) || !S_ISDIR(st.st_mode) || !(nv = realloc(v, (n + 2) * sizeof(*v))))
			continue;
		v = nv;
		if ((v[n] = strdup(sub)))
			v[++n] = NULL;
	}
	closedir(d);
	if (n > 1)
		qsort(v, n, sizeof(*v), name_cmp);
	return v;
}

/* The deepest a set lies below the folder given: matrix --rails writes
 * DIR/NNN-A-B-RAIL/alone-railR/NODE/DEV-PORT. */
#define DIAG_DEPTH_MAX 4

/* @dir when it is an evidence folder (NODE/DEV-PORT/before|after below
 * it), else the sets in its sub-folders, depth first; a folder that holds
 * test.json and no set below is one too (a test with no port evidence).
 * Returns the sets found (or -errno) and adds them to @sets. */
static int walk(const char *dir, int depth, json_t *doc, json_t *sets)
{
	char **subs;
	int n = 0, err = 0;

	if (has_ports(dir))
		return diagnose_one(dir, doc, sets) ?: 1;
	subs = depth < DIAG_DEPTH_MAX ? sub_folders(dir) : NULL;
	for (size_t i = 0; subs && subs[i]; i++) {
		int k = err ? 0 : diag_entry_check(FC_NAME_NODE, subs[i], strrchr(subs[i], '/') + 1,
						   "set folder") ?:
				  walk(subs[i], depth + 1, doc, sets);

		if (k < 0)
			err = k;
		else
			n += k;
		free(subs[i]);
	}
	free(subs);
	if (err)
		return err;
	if (!n && has_file(dir, "test.json"))
		return diagnose_one(dir, doc, sets) ?: 1;
	return n;
}

/* DIR itself, or the evidence folders below it (matrix, soak, rails);
 * @rails: the rack's rail set (--rails-from), or NULL. */
static int diagnose_dir(const char *dir, json_t *doc, const json_t *rails)
{
	json_t *sets = json_array();
	int n;

	json_object_set_new(doc, "diagnosis", json_array());
	json_object_set_new(doc, "sets", sets);
	n = walk(dir, 0, doc, sets);
	if (n > 1) {
		diag_cards(doc, sets); /* a card whose ports failed every test */
		/* a port against the same port on the other nodes */
		diag_peers(doc, sets, rails);
		diag_peers_note(doc, sets, rails);
	}
	/* Nothing found: the folder itself, for its error. */
	return n ? (n < 0 ? n : 0) : diagnose_one(dir, doc, sets);
}

/* 1 when @e is an entry of a set's own diagnosis: the document's list
 * holds each set's entries (judge_set) and then those over every folder
 * (diag_cards, diag_peers: every rule they emit, whatever its name). */
static int in_a_set(const json_t *sets, const json_t *e)
{
	const json_t *s, *x;
	size_t i, k;

	json_array_foreach(sets, i, s)
		json_array_foreach(json_object_get(s, "diagnosis"), k, x)
			if (json_equal(x, e)) /* diag_peers' list holds copies */
				return 1;
	return 0;
}

/* How the peers over every folder were matched (diag_peers_note), where
 * the rails were read or a problem over every folder names them. */
static void render_peers(FILE *f, const json_t *doc, int head)
{
	const json_t *p = json_object_get(doc, "peers");

	if (!p || (!head && !strcmp(fc_jstr(p, "matched_by", ""), "name")))
		return;
	fputc('\n', f);
	if (!strcmp(fc_jstr(p, "matched_by", ""), "name"))
		fc_put_paraf(f, 2, "peers over every folder: by name (%s)", fc_jstr(p, "why", "?"));
	else
		fc_put_paraf(f, 2, "peers over every folder: the port on its rail (rails of %zu captures, matched by %s)%s%s",
			json_array_size(json_object_get(p, "captures")),
			fc_jstr(p, "rails_matched_by", "?"),
			json_object_get(p, "by_name") ? "; by name for the nodes no capture places: " : "",
			fc_jstr(p, "by_name", ""));
	if (json_object_get(p, "no_evidence"))
		fc_put_paraf(f, 4, "  captures of nodes with no folder here (not used): %s",
			fc_jstr(p, "no_evidence", ""));
}

static void render(FILE *f, const json_t *doc)
{
	const json_t *s, *fd, *sets = json_object_get(doc, "sets");
	json_t *notes = json_array(), *undet = diag_undetermined(sets);
	size_t i;
	int head = 0;

	json_array_foreach(sets, i, s) {
		if (i)
			fputc('\n', f);
		fc_put_paraf(f, 2, "%s: recorded verdict %s", fc_jstr(s, "path", "?"),
			fc_jstr(s, "verdict", "none (no test.json)"));
		fc_render_finding_list(f, s, json_object_get(s, "findings"));
		if (!diag_undetermined_shared(undet, s)) /* else said once below */
			diag_render_list(f, s);
		diag_notes_add(notes, s);
	}
	diag_undetermined_render(f, undet);
	json_decref(undet);
	json_array_foreach(json_object_get(doc, "diagnosis"), i, fd) /* over every folder */
		if (!in_a_set(sets, fd)) {
			fputs(head++ ? "" : "\nover every folder:\n", f);
			diag_render_entry(f, fd, fc_jstr(fd, "subject", "?"), "evidence");
		}
	/* a note read at a port in every folder is said once, after them */
	if (json_array_size(notes))
		fputc('\n', f);
	diag_notes_render(f, notes);
	json_decref(notes);
	render_peers(f, doc, head);
}

struct dg_cli {
	const char *from; /* --from: the first capture; an argument the second */
	const char *rails_from; /* --rails-from: the first capture; the others are arguments */
};

#define FC_OPT_T struct dg_cli
static const struct fc_opts dg_spec = {
	.opt = (const struct fc_opt[]){ FCO_STR("from", 0, from), FCO_STR("rails-from", 0, rails_from),
					FCO_JSON, { 0 } },
	.cmd = "diagnose", .usage = usage_diagnose,
};
#undef FC_OPT_T

/* diagnose DIR --rails-from CAPTURE...: the captures (the option's and
 * each argument that is one) read into @rails, the one argument that is
 * not a capture into @dir; 0, or -1 (said). */
static int rails_args(const struct dg_cli *c, int argc, char **argv, const char **dir,
		      json_t **rails, diag_rails_reader *read)
{
	char **caps = calloc((size_t)argc + 2, sizeof(*caps));
	int n = 0, ndir = 0;

	if (!caps)
		return -1;
	caps[n++] = (char *)c->rails_from;
	for (int i = optind; i < argc; i++)
		if (diag_is_capture(argv[i]))
			caps[n++] = argv[i];
		else if (!ndir++)
			*dir = argv[i];
	if (ndir != 1 || c->from)
		fc_err(c->from ? "diagnose: --rails-from goes with an evidence folder, not --from" :
			   "diagnose --rails-from: give one evidence folder and the captures of the rack's nodes (fabcheck capture: folders with manifest.json, or .tar.gz); see 'fabcheck diagnose --help'");
	else
		*rails = read(caps, n);
	free(caps);
	return *rails ? 0 : -1;
}

int diag_cmd(struct fc_ctx *ctx, int argc, char **argv, diag_rails_reader *read)
{
	struct dg_cli c = { 0 };
	json_t *doc, *rails = NULL;
	const char *dir = NULL;
	int err;

	if (fc_opts_parse(ctx, &dg_spec, &c, argc, argv))
		return FC_EXIT_USAGE;
	if (c.rails_from) {
		if (rails_args(&c, argc, argv, &dir, &rails, read))
			return FC_EXIT_USAGE;
	} else if (c.from ? argc - optind > 1 : argc - optind != 1) {
		fc_err(c.from ? "diagnose --from: give one capture of a node, or two (before, then after); see 'fabcheck diagnose --help'"
			      : "diagnose: give one evidence folder (what --save-evidence DIR wrote); see 'fabcheck diagnose --help'");
		return FC_EXIT_USAGE;
	}
	doc = fc_doc_new();
	if (!dir && !c.from)
		dir = argv[optind];
	json_object_set_new(doc, "input", json_string(c.from ? c.from : dir));
	if (c.from) {
		char *paths[2] = { (char *)c.from, optind < argc ? argv[optind] : NULL };

		err = diagnose_from(paths, optind < argc ? 2 : 1, doc);
	} else {
		err = diagnose_dir(dir, doc, rails);
	}
	json_decref(rails);
	if (err) {
		json_decref(doc);
		return FC_EXIT_USAGE;
	}
	return fc_emit(ctx, doc, render);
}
