/*
 * The options `matrix` and `tui` share: the nodes, the store, the run to
 * resume or follow, the analysis thresholds, and the `pair` options passed
 * through to each pair.
 */
#ifndef FC_MX_CLI_H
#define FC_MX_CLI_H

#include <jansson.h>
#include <stdint.h>

#include "baseline/bl_pair.h"
#include "core/fc.h"
#include "ctl/drain.h"
#include "matrix/mxan.h"

struct mx_cli {
	char **nodes;
	int n;
	const char *hostfile;
	const char *db;
	int64_t resume; /* matrix --resume RUN */
	int64_t follow; /* tui --run RUN */
	int both, retest;
	struct fc_mx_opts opts;
	json_t *pair_args; /* strings, passed to each `pair` */
	int pair_test_given; /* --test, --bw, --lat, -s or -a given */
	double deadline_s;
	const char *import; /* matrix --import FILE: recorded pair documents */
	double pace_s;	    /* --pace: seconds between imported results */
	const char *evidence_dir; /* --save-evidence DIR */
	const char *rails;  /* --rails all|LIST: a cell per (pair, rail) */
	const char *exclude_dev; /* --exclude-dev LIST */
	int screen, full;   /* matrix --screen (matrix/mx_screen.h) or --full (the default) */
	int max_rounds;	    /* --max-rounds of the screen, 0 = its default */
	int fanout;	    /* --fanout: workers at once (two a pair), 0 = the default */
	int no_mux;	    /* --no-ssh-mux */
	struct fc_drain_opts drain; /* matrix --drain, --drain-dry-run, --resume-passed */
	const char *pattern;	/* matrix --pattern NAME (core/pattern.h), NULL: pairs */
	int fan_in, group;	/* --fan-in K (incast, fanout), --group K (alltoall); 0: all */
	const char *baseline;	/* matrix --baseline FILE */
	struct fc_baseline bl;	/* that file, read by mx_cli_parse */
	/* tui only */
	int once, max_iter;
};

#define MX_CLI_MATRIX 0
#define MX_CLI_TUI 1

/* Parses argv (argv[0] is the command name) into @c; the nodes come from
 * the remaining arguments or --hostfile. Returns 0 or FC_EXIT_USAGE after
 * printing the reason. */
int mx_cli_parse(struct fc_ctx *ctx, struct mx_cli *c, int argc, char **argv, int which,
		 const char *usage);
void mx_cli_release(struct mx_cli *c);
/* --rails of the matrix and soak (an entry of core/opts.h whose field is
 * the json_t * list of pair options): passes "--rails LIST --loaded-only",
 * every rail of a pair loaded at once. */
struct fc_opt;
int mx_pass_rails(void *dst, const char *arg, const struct fc_opt *o);
/* Every rail by default: neither --rails nor -d given. */
int mx_cli_rails_default(const struct mx_cli *c);

/* Entries (core/opts.h) for the pair options that matrix, tui and soak pass
 * on to each pair as they are given. */
#define MX_PAIR_PASS_OPTS                                                         \
	FCO_PASS("qps", 'q', required_argument, .what = "-q"),                    \
		FCO_PASS("tx-depth", 't', required_argument, .what = "-t"),       \
		FCO_PASS("device", 'd', required_argument, .what = "-d"),         \
		FCO_PASS("dev", 'd', required_argument, .what = "-d"),            \
		FCO_PASS("gid-index", 'x', required_argument, .what = "-x"),      \
		FCO_PASS("cm", 0, no_argument), FCO_PASS("use-cuda", 0, optional_argument), \
		FCO_PASS("ssh-config", 0, required_argument),                     \
		FCO_PASS("worker-cmd", 0, required_argument),                     \
		FCO_PASS("timeout", 0, required_argument),                        \
		FCO_PASS("min-link-pct", 0, required_argument),                   \
		FCO_PASS("pair-opt", 0, required_argument, .flags = FC_OPT_PASS_VALUE)

/* The pair options' help text, shared by both usages. */
#define MX_CLI_PAIR_HELP                                                            \
	"pair options, passed to each pair (see 'fabcheck pair --help'):\n"           \
	"  --test LIST, --bw, --lat, -s SIZE, -a, --max-size SIZE, -n N, -D T,\n"     \
	"  -q N, -t N, -b, --reverse, --interval T, -d DEV[:PORT], -x IDX, --cm,\n"   \
	"  --tclass N, --sl N,\n"                                                    \
	"  --rails all|first|LIST, --exclude-dev LIST (every rail by default: a\n"    \
	"  cell per pair and rail; each round loads every rail at once),\n"          \
	"  --use-cuda[=GPU], --ssh-config FILE, --launcher ssh|slurm|local,\n"        \
	"  --worker-cmd PATH, --timeout T, --min-link-pct P,\n"                       \
	"  --fanout N (workers at once, two a pair, as pdsh -f; default 256: a\n"    \
	"  round of more pairs runs in waves), --no-ssh-mux (no ssh ControlMaster)\n" \
	"  --pair-opt ARG (any other pair option, repeatable)\n"                      \
	"  default: pair's (write and read; bandwidth at 1 MiB, latency at 2 B)\n"

/* Reads a host file: one node name a line, "#" comments, blank lines;
 * key=value words may follow a name (MPI hostfiles: "node1 slots=8").
 * Lines of any length; extra words, NUL bytes, read errors and folders
 * are errors naming the file and the line (logged). 0 or -errno. */
int mx_read_hostfile(const char *path, char ***nodes_p, int *n_p);
/* A hostfile line (a name of at most 253 bytes and its key=value words)
 * and a hostfile (100,000 nodes at 160 bytes a line): past these it is
 * refused, never read until memory runs out. */
#define MX_HOSTFILE_LINE_MAX 4096
#define MX_HOSTFILE_MAX (16u << 20)
/* The nodes of a command: argv[first..] or @hostfile, not both (logged,
 * naming @cmd). A NULL-terminated list in *nodes_p. 0 or -EINVAL. */
int mx_node_args(const char *cmd, const char *hostfile, int argc, char **argv, int first,
		 char ***nodes_p, int *n_p);

#endif
