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

#include <linux/bits.h>
#include <linux/ftrace.h>
#include <linux/hash.h>
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

/*
 * Argument registers an entry can record (options/args), and argument
 * register @n at the call site: r0-r3 of the saved pt_regs
 * (FTRACE_OPS_FL_SAVE_REGS); a fifth argument is on the stack, and a
 * 64-bit one takes an even pair.
 */
#define NG_ARCH_NARGS		4

static __always_inline unsigned long ng_arch_arg(struct ftrace_regs *fregs,
						 unsigned int n)
{
	return ng_arch_fregs(fregs)->regs.uregs[n];
}

/*
 * Where each function keeps its return address, remembered
 * (site_cache.c); its hot half is inline here, in the hook.  An answer is
 * one word: bit 0 set once filled; bit 1 when LR was not saved (the slot
 * is the saved regs' ARM_lr); then the slot's and the key's offsets from
 * the saved SP, in words, 15 bits each.  NG_SITE_NONE (bit 1 with a slot
 * offset, which no hookable function has) says the unwinder cannot step
 * out of the function: it is never hooked.
 */
#define NG_SITE_BITS		13
#define NG_SITES		BIT(NG_SITE_BITS)
/* A lookup or a claim looks at this many slots from the hashed one. */
#define NG_SITE_PROBES		8
#define NG_SITE_FILLED		BIT(0)
#define NG_SITE_IN_LR		BIT(1)
#define NG_SITE_SLOT_SHIFT	2
#define NG_SITE_KEY_SHIFT	17
#define NG_SITE_OFF_MAX		((1UL << 15) - 1)
#define NG_SITE_NONE		(NG_SITE_FILLED | NG_SITE_IN_LR | \
				 BIT(NG_SITE_SLOT_SHIFT))

struct ng_site {
	unsigned long ip;	/* 0: free */
	unsigned long where;	/* the answer; 0: claimed, not yet filled */
};

extern struct ng_site ng_sites[NG_SITES];
extern bool ng_sites_stale;
extern bool ng_site_check;

/*
 * The answer for @ip, or 0.  No barrier: the answer is the one word,
 * written once while its slot's owner cannot change (site_cache.c).
 */
static __always_inline unsigned long ng_site_answer(unsigned long ip)
{
	unsigned int h = hash_32(ip, NG_SITE_BITS), i;

	if (READ_ONCE(ng_sites_stale))
		return 0;
	for (i = 0; i < NG_SITE_PROBES; i++) {
		const struct ng_site *s = &ng_sites[(h + i) & (NG_SITES - 1)];
		unsigned long owner = READ_ONCE(s->ip);

		if (owner == ip)
			return READ_ONCE(s->where);
		if (!owner)
			break;
	}
	return 0;
}

unsigned long ng_site_encode(struct pt_regs *regs, unsigned long *slot,
			     unsigned long key);
void ng_site_store(unsigned long ip, unsigned long where);
void ng_site_mismatch(void);
int ng_site_cache_init(void);
void ng_site_cache_exit(void);
void ng_site_cache_reset(void);
struct seq_buf;
void ng_site_cache_render(struct seq_buf *s);
unsigned long ng_arm_hook_unwind(struct pt_regs *regs, unsigned long ip,
				 unsigned long cached);

/* The optional hooks of kmod/ng_arch_api.h arm has. */
#define ng_arch_init		ng_site_cache_init
#define ng_arch_exit		ng_site_cache_exit
#define ng_arch_tracing_start	ng_site_cache_reset
#define ng_arch_stats_render	ng_site_cache_render

/*
 * Patch every function in slices (kmod/ops_steps.c)?  Not here: one
 * stop_machine() writes all 37,000 sites of arm 6.1 in 1.7 s under
 * emulation; each slice costs ftrace's matcher a pass over every symbol
 * first, so the longest slice still took 0.8 s and the start 7.3 s
 * instead of 1.8 s.
 */
static inline bool ng_arch_patch_in_steps(void)
{
	return false;
}

/*
 * Where the return address of the call being entered is, and the key its
 * return will present: from the function's remembered answer, or from
 * the unwinder (hook.c) on its first call and under site_check.
 */
static __always_inline bool ng_arch_hook_site(struct ftrace_regs *fregs,
					      unsigned long ip,
					      unsigned long **slot,
					      unsigned long *key)
{
	struct pt_regs *regs = &ng_arch_fregs(fregs)->regs;
	unsigned long w = ng_site_answer(ip);

	if (unlikely(!(w & NG_SITE_FILLED) || READ_ONCE(ng_site_check)))
		w = ng_arm_hook_unwind(regs, ip, w);
	if (unlikely(!(w & NG_SITE_FILLED) || w == NG_SITE_NONE))
		return false;
	*slot = w & NG_SITE_IN_LR ? &regs->ARM_lr :
		(unsigned long *)(regs->ARM_sp + 4 *
				  ((w >> NG_SITE_SLOT_SHIFT) & NG_SITE_OFF_MAX));
	*key = regs->ARM_sp + 4 * ((w >> NG_SITE_KEY_SHIFT) & NG_SITE_OFF_MAX);
	return true;
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
