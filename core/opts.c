/* Table-driven command-line options (see opts.h). */
#include "core/opts.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "core/log.h"
#include "core/util.h"

const struct fc_opt fc_opts_json_only[] = { FCO_JSON, { 0 } };

const char *fc_opt_what(const struct fc_opt *o)
{
	static __thread char buf[64];

	if (o->what)
		return o->what;
	snprintf(buf, sizeof(buf), "--%s", o->name);
	return buf;
}

int fc_opt_has_arg(const struct fc_opt *o)
{
	switch (o->kind) {
	case FC_OPT_FLAG:
	case FC_OPT_JSON: return no_argument;
	case FC_OPT_CALL:
	case FC_OPT_PASS: return o->has_arg;
	default: return required_argument;
	}
}

int fc_opts_table(const struct fc_opts *spec, const char *lead, struct fc_opts_table *t)
{
	size_t n = 0, len;

	snprintf(t->shorts, sizeof(t->shorts), "%s", lead);
	len = strlen(t->shorts);
	for (const struct fc_opt *o = spec->opt; o->name; o++, n++) {
		int has = fc_opt_has_arg(o);

		if (n == FC_OPTS_MAX || len + 4 > sizeof(t->shorts)) {
			fc_err("%s: more than %d options in one table", spec->cmd, FC_OPTS_MAX);
			return -E2BIG;
		}
		t->longs[n] = (struct option){ .name = o->name, .has_arg = has,
					       .val = o->key ? o->key : 256 + (int)n };
		if (!o->key || strchr(t->shorts + strlen(lead), o->key))
			continue;
		t->shorts[len++] = (char)o->key;
		if (has != no_argument)
			t->shorts[len++] = ':';
		if (has == optional_argument)
			t->shorts[len++] = ':';
		t->shorts[len] = '\0';
	}
	t->longs[n] = (struct option){ 0 };
	return 0;
}

const struct fc_opt *fc_opts_find(const struct fc_opts *spec, int c)
{
	int n = 0;

	for (const struct fc_opt *o = spec->opt; o->name; o++, n++)
		if (c == (o->key ? o->key : 256 + n))
			return o;
	return NULL;
}

void fc_opt_pass(json_t *list, const struct fc_opt *o, const char *arg)
{
	char buf[256];

	if (fc_opt_has_arg(o) == optional_argument) {
		snprintf(buf, sizeof(buf), "--%s%s%s", o->name, arg ? "=" : "", arg ? arg : "");
		json_array_append_new(list, json_string(buf));
		return;
	}
	json_array_append_new(list, json_string(fc_opt_what(o)));
	if (arg)
		json_array_append_new(list, json_string(arg));
}

/* The value of a number kind into @at: 0 or -EINVAL (logged). */
static int take_number(const struct fc_opt *o, const char *arg, void *at)
{
	const char *what = fc_opt_what(o);
	uint64_t v;

	switch (o->kind) {
	case FC_OPT_INT: return fc_parse_int(what, arg, (long)o->lo, (long)o->hi, at);
	case FC_OPT_U64: return fc_parse_u64(what, arg, (uint64_t)o->lo, (uint64_t)o->hi, at);
	case FC_OPT_SIZE: return fc_parse_size(what, arg, (uint64_t)o->lo, (uint64_t)o->hi, at);
	case FC_OPT_DOUBLE: return fc_parse_double(what, arg, o->dlo, o->dhi, at);
	case FC_OPT_DURATION: return fc_parse_duration(what, arg, o->dlo, o->dhi, at);
	case FC_OPT_ID:
		if (fc_parse_u64(what, arg, 1, INT64_MAX, &v))
			return -EINVAL;
		*(int64_t *)at = (int64_t)v;
		return 0;
	default: return -EINVAL;
	}
}

int fc_opt_take(struct fc_ctx *ctx, const struct fc_opts *spec, const struct fc_opt *o,
		const char *arg, void *dst)
{
	union {
		int i;
		uint64_t u;
		int64_t s;
		double d;
	} scratch;
	void *at = dst ? (char *)dst + o->off : NULL;
	int rc = 0;

	switch (o->kind) {
	case FC_OPT_FLAG: *(int *)at = 1; break;
	case FC_OPT_STR: *(const char **)at = arg; break;
	case FC_OPT_CALL: rc = o->call(dst, arg, o); break;
	case FC_OPT_JSON: ctx->json = 1; break;
	case FC_OPT_PASS: break;
	default: rc = take_number(o, arg, o->flags & FC_OPT_CHECK ? (void *)&scratch : at);
	}
	if (rc)
		return -EINVAL;
	if ((o->kind == FC_OPT_PASS || (o->flags & FC_OPT_PASSED)) && spec->pass_at) {
		json_t *list = *(json_t **)(void *)((char *)dst + spec->pass_at - 1);

		if (o->flags & FC_OPT_PASS_VALUE)
			json_array_append_new(list, json_string(arg));
		else
			fc_opt_pass(list, o, arg);
	}
	if (spec->seen)
		spec->seen(dst, o, arg);
	return 0;
}

int fc_opts_parse(struct fc_ctx *ctx, const struct fc_opts *spec, void *dst, int argc,
		  char **argv)
{
	struct fc_opts_table t;
	const struct fc_opt *o;
	int c;

	if (fc_opts_table(spec, "", &t))
		return -EINVAL;
	optind = 0; /* a fresh scan: nothing left from an earlier one */
	while ((c = fc_getopt(argc, argv, t.shorts, t.longs)) != -1) {
		o = c == '?' ? NULL : fc_opts_find(spec, c);
		if (!o) {
			if (spec->usage)
				fputs(spec->usage, stderr);
			return -EINVAL;
		}
		if (o->only && !(o->only & spec->variant)) {
			fc_err("%s: option '--%s' is not one of this command's; see --help",
			       argv[0], o->name);
			return -EINVAL;
		}
		if (fc_opt_take(ctx, spec, o, optarg, dst))
			return -EINVAL;
	}
	return spec->no_args ? fc_refuse_args(spec->cmd, argv + optind, argc - optind,
					      spec->no_args) : 0;
}
