/* fabcheck diagnose DIR: the diagnosis of an evidence folder, offline. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/opts.h"
#include "core/fc.h"
#include "core/log.h"
#include "core/out.h"
#include "diag/diag.h"
#include "src/cmds.h"

const char usage_diagnose[] =
	"usage: fabcheck diagnose DIR [--json]\n"
	"\n"
	"Names the most likely failed part (cable or transceiver, switch port, HCA,\n"
	"host PCIe, configuration, congestion, buffers) from an evidence folder:\n"
	"what 'pair', 'matrix' or 'soak --save-evidence DIR' wrote, or one put\n"
	"together by hand from sysfs, ethtool -S, ethtool -m and perfquery output on\n"
	"a machine without fabcheck (layout: doc/diagnose.md). Each diagnosis comes\n"
	"with its confidence (likely, possible), its evidence in one line and the\n"
	"next step to confirm it. A folder of such folders (matrix rounds, soak\n"
	"slices) is diagnosed folder by folder.\n"
	"\n"
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

static int diagnose_one(const char *dir, json_t *doc, json_t *sets)
{
	struct diag_set s;
	json_t *one;
	int err = diag_set_read(dir, &s);

	if (err)
		return err;
	one = fc_doc_new();
	json_object_set_new(one, "path", json_string(dir));
	if (s.test) {
		json_object_set(one, "verdict", json_object_get(s.test, "verdict"));
		json_object_set(one, "findings", json_object_get(s.test, "findings"));
		if (!json_is_string(json_object_get(one, "verdict")))
			json_object_set_new(one, "verdict", json_string("pass"));
		if (!json_is_array(json_object_get(one, "findings")))
			json_object_set_new(one, "findings", json_array());
	} else {
		json_object_del(one, "verdict");
	}
	diag_run(one, &s);
	diag_set_release(&s);
	if (fc_doc_verdict(one) > fc_doc_verdict(doc))
		json_object_set(doc, "verdict", json_object_get(one, "verdict"));
	json_array_extend(json_object_get(doc, "diagnosis"), json_object_get(one, "diagnosis"));
	json_array_append_new(sets, one);
	return 0;
}

/* An evidence folder: test.json, or NODE/DEV-PORT/before|after below it. */
static int is_set(const char *dir)
{
	struct dirent *n, *p;
	DIR *dn, *dp;
	int found = has_file(dir, "test.json");

	if (found || !(dn = opendir(dir)))
		return found;
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

/* DIR itself, or its sub-folders that are evidence folders (matrix, soak). */
static int diagnose_dir(const char *dir, json_t *doc)
{
	json_t *sets = json_array();
	struct dirent *e;
	DIR *d;
	int err = 0, n = 0;

	json_object_set_new(doc, "diagnosis", json_array());
	json_object_set_new(doc, "sets", sets);
	if (is_set(dir) || !(d = opendir(dir)))
		return diagnose_one(dir, doc, sets);
	while (!err && (e = readdir(d))) {
		char sub[1024];
		struct stat st;

		if (snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) >= (int)sizeof(sub))
			continue;
		if (e->d_name[0] == '.' || stat(sub, &st) || !S_ISDIR(st.st_mode) || !is_set(sub))
			continue;
		err = diagnose_one(sub, doc, sets);
		n++;
	}
	closedir(d);
	return n || err ? err : diagnose_one(dir, doc, sets);
}

static void render(FILE *f, const json_t *doc)
{
	const json_t *s, *fd;
	size_t i, k;

	json_array_foreach(json_object_get(doc, "sets"), i, s) {
		fprintf(f, "%s%s: recorded verdict %s\n", i ? "\n" : "", fc_jstr(s, "path", "?"),
			fc_jstr(s, "verdict", "none (no test.json)"));
		json_array_foreach(json_object_get(s, "findings"), k, fd)
			fprintf(f, "  - %s\n", json_string_value(fd));
		diag_render(f, s);
	}
	fputc('\n', f);
}

int cmd_diagnose(struct fc_ctx *ctx, int argc, char **argv)
{
	static const struct fc_opts spec = { .opt = fc_opts_json_only, .cmd = "diagnose",
					     .usage = usage_diagnose };
	json_t *doc;
	int err;

	if (fc_opts_parse(ctx, &spec, NULL, argc, argv))
		return FC_EXIT_USAGE;
	if (argc - optind != 1) {
		fc_err("diagnose: give one evidence folder (what --save-evidence DIR wrote); see 'fabcheck diagnose --help'");
		return FC_EXIT_USAGE;
	}
	doc = fc_doc_new();
	json_object_set_new(doc, "input", json_string(argv[optind]));
	err = diagnose_dir(argv[optind], doc);
	if (err) {
		json_decref(doc);
		return FC_EXIT_USAGE;
	}
	return fc_emit(ctx, doc, render);
}
