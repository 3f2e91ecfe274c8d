/* fabcheck pair: the options, their defaults, and the check of a matrix's
 * pair options. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/opts.h"
#include "core/util.h"
#include "verbs/test.h"
#include "pair/pair.h"
#include "ctl/launch_opts.h"

static int parse_tests(void *dst, const char *arg, const struct fc_opt *o)
{
	unsigned *ops = &((struct pair_cfg *)dst)->ops;
	char *copy = strdup(arg), *save = NULL, *tok;
	int err = 0;

	(void)o;
	*ops = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		enum vb_op op;

		if (vb_op_parse(tok, &op)) {
			fc_err("--test: '%s' is not a test; expected write, read or send (comma-separated)",
			       tok);
			err = -EINVAL;
			break;
		}
		*ops |= 1u << op;
	}
	if (!err && !*ops) {
		fc_err("--test: '%s' names no test; expected write, read or send", arg);
		err = -EINVAL;
	}
	free(copy);
	return err;
}

/* "DEV[:PORT]" into dev and port. */
static int parse_one_dev(const char *s, char *dev, size_t len, int *port)
{
	const char *colon = strchr(s, ':');
	size_t n = colon ? (size_t)(colon - s) : strlen(s);

	if (n == 0 || n >= len) {
		fc_err("-d: '%s' is not a device; expected DEV or DEV:PORT (e.g. mlx5_0:1)", s);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++)
		if (!(s[i] == '_' || s[i] == '-' || s[i] == '.' ||
		      (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z'))) {
			fc_err("-d: '%s' is not a device name; expected DEV or DEV:PORT (e.g. mlx5_0:1)", s);
			return -EINVAL;
		}
	memcpy(dev, s, n);
	dev[n] = '\0';
	*port = 0;
	return colon ? fc_parse_int("-d PORT", colon + 1, 1, 255, port) : 0;
}

static int parse_devs(void *dst, const char *arg, const struct fc_opt *o)
{
	struct pair_cfg *cfg = dst;
	const char *comma = strchr(arg, ',');
	char first[128];

	(void)o;
	cfg->dev_given = 1;
	if (!comma)
		return parse_one_dev(arg, cfg->dev[0], sizeof(cfg->dev[0]), &cfg->port[0]) ||
		       parse_one_dev(arg, cfg->dev[1], sizeof(cfg->dev[1]), &cfg->port[1]) ? -EINVAL : 0;
	snprintf(first, sizeof(first), "%.*s", (int)(comma - arg), arg);
	return parse_one_dev(first, cfg->dev[0], sizeof(cfg->dev[0]), &cfg->port[0]) ||
	       parse_one_dev(comma + 1, cfg->dev[1], sizeof(cfg->dev[1]), &cfg->port[1]) ? -EINVAL : 0;
}

static int parse_gids(void *dst, const char *arg, const struct fc_opt *o)
{
	struct pair_cfg *cfg = dst;
	const char *comma = strchr(arg, ',');
	char first[32];

	(void)o;
	if (!comma) {
		if (fc_parse_int("-x", arg, 0, 255, &cfg->gid[0]))
			return -EINVAL;
		cfg->gid[1] = cfg->gid[0];
		return 0;
	}
	snprintf(first, sizeof(first), "%.*s", (int)(comma - arg), arg);
	return fc_parse_int("-x", first, 0, 255, &cfg->gid[0]) ||
	       fc_parse_int("-x", comma + 1, 0, 255, &cfg->gid[1]) ? -EINVAL : 0;
}

static int parse_method(void *dst, const char *arg, const struct fc_opt *o)
{
	struct pair_cfg *cfg = dst;
	enum vb_method m;

	(void)o;
	if (vb_method_parse(arg, &m)) {
		fc_err("--method: '%s' is not a method; expected fabcheck or perftest", arg);
		return -EINVAL;
	}
	cfg->method = (int)m;
	return 0;
}

/* --bw, --lat: the one given drops the other's default. */
static int opt_bw_lat(void *dst, const char *arg, const struct fc_opt *o)
{
	struct pair_cfg *cfg = dst;
	int *mine = !strcmp(o->name, "bw") ? &cfg->bw : &cfg->lat;
	int *other = mine == &cfg->bw ? &cfg->lat : &cfg->bw;

	(void)arg;
	*mine = 1;
	*other = *other == 2 ? 0 : *other;
	return 0;
}

static int opt_perftest(void *dst, const char *arg, const struct fc_opt *o)
{
	(void)arg, (void)o;
	((struct pair_cfg *)dst)->method = VB_METHOD_PERFTEST;
	return 0;
}

static int opt_warmup(void *dst, const char *arg, const struct fc_opt *o)
{
	struct pair_cfg *cfg = dst;

	if (!arg) {
		cfg->warmup = VB_KNOB_ON; /* the fabcheck method's amount */
		return 0;
	}
	return fc_parse_int(fc_opt_what(o), arg, 1, 1000000, &cfg->warmup);
}

static int opt_timeout(void *dst, const char *arg, const struct fc_opt *o)
{
	struct pair_cfg *cfg = dst;

	if (fc_parse_duration(fc_opt_what(o), arg, 1, 3600, &cfg->timeout))
		return -EINVAL;
	cfg->launch.connect_timeout = (int)cfg->timeout;
	return 0;
}

static int opt_use_cuda(void *dst, const char *arg, const struct fc_opt *o)
{
	(void)o;
	return gdr_opts_use_cuda(&((struct pair_cfg *)dst)->mem, arg);
}

static int opt_gdr(void *dst, const char *arg, const struct fc_opt *o)
{
	struct pair_cfg *cfg = dst;

	cfg->gdr_given = 1;
	return gdr_parse_mode(fc_opt_what(o), arg, &cfg->mem.mode);
}

static int opt_inline(void *dst, const char *arg, const struct fc_opt *o)
{
	struct pair_cfg *cfg = dst;

	if (!strcmp(arg, "max")) {
		cfg->inline_max = 4096; /* capped at the QP's limit */
		return 0;
	}
	return fc_parse_int(fc_opt_what(o), arg, 0, 4096, &cfg->inline_max);
}

static int opt_lat_mode(void *dst, const char *arg, const struct fc_opt *o)
{
	(void)o;
	if (strcmp(arg, "poll") && strcmp(arg, "imm")) {
		fc_err("--lat-mode: '%s' is not a mode; expected poll or imm", arg);
		return -EINVAL;
	}
	((struct pair_cfg *)dst)->lat_mode = !strcmp(arg, "imm") ? VB_LAT_IMM : VB_LAT_POLL;
	return 0;
}

static void keep_child_arg(void *dst, const struct fc_opt *o, const char *arg);

#define FC_OPT_T struct pair_cfg
#define NO no_argument
#define ARG required_argument

const struct fc_opts pair_spec = {
	.opt = (const struct fc_opt[]){
		FCO_CALL("test", 0, parse_tests, ARG),
		FCO_CALL("bw", 0, opt_bw_lat, NO),
		FCO_CALL("lat", 0, opt_bw_lat, NO),
		FCO_SIZE("size", 's', size, 2, 1LL << 30, .what = "-s"),
		FCO_FLAG("all-sizes", 'a', all_sizes),
		FCO_SIZE("max-size", 0, max_size, 2, 1LL << 30),
		FCO_U64("iters", 'n', iters, 1, 100000000, .what = "-n"),
		FCO_DURATION("duration", 'D', duration, 0.01, 86400, .what = "-D"),
		FCO_CALL("perftest", 0, opt_perftest, NO),
		FCO_CALL("method", 0, parse_method, ARG),
		FCO_FLAG("report-gbits", 0, report_gbits),
		FCO_CALL("warm-up", 0, opt_warmup, optional_argument),
		FCO_INT("qps", 'q', qps, 1, 64, .what = "-q"),
		FCO_FLAG("bidir", 'b', bidir),
		FCO_FLAG("reverse", 0, reverse),
		FCO_INT("tx-depth", 't', tx_depth, 1, 8192, .what = "-t"),
		FCO_DURATION("interval", 0, interval, 0.01, 60),
		FCO_CALL("dev", 'd', parse_devs, ARG),
		FCO_CALL("device", 'd', parse_devs, ARG),
		FCO_CALL("gid-index", 'x', parse_gids, ARG),
		FCO_FLAG("cm", 0, cm),
		FCO_INT("tclass", 0, tclass, 0, 255),
		FCO_INT("sl", 0, sl, 0, 15),
		FCO_DOUBLE("min-gbps", 0, lim.min_gbps, 0, 1e6),
		FCO_DOUBLE("min-link-pct", 0, lim.min_link_pct, 0, 100),
		FCO_DOUBLE("max-lat-us", 0, lim.max_lat_us, 0, 1e9),
		FC_LAUNCH_OPTS(launch),
		FCO_CALL("timeout", 0, opt_timeout, ARG),
		FCO_DURATION("deadline", 0, deadline, 1, 7 * 86400),
		FCO_STR("db", 0, db),
		FCO_FLAG("no-db", 0, no_db),
		FCO_STR("baseline", 0, baseline),
		FCO_STR("save-evidence", 0, evidence_dir),
		FCO_CALL("use-cuda", 0, opt_use_cuda, optional_argument),
		FCO_CALL("gdr", 0, opt_gdr, ARG),
		FCO_FLAG("validate", 0, mem.validate),
		FCO_STR("rails", 0, rails),
		FCO_STR("exclude-dev", 0, exclude_dev),
		FCO_DOUBLE("min-loaded-pct", 0, min_loaded_pct, 0, 100),
		FCO_FLAG("loaded-only", 0, loaded_only),
		FCO_INT("sync-fd", 0, sync_fd, 3, 65535),
		FCO_INT("post-list", 0, post_list, 1, 1024),
		FCO_INT("cq-mod", 0, cq_mod, 1, 8192),
		FCO_CALL("inline", 0, opt_inline, ARG),
		FCO_INT("threads", 0, threads, 1, VB_MAX_THREADS),
		FCO_CALL("lat-mode", 0, opt_lat_mode, ARG),
		FCO_FLAG("hugepages", 0, mem.hugepages),
		FCO_JSON,
		{ 0 },
	},
	.cmd = "pair", .usage = "run 'fabcheck pair --help' for the options\n",
	.seen = keep_child_arg,
};
#undef ARG
#undef NO

void pair_cfg_defaults(struct pair_cfg *cfg)
{
	const char *env = getenv("FABCHECK_WORKER_CMD");

	memset(cfg, 0, sizeof(*cfg));
	cfg->ops = 1u << VB_WRITE | 1u << VB_READ;
	cfg->bw = cfg->lat = 2; /* 2: default, dropped by the other's flag */
	cfg->max_size = 8u << 20;
	cfg->iters = 0; /* PAIR_LAT_ITERS, bandwidth PAIR_BW_SECONDS */
	cfg->method = VB_METHOD_FABCHECK;
	cfg->warmup = VB_KNOB_DEFAULT;
	cfg->qps = 1;
	cfg->tx_depth = 128;
	cfg->timeout = 30;
	cfg->interval = 0.1;
	cfg->gid[0] = cfg->gid[1] = -1;
	cfg->tclass = cfg->sl = -1;
	cfg->inline_max = -2;
	cfg->post_list = cfg->threads = 1;
	cfg->lat_mode = -1;
	cfg->lim.min_link_pct = 90;
	cfg->launch.kind = FC_LAUNCH_SSH;
	cfg->launch.connect_timeout = 30;
	cfg->launch.worker_cmd = env && *env ? env : NULL;
	cfg->db = "fabcheck.db";
	cfg->min_loaded_pct = 90;
	cfg->sync_fd = -1;
}

/* Each option of the command line but the rail selection and the output,
 * for the pair each rail runs (--rails). */
static void keep_child_arg(void *dst, const struct fc_opt *o, const char *arg)
{
	static const char *const own[] = { "rails", "exclude-dev", "min-loaded-pct",
					   "loaded-only", "sync-fd", "db", "no-db", "json",
					   "dev", "device", "save-evidence" };
	json_t *args = ((struct pair_cfg *)dst)->child_args;
	char buf[512];

	for (size_t i = 0; i < FC_ARRAY_SIZE(own); i++)
		if (!strcmp(o->name, own[i]))
			return;
	if (fc_opt_has_arg(o) == optional_argument) {
		snprintf(buf, sizeof(buf), "--%s%s%s", o->name, arg ? "=" : "", arg ? arg : "");
		json_array_append_new(args, json_string(buf));
		return;
	}
	snprintf(buf, sizeof(buf), "--%s", o->name);
	json_array_append_new(args, json_string(buf));
	if (arg)
		json_array_append_new(args, json_string(arg));
}

/* The launch options of one parsed option, into @l. */
static void note_launch(const struct fc_opt *o, const char *arg, struct pair_launch_opts *l)
{
	if (!strcmp(o->name, "worker-cmd"))
		l->worker_cmd = arg;
	else if (!strcmp(o->name, "launcher"))
		l->launcher = arg;
	else if (!strcmp(o->name, "ssh-config"))
		l->ssh_config = arg;
	else if (!strcmp(o->name, "save-evidence"))
		l->evidence_dir = arg;
	else if (!strcmp(o->name, "sync-fd"))
		l->sync_fd = arg;
}

/* True when @p points into the string @s ("--size=4K" holds its value). */
static int within(const char *p, const char *s)
{
	uintptr_t a = (uintptr_t)p, b = (uintptr_t)s;

	return a > b && a <= b + strlen(s);
}

int pair_opts_check(const char *what, const char *const *args, int n,
		    struct pair_launch_opts *l)
{
	const char **argv = calloc((size_t)n + 2, sizeof(*argv));
	struct fc_opts spec = pair_spec;
	struct fc_opts_table t;
	const struct fc_opt *o;
	struct fc_ctx ctx = { 0 };
	struct pair_cfg cfg;
	int c, rc = 0;

	spec.seen = NULL; /* nothing kept for rails here */
	if (!argv || fc_opts_table(&spec, "+", &t)) {
		free(argv);
		return -ENOMEM;
	}
	memset(l, 0, sizeof(*l));
	argv[0] = "pair";
	memcpy(argv + 1, args, (size_t)n * sizeof(*argv));
	pair_cfg_defaults(&cfg);
	optind = 0; /* a fresh scan: getopt_long reorders argv, our copy */
	opterr = 0;
	for (int at = 1; !rc && (c = getopt_long(n + 1, (char **)argv, t.shorts, t.longs,
						 NULL)) != -1; at = optind) {
		const char *sep = optarg && !within(optarg, argv[at]) ? "' '" : "";

		o = c == '?' ? NULL : fc_opts_find(&spec, c);
		if (!o) {
			fc_err("%s: '%s' is not an option of 'fabcheck pair' (or lacks its value)",
			       what, argv[at]);
			rc = -EINVAL;
		} else if (!strcmp(o->name, "db") || !strcmp(o->name, "no-db") ||
			   o->kind == FC_OPT_JSON) {
			fc_err("%s: '%s' is the matrix's to set, not a pair option to keep", what,
			       argv[at]);
			rc = -EINVAL;
		} else if (fc_opt_take(&ctx, &spec, o, optarg, &cfg)) {
			fc_err("%s: '%s%s%s' is refused (the reason above)", what, argv[at], sep,
			       *sep ? optarg : "");
			rc = -EINVAL;
		} else {
			note_launch(o, optarg, l);
		}
	}
	if (!rc && optind <= n) {
		fc_err("%s: '%s' is not an option of 'fabcheck pair'", what, argv[optind]);
		rc = -EINVAL;
	}
	free(argv);
	optind = 1;
	opterr = 1;
	return rc;
}
