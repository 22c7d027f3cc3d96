// SPDX-License-Identifier: GPL-2.0
/*
 * Scheduling records: why a call took its time (options/sched).
 *
 * A call's wall time is its task's time on a CPU, runnable on a run
 * queue, and asleep.  With options/sched at 1, probes on the scheduler's
 * own tracepoints write, for a task inside a hooked call (frames open on
 * its shadow stack), a record when it leaves a CPU (preempted or going
 * to sleep), one when it gets a CPU back, one where it is woken (in the
 * waker's records, or an interrupt's on the waker's CPU), and one where
 * the scheduler moves it to another CPU.  The collector cuts each call's
 * time at those records, exactly, and names the waker and the hooked
 * function it was in from its place in the waker's records
 * (Documentation/trace-format.md).
 *
 * sched_switch fires in __schedule(), interrupts off, the run queue
 * locked, current still the task leaving: its record goes to this CPU's
 * buffer as current's, and the record of the task coming in follows
 * under a task record of its own (ng_raw_emit_meta()).  The task
 * leaving still runs a little of the switch after it (hooked calls
 * there are recorded as its own).  sched_waking fires in try_to_wake_up()
 * on the waker's CPU, the wakee's pi_lock held with interrupts off (only
 * preemption off when a task wakes itself), from task, softirq or
 * hardirq context (never NMI), and before the wakee's run queue is
 * locked: a wake may be written just before the sleep it ends, on
 * another CPU (the collector takes it for that sleep's).  A wake names
 * the waker even if it is not recorded itself.  sched_migrate_task fires
 * in set_task_cpu(), where a task that runs nowhere is moved (at a wake,
 * in task or interrupt context, or by a balancer): its record is
 * current's (or the interrupt's), naming the task moved, since a writer
 * nesting in another's raw record may only write for current.  No probe
 * takes a lock, allocates or wakes anything.
 *
 * Which state counts as asleep is the scheduler's: 6.1 reports a sleep
 * that a pending signal cancels as asleep (later kernels as running).
 *
 * The records go to the raw buffers in raw mode, and as the
 * nanograph:sched_* events wherever someone enabled them (both at once
 * is allowed, as for the function events).  An event of the events mode
 * carries what the raw stream tells by position: the task a switch is
 * about (sched_in is written by the task leaving), and the hooked
 * function the waker was in (its innermost frame: the collector cannot
 * rebuild that from func_call events, written at each call's return).
 *
 * The same probes keep each task's clocks for the flight recorder's time
 * triggers (FUNC:oncpu>DURATION, FUNC:blocked>DURATION, flight.c) while
 * one is armed, recording on or not: in its shadow stack, the ticks it
 * spent off a CPU inside calls and, of them, asleep until a wake; the
 * hook copies both into a new frame, with the clocks' generation, the
 * exit subtracts.  A frame of an earlier arming (whose spans off a CPU
 * were not all counted) is of another generation: not compared.  A
 * sleep ends at the wake that came after it began, or, when none did,
 * at once: a wake may come before the switch that starts the sleep it
 * ends (see above), and then none comes after; a stale one (a wake of a
 * sleep that was called off) is followed by the real one.  Preempted, or
 * in a sleep whose wake was missed, a task is runnable, not blocked.
 *
 * A task outside every recorded call costs two table lookups a switch and
 * writes no record (with the clocks on, the end of a span it began in a
 * call); with neither user (records, clocks) the probes are not
 * registered.
 */
#define pr_fmt(fmt) "nanograph: " fmt

#include <linux/hardirq.h>
#include <linux/math64.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/tracepoint.h>

#include "ng_module.h"
#include "nanograph_event.h"
#include "nanograph_trace.h"
#include "ng_arch.h"
#include "rawbuf.h"

static struct tracepoint *ng_tp_switch, *ng_tp_waking, *ng_tp_migrate;
static unsigned int ng_sched_users;	/* NG_SCHED_*, under ng_control_lock */
static bool ng_sched_records;		/* options/sched: records wanted */
DEFINE_STATIC_KEY_FALSE(ng_clocks_on);
unsigned int ng_clock_shift;		/* set once, before the first use */
unsigned int ng_clocks_gen;		/* bumped each time the clocks start */

/*
 * Whether the task of @t (NULL: none) is inside a recorded call: then
 * its time is measured.  Not below a set_graph_notrace root (above one
 * there are only more), nor in frames a drain abandoned, which are the
 * top ones unless a new recording pushed live frames above them: the
 * top frame says.  Its flags are written before its ip (tracer.c): a
 * slot being filled reads as its older flags, of a frame now gone.  The
 * tracepoints fire where RCU watches, and with preemption or interrupts
 * off: the stack table may be read.
 */
static __always_inline bool ng_stack_in_call(const struct ng_stack *t)
{
	unsigned int depth = t ? READ_ONCE(t->depth) : 0;

	return depth && depth <= NG_STACK_DEPTH && !READ_ONCE(t->notrace_depth) &&
	       !(READ_ONCE(t->frames[depth - 1].flags) & NG_FRAME_GONE);
}

/*
 * @t's task left its CPU at @now, asleep unless @runnable.  Only its own
 * switches write these fields (the rq lock orders them).
 */
static __always_inline void ng_clocks_out(struct ng_stack *t, bool runnable,
					  u64 now)
{
	t->asleep = !runnable;
	WRITE_ONCE(t->off_at, now);
}

/*
 * @t's task gets a CPU at @now: the span since it left one is off-CPU
 * time; asleep, blocked up to the wake that came after it began (none:
 * woken before, blocked 0).  A task whose stack came while it was off a
 * CPU has no span.  The wake was written before the task was queued,
 * which is before this switch: the run queue's lock orders them.
 */
static __always_inline void ng_clocks_in(struct ng_stack *t, u64 now)
{
	u64 off = READ_ONCE(t->off_at), wake;

	if (!off)
		return;
	/* Counters of two CPUs, skewed: a span that ends before it began is none. */
	if ((s64)(now - off) > 0)
		t->off_total += now - off;
	if (t->asleep) {
		wake = READ_ONCE(t->wake_at);
		if ((s64)(wake - off) > 0 && (s64)(now - wake) >= 0)
			t->blocked_total += wake - off;
	}
	WRITE_ONCE(t->off_at, 0);
}

/*
 * Records are wanted: while recording, options/sched on, and someone
 * reads them (the raw buffers, or an instance with the events enabled).
 */
static __always_inline bool ng_records_wanted(void)
{
	return static_branch_likely(&ng_recording) && READ_ONCE(ng_sched_records) &&
	       (static_branch_unlikely(&ng_raw_on) || trace_sched_out_enabled() ||
		trace_sched_in_enabled() || trace_sched_wake_enabled() ||
		trace_sched_migrate_enabled());
}

/*
 * The hooked function @task is in (the call site of its innermost
 * recorded frame, as the function events name it), 0 if none.  A slot
 * being filled reads 0 (an interrupt came in between the hook's claim
 * and its fill: retstack.c's ng_stack_empty()), and so does a
 * set_graph_notrace root, whose calls are not recorded: the frame below
 * then.  Frames a drain abandoned name nothing.
 */
static unsigned long ng_sched_innermost(struct task_struct *task)
{
	struct ng_stack *t = ng_stack_of(task);
	unsigned int depth = t ? READ_ONCE(t->depth) : 0;
	unsigned long ip, flags;

	if (depth > NG_STACK_DEPTH)
		return 0;
	while (depth--) {
		ip = READ_ONCE(t->frames[depth].ip);
		flags = READ_ONCE(t->frames[depth].flags);
		if (flags & NG_FRAME_GONE)
			return 0;
		if (ip && !(flags & NG_FRAME_NOTRACE))
			return ip;
	}
	return 0;
}

/*
 * @prev leaves this CPU for @next.  preempt, or a @prev_state of
 * TASK_RUNNING (a yield), leaves @prev runnable; else it sleeps until a
 * wakeup.  One counter value for both records: the switch is one instant.
 */
static void notrace ng_sched_switch(void *data, bool preempt,
				    struct task_struct *prev,
				    struct task_struct *next,
				    unsigned int prev_state)
{
	unsigned int state = prev_state & NG_RAW_STATE_MASK;
	bool out, in, span, records = ng_records_wanted();
	struct ng_stack *tp, *tn;
	u64 now;

	if (!records && !static_branch_unlikely(&ng_clocks_on))
		return;
	tp = ng_stack_of(prev);
	tn = ng_stack_of(next);
	out = ng_stack_in_call(tp);
	in = ng_stack_in_call(tn);
	/* @next's span off a CPU ends, whatever it is inside now. */
	span = static_branch_unlikely(&ng_clocks_on) && tn && READ_ONCE(tn->off_at);
	if (!out && !in && !span)
		return;
	now = ng_counter_read();
	if (static_branch_unlikely(&ng_clocks_on) && out)
		ng_clocks_out(tp, preempt || !state, now);
	if (span)
		ng_clocks_in(tn, now);
	if (!records)
		return;
	if (out && static_branch_unlikely(&ng_raw_on))
		ng_raw_emit_meta(prev, NG_RAW_SWITCH_OUT |
				 (preempt ? NG_RAW_PREEMPTED : 0) |
				 (u64)state << NG_RAW_ARG_SHIFT,
				 NG_TSD_COUNTER(now), now, NG_META_SCHED);
	if (out)
		trace_sched_out(prev->pid, state, preempt,
				now & NG_TSD_COUNTER_MASK);
	if (in && static_branch_unlikely(&ng_raw_on))
		ng_raw_emit_meta(next, NG_RAW_SWITCH_IN, NG_TSD_COUNTER(now),
				 now, NG_META_SCHED);
	if (in)
		trace_sched_in(next->pid, now & NG_TSD_COUNTER_MASK);
}

/*
 * @p is woken by current, or by an interrupt on this CPU: the record is
 * current's, the context in it, so that the collector names the task,
 * or the interrupt and the task it came in on.
 */
static void notrace ng_sched_waking(void *data, struct task_struct *p)
{
	bool records = ng_records_wanted();
	struct ng_stack *t;
	u64 ctx, now;

	if (!records && !static_branch_unlikely(&ng_clocks_on))
		return;
	t = ng_stack_of(p);
	if (!ng_stack_in_call(t))
		return;
	now = ng_counter_read();
	/*
	 * Wakers of a sleeper hold its pi_lock; a task waking itself (on a
	 * CPU: no span open) may race one, and a torn value is then ignored
	 * by ng_clocks_in()'s checks, as any wake outside the span is.
	 */
	if (static_branch_unlikely(&ng_clocks_on))
		WRITE_ONCE(t->wake_at, now);
	if (!records)
		return;
	ctx = in_nmi() ? NG_RAW_CTX_NMI : in_hardirq() ? NG_RAW_CTX_HARDIRQ :
	      in_serving_softirq() ? NG_RAW_CTX_SOFTIRQ : 0;
	if (static_branch_unlikely(&ng_raw_on))
		ng_raw_emit_meta(current, NG_RAW_WAKE |
				 (u64)(u32)p->pid << NG_RAW_ARG_SHIFT |
				 ctx << NG_RAW_WAKE_CTX_SHIFT, NG_TSD_COUNTER(now),
				 now, NG_META_SCHED);
	if (trace_sched_wake_enabled())
		trace_sched_wake(p->pid, ctx, ng_sched_innermost(current),
				 now & NG_TSD_COUNTER_MASK);
}

/*
 * @p, inside a recorded call, moves to @dest_cpu: a record in current's
 * records (or an interrupt's), naming @p, in this CPU's buffer (which may
 * be neither CPU's: a balancer's).  The run queues involved are locked,
 * @p's pi_lock held or @p queued on one of them: it stays put meanwhile.
 */
static void notrace ng_sched_migrate(void *data, struct task_struct *p,
				     int dest_cpu)
{
	u64 from = task_cpu(p), now;

	BUILD_BUG_ON(CONFIG_NR_CPUS > 1 << NG_RAW_CPU_BITS);
	BUILD_BUG_ON(PID_MAX_LIMIT > 1 << NG_RAW_TID_BITS);
	if (!ng_records_wanted() || !ng_stack_in_call(ng_stack_of(p)))
		return;
	now = ng_counter_read();
	if (static_branch_unlikely(&ng_raw_on))
		ng_raw_emit_meta(current, NG_RAW_MIGRATE |
				 ((u64)(u32)p->pid | from << NG_RAW_TID_BITS |
				  (u64)dest_cpu << (NG_RAW_TID_BITS + NG_RAW_CPU_BITS)) <<
				 NG_RAW_ARG_SHIFT, NG_TSD_COUNTER(now), now,
				 NG_META_SCHED);
	trace_sched_migrate(p->pid, (int)from, dest_cpu, now & NG_TSD_COUNTER_MASK);
}

static void ng_sched_find(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_switch"))
		ng_tp_switch = tp;
	else if (!strcmp(tp->name, "sched_waking"))
		ng_tp_waking = tp;
	else if (!strcmp(tp->name, "sched_migrate_task"))
		ng_tp_migrate = tp;
}

/* Register the probes; after a failure none is. */
static int ng_sched_register(void)
{
	int ret;

	if (!ng_tp_switch || !ng_tp_waking || !ng_tp_migrate)
		for_each_kernel_tracepoint(ng_sched_find, NULL);
	if (!ng_tp_switch || !ng_tp_waking || !ng_tp_migrate) {
		pr_err("no sched_switch, sched_waking or sched_migrate_task tracepoint\n");
		return -ENOENT;
	}
	ret = tracepoint_probe_register(ng_tp_switch, ng_sched_switch, NULL);
	if (ret)
		return ret;
	ret = tracepoint_probe_register(ng_tp_waking, ng_sched_waking, NULL);
	if (ret)
		goto err_switch;
	ret = tracepoint_probe_register(ng_tp_migrate, ng_sched_migrate, NULL);
	if (!ret)
		return 0;
	tracepoint_probe_unregister(ng_tp_waking, ng_sched_waking, NULL);
err_switch:
	tracepoint_probe_unregister(ng_tp_switch, ng_sched_switch, NULL);
	tracepoint_synchronize_unregister();
	return ret;
}

/*
 * @user (NG_SCHED_RECORDS: options/sched; NG_SCHED_CLOCKS: a time
 * trigger armed) wants the probes (@on) or no longer does.  They are
 * registered while anyone does; after the last lets go no probe is still
 * running (the buffers may go).  Only frames pushed while the clocks
 * run carry them, with the generation of that run: a later run (a new
 * arming) takes no frame of an earlier one.
 */
int ng_sched_use(unsigned int user, bool on)
{
	unsigned int users = on ? ng_sched_users | user : ng_sched_users & ~user;
	int ret;

	lockdep_assert_held(&ng_control_lock);
	if (!ng_sched_users && users) {
		ret = ng_sched_register();
		if (ret)
			return ret;
	}
	WRITE_ONCE(ng_sched_records, users & NG_SCHED_RECORDS);
	if (user & NG_SCHED_CLOCKS && on) {
		/*
		 * A lane spans NG_TRIGGER_NS_MAX; set once, since live frames
		 * hold snapshots taken with it.
		 */
		if (!ng_clock_shift)
			ng_clock_shift = max_t(int, 1, fls64(NG_TRIGGER_S_MAX *
							     ng_counter_freq()) - 32);
		if (!static_key_enabled(&ng_clocks_on))
			WRITE_ONCE(ng_clocks_gen, ng_clocks_gen + 1);
		static_branch_enable(&ng_clocks_on);
	} else if (user & NG_SCHED_CLOCKS) {
		static_branch_disable(&ng_clocks_on);
	}
	if (ng_sched_users && !users) {
		tracepoint_probe_unregister(ng_tp_migrate, ng_sched_migrate, NULL);
		tracepoint_probe_unregister(ng_tp_waking, ng_sched_waking, NULL);
		tracepoint_probe_unregister(ng_tp_switch, ng_sched_switch, NULL);
		tracepoint_synchronize_unregister();
	}
	ng_sched_users = users;
	return 0;
}
