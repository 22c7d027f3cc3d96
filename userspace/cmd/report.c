// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - "nanograph report": per-function calls, total, self, average
 * and maximum time of a recording, in the spirit of ftrace's function
 * profiler and "uftrace report".
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nanograph.h"
#include "cmd.h"

const char ng_report_help[] =
"Options:\n"
"  -s, --sort KEY  total (default), self, calls, avg, max or name\n"
"  -t, --threads   one table per thread instead of one for all\n"
"  -n N            only the first N functions of each table\n"
"  --ns            times as integer nanoseconds (for scripts)\n"
"\n"
"Total is a function's inclusive time, summed over its calls; self is\n"
"total minus the time of the calls it made; avg is total / calls; max is\n"
"its longest single call. A recursive function's calls each count on\n"
"their own, so its total can exceed the recording's span.";

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
	while (u < 3 && ns >= scale * 1000) {
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

/* One table: the header line, then a row per function. */
static void print_table(const struct ng_func_stats *s, size_t n, long limit,
			bool raw)
{
	char a[32], b[32], c[32], d[32];
	size_t i;

	printf("%12s %12s %10s %12s %12s  %s\n", "Total", "Self", "Calls",
	       "Avg", "Max", "Function");
	for (i = 0; i < n && (limit < 0 || (long)i < limit); i++)
		printf("%12s %12s %10" PRIu64 " %12s %12s  %s\n",
		       fmt_time(a, sizeof(a), s[i].total_ns, raw),
		       fmt_time(b, sizeof(b), s[i].self_ns, raw), s[i].calls,
		       fmt_time(c, sizeof(c), s[i].total_ns / s[i].calls, raw),
		       fmt_time(d, sizeof(d), s[i].max_ns, raw), s[i].label);
}

/* Add files [from, to) of @rec to @p; one error line on a bad file. */
static int add_files(struct ng_profile *p, const struct ng_recording *rec,
		     size_t from, size_t to)
{
	char path[4096];
	uint64_t line;
	size_t i;
	int ret;

	for (i = from; i < to; i++) {
		snprintf(path, sizeof(path), "%s/%s", rec->dir, rec->threads[i].file);
		ret = ng_profile_add_file(p, path, &line);
		if (ret == -EBADMSG) {
			fprintf(stderr, "nanograph report: %s:%" PRIu64 ": not a valid push/pop line (see 'nanograph check %s')\n",
				path, line, path);
			return NG_EXIT_FAIL;
		}
		if (ret) {
			fprintf(stderr, "nanograph report: %s: %s\n", path, strerror(-ret));
			return NG_EXIT_FAIL;
		}
	}
	return 0;
}

/* The summary line and one table over files [from, to). */
static int report(const struct ng_recording *rec, size_t from, size_t to,
		  enum ng_sort key, long limit, bool raw)
{
	const struct ng_func_stats *s;
	struct ng_profile *p;
	uint64_t calls, first, last;
	char span[32];
	size_t n;
	int ret;

	if (ng_profile_new(&p))
		return NG_EXIT_FAIL;
	ret = add_files(p, rec, from, to);
	s = ret ? NULL : ng_profile_sorted(p, key, &n);
	if (!ret && s) {
		ng_profile_totals(p, &calls, &first, &last);
		printf("# %zu thread%s, %" PRIu64 " calls, %s%s recorded\n",
		       to - from, to - from == 1 ? "" : "s", calls,
		       fmt_time(span, sizeof(span), last - first, raw),
		       raw ? " ns" : "");
		print_table(s, n, limit, raw);
	}
	ng_profile_free(p);
	return ret ? ret : (s ? NG_EXIT_OK : NG_EXIT_FAIL);
}

int cmd_report(const struct ng_cmd *self, int argc, char **argv)
{
	enum { OPT_NS = 256 };
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "sort", required_argument, NULL, 's' },
		{ "threads", no_argument, NULL, 't' },
		{ "ns", no_argument, NULL, OPT_NS },
		{ NULL, 0, NULL, 0 },
	};
	enum ng_sort key = NG_SORT_TOTAL;
	bool threads = false, raw = false;
	struct ng_recording rec;
	long limit = -1;
	char *end;
	size_t i;
	int c, ret;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+hs:tn:", longopts, NULL)) != -1) {
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
			errno = 0;
			limit = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || limit < 0)
				return ng_usage_error(self->name,
					"-n wants a count, not '%s'", optarg);
			break;
		case OPT_NS:
			raw = true;
			break;
		default:
			if (optopt && strchr("sn", optopt))
				return ng_usage_error(self->name,
					"option '-%c' needs a value", optopt);
			return ng_usage_error(self->name, "unknown option '%s'",
					      argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return ng_usage_error(self->name, "give one recording directory");
	if (ng_cmd_open_recording(self, argv[optind], &rec))
		return NG_EXIT_FAIL;
	if (!threads) {
		ret = report(&rec, 0, rec.nr_threads, key, limit, raw);
	} else {
		for (i = 0, ret = 0; i < rec.nr_threads && !ret; i++) {
			printf("%s# thread %s, pid %d, %s\n", i ? "\n" : "",
			       rec.threads[i].tid, rec.threads[i].pid,
			       rec.threads[i].comm);
			ret = report(&rec, i, i + 1, key, limit, raw);
		}
	}
	ng_recording_close(&rec);
	return ret;
}
