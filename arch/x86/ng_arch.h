/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86_64: the time-stamp counter, and where a traced function keeps its
 * return address.
 *
 * The TSC is invariant on every CPU the kernel's tsc clocksource trusts,
 * and the kernel has already measured its rate (tsc_khz).
 */
#ifndef NG_ARCH_H
#define NG_ARCH_H

#include <linux/printk.h>
#include <linux/types.h>
#include <linux/uaccess.h>
#include <asm/msr.h>
#include <asm/text-patching.h>
#include <asm/tsc.h>

#include "compat.h"
#include "counter.h"

/*
 * No FTRACE_OPS_FL_SAVE_REGS: with DYNAMIC_FTRACE_WITH_ARGS the plain
 * ftrace_caller already stores the stack pointer at the call site, and
 * asking for full regs costs about three times as much per call.
 */
#define NG_ARCH_OPS_FLAGS	0

/*
 * Argument registers an entry can record (options/args), and argument
 * register @n at the call site: %rdi, %rsi, %rdx, %rcx, %r8, %r9, all of
 * which ftrace_caller saves.
 */
#define NG_ARCH_NARGS		6

static __always_inline unsigned long ng_arch_arg(struct ftrace_regs *fregs,
						 unsigned int n)
{
	return ng_fregs_arg(fregs, n);
}

/*
 * Where the traced function's return address is, and how its exit will
 * know the frame.  ftrace_caller saves regs.sp pointing at the return
 * slot, which is what the kernel's own ftrace_graph_func() hooks
 * (arch/x86/kernel/ftrace.c); the slot's address is unique while the call
 * lasts, so it is also the key.
 */
static __always_inline bool ng_arch_hook_site(struct ftrace_regs *fregs,
					      unsigned long ip,
					      unsigned long **slot,
					      unsigned long *key)
{
	*slot = (unsigned long *)ng_fregs_sp(fregs);
	*key = (unsigned long)*slot;
	return true;
}

/*
 * The direct path (direct_caller.S): the fentry call site is a 5-byte
 * call, and ng_direct_caller hands over the address after it (what
 * ftrace_caller subtracts MCOUNT_INSN_SIZE from for the ops' ip).
 */
#define NG_ARCH_DIRECT		1
#define NG_ARCH_CALL_INSN_SIZE	CALL_INSN_SIZE

/*
 * The target of the call instruction that ends just before @pc, if one
 * does: how the direct path tells that the call site called its
 * trampoline (tracer.c, ng_direct_named()).  The opcode and the rel32
 * are the low 5 bytes of one 8-byte load at the call: the 3 after it
 * are the traced function's own (the call may be a function's first
 * bytes, at the start of a module's text: nothing before it is read).
 * The load has a fault fixup and no pagefault_disable(), which a kernel
 * address does not need (the fixup, not a sleep, answers its fault; the
 * hook runs with preemption off): a pc that a callback moved may be the
 * last bytes of a mapping.
 */
#define ng_arch_call_target ng_arch_call_target
static __always_inline bool ng_arch_call_target(unsigned long pc,
						unsigned long *to)
{
	u64 insn;

	__get_kernel_nofault(&insn, (u64 *)(pc - CALL_INSN_SIZE), u64, fault);
	*to = pc + (long)(s32)(insn >> 8);
	return (u8)insn == CALL_INSN_OPCODE;
fault:
	return false;
}

/*
 * The traced function's ret popped the slot: the trampoline is entered
 * with %rsp one word above it.
 */
static __always_inline unsigned long ng_arch_exit_key(unsigned long sp)
{
	return sp - sizeof(unsigned long);
}

/*
 * Patch every function in slices (kmod/ops_steps.c)?  Here yes: x86
 * patches each site with text_poke's INT3 dance and sync IPIs, with no
 * point to reschedule; every function in one step held a CPU 6.7 s
 * under emulation (26 s with every task recorded: an RCU stall), in
 * slices 0.9 s at most.
 */
static inline bool ng_arch_patch_in_steps(void)
{
	return true;
}

/*
 * The TSC, unless the kernel found it unstable (its clocksource watchdog
 * saw it drift, or calibration failed: seen on emulated machines under
 * load, where tsc_khz came out at a third of the real rate): then the
 * fallback counter, as the kernel's own tracing switches its default
 * clock to "global".  Decided at load: a TSC the watchdog marks unstable
 * after that is not noticed until the module is loaded again.
 */
static inline int ng_arch_counter_init(void)
{
	if (check_tsc_unstable() || !tsc_khz) {
		static_branch_enable(&ng_counter_fallback);
		pr_info("the TSC is unstable here: counter is %s\n",
			NG_FALLBACK_COUNTER_NAME);
	}
	return 0;
}

static inline void ng_arch_counter_exit(void)
{
}

static inline const char *ng_counter_name(void)
{
	if (static_branch_unlikely(&ng_counter_fallback))
		return NG_FALLBACK_COUNTER_NAME;
	return "tsc";
}

/*
 * Plain RDTSC, not RDTSCP or LFENCE;RDTSC: an event's timestamp only has
 * to order it against the other events of the same task, which program
 * order on one CPU already does, and a fence per call costs more than the
 * rest of the entry path.
 */
static __always_inline u64 ng_counter_read(void)
{
	if (static_branch_unlikely(&ng_counter_fallback))
		return ng_counter_fallback_read();
	return rdtsc();
}

/* Counter frequency in Hz, as calibrated by the kernel at boot. */
static inline u64 ng_counter_freq(void)
{
	if (static_branch_unlikely(&ng_counter_fallback))
		return NG_FALLBACK_COUNTER_FREQ;
	return (u64)tsc_khz * 1000;
}

#endif /* NG_ARCH_H */
