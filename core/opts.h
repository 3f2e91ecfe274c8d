/*
 * Table-driven command-line options: a command describes each of its
 * options once (long name, short letter, kind, range, where the value goes)
 * and fc_opts_parse reads argv by that table, with getopt_long underneath
 * (through fc_getopt, so unknown options and missing values are reported as
 * everywhere else). Values are checked by the parsers of util.h, which name
 * the option in their errors.
 */
#ifndef FC_OPTS_H
#define FC_OPTS_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>

#include "core/fc.h"

enum fc_opt_kind {
	FC_OPT_FLAG,	 /* int = 1 */
	FC_OPT_INT,	 /* int from .lo to .hi */
	FC_OPT_U64,	 /* uint64_t from .lo to .hi */
	FC_OPT_ID,	 /* int64_t from 1 up: a run id */
	FC_OPT_DOUBLE,	 /* double from .dlo to .dhi */
	FC_OPT_SIZE,	 /* uint64_t bytes (64K, 1M) from .lo to .hi */
	FC_OPT_DURATION, /* double seconds (500ms, 5m) from .dlo to .dhi */
	FC_OPT_STR,	 /* const char *: the value as given */
	FC_OPT_CALL,	 /* .call decides (.has_arg: takes a value or not) */
	FC_OPT_JSON,	 /* the context's json = 1 */
	FC_OPT_PASS,	 /* appended to the spec's pass list, nothing else kept */
};

/* .flags */
#define FC_OPT_PASSED 1u     /* also appended to the spec's pass list */
#define FC_OPT_PASS_VALUE 2u /* pass the value alone (a word given as is) */
#define FC_OPT_CHECK 4u	     /* check the value, keep none (then passed) */

struct fc_opt;
/* 0, or -EINVAL after logging why @arg (NULL: none given) is refused. */
typedef int (*fc_opt_call)(void *dst, const char *arg, const struct fc_opt *o);

struct fc_opt {
	const char *name; /* the long name, without "--"; NULL ends a table */
	int key;	  /* the short letter, or 0 */
	enum fc_opt_kind kind;
	size_t off;	  /* where the value goes in the command's struct */
	int64_t lo, hi;	  /* integer and size ranges */
	double dlo, dhi;  /* number and duration ranges */
	int has_arg;	  /* FC_OPT_CALL, FC_OPT_PASS: no_argument, required_, optional_ */
	fc_opt_call call;
	const char *what; /* the name in messages and passed on (default "--name") */
	unsigned flags;
	unsigned only;	  /* the variants (fc_opts.variant bits) it belongs to; 0: all */
};

struct fc_opts {
	const struct fc_opt *opt; /* ends with { 0 } */
	const char *cmd;	  /* "nccl env", naming the command in errors */
	const char *usage;	  /* printed on stderr after an unknown option */
	const char *no_args;	  /* non-NULL: operands refused, with this hint ("" none) */
	size_t pass_at;		  /* FC_OPTS_PASS_AT: the json_t * list passed options go to */
	unsigned variant;	  /* a bit of .only: the command reading this table */
	/* After each option taken (for commands that keep what was given). */
	void (*seen)(void *dst, const struct fc_opt *o, const char *arg);
};

#define FC_OPTS_PASS_AT(type, field) (offsetof(type, field) + 1)

/*
 * Parses argv[1..] into @dst by @spec: 0, with optind at the first operand,
 * or -EINVAL after logging the reason (and, for an unknown option or a
 * missing value, printing spec->usage on stderr). An option given again
 * replaces the earlier value. --json (FC_OPT_JSON) sets ctx->json.
 */
int fc_opts_parse(struct fc_ctx *ctx, const struct fc_opts *spec, void *dst, int argc,
		  char **argv);

/* The table of a command whose one option is --json. */
extern const struct fc_opt fc_opts_json_only[];

/* For commands that walk argv themselves: the getopt_long table and short
 * options of @spec (shorts with a leading @lead, e.g. "+"), and the option
 * that getopt_long's return @c stands for (NULL: none). */
#define FC_OPTS_MAX 80
struct fc_opts_table {
	struct option longs[FC_OPTS_MAX + 1];
	char shorts[3 * FC_OPTS_MAX + 4];
};
int fc_opts_table(const struct fc_opts *spec, const char *lead, struct fc_opts_table *t);
const struct fc_opt *fc_opts_find(const struct fc_opts *spec, int c);
/* Takes one option with its value @arg: 0 or -EINVAL (logged). */
int fc_opt_take(struct fc_ctx *ctx, const struct fc_opts *spec, const struct fc_opt *o,
		const char *arg, void *dst);

/* no_argument, required_argument or optional_argument. */
int fc_opt_has_arg(const struct fc_opt *o);
/* The option's name in messages: .what, or "--name". */
const char *fc_opt_what(const struct fc_opt *o);
/* Where the option's value lives in @dst. */
#define FC_OPT_AT(dst, o, type) ((type *)(void *)((char *)(dst) + (o)->off))
/* Appends @o as given (@arg its value) to @list, a json_t * array: its
 * name, then the value; "--name=VALUE" for an optional value. */
struct json_t;
void fc_opt_pass(struct json_t *list, const struct fc_opt *o, const char *arg);

/*
 * Table entries. Define FC_OPT_T as the command's struct before them: each
 * field is checked to have the type its kind writes. The trailing arguments
 * are more fields (.what = "-s", .flags = FC_OPT_PASSED, .only = ...).
 */
#define FC_OPT_FIELD(f, type) \
	(offsetof(FC_OPT_T, f) + 0 * sizeof(_Generic(((FC_OPT_T *)0)->f, type: 1)))
/* An entry of @kind whose value goes to field @f of @type. */
#define FCO_AT(n, k, kind_, f, type, ...) \
	{ .name = n, .key = k, .kind = kind_, .off = FC_OPT_FIELD(f, type), __VA_ARGS__ }
#define FCO_FLAG(n, k, f, ...) FCO_AT(n, k, FC_OPT_FLAG, f, int, __VA_ARGS__)
#define FCO_STR(n, k, f, ...) FCO_AT(n, k, FC_OPT_STR, f, const char *, __VA_ARGS__)
#define FCO_ID(n, k, f, ...) FCO_AT(n, k, FC_OPT_ID, f, int64_t, __VA_ARGS__)
#define FCO_INT(n, k, f, l, h, ...) FCO_AT(n, k, FC_OPT_INT, f, int, .lo = l, .hi = h, __VA_ARGS__)
#define FCO_U64(n, k, f, l, h, ...) \
	FCO_AT(n, k, FC_OPT_U64, f, uint64_t, .lo = l, .hi = h, __VA_ARGS__)
#define FCO_SIZE(n, k, f, l, h, ...) \
	FCO_AT(n, k, FC_OPT_SIZE, f, uint64_t, .lo = l, .hi = h, __VA_ARGS__)
#define FCO_DOUBLE(n, k, f, l, h, ...) \
	FCO_AT(n, k, FC_OPT_DOUBLE, f, double, .dlo = l, .dhi = h, __VA_ARGS__)
#define FCO_DURATION(n, k, f, l, h, ...) \
	FCO_AT(n, k, FC_OPT_DURATION, f, double, .dlo = l, .dhi = h, __VA_ARGS__)
/* @a: no_argument, required_argument or optional_argument. */
#define FCO_CALL(n, k, fn, a, ...) \
	{ .name = n, .key = k, .kind = FC_OPT_CALL, .call = fn, .has_arg = a, __VA_ARGS__ }
/* A callback that finds its field (@type) at the entry's .off: FC_OPT_AT. */
#define FCO_CALL_AT(n, k, fn, f, type, ...) \
	FCO_AT(n, k, FC_OPT_CALL, f, type, .call = fn, .has_arg = required_argument, __VA_ARGS__)
#define FCO_PASS(n, k, a, ...) { .name = n, .key = k, .kind = FC_OPT_PASS, .has_arg = a, __VA_ARGS__ }
/* An integer checked from @l to @h, then passed on as given, not kept. */
#define FCO_INT_PASS(n, k, l, h, ...)                              \
	{ .name = n, .key = k, .kind = FC_OPT_INT, .lo = l, .hi = h, \
	  .flags = FC_OPT_PASSED | FC_OPT_CHECK, __VA_ARGS__ }
#define FCO_JSON { .name = "json", .key = 'j', .kind = FC_OPT_JSON }

#endif
