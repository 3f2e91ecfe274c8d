/* fabcheck: validates the RDMA fabric of GPU clusters. */
#include <stdio.h>
#include <string.h>

#include "core/fc.h"
#include "core/log.h"
#include "src/cmds.h"

static int cmd_version(struct fc_ctx *ctx, int argc, char **argv)
{
	(void)ctx;
	(void)argc;
	(void)argv;
	printf("fabcheck %s (wire protocol %d)\n", FC_VERSION, FC_WIRE_VERSION);
	return FC_EXIT_PASS;
}

static const struct fc_cmd commands[] = {
	{ .name = "devices", .run = cmd_devices, .usage = usage_devices,
	  .summary = "list this host's RDMA devices, ports, rates and GIDs" },
	{ .name = "gpu-check", .run = cmd_gpu_check, .usage = usage_gpu_check,
	  .summary = "check GPU memory for GPUDirect RDMA: copies, dma-buf, registration" },
	{ .name = "lab", .run = cmd_lab, .usage = usage_lab, .own_help = 1,
	  .summary = "boot a virtual rack of QEMU guests with Soft-RoCE (up, down, fault)" },
	{ .name = "pair", .run = cmd_pair, .usage = usage_pair,
	  .summary = "RDMA bandwidth and latency between two nodes, with a verdict" },
	{ .name = "worker", .run = cmd_worker, .usage = usage_worker, .hidden = 1,
	  .summary = "one side of a pair test (started by the controller)" },
	{ .name = "nccl-worker", .run = cmd_nccl_worker, .usage = usage_nccl_worker, .hidden = 1,
	  .summary = "one NCCL rank of 'nccl run' (started by the controller)" },
	{ .name = "matrix", .run = cmd_matrix, .usage = usage_matrix,
	  .summary = "test every node pair of a rack in rounds and name the bad node or link" },
	{ .name = "preflight", .run = cmd_preflight, .usage = usage_preflight,
	  .summary = "check every node before traffic: ports, rates, versions, MTU, GIDs, GDR, PCIe" },
	{ .name = "preflight-probe", .run = cmd_preflight_probe, .usage = usage_preflight_probe,
	  .hidden = 1, .summary = "the node side of preflight (started by the controller)" },
	{ .name = "soak", .run = cmd_soak, .usage = usage_soak,
	  .summary = "hours of bidirectional traffic over the matrix schedule: drops and flaps, timed" },
	{ .name = "diagnose", .run = cmd_diagnose, .usage = usage_diagnose,
	  .summary = "name the failed part from an evidence folder (--save-evidence), offline" },
	{ .name = "tui", .run = cmd_tui, .usage = usage_tui,
	  .summary = "live dashboard of a rack's pair matrix (runs one or follows one)" },
	{ .name = "report", .run = cmd_report, .usage = usage_report,
	  .summary = "write a stored run as HTML (SVG heat map), CSV or Prometheus text" },
	{ .name = "nccl", .run = cmd_nccl, .usage = usage_nccl, .own_help = 1,
	  .summary = "NCCL checks: check-log (NCCL_DEBUG=INFO output), env (NCCL_* settings)" },
	{ .name = "topo", .run = cmd_topo, .usage = usage_topo,
	  .summary = "GPUs, HCAs, PCIe distances, NVLink islands, nearest HCA, NCCL settings" },
	{ .name = "plan", .run = cmd_plan, .usage = usage_plan,
	  .summary = "communication arithmetic: DDP/ZeRO traffic per step and its time per fabric" },
	{ .name = "version", .run = cmd_version, .usage = "usage: fabcheck version\n",
	  .summary = "print the version" },
	{ 0 },
};

int main(int argc, char **argv)
{
	struct fc_ctx ctx = { .prog = argv[0] };
	int i = 1;

	/* Options that come before the command. */
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--version") || !strcmp(argv[i], "-V"))
			return cmd_version(&ctx, 0, NULL);
		if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			fc_log_level = fc_log_level < FC_LOG_DEBUG ? fc_log_level + 1 :
								     FC_LOG_DEBUG;
			ctx.verbose++;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fc_print_table("fabcheck", commands);
			return FC_EXIT_PASS;
		} else {
			fc_err("unknown option '%s'; run 'fabcheck help'", argv[i]);
			return FC_EXIT_USAGE;
		}
	}
	return fc_dispatch(&ctx, "fabcheck", commands, argc - i, argv + i);
}
