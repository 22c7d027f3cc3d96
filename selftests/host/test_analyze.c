// SPDX-License-Identifier: GPL-2.0
/*
 * test_analyze.c - reading recordings back: the walk and its checks (the
 * same as "nanograph check"), the profile behind "nanograph report" (exact
 * total and self times, recursion, sort keys), the Chrome JSON and folded
 * stack exports, and both commands end to end: their output, their errors
 * and that a bad input never leaves a file under the output's name.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nanograph.h"
#include "ktap.h"
#include "t_util.h"

/* ---- the walk ---- */

/* Calls come out at their POP, children first, with exact self times. */
static void test_walk_calls(void)
{
	struct t_trace tr = { .self = true };
	struct ng_pp_visitor v = t_trace_visitor(&tr);
	struct ng_pp_bad bad;

	T_EQ_INT(t_make_example(false), 0);
	T_EQ_INT(ng_pp_walk(t_rp("5.txt"), &v, &bad), 0);
	T_EQ_STR(tr.buf, "+a@100/0 +b@110/1 -b[110,130]self20/1 +b@140/1 "
		 "+c [mod]@145/2 -c [mod][145,146]self1/2 -b[140,150]self9/1 "
		 "-a[100,200]self70/0 ");
	T_EQ_INT(ng_pp_walk(t_path("none.txt"), &v, &bad), -ENOENT);
}

/* A visitor's error stops the walk and comes back as it is. */
static int stop_enter(void *priv, const char *label, uint64_t ns, size_t depth)
{
	(void)priv; (void)label; (void)depth;
	return ns == 140 ? -ECANCELED : 0;
}

static void test_walk_visitor_stops(void)
{
	struct ng_pp_visitor v = { stop_enter, NULL, NULL };
	struct ng_pp_bad bad;

	T_EQ_INT(t_make_example(false), 0);
	T_EQ_INT(ng_pp_walk(t_rp("5.txt"), &v, &bad), -ECANCELED);
	T_EQ_U64(bad.line, 0);
}

/* The walk refuses what "nanograph check" refuses, at the same line, in the same words. */
static void test_walk_checks_like_check(void)
{
	static const char *const inputs[] = {
		"\n", "abc\n", "12\n", "12:\n", "12:+\n", "12:pop\n",
		"99999999999999999999:+a\n", "10:+a\n5:POP\n", "10:POP\n",
		"10:+a\n20:POP", "10:+a\n20:+b\n30:POP\n", "10:+a\r\n20:POP\r\n",
		"10:+a\n20:POP\n\n", "1:+a\n2:POP\n3:POP\n", "x\n5:POP",
		"5:+a\n4:POP", "1:+a", "",
		"1:+a b [m]\n1:+;\n1:POP\n1:POP\n",
	};
	struct ng_pp_visitor v = { NULL, NULL, NULL };
	struct ng_pp_check c;
	struct ng_pp_bad bad;
	size_t i;
	int ret;

	for (i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		T_EQ_INT(t_write_file(t_path("f.txt"), inputs[i]), 0);
		ng_pp_check_buf(inputs[i], strlen(inputs[i]), &c);
		ret = ng_pp_walk(t_path("f.txt"), &v, &bad);
		if (ret != (c.error ? -EBADMSG : 0) ||
		    (c.error && (bad.line != c.error_line ||
				 strcmp(bad.why, c.error_msg)))) {
			t_diag("input %s", t_escape(inputs[i], strlen(inputs[i])));
			t_diag("check: line %llu: %s", (unsigned long long)c.error_line,
			       c.error_msg);
			T_EQ_INT(ret, c.error ? -EBADMSG : 0);
			T_EQ_U64(bad.line, c.error_line);
			T_EQ_STR(bad.why, c.error_msg);
		}
	}
}

/* ---- the profile ---- */

/* The row of @label, or NULL. */
static const struct ng_func_stats *find(const struct ng_func_stats *s,
					size_t n, const char *label)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(s[i].label, label))
			return &s[i];
	return NULL;
}

/* Total, self, max and avg of nested calls, to the nanosecond. */
static void test_profile_nesting(void)
{
	const struct ng_func_stats *s, *f;
	uint64_t calls, first, last;
	struct ng_recording rec;
	struct ng_profile *p;
	struct ng_pp_bad bad;
	size_t n, i;

	T_EQ_INT(t_make_example(true), 0);
	T_EQ_INT(ng_recording_open(&rec, t_path("rec")), 0);
	T_EQ_INT(ng_profile_new(&p), 0);
	for (i = 0; i < rec.nr_threads; i++)
		T_EQ_INT(ng_profile_add_thread(p, &rec, i, &bad), 0);
	ng_recording_close(&rec);
	T_EQ_INT(ng_profile_sorted(p, NG_SORT_TOTAL, &s, &n), 0);
	T_EQ_INT(n, 3);
	T_EQ_STR(s[0].label, "a");
	T_EQ_STR(s[1].label, "b");
	T_EQ_STR(s[2].label, "c [mod]");
	f = find(s, n, "a");
	T_EQ_U64(f->calls, 1);
	T_EQ_U64(f->total_ns, 100);
	T_EQ_U64(f->self_ns, 100 - 20 - 10);
	T_EQ_U64(f->max_ns, 100);
	T_EQ_U64(f->avg_ns, 100);
	f = find(s, n, "b");		/* two calls in thread 5, one idle */
	T_EQ_U64(f->calls, 3);
	T_EQ_U64(f->total_ns, 20 + 10 + 10);
	T_EQ_U64(f->self_ns, 20 + 9 + 10);
	T_EQ_U64(f->max_ns, 20);
	T_EQ_U64(f->avg_ns, 13);	/* 40 / 3, rounded down */
	f = find(s, n, "c [mod]");
	T_EQ_U64(f->calls, 1);
	T_EQ_U64(f->total_ns, 1);
	T_EQ_U64(f->self_ns, 1);
	ng_profile_totals(p, &calls, &first, &last);
	T_EQ_U64(calls, 5);
	T_EQ_U64(first, 100);
	T_EQ_U64(last, 310);
	ng_profile_free(p);
}

/* Each recursive frame counts on its own; self times still add up to the span. */
static void test_profile_recursion(void)
{
	const struct ng_func_stats *s;
	struct ng_profile *p;
	struct ng_pp_bad bad;
	size_t n;

	T_EQ_INT(t_write_file(t_path("1.txt"),
			      "0:+r\n10:+r\n20:+r\n25:+q\n26:POP\n30:POP\n40:POP\n50:POP\n"), 0);
	T_EQ_INT(ng_profile_new(&p), 0);
	T_EQ_INT(ng_profile_add_file(p, t_path("1.txt"), &bad), 0);
	T_EQ_INT(ng_profile_sorted(p, NG_SORT_NAME, &s, &n), 0);
	T_EQ_INT(n, 2);
	T_EQ_STR(s[1].label, "r");
	T_EQ_U64(s[1].calls, 3);
	T_EQ_U64(s[1].total_ns, 50 + 30 + 10);
	T_EQ_U64(s[1].self_ns, 50 - 1);
	T_EQ_U64(s[1].max_ns, 50);
	T_EQ_U64(s[1].avg_ns, 30);
	T_EQ_U64(s[0].self_ns + s[1].self_ns, 50);
	ng_profile_free(p);
}

/*
 * x: 1 call of 100; y: 4 calls of 10; z: 50 (holding w, 45) and 5; so
 * every key orders them differently, and calls ties w and x.
 */
static const char sorts[] =
	"0:+x\n100:POP\n100:+y\n110:POP\n110:+y\n120:POP\n120:+y\n130:POP\n"
	"130:+y\n140:POP\n140:+z\n145:+w\n190:POP\n190:POP\n190:+z\n195:POP\n";

static void test_profile_sort_keys(void)
{
	static const struct {
		enum ng_sort key;
		const char *name, *order;
	} want[] = {
		{ NG_SORT_TOTAL, "total", "xzwy" },
		{ NG_SORT_SELF, "self", "xwyz" },
		{ NG_SORT_CALLS, "calls", "yzwx" },
		{ NG_SORT_AVG, "avg", "xwzy" },
		{ NG_SORT_MAX, "max", "xzwy" },
		{ NG_SORT_NAME, "name", "wxyz" },
	};
	const struct ng_func_stats *s;
	struct ng_profile *p;
	struct ng_pp_bad bad;
	enum ng_sort key;
	char got[8];
	size_t n, i, k;

	T_EQ_INT(t_write_file(t_path("2.txt"), sorts), 0);
	T_EQ_INT(ng_profile_new(&p), 0);
	T_EQ_INT(ng_profile_add_file(p, t_path("2.txt"), &bad), 0);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		T_EQ_INT(ng_sort_parse(want[i].name, &key), 0);
		T_EQ_INT(key, want[i].key);
		T_EQ_INT(ng_profile_sorted(p, key, &s, &n), 0);
		T_EQ_INT(n, 4);
		for (k = 0; k < n; k++)
			got[k] = s[k].label[0];
		got[n] = '\0';
		T_EQ_STR(got, want[i].order);
	}
	s = find(s, n, "z");
	T_EQ_U64(s->total_ns, 55);
	T_EQ_U64(s->self_ns, 10);
	T_EQ_U64(s->avg_ns, 27);
	T_EQ_INT(ng_sort_parse("Total", &key), -EINVAL);
	ng_profile_free(p);
}

/* ---- the recording directory ---- */

/* Only <tid>.txt and 0-<cpu>.txt are read; names come from threads.tsv. */
static void test_recording_files_and_names(void)
{
	struct ng_recording rec;

	T_EQ_INT(mkdir(t_path("rec"), 0755), 0);
	T_EQ_INT(ng_recording_open(&rec, t_path("rec")), -ENOENT);
	T_EQ_INT(ng_recording_open(&rec, t_path("absent")), -ENOENT);
	T_EQ_INT(t_make_example(false), 0);
	T_EQ_INT(t_write_file(t_rp("notes.txt"), "x"), 0);
	T_EQ_INT(t_write_file(t_rp(".9.txt.tmp"), "x"), 0);
	T_EQ_INT(t_write_file(t_rp(".9.txt"), "x"), 0);
	T_EQ_INT(t_write_file(t_rp("0-.txt"), "x"), 0);
	T_EQ_INT(t_write_file(t_rp("7.txt.bak"), "x"), 0);
	T_EQ_INT(t_write_file(t_rp("trace.json"), "x"), 0);
	T_EQ_INT(t_write_file(t_rp("stacks.folded"), "x"), 0);
	T_EQ_INT(t_write_file(t_rp("12.txt"), "1:+x\n2:POP\n"), 0);
	T_EQ_INT(t_write_file(t_rp("13.txt"), "1:+x\n2:POP\n"), 0);

	/* no threads.tsv: the tid is the name, the pid unknown */
	T_EQ_INT(ng_recording_open(&rec, t_path("rec")), 0);
	T_ASSERT(!rec.have_threads_tsv);
	T_EQ_INT(rec.nr_threads, 4);
	T_EQ_STR(rec.threads[0].tid, "0-1");
	T_ASSERT(rec.threads[0].idle);
	T_EQ_INT(rec.threads[0].id, 1);
	T_EQ_INT(rec.threads[0].pid, 0);
	T_EQ_STR(rec.threads[0].comm, "0-1");
	T_EQ_STR(rec.threads[1].tid, "5");
	T_EQ_INT(rec.threads[1].pid, -1);
	T_EQ_STR(rec.threads[1].comm, "5");
	T_EQ_STR(rec.threads[1].process, "5");
	T_EQ_STR(rec.threads[1].file, "5.txt");
	T_EQ_STR(rec.threads[1].path, t_rp("5.txt"));
	T_EQ_STR(rec.threads[2].tid, "12");	/* by number, not by name */
	T_EQ_STR(rec.threads[3].tid, "13");
	ng_recording_close(&rec);

	/* 13 is a thread of 12, whose row names the process; 99 has no file */
	T_EQ_INT(t_write_file(t_rp("threads.tsv"),
			      "tid\tpid\tcomm\n0-1\t0\tswapper/1\n5\t5\tmain\n"
			      "12\t12\tserver\n13\t12\tworker\n99\t99\tgone\n"
			      "garbage line\n"), 0);
	T_EQ_INT(ng_recording_open(&rec, t_path("rec/")), 0);
	T_ASSERT(rec.have_threads_tsv);
	T_EQ_STR(rec.dir, t_path("rec"));
	T_EQ_STR(rec.threads[0].comm, "swapper/1");
	T_EQ_STR(rec.threads[0].process, "idle");
	T_EQ_INT(rec.threads[1].pid, 5);
	T_EQ_STR(rec.threads[1].comm, "main");
	T_EQ_STR(rec.threads[1].path, t_rp("5.txt"));
	T_EQ_STR(rec.threads[3].comm, "worker");
	T_EQ_INT(rec.threads[3].pid, 12);
	T_EQ_STR(rec.threads[3].process, "server");
	ng_recording_close(&rec);
}

/* ---- exports ---- */

static const char chrome_want[] =
	"{\"traceEvents\":[\n"
	"{\"ph\":\"M\",\"pid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"idle\"}},\n"
	"{\"ph\":\"M\",\"pid\":0,\"tid\":4194305,\"name\":\"thread_name\",\"args\":{\"name\":\"swapper/1\"}},\n"
	"{\"ph\":\"M\",\"pid\":5,\"name\":\"process_name\",\"args\":{\"name\":\"main\"}},\n"
	"{\"ph\":\"M\",\"pid\":5,\"tid\":5,\"name\":\"thread_name\",\"args\":{\"name\":\"main\"}},\n"
	"{\"ph\":\"X\",\"pid\":0,\"tid\":4194305,\"ts\":0.300,\"dur\":0.010,\"name\":\"b\"},\n"
	"{\"ph\":\"X\",\"pid\":5,\"tid\":5,\"ts\":0.100,\"dur\":0.100,\"name\":\"a\"},\n"
	"{\"ph\":\"X\",\"pid\":5,\"tid\":5,\"ts\":0.110,\"dur\":0.020,\"name\":\"b\"},\n"
	"{\"ph\":\"X\",\"pid\":5,\"tid\":5,\"ts\":0.140,\"dur\":0.010,\"name\":\"b\"},\n"
	"{\"ph\":\"X\",\"pid\":5,\"tid\":5,\"ts\":0.145,\"dur\":0.001,\"name\":\"c [mod]\"}\n"
	"],\"displayTimeUnit\":\"ns\"}\n";

static const char *const chrome_check =
	"assert j['displayTimeUnit']=='ns'\n"
	"x=sorted((e['pid'],e['tid'],e['ts'],e['dur'],e['name']) for e in j['traceEvents'] if e['ph']=='X')\n"
	"assert x==[(0,4194305,0.3,0.01,'b'),(5,5,0.1,0.1,'a'),(5,5,0.11,0.02,'b'),"
	"(5,5,0.14,0.01,'b'),(5,5,0.145,0.001,'c [mod]')],x\n"
	"m={(e['pid'],e.get('tid'),e['name'],e['args']['name']) for e in j['traceEvents'] if e['ph']=='M'}\n"
	"assert m=={(0,None,'process_name','idle'),(0,4194305,'thread_name','swapper/1'),"
	"(5,None,'process_name','main'),(5,5,'thread_name','main')},m";

/*
 * An export written as root into a directory others can write: a symlink
 * planted at the temporary name the writer used to take
 * (".trace.json.tmp") pointed the bytes at any file; two exports to one
 * -o wrote one file between them.  Now each temporary name is made with
 * O_EXCL: the planted link and its target stay as they were, the output
 * is whole, and it keeps the mode of the file it replaces.
 */
static void test_export_temp_names(void)
{
	struct ng_recording rec;
	struct ng_pp_bad bad;
	struct stat st;

	T_EQ_INT(t_make_example(true), 0);
	T_EQ_INT(t_write_file(t_path("victim"), "precious\n"), 0);
	T_EQ_INT(symlink(t_path("victim"), t_path(".t.json.tmp")), 0);
	T_EQ_INT(t_write_file(t_path("t.json"), "old"), 0);
	T_EQ_INT(chmod(t_path("t.json"), 0640), 0);
	T_EQ_INT(ng_recording_open(&rec, t_path("rec")), 0);
	T_EQ_INT(ng_export_chrome(&rec, t_path("t.json"), &bad), 0);
	T_EQ_INT(ng_export_chrome(&rec, t_path("t.json"), &bad), 0);
	ng_recording_close(&rec);
	T_FILE_EQ(t_path("victim"), "precious\n");
	T_ASSERT(t_json_ok(t_path("t.json"), chrome_check));
	T_EQ_INT(stat(t_path("t.json"), &st), 0);
	T_EQ_INT((int)(st.st_mode & 0777), 0640);
	T_EQ_INT(lstat(t_path(".t.json.tmp"), &st), 0);
	T_ASSERT(S_ISLNK(st.st_mode));
}

/* The whole JSON, byte for byte, and parsed back by python3. */
static void test_chrome_json(void)
{
	struct ng_recording rec;
	struct ng_pp_bad bad;

	T_EQ_INT(t_make_example(true), 0);
	T_EQ_INT(ng_recording_open(&rec, t_path("rec")), 0);
	T_EQ_INT(ng_export_chrome(&rec, t_path("t.json"), &bad), 0);
	ng_recording_close(&rec);
	T_FILE_EQ(t_path("t.json"), chrome_want);
	T_ASSERT(!t_temp_of(t_path("t.json")));
	T_ASSERT(t_json_ok(t_path("t.json"), chrome_check));
}

/*
 * Big timestamps keep every nanosecond; a parent that starts in the same
 * nanosecond as its child comes first; names are escaped and valid UTF-8;
 * a thread of an unknown process is its own process.
 */
static void test_chrome_exact_and_escaped(void)
{
	struct ng_recording rec;
	struct ng_pp_bad bad;
	char *json;

	mkdir(t_path("rec"), 0755);
	T_EQ_INT(t_write_file(t_rp("42.txt"),
			      "18446744073709551614:+outer\n"
			      "18446744073709551614:+\"q\\\"\n"
			      "18446744073709551615:POP\n"
			      "18446744073709551615:POP\n"), 0);
	T_EQ_INT(t_write_file(t_rp("threads.tsv"),
			      "tid\tpid\tcomm\n42\t-1\tt\xc3\xa9st\xff\n"), 0);
	T_EQ_INT(ng_recording_open(&rec, t_path("rec")), 0);
	T_EQ_INT(ng_export_chrome(&rec, t_path("e.json"), &bad), 0);
	ng_recording_close(&rec);
	json = t_read_file(t_path("e.json"), NULL);
	T_ASSERT(json);
	T_ASSERT(strstr(json,
		"{\"ph\":\"M\",\"pid\":42,\"name\":\"process_name\",\"args\":{\"name\":\"t\xc3\xa9st\\ufffd\"}},\n"
		"{\"ph\":\"M\",\"pid\":42,\"tid\":42,\"name\":\"thread_name\",\"args\":{\"name\":\"t\xc3\xa9st\\ufffd\"}},\n"
		"{\"ph\":\"X\",\"pid\":42,\"tid\":42,\"ts\":18446744073709551.614,\"dur\":0.001,\"name\":\"outer\"},\n"
		"{\"ph\":\"X\",\"pid\":42,\"tid\":42,\"ts\":18446744073709551.614,\"dur\":0.001,\"name\":\"\\\"q\\\\\\\"\"}\n"));
	free(json);
	T_ASSERT(t_json_ok(t_path("e.json"),
			 "assert [e['name'] for e in j['traceEvents']][2:]==['outer','\"q\\\\\"']"));
}

/*
 * record --sched in the JSON: the spans off the CPU as "X" slices of the
 * sched category on the thread's row, inside the call it was blocked in,
 * and a wake by a thread of the recording as a flow from the waker's
 * call ("s") to the woken's ("f", bound to its enclosing slice); a wake
 * by a thread not recorded, in the slice's name only.
 */
static void test_chrome_sched(void)
{
	struct ng_recording rec;
	struct ng_pp_bad bad;
	char *json;

	T_EQ_INT(t_make_sched_example(), 0);
	T_EQ_INT(ng_recording_open(&rec, t_path("rec")), 0);
	T_EQ_INT(ng_export_chrome(&rec, t_path("s.json"), &bad), 0);
	ng_recording_close(&rec);
	json = t_read_file(t_path("s.json"), NULL);
	T_ASSERT(json);
	T_ASSERT(strstr(json,
		",\n{\"ph\":\"X\",\"cat\":\"sched\",\"pid\":421,\"tid\":421,\"ts\":5.110,\"dur\":0.100,"
		"\"name\":\"Sleeping: woken by 420 writer in vfs_write\"}"
		",\n{\"ph\":\"X\",\"cat\":\"sched\",\"pid\":421,\"tid\":421,\"ts\":5.210,\"dur\":0.020,"
		"\"name\":\"Runnable\"}"
		",\n{\"ph\":\"s\",\"cat\":\"sched\",\"name\":\"wake\",\"id\":1,\"pid\":420,\"tid\":420,\"ts\":5.210}"
		",\n{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"sched\",\"name\":\"wake\",\"id\":1,\"pid\":421,\"tid\":421,\"ts\":5.230}"
		",\n{\"ph\":\"X\",\"cat\":\"sched\",\"pid\":421,\"tid\":421,\"ts\":5.240,\"dur\":0.010,"
		"\"name\":\"Runnable (preempted)\"}"
		",\n{\"ph\":\"X\",\"cat\":\"sched\",\"pid\":421,\"tid\":421,\"ts\":5.280,\"dur\":0.020,"
		"\"name\":\"Sleeping: woken by 999 other\"}"
		",\n{\"ph\":\"X\",\"cat\":\"sched\",\"pid\":421,\"tid\":421,\"ts\":5.300,\"dur\":0.010,"
		"\"name\":\"Runnable\"}\n]"));
	free(json);
	/* valid JSON; the flow's ends sit inside vfs_write and vfs_read */
	T_ASSERT(t_json_ok(t_path("s.json"),
			 "e=j['traceEvents']\n"
			 "x=[v for v in e if v['ph']=='X' and 'cat' not in v]\n"
			 "def inside(t,ts): return [v['name'] for v in x if v['tid']==t and v['ts']<=ts<v['ts']+v['dur']]\n"
			 "s=[v for v in e if v['ph']=='s'][0]; f=[v for v in e if v['ph']=='f'][0]\n"
			 "assert len([v for v in e if v['ph']=='s'])==1\n"
			 "assert s['id']==f['id'] and inside(420,s['ts'])[-1]=='vfs_write' and inside(421,f['ts'])[-1]=='vfs_read'"));

	/*
	 * Calls left out (-D 1 hides vfs_read) or moved (--compensate):
	 * the spans would lie outside the calls shown, so none is drawn.
	 */
	T_RUN(t_ng("export", "--chrome", "-D", "1", "-o", t_path("d.json"), t_path("rec"), NULL),
	      0, "", "");
	T_RUN(t_ng("export", "--chrome", "--compensate", "--overhead", "2,1", "-o",
		   t_path("c.json"), t_path("rec"), NULL), 0, "", "");
	json = t_read_file(t_path("d.json"), NULL);
	T_ASSERT(json && !strstr(json, "\"sched\""));
	free(json);
	json = t_read_file(t_path("c.json"), NULL);
	T_ASSERT(json && !strstr(json, "\"sched\""));
	free(json);

	/* a wake from an interrupt: in the slice's name, and no flow */
	T_EQ_INT(t_write_file(t_rp("sched.tsv"),
			      "# nanograph sched 1\n"
			      "5110\tout\t421\tS\t1\n"
			      "5210\twake\t421\t420\twriter\thardirq\tvfs_write\n"
			      "5230\tin\t421\n"), 0);
	T_EQ_INT(ng_recording_open(&rec, t_path("rec")), 0);
	T_EQ_INT(ng_export_chrome(&rec, t_path("i.json"), &bad), 0);
	ng_recording_close(&rec);
	json = t_read_file(t_path("i.json"), NULL);
	T_ASSERT(json && strstr(json, "\"name\":\"Sleeping: woken by hardirq on 420 writer in vfs_write\"") &&
		 !strstr(json, "\"ph\":\"s\""));
	free(json);
}

/*
 * An outermost call holding more calls than the JSON export holds back:
 * the ended ones are written early, the open one when it ends, and
 * nothing is lost or written twice.
 */
static void test_chrome_long_outer_call(void)
{
	const size_t n = (1U << 20) + 3;
	struct ng_recording rec;
	struct ng_pp_bad bad;
	char *buf, *p, *nl, *json;
	size_t i, len, events = 0;
	int ret;

	buf = malloc(32 * n + 64);
	T_ASSERT(buf);
	p = buf + sprintf(buf, "1000:+outer\n");
	for (i = 0; i < n; i++)
		p += sprintf(p, "%zu:+f\n%zu:POP\n", 2000 + i, 2000 + i);
	sprintf(p, "9999999:POP\n");
	mkdir(t_path("rec"), 0755);
	ret = t_write_file(t_rp("3.txt"), buf);
	free(buf);
	T_EQ_INT(ret, 0);
	T_EQ_INT(ng_recording_open(&rec, t_path("rec")), 0);
	T_EQ_INT(ng_export_chrome(&rec, t_path("big.json"), &bad), 0);
	ng_recording_close(&rec);
	json = t_read_file(t_path("big.json"), &len);
	T_ASSERT(json);
	/* line by line: strstr() from each hit is quadratic under ASan */
	for (p = json; p < json + len; p = nl + 1) {
		events += !strncmp(p, "{\"ph\":\"X\"", 9);
		nl = memchr(p, '\n', json + len - p);
		if (!nl)
			break;
	}
	p = strstr(json, "\"name\":\"outer\"");
	T_ASSERT(p && !strstr(p + 1, "\"name\":\"outer\""));
	T_ASSERT(strstr(json, "\"ts\":3.048,\"dur\":0.000,\"name\":\"f\"},\n{"));
	T_ASSERT(strstr(json, "\"ts\":1.000,\"dur\":9998.999,\"name\":\"outer\"}"));
	free(json);
	T_EQ_U64(events, n + 1);
}

/* Stacks with their self time, identical stacks summed across threads of one comm. */
static void test_folded_stacks(void)
{
	struct ng_recording rec;
	struct ng_pp_bad bad;

	T_EQ_INT(t_make_example(true), 0);
	T_EQ_INT(ng_recording_open(&rec, t_path("rec")), 0);
	T_EQ_INT(ng_export_folded(&rec, t_path("s.folded"), &bad), 0);
	ng_recording_close(&rec);
	T_FILE_EQ(t_path("s.folded"),
		  "main;a 70\nmain;a;b 29\nmain;a;b;c [mod] 1\nswapper/1;b 10\n");

	/* 6 is another "main" thread; ';' in a name would split a frame */
	T_EQ_INT(t_write_file(t_rp("6.txt"),
			      "1000:+a\n1001:+b\n1005:POP\n1010:POP\n2000:+x;y\n2003:POP\n"), 0);
	T_EQ_INT(t_write_file(t_rp("threads.tsv"),
			      "tid\tpid\tcomm\n0-1\t0\tswapper/1\n5\t5\tmain\n6\t5\tmain\n"), 0);
	T_EQ_INT(ng_recording_open(&rec, t_path("rec")), 0);
	T_EQ_INT(ng_export_folded(&rec, t_path("s.folded"), &bad), 0);
	ng_recording_close(&rec);
	T_FILE_EQ(t_path("s.folded"),
		  "main;a 76\nmain;a;b 33\nmain;a;b;c [mod] 1\nmain;x_y 3\nswapper/1;b 10\n");

	/* byte order, as LC_ALL=C sort: f's callees come after f.cold */
	T_EQ_INT(mkdir(t_path("o"), 0755), 0);
	T_EQ_INT(t_write_file(t_path("o/1.txt"),
			      "0:+f\n2:+g\n4:POP\n10:POP\n20:+f.cold\n23:POP\n"
			      "30:+f [m]\n31:POP\n"), 0);
	T_EQ_INT(ng_recording_open(&rec, t_path("o")), 0);
	T_EQ_INT(ng_export_folded(&rec, t_path("o.folded"), &bad), 0);
	ng_recording_close(&rec);
	T_FILE_EQ(t_path("o.folded"), "1;f 8\n1;f [m] 1\n1;f.cold 3\n1;f;g 2\n");
}

/* A bad file: -EBADMSG with file and line, and no output under any name. */
static void test_export_bad_input(void)
{
	struct ng_recording rec;
	struct ng_pp_bad bad;

	T_EQ_INT(t_make_example(true), 0);
	T_EQ_INT(t_write_file(t_rp("7.txt"), "100:+a\n200:POP\n300:+b\n"), 0);
	T_EQ_INT(ng_recording_open(&rec, t_path("rec")), 0);
	T_EQ_INT(ng_export_chrome(&rec, t_path("out.json"), &bad), -EBADMSG);
	T_EQ_STR(bad.file, "7.txt");
	T_EQ_U64(bad.line, 3);
	T_EQ_STR(bad.why, "1 frame(s) still open at end of file");
	T_ASSERT(!t_exists(t_path("out.json")));
	T_ASSERT(!t_temp_of(t_path("out.json")));
	T_EQ_INT(ng_export_folded(&rec, t_path("out.folded"), &bad), -EBADMSG);
	T_EQ_STR(bad.file, "7.txt");
	T_ASSERT(!t_exists(t_path("out.folded")));
	T_ASSERT(!t_temp_of(t_path("out.folded")));
	/* an output that cannot be written is not blamed on an input */
	T_EQ_INT(t_write_file(t_rp("7.txt"), "1:+a\n2:POP\n"), 0);
	T_EQ_INT(ng_export_chrome(&rec, t_path("no/out.json"), &bad), -ENOENT);
	T_ASSERT(!bad.file);
	ng_recording_close(&rec);
}

/* ---- the commands ---- */

static const char report_want[] =
	"# 2 threads, 5 calls, 210 ns recorded\n"
	"       Total         Self      Calls          Avg          Max  Function\n"
	"      100 ns        70 ns          1       100 ns       100 ns  a\n"
	"       40 ns        39 ns          3        13 ns        20 ns  b\n"
	"        1 ns         1 ns          1         1 ns         1 ns  c [mod]\n";

static const char report_threads_want[] =
	"# 2 threads, 5 calls, 210 ns recorded\n"
	"\n"
	"# tid 0-1, pid 0, swapper/1: 1 call, 10 ns recorded\n"
	"       Total         Self      Calls          Avg          Max  Function\n"
	"          10           10          1           10           10  b\n"
	"\n"
	"# tid 5, pid 5, main: 4 calls, 100 ns recorded\n"
	"       Total         Self      Calls          Avg          Max  Function\n"
	"          30           29          2           15           20  b\n";

/* The table, with and without --threads, -n, --sort and --ns. */
static void test_cmd_report(void)
{
	char dir[600];

	T_EQ_INT(t_make_example(true), 0);
	snprintf(dir, sizeof(dir), "%s", t_path("rec"));
	T_RUN(t_ng("report", dir, NULL), 0, report_want, "");
	T_RUN(t_ng("report", "--ns", "--threads", "--sort", "calls", "-n", "1",
		 dir, NULL), 0, report_threads_want, "");
	T_RUN(t_ng("report", "-s", "name", "-n", "2", "--ns", dir, NULL), 0,
	      "# 2 threads, 5 calls, 210 ns recorded\n"
	      "       Total         Self      Calls          Avg          Max  Function\n"
	      "         100           70          1          100          100  a\n"
	      "          40           39          3           13           20  b\n", "");
	T_RUN(t_ng("report", "-n", "0", "--sort=self", dir, NULL), 0,
	      "# 2 threads, 5 calls, 210 ns recorded\n"
	      "       Total         Self      Calls          Avg          Max  Function\n", "");
	/* report writes nothing into the recording */
	T_ASSERT(!t_exists(t_rp("trace.json")));
}

/* Human units: ns below 1 us, then us, ms and s with three decimals, truncated. */
static void test_cmd_report_units(void)
{
	char dir[600];

	mkdir(t_path("rec"), 0755);
	T_EQ_INT(t_write_file(t_rp("9.txt"),
			      "0:+s\n1234567890:POP\n2000000000:+m\n2012345678:POP\n"
			      "3000000000:+u\n3000001234:POP\n4000000000:+n\n4000000999:POP\n"), 0);
	snprintf(dir, sizeof(dir), "%s", t_path("rec"));
	T_RUN(t_ng("report", dir, NULL), 0,
	      "# 1 thread, 4 calls, 4.000 s recorded\n"
	      "       Total         Self      Calls          Avg          Max  Function\n"
	      "     1.234 s      1.234 s          1      1.234 s      1.234 s  s\n"
	      "   12.345 ms    12.345 ms          1    12.345 ms    12.345 ms  m\n"
	      "    1.234 us     1.234 us          1     1.234 us     1.234 us  u\n"
	      "      999 ns       999 ns          1       999 ns       999 ns  n\n", "");
}

/* No threads.tsv: tables are headed by the tid, with an unknown pid. */
static void test_cmd_report_no_threads_tsv(void)
{
	char dir[600];

	T_EQ_INT(t_make_example(false), 0);
	snprintf(dir, sizeof(dir), "%s", t_path("rec"));
	T_RUN(t_ng("report", "--threads", "--ns", "-n", "1", dir, NULL), 0,
	      "# 2 threads, 5 calls, 210 ns recorded\n"
	      "\n"
	      "# tid 0-1, pid 0, 0-1: 1 call, 10 ns recorded\n"
	      "       Total         Self      Calls          Avg          Max  Function\n"
	      "          10           10          1           10           10  b\n"
	      "\n"
	      "# tid 5, pid ?, 5: 4 calls, 100 ns recorded\n"
	      "       Total         Self      Calls          Avg          Max  Function\n"
	      "         100           70          1          100          100  a\n", "");
}

/* A bad file: one line naming file, line and reason, exit 1, no table. */
static void test_cmd_report_errors(void)
{
	char dir[600], want[2000];

	T_EQ_INT(t_make_example(true), 0);
	T_EQ_INT(t_write_file(t_rp("8.txt"), "100:+a\n90:POP\n"), 0);
	snprintf(dir, sizeof(dir), "%s", t_path("rec"));
	snprintf(want, sizeof(want),
		 "nanograph report: %s/8.txt:2: not a valid push/pop line: "
		 "timestamp 90 is before the previous 100 (see 'nanograph check %s/8.txt')\n",
		 dir, dir);
	T_RUN(t_ng("report", dir, NULL), 1, "", want);
	T_RUN(t_ng("report", "--threads", dir, NULL), 1, "", want);

	T_EQ_INT(mkdir(t_path("empty"), 0755), 0);
	snprintf(dir, sizeof(dir), "%s", t_path("empty"));
	snprintf(want, sizeof(want),
		 "nanograph report: %s: no push/pop files (<tid>.txt) here: "
		 "is it a 'nanograph record -o' directory?\n", dir);
	T_RUN(t_ng("report", dir, NULL), 1, "", want);

	T_RUN(t_ng("report", NULL), 2, "",
	      "nanograph report: no recording directory given\n"
	      "Try 'nanograph help report'.\n");
	T_RUN(t_ng("report", "a", "b", NULL), 2, "", NULL);
	T_RUN(t_ng("report", "--sort", "size", dir, NULL), 2, "",
	      "nanograph report: --sort wants total, self, calls, avg, max, oncpu, offcpu or name, not 'size'\n"
	      "Try 'nanograph help report'.\n");
	T_RUN(t_ng("report", "-n", "x", dir, NULL), 2, "", NULL);
	T_RUN(t_ng("report", "-n", "-1", dir, NULL), 2, "", NULL);
	T_RUN(t_ng("report", "--bogus", dir, NULL), 2, "", NULL);
	T_RUN(t_ng("report", dir, "--sort", NULL), 2, "", NULL);
	T_RUN(t_ng("report", "-h", NULL), 0, NULL, "");
}

/* Both formats at their default paths and with -o, byte for byte. */
/*
 * Ctrl-C, SIGTERM or SIGHUP while export writes: it dies of the signal as
 * before, and its temporary file goes with it (it stayed behind, hidden,
 * 66 to 570 MB of it, and with names of its own each time, would pile up).
 */
static void test_cmd_export_signal(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	const struct timespec ms = { 0, 1000000 };
	char out[600], line[64];
	int status, i, k;
	FILE *f;
	pid_t pid;

	if (!t_nanograph())
		t_skip("no --nanograph binary given");
	T_EQ_INT(t_make_example(true), 0);
	f = fopen(t_rp("6.txt"), "w");
	T_ASSERT(f);
	for (i = 0; f && i < 400000; i++) {
		snprintf(line, sizeof(line), "%d:+f\n%d:POP\n", 2 * i, 2 * i + 1);
		fputs(line, f);
	}
	if (f)
		fclose(f);
	snprintf(out, sizeof(out), "%s", t_path("out.json"));
	for (k = 0; k < 3; k++) {
		pid = fork();
		T_ASSERT(pid >= 0);
		if (!pid) {
			execl(t_nanograph(), t_nanograph(), "export", "--chrome", "-o", out,
			      t_path("rec"), (char *)NULL);
			_exit(127);
		}
		for (i = 0; i < 20000 && !t_temp_of(out); i++)
			nanosleep(&ms, NULL);
		T_ASSERT(i < 20000);
		kill(pid, sigs[k]);
		T_ASSERT(waitpid(pid, &status, 0) == pid);
		T_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == sigs[k]);
		if (t_temp_of(out))
			t_diag("signal %d: %s left", sigs[k], t_temp_of(out));
		T_ASSERT(!t_temp_of(out));
		T_ASSERT(!t_exists(out));
	}
}

static void test_cmd_export(void)
{
	char dir[600], out[600];

	T_EQ_INT(t_make_example(true), 0);
	snprintf(dir, sizeof(dir), "%s", t_path("rec"));
	T_RUN(t_ng("export", "--chrome", dir, NULL), 0, "", "");
	T_FILE_EQ(t_rp("trace.json"), chrome_want);
	T_ASSERT(t_json_ok(t_rp("trace.json"), chrome_check));
	T_RUN(t_ng("export", "--folded", dir, NULL), 0, "", "");
	T_FILE_EQ(t_rp("stacks.folded"),
		  "main;a 70\nmain;a;b 29\nmain;a;b;c [mod] 1\nswapper/1;b 10\n");
	/* its own outputs are not read back as input */
	T_RUN(t_ng("export", "--chrome", dir, NULL), 0, "", "");
	T_FILE_EQ(t_rp("trace.json"), chrome_want);
	snprintf(out, sizeof(out), "%s", t_path("x.folded"));
	T_RUN(t_ng("export", "-o", out, "--folded", dir, NULL), 0, "", "");
	T_FILE_EQ(out, "main;a 70\nmain;a;b 29\nmain;a;b;c [mod] 1\nswapper/1;b 10\n");
}

/* Bad input or output: one line, exit 1, and nothing under the final name. */
static void test_cmd_export_errors(void)
{
	char dir[600], out[600], want[2000];

	T_EQ_INT(t_make_example(true), 0);
	T_EQ_INT(t_write_file(t_rp("8.txt"), "100:+a\n100:PO\n"), 0);
	snprintf(dir, sizeof(dir), "%s", t_path("rec"));
	snprintf(want, sizeof(want),
		 "nanograph export: %s/8.txt:2: not a valid push/pop line: "
		 "expected POP or +<label> after ':' (see 'nanograph check %s/8.txt'); "
		 "nothing written\n", dir, dir);
	T_RUN(t_ng("export", "--chrome", dir, NULL), 1, "", want);
	T_RUN(t_ng("export", "--folded", dir, NULL), 1, "", want);
	T_ASSERT(!t_exists(t_rp("trace.json")));
	T_ASSERT(!t_temp_of(t_rp("trace.json")));
	T_ASSERT(!t_exists(t_rp("stacks.folded")));
	T_ASSERT(!t_temp_of(t_rp("stacks.folded")));

	/* an earlier export stays whole when a later one fails */
	T_EQ_INT(t_write_file(t_rp("trace.json"), "old"), 0);
	T_RUN(t_ng("export", "--chrome", dir, NULL), 1, "", want);
	T_FILE_EQ(t_rp("trace.json"), "old");

	T_EQ_INT(unlink(t_rp("8.txt")), 0);
	snprintf(out, sizeof(out), "%s", t_path("no/such/x.json"));
	snprintf(want, sizeof(want),
		 "nanograph export: cannot write %s: No such file or directory\n", out);
	T_RUN(t_ng("export", "--chrome", "-o", out, dir, NULL), 1, "", want);

	T_RUN(t_ng("export", dir, NULL), 2, "",
	      "nanograph export: which format? give --chrome, --perfetto or --folded\n"
	      "Try 'nanograph help export'.\n");
	T_RUN(t_ng("export", "--chrome", "--folded", dir, NULL), 2, "",
	      "nanograph export: give only one of --chrome, --perfetto and --folded\n"
	      "Try 'nanograph help export'.\n");
	T_RUN(t_ng("export", "--chrome", NULL), 2, "", NULL);
	T_RUN(t_ng("export", "--chrome", dir, "-o", NULL), 2, "", NULL);
	T_RUN(t_ng("export", "--svg", dir, NULL), 2, "", NULL);
	T_RUN(t_ng("export", "--help", NULL), 0, NULL, "");
}

/*
 * A stack 300,000 frames deep, which "check" accepts, through every view:
 * nothing may recurse on the input's depth (export --folded did, and
 * overflowed the C stack). All frames start at 0 and end at 1, so only
 * the innermost has self time: the folded output is one line, not the
 * 300,000 zero-weight ones whose paths would add up to 90 GB.
 */
#define DEEP	300000

static void test_deep_every_view(void)
{
	char *out, want[128];
	size_t len, i, n;

	T_EQ_INT(t_make_deep("deep", DEEP), 0);

	snprintf(want, sizeof(want), "%s: ok: %d lines, %d calls, max depth %d, 0..1 ns\n",
		 t_path("deep/1.txt"), 2 * DEEP, DEEP, DEEP);
	T_RUN(t_ng("check", t_path("deep/1.txt"), NULL), 0, want, "");

	snprintf(want, sizeof(want), "# 1 thread, %d calls, 1 ns recorded\n", DEEP);
	out = NULL;
	{
		struct t_result r = t_ng("report", "--ns", t_path("deep"), NULL);

		T_ASSERT(r.status == 0 && r.out && !strncmp(r.out, want, strlen(want)) &&
			 strstr(r.out, "      300000            1     300000            1            1  f\n"));
		t_result_free(&r);
	}

	T_RUN(t_ng("export", "--folded", t_path("deep"), NULL), 0, "", "");
	out = t_read_file(t_path("deep/stacks.folded"), &len);
	T_ASSERT(out);
	/*
	 * "1;f;...;f;[deeper] 1\n": NG_FOLDED_MAX_DEPTH frames, then one for
	 * the rest (it wrote all 300,000: "1;f;f;...;f 1\n", 600 KB here,
	 * and 15 GB for a 2 MB file of 100,000 frames each with its own time).
	 */
	n = len == 2 + 2 * NG_FOLDED_MAX_DEPTH + strlen(NG_FOLDED_DEEPER " 1\n") &&
	    !strncmp(out, "1;f;", 4) &&
	    !strcmp(out + len - strlen(";f;" NG_FOLDED_DEEPER " 1\n"),
		    ";f;" NG_FOLDED_DEEPER " 1\n");
	free(out);
	T_ASSERT(n);

	T_RUN(t_ng("export", "--chrome", t_path("deep"), NULL), 0, "", "");
	out = t_read_file(t_path("deep/trace.json"), &len);
	T_ASSERT(out);
	for (n = 0, i = 0; i + 8 <= len; i++)
		n += !memcmp(out + i, "\"ph\":\"X\"", 8);
	free(out);
	T_EQ_U64(n, DEEP);
	T_ASSERT(t_json_ok(t_path("deep/trace.json"),
			 "assert sum(e['ph'] == 'X' for e in j['traceEvents']) == 300000"));
}

/*
 * "-o -" is standard output, for export and report: export wrote a file
 * named "-" (and report had no -o). A bad input leaves stdout empty.
 */
static void test_cmd_output_dash(void)
{
	static const char folded[] =
		"main;a 70\nmain;a;b 29\nmain;a;b;c [mod] 1\nswapper/1;b 10\n";
	char dir[600], out[600], want[2000];
	struct t_result r;
	bool ok;

	T_EQ_INT(t_make_example(true), 0);
	T_EQ_INT(chdir(t_tmpdir()), 0);		/* where a file "-" would go */
	snprintf(dir, sizeof(dir), "%s", t_path("rec"));
	T_RUN(t_ng("export", "--folded", "-o", "-", dir, NULL), 0, folded, "");
	T_RUN(t_ng("export", "--chrome", "--output", "-", dir, NULL), 0, chrome_want, "");
	T_RUN(t_ng("report", "-o", "-", dir, NULL), 0, report_want, "");
	T_ASSERT(!t_exists(t_path("-")));
	T_ASSERT(!t_exists(t_rp("-")));

	/* report -o FILE: the same text, in the file, whole */
	snprintf(out, sizeof(out), "%s", t_path("report.txt"));
	T_RUN(t_ng("report", "-o", out, dir, NULL), 0, "", "");
	T_FILE_EQ(out, report_want);
	T_ASSERT(!t_temp_of(t_path("report.txt")));
	snprintf(out, sizeof(out), "%s", t_path("no/such/dir/r.txt"));
	snprintf(want, sizeof(want), "nanograph report: cannot write %s: No such file or directory\n", out);
	T_RUN(t_ng("report", "--output", out, dir, NULL), 1, "", want);

	/* a bad file: nothing on stdout, the line that says why */
	T_EQ_INT(t_write_file(t_rp("7.txt"), "100:+a\n90:POP\n"), 0);
	snprintf(want, sizeof(want), "nanograph export: %s/7.txt:2: not a valid push/pop line: timestamp 90 is before the previous 100 (see 'nanograph check %s/7.txt'); nothing written\n",
		 dir, dir);
	T_RUN(t_ng("export", "--chrome", "-o", "-", dir, NULL), 1, "", want);
	T_RUN(t_ng("export", "--folded", "-o", "-", dir, NULL), 1, "", want);
	r = t_ng("report", "-o", "-", dir, NULL);
	ok = r.status == 1 && r.out && !*r.out;
	t_result_free(&r);
	T_ASSERT(ok);
}

/* ---- report --diff ---- */

/*
 * NEW for the diff tests: a [100,260] calls b [110,160] and d [170,175];
 * against the example recording, a and b change, d is new and "c [mod]"
 * is gone.
 */
static int make_new_recording(void)
{
	return t_make_rec(NULL, 0, "new", "7.txt",
			  "100:+a\n110:+b\n160:POP\n170:+d\n175:POP\n260:POP\n",
			  NULL);
}

/* The first letter of each of @n @rows' labels, in order, into @buf[8]. */
static const char *first_letters(char *buf, const struct ng_func_diff *rows,
				 size_t n)
{
	size_t i;

	for (i = 0; i < n && i < 7; i++)
		buf[i] = rows[i].label[0];
	buf[i] = '\0';
	return buf;
}

/* Both profiles paired by label, sorted by the size of a column's change. */
static void test_profile_diff(void)
{
	struct ng_profile *p[2];
	struct ng_func_diff *rows;
	struct ng_pp_bad bad;
	char order[8];
	size_t n;

	T_EQ_INT(t_make_example(true), 0);
	T_EQ_INT(make_new_recording(), 0);
	T_EQ_INT(ng_profile_new(&p[0]), 0);
	T_EQ_INT(ng_profile_new(&p[1]), 0);
	T_EQ_INT(ng_profile_add_file(p[0], t_rp("5.txt"), &bad), 0);
	T_EQ_INT(ng_profile_add_file(p[0], t_rp("0-1.txt"), &bad), 0);
	T_EQ_INT(ng_profile_add_file(p[1], t_path("new/7.txt"), &bad), 0);

	T_EQ_INT(ng_profile_diff(p[0], p[1], NG_SORT_TOTAL, &rows, &n), 0);
	T_EQ_U64(n, 4);
	T_EQ_STR(first_letters(order, rows, n), "abdc");
	T_ASSERT(rows[0].in_old && rows[0].in_new);
	T_EQ_U64(rows[0].old.total_ns, 100);
	T_EQ_U64(rows[0].new.total_ns, 160);
	T_EQ_U64(rows[0].new.self_ns, 105);
	T_EQ_U64(rows[1].old.calls, 3);
	T_EQ_U64(rows[1].old.avg_ns, 13);
	T_EQ_U64(rows[1].new.avg_ns, 50);
	T_ASSERT(!rows[2].in_old && rows[2].in_new);
	T_EQ_U64(rows[2].old.calls, 0);
	T_EQ_U64(rows[2].old.total_ns, 0);
	T_EQ_STR(rows[3].label, "c [mod]");
	T_ASSERT(rows[3].in_old && !rows[3].in_new);
	T_EQ_U64(rows[3].new.calls, 0);
	free(rows);

	/* calls: b -2, then c [mod] and d (1 each) by name, a unchanged */
	T_EQ_INT(ng_profile_diff(p[0], p[1], NG_SORT_CALLS, &rows, &n), 0);
	T_EQ_STR(first_letters(order, rows, n), "bcda");
	free(rows);
	T_EQ_INT(ng_profile_diff(p[0], p[1], NG_SORT_NAME, &rows, &n), 0);
	T_EQ_STR(first_letters(order, rows, n), "abcd");
	free(rows);
	/* nothing on either side: no row */
	ng_profile_free(p[1]);
	T_EQ_INT(ng_profile_new(&p[1]), 0);
	ng_profile_free(p[0]);
	T_EQ_INT(ng_profile_new(&p[0]), 0);
	T_EQ_INT(ng_profile_diff(p[0], p[1], NG_SORT_TOTAL, &rows, &n), 0);
	T_EQ_U64(n, 0);
	free(rows);
	ng_profile_free(p[0]);
	ng_profile_free(p[1]);
}

static const char diff_header[] =
	" OldCalls  NewCalls      Diff        %    OldTotal    NewTotal        Diff        %"
	"     OldSelf     NewSelf        Diff        %      OldAvg      NewAvg        Diff        %  Function\n";

/*
 * The head of "report --diff @old @new", each the example recording
 * (<tmpdir>/rec) or NEW: a summary line for each, then the columns.
 */
static const char *diff_head(char *buf, size_t size, const char *old,
			     const char *new)
{
	static const char example[] = "2 threads, 5 calls, 210 ns recorded";
	static const char other[] = "1 thread, 3 calls, 160 ns recorded";

	snprintf(buf, size, "# old %s: %s\n# new %s: %s\n%s",
		 old, strcmp(old, t_path("rec")) ? other : example,
		 new, strcmp(new, t_path("rec")) ? other : example, diff_header);
	return buf;
}

/*
 * The table exactly: both sides, the changes and their % (truncated to a
 * tenth), "new" and "gone" for a function on one side with 0 on the
 * other, sorted by the size of the change; -s, -n, --ns and -o apply.
 */
static void test_cmd_report_diff(void)
{
	char old[600], new[600], head[1600], want[4000], out[600];

	T_EQ_INT(t_make_example(true), 0);
	T_EQ_INT(make_new_recording(), 0);
	snprintf(old, sizeof(old), "%s", t_path("rec"));
	snprintf(new, sizeof(new), "%s", t_path("new"));
	diff_head(head, sizeof(head), old, new);
	snprintf(want, sizeof(want), "%s"
		 "        1         1         0     0.0%%         100         160         +60   +60.0%%          70         105         +35   +50.0%%         100         160         +60   +60.0%%  a\n"
		 "        3         1        -2   -66.6%%          40          50         +10   +25.0%%          39          50         +11   +28.2%%          13          50         +37  +284.6%%  b\n"
		 "        0         1        +1      new           0           5          +5      new           0           5          +5      new           0           5          +5      new  d\n"
		 "        1         0        -1     gone           1           0          -1     gone           1           0          -1     gone           1           0          -1     gone  c [mod]\n",
		 head);
	T_RUN(t_ng("report", "--diff", "--ns", old, new, NULL), 0, want, "");

	/* human units; by self; the first row only */
	snprintf(want, sizeof(want), "%s"
		 "        1         1         0     0.0%%      100 ns      160 ns      +60 ns   +60.0%%       70 ns      105 ns      +35 ns   +50.0%%      100 ns      160 ns      +60 ns   +60.0%%  a\n",
		 head);
	T_RUN(t_ng("report", "-s", "self", "-n", "1", "--diff", old, new, NULL), 0, want, "");

	/* by calls, then name; the other way round, everything flips */
	diff_head(head, sizeof(head), new, old);
	snprintf(want, sizeof(want), "%s"
		 "        1         3        +2  +200.0%%          50          40         -10   -20.0%%          50          39         -11   -22.0%%          50          13         -37   -74.0%%  b\n"
		 "        0         1        +1      new           0           1          +1      new           0           1          +1      new           0           1          +1      new  c [mod]\n"
		 "        1         0        -1     gone           5           0          -5     gone           5           0          -5     gone           5           0          -5     gone  d\n"
		 "        1         1         0     0.0%%         160         100         -60   -37.5%%         105          70         -35   -33.3%%         160         100         -60   -37.5%%  a\n",
		 head);
	T_RUN(t_ng("report", "--diff", "--sort=calls", "--ns", new, old, NULL), 0, want, "");

	/* -o FILE: the same text, whole */
	snprintf(out, sizeof(out), "%s", t_path("diff.txt"));
	T_RUN(t_ng("report", "--diff", "--sort=calls", "--ns", "-o", out, new, old, NULL), 0, "", "");
	T_FILE_EQ(out, want);

	/* a recording against itself: nothing changed */
	snprintf(want, sizeof(want), "%s"
		 "        1         1         0     0.0%%         160         160           0     0.0%%         105         105           0     0.0%%         160         160           0     0.0%%  a\n",
		 diff_head(head, sizeof(head), new, new));
	T_RUN(t_ng("report", "--diff", "--ns", "-n", "1", new, new, NULL), 0, want, "");
}

/* --diff's mistakes: one line each, and a bad NEW fails it whole. */
static void test_cmd_report_diff_errors(void)
{
	char old[600], new[600], want[2000];
	struct t_result r;
	bool ok;

	T_EQ_INT(t_make_example(true), 0);
	T_EQ_INT(make_new_recording(), 0);
	snprintf(old, sizeof(old), "%s", t_path("rec"));
	snprintf(new, sizeof(new), "%s", t_path("new"));
	T_RUN(t_ng("report", "--diff", old, NULL), 2, "",
	      "nanograph report: --diff compares two recordings: give OLD and NEW\n"
	      "Try 'nanograph help report'.\n");
	T_RUN(t_ng("report", "--diff", old, new, old, NULL), 2, "",
	      "nanograph report: --diff compares two recordings: give OLD and NEW\n"
	      "Try 'nanograph help report'.\n");
	T_RUN(t_ng("report", "--diff", "--threads", old, new, NULL), 2, "",
	      "nanograph report: --diff compares whole recordings: not with --threads\n"
	      "Try 'nanograph help report'.\n");
	T_RUN(t_ng("report", "--diff", "-s", "max", old, new, NULL), 2, "",
	      "nanograph report: --diff has no max column: sort by total, self, calls, avg, oncpu, offcpu or name\n"
	      "Try 'nanograph help report'.\n");
	T_RUN(t_ng("report", "--diff=yes", old, new, NULL), 2, "",
	      "nanograph report: option '--diff' takes no value\n"
	      "Try 'nanograph help report'.\n");
	/* without --diff, two directories are one too many */
	T_RUN(t_ng("report", old, new, NULL), 2, "",
	      "nanograph report: give one recording directory\n"
	      "Try 'nanograph help report'.\n");

	snprintf(want, sizeof(want), "nanograph report: %s/absent: No such file or directory\n",
		 t_tmpdir());
	T_RUN(t_ng("report", "--diff", old, t_path("absent"), NULL), 1, "", want);
	T_EQ_INT(t_write_file(t_path("new/8.txt"), "100:+a\n90:POP\n"), 0);
	snprintf(want, sizeof(want),
		 "nanograph report: %s/8.txt:2: not a valid push/pop line: "
		 "timestamp 90 is before the previous 100 (see 'nanograph check %s/8.txt')\n",
		 new, new);
	T_RUN(t_ng("report", "--diff", old, new, NULL), 1, "", want);
	r = t_ng("report", "--diff", new, old, NULL);
	ok = r.status == 1 && r.out && !*r.out && r.err && !strcmp(r.err, want);
	t_result_free(&r);
	T_ASSERT(ok);
}

/*
 * The filters apply to OLD and NEW alike: --comm chooses each one's
 * threads by name (NEW's thread 7 is "main" too), -N and the threshold
 * leave the same calls out of both, each kept call with its own times.
 */
static void test_cmd_report_diff_filters(void)
{
	char old[600], new[600], want[4000];

	T_EQ_INT(t_make_example(true), 0);
	T_EQ_INT(make_new_recording(), 0);
	T_EQ_INT(t_write_file(t_path("new/threads.tsv"),
			      "tid\tpid\tcomm\n7\t7\tmain\n"), 0);
	snprintf(old, sizeof(old), "%s", t_path("rec"));
	snprintf(new, sizeof(new), "%s", t_path("new"));

	/* main only (not the idle task's b), and no c [mod]: b keeps its self */
	snprintf(want, sizeof(want),
		 "# old %s: 1 thread, 3 calls, 100 ns recorded\n"
		 "# new %s: 1 thread, 3 calls, 160 ns recorded\n%s"
		 "        1         1         0     0.0%%         100         160         +60   +60.0%%          70         105         +35   +50.0%%         100         160         +60   +60.0%%  a\n"
		 "        2         1        -1   -50.0%%          30          50         +20   +66.6%%          29          50         +21   +72.4%%          15          50         +35  +233.3%%  b\n"
		 "        0         1        +1      new           0           5          +5      new           0           5          +5      new           0           5          +5      new  d\n",
		 old, new, diff_header);
	T_RUN(t_ng("report", "--diff", "--ns", "--comm", "main", "-N", "c*", old,
		 new, NULL), 0, want, "");

	/* calls of 20 ns or more on both sides: a, and one b each; no d */
	snprintf(want, sizeof(want),
		 "# old %s: 2 threads, 2 calls, 100 ns recorded\n"
		 "# new %s: 1 thread, 2 calls, 160 ns recorded\n%s"
		 "        1         1         0     0.0%%         100         160         +60   +60.0%%          70         105         +35   +50.0%%         100         160         +60   +60.0%%  a\n"
		 "        1         1         0     0.0%%          20          50         +30  +150.0%%          20          50         +30  +150.0%%          20          50         +30  +150.0%%  b\n",
		 old, new, diff_header);
	T_RUN(t_ng("report", "--diff", "--ns", "--time-threshold", "20", old,
		 new, NULL), 0, want, "");
}

/*
 * --tid and --time-range name one run's threads and times: refused with
 * --diff, as --threads is. A --comm value must name a thread of each
 * recording, and the one it misses is named.
 */
static void test_cmd_report_diff_filter_errors(void)
{
	char old[600], new[600], want[2000];

	T_EQ_INT(t_make_example(true), 0);
	T_EQ_INT(make_new_recording(), 0);
	snprintf(old, sizeof(old), "%s", t_path("rec"));
	snprintf(new, sizeof(new), "%s", t_path("new"));
	T_RUN(t_ng("report", "--diff", "--tid", "5", old, new, NULL), 2, "",
	      "nanograph report: --diff compares two runs, whose thread ids differ: not with --tid (--comm chooses threads by name)\n"
	      "Try 'nanograph help report'.\n");
	T_RUN(t_ng("report", "--tid=5", "--diff", old, new, NULL), 2, "",
	      "nanograph report: --diff compares two runs, whose thread ids differ: not with --tid (--comm chooses threads by name)\n"
	      "Try 'nanograph help report'.\n");
	T_RUN(t_ng("report", "--diff", "--time-range", "100~200", old, new, NULL),
	      2, "",
	      "nanograph report: --diff compares two runs, whose timestamps differ: not with --time-range\n"
	      "Try 'nanograph help report'.\n");
	/* a bad value is still named as such */
	T_RUN(t_ng("report", "--diff", "--tid", "x", old, new, NULL), 2, "",
	      "nanograph report: --tid wants thread ids separated by commas (412, or 0-CPU for a CPU's idle task), not 'x'\n"
	      "Try 'nanograph help report'.\n");

	/* NEW has no threads.tsv: its thread's comm is its tid, "7" */
	snprintf(want, sizeof(want),
		 "nanograph report: --comm main: no thread of %s has this name (see %s/threads.tsv)\n",
		 new, new);
	T_RUN(t_ng("report", "--diff", "--comm", "main", old, new, NULL), 1, "", want);
	snprintf(want, sizeof(want),
		 "nanograph report: --comm 7: no thread of %s has this name (see %s/threads.tsv)\n",
		 old, old);
	T_RUN(t_ng("report", "--diff", "--comm", "7", old, new, NULL), 1, "", want);
}

/*
 * Allocations past @mb MiB fail (ASan's max_allocation_size_mb) in a
 * child run with these words: how a small machine runs out of memory.
 */
static struct t_result ng_small(int mb, const char *a1, const char *a2,
				const char *a3)
{
	char opt[128], *argv[] = { NULL, (char *)a1, (char *)a2, (char *)a3,
			      NULL };
	char *env[] = { opt, NULL };

	snprintf(opt, sizeof(opt),
		 "ASAN_OPTIONS=allocator_may_return_null=1:max_allocation_size_mb=%d",
		 mb);
	return t_nanograph_run(argv, env);
}

/*
 * Files that are not what they say: a thread file that is /dev/zero
 * (report and replay grew until the machine ran out of memory), a line
 * of 16 MiB and one byte, a NUL inside a label (two names read as one),
 * and "check" out of memory (it said ok, exit 0).
 */
static void test_hostile_files(void)
{
	char dir[600], want[2000], *big;
	const size_t len = (16U << 20) + 1;
	struct t_result r;
	FILE *f;

	T_EQ_INT(t_make_example(true), 0);
	snprintf(dir, sizeof(dir), "%s", t_path("rec"));
	T_EQ_INT(symlink("/dev/zero", t_rp("9.txt")), 0);
	snprintf(want, sizeof(want),
		 "nanograph report: %s/9.txt: not a regular file\n", dir);
	T_RUN(ng_small(64, "report", dir, NULL), 1, "", want);
	T_RUN(ng_small(64, "replay", dir, NULL), 1, "", NULL);
	T_RUN(ng_small(64, "export", "--folded", dir), 1, "", NULL);
	snprintf(want, sizeof(want),
		 "%s/9.txt: cannot read: not a regular file or a pipe\n", dir);
	T_RUN(t_ng("check", t_rp("9.txt"), NULL), 1, want, "");
	r = t_ng("check", "/dev/zero", NULL);
	T_ASSERT(r.status == 1 && r.out &&
		 !strcmp(r.out, "/dev/zero: cannot read: not a regular file or a pipe\n"));
	t_result_free(&r);
	T_EQ_INT(unlink(t_rp("9.txt")), 0);

	/* one line past the bound: refused at that line, nothing held */
	big = malloc(len + 8);
	T_ASSERT(big);
	if (!big)
		return;
	memset(big, 'x', len + 8);
	memcpy(big, "1:+", 3);
	f = fopen(t_rp("9.txt"), "w");
	T_ASSERT(f && fwrite(big, 1, len + 3, f) == len + 3 &&
		 fputs("\n2:POP\n", f) >= 0 && !fclose(f));
	snprintf(want, sizeof(want),
		 "%s/9.txt:1: error (syntax): line longer than 16777216 bytes\n", dir);
	T_RUN(t_ng("check", t_rp("9.txt"), NULL), 1, want, "");
	snprintf(want, sizeof(want),
		 "nanograph report: %s/9.txt:1: not a valid push/pop line: "
		 "line longer than 16777216 bytes (see 'nanograph check %s/9.txt')\n",
		 dir, dir);
	T_RUN(t_ng("report", dir, NULL), 1, "", want);

	/* out of memory on a long line (8 MiB): an error, never "ok" */
	f = fopen(t_rp("9.txt"), "w");
	T_ASSERT(f && fwrite(big, 1, 8U << 20, f) == 8U << 20 &&
		 fputs("\n2:POP\n", f) >= 0 && !fclose(f));
	free(big);
	snprintf(want, sizeof(want), "%s/9.txt: cannot read: %s\n", dir,
		 strerror(ENOMEM));
	T_RUN(ng_small(4, "check", t_rp("9.txt"), NULL), 1, want, NULL);

	/* a NUL in a label: "a\0b" and "a\0c" are not one function "a" */
	f = fopen(t_rp("9.txt"), "w");
	T_ASSERT(f && fwrite("1:+a\0b\n2:POP\n", 1, 13, f) == 13 && !fclose(f));
	snprintf(want, sizeof(want),
		 "%s/9.txt:1: error (syntax): NUL byte in label\n", dir);
	T_RUN(t_ng("check", t_rp("9.txt"), NULL), 1, want, "");
	snprintf(want, sizeof(want),
		 "nanograph report: %s/9.txt:1: not a valid push/pop line: "
		 "NUL byte in label (see 'nanograph check %s/9.txt')\n", dir, dir);
	T_RUN(t_ng("report", dir, NULL), 1, "", want);
}

/*
 * A threads.tsv of a million rows of other threads, ours last: only the
 * rows of the recording's threads and their processes are kept (it kept
 * every row: 1.96 GB for 120 MB; with allocations past 8 MiB failing,
 * the names were lost).
 */
static void test_threads_tsv_bounded(void)
{
	char dir[600];
	struct t_result r;
	FILE *f;
	int i;

	T_EQ_INT(t_make_example(false), 0);
	snprintf(dir, sizeof(dir), "%s", t_path("rec"));
	f = fopen(t_rp("threads.tsv"), "w");
	T_ASSERT(f);
	if (!f)
		return;
	fputs("tid\tpid\tcomm\n", f);
	for (i = 100; i < 1000100; i++)
		fprintf(f, "%d\t%d\tother\n", i, i);
	fputs("0-1\t0\tswapper/1\n5\t5\tmain\n", f);
	T_ASSERT(!fclose(f));
	r = ng_small(8, "report", "--threads", dir);
	T_ASSERT(r.status == 0 && r.out && strstr(r.out, "# tid 5, pid 5, main: "));
	t_result_free(&r);
}

/*
 * Names go to terminals: a control byte in a function or thread name is
 * written as \xNN by replay and report (ESC [2J cleared the screen).
 */
static void test_names_escaped(void)
{
	char dir[600];
	struct t_result r;

	T_EQ_INT(t_make_rec(dir, sizeof(dir), "esc", "5.txt",
			    "1:+a\x1b[2Jb\n2:POP\n", "threads.tsv",
			    "tid\tpid\tcomm\n5\t5\tbel\x07\n", NULL), 0);
	r = t_ng("replay", dir, NULL);
	T_ASSERT(r.status == 0 && r.out && !strchr(r.out, '\x1b') &&
		 !strchr(r.out, '\x07') &&
		 strstr(r.out, "a\\x1b[2Jb();\n") &&
		 strstr(r.out, "# tid 5, pid 5, bel\\x07\n"));
	t_result_free(&r);
	r = t_ng("report", "--threads", dir, NULL);
	T_ASSERT(r.status == 0 && r.out && !strchr(r.out, '\x1b') &&
		 strstr(r.out, "  a\\x1b[2Jb\n") &&
		 strstr(r.out, "# tid 5, pid 5, bel\\x07: "));
	t_result_free(&r);
}

static const struct t_case cases[] = {
	{ "walk_calls", test_walk_calls },
	{ "walk_visitor_stops", test_walk_visitor_stops },
	{ "walk_checks_like_check", test_walk_checks_like_check },
	{ "profile_nesting", test_profile_nesting },
	{ "profile_recursion", test_profile_recursion },
	{ "profile_sort_keys", test_profile_sort_keys },
	{ "recording_files_and_names", test_recording_files_and_names },
	{ "chrome_json", test_chrome_json },
	{ "chrome_sched", test_chrome_sched },
	{ "export_temp_names", test_export_temp_names },
	{ "chrome_exact_and_escaped", test_chrome_exact_and_escaped },
	{ "chrome_long_outer_call", test_chrome_long_outer_call },
	{ "folded_stacks", test_folded_stacks },
	{ "export_bad_input", test_export_bad_input },
	{ "cmd_report", test_cmd_report },
	{ "cmd_report_units", test_cmd_report_units },
	{ "cmd_report_no_threads_tsv", test_cmd_report_no_threads_tsv },
	{ "cmd_report_errors", test_cmd_report_errors },
	{ "cmd_export", test_cmd_export },
	{ "cmd_export_signal", test_cmd_export_signal },
	{ "cmd_export_errors", test_cmd_export_errors },
	{ "deep_every_view", test_deep_every_view },
	{ "cmd_output_dash", test_cmd_output_dash },
	{ "hostile_files", test_hostile_files },
	{ "threads_tsv_bounded", test_threads_tsv_bounded },
	{ "names_escaped", test_names_escaped },
	{ "profile_diff", test_profile_diff },
	{ "cmd_report_diff", test_cmd_report_diff },
	{ "cmd_report_diff_errors", test_cmd_report_diff_errors },
	{ "cmd_report_diff_filters", test_cmd_report_diff_filters },
	{ "cmd_report_diff_filter_errors", test_cmd_report_diff_filter_errors },
};

T_SUITE(analyze, cases);
