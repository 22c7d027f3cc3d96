/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64: the generic timer's virtual counter, and where a traced function
 * keeps its return address.
 *
 * CNTVCT_EL0 is what the kernel's arch_timer clocksource and the vDSO
 * read; CNTFRQ_EL0 holds its frequency, programmed by firmware.  On CPUs
 * with a counter erratum (counter.c) it is read the way the kernel reads
 * it there, through the erratum's own accessor.
 */
#ifndef NG_ARCH_H
#define NG_ARCH_H

#include <linux/jump_label.h>
#include <linux/types.h>
#include <asm/arch_timer.h>

#include "compat.h"

/*
 * No FTRACE_OPS_FL_SAVE_REGS: ftrace_caller saves the callsite's LR and
 * SP in every case, and arm64 6.12 has no WITH_REGS at all (asking for
 * SAVE_REGS there makes registration fail).
 */
#define NG_ARCH_OPS_FLAGS	0

/*
 * Argument registers an entry can record (options/args), and argument
 * register @n at the call site: x0-x5 of the x0-x8 that ftrace_caller saves.
 */
#define NG_ARCH_NARGS		6

static __always_inline unsigned long ng_arch_arg(struct ftrace_regs *fregs,
						 unsigned int n)
{
	return ng_fregs_arg(fregs, n);
}

/*
 * Where the traced function's return address is, and how its exit will
 * know the frame.  At the patch site (before the prologue, before
 * paciasp) the return address is still in x9, saved as the callsite's LR
 * and put back into x30 when ftrace_caller returns: changing the saved
 * copy is what the kernel's ftrace_graph_func() does, and the callee then
 * signs and authenticates our trampoline address itself, under its own
 * SP.  The SP at the call is the key: the function's epilogue restores it
 * before ret, so the trampoline sees it again.
 */
static __always_inline bool ng_arch_hook_site(struct ftrace_regs *fregs,
					      unsigned long ip,
					      unsigned long **slot,
					      unsigned long *key)
{
	*slot = ng_fregs_lr(fregs);
	*key = ng_fregs_sp(fregs);
	return true;
}

static __always_inline unsigned long ng_arch_exit_key(unsigned long sp)
{
	return sp;
}

/*
 * The direct path (direct_caller.S): the call site is one BL, and
 * ng_direct_caller hands over its LR, the address after it (ftrace_caller
 * subtracts AARCH64_INSN_SIZE from the same for the ops' ip).
 */
#define NG_ARCH_DIRECT		1
#define NG_ARCH_CALL_INSN_SIZE	4

/*
 * Patch every function in slices (kmod/ops_steps.c)?  Not here: arm64's
 * ftrace reschedules between sites (FTRACE_MAY_SLEEP), and one patch of
 * all 42,000 sites of arm64 6.1 took 0.7 s under emulation, while each
 * slice costs ftrace's matcher a pass over every symbol first (1.6 s for
 * the longest, 10.7 s for the start).
 */
static inline bool ng_arch_patch_in_steps(void)
{
	return false;
}

/* Some CPU has a counter erratum: read through its workaround. */
DECLARE_STATIC_KEY_FALSE(ng_counter_erratum);

int ng_arch_counter_init(void);
void ng_arch_counter_exit(void);

static inline const char *ng_counter_name(void)
{
	return "cntvct_el0";
}

/*
 * No ISB before the read: like the vDSO's fast path, an event only needs
 * to be ordered against the same task's other events, and the counter
 * read is not allowed to go backwards on one CPU.
 *
 * Unless a CPU has a counter erratum (Freescale A-008585, HiSilicon
 * 161010101, Cortex-A73 858921, Allwinner A64 UNKNOWN1: reads that can
 * return a wrong value): then, as the kernel's own clocksource does,
 * __arch_counter_get_cntvct_stable(), which applies this CPU's
 * workaround, if any.  It reads a per-CPU pointer: every caller runs
 * with preemption off (the hooks under the recursion lock, the clock
 * pair with interrupts off).
 */
static __always_inline u64 ng_counter_read(void)
{
	u64 cnt;

	if (static_branch_unlikely(&ng_counter_erratum))
		return __arch_counter_get_cntvct_stable();
	asm volatile("mrs %0, cntvct_el0" : "=r" (cnt));
	return cnt;
}

/* Counter frequency in Hz, from the register firmware programmed. */
static inline u64 ng_counter_freq(void)
{
	u64 freq;

	asm volatile("mrs %0, cntfrq_el0" : "=r" (freq));
	return freq;
}

#endif /* NG_ARCH_H */
