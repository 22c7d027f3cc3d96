// SPDX-License-Identifier: GPL-2.0
/*
 * replay.c - "nanograph replay": each thread's calls as a call tree, the
 * way function_graph, "trace-cmd report" and "uftrace replay" show them.
 * The tree is written by libnanograph (lib/replay.c) through the filters
 * (lib/filter.c); this file parses options and says what went wrong.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nanograph.h"
#include "cmd.h"

const char ng_replay_help[] =
"Options:\n"
"  --abstime       start each line with the timestamp of its event, in ns\n"
"                  as in the files (a call's start; a closing brace's end)\n"
"  -o, --output FILE\n"
"                  write to FILE (whole, through a temporary name) instead\n"
"                  of standard output; '-o -' is standard output\n"
"\n"
NG_FILTER_HELP("-t, ")
"\n"
"One block per thread (idle tasks by CPU, then by tid), headed by its tid,\n"
"pid and comm; one line per call in start order: its duration in us (on\n"
"a leaf 'f();' and on the closing '}' of a call that shows calls of its\n"
"own), then two spaces a level of depth. Past depth 50 the indentation\n"
"stops growing and the line shows its depth: '[N] f();'. Standard output\n"
"is written only once every file was checked.\n"
"A recording whose info.json says calls are missing (events lost, calls\n"
"skipped) gets one warning line on stderr: see 'nanograph info DIR'.\n"
"See Documentation/report-export.md.";

/* Write the tree to @fp; one line on stderr if it fails. */
static int replay_to(const struct ng_cmd *self, const struct ng_recording *rec,
		     FILE *fp, bool abstime, const char *out)
{
	struct ng_pp_bad bad = { 0 };
	int ret = ng_replay(rec, fp, abstime, &bad);

	if (ret && (bad.file || ret == -ENOMEM))
		ng_cmd_bad_input(self, rec, &bad, ret);
	else if (ret)
		fprintf(stderr, "nanograph %s: cannot write %s: %s\n",
			self->name, out, strerror(-ret));
	return ret ? NG_EXIT_FAIL : NG_EXIT_OK;
}

/*
 * Standard output cannot take back what it was given: every file is
 * checked first, so a bad one leaves it empty, as it leaves no -o FILE.
 */
static int replay_stdout(const struct ng_cmd *self,
			 const struct ng_recording *rec, bool abstime)
{
	struct ng_pp_bad bad = { 0 };
	int ret = ng_recording_check(rec, &bad);

	if (ret) {
		ng_cmd_bad_input(self, rec, &bad, ret);
		return NG_EXIT_FAIL;
	}
	ret = replay_to(self, rec, stdout, abstime, "to standard output");
	if (!ret && fflush(stdout)) {
		fprintf(stderr, "nanograph %s: cannot write to standard output: %s\n",
			self->name, strerror(errno));
		ret = NG_EXIT_FAIL;
	}
	return ret;
}

/* Through a temporary name, so FILE only ever holds a whole replay. */
static int replay_file(const struct ng_cmd *self,
		       const struct ng_recording *rec, bool abstime,
		       const char *out)
{
	struct ng_output *o;
	int ret = ng_output_open(&o, out);

	if (ret) {
		fprintf(stderr, "nanograph %s: cannot write %s: %s\n",
			self->name, out, strerror(-ret));
		return NG_EXIT_FAIL;
	}
	ret = replay_to(self, rec, ng_output_fp(o), abstime, out);
	if (ret) {
		ng_output_abort(o);
		return ret;
	}
	ret = ng_output_commit(o);
	if (ret)
		fprintf(stderr, "nanograph %s: cannot write %s: %s\n",
			self->name, out, strerror(-ret));
	return ret ? NG_EXIT_FAIL : NG_EXIT_OK;
}

/* Options and filters, the recording and its threads, then the tree. */
static int replay(const struct ng_cmd *self, int argc, char **argv,
		  struct ng_filter *f)
{
	enum { OPT_ABSTIME = 256 };
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "abstime", no_argument, NULL, OPT_ABSTIME },
		{ "output", required_argument, NULL, 'o' },
		NG_FILTER_LONGOPTS('t'),
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL;
	struct ng_recording rec;
	bool abstime = false;
	int c, ret;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:ho:t:D:F:N:", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'h':
			ng_cmd_help(self);
			return NG_EXIT_OK;
		case OPT_ABSTIME:
			abstime = true;
			break;
		case 'o':
			if (!*optarg)
				return ng_usage_error(self->name,
					"option '-o' needs a value");
			out = optarg;
			break;
		default:
			ret = ng_filter_option(self, f, c, argv, longopts);
			if (ret >= 0)
				return ret;
		}
	}
	if (argc - optind != 1)
		return ng_usage_error(self->name, argc == optind ?
				      "no recording directory given" :
				      "give one recording directory");
	if (ng_cmd_open_recording(self, argv[optind], &rec))
		return NG_EXIT_FAIL;
	ng_cmd_warn_incomplete(self, &rec);
	ret = ng_cmd_filter_recording(self, &rec, f);
	if (!ret && (!out || !strcmp(out, "-")))
		ret = replay_stdout(self, &rec, abstime);
	else if (!ret)
		ret = replay_file(self, &rec, abstime, out);
	ng_recording_close(&rec);
	return ret;
}

int cmd_replay(const struct ng_cmd *self, int argc, char **argv)
{
	struct ng_filter *f;
	int ret;

	if (ng_filter_new(&f)) {
		fprintf(stderr, "nanograph %s: %s\n", self->name, strerror(ENOMEM));
		return NG_EXIT_FAIL;
	}
	ret = replay(self, argc, argv, f);
	ng_filter_free(f);
	return ret;
}
