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
"Options:\n"
"  -s, --sort KEY  order of the rows: total (default), self, calls, avg,\n"
"                  max (largest first) or name; ties go by name\n"
"  -t, --threads   one table per thread (tid order), headed by its tid,\n"
"                  pid and comm, instead of one for the whole recording\n"
"  -n N            only the first N rows of each table\n"
"  --ns            times as integer nanoseconds, for scripts\n"
"  -o, --output FILE\n"
"                  write the report to FILE (whole, through a temporary\n"
"                  name) instead of standard output; '-o -' is standard\n"
"                  output\n"
"\n"
NG_FILTER_HELP("    ")
"\n"
"Only the calls the filters show are counted, each with its own total\n"
"and self time.\n"
"\n"
"Total is a function's inclusive time summed over its calls; self is\n"
"total minus the time of the calls it made; avg is total / calls; max is\n"
"its longest single call. Each frame of a recursive function counts on\n"
"its own, so its total can exceed the time recorded.\n"
"See Documentation/report-export.md.";

/* 1234 ns as "1.234 us", like uftrace; or the integer with --ns. */
static const char *fmt_time(char *buf, size_t size, uint64_t ns, bool raw)
{
	static const char *const unit[] = { "ns", "us", "ms", "s" };
	uint64_t scale = 1;
	int u = 0;

	if (raw) {
		snprintf(buf, size, "%" PRIu64, ns);
		return buf;
	}
	while (u < 3 && ns / scale >= 1000) {
		scale *= 1000;
		u++;
	}
	if (!u)
		snprintf(buf, size, "%" PRIu64 " ns", ns);
	else
		snprintf(buf, size, "%" PRIu64 ".%03" PRIu64 " %s", ns / scale,
			 ns % scale / (scale / 1000), unit[u]);
	return buf;
}

/* The header and up to @limit rows of one profile. */
static int print_table(FILE *fp, struct ng_profile *p, enum ng_sort key,
		       uint64_t limit, bool raw)
{
	const struct ng_func_stats *s;
	char a[32], b[32], c[32], d[32];
	size_t i, n;
	int ret = ng_profile_sorted(p, key, &s, &n);

	if (ret)
		return ret;
	fprintf(fp, "%12s %12s %10s %12s %12s  %s\n", "Total", "Self",
		"Calls", "Avg", "Max", "Function");
	for (i = 0; i < n && i < limit; i++)
		fprintf(fp, "%12s %12s %10" PRIu64 " %12s %12s  %s\n",
			fmt_time(a, sizeof(a), s[i].total_ns, raw),
			fmt_time(b, sizeof(b), s[i].self_ns, raw), s[i].calls,
			fmt_time(c, sizeof(c), s[i].avg_ns, raw),
			fmt_time(d, sizeof(d), s[i].max_ns, raw), s[i].label);
	return 0;
}

/* "N calls, T recorded": what the summary lines have in common. */
static void print_counts(FILE *fp, uint64_t calls, uint64_t first,
			 uint64_t last, bool raw)
{
	char span[32];

	fprintf(fp, "%" PRIu64 " call%s, %s%s recorded\n", calls,
		calls == 1 ? "" : "s",
		fmt_time(span, sizeof(span), last - first, raw),
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
		ng_cmd_bad_input(self, rec, &bad, ret);
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
			fprintf(fp, "\n# tid %s, pid %s, %s: ", t->tid, pid,
				t->comm);
			print_counts(fp, c, f, l, raw);
		}
		ret = print_table(fp, profs[i], key, limit, raw);
		if (ret)
			fprintf(stderr, "nanograph report: %s\n", strerror(-ret));
	}
	for (i = 0; profs && i < nr; i++)
		ng_profile_free(profs[i]);
	free(profs);
	return ret ? NG_EXIT_FAIL : NG_EXIT_OK;
}

/* Options and filters, the recording, the tables; errors as one line. */
static int report(const struct ng_cmd *self, int argc, char **argv,
		  struct ng_filter *f)
{
	enum { OPT_NS = 256 };
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "sort", required_argument, NULL, 's' },
		{ "threads", no_argument, NULL, 't' },
		{ "ns", no_argument, NULL, OPT_NS },
		{ "output", required_argument, NULL, 'o' },
		NG_FILTER_LONGOPTS(NG_OPT_THRESHOLD),
		{ NULL, 0, NULL, 0 },
	};
	enum ng_sort key = NG_SORT_TOTAL;
	bool threads = false, raw = false;
	const char *out = NULL;
	struct ng_recording rec;
	struct ng_output *o;
	uint64_t limit = UINT64_MAX;
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
			if (ng_sort_parse(optarg, &key))
				return ng_usage_error(self->name,
					"--sort wants total, self, calls, avg, max or name, not '%s'",
					optarg);
			break;
		case 't':
			threads = true;
			break;
		case 'n':
			ret = ng_opt_num(self, "-n", optarg, 0, 0, INT_MAX,
					 "a number of rows", &limit);
			if (ret >= 0)
				return ret;
			break;
		case OPT_NS:
			raw = true;
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
	if (ng_cmd_filter_recording(self, &rec, f)) {
		ng_recording_close(&rec);
		return NG_EXIT_FAIL;
	}
	if (!out || !strcmp(out, "-")) {
		ret = print_report(self, stdout, &rec, threads, key, limit, raw);
		ng_recording_close(&rec);
		return ret;
	}
	/* A file: whole or not at all, like an export. */
	ret = ng_output_open(&o, out);
	if (ret) {
		ng_recording_close(&rec);
		fprintf(stderr, "nanograph report: cannot write %s: %s\n", out,
			strerror(-ret));
		return NG_EXIT_FAIL;
	}
	ret = print_report(self, ng_output_fp(o), &rec, threads, key, limit,
			   raw);
	ng_recording_close(&rec);
	if (ret) {
		ng_output_abort(o);
		return ret;
	}
	ret = ng_output_commit(o);
	if (ret)
		fprintf(stderr, "nanograph report: cannot write %s: %s\n", out,
			strerror(-ret));
	return ret ? NG_EXIT_FAIL : NG_EXIT_OK;
}

int cmd_report(const struct ng_cmd *self, int argc, char **argv)
{
	struct ng_filter *f;
	int ret;

	if (ng_filter_new(&f)) {
		fprintf(stderr, "nanograph %s: %s\n", self->name, strerror(ENOMEM));
		return NG_EXIT_FAIL;
	}
	ret = report(self, argc, argv, f);
	ng_filter_free(f);
	return ret;
}
