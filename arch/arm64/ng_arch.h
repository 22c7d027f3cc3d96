/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64: the generic timer's virtual counter.
 *
 * CNTVCT_EL0 is what the kernel's arch_timer clocksource and the vDSO
 * read; CNTFRQ_EL0 holds its frequency, programmed by firmware.
 */
#ifndef NG_ARCH_H
#define NG_ARCH_H

#include <linux/types.h>

struct ftrace_regs;

/*
 * The return trampoline for this architecture is not written yet:
 * tracing_on=1 answers EOPNOTSUPP, and these are never called.
 */
#define NG_ARCH_HAS_TRACER	0
#define NG_ARCH_OPS_FLAGS	0

static __always_inline unsigned long *ng_arch_return_slot(struct ftrace_regs *fregs)
{
	return NULL;
}

static __always_inline unsigned long *ng_arch_exit_slot(unsigned long sp)
{
	return NULL;
}

static __always_inline unsigned long ng_arch_hooker(void)
{
	return 0;
}

#define NG_COUNTER_NAME "cntvct_el0"

/*
 * No ISB before the read: like the vDSO's fast path, an event only needs
 * to be ordered against the same task's other events, and the counter
 * read is not allowed to go backwards on one CPU.
 */
static __always_inline u64 ng_counter_read(void)
{
	u64 cnt;

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
