/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * libnanograph: the collector library of nanograph.
 *
 * The library knows nothing of the command line. Every function that can
 * fail returns 0 (or a count) on success and a negative errno on failure;
 * none prints anything. The library is LGPL-2.1 like libtracefs, which it
 * uses; the nanograph command and the tests are GPL-2.0.
 */
#ifndef NANOGRAPH_H
#define NANOGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "nanograph_event.h"

#define NANOGRAPH_VERSION	"0.1.0"

/* ---- numbers (num.c) -------------------------------------------------- */

/*
 * Parse @s as a decimal number in [@min, @max]: digits only, and with
 * @decimals > 0 optionally a '.' and at most @decimals digits after it,
 * the result scaled by 10^@decimals ("1.5" with 3 decimals is 1500). No
 * sign, space, exponent, hex or trailing text. Returns 0, -EINVAL for
 * anything else, -ERANGE for a number outside the range (or 64 bits);
 * *@val is set only on success.
 */
int ng_parse_num(const char *s, unsigned int decimals, uint64_t min,
		 uint64_t max, uint64_t *val);
/*
 * The @n numbers after @key on the first line of @text that starts with
 * @key and a blank ("total 1 2 3 4", "Tgid:\t412"; an empty @key: a line
 * that starts with the numbers), blank-separated, each through
 * ng_parse_num() in [@min, @max]; the rest of the line is not read.
 * Returns 0, -ENOENT when no line starts so, or ng_parse_num()'s error.
 */
int ng_parse_line_nums(const char *text, const char *key, uint64_t min,
		       uint64_t max, uint64_t *vals, int n);
/* @ns in human units ("1.234 us", truncated), or the integer with @raw. */
const char *ng_fmt_time(char *buf, size_t size, uint64_t ns, bool raw);

/* ---- names as terminal text (escape.c) -------------------------------- */

/*
 * Write @s to @fp with each control byte (below 0x20, and 0x7f) as
 * "\xNN": names come from files and go to terminals.
 */
void ng_fputs_escaped(const char *s, FILE *fp);

/* ---- control directory of the module (ctl.c) -------------------------- */

/* Where the module puts its control files, and the variable that moves it. */
#define NG_CTL_DEFAULT_ROOT	"/sys/kernel/nanograph"
#define NG_CTL_ENV		"NANOGRAPH_SYSFS"
/* Largest control file ng_ctl_read() accepts before giving up with -EFBIG. */
#define NG_CTL_MAX_READ		(64UL << 20)

struct ng_ctl {
	char root[4096];
};

/*
 * Point @ctl at @root; with @root NULL, at $NANOGRAPH_SYSFS if set and not
 * empty, else at NG_CTL_DEFAULT_ROOT. The directory need not exist yet.
 * Returns 0, or -ENAMETOOLONG.
 */
int ng_ctl_init(struct ng_ctl *ctl, const char *root);
const char *ng_ctl_root(const struct ng_ctl *ctl);
/* True when the control directory exists, i.e. the module is loaded. */
bool ng_ctl_available(const struct ng_ctl *ctl);
/*
 * Is the module's interface this collector's (its abi file holds
 * NG_ABI)?  0 if so; -EPROTO if it holds another number, which goes to
 * *@abi; -ENOENT when there is no abi file (a module older than the
 * file); another -errno when it cannot be read or holds no number.
 */
int ng_ctl_check_abi(const struct ng_ctl *ctl, unsigned int *abi);
/*
 * Read control file @name whole into a malloc'd, NUL-terminated buffer.
 * *@bufp is the caller's to free(); *@lenp (may be NULL) gets its length.
 */
int ng_ctl_read(const struct ng_ctl *ctl, const char *name, char **bufp,
		size_t *lenp);
/* Replace (">") or add to (">>") the content of control file @name. */
int ng_ctl_write(const struct ng_ctl *ctl, const char *name, const char *val);
int ng_ctl_append(const struct ng_ctl *ctl, const char *name, const char *val);
/*
 * Names of the regular files in the control directory, sorted. Returns
 * their count and a malloc'd array in *@namesp; free with ng_ctl_list_free().
 */
int ng_ctl_list(const struct ng_ctl *ctl, char ***namesp);
void ng_ctl_list_free(char **names, int count);

/* The totals of the module's stats file, and its live frames. */
struct ng_ctl_stats {
	uint64_t entries, exits, dropped, skipped;
	uint64_t live_frames;
	/* the flight recorder's: records overwritten, and left out when frozen */
	uint64_t overwritten, frozen_dropped;
};

/* Read and parse the stats file; -EBADMSG when it has no totals line. */
int ng_ctl_stats(const struct ng_ctl *ctl, struct ng_ctl_stats *st);

/*
 * Read control file @name as writing it back takes it: a choice file
 * ("[events] raw") as its bracketed word ("events"). Free *@valp.
 */
int ng_ctl_read_setting(const struct ng_ctl *ctl, const char *name,
			char **valp);

/*
 * Point the pid filter at the tasks to record, recording being off:
 *  - @pid > 0: the threads process @pid has now (set_event_pid), and
 *    with options/event-fork 1 the children they fork from then on;
 *    set_event_notrace_pid empty;
 *  - @pid 0: every task but the calling process (the collector):
 *    set_event_pid empty (every task, those started later too),
 *    set_event_notrace_pid every thread the caller has now,
 *    options/event-fork 0, so that the list is exactly those threads.
 * Each thread is its own write of "TID\n" appended to the list. Returns 0
 * or -errno; on failure *@file names the control file that could not be
 * written, or is NULL when /proc/PID/task could not be read (-ENOENT: no
 * such process).
 */
int ng_ctl_select_tasks(const struct ng_ctl *ctl, int pid, const char **file);
/*
 * Add every thread of process @pid to set_event_pid, one a write (ENOENT:
 * no such process); *@file as for ng_ctl_select_tasks().
 */
int ng_ctl_admit_process(const struct ng_ctl *ctl, int pid, const char **file);

/* ---- a recording session (session.c) ----------------------------------- */

/*
 * Every change a recording makes to the control files goes through its
 * session, which reads each file before its first change and writes
 * them all back, the last changed first, at ng_session_undo() (or
 * ng_session_free()), whichever way the recording ends.  Apply in the
 * order the module needs (the buffers before tracing_on=1, the triggers
 * before the flight arm): the reverse is then the order it needs to
 * undo them.  tracing_on and flight are put back at rest ("0", "off"),
 * not as read; buffer_mode and raw_buffer_size_kb after tracing_on=0,
 * the module's write waiting for its drain to end.  Each returns 0 or a
 * -errno and never prints.
 */
struct ng_session;

int ng_session_new(struct ng_session **sp, const struct ng_ctl *ctl);
const struct ng_ctl *ng_session_ctl(const struct ng_session *s);
/* Remember @name's value to put back, without changing it (yet). */
int ng_session_keep(struct ng_session *s, const char *name);
/*
 * Where @s stands; ng_session_forget_to() lets the files kept since go
 * without writing them back (read, not yet changed: a read that failed
 * part-way leaves the module untouched).
 */
const void *ng_session_mark(const struct ng_session *s);
void ng_session_forget_to(struct ng_session *s, const void *mark);
/* ng_ctl_write() and ng_ctl_append(), @name kept first. */
int ng_session_set(struct ng_session *s, const char *name, const char *val);
int ng_session_append(struct ng_session *s, const char *name,
		      const char *val);
/* ng_ctl_select_tasks() and ng_ctl_admit_process(), their files kept first. */
int ng_session_select_tasks(struct ng_session *s, int pid, const char **file);
int ng_session_admit_process(struct ng_session *s, int pid, const char **file);
/* Every change undone, the last first; the first error after trying all. */
int ng_session_undo(struct ng_session *s);
/* ng_session_undo(), then free; NULL is nothing. */
void ng_session_free(struct ng_session *s);

/* ---- the flight recorder's texts (flight.c) ---------------------------- */

/* A trigger's function name, and the module's limits. */
#define NG_TRIGGER_FUNC_MAX	128
#define NG_TRIGGER_MAX_NS	(3600ULL * 1000000000ULL)
#define NG_TRIGGER_MAX		8

/* Which time a duration trigger compares ("FUNC:oncpu>", "FUNC:blocked>"). */
enum ng_trigger_clock {
	NG_TRIGGER_WALL,	/* the call's duration */
	NG_TRIGGER_ONCPU,	/* its time on a CPU */
	NG_TRIGGER_BLOCKED,	/* its time asleep until woken */
};

/*
 * One line of the module's trigger file: a call of @func lasting @ns or
 * more (by @clock), or (@on_value) returning a value that compares with
 * @value by @op ("<", "<=", ">", ">=", "=", "!=") as a C int.
 */
struct ng_trigger {
	char func[NG_TRIGGER_FUNC_MAX];
	uint64_t ns;
	enum ng_trigger_clock clock;
	bool on_value;
	char op[3];
	int value;
};

/*
 * Parse a trigger as the module's trigger file takes it: FUNC a name
 * without blanks, colons or glob characters (*?[]!), then ">DURATION"
 * (or ":oncpu>DURATION", ":blocked>DURATION": the call's time on a CPU,
 * or asleep), digits with an optional unit ns, us, ms or s (nanoseconds
 * without one), from 1 ns to 3600 s; or "=OPVALUE", VALUE a decimal or 0x hex number with
 * an optional '-' (no leading 0) or -ENAME, one of the errno names the
 * module knows ("vfs_read=<0", "kmalloc==-ENOMEM"). 0, -EINVAL for bad
 * syntax or an unknown name, -ERANGE for a duration out of range or a
 * value outside a C int; *@t is set only on success.
 */
int ng_trigger_parse(const char *s, struct ng_trigger *t);
/* The line to write to the trigger file (values as decimal numbers). */
int ng_trigger_format(const struct ng_trigger *t, char *buf, size_t size);

enum ng_flight_state_kind {
	NG_FLIGHT_OFF,
	NG_FLIGHT_ARMED,
	NG_FLIGHT_TRIGGERED,
	NG_FLIGHT_FROZEN,
};

/* The call that fired a trigger, as the flight file gives it. */
struct ng_flight_hit {
	char func[NG_TRIGGER_FUNC_MAX];
	uint64_t duration_ns;
	int cpu;
	int tid;
	uint64_t exit_counter;	/* its exit record's counter value */
	bool has_value;		/* a return-value trigger fired: */
	int value;		/* what the call returned */
};

struct ng_flight_state {
	enum ng_flight_state_kind state;
	bool has_hit;		/* triggered, or frozen after a hit */
	struct ng_flight_hit hit;
};

/*
 * Parse the flight file: "off", "armed", "frozen", or "triggered" or
 * "frozen" followed by "FUNC DURATION_NS CPU PID EXIT_COUNTER", and the
 * value returned when a return-value trigger fired. 0 or -EINVAL.
 */
int ng_flight_parse(const char *text, struct ng_flight_state *st);
/*
 * Where a snapshot's window starts (CLOCK_MONOTONIC ns): @window_ns
 * before the triggering call's exit at @exit_ns, but never after its
 * entry (@duration_ns before the exit, and a microsecond for rounding),
 * so that the call is whole.
 * 0 (everything) for no window (@window_ns 0).
 */
uint64_t ng_flight_window_from(uint64_t exit_ns, uint64_t duration_ns,
			       uint64_t window_ns);
/*
 * The raw buffer per CPU, in KiB, that makes @total_mb MiB over @nr_cpus
 * CPUs: the share rounded up to a power of two (the module rounds so
 * too), at least 4. @total_mb at most 2^40 (no overflow).
 */
uint64_t ng_flight_buffer_kb(uint64_t total_mb, unsigned int nr_cpus);

/* ---- tracefs (tracefs.c) ----------------------------------------------- */

/*
 * Find the mounted tracefs through libtracefs. *@dirp gets a string owned
 * by libtracefs. Returns 0, or -ENODEV when tracefs is not mounted; never
 * mounts it.
 */
int ng_tracefs_find(const char **dirp);

struct tep_handle;
/*
 * A new tep handle with the top-level tracefs's page header and the
 * formats of @system's events only (no kallsyms, printk formats or
 * cmdlines). Returns 0, -ENOENT when the system has no events, -errno.
 */
int ng_tracefs_events_tep(const char *system, struct tep_handle **tepp);

/* ---- an output file written whole or not at all (outfile.c) ------------ */

struct ng_output;

/*
 * Write @path through a stream that goes to a temporary name next to it
 * (".NAME.XXXXXX", made with O_EXCL), renamed to @path by ng_output_commit(): @path only ever
 * holds a whole file, and an earlier one stays as it was on failure.
 */
int ng_output_open(struct ng_output **op, const char *path);
FILE *ng_output_fp(const struct ng_output *o);
/* Flush, close and rename into place; 0 or the first write error. Frees @o. */
int ng_output_commit(struct ng_output *o);
/* Remove the temporary file; frees @o. */
void ng_output_abort(struct ng_output *o);
/*
 * Remove the temporary files of the outputs being written (the first 16
 * open at once; a recording's thread files go with its directory).
 * Async-signal-safe: for a handler of a fatal signal.
 */
void ng_output_remove_temporaries(void);

/* ---- a recording's directory (outdir.c) -------------------------------- */

struct ng_outdir;

/*
 * Prepare to write a recording that replaces @dir whole or not at all:
 * the files go to a new directory next to @dir (ng_outdir_path()), which
 * ng_outdir_commit() swaps in, keeping the earlier recording as @dir.old;
 * ng_outdir_abort() removes it, leaving @dir as it was. @dir may be
 * absent, an empty directory or a recording (a directory holding
 * threads.tsv); anything else is refused before anything is created:
 * -ENOTEMPTY (a directory of other files), -ENOTDIR (not a directory),
 * -EEXIST (@dir.old is neither absent, empty nor a recording), -EINVAL
 * ("." or ".." or "/"), or -errno.
 */
int ng_outdir_open(struct ng_outdir **op, const char *dir);
/* Where to write: the new directory. */
const char *ng_outdir_path(const struct ng_outdir *o);
/*
 * Swap the new recording in: @dir's earlier recording becomes @dir.old
 * (replacing an older one), in one exchange where the filesystem allows.
 * On error the new directory is removed. Always frees @o.
 */
int ng_outdir_commit(struct ng_outdir *o);
/* Remove the new directory and what it holds; @dir is left as it was. */
void ng_outdir_abort(struct ng_outdir *o);

/* ---- push/pop output (pushpop.c, threads.c) ---------------------------- */

/* What a push/pop writer did, including how often it had to fix its input. */
struct ng_pp_stats {
	uint64_t pushes;	/* push lines written */
	uint64_t pops;		/* pop lines written, closed_at_end included */
	uint64_t max_depth;	/* deepest nesting seen */
	uint64_t clamped;	/* timestamps raised to the previous one */
	uint64_t closed_at_end;	/* frames still open at close, popped there */
	uint64_t dropped_pops;	/* pops with no open frame, not written */
};

struct ng_pp_writer;

/*
 * Start DIR/<tid>.txt. Lines go to DIR/.<tid>.txt.XXXXXX, which is renamed to
 * the final name by ng_pp_close(), so the final name only ever holds a
 * whole file.
 */
int ng_pp_open(struct ng_pp_writer **wp, const char *dir, pid_t tid);
/* The same with any file name (no '/'), e.g. "0-1.txt" for CPU 1's idle. */
int ng_pp_open_name(struct ng_pp_writer **wp, const char *dir,
		    const char *name);
/*
 * Write a push of @func at @ns; @module is NULL for the core kernel.
 * Returns -EINVAL (and writes nothing) for an empty name or one holding
 * a newline.
 */
int ng_pp_push(struct ng_pp_writer *w, uint64_t ns, const char *func,
	       const char *module);
/* Write a pop at @ns; a pop with no open frame is dropped and counted. */
int ng_pp_pop(struct ng_pp_writer *w, uint64_t ns);
/*
 * Close the writer's file descriptor, keeping its file (and its place):
 * for a program that writes more files than it may hold open. The next
 * push, pop or close reopens it for appending. 0, or the writer's first
 * error.
 */
int ng_pp_park(struct ng_pp_writer *w);
/* Reopen a parked writer's file now (nothing if open): 0 or -errno. */
int ng_pp_unpark(struct ng_pp_writer *w);
uint64_t ng_pp_depth(const struct ng_pp_writer *w);
/*
 * Pop the frames still open at the last timestamp, then publish the file.
 * Always frees @w. *@stats (may be NULL) gets the counts even on error; on
 * error the temporary file is removed and the final name never appears.
 */
int ng_pp_close(struct ng_pp_writer *w, struct ng_pp_stats *stats);
/* Drop the file being written: remove the temporary name, free @w. */
void ng_pp_abort(struct ng_pp_writer *w);

struct ng_threads_writer;

/* DIR/threads.tsv: header "tid\tpid\tcomm", then one row per thread. */
int ng_threads_open(struct ng_threads_writer **wp, const char *dir);
/* Control characters in @comm (tab, newline, ...) are written as '?'. */
int ng_threads_add(struct ng_threads_writer *w, pid_t tid, pid_t pid,
		   const char *comm);
/* A row whose tid column is text: "0-<cpu>" for a CPU's idle task. */
int ng_threads_add_row(struct ng_threads_writer *w, const char *tid, pid_t pid,
		       const char *comm);
int ng_threads_close(struct ng_threads_writer *w);
void ng_threads_abort(struct ng_threads_writer *w);

/* ---- push/pop format checker (pushpop_check.c) ------------------------- */

enum ng_pp_error {
	NG_PP_OK = 0,
	NG_PP_ESYNTAX,		/* line is not <ns>:POP or <ns>:+<label> */
	NG_PP_ETIME,		/* timestamp lower than the previous line's */
	NG_PP_EUNDERFLOW,	/* POP with no open frame */
	NG_PP_EUNBALANCED,	/* frames still open at end of file */
};

struct ng_pp_check {
	uint64_t lines;
	uint64_t pushes;
	uint64_t pops;
	uint64_t depth;		/* open frames after the last line */
	uint64_t max_depth;
	uint64_t first_ns;	/* valid when pushes + pops > 0 */
	uint64_t last_ns;
	enum ng_pp_error error;	/* first error found, NG_PP_OK if none */
	uint64_t error_line;	/* 1-based line of that error */
	char error_msg[160];
};

/*
 * Check @len bytes of push/pop text. Fills *@c and returns c->error; the
 * counts cover the whole input even after an error.
 */
int ng_pp_check_buf(const char *buf, size_t len, struct ng_pp_check *c);
/*
 * Check the file at @path the same way. Returns -errno if it cannot be
 * read, else c->error (>= 0).
 */
int ng_pp_check_file(const char *path, struct ng_pp_check *c);
const char *ng_pp_error_name(enum ng_pp_error e);

/* ---- kernel symbols (syms.c) ------------------------------------------- */

/*
 * A table of the kernel's text symbols, read once from a kallsyms listing
 * ("<hex addr> <type> <name>[\t[<module>]]" per line, the format of
 * /proc/kallsyms), so that each traced address is resolved with one
 * binary search and never a read per event.
 */
struct ng_sym {
	uint64_t addr;
	uint64_t end;		/* first address past its range */
	const char *name;
	const char *module;	/* NULL for the core kernel */
};

struct ng_syms;

/*
 * Parse @len bytes of kallsyms text. Only text symbols (types t, T, w, W)
 * are kept. Returns 0, -ENOENT when there are none, or -EPERM when every
 * address reads as zero (kptr_restrict: not root).
 */
int ng_syms_parse(struct ng_syms **sp, const char *buf, size_t len);
/* Read and parse a kallsyms file; @path NULL means /proc/kallsyms. */
int ng_syms_load(struct ng_syms **sp, const char *path);
/*
 * Bound the symbols of each loaded module by the module's end, from a
 * listing in the format of /proc/modules ("name size refcount deps state
 * 0xaddress ..."); modules with address 0 (not root) are ignored. A
 * module the table has symbols for and the listing lacks (an unloaded
 * one, or [bpf] and [__builtin__ftrace], whose symbols are each their own
 * allocation) then has each symbol bounded to a page. Returns 0 or
 * -ENOENT when the listing names no module with an address.
 */
int ng_syms_set_modules(struct ng_syms *s, const char *buf, size_t len);
/* Read and apply a modules listing; @path NULL means /proc/modules. */
int ng_syms_load_modules(struct ng_syms *s, const char *path);
/*
 * The symbol @addr lies in: the text symbol with the highest address not
 * above @addr, if @addr is below its end; NULL otherwise (below every
 * symbol, or past the end of the one below it: code the listing does not
 * name, such as a module unloaded since). A symbol ends where the next
 * one of its module (or of the core kernel) starts; the last one of the
 * core kernel past its highest data symbol (_end); the last one of a
 * module at the module's end when ng_syms_set_modules() gave it, else
 * where the next symbol starts. The pointer and its strings live as long
 * as @s.
 */
const struct ng_sym *ng_syms_lookup(const struct ng_syms *s, uint64_t addr);
size_t ng_syms_count(const struct ng_syms *s);
void ng_syms_free(struct ng_syms *s);

/* ---- events: decoding (decode.c) and the converter (convert.c, conv_*.c) */

struct tep_record;

enum ng_event_type {
	NG_EV_OTHER = 0,	/* not a nanograph event: ignored */
	NG_EV_ENTRY,		/* nanograph:func_entry */
	NG_EV_EXIT,		/* nanograph:func_exit */
	NG_EV_CLOCK,		/* nanograph:clock_sync */
	NG_EV_CALL,		/* nanograph:func_call: a returned call */
	NG_EV_OPEN,		/* nanograph:func_open: a call not returned */
	NG_EV_SWITCH_OUT,	/* raw switch_out: the task left its CPU */
	NG_EV_SWITCH_IN,	/* raw switch_in: the task got a CPU */
	NG_EV_WAKE,		/* raw wake: the task (or an interrupt) woke @wakee */
	NG_EV_COUNTERS,		/* a call's fault and switch counts changed */
	NG_EV_MIGRATE,		/* the task moves from CPU @from_cpu to @to_cpu */
	NG_EV_ARGS,		/* a call's entry values: @site, @args */
	NG_EV_RETVAL,		/* a call's return register: @retval */
};

/* One decoded event, as the ring buffer held it. */
struct ng_event {
	enum ng_event_type type;
	int cpu;		/* OPEN of an idle task: that idle task's CPU */
	int tid;		/* common_pid: 0 is a CPU's idle task; OPEN:
				 * the frame's task (its pid field) */
	uint64_t ts;		/* ring-buffer timestamp: the merge order */
	uint64_t counter;	/* ENTRY/EXIT: low 56 bits; CLOCK: whole;
				 * CALL/OPEN: the entry's */
	unsigned int depth;	/* frame index on the task's stack */
	uint64_t ip;		/* the function's address */
	uint64_t exit_counter;	/* CALL: the return's counter, low 56 bits */
	uint64_t mono_ns;	/* CLOCK: CLOCK_MONOTONIC at @counter */
	uint64_t freq;		/* CLOCK: counter ticks per second */
	unsigned int state;	/* SWITCH_OUT: the task's __state bits */
	bool runnable;		/* SWITCH_OUT: preempted or yielding, not asleep */
	int wakee;		/* WAKE: the thread woken */
	unsigned int ctx;	/* WAKE: NG_RAW_CTX_* of the waker, 0: the task */
	unsigned int counts[NG_COUNTS];	/* COUNTERS: the changes, NG_COUNT_*
					 * order; @counter is the exit's */
	int from_cpu, to_cpu;	/* MIGRATE */
	uint64_t site;		/* ARGS: where the call returns to; 0: not recorded */
	unsigned int nargs;	/* ARGS: argument registers recorded */
	uint64_t args[NG_ARGS_MAX];	/* ARGS (@counter is the entry's) */
	uint64_t retval;	/* RETVAL (@counter is the exit's) */
};

struct ng_decoder;

/*
 * Look up the nanograph events in @tep (which must stay alive as long as
 * the decoder). Returns -ENOENT when @tep knows neither func_entry and
 * func_exit nor func_call (func_open is read only with func_call), i.e.
 * the recording holds no calls; an event lacking a field it needs counts
 * as absent, except that func_entry and func_exit of different layouts
 * are -EPROTO.
 */
int ng_decoder_new(struct ng_decoder **dp, struct tep_handle *tep);
/* Fill @ev from @rec; type NG_EV_OTHER for any other event. */
void ng_decode(const struct ng_decoder *d, struct tep_record *rec,
	       struct ng_event *ev);
void ng_decoder_free(struct ng_decoder *d);

/* How counter values become CLOCK_MONOTONIC nanoseconds. */
struct ng_clock {
	uint64_t counter;	/* a counter value ... */
	uint64_t mono_ns;	/* ... and CLOCK_MONOTONIC at that moment */
	uint64_t freq;		/* ticks per second; 0: not known */
	char name[32];		/* the clock file's "counter:" ("tsc"); "" if not known */
};

/*
 * Whether @ev is a clock_sync that can convert (a frequency), and if so
 * its pair in *@clock: what the readers look for before converting.
 */
bool ng_clock_from_event(const struct ng_event *ev, struct ng_clock *clock);
/*
 * Parse the module's clock file ("frequency: N", "sync: COUNTER NS", and
 * the counter's name from "counter: NAME" when it is there).
 */
int ng_clock_parse(const char *text, struct ng_clock *clock);
/*
 * Nanoseconds at the event counter value @counter56 (its low 56 bits),
 * taken as the value nearest to the clock's sync counter, so that the
 * 56-bit field may wrap.
 */
uint64_t ng_clock_ns(const struct ng_clock *clock, uint64_t counter56);

/* What a conversion did, for the summary and the tests. */
struct ng_conv_summary {
	uint64_t events;	/* function events converted (not clock_sync) */
	uint64_t entries;	/* from func_call/func_open: those rebuilt */
	uint64_t exits;
	uint64_t ignored;	/* function events of the kind not converted */
	uint64_t threads;	/* push/pop files written */
	uint64_t pushes;	/* push lines written (= pops) */
	uint64_t unmatched_exits; /* exits of calls entered before the recording */
	uint64_t repaired;	/* frames closed because their exit was lost */
	uint64_t closed_at_end;	/* frames open at stop, closed at the end */
	uint64_t clamped;	/* timestamps raised to keep a file nondecreasing */
	uint64_t lost;		/* events the ring buffer reported lost */
	uint64_t unattributed;	/* raw records before their CPU named a task */
	uint64_t outside_window; /* function events before the window (flight) */
	uint64_t unresolved;	/* distinct addresses with no symbol */
	uint64_t sched;		/* scheduling records written to sched.tsv */
	uint64_t wakes;		/* of them, wakes: */
	uint64_t wakes_attributed; /* the waker's hooked call named */
	uint64_t wakes_untraced; /* by a thread that has no file */
	uint64_t wakes_no_call; /* by a traced thread in no hooked call */
	uint64_t counters;	/* calls with counts, lines of counters.tsv */
	uint64_t args;		/* calls with entry values, lines of args.tsv */
	uint64_t retvals;	/* calls with return values, lines of retval.tsv */
	uint64_t bytes;		/* bytes of push/pop text written */
	uint64_t first_ns, last_ns;
	struct ng_clock clock;	/* what the timestamps were converted with */
};

/* Where the converter learns a thread's process and name at the end. */
typedef void (*ng_thread_info_fn)(void *priv, int tid, int *pid,
				  char *comm, size_t size);
/*
 * Names an address instead of the kallsyms table: the function's name, or
 * NULL if unknown; *@module gets its module or NULL. The strings must
 * outlive the converter.
 */
typedef const char *(*ng_sym_resolver_fn)(void *priv, uint64_t addr,
					  const char **module);

struct ng_conv;

/*
 * Write push/pop files into @dir (which must exist) from events fed in
 * ring-buffer order with ng_conv_event(). @syms may be NULL.
 */
int ng_conv_new(struct ng_conv **cp, const char *dir,
		const struct ng_syms *syms);
/*
 * Convert every event with @clock from now on (events held so far too);
 * clock_sync events fed later are ignored. Without it, the first
 * clock_sync fed sets the clock, and the entries and exits before it wait
 * for it, at most NG_CONV_MAX_HELD of them (then -ENODATA): set the
 * recording's first clock_sync, or another clock, before feeding events
 * to keep memory flat (the readers below do).
 */
void ng_conv_set_clock(struct ng_conv *c, const struct ng_clock *clock);
#define NG_CONV_MAX_HELD	65536
void ng_conv_set_thread_info(struct ng_conv *c, ng_thread_info_fn fn,
			     void *priv);
/*
 * Leave out the function events before @from_ns (CLOCK_MONOTONIC, as
 * converted), counting them in outside_window: a flight snapshot's
 * window. Exits of calls entered before it count as unmatched_exits.
 * 0: keep everything (the default).
 */
void ng_conv_set_window(struct ng_conv *c, uint64_t from_ns);
void ng_conv_set_resolver(struct ng_conv *c, ng_sym_resolver_fn fn,
			  void *priv);

/* A way to stop a long conversion: @fn(@priv) returns true to stop. */
struct ng_cancel {
	bool (*fn)(void *priv);
	void *priv;
};

/*
 * Ask @cancel (copied; NULL: never) every few thousand events, and
 * between files at the end: once it says stop, the conversion fails with
 * -ECANCELED, as any error, and leaves nothing under a final name. For a
 * program that must stay interruptible (a second Ctrl-C).
 */
void ng_conv_set_cancel(struct ng_conv *c, const struct ng_cancel *cancel);
/* -ECANCELED (and it sticks) if the cancel function says stop, else 0. */
int ng_conv_check_cancel(struct ng_conv *c);
/*
 * The first pass of a reader of a whole recording: hand it the events in
 * order until it returns 1, at the first clock_sync, which is then the
 * converter's clock (ng_conv_set_clock()); 0: go on; -ECANCELED if the
 * cancel function said stop. Nothing is converted or counted.
 */
int ng_conv_scan(struct ng_conv *c, const struct ng_event *ev);
/*
 * Feed one event; the first error sticks and is returned by finish.
 * -ENODATA: no clock yet after NG_CONV_MAX_HELD function events.
 * A recording holds calls either as entries and exits or as func_call
 * and func_open; one holding both (nanograph:* enabled) would have each
 * call twice, so the first function event fed decides which kind is
 * converted, and events of the other kind are only counted (ignored).
 */
int ng_conv_event(struct ng_conv *c, const struct ng_event *ev);
/* @n events were lost on @cpu (n < 0: an unknown number). */
void ng_conv_lost(struct ng_conv *c, int cpu, long long n);
/* @n raw records named no task (their CPU's task record was not read). */
void ng_conv_unattributed(struct ng_conv *c, uint64_t n);
/*
 * Close every thread's file at its last timestamp, write threads.tsv and
 * publish everything. On error nothing is left under a final name. Always
 * frees @c; *@sum (may be NULL) is filled either way.
 */
int ng_conv_finish(struct ng_conv *c, struct ng_conv_summary *sum);
/* Give up: remove every file written so far, free @c. */
void ng_conv_abort(struct ng_conv *c);

/* ---- the types of recorded functions: DIR/protos.tsv (btf.c) ---------- */

/* The longest C type name protos.tsv keeps ("struct file *"). */
#define NG_TYPE_NAME_MAX	128

struct ng_protos_stats {
	size_t typed;		/* functions whose prototype was written */
	size_t untyped;		/* functions the BTF does not have */
};

/*
 * Write DIR/protos.tsv (Documentation/trace-format.md): the prototype of
 * every function of DIR's args.tsv and retval.tsv, from the running
 * kernel's BTF and its modules' (@btf_file NULL) or from the BTF file
 * @btf_file (no module's then).  0, -ENOENT when there is no BTF, or
 * -errno; nothing is written on an error.
 */
int ng_protos_write(const char *dir, const char *btf_file,
		    struct ng_protos_stats *st);

/* ---- trace.dat input (tdat.c) ------------------------------------------ */

/*
 * Convert a trace-cmd recording (trace.dat, read with libtracecmd) into
 * push/pop files in @dir, timestamps by @clock when not NULL, else by
 * the file's first clock_sync (-ENODATA if it has none). -ENOENT if it
 * holds no nanograph events, -EBADMSG if libtracecmd cannot read it
 * (malformed or truncated), -ECANCELED if @cancel (may be NULL) said
 * stop.
 */
int ng_tdat_convert(const char *path, const char *dir,
		    const struct ng_syms *syms, const struct ng_clock *clock,
		    const struct ng_cancel *cancel,
		    struct ng_conv_summary *sum);

/* ---- recording: the events or the raw buffers (record.c) -------------- */

struct ng_rec_opts {
	const char *instance;	/* tracefs instance; NULL: "nanograph" */
	unsigned int buffer_kb;	/* per-CPU buffer size; 0: the instance's */
	const char *raw_dir;	/* existing directory for the spill files;
				 * raw mode: NULL for none yet (ng_rec_spill_to()) */
	/*
	 * Read the module's raw buffers (buffer_mode "raw", set by the
	 * caller) from @ctl_root's per_cpu/cpuN/raw instead of trace events
	 * from a tracefs instance; @instance is then unused.
	 */
	bool raw;
	const char *ctl_root;	/* NULL: the default control directory */
};

struct ng_recorder;

/*
 * Events mode: create (or reuse) the instance, make its buffer empty,
 * overwrite off, record-tgid on, and enable the nanograph events in it.
 * Raw mode (@o->raw): open the module's per_cpu/cpuN/raw files and throw
 * away what they hold. Either way, start the module (tracing_on) only
 * after this, so that the first clock record lands here.
 */
int ng_rec_open(struct ng_recorder **rp, const struct ng_rec_opts *o);
/*
 * Move what the buffers hold now to the spill files: 0 or -errno. One
 * call is bounded by the buffers' size per CPU (raw mode: two passes,
 * each bounded so), which can be gigabytes in all: ng_rec_bytes()
 * counts them.
 */
int ng_rec_drain(struct ng_recorder *r);
/*
 * Raw mode: spill to new files in @raw_dir from now on (NULL: none,
 * drains throw away what they read), removing the earlier ones and
 * counting bytes from 0: each flight snapshot gets files of its own,
 * created only once its trigger fired.  0, -EOPNOTSUPP in the events
 * mode, or -errno.
 */
int ng_rec_spill_to(struct ng_recorder *r, const char *raw_dir);
/* Bytes moved to the spill files so far. */
uint64_t ng_rec_bytes(const struct ng_recorder *r);
/*
 * What the kernel could not keep: events mode, the events the ring
 * buffer dropped or overwrote (its per-CPU stats); raw mode, the records
 * the module dropped since the open (stats). 0 or -errno; *@lost 0 then.
 */
int ng_rec_lost(const struct ng_recorder *r, uint64_t *lost);
/*
 * Read the spill files back through the pipeline (lib/source.h): merged
 * by timestamp, every event fed to @conv. 0 or -errno.
 */
int ng_rec_replay(struct ng_recorder *r, struct ng_conv *conv);
/* An ng_thread_info_fn: pass the recorder as its priv. */
void ng_rec_thread_info(void *priv, int tid, int *pid, char *comm,
			size_t size);
/*
 * Let the buffers go and remove the spill files; events mode: disable the
 * events and remove the instance.
 */
void ng_rec_close(struct ng_recorder *r);

/*
 * Merge files of raw-mode records (per_cpu/cpuN/raw content, @fds[i]
 * holding CPU i's, -1 for none) by counter and feed them to @conv; read
 * from the start of each file (src_raw.c). 0 or -errno.
 */
int ng_raw_replay_fds(const int *fds, int nr, struct ng_conv *conv);

/*
 * The same merge, handing each entry, exit and clock event to @fn, which
 * returns 0 to go on, > 0 to stop there (returned), or -errno.
 */
int ng_raw_walk_fds(const int *fds, int nr,
		    int (*fn)(void *priv, const struct ng_event *ev), void *priv);

/* ---- the tracer's own cost per call (calibrate.c) ---------------------- */

/* The tracer's own cost per traced call, measured by record (calibration). */
struct ng_overhead {
	double per_call_ns;	/* all of it: entry hook, return trampoline, both records */
	double inside_ns;	/* the part between a call's two timestamps, which its own duration includes */
	uint64_t calls;		/* calibration calls measured */
	const char *function;	/* the kernel function calibrated on */
};

/*
 * Measure it in the raw mode (the module's buffer_mode): calls of the
 * module's empty calibration target made for a child process (control
 * file "calibrate"), untraced, then hooked and traced; the name hooked in
 * @function (@size bytes), to which @o->function points.  The module
 * must be stopped; its lists and tracing_on are changed through
 * session @s, which puts them back.  0, -ENOENT (a module without the
 * calibration target), -ENOSPC (buffers too small), -EIO (the calls
 * were not recorded whole, or no cost could be told from the noise) or
 * another -errno.
 */
int ng_calibrate(struct ng_session *s, const struct ng_clock *clock,
		 struct ng_overhead *o, char *function, size_t size);

/* ---- a recording's metadata: DIR/info.json (info.c) -------------------- */

/*
 * record and convert write DIR/info.json next to the push/pop files:
 * what was recorded, how, where, and how complete the files are
 * (Documentation/trace-format.md lists its fields). Its "format" is
 * NG_INFO_FORMAT; a reader ignores fields it does not know.
 */
#define NG_INFO_FORMAT		1
#define NG_INFO_FILE		"info.json"
/* A number the collector does not know: written as null. */
#define NG_INFO_UNKNOWN		UINT64_MAX

struct ng_info_settings;

/*
 * Read the module's settings that decide what is recorded: the function
 * filters, max_graph_depth, the pid lists and options/event-fork, as
 * their control files read now (a file that cannot be read is unknown).
 * record reads them once configured, before tracing starts.
 */
int ng_info_read_settings(const struct ng_ctl *ctl,
			  struct ng_info_settings **sp);
void ng_info_settings_free(struct ng_info_settings *s);

/* The call that fired a flight snapshot: info.json's "trigger". */
struct ng_info_trigger {
	const char *function;
	uint64_t duration_ns;
	int cpu;
	int tid;
	uint64_t exit_ns;	/* its return, CLOCK_MONOTONIC as in the files */
	bool has_value;		/* a return-value trigger fired: */
	int value;		/* what the call returned (else null) */
};

/* What ng_info_write() puts in info.json; NULL or NG_INFO_UNKNOWN: null. */
struct ng_info {
	const char *source;		/* "record" or "convert" */
	int argc;			/* the collector's own command line */
	char *const *argv;
	/*
	 * What record recorded: "command" (one it started), "process" (-p)
	 * or "system" (-a: every task but the collector); NULL: not known
	 * (convert).
	 */
	const char *scope;
	int command_argc;		/* the traced command, or 0 */
	char *const *command;
	int pid;			/* the traced process (-p), or 0 */
	const char *input;		/* the trace.dat converted, or NULL */
	/*
	 * The recording ran on this machine: its kernel release, machine
	 * and host name come from uname(). Else they are null.
	 */
	bool this_host;
	const struct timespec *start;	/* wall clock at tracing_on=1 */
	uint64_t duration_ns;		/* from tracing_on=1 to its stop */
	const char *mode;		/* "events", "raw" or "flight" */
	/* flight: the call that fired the snapshot; NULL: null */
	const struct ng_info_trigger *trigger;
	/* raw records the flight recorder overwrote before the window */
	uint64_t overwritten;
	const char *counter;		/* NULL: the name in sum->clock, if any */
	const struct ng_info_settings *settings;	/* NULL: filters null */
	const struct ng_conv_summary *sum;	/* required */
	uint64_t skipped;		/* calls the module skipped (stats) */
	/* the tracer's cost per call, calibrated by record; NULL: null */
	const struct ng_overhead *overhead;
};

/*
 * Write @dir/info.json whole or not at all (a temporary name, then a
 * rename), strings escaped as the exports do: '"', '\\' and control
 * characters as escapes, bytes that are not UTF-8 as \ufffd.
 */
int ng_info_write(const char *dir, const struct ng_info *info);
struct ng_rec_totals;
/*
 * For a recording without info.json: the counts its files give (@t),
 * under info.json's names and in its layout, on @fp ("info --json").
 */
int ng_info_write_totals(FILE *fp, const struct ng_rec_totals *t);

/* The kinds of value a field of info.json holds. */
enum ng_json_type {
	NG_JSON_NULL,
	NG_JSON_BOOL,
	NG_JSON_NUMBER,
	NG_JSON_STRING,
	NG_JSON_EMPTY_ARRAY,
	NG_JSON_EMPTY_OBJECT,
};

/*
 * One value of info.json, flattened: @key is its path ("counts.lost");
 * the elements of an array of values share the array's key, in order,
 * with @element set; an array's object or array elements are "key[i]".
 */
struct ng_info_field {
	const char *key;
	const char *value;	/* a string unescaped (UTF-8), a number, true,
				 * false or null as written; "" if empty */
	enum ng_json_type type;
	bool element;
};

struct ng_info_file;
struct ng_pp_bad;

/* Largest info.json the reader takes; nesting deeper than this is refused. */
#define NG_INFO_MAX_SIZE	(1U << 20)
#define NG_INFO_MAX_DEPTH	32

/*
 * Read and parse @dir/info.json. -ENOENT when there is none, -EFBIG past
 * NG_INFO_MAX_SIZE, -EBADMSG when it is not a JSON object (*@bad, may be
 * NULL, gets the line and why; its file is "info.json"), or -errno.
 */
int ng_info_load(struct ng_info_file **fp, const char *dir,
		 struct ng_pp_bad *bad);
/* Every field, in the order of the file. */
const struct ng_info_field *ng_info_fields(const struct ng_info_file *f,
					   size_t *nr);
/* The file's bytes as read (for --json). */
const char *ng_info_text(const struct ng_info_file *f, size_t *len);
/* The first field of @key, or NULL. */
const struct ng_info_field *ng_info_find(const struct ng_info_file *f,
					 const char *key);
/*
 * The number at @key: 0, -ENOENT when absent, -ENODATA when null,
 * -EINVAL when not a decimal integer of 64 bits.
 */
int ng_info_u64(const struct ng_info_file *f, const char *key, uint64_t *v);
/*
 * Whether @f's counts say calls are missing from the files: events lost,
 * calls the module skipped, calls closed early because their return was
 * lost, calls still running at the end. 1 and what, in words, in @buf
 * ("12 events lost, 3 calls skipped"; cut to @len), else 0.
 */
int ng_info_incomplete(const struct ng_info_file *f, char *buf, size_t len);
void ng_info_file_free(struct ng_info_file *f);
/*
 * The "trigger" of a flight snapshot in @f, @t->function pointing into
 * @f. 0; -ENOENT when absent or null (not a snapshot); -EINVAL when it
 * lacks a function, tid or exit_ns (cpu and duration_ns are then 0 when
 * absent).
 */
int ng_info_trigger(const struct ng_info_file *f, struct ng_info_trigger *t);
/*
 * The tracer's cost per call in @f ("overhead": per_call_ns and
 * inside_ns, calls and function optional), @o->function pointing into
 * @f (NULL if null). 0; -ENOENT when the field is absent or null (a
 * recording made without calibration, or by convert); -EINVAL when it is
 * not an object of such numbers (ng_parse_cost(), inside at most
 * per_call).
 */
int ng_info_overhead(const struct ng_info_file *f, struct ng_overhead *o);
/*
 * The same from @dir/info.json, the function's name copied to @function
 * (@size bytes, cut to fit; "" if null), where @o->function points.
 * -ENOENT also when there is no info.json; -EINVAL also when it is not
 * JSON; or -errno.
 */
int ng_info_read_overhead(const char *dir, struct ng_overhead *o,
			  char *function, size_t size);

/* Reading push/pop directories: report and export (analyze.h). */
#include "nanograph_analyze.h"
/* The Perfetto protobuf export (perfetto.c). */
#include "nanograph_perfetto.h"

#endif /* NANOGRAPH_H */
