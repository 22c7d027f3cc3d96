// SPDX-License-Identifier: GPL-2.0
/*
 * 32-bit arm: where a traced function keeps its return address.
 *
 * GCC places the mcount call ("push {lr}; bl __gnu_mcount_nc") after the
 * prologue, which has usually saved LR on the stack already: changing the
 * LR register (regs->ARM_lr) then does nothing, the function returns
 * through the stack copy.  Like the kernel's prepare_ftrace_return(), ask
 * the EHABI unwinder for one frame: if it found LR on the stack, that slot
 * is the one to hook; if LR was not saved, ARM_lr is (ftrace_regs_caller
 * puts it back in lr).  The caller's SP from the same unwind is the key
 * the exit will present.  When the unwinder cannot step (frameless leaf
 * functions), the call is not hooked: it is counted as skipped, so that
 * no push is ever left without its pop.  The answer is the same for every
 * call of a function: site_cache.c keeps it, either way, and the unwinder
 * runs on the first call only.
 */
#include <linux/errno.h>
#include <linux/ftrace.h>
#include <linux/sched.h>
#include <linux/trace_recursion.h>
#include <asm/stacktrace.h>

#include "compat.h"
#include "ng_module.h"
#include "ng_arch_api.h"

struct ng_unwind {
	struct stackframe frame;
	int calls;		/* 1: the start frame; 2: one step unwound */
};

/* Called with the start frame, then after each successful step. */
static NG_WALK_CB(ng_unwind_cb)
{
	struct ng_unwind *u = data;

	return NG_WALK_GO_ON(++u->calls < 2);
}

/*
 * The slow half of ng_arch_hook_site() (ng_arch.h): a function's first
 * call, or every call under site_check.  @cached is the table's answer,
 * if any, to compare with the unwinder's.  Returns the unwinder's answer
 * as a table word (the hook decodes it as it does a cached one; no
 * out-parameters, whose addresses would cost the hook a stack canary):
 * NG_SITE_NONE when the unwinder cannot step, 0 when nothing can be said
 * this time (the recursion lock was taken).
 */
unsigned long ng_arm_hook_unwind(struct pt_regs *regs, unsigned long ip,
				 unsigned long cached)
{
	/*
	 * The saved pt_regs itself, not the ftrace_regs accessors: the
	 * slot rewritten when LR was not saved is &regs->ARM_lr, an address
	 * no accessor gives (as on arm64), and the kernel's own
	 * prepare_ftrace_return() starts its unwind from these fields too.
	 */
	struct ng_unwind u = {
		.frame = {
			.fp = regs->ARM_fp,
			.sp = regs->ARM_sp,
			.lr = ip,
			.pc = ip,
#ifdef CONFIG_KRETPROBES
			.tsk = current,
#endif
		},
	};
	unsigned long where = NG_SITE_NONE;
	int bit;

	/*
	 * The unwinder takes a (traceable) spinlock for module addresses.
	 * Taking the recursion lock a second time claims its transition
	 * bit as well, so a hooked function called from in here returns
	 * at once instead of unwinding into the same lock.
	 */
	bit = ftrace_test_recursion_trylock(ip, 0);
	if (bit < 0)
		return 0;
	walk_stackframe(&u.frame, ng_unwind_cb, &u);
	ftrace_test_recursion_unlock(bit);
	/*
	 * Found: the slot LR was saved to, or the saved regs' LR; the key
	 * is the caller's SP.  A frame too big to encode (none is: stacks
	 * are 8 KiB) is not hooked.
	 */
	if (u.calls >= 2)
		where = ng_site_encode(regs, u.frame.lr != ip ? u.frame.lr_addr :
					     &regs->ARM_lr, u.frame.sp) ?:
			NG_SITE_NONE;
	if (!(cached & NG_SITE_FILLED))
		ng_site_store(ip, where);
	else if (cached != where)
		ng_site_mismatch();
	return where;
}

/*
 * Abandoning a sleeping task's hooked frames (retstack.c): unwind the
 * task from where it last switched out.  Each step that unwinds a hooked
 * function yields the trampoline as the return address, read from the
 * slot at lr_addr, with the caller's SP: the frame's key.  The walk goes
 * on from the real return address (the trampoline itself cannot be
 * unwound).  Everything else is stopped (stop_machine()).  When a slot
 * is missed, a second walk looks for another tracer's return trampoline
 * in the hooked frames (wrapping ours, foreign_ret.c): a task to wait
 * for.
 */
struct ng_unhook_walk {
	struct stackframe frame;
	struct ng_slot_group *g;
	unsigned int n, found;
	bool bad;
	bool foreign;		/* the second walk found another tracer's trampoline */
};

/*
 * The second walk, at each frame: does it return through another
 * tracer (the pc the step read from the stack, or from LR: lr_addr is
 * left stale by steps that pop no LR, never read it here)?  Goes on past
 * any frame of ours whose key it knows, stale groups or not, so that a
 * wrapped group above a stale one is seen.
 */
static NG_WALK_CB(ng_foreign_cb)
{
	struct ng_unhook_walk *w = data;
	struct stackframe *f = &w->frame;
	unsigned int i;

	if (f->sp > w->g[w->n - 1].key)
		return NG_WALK_GO_ON(false);	/* past the hooked frames */
	if (ng_foreign_return(f->pc)) {
		w->foreign = true;
		return NG_WALK_GO_ON(false);
	}
	if (f->pc != (unsigned long)ng_return_hooker)
		return NG_WALK_GO_ON(true);
	for (i = 0; i < w->n; i++) {
		if (w->g[i].key == f->sp) {
			f->pc = w->g[i].ret;
			return NG_WALK_GO_ON(true);
		}
	}
	return NG_WALK_GO_ON(false);
}

static NG_WALK_CB(ng_unhook_cb)
{
	struct ng_unhook_walk *w = data;
	struct stackframe *f = &w->frame;
	struct ng_slot_group *g = &w->g[w->found];

	if (f->pc != (unsigned long)ng_return_hooker)
		return NG_WALK_GO_ON(true);
	if (w->found >= w->n || f->sp != g->key || !f->lr_addr ||
	    READ_ONCE_NOCHECK(*f->lr_addr) != (unsigned long)ng_return_hooker) {
		w->bad = true;
		return NG_WALK_GO_ON(false);
	}
	g->slot = f->lr_addr;
	f->pc = g->ret;
	w->found++;
	return NG_WALK_GO_ON(w->found < w->n);
}

/* Walk @tsk from its last switch, @cb at each frame. */
static void ng_walk_task(struct task_struct *tsk, struct ng_unhook_walk *w,
			 NG_WALK_CB((*cb)))
{
	w->frame = (struct stackframe) {
		.fp = thread_saved_fp(tsk),
		.sp = thread_saved_sp(tsk),
		.lr = 0,
		.pc = thread_saved_pc(tsk),
#ifdef CONFIG_KRETPROBES
		.tsk = tsk,
#endif
	};
	w->found = 0;
	w->bad = false;
	walk_stackframe(&w->frame, cb, w);
}

int ng_arch_find_slots(struct task_struct *tsk, struct ng_slot_group *g,
		       unsigned int n)
{
	struct ng_unhook_walk w = { .g = g, .n = n };

	if (!n)
		return 0;
	ng_walk_task(tsk, &w, ng_unhook_cb);
	if (!w.bad && w.found == n)
		return 0;
	ng_walk_task(tsk, &w, ng_foreign_cb);
	return w.foreign ? -EBUSY : -ENOENT;
}

void ng_arch_put_ret(struct task_struct *tsk, unsigned long *slot,
		     unsigned long ret, unsigned long key)
{
	WRITE_ONCE(*slot, ret);
}
