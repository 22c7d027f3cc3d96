// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64: abandoning a sleeping task's hooked frames (retstack.c).
 *
 * A frame's key is the address of its return slot (ng_arch.h), so the
 * slots need no search, only a check: on the task's stack, and still
 * holding the trampoline's address.  A task preempted in the trampoline
 * after its ret may have overwritten the slot (the trampoline saves
 * %rdx there): then the check fails and the task is tried again later.
 * A slot holding another tracer's return trampoline wraps ours
 * (foreign_ret.c): the task is waited for.
 */
#include <linux/errno.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>

#include "ng_module.h"
#include "ng_arch_api.h"

int ng_arch_find_slots(struct task_struct *tsk, struct ng_slot_group *g,
		       unsigned int n)
{
	unsigned long lo = (unsigned long)task_stack_page(tsk);
	unsigned long hi = lo + THREAD_SIZE;
	int ret = 0;
	unsigned int i;

	/* Every group: a stale one below must not hide a wrapped one above. */
	for (i = 0; i < n; i++) {
		unsigned long *slot = (unsigned long *)g[i].key;
		unsigned long v;

		if (g[i].key < lo || g[i].key > hi - sizeof(*slot)) {
			ret = -ENOENT;
			continue;
		}
		v = READ_ONCE_NOCHECK(*slot);
		if (v == (unsigned long)ng_return_hooker) {
			g[i].slot = slot;
			continue;
		}
		if (ng_foreign_return(v))
			return -EBUSY;
		ret = -ENOENT;
	}
	return ret;
}

void ng_arch_put_ret(struct task_struct *tsk, unsigned long *slot,
		     unsigned long ret, unsigned long key)
{
	WRITE_ONCE(*slot, ret);
}
