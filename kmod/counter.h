/* SPDX-License-Identifier: GPL-2.0 */
/*
 * counter.h - the fallback counter, for where the architecture's own
 * cannot be trusted: a 32-bit arm CPU without the generic timer, an x86
 * TSC the kernel marked unstable.  ktime_get_mono_fast_ns() is notrace,
 * NMI-safe CLOCK_MONOTONIC in nanoseconds, published as a 1 GHz counter
 * so that the collector converts it like any other.  The architecture
 * decides once at load, before anything reads the counter (its
 * ng_arch_counter_init()); the static key keeps the usual path a nop.
 */
#ifndef NG_COUNTER_H
#define NG_COUNTER_H

#include <linux/jump_label.h>
#include <linux/types.h>

#define NG_FALLBACK_COUNTER_NAME	"ktime_get_mono_fast_ns"
#define NG_FALLBACK_COUNTER_FREQ	1000000000ULL

DECLARE_STATIC_KEY_FALSE(ng_counter_fallback);

u64 ng_counter_fallback_read(void);

#endif /* NG_COUNTER_H */
