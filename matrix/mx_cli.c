/* Options of `matrix` and `tui` (see mx_cli.h). */
#include "matrix/mx_cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/log.h"
#include "core/opts.h"
#include "core/pattern.h"
#include "core/sched.h"
#include "core/util.h"
#include "matrix/mx_model.h"
#include "ctl/launch_opts.h"
#include "ctl/scale.h"

/* --test, --bw, --lat, -s, -a: the pairs' test is chosen (then passed on). */
static int mark_test(void *dst, const char *arg, const struct fc_opt *o)
{
	(void)arg, (void)o;
	((struct mx_cli *)dst)->pair_test_given = 1;
	return 0;
}

int mx_pass_rails(void *dst, const char *arg, const struct fc_opt *o)
{
	json_t *args = *FC_OPT_AT(dst, o, json_t *);

	fc_opt_pass(args, o, arg);
	if (strcmp(arg, "first"))
		json_array_append_new(args, json_string("--loaded-only"));
	return 0;
}

/* Whether -d is among the pair options @args. */
static int dev_given(const json_t *args)
{
	size_t i;
	json_t *v;

	json_array_foreach(args, i, v)
		if (!strcmp(json_string_value(v), "-d") || !strcmp(json_string_value(v), "--dev") ||
		    !strcmp(json_string_value(v), "--device"))
			return 1;
	return 0;
}

int mx_cli_rails_default(const struct mx_cli *c)
{
	return !c->rails && !dev_given(c->pair_args);
}

/* --rails: a cell per pair and rail, each round loading every rail at once. */
static int opt_rails(void *dst, const char *arg, const struct fc_opt *o)
{
	if (!*arg) {
		fc_err("--rails: empty; expected all or a comma-separated list of rails");
		return -EINVAL;
	}
	((struct mx_cli *)dst)->rails = arg;
	return mx_pass_rails(dst, arg, o);
}

#define FC_OPT_T struct mx_cli
#define MATRIX (1u << MX_CLI_MATRIX)
#define TUI (1u << MX_CLI_TUI)
#define NO no_argument
#define ARG required_argument
#define PASSED .flags = FC_OPT_PASSED
static const struct fc_opt mx_opts[] = {
	FCO_JSON,
	FCO_STR("hostfile", 0, hostfile),
	FCO_STR("db", 0, db),
	FCO_ID("resume", 0, resume, .only = MATRIX),
	FCO_FLAG("both-directions", 0, both),
	FCO_FLAG("retest", 0, retest),
	FCO_DOUBLE("min-gbps", 0, opts.min_gbps, 0, MX_MIN_GBPS_MAX, PASSED),
	FCO_DOUBLE("max-lat-us", 0, opts.max_lat_us, 0, MX_MAX_LAT_US_MAX, PASSED),
	FCO_DOUBLE("min-rack-pct", 0, opts.min_rack_pct, 0, 100),
	FCO_DOUBLE("asym-pct", 0, opts.asym_pct, 0, 100),
	FCO_DURATION("deadline", 0, deadline_s, 1, MX_DEADLINE_MAX),
	FCO_ID("run", 0, follow, .only = TUI),
	FCO_FLAG("once", 0, once, .only = TUI),
	FCO_INT("max-iterations", 0, max_iter, 1, 1000000, .only = TUI),
	FCO_STR("import", 0, import, .only = MATRIX),
	FCO_DURATION("pace", 0, pace_s, 0, 3600, .only = MATRIX),
	FCO_STR("save-evidence", 0, evidence_dir, .only = MATRIX),
	FCO_STR("baseline", 0, baseline, .only = MATRIX),
	FCO_STR("pattern", 0, pattern, .only = MATRIX),
	FCO_INT("fan-in", 0, fan_in, 1, FC_SCHED_MAX_NODES, .only = MATRIX),
	FCO_INT("group", 0, group, 2, FC_SCHED_MAX_NODES, .only = MATRIX),
	FCO_CALL_AT("rails", 0, opt_rails, pair_args, json_t *),
	FCO_STR("exclude-dev", 0, exclude_dev, PASSED),
	FCO_FLAG("screen", 0, screen, .only = MATRIX),
	FCO_FLAG("full", 0, full, .only = MATRIX),
	FCO_INT("max-rounds", 0, max_rounds, 1, MX_MAX_ROUNDS_MAX, .only = MATRIX),
	FCO_CALL_AT("fanout", 0, fc_fanout_opt, fanout, int),
	FCO_FLAG("no-ssh-mux", 0, no_mux),
	FC_DRAIN_OPTS(drain, .only = MATRIX),
	/* Passed through to `pair` as they are. */
	FCO_CALL("test", 0, mark_test, ARG, PASSED),
	FCO_CALL("bw", 0, mark_test, NO, PASSED),
	FCO_CALL("lat", 0, mark_test, NO, PASSED),
	FCO_CALL("size", 's', mark_test, ARG, PASSED, .what = "-s"),
	FCO_CALL("all-sizes", 'a', mark_test, NO, PASSED, .what = "-a"),
	FCO_PASS("iters", 'n', ARG, .what = "-n"),
	FCO_PASS("duration", 'D', ARG, .what = "-D"),
	FCO_PASS("bidir", 'b', NO, .what = "-b"),
	FCO_PASS("reverse", 0, NO),
	FCO_INT_PASS("tclass", 0, 0, 255),
	FCO_INT_PASS("sl", 0, 0, 15),
	FCO_PASS("launcher", 0, ARG),
	FCO_PASS("interval", 0, ARG),
	FCO_PASS("max-size", 0, ARG),
	MX_PAIR_PASS_OPTS,
	{ 0 },
};
#undef PASSED
#undef ARG
#undef NO
#undef TUI
#undef MATRIX
#undef FC_OPT_T

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
	/* a file, or a pipe (--hostfile <(scontrol show hostnames)); no device */
	if (fstat(fileno(f), &sb) || !(S_ISREG(sb.st_mode) || S_ISFIFO(sb.st_mode))) {
		fc_err("--hostfile %s: is not a regular file (a device?); give a file with one node name a line",
		       path);
		fclose(f);
		errno = EINVAL;
		return NULL;
	}
	return f;
}

/* The next line of @f with its newline (NUL bytes kept) into @buf (@cap
 * bytes), NUL ended: its length, -1 at the end, -2 when it does not fit. */
static ssize_t line_read(FILE *f, char *buf, size_t cap)
{
	size_t n = 0;
	int c;

	while ((c = getc(f)) != EOF) {
		if (n + 1 >= cap)
			return -2;
		buf[n++] = (char)c;
		if (c == '\n')
			break;
	}
	buf[n] = 0;
	return n ? (ssize_t)n : -1;
}

int mx_read_hostfile(const char *path, char ***nodes_p, int *n_p)
{
	FILE *f = hostfile_open(path);
	char **nodes = NULL, line[MX_HOSTFILE_LINE_MAX + 2], *name;
	size_t len, total = 0;
	ssize_t got;
	int n = 0, lineno = 0, cap = 0;

	if (!f)
		return -errno;
	while ((got = line_read(f, line, sizeof(line))) != -1) {
		len = got < 0 ? sizeof(line) : (size_t)got;
		total += len;
		if (got == -2 || total > MX_HOSTFILE_MAX) {
			fc_err("--hostfile %s line %d: %s; give one node name a line", path, lineno + 1,
			       total > MX_HOSTFILE_MAX ? "the file is over 16 MiB" :
							 "longer than 4096 bytes");
			goto out_free;
		}
		if (hostfile_line(path, ++lineno, line, len, &name))
			goto out_free;
		if (!name)
			continue;
		/* grown by doubling (fc_grow): one realloc a line copied the
		 * list each time, quadratic in a 200,000-line hostfile */
		if (fc_grow((void **)&nodes, &cap, n + 1, sizeof(*nodes)) ||
		    !(nodes[n] = strdup(name))) {
			fc_err("--hostfile %s: out of memory at line %d", path, lineno);
			goto out_free;
		}
		nodes[++n] = NULL;
	}
	if (ferror(f)) {
		fc_err("--hostfile %s: cannot read line %d: %m", path, lineno + 1);
		goto out_free;
	}
	fclose(f);
	*nodes_p = nodes;
	*n_p = n;
	return 0;

out_free:
	while (n--)
		free(nodes[n]);
	free(nodes);
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

/* Every rail unless -d or --rails first; --rails picks the ports itself:
 * not with -d; --exclude-dev chooses among rails. */
static int check_rails(const struct mx_cli *c)
{
	int first = c->rails && !strcmp(c->rails, "first");

	if (c->exclude_dev && (first || (!c->rails && dev_given(c->pair_args)))) {
		fc_err("--exclude-dev chooses among rails; %s", first ?
		       "--rails first tests the first active port only" : "-d names one port");
		return -EINVAL;
	}
	if (c->rails && dev_given(c->pair_args)) {
		fc_err("-d names one port and --rails the rails; give one of them");
		return -EINVAL;
	}
	return 0;
}

/* --pattern NAME with its --fan-in or --group: each where it means something. */
static int check_pattern(const struct mx_cli *c, const char *cmd)
{
	enum fc_pattern p = FC_PAT_PAIRS;

	if (c->pattern && fc_pattern_parse(c->pattern, &p)) {
		fc_err("%s --pattern: '%s' is not a pattern; give pairs, incast, fanout, bisection "
		       "or alltoall", cmd, c->pattern);
		return -EINVAL;
	}
	if (c->fan_in && p != FC_PAT_INCAST && p != FC_PAT_FANOUT) {
		fc_err("%s: --fan-in K is the senders of an incast (or receivers of a fanout); add "
		       "--pattern incast or --pattern fanout", cmd);
		return -EINVAL;
	}
	if (c->group && p != FC_PAT_ALLTOALL) {
		fc_err("%s: --group K is the size of an all-to-all group; add --pattern alltoall",
		       cmd);
		return -EINVAL;
	}
	if (p != FC_PAT_PAIRS && (c->screen || c->import || c->resume || c->retest)) {
		fc_err("%s --pattern %s: a pattern runs its own rounds; drop %s", cmd, c->pattern,
		       c->screen ? "--screen" : c->import ? "--import" : c->resume ? "--resume" :
		       "--retest");
		return -EINVAL;
	}
	return 0;
}

int mx_cli_parse(struct fc_ctx *ctx, struct mx_cli *c, int argc, char **argv, int which,
		 const char *usage)
{
	struct fc_mx_opts dflt = FC_MX_OPTS_DEFAULT;
	const struct fc_opts spec = { .opt = mx_opts, .cmd = argv[0], .usage = usage,
				      .pass_at = FC_OPTS_PASS_AT(struct mx_cli, pair_args),
				      .variant = 1u << which };

	memset(c, 0, sizeof(*c));
	c->opts = dflt;
	c->deadline_s = 300;
	c->pair_args = json_array();
	if (fc_opts_parse(ctx, &spec, c, argc, argv))
		return FC_EXIT_USAGE;
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
	if (c->baseline && fc_bl_read_file(&c->bl, c->baseline))
		return FC_EXIT_USAGE;
	if (check_pattern(c, argv[0]))
		return FC_EXIT_USAGE;
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
	fc_bl_release(&c->bl);
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
