// SPDX-License-Identifier: GPL-2.0
/*
 * arm64: abandoning a sleeping task's hooked frames (retstack.c).
 *
 * The hook changed the LR saved by ftrace_caller; the function's prologue
 * then signed it (paciasp, modifier: the SP at entry, which is the
 * frame's key) and stored it in its frame record.  So the slot is found
 * by walking the task's frame records (the kernel is built with frame
 * pointers) from the FP saved at its last context switch, and the real
 * address goes in signed the same way: with the task's own kernel key.
 *
 * Frame F's record lies in F's frame, between its callee's entry SP and
 * its own (F's key): the records holding the trampoline, innermost first,
 * must fall one in each group's range.  A record missing (a task
 * preempted before its prologue stored LR, whose trampoline address is in
 * the saved registers) fails the search; a record in the hooked frames
 * holding another tracer's return trampoline (wrapping ours,
 * foreign_ret.c) makes the task one to wait for.
 */
#include <linux/errno.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <asm/pointer_auth.h>

#include "compat.h"
#include "ng_module.h"
#include "ng_arch_api.h"

/*
 * The frame record at @fp ({ caller's FP, LR }), or NULL off @tsk's
 * stack; then the next one out, NULL at the end of the chain.
 */
static unsigned long *ng_record(struct task_struct *tsk, unsigned long fp)
{
	unsigned long lo = (unsigned long)task_stack_page(tsk);
	unsigned long hi = lo + THREAD_SIZE;

	if (fp < lo || fp > hi - 16 || !IS_ALIGNED(fp, 8))
		return NULL;
	return (unsigned long *)fp;
}

static unsigned long *ng_next_record(struct task_struct *tsk,
				     unsigned long *rec)
{
	unsigned long next = READ_ONCE_NOCHECK(rec[0]);

	return next > (unsigned long)rec ? ng_record(tsk, next) : NULL;
}

/*
 * A group's record missed: is one of the records up to the outermost
 * group's key held by another tracer's return trampoline (wrapping
 * ours, foreign_ret.c)?  Then the task must be waited for.
 */
static int ng_missed(struct task_struct *tsk, unsigned long outer)
{
	unsigned long *rec = ng_record(tsk, tsk->thread.cpu_context.fp);

	for (; rec && (unsigned long)&rec[1] < outer; rec = ng_next_record(tsk, rec))
		if (ng_foreign_return(ng_strip_pac(READ_ONCE_NOCHECK(rec[1]))))
			return -EBUSY;
	return -ENOENT;
}

int ng_arch_find_slots(struct task_struct *tsk, struct ng_slot_group *g,
		       unsigned int n)
{
	unsigned long *rec = ng_record(tsk, tsk->thread.cpu_context.fp);
	unsigned int i = 0;

	if (!n)
		return 0;
	for (; rec; rec = ng_next_record(tsk, rec)) {
		unsigned long *lr = &rec[1];

		if (ng_strip_pac(READ_ONCE_NOCHECK(*lr)) !=
		    (unsigned long)ng_return_hooker)
			continue;
		if (i >= n || (unsigned long)lr >= g[i].key)
			return ng_missed(tsk, g[n - 1].key);	/* group i's */
		g[i++].slot = lr;
	}
	return i == n ? 0 : ng_missed(tsk, g[n - 1].key);
}

#ifdef CONFIG_ARM64_PTR_AUTH_KERNEL
/*
 * Sign @ptr as @tsk's paciasp would with SP = @modifier: load @tsk's
 * kernel APIA key, PACIA1716 (a hint: a NOP on CPUs without pointer
 * authentication, where nothing was signed), load ours back.  Runs
 * under stop_machine() with interrupts off, and calls nothing in
 * between, so no code of ours signs or authenticates with the wrong key.
 */
static noinline unsigned long ng_pac_sign(struct task_struct *tsk,
					  unsigned long ptr,
					  unsigned long modifier)
{
	register unsigned long x17 asm("x17") = ptr;
	register unsigned long x16 asm("x16") = modifier;

	ptrauth_keys_switch_kernel(&tsk->thread.keys_kernel);
	asm volatile("hint #8" : "+r" (x17) : "r" (x16));	/* pacia1716 */
	ptrauth_keys_switch_kernel(&current->thread.keys_kernel);
	return x17;
}
#else
static unsigned long ng_pac_sign(struct task_struct *tsk, unsigned long ptr,
				 unsigned long modifier)
{
	return ptr;
}
#endif

/*
 * Put @ret in the record, signed if the trampoline address there was.
 * Whether it was is not told by comparing it with the bare address: a
 * PAC may come out equal to the bits it replaces (one signing in about
 * 2^15 with 48-bit addresses; once among the 40,000 frames of 20,000
 * sleeping threads, which then returned through an unsigned address and
 * failed autiasp).  Signing the trampoline address as the prologue did
 * and comparing says it exactly.
 */
void ng_arch_put_ret(struct task_struct *tsk, unsigned long *slot,
		     unsigned long ret, unsigned long key)
{
	unsigned long tramp = (unsigned long)ng_return_hooker;

	if (READ_ONCE_NOCHECK(*slot) == ng_pac_sign(tsk, tramp, key))
		ret = ng_pac_sign(tsk, ret, key);
	WRITE_ONCE(*slot, ret);
}
