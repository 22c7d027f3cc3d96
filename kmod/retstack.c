// SPDX-License-Identifier: GPL-2.0
/*
 * Per-task shadow stacks ("ret_stack"): the real return addresses of the
 * hooked frames, one stack per task, in one table keyed by task pointer.
 *
 * The kernel's fgraph keeps its stack in task_struct, allocated at fork;
 * none of that is reachable from a module.  So the module owns a table of
 * slots, open-addressed by hash_ptr(task):
 *
 *   ng_tasks[]:  [ task | depth | frames[0..NG_STACK_DEPTH) ] ...
 *                  ^ NULL: never used; NG_TOMBSTONE: freed; else owner
 *
 * - Lookup (both hot paths) probes a few slots, no lock, no atomic.
 * - A task claims a slot for itself on its first hooked call, with a
 *   cmpxchg and interrupts off, so that it can never own two slots (only
 *   "current" ever inserts itself; NMIs only look up).
 * - A slot is released when its task is freed, from the sched_process_free
 *   tracepoint, after the task's last context switch and an RCU grace
 *   period: the task can never run again, and its address is not reused
 *   before the probe returns.
 *
 * Frames are pushed by bumping depth first and filling the frame after, and
 * popped by reading the frame first and dropping depth after, so that an
 * interrupt or NMI nesting at any point uses the slots above, never ours.
 */
#define pr_fmt(fmt) "nanograph: " fmt

#include <linux/hash.h>
#include <linux/irqflags.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/vmalloc.h>

#include "nanograph.h"

#define NG_TOMBSTONE	((struct task_struct *)1UL)
/* Slots probed from the hash position before giving up (and skipping). */
#define NG_PROBES	16

static unsigned int ng_task_bits = 12;	/* 4096 tasks */
/* Recorded frames of tasks that exited inside them (no exit event). */
static atomic_long_t ng_abandoned = ATOMIC_LONG_INIT(0);
static struct ng_task *ng_tasks;
static struct tracepoint *ng_tp_free;

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
 * recorded call.  Interrupts are off while claiming so that an interrupt
 * on this CPU cannot claim a second slot for the same task (the scan
 * finds one claimed since the lookup); NMIs never claim.
 */
struct ng_task *ng_task_claim(void)
{
	struct task_struct *task = current;
	unsigned int h = hash_ptr(task, ng_task_bits), i;
	struct ng_task *t, *free = NULL;
	unsigned long flags;

	if (in_nmi())
		return NULL;

	local_irq_save(flags);
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
	/* A free slot's depths are already 0: ng_task_freed() cleared them. */
	if (free) {
		struct task_struct *old = READ_ONCE(free->task);

		if ((old && old != NG_TOMBSTONE) || cmpxchg(&free->task, old, task) != old)
			free = NULL;		/* raced with another CPU: skip this call */
	}
out:
	local_irq_restore(flags);
	return free;
}

/*
 * sched_process_free: @p is gone for good.  Its slot goes back to the
 * table; frames it still holds belong to functions that never returned
 * (do_exit and other noreturn paths).
 */
static void ng_task_freed(void *data, struct task_struct *p)
{
	struct ng_task *t = ng_task_find(p);
	unsigned int i;
	long n = 0;

	if (!t)
		return;
	for (i = 0; i < t->depth; i++)
		n += !(t->frames[i].flags & NG_FRAME_NOTRACE);
	if (n)
		atomic_long_add(n, &ng_abandoned);
	t->graph_depth = 0;
	t->notrace_depth = 0;
	WRITE_ONCE(t->depth, 0);
	/* Whoever claims the slot next must see depth 0: order the stores. */
	smp_store_release(&t->task, NG_TOMBSTONE);
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

/* Memory the shadow stacks take: the table is allocated at load. */
size_t ng_retstack_bytes(void)
{
	return sizeof(struct ng_task) << ng_task_bits;
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

	ng_tasks = vzalloc(ng_retstack_bytes());
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
	tracepoint_probe_unregister(ng_tp_free, ng_task_freed, NULL);
	tracepoint_synchronize_unregister();
	vfree(ng_tasks);
	ng_tasks = NULL;
}
