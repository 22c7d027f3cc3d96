/* SPDX-License-Identifier: (GPL-2.0 OR LGPL-2.1) */
/*
 * nanograph_event.h - the event layout, shared by the module and the
 * collector (and nothing else is shared between them).
 *
 * A call is written in one of two ways (trace events; the raw buffers
 * below are a third).  Entry and exit: nanograph:func_entry when the
 * function is entered and nanograph:func_exit when it returns, each with
 * a 16-byte payload:
 *
 *	u64 tsd		counter timestamp (low 56 bits) | depth (high 8 bits)
 *	u64 ip		the function (its ftrace call site) as a kernel address
 *
 * Or one event per call: nanograph:func_call when the function returns,
 * the entry's tsd and ip as above and the exit's counter:
 *
 *	u64 tsd		at entry: counter | depth, as func_entry's
 *	u64 ip
 *	u64 exit	counter timestamp of the return (low 56 bits)
 *
 * and, for the calls that had not returned when recording stopped or
 * when their task was freed (do_exit() never returns), or when the idle
 * task of a CPU going offline dropped them, nanograph:func_open, written
 * by whoever found them (common_pid is not theirs):
 *
 *	u64 tsd		at entry: counter | depth
 *	u64 ip
 *	s32 pid		the task the frame is of (0: an idle task)
 *	s32 cpu		for an idle task, its CPU; otherwise -1
 *
 * A func_open may be followed by the same call's func_call (a call that
 * returned while recording stopped): the func_call wins, matched by pid,
 * depth and entry counter.  The collector's recorder asks for func_call,
 * func_open and clock_sync: half the trace events of entry and exit
 * (Documentation/trace-format.md says how the tree is rebuilt).
 *
 * The counter is the one the clock file names; 56 bits of a GHz counter
 * last over two years before they wrap.  Depth is the number of frames
 * the task had hooked below this one (0 for an outermost call), capped at
 * 255.
 */
#ifndef NANOGRAPH_EVENT_H
#define NANOGRAPH_EVENT_H

#define NG_EVENT_SYSTEM		"nanograph"
#define NG_EVENT_ENTRY		"func_entry"
#define NG_EVENT_EXIT		"func_exit"
#define NG_EVENT_CALL		"func_call"
#define NG_EVENT_OPEN		"func_open"
/*
 * nanograph:clock_sync carries the clock file's (counter, CLOCK_MONOTONIC
 * ns) pair and the counter frequency, written when recording starts and
 * stops; fields counter, mono_ns, freq, uncertainty (all u64).
 */
#define NG_EVENT_CLOCK		"clock_sync"
/*
 * options/sched in the events mode: a traced task left a CPU (sched_out:
 * fields pid, state, preempted, counter), got one back (sched_in: pid,
 * counter), or was woken (sched_wake: pid the woken task, ctx one of
 * NG_RAW_CTX_* or 0 for a task, ip the hooked function the waker was in
 * or 0, counter); the writer of sched_wake is the waker.  counter is
 * the function events' ts, low 56 bits.
 */
#define NG_EVENT_SCHED_OUT	"sched_out"
#define NG_EVENT_SCHED_IN	"sched_in"
#define NG_EVENT_SCHED_WAKE	"sched_wake"
/* And sched_migrate: pid moves from CPU orig_cpu to dest_cpu (counter). */
#define NG_EVENT_SCHED_MIGRATE	"sched_migrate"
/*
 * options/counters in the events mode: after a call's func_call (and
 * func_exit), when its task's counts changed: func_counters, fields tsd
 * (the exit's counter and the call's depth), ip, and the changes
 * minflt, majflt, nvcsw, nivcsw (whole, not saturated as in the raw
 * record).
 */
#define NG_EVENT_COUNTERS	"func_counters"
/*
 * options/args and options/retaddr in the events mode: after a call's
 * func_entry (and whether or not func_entry is enabled), func_args,
 * fields tsd (the entry's counter and the call's depth), ip, site (the
 * address the call returns to; 0: options/retaddr off), nargs (argument
 * registers recorded, options/args) and args (an array of six unsigned
 * longs, the first nargs meaningful).  options/retval: after a call's
 * func_call (and func_exit), func_retval, fields tsd (the exit's counter
 * and the depth), ip and retval (u64: the return register; on 32-bit
 * arm r1:r0, the high word meaningful for 64-bit returns only).
 */
#define NG_EVENT_ARGS		"func_args"
#define NG_EVENT_RETVAL		"func_retval"
/* The most argument registers a call records (x86_64, arm64; arm: 4). */
#define NG_ARGS_MAX		6

/*
 * The module <-> collector interface as a number: the control files and
 * what their values mean, the raw records and the events' fields of
 * this header.  Bumped with any change an older collector or module
 * would misread; the module publishes it in /sys/kernel/nanograph/abi
 * and the collector refuses a module with another (ng_ctl_check_abi()).
 * 2: buffer_mode and raw_buffer_size_kb wait for a drain to end instead
 * of EBUSY (a collector puts them back without retrying).
 */
#define NG_ABI			2

#define NG_TSD_DEPTH_SHIFT	56
#define NG_TSD_COUNTER_MASK	((1ULL << NG_TSD_DEPTH_SHIFT) - 1)
#define NG_TSD_DEPTH_MAX	255

/* Pack a counter value and a depth into one tsd word. */
static inline unsigned long long ng_tsd(unsigned long long counter,
					unsigned int depth)
{
	if (depth > NG_TSD_DEPTH_MAX)
		depth = NG_TSD_DEPTH_MAX;
	return (counter & NG_TSD_COUNTER_MASK) |
	       ((unsigned long long)depth << NG_TSD_DEPTH_SHIFT);
}

/* @a is earlier than @b, as counters of 56 bits that may have wrapped. */
static inline int ng_counter_before(unsigned long long a, unsigned long long b)
{
	return ((a - b) & NG_TSD_COUNTER_MASK) >> (NG_TSD_DEPTH_SHIFT - 1);
}

/*
 * Raw buffer mode (buffer_mode "raw"): the module writes 16-byte records
 * into per-CPU buffers of its own, read as /sys/kernel/nanograph/per_cpu/
 * cpuN/raw, instead of trace events into the ftrace ring buffer.  Each
 * record is two native-endian 64-bit words, { tsd, ip }:
 *
 *	func_entry	tsd as above (depth at most NG_RAW_DEPTH_MAX)
 *	func_exit	the same with NG_RAW_EXIT set
 *	task		tsd == NG_RAW_META | NG_RAW_TASK,
 *			ip == tgid << 32 | pid: the task the following
 *			records of this CPU belong to (written whenever it
 *			changes, and after records were dropped)
 *	comm		tsd == NG_RAW_META | NG_RAW_COMM, ip == counter,
 *			then one record holding the 16 bytes of the task's
 *			name (NUL-padded, as the kernel keeps it): the name
 *			of the last task record's task at that counter.
 *			Written after every task record, which is also
 *			written again when the task's name changes (exec,
 *			PR_SET_NAME)
 *	clock		tsd == NG_RAW_META | NG_RAW_CLOCK, ip == counter,
 *			then one record { mono_ns, freq }: clock_sync
 *
 * With options/sched on, scheduling records of tasks inside a hooked
 * call, each one record, the kind in the low byte of tsd and its
 * argument above it (a reader skips a meta kind it does not know, so a
 * new kind must never be followed by a payload record):
 *
 *	switch_out	tsd == NG_RAW_META | NG_RAW_SWITCH_OUT |
 *			state << NG_RAW_ARG_SHIFT, ip == counter: the last
 *			task record's task left the CPU.  state: its
 *			__state then (low 16 bits), NG_RAW_PREEMPTED set if
 *			it was preempted; runnable if either says so
 *			(state 0: it yielded), else asleep
 *	switch_in	tsd == NG_RAW_META | NG_RAW_SWITCH_IN, ip == counter:
 *			the last task record's task got the CPU
 *	wake		tsd == NG_RAW_META | NG_RAW_WAKE |
 *			tid << NG_RAW_ARG_SHIFT | ctx << NG_RAW_WAKE_CTX_SHIFT,
 *			ip == counter: the last task record's task woke
 *			thread tid, or an interrupt on its CPU did (ctx:
 *			NG_RAW_CTX_*; 0 in task context)
 *	migrate		tsd == NG_RAW_META | NG_RAW_MIGRATE |
 *			(tid | from << NG_RAW_TID_BITS |
 *			to << (NG_RAW_TID_BITS + NG_RAW_CPU_BITS))
 *			<< NG_RAW_ARG_SHIFT, ip == counter: the last task
 *			record's task, or an interrupt on its CPU, moves
 *			thread tid from CPU from to CPU to
 *
 * With options/counters on, after the exit of a call during which its
 * task's fault or context-switch counts changed, one record:
 *
 *	counters	tsd == NG_RAW_META | NG_RAW_COUNTERS |
 *			depth << NG_RAW_ARG_SHIFT, ip == the changes of
 *			the task's min_flt, maj_flt, nvcsw and nivcsw over
 *			the call, 16 bits each from the low end (each
 *			saturated at 65535): the call of the last task record's
 *			task whose exit at that depth came last on this CPU
 *			(an interrupt's calls may come in between, deeper)
 *
 * With options/args or options/retaddr on, after a call's entry record
 * and in the same reservation (nothing comes between), a site record
 * and one record per argument register; with options/retval on, after
 * its exit record, a return value record.  Each is one record whose
 * tsd holds the call's depth (as the entry's or exit's) in the
 * argument, so that a reader that meets one without its entry or exit
 * (a flight window's first records) knows whose it is not:
 *
 *	site		tsd == NG_RAW_META | NG_RAW_SITE |
 *			depth << NG_RAW_ARG_SHIFT, ip == the address the
 *			call returns to (options/retaddr; no record when off,
 *			0 when not known)
 *	arg		tsd == NG_RAW_META | NG_RAW_ARG |
 *			(depth | n << 8) << NG_RAW_ARG_SHIFT, ip == argument
 *			register n (from 0) at entry, zero-extended
 *	retval		tsd == NG_RAW_META | NG_RAW_RETVAL |
 *			depth << NG_RAW_ARG_SHIFT, ip == the return
 *			register (on 32-bit arm r1 << 32 | r0: the kernel is
 *			little-endian there)
 *
 * One value per record, never a payload record: a register holds any
 * value, one that could read as a task record to whoever looks for one
 * (a flight window's start).
 *
 * A CPU's records are in the order they were written; CPUs are merged by
 * counter.
 */
#define NG_RAW_RECORD_SIZE	16
#define NG_RAW_EXIT		(0x80ULL << NG_TSD_DEPTH_SHIFT)
#define NG_RAW_DEPTH_MAX	126
#define NG_RAW_META		(127ULL << NG_TSD_DEPTH_SHIFT)
#define NG_RAW_TASK		1ULL
#define NG_RAW_CLOCK		2ULL
#define NG_RAW_COMM		3ULL
#define NG_RAW_SWITCH_OUT	4ULL
#define NG_RAW_SWITCH_IN	5ULL
#define NG_RAW_WAKE		6ULL
#define NG_RAW_COUNTERS		7ULL
#define NG_RAW_MIGRATE		8ULL
#define NG_RAW_SITE		9ULL
#define NG_RAW_ARG		10ULL
#define NG_RAW_RETVAL		11ULL
#define NG_RAW_TID_BITS		22	/* a tid in a migrate record (PID_MAX_LIMIT) */
#define NG_RAW_CPU_BITS		13	/* a CPU number in it (NR_CPUS up to 8192) */
/* A counters record's changes: lane i of its ip, NG_COUNT_* order. */
#define NG_COUNT_MINFLT		0
#define NG_COUNT_MAJFLT		1
#define NG_COUNT_NVCSW		2
#define NG_COUNT_NIVCSW		3
#define NG_COUNTS		4
#define NG_COUNT_BITS		16
#define NG_COUNT_SATURATED	0xffffU	/* a lane's "65535 or more" */
#define NG_COUNT_LANE(v, i)	(((v) >> (NG_COUNT_BITS * (i))) & 0xffffULL)
#define NG_RAW_IS_META(tsd)	(((tsd) & ~NG_TSD_COUNTER_MASK) == NG_RAW_META)
/* A meta record's kind and argument (tsd's low 56 bits). */
#define NG_RAW_KIND(tsd)	((tsd) & 0xffULL)
#define NG_RAW_ARG_SHIFT	8
/* In tsd itself, above the state's 16 bits (which are in the argument). */
#define NG_RAW_PREEMPTED	0x1000000ULL
#define NG_RAW_STATE_MASK	0xffffULL
#define NG_RAW_WAKE_CTX_SHIFT	40
#define NG_RAW_CTX_HARDIRQ	1ULL
#define NG_RAW_CTX_SOFTIRQ	2ULL
#define NG_RAW_CTX_NMI		4ULL	/* not written: no wakeup from NMI */

/* Macros, not functions: TP_printk's format is read by libtraceevent. */
#define NG_TSD_COUNTER(tsd)	((tsd) & NG_TSD_COUNTER_MASK)
#define NG_TSD_DEPTH(tsd)	((unsigned int)((tsd) >> NG_TSD_DEPTH_SHIFT))

#endif /* NANOGRAPH_EVENT_H */
