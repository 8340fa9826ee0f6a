/* SPDX-License-Identifier: MIT */
/*
 * hcbtrace - receive host-callback taps from running accelerator programs.
 * One table of commands drives dispatch and help.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "providers/jaxcb/decode.h"
#include "text/pyformat.h"

static int run_help(const struct cli_cmd *cmd, int argc, char **argv);

static const struct cli_opt help_opts[] = {
	{ 'h', "help", NULL, "show this help" },
	{ 0 }
};

static const struct cli_cmd cmd_help = {
	.name = "help",
	.run = run_help,
	.summary = "show the help of a command",
	.usage = "[COMMAND]",
	.description = "Show the help of a command, or the list of commands.",
	.opts = help_opts,
};

static const struct cli_cmd *const commands[] = {
	&cmd_attach, &cmd_run, &cmd_record, &cmd_replay, &cmd_convert, &cmd_diff, &cmd_barrier, &cmd_dump, &cmd_list, &cmd_check, &cmd_view, &cmd_help,
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct cli_cmd *find(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i]->name, name) == 0)
			return commands[i];
	return NULL;
}

static int main_help(FILE *f)
{
	fprintf(f, "Usage: hcbtrace [--version] [--help] COMMAND [ARGS]\n\n"
		   "Receive host-callback taps from running accelerator programs.\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(f, "\nRun 'hcbtrace COMMAND --help' for the options of a command.\n");
	return f == stdout ? EXIT_OK : EXIT_USAGE;
}

static int finish(int code)
{
	/* like git: a full disk or closed pipe on stdout is a failure */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (code == EXIT_OK)
			code = EXIT_FAIL;
	}
	return code;
}

static int run_help(const struct cli_cmd *cmd, int argc, char **argv)
{
	const struct cli_cmd *which;

	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		cli_print_help(cmd, stdout);
		return EXIT_OK;
	}
	if (argc < 2)
		return main_help(stdout);
	if (argc > 2)
		return cli_usage_err(cmd, "unexpected argument '%s'", argv[2]);
	which = find(argv[1]);
	if (!which)
		return cli_usage_err(NULL, "unknown command '%s'", argv[1]);
	cli_print_help(which, stdout);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	const struct cli_cmd *cmd;

	if (argc < 2)
		return main_help(stderr);
	/* a jax.debug.print's line made here rather than probed (issue 39):
	 * the formatter is formats/'s, the decoder a floor below it */
	hcb_jaxffi_use_formatter(hcb_pyformat);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return finish(main_help(stdout));
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("hcbtrace %s\n", HCB_VERSION);
		return finish(EXIT_OK);
	}
	if (argv[1][0] == '-')
		return cli_usage_err(NULL, "unknown option '%s'", argv[1]);
	cmd = find(argv[1]);
	if (!cmd)
		return cli_usage_err(NULL, "unknown command '%s'", argv[1]);
	return finish(cmd->run(cmd, argc - 1, argv + 1));
}
