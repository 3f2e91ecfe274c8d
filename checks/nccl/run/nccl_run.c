/* fabcheck nccl run: options. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "core/opts.h"
#include "core/safefile.h"
#include "core/util.h"
#include "src/cmds.h"
#include "checks/nccl/run/nccl_run.h"
#include "ctl/launch_opts.h"

#define USAGE_NCCL_RUN \
	"usage: fabcheck nccl run NODE... [options]\n" \
	"\n" \
	"Runs NCCL itself across the nodes: one 'fabcheck nccl-worker' per GPU (through\n" \
	"ssh), libnccl.so.2 and the CUDA driver loaded at run time, the unique id\n" \
	"relayed by this controller. Times all_reduce over a series of sizes and\n" \
	"reports algbw and busbw as nccl-tests does (busbw = algbw * 2(n-1)/n), checks\n" \
	"the sums, then reads every rank's NCCL_DEBUG=INFO log as 'nccl check-log'\n" \
	"does, with the first node's topology as the expectation of nearest HCAs.\n" \
	"NCCL_* variables of this environment are passed to every rank.\n" \
	"\n" \
	"  -g, --gpus-per-node N  ranks (GPUs 0..N-1) per node (default 1)\n" \
	"  -b, --min-bytes SIZE   smallest size (default 1K)\n" \
	"  -e, --max-bytes SIZE   largest size (default 1G)\n" \
	"  -f, --step-factor F    multiply the size by F at each step (default 2)\n" \
	"  -n, --iters N          timed operations per size (default 20)\n" \
	"  -w, --warmup N         untimed operations first (default 5)\n" \
	"      --op OP            all_reduce (the default and only one)\n" \
	"      --expect-net NET   the network NCCL must use: IB, Socket or a plugin\n" \
	"      --expect-gdr       GPUDirect RDMA must be on for every NET channel\n" \
	"      --log-dir DIR      keep each rank's NCCL log there (NODE-rankR.log)\n" \
	"      --rail-gbps G      each rail's link rate in Gb/s, for the busbw the rails\n" \
	"                         can carry where the NCCL log gives none (before 2.27)\n" \
	"      --rails all|first|LIST  every rail by default: the nodes' ports matched\n" \
	"                         into rails, NCCL_IB_HCA set to the rails' devices\n" \
	"                         where a port is left out (storage, management) or\n" \
	"                         LIST chose some; first: NCCL's own choice; an\n" \
	"                         NCCL_IB_HCA of this environment is kept\n" \
	"      --exclude-dev LIST devices that are no rail\n" \
	"      --db FILE          record the run's peak busbw in that store (a run of\n" \
	"                         kind nccl; fabcheck plan --db reads it)\n" \
	"      --launcher ssh|local|slurm  ssh (default), every rank on this host, or\n" \
	"                         srun --nodelist=NODE -N1 -n1 (the job's GPUs must be\n" \
	"                         visible to its steps)\n" \
	"      --ssh-config FILE  ssh -F FILE\n" \
	"      --worker-cmd PATH  fabcheck's path on the nodes (default 'fabcheck',\n" \
	"                         or $FABCHECK_WORKER_CMD)\n" \
	"      --timeout T        deadline of every step: start, NCCL init, each\n" \
	"                         size (plus its time at 100 MB/s) (default 60s)\n" \
	"  -j, --json             one JSON document on stdout\n" \
	"\n" \
	"Exit: 0 pass (warnings allowed), 1 a check failed (wrong sums, NCCL failed\n" \
	"between the nodes, the log's checks), 2 usage, 3 could not run (node\n" \
	"unreachable, no GPU, no CUDA driver, no NCCL).\n"

const char usage_nccl_run[] = USAGE_NCCL_RUN;

static int valid_net(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 63)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("_-.", *s)))
			return 0;
	return 1;
}

static int opt_factor(void *dst, const char *arg, const struct fc_opt *o)
{
	int f;

	if (fc_parse_int(fc_opt_what(o), arg, 2, 1024, &f))
		return -EINVAL;
	((struct ncr_cfg *)dst)->p.factor = (unsigned)f;
	return 0;
}

static int opt_op(void *dst, const char *arg, const struct fc_opt *o)
{
	(void)o;
	if (ncr_op_parse(arg, &((struct ncr_cfg *)dst)->p.op)) {
		fc_err("--op: '%s' is not an operation this runs; expected all_reduce", arg);
		return -EINVAL;
	}
	return 0;
}

static int opt_net(void *dst, const char *arg, const struct fc_opt *o)
{
	(void)o;
	if (!valid_net(arg)) {
		fc_err("--expect-net: '%s' is not a network name; expected IB, Socket or a "
		       "plugin name such as IBext_v8", arg);
		return -EINVAL;
	}
	((struct ncr_cfg *)dst)->expect_net = arg;
	return 0;
}

/* The folder as --save-evidence's (core/safefile.h): made by fabcheck, or
 * empty, or one it made before; refused now rather than after the run. */
static int opt_log_dir(void *dst, const char *arg, const struct fc_opt *o)
{
	int fd = fc_evdir_open(arg);

	(void)o;
	if (fd < 0) {
		fc_err("--log-dir: cannot keep the logs in '%s': give a new folder (fabcheck makes "
		       "it), an empty one, or one an earlier --log-dir made", arg);
		return -EINVAL;
	}
	close(fd);
	((struct ncr_cfg *)dst)->log_dir = arg;
	return 0;
}

static int opt_ssh_config(void *dst, const char *arg, const struct fc_opt *o)
{
	(void)o;
	if (access(arg, R_OK)) {
		fc_err("--ssh-config: cannot read '%s': %s", arg, strerror(errno));
		return -EINVAL;
	}
	((struct ncr_cfg *)dst)->launch.ssh_config = arg;
	return 0;
}

static int opt_timeout(void *dst, const char *arg, const struct fc_opt *o)
{
	struct ncr_cfg *cfg = dst;

	if (fc_parse_duration(fc_opt_what(o), arg, 1, 3600, &cfg->p.timeout))
		return -EINVAL;
	cfg->launch.connect_timeout = (int)cfg->p.timeout;
	return 0;
}

#define FC_OPT_T struct ncr_cfg
static const struct fc_opts run_spec = {
	.opt = (const struct fc_opt[]){
		FCO_INT("gpus-per-node", 'g', gpus_per_node, 1, 64),
		FCO_SIZE("min-bytes", 'b', p.min_bytes, 4, NCR_MAX_BYTES),
		FCO_SIZE("max-bytes", 'e', p.max_bytes, 4, NCR_MAX_BYTES),
		FCO_CALL("step-factor", 'f', opt_factor, required_argument),
		FCO_INT("iters", 'n', p.iters, 1, 100000),
		FCO_INT("warmup", 'w', p.warmup, 0, 100000),
		FCO_CALL("op", 0, opt_op, required_argument),
		FCO_CALL("expect-net", 0, opt_net, required_argument),
		FCO_FLAG("expect-gdr", 0, expect_gdr),
		FCO_CALL("log-dir", 0, opt_log_dir, required_argument),
		FCO_CALL_AT("launcher", 0, fc_launcher_opt, launch.kind, enum fc_launcher),
		FCO_CALL("ssh-config", 0, opt_ssh_config, required_argument),
		FCO_STR("worker-cmd", 0, launch.worker_cmd),
		FCO_CALL("timeout", 0, opt_timeout, required_argument),
		FCO_DOUBLE("rail-gbps", 0, rail_gbps, 1, 10000),
		FCO_STR("rails", 0, rails),
		FCO_STR("exclude-dev", 0, exclude_dev),
		FCO_STR("db", 0, db),
		FCO_JSON,
		{ 0 },
	},
	.cmd = "nccl run", .usage = "run 'fabcheck nccl help run' for the options\n",
};

static void cfg_defaults(struct ncr_cfg *cfg)
{
	const char *env = getenv("FABCHECK_WORKER_CMD");

	memset(cfg, 0, sizeof(*cfg));
	cfg->gpus_per_node = 1;
	cfg->p.op = NCR_ALL_REDUCE;
	cfg->p.min_bytes = 1024;
	cfg->p.max_bytes = 1ULL << 30;
	cfg->p.factor = 2;
	cfg->p.iters = 20;
	cfg->p.warmup = 5;
	cfg->p.timeout = 60;
	cfg->launch.kind = FC_LAUNCH_SSH;
	cfg->launch.connect_timeout = 30;
	cfg->launch.worker_cmd = env && *env ? env : NULL;
	cfg->launch.worker_sub = "nccl-worker";
	cfg->nccl_algo = getenv("NCCL_ALGO");
}

static int check_cfg(struct ncr_cfg *cfg)
{
	uint64_t sizes[NCR_MAX_SIZES];
	int n;

	if (cfg->p.min_bytes > cfg->p.max_bytes) {
		fc_err("nccl run: --min-bytes %llu is above --max-bytes %llu; swap them",
		       (unsigned long long)cfg->p.min_bytes, (unsigned long long)cfg->p.max_bytes);
		return -EINVAL;
	}
	n = ncr_size_series(cfg->p.min_bytes, cfg->p.max_bytes, cfg->p.factor, sizes,
			    NCR_MAX_SIZES);
	if (n < 0) {
		fc_err("nccl run: --min-bytes to --max-bytes by --step-factor %u gives more than %d "
		       "sizes; raise the factor or narrow the range", cfg->p.factor, NCR_MAX_SIZES);
		return -EINVAL;
	}
	if (cfg->nnodes * cfg->gpus_per_node > NCR_MAX_RANKS) {
		fc_err("nccl run: %d nodes x %d GPUs is more than the %d ranks one controller "
		       "drives; split the run", cfg->nnodes, cfg->gpus_per_node, NCR_MAX_RANKS);
		return -EINVAL;
	}
	if (fc_check_nodes("nccl run", cfg->nodes, cfg->nnodes,
			   "give each node once and --gpus-per-node for its GPUs"))
		return -EINVAL;
	return 0;
}

int cmd_nccl_run(struct fc_ctx *ctx, int argc, char **argv)
{
	struct ncr_cfg cfg;
	int rc;

	cfg_defaults(&cfg);
	if (fc_opts_parse(ctx, &run_spec, &cfg, argc, argv))
		return FC_EXIT_USAGE;
	if (optind >= argc) {
		fc_err("nccl run: no node given; name the nodes to run on (fabcheck nccl run "
		       "nodeA nodeB), or 'localhost --launcher local' for this host");
		return FC_EXIT_USAGE;
	}
	cfg.nodes = argv + optind;
	cfg.nnodes = argc - optind;
	if (check_cfg(&cfg))
		return FC_EXIT_USAGE;
	cfg.launch.verbose = ctx->verbose;
	if (cfg.launch.kind == FC_LAUNCH_LOCAL && cfg.launch.ssh_config)
		fc_warn("--ssh-config has no effect with --launcher local");
	if (ncr_choose_rails(&cfg)) {
		json_decref(cfg.rail_notes);
		json_decref(cfg.rail_findings);
		return FC_EXIT_USAGE;
	}
	rc = ncr_run(ctx, &cfg);
	json_decref(cfg.rail_notes);
	json_decref(cfg.rail_findings);
	return rc;
}
