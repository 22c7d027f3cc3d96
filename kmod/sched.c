// SPDX-License-Identifier: GPL-2.0
/*
 * Scheduling records: why a call took its time (options/sched).
 *
 * A call's wall time is its task's time on a CPU, runnable on a run
 * queue, and asleep.  With options/sched at 1, probes on the scheduler's
 * own tracepoints write, for a task inside a hooked call (frames open on
 * its shadow stack), a record when it leaves a CPU (preempted or going
 * to sleep), one when it gets a CPU back, and one where it is woken: in
 * the waker's records, or an interrupt's on the waker's CPU.  The
 * collector cuts each call's time at those records, exactly, and names
 * the waker and the hooked function it was in from its place in the
 * waker's records (Documentation/trace-format.md).
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
 * the waker even if it is not recorded itself.  Neither probe takes a
 * lock, allocates or wakes anything.
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
 * A task outside every recorded call costs two table lookups a switch and
 * writes nothing; with the option off the probes are not registered.
 */
#define pr_fmt(fmt) "nanograph: " fmt

#include <linux/hardirq.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/tracepoint.h>

#include "nanograph.h"
#include "nanograph_event.h"
#include "nanograph_trace.h"
#include "ng_arch.h"
#include "rawbuf.h"

static struct tracepoint *ng_tp_switch, *ng_tp_waking;
static bool ng_sched_registered;

/*
 * Whether @task is inside a recorded call: then its time is measured.
 * Not below a set_graph_notrace root at the bottom of its stack, whose
 * calls record nothing, nor in frames a drain abandoned (all of them
 * are then).  The tracepoints fire where RCU watches, and with
 * preemption or interrupts off: the stack table may be read.
 */
static __always_inline bool ng_sched_in_call(struct task_struct *task)
{
	struct ng_stack *t = ng_stack_of(task);

	return t && READ_ONCE(t->depth) &&
	       !(READ_ONCE(t->frames[0].flags) & (NG_FRAME_NOTRACE | NG_FRAME_GONE));
}

/* Recording: the probes' records are wanted. */
static __always_inline bool ng_sched_wanted(void)
{
	return static_branch_likely(&ng_recording);
}

/*
 * The hooked function @task is in (its innermost frame's call site, as
 * the function events name it), 0 if none.  For current: an interrupt
 * that came in while its hook pushed a frame sees the frame below.
 */
static unsigned long ng_sched_innermost(struct task_struct *task)
{
	struct ng_stack *t = ng_stack_of(task);
	unsigned int depth = t ? READ_ONCE(t->depth) : 0;

	if (!depth || depth > NG_STACK_DEPTH)
		return 0;
	return READ_ONCE(t->frames[depth - 1].ip);
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
	bool out, in;
	u64 now;

	if (!ng_sched_wanted())
		return;
	out = ng_sched_in_call(prev);
	in = ng_sched_in_call(next);
	if (!out && !in)
		return;
	now = ng_counter_read();
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
	u64 ctx, now;

	if (!ng_sched_wanted() || !ng_sched_in_call(p))
		return;
	ctx = in_nmi() ? NG_RAW_CTX_NMI : in_hardirq() ? NG_RAW_CTX_HARDIRQ :
	      in_serving_softirq() ? NG_RAW_CTX_SOFTIRQ : 0;
	now = ng_counter_read();
	if (static_branch_unlikely(&ng_raw_on))
		ng_raw_emit_meta(current, NG_RAW_WAKE |
				 (u64)(u32)p->pid << NG_RAW_ARG_SHIFT |
				 ctx << NG_RAW_WAKE_CTX_SHIFT, NG_TSD_COUNTER(now),
				 now, NG_META_SCHED);
	if (trace_sched_wake_enabled())
		trace_sched_wake(p->pid, ctx, ng_sched_innermost(current),
				 now & NG_TSD_COUNTER_MASK);
}

static void ng_sched_find(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_switch"))
		ng_tp_switch = tp;
	else if (!strcmp(tp->name, "sched_waking"))
		ng_tp_waking = tp;
}

/*
 * options/sched: register the probes (@on) or unregister them; after an
 * unregistration no probe is still running (the buffers may go).
 */
int ng_sched_set(bool on)
{
	int ret;

	lockdep_assert_held(&ng_control_lock);
	if (on == ng_sched_registered)
		return 0;
	if (!on) {
		tracepoint_probe_unregister(ng_tp_waking, ng_sched_waking, NULL);
		tracepoint_probe_unregister(ng_tp_switch, ng_sched_switch, NULL);
		tracepoint_synchronize_unregister();
		ng_sched_registered = false;
		return 0;
	}
	if (!ng_tp_switch || !ng_tp_waking)
		for_each_kernel_tracepoint(ng_sched_find, NULL);
	if (!ng_tp_switch || !ng_tp_waking) {
		pr_err("no sched_switch or sched_waking tracepoint\n");
		return -ENOENT;
	}
	ret = tracepoint_probe_register(ng_tp_switch, ng_sched_switch, NULL);
	if (ret)
		return ret;
	ret = tracepoint_probe_register(ng_tp_waking, ng_sched_waking, NULL);
	if (ret) {
		tracepoint_probe_unregister(ng_tp_switch, ng_sched_switch, NULL);
		tracepoint_synchronize_unregister();
		return ret;
	}
	ng_sched_registered = true;
	return 0;
}
