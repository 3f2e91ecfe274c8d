/* fabcheck: validates the RDMA fabric of GPU clusters. */
#include <stdio.h>
#include <string.h>

#include "core/fc.h"
#include "core/log.h"
#include "core/out.h"
#include "ctl/ibpeer.h"
#include "src/cmds.h"
#include "verbs/dev.h"

static int cmd_version(struct fc_ctx *ctx, int argc, char **argv)
{
	json_t *doc;

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--json")) {
			fc_err("version: unexpected argument '%s'", argv[i]);
			return FC_EXIT_USAGE;
		}
	if (!ctx->json) {
		printf("fabcheck %s (wire protocol %d)\n", FC_VERSION, FC_WIRE_VERSION);
		return FC_EXIT_PASS;
	}
	doc = fc_doc_new();
	json_object_set_new(doc, "version", json_string(FC_VERSION));
	json_object_set_new(doc, "wire_protocol", json_integer(FC_WIRE_VERSION));
	return fc_emit(ctx, doc, NULL);
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
	{ .name = "version", .run = cmd_version, .usage = "usage: fabcheck version [--json]\n",
	  .summary = "print the version" },
	{ 0 },
};

/* Options that come before the command: -1 to go on, else the exit code. */
static int global_opt(struct fc_ctx *ctx, const char *arg)
{
	if (!strcmp(arg, "--version") || !strcmp(arg, "-V"))
		return cmd_version(ctx, 0, NULL);
	if (!strcmp(arg, "-v") || !strcmp(arg, "--verbose")) {
		fc_log_level = fc_log_level < FC_LOG_DEBUG ? fc_log_level + 1 : FC_LOG_DEBUG;
		ctx->verbose++;
		return -1;
	}
	if (!strcmp(arg, "--json"))
		return -1; /* seen by fc_wants_json */
	if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
		fc_print_table(ctx, "fabcheck", commands);
		return FC_EXIT_PASS;
	}
	fc_err("unknown option '%s'; run 'fabcheck help'", arg);
	return FC_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	struct fc_ctx ctx = { .prog = argv[0] };
	int i = 1, rc = -1;

	/* --json anywhere: every exit writes one document (fc_out_finish),
	 * usage errors found before the command reads its options included. */
	ctx.json = fc_wants_json(argc - 1, argv + 1);
	vb_devices_peer_hook = fc_ib_switches_add;
	for (; rc < 0 && i < argc && argv[i][0] == '-'; i++)
		rc = global_opt(&ctx, argv[i]);
	if (rc < 0)
		rc = fc_dispatch(&ctx, "fabcheck", commands, argc - i, argv + i);
	return fc_out_finish(&ctx, rc);
}
