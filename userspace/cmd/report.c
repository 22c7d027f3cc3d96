// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - "nanograph report": per-function calls, total, self, average
 * and maximum time of a recording, in the spirit of ftrace's function
 * profiler and "uftrace report". The numbers come from libnanograph
 * (analyze.c); this file parses options and prints tables.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nanograph.h"
#include "cmd.h"

const char ng_report_help[] =
"or:    nanograph report --diff [OPTIONS] OLD NEW\n"
"\n"
"Options:\n"
"  -s, --sort KEY  order of the rows: total (default), self, calls, avg,\n"
"                  max, oncpu, offcpu (largest first) or name; ties go by\n"
"                  name\n"
"  -t, --threads   one table per thread (tid order), headed by its tid,\n"
"                  pid and comm, instead of one for the whole recording\n"
"  -n N            only the first N rows of each table\n"
"  --ns            times as integer nanoseconds, for scripts\n"
"  -o, --output FILE\n"
"                  write the report to FILE (whole, through a temporary\n"
"                  name) instead of standard output; '-o -' is standard\n"
"                  output\n"
"  --diff          compare two recordings, OLD and NEW: per function the\n"
"                  calls, total, self and avg of each, the change (NEW -\n"
"                  OLD) and the change in % of OLD; a function on one side\n"
"                  only has 0 on the other and 'new' or 'gone' as %. Sorted\n"
"                  by the size of the change of the --sort column (total\n"
"                  by default; not max), or by name. On-CPU and off-CPU\n"
"                  columns follow when either was recorded with --sched.\n"
"                  The filters apply to OLD and NEW alike; not with\n"
"                  --threads, --tid or --time-range (one run's threads\n"
"                  and times)\n"
"\n"
NG_FILTER_HELP("    ")
"\n"
"Only the calls the filters show are counted, each with its own total\n"
"and self time.\n"
"\n"
"A recording whose info.json says calls are missing (events lost, calls\n"
"skipped) gets one warning line on stderr: see 'nanograph info DIR'.\n"
"\n"
"Total is a function's inclusive time summed over its calls; self is\n"
"total minus the time of the calls it made; avg is total / calls; max is\n"
"its longest single call. Each frame of a recursive function counts on\n"
"its own, so its total can exceed the time recorded. A recording made\n"
"with 'record --sched' has two more columns: of total, the time on a CPU\n"
"and off it (runnable or asleep). One made with 'record --retval' ends\n"
"with its errors: per function and error code, the calls that returned it.\n"
"See Documentation/report-export.md.";

/* The header and up to @limit rows of one profile. */
static int print_table(FILE *fp, struct ng_profile *p, enum ng_sort key,
		       uint64_t limit, bool raw, bool sched)
{
	const struct ng_func_stats *s;
	char a[32], b[32], c[32], d[32];
	size_t i, n;
	int ret = ng_profile_sorted(p, key, &s, &n);

	if (ret)
		return ret;
	fprintf(fp, "%12s %12s %10s %12s %12s  ", "Total", "Self", "Calls",
		"Avg", "Max");
	if (sched)
		fprintf(fp, "%12s %12s  ", "On-CPU", "Off-CPU");
	fputs("Function\n", fp);
	for (i = 0; i < n && i < limit; i++) {
		fprintf(fp, "%12s %12s %10" PRIu64 " %12s %12s  ",
			ng_fmt_time(a, sizeof(a), s[i].total_ns, raw),
			ng_fmt_time(b, sizeof(b), s[i].self_ns, raw), s[i].calls,
			ng_fmt_time(c, sizeof(c), s[i].avg_ns, raw),
			ng_fmt_time(d, sizeof(d), s[i].max_ns, raw));
		if (sched)
			fprintf(fp, "%12s %12s  ",
				ng_fmt_time(a, sizeof(a), s[i].on_cpu_ns, raw),
				ng_fmt_time(b, sizeof(b), s[i].off_cpu_ns, raw));
		ng_fputs_escaped(s[i].label, fp);
		fputc('\n', fp);
	}
	return 0;
}

/* "N calls, T recorded": what the summary lines have in common. */
static void print_counts(FILE *fp, uint64_t calls, uint64_t first,
			 uint64_t last, bool raw)
{
	char span[32];

	fprintf(fp, "%" PRIu64 " call%s, %s%s recorded\n", calls,
		calls == 1 ? "" : "s",
		ng_fmt_time(span, sizeof(span), last - first, raw),
		raw ? " ns" : "");
}

/*
 * Read every file into @nr profiles: one for all threads, or one per
 * thread. All files are read before anything is printed, so a bad file
 * fails the report without printing half of it.
 */
static int load(const struct ng_cmd *self, const struct ng_recording *rec,
		struct ng_profile **profs, size_t nr)
{
	struct ng_pp_bad bad = { 0 };
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < nr; i++)
		ret = ng_profile_new(&profs[i]);
	for (i = 0; !ret && i < rec->nr_threads; i++)
		ret = ng_profile_add_thread(profs[nr == 1 ? 0 : i], rec, i, &bad);
	if (ret)
		ng_cmd_bad_input(self, rec, &bad, ret, "");
	return ret;
}

/*
 * The summary line over the whole recording, then one table, or one per
 * thread with its own summary: what "report" prints.
 */
static int print_report(const struct ng_cmd *self, FILE *fp,
			const struct ng_recording *rec, bool threads,
			enum ng_sort key, uint64_t limit, bool raw)
{
	size_t nr = threads ? rec->nr_threads : 1, i;
	uint64_t calls = 0, first = UINT64_MAX, last = 0, c, f, l;
	struct ng_profile **profs = calloc(nr ? nr : 1, sizeof(*profs));
	int ret = profs ? load(self, rec, profs, nr) : -ENOMEM;

	if (!profs)
		fprintf(stderr, "nanograph report: %s\n", strerror(ENOMEM));
	for (i = 0; !ret && i < nr; i++) {
		ng_profile_totals(profs[i], &c, &f, &l);
		calls += c;
		if (c && f < first)
			first = f;
		if (c && l > last)
			last = l;
	}
	if (!ret) {
		fprintf(fp, "# %zu thread%s, ", rec->nr_threads,
			rec->nr_threads == 1 ? "" : "s");
		print_counts(fp, calls, calls ? first : 0, last, raw);
	}
	for (i = 0; !ret && i < nr; i++) {
		const struct ng_rec_thread *t = &rec->threads[i];

		if (threads) {
			char pid[16] = "?";

			if (t->pid >= 0)
				snprintf(pid, sizeof(pid), "%d", t->pid);
			ng_profile_totals(profs[i], &c, &f, &l);
			fprintf(fp, "\n# tid %s, pid %s, ", t->tid, pid);
			ng_fputs_escaped(t->comm, fp);
			fputs(": ", fp);
			print_counts(fp, c, f, l, raw);
		}
		ret = print_table(fp, profs[i], key, limit, raw, rec->sched);
		if (ret)
			fprintf(stderr, "nanograph report: %s\n", strerror(-ret));
	}
	/* With return values (record --retval): the errors, by function. */
	if (!ret && ng_values_have_retvals(rec->values)) {
		struct ng_pp_bad bad = { 0 };

		ret = ng_report_errors(rec, fp, &bad);
		if (ret)
			ng_cmd_bad_input(self, rec, &bad, ret, "");
	}
	for (i = 0; profs && i < nr; i++)
		ng_profile_free(profs[i]);
	free(profs);
	return ret ? NG_EXIT_FAIL : NG_EXIT_OK;
}

/* ---- report --diff ---- */

/* NEW - OLD with its sign ("+12", "-3", "0"), a time in its units. */
static const char *fmt_delta(char *buf, size_t size, uint64_t old,
			     uint64_t new, bool time, bool raw)
{
	uint64_t d = old > new ? old - new : new - old;
	char t[30];		/* 20 digits at most, or "18446744073.709 s" */

	if (time)
		ng_fmt_time(t, sizeof(t), d, raw);
	else
		snprintf(t, sizeof(t), "%" PRIu64, d);
	snprintf(buf, size, "%s%s", !d ? "" : new > old ? "+" : "-", t);
	return buf;
}

/*
 * The change in % of OLD, truncated to a tenth ("+12.5%"); "new" and
 * "gone" for a function called on one side only; "-" for a change from
 * 0, which is no percentage.
 */
static const char *fmt_pct(char *buf, size_t size, const struct ng_func_diff *r,
			   uint64_t old, uint64_t new)
{
	uint64_t d = old > new ? old - new : new - old, tenths;

	if (!r->in_old)
		return "new";
	if (!r->in_new)
		return "gone";
	if (!d)
		return "0.0%";
	if (!old)
		return "-";
	/* exact in 64 bits when it fits; a huge change needs no exact tenth */
	tenths = d <= UINT64_MAX / 1000 ? d * 1000 / old :
		 (uint64_t)((long double)d * 1000 / old);
	snprintf(buf, size, "%s%" PRIu64 ".%" PRIu64 "%%", new > old ? "+" : "-",
		 tenths / 10, tenths % 10);
	return buf;
}

/* Old, new, change and % of one time column. */
static void print_diff_times(FILE *fp, const struct ng_func_diff *r,
			     uint64_t old, uint64_t new, bool raw)
{
	char a[32], b[32], c[32], d[32];

	fprintf(fp, " %11s %11s %11s %8s", ng_fmt_time(a, sizeof(a), old, raw),
		ng_fmt_time(b, sizeof(b), new, raw),
		fmt_delta(c, sizeof(c), old, new, true, raw),
		fmt_pct(d, sizeof(d), r, old, new));
}

/*
 * The header, then up to @limit rows: calls, total, self, avg, and with
 * @sched (either side was recorded with --sched) on-CPU and off-CPU.
 */
static void print_diff_table(FILE *fp, const struct ng_func_diff *rows,
			     size_t n, uint64_t limit, bool raw, bool sched)
{
	static const char *const times[][2] = {
		{ "OldTotal", "NewTotal" }, { "OldSelf", "NewSelf" },
		{ "OldAvg", "NewAvg" }, { "OldOnCPU", "NewOnCPU" },
		{ "OldOffCPU", "NewOffCPU" },
	};
	const struct ng_func_diff *r;
	char a[32], b[32];
	size_t i;

	fprintf(fp, "%9s %9s %9s %8s", "OldCalls", "NewCalls", "Diff", "%");
	for (i = 0; i < (sched ? 5 : 3); i++)
		fprintf(fp, " %11s %11s %11s %8s", times[i][0], times[i][1],
			"Diff", "%");
	fprintf(fp, "  Function\n");
	for (i = 0; i < n && i < limit; i++) {
		r = &rows[i];
		fprintf(fp, "%9" PRIu64 " %9" PRIu64 " %9s %8s", r->old.calls,
			r->new.calls,
			fmt_delta(a, sizeof(a), r->old.calls, r->new.calls, false, raw),
			fmt_pct(b, sizeof(b), r, r->old.calls, r->new.calls));
		print_diff_times(fp, r, r->old.total_ns, r->new.total_ns, raw);
		print_diff_times(fp, r, r->old.self_ns, r->new.self_ns, raw);
		print_diff_times(fp, r, r->old.avg_ns, r->new.avg_ns, raw);
		if (sched) {
			print_diff_times(fp, r, r->old.on_cpu_ns,
					 r->new.on_cpu_ns, raw);
			print_diff_times(fp, r, r->old.off_cpu_ns,
					 r->new.off_cpu_ns, raw);
		}
		fputs("  ", fp);
		ng_fputs_escaped(r->label, fp);
		fputc('\n', fp);
	}
}

/*
 * "report --diff OLD NEW": one profile per recording (memory in distinct
 * functions, as report), a summary line for each, then the table.
 */
static int print_diff(const struct ng_cmd *self, FILE *fp,
		      const struct ng_recording *recs, enum ng_sort key,
		      uint64_t limit, bool raw)
{
	struct ng_profile *p[2] = { NULL, NULL };
	struct ng_func_diff *rows = NULL;
	uint64_t c, f, l;
	size_t i, n = 0;
	int ret = load(self, &recs[0], &p[0], 1);

	if (!ret)
		ret = load(self, &recs[1], &p[1], 1);
	if (!ret) {
		ret = ng_profile_diff(p[0], p[1], key, &rows, &n);
		if (ret)
			fprintf(stderr, "nanograph report: %s\n", strerror(-ret));
	}
	for (i = 0; !ret && i < 2; i++) {
		ng_profile_totals(p[i], &c, &f, &l);
		fprintf(fp, "# %s ", i ? "new" : "old");
		ng_fputs_escaped(recs[i].dir, fp);
		fprintf(fp, ": %zu thread%s, ", recs[i].nr_threads,
			recs[i].nr_threads == 1 ? "" : "s");
		print_counts(fp, c, f, l, raw);
	}
	if (!ret)
		print_diff_table(fp, rows, n, limit, raw,
				 recs[0].sched || recs[1].sched);
	free(rows);
	ng_profile_free(p[0]);
	ng_profile_free(p[1]);
	return ret ? NG_EXIT_FAIL : NG_EXIT_OK;
}

/* What report prints, and how: the argument of print_any(). */
struct report_view {
	const struct ng_cmd *self;
	const struct ng_recording *recs;
	enum ng_sort key;
	uint64_t limit;
	bool diff, threads, raw;
};

/* The report or the diff of @arg, a report_view, into @fp. */
static int print_any(FILE *fp, void *arg)
{
	const struct report_view *v = arg;

	if (v->diff)
		return print_diff(v->self, fp, v->recs, v->key, v->limit,
				  v->raw);
	return print_report(v->self, fp, v->recs, v->threads, v->key,
			    v->limit, v->raw);
}

/*
 * What --diff cannot do, as a usage error (an exit status), or -1: thread
 * ids and timestamps are one run's; comms and calls are not. @tid and
 * @range: --tid or --time-range was given; @nr_args, the recordings.
 */
static int diff_refused(const struct ng_cmd *self, const struct report_view *v,
			bool tid, bool range, int nr_args)
{
	if (!v->diff)
		return -1;
	if (v->threads)
		return ng_usage_error(self->name,
				      "--diff compares whole recordings: not with --threads");
	if (tid)
		return ng_usage_error(self->name,
				      "--diff compares two runs, whose thread ids differ: not with --tid (--comm chooses threads by name)");
	if (range)
		return ng_usage_error(self->name,
				      "--diff compares two runs, whose timestamps differ: not with --time-range");
	if (v->key == NG_SORT_MAX)
		return ng_usage_error(self->name,
				      "--diff has no max column: sort by total, self, calls, avg, oncpu, offcpu or name");
	if (nr_args != 2)
		return ng_usage_error(self->name,
				      "--diff compares two recordings: give OLD and NEW");
	return -1;
}

/* Options and filters into @v, @f and *@out: -1 to go on, or the exit status. */
static int report_options(const struct ng_cmd *self, int argc, char **argv,
			  struct ng_filter *f, struct report_view *v,
			  const char **out)
{
	enum { OPT_NS = 256, OPT_DIFF };
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "sort", required_argument, NULL, 's' },
		{ "threads", no_argument, NULL, 't' },
		{ "ns", no_argument, NULL, OPT_NS },
		{ "output", required_argument, NULL, 'o' },
		{ "diff", no_argument, NULL, OPT_DIFF },
		NG_FILTER_LONGOPTS(NG_OPT_THRESHOLD),
		{ NULL, 0, NULL, 0 },
	};
	bool tid = false, range = false;	/* one run's, refused by --diff */
	int c, ret;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:hs:tn:o:D:F:N:", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'h':
			ng_cmd_help(self);
			return NG_EXIT_OK;
		case 's':
			if (ng_sort_parse(optarg, &v->key))
				return ng_usage_error(self->name,
					"--sort wants total, self, calls, avg, max, oncpu, offcpu or name, not '%s'",
					optarg);
			break;
		case 't':
			v->threads = true;
			break;
		case 'n':
			ret = ng_opt_num(self, "-n", optarg, 0, 0, INT_MAX,
					 "a number of rows", &v->limit);
			if (ret >= 0)
				return ret;
			break;
		case OPT_NS:
			v->raw = true;
			break;
		case OPT_DIFF:
			v->diff = true;
			break;
		case 'o':
			ret = ng_opt_output(self, optarg, out);
			if (ret >= 0)
				return ret;
			break;
		default:
			ret = ng_filter_option(self, f, c, argv, longopts);
			if (ret >= 0)
				return ret;
			tid |= c == NG_OPT_TID;
			range |= c == NG_OPT_RANGE;
		}
	}
	return diff_refused(self, v, tid, range, argc - optind);
}

/* Options and filters, the recording, the tables; errors as one line. */
static int report(const struct ng_cmd *self, int argc, char **argv,
		  struct ng_filter *f)
{
	struct ng_recording recs[2];
	struct report_view v = {
		.self = self, .recs = recs, .key = NG_SORT_TOTAL,
		.limit = UINT64_MAX,
	};
	const char *out = NULL;
	int ret, i, nr;

	ret = report_options(self, argc, argv, f, &v, &out);
	if (ret >= 0)
		return ret;
	nr = v.diff ? 2 : 1;
	ret = ng_cmd_open_views(self, argc - optind, argv + optind, f, recs,
				nr);
	if (ret)
		return ret;
	if (!out || !strcmp(out, "-"))
		ret = print_any(stdout, &v);
	else
		ret = ng_cmd_write_file(self, out, print_any, &v);
	if (!ret)
		ng_cmd_say_clamped(self, recs, nr);
	for (i = 0; i < nr; i++)
		ng_recording_close(&recs[i]);
	return ret;
}

int cmd_report(const struct ng_cmd *self, int argc, char **argv)
{
	return ng_cmd_run_view(self, argc, argv, report);
}
