// SPDX-License-Identifier: GPL-2.0
/*
 * The tracer: an ftrace_ops whose callback hooks the return of every
 * selected function, and the C side of the return trampoline.
 *
 * Entry (ng_entry_trace() and the other ops' callbacks, at the
 * function's ftrace call site; ng_hook() does the work): the recursion
 * lock, the pid, subtree and depth checks, where the return address is;
 * then read the counter; push { real return address, ip, slot, counter }
 * on current's shadow stack; overwrite the slot with ng_return_hooker;
 * emit func_entry.
 * Exit (ng_return_handler, called by arch/<arch>/return_hooker.S):
 *   read the counter; pop the frame whose slot the trampoline was entered
 *   through; emit func_exit and func_call (the call with its entry's
 *   counter); hand the real return address back to the trampoline, which
 *   returns there.
 * Each trace event is a tracepoint: a nop unless someone enabled it.  The
 * collector takes func_call alone, one event per call (and func_open for
 * the calls still open at the end, retstack.c).
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
#define pr_fmt(fmt) "nanograph: " fmt

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
#include "ng_module.h"
#include "nanograph_event.h"
#include "nanograph_trace.h"
#include "ng_arch_api.h"
#include "rawbuf.h"

static void ng_entry_root(unsigned long ip, unsigned long parent_ip,
			  struct ftrace_ops *op, struct ftrace_regs *fregs);
static void ng_entry_notrace(unsigned long ip, unsigned long parent_ip,
			     struct ftrace_ops *op, struct ftrace_regs *fregs);
static void ng_entry_args(unsigned long ip, unsigned long parent_ip,
			  struct ftrace_ops *op, struct ftrace_regs *fregs);

/*
 * Three ops: the functions to hook (set_ftrace_filter/notrace), the roots
 * of recorded subtrees (set_graph_function) and of unrecorded ones
 * (set_graph_notrace).  The kernel has no exported glob matcher but
 * ftrace's own, reached through an ops filter; hence one ops per list.
 * ftrace calls the ops of a shared site newest first, and they are
 * registered in this order, so at a site in several lists the notrace
 * callback runs first, then the root one, then the plain one (and
 * ng_args_ops, below, registered after them all, before any).
 */
static struct ftrace_ops ng_ops = {
	.func = ng_entry_trace,
	.flags = NG_ARCH_OPS_FLAGS,
};

static struct ftrace_ops ng_graph_ops = {
	.func = ng_entry_root,
	.flags = NG_ARCH_OPS_FLAGS,
};

static struct ftrace_ops ng_notrace_ops = {
	.func = ng_entry_notrace,
	.flags = NG_ARCH_OPS_FLAGS,
};

/*
 * And a fourth, for set_args_filter: the functions whose arguments
 * options/args records when the list is not empty.  Its callback hooks
 * nothing; it tells the hook that runs after it at the same site (it is
 * registered last, so it comes first) that this call is wanted with its
 * arguments (ng_args_want).  Should it come after the hook (a root list
 * registered again while recording), that call has no arguments, and the
 * next call of the same function in that context takes the flag, which
 * it would have set itself: never another function's call.
 */
static struct ftrace_ops ng_args_ops = {
	.func = ng_entry_args,
	.flags = NG_ARCH_OPS_FLAGS,
};

unsigned int ng_max_depth;		/* max_graph_depth; 0: unlimited */
static bool ng_registered;		/* the hook is on: ng_ops or the direct path */
/*
 * A start is registering (ng_tracer_start()): ftrace may wait for an RCU
 * Tasks grace period in there (a direct registration on 6.1 frees the
 * hash it outgrew after one), which a task held in a return by the
 * test-only ng_test_hold() must let end.
 */
static bool ng_starting;
static bool ng_ops_on;			/* ng_ops is registered */
static bool ng_pinned;			/* we hold a reference on ourselves */
/*
 * References on ourselves the drain has yet to drop (ng_drain_wait()):
 * taken with ng_pinned, dropped after the module_put(), so that a start
 * racing the end of the last drain is counted apart from it.
 */
static atomic_t ng_self_refs = ATOMIC_INIT(0);
/* The last drain step left only tasks another tracer wraps. */
static bool ng_drain_stalled;
/* The unload has begun (ng_tracer_exiting()). */
static bool ng_exiting;
/* Their live frames then: no stop while none of them returns. */
static unsigned long ng_wrapped_live;
static DECLARE_WAIT_QUEUE_HEAD(ng_drained_wq);
/*
 * Who wants the hook on (see ng_tracer_get()): tracing_on, and each trace
 * array whose current tracer is nanograph (ftrace_tracer.c).
 */
static unsigned int ng_users;
static bool ng_control_user;
/* Non-empty lists: the hot path reads these, the control files set them. */
static bool ng_graph_listed, ng_notrace_listed;
/*
 * On while a setting narrows what the hook records beyond the functions:
 * a pid list, set_graph_function, max_graph_depth.  With none of them
 * (every task of the hooked functions, as the function tracer takes
 * them) the hook reads none of them.
 */
static DEFINE_STATIC_KEY_FALSE(ng_narrowed);
/*
 * Recording is on: from the end of the start's registration to the
 * first thing tracing_on=0 does.  The registration and the unregistration
 * of every function go in slices (ops_steps.c), each a pass of ftrace's
 * matcher over every function; hooked and recorded, the writer's own
 * passes made a stop under stress-ng take 40-78 s instead of seconds.
 * What a start records before it returns, or a stop after it is
 * written, would be a partial set of functions anyway.
 */
DEFINE_STATIC_KEY_FALSE(ng_recording);
/* ng_graph_ops, ng_notrace_ops registered */
static bool ng_graph_registered, ng_notrace_registered;
/* set_args_filter has functions, and ng_args_ops is registered */
static bool ng_args_listed, ng_args_registered;
DEFINE_PER_CPU(unsigned long [NG_CTXS], ng_args_want);

/*
 * The drain after tracing_on=0: polled every NG_DRAIN_POLL_MS; frames
 * get NG_DRAIN_GRACE_MS to return by themselves before they are
 * abandoned.  ng_generation counts tracing_on=1s, so that a drain that
 * waited with the lock dropped knows whether recording restarted.
 * Abandoning stops every CPU (stop_machine()); while a task preempted in
 * the middle of a return keeps a step from finishing, the next one waits
 * twice as long, up to NG_DRAIN_BACKOFF_MS: a task that never runs again
 * (a CPU taken by a real-time task) costs the machine one stop a second,
 * not a hundred.  ng_drain_ms: the wait before the next step.
 */
#define NG_DRAIN_POLL_MS	10
#define NG_DRAIN_GRACE_MS	100
#define NG_DRAIN_BACKOFF_MS	1000
static unsigned long ng_drain_since;
static unsigned int ng_drain_ms = NG_DRAIN_POLL_MS;
static unsigned int ng_generation;
static void ng_drain_work(struct work_struct *work);
static void ng_tracer_stop(void);
static DECLARE_DELAYED_WORK(ng_drain, ng_drain_work);

enum ng_hook_mode {
	NG_HOOK_TRACE,		/* record, inside a graph root if there are any */
	NG_HOOK_ROOT,		/* a set_graph_function root: record, open a subtree */
	NG_HOOK_NOTRACE,	/* a set_graph_notrace root: record nothing below */
};

/*
 * Where an entry goes: the raw buffer in raw mode (a static key, so the
 * events mode pays nothing for it), and the trace event whenever someone
 * enabled it (a tracepoint, a no-op otherwise).  Both at once is
 * allowed: that is how the modes are compared.
 */
static __always_inline void ng_emit_entry(unsigned long ip, u64 tsd)
{
	if (static_branch_unlikely(&ng_raw_on))
		ng_raw_emit(tsd, ip);
	if (ng_ft_on())
		ng_ft_emit(false, ip, tsd);
	trace_func_entry(ip, tsd);
}

/*
 * Where a hooked call's argument registers are: in @fregs on the ops
 * path, in the direct trampoline's frame (@saved, in argument order) on
 * the direct path.
 */
struct ng_args_at {
	struct ftrace_regs *fregs;
	const unsigned long *saved;
};

/* Argument register @n of the call. */
static __always_inline unsigned long ng_call_arg(const struct ng_args_at *at,
						 unsigned int n)
{
	return at->saved ? at->saved[n] : ng_arch_arg(at->fregs, n);
}

/* Argument register @i into @x[@i], if the call records that many. */
static __always_inline void ng_arg_rec(struct ng_raw_record *x, u64 depth,
				       const struct ng_args_at *at,
				       unsigned int nr, unsigned int i)
{
	if (i < NG_ARCH_NARGS && i < nr) {
		x[i].tsd = NG_RAW_ARG_REC(depth, i);
		x[i].ip = ng_call_arg(at, i);
	}
}

/*
 * The value records of an entry (@site's if any, then @nr argument
 * registers, @nr at most NG_ARCH_NARGS) of the call at @depth, into
 * @x.  Returns how many.
 */
static __always_inline unsigned int ng_entry_value_recs(struct ng_raw_record *x,
							u64 depth, unsigned long site,
							const struct ng_args_at *at,
							unsigned int nr)
{
	if (site) {
		x->tsd = NG_RAW_SITE_REC(depth);
		x->ip = site;
		x++;
	}
	/*
	 * Unrolled, at constant places: each register's place in @at and
	 * its record's in @x are then one operand.
	 */
	ng_arg_rec(x, depth, at, nr, 0);
	ng_arg_rec(x, depth, at, nr, 1);
	ng_arg_rec(x, depth, at, nr, 2);
	ng_arg_rec(x, depth, at, nr, 3);
	ng_arg_rec(x, depth, at, nr, 4);
	ng_arg_rec(x, depth, at, nr, 5);
	return !!site + nr;
}

/*
 * ng_raw_entry_values()'s uncommon paths, out of line, so that their
 * array stays out of the common path's frame (which the kernels that
 * zero stack arrays would clear on every call).  A task record due or a
 * full buffer: ng_raw_emit_held() takes over @c's nest count.
 */
static noinline void ng_raw_entry_values_held(struct ng_raw_cpu *c,
					      unsigned long ip, u64 tsd,
					      unsigned long site,
					      const struct ng_args_at *at,
					      unsigned int nr)
{
	struct ng_raw_record x[1 + NG_ARCH_NARGS];
	unsigned int n;

	n = ng_entry_value_recs(x, NG_TSD_DEPTH(tsd), site, at, nr);
	ng_raw_emit_held(c, tsd, ip, x, n);
}

/* Records reserved from @pos that wrap round the end of the buffer. */
static noinline void ng_raw_entry_values_wrap(struct ng_raw_cpu *c,
					      unsigned long pos,
					      unsigned long ip, u64 tsd,
					      unsigned long site,
					      const struct ng_args_at *at,
					      unsigned int nr)
{
	struct ng_raw_record x[1 + NG_ARCH_NARGS];
	unsigned int n, i;

	n = ng_entry_value_recs(x, NG_TSD_DEPTH(tsd), site, at, nr);
	ng_raw_put(c, pos, tsd, ip);
	for (i = 0; i < n; i++)
		ng_raw_put(c, pos + 1 + i, x[i].tsd, x[i].ip);
	ng_raw_commit(c);
}

/*
 * The raw records of an entry with its values: the entry, @site's
 * record if any, then @nr argument registers, read straight into the
 * reserved records in the common case (one span, no wrap).
 */
static __always_inline void ng_raw_entry_values(unsigned long ip, u64 tsd,
						unsigned long site,
						const struct ng_args_at *at,
						unsigned int nr)
{
	struct ng_raw_cpu *c = this_cpu_ptr(&ng_raw_cpus);
	unsigned long n = 1 + !!site + nr, pos;
	struct ng_raw_record *r;

	if (unlikely(!ng_raw_begin(c, n, &pos))) {
		ng_raw_entry_values_held(c, ip, tsd, site, at, nr);
		return;
	}
	r = ng_raw_span(c, pos, n);
	if (unlikely(!r)) {
		ng_raw_entry_values_wrap(c, pos, ip, tsd, site, at, nr);
		return;
	}
	r->tsd = tsd;
	r->ip = ip;
	ng_entry_value_recs(r + 1, NG_TSD_DEPTH(tsd), site, at, nr);
	ng_raw_commit(c);
}

/*
 * The entry's func_entry and func_args events and the tracer's records
 * (whichever are on), out of line: the array of registers the events
 * take stays out of the raw path's frame.
 */
static noinline void ng_emit_entry_values_events(unsigned long ip, u64 tsd,
						 unsigned long site,
						 const struct ng_args_at *at,
						 unsigned int nr)
{
	unsigned long args[NG_ARGS_MAX] = { 0 };
	unsigned int i;

	for (i = 0; i < nr; i++)
		args[i] = ng_call_arg(at, i);
	if (ng_ft_on()) {
		ng_ft_emit(false, ip, tsd);
		ng_ft_emit_args(ip, tsd, site, nr, args);
	}
	trace_func_entry(ip, tsd);
	trace_func_args(ip, tsd, site, nr, args);
}

/*
 * An entry with what options/args and options/retaddr ask for: the
 * call's argument registers, and @site, the address it returns to.  Out
 * of line, so that the hook without them keeps its registers; where
 * the registers are comes as two scalars (@fregs on the ops path, @saved
 * on the direct path), not as a struct of the hook's: a local whose
 * address is taken would give every hooked call a stack canary.
 */
static noinline void ng_emit_entry_values(unsigned long ip, u64 tsd,
					  unsigned long site,
					  struct ftrace_regs *fregs,
					  const unsigned long *saved, int bit)
{
	const struct ng_args_at args_at = { fregs, saved }, *at = &args_at;
	unsigned int nr = READ_ONCE(ng_args_nr);

	/* ng_entry_value_recs() puts six at most, the event holds as many. */
	BUILD_BUG_ON(NG_ARCH_NARGS > NG_ARGS_MAX);
	BUILD_BUG_ON(NG_ARGS_MAX != 6);
	if (!READ_ONCE(ng_retaddr))
		site = 0;
	/* With a set_args_filter, only the calls ng_entry_args() named. */
	if (nr && READ_ONCE(ng_args_listed)) {
		unsigned long *want = this_cpu_ptr(&ng_args_want[ng_ctx_index(bit)]);

		if (*want == ip)
			*want = 0;
		else
			nr = 0;
	}
	nr = min_t(unsigned int, nr, NG_ARCH_NARGS);
	/* Nothing to add (not this function's, or the options going off). */
	if (!nr && !site) {
		ng_emit_entry(ip, tsd);
		return;
	}
	if (static_branch_unlikely(&ng_raw_on))
		ng_raw_entry_values(ip, tsd, site, at, nr);
	if (ng_ft_on() || trace_func_entry_enabled() || trace_func_args_enabled())
		ng_emit_entry_values_events(ip, tsd, site, at, nr);
}

/*
 * The address a call returns to, for options/retaddr: the parent ip
 * ftrace handed the hook, unless that is our trampoline already (a tail
 * call hooked in a caller's slot), where the frame below that shares
 * the slot keeps the real one; 0 if none does.  Another tracer's return
 * trampoline in the slot (function_graph or a kretprobe hooked the
 * caller first) is recorded as it is: its name says what it is.
 */
static unsigned long ng_call_site(const struct ng_stack *t, unsigned int depth,
				  unsigned long key, unsigned long parent_ip)
{
	while (parent_ip == (unsigned long)ng_return_hooker && depth--)
		if (t->frames[depth].key == key)
			parent_ip = t->frames[depth].ret;
	return parent_ip == (unsigned long)ng_return_hooker ? 0 : parent_ip;
}

/*
 * And an exit of frame @f of @t: its entry counter makes the one-event
 * form, and with options/retval the return register of a call that
 * returned goes with it.  A flight trigger (flight.c) looks at calls at
 * least as long as its shortest duration (a time trigger's on-CPU or
 * blocked time is never longer), after their exit record is written.
 * Out of line (ng_emit_exit() has the common case).
 */
static noinline void ng_emit_exit_more(const struct ng_stack *t,
				       const struct ng_frame *f,
				       unsigned long ip, unsigned int depth,
				       u64 entry, u64 now, u64 retval,
				       bool returned)
{
	u64 tsd = ng_tsd(now, depth);
	bool value = static_branch_unlikely(&ng_retval_on) && returned;

	if (static_branch_unlikely(&ng_raw_on))
		ng_raw_emit_exit(tsd | NG_RAW_EXIT, ip, value, retval);
	if (ng_ft_on()) {
		ng_ft_emit(true, ip, tsd);
		if (value)
			ng_ft_emit_retval(ip, tsd, retval);
	}
	trace_func_exit(ip, tsd);
	trace_func_call(ip, ng_tsd(entry, depth), now & NG_TSD_COUNTER_MASK);
	if (value)
		trace_func_retval(ip, tsd, retval);
	if (static_branch_unlikely(&ng_trigger_on) &&
	    ((now - entry) & NG_TSD_COUNTER_MASK) >= READ_ONCE(ng_trigger_min))
		ng_trigger_check(ip, (now - entry) & NG_TSD_COUNTER_MASK, now,
				 (unsigned long)retval, returned,
				 ng_call_clocks(t, f, (now - entry) & NG_TSD_COUNTER_MASK));
}

/*
 * An exit: the raw records alone (the exit, and its return value with
 * options/retval), what a raw recording without a trigger or a trace
 * event writes, inline, keeping nothing else live; anything more in
 * ng_emit_exit_more().  Each test is a patched-out branch while its
 * feature is off.
 */
static __always_inline void ng_emit_exit(const struct ng_stack *t,
					 const struct ng_frame *f,
					 unsigned long ip, unsigned int depth,
					 u64 entry, u64 now, u64 retval,
					 bool returned)
{
	if (ng_ft_on() || static_branch_unlikely(&ng_trigger_on) ||
	    trace_func_exit_enabled() || trace_func_call_enabled() ||
	    trace_func_retval_enabled()) {
		ng_emit_exit_more(t, f, ip, depth, entry, now, retval, returned);
		return;
	}
	if (!static_branch_unlikely(&ng_raw_on))
		return;
	/* Two copies: the plain exit keeps no second record's code. */
	if (static_branch_unlikely(&ng_retval_on))
		ng_raw_emit_exit(ng_tsd(now, depth) | NG_RAW_EXIT, ip, returned,
				 retval);
	else
		ng_raw_emit(ng_tsd(now, depth) | NG_RAW_EXIT, ip);
}

/*
 * current's stack, for the hook and the return handler; with the test-only
 * selfcheck, a cached one checked against the lookup's (NULL is the
 * lookup's answer already: a stack given in between is no error).
 */
static __always_inline struct ng_stack *ng_hook_stack(void)
{
	struct ng_stack *t = ng_current_stack();

	if (static_branch_unlikely(&ng_selfcheck) && t && t != ng_stack_of(current))
		ng_stat_inc(selfcheck_stack);
	return t;
}

/*
 * The direct path's @ip is its call site's if the call site called the
 * trampoline, or called ftrace's caller of shared sites (which goes on
 * to the trampoline with the call site's return address when no
 * callback moved it).  Otherwise a callback at a shared site moved the
 * ip (a kprobe's pre handler that returns 1), or the site is being
 * patched: @ip is trusted only if it is one of the groups' functions,
 * and otherwise the call is not hooked.  A moved ip is where the call
 * goes on: a function started there is hooked at its own call site.
 */
#if defined(NG_HAVE_DIRECT) && defined(ng_arch_call_target)
static __always_inline bool ng_direct_named(unsigned long ip)
{
	unsigned long to;

	if (likely(ng_arch_call_target(ip + NG_ARCH_CALL_INSN_SIZE, &to) &&
		   (to == (unsigned long)ng_direct_caller ||
		    to == READ_ONCE(ng_direct_shared))))
		return true;
	return ng_direct_holds(ip);
}
#else
static __always_inline bool ng_direct_named(unsigned long ip)
{
	return true;
}
#endif

/*
 * set_event_notrace_pid, then set_event_pid: the hook runs with
 * preemption off, an RCU section.
 */
static __always_inline bool ng_pid_wanted(void)
{
	struct ng_pid_map *map = rcu_dereference_sched(ng_notrace_pids);

	if (unlikely(map) && ng_pid_in(map, current->pid))
		return false;
	map = rcu_dereference_sched(ng_pids);
	return !map || ng_pid_in(map, current->pid);
}

/*
 * A root's callback found the call hooked already by the plain hook,
 * which ftrace called first: ng_ops registered after the roots, as a
 * hand-over from the direct path does (direct.c).  Frame @f of @t
 * becomes the root it would have been: a set_graph_function root opens
 * its subtree; a set_graph_notrace root, whose entry is recorded
 * already, keeps its exit and shuts its subtree (NG_FRAME_SHUT).
 */
static __always_inline void ng_frame_upgrade(struct ng_stack *t,
					     struct ng_frame *f,
					     enum ng_hook_mode mode)
{
	unsigned long flags = f->flags;

	if (mode == NG_HOOK_ROOT && !(flags & (NG_FRAME_ROOT | NG_FRAME_NOTRACE))) {
		WRITE_ONCE(f->flags, flags | NG_FRAME_ROOT);
		WRITE_ONCE(t->graph_depth, t->graph_depth + 1);
	} else if (mode == NG_HOOK_NOTRACE &&
		   !(flags & (NG_FRAME_NOTRACE | NG_FRAME_SHUT))) {
		WRITE_ONCE(f->flags, flags | NG_FRAME_SHUT);
		WRITE_ONCE(t->notrace_depth, t->notrace_depth + 1);
	}
}

/*
 * The entry hook.  Runs with preemption off (the recursion lock disables
 * it) in any context: task, softirq, hardirq, NMI.  Reached through an
 * ops callback (@fregs; @direct false) or through the direct trampoline
 * (@direct; @dslot, @dkey, @dargs: the slot, key and argument registers
 * it saved; @fregs NULL): @direct and @mode are constants where it is
 * inlined, so each caller keeps one path.  Scalars, not a struct: see
 * ng_emit_entry_values().
 */
static __always_inline void ng_hook(unsigned long ip, unsigned long parent_ip,
				    struct ftrace_regs *fregs, const bool direct,
				    unsigned long *dslot, unsigned long dkey,
				    const unsigned long *dargs,
				    enum ng_hook_mode mode)
{
	unsigned long *slot, key, flags;
	unsigned int depth, max;
	struct ng_frame *f;
	struct ng_stack *t;
	int bit;
	u64 now;

	/* Recording off first: a patched-out branch while on. */
	if (!static_branch_likely(&ng_recording))
		return;
	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0) {
		/* Inside a tracer callback: as for fgraph, not hooked. */
		ng_stat_inc(nested);
		return;
	}
	/*
	 * Before anything that needs RCU (the pid map, the stack table, the
	 * events): traceable code runs in idle after ct_idle_enter(), where
	 * RCU is not watching, on 32-bit arm always (not
	 * ARCH_WANTS_NO_INSTR) and on Debian's x86_64 6.1 (arch_cpu_idle(),
	 * default_idle(); the 6.12 and later kernels of the matrix do not
	 * let ftrace patch them).  A grace period does not wait for such a
	 * reader: the pid map could be freed under it, and a tracepoint
	 * fired there is unsafe.  Refused and counted, as ftrace does for an
	 * ops that asks (FTRACE_OPS_FL_RCU), on every kernel.  Read inline
	 * (compat.h) once the lock has disabled preemption: the recursion
	 * lock needs no RCU (ftrace_ops_assist_func() takes it first too),
	 * and the exported rcu_is_watching() was a call, and on arm64 a PLT,
	 * per hooked call.
	 */
	if (unlikely(!ng_rcu_watching())) {
		ng_stat_inc(unwatched);
		/* Test only: refused, yet the exported check says watching. */
		if (static_branch_unlikely(&ng_selfcheck) && rcu_is_watching())
			ng_stat_inc(selfcheck_refused);
		goto out;
	}
	/* Suspend and hibernation pause graph tracing, as for fgraph. */
	if (unlikely(atomic_read(&current->tracing_graph_pause))) {
		ng_ctx_inc(bit, skipped);
		goto out;
	}
	/* Test only: the reads of RCU data start here. */
	if (static_branch_unlikely(&ng_selfcheck) && !rcu_is_watching())
		ng_stat_inc(selfcheck);
	if (static_branch_unlikely(&ng_narrowed) && !ng_pid_wanted())
		goto out;

	t = ng_hook_stack();
	if (unlikely(!t)) {
		/*
		 * No stack (retstack.c: none could be allocated for this
		 * task): the call is lost, unless it would not have been
		 * recorded anyway, outside every root's subtree; retstack.c
		 * is told, to give it one.
		 */
		if (mode != NG_HOOK_NOTRACE &&
		    (mode == NG_HOOK_ROOT || !READ_ONCE(ng_graph_listed)))
			ng_ctx_inc(bit, skipped);
		ng_stack_missing();
		goto out;
	}
	/* Below a notrace root nothing is recorded; with roots, only below them. */
	if (mode != NG_HOOK_NOTRACE && READ_ONCE(t->notrace_depth))
		goto out;
	if (static_branch_unlikely(&ng_narrowed) && mode == NG_HOOK_TRACE &&
	    READ_ONCE(ng_graph_listed) && !READ_ONCE(t->graph_depth))
		goto out;

	max = static_branch_unlikely(&ng_narrowed) ? READ_ONCE(ng_max_depth) : 0;
	depth = READ_ONCE(t->depth);
	if (direct) {
		slot = dslot;
		key = dkey;
	}
	if (unlikely(depth >= NG_STACK_DEPTH || (max && depth >= max) ||
		     (!direct && !ng_arch_hook_site(fregs, ip, &slot, &key)))) {
		ng_ctx_inc(bit, skipped);
		goto out;
	}
	/*
	 * Another of our ops hooked this very call already; not a frame
	 * abandoned by a drain, which the call left long ago.
	 */
	if (depth && t->frames[depth - 1].key == key && t->frames[depth - 1].ip == ip &&
	    !(t->frames[depth - 1].flags & NG_FRAME_GONE)) {
		ng_frame_upgrade(t, &t->frames[depth - 1], mode);
		goto out;
	}
	if (direct && unlikely(!ng_direct_named(ip))) {
		ng_stat_inc(direct_moved);
		ng_ctx_inc(bit, skipped);
		goto out;
	}

	/*
	 * Read once the call is known to be hooked: a call that is not
	 * (another task's, one the unwinder cannot step out of) costs no
	 * counter read.  Under the recursion lock: a fallback counter may
	 * call traceable code (arch/arm/counter.c), and the erratum read on
	 * arm64 wants preemption off.
	 */
	now = ng_counter_read();

	/* Claim the frame before filling it: see retstack.c. */
	WRITE_ONCE(t->depth, depth + 1);
	barrier();
	f = &t->frames[depth];
	flags = mode == NG_HOOK_ROOT ? NG_FRAME_ROOT :
		mode == NG_HOOK_NOTRACE ? NG_FRAME_NOTRACE : 0;
	f->ret = *slot;
	f->key = key;
	f->entry = now;
	if (static_branch_unlikely(&ng_counters_on) && mode != NG_HOOK_NOTRACE) {
		ng_counts_of(current, f->counts);
		flags |= NG_FRAME_COUNTS;
	}
	if (static_branch_unlikely(&ng_clocks_on) && mode != NG_HOOK_NOTRACE) {
		f->clocks = ng_clocks_of(t);
		flags |= NG_FRAME_CLOCKS | NG_FRAME_GEN(READ_ONCE(ng_clocks_gen));
	}
	WRITE_ONCE(f->flags, flags);
	barrier();
	/*
	 * The ip last: an interrupt on this CPU reading the slot (sched.c's
	 * ng_sched_innermost()) finds 0 until the rest is there.
	 */
	WRITE_ONCE(f->ip, ip);
	barrier();
	*slot = (unsigned long)ng_return_hooker;

	if (mode == NG_HOOK_NOTRACE) {
		WRITE_ONCE(t->notrace_depth, t->notrace_depth + 1);
		goto out;
	}
	if (mode == NG_HOOK_ROOT)
		WRITE_ONCE(t->graph_depth, t->graph_depth + 1);
	if (static_branch_unlikely(&ng_entry_values_on)) {
		ng_emit_entry_values(ip, ng_tsd(now, depth),
				     ng_call_site(t, depth, key, parent_ip),
				     fregs, dargs, bit);
	} else {
		ng_emit_entry(ip, ng_tsd(now, depth));
	}
	ng_ctx_inc(bit, entries);
out:
	ftrace_test_recursion_unlock(bit);
}

void notrace ng_entry_trace(unsigned long ip, unsigned long parent_ip,
			    struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	ng_hook(ip, parent_ip, fregs, false, NULL, 0, NULL, NG_HOOK_TRACE);
}

static void notrace ng_entry_root(unsigned long ip, unsigned long parent_ip,
				  struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	ng_hook(ip, parent_ip, fregs, false, NULL, 0, NULL, NG_HOOK_ROOT);
}

static void notrace ng_entry_notrace(unsigned long ip, unsigned long parent_ip,
				     struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	ng_hook(ip, parent_ip, fregs, false, NULL, 0, NULL, NG_HOOK_NOTRACE);
}

#ifdef NG_HAVE_DIRECT
/*
 * The C side of the direct trampoline (arch/<arch>/direct_caller.S),
 * which a hooked function's patched call site calls instead of ftrace's
 * caller: @pc is where the traced function goes on (its call site's
 * address plus NG_ARCH_CALL_INSN_SIZE, the ip ftrace hands an ops), @slot
 * where its return address is, @key what its return will present, @args
 * its argument registers.  Only set_ftrace_filter's functions come this
 * way (direct.c); roots keep their ops, which run before it at a shared
 * site.
 */
void notrace ng_direct_entry(unsigned long pc, unsigned long *slot,
			     unsigned long key, const unsigned long *args)
{
	ng_hook(pc - NG_ARCH_CALL_INSN_SIZE, *slot, NULL, true, slot, key, args,
		NG_HOOK_TRACE);
}
#endif

/*
 * set_args_filter's callback: this call, in this context on this CPU,
 * is wanted with its arguments by the hook that comes next at this site.
 */
static void notrace ng_entry_args(unsigned long ip, unsigned long parent_ip,
				  struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	int bit;

	if (!static_branch_likely(&ng_recording))
		return;
	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;
	this_cpu_write(ng_args_want[ng_ctx_index(bit)], ip);
	ftrace_test_recursion_unlock(bit);
}

/* Nothing can be done without the real return address: stop here. */
static void __noreturn ng_lost(struct ng_stack *t, unsigned long key)
{
	panic("nanograph: no hooked frame for return key %lx (task %d, depth %u)\n",
	      key, current->pid, t ? t->depth : 0);
}

/*
 * The exit of a frame whose entry read the counters (options/counters):
 * a record of what they counted, if anything.  Out of line: its array
 * would give every return a stack canary.
 */
static noinline void ng_pop_counts(const struct ng_frame *f, unsigned long ip,
				   unsigned int top, u64 now)
{
	u64 c[2];

	ng_counts_of(current, c);
	if (unlikely((c[0] ^ f->counts[0]) | (c[1] ^ f->counts[1])))
		ng_counters_exit(ip, top, f->counts, c, now);
}

/*
 * Pop frame @top, the top one, closing its subtree and reporting its
 * exit; the depth becomes @top whatever an interrupt left above it.  The
 * exit is written while the frame is still held: an interrupt that hooks
 * a call in between then sits one frame deeper, after this exit in the
 * buffer, instead of at this frame's depth before it, where it would
 * look like the start of a sibling whose predecessor's exit was lost.
 * An abandoned frame (the drain put its address back, and this task was
 * already on its way out through the trampoline) was counted then.
 * @retval is the function's return value if @returned (the frame that
 * returned, not one left without returning).
 */
static __always_inline unsigned long ng_pop(struct ng_stack *t, unsigned int top,
					    u64 now, int bit, u64 retval,
					    bool returned)
{
	struct ng_frame *f = &t->frames[top];
	unsigned long ret = f->ret, ip = f->ip, flags = f->flags;

	if (!(flags & (NG_FRAME_NOTRACE | NG_FRAME_GONE))) {
		if (likely(bit >= 0)) {
			ng_emit_exit(t, f, ip, top, f->entry, now, retval, returned);
			if (unlikely(flags & NG_FRAME_COUNTS))
				ng_pop_counts(f, ip, top, now);
			ng_ctx_inc(bit, exits);
		} else {
			ng_stat_inc(dropped);
			ng_stat_inc(exits);
		}
	}
	barrier();
	WRITE_ONCE(t->depth, top);
	/*
	 * The slot names no function once free (retstack.c's
	 * ng_stack_empty()): after the depth drops, since an interrupt
	 * between the two would push into it (and leave it so) before this
	 * store, never after.
	 */
	WRITE_ONCE(f->ip, 0);
	if (flags & (NG_FRAME_NOTRACE | NG_FRAME_SHUT))
		WRITE_ONCE(t->notrace_depth, t->notrace_depth - 1);
	if (flags & NG_FRAME_ROOT)
		WRITE_ONCE(t->graph_depth, t->graph_depth - 1);
	return ret;
}

/*
 * The frames above @depth, of functions left without returning through
 * us: out of line, so that the return path inlines one pop, not two.
 */
static noinline void ng_pop_unreturned(struct ng_stack *t, unsigned int depth,
				       u64 now, int bit)
{
	unsigned int top;

	while ((top = READ_ONCE(t->depth)) > depth + 1)
		ng_pop(t, top - 1, now, bit, 0, false);
}

/*
 * Test only (selfcheck=1 and inject=8; 57-preempted-return): hold a task
 * named "ng-preempted" that returns through the trampoline with a
 * sleeping state already set (from prepare_to_wait()) at the start of
 * this window, until the bit is cleared.  While recording is on, ng_ops
 * still registered or a start registering, it sleeps a millisecond at a
 * time (its state put back each time), so that an RCU Tasks grace period
 * of the unregistration's or the registration's ends (a spinning task
 * never gives one: preempted is not a quiescent state for RCU Tasks);
 * once ng_ops is off it spins, preempted but runnable: what the drain
 * must not take for asleep (cond_resched() preempts it as an interrupt
 * would on a kernel that preempts fully; arm64 6.1 is voluntary only).
 * One task at a time; the reader holds no spinlock there.
 */
static noinline void notrace ng_test_hold(void)
{
	static atomic_t holding = ATOMIC_INIT(0);
	unsigned int state = READ_ONCE(current->__state);
	bool spinning = false;

	if (!ng_inject(NG_INJECT_HOLD_RETURN) || task_is_running(current) ||
	    !in_task() || irqs_disabled() || strcmp(current->comm, "ng-preempted") ||
	    atomic_cmpxchg(&holding, 0, 1))
		return;
	pr_info("test: holding %d in a return, state %#x\n", current->pid, state);
	while (ng_inject(NG_INJECT_HOLD_RETURN)) {
		if (static_key_enabled(&ng_recording) || READ_ONCE(ng_registered) ||
		    READ_ONCE(ng_starting)) {
			usleep_range(1000, 2000);
			set_current_state(state);
			continue;
		}
		if (!spinning)
			pr_info("test: %d preempted in a return\n", current->pid);
		spinning = true;
		cond_resched();		/* preempted: it stays on its run queue */
		cpu_relax();
	}
	atomic_set(&holding, 0);
}

/*
 * The C side of the return trampoline: @sp is the stack pointer the
 * trampoline was entered with, from which the arch code derives the key
 * of the frame that returned, and @retval the function's return value
 * register (r1:r0 on 32-bit arm; options/retval, flight triggers).
 * Returns the real return address.
 *
 * Frames above the one that matches that key belong to functions that
 * were left without returning through us (none should be); they are
 * popped and reported as exits at the same time, so that the trace stays
 * balanced.  Preemption is off throughout: the stack table is read
 * under RCU-sched, and the events are per-CPU.  An exit that comes while
 * ftrace's recursion guard is held is not written, and counted dropped.
 *
 * The recursion lock is taken first, before the frame's function is
 * known (a recursion record names this handler, not it): taken, it has
 * disabled preemption already, and the common exit pays one preemption
 * count, not two.
 */
unsigned long notrace ng_return_handler(unsigned long sp, u64 retval)
{
	unsigned long key = ng_arch_exit_key(sp);
	struct ng_stack *t;
	int depth, bit;
	u64 now = 0;

	if (static_branch_unlikely(&ng_selfcheck))
		ng_test_hold();

	/* Under the lock, as in ng_hook(); without it no event is sent. */
	bit = ftrace_test_recursion_trylock(_THIS_IP_, 0);
	if (likely(bit >= 0))
		now = ng_counter_read();
	else
		preempt_disable_notrace();
	t = ng_hook_stack();
	if (unlikely(!t))
		ng_lost(t, key);
	depth = READ_ONCE(t->depth) - 1;
	while (depth >= 0 && t->frames[depth].key != key)
		depth--;
	if (unlikely(depth < 0))
		ng_lost(t, key);

	if (unlikely(READ_ONCE(t->depth) > depth + 1))
		ng_pop_unreturned(t, depth, now, bit);
	sp = ng_pop(t, depth, now, bit, retval, true);
	if (likely(bit >= 0))
		ftrace_test_recursion_unlock(bit);
	else
		preempt_enable_notrace();
	return sp;
}

/* What the module enables for a reader of trace_pipe: one line a side. */
static const char *const ng_default_events[] = {
	NG_EVENT_ENTRY, NG_EVENT_EXIT, NG_EVENT_CLOCK,
};

/* Set or clear the default events in the top-level buffer. */
static int ng_default_events_set(int set)
{
	int i, ret = 0;

	for (i = 0; i < ARRAY_SIZE(ng_default_events) && !ret; i++)
		ret = trace_set_clr_event(NG_EVENT_SYSTEM, ng_default_events[i], set);
	return ret;
}

/*
 * The default events are switched under ng_events_lock, never under the
 * control lock: trace_set_clr_event() takes event_mutex, which ftrace
 * takes before trace_types_lock (instance_mkdir()), and ftrace holds
 * trace_types_lock around the ftrace tracer's init and reset, which take
 * the control lock (ftrace_tracer.c).  ng_events_ours: we enabled them,
 * we disable them.
 */
static DEFINE_MUTEX(ng_events_lock);
static bool ng_events_ours;

/*
 * Enable entry, exit and clock_sync in the top-level buffer while
 * tracing_on asks for recording (or is about to: @starting) and until
 * the drain after it is over, unless someone already enabled a form of
 * the calls somewhere (the top level, an instance such as the
 * collector's with func_call, perf): then they go where that user wants
 * them, and are that user's to turn off.  In raw mode the records go to
 * the raw buffers, and the events only to whoever enabled them; for the
 * ftrace tracer alone, into its trace arrays only.  Called after every
 * change of those conditions; the last call decides.
 */
void ng_events_sync(bool starting)
{
	bool want;

	mutex_lock(&ng_events_lock);
	mutex_lock(&ng_control_lock);
	if (ng_control_user || starting)
		want = !ng_raw_mode();
	else
		want = ng_events_ours && ng_pinned && !ng_users;
	mutex_unlock(&ng_control_lock);
	if (want && !ng_events_ours && !trace_func_entry_enabled() &&
	    !trace_func_call_enabled()) {
		ng_events_ours = !ng_default_events_set(1);
		if (!ng_events_ours)
			ng_default_events_set(0);
	} else if (!want && ng_events_ours) {
		ng_default_events_set(0);
		ng_events_ours = false;
	}
	mutex_unlock(&ng_events_lock);
}

/* Register or unregister one of the root ops; the flag tracks it. */
static int ng_ops_set(struct ftrace_ops *ops, bool *registered, bool on)
{
	int ret = 0;

	if (on && !*registered)
		ret = register_ftrace_function(ops);
	else if (!on && *registered)
		ret = unregister_ftrace_function(ops);
	if (!ret)
		*registered = on;
	return ret;
}

/*
 * After a change of a setting ng_narrowed stands for, under the control
 * lock.  The key goes on after the setting, and off after it is gone:
 * in between, the hook records either as before the change or as after
 * it, as if the write had come an instant later or earlier.
 */
void ng_narrowed_sync(void)
{
	bool on;

	lockdep_assert_held(&ng_control_lock);
	on = READ_ONCE(ng_graph_listed) || READ_ONCE(ng_max_depth) ||
	     ng_pids_listed();
	if (on && !static_key_enabled(&ng_narrowed))
		static_branch_enable(&ng_narrowed);
	else if (!on && static_key_enabled(&ng_narrowed))
		static_branch_disable(&ng_narrowed);
}

/*
 * Busy from tracing_on=1 until the drain has let the last frame go: the
 * buffers and their mode must not change under a writer.
 */
bool ng_tracer_busy(void)
{
	return ng_registered || ng_pinned;
}

/*
 * tracing_on=1: pin the module, give the traced tasks their stacks,
 * register the ops: the plain one first, so that the root ones come
 * first at shared sites (see ng_ops).
 */
static int ng_tracer_start(void)
{
	int ret;

	lockdep_assert_held(&ng_control_lock);
	if (ng_registered)
		return 0;
	cancel_delayed_work(&ng_drain);
	ng_generation++;
	if (!ng_pinned) {
		__module_get(THIS_MODULE);
		WRITE_ONCE(ng_pinned, true);
		atomic_inc(&ng_self_refs);
	} else {
		/* The last drain's abandoned frames, if it got that far. */
		ng_stacks_trim_abandoned();
	}
	WRITE_ONCE(ng_starting, true);
	ret = ng_stacks_start();
	if (ret)
		goto err;
	ng_arch_tracing_start();
	ng_raw_restate_tasks();
	ng_clock_emit();
	/* The direct path where it can (direct.c), else ng_ops. */
	if (ng_direct_start()) {
		ret = ng_ops_register_steps(&ng_ops, ng_list_empty(NG_FTRACE_FILTER));
		if (ret)
			goto err;
		ng_ops_on = true;
	}
	WRITE_ONCE(ng_registered, true);
	ng_direct_count(&ng_ops);
	ret = ng_ops_set(&ng_graph_ops, &ng_graph_registered, ng_graph_listed);
	if (!ret)
		ret = ng_ops_set(&ng_notrace_ops, &ng_notrace_registered, ng_notrace_listed);
	if (!ret)
		ret = ng_ops_set(&ng_args_ops, &ng_args_registered, ng_args_listed);
	if (ret)
		goto err;
	/* Every ops on, the notrace roots too: calls are recorded from here. */
	static_branch_enable(&ng_recording);
	WRITE_ONCE(ng_starting, false);
	/* A switch away waiting for the last drain: it will not end now. */
	wake_up_all(&ng_drained_wq);
	return 0;
err:
	WRITE_ONCE(ng_starting, false);
	pr_err("cannot start recording: %d\n", ret);
	ng_tracer_stop();
	mod_delayed_work(ng_system_wq, &ng_drain, 0);
	return ret;
}

/*
 * A user wants the hook on: tracing_on=1 (@control; again while it is on
 * retries a start that failed) or a trace array that made nanograph its
 * current tracer.  The hook runs while anyone wants it, so that
 * tracing_on=0 does not stop an instance's tracer, nor the other way
 * round.
 */
int ng_tracer_get(bool control)
{
	int ret;

	lockdep_assert_held(&ng_control_lock);
	if (control && ng_control_user)
		return ng_tracer_start();
	ng_users++;
	ret = ng_tracer_start();
	if (ret) {
		ng_users--;
		return ret;
	}
	if (control)
		ng_control_user = true;
	return 0;
}

/* That user is done; the last one stops the hook (and the drain starts). */
void ng_tracer_put(bool control)
{
	lockdep_assert_held(&ng_control_lock);
	if (control) {
		if (!ng_control_user)
			return;
		ng_control_user = false;
	}
	if (!WARN_ON_ONCE(!ng_users) && !--ng_users)
		ng_tracer_stop();
}

/* No call is recorded from now on (ng_hook()'s first test). */
static void ng_recording_off(void)
{
	if (static_key_enabled(&ng_recording))
		static_branch_disable(&ng_recording);
}

/* ng_ops is off (unregistered by the caller): the drain does the rest. */
static void ng_tracer_stopped(void)
{
	ng_recording_off();
	WRITE_ONCE(ng_registered, false);
	ng_stacks_stop();
	ng_stacks_report_open();
	ng_clock_emit();
	ng_drain_since = jiffies;
	WRITE_ONCE(ng_drain_ms, NG_DRAIN_POLL_MS);
	ng_wrapped_live = 0;
	WRITE_ONCE(ng_drain_stalled, false);
	mod_delayed_work(ng_system_wq, &ng_drain, 0);
}

/*
 * tracing_on=0: no new frames from now on; the drain does the rest.
 * Also the way back from a start that failed before ng_ops was on:
 * then the stacks may be being given to new tasks already, and must
 * stop, or every fork would take one until the module goes.
 */
static void ng_tracer_stop(void)
{
	lockdep_assert_held(&ng_control_lock);
	ng_recording_off();
	ng_ops_set(&ng_args_ops, &ng_args_registered, false);
	ng_ops_set(&ng_notrace_ops, &ng_notrace_registered, false);
	ng_ops_set(&ng_graph_ops, &ng_graph_registered, false);
	if (!ng_registered) {
		ng_stacks_stop();
		/* Frames pushed before a registration failed get their grace. */
		ng_drain_since = jiffies;
		WRITE_ONCE(ng_drain_ms, NG_DRAIN_POLL_MS);
		return;
	}
	ng_direct_stop();
	if (ng_ops_on)
		ng_ops_unregister_steps(&ng_ops, ng_list_empty(NG_FTRACE_FILTER));
	ng_ops_on = false;
	ng_tracer_stopped();
}

/*
 * Recording through the direct path, and set_ftrace_filter or
 * set_ftrace_notrace changed (ng_ops's filter has), or options/direct
 * went off: ng_ops takes over for the rest of the recording, on before
 * the groups come off (direct.c).  @every: set_ftrace_filter is (now)
 * empty, every function.  On failure the direct path stays, with the
 * functions it had.
 */
int ng_direct_handover(bool every)
{
	int ret;

	lockdep_assert_held(&ng_control_lock);
	if (!ng_direct_active())
		return 0;
	ret = ng_ops_register_steps(&ng_ops, every);
	if (ret)
		return ret;
	ng_ops_on = true;
	ng_direct_stop();
	ng_direct_count(&ng_ops);
	return 0;
}

/*
 * One step of the drain: are all frames gone?  Frames get
 * NG_DRAIN_GRACE_MS to return by themselves (@patient), so that calls in
 * progress at tracing_on=0 end with their exit events; then whatever is
 * still hooked (a task asleep in a pipe read, a kthread that never leaves
 * its loop, the idle task of an offline CPU) is abandoned: the real
 * return addresses are put back (retstack.c).  Only a task preempted in
 * the middle of a return, or one whose frame another tracer wraps, is
 * left for a later step, after a longer wait.
 */
static bool ng_drain_frames(bool patient)
{
	unsigned int left, wrapped;
	unsigned long live;

	lockdep_assert_held(&ng_control_lock);
	live = ng_live_frames(NULL, NULL);
	if (!live)
		return true;
	if (patient && time_before(jiffies, ng_drain_since +
				   msecs_to_jiffies(NG_DRAIN_GRACE_MS)))
		return false;
	/*
	 * Only tasks another tracer wraps were left, and none of their
	 * frames returned since: a stop would change nothing (they may
	 * sleep for good: a kthread created while recording).
	 */
	if (ng_wrapped_live && live == ng_wrapped_live)
		return false;
	left = ng_stacks_abandon(&wrapped);
	if (left) {
		WRITE_ONCE(ng_drain_ms, min(READ_ONCE(ng_drain_ms) * 2, NG_DRAIN_BACKOFF_MS));
		ng_wrapped_live = left == wrapped ? ng_live_frames(NULL, NULL) : 0;
		if (ng_wrapped_live && !ng_drain_stalled) {
			WRITE_ONCE(ng_drain_stalled, true);
			wake_up_all(&ng_drained_wq);
		}
		return false;
	}
	return !ng_live_frames(NULL, NULL);
}

/*
 * No frame is hooked any more, but a task may still be in the
 * trampoline's last lines (preempted there), and on architectures that
 * trace code where RCU is not watching, an idle CPU too: wait for both,
 * as ftrace_shutdown() waits before it frees a trampoline.  Never with
 * the control lock held: this takes up to a second.
 */
static void ng_drain_grace(void)
{
	synchronize_rcu_tasks();
	ng_synchronize_rcu_tasks_rude();
}

/* Everything is quiet: the last of the drain, control lock held. */
static void ng_drain_finish(void)
{
	lockdep_assert_held(&ng_control_lock);
	ng_stacks_release();
	WRITE_ONCE(ng_pinned, false);
	/* A buffer file's write waiting for this (ng_control_wait_drained()). */
	wake_up_all(&ng_drained_wq);
}

/*
 * The drain, a work item polling every NG_DRAIN_POLL_MS until every frame
 * is gone, then waiting out the grace periods with the control lock
 * dropped, so that tracing_on and the lists answer at once (buffer_mode
 * and raw_buffer_size_kb wait for the drain's end instead:
 * ng_control_wait_drained()).  A tracing_on=1 in between (a new
 * generation) cancels it; the next tracing_on=0 starts another.
 */
static void ng_drain_work(struct work_struct *work)
{
	unsigned int gen;

	if (!mutex_trylock(&ng_control_lock))
		goto again;
	if (ng_registered || !ng_pinned) {
		mutex_unlock(&ng_control_lock);
		return;
	}
	if (!ng_drain_frames(true)) {
		mutex_unlock(&ng_control_lock);
		goto again;
	}
	gen = ng_generation;
	mutex_unlock(&ng_control_lock);

	ng_drain_grace();

	mutex_lock(&ng_control_lock);
	if (gen != ng_generation || ng_registered || !ng_pinned) {
		mutex_unlock(&ng_control_lock);
		return;
	}
	ng_drain_finish();
	mutex_unlock(&ng_control_lock);
	/*
	 * Let the module go first: a switch away waiting for that
	 * (ng_drain_wait()) may hold event_mutex (an instance's removal),
	 * which turning our events off takes.  Module exit cancels this
	 * work synchronously, so its last lines still run.
	 */
	module_put(THIS_MODULE);
	if (atomic_dec_and_test(&ng_self_refs))
		wake_up_all(&ng_drained_wq);
	ng_events_sync(false);
	return;
again:
	queue_delayed_work(ng_system_wq, &ng_drain, msecs_to_jiffies(READ_ONCE(ng_drain_ms)));
}

/*
 * The hook has stopped (a trace array switched away from nanograph, the
 * last user): wait until the drain has let the module go, so that a
 * script's "echo nop > current_tracer; rmmod nanograph" works, unless
 * recording starts again meanwhile, or the drain is left with tasks
 * another tracer wraps (retstack.c), which it waits for as long as they
 * sleep.  Bounded by @ms.  Never with the control lock held.
 */
void ng_drain_wait(unsigned int ms)
{
	wait_event_timeout(ng_drained_wq,
			   !atomic_read(&ng_self_refs) || READ_ONCE(ng_registered) ||
			   READ_ONCE(ng_drain_stalled),
			   msecs_to_jiffies(ms));
}

/*
 * With the control lock held, before a change that needs the tracer idle
 * (buffer_mode, raw_buffer_size_kb): while a stop's drain runs, wait for
 * its end, the lock dropped meanwhile, instead of answering EBUSY for the
 * second or so a drain takes ("echo 0 > tracing_on; echo events >
 * buffer_mode" works).  Not while recording, nor once the drain waits on
 * tasks another tracer wraps (they may sleep for long): the caller finds
 * the tracer busy then.  At most NG_DRAIN_WAIT_MS (then EBUSY); a signal
 * (-ERESTARTSYS) or the unload (-ENODEV) ends it.  The lock is held on
 * return.
 */
int ng_control_wait_drained(void)
{
	long left = msecs_to_jiffies(NG_DRAIN_WAIT_MS);

	lockdep_assert_held(&ng_control_lock);
	while (ng_pinned && !ng_registered && !ng_drain_stalled) {
		mutex_unlock(&ng_control_lock);
		left = wait_event_interruptible_timeout(ng_drained_wq,
							!READ_ONCE(ng_pinned) ||
							READ_ONCE(ng_registered) ||
							READ_ONCE(ng_drain_stalled) ||
							READ_ONCE(ng_exiting),
							left);
		mutex_lock(&ng_control_lock);
		if (left < 0)
			return left;
		if (READ_ONCE(ng_exiting))
			return -ENODEV;
		if (!left)
			return -EBUSY;
	}
	return 0;
}

/* The unload begins: a write waiting for a drain gives up. */
void ng_tracer_exiting(void)
{
	WRITE_ONCE(ng_exiting, true);
	wake_up_all(&ng_drained_wq);
}

/*
 * Apply globs to an ops filter, one at a time; with @reset the first
 * replaces what was there (and none clears it).  Going through ftrace's
 * own matcher gives the files ftrace's glob syntax.
 */
int ng_ops_globs(struct ftrace_ops *ops, bool exclude, char **tokens,
		 unsigned int n, bool reset)
{
	int (*set)(struct ftrace_ops *ops, unsigned char *buf, int len, int reset);
	unsigned int i;
	int ret;

	set = exclude ? ftrace_set_notrace : ftrace_set_filter;
	if (!n)
		return reset ? set(ops, NULL, 0, 1) : 0;
	for (i = 0; i < n; i++) {
		/* ftrace's matcher edits the glob in place: give it a copy. */
		char *glob = kstrdup(tokens[i], GFP_KERNEL);

		if (!glob)
			return -ENOMEM;
		ret = set(ops, glob, strlen(glob), reset && i == 0);
		kfree(glob);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * A root list's ops selects its roots with its filter, and an empty
 * filter means every function: so an emptied list unregisters its ops
 * before clearing the filter, and a list filled while recording
 * registers it after.
 */
static int ng_root_globs(struct ftrace_ops *ops, bool *listed, bool *registered,
			 char **tokens, unsigned int n, bool reset)
{
	int ret;

	if (reset && !n) {
		ret = ng_ops_set(ops, registered, false);
		if (ret)
			return ret;
		WRITE_ONCE(*listed, false);
		ng_narrowed_sync();
		return ng_ops_globs(ops, false, NULL, 0, true);
	}
	ret = ng_ops_globs(ops, false, tokens, n, reset);
	if (ret)
		return ret;
	WRITE_ONCE(*listed, true);
	ng_narrowed_sync();
	return ng_registered ? ng_ops_set(ops, registered, true) : 0;
}

/*
 * set_ftrace_notrace: ng_ops's notrace filter, never changed while ng_ops
 * is registered if it asks for saved regs (32-bit arm).  6.1's ftrace
 * accounts a notrace change of a registered ops (ftrace_hash_move())
 * by counting the old notrace set back in, then the new one out, with no
 * code update between: a function in both (and in the filter) goes from
 * 0 to 1 user and back, and keeps the FTRACE_FL_REGS that the 1 set,
 * with no user.  Applying a list glob by glob always does that (each
 * glob's set holds the one before), and so does writing a list again.
 * The next tracing_on=0 that leaves no ops registered then ends in a
 * WARNING in ftrace_shutdown() (ftrace.c:3074, its check that no record
 * kept flags) which disables ftrace for good (ENODEV for everything).
 * 6.12's accounting has no such step, but no macro tells the kernels
 * apart.  So while recording on arm, the ops come off, the filter
 * changes, and they go back on in their order (see ng_ops); calls in
 * between are not hooked.  Elsewhere the filter changes in place.
 */
static int ng_notrace_globs(char **tokens, unsigned int n, bool reset)
{
	int ret, on;

	lockdep_assert_held(&ng_control_lock);
	if (!ng_ops_on || !(ng_ops.flags & FTRACE_OPS_FL_SAVE_REGS))
		return ng_ops_globs(&ng_ops, true, tokens, n, reset);
	ng_ops_set(&ng_args_ops, &ng_args_registered, false);
	ng_ops_set(&ng_notrace_ops, &ng_notrace_registered, false);
	ng_ops_set(&ng_graph_ops, &ng_graph_registered, false);
	unregister_ftrace_function(&ng_ops);
	ng_ops_on = false;
	ret = ng_ops_globs(&ng_ops, true, tokens, n, reset);
	on = ng_ops_register_steps(&ng_ops, ng_list_empty(NG_FTRACE_FILTER));
	if (on) {
		pr_err("cannot resume recording after set_ftrace_notrace: %d\n", on);
		ng_tracer_stopped();
		return ret ?: on;
	}
	ng_ops_on = true;
	on = ng_ops_set(&ng_graph_ops, &ng_graph_registered, ng_graph_listed);
	if (!on)
		on = ng_ops_set(&ng_notrace_ops, &ng_notrace_registered, ng_notrace_listed);
	if (!on)
		on = ng_ops_set(&ng_args_ops, &ng_args_registered, ng_args_listed);
	if (on) {
		pr_err("cannot resume recording after set_ftrace_notrace: %d\n", on);
		ng_tracer_stop();
	}
	return ret ?: on;
}

/*
 * A list changed: make it take effect.  The caller has checked the globs
 * (lists.c); only the kernel failing (ENOMEM) makes this fail half-way.
 */
int ng_tracer_apply_list(enum ng_list list, char **tokens, unsigned int n,
			 bool reset)
{
	int ret;

	switch (list) {
	case NG_FTRACE_FILTER:
		/* ng_ops's filter, then ng_ops takes over from the direct path. */
		if (ng_direct_active()) {
			ret = ng_ops_globs(&ng_ops, false, tokens, n, reset);
			return ret ?: ng_direct_handover(!n && (reset ||
						ng_list_empty(NG_FTRACE_FILTER)));
		}
		/* Emptied while recording: every function, in steps. */
		if (reset && !n && ng_ops_on)
			return ng_ops_filter_every(&ng_ops);
		return ng_ops_globs(&ng_ops, false, tokens, n, reset);
	case NG_FTRACE_NOTRACE:
		if (ng_direct_active()) {
			ret = ng_ops_globs(&ng_ops, true, tokens, n, reset);
			return ret ?: ng_direct_handover(ng_list_empty(NG_FTRACE_FILTER));
		}
		return ng_notrace_globs(tokens, n, reset);
	case NG_GRAPH_FUNCTION:
		return ng_root_globs(&ng_graph_ops, &ng_graph_listed,
				     &ng_graph_registered, tokens, n, reset);
	case NG_GRAPH_NOTRACE:
		return ng_root_globs(&ng_notrace_ops, &ng_notrace_listed,
				     &ng_notrace_registered, tokens, n, reset);
	case NG_ARGS_FILTER:
		return ng_root_globs(&ng_args_ops, &ng_args_listed,
				     &ng_args_registered, tokens, n, reset);
	default:
		return -EINVAL;
	}
}

int ng_tracer_init(void)
{
	int ret;

	ret = ng_retstack_init();
	if (ret)
		return ret;
	ret = ng_pids_init();
	if (ret)
		goto out_retstack;
	ret = ng_comm_init();
	if (ret)
		goto out_pids;
	ret = ng_raw_init();
	if (ret)
		goto out_comm;
	ret = ng_direct_init();
	if (ret)
		goto out_raw;
	return 0;
out_raw:
	ng_raw_exit();
out_comm:
	ng_comm_exit();
out_pids:
	ng_pids_exit();
out_retstack:
	ng_retstack_exit();
	return ret;
}

/*
 * Module exit: reached with no reference held (the drain is over), or by
 * rmmod -f at any time.  Stop, then drain without the grace for frames
 * to return: abandon them at once.  Only a task preempted inside a
 * return, again and again, makes this wait.
 */
void ng_tracer_exit(void)
{
	unsigned int waited = 0;
	bool done;

	mutex_lock(&ng_control_lock);
	ng_tracer_stop();
	mutex_unlock(&ng_control_lock);
	cancel_delayed_work_sync(&ng_drain);
	for (;;) {
		mutex_lock(&ng_control_lock);
		done = ng_drain_frames(false);
		mutex_unlock(&ng_control_lock);
		if (done)
			break;
		if (waited++ % 100 == 0)
			pr_warn("unload waits for tasks returning through the trampoline\n");
		msleep(READ_ONCE(ng_drain_ms));
	}
	ng_drain_grace();
	mutex_lock(&ng_control_lock);
	ng_control_user = false;
	ng_users = 0;
	/* No scheduling probe runs once this returns: the buffers may go. */
	ng_sched_use(NG_SCHED_RECORDS | NG_SCHED_CLOCKS, false);
	mutex_unlock(&ng_control_lock);
	ng_events_sync(false);
	ng_direct_exit();
	ftrace_free_filter(&ng_ops);
	ftrace_free_filter(&ng_graph_ops);
	ftrace_free_filter(&ng_notrace_ops);
	ftrace_free_filter(&ng_args_ops);
	ng_comm_exit();
	ng_pids_exit();
	ng_raw_exit();
	ng_retstack_exit();
}
