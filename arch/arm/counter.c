// SPDX-License-Identifier: GPL-2.0
/*
 * 32-bit arm: which counter stamps events.
 *
 * The generic timer's CNTVCT when the CPU has one and the kernel trusts
 * it; else (Cortex-A5/A8/A9, where MRRC p15, 1 is an undefined
 * instruction) the fallback counter of kmod/counter.h.
 */
#define pr_fmt(fmt) "nanograph: " fmt

#include <linux/jump_label.h>
#include <linux/of.h>
#include <linux/printk.h>
#include <asm/cputype.h>

#include "ng_arch.h"

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
