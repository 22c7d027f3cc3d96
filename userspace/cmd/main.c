// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - the nanograph command: dispatch to a subcommand. Each
 * subcommand is a thin layer over libnanograph in its own file.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "nanograph.h"
#include "cmd.h"

static int cmd_version(const struct ng_cmd *self, int argc, char **argv);
static int cmd_help(const struct ng_cmd *self, int argc, char **argv);

static const struct ng_cmd commands[] = {
	{ "record", "[OPTIONS] [-p PID | [--] CMD ARGS...]",
	  "record a command, a running process or the whole system as push/pop files",
	  ng_record_help, cmd_record },
	{ "convert", "[OPTIONS] TRACE.DAT",
	  "write push/pop files from a 'trace-cmd record -e nanograph' recording",
	  ng_convert_help, cmd_convert },
	{ "report", "[OPTIONS] DIR",
	  "per-function calls, total, self, average and max time of a recording",
	  ng_report_help, cmd_report },
	{ "export", "--chrome|--perfetto|--folded [-o FILE] DIR",
	  "write a recording as Chrome trace JSON, a Perfetto trace or folded stacks",
	  ng_export_help, cmd_export },
	{ "status", "",
	  "show whether the module is loaded, tracefs, and every control file",
	  "Control files are read from " NG_CTL_DEFAULT_ROOT " or $" NG_CTL_ENV ".\n"
	  "Exit status: 0 if the module is loaded, 1 if not.",
	  cmd_status },
	{ "check", "FILE...",
	  "check push/pop files against the trace format",
	  "Each line must be <ns>:POP or <ns>:+<label>, timestamps must not\n"
	  "decrease, and every push must have one pop. Prints one line per\n"
	  "file; exit status 1 if any file is bad or unreadable.",
	  cmd_check },
	{ "version", "", "print the version", NULL, cmd_version },
	{ "help", "[COMMAND]", "show this help, or a command's", NULL, cmd_help },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct ng_cmd *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* One error line and a pointer to the help, the same for every mistake. */
int ng_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "nanograph%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'nanograph help%s%s'.\n", cmd ? " " : "",
		cmd ? cmd : "");
	return NG_EXIT_USAGE;
}

/* The overall usage, for "nanograph help" and "nanograph --help". */
static void usage(FILE *fp)
{
	size_t i;

	fprintf(fp, "usage: nanograph COMMAND [ARGS]\n\ncommands:\n");
	for (i = 0; i < NR_COMMANDS; i++) {
		char synopsis[64];

		snprintf(synopsis, sizeof(synopsis), "%s %s", commands[i].name,
			 commands[i].args);
		fprintf(fp, "  %-20s %s\n", synopsis, commands[i].summary);
	}
	fprintf(fp, "\n'nanograph help COMMAND' tells more about one command.\n");
}

/* One subcommand's usage and notes. */
void ng_cmd_help(const struct ng_cmd *self)
{
	printf("usage: nanograph %s%s%s\n\n%s.\n", self->name,
	       *self->args ? " " : "", self->args, self->summary);
	if (self->help)
		printf("\n%s\n", self->help);
}

/* -h/--help for every subcommand; anything else starting with '-' is an error. */
int ng_cmd_options(const struct ng_cmd *self, int argc, char **argv,
		   int *first)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			ng_cmd_help(self);
			return NG_EXIT_OK;
		default:
			return ng_usage_error(self->name, "unknown option '%s'",
					      argv[optind - 1]);
		}
	}
	*first = optind;
	return -1;
}

/* One error line for a directory that is not a recording, the same for each command. */
int ng_cmd_open_recording(const struct ng_cmd *self, const char *dir,
			  struct ng_recording *rec)
{
	struct stat st;
	int ret = ng_recording_open(rec, dir);

	/* opendir() of a missing directory is ENOENT too: tell the cases apart. */
	if (ret == -ENOENT && stat(dir, &st))
		fprintf(stderr, "nanograph %s: %s: %s\n", self->name, dir,
			strerror(errno));
	else if (ret == -ENOENT)
		fprintf(stderr, "nanograph %s: %s: no push/pop files (<tid>.txt) here: is it a 'nanograph record -o' directory?\n",
			self->name, dir);
	else if (ret)
		fprintf(stderr, "nanograph %s: %s: %s\n", self->name, dir,
			strerror(-ret));
	return ret ? NG_EXIT_FAIL : 0;
}

/* "nanograph version": the version of the command and its library. */
static int cmd_version(const struct ng_cmd *self, int argc, char **argv)
{
	int first, ret = ng_cmd_options(self, argc, argv, &first);

	if (ret >= 0)
		return ret;
	if (first < argc)
		return ng_usage_error(self->name, "unexpected argument '%s'",
				      argv[first]);
	printf("nanograph %s\n", NANOGRAPH_VERSION);
	return NG_EXIT_OK;
}

/* "nanograph help [COMMAND]". */
static int cmd_help(const struct ng_cmd *self, int argc, char **argv)
{
	const struct ng_cmd *cmd;
	int first, ret = ng_cmd_options(self, argc, argv, &first);

	if (ret >= 0)
		return ret;
	if (first == argc) {
		usage(stdout);
		return NG_EXIT_OK;
	}
	if (argc - first > 1)
		return ng_usage_error(self->name, "unexpected argument '%s'",
				      argv[first + 1]);
	cmd = find_command(argv[first]);
	if (!cmd)
		return ng_usage_error(NULL, "unknown command '%s'", argv[first]);
	ng_cmd_help(cmd);
	return NG_EXIT_OK;
}

int main(int argc, char **argv)
{
	const struct ng_cmd *cmd;
	const char *arg;

	if (argc < 2) {
		usage(stderr);
		return NG_EXIT_USAGE;
	}
	arg = argv[1];
	if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
		usage(stdout);
		return NG_EXIT_OK;
	}
	if (!strcmp(arg, "--version"))
		arg = "version";
	else if (arg[0] == '-')
		return ng_usage_error(NULL, "unknown option '%s'", arg);
	cmd = find_command(arg);
	if (!cmd)
		return ng_usage_error(NULL, "unknown command '%s'", arg);
	return cmd->run(cmd, argc - 1, argv + 1);
}
