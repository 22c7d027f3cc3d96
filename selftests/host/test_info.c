// SPDX-License-Identifier: GPL-2.0
/*
 * test_info.c - a recording's metadata, DIR/info.json: what convert
 * writes there (on trace.dat files made by tdat_gen.c), the module's
 * settings as record writes them, strings escaped (and read back), the
 * reader on good and bad JSON, "nanograph info" with and without the
 * file, and the one warning line report, replay and export print when
 * it says calls are missing.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nanograph.h"
#include "ktap.h"
#include "t_util.h"
#include "tdat_gen.h"

static const char kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T vfs_read\n"
	"ffffffff81002000 t rw_verify_area\n"
	"ffffffff81003000 T ksys_read\n";

#define VFS_READ	0xffffffff81001000ULL
#define RW_VERIFY	0xffffffff81002000ULL
#define KSYS_READ	0xffffffff81003000ULL

/*
 * A trace.dat whose conversion touches every count: thread 42 makes two
 * whole calls; 43's call never returns (closed at the end); 44 returns
 * from a call entered before (left out); 45 loses two returns (closed
 * early, at the next event at their depth).
 */
static int make_tdat(const char *path)
{
	struct t_tdat *t = t_tdat_open(path, 1, kallsyms, "42 worker\n");

	if (!t)
		return -1;
	t_tdat_clock(t, 0, 100, 1000, 5000, 1000000000);
	t_tdat_entry(t, 0, 42, 101, 1001, 0, KSYS_READ);
	t_tdat_entry(t, 0, 42, 102, 1002, 1, VFS_READ);
	t_tdat_exit(t, 0, 42, 103, 1003, 1, VFS_READ);
	t_tdat_exit(t, 0, 42, 104, 1004, 0, KSYS_READ);
	t_tdat_entry(t, 0, 43, 105, 1005, 0, VFS_READ);
	t_tdat_exit(t, 0, 44, 106, 1006, 2, VFS_READ);
	t_tdat_entry(t, 0, 45, 107, 1007, 0, KSYS_READ);
	t_tdat_entry(t, 0, 45, 108, 1008, 1, VFS_READ);
	t_tdat_entry(t, 0, 45, 109, 1009, 1, RW_VERIFY);
	t_tdat_exit(t, 0, 45, 110, 1010, 0, KSYS_READ);
	return t_tdat_close(t);
}

/* The sizes of the push/pop files in @dir, summed. */
static long long txt_bytes(const char *dir)
{
	static const char *const names[] = { "42.txt", "43.txt", "44.txt", "45.txt" };
	char path[700];
	struct stat st;
	long long sum = 0;
	size_t i;

	for (i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (stat(path, &st))
			return -1;
		sum += st.st_size;
	}
	return sum;
}

/*
 * make_tdat()'s <tmpdir>/t.dat converted into <tmpdir>/out, quietly:
 * true if it was, with their paths in @dat and @out.
 */
static bool convert_tdat(char *dat, char *out, size_t size)
{
	snprintf(dat, size, "%s", t_path("t.dat"));
	snprintf(out, size, "%s", t_path("out"));
	return !make_tdat(dat) &&
	       t_result_is(t_ng("convert", "-q", "-o", out, dat, NULL), 0, "", "");
}

/*
 * convert writes info.json, byte for byte: its command line, the input,
 * the clock of the clock_sync, every count of the conversion, null for
 * what a trace.dat does not tell (the kernel and host, the start, the
 * module's settings and skipped count).
 */
static void test_convert_writes_info(void)
{
	char dat[600], out[600], want[4096];
	long long bytes;

	T_ASSERT(convert_tdat(dat, out, sizeof(dat)));
	bytes = txt_bytes(out);
	T_ASSERT(bytes > 0);
	snprintf(want, sizeof(want),
		 "{\n"
		 "  \"format\": 1,\n"
		 "  \"nanograph_version\": \"%s\",\n"
		 "  \"source\": \"convert\",\n"
		 "  \"collector_argv\": [\"%s\", \"convert\", \"-q\", \"-o\", \"%s\", \"%s\"],\n"
		 "  \"scope\": null,\n"
		 "  \"traced_command\": null,\n"
		 "  \"traced_pid\": null,\n"
		 "  \"input\": \"%s\",\n"
		 "  \"kernel_release\": null,\n"
		 "  \"machine\": null,\n"
		 "  \"hostname\": null,\n"
		 "  \"start_time\": null,\n"
		 "  \"duration_ns\": null,\n"
		 "  \"mode\": \"events\",\n"
		 "  \"trigger\": null,\n"
		 "  \"clock\": {\n"
		 "    \"timestamps\": \"CLOCK_MONOTONIC\",\n"
		 "    \"counter\": null,\n"
		 "    \"counter_hz\": 1000000000,\n"
		 "    \"sync_counter\": 1000,\n"
		 "    \"sync_monotonic_ns\": 5000\n"
		 "  },\n"
		 "  \"filters\": null,\n"
		 "  \"counts\": {\n"
		 "    \"threads\": 4,\n"
		 "    \"calls\": 6,\n"
		 "    \"events\": 10,\n"
		 "    \"ignored\": 0,\n"
		 "    \"lost\": 0,\n"
		 "    \"overwritten\": 0,\n"
		 "    \"outside_window\": 0,\n"
		 "    \"unattributed\": 0,\n"
		 "    \"skipped\": null,\n"
		 "    \"repaired\": 2,\n"
		 "    \"closed_at_end\": 1,\n"
		 "    \"unmatched_exits\": 1,\n"
		 "    \"clamped\": 0,\n"
		 "    \"unresolved\": 0,\n"
		 "    \"sched\": 0,\n"
		 "    \"wakes\": 0,\n"
		 "    \"wakes_attributed\": 0,\n"
		 "    \"wakes_untraced\": 0,\n"
		 "    \"wakes_no_call\": 0,\n"
		 "    \"counters\": 0,\n"
		 "    \"args\": 0,\n"
		 "    \"retvals\": 0,\n"
		 "    \"bytes\": %lld\n"
		 "  },\n"
		 "  \"overhead\": null,\n"
		 "  \"first_ns\": 5001,\n"
		 "  \"last_ns\": 5010\n"
		 "}\n",
		 NANOGRAPH_VERSION, t_nanograph(), out, dat, dat, bytes);
	T_FILE_EQ(t_path("out/info.json"), want);
	T_ASSERT(!t_temp_of(t_path("out/info.json")));
	T_ASSERT(t_json_ok(t_path("out/info.json"),
			 "assert j['counts']['repaired']==2 and j['filters'] is None"));
	/* the same counts the files show: 43's call closed at the end */
	T_FILE_EQ(t_path("out/43.txt"), "5005:+vfs_read\n5005:POP\n");
}

/* A clock file given with --clock names the counter in info.json. */
static void test_convert_clock_file_counter(void)
{
	char dat[600], out[600], clk[600];
	struct t_tdat *t;

	snprintf(dat, sizeof(dat), "%s", t_path("n.dat"));
	snprintf(out, sizeof(out), "%s", t_path("out"));
	snprintf(clk, sizeof(clk), "%s", t_path("clock"));
	t = t_tdat_open(dat, 1, kallsyms, "");
	T_ASSERT(t);
	t_tdat_entry(t, 0, 7, 101, 2001, 0, VFS_READ);
	t_tdat_exit(t, 0, 7, 102, 2002, 0, VFS_READ);
	T_EQ_INT(t_tdat_close(t), 0);
	T_EQ_INT(t_write_file(clk, "counter: tsc\nfrequency: 2000000000\n"
			      "sync: 2000 7000\nsync_uncertainty: 5\n"), 0);
	T_RUN(t_ng("convert", "-q", "--clock", clk, "-o", out, dat, NULL), 0, "", "");
	T_FILE_HAS(t_path("out/info.json"),
		   "  \"clock\": {\n"
		   "    \"timestamps\": \"CLOCK_MONOTONIC\",\n"
		   "    \"counter\": \"tsc\",\n"
		   "    \"counter_hz\": 2000000000,\n"
		   "    \"sync_counter\": 2000,\n"
		   "    \"sync_monotonic_ns\": 7000\n"
		   "  },\n");
}

/* The summary the library's callers fill, with every count set. */
static struct ng_conv_summary summary(void)
{
	struct ng_conv_summary s = {
		.events = 20, .ignored = 4, .threads = 2, .pushes = 9,
		.unmatched_exits = 1,
		.repaired = 0, .closed_at_end = 0, .clamped = 3, .lost = 12,
		.unresolved = 1, .bytes = 321, .first_ns = 100, .last_ns = 900,
		.clock = { .counter = 10, .mono_ns = 20, .freq = 30 },
	};

	return s;
}

/*
 * What record writes: the module's settings as their control files read
 * (globs as strings, pids as numbers, "####" notes and blank lines left
 * out, an unreadable file null), the traced command, the mode, the
 * start in UTC, the skipped count, and this machine's uname.
 */
static void test_record_fields(void)
{
	static char *argv[] = { "nanograph", "record", "-F", "vfs_read", "--", "dd", "if=x", NULL };
	struct timespec start = { 1795000000, 123456789 };
	struct ng_conv_summary sum = summary();
	struct ng_info_settings *set;
	struct ng_info info = {
		.source = "record", .argc = 7, .argv = argv, .scope = "command",
		.command_argc = 2, .command = argv + 5, .this_host = true,
		.start = &start, .duration_ns = 640000000, .mode = "raw",
		.counter = "tsc", .sum = &sum, .skipped = 57,
	};
	struct ng_ctl ctl;

	T_EQ_INT(mkdir(t_path("sys"), 0755), 0);
	T_EQ_INT(mkdir(t_path("sys/options"), 0755), 0);
	T_EQ_INT(mkdir(t_path("rec"), 0755), 0);
	T_EQ_INT(t_write_file(t_path("sys/set_ftrace_filter"), "vfs_*\nksys_read\n"), 0);
	T_EQ_INT(t_write_file(t_path("sys/set_ftrace_notrace"), ""), 0);
	T_EQ_INT(t_write_file(t_path("sys/set_graph_function"),
			      "#### all functions enabled ####\n"), 0);
	T_EQ_INT(t_write_file(t_path("sys/set_graph_notrace"), "  schedule \n\n"), 0);
	T_EQ_INT(t_write_file(t_path("sys/max_graph_depth"), "7\n"), 0);
	T_EQ_INT(t_write_file(t_path("sys/set_event_pid"), "412\n413\n"), 0);
	/* set_event_notrace_pid missing: null */
	T_EQ_INT(t_write_file(t_path("sys/options/event-fork"), "1\n"), 0);
	T_EQ_INT(t_write_file(t_path("sys/set_event_comm"), "app-*\n"), 0);
	T_EQ_INT(t_write_file(t_path("sys/options/direct"), "1\n"), 0);
	T_EQ_INT(ng_ctl_init(&ctl, t_path("sys")), 0);
	T_EQ_INT(ng_info_read_settings(&ctl, &set), 0);
	info.settings = set;
	T_EQ_INT(ng_info_write(t_path("rec"), &info), 0);
	ng_info_settings_free(set);
	T_FILE_HAS(t_path("rec/info.json"),
		   "  \"source\": \"record\",\n"
		   "  \"collector_argv\": [\"nanograph\", \"record\", \"-F\", \"vfs_read\", \"--\", \"dd\", \"if=x\"],\n"
		   "  \"scope\": \"command\",\n"
		   "  \"traced_command\": [\"dd\", \"if=x\"],\n"
		   "  \"traced_pid\": null,\n"
		   "  \"input\": null,\n"
		   "  \"kernel_release\": \"");
	T_FILE_HAS(t_path("rec/info.json"),
		   "  \"start_time\": \"2026-11-18T11:06:40.123456Z\",\n"
		   "  \"duration_ns\": 640000000,\n"
		   "  \"mode\": \"raw\",\n"
		   "  \"trigger\": null,\n"
		   "  \"clock\": {\n"
		   "    \"timestamps\": \"CLOCK_MONOTONIC\",\n"
		   "    \"counter\": \"tsc\",\n"
		   "    \"counter_hz\": 30,\n"
		   "    \"sync_counter\": 10,\n"
		   "    \"sync_monotonic_ns\": 20\n"
		   "  },\n"
		   "  \"filters\": {\n"
		   "    \"set_ftrace_filter\": [\"vfs_*\", \"ksys_read\"],\n"
		   "    \"set_ftrace_notrace\": [],\n"
		   "    \"set_graph_function\": [],\n"
		   "    \"set_graph_notrace\": [\"schedule\"],\n"
		   "    \"max_graph_depth\": 7,\n"
		   "    \"set_event_pid\": [412, 413],\n"
		   "    \"set_event_notrace_pid\": null,\n"
		   "    \"event_fork\": 1,\n"
		   "    \"set_event_comm\": [\"app-*\"],\n"
		   "    \"direct\": 1\n"
		   "  },\n"
		   "  \"counts\": {\n"
		   "    \"threads\": 2,\n"
		   "    \"calls\": 9,\n"
		   "    \"events\": 20,\n"
		   "    \"ignored\": 4,\n"
		   "    \"lost\": 12,\n"
		   "    \"overwritten\": 0,\n"
		   "    \"outside_window\": 0,\n"
		   "    \"unattributed\": 0,\n"
		   "    \"skipped\": 57,\n"
		   "    \"repaired\": 0,\n"
		   "    \"closed_at_end\": 0,\n"
		   "    \"unmatched_exits\": 1,\n"
		   "    \"clamped\": 3,\n"
		   "    \"unresolved\": 1,\n"
		   "    \"sched\": 0,\n"
		 "    \"wakes\": 0,\n"
		 "    \"wakes_attributed\": 0,\n"
		 "    \"wakes_untraced\": 0,\n"
		 "    \"wakes_no_call\": 0,\n"
		 "    \"counters\": 0,\n"
		 "    \"args\": 0,\n"
		 "    \"retvals\": 0,\n"
		   "    \"bytes\": 321\n"
		   "  },\n"
		   "  \"overhead\": null,\n"
		   "  \"first_ns\": 100,\n"
		   "  \"last_ns\": 900\n"
		   "}\n");
	T_ASSERT(t_json_ok(t_path("rec/info.json"),
			 "import os\n"
			 "assert j['hostname']==os.uname().nodename,j['hostname']\n"
			 "assert j['kernel_release']==os.uname().release\n"
			 "assert j['machine']==os.uname().machine\n"
			 "assert j['filters']['set_event_pid']==[412,413]"));
}

/*
 * What record -a writes: scope "system", no command, no pid, and the
 * pid filter as ng_ctl_select_tasks() left it: set_event_pid empty
 * (every task), the collector's threads in set_event_notrace_pid,
 * event-fork 0.
 */
static void test_record_all_fields(void)
{
	static char *argv[] = { "nanograph", "record", "-a", "--duration", "2", NULL };
	struct ng_conv_summary sum = summary();
	struct ng_info_settings *set;
	struct ng_info info = {
		.source = "record", .argc = 5, .argv = argv, .scope = "system",
		.this_host = true, .duration_ns = 2000000000, .mode = "events",
		.sum = &sum, .skipped = 0,
	};
	const char *file;
	struct ng_ctl ctl;
	char check[256];
	char *text;
	bool ok;

	T_EQ_INT(mkdir(t_path("sys"), 0755), 0);
	T_EQ_INT(mkdir(t_path("sys/options"), 0755), 0);
	T_EQ_INT(mkdir(t_path("rec"), 0755), 0);
	T_EQ_INT(t_write_file(t_path("sys/set_event_pid"), "412\n"), 0);
	T_EQ_INT(t_write_file(t_path("sys/set_event_notrace_pid"), ""), 0);
	T_EQ_INT(t_write_file(t_path("sys/options/event-fork"), "1\n"), 0);
	T_EQ_INT(ng_ctl_init(&ctl, t_path("sys")), 0);
	T_EQ_INT(ng_ctl_select_tasks(&ctl, 0, &file), 0);
	T_EQ_INT(ng_info_read_settings(&ctl, &set), 0);
	info.settings = set;
	T_EQ_INT(ng_info_write(t_path("rec"), &info), 0);
	ng_info_settings_free(set);
	text = t_read_file(t_path("rec/info.json"), NULL);
	T_ASSERT(text);
	ok = strstr(text,
		    "  \"collector_argv\": [\"nanograph\", \"record\", \"-a\", \"--duration\", \"2\"],\n"
		    "  \"scope\": \"system\",\n"
		    "  \"traced_command\": null,\n"
		    "  \"traced_pid\": null,\n") &&
	     strstr(text, "    \"set_event_pid\": [],\n") &&
	     strstr(text, "    \"event_fork\": 0,\n");
	if (!ok)
		t_diag("info.json: %s", t_escape(text, strlen(text)));
	free(text);
	T_ASSERT(ok);
	snprintf(check, sizeof(check),
		 "assert j['scope']=='system'\n"
		 "assert %d in j['filters']['set_event_notrace_pid'],j['filters']",
		 (int)getpid());
	T_ASSERT(t_json_ok(t_path("rec/info.json"), check));
}

/*
 * Odd strings in, valid JSON out: quotes, backslashes and control
 * characters escaped, UTF-8 kept, bytes that are not UTF-8 (a stray
 * byte, a cut sequence, a surrogate, an overlong form) as \ufffd; and
 * the reader gives back what was meant.
 */
static void test_json_escaping(void)
{
	static char *argv[] = {
		"q\"uote", "back\\slash", "tab\tnl\nend", "\x01\x1f\x7f",
		"caf\xc3\xa9 \xf0\x9f\x98\x80", "\xff" "a\xe2\x82" "b",
		"\xed\xa0\x80" "\xc0\xaf", "", "/", NULL,
	};
	static const char *const back[] = {
		"q\"uote", "back\\slash", "tab\tnl\nend", "\x01\x1f\x7f",
		"caf\xc3\xa9 \xf0\x9f\x98\x80",
		"\xef\xbf\xbd" "a\xef\xbf\xbd\xef\xbf\xbd" "b",
		"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd",
		"", "/",
	};
	struct ng_conv_summary sum = summary();
	struct ng_info info = {
		.source = "re\"cord", .argc = 9, .argv = argv, .mode = "events",
		.input = "dir\\x.dat", .duration_ns = NG_INFO_UNKNOWN,
		.sum = &sum, .skipped = NG_INFO_UNKNOWN,
	};
	const struct ng_info_field *f;
	struct ng_info_file *file;
	struct ng_pp_bad bad;
	size_t nr, i, n;
	bool ok = true;

	T_EQ_INT(ng_info_write(t_tmpdir(), &info), 0);
	T_FILE_HAS(t_path("info.json"),
		   "  \"source\": \"re\\\"cord\",\n"
		   "  \"collector_argv\": [\"q\\\"uote\", \"back\\\\slash\", "
		   "\"tab\\u0009nl\\u000aend\", \"\\u0001\\u001f\x7f\", "
		   "\"caf\xc3\xa9 \xf0\x9f\x98\x80\", \"\\ufffda\\ufffd\\ufffdb\", "
		   "\"\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\", \"\", \"/\"],\n");
	T_FILE_HAS(t_path("info.json"), "  \"input\": \"dir\\\\x.dat\",\n");
	T_ASSERT(t_json_ok(t_path("info.json"),
			 "assert j['collector_argv'][0]=='q\"uote'\n"
			 "assert j['collector_argv'][2]=='tab\\tnl\\nend'\n"
			 "assert j['collector_argv'][5]=='\\ufffda\\ufffd\\ufffdb'\n"
			 "assert j['collector_argv'][4]=='caf\\u00e9 \\U0001f600'"));

	T_EQ_INT(ng_info_load(&file, t_tmpdir(), &bad), 0);
	f = ng_info_fields(file, &nr);
	for (i = 0; i < nr && strcmp(f[i].key, "collector_argv"); i++)
		;
	for (n = 0; i + n < nr && f[i + n].key == f[i].key; n++) {
		T_ASSERT(f[i + n].element && f[i + n].type == NG_JSON_STRING);
		if (n < 9 && strcmp(f[i + n].value, back[n])) {
			t_diag("element %zu: %s", n,
			       t_escape(f[i + n].value, strlen(f[i + n].value)));
			ok = false;
		}
	}
	T_ASSERT(ok);
	T_EQ_U64(n, 9);
	T_EQ_STR(ng_info_find(file, "input")->value, "dir\\x.dat");
	T_EQ_STR(ng_info_find(file, "source")->value, "re\"cord");
	ng_info_file_free(file);
}

/* The fields of @json flattened as "key=value" ("key[]=" for elements). */
static int flatten(const char *json, char *buf, size_t size,
		   struct ng_pp_bad *bad)
{
	static const char *const types = "nbdsAO";
	const struct ng_info_field *f;
	struct ng_info_file *file;
	size_t nr, i, o = 0;
	int ret;

	if (t_write_file(t_path("info.json"), json))
		return -EIO;
	ret = ng_info_load(&file, t_tmpdir(), bad);
	if (ret)
		return ret;
	f = ng_info_fields(file, &nr);
	buf[0] = '\0';
	for (i = 0; i < nr; i++)
		o += snprintf(buf + o, size - o, "%s%s%s=%c:%s", i ? " " : "",
			      f[i].key, f[i].element ? "[]" : "",
			      types[f[i].type], f[i].value);
	ng_info_file_free(file);
	return 0;
}

/*
 * The reader takes any JSON object, flattened in file order: nested keys
 * joined by '.', an array's values under its key, its objects as
 * "key[i]", empty containers as fields of their own; \u escapes and
 * surrogate pairs decoded, a lone surrogate and \u0000 as U+FFFD.
 */
static void test_reader(void)
{
	struct ng_pp_bad bad;
	struct ng_info_file *file;
	char got[2048];
	uint64_t v;

	T_EQ_INT(flatten(" {\"a\": 1, \"b\" :{\"c\":[true,false,null],\"d\":-1.5e+3},"
			 "\"e\":[{\"f\":\"x\"},[],{}, [2]],\"g\":{},\"h\":[],"
			 "\"s\":\"\\u00e9\\ud83d\\ude00\\ud800\\u0000\\/\\b\\f\\r\"}\n",
			 got, sizeof(got), &bad), 0);
	T_EQ_STR(got, "a=d:1 b.c[]=b:true b.c[]=b:false b.c[]=n:null b.d=d:-1.5e+3 "
		 "e[0].f=s:x e[1]=A: e[2]=O: e[3][]=d:2 g=O: h=A: "
		 "s=s:\xc3\xa9\xf0\x9f\x98\x80\xef\xbf\xbd\xef\xbf\xbd/\b\f\r");
	T_EQ_INT(flatten("{}", got, sizeof(got), &bad), 0);
	T_EQ_STR(got, "");

	/* numbers: only decimal integers of 64 bits are counts */
	T_EQ_INT(t_write_file(t_path("info.json"),
			      "{\"n\":18446744073709551615,\"big\":18446744073709551616,"
			      "\"neg\":-1,\"f\":1.0,\"s\":\"1\",\"z\":null}"), 0);
	T_EQ_INT(ng_info_load(&file, t_tmpdir(), &bad), 0);
	T_EQ_INT(ng_info_u64(file, "n", &v), 0);
	T_EQ_U64(v, UINT64_MAX);
	T_EQ_INT(ng_info_u64(file, "big", &v), -EINVAL);
	T_EQ_INT(ng_info_u64(file, "neg", &v), -EINVAL);
	T_EQ_INT(ng_info_u64(file, "f", &v), -EINVAL);
	T_EQ_INT(ng_info_u64(file, "s", &v), -EINVAL);
	T_EQ_INT(ng_info_u64(file, "z", &v), -ENODATA);
	T_EQ_INT(ng_info_u64(file, "none", &v), -ENOENT);
	ng_info_file_free(file);
	T_EQ_INT(ng_info_load(&file, t_path("absent"), &bad), -ENOENT);
}

/* What is not JSON is refused at its line, with why; nothing recurses. */
static void test_reader_errors(void)
{
	static const struct {
		const char *json;
		unsigned int line;
		const char *why;
	} cases[] = {
		{ "", 1, "not a JSON object" },
		{ "[1]", 1, "not a JSON object" },
		{ "{", 1, "expected a key in quotes" },
		{ "{\n\"a\":\n}", 3, "expected a value" },
		{ "{\"a\":1,}", 1, "expected a key in quotes" },
		{ "{\"a\" 1}", 1, "expected ':' after a key" },
		{ "{\"a\":1\n\"b\":2}", 2, "expected ',' or '}'" },
		{ "{\"a\":[1 2]}", 1, "expected ',' or ']'" },
		{ "{\"a\":01}", 1, "a number with a leading zero" },
		{ "{\"a\":1.}", 1, "no digit after a decimal point" },
		{ "{\"a\":1e}", 1, "no digit in an exponent" },
		{ "{\"a\":tru}", 1, "expected a value" },
		{ "{\"a\":\"x\ny\"}", 1, "control character in a string" },
		{ "{\"a\":\"\\x\"}", 1, "unknown escape in a string" },
		{ "{\"a\":\"\\u12g4\"}", 1, "\\u is not followed by 4 hex digits" },
		{ "{\"a\":\"abc", 1, "unterminated string" },
		{ "{\"a\":1}\n{}", 2, "text after the object" },
	};
	struct ng_info_file *file;
	char got[256], deep[200];
	struct ng_pp_bad bad;
	struct stat st;
	size_t i, n;
	FILE *f;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret = flatten(cases[i].json, got, sizeof(got), &bad);

		if (ret != -EBADMSG || bad.line != cases[i].line ||
		    strcmp(bad.why, cases[i].why) || !bad.file ||
		    strcmp(bad.file, "info.json")) {
			t_diag("input %s: %d, line %llu: %s", t_escape(cases[i].json,
			       strlen(cases[i].json)), ret,
			       (unsigned long long)bad.line, bad.why);
			T_EQ_INT(ret, -EBADMSG);
			T_EQ_U64(bad.line, cases[i].line);
			T_EQ_STR(bad.why, cases[i].why);
		}
	}
	/* 32 levels are read (the object and 31 arrays), 33 refused */
	n = snprintf(deep, sizeof(deep), "{\"a\":");
	for (i = 0; i < 31; i++)
		deep[n++] = '[';
	for (i = 0; i < 31; i++)
		deep[n++] = ']';
	snprintf(deep + n, sizeof(deep) - n, "}");
	T_EQ_INT(flatten(deep, got, sizeof(got), &bad), 0);
	n = snprintf(deep, sizeof(deep), "{\"a\":");
	for (i = 0; i < 32; i++)
		deep[n++] = '[';
	for (i = 0; i < 32; i++)
		deep[n++] = ']';
	snprintf(deep + n, sizeof(deep) - n, "}");
	T_EQ_INT(flatten(deep, got, sizeof(got), &bad), -EBADMSG);
	T_EQ_STR(bad.why, "nested deeper than 32");
	/* a file larger than a MiB is no info.json nanograph wrote */
	f = fopen(t_path("info.json"), "w");
	T_ASSERT(f);
	fputs("{\"a\":\"", f);
	for (n = 0; n < NG_INFO_MAX_SIZE; n++)
		fputc('x', f);
	fputs("\"}", f);
	T_EQ_INT(fclose(f), 0);
	T_EQ_INT(stat(t_path("info.json"), &st), 0);
	T_ASSERT(st.st_size > NG_INFO_MAX_SIZE);
	T_EQ_INT(ng_info_load(&file, t_tmpdir(), &bad), -EFBIG);
}

/*
 * A recording <tmpdir>/@name with info.json @json (none if NULL), for
 * the commands; its path in @dir (t_path()'s buffers rotate).
 */
static int make_rec(char *dir, size_t size, const char *name, const char *json)
{
	return t_make_rec(dir, size, name,
			  "5.txt", "100:+a\n110:+b\n130:POP\n200:POP\n",
			  "threads.tsv", "tid\tpid\tcomm\n5\t5\tmain\n",
			  json ? "info.json" : NULL, json, NULL);
}

/* A hand-made info.json in the layout record writes. */
static const char rec_json[] =
	"{\n"
	"  \"format\": 1,\n"
	"  \"nanograph_version\": \"0.1.0\",\n"
	"  \"source\": \"record\",\n"
	"  \"collector_argv\": [\"nanograph\", \"record\", \"-o\", \"ls.data\", \"--hook\", \"vfs_*\", \"--\", \"ls\", \"-l\", \"my dir\", \"it's\", \"\"],\n"
	"  \"traced_command\": [\"ls\", \"-l\", \"my dir\", \"it's\", \"\"],\n"
	"  \"traced_pid\": null,\n"
	"  \"hostname\": \"box\\u0007\",\n"
	"  \"start_time\": \"2026-11-18T08:26:40.123456Z\",\n"
	"  \"clock\": {\n"
	"    \"counter\": \"tsc\",\n"
	"    \"counter_hz\": 2400000000\n"
	"  },\n"
	"  \"filters\": {\n"
	"    \"set_ftrace_filter\": [\"vfs_*\"],\n"
	"    \"set_graph_function\": [],\n"
	"    \"set_event_pid\": [412]\n"
	"  },\n"
	"  \"counts\": {\n"
	"    \"threads\": 1,\n"
	"    \"calls\": 2,\n"
	"    \"lost\": %s,\n"
	"    \"skipped\": %s,\n"
	"    \"repaired\": %s,\n"
	"    \"closed_at_end\": %s\n"
	"  }\n"
	"}\n";

/*
 * rec_json with the four counts that make a recording incomplete, in a
 * buffer the next call reuses.
 */
static const char *rec_json_with(const char *lost, const char *skipped,
				 const char *repaired, const char *closed)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), rec_json, lost, skipped, repaired, closed);
	return buf;
}

/* What "nanograph info" prints of rec_json: its four counts, a last line. */
static const char rec_lines[] =
	"format:                     1\n"
	"nanograph_version:          0.1.0\n"
	"source:                     record\n"
	"collector_argv:             nanograph record -o ls.data --hook 'vfs_*' -- ls -l 'my dir' 'it'\\''s' ''\n"
	"traced_command:             ls -l 'my dir' 'it'\\''s' ''\n"
	"traced_pid:                 -\n"
	"hostname:                   box?\n"
	"start_time:                 2026-11-18T08:26:40.123456Z\n"
	"clock.counter:              tsc\n"
	"clock.counter_hz:           2400000000\n"
	"filters.set_ftrace_filter:  'vfs_*'\n"
	"filters.set_graph_function: (empty)\n"
	"filters.set_event_pid:      412\n"
	"counts.threads:             1\n"
	"counts.calls:               2\n"
	"counts.lost:                %s\n"
	"counts.skipped:             %s\n"
	"counts.repaired:            %s\n"
	"counts.closed_at_end:       %s\n"
	"%s";

/*
 * "nanograph info": every field as an aligned line in the file's order,
 * arrays on one line (quoted as a shell takes them), null as '-', empty
 * lists as "(empty)", control characters as '?', and what is missing;
 * --json: the file as it is.
 */
static void test_info_cmd(void)
{
	const char *json = rec_json_with("12", "3", "0", "1");
	char want[4096], dir[700];

	T_EQ_INT(make_rec(dir, sizeof(dir), "rec", json), 0);
	snprintf(want, sizeof(want), rec_lines, "12", "3", "0", "1",
		 "# incomplete: 12 events lost, 3 calls skipped, 1 call still running at the end\n");
	T_RUN(t_ng("info", dir, NULL), 0, want, "");
	T_RUN(t_ng("info", "--json", dir, NULL), 0, json, "");
	/* a hand-edited key keeps to its line */
	T_EQ_INT(make_rec(dir, sizeof(dir), "rec", "{\"a\\nb\": \"x\\ty\", \"c\": [\"\"]}"), 0);
	T_RUN(t_ng("info", dir, NULL), 0, "a?b: x?y\nc:   ''\n", "");
	/* whole: no last line */
	T_EQ_INT(make_rec(dir, sizeof(dir), "rec",
			  rec_json_with("0", "null", "0", "0")), 0);
	snprintf(want, sizeof(want), rec_lines, "0", "-", "0", "0", "");
	T_RUN(t_ng("info", dir, NULL), 0, want, "");
}

/* info on what convert wrote: its lines, and what is missing. */
static void test_info_cmd_after_convert(void)
{
	char dat[600], out[600];
	struct t_result r;
	bool ok;

	T_ASSERT(convert_tdat(dat, out, sizeof(dat)));
	r = t_ng("info", out, NULL);
	ok = r.status == 0 && r.out && !*r.err &&
	     strstr(r.out, "\nsource:                  convert\n") &&
	     strstr(r.out, "\nkernel_release:          -\n") &&
	     strstr(r.out, "\nfilters:                 -\n") &&
	     strstr(r.out, "\ncounts.skipped:          -\n") &&
	     strstr(r.out, "\nclock.sync_monotonic_ns: 5000\n") &&
	     strstr(r.out, "\n# incomplete: 2 calls closed early (return lost), "
			   "1 call still running at the end\n");
	if (!ok && r.out)
		t_diag("stdout: %s", t_escape(r.out, strlen(r.out)));
	t_result_free(&r);
	T_ASSERT(ok);
}

/*
 * No info.json (an older recording, or files made by hand): info says so
 * and gives what the files hold; a directory of push/pop files is a
 * recording, an empty one or a missing one is not (exit 1).
 */
static void test_info_cmd_without_info_json(void)
{
	char want[2048], dir[700], dir2[700];

	T_EQ_INT(make_rec(dir, sizeof(dir), "old", NULL), 0);
	T_EQ_INT(t_write_file(t_path("old/0-1.txt"), "300:+b\n310:POP\n"), 0);
	snprintf(want, sizeof(want),
		 "# no info.json in %s (a recording from before nanograph wrote one, or made by hand): what its files say\n"
		 "counts.threads: 2\n"
		 "counts.calls:   3\n"
		 "first_ns:       100\n"
		 "last_ns:        310\n"
		 "span:           210 ns\n", dir);
	T_RUN(t_ng("info", dir, NULL), 0, want, "");
	snprintf(want, sizeof(want),
		 "nanograph info: no info.json in %s: printing what its files say\n", dir);
	T_RUN(t_ng("info", "--json", dir, NULL), 0,
	      "{\n  \"counts\": {\n    \"threads\": 2,\n    \"calls\": 3\n  },\n"
	      "  \"first_ns\": 100,\n  \"last_ns\": 310\n}\n", want);

	/* threads.tsv and no file: a recording of no call */
	T_EQ_INT(mkdir(t_path("none"), 0755), 0);
	T_EQ_INT(t_write_file(t_path("none/threads.tsv"), "tid\tpid\tcomm\n"), 0);
	snprintf(want, sizeof(want),
		 "# no info.json in %s (a recording from before nanograph wrote one, or made by hand): what its files say\n"
		 "counts.threads: 0\ncounts.calls:   0\nfirst_ns:       -\nlast_ns:        -\nspan:           -\n",
		 t_path("none"));
	T_RUN(t_ng("info", t_path("none"), NULL), 0, want, "");

	T_EQ_INT(mkdir(t_path("empty"), 0755), 0);
	snprintf(want, sizeof(want),
		 "nanograph info: %s: no push/pop files (<tid>.txt) here: is it a 'nanograph record -o' directory?\n",
		 t_path("empty"));
	T_RUN(t_ng("info", t_path("empty"), NULL), 1, "", want);
	snprintf(dir2, sizeof(dir2), "%s", t_path("absent"));
	snprintf(want, sizeof(want), "nanograph info: %s: No such file or directory\n", dir2);
	T_RUN(t_ng("info", dir2, NULL), 1, "", want);

	/* a bad push/pop file: named, exit 1 */
	T_EQ_INT(t_write_file(t_path("old/9.txt"), "5:+a\n"), 0);
	snprintf(want, sizeof(want),
		 "nanograph info: %s/9.txt:1: not a valid push/pop line: 1 frame(s) still open at end of file (see 'nanograph check %s/9.txt')\n",
		 dir, dir);
	T_RUN(t_ng("info", dir, NULL), 1, "", want);
}

/* A damaged info.json: one line with its line and why, exit 1. */
static void test_info_cmd_errors(void)
{
	char want[1024], dir[700];

	T_EQ_INT(make_rec(dir, sizeof(dir), "rec",
			  "{\n  \"format\": 1\n  \"source\": \"record\"\n}\n"), 0);
	snprintf(want, sizeof(want),
		 "nanograph info: %s/info.json:3: not valid JSON: expected ',' or '}'\n", dir);
	T_RUN(t_ng("info", dir, NULL), 1, "", want);
	T_RUN(t_ng("info", "--json", dir, NULL), 1, "", want);
	/* "DIR/" is DIR */
	strcat(dir, "//");
	T_RUN(t_ng("info", dir, NULL), 1, "", want);
	T_RUN(t_ng("info", NULL), 2, "",
	      "nanograph info: no recording directory given\nTry 'nanograph help info'.\n");
	T_RUN(t_ng("info", dir, dir, NULL), 2, "",
	      "nanograph info: give one recording directory\nTry 'nanograph help info'.\n");
	T_RUN(t_ng("info", "--json=1", dir, NULL), 2, "",
	      "nanograph info: option '--json' takes no value\nTry 'nanograph help info'.\n");
	T_RUN(t_ng("info", "-j", dir, NULL), 2, "",
	      "nanograph info: unknown option '-j'\nTry 'nanograph help info'.\n");
	T_RUN(t_ng("info", "-h", NULL), 0, NULL, "");
}

/* The warning line of "nanograph @cmd" on @dir, which misses @what. */
static const char *warning(char *buf, size_t size, const char *cmd,
			   const char *what, const char *dir)
{
	snprintf(buf, size, "nanograph %s: warning: incomplete recording: %s (nanograph info %s)\n",
		 cmd, what, dir);
	return buf;
}

/*
 * report and export print one warning line when info.json says calls
 * are missing, and none when it says nothing is, or there is none.
 */
static void test_incomplete_warning(void)
{
	static const char report_out[] =
		"# 1 thread, 2 calls, 100 ns recorded\n"
		"       Total         Self      Calls          Avg          Max  Function\n"
		"         100           80          1          100          100  a\n"
		"          20           20          1           20           20  b\n";
	static const char folded[] = "main;a 80\nmain;a;b 20\n";
	char want[1024], out[700], dir[700], dir2[700];

	T_EQ_INT(make_rec(dir, sizeof(dir), "rec",
			  rec_json_with("12", "3", "0", "0")), 0);
	warning(want, sizeof(want), "report", "12 events lost, 3 calls skipped", dir);
	T_RUN(t_ng("report", "--ns", dir, NULL), 0, report_out, want);
	warning(want, sizeof(want), "export", "12 events lost, 3 calls skipped", dir);
	T_RUN(t_ng("export", "--folded", "-o", "-", dir, NULL), 0, folded, want);
	snprintf(out, sizeof(out), "%s", t_path("t.json"));
	T_RUN(t_ng("export", "--chrome", "-o", out, dir, NULL), 0, "", want);
	T_RUN(t_ng("export", "--perfetto", "-o", out, dir, NULL), 0, "", want);

	/* singular, and the other two counts */
	T_EQ_INT(make_rec(dir, sizeof(dir), "rec",
			  rec_json_with("1", "0", "1", "2")), 0);
	warning(want, sizeof(want), "report",
		"1 event lost, 1 call closed early (return lost), 2 calls still running at the end",
		dir);
	T_RUN(t_ng("report", "--ns", dir, NULL), 0, report_out, want);

	/* all zero or unknown: no line */
	T_EQ_INT(make_rec(dir, sizeof(dir), "rec",
			  rec_json_with("0", "null", "0", "0")), 0);
	T_RUN(t_ng("report", "--ns", dir, NULL), 0, report_out, "");
	T_RUN(t_ng("export", "--folded", "-o", "-", dir, NULL), 0, folded, "");
	/* no info.json, or one that cannot be read: no line either */
	T_EQ_INT(t_write_file(t_path("rec/info.json"), "{oops"), 0);
	T_RUN(t_ng("report", "--ns", dir, NULL), 0, report_out, "");
	T_EQ_INT(unlink(t_path("rec/info.json")), 0);
	T_RUN(t_ng("report", "--ns", dir, NULL), 0, report_out, "");
	T_RUN(t_ng("export", "--folded", "-o", "-", dir, NULL), 0, folded, "");

	/* --diff: one line for each incomplete recording, naming it */
	T_EQ_INT(make_rec(dir2, sizeof(dir2), "new",
			  rec_json_with("0", "7", "0", "0")), 0);
	warning(want, sizeof(want), "report", "7 calls skipped", dir2);
	T_RUN(t_ng("report", "--diff", dir, dir2, NULL), 0, NULL, want);
}

/*
 * replay warns as report and export do, before its tree, which is
 * unchanged; with -o FILE too; and not on a complete recording, nor on
 * one without info.json.
 */
static void test_incomplete_warning_replay(void)
{
	static const char tree[] =
		"# tid 5, pid 5, main\n"
		"#    DURATION |  FUNCTION CALLS\n"
		"              |  a() {\n"
		"     0.020 us |    b();\n"
		"     0.100 us |  } /* a */\n";
	char want[1024], out[700], dir[700];

	T_EQ_INT(make_rec(dir, sizeof(dir), "rec",
			  rec_json_with("12", "3", "0", "0")), 0);
	warning(want, sizeof(want), "replay", "12 events lost, 3 calls skipped", dir);
	T_RUN(t_ng("replay", dir, NULL), 0, tree, want);
	/* once, whatever the filters leave */
	T_RUN(t_ng("replay", "-F", "b", dir, NULL), 0,
	      "# tid 5, pid 5, main\n"
	      "#    DURATION |  FUNCTION CALLS\n"
	      "     0.020 us |  b();\n", want);
	snprintf(out, sizeof(out), "%s", t_path("tree.txt"));
	T_RUN(t_ng("replay", "-o", out, dir, NULL), 0, "", want);
	T_FILE_EQ(out, tree);

	/* calls repaired and still running at the end */
	T_EQ_INT(make_rec(dir, sizeof(dir), "rec",
			  rec_json_with("0", "0", "2", "1")), 0);
	warning(want, sizeof(want), "replay",
		"2 calls closed early (return lost), 1 call still running at the end",
		dir);
	T_RUN(t_ng("replay", dir, NULL), 0, tree, want);

	/* complete: no line; no info.json: none either */
	T_EQ_INT(make_rec(dir, sizeof(dir), "rec",
			  rec_json_with("0", "0", "0", "0")), 0);
	T_RUN(t_ng("replay", dir, NULL), 0, tree, "");
	T_EQ_INT(unlink(t_path("rec/info.json")), 0);
	T_RUN(t_ng("replay", dir, NULL), 0, tree, "");
}

/* After a real conversion that closed calls: the warning, end to end. */
static void test_incomplete_after_convert(void)
{
	char dat[600], out[600], want[1024];

	T_ASSERT(convert_tdat(dat, out, sizeof(dat)));
	warning(want, sizeof(want), "report",
		"2 calls closed early (return lost), 1 call still running at the end",
		out);
	T_RUN(t_ng("report", out, NULL), 0, NULL, want);
}

static const struct t_case cases[] = {
	{ "convert_writes_info", test_convert_writes_info },
	{ "convert_clock_file_counter", test_convert_clock_file_counter },
	{ "record_fields", test_record_fields },
	{ "record_all_fields", test_record_all_fields },
	{ "json_escaping", test_json_escaping },
	{ "reader", test_reader },
	{ "reader_errors", test_reader_errors },
	{ "info_cmd", test_info_cmd },
	{ "info_cmd_after_convert", test_info_cmd_after_convert },
	{ "info_cmd_without_info_json", test_info_cmd_without_info_json },
	{ "info_cmd_errors", test_info_cmd_errors },
	{ "incomplete_warning", test_incomplete_warning },
	{ "incomplete_warning_replay", test_incomplete_warning_replay },
	{ "incomplete_after_convert", test_incomplete_after_convert },
};

T_SUITE(info, cases);
