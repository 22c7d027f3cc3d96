// SPDX-License-Identifier: GPL-2.0
/*
 * replay.c - "nanograph replay": each thread's calls as a call tree, the
 * way function_graph, "trace-cmd report" and "uftrace replay" show them.
 * The tree is written by libnanograph (lib/replay.c) through the filters
 * (lib/view_filter.c); this file parses options and says what went wrong.
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
"  --oncpu         durations count only the time on a CPU, as function_graph\n"
"                  with sleep-time off: a recording made with 'record\n"
"                  --sched' (its sched.tsv)\n"
"  --retaddr       each call's call site, as function_graph's\n"
"                  funcgraph-retaddr: a recording made with 'record\n"
"                  --retaddr' (its args.tsv)\n"
"  --errors        instead of the tree, where the error codes came from:\n"
"                  each path from a thread's outermost call to the call\n"
"                  that produced an error first, counted (a recording\n"
"                  made with 'record --retval')\n"
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
"is written only once every file was checked. In a flight snapshot\n"
"(record --flight) the call that fired the trigger ends its duration\n"
"line with '<== trigger'. A recording made with 'record --sched' says,\n"
"on the duration line of a call that was off the CPU, what its time was\n"
"made of and who woke it.\n"
"A recording whose info.json says calls are missing (events lost, calls\n"
"skipped) gets one warning line on stderr: see 'nanograph info DIR'.\n"
"See Documentation/report-export.md.";

/* What replay writes, and where: the argument of replay_to(). */
struct replay_view {
	const struct ng_cmd *self;
	const struct ng_recording *rec;
	const char *out;	/* -o FILE; "to standard output" once chosen */
	unsigned int flags;	/* NG_REPLAY_* */
	bool errors;		/* --errors: the error paths, not the tree */
};

/* The tree of @arg, a replay_view, to @fp; one line on stderr if it fails. */
static int replay_to(FILE *fp, void *arg)
{
	const struct replay_view *v = arg;
	struct ng_pp_bad bad = { 0 };
	int ret = v->errors ? ng_replay_errors(v->rec, fp, &bad) :
		  ng_replay(v->rec, fp, v->flags, &bad);

	if (ret && (bad.file || ret == -ENOMEM))
		ng_cmd_bad_input(v->self, v->rec, &bad, ret, "");
	else if (ret)
		fprintf(stderr, "nanograph %s: cannot write %s: %s\n",
			v->self->name, v->out, strerror(-ret));
	return ret ? NG_EXIT_FAIL : NG_EXIT_OK;
}

/*
 * Standard output cannot take back what it was given: every file is
 * checked first, so a bad one leaves it empty, as it leaves no -o FILE.
 */
static int replay_stdout(struct replay_view *v)
{
	struct ng_pp_bad bad = { 0 };
	int ret = ng_recording_check(v->rec, &bad);

	if (ret) {
		ng_cmd_bad_input(v->self, v->rec, &bad, ret, "");
		return NG_EXIT_FAIL;
	}
	v->out = "to standard output";
	ret = replay_to(stdout, v);
	if (!ret && fflush(stdout)) {
		fprintf(stderr, "nanograph %s: cannot write to standard output: %s\n",
			v->self->name, strerror(errno));
		ret = NG_EXIT_FAIL;
	}
	return ret;
}

/* Options and filters, the recording and its threads, then the tree. */
static int replay(const struct ng_cmd *self, int argc, char **argv,
		  struct ng_filter *f)
{
	enum { OPT_ABSTIME = 256, OPT_ONCPU, OPT_RETADDR, OPT_ERRORS };
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "abstime", no_argument, NULL, OPT_ABSTIME },
		{ "oncpu", no_argument, NULL, OPT_ONCPU },
		{ "retaddr", no_argument, NULL, OPT_RETADDR },
		{ "errors", no_argument, NULL, OPT_ERRORS },
		{ "output", required_argument, NULL, 'o' },
		NG_FILTER_LONGOPTS('t'),
		{ NULL, 0, NULL, 0 },
	};
	struct ng_recording rec;
	struct replay_view v = { .self = self, .rec = &rec };
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
			v.flags |= NG_REPLAY_ABSTIME;
			break;
		case OPT_ONCPU:
			v.flags |= NG_REPLAY_ONCPU;
			break;
		case OPT_RETADDR:
			v.flags |= NG_REPLAY_RETADDR;
			break;
		case OPT_ERRORS:
			v.errors = true;
			break;
		case 'o':
			ret = ng_opt_output(self, optarg, &v.out);
			if (ret >= 0)
				return ret;
			break;
		default:
			ret = ng_filter_option(self, f, c, argv, longopts);
			if (ret >= 0)
				return ret;
		}
	}
	ret = ng_cmd_open_views(self, argc - optind, argv + optind, f, &rec, 1);
	if (ret)
		return ret;
	if ((v.flags & NG_REPLAY_ONCPU) && !rec.sched) {
		ret = ng_usage_error(self->name,
				     "--oncpu needs a recording made with 'record --sched': %s has no sched.tsv",
				     rec.dir);
		ng_recording_close(&rec);
		return ret;
	}
	if (v.errors && !ng_values_have_retvals(rec.values)) {
		ret = ng_usage_error(self->name,
				     "--errors needs a recording made with 'record --retval': %s has no retval.tsv",
				     rec.dir);
		ng_recording_close(&rec);
		return ret;
	}
	if (!v.out || !strcmp(v.out, "-"))
		ret = replay_stdout(&v);
	else
		ret = ng_cmd_write_file(self, v.out, replay_to, &v);
	if (!ret)
		ng_cmd_say_clamped(self, &rec, 1);
	ng_recording_close(&rec);
	return ret;
}

int cmd_replay(const struct ng_cmd *self, int argc, char **argv)
{
	return ng_cmd_run_view(self, argc, argv, replay);
}
