// SPDX-License-Identifier: GPL-2.0
/*
 * t_util.c - helpers several suites share (t_util.h): the command run
 * with a list of words, recordings made in the test's directory, JSON
 * parsed back, walks logged as text.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "t_util.h"

#define T_NG_MAX_ARGS	14

struct t_result t_ng(const char *a1, ...)
{
	char *argv[T_NG_MAX_ARGS + 2] = { NULL, (char *)a1 };
	va_list ap;
	int i = 2;

	va_start(ap, a1);
	while (i < T_NG_MAX_ARGS + 1 && (argv[i] = va_arg(ap, char *)))
		i++;
	va_end(ap);
	return t_nanograph_run(argv, NULL);
}

/* The name, content pairs of t_make_rec(), into <tmpdir>/@name. */
static int write_files(const char *name, va_list ap)
{
	const char *file, *content;
	char path[1024];

	while ((file = va_arg(ap, const char *))) {
		content = va_arg(ap, const char *);
		snprintf(path, sizeof(path), "%s/%s/%s", t_tmpdir(), name, file);
		if (t_write_file(path, content))
			return -1;
	}
	return 0;
}

int t_make_rec(char *dir, size_t size, const char *name, ...)
{
	va_list ap;
	int ret;

	if (dir)
		snprintf(dir, size, "%s", t_path(name));
	mkdir(t_path(name), 0755);	/* it may be there: its files are replaced */
	va_start(ap, name);
	ret = write_files(name, ap);
	va_end(ap);
	return ret;
}

const char t_thread5[] =
	"100:+a\n110:+b\n130:POP\n140:+b\n145:+c [mod]\n146:POP\n150:POP\n200:POP\n";
const char t_idle1[] = "300:+b\n310:POP\n";

int t_make_sched_example(void)
{
	return t_make_rec(NULL, 0, "rec",
			  "421.txt", "5000:+ksys_read\n5100:+vfs_read\n5260:POP\n"
				     "5270:+pipe_read\n5400:POP\n5410:POP\n",
			  "420.txt", "5200:+vfs_write\n5220:POP\n",
			  "sched.tsv", "# nanograph sched 1\n"
				       "5110\tout\t421\tS\t1\n"
				       "5210\twake\t421\t420\twriter\ttask\tvfs_write\n"
				       "5230\tin\t421\n"
				       "5240\tout\t421\tR\t0\n"
				       "5250\tin\t421\n"
				       "5280\tout\t421\tS\t1\n"
				       "5300\twake\t421\t999\tother\ttask\t-\n"
				       "5310\tin\t421\n", NULL);
}

int t_make_example(bool with_tsv)
{
	/* without threads.tsv, the list ends before it */
	return t_make_rec(NULL, 0, "rec", "5.txt", t_thread5, "0-1.txt", t_idle1,
			  with_tsv ? "threads.tsv" : NULL,
			  "tid\tpid\tcomm\n0-1\t0\tswapper/1\n5\t5\tmain\n", NULL);
}

const char *t_rp(const char *name)
{
	char sub[256];

	snprintf(sub, sizeof(sub), "rec/%s", name);
	return t_path(sub);
}

int t_make_deep(const char *name, size_t depth)
{
	char path[1024];
	size_t i;
	FILE *f;

	if (mkdir(t_path(name), 0755))
		return -1;
	snprintf(path, sizeof(path), "%s/1.txt", t_path(name));
	f = fopen(path, "w");
	if (!f)
		return -1;
	for (i = 0; i < depth; i++)
		fputs("0:+f\n", f);
	for (i = 0; i < depth; i++)
		fputs("1:POP\n", f);
	return fclose(f) ? -1 : 0;
}

bool t_json_ok(const char *path, const char *check)
{
	char prog[4096];
	char *argv[] = { "/usr/bin/env", "python3", "-c", prog, (char *)path, NULL };
	char *out = NULL, *err = NULL;
	int st;

	snprintf(prog, sizeof(prog),
		 "import json,sys\nj=json.load(open(sys.argv[1],encoding='utf-8'))\n%s\n",
		 check);
	st = t_run(argv, NULL, &out, &err);
	if (st == 127) {
		t_diag("no python3: JSON not parsed back");
		st = 0;
	} else if (st) {
		t_diag("python3: %s", err ? t_escape(err, strlen(err)) : "?");
	}
	free(out);
	free(err);
	return st == 0;
}

/* Append to @t's log while it has room. */
static void __attribute__((format(printf, 2, 3)))
trace_log(struct t_trace *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->len >= sizeof(t->buf) - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->len, sizeof(t->buf) - t->len, fmt, ap);
	va_end(ap);
	t->len += n > 0 ? (size_t)n : 0;
}

/* Log each push as "+label@ns/depth". */
static int trace_enter(void *priv, const char *label, uint64_t ns, size_t depth)
{
	trace_log(priv, "+%s@%llu/%zu ", label, (unsigned long long)ns, depth);
	return 0;
}

/* Log each call as "-label[start,end]/depth", its self time if asked. */
static int trace_leave(void *priv, const struct ng_call *c)
{
	struct t_trace *t = priv;

	if (t->self)
		trace_log(t, "-%s[%llu,%llu]self%llu/%zu ", c->label,
			  (unsigned long long)c->start_ns,
			  (unsigned long long)c->end_ns,
			  (unsigned long long)c->self_ns, c->depth);
	else
		trace_log(t, "-%s[%llu,%llu]/%zu ", c->label,
			  (unsigned long long)c->start_ns,
			  (unsigned long long)c->end_ns, c->depth);
	return 0;
}

struct ng_pp_visitor t_trace_visitor(struct t_trace *t)
{
	struct ng_pp_visitor v = { trace_enter, trace_leave, t };

	return v;
}
