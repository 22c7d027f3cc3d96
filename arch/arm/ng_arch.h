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
