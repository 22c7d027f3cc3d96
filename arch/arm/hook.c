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
 * no push is ever left without its pop.
 */
#include <linux/ftrace.h>
#include <linux/sched.h>
#include <linux/trace_recursion.h>
#include <asm/stacktrace.h>

#include "compat.h"
#include "ng_arch.h"

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

bool ng_arm_hook_site(struct ftrace_regs *fregs, unsigned long ip,
		      unsigned long **slot, unsigned long *key)
{
	struct pt_regs *regs = &ng_arch_fregs(fregs)->regs;
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
	int bit;

	/*
	 * The unwinder takes a (traceable) spinlock for module addresses.
	 * Taking the recursion lock a second time claims its transition
	 * bit as well, so a hooked function called from in here returns
	 * at once instead of unwinding into the same lock.
	 */
	bit = ftrace_test_recursion_trylock(ip, 0);
	if (bit < 0)
		return false;
	walk_stackframe(&u.frame, ng_unwind_cb, &u);
	ftrace_test_recursion_unlock(bit);
	if (u.calls < 2)
		return false;
	*slot = u.frame.lr != ip ? u.frame.lr_addr : &regs->ARM_lr;
	*key = u.frame.sp;
	return true;
}
