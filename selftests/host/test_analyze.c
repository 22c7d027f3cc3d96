// SPDX-License-Identifier: GPL-2.0
/*
 * test_analyze.c - reading recordings back: the profile behind "nanograph
 * report" (exact total and self times, recursion, sorting), and the Chrome
 * JSON and folded-stack exports, including bad input.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nanograph.h"
#include "ktap.h"

/* a [100,200] holds b [110,130] and b [140,150], which holds c [145,146] */
static const char thread5[] =
	"100:+a\n110:+b\n130:POP\n140:+b\n145:+c [mod]\n146:POP\n150:POP\n200:POP\n";

static int make_recording(void)
{
	return t_write_file(t_path("5.txt"), thread5) ||
	       t_write_file(t_path("0-1.txt"), "300:+b\n310:POP\n") ||
	       t_write_file(t_path("threads.tsv"),
			    "tid\tpid\tcomm\n0-1\t0\tswapper/1\n5\t5\tmain\n");
}

static const struct ng_func_stats *find(const struct ng_func_stats *s,
					size_t n, const char *label)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(s[i].label, label))
			return &s[i];
	return NULL;
}

static void test_profile(void)
{
	const struct ng_func_stats *s, *f;
	struct ng_profile *p;
	uint64_t line, calls, first, last;
	size_t n;

	T_EQ_INT(make_recording(), 0);
	T_EQ_INT(ng_profile_new(&p), 0);
	T_EQ_INT(ng_profile_add_file(p, t_path("5.txt"), &line), 0);
	T_EQ_INT(ng_profile_add_file(p, t_path("0-1.txt"), &line), 0);
	s = ng_profile_sorted(p, NG_SORT_TOTAL, &n);
	T_ASSERT(s && n == 3);
	T_EQ_STR(s[0].label, "a");
	f = find(s, n, "a");
	T_EQ_U64(f->calls, 1);
	T_EQ_U64(f->total_ns, 100);
	T_EQ_U64(f->self_ns, 70);
	f = find(s, n, "b");
	T_EQ_U64(f->calls, 3);
	T_EQ_U64(f->total_ns, 40);
	T_EQ_U64(f->self_ns, 39);
	T_EQ_U64(f->max_ns, 20);
	f = find(s, n, "c [mod]");
	T_EQ_U64(f->total_ns, 1);
	ng_profile_totals(p, &calls, &first, &last);
	T_EQ_U64(calls, 5);
	T_EQ_U64(first, 100);
	T_EQ_U64(last, 310);
	s = ng_profile_sorted(p, NG_SORT_CALLS, &n);
	T_EQ_STR(s[0].label, "b");
	s = ng_profile_sorted(p, NG_SORT_NAME, &n);
	T_EQ_STR(s[0].label, "a");
	T_EQ_STR(s[2].label, "c [mod]");
	ng_profile_free(p);
}

/* Each recursive call counts on its own; self times still add up. */
static void test_recursion(void)
{
	const struct ng_func_stats *s;
	struct ng_profile *p;
	uint64_t line;
	size_t n;

	T_EQ_INT(t_write_file(t_path("1.txt"),
			      "0:+r\n10:+r\n20:+r\n30:POP\n40:POP\n50:POP\n"), 0);
	T_EQ_INT(ng_profile_new(&p), 0);
	T_EQ_INT(ng_profile_add_file(p, t_path("1.txt"), &line), 0);
	s = ng_profile_sorted(p, NG_SORT_TOTAL, &n);
	T_ASSERT(s && n == 1);
	T_EQ_U64(s[0].calls, 3);
	T_EQ_U64(s[0].total_ns, 50 + 30 + 10);
	T_EQ_U64(s[0].self_ns, 50);
	T_EQ_U64(s[0].max_ns, 50);
	ng_profile_free(p);
}

/* A file that fails the format is refused with its line. */
static void test_bad_file(void)
{
	struct ng_recording rec;
	const char *bad = NULL;
	struct ng_profile *p;
	uint64_t line;

	T_EQ_INT(t_write_file(t_path("3.txt"), "100:+a\n90:POP\n"), 0);
	T_EQ_INT(ng_profile_new(&p), 0);
	T_EQ_INT(ng_profile_add_file(p, t_path("3.txt"), &line), -EBADMSG);
	T_EQ_U64(line, 2);
	ng_profile_free(p);
	T_EQ_INT(t_write_file(t_path("3.txt"), "100:+a\n"), 0);
	T_EQ_INT(ng_recording_open(&rec, t_tmpdir()), 0);
	T_EQ_INT(ng_export_chrome(&rec, t_path("out.json"), &line, &bad), -EBADMSG);
	T_EQ_STR(bad, "3.txt");
	T_EQ_U64(line, 2);
	T_ASSERT(!t_exists(t_path("out.json")));
	T_ASSERT(!t_exists(t_path(".out.json.tmp")));
	T_EQ_INT(ng_export_folded(&rec, t_path("out.folded"), &line, &bad), -EBADMSG);
	T_ASSERT(!t_exists(t_path("out.folded")));
	ng_recording_close(&rec);
}

static void test_recording(void)
{
	struct ng_recording rec;

	T_EQ_INT(ng_recording_open(&rec, t_tmpdir()), -ENOENT);
	T_EQ_INT(make_recording(), 0);
	T_EQ_INT(t_write_file(t_path("notes.txt"), "x"), 0);
	T_EQ_INT(t_write_file(t_path(".9.txt.tmp"), "x"), 0);
	T_EQ_INT(t_write_file(t_path("12.txt"), "1:+x\n2:POP\n"), 0);
	T_EQ_INT(ng_recording_open(&rec, t_tmpdir()), 0);
	T_EQ_INT(rec.nr_threads, 3);
	T_EQ_STR(rec.threads[0].tid, "0-1");
	T_EQ_STR(rec.threads[0].comm, "swapper/1");
	T_EQ_STR(rec.threads[1].tid, "5");
	T_EQ_INT(rec.threads[1].pid, 5);
	T_EQ_STR(rec.threads[1].comm, "main");
	T_EQ_STR(rec.threads[2].tid, "12");	/* not in threads.tsv */
	T_EQ_INT(rec.threads[2].pid, -1);
	T_EQ_STR(rec.threads[2].comm, "12");
	ng_recording_close(&rec);
}

static void test_folded(void)
{
	struct ng_recording rec;
	const char *bad = NULL;
	uint64_t line;

	T_EQ_INT(make_recording(), 0);
	T_EQ_INT(ng_recording_open(&rec, t_tmpdir()), 0);
	T_EQ_INT(ng_export_folded(&rec, t_path("s.folded"), &line, &bad), 0);
	T_FILE_EQ(t_path("s.folded"),
		  "main;a 70\nmain;a;b 29\nmain;a;b;c [mod] 1\nswapper/1;b 10\n");
	ng_recording_close(&rec);
}

static void test_chrome(void)
{
	char *argv[] = { "/usr/bin/python3", "-c",
		"import json,sys; d=json.load(open(sys.argv[1])); "
		"x=[e for e in d['traceEvents'] if e['ph']=='X']; "
		"assert len(x)==5, x; "
		"assert {(e['name'],e['ts'],e['dur']) for e in x if e['tid']==5}=="
		"{('a',0.1,0.1),('b',0.11,0.02),('b',0.14,0.01),('c [mod]',0.145,0.001)}",
		NULL, NULL };
	struct ng_recording rec;
	const char *bad = NULL;
	char *json, *out, *err;
	uint64_t line;

	T_EQ_INT(make_recording(), 0);
	T_EQ_INT(ng_recording_open(&rec, t_tmpdir()), 0);
	T_EQ_INT(ng_export_chrome(&rec, t_path("t.json"), &line, &bad), 0);
	ng_recording_close(&rec);
	json = t_read_file(t_path("t.json"), NULL);
	T_ASSERT(json);
	T_ASSERT(strstr(json, "{\"ph\":\"X\",\"pid\":5,\"tid\":5,\"ts\":0.145,\"dur\":0.001,\"name\":\"c [mod]\"}"));
	T_ASSERT(strstr(json, "\"tid\":4194305,\"name\":\"thread_name\",\"args\":{\"name\":\"swapper/1\"}"));
	free(json);
	argv[3] = (char *)t_path("t.json");
	if (access("/usr/bin/python3", X_OK))
		return;
	T_EQ_INT(t_run(argv, NULL, &out, &err), 0);
	free(out);
	free(err);
}

static const struct t_case cases[] = {
	{ "profile_total_self_max", test_profile },
	{ "profile_recursion", test_recursion },
	{ "bad_file_refused", test_bad_file },
	{ "recording_files_and_threads", test_recording },
	{ "folded_stacks", test_folded },
	{ "chrome_json", test_chrome },
};

T_SUITE(analyze, cases);
