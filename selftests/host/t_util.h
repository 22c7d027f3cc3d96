/* SPDX-License-Identifier: GPL-2.0 */
/*
 * t_util.h - what several suites share beyond the harness (ktap.h):
 * nanograph run with a list of words, a recording directory made from
 * its files' contents, the example recording of
 * Documentation/report-export.md, a JSON file parsed back by python3,
 * and a walk of a push/pop file logged as text. One copy each, so the
 * suites cannot drift apart in how they do these.
 */
#ifndef NG_T_UTIL_H
#define NG_T_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#include "nanograph.h"
#include "ktap.h"

/* Run nanograph with the arguments from @a1 on, at most 14, then NULL. */
struct t_result t_ng(const char *a1, ...) __attribute__((sentinel));

/*
 * The recording <tmpdir>/@name (made if missing) holding the files that
 * follow as pairs of name and content, then NULL; its path in @dir
 * unless NULL (t_path()'s buffers rotate). 0, or -1 if a file fails.
 */
int t_make_rec(char *dir, size_t size, const char *name, ...)
	__attribute__((sentinel));

/*
 * The example recording: thread 5 runs a [100,200], which calls b
 * [110,130] and b [140,150], which calls "c [mod]" [145,146]; CPU 1's
 * idle task runs b [300,310]. t_make_example() writes it into
 * <tmpdir>/rec, with or without threads.tsv; t_rp() names a file there
 * ("<tmpdir>/rec/<name>", in t_path()'s rotating buffers).
 */
extern const char t_thread5[], t_idle1[];
int t_make_example(bool with_tsv);
const char *t_rp(const char *name);

/*
 * The example of a recording made with --sched, in <tmpdir>/rec: thread
 * 421 reads (ksys_read [5000,5410] calls vfs_read [5100,5260], asleep
 * 5110-5210 until 420's vfs_write [5200,5220] wakes it at 5210, runnable
 * until 5230, preempted 5240-5250; then pipe_read [5270,5400], asleep
 * 5280-5300 until thread 999, not recorded, wakes it, on a CPU at 5310).
 */
int t_make_sched_example(void);

/*
 * <tmpdir>/@name/1.txt, the directory made: one stack @depth calls deep,
 * every push at 0 and every pop at 1. 0, or -1 if it cannot be written.
 */
int t_make_deep(const char *name, size_t depth);

/*
 * Run python3's json module on @path with @check (Python statements about
 * j, the parsed file). True when it passes or there is no python3.
 */
bool t_json_ok(const char *path, const char *check);

/*
 * A walk logged as text: "+label@ns/depth " for each push,
 * "-label[start,end]/depth " for each call at its pop, with "self<ns>"
 * before the '/' when @self. The log stops growing when @buf is full.
 */
struct t_trace {
	char buf[1024];
	size_t len;
	bool self;
};

/* The visitor that logs into @t. */
struct ng_pp_visitor t_trace_visitor(struct t_trace *t);

#endif /* NG_T_UTIL_H */
