// SPDX-License-Identifier: GPL-2.0
/*
 * arm64: how the counter is read.
 *
 * Plain MRS CNTVCT_EL0 unless a CPU needs one of the kernel's counter
 * erratum workarounds (CONFIG_ARM_ARCH_TIMER_OOL_WORKAROUND, set in
 * Debian's arm64 kernels): the arch timer driver then points the CPU's
 * timer_unstable_counter_workaround (exported, GPL) at an accessor that
 * reads the counter until it is stable.  A static key, so that CPUs
 * without errata pay nothing: set at load if any online CPU has such a
 * workaround, and when a CPU with one comes online later (a workaround
 * matched by CPU type is only known once that CPU has started).
 *
 * arch_timer_read_counter (also exported) is not used: it is chosen once
 * at boot from what the boot CPU knows, and costs an indirect call and an
 * ISB on every CPU.
 */
#define pr_fmt(fmt) "nanograph: " fmt

#include <linux/cpuhotplug.h>
#include <linux/jump_label.h>
#include <linux/percpu.h>
#include <linux/printk.h>
#include <asm/arch_timer.h>

#include "ng_arch.h"

DEFINE_STATIC_KEY_FALSE(ng_counter_erratum);

#if IS_ENABLED(CONFIG_ARM_ARCH_TIMER_OOL_WORKAROUND)
static enum cpuhp_state ng_counter_hp;

/* Runs for each online CPU at load, then for each CPU coming online. */
static int ng_counter_cpu_online(unsigned int cpu)
{
	const struct arch_timer_erratum_workaround *wa;

	wa = per_cpu(timer_unstable_counter_workaround, cpu);
	if (!wa || !wa->read_cntvct_el0 || static_key_enabled(&ng_counter_erratum))
		return 0;
	/* Hotplug callbacks run with the CPU hotplug lock held. */
	static_branch_enable_cpuslocked(&ng_counter_erratum);
	pr_info("CPU%u has %s: counter read through its workaround\n",
		cpu, wa->desc);
	return 0;
}

int ng_arch_counter_init(void)
{
	int ret;

	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "nanograph/counter:online",
				ng_counter_cpu_online, NULL);
	if (ret < 0)
		return ret;
	ng_counter_hp = ret;
	return 0;
}

void ng_arch_counter_exit(void)
{
	cpuhp_remove_state(ng_counter_hp);
}
#else
int ng_arch_counter_init(void)
{
	return 0;
}

void ng_arch_counter_exit(void)
{
}
#endif
