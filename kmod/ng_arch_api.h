/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What an architecture provides: the whole interface between
 * arch/<arch>/ and the rest of the module, each item with its contract.
 * Adding an architecture is filling in this list: arch/<arch>/ng_arch.h
 * (inline, on the hot path), a return trampoline
 * arch/<arch>/return_hooker.S, and the .c files for the rest, as the
 * kernel's asm/ftrace.h and uftrace's arch/ do.  The build checks that
 * each required item is there with its type (the asserts at the end).
 *
 * Required, in ng_arch.h:
 *
 *   NG_ARCH_OPS_FLAGS	the ftrace_ops flags the hook needs (SAVE_REGS
 *			where ftrace_regs lacks what ng_arch_hook_site()
 *			reads)
 *   NG_ARCH_NARGS	argument registers an entry can record (options/args),
 *			at most NG_ARGS_MAX
 *   ng_arch_arg(fregs, n)
 *			argument register @n at the call site, zero-extended
 *   ng_arch_hook_site(fregs, ip, &slot, &key)
 *			where the traced call's return address is (*slot)
 *			and the key its return will present to
 *			ng_return_handler() (via ng_arch_exit_key()); false
 *			when it cannot be found (the call is not hooked)
 *   ng_arch_exit_key(sp)
 *			the key, from the stack pointer the trampoline
 *			hands ng_return_handler()
 *   ng_arch_patch_in_steps()
 *			whether hooking every function goes in slices
 *			(ops_steps.c)
 *   ng_arch_counter_init(), ng_arch_counter_exit()
 *			choose the counter at load (a static key), undo
 *   ng_counter_name(), ng_counter_read(), ng_counter_freq()
 *			the counter: its name in the clock file, a read
 *			(inline, no fence), its frequency in Hz
 *
 * Required, out of line:
 *
 *   ng_return_hooker	the return trampoline (return_hooker.S, its
 *			register contract at its top): saves the return
 *			value's registers, calls ng_return_handler(sp,
 *			retval) and returns to the address it gives back
 *   ng_arch_find_slots(), ng_arch_put_ret()
 *			abandoning a sleeping task's frames (unhook.c):
 *			find each frame group's return slot on @tsk's
 *			stack, put the real return address back
 *
 * Optional, the direct path (kmod/direct.c), where the kernel has
 * CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS:
 *
 *   NG_ARCH_DIRECT	defined: the architecture has ng_direct_caller
 *   NG_ARCH_CALL_INSN_SIZE
 *			the call site's length: the trampoline hands
 *			ng_direct_entry() the address after it
 *   ng_direct_caller	the direct trampoline (direct_caller.S, its
 *			register contract at its top): entered as ftrace's
 *			caller would be, saves the argument registers, calls
 *			ng_direct_entry(pc, slot, key, args) and goes on into
 *			the traced function
 *   ng_arch_call_target(pc, &to)
 *			optional: whether a call instruction ends just
 *			before @pc, and its target: tracer.c then trusts
 *			@pc - NG_ARCH_CALL_INSN_SIZE as the traced function
 *			only if that call went to the trampoline or to
 *			ftrace's caller of shared sites, and otherwise
 *			looks it up in the groups (ng_direct_holds()).
 *			Without it @pc is trusted: where nothing that runs
 *			before the trampoline is known to move the pc
 *			(arm64: its kprobes trap before the call site and
 *			are not ftrace's; its ftrace caller would hand on a
 *			pc a callback moved all the same)
 *
 * Optional, the defaults below unless ng_arch.h defines a macro of the
 * name (32-bit arm: the return-slot cache, arch/arm/site_cache.c):
 * ng_arch_init()/ng_arch_exit(), ng_arch_tracing_start(),
 * ng_arch_stats_render().
 */
#ifndef NG_ARCH_API_H
#define NG_ARCH_API_H

#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/seq_buf.h>

#include "nanograph_event.h"
#include "ng_arch.h"

struct ftrace_regs;
struct task_struct;
struct ng_slot_group;

/* The trampoline, and the one C function it calls (tracer.c). */
void ng_return_hooker(void);
unsigned long ng_return_handler(unsigned long sp, u64 retval);

/* The direct path, where the kernel and the architecture have it. */
#if defined(NG_ARCH_DIRECT) && defined(CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS)
#define NG_HAVE_DIRECT		1
#define NG_DIRECT_MAX		1
void ng_direct_caller(void);
void ng_direct_entry(unsigned long pc, unsigned long *slot, unsigned long key,
		     const unsigned long *args);
static_assert(NG_ARCH_CALL_INSN_SIZE > 0);
#ifdef ng_arch_call_target
static_assert(__same_type(&ng_arch_call_target,
			  bool (*)(unsigned long, unsigned long *)));
#endif
#else
#define NG_DIRECT_MAX		0
#endif

/*
 * Find the slots of @tsk's @n frame groups (struct ng_slot_group,
 * ng_module.h): 0 when every one holds the trampoline, -EBUSY when one
 * is held by another tracer's return trampoline (ng_foreign_return():
 * wait for the task), -ENOENT when one is not there (a frame left
 * without returning, or a task in the middle of a return).
 */
int ng_arch_find_slots(struct task_struct *tsk, struct ng_slot_group *g,
		       unsigned int n);
/* Put @ret back into @slot of @tsk's frame @key, the trampoline's now. */
void ng_arch_put_ret(struct task_struct *tsk, unsigned long *slot,
		     unsigned long ret, unsigned long key);

/* At module load, after the counter is chosen; and at unload. */
#ifndef ng_arch_init
static inline int ng_arch_init(void)
{
	return 0;
}

static inline void ng_arch_exit(void)
{
}
#endif

/* tracing_on=1, before any ops is registered: no hook runs. */
#ifndef ng_arch_tracing_start
static inline void ng_arch_tracing_start(void)
{
}
#endif

/* The architecture's lines of the stats file. */
#ifndef ng_arch_stats_render
static inline void ng_arch_stats_render(struct seq_buf *s)
{
}
#endif

/* The required items, each with its type. */
static_assert(NG_ARCH_NARGS >= 0 && NG_ARCH_NARGS <= NG_ARGS_MAX);
static_assert(__same_type(NG_ARCH_OPS_FLAGS, 0UL) || __same_type(NG_ARCH_OPS_FLAGS, 0) ||
	      __same_type(NG_ARCH_OPS_FLAGS, 0U));
static_assert(__same_type(&ng_arch_arg,
			  unsigned long (*)(struct ftrace_regs *, unsigned int)));
static_assert(__same_type(&ng_arch_hook_site,
			  bool (*)(struct ftrace_regs *, unsigned long,
				   unsigned long **, unsigned long *)));
static_assert(__same_type(&ng_arch_exit_key, unsigned long (*)(unsigned long)));
static_assert(__same_type(&ng_arch_patch_in_steps, bool (*)(void)));
static_assert(__same_type(&ng_arch_counter_init, int (*)(void)));
static_assert(__same_type(&ng_arch_counter_exit, void (*)(void)));
static_assert(__same_type(&ng_counter_name, const char *(*)(void)));
static_assert(__same_type(&ng_counter_read, u64 (*)(void)));
static_assert(__same_type(&ng_counter_freq, u64 (*)(void)));

#endif /* NG_ARCH_API_H */
