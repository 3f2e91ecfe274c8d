/* fabcheck: shared definitions (exit codes, context, command tables). */
#ifndef FC_FC_H
#define FC_FC_H

#include <stddef.h>

#define FC_VERSION "0.1.0"
/* Version of the controller-worker wire protocol. */
#define FC_WIRE_VERSION 1

enum fc_exit {
	FC_EXIT_PASS = 0,  /* all checks passed (warnings allowed) */
	FC_EXIT_FAIL = 1,  /* a check failed */
	FC_EXIT_USAGE = 2, /* usage error */
	FC_EXIT_CANT = 3,  /* could not run: no device, unreachable, no permission */
};

struct json_t;

struct fc_ctx {
	int json;	      /* --json: one JSON document on stdout */
	int verbose;	      /* -v count */
	const char *prog;     /* argv[0] of the process */
	const char *cmd_path; /* "fabcheck lab", for messages */
	char cmd_path_buf[256];
	/* With --json: the document held until the command returns (see
	 * fc_out_finish in out.h), and whether a check judged it. */
	struct json_t *out_doc;
	int out_judged;
	/* The signal that stopped a command which kept what it measured
	 * (pair): fc_out_finish ends the process as by it. 0: none. */
	int stop_sig;
};

struct fc_cmd {
	const char *name;
	int (*run)(struct fc_ctx *ctx, int argc, char **argv);
	const char *summary; /* one line for `fabcheck help` */
	const char *usage;   /* full text for `fabcheck CMD --help` */
	int hidden;	     /* not listed by `help` (internal commands) */
	int own_help;	     /* has subcommands: handles --help itself */
};

/*
 * Runs the entry of @table named by argv[0]; "help", "-h" and "--help" list
 * the table. @path is the command path used in messages ("fabcheck lab").
 */
int fc_dispatch(struct fc_ctx *ctx, const char *path, const struct fc_cmd *table,
		int argc, char **argv);
/* Prints the table's summaries to stdout (with --json, into the document). */
void fc_print_table(struct fc_ctx *ctx, const char *path, const struct fc_cmd *table);

/* True when argv holds -h or --help before any "--". */
int fc_wants_help(int argc, char **argv);
/* True when argv holds --json before any "--". */
int fc_wants_json(int argc, char **argv);

/* Refuses the @n arguments @args of @cmd, when there are any: logs
 * "CMD: unexpected argument 'ARG'; HINT" (no "; HINT" for an empty @hint)
 * and returns -EINVAL; else 0. */
int fc_refuse_args(const char *cmd, char *const *args, int n, const char *hint);

struct option;
/*
 * getopt_long for the commands: an unknown option or a missing value is
 * logged as an error that names it ("unknown option '--frob'"), so that the
 * --json error document can say which input was wrong. Returns what
 * getopt_long returns ('?' for both errors).
 */
int fc_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts);

/* The fastest port there is: 1.6 Tb/s Ethernet (IEEE 802.3dj) and XDR
 * InfiniBand 4x at 800 Gb/s (IBTA). A figure one way above it is none. */
#define FC_GBPS_MAX 1600.0

#define FC_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
