/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86_64: the time-stamp counter.
 *
 * The TSC is invariant on every CPU the kernel's tsc clocksource trusts,
 * and the kernel has already measured its rate (tsc_khz).
 */
#ifndef NG_ARCH_H
#define NG_ARCH_H

#include <linux/types.h>
#include <asm/msr.h>
#include <asm/tsc.h>

#define NG_COUNTER_NAME "tsc"

/*
 * Plain RDTSC, not RDTSCP or LFENCE;RDTSC: an event's timestamp only has
 * to order it against the other events of the same task, which program
 * order on one CPU already does, and a fence per call costs more than the
 * rest of the entry path.
 */
static __always_inline u64 ng_counter_read(void)
{
	return rdtsc();
}

/* Counter frequency in Hz, as calibrated by the kernel at boot. */
static inline u64 ng_counter_freq(void)
{
	return (u64)tsc_khz * 1000;
}

#endif /* NG_ARCH_H */
