/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * nanograph_analyze.h - part of libnanograph (include nanograph.h):
 * reading a recording back, for "nanograph report" (per-function
 * statistics), "nanograph replay" (the call tree as text) and "nanograph
 * export" (Chrome trace JSON, folded stacks), through the filters all
 * three take.
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

#include "nanograph_event.h"

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

/*
 * @t's key in a recording's tables (sched.tsv, counters.tsv, args.tsv,
 * retval.tsv): its tid, or -(cpu + 1) for a CPU's idle task.
 */
int ng_rec_thread_key(const struct ng_rec_thread *t);

struct ng_filter;
struct ng_comp;

struct ng_recording {
	char *dir;
	struct ng_rec_thread *threads;	/* idle tasks by cpu, then by tid */
	size_t nr_threads;
	bool have_threads_tsv;
	/* the calls every reader sees (ng_recording_filter()); NULL: all */
	const struct ng_filter *filter;
	/* the tracer's cost taken off (ng_recording_compensate()); NULL: none */
	struct ng_comp *comp;
	/* sched.tsv (record --sched), read at open; NULL: none */
	struct ng_sched *sched;
	/* counters.tsv (record --counters), read at open; NULL: none */
	struct ng_counts *counts;
	/* args.tsv, retval.tsv (record --args, --retval), the same */
	struct ng_values *values;
};

/*
 * Whether @name is a push/pop file's name in a recording: "<tid>.txt" or
 * "0-<cpu>.txt" (what ng_recording_open() reads and record replaces).
 */
bool ng_pp_file_name(const char *name);
/*
 * Whether the @len bytes at @s are a thread of a recording as its file
 * names it: "412" (*@idle false, *@id the tid) or "0-<cpu>" for a CPU's
 * idle task (*@idle true, *@id the cpu), below 2^31.
 */
bool ng_tid_parse(const char *s, size_t len, bool *idle, long long *id);

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
	uint64_t dur_ns;	/* end - start */
	uint64_t calls_below;	/* calls nested anywhere below it in the file */
	uint64_t children;	/* its direct children in the file */
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

/*
 * Check every file of @rec by the rules of "nanograph check", reading
 * each once: for a writer to a stream, which cannot take back what it
 * wrote, so that a bad input leaves the stream untouched. 0, -EBADMSG
 * with file, line and reason in *@bad, or -errno with its file.
 */
int ng_recording_check(const struct ng_recording *rec, struct ng_pp_bad *bad);

/* ---- filters: which calls a view shows (view_filter.c) ---------------- */

/*
 * What "replay", "report" and "export" take as -t, -D, --tid, --comm, -F,
 * -N and --time-range (Documentation/report-export.md, "Filters"). A
 * filter is built once from the options and applied while each file is
 * walked: kinds of filters all apply (a call must pass each), the values
 * given to one kind are alternatives. For calls:
 *
 *  - a call is shown when it lasts at least the threshold, lies below
 *    the depth limit, overlaps the time range (start <= END and end >=
 *    START, both inclusive), lies in the subtree of a call matching a
 *    "show" glob (-F), if any, and in none matching a "hide" glob (-N);
 *  - the callers of a shown call are shown too, up to its outermost -F
 *    call: a call lasts at least as long as those it makes and overlaps
 *    what they overlap, so the tree stays connected;
 *  - depths count from 0 at each outermost call, or with -F at the
 *    outermost call matching -F: a view shows the subtree as a tree of
 *    its own.
 *
 * Threads (--tid, --comm) are chosen by ng_recording_filter().
 */
struct ng_filter;

int ng_filter_new(struct ng_filter **fp);
void ng_filter_free(struct ng_filter *f);
/* Calls lasting at least @ns nanoseconds (0: all). */
void ng_filter_set_threshold(struct ng_filter *f, uint64_t ns);
/* Calls at depth below @depth (0: no limit). */
void ng_filter_set_depth(struct ng_filter *f, uint64_t depth);
/* Calls overlapping [@start, @end], nanoseconds of the files. */
void ng_filter_set_range(struct ng_filter *f, uint64_t start, uint64_t end);
/*
 * Calls whose return value passes @expr (retval.tsv): "<0", ">=4096",
 * "!=0", "==-9", a bare value ("-9", "0x1000"), or an error code by name
 * ("-EAGAIN", "EAGAIN": -11).  A value compares as ng_retval_number()
 * reads it; a void function's, or a call without one, never passes.
 * -EINVAL if @expr is none of these.
 */
int ng_filter_set_retval(struct ng_filter *f, const char *expr);
/*
 * Add the threads of @list, comma-separated tids ("412", or "0-<cpu>"
 * for a CPU's idle task): -EINVAL if an item is not one, and nothing is
 * added.
 */
int ng_filter_add_tids(struct ng_filter *f, const char *list);
/* Add the comms of @list, comma-separated; -EINVAL if one is empty. */
int ng_filter_add_comms(struct ng_filter *f, const char *list);
/*
 * Show only the subtrees of calls matching @glob (@hide false, -F), or
 * hide those subtrees (@hide true, -N). -EINVAL for an empty glob.
 * ng_glob_match() says what matches.
 */
int ng_filter_add_func(struct ng_filter *f, const char *glob, bool hide);
/*
 * Whether @f leaves calls out (-F, -N, -D, -t, --time-range), beyond
 * choosing threads; false for NULL.
 */
bool ng_filter_hides_calls(const struct ng_filter *f);

/* Where the cost that --compensate takes off comes from. */
enum ng_compensation {
	NG_COMPENSATE_NONE,
	NG_COMPENSATE_RECORDED,	/* each recording's own, from its info.json */
	NG_COMPENSATE_BY_HAND,	/* --overhead PER_CALL_NS[,INSIDE_NS] */
};
/*
 * --compensate: views of a recording take off the tracer's cost per
 * call, given by hand (@by_hand: @per_call_ns, @inside_ns) or each
 * recording's own (info.json). ng_filter_compensation() says which, the
 * costs given by hand in *@per_call_ns, *@inside_ns. The command applies
 * it (ng_recording_compensate()).
 */
void ng_filter_set_compensate(struct ng_filter *f, bool by_hand,
			      double per_call_ns, double inside_ns);
enum ng_compensation ng_filter_compensation(const struct ng_filter *f,
					    double *per_call_ns,
					    double *inside_ns);
/* Whether @f chooses threads or calls at all; NULL is empty. */
bool ng_filter_empty(const struct ng_filter *f);

/*
 * Whether @label ("func" or "func [module]") matches @glob: the whole
 * label or its function name (before " [module]"), where '*' in @glob
 * matches any run of characters and every other character itself. So
 * "vfs_*" matches "vfs_read", "ext4_*" "ext4_file_read_iter [ext4]",
 * and "* [ext4]" every function of ext4.
 */
bool ng_glob_match(const char *glob, const char *label);
/*
 * A duration as a user writes it: digits with an optional unit, ns (the
 * default), us, ms or s, and a fraction down to the nanosecond ("1.5us",
 * "2ms", "500ns", "500"). -EINVAL for anything else, -ERANGE past 64 bits.
 */
int ng_parse_duration(const char *s, uint64_t *ns);
/*
 * "START~END": nanoseconds, either side may be empty (0 and UINT64_MAX).
 * -EINVAL without '~', for a side that is not a number, or START > END.
 */
int ng_parse_time_range(const char *s, uint64_t *start, uint64_t *end);

/*
 * ng_pp_walk() through @f (NULL: every call): @v sees only the calls @f
 * shows, with their depth as shown; each enter comes once the call is
 * known to be shown (at the latest at its POP, when that is what tells),
 * so enters and leaves keep the file's order, callers before callees.
 * Memory follows the depth of the stack. Errors as ng_pp_walk().
 */
int ng_filter_walk(const struct ng_filter *f, const char *path,
		   const struct ng_pp_visitor *v, struct ng_pp_bad *bad);

/*
 * Look at @rec through @f from now on: keep only the threads its --tid
 * and --comm values name (all, without such values), and have every
 * reader of @rec (profile, replay, exports) walk files through @f, which
 * must outlive that use. -ESRCH when a value names no thread of @rec (a
 * typo, most likely), with that value in *@unmatched and whether it is a
 * comm in *@comm; @rec is then unchanged. 0 or -ENOMEM otherwise.
 */
int ng_recording_filter(struct ng_recording *rec, const struct ng_filter *f,
			const char **unmatched, bool *comm);

/* ---- overhead compensation: --compensate (view_filter.c) ------------- */

/*
 * The tracer's own cost taken off the times every reader of a recording
 * sees (Documentation/report-export.md, "Compensation"). With O =
 * per_call_ns and I = inside_ns (0 <= I <= O), a call C of duration D,
 * desc(C) calls anywhere below it and kids(C) direct children shows
 *
 *   inclusive  D - I - O x desc(C)
 *   self       (D - sum of its children's D) - I - (O - I) x kids(C)
 *
 * each rounded to the ns and clamped at 0. Its start and end (ng_call's
 * start_ns and end_ns, a visitor's enter ns) are moved to the timeline
 * without the tracer: the k-th event of the file (from 0) is moved back by
 * k x O / 2, plus (O - I) / 2 for a push or I / 2 for a pop (half of each
 * call's cost before and after each of its records), and never before
 * the event ahead of it. The filters' durations (-t) are the compensated
 * ones; their time range stays in recorded time.
 */
struct ng_comp {
	double per_call_ns;
	double inside_ns;
	uint64_t clamped;	/* calls shown that came out below 0, shown as 0 */
};

/*
 * One cost in ns: digits, optionally '.' and at most 3 decimals, below
 * 1 s (ng_parse_num()'s rules: no sign, exponent, "inf" or "nan").
 * 0 or -EINVAL.
 */
int ng_parse_cost(const char *s, double *ns);
/*
 * Parse "PER_CALL_NS[,INSIDE_NS]" (--overhead): decimal numbers of ns,
 * at most 3 decimals, below 1 s, INSIDE (default 0) at most PER_CALL.
 * -EINVAL for anything else.
 */
int ng_parse_overhead(const char *s, double *per_call_ns, double *inside_ns);
/*
 * Have every reader of @rec take off these costs from now on: -EINVAL
 * unless 0 <= @inside_ns <= @per_call_ns (finite), or -ENOMEM.
 * ng_recording_close() frees it.
 */
int ng_recording_compensate(struct ng_recording *rec, double per_call_ns,
			    double inside_ns);
/*
 * Walk thread @t of @rec through its filter and its compensation:
 * ng_filter_walk() as every reader of a recording does it.
 */
int ng_recording_walk(const struct ng_recording *rec,
		      const struct ng_rec_thread *t,
		      const struct ng_pp_visitor *v, struct ng_pp_bad *bad);

/* ---- the call tree as text, for "nanograph replay" (replay.c) --------- */

/*
 * Write each thread's calls (through @rec's filter) to @fp as
 * function_graph draws them: a header naming the thread, then one line
 * per call in start order with a duration column and indentation by
 * depth; "func() {" ... "}" (with func's name in a C comment) for a call
 * that shows calls of its own, "func();" for one that does not; the
 * duration, in microseconds exact to the ns, on the closing line and on
 * leaf lines. With @abstime each line starts with the timestamp of its
 * event. Threads with no call to show are left out. Streamed: memory
 * follows the depth of the stack. Lines are written as files are read,
 * so a caller writing to a stream checks the recording first
 * (ng_recording_check()). 0, or -errno with *@bad naming the file and
 * line that failed, if one did. In a flight snapshot the call that fired
 * the trigger (info.json's "trigger": its tid, function and return time)
 * gets NG_REPLAY_TRIGGER_MARK after its duration line ("f();" or "}").
 * @flags: NG_REPLAY_* below.
 */
int ng_replay(const struct ng_recording *rec, FILE *fp, unsigned int flags,
	      struct ng_pp_bad *bad);

/*
 * Where @rec's error codes came from (replay --errors, errors.c): every
 * call that returned one (retval.tsv), by the path from its thread's
 * outermost call to the error's origin, grouped and counted, most
 * frequent first.  -ENOENT for a recording without return values.
 */
int ng_replay_errors(const struct ng_recording *rec, FILE *fp,
		     struct ng_pp_bad *bad);
/*
 * report's errors section: per function and error code, the calls that
 * returned it (through the recording's filter), most first.  -ENOENT
 * for a recording without return values.
 */
int ng_report_errors(const struct ng_recording *rec, FILE *fp,
		     struct ng_pp_bad *bad);

/* Each line starts with the timestamp of its event. */
#define NG_REPLAY_ABSTIME	0x1
/*
 * Durations count only the time on a CPU (function_graph's sleep-time
 * off): wall time minus the runnable and blocked time of the recording's
 * sched.tsv. A recording without one: -ENOENT before anything is written.
 */
#define NG_REPLAY_ONCPU		0x2
/* Each call's call site (args.tsv, record --retaddr): "<-ksys_read+0x6b". */
#define NG_REPLAY_RETADDR	0x4

/* ---- scheduling: sched.tsv (sched.c) ---------------------------------- */

/*
 * A thread's time off the CPU: from out_ns, asleep until wake_ns (equal
 * to out_ns when it left runnable), then runnable until in_ns.
 * UINT64_MAX: not seen (still asleep, still off the CPU at the end).
 */
struct ng_sched_span {
	uint64_t out_ns, wake_ns, in_ns;
	/*
	 * When the waker woke it: wake_ns, or before out_ns for a wake that
	 * came while the thread was still on its CPU (then wake_ns is
	 * out_ns: it never slept).
	 */
	uint64_t woken_ns;
	int waker;		/* the waking thread (or the one an interrupt
				 * came in on); -1: none seen */
	char comm[64];		/* its name, "-" if unknown */
	char ctx[16];		/* "task", or the interrupt's kind */
	char fn[256];		/* its innermost hooked call then, or "-" */
};

/* A call's wall time, cut: on_cpu + runnable + blocked = end - start. */
struct ng_sched_split {
	uint64_t on_cpu, runnable, blocked;
	const struct ng_sched_span *woken;	/* the last sleep's waker */
};

/* One call's line of counters.tsv (record --counters). */
struct ng_call_counts {
	int tid;
	uint64_t end_ns;	/* its return, as its POP line says */
	unsigned int depth;
	unsigned int counts[NG_COUNTS];	/* NG_COUNT_* order */
};

struct ng_counts;

/*
 * Read DIR/counters.tsv: -ENOENT without one, -ENOMEM, or -EIO; lines
 * that do not parse are skipped.
 */
int ng_counts_load(struct ng_counts **cp, const char *dir);
void ng_counts_free(struct ng_counts *c);
/* The counts of @tid's call at @depth that returned at @end_ns, or NULL. */
const struct ng_call_counts *ng_counts_find(const struct ng_counts *c, int tid,
					    uint64_t end_ns, unsigned int depth);
/*
 * What replay writes of them: "64 minor faults, 1 voluntary switches"
 * (the counts that are not 0; "" for none, or a NULL @e), into @buf of
 * @size bytes; its length.
 */
size_t ng_counts_note(char *buf, size_t size, const struct ng_call_counts *e);

/*
 * One call's line of args.tsv (record --args, --retaddr; @ns its entry)
 * or of retval.tsv (record --retval; @ns its return).
 */
struct ng_call_values {
	int tid;
	uint64_t ns;
	unsigned int depth;
	char site[128];		/* where it returns to ("ksys_read+0x6b"); "" */
	unsigned int nargs;
	uint64_t args[NG_ARGS_MAX];	/* argument registers, as recorded */
	bool has_retval;
	uint64_t retval;	/* the return register, as recorded */
};

struct ng_values;

/*
 * Read DIR/args.tsv and DIR/retval.tsv (either may be missing; -ENOENT
 * when both are), and how wide the recording's registers are (info.json's
 * machine: 32 bits on arm).  -ENOMEM or -EIO too; lines that do not
 * parse are skipped.
 */
int ng_values_load(struct ng_values **vp, const char *dir);
void ng_values_free(struct ng_values *vs);
/* Whether the recording has a retval.tsv (record --retval). */
bool ng_values_have_retvals(const struct ng_values *vs);
/* The entry values of @tid's call at @depth entered at @start_ns, or NULL. */
const struct ng_call_values *ng_values_args(const struct ng_values *vs, int tid,
					    uint64_t start_ns, unsigned int depth);
/* The return value of @tid's call at @depth that returned at @end_ns. */
const struct ng_call_values *ng_values_ret(const struct ng_values *vs, int tid,
					   uint64_t end_ns, unsigned int depth);
/* A register as the recording's machine held it (the low 32 bits on arm). */
uint64_t ng_values_reg(const struct ng_values *vs, uint64_t v);
/*
 * The largest error code a return value is taken for, as the kernel's
 * IS_ERR_VALUE(): -1 to -4095.
 */
#define NG_MAX_ERRNO	4095
/* Whether the recording has the prototypes (protos.tsv, from BTF). */
bool ng_values_typed(const struct ng_values *vs);
/*
 * The error code @v is (-9: 9) as @label's return value (its type's
 * width; a register's without a prototype); else 0.  A void, bool or
 * narrow unsigned function returns none.
 */
int ng_retval_errno(const struct ng_values *vs, const char *label, uint64_t v);
/* The name of error code @err ("EBADF", the kernel's own too), or NULL. */
const char *ng_errno_name(int err);
/* The error code named @name ("EBADF": 9), or 0. */
int ng_errno_by_name(const char *name);
/*
 * @label's return value @v as a number to compare: a signed integer of
 * its type's width, an error code (an ERR_PTR(), a register in the
 * error range) negative, anything else unsigned, in *@neg / *@mag.
 * False for a void function.
 */
bool ng_retval_number(const struct ng_values *vs, const char *label,
		      uint64_t v, bool *neg, uint64_t *mag);
/*
 * @label's return value as replay writes it: typed ("4096", "-9
 * (EBADF)", "ERR_PTR(-ENOMEM)", "true"; nothing for a void function), or
 * without a prototype as funcgraph-retval does (hex, an error code as
 * "-9 (EBADF)").  Its length.
 */
size_t ng_retval_text(const struct ng_values *vs, const char *label,
		      char *buf, size_t size, uint64_t v);
/*
 * A call's arguments as replay writes them between its parentheses:
 * "file=0xffff8881, buf=0x7ffd0000, count=4096, pos=0xffffc900" with a
 * prototype ("name=?" for one not in the registers recorded), else the
 * registers in hex.  Its length.
 */
size_t ng_args_text(const struct ng_values *vs, const char *label,
		    const struct ng_call_values *cv, char *buf, size_t size);
/*
 * Each argument of @cv as ng_args_text() writes it: @fn gets its name
 * (the parameter's with a prototype, @typed; "arg0"... without) and its
 * value as text; a non-zero return stops the walk and is returned.
 */
typedef int (*ng_arg_fn)(void *priv, const char *name, const char *value,
			 bool typed);
int ng_args_each(const struct ng_values *vs, const char *label,
		 const struct ng_call_values *cv, ng_arg_fn fn, void *priv);

struct ng_sched;

/*
 * Read DIR/sched.tsv (record --sched): -ENOENT without one, -ENOMEM, or
 * -EIO; lines that do not parse are skipped.
 */
int ng_sched_load(struct ng_sched **sp, const char *dir);
void ng_sched_free(struct ng_sched *s);
/*
 * Cut [@start, @end) of thread @tid at its spans off the CPU; all of it
 * on the CPU for a thread sched.tsv does not name (or a NULL @s).
 */
void ng_sched_split(const struct ng_sched *s, int tid, uint64_t start,
		    uint64_t end, struct ng_sched_split *out);
/*
 * Thread @tid's spans off the CPU, in time order, in *@v (owned by @s);
 * their number, 0 for a thread sched.tsv does not name (or a NULL @s).
 */
size_t ng_sched_spans(const struct ng_sched *s, int tid,
		      const struct ng_sched_span **v);
/*
 * Who ended a span's sleep (its waker >= 0), as replay and the exports
 * write it: "420 writer in vfs_write", or "hardirq on 0 swapper/0 in
 * default_idle" for an interrupt ("in FUNC" only when a call is known).
 * NG_SCHED_WAKER_MAX bytes hold any such name (a comm and a symbol).
 */
#define NG_SCHED_WAKER_MAX 400
const char *ng_sched_waker_name(char *buf, size_t size,
				const struct ng_sched_span *sp);
/*
 * What the exports call a span's parts: its sleep ("Sleeping", or
 * "Sleeping: woken by 420 writer in vfs_write", "... by hardirq on 0
 * swapper/0 in default_idle"; in @buf when it names a waker) and its wait
 * for a CPU ("Runnable", or "Runnable (preempted)" when it left runnable).
 * NG_SCHED_SLEEP_MAX bytes hold any sleep's name.
 */
#define NG_SCHED_SLEEP_MAX (NG_SCHED_WAKER_MAX + 32)
const char *ng_sched_sleep_name(char *buf, size_t size,
				const struct ng_sched_span *sp);
const char *ng_sched_runnable_name(const struct ng_sched_span *sp);
/*
 * Whether the exports draw @rec's sched.tsv (analyze.c): it has one, and
 * its calls are shown whole and as recorded (no filter leaving calls
 * out, no --compensate moving them), so that every span and wake lies
 * inside the call it was recorded in.
 */
bool ng_recording_draws_sched(const struct ng_recording *rec);
/*
 * Where the exports start a span's wake arrow: the thread of @rec that
 * woke it from a task (an interrupt only came in on a call it has no
 * part in); NULL for an interrupt, no waker, or one not in @rec.
 */
const struct ng_rec_thread *ng_recording_waker(const struct ng_recording *rec,
					       const struct ng_sched_span *sp);
#define NG_REPLAY_TRIGGER_MARK	"<== trigger"
/* Depths past this keep its indentation and show their depth: "[N] func();". */
#define NG_REPLAY_MAX_INDENT	50

/* ---- per-function statistics for "nanograph report" (analyze.c) ------- */

struct ng_func_stats {
	const char *label;	/* "func" or "func [module]" */
	uint64_t calls;
	uint64_t total_ns;	/* inclusive: each call's end - start, summed */
	uint64_t self_ns;	/* total minus its direct children's totals */
	uint64_t avg_ns;	/* total / calls, rounded down */
	uint64_t max_ns;	/* the longest single call, inclusive */
	/*
	 * Of total_ns, the time on a CPU and off it (runnable or asleep),
	 * from the recording's sched.tsv; all on a CPU without one.
	 */
	uint64_t on_cpu_ns, off_cpu_ns;
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
	NG_SORT_ONCPU,		/* on_cpu_ns */
	NG_SORT_OFFCPU,		/* off_cpu_ns */
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
/*
 * "total", "self", "calls", "avg", "max", "name", "oncpu", "offcpu";
 * -EINVAL for others.
 */
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
 * label is written as '_' so the frames stay apart. A stack keeps at
 * most NG_FOLDED_MAX_DEPTH calls below its comm, as perf's stacks keep
 * 127 (kernel.perf_event_max_stack): what ran deeper is weighed as one
 * frame "[deeper]" after them, so the weights still add up to the time
 * recorded and the output grows with the distinct stacks, not with the
 * square of the depth.
 */
#define NG_FOLDED_MAX_DEPTH	512
#define NG_FOLDED_DEEPER	"[deeper]"
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
