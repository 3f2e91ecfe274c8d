/* fabcheck: validates the RDMA fabric of GPU clusters. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/fc.h"
#include "core/log.h"
#include "core/out.h"
#include "core/summary.h"
#include "ctl/lldp.h"
#include "ctl/ssh_mux.h"
#include "gdr/gdr.h"
#include "lab/starve.h"
#include "ctl/drain.h"
#include "core/bundle.h"
#include "ctl/nodesrc.h"
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

/* A command NAME run by cmd_FN, its help text usage_FN (src/cmds.h). */
#define CMD(name_, fn, sum, ...) \
	{ .name = name_, .run = cmd_##fn, .usage = usage_##fn, .summary = sum, __VA_ARGS__ }
static const struct fc_cmd commands[] = {
	CMD("devices", devices, "list this host's RDMA devices, ports, rates and GIDs"),
	CMD("gpu-check", gpu_check,
	    "check GPU memory for GPUDirect RDMA: copies, dma-buf, registration"),
	CMD("lab", lab, "boot a virtual rack of QEMU guests with Soft-RoCE (up, down, fault)",
	    .own_help = 1),
	CMD("pair", pair, "RDMA bandwidth and latency between two nodes, with a verdict"),
	CMD("worker", worker, "one side of a pair test (started by the controller)", .hidden = 1),
	CMD("nccl-worker", nccl_worker, "one NCCL rank of 'nccl run' (started by the controller)",
	    .hidden = 1),
	CMD("matrix", matrix,
	    "test every node pair of a rack in rounds and name the bad node or link"),
	CMD("preflight", preflight,
	    "check every node before traffic: ports, rates, versions, MTU, GIDs, GDR, PCIe"),
	CMD("capture", capture, "record this node into a bundle that --from judges elsewhere"),
	CMD("rails", rails, "the rack's rail plan: which port of which node is on which rail, and how"),
	CMD("health", health, "this node alone, for Slurm's HealthCheckProgram"),
	CMD("preflight-probe", preflight_probe,
	    "the node side of preflight (started by the controller)", .hidden = 1),
	CMD("soak", soak,
	    "hours of bidirectional traffic over the matrix schedule: drops and flaps, timed"),
	CMD("diagnose", diagnose,
	    "name the failed part from an evidence folder (--save-evidence), offline"),
	CMD("tui", tui, "live dashboard of a rack's pair matrix (runs one or follows one)"),
	CMD("report", report, "write a stored run as HTML (SVG heat map), CSV or Prometheus text"),
	CMD("nccl", nccl, "NCCL checks: check-log (NCCL_DEBUG=INFO output), env (NCCL_* settings)",
	    .own_help = 1),
	CMD("topo", topo, "GPUs, HCAs, PCIe distances, NVLink islands, nearest HCA, NCCL settings"),
	CMD("baseline", baseline,
	    "learn the fleet's bandwidth baseline per fabric profile from the stored results"),
	CMD("plan", plan, "communication arithmetic: DDP/ZeRO traffic per step and its time per fabric"),
	{ .name = "version", .run = cmd_version, .usage = "usage: fabcheck version [--json]\n",
	  .summary = "print the version" },
	{ 0 },
};
#undef CMD

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

/* 1 when @name is a command the controller starts on a node (a worker):
 * its stderr goes to the controller, which keeps its last line whole. */
static int started_by_controller(const char *name)
{
	for (const struct fc_cmd *c = commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c->hidden;
	return 0;
}

int main(int argc, char **argv)
{
	struct fc_ctx ctx = { .prog = argv[0] };
	int i = 1, rc = -1;

	/* --json anywhere: every exit writes one document (fc_out_finish),
	 * usage errors found before the command reads its options included. */
	ctx.json = fc_wants_json(argc - 1, argv + 1);
	vb_devices_peer_hook = fc_port_neighbours_add;
	vb_devices_from_hook = fc_bundle_devices; /* devices --from (ctl/nodesrc.c) */
	fc_bundle_unpack = fc_bundle_untar;	   /* .tar.gz captures (ctl/nodesrc.c) */
	topo_live_probe = gdr_data_direct_probe; /* mlx5 Data Direct (gdr/ddirect.c) */
	/* A signal still writes the one document and removes the ssh control
	 * folder this process made. */
	fc_out_on_signals(&ctx, fc_ssh_mux_remove);
	for (; rc < 0 && i < argc && argv[i][0] == '-'; i++)
		rc = global_opt(&ctx, argv[i]);
	/* On a lab rack (FABCHECK_LAB_RACK, the lab's explicit signal): a run
	 * the host starved judges no node and drains none. */
	if (rc < 0 && i < argc && strcmp(argv[i], "lab") && strcmp(argv[i], "worker") &&
	    fc_starve_begin()) {
		fc_emit_hook = fc_starve_doc;
		fc_drain_hold = fc_starve_hold;
	}
	/* The messages on stderr fit the terminal (issue 39 item 3); only a
	 * terminal's: a fabcheck that runs another reads its child's last
	 * stderr line as the reason it failed (matrix's pairs: mx_run.c
	 * kid_doc), so a pipe gets each message whole on its line. */
	if (rc < 0 && i < argc && !started_by_controller(argv[i]) && isatty(STDERR_FILENO))
		fc_log_fit = fc_err_put;
	if (rc < 0)
		rc = fc_dispatch(&ctx, "fabcheck", commands, argc - i, argv + i);
	fc_ssh_mux_end(); /* on every return; nothing when already ended */
	return fc_out_finish(&ctx, rc);
}
