/*
 * fabcheck lab: the virtual rack. QEMU orchestration is a shell script
 * (lab/rack.sh): it is process and file plumbing, which a shell does best;
 * this command finds the script and runs it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/log.h"
#include "core/out.h"
#include "core/util.h"
#include "lab/starve.h"
#include "src/cmds.h"

const char usage_lab[] =
	"usage: fabcheck lab <command> [options]\n"
	"\n"
	"A virtual rack: QEMU guests running Debian's kernel with Soft-RoCE (rxe0)\n"
	"on one shared virtual Ethernet segment, reachable by ssh as nodeA, nodeB...\n"
	"With --rails N each guest has N fabric NICs, each on a segment and subnet\n"
	"of its own (rail 0: eth0/rxe0, rail 1: eth2/rxe1, ...).\n"
	"\n"
	"  up [--nodes N] [--name NAME] [--mtu N] [--rails N] [--timeout SEC] [--slurm]\n"
	"                                         boot N guests (default 2, at most 8;\n"
	"                                         fabric MTU 576-9000, default 9000;\n"
	"                                         rails 1-4, default 1); --slurm: munge\n"
	"                                         + slurmctld on nodeA, slurmd on every\n"
	"                                         node\n"
	"     [--addressing subnet|routed] [--ipv6] [--storage-nic] [--rail-speed MBPS]\n"
	"                                         routed: each rail port in a /31 (/127)\n"
	"                                         of its own, on-link routes to the others;\n"
	"                                         --ipv6: rails with IPv6 addresses only\n"
	"                                         (fd00:10:77:S::N/64); --storage-nic: a\n"
	"                                         NIC more a node on its own segment\n"
	"                                         (10.200.S.0/24, 10 Gb/s) with rxeN on it;\n"
	"                                         --rail-speed: the rail NICs' link speed\n"
	"                                         (1000-400000 Mb/s; 100000: rxe reports\n"
	"                                         100 Gb/s; default unknown: 2.5 Gb/s)\n"
	"  status [--name NAME] [--json]          the rack's nodes and their state\n"
	"  calibrate [--name NAME] [--recorded]   one pair nodeA-nodeB (rxe0, 2 s)\n"
	"                                         against this host's best: whether the\n"
	"                                         host starves the rack (exit 1); lab up\n"
	"                                         runs it; --recorded: judge lab up's\n"
	"                                         again. Set FABCHECK_LAB_RACK=NAME and\n"
	"                                         pair, matrix, soak... on the rack set\n"
	"                                         a starved run's findings aside\n"
	"  ssh-config [--name NAME]               print the path of the rack's ssh_config\n"
	"  exec [--name NAME] NODE CMD...         run CMD on a node (by its shell, as ssh)\n"
	"  fault [--name NAME] NODE [--rail R] loss PCT | rate MBIT | mtu N | down | clear\n"
	"                                         change a node's fabric link (rail R's\n"
	"                                         NIC, default rail 0: eth0); clear\n"
	"                                         without --rail clears every rail\n"
	"  fault [--name NAME] NODE miswire       swap the node's rail 0 and rail 1\n"
	"                                         cables: rxe0 on rail 1, rxe1 on rail 0\n"
	"  down [--name NAME]                     stop the rack's guests\n"
	"  kernel [--rebuild]                     build the guest kernel and initramfs\n"
	"\n"
	"The rack's files live in $FABCHECK_LAB_HOME (default ~/.cache/fabcheck/lab)\n"
	"under NAME (default $FABCHECK_LAB_NAME, else 'lab'). Two racks with different\n"
	"names can run at once. Options go anywhere on the line (exec: before CMD).\n"
	"The guests run this fabcheck binary (or $FABCHECK_BIN):\n"
	"    ssh -F $(fabcheck lab ssh-config) nodeA fabcheck devices\n";

static int script_path(char *buf, size_t len)
{
	static const char *const rel[] = { "lab/rack.sh", "../lab/rack.sh",
					    "../lib/fabcheck/lab/rack.sh" };
	const char *env = getenv("FABCHECK_LAB_SCRIPT");
	char exe[PATH_MAX];
	ssize_t n;
	char *slash;

	if (env && *env) {
		snprintf(buf, len, "%s", env);
		return access(buf, R_OK) ? -errno : 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		return -errno;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		*slash = '\0';
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(buf, len, "%s/%s", exe, rel[i]);
		if (access(buf, R_OK) == 0)
			return 0;
	}
	return -ENOENT;
}

/* The rack's guests run the binary that started it (FABCHECK_SELF). */
static void export_self(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return;
	exe[n] = '\0';
	if (setenv("FABCHECK_SELF", exe, 1))
		fc_warn("lab: cannot export FABCHECK_SELF: %s", strerror(errno));
}

/* With --json, a subcommand that writes text (all but status) runs as a
 * child with its stdout on stderr: main then writes the one document, for
 * the child's exit code. */
static int run_quiet(char **args)
{
	pid_t pid = fork();
	int status;

	if (pid < 0) {
		fc_err("lab: cannot start bash: %s", strerror(errno));
		return FC_EXIT_CANT;
	}
	if (!pid) {
		dup2(STDERR_FILENO, STDOUT_FILENO);
		execvp("bash", args);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return FC_EXIT_CANT;
	if (WIFEXITED(status) && WEXITSTATUS(status) <= FC_EXIT_CANT)
		return WEXITSTATUS(status);
	fc_err("lab: %s ended %s %d", args[2] ? args[2] : "lab",
	       WIFEXITED(status) ? "with exit" : "on signal",
	       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	return FC_EXIT_CANT;
}

/*
 * lab status --json: the script writes the document; one it did not write
 * (a usage error before it could) is written by fc_out_finish with the
 * exit's "error". Its stdout is read here: a JSON object goes out as it is,
 * and main writes no second one.
 */
static int run_status_json(struct fc_ctx *ctx, char **args)
{
	int fd[2], status, rc = FC_EXIT_CANT;
	size_t len = 0;
	json_t *doc;
	char *out;
	pid_t pid;

	if (pipe(fd) || (pid = fork()) < 0) {
		fc_err("lab: cannot start bash: %s", strerror(errno));
		return FC_EXIT_CANT;
	}
	if (!pid) {
		dup2(fd[1], STDOUT_FILENO);
		close(fd[0]);
		close(fd[1]);
		execvp("bash", args);
		_exit(127);
	}
	close(fd[1]);
	out = fc_read_fd(fd[0], 1 << 20, &len); /* a status of 1,000 nodes is ~100 KiB */
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			break;
	if (WIFEXITED(status) && WEXITSTATUS(status) <= FC_EXIT_CANT)
		rc = WEXITSTATUS(status);
	doc = out ? json_loadb(out, len, 0, NULL) : NULL;
	if (json_is_object(doc) && json_object_get(doc, "error")) {
		fwrite(out, 1, len, stdout);
		ctx->json = 0; /* written */
	}
	json_decref(doc);
	free(out);
	return rc;
}

/* "lab SUB --help" (or -h) among SUB's options: for exec, before its NODE. */
static int sub_help(int argc, char **argv)
{
	int ops = 0;

	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return 0;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return 1;
		if (!strcmp(argv[i], "--name"))
			i++;
		else if (argv[i][0] != '-' && !strcmp(argv[1], "exec") && ++ops == 2)
			return 0; /* exec's CMD starts: its options are its own */
	}
	return 0;
}

/* SUB's lines of usage_lab: from "  SUB " to the next command's line. */
static int print_sub_usage(struct fc_ctx *ctx, const char *sub)
{
	size_t sl = strlen(sub), n;
	const char *p = usage_lab;
	int in = 0, found = 0;
	char *buf;

	if (sl > 16) /* no lab command is longer: the header fits in 64 bytes */
		return -1;
	buf = malloc(sizeof(usage_lab) + 64);
	if (!buf)
		return FC_EXIT_CANT;
	n = (size_t)snprintf(buf, 64, "usage: fabcheck lab %s [options]\n\n", sub);
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) + 1 : strlen(p);

		if (len > 3 && p[0] == ' ' && p[1] == ' ' && p[2] != ' ')
			in = !strncmp(p + 2, sub, sl) && p[2 + sl] == ' ';
		else if (len <= 1)
			in = 0;
		if (in) {
			memcpy(buf + n, p, len);
			n += len;
			found = 1;
		}
		p += len;
	}
	buf[n] = '\0';
	if (found)
		fc_out_text(ctx, buf);
	free(buf);
	return found ? FC_EXIT_PASS : -1;
}

int cmd_lab(struct fc_ctx *ctx, int argc, char **argv)
{
	char path[PATH_MAX + 64];
	char **args;
	int n;

	if (argc < 2) {
		fputs(usage_lab, stderr);
		return FC_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "help") && argc > 2) { /* lab help SUB: SUB's usage, as nccl's */
		if ((n = print_sub_usage(ctx, argv[2])) >= 0)
			return n;
		fc_err("lab help: '%s' is not a lab command; fabcheck lab --help lists them",
		       argv[2]);
		return FC_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fc_out_text(ctx, usage_lab);
		return FC_EXIT_PASS;
	}
	if (sub_help(argc, argv) && (n = print_sub_usage(ctx, argv[1])) >= 0)
		return n;
	if (!strcmp(argv[1], "calibrate"))
		return fc_lab_calibrate(ctx, argc - 1, argv + 1);
	if (script_path(path, sizeof(path))) {
		fc_err("lab: cannot find lab/rack.sh beside the fabcheck binary; "
		       "reinstall with 'make install' or set FABCHECK_LAB_SCRIPT");
		return FC_EXIT_CANT;
	}
	args = calloc((size_t)argc + 3, sizeof(*args));
	if (!args)
		return FC_EXIT_CANT;
	args[0] = "bash";
	args[1] = path;
	n = 2;
	for (int i = 1; i < argc; i++)
		if (!ctx->json || strcmp(argv[i], "--json"))
			args[n++] = argv[i];
	export_self();
	fflush(NULL);
	if (ctx->json && !strcmp(argv[1], "status")) {
		args[n++] = "--json"; /* given before the command too: status writes the document */
		args[n] = NULL;
		n = run_status_json(ctx, args);
		free(args);
		return n;
	} else if (ctx->json) {
		n = run_quiet(args);
		free(args);
		return n;
	}
	execvp("bash", args);
	fc_err("lab: cannot run bash: %s", strerror(errno));
	free(args);
	return FC_EXIT_CANT;
}
