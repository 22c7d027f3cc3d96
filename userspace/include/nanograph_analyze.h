/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * nanograph_analyze.h - part of libnanograph (include nanograph.h):
 * reading a recording back, for "nanograph report" (per-function
 * statistics) and "nanograph export" (Chrome trace JSON, folded stacks).
 *
 * A recording is a directory of push/pop files, DIR/<tid>.txt and
 * DIR/0-<cpu>.txt, and an optional DIR/threads.tsv (Documentation/
 * trace-format.md). Every other name in DIR is ignored: temporaries
 * (".*"), trace.json, stacks.folded, notes. Files are streamed one at a
 * time, so memory grows with the depth of a stack and the number of
 * distinct functions (report) or stacks (folded), never with the number
 * of lines. All times are integer nanoseconds; nothing is rounded.
 */
#ifndef NANOGRAPH_ANALYZE_H
#define NANOGRAPH_ANALYZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- a recording directory (analyze.c) -------------------------------- */

/* One thread of a recording: its file, and what threads.tsv says of it. */
struct ng_rec_thread {
	char tid[32];		/* "412", or "0-<cpu>" for a CPU's idle task */
	bool idle;		/* a "0-<cpu>" file */
	long long id;		/* the tid as a number; the cpu when idle */
	char *path;		/* "DIR/<tid>.txt" */
	const char *file;	/* "<tid>.txt", within path */
	int pid;		/* thread group from threads.tsv, -1 if unknown */
	char comm[64];		/* from threads.tsv; the tid if it has none */
	char process[64];	/* comm of the row whose tid is pid, else comm */
};

struct ng_recording {
	char *dir;
	struct ng_rec_thread *threads;	/* idle tasks by cpu, then by tid */
	size_t nr_threads;
	bool have_threads_tsv;
};

/*
 * Whether @name is a push/pop file's name in a recording: "<tid>.txt" or
 * "0-<cpu>.txt" (what ng_recording_open() reads and record replaces).
 */
bool ng_pp_file_name(const char *name);

/*
 * List DIR's push/pop files and read DIR/threads.tsv if it is there (a
 * missing or unreadable one leaves the tid as each thread's name). Returns
 * 0, -ENOENT when DIR holds no push/pop file, or -errno of opendir().
 */
int ng_recording_open(struct ng_recording *rec, const char *dir);
void ng_recording_close(struct ng_recording *rec);

/*
 * Whether @rec's info.json says its files miss calls: events lost, calls
 * the module skipped, calls closed early because their return was lost,
 * or still running at the end. 1 and what is missing in @buf ("12 events
 * lost, 3 calls skipped"); 0 when none is, or there is no info.json (a
 * recording from before it, or made by hand); -errno when it cannot be
 * read (-EBADMSG: not JSON). For the one warning line of report, export.
 */
int ng_recording_incomplete(const struct ng_recording *rec, char *buf,
			    size_t len);

/*
 * Where and why a push/pop file breaks the format, in the words of
 * "nanograph check". Functions taking one fill it in on error; it may be
 * NULL.
 */
struct ng_pp_bad {
	const char *file;	/* "5.txt"; NULL if no input is to blame */
	uint64_t line;		/* 1-based; 0 if no line is to blame */
	char why[160];		/* the checker's words; "" unless -EBADMSG */
};

/* What a recording's files hold, for "nanograph info" without info.json. */
struct ng_rec_totals {
	uint64_t threads;	/* push/pop files */
	uint64_t calls;
	uint64_t first_ns;	/* the first and last timestamps; 0, 0 if no call */
	uint64_t last_ns;
};

/*
 * Walk every file of @rec (checked as ng_pp_walk() does, flat in memory)
 * and count. Errors as ng_profile_add_thread().
 */
int ng_recording_totals(const struct ng_recording *rec,
			struct ng_rec_totals *t, struct ng_pp_bad *bad);

/* ---- walking one push/pop file (analyze.c) ---------------------------- */

/* One call, complete: reported when its POP is read. */
struct ng_call {
	const char *label;	/* "func" or "func [module]", without '+' */
	uint64_t start_ns;
	uint64_t end_ns;
	uint64_t self_ns;	/* end - start minus that of its direct children */
	size_t depth;		/* 0 for an outermost call */
};

/*
 * Called for each push (enter) and pop (leave) in file order, so children
 * leave before their parent. Labels are valid during the call only. Either
 * pointer may be NULL; a nonzero return stops the walk and is returned.
 */
struct ng_pp_visitor {
	int (*enter)(void *priv, const char *label, uint64_t ns, size_t depth);
	int (*leave)(void *priv, const struct ng_call *call);
	void *priv;
};

/*
 * Walk the push/pop file at @path, checking it by the rules of
 * ng_pp_check_file(): -EBADMSG at the first bad line, with line and reason
 * in *@bad (its file stays NULL). Calls before that line have been
 * reported already: a caller drops what it built on error.
 */
int ng_pp_walk(const char *path, const struct ng_pp_visitor *v,
	       struct ng_pp_bad *bad);

/* ---- per-function statistics for "nanograph report" (analyze.c) ------- */

struct ng_func_stats {
	const char *label;	/* "func" or "func [module]" */
	uint64_t calls;
	uint64_t total_ns;	/* inclusive: each call's end - start, summed */
	uint64_t self_ns;	/* total minus its direct children's totals */
	uint64_t avg_ns;	/* total / calls, rounded down */
	uint64_t max_ns;	/* the longest single call, inclusive */
};

/*
 * Sort keys: numbers descending, name ascending; ties go by name. A
 * recursive function's frames count each on their own: f calling f counts
 * two calls, and the inner call's time is in both totals (so a total may
 * exceed the recording's span) but in one self time only.
 */
enum ng_sort {
	NG_SORT_TOTAL,
	NG_SORT_SELF,
	NG_SORT_CALLS,
	NG_SORT_AVG,
	NG_SORT_MAX,
	NG_SORT_NAME,
};

struct ng_profile;

int ng_profile_new(struct ng_profile **pp);
/* Add the calls of the push/pop file at @path; errors as ng_pp_walk(). */
int ng_profile_add_file(struct ng_profile *p, const char *path,
			struct ng_pp_bad *bad);
/* The same for thread @i of @rec; bad->file names its file on error. */
int ng_profile_add_thread(struct ng_profile *p, const struct ng_recording *rec,
			  size_t i, struct ng_pp_bad *bad);
/*
 * The functions seen so far, sorted by @key, in *@statsp (owned by @p,
 * valid until the next call or ng_profile_free()). 0 or -ENOMEM.
 */
int ng_profile_sorted(struct ng_profile *p, enum ng_sort key,
		      const struct ng_func_stats **statsp, size_t *nr);
/* Number of calls, and the first and last timestamps (0, 0 if none). */
void ng_profile_totals(const struct ng_profile *p, uint64_t *calls,
		       uint64_t *first_ns, uint64_t *last_ns);
void ng_profile_free(struct ng_profile *p);

/* One function of "report --diff": its statistics in both recordings. */
struct ng_func_diff {
	const char *label;
	bool in_old, in_new;		/* where it was called */
	struct ng_func_stats old, new;	/* all 0 on the side it is not in */
};

/*
 * Pair the functions of @old and @new by label and sort them by the
 * absolute difference of @key (NEW - OLD), largest first, ties by name;
 * NG_SORT_NAME: by name. *@rowsp is malloc'd, the caller's to free();
 * its labels live as long as the profiles. 0, -EINVAL or -ENOMEM.
 */
int ng_profile_diff(struct ng_profile *old, struct ng_profile *new,
		    enum ng_sort key, struct ng_func_diff **rowsp, size_t *nr);
/* "total", "self", "calls", "avg", "max", "name"; -EINVAL for others. */
int ng_sort_parse(const char *name, enum ng_sort *key);

/* ---- exports for other tools (export.c) ------------------------------- */

/*
 * Idle tasks have no tid of their own: in the Chrome JSON, "0-<cpu>" is
 * tid NG_IDLE_TID_BASE + cpu in pid 0. Real tids stay below the kernel's
 * PID_MAX_LIMIT (2^22), so these never collide with one.
 */
#define NG_IDLE_TID_BASE	4194304LL

/* The "pid" and "tid" a thread has in the Chrome JSON. */
long long ng_chrome_pid(const struct ng_rec_thread *t);
long long ng_chrome_tid(const struct ng_rec_thread *t);

/*
 * Write @rec as Chrome Trace Event JSON to @path (through a temporary
 * name, so @path only ever holds a whole file): thread_name and
 * process_name metadata, then one complete ("X") event per call, with ts
 * and dur in microseconds printed exactly from nanoseconds. Each thread's
 * calls come in start order (a parent before its children). 0, or
 * -errno with *@bad saying which input file and line failed, if any.
 */
int ng_export_chrome(const struct ng_recording *rec, const char *path,
		     struct ng_pp_bad *bad);
/*
 * Write folded stacks to @path the same way: one line per distinct stack,
 * "comm;f1;...;fn <ns>", weighted by fn's self time in that stack summed
 * over the recording, lines in byte order; a stack whose weight is 0
 * (no line would add to any frame's width) is left out. ';' in a comm or
 * label is written as '_' so the frames stay apart.
 */
int ng_export_folded(const struct ng_recording *rec, const char *path,
		     struct ng_pp_bad *bad);
/*
 * The same into @fp, a stream the caller owns (standard output): flushed,
 * not closed; 0 or -errno of the first failed write. Every input file is
 * checked before the first byte is written, so a bad input leaves @fp
 * untouched (for the JSON that is a first pass over the files).
 */
int ng_export_chrome_fp(const struct ng_recording *rec, FILE *fp,
			struct ng_pp_bad *bad);
int ng_export_folded_fp(const struct ng_recording *rec, FILE *fp,
			struct ng_pp_bad *bad);

#endif /* NANOGRAPH_ANALYZE_H */
