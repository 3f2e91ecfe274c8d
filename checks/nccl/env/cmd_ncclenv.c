/* fabcheck nccl env: what NCCL will make of a job's NCCL_* settings. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/opts.h"
#include "core/log.h"
#include "core/readfile.h"
#include "core/out.h"
#include "core/bundle.h"
#include "checks/nccl/env/ncclenv.h"

extern char **environ;

const char usage_nccl_env[] =
	"usage: fabcheck nccl env [--file F] [--topo FILE] [--json]\n"
	"       fabcheck nccl env --from BUNDLE [--file F] [--topo FILE] [--json]\n"
	"\n"
	"Says, line by line, what NCCL will make of NCCL_* settings: names no NCCL\n"
	"reads (with the nearest known name), renamed or deprecated ones, values\n"
	"NCCL would reject or misread, and settings that defeat each other or do\n"
	"not fit this node (NCCL_IB_DISABLE=1 with RDMA tuning, NCCL_IB_HCA or\n"
	"NCCL_SOCKET_IFNAME naming devices that are not here, a GDR level\n"
	"stricter than the GPU-to-HCA paths, a GDR level with no GPUDirect path).\n"
	"Known names come from the installed libnccl.so.2 (found as the dynamic\n"
	"loader finds it) or, without one, from the list shipped with fabcheck.\n"
	"\n"
	"  -f, --file F       read a shell snippet, env file or mpirun/srun line\n"
	"                     (export A=B, A=B, -x A=B, -genv A B; '-' = stdin)\n"
	"                     instead of this process's environment\n"
	"  -t, --topo FILE    the node's topology (fabcheck topo --json)\n"
	"      --sysfs ROOT   read interfaces, HCAs and peermem under ROOT\n"
	"                     instead of /sys (recorded trees)\n"
	"      --from BUNDLE  a node capture (fabcheck capture): its recorded NCCL_*\n"
	"                     variables (or --file's) against its interfaces, HCAs\n"
	"                     and peermem, read as --sysfs reads a tree\n"
	"      --no-host      do not check against this node (a file for other nodes)\n"
	"      --nccl-lib P   take known names from the NCCL library P\n"
	"      --shipped      take known names from the shipped list only\n"
	"  -j, --json         one JSON document on stdout\n"
	"  -h, --help         this text\n"
	"\n"
	"Status of a variable: ok, unknown, deprecated (warnings), invalid,\n"
	"conflict (failures). Exit: 0 pass or warnings, 1 a failure, 2 usage\n"
	"error or unreadable input, 3 the named NCCL library cannot be read.\n";

struct env_args {
	const char *file, *topo, *sysfs, *lib, *from;
	int no_host, shipped;
};

static void render(FILE *f, const json_t *doc)
{
	const json_t *kn = json_object_get(doc, "known_names");
	const json_t *vars = json_object_get(doc, "variables");
	struct fc_table *t;
	size_t i;
	json_t *v;

	fprintf(f, "NCCL settings from %s: %zu variable%s\n", fc_jstr(doc, "input", "?"),
		json_array_size(vars), json_array_size(vars) == 1 ? "" : "s");
	if (!strcmp(fc_jstr(kn, "source", ""), "libnccl"))
		fprintf(f, "known names: %d from %s\n", (int)fc_jnum(kn, "count", 0),
			fc_jstr(kn, "path", "?"));
	else
		fprintf(f, "known names: %d from the list shipped with fabcheck (NCCL %s, plus names of %s)%s\n",
			(int)fc_jnum(kn, "count", 0), fc_jstr(kn, "base_version", "?"),
			fc_jstr(kn, "nccl_version", "?"),
			json_is_true(json_object_get(kn, "no_libnccl")) ?
				"; no libnccl.so.2 installed" : "");
	if (!json_array_size(vars))
		return;
	fputc('\n', f);
	t = fc_table_new(5, "LINE", "NAME", "VALUE", "STATUS", "WHY");
	json_array_foreach(vars, i, v) {
		fc_table_row(t);
		fc_table_addint(t, 0, v, "line");
		fc_table_addf(t, 1, "%s", fc_jstr(v, "name", ""));
		fc_table_addf(t, 2, "%s", fc_jstr(v, "value", ""));
		fc_table_addf(t, 3, "%s", fc_jstr(v, "status", ""));
		fc_table_addf(t, 4, "%s", fc_jstr(v, "why", ""));
	}
	fc_table_print(t, f, "");
	fc_table_free(t);
}

/* Reads @path ('-' = stdin) whole; NULL after logging. */
static char *slurp(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	size_t len = 0, cap = 0, n;
	char *buf = NULL, *nb;

	if (!f) {
		fc_err("--file %s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	do {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 8192;
			if (cap > (64u << 20)) {
				fc_err("--file %s: larger than 64 MiB; expected a shell snippet", path);
				goto fail;
			}
			nb = realloc(buf, cap);
			if (!nb)
				goto fail;
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0);
	if (ferror(f)) {
		fc_err("--file %s: read error: %s", path, strerror(errno));
		goto fail;
	}
	buf[len] = '\0';
	if (memchr(buf, '\0', len)) {
		fc_err("--file %s: binary data; expected a shell snippet or env file", path);
		goto fail;
	}
	if (f != stdin)
		fclose(f);
	return buf;
fail:
	free(buf);
	if (f != stdin)
		fclose(f);
	return NULL;
}

/* One "NAME=VALUE" of an environment (@len bytes): kept when NAME is
 * NCCL_*. The live environment and a capture's env/nccl.env (one entry a
 * line, as `fabcheck capture` writes environ) go through here alike. */
static int env_entry(struct ncclenv_vars *vs, const char *e, size_t len)
{
	const char *eq = memchr(e, '=', len);
	char name[256], *value;
	int rc;

	if (len < 5 || strncmp(e, "NCCL_", 5) || !eq || (size_t)(eq - e) >= sizeof(name))
		return 0;
	memcpy(name, e, (size_t)(eq - e));
	name[eq - e] = '\0';
	value = strndup(eq + 1, len - (size_t)(eq + 1 - e));
	rc = value ? ncclenv_vars_add(vs, name, value, 0, 0) : -ENOMEM;
	free(value);
	return rc ? -ENOMEM : 0;
}

/* The NCCL_* variables @b recorded (env/nccl.env), as the environment. */
static int load_recorded(struct fc_bundle *b, struct ncclenv_vars *vs)
{
	char why[256];
	size_t len = 0;
	int code, rc = 0;
	char *text = fc_bundle_read(b, "env/nccl.env", &len, &code, why, sizeof(why));

	if (!text) {
		fc_err("--from %s: env/nccl.env: %s; capture the node again with 'fabcheck capture'",
		       b->shown, why);
		return -EINVAL;
	}
	if (memchr(text, '\0', len)) {
		fc_err("--from %s: env/nccl.env: binary data; expected NAME=VALUE lines", b->shown);
		free(text);
		return -EINVAL;
	}
	for (const char *l = text; !rc && l < text + len;) {
		const char *nl = memchr(l, '\n', (size_t)(text + len - l));
		size_t n = nl ? (size_t)(nl - l) : (size_t)(text + len - l);

		rc = env_entry(vs, l, n);
		l += n + 1;
	}
	free(text);
	return rc;
}

static int load_vars(const struct env_args *a, struct fc_bundle *b, struct ncclenv_vars *vs)
{
	char *text;
	int rc;

	if (!a->file && b)
		return load_recorded(b, vs);
	if (!a->file) {
		for (char **e = environ; e && *e; e++)
			if (env_entry(vs, *e, strlen(*e)))
				return -ENOMEM;
		return 0;
	}
	text = slurp(a->file);
	if (!text)
		return -EINVAL;
	rc = ncclenv_parse(text, a->file, vs);
	free(text);
	return rc;
}

static json_t *load_topo(const char *path)
{
	json_error_t err;
	json_t *t = fc_load_json(path, 0, 0, &err);
	char line[32];

	if (!t) {
		fc_err("--topo %s: %s%s; expected the JSON of 'fabcheck topo --json'", path,
		       err.text, fc_json_err_line(&err, line, sizeof(line)));
		return NULL;
	}
	if (!json_is_object(t) || !json_is_array(json_object_get(t, "gpus")) ||
	    !json_is_array(json_object_get(t, "nics"))) {
		fc_err("--topo %s: no \"gpus\" and \"nics\" lists; expected the JSON of 'fabcheck topo --json'",
		       path);
		json_decref(t);
		return NULL;
	}
	return t;
}

#define FC_OPT_T struct env_args
static const struct fc_opts env_spec = {
	.opt = (const struct fc_opt[]){
		FCO_STR("file", 'f', file),
		FCO_STR("topo", 't', topo),
		FCO_STR("sysfs", 0, sysfs),
		FCO_STR("from", 0, from),
		FCO_FLAG("no-host", 0, no_host),
		FCO_STR("nccl-lib", 0, lib),
		FCO_FLAG("shipped", 0, shipped),
		FCO_JSON,
		{ 0 },
	},
	.cmd = "nccl env", .usage = usage_nccl_env, .no_args = "give a file with --file",
};

static int parse_args(int argc, char **argv, struct fc_ctx *ctx, struct env_args *a)
{
	if (fc_opts_parse(ctx, &env_spec, a, argc, argv))
		return -EINVAL;
	if (a->from && (a->sysfs || a->no_host)) {
		fc_err("nccl env: --from judges against the capture's node: give it without --sysfs "
		       "or --no-host");
		return -EINVAL;
	}
	if (a->lib && a->shipped) {
		fc_err("nccl env: --nccl-lib and --shipped exclude each other; choose one");
		return -EINVAL;
	}
	return 0;
}

/* Known names: --shipped, --nccl-lib, the installed library, or shipped. */
static int load_known(const struct env_args *a, json_t *kn, char ***names, size_t *n)
{
	char path[4096];
	int rc;

	*names = NULL;
	*n = 0;
	if (a->shipped)
		return 0;
	if (a->lib) {
		snprintf(path, sizeof(path), "%s", a->lib);
	} else if (ncclenv_lib_find(path, sizeof(path))) {
		json_object_set_new(kn, "no_libnccl", json_true());
		return 0;
	}
	rc = ncclenv_lib_scan(path, names, n);
	if (rc)
		return rc;
	if (*n == 0) {
		fc_err("%s: no NCCL_* names inside; is it an NCCL library?", path);
		ncclenv_names_free(*names, *n);
		*names = NULL;
		return -EINVAL;
	}
	json_object_set_new(kn, "source", json_string("libnccl"));
	json_object_set_new(kn, "path", json_string(path));
	return 0;
}

int cmd_nccl_env(struct fc_ctx *ctx, int argc, char **argv)
{
	struct env_args a = { 0 };
	struct ncclenv_vars vs = { 0 };
	struct fc_bundle *b = NULL;
	struct ncclenv_host host;
	char sys[4096], input[4400];
	struct ncclenv_opts o = { 0 };
	json_t *topo = NULL, *doc, *kn;
	char **lib_names = NULL;
	size_t n_lib = 0;
	int rc = FC_EXIT_USAGE;

	if (parse_args(argc, argv, ctx, &a))
		return FC_EXIT_USAGE;
	if (a.from) {
		if (!(b = fc_bundle_open(a.from, sys, sizeof(sys)))) {
			fc_err("--from %s", sys);
			return FC_EXIT_CANT;
		}
		a.sysfs = fc_bundle_path(b, "sys", sys, sizeof(sys));
	}
	if (load_vars(&a, b, &vs)) {
		rc = b ? FC_EXIT_CANT : FC_EXIT_USAGE;
		goto out_vars;
	}
	if (a.topo && !(topo = load_topo(a.topo)))
		goto out_vars;
	kn = json_pack("{s:s, s:s, s:s}", "source", "shipped", "nccl_version",
		       ncclenv_shipped_version, "base_version", ncclenv_base_version);
	if (load_known(&a, kn, &lib_names, &n_lib)) {
		json_decref(kn);
		rc = FC_EXIT_CANT;
		goto out_topo;
	}
	if (lib_names) {
		o.known = (const char *const *)lib_names;
		o.n_known = n_lib;
		o.known_from = fc_jstr(kn, "path", NULL);
		json_object_del(kn, "nccl_version");
		json_object_del(kn, "base_version");
	} else {
		o.known = ncclenv_shipped_names(&o.n_known);
	}
	json_object_set_new(kn, "count", json_integer((json_int_t)o.n_known));
	if (!a.no_host && !ncclenv_host_probe(a.sysfs, &host))
		o.host = &host;
	o.topo = topo;
	doc = ncclenv_check(&o, &vs);
	if (o.host)
		ncclenv_host_free(&host);
	if (!doc) {
		fc_err("nccl env: out of memory");
		json_decref(kn);
		rc = FC_EXIT_CANT;
		goto out_names;
	}
	if (a.file)
		snprintf(input, sizeof(input), "%s", a.file);
	else
		snprintf(input, sizeof(input), b ? "the environment recorded in %s" : "the environment",
			 a.from);
	json_object_set_new(doc, "input", json_string(input));
	json_object_set_new(doc, "known_names", kn);
	rc = fc_emit(ctx, doc, render);
out_names:
	ncclenv_names_free(lib_names, n_lib);
out_topo:
	json_decref(topo);
out_vars:
	ncclenv_vars_free(&vs);
	fc_bundle_close(b);
	return rc;
}
