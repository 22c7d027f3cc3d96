/* SPDX-License-Identifier: GPL-2.0 */
/*
 * 32-bit arm: the generic timer's virtual counter, through CP15, and where
 * a traced function keeps its return address (hook.c).
 *
 * Debian's armmp kernels also run on ARMv7 cores without the generic
 * timer (Cortex-A5/A8/A9: BeagleBone, i.MX6, OMAP4), where reading
 * CNTVCT is an undefined instruction.  counter.c probes for it at load
 * and otherwise switches a static key to the kernel's NMI-safe
 * monotonic clock (ktime_get_mono_fast_ns(), 1 GHz).
 */
#ifndef NG_ARCH_H
#define NG_ARCH_H

#include <linux/types.h>

#include <linux/ftrace.h>
#include <linux/jump_label.h>
#include <linux/rcupdate.h>
#include <linux/time64.h>

#include "compat.h"
#include "counter.h"

/*
 * FTRACE_OPS_FL_SAVE_REGS: without it ftrace_caller passes no registers,
 * and finding the return address needs the frame's SP and FP.
 */
#define NG_ARCH_OPS_FLAGS	FTRACE_OPS_FL_SAVE_REGS

bool ng_arm_hook_site(struct ftrace_regs *fregs, unsigned long ip,
		      unsigned long **slot, unsigned long *key);

/* Where each function keeps its return address, remembered (site_cache.c). */
struct seq_buf;
bool ng_site_lookup(unsigned long ip, struct pt_regs *regs,
		    unsigned long **slot, unsigned long *key);
void ng_site_store(unsigned long ip, struct pt_regs *regs,
		   unsigned long *slot, unsigned long key);
bool ng_site_checking(void);
void ng_site_mismatch(void);
int ng_site_cache_init(void);
void ng_site_cache_exit(void);
void ng_site_cache_reset(void);
void ng_site_cache_render(struct seq_buf *s);
/* The hooks of kmod/arch_hooks.h arm has. */
#define ng_arch_init		ng_site_cache_init
#define ng_arch_exit		ng_site_cache_exit
#define ng_arch_tracing_start	ng_site_cache_reset
#define ng_arch_stats_render	ng_site_cache_render

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

/* Without a generic timer, the fallback counter (counter.h). */
int ng_arch_counter_init(void);

static inline void ng_arch_counter_exit(void)
{
}

static inline const char *ng_counter_name(void)
{
	if (static_branch_unlikely(&ng_counter_fallback))
		return NG_FALLBACK_COUNTER_NAME;
	return "cntvct";
}

/*
 * CNTVCT is 64 bits wide: MRRC returns the low word in %Q, high in %R.
 * With the generic timer the static key is a nop and this is the whole
 * read; without it the key jumps to the fallback before the MRRC.
 */
static __always_inline u64 ng_counter_read(void)
{
	u64 cnt;

	if (static_branch_unlikely(&ng_counter_fallback))
		return ng_counter_fallback_read();
	asm volatile("mrrc p15, 1, %Q0, %R0, c14" : "=r" (cnt));
	return cnt;
}

/* CNTFRQ: counter frequency in Hz, programmed by firmware. */
static inline u64 ng_cntfrq(void)
{
	u32 freq;

	asm volatile("mrc p15, 0, %0, c14, c0, 0" : "=r" (freq));
	return freq;
}

static inline u64 ng_counter_freq(void)
{
	if (static_branch_unlikely(&ng_counter_fallback))
		return NG_FALLBACK_COUNTER_FREQ;
	return ng_cntfrq();
}

#endif /* NG_ARCH_H */
