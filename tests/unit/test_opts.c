/* Unit tests of the table-driven option parser (core/opts.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/opts.h"

struct args {
	int flag, count, calls;
	uint64_t size, u;
	int64_t run;
	double pct, secs;
	const char *name, *last_call_arg;
	json_t *pass;
};

/* The last error logged, for the assertions. */
static char last_err[512];
static int n_err;

static void keep_err(enum fc_log_level lvl, const char *msg)
{
	if (lvl != FC_LOG_ERR)
		return;
	snprintf(last_err, sizeof(last_err), "%s", msg);
	n_err++;
}

static int call_even(void *dst, const char *arg, const struct fc_opt *o)
{
	struct args *a = dst;

	a->calls++;
	a->last_call_arg = arg;
	if (arg && strlen(arg) % 2) {
		fc_err("%s: '%s' has an odd length", fc_opt_what(o), arg);
		return -EINVAL;
	}
	return 0;
}

#define FC_OPT_T struct args
static const struct fc_opt test_opts[] = {
	FCO_FLAG("flag", 'f', flag),
	FCO_INT("count", 'c', count, 1, 10, .what = "-c"),
	FCO_SIZE("size", 's', size, 2, 1 << 20),
	FCO_U64("big", 0, u, 5, 7),
	FCO_ID("run", 0, run),
	FCO_DOUBLE("pct", 0, pct, 0, 100),
	FCO_DURATION("wait", 'w', secs, 1, 600),
	FCO_STR("name", 'n', name),
	FCO_CALL("even", 'e', call_even, required_argument),
	FCO_CALL("maybe", 0, call_even, optional_argument),
	FCO_PASS("cm", 0, no_argument),
	FCO_PASS("dev", 'd', required_argument, .what = "-d"),
	FCO_PASS("device", 'd', required_argument, .what = "-d"),
	FCO_PASS("pair-opt", 0, required_argument, .flags = FC_OPT_PASS_VALUE),
	FCO_INT("tclass", 0, count, 0, 255, .flags = FC_OPT_PASSED | FC_OPT_CHECK),
	FCO_DOUBLE("min-gbps", 0, pct, 0, 1e5, .flags = FC_OPT_PASSED),
	FCO_PASS("use-cuda", 0, optional_argument),
	FCO_FLAG("once", 0, flag, .only = 2),
	FCO_JSON,
	{ 0 },
};
#undef FC_OPT_T

static const struct fc_opts test_spec = { .opt = test_opts, .cmd = "test",
					  .pass_at = FC_OPTS_PASS_AT(struct args, pass),
					  .variant = 1 };

/* Parses the words of @line (at most 30, blank-separated) into @a. */
static int parse(const struct fc_opts *spec, struct fc_ctx *ctx, struct args *a, char *line)
{
	char *argv[32] = { "test" }, *save = NULL;
	int argc = 1;

	for (char *w = strtok_r(line, " ", &save); w && argc < 31; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	last_err[0] = 0;
	n_err = 0;
	return fc_opts_parse(ctx, spec, a, argc, argv);
}

static int setup(void **state)
{
	struct args *a = calloc(1, sizeof(*a));

	a->pass = json_array();
	fc_log_hook = keep_err;
	*state = a;
	return 0;
}

static int teardown(void **state)
{
	struct args *a = *state;

	json_decref(a->pass);
	free(a);
	fc_log_hook = NULL;
	return 0;
}

static void test_values(void **state)
{
	struct args *a = *state;
	struct fc_ctx ctx = { 0 };
	char line[] = "-f -c 3 --size 64K --big 6 --run 12 --pct=42.5 -w 2m -n node1 --json";

	assert_int_equal(parse(&test_spec, &ctx, a, line), 0);
	assert_int_equal(a->flag, 1);
	assert_int_equal(a->count, 3);
	assert_int_equal(a->size, 65536);
	assert_int_equal(a->u, 6);
	assert_int_equal(a->run, 12);
	assert_true(a->pct == 42.5);
	assert_true(a->secs == 120);
	assert_string_equal(a->name, "node1");
	assert_int_equal(ctx.json, 1);
	assert_int_equal(n_err, 0);
}

/* Lines refused, each with the one error it must log. */
static const struct {
	const char *line, *err;
} refused[] = {
	/* The option named as .what says, the range as the table says. */
	{ "--count 11", "-c: '11' is out of range or not a number; expected an integer from 1 to 10" },
	{ "-c x", "-c: 'x' is out of range or not a number" },
	{ "--size 1", "--size: '1' is out of range; expected a size from 2 B to 1 MiB" },
	{ "--big 8", "--big: '8' is out of range or not a number; expected an integer from 5 to 7" },
	{ "--run 0", "--run: '0' is out of range or not a number; expected an integer from 1 to "
		     "9223372036854775807" },
	{ "--pct 100.5", "--pct: '100.5' is out of range or not a number" },
	{ "--wait 1h", "--wait: '1h' is out of range; expected from 1s to 600s" },
	/* getopt_long's refusals, as fc_getopt words them. */
	{ "--frob", "test: unknown option '--frob'" },
	{ "-z", "test: unknown option '-z'" },
	{ "--count", "test: option '--count' requires an argument" },
	{ "-n", "test: option requires an argument: '-n'" },
	{ "--flag=1", "test: option '--flag' takes no value" },
	/* Parsing stops at the first bad option: -c 99 is never read. */
	{ "-f --bogus -c 99", "test: unknown option '--bogus'" },
};

static void test_refused(void **state)
{
	struct args *a = *state;
	struct fc_ctx ctx = { 0 };
	char line[128];

	for (size_t i = 0; i < FC_ARRAY_SIZE(refused); i++) {
		snprintf(line, sizeof(line), "%s", refused[i].line);
		assert_int_equal(parse(&test_spec, &ctx, a, line), -EINVAL);
		if (!strstr(last_err, refused[i].err))
			fail_msg("'%s': logged '%s', not '%s'", refused[i].line, last_err,
				 refused[i].err);
		assert_int_equal(n_err, 1);
	}
}

static void test_repeated_and_operands(void **state)
{
	struct args *a = *state;
	struct fc_ctx ctx = { 0 };
	struct fc_opts no_ops = test_spec;
	char l1[] = "-c 2 nodeA -c 7 nodeB", l2[] = "-c 2 nodeA", l3[] = "-c 2 -- -c";

	/* The last of a repeated option wins; operands move behind the options. */
	assert_int_equal(parse(&test_spec, &ctx, a, l1), 0);
	assert_int_equal(a->count, 7);
	assert_int_equal(optind, 5);
	no_ops.no_args = "give none";
	assert_int_equal(parse(&no_ops, &ctx, a, l2), -EINVAL);
	assert_string_equal(last_err, "test: unexpected argument 'nodeA'; give none");
	no_ops.no_args = "";
	assert_int_equal(parse(&no_ops, &ctx, a, l3), -EINVAL);
	assert_string_equal(last_err, "test: unexpected argument '-c'");
}

static void test_callbacks(void **state)
{
	struct args *a = *state;
	struct fc_ctx ctx = { 0 };
	char l1[] = "-e ab --maybe --maybe=cd", l2[] = "--even abc";

	a->calls = 0;
	assert_int_equal(parse(&test_spec, &ctx, a, l1), 0);
	assert_int_equal(a->calls, 3);
	assert_string_equal(a->last_call_arg, "cd");
	assert_int_equal(parse(&test_spec, &ctx, a, l2), -EINVAL);
	assert_string_equal(last_err, "--even: 'abc' has an odd length");
}

static void test_pass(void **state)
{
	struct args *a = *state;
	struct fc_ctx ctx = { 0 };
	char l1[] = "--cm --device mlx5_0 -d mlx5_1 --pair-opt --hugepages --tclass 106 "
		    "--min-gbps 90 --use-cuda --use-cuda=1";
	char l2[] = "--tclass 256";
	char *dump;

	json_array_clear(a->pass);
	a->count = 0;
	assert_int_equal(parse(&test_spec, &ctx, a, l1), 0);
	dump = json_dumps(a->pass, JSON_COMPACT);
	assert_string_equal(dump, "[\"--cm\",\"-d\",\"mlx5_0\",\"-d\",\"mlx5_1\",\"--hugepages\","
				  "\"--tclass\",\"106\",\"--min-gbps\",\"90\",\"--use-cuda\","
				  "\"--use-cuda=1\"]");
	free(dump);
	assert_int_equal(a->count, 0); /* FC_OPT_CHECK: checked, not kept */
	assert_true(a->pct == 90);     /* kept and passed */
	json_array_clear(a->pass);
	assert_int_equal(parse(&test_spec, &ctx, a, l2), -EINVAL);
	assert_int_equal(json_array_size(a->pass), 0); /* refused: not passed */
}

static void test_variants(void **state)
{
	struct args *a = *state;
	struct fc_ctx ctx = { 0 };
	struct fc_opts tui = test_spec;
	char l1[] = "--once", l2[] = "--once";

	a->flag = 0;
	assert_int_equal(parse(&test_spec, &ctx, a, l1), -EINVAL);
	assert_string_equal(last_err, "test: option '--once' is not one of this command's; see --help");
	assert_int_equal(a->flag, 0);
	tui.variant = 2;
	assert_int_equal(parse(&tui, &ctx, a, l2), 0);
	assert_int_equal(a->flag, 1);
}

static void test_table(void **state)
{
	struct fc_opts_table t;
	const struct fc_opt *o;

	(void)state;
	assert_int_equal(fc_opts_table(&test_spec, "+", &t), 0);
	/* Each short letter once, with its value marks; -d twice in the table. */
	assert_string_equal(t.shorts, "+fc:s:w:n:e:d:j");
	assert_string_equal(t.longs[2].name, "size");
	assert_int_equal(t.longs[2].has_arg, required_argument);
	assert_int_equal(t.longs[3].val, 256 + 3);
	assert_null(t.longs[FC_ARRAY_SIZE(test_opts) - 1].name);
	o = fc_opts_find(&test_spec, 'd');
	assert_string_equal(o->name, "dev");
	o = fc_opts_find(&test_spec, 256 + 4);
	assert_string_equal(o->name, "run");
	assert_null(fc_opts_find(&test_spec, 'z'));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_repeated_and_operands, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callbacks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pass, setup, teardown),
		cmocka_unit_test_setup_teardown(test_variants, setup, teardown),
		cmocka_unit_test(test_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
