/* SPDX-License-Identifier: GPL-2.0 */
/*
 * 32-bit arm: the generic timer's virtual counter, through CP15.
 *
 * The armmp kernels this project targets run on ARMv7 cores with the
 * generic timer (Cortex-A7/A15 and QEMU's virt machine).
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

static __always_inline unsigned long ng_arch_frame_key(struct ftrace_regs *fregs,
						       unsigned long *slot)
{
	return 0;
}

static __always_inline unsigned long ng_arch_exit_key(unsigned long sp)
{
	return 0;
}

static __always_inline unsigned long ng_arch_hooker(void)
{
	return 0;
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
