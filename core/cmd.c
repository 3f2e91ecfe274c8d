/* Help detection and the command table's usage listing, shared by main and the commands. */
#include "core/fc.h"
#include "core/log.h"

#include <stdio.h>
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

void fc_print_table(const char *path, const struct fc_cmd *table)
{
	printf("usage: %s <command> [options]\n\ncommands:\n", path);
	for (const struct fc_cmd *c = table; c->name; c++)
		if (!c->hidden)
			printf("  %-12s %s\n", c->name, c->summary);
	printf("\nRun '%s <command> --help' for a command's options.\n", path);
}

int fc_dispatch(struct fc_ctx *ctx, const char *path, const struct fc_cmd *table,
		int argc, char **argv)
{
	char sub_path[256];

	if (argc < 1 || !strcmp(argv[0], "help") || !strcmp(argv[0], "-h") ||
	    !strcmp(argv[0], "--help")) {
		if (argc >= 2 && strcmp(argv[0], "help") == 0) {
			for (const struct fc_cmd *c = table; c->name; c++)
				if (!strcmp(c->name, argv[1])) {
					fputs(c->usage, stdout);
					return FC_EXIT_PASS;
				}
			fc_err("'%s %s' is not a command; run '%s help' for the list",
			       path, argv[1], path);
			return FC_EXIT_USAGE;
		}
		fc_print_table(path, table);
		return argc < 1 ? FC_EXIT_USAGE : FC_EXIT_PASS;
	}
	for (const struct fc_cmd *c = table; c->name; c++) {
		if (strcmp(c->name, argv[0]))
			continue;
		if (!c->own_help && fc_wants_help(argc, argv)) {
			fputs(c->usage, stdout);
			return FC_EXIT_PASS;
		}
		snprintf(sub_path, sizeof(sub_path), "%s %s", path, c->name);
		ctx->cmd_path = sub_path;
		return c->run(ctx, argc, argv);
	}
	fc_err("'%s' is not a %s command; run '%s help' for the list", argv[0],
	       path, path);
	return FC_EXIT_USAGE;
}
