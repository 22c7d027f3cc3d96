// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - the nanograph command: dispatch to a subcommand. Each
 * subcommand is a thin layer over libnanograph in its own file.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "nanograph.h"
#include "cmd.h"

static int cmd_version(const struct ng_cmd *self, int argc, char **argv);
static int cmd_help(const struct ng_cmd *self, int argc, char **argv);

static const struct ng_cmd commands[] = {
	{ "record", "[OPTIONS] [-a | -p PID | [--] CMD ARGS...]",
	  "record a command, a running process or the whole system as push/pop files",
	  ng_record_help, cmd_record },
	{ "convert", "[OPTIONS] TRACE.DAT",
	  "write push/pop files from a 'trace-cmd record -e nanograph' recording",
	  ng_convert_help, cmd_convert },
	{ "report", "[OPTIONS] DIR",
	  "per-function calls, total, self, average and max time of a recording; --diff OLD NEW compares two",
	  ng_report_help, cmd_report },
	{ "replay", "[OPTIONS] DIR",
	  "each thread's calls as a call tree, as function_graph shows them",
	  ng_replay_help, cmd_replay },
	{ "export", "--chrome|--perfetto|--folded [-o FILE] DIR",
	  "write a recording as Chrome trace JSON, a Perfetto trace or folded stacks",
	  ng_export_help, cmd_export },
	{ "info", "[--json] DIR",
	  "show how a recording was made and how complete it is (DIR/info.json)",
	  ng_info_help, cmd_info },
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

int ng_argc;
char **ng_argv;

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

/* @v scaled by 10^@decimals, as the user would write it: 1500, 3 -> "1.5". */
static void fmt_scaled(char *buf, size_t size, uint64_t v,
		       unsigned int decimals)
{
	uint64_t scale = 1, frac;
	unsigned int i, n;

	for (i = 0; i < decimals; i++)
		scale *= 10;
	frac = v % scale;
	n = snprintf(buf, size, "%" PRIu64, v / scale);
	if (!frac || n >= size)
		return;
	/* the fraction with its leading zeros, then without trailing ones */
	snprintf(buf + n, size - n, ".%0*" PRIu64, (int)decimals, frac);
	for (n = strlen(buf); buf[n - 1] == '0'; n--)
		buf[n - 1] = '\0';
}

/* One check of -o's value for every command that writes a file. */
int ng_opt_output(const struct ng_cmd *self, const char *arg,
		  const char **out)
{
	if (!*arg)
		return ng_usage_error(self->name, "option '-o' needs a value");
	*out = arg;
	return -1;
}

int ng_opt_num(const struct ng_cmd *self, const char *opt, const char *arg,
	       unsigned int decimals, uint64_t min, uint64_t max,
	       const char *what, uint64_t *val)
{
	char lo[32], hi[32];

	if (!ng_parse_num(arg, decimals, min, max, val))
		return -1;
	fmt_scaled(lo, sizeof(lo), min, decimals);
	fmt_scaled(hi, sizeof(hi), max, decimals);
	return ng_usage_error(self->name, "%s wants %s from %s to %s, not '%s'",
			      opt, what, lo, hi, arg);
}

/* The long option @token ("--name" or "--name=value") names, or NULL. */
static const struct option *long_option(const struct option *longopts,
					const char *token)
{
	size_t len = strcspn(token + 2, "=");
	const struct option *o, *found = NULL;

	for (o = longopts; o && o->name; o++) {
		if (strncmp(o->name, token + 2, len))
			continue;
		if (strlen(o->name) == len)
			return o;		/* exact */
		if (found)
			return NULL;		/* ambiguous prefix */
		found = o;
	}
	return found;
}

/*
 * getopt_long() with an optstring starting "+:" returns ':' for an
 * option missing its value and '?' for anything it does not take. Name
 * the option as the user typed it: argv[optind - 1] is the word getopt
 * last finished, which for a short option in a group ("-qx") may be an
 * earlier word, so short options are named by optopt.
 */
int ng_option_error(const struct ng_cmd *self, int c, char **argv,
		    const struct option *longopts)
{
	const char *token = argv[optind - 1];
	bool is_long = !strncmp(token, "--", 2) && token[2];
	const struct option *o = is_long ? long_option(longopts, token) : NULL;

	if (c == ':' && is_long && o && o->val == optopt)
		return ng_usage_error(self->name, "option '--%s' needs a value",
				      o->name);
	if (c == ':')
		return ng_usage_error(self->name, "option '-%c' needs a value",
				      optopt);
	if (is_long && o && o->val == optopt && optopt &&
	    o->has_arg == no_argument && strchr(token, '='))
		return ng_usage_error(self->name, "option '--%s' takes no value",
				      o->name);
	if (optopt > 0 && optopt < 256)
		return ng_usage_error(self->name, "unknown option '-%c'", optopt);
	return ng_usage_error(self->name, "unknown option '%.*s'",
			      (int)strcspn(token, "="), token);
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

/*
 * -h/--help and @longopts' flags (getopt_long() sets them and returns 0);
 * anything else starting with '-' is an error.
 */
int ng_cmd_flags(const struct ng_cmd *self, int argc, char **argv,
		 const struct option *longopts, int *first)
{
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
		if (c == 'h') {
			ng_cmd_help(self);
			return NG_EXIT_OK;
		}
		if (c)
			return ng_option_error(self, c, argv, longopts);
	}
	*first = optind;
	return -1;
}

/* -h/--help for every subcommand; anything else starting with '-' is an error. */
int ng_cmd_options(const struct ng_cmd *self, int argc, char **argv,
		   int *first)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};

	return ng_cmd_flags(self, argc, argv, longopts, first);
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

/*
 * The one warning line of a command that reads a recording whose
 * info.json says calls are missing; nothing when it does not say so, or
 * cannot be read (the files themselves are what the command reads).
 */
void ng_cmd_warn_incomplete(const struct ng_cmd *self,
			    const struct ng_recording *rec)
{
	char what[512];

	if (ng_recording_incomplete(rec, what, sizeof(what)) > 0)
		fprintf(stderr, "nanograph %s: warning: incomplete recording: %s (nanograph info %s)\n",
			self->name, what, rec->dir);
}

/*
 * What the converter left out that no other line says: events of a
 * second kind (a recording of both func_entry/func_exit and
 * func_call/func_open has each call twice: one kind was converted), and
 * raw records that named no task.
 */
void ng_cmd_say_left_out(const struct ng_conv_summary *sum)
{
	if (sum->ignored)
		fprintf(stderr, "nanograph: %" PRIu64 " events left out: the recording holds its calls both as func_entry/func_exit and as func_call/func_open; each call is converted once, from the kind that came first\n",
			sum->ignored);
	/* Raw records whose CPU had not named their task: whose calls? */
	if (sum->unattributed)
		fprintf(stderr, "nanograph: warning: %" PRIu64 " raw record%s named no task and %s left out (another reader of per_cpu/cpuN/raw took the task record before %s?)\n",
			sum->unattributed, sum->unattributed == 1 ? "" : "s",
			sum->unattributed == 1 ? "was" : "were",
			sum->unattributed == 1 ? "it" : "them");
}

/* The output directory of record and convert; on failure, say why. */
int ng_cmd_open_outdir(const struct ng_cmd *self, const char *dir,
		       struct ng_outdir **op)
{
	int ret = ng_outdir_open(op, dir);

	switch (ret) {
	case 0:
		return 0;
	case -ENOTEMPTY:
		fprintf(stderr, "nanograph %s: %s holds files but is not a nanograph recording (no threads.tsv): choose another -o DIR\n",
			self->name, dir);
		break;
	case -EEXIST:
		fprintf(stderr, "nanograph %s: %s.old is not a nanograph recording, and the recording in %s would replace it: move it away or choose another -o DIR\n",
			self->name, dir, dir);
		break;
	case -EINVAL:
		fprintf(stderr, "nanograph %s: -o %s: give the recording directory's own name\n",
			self->name, dir);
		break;
	default:
		fprintf(stderr, "nanograph %s: %s: %s\n", self->name, dir,
			strerror(-ret));
	}
	return NG_EXIT_FAIL;
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

/*
 * What a command printed on standard output must have got there: a full
 * disk is an error, as for coreutils' close_stdout(), not a silent exit 0
 * (report and info printed into /dev/full and said nothing).
 */
static int finish_stdout(const struct ng_cmd *cmd, int rc)
{
	int err;

	errno = 0;
	if ((!fflush(stdout) && !ferror(stdout)) || rc)
		return rc;	/* a failed command said why already */
	err = errno;
	fprintf(stderr, "nanograph %s: standard output: %s\n", cmd->name,
		err ? strerror(err) : "write error");
	return NG_EXIT_FAIL;
}

/*
 * Ctrl-C, SIGTERM, SIGHUP: remove the temporary file being written
 * (export, replay -o, report -o: ng_output_remove_temporaries()), then
 * die of the signal as before.  convert and record stop cooperatively
 * and install handlers of their own.
 */
static void on_fatal_signal(int sig)
{
	ng_output_remove_temporaries();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void clean_on_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa = { 0 };
	size_t i;

	sa.sa_handler = on_fatal_signal;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

int main(int argc, char **argv)
{
	const struct ng_cmd *cmd;
	const char *arg;

	ng_argc = argc;
	ng_argv = argv;
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
	clean_on_signals();
	return finish_stdout(cmd, cmd->run(cmd, argc - 1, argv + 1));
}
