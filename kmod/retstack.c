// SPDX-License-Identifier: GPL-2.0
/*
 * Per-task shadow stacks ("ret_stack"): the real return addresses of the
 * hooked frames, one stack per traced task, found through one table of
 * slots keyed by task pointer.
 *
 * The kernel's fgraph keeps its stack in task_struct and gives one to
 * every task in the system when it starts; none of that is reachable
 * from a module, and most tasks are never traced.  So the module owns a
 * small table of slots, open-addressed by hash_ptr(task), and a task gets
 * a stack only when it claims a slot, on its first recorded call:
 *
 *   ng_tasks[]:  [ task | depth | graph_depth | notrace_depth | frames ] ...
 *                  ^ NULL: never used; NG_TOMBSTONE: freed; else owner
 *   frames  ->   [ ret ip key flags ] x NG_STACK_DEPTH  (from the pool)
 *
 * - Lookup (both hot paths) probes a few slots, no lock, no atomic.
 * - A task claims a slot for itself, with interrupts off and the pool
 *   lock held: the stack is fixed to the slot before the slot shows its
 *   owner.  Only "current" ever claims, and never in NMI; so a task can
 *   never own two slots, and NMIs only look up.
 * - Stacks come from a pool (ng_pool), never from the allocator in the
 *   hook: a hook can run inside the allocator.  The pool is filled when
 *   recording starts and topped up from process context (an irq_work
 *   kicks a work item) when it runs low; a claim that finds it empty is
 *   counted as skipped.  It is emptied when the drain ends.
 * - A slot and its stack are released when the task is freed, from the
 *   sched_process_free tracepoint, after the task's last context switch
 *   and an RCU grace period: the task can never run again, and its
 *   address is not reused before the probe returns.
 *
 * Frames are pushed by bumping depth first and filling the frame after, and
 * popped by reading the frame first and dropping depth after, so that an
 * interrupt or NMI nesting at any point uses the slots above, never ours.
 */
#define pr_fmt(fmt) "nanograph: " fmt

#include <linux/hash.h>
#include <linux/irq_work.h>
#include <linux/irqflags.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "nanograph.h"

#define NG_TOMBSTONE	((struct task_struct *)1UL)
/* Slots probed from the hash position before giving up (and skipping). */
#define NG_PROBES	16

static unsigned int ng_task_bits = 12;	/* 4096 tasks */
/* Recorded frames of tasks that exited inside them (no exit event). */
static atomic_long_t ng_abandoned = ATOMIC_LONG_INIT(0);
static struct ng_task *ng_tasks;
static struct tracepoint *ng_tp_free;

#define NG_STACK_BYTES	(NG_STACK_DEPTH * sizeof(struct ng_frame))
/* Free stacks kept ready while recording; refilled below half of it. */
#define NG_POOL_TARGET	32

/* A free stack, linked through its own first bytes. */
struct ng_free_stack {
	struct ng_free_stack *next;
};

/* Claims and releases, and the pool; taken with interrupts off. */
static DEFINE_RAW_SPINLOCK(ng_pool_lock);
static struct ng_free_stack *ng_pool;
static unsigned int ng_pool_count;
static bool ng_pool_wanted;		/* recording: keep the pool filled */
static atomic_long_t ng_stacks = ATOMIC_LONG_INIT(0);	/* allocated */

static void ng_pool_refill(struct work_struct *work);
static DECLARE_WORK(ng_refill_work, ng_pool_refill);

/* From the claim path, any context but NMI: no locks, just a kick. */
static void ng_pool_kick(struct irq_work *w)
{
	schedule_work(&ng_refill_work);
}

static struct irq_work ng_refill_irq = IRQ_WORK_INIT(ng_pool_kick);

/*
 * Put a stack in the pool (lock held), or hand it back for kfree: when
 * not recording, or when the pool has plenty.
 */
static void *ng_pool_put(void *stack)
{
	struct ng_free_stack *s = stack;

	if (!stack || !ng_pool_wanted || ng_pool_count >= 2 * NG_POOL_TARGET)
		return stack;
	s->next = ng_pool;
	ng_pool = s;
	ng_pool_count++;
	return NULL;
}

static void ng_stack_free(void *stack)
{
	if (!stack)
		return;
	kfree(stack);
	atomic_long_dec(&ng_stacks);
}

/* Fill the pool up to its target, in process context. */
static int ng_pool_fill(void)
{
	unsigned long flags;
	void *stack;

	for (;;) {
		raw_spin_lock_irqsave(&ng_pool_lock, flags);
		if (!ng_pool_wanted || ng_pool_count >= NG_POOL_TARGET) {
			raw_spin_unlock_irqrestore(&ng_pool_lock, flags);
			return 0;
		}
		raw_spin_unlock_irqrestore(&ng_pool_lock, flags);
		stack = kmalloc(NG_STACK_BYTES, GFP_KERNEL);
		if (!stack)
			return -ENOMEM;
		atomic_long_inc(&ng_stacks);
		raw_spin_lock_irqsave(&ng_pool_lock, flags);
		stack = ng_pool_put(stack);
		raw_spin_unlock_irqrestore(&ng_pool_lock, flags);
		ng_stack_free(stack);
	}
}

static void ng_pool_refill(struct work_struct *work)
{
	ng_pool_fill();
}

/* Recording starts: stacks ready for the first claims. */
int ng_retstack_prefill(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&ng_pool_lock, flags);
	ng_pool_wanted = true;
	raw_spin_unlock_irqrestore(&ng_pool_lock, flags);
	return ng_pool_fill();
}

/*
 * The drain has ended (no hook runs): free the pool.  Stacks of live
 * tasks stay with them until they exit.
 */
void ng_retstack_trim(void)
{
	struct ng_free_stack *list;
	unsigned long flags;

	irq_work_sync(&ng_refill_irq);
	raw_spin_lock_irqsave(&ng_pool_lock, flags);
	ng_pool_wanted = false;
	list = ng_pool;
	ng_pool = NULL;
	ng_pool_count = 0;
	raw_spin_unlock_irqrestore(&ng_pool_lock, flags);
	cancel_work_sync(&ng_refill_work);
	while (list) {
		struct ng_free_stack *next = list->next;

		ng_stack_free(list);
		list = next;
	}
}

static inline struct ng_task *ng_slot(unsigned int i)
{
	return &ng_tasks[i & ((1U << ng_task_bits) - 1)];
}

/* The slot of @task, or NULL: safe from any context, takes nothing. */
struct ng_task *ng_task_find(struct task_struct *task)
{
	unsigned int h = hash_ptr(task, ng_task_bits), i;

	for (i = 0; i < NG_PROBES; i++) {
		struct ng_task *t = ng_slot(h + i);
		struct task_struct *owner = READ_ONCE(t->task);

		if (owner == task)
			return t;
		if (!owner)
			break;
	}
	return NULL;
}

/*
 * Claim a slot for current, which ng_task_find() did not find: its first
 * recorded call.  Interrupts are off and the pool lock held, so that an
 * interrupt on this CPU cannot claim a second slot for the same task (the
 * scan finds one claimed since the lookup) and the stack is in place
 * before the slot names its owner; NMIs never claim.
 */
struct ng_task *ng_task_claim(void)
{
	struct task_struct *task = current;
	unsigned int h = hash_ptr(task, ng_task_bits), i;
	struct ng_task *t, *free = NULL;
	unsigned long flags;

	if (in_nmi())
		return NULL;

	raw_spin_lock_irqsave(&ng_pool_lock, flags);
	for (i = 0; i < NG_PROBES; i++) {
		struct task_struct *owner;

		t = ng_slot(h + i);
		owner = READ_ONCE(t->task);
		if (owner == task) {		/* claimed by an interrupt */
			free = t;
			goto out;
		}
		if ((!owner || owner == NG_TOMBSTONE) && !free)
			free = t;
		if (!owner)
			break;
	}
	if (free && ng_pool) {
		/* A free slot's depths are already 0: ng_task_freed() cleared them. */
		free->frames = (struct ng_frame *)ng_pool;
		ng_pool = ng_pool->next;
		ng_pool_count--;
		/* The stack is in place before lockless lookups see the owner. */
		smp_store_release(&free->task, task);
	} else {
		free = NULL;
	}
	if (ng_pool_count < NG_POOL_TARGET / 2)
		irq_work_queue(&ng_refill_irq);
out:
	raw_spin_unlock_irqrestore(&ng_pool_lock, flags);
	return free;
}

/*
 * sched_process_free: @p is gone for good.  Its slot and stack go back;
 * frames it still holds belong to functions that never returned (do_exit
 * and other noreturn paths).
 */
static void ng_task_freed(void *data, struct task_struct *p)
{
	struct ng_task *t = ng_task_find(p);
	unsigned long flags;
	void *stack = NULL;
	unsigned int i;
	long n = 0;

	if (!t)
		return;
	raw_spin_lock_irqsave(&ng_pool_lock, flags);
	if (t->task == p) {
		for (i = 0; i < t->depth; i++)
			n += !(t->frames[i].flags & NG_FRAME_NOTRACE);
		t->graph_depth = 0;
		t->notrace_depth = 0;
		t->depth = 0;
		stack = ng_pool_put(t->frames);
		t->frames = NULL;
		/* The next claimer of the slot sees it cleared. */
		smp_store_release(&t->task, NG_TOMBSTONE);
	}
	raw_spin_unlock_irqrestore(&ng_pool_lock, flags);
	ng_stack_free(stack);
	if (n)
		atomic_long_add(n, &ng_abandoned);
}

/*
 * Frames still hooked, and the number of tasks holding them: what keeps
 * the module text in use.  @owners, if given, gets the number of slots
 * held at all (tasks that were traced and have not exited).  A racy sum,
 * exact once tracing has stopped.
 */
unsigned long ng_live_frames(unsigned int *tasks, unsigned int *owners)
{
	unsigned int i, n = 0, held = 0;
	unsigned long frames = 0;

	for (i = 0; i < (1U << ng_task_bits); i++) {
		struct ng_task *t = &ng_tasks[i];
		struct task_struct *owner = READ_ONCE(t->task);
		unsigned int depth = READ_ONCE(t->depth);

		if (!owner || owner == NG_TOMBSTONE)
			continue;
		held++;
		if (depth) {
			frames += depth;
			n++;
		}
	}
	if (tasks)
		*tasks = n;
	if (owners)
		*owners = held;
	return frames;
}

/* Recorded entries that will never have an exit event: see ng_task_freed(). */
unsigned long ng_abandoned_frames(void)
{
	return atomic_long_read(&ng_abandoned);
}

/* The slot table's size: allocated at load. */
static size_t ng_table_bytes(void)
{
	return sizeof(struct ng_task) << ng_task_bits;
}

/* Memory the shadow stacks take: the table, and every stack allocated. */
size_t ng_retstack_bytes(void)
{
	return ng_table_bytes() + atomic_long_read(&ng_stacks) * NG_STACK_BYTES;
}

static void ng_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_free"))
		ng_tp_free = tp;
}

/*
 * Allocate the table and hook task release.  The tracepoint is not
 * exported as a symbol; for_each_kernel_tracepoint() finds it by name.
 */
int ng_retstack_init(void)
{
	int ret;

	ng_tasks = vzalloc(ng_table_bytes());
	if (!ng_tasks)
		return -ENOMEM;
	for_each_kernel_tracepoint(ng_find_tp, NULL);
	if (!ng_tp_free) {
		pr_err("no sched_process_free tracepoint\n");
		ret = -ENOENT;
		goto err;
	}
	ret = tracepoint_probe_register(ng_tp_free, ng_task_freed, NULL);
	if (ret)
		goto err;
	return 0;
err:
	vfree(ng_tasks);
	ng_tasks = NULL;
	return ret;
}

/* Called once no frame is live and no hook can run any more. */
void ng_retstack_exit(void)
{
	unsigned int i;

	tracepoint_probe_unregister(ng_tp_free, ng_task_freed, NULL);
	tracepoint_synchronize_unregister();
	ng_retstack_trim();
	for (i = 0; i < (1U << ng_task_bits); i++)
		ng_stack_free(ng_tasks[i].frames);
	vfree(ng_tasks);
	ng_tasks = NULL;
}
