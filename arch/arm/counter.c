// SPDX-License-Identifier: GPL-2.0
/*
 * 32-bit arm: which counter stamps events.
 *
 * The generic timer's CNTVCT when the CPU has one and the kernel trusts
 * it; else (Cortex-A5/A8/A9, where MRRC p15, 1 is an undefined
 * instruction) ktime_get_mono_fast_ns(): notrace, NMI-safe, CLOCK_MONOTONIC
 * in nanoseconds, published as a 1 GHz counter so that the collector
 * converts it like any other.  Decided once at load, before anything can
 * read the counter, and kept in a static key: on the generic-timer path
 * the key is a nop.
 */
#define pr_fmt(fmt) "nanograph: " fmt

#include <linux/jump_label.h>
#include <linux/of.h>
#include <linux/printk.h>
#include <linux/timekeeping.h>
#include <linux/trace_recursion.h>
#include <asm/cputype.h>

#include "ng_arch.h"

DEFINE_STATIC_KEY_FALSE(ng_counter_fallback);

/*
 * May CNTVCT be read here?  ID_PFR1.GenTimer (bits [19:16]) says whether
 * the CPU has the generic timer at all, as the kernel's hyp-stub.S checks
 * before touching it.  Then, as the vDSO's cntvct_functional() does:
 * firmware must have programmed the timer (CNTFRQ, and CNTVOFF, which
 * only the hypervisor or secure monitor can set: the device tree says
 * "arm,cpu-registers-not-fw-configured" when it did not).
 */
static bool ng_cntvct_usable(void)
{
	struct device_node *np;
	bool ok;

	if (__LINUX_ARM_ARCH__ < 7)
		return false;	/* no CPUID scheme registers to ask */
	if (cpuid_feature_extract(CPUID_EXT_PFR1, 16) <= 0)
		return false;
	if (!ng_cntfrq())
		return false;
	np = of_find_compatible_node(NULL, NULL, "arm,armv7-timer");
	if (!np)
		np = of_find_compatible_node(NULL, NULL, "arm,armv8-timer");
	ok = np && !of_property_read_bool(np, "arm,cpu-registers-not-fw-configured");
	of_node_put(np);
	return ok;
}

int ng_arch_counter_init(void)
{
	if (ng_cntvct_usable())
		return 0;
	static_branch_enable(&ng_counter_fallback);
	pr_info("CPU %#x has no generic timer set up by firmware: counter is %s\n",
		read_cpuid_id(), ng_counter_name());
	return 0;
}

/*
 * The fallback read.  ktime_get_mono_fast_ns() is notrace, but the
 * clocksource's read function it calls (the Cortex-A9 global timer,
 * SP804) may be traceable.  Take the ftrace recursion lock twice, which
 * holds its transition bit too (the hook holds the lock already when it
 * reads the counter, so the first of the two takes the transition bit),
 * so that a hooked read function returns at once instead of recording
 * itself or reading the counter again.
 */
u64 notrace ng_counter_fallback_read(void)
{
	int bit1, bit2;
	u64 ns;

	bit1 = ftrace_test_recursion_trylock(_THIS_IP_, 0);
	bit2 = ftrace_test_recursion_trylock(_THIS_IP_, 0);
	ns = ktime_get_mono_fast_ns();
	if (bit2 >= 0)
		ftrace_test_recursion_unlock(bit2);
	if (bit1 >= 0)
		ftrace_test_recursion_unlock(bit1);
	return ns;
}
