// SPDX-License-Identifier: GPL-2.0
/*
 * The tracer: an ftrace_ops whose callback hooks the return of every
 * selected function, and the C side of the return trampoline.
 *
 * Entry (ng_entry, at the function's ftrace call site):
 *   read the counter; push { real return address, ip, slot } on current's
 *   shadow stack; overwrite the slot with ng_return_hooker; emit
 *   func_entry.
 * Exit (ng_return_handler, called by arch/<arch>/return_hooker.S):
 *   read the counter; pop the frame whose slot the trampoline was entered
 *   through; emit func_exit; hand the real return address back to the
 *   trampoline, which returns there.
 *
 * Unload protocol (Documentation/design.md): while the ops is registered
 * the module holds a reference on itself, so rmmod fails with EAGAIN
 * ("in use").  tracing_on=0 unregisters the ops and starts the drain: a
 * work item polls until no task holds a hooked frame, waits for tasks
 * still inside the trampoline's tail (synchronize_rcu_tasks), and only
 * then drops the reference.  module_exit (reached with rmmod -f too) does
 * the same and waits as long as it takes: a hung rmmod -f is acceptable,
 * returning into freed text is not.
 *
 * The module is built without ftrace instrumentation (Kbuild), so nothing
 * here is hooked; what it calls that is traceable runs under the ftrace
 * recursion lock, so a nested entry bails out.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/trace_events.h>
#include <linux/trace_recursion.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "nanograph.h"
#include "nanograph_event.h"
#include "nanograph_trace.h"
#include "ng_arch.h"

static void ng_entry(unsigned long ip, unsigned long parent_ip,
		     struct ftrace_ops *op, struct ftrace_regs *fregs);

static struct ftrace_ops ng_ops = {
	.func = ng_entry,
	.flags = NG_ARCH_OPS_FLAGS,
};

static unsigned int ng_max_depth;	/* 0: unlimited */
static bool ng_registered;		/* ng_ops is registered */
static bool ng_pinned;			/* we hold a reference on ourselves */
static bool ng_events_ours;		/* we enabled the events, we disable them */

static void ng_drain_work(struct work_struct *work);
static DECLARE_DELAYED_WORK(ng_drain, ng_drain_work);

/* Whether this architecture has its return trampoline yet. */
bool ng_tracer_supported(void)
{
	return NG_ARCH_HAS_TRACER;
}

/* set_event_pid: the hook runs with preemption off, an RCU section. */
static __always_inline bool ng_pid_wanted(void)
{
	struct ng_pid_map *map = rcu_dereference_sched(ng_pids);

	return !map || ng_pid_in(map, current->pid);
}

/*
 * The ftrace callback.  Runs with preemption off (the recursion lock
 * disables it) in any context: task, softirq, hardirq, NMI.
 */
static void notrace ng_entry(unsigned long ip, unsigned long parent_ip,
			     struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	u64 now = ng_counter_read();
	unsigned long *slot, key;
	struct ng_frame *f;
	struct ng_task *t;
	unsigned int depth, max;
	int bit;

	/* Suspend and hibernation pause graph tracing, as for fgraph. */
	if (unlikely(atomic_read(&current->tracing_graph_pause)))
		return;
	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;
	if (!ng_pid_wanted())
		goto out;

	t = ng_task_get();
	max = READ_ONCE(ng_max_depth);
	depth = t ? READ_ONCE(t->depth) : 0;
	if (unlikely(!t || depth >= NG_STACK_DEPTH || (max && depth >= max))) {
		this_cpu_inc(ng_cpu_stats.skipped);
		goto out;
	}
	if (unlikely(!ng_arch_hook_site(fregs, ip, &slot, &key))) {
		this_cpu_inc(ng_cpu_stats.skipped);
		goto out;
	}

	/* Claim the frame before filling it: see retstack.c. */
	WRITE_ONCE(t->depth, depth + 1);
	barrier();
	f = &t->frames[depth];
	f->ret = *slot;
	f->ip = ip;
	f->key = key;
	barrier();
	*slot = ng_arch_hooker();

	trace_func_entry(ip, ng_tsd(now, depth));
	this_cpu_inc(ng_cpu_stats.entries);
out:
	ftrace_test_recursion_unlock(bit);
}

/* Nothing can be done without the real return address: stop here. */
static void __noreturn ng_lost(struct ng_task *t, unsigned long key)
{
	panic("nanograph: no hooked frame for return key %lx (task %d, depth %u)\n",
	      key, current->pid, t ? t->depth : 0);
}

/*
 * The C side of the return trampoline: @sp is the stack pointer the
 * trampoline was entered with, from which the arch code derives the key
 * of the frame that returned.  Returns the real return address.
 *
 * Frames above the one that matches that key belong to functions that
 * were left without returning through us (none should be); they are
 * popped and reported as exits at the same time, so that the trace stays
 * balanced.
 */
unsigned long notrace ng_return_handler(unsigned long sp)
{
	u64 now = ng_counter_read();
	unsigned long key = ng_arch_exit_key(sp);
	unsigned long ret, ip;
	struct ng_task *t;
	int depth, bit;

	t = ng_task_find(current);
	if (unlikely(!t))
		ng_lost(t, key);
	depth = READ_ONCE(t->depth) - 1;
	while (depth >= 0 && t->frames[depth].key != key)
		depth--;
	if (unlikely(depth < 0))
		ng_lost(t, key);

	bit = ftrace_test_recursion_trylock(t->frames[depth].ip, 0);
	while ((int)READ_ONCE(t->depth) - 1 > depth) {
		unsigned int top = t->depth - 1;

		if (bit >= 0)
			trace_func_exit(t->frames[top].ip, ng_tsd(now, top));
		WRITE_ONCE(t->depth, top);
	}
	ret = t->frames[depth].ret;
	ip = t->frames[depth].ip;
	barrier();
	WRITE_ONCE(t->depth, depth);

	if (bit >= 0) {
		trace_func_exit(ip, ng_tsd(now, depth));
		ftrace_test_recursion_unlock(bit);
	}
	this_cpu_inc(ng_cpu_stats.exits);
	return ret;
}

/*
 * Enable our events in the top-level buffer, unless the user (or
 * trace-cmd) already did; then they are theirs to turn off.
 */
static void ng_events_on(void)
{
	if (ng_events_ours)
		return;
	ng_events_ours = !trace_set_clr_event(NG_EVENT_SYSTEM, NULL, 1);
}

static void ng_events_off(void)
{
	if (ng_events_ours)
		trace_set_clr_event(NG_EVENT_SYSTEM, NULL, 0);
	ng_events_ours = false;
}

/* tracing_on=1: pin the module, register the ops. */
int ng_tracer_start(void)
{
	int ret;

	if (!NG_ARCH_HAS_TRACER)
		return -EOPNOTSUPP;
	if (ng_registered)
		return 0;
	cancel_delayed_work(&ng_drain);
	if (!ng_pinned) {
		__module_get(THIS_MODULE);
		ng_pinned = true;
	}
	ng_events_on();
	ret = register_ftrace_function(&ng_ops);
	if (ret) {
		pr_err("register_ftrace_function: %d\n", ret);
		mod_delayed_work(system_wq, &ng_drain, 0);
		return ret;
	}
	ng_registered = true;
	return 0;
}

/* tracing_on=0: no new frames from now on; the drain does the rest. */
void ng_tracer_stop(void)
{
	if (!ng_registered)
		return;
	unregister_ftrace_function(&ng_ops);
	ng_registered = false;
	mod_delayed_work(system_wq, &ng_drain, 0);
}

/*
 * Wait for the hooked frames to return, then let the module go.  Polls:
 * a task asleep in a hooked function can hold its frame for any time.
 */
static void ng_drain_work(struct work_struct *work)
{
	if (!mutex_trylock(&ng_control_lock))
		goto again;
	if (ng_registered || !ng_pinned) {
		mutex_unlock(&ng_control_lock);
		return;
	}
	if (ng_live_frames(NULL)) {
		mutex_unlock(&ng_control_lock);
		goto again;
	}
	/* No frame left; tasks may still be in the trampoline's last lines. */
	synchronize_rcu_tasks();
	ng_events_off();
	ng_pinned = false;
	mutex_unlock(&ng_control_lock);
	module_put(THIS_MODULE);
	return;
again:
	schedule_delayed_work(&ng_drain, HZ / 10);
}

/*
 * Apply globs to the ops, one at a time; with @reset the first replaces
 * what was there (and none clears it).  Going through ftrace's own matcher
 * gives the files ftrace's glob syntax.  On failure the caller puts the
 * old list back the same way.
 */
int ng_tracer_apply_list(enum ng_list list, char **tokens, unsigned int n,
			 bool reset)
{
	int (*set)(struct ftrace_ops *ops, unsigned char *buf, int len, int reset);
	unsigned int i;
	int ret;

	set = list == NG_FTRACE_FILTER ? ftrace_set_filter : ftrace_set_notrace;
	if (!n)
		return reset ? set(&ng_ops, NULL, 0, 1) : 0;
	for (i = 0; i < n; i++) {
		/* ftrace's matcher edits the glob in place: give it a copy. */
		char *glob = kstrdup(tokens[i], GFP_KERNEL);

		if (!glob)
			return -ENOMEM;
		ret = set(&ng_ops, glob, strlen(glob), reset && i == 0);
		kfree(glob);
		if (ret)
			return ret;
	}
	return 0;
}

void ng_tracer_set_max_depth(unsigned int depth)
{
	WRITE_ONCE(ng_max_depth, depth);
}

int ng_tracer_init(void)
{
	int ret;

	ret = ng_retstack_init();
	if (ret)
		return ret;
	ret = ng_pids_init();
	if (ret)
		ng_retstack_exit();
	return ret;
}

/*
 * Module exit: reached with no reference held, or by rmmod -f at any
 * time.  Stop, then wait for every frame, however long that takes.
 */
void ng_tracer_exit(void)
{
	unsigned long frames;
	unsigned int tasks, waited = 0;

	mutex_lock(&ng_control_lock);
	ng_tracer_stop();
	mutex_unlock(&ng_control_lock);
	cancel_delayed_work_sync(&ng_drain);
	while ((frames = ng_live_frames(&tasks))) {
		if (waited % 100 == 0)
			pr_warn("unload waits for %lu hooked frames in %u tasks\n",
				frames, tasks);
		msleep(100);
		waited++;
	}
	synchronize_rcu_tasks();
	ng_events_off();
	ftrace_free_filter(&ng_ops);
	ng_pids_exit();
	ng_retstack_exit();
}
