// SPDX-License-Identifier: GPL-2.0
/*
 * test_flight.c - the collector's side of the flight recorder that runs
 * without the module: --trigger's syntax (the module's), the flight
 * file's state line, the snapshot's window (where it starts, and the
 * converter leaving out what came before), the buffer size of --size,
 * info.json's trigger written and read back, replay's mark on the
 * triggering call, and record's usage errors before anything changes.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nanograph.h"
#include "ktap.h"
#include "t_util.h"

/* ng_trigger_parse() of @s: its nanoseconds, or -1000 + the error. */
static long long trig(const char *s)
{
	struct ng_trigger t;
	int ret = ng_trigger_parse(s, &t);

	return ret ? -1000 + ret : (long long)t.ns;
}

static void test_trigger_units(void)
{
	struct ng_trigger t;

	T_EQ_INT(trig("vfs_read>1"), 1);
	T_EQ_INT(trig("vfs_read>7ns"), 7);
	T_EQ_INT(trig("vfs_read>10us"), 10000);
	T_EQ_INT(trig("vfs_read>200ms"), 200000000);
	T_EQ_U64(trig("vfs_read>3600s"), 3600000000000ULL);
	T_EQ_U64(trig("vfs_read>3600000000000"), 3600000000000ULL);
	T_EQ_INT(ng_trigger_parse("__x64_sys_read.cold>1s", &t), 0);
	T_EQ_STR(t.func, "__x64_sys_read.cold");
	T_EQ_U64(t.ns, 1000000000);
	T_EQ_INT(t.clock, NG_TRIGGER_WALL);
}

/* Time triggers: FUNC:oncpu and FUNC:blocked, the name without them. */
static void test_trigger_clocks(void)
{
	struct ng_trigger t;
	char line[128];

	T_EQ_INT(ng_trigger_parse("vfs_read:blocked>200ms", &t), 0);
	T_EQ_STR(t.func, "vfs_read");
	T_EQ_INT(t.clock, NG_TRIGGER_BLOCKED);
	T_EQ_U64(t.ns, 200000000);
	ng_trigger_format(&t, line, sizeof(line));
	T_EQ_STR(line, "vfs_read:blocked>200000000");
	T_EQ_INT(ng_trigger_parse("foo.cold:oncpu>1us", &t), 0);
	T_EQ_STR(t.func, "foo.cold");
	T_EQ_INT(t.clock, NG_TRIGGER_ONCPU);
	ng_trigger_format(&t, line, sizeof(line));
	T_EQ_STR(line, "foo.cold:oncpu>1000");
	/* not for a return value, nor an unknown clock, nor alone */
	T_EQ_INT(trig("vfs_read:blocked=<0"), -1000 - EINVAL);
	T_EQ_INT(trig("vfs_read:offcpu>1ms"), -1000 - EINVAL);
	T_EQ_INT(trig(":blocked>1ms"), -1000 - EINVAL);
	T_EQ_INT(trig("vfs_read:blocked:oncpu>1ms"), -1000 - EINVAL);
	T_EQ_INT(trig("vfs_read:blocked>0"), -1000 - ERANGE);
}

/* Return-value triggers: the operators, numbers and the module's errno names. */
static void test_trigger_values(void)
{
	static const struct {
		const char *in, *op, *out;
		int value;
	} ok[] = {
		{ "vfs_read=<0", "<", "vfs_read=<0", 0 },
		{ "vfs_read=<=-1", "<=", "vfs_read=<=-1", -1 },
		{ "kmalloc==-ENOMEM", "=", "kmalloc==-12", -12 },
		{ "f=!=-EINVAL", "!=", "f=!=-22", -22 },
		{ "f=>0x10", ">", "f=>16", 16 },
		{ "f=>=-0x10", ">=", "f=>=-16", -16 },
		{ "f==2147483647", "=", "f==2147483647", 2147483647 },
		{ "f==-2147483648", "=", "f==-2147483648", -2147483647 - 1 },
		{ "f==-ERESTARTSYS", "=", "f==-512", -512 },
		{ "f==0", "=", "f==0", 0 },
	};
	struct ng_trigger t;
	char line[256];
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		T_EQ_INT(ng_trigger_parse(ok[i].in, &t), 0);
		T_ASSERT(t.on_value);
		T_EQ_STR(t.op, ok[i].op);
		T_EQ_INT(t.value, ok[i].value);
		ng_trigger_format(&t, line, sizeof(line));
		T_EQ_STR(line, ok[i].out);
	}
	T_EQ_INT(ng_trigger_parse("vfs_read>10ms", &t), 0);
	ng_trigger_format(&t, line, sizeof(line));
	T_EQ_STR(line, "vfs_read>10000000");
	T_EQ_INT(trig("f==2147483648"), -1000 - ERANGE);
	T_EQ_INT(trig("f==-2147483649"), -1000 - ERANGE);
	T_EQ_INT(trig("f==0x100000000"), -1000 - ERANGE);
	T_EQ_INT(trig("f==99999999999999999999"), -1000 - ERANGE);
	T_EQ_INT(trig("f==-ENOTANERRNO"), -1000 - EINVAL);
	T_EQ_INT(trig("f==-enomem"), -1000 - EINVAL);
	T_EQ_INT(trig("f==010"), -1000 - EINVAL);
	T_EQ_INT(trig("f=~0"), -1000 - EINVAL);
	T_EQ_INT(trig("f=0"), -1000 - EINVAL);
	T_EQ_INT(trig("f=="), -1000 - EINVAL);
	T_EQ_INT(trig("f==1 "), -1000 - EINVAL);
	T_EQ_INT(trig("f==+1"), -1000 - EINVAL);
	T_EQ_INT(trig("f==0x"), -1000 - EINVAL);
	T_EQ_INT(trig("=<0"), -1000 - EINVAL);
}

/* What the module refuses, refused here first: EINVAL and ERANGE as it. */
static void test_trigger_refused(void)
{
	static const char *const bad[] = {
		"", "vfs_read", ">10ms", "vfs_read>", "vfs_read>ms",
		"vfs_read>10 ms", "vfs_read> 10ms", "vfs read>1", "vfs_*>1",
		"vfs_read?>1", "!vfs_read>1", "[v]fs>1", "vfs_read>1.5ms",
		"vfs_read>-1", "vfs_read>+1", "vfs_read>0x10", "vfs_read>10m",
		"vfs_read>10sec", "vfs_read>10ms\n", "a>b>1", "vfs_read>10MS",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (trig(bad[i]) != -1000 - EINVAL) {
			t_diag("'%s' gave %lld", bad[i], trig(bad[i]));
			T_ASSERT(0);
		}
	T_EQ_INT(trig("vfs_read>0"), -1000 - ERANGE);
	T_EQ_INT(trig("vfs_read>0ms"), -1000 - ERANGE);
	T_EQ_INT(trig("vfs_read>3601s"), -1000 - ERANGE);
	T_EQ_INT(trig("vfs_read>3600000000001"), -1000 - ERANGE);
	T_EQ_INT(trig("vfs_read>99999999999999999999999999999999s"),
		 -1000 - ERANGE);
	T_EQ_INT(ng_trigger_parse(NULL, NULL), -EINVAL);
}

static void test_state_line(void)
{
	struct ng_flight_state st;

	T_EQ_INT(ng_flight_parse("off\n", &st), 0);
	T_EQ_INT(st.state, NG_FLIGHT_OFF);
	T_ASSERT(!st.has_hit);
	T_EQ_INT(ng_flight_parse("armed\n", &st), 0);
	T_EQ_INT(st.state, NG_FLIGHT_ARMED);
	T_EQ_INT(ng_flight_parse("frozen\n", &st), 0);
	T_EQ_INT(st.state, NG_FLIGHT_FROZEN);
	T_ASSERT(!st.has_hit);
	T_EQ_INT(ng_flight_parse("triggered vfs_read 12000345 1 234 9876543210\n",
				 &st), 0);
	T_EQ_INT(st.state, NG_FLIGHT_TRIGGERED);
	T_ASSERT(st.has_hit);
	T_EQ_STR(st.hit.func, "vfs_read");
	T_EQ_U64(st.hit.duration_ns, 12000345);
	T_EQ_INT(st.hit.cpu, 1);
	T_EQ_INT(st.hit.tid, 234);
	T_EQ_U64(st.hit.exit_counter, 9876543210ULL);
	T_EQ_INT(ng_flight_parse("frozen ksys_read 5 0 1 18446744073709551615",
				 &st), 0);
	T_EQ_INT(st.state, NG_FLIGHT_FROZEN);
	T_ASSERT(st.has_hit);
	T_EQ_U64(st.hit.exit_counter, UINT64_MAX);
	T_ASSERT(!st.hit.has_value);
	/* a return-value trigger's hit: the value returned last */
	T_EQ_INT(ng_flight_parse("triggered ksys_read 1500 1 77 123456 -22\n",
				 &st), 0);
	T_ASSERT(st.hit.has_value);
	T_EQ_INT(st.hit.value, -22);
	T_EQ_INT(st.hit.tid, 77);
	T_EQ_INT(ng_flight_parse("frozen ksys_read 1500 1 77 123456 0\n", &st), 0);
	T_ASSERT(st.hit.has_value);
	T_EQ_INT(st.hit.value, 0);
}

static void test_state_refused(void)
{
	static const char *const bad[] = {
		"", "\n", "on", "armed vfs_read 1 2 3 4", "triggered",
		"triggered vfs_read 1 2 3",
		"triggered vfs_read x 2 3 4", "triggered vfs_read 1 -2 3 4",
		"triggered vfs_read 1 2 4294967296 4", "frozen vfs_* 1 2 3 4",
		"off off", "triggered f 1 2 3 4 x", "triggered f 1 2 3 4 5 6",
		"triggered f 1 2 3 4 4294967296",
	};
	struct ng_flight_state st;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (ng_flight_parse(bad[i], &st) != -EINVAL) {
			t_diag("'%s' was accepted", bad[i]);
			T_ASSERT(0);
		}
}

/* The window reaches back --window from the return, and over the whole call. */
static void test_window_from(void)
{
	T_EQ_U64(ng_flight_window_from(100000, 300, 0), 0);
	T_EQ_U64(ng_flight_window_from(100000, 300, 5000), 95000);
	/* the call, and a microsecond for rounding */
	T_EQ_U64(ng_flight_window_from(100000, 30000, 5000), 69000);
	T_EQ_U64(ng_flight_window_from(100000, 300, 1200), 98700);
	T_EQ_U64(ng_flight_window_from(100000, 300, 100000), 0);
	T_EQ_U64(ng_flight_window_from(100000, 300, 200000), 0);
	T_EQ_U64(ng_flight_window_from(1000, 300, 1), 0);
}

/* --size MB in all: each CPU's share, rounded up to a power of two. */
static void test_buffer_kb(void)
{
	T_EQ_U64(ng_flight_buffer_kb(64, 1), 65536);
	T_EQ_U64(ng_flight_buffer_kb(64, 2), 32768);
	T_EQ_U64(ng_flight_buffer_kb(64, 3), 32768);	/* 21846 up */
	T_EQ_U64(ng_flight_buffer_kb(100, 4), 32768);	/* 25600 up */
	T_EQ_U64(ng_flight_buffer_kb(1, 4096), 4);	/* the module's least */
	T_EQ_U64(ng_flight_buffer_kb(1, 0), 1024);
}

static const char kallsyms[] =
	"ffffffff81001000 T vfs_read\n"
	"ffffffff81002000 T ksys_read\n";

static int feed(struct ng_conv *c, enum ng_event_type type, int tid,
		uint64_t counter, unsigned int depth, uint64_t ip)
{
	struct ng_event e = {
		.type = type, .tid = tid, .counter = counter, .depth = depth,
		.ip = ip,
	};

	return ng_conv_event(c, &e);
}

/*
 * The converter leaves out what came before the window, counted: a call
 * whose entry is outside keeps none of its events (its exit is an
 * unmatched one), a thread only seen before gets no file.
 */
static void test_conv_window(void)
{
	struct ng_clock clk = { .counter = 0, .mono_ns = 0, .freq = 1000000000 };
	struct ng_conv_summary s;
	struct ng_syms *syms;
	struct ng_conv *c;

	T_EQ_INT(ng_syms_parse(&syms, kallsyms, strlen(kallsyms)), 0);
	T_EQ_INT(ng_conv_new(&c, t_tmpdir(), syms), 0);
	ng_conv_set_clock(c, &clk);
	ng_conv_set_window(c, 1000);
	T_EQ_INT(feed(c, NG_EV_ENTRY, 7, 100, 0, 0xffffffff81001000ULL), 0);
	T_EQ_INT(feed(c, NG_EV_EXIT, 7, 200, 0, 0xffffffff81001000ULL), 0);
	T_EQ_INT(feed(c, NG_EV_ENTRY, 8, 900, 0, 0xffffffff81002000ULL), 0);
	T_EQ_INT(feed(c, NG_EV_ENTRY, 8, 1000, 1, 0xffffffff81001000ULL), 0);
	T_EQ_INT(feed(c, NG_EV_EXIT, 8, 1500, 1, 0xffffffff81001000ULL), 0);
	T_EQ_INT(feed(c, NG_EV_EXIT, 8, 1600, 0, 0xffffffff81002000ULL), 0);
	T_EQ_INT(ng_conv_finish(c, &s), 0);
	ng_syms_free(syms);
	T_FILE_EQ(t_path("8.txt"), "1000:+vfs_read\n1500:POP\n");
	T_ASSERT(!t_exists(t_path("7.txt")));
	T_EQ_U64(s.outside_window, 3);
	T_EQ_U64(s.events, 3);
	T_EQ_U64(s.unmatched_exits, 1);
	T_EQ_U64(s.threads, 1);
}

/* A snapshot's info.json: the trigger written, read back, and printed. */
static void test_info_trigger(void)
{
	struct ng_conv_summary sum = { .threads = 1 };
	struct ng_info_trigger trig = {
		.function = "vfs_read", .duration_ns = 300123456, .cpu = 1,
		.tid = 4242, .exit_ns = 5011800,
	};
	struct ng_info info = {
		.source = "record", .mode = "flight", .sum = &sum,
		.trigger = &trig, .overwritten = 77,
	};
	struct ng_info_trigger back;
	struct ng_info_file *f;
	uint64_t v;

	T_EQ_INT(ng_info_write(t_tmpdir(), &info), 0);
	T_FILE_HAS(t_path("info.json"),
		   "  \"mode\": \"flight\",\n"
		   "  \"trigger\": {\n"
		   "    \"function\": \"vfs_read\",\n"
		   "    \"duration_ns\": 300123456,\n"
		   "    \"cpu\": 1,\n"
		   "    \"tid\": 4242,\n"
		   "    \"exit_ns\": 5011800,\n"
		   "    \"return_value\": null\n"
		   "  },\n");
	T_EQ_INT(ng_info_load(&f, t_tmpdir(), NULL), 0);
	T_EQ_INT(ng_info_trigger(f, &back), 0);
	T_EQ_STR(back.function, "vfs_read");
	T_EQ_U64(back.duration_ns, 300123456);
	T_EQ_INT(back.cpu, 1);
	T_EQ_INT(back.tid, 4242);
	T_EQ_U64(back.exit_ns, 5011800);
	T_EQ_INT(ng_info_u64(f, "counts.overwritten", &v), 0);
	T_EQ_U64(v, 77);
	/* overwritten records are not missing calls */
	T_EQ_INT(ng_info_incomplete(f, NULL, 0), 0);
	ng_info_file_free(f);
	/* a return-value trigger's snapshot: what the call returned */
	trig.has_value = true;
	trig.value = -12;
	T_EQ_INT(ng_info_write(t_tmpdir(), &info), 0);
	T_FILE_HAS(t_path("info.json"), "    \"return_value\": -12\n");
	/* a recording that is not a snapshot: null */
	info.trigger = NULL;
	T_EQ_INT(ng_info_write(t_tmpdir(), &info), 0);
	T_EQ_INT(ng_info_load(&f, t_tmpdir(), NULL), 0);
	T_EQ_INT(ng_info_trigger(f, &back), -ENOENT);
	ng_info_file_free(f);
	T_EQ_INT(t_write_file(t_path("info.json"),
			      "{\"trigger\": {\"function\": \"f\", \"tid\": \"x\"}}\n"), 0);
	T_EQ_INT(ng_info_load(&f, t_tmpdir(), NULL), 0);
	T_EQ_INT(ng_info_trigger(f, &back), -EINVAL);
	ng_info_file_free(f);
}

/*
 * replay marks the call that fired: its thread, function and return,
 * not the other vfs_read of that thread nor the same return time on
 * another thread.
 */
static void test_replay_mark(void)
{
	static const char t412[] =
		"5000000:+ksys_read\n5000250:+vfs_read\n5000400:+rw_verify_area\n"
		"5000520:POP\n5003900:POP\n5004100:POP\n"
		"5010000:+ksys_read\n5010200:+vfs_read\n5011800:POP\n5011900:POP\n";
	static const char t413[] = "5011000:+vfs_read\n5011800:POP\n";
	static const char json[] =
		"{\"mode\": \"flight\", \"trigger\": {\"function\": \"vfs_read\", "
		"\"duration_ns\": 1600, \"cpu\": 0, \"tid\": 412, \"exit_ns\": 5011800}}\n";
	char dir[600];

	T_EQ_INT(t_make_rec(dir, sizeof(dir), "snap", "412.txt", t412,
			    "413.txt", t413, "threads.tsv",
			    "tid\tpid\tcomm\n412\t412\tcat\n413\t412\tcat\n",
			    "info.json", json, NULL), 0);
	T_RUN(t_ng("replay", dir, NULL), 0,
	      "# tid 412, pid 412, cat\n"
	      "#    DURATION |  FUNCTION CALLS\n"
	      "              |  ksys_read() {\n"
	      "              |    vfs_read() {\n"
	      "     0.120 us |      rw_verify_area();\n"
	      "     3.650 us |    } /* vfs_read */\n"
	      "     4.100 us |  } /* ksys_read */\n"
	      "              |  ksys_read() {\n"
	      "     1.600 us |    vfs_read();  <== trigger\n"
	      "     1.900 us |  } /* ksys_read */\n"
	      "\n"
	      "# tid 413, pid 412, cat\n"
	      "#    DURATION |  FUNCTION CALLS\n"
	      "     0.800 us |  vfs_read();\n", "");
}

/* record refuses bad flight options before it looks at the machine. */
static void test_record_usage(void)
{
	static const struct {
		const char *a[8];
		const char *err;
	} cases[] = {
		{ { "--flight", "--", "true" },
		  "--flight needs at least one --trigger" },
		{ { "--trigger", "vfs_read>1ms", "--", "true" },
		  "go with --flight" },
		{ { "--flight", "--trigger", "vfs_*>1ms", "--", "true" },
		  "not FUNC>DURATION" },
		{ { "--flight", "--trigger", "vfs_read>0", "--", "true" },
		  "from 1 ns to 3600 s" },
		{ { "--flight", "--trigger", "f>1", "--window", "1", "--size", "64", "-a" },
		  "either --window or --size" },
		{ { "--flight", "--trigger", "f>1", "--events", "--", "true" },
		  "not with --events" },
		{ { "--flight", "--trigger", "f>1", "--count", "0", "--" },
		  "--count" },
		{ { "--flight", "--trigger", "f>1", "--tail", "61", "--" },
		  "--tail" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *const *a = cases[i].a;
		struct t_result r = t_ng("record", a[0], a[1], a[2], a[3], a[4],
					 a[5], a[6], a[7], NULL);

		if (r.status != 2 || !r.err || !strstr(r.err, cases[i].err)) {
			t_diag("case %zu: exit %d, %s", i, r.status, r.err);
			T_ASSERT(0);
		}
		t_result_free(&r);
	}
}

static const struct t_case cases[] = {
	{ "trigger_units", test_trigger_units },
	{ "trigger_clocks", test_trigger_clocks },
	{ "trigger_values", test_trigger_values },
	{ "trigger_refused", test_trigger_refused },
	{ "flight_state_line", test_state_line },
	{ "flight_state_refused", test_state_refused },
	{ "flight_window_from", test_window_from },
	{ "flight_buffer_kb", test_buffer_kb },
	{ "conv_window", test_conv_window },
	{ "info_trigger", test_info_trigger },
	{ "replay_marks_trigger", test_replay_mark },
	{ "record_flight_usage", test_record_usage },
};

T_SUITE(flight, cases);
