/* fabcheck pair: the command, its usage and the checks of its options. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline/bl_pair.h"
#include "core/log.h"
#include "core/opts.h"
#include "core/util.h"
#include "src/cmds.h"
#include "verbs/test.h"
#include "pair/pair.h"
#include "store/store.h"
#include "ctl/launch_opts.h"
#include "ctl/ssh_mux.h"

const char usage_pair[] =
	"usage: fabcheck pair NODE_A NODE_B [options]\n"
	"\n"
	"Measures RDMA bandwidth and latency between two nodes: starts 'fabcheck worker'\n"
	"on each through ssh, relays their QP details, runs the tests on RC QPs (RoCE:\n"
	"GRH with the chosen GID; InfiniBand: LID), reads the port counters before and\n"
	"after, and gives a verdict.\n"
	"\n"
	"tests:\n"
	"  --test LIST         write, read, send, comma-separated (default write,read)\n"
	"  --bw, --lat         bandwidth only, latency only (default both)\n"
	"  -s, --size SIZE     message size (default 1M for bandwidth, 2 for latency;\n"
	"                      with --perftest 64K for bandwidth, as perftest)\n"
	"  -a, --all-sizes     every power of two from 2 B to --max-size (default 8M)\n"
	"      --max-size SIZE largest size for -a\n"
	"  -n, --iters N       messages per QP (bandwidth) or round trips (latency);\n"
	"                      default: latency 10000 rounds (enough for p99.9),\n"
	"                      bandwidth 2 s per size; with --perftest perftest's\n"
	"                      1000 (5000 for write bandwidth)\n"
	"  -D, --duration T    run each test T seconds instead (e.g. 5, 500ms)\n"
	"      --perftest      measure as perftest does (ib_write_bw, ib_read_lat...):\n"
	"                      its CQ moderation, no warm-up, no inline in bandwidth\n"
	"                      tests, a buffer region per QP, SEND for send latency,\n"
	"                      -D's trimmed window, latency from post to post with\n"
	"                      its statistics (the two largest rounds dropped) and\n"
	"                      percentiles (doc/pair-bench.md)\n"
	"      --method M      fabcheck (default) or perftest\n"
	"      --report-gbits  with --perftest, bandwidth in Gb/sec (perftest's\n"
	"                      --report_gbits), not MiB/sec\n"
	"      --warm-up[=N]   an untimed warm-up first (perftest's --perform_warm_up);\n"
	"                      N requests per QP or rounds (default: one window)\n"
	"  -q, --qps N         QPs for bandwidth (default 1)\n"
	"  -b, --bidir         bandwidth both ways at once\n"
	"      --reverse       NODE_B sends (write, send) or reads (read)\n"
	"  -t, --tx-depth N    work requests in flight per QP (default 128)\n"
	"      --interval T    bandwidth sample interval (default 100ms)\n"
	"\n"
	"message rate:\n"
	"      --post-list N   chain N work requests per post (default 1)\n"
	"      --cq-mod N      signal one send completion in N (default tx depth / 2,\n"
	"                      at most 64; with --perftest perftest's). A list and a\n"
	"                      moderation that could leave a full window with no\n"
	"                      signalled request (list + N - gcd(list, N) > window)\n"
	"                      are refused; a default is lowered, with a note\n"
	"      --inline N      send messages up to N bytes inline (bandwidth default 0,\n"
	"                      latency default the device's maximum; 'max' for that)\n"
	"      --threads N     spread the QPs over N threads, each pinned to a CPU of\n"
	"                      the HCA's NUMA node (default 1)\n"
	"      --lat-mode M    write latency: poll (the CPU polls the last byte) or imm\n"
	"                      (RDMA WRITE WITH IMMEDIATE, waits on the receive\n"
	"                      completion; the default with --use-cuda)\n"
	"\n"
	"choices (shown in the report):\n"
	"  -d, --dev DEV[:PORT][,DEV[:PORT]]  device for both nodes or for A,B\n"
	"                      (default: the first active port)\n"
	"  -x, --gid-index N[,N] GID index (default: RoCE v2 IPv4 first, scored)\n"
	"      --cm            connect with rdma_cm on the fabric addresses\n"
	"      --tclass N      traffic class on both sides, 0..255 (RoCE: the GRH\n"
	"                      traffic class, DSCP << 2 | ECN, e.g. 106 = DSCP 26 with\n"
	"                      ECT(0); with --cm the ToS set through rdma_cm)\n"
	"      --sl N          service level on both sides, 0..15 (RoCE: the address\n"
	"                      vector's SL, on mlx5 the VLAN priority of tagged frames)\n"
	"  On InfiniBand the traffic class is recorded only (no GRH).\n"
	"  The report shows what each QP carries and the congestion, pause and\n"
	"  discard counters (hw_counters, ethtool -S) that moved.\n"
	"\n"
	"verdict:\n"
	"  --min-gbps X        fail bandwidth below X Gb/s at the largest size\n"
	"  --min-link-pct P    without --min-gbps: fail bandwidth below P% of the\n"
	"                      slower port's payload ceiling (its rate less the line\n"
	"                      encoding and the headers of each packet at the path\n"
	"                      MTU), at sizes of 1 MiB and more (default 90)\n"
	"  --max-lat-us X      fail p50 latency above X us at the smallest size\n"
	"  The port counters must cover what the results say moved (none below it,\n"
	"  less 1%) and, when nothing was retried, explain no more than its packets,\n"
	"  headers and ACKs plus 10% (counters_check, doc/pair-counters.md); a\n"
	"  direction that disagrees is a warning.\n"
	"  Error counters that rise during the test are warnings. A diagnosis names\n"
	"  the likely part (cable or transceiver, HCA, host PCIe, configuration,\n"
	"  congestion, buffers) from each port's evidence, with the next step.\n"
	"\n"
	"memory:\n"
	"  --use-cuda[=N|BUS_ID] GPU memory on both nodes (GPUDirect RDMA): GPU N, the\n"
	"                      GPU at that PCI bus id, or alone the GPU nearest the HCA\n"
	"                      (without -d, --use-cuda=N uses the HCA nearest GPU N)\n"
	"      --gdr MODE      auto (dma-buf, then peermem), dmabuf or peermem\n"
	"      --validate      number every message (header: number, slot, length;\n"
	"                      CRC32C of the payload) and check each one where it\n"
	"                      lands (header, CRC, the completion's length and\n"
	"                      immediate value); writes go as RDMA WRITE WITH\n"
	"                      IMMEDIATE then, write latency by immediate\n"
	"      --hugepages     host buffers in huge pages (reserve them first:\n"
	"                      /proc/sys/vm/nr_hugepages)\n"
	"  The buffer is placed on the NUMA node of the HCA (of the GPU with\n"
	"  --use-cuda) and the worker pinned to its CPUs (sysfs numa_node,\n"
	"  local_cpulist); the report shows each side's nodes. Buffers are registered\n"
	"  with relaxed PCIe ordering requested where the device accepts the flag\n"
	"  (\"relaxed_ordering\": \"requested\": drivers may drop it silently).\n"
	"  With --use-cuda write latency is a ping-pong of RDMA WRITE WITH IMMEDIATE\n"
	"  (--lat-mode imm): no CPU reads GPU memory.\n"
	"\n"
	"rails (the unit of a GPU rack: HCA i of every node on leaf switch i):\n"
	"  Every rail both nodes share is tested by default (without -d): each rail\n"
	"  alone, then all at once, each test starting together on every rail. Rails\n"
	"  are matched by the fabric: a shared IPv4/IPv6 subnet or IB subnet prefix;\n"
	"  on routed RoCE (a /31 per port) the LLDP neighbour, else the position (NUMA\n"
	"  node, PCIe order; said to be assumed); on one IB subnet the switch each\n"
	"  port reaches. Left out, each said in one line: a port on another link\n"
	"  layer, the port with the node's ssh address or default route, a port at\n"
	"  another rate than the node's others, a port no other node has a peer of.\n"
	"  A node with one rail runs as one port.\n"
	"  --rails all|first|LIST  every rail (the default), the first active port\n"
	"                      only (as before rails), or the rails LIST names (rail\n"
	"                      names, i.e. the device most nodes have on it, or\n"
	"                      numbers);\n"
	"                      with --use-cuda each rail on the GPU nearest its HCA\n"
	"                      (GPUs that tie shared among the HCAs that have them, as\n"
	"                      NCCL pairs them); two rails of a node on one GPU where\n"
	"                      it has as many GPUs as rails are a warning\n"
	"  --exclude-dev LIST  devices or net devices that are no rail (storage,\n"
	"                      management NICs)\n"
	"  --min-loaded-pct P  fail a rail whose bandwidth with every rail loaded is\n"
	"                      below P% of its own alone (default 90; 0: off): the host\n"
	"                      cannot carry every rail at once (software devices, rxe\n"
	"                      and siw, share the node's CPU: a note, not a failure)\n"
	"  --loaded-only       every rail at once only (what matrix --rails runs)\n"
	"\n"
	"running:\n"
	"  --launcher ssh|slurm|local  ssh NODE (default), srun --nodelist=NODE -N1 -n1,\n"
	"                      or both workers on this host\n"
	"  --ssh-config FILE   ssh -F FILE\n"
	"  --worker-cmd PATH   fabcheck's path on the nodes (default 'fabcheck', or\n"
	"                      $FABCHECK_WORKER_CMD)\n"
	"  --timeout T         deadline of every wait (default 30s)\n"
	"  --deadline T        end the run after T (e.g. 10m): a test still under way\n"
	"                      is judged on the bytes it moved by then, a slow link;\n"
	"                      the finished tests are kept (default: no deadline)\n"
	"  --db FILE           keep the run in this SQLite store (default fabcheck.db)\n"
	"  --baseline FILE     judge each bandwidth result against the fleet's baseline\n"
	"                      ('fabcheck baseline'): more than its P% below is defective\n"
	"  --no-db             keep nothing\n"
	"  --save-evidence DIR write each node's raw counters, ethtool -S/-m, PCIe\n"
	"                      and perfquery readings before and after, with the\n"
	"                      result, for 'fabcheck diagnose DIR' (doc/diagnose.md)\n"
	"  -j, --json          one JSON document on stdout\n"
	"\n"
	"Exit: 0 pass (warnings allowed), 1 a check failed, 2 usage, 3 could not run\n"
	"(node unreachable, no device, worker lost).\n";

/* What --rails allows and needs: every rail unless -d or --rails first. */
static int check_rails(struct pair_cfg *cfg, int dev_given)
{
	if (cfg->rails && !strcmp(cfg->rails, "first")) {
		if (cfg->exclude_dev || cfg->loaded_only) {
			fc_err("pair: --exclude-dev and --loaded-only choose among rails; --rails first tests the first active port only");
			return -EINVAL;
		}
		cfg->rails = NULL;
		return 0;
	}
	/* --use-cuda=N or =BUS names one GPU: the HCA nearest it, one port */
	int one_gpu = cfg->mem.kind == GDR_CUDA &&
		      (cfg->mem.req.how == GDR_GPU_INDEX || cfg->mem.req.how == GDR_GPU_BUS);

	if (!cfg->rails && (dev_given || cfg->sync_fd >= 0 || one_gpu)) {
		if (cfg->exclude_dev || cfg->loaded_only) {
			fc_err("pair: -d names one port; --exclude-dev and --loaded-only choose among rails: give one of them");
			return -EINVAL;
		}
		return 0;
	}
	if (!cfg->rails) {
		cfg->rails = "all";
		cfg->rails_default = 1;
	}
	if (dev_given) {
		fc_err("pair: -d names one port and --rails the rails; give one of them");
		return -EINVAL;
	}
	if (!*cfg->rails) {
		fc_err("--rails: empty; expected all, first or a comma-separated list of rails (e.g. mlx5_0,mlx5_3 or 0,3)");
		return -EINVAL;
	}
	return 0;
}

static int check_file(const char *opt, const char *path)
{
	FILE *f;

	if (!path)
		return 0;
	f = fopen(path, "r");
	if (!f) {
		fc_err("%s: cannot read '%s': %s", opt, path, strerror(errno));
		return -errno;
	}
	fclose(f);
	return 0;
}

static int pair_check_and_run(struct fc_ctx *ctx, struct pair_cfg *cfg_p, int argc, char **argv,
			      int dev_given);

/* The store --db names opens (made when missing) before anything runs, as
 * matrix's and soak's do: a result that cannot be kept is said at once,
 * not after the run with exit 0. 0, or -1 after logging. */
static int check_store(const char *db)
{
	struct fc_store *st = fc_store_open(db);

	if (!st) {
		fc_err("pair: --db %s: the result could not be kept there (see above); give a file in a folder you can write, or --no-db",
		       db);
		return -1;
	}
	fc_store_close(st);
	return 0;
}

int cmd_pair(struct fc_ctx *ctx, int argc, char **argv)
{
	struct pair_cfg cfg;
	int rc;

	pair_cfg_defaults(&cfg);
	cfg.child_args = json_array();
	if (fc_opts_parse(ctx, &pair_spec, &cfg, argc, argv)) {
		json_decref(cfg.child_args);
		return FC_EXIT_USAGE;
	}
	rc = pair_check_and_run(ctx, &cfg, argc, argv, cfg.dev_given);
	json_decref(cfg.child_args);
	return rc;
}

static int pair_check_and_run(struct fc_ctx *ctx, struct pair_cfg *cfg_p, int argc, char **argv,
			      int dev_given)
{
	struct pair_cfg cfg = *cfg_p;
	int rc;

	if (check_rails(&cfg, dev_given))
		return FC_EXIT_USAGE;
	if (argc - optind != 2) {
		fc_err("pair: expected two nodes (fabcheck pair NODE_A NODE_B), got %d argument%s",
		       argc - optind, argc - optind == 1 ? "" : "s");
		return FC_EXIT_USAGE;
	}
	for (int i = 0; i < 2; i++) {
		cfg.node[i] = argv[optind + i];
		if (!fc_valid_node_name(cfg.node[i])) {
			fc_err("pair: '%s' is not a node name; use a host name or address (letters, digits, '-', '_', '.', '@', ':')",
			       cfg.node[i]);
			return FC_EXIT_USAGE;
		}
	}
	if (cfg.baseline) {
		struct fc_baseline bl;

		if (fc_bl_read_file(&bl, cfg.baseline))
			return FC_EXIT_USAGE;
		fc_bl_release(&bl);
	}
	if (cfg.size && cfg.all_sizes) {
		fc_err("pair: -s and -a exclude each other; give one");
		return FC_EXIT_USAGE;
	}
	if (cfg.duration > 0 && cfg.all_sizes) {
		fc_err("pair: -D with -a would run every size for the whole duration; give -n instead");
		return FC_EXIT_USAGE;
	}
	if (cfg.mem.kind == GDR_CUDA && cfg.lat_mode == VB_LAT_POLL) {
		fc_err("pair: --lat-mode poll reads memory with the CPU, which GPU memory does not allow; with --use-cuda use --lat-mode imm (the default)");
		return FC_EXIT_USAGE;
	}
	if (cfg.mem.validate && cfg.lat_mode == VB_LAT_POLL) {
		fc_err("pair: --validate checks each message at its receive completion, which write latency by polling (--lat-mode poll) has none of; use --lat-mode imm (the default with --validate)");
		return FC_EXIT_USAGE;
	}
	/* GPU memory and --validate: each side waits on a completion. */
	if (cfg.lat_mode < 0)
		cfg.lat_mode = cfg.mem.kind == GDR_CUDA || cfg.mem.validate ? VB_LAT_IMM : VB_LAT_POLL;
	if (pair_knobs_check(&cfg))
		return FC_EXIT_USAGE;
	if (cfg.threads > 1 && cfg.cm) {
		fc_err("pair: --threads needs the relayed exchange: rdma_cm (--cm) puts every QP on one completion queue; drop one of them");
		return FC_EXIT_USAGE;
	}
	if (cfg.threads > cfg.qps) {
		fc_err("pair: --threads %d needs at least as many QPs: add -q %d", cfg.threads,
		       cfg.threads);
		return FC_EXIT_USAGE;
	}
	if (cfg.mem.hugepages && cfg.mem.kind == GDR_CUDA) {
		fc_err("pair: --hugepages backs host memory; with --use-cuda the buffers are GPU memory: drop one");
		return FC_EXIT_USAGE;
	}
	if (cfg.gdr_given && cfg.mem.kind != GDR_CUDA) {
		fc_err("pair: --gdr chooses how GPU memory is registered; add --use-cuda");
		return FC_EXIT_USAGE;
	}
	cfg.launch.verbose = ctx->verbose;
	if (check_file("--ssh-config", cfg.launch.ssh_config))
		return FC_EXIT_USAGE;
	if (cfg.launch.kind != FC_LAUNCH_SSH && cfg.launch.ssh_config)
		fc_warn("--ssh-config has no effect with --launcher %s",
			fc_launcher_name(cfg.launch.kind));
	if (!cfg.no_db && check_store(cfg.db))
		return FC_EXIT_CANT;
	fc_ssh_mux_setup(&cfg.launch, cfg.node[0], 0);
	rc = cfg.rails ? pair_rails_run(ctx, &cfg) : pair_run(ctx, &cfg);
	fc_ssh_mux_end();
	return rc;
}

void pair_test_length(const struct pair_cfg *cfg, enum vb_op op, int lat, uint64_t *iters_p,
		      double *duration_p)
{
	*iters_p = cfg->iters;
	*duration_p = cfg->duration;
	if (cfg->iters || cfg->duration > 0)
		return;
	if (cfg->method == VB_METHOD_PERFTEST)
		*iters_p = !lat && op == VB_WRITE ? PAIR_PT_WRITE_BW_ITERS : PAIR_PT_ITERS;
	else if (lat)
		*iters_p = PAIR_LAT_ITERS;
	else
		*duration_p = PAIR_BW_SECONDS;
}

void pair_moved_text(char *buf, size_t len, double done, double planned, double duration,
		     const char *unit, double secs)
{
	if (planned > 0)
		snprintf(buf, len, "%.0f of %.0f %s in %.0f s", done, planned, unit, secs);
	else if (duration > 0)
		snprintf(buf, len, "%.0f %s in %.0f s of a %.0f s test", done, unit, secs, duration);
	else
		snprintf(buf, len, "%.0f %s in %.0f s", done, unit, secs);
}

void pair_rate_text(char *buf, size_t len, int lat, double done, double secs, double gbps)
{
	if (!lat)
		snprintf(buf, len, "%.3g Gb/s", gbps);
	else if (done > 0)
		snprintf(buf, len, "%.1f us a round trip", secs / done * 1e6);
	else
		snprintf(buf, len, "not one round trip");
}

double pair_test_budget(const struct pair_cfg *cfg, int lat, uint64_t iters, double duration,
			uint64_t size)
{
	double per_msg = (double)size * 8 * (lat ? 2 : 1) / PAIR_FLOOR_BPS + PAIR_FLOOR_MSG_S;
	double qps = lat ? 1 : cfg->qps > 0 ? cfg->qps : 1;
	/* the method's own warm-up (-1, -2) is at most 200 rounds or tx_depth
	 * requests (verbs/test.c) */
	double warm = cfg->warmup >= 0 ? cfg->warmup : cfg->tx_depth > 200 ? cfg->tx_depth : 200;
	double msgs = warm * qps + (duration > 0 ? qps * cfg->tx_depth : (double)iters * qps);

	return (duration > 0 ? duration : 0) + msgs * per_msg + cfg->timeout;
}

int pair_sizes(const struct pair_cfg *cfg, int lat, uint64_t *sizes)
{
	int n = 0;

	if (!cfg->all_sizes) {
		sizes[0] = cfg->size			     ? cfg->size :
			   lat				     ? PAIR_LAT_SIZE :
			   cfg->method == VB_METHOD_PERFTEST ? PAIR_PT_BW_SIZE :
							       PAIR_BW_SIZE;
		return 1;
	}
	for (uint64_t s = 2; s <= cfg->max_size && n < PAIR_MAX_SIZES; s *= 2)
		sizes[n++] = s;
	return n;
}

int pair_rx_depth(const struct pair_cfg *cfg)
{
	uint64_t iters;
	double duration;
	int d = PAIR_PT_RX_DEPTH;

	/* only sends take receives (perftest: DEF_RX_RDMA, 1, for writes) */
	if (cfg->method != VB_METHOD_PERFTEST || !(cfg->ops & (1u << VB_SEND)))
		return 0;
	pair_test_length(cfg, VB_SEND, 0, &iters, &duration);
	if (!(duration > 0) && iters < (uint64_t)d)
		d = (int)iters;
	return d % 2 ? d + 1 : d;
}

uint64_t pair_largest_size(const struct pair_cfg *cfg)
{
	uint64_t sizes[PAIR_MAX_SIZES], max = 2;

	for (int lat = 0; lat < 2; lat++) {
		int n = pair_sizes(cfg, lat, sizes);

		if (lat ? !cfg->lat : !cfg->bw)
			continue;
		for (int k = 0; k < n; k++)
			if (sizes[k] > max)
				max = sizes[k];
	}
	return max;
}
