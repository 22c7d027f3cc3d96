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
void ng_cmd_help(const struct ng_cmd *self);
struct option;
/*
 * The usage error for getopt_long()'s ':' (a value missing) or '?' (an
 * unknown option, or a value given to one that takes none), with
 * opterr = 0 and an optstring starting "+:". Returns 2.
 */
int ng_option_error(const struct ng_cmd *self, int c, char **argv,
		    const struct option *longopts);
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
/* @ns in human units ("1.234 us", truncated), or the integer with @raw. */
const char *ng_fmt_time(char *buf, size_t size, uint64_t ns, bool raw);
/* The whole command line, for info.json (set by main()). */
extern int ng_argc;
extern char **ng_argv;

int cmd_status(const struct ng_cmd *self, int argc, char **argv);
int cmd_check(const struct ng_cmd *self, int argc, char **argv);
/* Each command's longer help lives with it, in cmd/<name>.c. */
extern const char ng_record_help[], ng_convert_help[], ng_report_help[],
	ng_export_help[], ng_info_help[];

int cmd_record(const struct ng_cmd *self, int argc, char **argv);
int cmd_convert(const struct ng_cmd *self, int argc, char **argv);
int cmd_report(const struct ng_cmd *self, int argc, char **argv);
int cmd_export(const struct ng_cmd *self, int argc, char **argv);
int cmd_info(const struct ng_cmd *self, int argc, char **argv);

#endif /* NG_CMD_H */
