/* SPDX-License-Identifier: GPL-2.0 */
/*
 * 32-bit arm: the generic timer's virtual counter, through CP15, and where
 * a traced function keeps its return address (hook.c).
 *
 * The armmp kernels this project targets run on ARMv7 cores with the
 * generic timer (Cortex-A7/A15 and QEMU's virt machine).
 */
#ifndef NG_ARCH_H
#define NG_ARCH_H

#include <linux/types.h>

#include <linux/ftrace.h>
#include <linux/rcupdate.h>

#include "compat.h"

/*
 * FTRACE_OPS_FL_SAVE_REGS: without it ftrace_caller passes no registers,
 * and finding the return address needs the frame's SP and FP.
 */
#define NG_ARCH_OPS_FLAGS	FTRACE_OPS_FL_SAVE_REGS

bool ng_arm_hook_site(struct ftrace_regs *fregs, unsigned long ip,
		      unsigned long **slot, unsigned long *key);

/*
 * Can the hook run here at all?  arm kernels are not ARCH_WANTS_NO_INSTR:
 * traceable code runs in idle while RCU is not watching, where the pid
 * map may be freed under the reader and events cannot be sent.  Checked
 * before anything else the hook does.
 */
static __always_inline bool ng_arch_hook_ok(void)
{
	return rcu_is_watching();
}

/* See hook.c: the unwinder finds where the return address is. */
static __always_inline bool ng_arch_hook_site(struct ftrace_regs *fregs,
					      unsigned long ip,
					      unsigned long **slot,
					      unsigned long *key)
{
	return ng_arm_hook_site(fregs, ip, slot, key);
}

/* The trampoline is entered with the SP the function was called with. */
static __always_inline unsigned long ng_arch_exit_key(unsigned long sp)
{
	return sp;
}

#define NG_COUNTER_NAME "cntvct"

/* CNTVCT is 64 bits wide: MRRC returns the low word in %Q, high in %R. */
static __always_inline u64 ng_counter_read(void)
{
	u64 cnt;

	asm volatile("mrrc p15, 1, %Q0, %R0, c14" : "=r" (cnt));
	return cnt;
}

/* CNTFRQ: counter frequency in Hz, programmed by firmware. */
static inline u64 ng_counter_freq(void)
{
	u32 freq;

	asm volatile("mrc p15, 0, %0, c14, c0, 0" : "=r" (freq));
	return freq;
}

#endif /* NG_ARCH_H */
