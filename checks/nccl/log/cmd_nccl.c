/*
 * fabcheck nccl: NCCL checks. The subcommand table below is the one place to
 * add a subcommand (one row plus its run function).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checks/nccl/env/ncclenv.h"
#include "checks/nccl/log/nccllog.h"
#include "core/opts.h"
#include "core/log.h"
#include "core/readfile.h"
#include "core/out.h"
#include "src/cmds.h"

#define MAX_EXPECT_HCAS 64

#define USAGE_CHECK_LOG \
	"usage: fabcheck nccl check-log FILE... [--json] [--expect-net IB|Socket|NAME]\n" \
	"                                [--expect-hca LIST] [--expect-gdr] [--topo FILE]\n" \
	"\n" \
	"Reads NCCL_DEBUG=INFO output (NCCL 2.3 to today; one file per rank or one\n" \
	"interleaved log; '-' reads stdin) and reports the NCCL version, the network\n" \
	"(IB, Socket or a plugin), the HCAs with ports and link types, the OOB\n" \
	"interface, each rank's host, CUDA device and bus id, each channel's transport\n" \
	"and HCA, GPUDirect RDMA (on, off, partial, unknown), NCCL_* settings echoed,\n" \
	"init completion, NCCL warnings and errors, then findings and a verdict.\n" \
	"\n" \
	"  -j, --json              one JSON document on stdout\n" \
	"  -n, --expect-net NET    the network NCCL must use: IB (IBext plugins count\n" \
	"                          as IB), Socket, or a plugin name (case-insensitive)\n" \
	"  -H, --expect-hca LIST   HCAs NCCL must list, comma-separated: mlx5_0,mlx5_1\n" \
	"                          or mlx5_0:1 with a port\n" \
	"  -g, --expect-gdr        GPUDirect RDMA must be on for every NET channel\n" \
	"  -t, --topo FILE         the JSON of 'fabcheck topo --json' from a node of the\n" \
	"                          job: warn when a GPU's channels use a HCA that is not\n" \
	"                          its nearest\n" \
	"      --rail-gbps G       each rail's link rate in Gb/s (NCCL before 2.27 does\n" \
	"                          not print it), for the busbw the rails can carry\n" \
	"      --nodes N           nodes of the job (default: nNodes of the log)\n" \
	"      --gpus-per-node G   ranks per node (default: the log's nRanks / nodes)\n" \
	"  -h, --help              this text\n" \
	"\n" \
	"With nccl-tests' result rows in the log (all_reduce_perf), or any of the three\n" \
	"options above, it states the all_reduce busbw the rails can carry across\n" \
	"nodes (the model nccl run uses: doc/nccl-run.md) and judges the peak busbw\n" \
	"measured: a warning under 80%.\n" \
	"\n" \
	"Exit: 0 pass or warnings, 1 a check failed, 2 bad options, 3 a file cannot\n" \
	"be read, none of the files holds NCCL lines, or --topo is not a topo document.\n"

static const char usage_check_log[] = USAGE_CHECK_LOG;

const char usage_nccl[] =
	"usage: fabcheck nccl <command> [options]\n"
	"\n"
	"commands:\n"
	"  check-log    analyse NCCL_DEBUG=INFO output: network, HCAs, GPUDirect, findings\n"
	"  env          check NCCL_* settings against the installed NCCL and this node\n"
	"  run          run NCCL all_reduce across nodes: busbw, sums, and its log checked\n"
	"\n"
	"Run 'fabcheck nccl help <command>' for a command's options.\n"
	"\n" USAGE_CHECK_LOG;

static int check_log(struct fc_ctx *ctx, int argc, char **argv);

static const struct fc_cmd nccl_cmds[] = {
	{ .name = "check-log", .run = check_log, .usage = usage_check_log,
	  .summary = "analyse NCCL_DEBUG=INFO output: network, HCAs, GPUDirect, findings" },
	{ .name = "env", .run = cmd_nccl_env, .usage = usage_nccl_env,
	  .summary = "check NCCL_* settings against the installed NCCL and this node" },
	{ .name = "run", .run = cmd_nccl_run, .usage = usage_nccl_run,
	  .summary = "run NCCL all_reduce across nodes: busbw, sums, and its log checked" },
	{ 0 },
};

int cmd_nccl(struct fc_ctx *ctx, int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage_nccl, stderr);
		return FC_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fc_out_text(ctx, usage_nccl);
		return FC_EXIT_PASS;
	}
	return fc_dispatch(ctx, "fabcheck nccl", nccl_cmds, argc - 1, argv + 1);
}

/* ---- input ---- */

static int feed_fd(struct ncl_log *lg, int fd, const char *name)
{
	char buf[65536];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fc_err("%s: cannot read: %s", name, strerror(errno));
			return -errno;
		}
		ncl_log_feed(lg, buf, (size_t)n);
	}
	ncl_log_end_file(lg, name);
	return 0;
}

static int feed_file(struct ncl_log *lg, const char *path)
{
	int fd, rc;

	if (!strcmp(path, "-"))
		return feed_fd(lg, STDIN_FILENO, "(stdin)");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		fc_err("%s: cannot open: %s; give the path of a saved NCCL log", path,
		       strerror(errno));
		return rc;
	}
	rc = feed_fd(lg, fd, path);
	close(fd);
	return rc;
}

static json_t *load_topo(const char *path)
{
	json_error_t jerr;
	const char *why = NULL;
	json_t *topo = fc_load_json(path, 0, 0, &jerr);
	char line[32];

	if (!topo) {
		fc_err("--topo %s: %s%s%s; give the output of 'fabcheck topo --json'", path,
		       jerr.line < 0 ? "" : "not JSON: ", jerr.text,
		       fc_json_err_line(&jerr, line, sizeof(line)));
		return NULL;
	}
	if (ncl_topo_check(topo, &why)) {
		fc_err("--topo %s: %s", path, why);
		json_decref(topo);
		return NULL;
	}
	return topo;
}

/* ---- options ---- */

static int valid_net(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 63)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_-. ", *s))
			return 0;
	return 1;
}

/* "mlx5_0,mlx5_1:1" into @list (pointers into @text, which is modified). */
static int parse_hcas(char *text, const char **list, int *n_p)
{
	char *tok, *save = NULL;
	int n = 0;

	for (tok = strtok_r(text, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');
		size_t len = colon ? (size_t)(colon - tok) : strlen(tok);

		if (!len || len > 63 || n == MAX_EXPECT_HCAS)
			return -EINVAL;
		for (size_t i = 0; i < len; i++)
			if (!isalnum((unsigned char)tok[i]) && !strchr("_-.", tok[i]))
				return -EINVAL;
		if (colon) {
			char *end;
			long port = strtol(colon + 1, &end, 10);

			if (*end || end == colon + 1 || port < 1 || port > 255)
				return -EINVAL;
		}
		list[n++] = tok;
	}
	*n_p = n;
	return n ? 0 : -EINVAL;
}

struct check_opts {
	struct ncl_expect exp;
	const char *hcas[MAX_EXPECT_HCAS];
	char *hca_text;
	const char *topo_path;
};

static int opt_net(void *dst, const char *arg, const struct fc_opt *opt)
{
	struct check_opts *o = dst;

	(void)opt;
	if (!valid_net(arg)) {
		fc_err("--expect-net: '%s' is not a network name; expected IB, "
		       "Socket or a plugin name such as IBext_v8", arg);
		return -EINVAL;
	}
	o->exp.net = arg;
	return 0;
}

static int opt_hcas(void *dst, const char *arg, const struct fc_opt *opt)
{
	struct check_opts *o = dst;

	(void)opt;
	free(o->hca_text);
	o->hca_text = strdup(arg);
	if (!o->hca_text || parse_hcas(o->hca_text, o->hcas, &o->exp.nhcas)) {
		fc_err("--expect-hca: '%s' is not a HCA list; expected names "
		       "separated by commas, each with an optional :port, for "
		       "example mlx5_0,mlx5_1:1", arg);
		return -EINVAL;
	}
	o->exp.hcas = o->hcas;
	return 0;
}

#define FC_OPT_T struct check_opts
static const struct fc_opts check_spec = {
	.opt = (const struct fc_opt[]){
		FCO_CALL("expect-net", 'n', opt_net, required_argument),
		FCO_CALL("expect-hca", 'H', opt_hcas, required_argument),
		FCO_FLAG("expect-gdr", 'g', exp.gdr),
		FCO_STR("topo", 't', topo_path),
		FCO_DOUBLE("rail-gbps", 0, exp.rail_gbps, 1, 10000),
		FCO_INT("nodes", 0, exp.nnodes, 1, 1 << 20),
		FCO_INT("gpus-per-node", 0, exp.gpus_per_node, 1, 64),
		FCO_JSON,
		{ 0 },
	},
	.cmd = "check-log", .usage = usage_check_log,
};

static int parse_opts(struct fc_ctx *ctx, int argc, char **argv, struct check_opts *o)
{
	if (fc_opts_parse(ctx, &check_spec, o, argc, argv))
		return -EINVAL;
	if (optind >= argc) {
		fc_err("check-log: no log file given; pass one or more NCCL_DEBUG=INFO logs "
		       "(or '-' for stdin)");
		return -EINVAL;
	}
	return 0;
}

static int not_a_log(struct fc_ctx *ctx, int nfiles, char **files)
{
	json_t *doc;

	fc_err("%s%s: no NCCL lines found: expected NCCL_DEBUG=INFO output (lines like "
	       "'host:pid:tid [0] NCCL INFO ...'); rerun the job with NCCL_DEBUG=INFO and "
	       "pass what it printed",
	       files[0], nfiles > 1 ? " and the other files" : "");
	if (ctx->json) {
		doc = fc_doc_new();
		fc_finding(doc, FC_FAIL, "%s%s holds no NCCL lines: not an NCCL_DEBUG=INFO log",
			   files[0], nfiles > 1 ? " (and the other files)" : "");
		fc_emit(ctx, doc, NULL);
	}
	return FC_EXIT_CANT;
}

static int check_log(struct fc_ctx *ctx, int argc, char **argv)
{
	struct check_opts o = { 0 };
	struct ncl_log *lg = NULL;
	json_t *topo = NULL, *doc;
	int rc = FC_EXIT_USAGE;

	if (parse_opts(ctx, argc, argv, &o))
		goto out_free_opts;
	rc = FC_EXIT_CANT;
	if (o.topo_path) {
		topo = load_topo(o.topo_path);
		if (!topo)
			goto out_free_opts;
		o.exp.topo = topo;
	}
	lg = ncl_log_new();
	if (!lg) {
		fc_err("check-log: out of memory");
		goto out_put_topo;
	}
	for (int i = optind; i < argc; i++)
		if (feed_file(lg, argv[i]))
			goto out_free_log;
	if (!ncl_log_nccl_lines(lg)) {
		rc = not_a_log(ctx, argc - optind, argv + optind);
		goto out_free_log;
	}
	doc = ncl_log_report(lg, &o.exp);
	if (!doc) {
		fc_err("check-log: out of memory");
		goto out_free_log;
	}
	rc = fc_emit(ctx, doc, ncl_render);
out_free_log:
	ncl_log_free(lg);
out_put_topo:
	json_decref(topo);
out_free_opts:
	free(o.hca_text);
	return rc;
}
