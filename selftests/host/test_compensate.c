// SPDX-License-Identifier: GPL-2.0
/*
 * test_compensate.c - overhead compensation: info.json's overhead
 * written and read back (null when record did not calibrate), "nanograph
 * info" showing it, and report, replay and export --compensate (and
 * --overhead by hand) on a small recording whose compensated times are
 * worked out by hand below.
 *
 * The recording, thread 1, with O = 100 ns per call, I = 20 inside:
 *
 *   a [1000,3000]            D 2000, 4 below, 2 children
 *     b [1100,2000]          D  900, 2 below, 2 children
 *       c [1200,1500]        D  300, a leaf
 *       d [1600,1700]        D  100, a leaf, c's sibling
 *     e [2100,2300]          D  200, a leaf
 *   f [3100,3400]            D  300, 1 below (closed at the end)
 *     g [3200,3400]          D  200, a leaf (closed at the end)
 *
 * inclusive D - I - O x below, self (D - children's D) - I - (O - I) x
 * children:
 *
 *   a 2000 - 20 - 400 = 1580    self  900 - 20 - 2 x 80 = 720
 *   b  900 - 20 - 200 =  680    self  500 - 20 - 2 x 80 = 320
 *   c  300 - 20       =  280    self 280
 *   d  100 - 20       =   80    self 80
 *   e  200 - 20       =  180    self 180
 *   f  300 - 20 - 100 =  180    self  100 - 20 - 80     =   0
 *   g  200 - 20       =  180    self 180
 *
 * On the timeline (Chrome, Perfetto) the k-th event moves back by
 * k x 50, plus 40 for a push or 10 for a pop: a 960..2540, b 1010..1690,
 * c 1060..1340, d 1360..1440, e 1710..1890, f 2560.., g 2610..2790; f's
 * POP (3400 - 660 = 2740) would come before g's, so it stays at 2790.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nanograph.h"
#include "ktap.h"
#include "t_util.h"

static const char thread1[] =
	"1000:+a\n1100:+b\n1200:+c\n1500:POP\n1600:+d\n1700:POP\n2000:POP\n"
	"2100:+e\n2300:POP\n3000:POP\n3100:+f\n3200:+g\n3400:POP\n3400:POP\n";

/* A call that the calibration overestimates, and its caller. */
static const char clamped[] = "5000:+h\n5010:+i\n5020:POP\n5030:POP\n";

#define INFO_100_20 \
	"{\"format\": 1, \"overhead\": {\"per_call_ns\": 100.0, " \
	"\"inside_ns\": 20.0, \"calls\": 3000, \"function\": \"ng_calib_target\"}}\n"

/* <tmpdir>/@name holding thread 1 and info.json @info (none if NULL). */
static void make(char *dir, size_t size, const char *name, const char *info)
{
	T_EQ_INT(t_make_rec(dir, size, name, "1.txt", thread1,
			    info ? "info.json" : NULL, info, NULL), 0);
}

/* One row of "report --ns". */
static void row(char *buf, size_t size, uint64_t total, uint64_t self,
		const char *name)
{
	size_t n = strlen(buf);

	snprintf(buf + n, size - n, "%12" PRIu64 " %12" PRIu64 " %10d %12" PRIu64
		 " %12" PRIu64 "  %s\n", total, self, 1, total, total, name);
}

static const char report_head[] =
	"       Total         Self      Calls          Avg          Max  Function\n";

/* The compensated report of thread 1. */
static void report_want(char *want, size_t size, const char *span)
{
	snprintf(want, size, "# 1 thread, 7 calls, %s ns recorded\n%s", span,
		 report_head);
	row(want, size, 1580, 720, "a");
	row(want, size, 680, 320, "b");
	row(want, size, 280, 280, "c");
	row(want, size, 180, 180, "e");
	row(want, size, 180, 0, "f");
	row(want, size, 180, 180, "g");
	row(want, size, 80, 80, "d");
}

/* The clamping line for @n calls of @dir. */
static void clamp_line(char *buf, size_t size, const char *cmd,
		       const char *dir, int n)
{
	snprintf(buf, size, "nanograph %s: %s: %d calls came out below 0 after compensation and were shown as 0: the calibration overestimates the cost for them\n",
		 cmd, dir, n);
}

/* ---- info.json ---- */

/* A summary for ng_info_write(), its counts of no interest here. */
static struct ng_conv_summary summary(void)
{
	struct ng_conv_summary s = { .threads = 1, .pushes = 1, .events = 2 };

	return s;
}

/* Written as an object, read back the same; null when there is none. */
static void test_info_round_trip(void)
{
	static const char *const argv[] = { "nanograph", "record" };
	struct ng_conv_summary sum = summary();
	struct ng_overhead o = {
		.per_call_ns = 812.5, .inside_ns = 301.2, .calls = 3000,
		.function = "__x64_sys_ni_syscall",
	}, back;
	struct ng_info info = {
		.source = "record", .argc = 2, .argv = (char *const *)argv,
		.sum = &sum, .overhead = &o,
	};
	char fn[64];

	T_EQ_INT(ng_info_write(t_tmpdir(), &info), 0);
	T_FILE_HAS(t_path("info.json"),
		   "  },\n"
		   "  \"overhead\": {\n"
		   "    \"per_call_ns\": 812.5,\n"
		   "    \"inside_ns\": 301.2,\n"
		   "    \"calls\": 3000,\n"
		   "    \"function\": \"__x64_sys_ni_syscall\"\n"
		   "  },\n"
		   "  \"first_ns\": ");
	T_ASSERT(t_json_ok(t_path("info.json"),
			   "assert j['overhead']=={'per_call_ns':812.5,'inside_ns':301.2,'calls':3000,'function':'__x64_sys_ni_syscall'},j['overhead']"));
	memset(&back, 0, sizeof(back));
	T_EQ_INT(ng_info_read_overhead(t_tmpdir(), &back, fn, sizeof(fn)), 0);
	T_ASSERT(back.per_call_ns == 812.5);
	T_ASSERT(back.inside_ns == 301.2);
	T_EQ_U64(back.calls, 3000);
	T_ASSERT(back.function == fn);
	T_EQ_STR(fn, "__x64_sys_ni_syscall");

	/* not calibrated: null, and nothing to read */
	info.overhead = NULL;
	T_EQ_INT(ng_info_write(t_tmpdir(), &info), 0);
	T_FILE_HAS(t_path("info.json"), "  },\n  \"overhead\": null,\n  \"first_ns\": ");
	T_EQ_INT(ng_info_read_overhead(t_tmpdir(), &back, fn, sizeof(fn)), -ENOENT);
}

/* "nanograph info" lists it with the other fields; null as '-'. */
static void test_info_cmd_shows_overhead(void)
{
	struct ng_conv_summary sum = summary();
	struct ng_overhead o = { 812.5, 301.2, 3000, "__x64_sys_ni_syscall" };
	struct ng_info info = { .source = "record", .sum = &sum, .overhead = &o };
	struct t_result r;
	char dir[600];
	bool ok;

	make(dir, sizeof(dir), "rec", NULL);
	T_EQ_INT(ng_info_write(dir, &info), 0);
	r = t_ng("info", dir, NULL);
	ok = r.status == 0 && r.out &&
	     strstr(r.out, "\noverhead.per_call_ns:    812.5\n") &&
	     strstr(r.out, "\noverhead.inside_ns:      301.2\n") &&
	     strstr(r.out, "\noverhead.calls:          3000\n") &&
	     strstr(r.out, "\noverhead.function:       __x64_sys_ni_syscall\n");
	if (!ok)
		t_diag("info: %s", r.out ? t_escape(r.out, strlen(r.out)) : "?");
	t_result_free(&r);
	T_ASSERT(ok);

	info.overhead = NULL;
	T_EQ_INT(ng_info_write(dir, &info), 0);
	r = t_ng("info", dir, NULL);
	ok = r.status == 0 && r.out && strstr(r.out, "\noverhead:  ") &&
	     strstr(r.out, " -\nfirst_ns:");
	if (!ok)
		t_diag("info: %s", r.out ? t_escape(r.out, strlen(r.out)) : "?");
	t_result_free(&r);
	T_ASSERT(ok);
}

/* What the reader refuses, and what it takes as no overhead at all. */
static void test_info_reader_errors(void)
{
	static const struct {
		const char *json;
		int ret;
	} cases[] = {
		{ "{\"format\": 1}", -ENOENT },
		{ "{\"overhead\": null}", -ENOENT },
		{ "{\"overhead\": 5}", -EINVAL },
		{ "{\"overhead\": \"812\"}", -EINVAL },
		{ "{\"overhead\": {}}", -EINVAL },
		{ "{\"overhead\": {\"calls\": 3}}", -EINVAL },
		{ "{\"overhead\": {\"per_call_ns\": 10}}", -EINVAL },
		{ "{\"overhead\": {\"per_call_ns\": null, \"inside_ns\": 0}}", -EINVAL },
		{ "{\"overhead\": {\"per_call_ns\": -1, \"inside_ns\": 0}}", -EINVAL },
		{ "{\"overhead\": {\"per_call_ns\": 1e3, \"inside_ns\": 0}}", -EINVAL },
		{ "{\"overhead\": {\"per_call_ns\": \"10\", \"inside_ns\": 0}}", -EINVAL },
		{ "{\"overhead\": {\"per_call_ns\": 10, \"inside_ns\": 20}}", -EINVAL },
		{ "{\"overhead\": {\"per_call_ns\": 10.1234, \"inside_ns\": 0}}", -EINVAL },
		{ "{\"overhead\": {\"per_call_ns\": 1000000000, \"inside_ns\": 0}}", -EINVAL },
		{ "{\"overhead\": {\"per_call_ns\": 10, \"inside_ns\": 0, \"calls\": -3}}", -EINVAL },
		{ "{\"overhead\": {\"per_call_ns\": 10, \"inside_ns\": 0, \"function\": 3}}", -EINVAL },
		{ "{\"overhead\": {\"per_call_ns\": 10", -EINVAL },
		{ "{\"overhead\": {\"per_call_ns\": 10, \"inside_ns\": 10}}", 0 },
	};
	struct ng_overhead o;
	char fn[8];
	size_t i;

	T_EQ_INT(ng_info_read_overhead(t_path("none"), &o, fn, sizeof(fn)), -ENOENT);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		T_EQ_INT(t_write_file(t_path("info.json"), cases[i].json), 0);
		if (ng_info_read_overhead(t_tmpdir(), &o, fn, sizeof(fn)) != cases[i].ret)
			t_diag("%s", cases[i].json);
		T_EQ_INT(ng_info_read_overhead(t_tmpdir(), &o, fn, sizeof(fn)),
			 cases[i].ret);
	}
	/* the last one: no calls, no function */
	T_ASSERT(o.per_call_ns == 10 && o.inside_ns == 10 && !o.calls);
	T_EQ_STR(o.function, "");
}

/* ---- the library ---- */

/* --overhead's values: ng_parse_num()'s numbers, and nothing else. */
static void test_parse_overhead(void)
{
	static const char *const bad[] = {
		"", ",", "abc", "-1", "+1", " 1", "1 ", "1e3", "0x10", "nan",
		"inf", "1.", ".5", "1.2345", "1000000000", "100,", ",5",
		"100,200", "100,20,3", "100;20", "1,2,", "99999999999999999999999",
	};
	double o, in;
	size_t i;

	T_EQ_INT(ng_parse_overhead("812.5,301.25", &o, &in), 0);
	T_ASSERT(o == 812.5 && in == 301.25);
	T_EQ_INT(ng_parse_overhead("100", &o, &in), 0);
	T_ASSERT(o == 100 && in == 0);
	T_EQ_INT(ng_parse_overhead("999999999.999,0", &o, &in), 0);
	T_EQ_INT(ng_parse_overhead("0,0", &o, &in), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (ng_parse_overhead(bad[i], &o, &in) != -EINVAL)
			t_diag("'%s' taken", bad[i]);
		T_EQ_INT(ng_parse_overhead(bad[i], &o, &in), -EINVAL);
	}
}

/* The walk counts what is below each call, whatever the filters show. */
static void test_walk_counts(void)
{
	struct ng_recording rec;
	struct ng_profile *p;
	const struct ng_func_stats *s;
	size_t n;
	char dir[600];

	make(dir, sizeof(dir), "rec", NULL);
	T_EQ_INT(ng_recording_open(&rec, dir), 0);
	T_EQ_INT(ng_recording_compensate(&rec, 10, 20), -EINVAL);
	T_EQ_INT(ng_recording_compensate(&rec, -1, 0), -EINVAL);
	T_EQ_INT(ng_recording_compensate(&rec, 100, 20), 0);
	T_EQ_INT(ng_profile_new(&p), 0);
	T_EQ_INT(ng_profile_add_thread(p, &rec, 0, NULL), 0);
	T_EQ_INT(ng_profile_sorted(p, NG_SORT_NAME, &s, &n), 0);
	T_EQ_U64(n, 7);
	T_EQ_STR(s[0].label, "a");
	T_EQ_U64(s[0].total_ns, 1580);
	T_EQ_U64(s[0].self_ns, 720);
	T_EQ_STR(s[5].label, "f");
	T_EQ_U64(s[5].total_ns, 180);
	T_EQ_U64(s[5].self_ns, 0);
	T_EQ_U64(rec.comp->clamped, 0);
	ng_profile_free(p);
	ng_recording_close(&rec);
}

/* ---- the commands ---- */

/* report: every column compensated, from info.json or by hand. */
static void test_report(void)
{
	char dir[600], plain[600], want[2048];

	make(dir, sizeof(dir), "rec", INFO_100_20);
	report_want(want, sizeof(want), "1830");
	T_RUN(t_ng("report", "--ns", "--compensate", dir, NULL), 0, want, "");
	/* by hand, on a recording without info.json; either order */
	make(plain, sizeof(plain), "plain", NULL);
	T_RUN(t_ng("report", "--ns", "--overhead", "100,20", plain, NULL), 0,
	      want, "");
	T_RUN(t_ng("report", "--ns", "--overhead=100,20", "--compensate", plain,
		   NULL), 0, want, "");
	/* by hand wins over info.json: 50 per call, none inside */
	snprintf(want, sizeof(want), "# 1 thread, 7 calls, 2125 ns recorded\n%s",
		 report_head);
	row(want, sizeof(want), 1800, 800, "a");
	T_RUN(t_ng("report", "--ns", "-n", "1", "--compensate", "--overhead", "50",
		   dir, NULL), 0, want, "");
	/* without: as recorded */
	snprintf(want, sizeof(want), "# 1 thread, 7 calls, 2400 ns recorded\n%s",
		 report_head);
	row(want, sizeof(want), 2000, 900, "a");
	T_RUN(t_ng("report", "--ns", "-n", "1", dir, NULL), 0, want, "");
}

/* --diff: each side with its own recording's overhead. */
static void test_report_diff(void)
{
	char old[600], new[600], want[512];
	struct t_result r;
	bool ok;

	make(old, sizeof(old), "old", INFO_100_20);
	make(new, sizeof(new), "new",
	     "{\"overhead\": {\"per_call_ns\": 50, \"inside_ns\": 0}}");
	snprintf(want, sizeof(want),
		 "%9d %9d %9s %8s %11d %11d %11s %8s %11d %11d %11s %8s %11d %11d %11s %8s  a\n",
		 1, 1, "0", "0.0%", 1580, 1800, "+220", "+13.9%", 720, 800,
		 "+80", "+11.1%", 1580, 1800, "+220", "+13.9%");
	r = t_ng("report", "--ns", "--diff", "--compensate", "--sort", "name",
		 old, new, NULL);
	ok = r.status == 0 && r.out && strstr(r.out, want);
	if (!ok)
		t_diag("report --diff: %s", r.out ? t_escape(r.out, strlen(r.out)) : "?");
	t_result_free(&r);
	T_ASSERT(ok);
}

/* replay: durations compensated; -t compares them, --time-range does not. */
static void test_replay(void)
{
	static const char head[] = "# tid 1, pid ?, 1\n#    DURATION |  FUNCTION CALLS\n";
	char dir[600], want[1024];

	make(dir, sizeof(dir), "rec", INFO_100_20);
	snprintf(want, sizeof(want), "%s%s", head,
		 "              |  a() {\n"
		 "              |    b() {\n"
		 "     0.280 us |      c();\n"
		 "     0.080 us |      d();\n"
		 "     0.680 us |    } /* b */\n"
		 "     0.180 us |    e();\n"
		 "     1.580 us |  } /* a */\n"
		 "              |  f() {\n"
		 "     0.180 us |    g();\n"
		 "     0.180 us |  } /* f */\n");
	T_RUN(t_ng("replay", "--compensate", dir, NULL), 0, want, "");
	/* at least 200 ns compensated: not e, f, g (200, 300, 200 recorded) */
	snprintf(want, sizeof(want), "%s%s", head,
		 "              |  a() {\n"
		 "              |    b() {\n"
		 "     0.280 us |      c();\n"
		 "     0.680 us |    } /* b */\n"
		 "     1.580 us |  } /* a */\n");
	T_RUN(t_ng("replay", "--compensate", "-t", "200", dir, NULL), 0, want, "");
	/* the range in recorded time: e is [2100,2300] there */
	snprintf(want, sizeof(want), "%s%s", head,
		 "              |  a() {\n"
		 "     0.180 us |    e();\n"
		 "     1.580 us |  } /* a */\n");
	T_RUN(t_ng("replay", "--compensate", "--time-range", "2100~2300", dir,
		   NULL), 0, want, "");
}

/* export: Chrome on the timeline, folded by compensated self time. */
static void test_export(void)
{
	char dir[600];

	make(dir, sizeof(dir), "rec", INFO_100_20);
	T_RUN(t_ng("export", "--chrome", "--compensate", "-o", "-", dir, NULL), 0,
	      "{\"traceEvents\":[\n"
	      "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"1\"}},\n"
	      "{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"thread_name\",\"args\":{\"name\":\"1\"}},\n"
	      "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0.960,\"dur\":1.580,\"name\":\"a\"},\n"
	      "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1.010,\"dur\":0.680,\"name\":\"b\"},\n"
	      "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1.060,\"dur\":0.280,\"name\":\"c\"},\n"
	      "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1.360,\"dur\":0.080,\"name\":\"d\"},\n"
	      "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1.710,\"dur\":0.180,\"name\":\"e\"},\n"
	      "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":2.560,\"dur\":0.230,\"name\":\"f\"},\n"
	      "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":2.610,\"dur\":0.180,\"name\":\"g\"}\n"
	      "],\"displayTimeUnit\":\"ns\"}\n", "");
	/* f's self time is 0: no line of its own */
	T_RUN(t_ng("export", "--folded", "--compensate", "-o", "-", dir, NULL), 0,
	      "1;a 720\n1;a;b 320\n1;a;b;c 280\n1;a;b;d 80\n1;a;e 180\n1;f;g 180\n",
	      "");
	T_RUN(t_ng("export", "--folded", "--overhead", "100,20", "-F", "b",
		   "-o", "-", dir, NULL), 0, "1;b 320\n1;b;c 280\n1;b;d 80\n", "");
}

/* Below 0: shown as 0, and said once per recording. */
static void test_clamping(void)
{
	char dir[600], want[1024], err[1024];

	T_EQ_INT(t_make_rec(dir, sizeof(dir), "clamp", "2.txt", clamped,
			    "info.json", INFO_100_20, NULL), 0);
	/* i: 10 - 20 < 0; h: 30 - 20 - 100 < 0 */
	snprintf(want, sizeof(want), "# 1 thread, 2 calls, 0 ns recorded\n%s",
		 report_head);
	row(want, sizeof(want), 0, 0, "h");
	row(want, sizeof(want), 0, 0, "i");
	clamp_line(err, sizeof(err), "report", dir, 2);
	T_RUN(t_ng("report", "--ns", "--compensate", dir, NULL), 0, want, err);
	clamp_line(err, sizeof(err), "replay", dir, 2);
	T_RUN(t_ng("replay", "--compensate", dir, NULL), 0, NULL, err);
	clamp_line(err, sizeof(err), "export", dir, 2);
	T_RUN(t_ng("export", "--chrome", "--compensate", "-o", "-", dir, NULL), 0,
	      NULL, err);
	/* calls the filters leave out are not counted */
	T_RUN(t_ng("replay", "--compensate", "-t", "1", dir, NULL), 0, "", "");
	/* a cost the calls can carry: no line */
	T_RUN(t_ng("report", "--ns", "--overhead", "5,5", dir, NULL), 0, NULL, "");
}

/* No overhead to take off: one line naming the file, a usage error. */
static void test_missing_overhead(void)
{
	static const char *const cmds[][3] = {
		{ "report", NULL }, { "replay", NULL },
		{ "export", "--folded" },
	};
	char dir[600], err[2048];
	size_t i;

	make(dir, sizeof(dir), "plain", NULL);
	for (i = 0; i < 3; i++) {
		snprintf(err, sizeof(err), "nanograph %s: --compensate: %s/info.json has no overhead (a recording by convert, by record --no-calibrate or from before calibration, or no info.json): give the cost with --overhead PER_CALL_NS[,INSIDE_NS]\n",
			 cmds[i][0], dir);
		if (cmds[i][1])
			T_RUN(t_ng(cmds[i][0], cmds[i][1], "--compensate", dir,
				   NULL), 2, "", err);
		else
			T_RUN(t_ng(cmds[i][0], "--compensate", dir, NULL), 2,
			      "", err);
	}
	/* null, as record writes it without calibration */
	make(dir, sizeof(dir), "plain", "{\"format\": 1, \"overhead\": null}\n");
	snprintf(err, sizeof(err), "nanograph report: --compensate: %s/info.json has no overhead (a recording by convert, by record --no-calibrate or from before calibration, or no info.json): give the cost with --overhead PER_CALL_NS[,INSIDE_NS]\n",
		 dir);
	T_RUN(t_ng("report", "--compensate", dir, NULL), 2, "", err);
	/* not a cost */
	make(dir, sizeof(dir), "plain",
	     "{\"overhead\": {\"per_call_ns\": 10, \"inside_ns\": 20}}\n");
	snprintf(err, sizeof(err), "nanograph report: --compensate: %s/info.json: overhead is not an object of costs in ns (per_call_ns, inside_ns at most per_call_ns): see 'nanograph info %s'\n",
		 dir, dir);
	T_RUN(t_ng("report", "--compensate", dir, NULL), 1, "", err);
	/* --diff: the side without one is named */
	make(err, sizeof(err), "rec", INFO_100_20);
	T_RUN(t_ng("report", "--diff", "--compensate", err, dir, NULL), 1, "", NULL);
}

/* Garbage for --overhead: the usage error, nothing read. */
static void test_overhead_garbage(void)
{
	static const char *const bad[] = {
		"abc", "-1", "1e3", "nan", "inf", "0x10", "100,200", "100,",
		",5", "1.2345", "1000000000", "100,20,3", "1 ", "\xff",
	};
	char dir[600], err[512];
	size_t i;

	make(dir, sizeof(dir), "rec", INFO_100_20);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(err, sizeof(err), "nanograph report: --overhead wants PER_CALL_NS[,INSIDE_NS], ns below 1 s with up to 3 decimals, INSIDE_NS at most PER_CALL_NS, not '%s'\nTry 'nanograph help report'.\n",
			 bad[i]);
		T_RUN(t_ng("report", "--overhead", bad[i], dir, NULL), 2, "", err);
	}
	T_RUN(t_ng("replay", "--overhead", "", dir, NULL), 2, "",
	      "nanograph replay: option '--overhead' needs a value\nTry 'nanograph help replay'.\n");
	T_RUN(t_ng("export", "--folded", "--overhead", NULL), 2, "",
	      "nanograph export: option '--overhead' needs a value\nTry 'nanograph help export'.\n");
}

static const struct t_case cases[] = {
	{ "info_round_trip", test_info_round_trip },
	{ "info_cmd_shows_overhead", test_info_cmd_shows_overhead },
	{ "info_reader_errors", test_info_reader_errors },
	{ "parse_overhead", test_parse_overhead },
	{ "walk_counts", test_walk_counts },
	{ "report", test_report },
	{ "report_diff", test_report_diff },
	{ "replay", test_replay },
	{ "export", test_export },
	{ "clamping", test_clamping },
	{ "missing_overhead", test_missing_overhead },
	{ "overhead_garbage", test_overhead_garbage },
};

T_SUITE(compensate, cases);
