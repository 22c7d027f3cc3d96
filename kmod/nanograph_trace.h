/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The nanograph trace events: one on entry to a hooked function, one on
 * its return; or one per returned call carrying its entry, and one per
 * call left open.  The payloads are include/nanograph_event.h's; the
 * printed forms name the function, so trace_pipe is readable:
 *
 *   func_entry: vfs_read depth=0 ts=1234567
 *   func_exit: vfs_read depth=0 ts=1234890
 *   func_call: vfs_read depth=0 ts=1234567 exit=1234890
 *   func_open: pipe_read depth=2 ts=1234567 pid=311 cpu=-1
 *
 * with options/counters, after a call that faulted or was switched out:
 *
 *   func_counters: vfs_read depth=0 ts=1234890 minflt=64 majflt=0 nvcsw=1 nivcsw=0
 *
 * and, with options/sched (kmod/sched.c), a traced task's switches and
 * wakes:
 *
 *   sched_out: pid=311 state=1 ts=1234600
 *   sched_in: pid=311 ts=1299000
 *   sched_wake: pid=311 ctx=task in=pipe_write ts=1298000
 *   sched_migrate: pid=311 orig_cpu=0 dest_cpu=1 ts=1298100
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM nanograph

#if !defined(NG_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define NG_TRACE_H

#include <linux/tracepoint.h>

#include "nanograph_event.h"

DECLARE_EVENT_CLASS(ng_func,
		    TP_PROTO(unsigned long ip, u64 tsd),
		    TP_ARGS(ip, tsd),
		    TP_STRUCT__entry(__field(u64, tsd) __field(unsigned long, ip)),
		    TP_fast_assign(__entry->tsd = tsd; __entry->ip = ip;),
		    TP_printk("%ps depth=%u ts=%llu", (void *)__entry->ip,
			      NG_TSD_DEPTH(__entry->tsd),
			      NG_TSD_COUNTER(__entry->tsd)));

DEFINE_EVENT(ng_func, func_entry,
	     TP_PROTO(unsigned long ip, u64 tsd),
	     TP_ARGS(ip, tsd));

DEFINE_EVENT(ng_func, func_exit,
	     TP_PROTO(unsigned long ip, u64 tsd),
	     TP_ARGS(ip, tsd));

/*
 * A call that returned, written at its return with its entry's counter:
 * one event per call instead of two, half of the trace-event cost.
 */
TRACE_EVENT(func_call,
	    TP_PROTO(unsigned long ip, u64 tsd, u64 exit),
	    TP_ARGS(ip, tsd, exit),
	    TP_STRUCT__entry(__field(u64, tsd) __field(unsigned long, ip)
			     __field(u64, exit)),
	    TP_fast_assign(__entry->tsd = tsd; __entry->ip = ip;
			   __entry->exit = exit;),
	    TP_printk("%ps depth=%u ts=%llu exit=%llu", (void *)__entry->ip,
		      NG_TSD_DEPTH(__entry->tsd), NG_TSD_COUNTER(__entry->tsd),
		      __entry->exit));

/*
 * A call that had not returned when recording stopped or its task was
 * freed, written by whoever found it: @pid is the frame's task.
 */
TRACE_EVENT(func_open,
	    TP_PROTO(unsigned long ip, u64 tsd, int pid, int cpu),
	    TP_ARGS(ip, tsd, pid, cpu),
	    TP_STRUCT__entry(__field(u64, tsd) __field(unsigned long, ip)
			     __field(int, pid) __field(int, cpu)),
	    TP_fast_assign(__entry->tsd = tsd; __entry->ip = ip;
			   __entry->pid = pid; __entry->cpu = cpu;),
	    TP_printk("%ps depth=%u ts=%llu pid=%d cpu=%d", (void *)__entry->ip,
		      NG_TSD_DEPTH(__entry->tsd), NG_TSD_COUNTER(__entry->tsd),
		      __entry->pid, __entry->cpu));

/*
 * The clock file's content as an event, written when recording starts
 * and stops, so that a recording (a trace-cmd trace.dat included) carries
 * what converts its counter values to CLOCK_MONOTONIC nanoseconds.
 */
TRACE_EVENT(clock_sync,
	    TP_PROTO(u64 counter, u64 mono_ns, u64 freq, u64 uncertainty),
	    TP_ARGS(counter, mono_ns, freq, uncertainty),
	    TP_STRUCT__entry(__field(u64, counter) __field(u64, mono_ns)
			     __field(u64, freq) __field(u64, uncertainty)),
	    TP_fast_assign(__entry->counter = counter;
			   __entry->mono_ns = mono_ns;
			   __entry->freq = freq;
			   __entry->uncertainty = uncertainty;),
	    TP_printk("counter=%llu mono_ns=%llu freq=%llu uncertainty=%llu",
		      __entry->counter, __entry->mono_ns, __entry->freq,
		      __entry->uncertainty));

/*
 * options/counters (kmod/counters.c): the call at @tsd's depth of @ip,
 * which returned at @tsd's counter, changed its task's fault and
 * context-switch counts by these; written after its
 * func_call, only when one is not 0.
 */
TRACE_EVENT(func_counters,
	    TP_PROTO(unsigned long ip, u64 tsd, unsigned int minflt,
		     unsigned int majflt, unsigned int nvcsw, unsigned int nivcsw),
	    TP_ARGS(ip, tsd, minflt, majflt, nvcsw, nivcsw),
	    TP_STRUCT__entry(__field(u64, tsd) __field(unsigned long, ip)
			     __field(unsigned int, minflt)
			     __field(unsigned int, majflt)
			     __field(unsigned int, nvcsw)
			     __field(unsigned int, nivcsw)),
	    TP_fast_assign(__entry->tsd = tsd; __entry->ip = ip;
			   __entry->minflt = minflt; __entry->majflt = majflt;
			   __entry->nvcsw = nvcsw; __entry->nivcsw = nivcsw;),
	    TP_printk("%ps depth=%u ts=%llu minflt=%u majflt=%u nvcsw=%u nivcsw=%u",
		      (void *)__entry->ip, NG_TSD_DEPTH(__entry->tsd),
		      NG_TSD_COUNTER(__entry->tsd), __entry->minflt,
		      __entry->majflt, __entry->nvcsw, __entry->nivcsw));

/*
 * options/args, options/retaddr (kmod/values.c): the call at @tsd's
 * depth of @ip, entered at @tsd's counter, returns to @site (0: not
 * recorded) and was given @args, the first @nargs of them recorded;
 * written after its func_entry.
 */
TRACE_EVENT(func_args,
	    TP_PROTO(unsigned long ip, u64 tsd, unsigned long site,
		     unsigned int nargs, const unsigned long *args),
	    TP_ARGS(ip, tsd, site, nargs, args),
	    TP_STRUCT__entry(__field(u64, tsd) __field(unsigned long, ip)
			     __field(unsigned long, site)
			     __field(unsigned int, nargs)
			     __array(unsigned long, args, NG_ARGS_MAX)),
	    TP_fast_assign(__entry->tsd = tsd; __entry->ip = ip;
			   __entry->site = site; __entry->nargs = nargs;
			   memcpy(__entry->args, args, sizeof(__entry->args));),
	    TP_printk("%ps depth=%u ts=%llu site=%pS args=%s", (void *)__entry->ip,
		      NG_TSD_DEPTH(__entry->tsd), NG_TSD_COUNTER(__entry->tsd),
		      (void *)__entry->site,
		      __print_array(__entry->args, __entry->nargs,
				    sizeof(unsigned long))));

/*
 * options/retval: the call at @tsd's depth of @ip, which returned at
 * @tsd's counter, returned @retval; written after its func_call.
 */
TRACE_EVENT(func_retval,
	    TP_PROTO(unsigned long ip, u64 tsd, u64 retval),
	    TP_ARGS(ip, tsd, retval),
	    TP_STRUCT__entry(__field(u64, tsd) __field(unsigned long, ip)
			     __field(u64, retval)),
	    TP_fast_assign(__entry->tsd = tsd; __entry->ip = ip;
			   __entry->retval = retval;),
	    TP_printk("%ps depth=%u ts=%llu retval=%#llx", (void *)__entry->ip,
		      NG_TSD_DEPTH(__entry->tsd), NG_TSD_COUNTER(__entry->tsd),
		      __entry->retval));

/*
 * options/sched: @pid left this CPU (the writer is @pid), asleep in
 * @state, or runnable when @preempted or @state is 0.
 */
TRACE_EVENT(sched_out,
	    TP_PROTO(int pid, unsigned int state, bool preempted, u64 counter),
	    TP_ARGS(pid, state, preempted, counter),
	    TP_STRUCT__entry(__field(u64, counter) __field(int, pid)
			     __field(unsigned int, state)
			     __field(unsigned char, preempted)),
	    TP_fast_assign(__entry->counter = counter; __entry->pid = pid;
			   __entry->state = state;
			   __entry->preempted = preempted;),
	    TP_printk("pid=%d state=%u%s ts=%llu", __entry->pid, __entry->state,
		      __entry->preempted ? " preempted" : "", __entry->counter));

/* @pid got this CPU back (the writer is the task it comes in after). */
TRACE_EVENT(sched_in,
	    TP_PROTO(int pid, u64 counter),
	    TP_ARGS(pid, counter),
	    TP_STRUCT__entry(__field(u64, counter) __field(int, pid)),
	    TP_fast_assign(__entry->counter = counter; __entry->pid = pid;),
	    TP_printk("pid=%d ts=%llu", __entry->pid, __entry->counter));

/*
 * @pid is woken by the writer, or by an interrupt on its CPU (@ctx an
 * NG_RAW_CTX_* value), inside the hooked function at @ip (0: none).
 */
TRACE_EVENT(sched_wake,
	    TP_PROTO(int pid, unsigned int ctx, unsigned long ip, u64 counter),
	    TP_ARGS(pid, ctx, ip, counter),
	    TP_STRUCT__entry(__field(u64, counter) __field(unsigned long, ip)
			     __field(int, pid) __field(unsigned int, ctx)),
	    TP_fast_assign(__entry->counter = counter; __entry->ip = ip;
			   __entry->pid = pid; __entry->ctx = ctx;),
	    TP_printk("pid=%d ctx=%s in=%ps ts=%llu", __entry->pid,
		      __print_symbolic(__entry->ctx, { 0, "task" },
				       { NG_RAW_CTX_HARDIRQ, "hardirq" },
				       { NG_RAW_CTX_SOFTIRQ, "softirq" },
				       { NG_RAW_CTX_NMI, "nmi" }),
		      (void *)__entry->ip, __entry->counter));

/* @pid moves from CPU @orig_cpu to @dest_cpu (written where it is moved). */
TRACE_EVENT(sched_migrate,
	    TP_PROTO(int pid, int orig_cpu, int dest_cpu, u64 counter),
	    TP_ARGS(pid, orig_cpu, dest_cpu, counter),
	    TP_STRUCT__entry(__field(u64, counter) __field(int, pid)
			     __field(int, orig_cpu) __field(int, dest_cpu)),
	    TP_fast_assign(__entry->counter = counter; __entry->pid = pid;
			   __entry->orig_cpu = orig_cpu;
			   __entry->dest_cpu = dest_cpu;),
	    TP_printk("pid=%d orig_cpu=%d dest_cpu=%d ts=%llu", __entry->pid,
		      __entry->orig_cpu, __entry->dest_cpu, __entry->counter));

#endif /* NG_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE nanograph_trace
#include <trace/define_trace.h>
