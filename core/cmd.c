/* Command tables: dispatch, help, and option parsing shared by the commands. */
#include "core/fc.h"
#include "core/log.h"
#include "core/out.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fc_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return 1;
	}
	return 0;
}

int fc_wants_json(int argc, char **argv)
{
	const char *cmd = NULL;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		/* what follows 'lab exec' is the node's own command line */
		if (cmd && !strcmp(cmd, "lab") && !strcmp(argv[i], "exec"))
			break;
		if (!cmd && argv[i][0] != '-')
			cmd = argv[i];
		if (!strcmp(argv[i], "--json"))
			return 1;
	}
	return 0;
}

int fc_refuse_args(const char *cmd, char *const *args, int n, const char *hint)
{
	if (n <= 0)
		return 0;
	fc_err("%s: unexpected argument '%s'%s%s", cmd, args[0], *hint ? "; " : "", hint);
	return -EINVAL;
}

/* The long option @word ("--name" or "--name=value") names, or NULL. */
static const struct option *long_named(const struct option *longopts, const char *word)
{
	size_t len;

	if (word[0] != '-' || word[1] != '-' || !longopts)
		return NULL;
	word += 2;
	len = strcspn(word, "=");
	for (const struct option *o = longopts; o->name; o++)
		if (strlen(o->name) == len && !strncmp(o->name, word, len))
			return o;
	return NULL;
}

int fc_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts)
{
	char spec[128];
	const char *word;
	int c;

	/* A leading ':' tells a missing value (':') from an unknown option. */
	snprintf(spec, sizeof(spec), ":%s", shortopts);
	opterr = 0;
	c = getopt_long(argc, argv, spec, longopts, NULL);
	if (c != '?' && c != ':')
		return c;
	word = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
	if (word[0] == '-' && word[1] != '-' && optopt > 0 && optopt < 128)
		fc_err("%s: %s '-%c'", argv[0],
		       c == ':' ? "option requires an argument:" : "unknown option", optopt);
	else if (c == ':')
		fc_err("%s: option '%s' requires an argument", argv[0], word);
	else if (long_named(longopts, word))
		fc_err("%s: option '%.*s' takes no value", argv[0], (int)strcspn(word, "="), word);
	else
		fc_err("%s: unknown option '%s'", argv[0], word);
	return '?';
}

void fc_print_table(struct fc_ctx *ctx, const char *path, const struct fc_cmd *table)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return;
	fprintf(f, "usage: %s <command> [options]\n\ncommands:\n", path);
	for (const struct fc_cmd *c = table; c->name; c++)
		if (!c->hidden)
			fprintf(f, "  %-12s %s\n", c->name, c->summary);
	fprintf(f, "\nRun '%s <command> --help' for a command's options.\n", path);
	fclose(f);
	fc_out_text(ctx, text);
	free(text);
}

int fc_dispatch(struct fc_ctx *ctx, const char *path, const struct fc_cmd *table,
		int argc, char **argv)
{
	char sub_path[sizeof(ctx->cmd_path_buf)];

	/* --json before the (sub)command: main has seen it (fc_wants_json). */
	while (argc > 0 && !strcmp(argv[0], "--json"))
		argc--, argv++;
	if (argc < 1 || !strcmp(argv[0], "help") || !strcmp(argv[0], "-h") ||
	    !strcmp(argv[0], "--help")) {
		if (argc >= 2 && strcmp(argv[0], "help") == 0 && argv[1][0] != '-') {
			for (const struct fc_cmd *c = table; c->name; c++)
				if (!strcmp(c->name, argv[1])) {
					fc_out_text(ctx, c->usage);
					return FC_EXIT_PASS;
				}
			fc_err("'%s %s' is not a command; run '%s help' for the list",
			       path, argv[1], path);
			return FC_EXIT_USAGE;
		}
		if (argc < 1)
			fc_err("give a command: %s <command> [options] (%s help lists them)",
			       path, path);
		fc_print_table(ctx, path, table);
		return argc < 1 ? FC_EXIT_USAGE : FC_EXIT_PASS;
	}
	for (const struct fc_cmd *c = table; c->name; c++) {
		if (strcmp(c->name, argv[0]))
			continue;
		if (!c->own_help && fc_wants_help(argc, argv)) {
			fc_out_text(ctx, c->usage);
			return FC_EXIT_PASS;
		}
		snprintf(sub_path, sizeof(sub_path), "%s %s", path, c->name);
		memcpy(ctx->cmd_path_buf, sub_path, sizeof(sub_path));
		ctx->cmd_path = ctx->cmd_path_buf;
		return c->run(ctx, argc, argv);
	}
	fc_err("'%s' is not a %s command; run '%s help' for the list", argv[0],
	       path, path);
	return FC_EXIT_USAGE;
}
