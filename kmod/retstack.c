// SPDX-License-Identifier: GPL-2.0
/*
 * Per-task shadow stacks ("ret_stack"): the real return addresses of the
 * hooked frames, one stack per traced task, found through a table keyed
 * by the task's address.
 *
 * The kernel's fgraph keeps its stack in task_struct and gives one to
 * every task when it starts; none of that is reachable from a module.
 * nanograph keeps a table of RCU hash chains, one bucket per hash of the
 * task_struct pointer, each node a task's stack:
 *
 *   ng_buckets[hash(task)] -> [ node | task | depth ... | frames[64] ] -> ...
 *   ng_idle_stacks (per CPU): the idle task's (all idle tasks have pid 0)
 *
 * Never by pid: a thread other than the leader that calls execve takes
 * the leader's pid in de_thread() (exchange_tids()) with its frames open
 * (bprm_execve, begin_new_exec...), and the old leader takes its pid.
 * A return must find its frame whatever happened to the pid meanwhile,
 * and the stack must leave with the task it belongs to.
 *
 * - Lookup (both hot paths) walks one chain, usually of one node, with
 *   preemption off (an RCU-sched reader); no lock, no atomic.  Each CPU
 *   keeps the last stack it found (ng_cur_stack), used when its task is
 *   current: a stack is in one CPU's cache at most, and leaves it before
 *   its grace period starts (ng_stack_uncache()).  So a stack leaves the
 *   table only when its task is freed, or when the table is emptied
 *   with no hook running: a live task's stack taken out while recording
 *   would go on being found in a cache.
 * - Stacks are given only in process context, never from the hook (which
 *   may run inside the allocator, or inside the very lock a claim would
 *   take): to every task the pid filter admits when recording starts or
 *   the filter changes (ng_stacks_assign), to every such task created
 *   while recording (the task_newtask tracepoint, in copy_process(), before
 *   the child can run), and one per CPU for the idle tasks.  A task with
 *   no stack is not recorded, its calls are counted as skipped, and the
 *   task as nostack.
 * - The task_newtask probe cannot sleep (preemption is off in it before
 *   7.0), so it takes a stack from a pool that a work item keeps full
 *   with GFP_KERNEL allocations while recording (NG_POOL_SIZE stacks,
 *   refilled once a quarter is used); only when a fork burst empties
 *   the pool faster than the work refills it does it allocate in place,
 *   GFP_NOWAIT and then GFP_ATOMIC.  The pool exists from tracing_on=1
 *   to the end of the drain, like the stacks.
 * - Stacks come from a cache of their own: at about 4.2 KiB on 64-bit
 *   (3.2 KiB on 32-bit arm) a stack would take an 8 KiB (4 KiB) kmalloc
 *   object, a good part of it wasted.
 * - Insertions and removals take ng_table_lock; the hook never does, so
 *   a traced function reached from under the lock cannot deadlock.
 * - A stack is removed when its task is freed (sched_process_free, after
 *   the task's last context switch) and freed after an RCU grace period;
 *   all of them when the drain ends, so an idle module holds the table
 *   alone.
 *
 * Frames are pushed by bumping depth first and filling the frame after,
 * and popped by reading the frame first and dropping depth after, so
 * that an interrupt or NMI nesting at any point uses the slots above,
 * never ours.
 */
#define pr_fmt(fmt) "nanograph: " fmt

#include <linux/binfmts.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/irq_work.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/stop_machine.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "ng_module.h"
#include "nanograph_event.h"
#include "nanograph_trace.h"
#include "ng_arch_api.h"

struct hlist_head *ng_buckets;
/* Insertions and removals; never taken by the hook or the trampoline. */
DEFINE_RAW_SPINLOCK(ng_table_lock);
/* New tasks get a stack: recording, from start to stop (table lock). */
static bool ng_assigning;
DEFINE_PER_CPU(struct ng_stack *, ng_idle_stacks);
DEFINE_PER_CPU(struct ng_stack *, ng_cur_stack);
static enum cpuhp_state ng_cpuhp_state;
static struct kmem_cache *ng_stack_cache;

/*
 * Stacks ready for ng_task_new(), chained through their task field
 * (table lock).  64 stacks: 132 KiB on 64-bit, more than 20 ms of forks
 * at the fastest rate measured under emulation.
 */
#define NG_POOL_SIZE	64
#define NG_POOL_LOW	(NG_POOL_SIZE * 3 / 4)
static struct ng_stack *ng_pool;
static unsigned int ng_pool_n;
static void ng_pool_refill(struct work_struct *work);
static DECLARE_WORK(ng_pool_work, ng_pool_refill);

/* Recorded frames that will never have an exit event. */
static atomic_long_t ng_abandoned = ATOMIC_LONG_INIT(0);
static atomic_long_t ng_nstacks = ATOMIC_LONG_INIT(0);	/* allocated */
/* Tasks created while recording that no stack could be found for. */
static atomic_long_t ng_nostack = ATOMIC_LONG_INIT(0);
/* Stacks given late, to traced tasks the hook found without one. */
static atomic_long_t ng_late = ATOMIC_LONG_INIT(0);
/* Forks that found the pool empty and allocated in place. */
static atomic_long_t ng_pool_misses = ATOMIC_LONG_INIT(0);
static void ng_late_assign(struct work_struct *work);
static DECLARE_WORK(ng_late_work, ng_late_assign);
static void ng_late_kick(struct irq_work *work);
static DEFINE_IRQ_WORK(ng_late_irq, ng_late_kick);
static struct tracepoint *ng_tp_free, *ng_tp_newtask, *ng_tp_exec;

/*
 * No frames in @s, of which @used held any: and no slot names a function
 * or keeps flags, as ng_pop() leaves them, so that an interrupt between a
 * push's claim of a slot and its fill (sched.c's ng_sched_innermost())
 * finds 0 there, never an older call; and no span off a CPU is open.
 */
static void ng_stack_empty(struct ng_stack *s, unsigned int used)
{
	unsigned int i;

	for (i = 0; i < used && i < NG_STACK_DEPTH; i++) {
		s->frames[i].ip = 0;
		s->frames[i].flags = 0;
	}
	s->off_at = 0;
	s->depth = 0;
	s->graph_depth = 0;
	s->notrace_depth = 0;
}

static struct ng_stack *ng_stack_alloc(gfp_t gfp)
{
	struct ng_stack *s = kmem_cache_alloc(ng_stack_cache, gfp);

	if (!s)
		return NULL;
	ng_stack_empty(s, NG_STACK_DEPTH);
	s->wake_at = 0;
	s->off_total = 0;
	s->blocked_total = 0;
	s->asleep = false;
	s->task = NULL;
	s->pid = 0;
	s->cached_on = -1;
	atomic_long_inc(&ng_nstacks);
	return s;
}

/*
 * @s (current's, found in the table) becomes this CPU's cached stack
 * (ng_current_stack()), and leaves the cache of the CPU that held it
 * before, if its task has moved: a stack is in one CPU's cache at most,
 * its @cached_on's, so that ng_stack_uncache() looks at one CPU, not all
 * of them.  Only current's own hooks cache its stack, with preemption
 * off; one nesting in here caches the same stack.  A miss: once a switch
 * at most.
 */
void ng_stack_cache_here(struct ng_stack *s)
{
	int cpu = smp_processor_id(), old = READ_ONCE(s->cached_on);

	if (old >= 0 && old != cpu)
		cmpxchg(per_cpu_ptr(&ng_cur_stack, old), s, NULL);
	WRITE_ONCE(s->cached_on, cpu);
	WRITE_ONCE(*this_cpu_ptr(&ng_cur_stack), s);
}

/*
 * @s, out of the table, out of its CPU's cache too, before its grace
 * period starts: a hook that read it from the cache is then an
 * RCU-sched reader the grace period waits for, and none can read it
 * after.  Its task is dead (sched_process_free, after its last switch),
 * so no hook caches it again.
 */
static void ng_stack_uncache(struct ng_stack *s)
{
	int cpu = READ_ONCE(s->cached_on);

	if (cpu >= 0 && cmpxchg(per_cpu_ptr(&ng_cur_stack, cpu), s, NULL) == s &&
	    static_branch_unlikely(&ng_selfcheck))
		ng_stat_inc(selfcheck_uncached);
}

/*
 * Test only (selfcheck): a stack past its grace period, or every stack
 * at a start, is in no CPU's cache; each one that is counts as
 * selfcheck_stack.  @s NULL: any stack at all.
 */
static void ng_stack_check_uncached(const struct ng_stack *s)
{
	int cpu;

	if (!static_branch_unlikely(&ng_selfcheck))
		return;
	for_each_possible_cpu(cpu) {
		const struct ng_stack *c = READ_ONCE(per_cpu(ng_cur_stack, cpu));

		if (c && (!s || c == s))
			ng_stat_inc(selfcheck_stack);
	}
}

/* A stack no reader can have seen. */
static void ng_stack_free(struct ng_stack *s)
{
	atomic_long_dec(&ng_nstacks);
	kmem_cache_free(ng_stack_cache, s);
}

static void ng_stack_free_cb(struct rcu_head *head)
{
	struct ng_stack *s = container_of(head, struct ng_stack, rcu);

	ng_stack_check_uncached(s);
	kmem_cache_free(ng_stack_cache, s);
}

/*
 * Free after a grace period: a lockless reader may be on the chain.  Not
 * kfree_rcu(): the cache is destroyed at unload after an rcu_barrier(),
 * which waits for call_rcu() callbacks, not for kfree_rcu()'s batches.
 */
static void ng_stack_free_rcu(struct ng_stack *s)
{
	atomic_long_dec(&ng_nstacks);
	call_rcu(&s->rcu, ng_stack_free_cb);
}

/* A stack from the pool, or NULL; the table lock is held. */
static struct ng_stack *ng_pool_take(void)
{
	struct ng_stack *s = ng_pool;

	lockdep_assert_held(&ng_table_lock);
	if (s) {
		ng_pool = (struct ng_stack *)s->task;
		ng_pool_n--;
		s->task = NULL;
	}
	return s;
}

/* Put @s in the pool; the table lock is held. */
static void ng_pool_put(struct ng_stack *s)
{
	lockdep_assert_held(&ng_table_lock);
	s->task = (struct task_struct *)ng_pool;
	ng_pool = s;
	ng_pool_n++;
}

/*
 * Fill the pool up, in process context, while recording.  Stacks are
 * allocated one at a time outside the lock, and the pool is checked
 * again with each: the probe may have taken some meanwhile.
 */
static void ng_pool_fill(void)
{
	struct ng_stack *s;
	unsigned long flags;
	bool more;

	for (;;) {
		raw_spin_lock_irqsave(&ng_table_lock, flags);
		more = ng_assigning && ng_pool_n < NG_POOL_SIZE;
		raw_spin_unlock_irqrestore(&ng_table_lock, flags);
		if (!more)
			return;
		s = ng_stack_alloc(GFP_KERNEL | __GFP_NOWARN);
		if (!s)
			return;
		raw_spin_lock_irqsave(&ng_table_lock, flags);
		more = ng_assigning && ng_pool_n < NG_POOL_SIZE;
		if (more)
			ng_pool_put(s);
		raw_spin_unlock_irqrestore(&ng_table_lock, flags);
		if (!more) {
			ng_stack_free(s);
			return;
		}
	}
}

static void ng_pool_refill(struct work_struct *work)
{
	ng_pool_fill();
}

/* Recording ended: the pool goes with the stacks (ng_stacks_release). */
static void ng_pool_empty(void)
{
	struct ng_stack *s;
	unsigned long flags;

	cancel_work_sync(&ng_pool_work);
	for (;;) {
		raw_spin_lock_irqsave(&ng_table_lock, flags);
		s = ng_pool_take();
		raw_spin_unlock_irqrestore(&ng_table_lock, flags);
		if (!s)
			return;
		ng_stack_free(s);
	}
}

/* Frames not yet returned and not abandoned. */
static unsigned int ng_stack_live(const struct ng_stack *s)
{
	unsigned int i, n = 0, depth = READ_ONCE(s->depth);

	for (i = 0; i < depth && i < NG_STACK_DEPTH; i++)
		n += !(READ_ONCE(s->frames[i].flags) & NG_FRAME_GONE);
	return n;
}

/* Recorded frames among the live ones: what abandoning them costs. */
static unsigned int ng_stack_recorded(const struct ng_stack *s)
{
	unsigned int i, n = 0;

	for (i = 0; i < s->depth; i++)
		n += !(s->frames[i].flags & (NG_FRAME_GONE | NG_FRAME_NOTRACE));
	return n;
}

/*
 * Write func_open for each recorded frame of @s that is still open: the
 * entries of calls that will not return while anyone records (the
 * one-event-per-call form has no other record of them).  @pid is the
 * stack's task, @cpu an idle task's CPU (-1 otherwise).  The frames must
 * not be pushed meanwhile: the task is gone, or recording has stopped.
 */
static void ng_stack_report_open(const struct ng_stack *s, pid_t pid, int cpu)
{
	unsigned int i, depth = READ_ONCE(s->depth);

	for (i = 0; i < depth && i < NG_STACK_DEPTH; i++) {
		const struct ng_frame *f = &s->frames[i];
		unsigned long ip = READ_ONCE(f->ip);

		/* ip 0: a frame being pushed or popped meanwhile. */
		if (ip && !(READ_ONCE(f->flags) & (NG_FRAME_GONE | NG_FRAME_NOTRACE)))
			trace_func_open(ip, ng_tsd(f->entry, i), pid, cpu);
	}
}

/*
 * Recording stopped (ng_ops unregistered, which waited for the callbacks
 * in flight: the ops of a module are FTRACE_OPS_FL_DYNAMIC): report every
 * task's open calls.  One that returns while this runs is reported twice,
 * open and then as its func_call, which the collector takes.
 */
void ng_stacks_report_open(void)
{
	struct ng_stack *s;
	unsigned int b;
	int cpu;

	if (!trace_func_open_enabled())
		return;
	rcu_read_lock_sched();
	for (b = 0; b < NG_BUCKETS; b++)
		hlist_for_each_entry_rcu(s, &ng_buckets[b], node)
			ng_stack_report_open(s, READ_ONCE(s->pid), -1);
	for_each_possible_cpu(cpu) {
		s = per_cpu(ng_idle_stacks, cpu);
		if (s)
			ng_stack_report_open(s, 0, cpu);
	}
	rcu_read_unlock_sched();
}

/*
 * Give @s to @task unless it has one already, or is released already
 * (a rename probe may come late): its sched_process_free may have run,
 * and a stack given now would stay, found by the next task_struct at
 * that address.  False if not given.
 */
static bool ng_stack_insert(struct task_struct *task, struct ng_stack *s)
{
	lockdep_assert_held(&ng_table_lock);
	if (!pid_alive(task) || ng_stack_of(task))
		return false;
	s->task = task;
	s->pid = task->pid;
	hlist_add_head_rcu(&s->node, ng_bucket(task));
	return true;
}

/*
 * Give @task a stack now, while recording, without sleeping: from the
 * pool, which the work refills; if a burst of forks emptied it, allocate
 * GFP_NOWAIT and then GFP_ATOMIC.  Only if all fail is the task left
 * untraced (its calls counted as skipped, itself as nostack), as
 * fgraph's would be.  A task that has one keeps it.
 */
void ng_stack_give(struct task_struct *task)
{
	struct ng_stack *s;
	unsigned long flags;
	bool low;

	if (!READ_ONCE(ng_assigning))
		return;
	raw_spin_lock_irqsave(&ng_table_lock, flags);
	/* A renamed thread may have one: then nothing is taken or counted. */
	if (ng_stack_of(task)) {
		raw_spin_unlock_irqrestore(&ng_table_lock, flags);
		return;
	}
	s = ng_assigning ? ng_pool_take() : NULL;
	if (s && !ng_stack_insert(task, s))
		ng_pool_put(s);		/* the task-list walk was first */
	low = ng_assigning && ng_pool_n < NG_POOL_LOW;
	raw_spin_unlock_irqrestore(&ng_table_lock, flags);
	if (low)
		queue_work(ng_system_unbound_wq, &ng_pool_work);
	if (s)
		return;

	atomic_long_inc(&ng_pool_misses);
	s = ng_stack_alloc(GFP_NOWAIT | __GFP_NOWARN);
	if (!s)
		s = ng_stack_alloc(GFP_ATOMIC | __GFP_NOWARN);
	if (!s) {
		if (READ_ONCE(ng_assigning))
			atomic_long_inc(&ng_nostack);
		return;
	}
	raw_spin_lock_irqsave(&ng_table_lock, flags);
	if (!ng_assigning || !ng_stack_insert(task, s)) {
		raw_spin_unlock_irqrestore(&ng_table_lock, flags);
		ng_stack_free(s);
		return;
	}
	raw_spin_unlock_irqrestore(&ng_table_lock, flags);
}

/*
 * task_newtask: @task is being created by current (copy_process(), not
 * yet runnable).  Give it a stack now if it is to be traced: the probe
 * may run with preemption off.
 */
static void ng_task_new(void *data, struct task_struct *task,
			ng_clone_flags_t clone_flags)
{
	bool wanted;

	/* Pairs with ng_stacks_start(): see it there. */
	smp_mb();
	if (!READ_ONCE(ng_assigning))
		return;
	/* Probes are preemptible from 7.0 on (SRCU): the map needs RCU. */
	rcu_read_lock();
	wanted = ng_pid_wants(task, current);
	rcu_read_unlock();
	if (wanted)
		ng_stack_give(task);
}

/*
 * sched_process_free: @p is gone for good; its stack goes.  Frames it
 * still holds belong to functions that never returned (do_exit).
 */
static void ng_task_freed(void *data, struct task_struct *p)
{
	struct ng_stack *s;
	unsigned long flags;

	if (!p->pid)
		return;
	raw_spin_lock_irqsave(&ng_table_lock, flags);
	s = ng_stack_of(p);
	if (s)
		hlist_del_rcu(&s->node);
	raw_spin_unlock_irqrestore(&ng_table_lock, flags);
	if (!s)
		return;
	/*
	 * s->pid, not p->pid: an old leader reaped by de_thread() has the
	 * exec'ing thread's old pid now, its open frames were the leader's.
	 */
	if (trace_func_open_enabled())
		ng_stack_report_open(s, READ_ONCE(s->pid), -1);
	atomic_long_add(ng_stack_recorded(s), &ng_abandoned);
	ng_stack_uncache(s);
	ng_stack_free_rcu(s);
}

/*
 * sched_process_exec: @p (current) has exec'd, and if it was not the
 * thread group's leader, has its leader's pid now.  Its stack stays (it
 * is found by task), with the frames of the exec still open; the pid its
 * open calls are reported under follows.
 */
static void ng_task_exec(void *data, struct task_struct *p, pid_t old_pid,
			 struct linux_binprm *bprm)
{
	struct ng_stack *s;
	unsigned long flags;

	if (p->pid == old_pid)
		return;
	/* Under the lock: a stack given meanwhile took the new pid. */
	raw_spin_lock_irqsave(&ng_table_lock, flags);
	s = ng_stack_of(p);
	if (s)
		WRITE_ONCE(s->pid, p->pid);
	raw_spin_unlock_irqrestore(&ng_table_lock, flags);
}

/* Tasks @map admits that have no stack yet, as of now. */
static unsigned int ng_count_unassigned(struct ng_pid_map *map)
{
	struct task_struct *g, *t;
	unsigned int n = 0;

	rcu_read_lock();
	for_each_process_thread(g, t) {
		if (!ng_pid_map_wants(map, t))
			continue;
		preempt_disable();
		n += !ng_stack_of(t);
		preempt_enable();
	}
	rcu_read_unlock();
	return n;
}

/*
 * Give a stack to every existing task @map (a pid filter, NULL: all)
 * admits, if recording.  Stacks are
 * allocated first (GFP_KERNEL, outside the task list walk), then handed
 * out; tasks that appeared in between got theirs from ng_task_new(), and
 * if any are still missing, go round again.
 */
static int ng_stacks_assign_count(struct ng_pid_map *map, unsigned long *given)
{
	struct ng_stack *spare = NULL, *s;
	struct task_struct *g, *t;
	unsigned int n, tries;
	unsigned long flags;
	int ret = 0;

	if (!READ_ONCE(ng_assigning))
		return 0;	/* not recording: stacks come at the start */
	for (tries = 0; tries < 8; tries++) {
		n = ng_count_unassigned(map);
		if (!n)
			break;
		/* Spares are chained through their task field. */
		while (n--) {
			s = ng_inject(NG_INJECT_STACKS) ? NULL :
			    ng_stack_alloc(GFP_KERNEL | __GFP_NOWARN);
			if (!s) {
				ret = -ENOMEM;
				goto out;
			}
			s->task = (struct task_struct *)spare;
			spare = s;
		}
		rcu_read_lock();
		for_each_process_thread(g, t) {
			if (!spare)
				break;
			if (!ng_pid_map_wants(map, t))
				continue;
			s = spare;
			spare = (struct ng_stack *)s->task;
			raw_spin_lock_irqsave(&ng_table_lock, flags);
			if (!ng_stack_insert(t, s)) {
				s->task = (struct task_struct *)spare;
				spare = s;
			} else {
				(*given)++;
			}
			raw_spin_unlock_irqrestore(&ng_table_lock, flags);
		}
		rcu_read_unlock();
	}
out:
	while (spare) {
		s = spare;
		spare = (struct ng_stack *)s->task;
		ng_stack_free(s);
	}
	return ret;
}

int ng_stacks_assign(struct ng_pid_map *map)
{
	unsigned long given = 0;

	return ng_stacks_assign_count(map, &given);
}

/*
 * A traced task ran without a stack: its fork found none (nostack), or
 * the task_newtask probe did not run for it at all.  Give stacks to
 * whoever lacks one, in process context.  Not with the control lock
 * waited for: ng_stacks_release() cancels this work holding it.  If the
 * lock is busy, the next call without a stack asks again.
 */
static void ng_late_assign(struct work_struct *work)
{
	unsigned long given = 0;

	if (!mutex_trylock(&ng_control_lock))
		return;
	if (READ_ONCE(ng_assigning))
		ng_stacks_assign_count(ng_pids_current(), &given);
	mutex_unlock(&ng_control_lock);
	atomic_long_add(given, &ng_late);
}

static void ng_late_kick(struct irq_work *work)
{
	queue_work(ng_system_unbound_wq, &ng_late_work);
}

/*
 * The hook met a traced task with no stack (tracer.c): its calls are
 * skipped until the work above gives it one.  Any context, NMI too.
 */
void ng_stack_missing(void)
{
	if (READ_ONCE(ng_assigning))
		irq_work_queue(&ng_late_irq);
}

/*
 * Recording starts: the idle tasks' stacks, then new tasks get stacks
 * from the moment ng_assigning is seen (the pool filled first, so that a
 * fork right after gets one from it), then every existing task.  The
 * full barrier pairs with the one in ng_task_new(): a task created
 * concurrently is either given a stack there, or already linked in the
 * task list that ng_stacks_assign() walks after the barrier.
 */
int ng_stacks_start(void)
{
	unsigned long flags;
	int cpu;

	/* Test only: the last drain left no stack cached. */
	ng_stack_check_uncached(NULL);
	for_each_possible_cpu(cpu) {
		struct ng_stack *s;

		if (per_cpu(ng_idle_stacks, cpu))
			continue;
		s = ng_stack_alloc(GFP_KERNEL);
		if (!s)
			return -ENOMEM;
		per_cpu(ng_idle_stacks, cpu) = s;
	}
	raw_spin_lock_irqsave(&ng_table_lock, flags);
	WRITE_ONCE(ng_assigning, true);
	raw_spin_unlock_irqrestore(&ng_table_lock, flags);
	ng_pool_fill();
	/* Pairs with ng_task_new(): set the flag, then walk the task list. */
	smp_mb();
	return ng_stacks_assign(ng_pids_current());
}

/* Recording stops: no hook will push a frame; new tasks need no stack. */
void ng_stacks_stop(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&ng_table_lock, flags);
	WRITE_ONCE(ng_assigning, false);
	raw_spin_unlock_irqrestore(&ng_table_lock, flags);
}

/* Mark every live frame of @s abandoned; return how many were recorded. */
static unsigned int ng_stack_abandon_all(struct ng_stack *s)
{
	unsigned int i, n = ng_stack_recorded(s);

	for (i = 0; i < s->depth; i++)
		s->frames[i].flags |= NG_FRAME_GONE;
	return n;
}

/*
 * Is @tsk's stack still there to write into?  It is freed at the task's
 * last context switch, before the task itself.  Everything is stopped.
 */
static bool ng_task_stack_alive(struct task_struct *tsk)
{
#ifdef CONFIG_THREAD_INFO_IN_TASK
	if (!refcount_read(&tsk->stack_refcount))
		return false;
#endif
	return task_stack_page(tsk);
}

/*
 * Was @tsk preempted, rather than switched out by itself?  The
 * scheduler's own view, not the task's state: a preempted task stays on
 * its run queue (__schedule() dequeues a task only when it blocks), and
 * a task preempted between set_current_state() and schedule() has a
 * sleeping state while it is still runnable, maybe in the middle of a
 * return.  A task that blocked may stay queued too from 6.12, its
 * dequeue delayed (se.sched_delayed): it blocked, so it is not in a
 * return.  Stable here: every CPU is in stop_machine(), with interrupts
 * off, so no run-queue lock is held and no wakeup or migration runs.  An
 * idle task is never preempted (it switches out in schedule_idle(),
 * preemption off).
 */
static bool ng_task_preempted(struct task_struct *tsk)
{
	return tsk->pid && READ_ONCE(tsk->on_rq) && !ng_task_sched_delayed(tsk);
}

/* Tasks a drain step waited for, another tracer wrapping their frames. */
static atomic_long_t ng_drain_wrapped_count;

unsigned long ng_drain_wrapped(void)
{
	return atomic_long_read(&ng_drain_wrapped_count);
}

/* What a drain step did (ng_stacks_abandon()). */
struct ng_abandon {
	unsigned long recorded;	/* recorded frames abandoned */
	unsigned int left;	/* tasks to try again */
	unsigned int wrapped;	/* of which another tracer wraps (the rest: preempted) */
};

/*
 * Put the real return addresses of @tsk's live frames back where the
 * trampoline's address is, and mark the frames abandoned.  Runs under
 * stop_machine(): @tsk is not running.  Frames sharing a key share the
 * slot (a hooked tail call); the slot gets the lowest one's address.
 * All or nothing: changes nothing, and counts the task in @a to try
 * again, if a slot cannot be found, unless the task switched out by
 * itself (asleep, or idle): then every hooked frame has its slot in a
 * frame record, so a frame whose slot is not there is one the task left
 * without returning (stale), harmless to drop.  But not when another
 * tracer's return trampoline holds the slot (foreign_ret.c): the task
 * will come back through ours after that one, so it is waited for,
 * however long it sleeps (counted apart: @a->wrapped).
 */
static void ng_stack_unhook(struct task_struct *tsk, struct ng_stack *s,
			    struct ng_abandon *a)
{
	/* One CPU at a time runs this (stop_machine): no need for the stack. */
	static struct ng_slot_group g[NG_STACK_DEPTH];
	unsigned int n = 0, i;
	int d;

	if (!ng_stack_live(s))
		return;
	if (!ng_task_stack_alive(tsk))
		goto drop;
	for (d = s->depth - 1; d >= 0; d--) {
		struct ng_frame *f = &s->frames[d];

		if (f->flags & NG_FRAME_GONE)
			break;			/* the rest was done before */
		if (n && g[n - 1].key == f->key) {
			g[n - 1].ret = f->ret;	/* one slot, the lower frame's */
			continue;
		}
		g[n].key = f->key;
		g[n].ret = f->ret;
		g[n].slot = NULL;
		n++;
	}
	switch (ng_arch_find_slots(tsk, g, n)) {
	case 0:
		break;
	case -EBUSY:
		/* Another tracer's trampoline wraps ours: wait for it. */
		atomic_long_inc(&ng_drain_wrapped_count);
		a->left++;
		a->wrapped++;
		return;
	default:
		/* Maybe in the middle of a return: try again later. */
		if (ng_task_preempted(tsk)) {
			a->left++;
			return;
		}
		goto drop;
	}
	for (i = 0; i < n; i++)
		ng_arch_put_ret(tsk, g[i].slot, g[i].ret, g[i].key);
drop:
	a->recorded += ng_stack_abandon_all(s);
}

/* The machine stopped to abandon frames, since load (stats drain_stops). */
static atomic_long_t ng_drain_stop_count;

unsigned long ng_drain_stops(void)
{
	return atomic_long_read(&ng_drain_stop_count);
}

/* stop_machine() callback: every other CPU spins with interrupts off. */
static int ng_abandon_stopped(void *data)
{
	struct ng_abandon *a = data;
	struct ng_stack *s;
	unsigned int b;
	int cpu;

	for (b = 0; b < NG_BUCKETS; b++)
		hlist_for_each_entry(s, &ng_buckets[b], node)
			ng_stack_unhook(s->task, s, a);
	for_each_possible_cpu(cpu) {
		s = per_cpu(ng_idle_stacks, cpu);
		if (!s || !ng_stack_live(s))
			continue;
		/*
		 * An offline CPU's idle task restarts on a fresh stack when
		 * the CPU comes back: its frames are gone, nothing to write.
		 */
		if (!cpu_online(cpu) || !s->task)
			a->recorded += ng_stack_abandon_all(s);
		else
			ng_stack_unhook(s->task, s, a);
	}
	return 0;
}

/*
 * Abandon every frame still hooked: the tracer is stopped (no new frame)
 * and the frames did not return in time.  Returns the number of tasks
 * that could not be done now (preempted in the middle of a return, or
 * wrapped by another tracer: *@wrapped of them).
 */
unsigned int ng_stacks_abandon(unsigned int *wrapped)
{
	struct ng_abandon a = {};

	atomic_long_inc(&ng_drain_stop_count);
	stop_machine(ng_abandon_stopped, &a, NULL);
	atomic_long_add(a.recorded, &ng_abandoned);
	*wrapped = a.wrapped;
	return a.left;
}

/*
 * A stack whose frames were all abandoned: its task never returns
 * through them (their real addresses are back), so they only eat the
 * depth of the next recording and, on top, look like a call already
 * hooked.  Dropped unless the task may be in the middle of a return
 * (ng_task_preempted()): then its top frame may still be being popped.
 */
static void ng_stack_trim(struct task_struct *tsk, struct ng_stack *s)
{
	unsigned int i;

	for (i = 0; i < s->depth; i++)
		if (!(s->frames[i].flags & NG_FRAME_GONE))
			return;
	if (tsk && ng_task_preempted(tsk))
		return;
	ng_stack_empty(s, s->depth);
}

/* Does @s (may be NULL) hold frames a drain abandoned?  Racy: a hint. */
static bool ng_stack_abandoned(const struct ng_stack *s)
{
	return s && READ_ONCE(s->depth) &&
	       (READ_ONCE(s->frames[0].flags) & NG_FRAME_GONE);
}

/* stop_machine() callback: no task runs, none can push (no ops). */
static int ng_trim_stopped(void *data)
{
	struct ng_stack *s;
	unsigned int b;
	int cpu;

	for (b = 0; b < NG_BUCKETS; b++)
		hlist_for_each_entry(s, &ng_buckets[b], node)
			ng_stack_trim(s->task, s);
	for_each_possible_cpu(cpu) {
		s = per_cpu(ng_idle_stacks, cpu);
		if (s)
			ng_stack_trim(cpu_online(cpu) ? s->task : NULL, s);
	}
	return 0;
}

/*
 * tracing_on=1 during the drain of the last recording (the stacks are
 * still there): the frames it abandoned go, so that the new recording
 * starts at depth 0.  Only when there are any: it stops the machine.
 */
void ng_stacks_trim_abandoned(void)
{
	struct ng_stack *s;
	bool any = false;
	unsigned int b;
	int cpu;

	rcu_read_lock();
	for (b = 0; b < NG_BUCKETS && !any; b++)
		hlist_for_each_entry_rcu(s, &ng_buckets[b], node)
			if (ng_stack_abandoned(s))
				any = true;
	rcu_read_unlock();
	for_each_possible_cpu(cpu)
		if (ng_stack_abandoned(per_cpu(ng_idle_stacks, cpu)))
			any = true;
	if (any)
		stop_machine(ng_trim_stopped, NULL, NULL);
}

/*
 * The drain is over (no frame live, no task in the trampoline, no ops
 * registered): every stack goes, the pool's too, until recording starts
 * again.
 */
void ng_stacks_release(void)
{
	struct ng_stack *s;
	struct hlist_node *tmp;
	unsigned long flags;
	unsigned int b;
	int cpu;

	/* Recording stopped (no new kick): nothing may assign any more. */
	irq_work_sync(&ng_late_irq);
	cancel_work_sync(&ng_late_work);
	ng_pool_empty();
	/*
	 * No hook runs, nor will before the next start: the caches are
	 * emptied before the stacks' grace periods start.
	 */
	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu(ng_cur_stack, cpu), NULL);

	for (b = 0; b < NG_BUCKETS; b++) {
		raw_spin_lock_irqsave(&ng_table_lock, flags);
		hlist_for_each_entry_safe(s, tmp, &ng_buckets[b], node) {
			hlist_del_rcu(&s->node);
			ng_stack_free_rcu(s);
		}
		raw_spin_unlock_irqrestore(&ng_table_lock, flags);
	}
	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		s = per_cpu(ng_idle_stacks, cpu);
		per_cpu(ng_idle_stacks, cpu) = NULL;
		if (s)
			ng_stack_free_rcu(s);
	}
	cpus_read_unlock();
}

/*
 * A CPU is about to come up: its idle task starts on a fresh stack, so
 * frames it held when the CPU went down will never return.
 */
static int ng_cpu_prepare(unsigned int cpu)
{
	struct ng_stack *s = per_cpu(ng_idle_stacks, cpu);

	if (s && s->depth) {
		if (trace_func_open_enabled())
			ng_stack_report_open(s, 0, cpu);
		atomic_long_add(ng_stack_recorded(s), &ng_abandoned);
		ng_stack_empty(s, s->depth);
	}
	return 0;
}

/*
 * Frames still hooked, and the number of tasks holding them: what keeps
 * the module text in use.  @owners, if given, gets the number of stacks
 * given to tasks.  A racy sum, exact once tracing has stopped.
 */
unsigned long ng_live_frames(unsigned int *tasks, unsigned int *owners)
{
	unsigned int b, n = 0, held = 0, live;
	unsigned long frames = 0;
	struct ng_stack *s;
	int cpu;

	rcu_read_lock_sched();
	for (b = 0; b < NG_BUCKETS; b++) {
		hlist_for_each_entry_rcu(s, &ng_buckets[b], node) {
			held++;
			live = ng_stack_live(s);
			frames += live;
			n += !!live;
		}
	}
	for_each_possible_cpu(cpu) {
		s = per_cpu(ng_idle_stacks, cpu);
		live = s ? ng_stack_live(s) : 0;
		frames += live;
		n += !!live;
	}
	rcu_read_unlock_sched();
	if (tasks)
		*tasks = n;
	if (owners)
		*owners = held;
	return frames;
}

/* Recorded entries that will never have an exit event. */
unsigned long ng_abandoned_frames(void)
{
	return atomic_long_read(&ng_abandoned);
}

static size_t ng_table_bytes(void)
{
	return NG_BUCKETS * sizeof(struct hlist_head);
}

/* Memory the shadow stacks take: the table, and every stack allocated. */
size_t ng_retstack_bytes(void)
{
	return ng_table_bytes() +
	       atomic_long_read(&ng_nstacks) * kmem_cache_size(ng_stack_cache);
}

/* Stacks ready in the pool (racy: for the stats file). */
unsigned int ng_stack_pool(void)
{
	return READ_ONCE(ng_pool_n);
}

unsigned long ng_stack_pool_misses(void)
{
	return atomic_long_read(&ng_pool_misses);
}

/* Tasks created while recording that got no stack: see ng_task_new(). */
unsigned long ng_nostack_tasks(void)
{
	return atomic_long_read(&ng_nostack);
}

/* Stacks given to tasks that had run traced without one. */
unsigned long ng_late_stacks(void)
{
	return atomic_long_read(&ng_late);
}

static void ng_find_tps(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_free"))
		ng_tp_free = tp;
	else if (!strcmp(tp->name, "task_newtask"))
		ng_tp_newtask = tp;
	else if (!strcmp(tp->name, "sched_process_exec"))
		ng_tp_exec = tp;
}

/*
 * Allocate the table and hook task creation and release.  The
 * tracepoints are not exported as symbols; for_each_kernel_tracepoint()
 * finds them by name.
 */
int ng_retstack_init(void)
{
	int ret;

	ng_stack_cache = KMEM_CACHE(ng_stack, 0);
	if (!ng_stack_cache)
		return -ENOMEM;
	ng_buckets = vzalloc(ng_table_bytes());
	if (!ng_buckets) {
		ret = -ENOMEM;
		goto err;
	}
	for_each_kernel_tracepoint(ng_find_tps, NULL);
	if (!ng_tp_free || !ng_tp_newtask || !ng_tp_exec) {
		pr_err("no sched_process_free, task_newtask or sched_process_exec tracepoint\n");
		ret = -ENOENT;
		goto err;
	}
	ret = tracepoint_probe_register(ng_tp_free, ng_task_freed, NULL);
	if (ret)
		goto err;
	ret = tracepoint_probe_register(ng_tp_newtask, ng_task_new, NULL);
	if (ret)
		goto err_free;
	ret = tracepoint_probe_register(ng_tp_exec, ng_task_exec, NULL);
	if (ret)
		goto err_new;
	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, "nanograph:prepare",
					ng_cpu_prepare, NULL);
	if (ret < 0)
		goto err_exec;
	ng_cpuhp_state = ret;
	return 0;
err_exec:
	tracepoint_probe_unregister(ng_tp_exec, ng_task_exec, NULL);
err_new:
	tracepoint_probe_unregister(ng_tp_newtask, ng_task_new, NULL);
err_free:
	tracepoint_probe_unregister(ng_tp_free, ng_task_freed, NULL);
	tracepoint_synchronize_unregister();
err:
	vfree(ng_buckets);
	ng_buckets = NULL;
	kmem_cache_destroy(ng_stack_cache);
	ng_stack_cache = NULL;
	return ret;
}

/* Called once no frame is live and no hook can run any more. */
void ng_retstack_exit(void)
{
	cpuhp_remove_state_nocalls(ng_cpuhp_state);
	tracepoint_probe_unregister(ng_tp_exec, ng_task_exec, NULL);
	tracepoint_probe_unregister(ng_tp_newtask, ng_task_new, NULL);
	tracepoint_probe_unregister(ng_tp_free, ng_task_freed, NULL);
	tracepoint_synchronize_unregister();
	ng_stacks_release();
	/* The stacks' callbacks are ours, and must be done with the cache. */
	rcu_barrier();
	vfree(ng_buckets);
	ng_buckets = NULL;
	kmem_cache_destroy(ng_stack_cache);
	ng_stack_cache = NULL;
}
