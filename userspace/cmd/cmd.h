/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmd.h - what the nanograph subcommands share: the command table entry,
 * exit codes and the common option handling. Only the command uses this;
 * the library (nanograph.h) knows nothing of the command line.
 */
#ifndef NG_CMD_H
#define NG_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Return convention of the command layer.  The library (nanograph.h)
 * returns 0 or a negative errno and never prints; the command prints,
 * one line on stderr, and turns what failed into an exit code.  So a
 * function of the command returns:
 *
 *  - a step (everything after the command line): 0 to go on, else the
 *    exit code to stop with (NG_EXIT_FAIL, 128 + a signal ...), its
 *    line already printed.  Never a -errno, never -1: a caller passes a
 *    non-zero result on unchanged ("if (ret) return ret;");
 *  - option parsing (ng_cmd_options(), ng_opt_num(), a command's
 *    parse): -1 to go on, else the exit code: there, stopping may be a
 *    success (--help: NG_EXIT_OK), so 0 cannot mean "go on".
 */
#define NG_EXIT_OK	0
#define NG_EXIT_FAIL	1
#define NG_EXIT_USAGE	2

struct ng_cmd {
	const char *name;
	const char *args;	/* synopsis after the name, may be "" */
	const char *summary;	/* one line for "nanograph help" */
	const char *help;	/* more lines for "nanograph help NAME", or NULL */
	/* argv[0] is the subcommand's name; returns an exit code */
	int (*run)(const struct ng_cmd *self, int argc, char **argv);
};

/* Print "nanograph[ CMD]: MSG" and the usage hint on stderr; returns 2. */
int ng_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * Parse the options every subcommand takes (-h, --help). Returns -1 and
 * sets *@first to the first operand, or an exit code to return at once.
 */
int ng_cmd_options(const struct ng_cmd *self, int argc, char **argv,
		   int *first);
struct option;
/*
 * ng_cmd_options() for a command that also takes flags: @longopts holds
 * "help" (val 'h') and long options without a value whose flag field
 * points at the int getopt_long() sets.
 */
int ng_cmd_flags(const struct ng_cmd *self, int argc, char **argv,
		 const struct option *longopts, int *first);
void ng_cmd_help(const struct ng_cmd *self);
/*
 * The usage error for getopt_long()'s ':' (a value missing) or '?' (an
 * unknown option, or a value given to one that takes none), with
 * opterr = 0 and an optstring starting "+:". Returns 2.
 */
int ng_option_error(const struct ng_cmd *self, int c, char **argv,
		    const struct option *longopts);
/*
 * The FILE of -o/--output: -1 with *@out set, or the usage error for an
 * empty one (exit code 2).
 */
int ng_opt_output(const struct ng_cmd *self, const char *arg,
		  const char **out);
/*
 * An option's number through ng_parse_num(): -1 with *@val set, or the
 * usage error "OPT wants WHAT from MIN to MAX, not 'ARG'" (exit code 2).
 */
int ng_opt_num(const struct ng_cmd *self, const char *opt, const char *arg,
	       unsigned int decimals, uint64_t min, uint64_t max,
	       const char *what, uint64_t *val);
struct ng_outdir;
/*
 * ng_outdir_open() for record and convert: 0, or NG_EXIT_FAIL after one
 * line saying why @dir cannot take a new recording.
 */
int ng_cmd_open_outdir(const struct ng_cmd *self, const char *dir,
		       struct ng_outdir **op);
struct ng_recording;
struct ng_pp_bad;
/* Open a recording directory for report/export; on failure, say why. */
int ng_cmd_open_recording(const struct ng_cmd *self, const char *dir,
			  struct ng_recording *rec);

/*
 * After ng_cmd_open_recording(): one line on stderr when @rec's info.json
 * says it misses calls ("nanograph CMD: warning: incomplete recording:
 * ..."), for every command that reads a recording's calls.
 */
void ng_cmd_warn_incomplete(const struct ng_cmd *self,
			    const struct ng_recording *rec);
/*
 * After a conversion (record, convert): one line on stderr when events
 * of a second kind were left out (a recording of nanograph:*).
 */
void ng_cmd_say_left_out(const struct ng_conv_summary *sum);
/* The whole command line, for info.json (set by main()). */
extern int ng_argc;
extern char **ng_argv;

/*
 * One line on stderr for a file of @rec that cannot be read or breaks the
 * format (*@bad, @err from the library), @tail at its end ("; nothing
 * written"): report, replay, export and info say it alike.
 */
void ng_cmd_bad_input(const struct ng_cmd *self, const struct ng_recording *rec,
		      const struct ng_pp_bad *bad, int err, const char *tail);

/* ---- the filter options of replay, report and export (cmd/filter_opts.c) ---- */

/* Values of the filter options that have no short form. */
enum {
	NG_OPT_THRESHOLD = 0x1000,
	NG_OPT_TID,
	NG_OPT_COMM,
	NG_OPT_RANGE,
	NG_OPT_COMPENSATE,
	NG_OPT_OVERHEAD,
	NG_OPT_RETVAL,
};

/*
 * Their getopt_long() entries, for a command's table; @threshold is the
 * value --time-threshold returns: 't' where -t is its short form,
 * NG_OPT_THRESHOLD where -t means something else (report's --threads).
 * Their short forms for the optstring: "D:F:N:", and "t:" where it is.
 */
#define NG_FILTER_LONGOPTS(threshold)					\
	{ "time-threshold", required_argument, NULL, threshold },	\
	{ "depth", required_argument, NULL, 'D' },			\
	{ "tid", required_argument, NULL, NG_OPT_TID },			\
	{ "comm", required_argument, NULL, NG_OPT_COMM },		\
	{ "filter", required_argument, NULL, 'F' },			\
	{ "notrace", required_argument, NULL, 'N' },			\
	{ "time-range", required_argument, NULL, NG_OPT_RANGE },	\
	{ "retval", required_argument, NULL, NG_OPT_RETVAL },		\
	{ "compensate", no_argument, NULL, NG_OPT_COMPENSATE },		\
	{ "overhead", required_argument, NULL, NG_OPT_OVERHEAD }

/* Their help, for a command's; @t is "-t, " or "    ". */
#define NG_FILTER_HELP(t)						\
"Filters (Documentation/report-export.md, \"Filters\"): a call is shown\n" \
"when it passes each kind given (the values of one kind are alternatives),\n" \
"and the calls it is in are shown with it, up to the -F call:\n"	\
"  " t "--time-threshold TIME\n"					\
"                  calls lasting at least TIME (500ns, 10us, 2ms, 1.5s;\n" \
"                  a bare number is ns)\n"				\
"  -D, --depth N   calls at depth below N (0: no limit); depth counts from\n" \
"                  the outermost call, or from the -F call\n"		\
"  --tid TID[,TID...]\n"						\
"                  only these threads (0-CPU: a CPU's idle task)\n"	\
"  --comm NAME[,NAME...]\n"					\
"                  only threads of this name (threads.tsv), exactly\n"	\
"  -F, --filter FUNC\n"						\
"                  only FUNC's calls and what they call; '*' matches any\n" \
"                  run of characters; FUNC is the label or its name\n"	\
"                  without ' [module]'\n"				\
"  -N, --notrace FUNC\n"						\
"                  leave out FUNC's calls and what they call\n"	\
"  --time-range START~END\n"					\
"                  calls overlapping START..END (ns of the files, either\n" \
"                  may be left out): start <= END and end >= START\n" \
"  --retval [OP]VALUE\n"						\
"                  calls whose return value (record --retval) is OP\n"	\
"                  (<, <=, >, >=, ==, !=; default ==) VALUE: '<0',\n"	\
"                  '>=4096', -EAGAIN (error codes by name)\n"		\
"\n"									\
"Overhead compensation (Documentation/report-export.md, \"Compensation\"):\n" \
"  --compensate    take the tracer's own cost per call, which record\n" \
"                  measured (info.json's overhead), off every duration and\n" \
"                  timestamp shown; -t compares the compensated durations,\n" \
"                  --time-range stays in recorded time\n" \
"  --overhead PER_CALL_NS[,INSIDE_NS]\n" \
"                  the same with this cost per call, INSIDE_NS of it\n" \
"                  (default 0) between a call's own timestamps\n"

struct ng_filter;
/*
 * Handle option @c of getopt_long() (with opterr = 0 and an optstring
 * starting "+:") when it is a filter option, into @f: -1, or the exit
 * code of its usage error ("OPT wants ..., not 'VALUE'", the option named
 * as typed). Any other @c is ng_option_error()'s: a command calls this
 * for the options it does not know itself.
 */
int ng_filter_option(const struct ng_cmd *self, struct ng_filter *f, int c,
		     char **argv, const struct option *longopts);

/* ---- the steps replay, report and export share (cmd/filter_opts.c) ---- */

/*
 * Run @view with a new filter for its options, freed after it returns:
 * what cmd_replay(), cmd_report() and cmd_export() are.
 */
int ng_cmd_run_view(const struct ng_cmd *self, int argc, char **argv,
		    int (*view)(const struct ng_cmd *self, int argc,
				char **argv, struct ng_filter *f));
/*
 * After the options, the @argc operands @argv must be @nr recording
 * directories (a usage error otherwise): each is opened, warned about
 * when incomplete, then narrowed to @f's threads. 0 with @recs[0..@nr)
 * open, or an exit code with none open.
 */
int ng_cmd_open_views(const struct ng_cmd *self, int argc, char **argv,
		      const struct ng_filter *f, struct ng_recording *recs,
		      int nr);
/*
 * After a view: one line on stderr per recording of @recs whose
 * compensation clamped calls at 0 (the calibration overestimates them).
 */
void ng_cmd_say_clamped(const struct ng_cmd *self,
			const struct ng_recording *recs, int nr);
/*
 * @put(fp, @arg) into FILE @out through a temporary name, so that @out
 * only ever holds a whole view. @put returns 0, or an exit code after
 * its own error line; so does this.
 */
int ng_cmd_write_file(const struct ng_cmd *self, const char *out,
		      int (*put)(FILE *fp, void *arg), void *arg);

int cmd_status(const struct ng_cmd *self, int argc, char **argv);
int cmd_check(const struct ng_cmd *self, int argc, char **argv);
/* Each command's longer help lives with it, in cmd/<name>.c. */
extern const char ng_record_help[], ng_convert_help[], ng_report_help[],
	ng_export_help[], ng_info_help[], ng_replay_help[];

int cmd_record(const struct ng_cmd *self, int argc, char **argv);
int cmd_convert(const struct ng_cmd *self, int argc, char **argv);
int cmd_report(const struct ng_cmd *self, int argc, char **argv);
int cmd_export(const struct ng_cmd *self, int argc, char **argv);
int cmd_info(const struct ng_cmd *self, int argc, char **argv);
int cmd_replay(const struct ng_cmd *self, int argc, char **argv);

#endif /* NG_CMD_H */
