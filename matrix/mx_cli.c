/* Options of `matrix` and `tui` (see mx_cli.h). */
#include "matrix/mx_cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/log.h"
#include "core/sched.h"
#include "core/util.h"
#include "ctl/scale.h"

enum {
	OPT_HOSTFILE = 256,
	OPT_DB,
	OPT_RESUME,
	OPT_BOTH,
	OPT_RETEST,
	OPT_MIN_GBPS,
	OPT_MAX_LAT,
	OPT_RACK_PCT,
	OPT_ASYM_PCT,
	OPT_DEADLINE,
	OPT_RUN,
	OPT_ONCE,
	OPT_MAX_ITER,
	OPT_PAIR_OPT,
	OPT_IMPORT,
	OPT_PACE,
	OPT_EVIDENCE,
	OPT_RAILS,
	OPT_EXCLUDE_DEV,
	OPT_SCREEN,
	OPT_FULL,
	OPT_MAX_ROUNDS,
	OPT_FANOUT,
	OPT_NO_MUX,
	/* Passed through to `pair` as they are. */
	OPT_P_TEST,
	OPT_P_BW,
	OPT_P_LAT,
	OPT_P_REVERSE,
	OPT_P_CM,
	OPT_P_CUDA,
	OPT_P_SSH,
	OPT_P_LAUNCHER,
	OPT_P_TIMEOUT,
	OPT_P_LINK_PCT,
	OPT_P_WORKER_CMD,
	OPT_P_INTERVAL,
	OPT_P_MAX_SIZE,
	OPT_P_TCLASS,
	OPT_P_SL,
};

static const struct option long_opts[] = {
	{ .name = "json", .has_arg = no_argument, .val = 'j' },
	{ .name = "hostfile", .has_arg = required_argument, .val = OPT_HOSTFILE },
	{ .name = "db", .has_arg = required_argument, .val = OPT_DB },
	{ .name = "resume", .has_arg = required_argument, .val = OPT_RESUME },
	{ .name = "both-directions", .has_arg = no_argument, .val = OPT_BOTH },
	{ .name = "retest", .has_arg = no_argument, .val = OPT_RETEST },
	{ .name = "min-gbps", .has_arg = required_argument, .val = OPT_MIN_GBPS },
	{ .name = "max-lat-us", .has_arg = required_argument, .val = OPT_MAX_LAT },
	{ .name = "min-rack-pct", .has_arg = required_argument, .val = OPT_RACK_PCT },
	{ .name = "asym-pct", .has_arg = required_argument, .val = OPT_ASYM_PCT },
	{ .name = "deadline", .has_arg = required_argument, .val = OPT_DEADLINE },
	{ .name = "run", .has_arg = required_argument, .val = OPT_RUN },
	{ .name = "once", .has_arg = no_argument, .val = OPT_ONCE },
	{ .name = "max-iterations", .has_arg = required_argument, .val = OPT_MAX_ITER },
	{ .name = "pair-opt", .has_arg = required_argument, .val = OPT_PAIR_OPT },
	{ .name = "import", .has_arg = required_argument, .val = OPT_IMPORT },
	{ .name = "pace", .has_arg = required_argument, .val = OPT_PACE },
	{ .name = "save-evidence", .has_arg = required_argument, .val = OPT_EVIDENCE },
	{ .name = "rails", .has_arg = required_argument, .val = OPT_RAILS },
	{ .name = "exclude-dev", .has_arg = required_argument, .val = OPT_EXCLUDE_DEV },
	{ .name = "screen", .has_arg = no_argument, .val = OPT_SCREEN },
	{ .name = "full", .has_arg = no_argument, .val = OPT_FULL },
	{ .name = "max-rounds", .has_arg = required_argument, .val = OPT_MAX_ROUNDS },
	{ .name = "fanout", .has_arg = required_argument, .val = OPT_FANOUT },
	{ .name = "no-ssh-mux", .has_arg = no_argument, .val = OPT_NO_MUX },
	{ .name = "test", .has_arg = required_argument, .val = OPT_P_TEST },
	{ .name = "bw", .has_arg = no_argument, .val = OPT_P_BW },
	{ .name = "lat", .has_arg = no_argument, .val = OPT_P_LAT },
	{ .name = "size", .has_arg = required_argument, .val = 's' },
	{ .name = "all-sizes", .has_arg = no_argument, .val = 'a' },
	{ .name = "iters", .has_arg = required_argument, .val = 'n' },
	{ .name = "duration", .has_arg = required_argument, .val = 'D' },
	{ .name = "qps", .has_arg = required_argument, .val = 'q' },
	{ .name = "tx-depth", .has_arg = required_argument, .val = 't' },
	{ .name = "bidir", .has_arg = no_argument, .val = 'b' },
	{ .name = "reverse", .has_arg = no_argument, .val = OPT_P_REVERSE },
	{ .name = "device", .has_arg = required_argument, .val = 'd' },
	{ .name = "gid-index", .has_arg = required_argument, .val = 'x' },
	{ .name = "cm", .has_arg = no_argument, .val = OPT_P_CM },
	{ .name = "tclass", .has_arg = required_argument, .val = OPT_P_TCLASS },
	{ .name = "sl", .has_arg = required_argument, .val = OPT_P_SL },
	{ .name = "use-cuda", .has_arg = optional_argument, .val = OPT_P_CUDA },
	{ .name = "ssh-config", .has_arg = required_argument, .val = OPT_P_SSH },
	{ .name = "launcher", .has_arg = required_argument, .val = OPT_P_LAUNCHER },
	{ .name = "timeout", .has_arg = required_argument, .val = OPT_P_TIMEOUT },
	{ .name = "min-link-pct", .has_arg = required_argument, .val = OPT_P_LINK_PCT },
	{ .name = "worker-cmd", .has_arg = required_argument, .val = OPT_P_WORKER_CMD },
	{ .name = "interval", .has_arg = required_argument, .val = OPT_P_INTERVAL },
	{ .name = "max-size", .has_arg = required_argument, .val = OPT_P_MAX_SIZE },
	{ .name = "dev", .has_arg = required_argument, .val = 'd' },
	{ 0 },
};

static void pass(struct mx_cli *c, const char *opt, const char *arg)
{
	json_array_append_new(c->pair_args, json_string(opt));
	if (arg)
		json_array_append_new(c->pair_args, json_string(arg));
}

/* The pass-through options: 1 when @opt was one, 0 when not, <0 bad. */
static int pass_through(struct mx_cli *c, int opt, const char *arg)
{
	static const struct {
		int opt;
		const char *name;
	} map[] = {
		{ OPT_P_TEST, "--test" },     { OPT_P_BW, "--bw" },	     { OPT_P_LAT, "--lat" },
		{ 's', "-s" },		      { 'a', "-a" },		     { 'n', "-n" },
		{ 'D', "-D" },		      { 'q', "-q" },		     { 't', "-t" },
		{ 'b', "-b" },		      { OPT_P_REVERSE, "--reverse" }, { 'd', "-d" },
		{ 'x', "-x" },		      { OPT_P_CM, "--cm" },	     { OPT_P_SSH, "--ssh-config" },
		{ OPT_P_LAUNCHER, "--launcher" }, { OPT_P_TIMEOUT, "--timeout" },
		{ OPT_P_LINK_PCT, "--min-link-pct" }, { OPT_P_WORKER_CMD, "--worker-cmd" },
		{ OPT_P_INTERVAL, "--interval" }, { OPT_P_MAX_SIZE, "--max-size" },
		{ OPT_P_TCLASS, "--tclass" }, { OPT_P_SL, "--sl" },
	};
	char buf[256];
	int v;

	if (opt == OPT_P_CUDA) {
		snprintf(buf, sizeof(buf), "--use-cuda%s%s", arg ? "=" : "", arg ? arg : "");
		pass(c, buf, NULL);
		return 1;
	}
	/* Checked here too, so that a bad value stops the matrix at once. */
	if ((opt == OPT_P_TCLASS && fc_parse_int("--tclass", arg, 0, 255, &v)) ||
	    (opt == OPT_P_SL && fc_parse_int("--sl", arg, 0, 15, &v)))
		return -1;
	if (opt == OPT_PAIR_OPT) {
		pass(c, arg, NULL);
		return 1;
	}
	for (size_t i = 0; i < FC_ARRAY_SIZE(map); i++) {
		if (map[i].opt != opt)
			continue;
		if (opt == OPT_P_TEST || opt == OPT_P_BW || opt == OPT_P_LAT || opt == 's' ||
		    opt == 'a')
			c->pair_test_given = 1;
		pass(c, map[i].name, arg);
		return 1;
	}
	return 0;
}

static int parse_run_id(const char *opt, const char *text, int64_t *out_p)
{
	uint64_t v;

	if (fc_parse_u64(opt, text, 1, INT64_MAX, &v))
		return -EINVAL;
	*out_p = (int64_t)v;
	return 0;
}

/* Options of the matrix itself; 1 when @opt was one, <0 when bad. */
static int own_option(struct fc_ctx *ctx, struct mx_cli *c, int opt, const char *arg, int which)
{
	switch (opt) {
	case 'j': ctx->json = 1; return 1;
	case OPT_HOSTFILE: c->hostfile = arg; return 1;
	case OPT_DB: c->db = arg; return 1;
	case OPT_BOTH: c->both = 1; return 1;
	case OPT_RETEST: c->retest = 1; return 1;
	case OPT_RESUME:
		return which == MX_CLI_MATRIX && !parse_run_id("--resume", arg, &c->resume) ? 1 : -1;
	case OPT_RUN:
		return which == MX_CLI_TUI && !parse_run_id("--run", arg, &c->follow) ? 1 : -1;
	case OPT_ONCE:
		c->once = 1;
		return which == MX_CLI_TUI ? 1 : -1;
	case OPT_MAX_ITER:
		return which == MX_CLI_TUI &&
		       !fc_parse_int("--max-iterations", arg, 1, 1000000, &c->max_iter) ? 1 : -1;
	case OPT_MIN_GBPS:
		if (fc_parse_double("--min-gbps", arg, 0, 1e5, &c->opts.min_gbps))
			return -1;
		pass(c, "--min-gbps", arg);
		return 1;
	case OPT_MAX_LAT:
		if (fc_parse_double("--max-lat-us", arg, 0, 1e9, &c->opts.max_lat_us))
			return -1;
		pass(c, "--max-lat-us", arg);
		return 1;
	case OPT_RACK_PCT:
		return fc_parse_double("--min-rack-pct", arg, 0, 100, &c->opts.min_rack_pct) ? -1 : 1;
	case OPT_ASYM_PCT:
		return fc_parse_double("--asym-pct", arg, 0, 100, &c->opts.asym_pct) ? -1 : 1;
	case OPT_IMPORT:
		c->import = arg;
		return which == MX_CLI_MATRIX ? 1 : -1;
	case OPT_PACE:
		return which == MX_CLI_MATRIX &&
		       !fc_parse_duration("--pace", arg, 0, 3600, &c->pace_s) ? 1 : -1;
	case OPT_SCREEN:
		c->screen = 1;
		return which == MX_CLI_MATRIX ? 1 : -1;
	case OPT_FULL:
		c->full = 1;
		return which == MX_CLI_MATRIX ? 1 : -1;
	case OPT_MAX_ROUNDS:
		return which == MX_CLI_MATRIX &&
		       !fc_parse_int("--max-rounds", arg, 1, 4096, &c->max_rounds) ? 1 : -1;
	case OPT_FANOUT:
		return fc_fanout_parse(arg, &c->fanout) ? -1 : 1;
	case OPT_NO_MUX:
		c->no_mux = 1;
		return 1;
	case OPT_DEADLINE:
		return fc_parse_duration("--deadline", arg, 1, 86400, &c->deadline_s) ? -1 : 1;
	case OPT_EVIDENCE:
		c->evidence_dir = arg;
		return which == MX_CLI_MATRIX ? 1 : -1;
	case OPT_RAILS:
		if (!*arg) {
			fc_err("--rails: empty; expected all or a comma-separated list of rails");
			return -1;
		}
		c->rails = arg;
		pass(c, "--rails", arg);
		pass(c, "--loaded-only", NULL);
		return 1;
	case OPT_EXCLUDE_DEV:
		c->exclude_dev = arg;
		pass(c, "--exclude-dev", arg);
		return 1;
	}
	return 0;
}

/*
 * The node of one hostfile line (@len bytes, comment and newline included),
 * NUL-terminated in place: *name_p is NULL for a blank or comment line.
 * After the name only key=value words (an MPI hostfile's "slots=8") may
 * follow. 0, or -EINVAL after logging what is wrong with the line.
 */
static int hostfile_line(const char *path, int lineno, char *line, size_t len,
			 char **name_p)
{
	char *hash, *w, *save = NULL;

	*name_p = NULL;
	if (memchr(line, 0, len)) {
		fc_err("--hostfile %s line %d: holds a NUL byte; give a text file with one node "
		       "name a line", path, lineno);
		return -EINVAL;
	}
	hash = strchr(line, '#');
	if (hash)
		*hash = 0;
	w = strtok_r(line, " \t\r\n\v\f", &save);
	if (!w)
		return 0;
	if (!fc_valid_node_name(w)) {
		fc_err("--hostfile %s line %d: '%s' is not a node name; expected a host name "
		       "(letters, digits, '-', '_', '.')", path, lineno, w);
		return -EINVAL;
	}
	*name_p = w;
	while ((w = strtok_r(NULL, " \t\r\n\v\f", &save))) {
		if (!strchr(w, '=') || *w == '=') {
			fc_err("--hostfile %s line %d: '%s' after the node name '%s'; give one node "
			       "a line (only key=value words such as slots=8 may follow it)",
			       path, lineno, w, *name_p);
			return -EINVAL;
		}
	}
	return 0;
}

static FILE *hostfile_open(const char *path)
{
	FILE *f = fopen(path, "r");
	struct stat sb;

	if (!f) {
		fc_err("--hostfile %s: %m; give a file with one node name a line", path);
		return NULL;
	}
	if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
		fc_err("--hostfile %s: is a directory; give a file with one node name a line",
		       path);
		fclose(f);
		errno = EISDIR;
		return NULL;
	}
	return f;
}

int mx_read_hostfile(const char *path, char ***nodes_p, int *n_p)
{
	FILE *f = hostfile_open(path);
	char **nodes = NULL, *line = NULL, *name;
	size_t cap = 0;
	ssize_t len;
	int n = 0, lineno = 0;

	if (!f)
		return -errno;
	while ((len = getline(&line, &cap, f)) >= 0) {
		char **nn;

		if (hostfile_line(path, ++lineno, line, (size_t)len, &name))
			goto out_free;
		if (!name)
			continue;
		nn = realloc(nodes, ((size_t)n + 2) * sizeof(*nn));
		if (!nn || !(nn[n] = strdup(name))) {
			fc_err("--hostfile %s: out of memory at line %d", path, lineno);
			nodes = nn ? nn : nodes;
			goto out_free;
		}
		nodes = nn;
		nodes[++n] = NULL;
	}
	if (ferror(f)) {
		fc_err("--hostfile %s: cannot read line %d: %m", path, lineno + 1);
		goto out_free;
	}
	free(line);
	fclose(f);
	*nodes_p = nodes;
	*n_p = n;
	return 0;

out_free:
	while (n--)
		free(nodes[n]);
	free(nodes);
	free(line);
	fclose(f);
	return -EINVAL;
}

static int check_nodes(struct mx_cli *c)
{
	if (c->n > FC_SCHED_MAX_NODES) {
		fc_err("%d nodes: at most %d in one matrix; split the rack", c->n,
		       FC_SCHED_MAX_NODES);
		return -EINVAL;
	}
	return 0;
}

/* --rails picks the ports itself: not with -d; --exclude-dev needs it. */
static int check_rails(const struct mx_cli *c)
{
	size_t i;
	json_t *v;

	if (c->exclude_dev && !c->rails) {
		fc_err("--exclude-dev chooses among rails; add --rails all");
		return -EINVAL;
	}
	json_array_foreach(c->pair_args, i, v)
		if (c->rails && !strcmp(json_string_value(v), "-d")) {
			fc_err("-d names one port and --rails the rails; give one of them");
			return -EINVAL;
		}
	return 0;
}

int mx_cli_parse(struct fc_ctx *ctx, struct mx_cli *c, int argc, char **argv, int which,
		 const char *usage)
{
	struct fc_mx_opts dflt = FC_MX_OPTS_DEFAULT;
	int opt, rc;

	memset(c, 0, sizeof(*c));
	c->opts = dflt;
	c->deadline_s = 300;
	c->pair_args = json_array();
	optind = 1;
	opterr = 1;
	while ((opt = fc_getopt(argc, argv, "js:an:D:q:t:bd:x:", long_opts)) != -1) {
		rc = own_option(ctx, c, opt, optarg, which);
		if (rc == 0)
			rc = pass_through(c, opt, optarg);
		if (rc <= 0) {
			if (rc == 0 || opt == '?')
				fprintf(stderr, "%s", usage);
			else if (opt == OPT_RESUME || opt == OPT_RUN || opt == OPT_ONCE ||
				 opt == OPT_MAX_ITER || opt == OPT_IMPORT || opt == OPT_PACE ||
				 opt == OPT_SCREEN || opt == OPT_FULL)
				fc_err("%s: option '%s' is not one of this command's; see --help",
				       argv[0], argv[optind - 1]);
			return FC_EXIT_USAGE;
		}
	}
	if (mx_node_args(argv[0], c->hostfile, argc, argv, optind, &c->nodes, &c->n))
		return FC_EXIT_USAGE;
	if (check_nodes(c))
		return FC_EXIT_USAGE;
	if (c->screen && (c->full || c->import)) {
		fc_err("%s: --screen %s; choose one", argv[0],
		       c->full ? "and --full are two ways to run a matrix" :
				 "runs pairs, --import reads recorded ones");
		return FC_EXIT_USAGE;
	}
	if (c->max_rounds && !c->screen) {
		fc_err("%s: --max-rounds bounds the screen; add --screen", argv[0]);
		return FC_EXIT_USAGE;
	}
	return check_rails(c) ? FC_EXIT_USAGE : 0;
}

void mx_cli_release(struct mx_cli *c)
{
	for (int i = 0; i < c->n; i++)
		free(c->nodes[i]);
	free(c->nodes);
	json_decref(c->pair_args);
	memset(c, 0, sizeof(*c));
}

int mx_node_args(const char *cmd, const char *hostfile, int argc, char **argv, int first,
		 char ***nodes_p, int *n_p)
{
	char **nodes;
	int n = argc - first;

	if (hostfile && n > 0) {
		fc_err("%s: give nodes or --hostfile, not both", cmd);
		return -EINVAL;
	}
	if (hostfile) {
		if (mx_read_hostfile(hostfile, nodes_p, n_p))
			return -EINVAL;
	} else {
		nodes = calloc((size_t)n + 1, sizeof(*nodes));
		if (!nodes)
			return -ENOMEM;
		for (int i = 0; i < n; i++)
			nodes[i] = argv[first + i];
		for (int i = 0; i < n; i++)
			if (!(nodes[i] = strdup(nodes[i]))) {
				for (int j = 0; j < i; j++)
					free(nodes[j]);
				free(nodes);
				return -ENOMEM;
			}
		*nodes_p = nodes;
		*n_p = n;
	}
	return fc_check_nodes(cmd, *nodes_p, *n_p, NULL);
}
