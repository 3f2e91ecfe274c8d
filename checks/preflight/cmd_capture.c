/*
 * fabcheck capture [-o DIR|FILE.tar.gz]: this node recorded into a bundle
 * that `--from` replays (doc/capture.md).
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <ftw.h>
#include <unistd.h>

#include "checks/preflight/capture.h"
#include "core/log.h"
#include "core/opts.h"
#include "core/out.h"
#include "core/util.h"
#include "ctl/nodesrc.h"
#include "src/cmds.h"

const char usage_capture[] =
	"usage: fabcheck capture [-o DIR|FILE.tar.gz] [--json]\n"
	"\n"
	"Records this node into a bundle that 'preflight', 'topo', 'health' and\n"
	"'rails' judge with --from BUNDLE as they judge the live node: the sysfs\n"
	"files of the RDMA devices (ports, GIDs, counters, hw_counters), the net\n"
	"devices and the PCIe tree, the RDMA devices as libibverbs lists them,\n"
	"ip -j addr/route/link, ethtool (-S, -m, -i) of each fabric port, lldpctl,\n"
	"the switch behind each InfiniBand port (smpquery, perfquery -x), lspci -vvv\n"
	"of the HCAs, GPUs and bridges, nvidia-smi, mlnx_qos, the NCCL settings\n"
	"files and NCCL_* variables, the kernel's mlx5/AER lines; manifest.json\n"
	"names each file, the command that made it, and each input not read and\n"
	"why. No other environment variable, no key is read. Bounds: 10 s a\n"
	"command, 180 s in all, 16 MiB a file, 256 MiB a bundle (doc/capture.md).\n"
	"\n"
	"  -o, --output PATH   a new (or empty) folder, or FILE.tar.gz\n"
	"                      (default capture-HOST.tar.gz here)\n"
	"  -j, --json          one JSON document on stdout\n"
	"\n"
	"Exit: 0 written, 2 usage, 3 could not write the bundle.\n";

struct cap_args {
	const char *out;
};

#define FC_OPT_T struct cap_args
static const struct fc_opts cap_spec = {
	.opt = (const struct fc_opt[]){
		FCO_STR("output", 'o', out),
		FCO_JSON,
		{ 0 },
	},
	.cmd = "capture", .usage = usage_capture, .no_args = "",
};

static int rm_one(const char *p, const struct stat *st, int type, struct FTW *f)
{
	(void)st, (void)type, (void)f;
	remove(p);
	return 0;
}

static int is_tgz(const char *p)
{
	size_t n = strlen(p);

	return (n > 7 && !strcmp(p + n - 7, ".tar.gz")) || (n > 4 && !strcmp(p + n - 4, ".tgz"));
}

/* Into a folder of ours beside @out, then packed into @out. */
static int cap_tgz(const char *out)
{
	char tmp[PATH_MAX], parent[PATH_MAX], err[1024], *name;
	struct stat st;
	int rc;

	if (lstat(out, &st) == 0) {
		fc_err("capture: '%s' exists; name a new file", out);
		return -1;
	}
	snprintf(parent, sizeof(parent), "%s", out);
	snprintf(tmp, sizeof(tmp), "%s/.fabcheck-capture.XXXXXX", dirname(parent));
	if (!mkdtemp(tmp)) {
		fc_err("capture: cannot make a folder beside '%s': %s", out, strerror(errno));
		return -1;
	}
	rc = cap_node(tmp, NULL);
	snprintf(parent, sizeof(parent), "%s", tmp);
	name = strrchr(parent, '/');
	*name++ = 0;
	if (!rc && fc_bundle_pack(parent, name, out, err, sizeof(err))) {
		fc_err("capture: %s", err);
		rc = -1;
	}
	nftw(tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return rc;
}

int cmd_capture(struct fc_ctx *ctx, int argc, char **argv)
{
	struct cap_args a = { 0 };
	char def[300], host[256] = "node", err[1024];
	struct fc_bundle *b;
	json_t *doc;
	int rc;

	if (fc_opts_parse(ctx, &cap_spec, &a, argc, argv))
		return FC_EXIT_USAGE;
	if (!a.out) {
		gethostname(host, sizeof(host) - 1);
		if (!fc_valid_node_name(host))
			snprintf(host, sizeof(host), "node");
		snprintf(def, sizeof(def), "capture-%s.tar.gz", host);
		a.out = def;
	}
	if (!*a.out) {
		fc_err("capture: --output: empty path; give a folder or FILE.tar.gz");
		return FC_EXIT_USAGE;
	}
	rc = is_tgz(a.out) ? cap_tgz(a.out) : cap_node(a.out, NULL);
	if (rc)
		return FC_EXIT_CANT;
	/* read back as --from reads it: what was written is a capture */
	b = fc_bundle_open(a.out, err, sizeof(err));
	if (!b) {
		fc_err("capture: what was written does not read back: %s", err);
		return FC_EXIT_CANT;
	}
	doc = fc_doc_new();
	json_object_set_new(doc, "bundle", json_string(a.out));
	json_object_set_new(doc, "files", json_integer((json_int_t)json_array_size(
						  json_object_get(b->man, "files"))));
	json_object_set(doc, "not_read", json_object_get(b->man, "not_read"));
	fc_bundle_close(b);
	if (!ctx->json) {
		size_t i;
		json_t *n;

		printf("captured %lld files into %s\n",
		       (long long)json_integer_value(json_object_get(doc, "files")), a.out);
		json_array_foreach(json_object_get(doc, "not_read"), i, n)
			printf("  not read: %s: %s\n", fc_jstr(n, "input", "?"), fc_jstr(n, "why", "?"));
	}
	return ctx->json ? fc_emit(ctx, doc, NULL) : (json_decref(doc), 0);
}
