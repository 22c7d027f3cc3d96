/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - every difference between the kernels nanograph builds for,
 * in one place, one line of history each.  Included from C and from the
 * arch trampolines (assembly).
 */
#ifndef NG_COMPAT_H
#define NG_COMPAT_H

/* 6.16 headers test __ASSEMBLER__ (the compiler's); kbuild defines both. */
#if defined(__ASSEMBLY__) || defined(__ASSEMBLER__)

/*
 * 6.4: objtool got an "undefined" hint type of its own
 * (UNWIND_HINT_UNDEFINED); before, a CALL hint with no stack register said
 * the same.  Either way the ORC unwinder stops with an error (not a clean,
 * "reliable" end) at the return trampoline.  Needs <linux/objtool.h>.
 */
.macro NG_UNWIND_HINT_UNDEFINED
#ifdef UNWIND_HINT_TYPE_UNDEFINED
	UNWIND_HINT_UNDEFINED
#else
	UNWIND_HINT UNWIND_HINT_TYPE_CALL
#endif
.endm

/*
 * 6.2: call depth tracking (renamed MITIGATION_ in 6.9) wants the return
 * after an untracked intra-function call to be a plain ret.
 */
#define NG_PLAIN_RET	__stringify(ANNOTATE_UNRET_SAFE; ret; int3)
.macro NG_RET_AFTER_ROP
#if defined(CONFIG_MITIGATION_CALL_DEPTH_TRACKING) || defined(CONFIG_CALL_DEPTH_TRACKING)
	ALTERNATIVE __stringify(RET), NG_PLAIN_RET, X86_FEATURE_CALL_DEPTH
#else
	RET
#endif
.endm

/*
 * 6.2: call depth tracking (renamed MITIGATION_ in 6.9): code reached by
 * a call that did not go through a call thunk counts itself, as
 * ftrace_caller does (the assembler macro CALL_DEPTH_ACCOUNT).
 */
.macro NG_CALL_DEPTH_ACCOUNT
#if defined(CONFIG_MITIGATION_CALL_DEPTH_TRACKING) || defined(CONFIG_CALL_DEPTH_TRACKING)
	CALL_DEPTH_ACCOUNT
#endif
.endm

#else /* !__ASSEMBLY__ */

#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/workqueue.h>

/*
 * 6.16: sysfs passes bin_attribute callbacks a const attribute, and
 * attribute_group.bin_attrs is an array of const pointers.  Kbuild sets
 * NG_CONST_BIN_ATTR from the header.
 */
#ifdef NG_CONST_BIN_ATTR
#define ng_bin_attr_t		const struct bin_attribute
#define ng_bin_attr_list_t	const struct bin_attribute *const
#else
#define ng_bin_attr_t		struct bin_attribute
#define ng_bin_attr_list_t	struct bin_attribute *
#endif

/*
 * 6.18: the task_newtask tracepoint passes clone_flags as u64 (on 32-bit
 * arm that is two registers, not one).  Kbuild sets NG_CLONE_FLAGS_U64
 * from the header, which has no macro to test.
 */
#ifdef NG_CLONE_FLAGS_U64
#define ng_clone_flags_t	u64
#else
#define ng_clone_flags_t	unsigned long
#endif

/*
 * 6.12: a fair task that blocks may stay on its run queue, dequeue
 * delayed (DELAY_DEQUEUE, se.sched_delayed) until its CPU next picks it.
 * Kbuild sets NG_HAVE_SCHED_DELAYED from the header.
 */
#ifdef NG_HAVE_SCHED_DELAYED
#define ng_task_sched_delayed(tsk)	READ_ONCE((tsk)->se.sched_delayed)
#else
#define ng_task_sched_delayed(tsk)	false
#endif

/*
 * 6.17 (Debian's 6.12 from 6.12.95): system_percpu_wq and system_dfl_wq
 * are system_wq's and system_unbound_wq's new names; 7.2 warns once when
 * work is queued on the deprecated system_wq.
 * Kbuild sets NG_HAVE_SYSTEM_PERCPU_WQ from the header.
 */
#ifdef NG_HAVE_SYSTEM_PERCPU_WQ
#define ng_system_wq		system_percpu_wq
#define ng_system_unbound_wq	system_dfl_wq
#else
#define ng_system_wq		system_wq
#define ng_system_unbound_wq	system_unbound_wq
#endif

/*
 * 6.12: rcu_dynticks_curr_cpu_in_eqs() became rcu_is_watching_curr_cpu()
 * (inverted; RCU_DYNTICKS_IDX, the bit of context_tracking.state both
 * read, became CT_RCU_WATCHING): rcu_is_watching() without its
 * preemption toggle and its call.  Defined where the kernel tracks idle
 * for RCU (TREE_RCU selects CONTEXT_TRACKING_IDLE: every kernel of the
 * matrix); elsewhere the exported call.  Preemption off: this CPU's.
 */
#include <linux/context_tracking.h>
#if defined(CONFIG_CONTEXT_TRACKING_IDLE) && defined(CT_RCU_WATCHING)
#define ng_rcu_watching()	rcu_is_watching_curr_cpu()
#elif defined(CONFIG_CONTEXT_TRACKING_IDLE) && defined(RCU_DYNTICKS_IDX)
#define ng_rcu_watching()	(!rcu_dynticks_curr_cpu_in_eqs())
#else
#define ng_rcu_watching()	rcu_is_watching()
#endif

/*
 * 6.13 (and Debian's 6.12 from stable 6.12.75): struct ftrace_regs became
 * opaque; the arch layout is reached through arch_ftrace_regs().
 */
#ifdef arch_ftrace_regs
#define ng_arch_fregs(fregs)	arch_ftrace_regs(fregs)
#else
#define ng_arch_fregs(fregs)	(fregs)
#endif

/*
 * 6.3: register_ftrace_direct_multi(ops, addr), on x86_64 since 5.16,
 * became register_ftrace_direct(ops, addr) (the one-function API of that
 * name went), and its unregister gained free_filters.  Kbuild sets
 * NG_DIRECT_MULTI from the header.  free_filters stays false: it frees
 * the filter at once, which the hook may be reading (ng_direct_holds()).
 */
#ifdef NG_DIRECT_MULTI
/*
 * 6.1 leaves ops->func and ->trampoline set when the registration
 * fails after setting them (6.3's reset_direct() clears them): every
 * later register of that ops would be EINVAL.
 */
static inline int ng_register_direct(struct ftrace_ops *ops, unsigned long addr)
{
	int ret = register_ftrace_direct_multi(ops, addr);

	if (ret) {
		ops->func = NULL;
		ops->trampoline = 0;
	}
	return ret;
}

#define ng_unregister_direct(ops, addr)	unregister_ftrace_direct_multi(ops, addr)
#else
#define ng_register_direct(ops, addr)	register_ftrace_direct(ops, addr)
#define ng_unregister_direct(ops, addr)	unregister_ftrace_direct(ops, addr, false)
#endif

/*
 * 6.1 (until 6.3's rewrite): register_ftrace_direct_multi() grows its
 * table of direct functions by copying it when it passes 64, 128, 256
 * ... functions, frees only the last old copy of a call (the others
 * leak), and past 8192 copies it for every function added: memory
 * quadratic in the functions, an OOM with every function hooked (test
 * 53 on 6.1).  There a group holds 64 functions at most, which passes
 * one of those sizes per call at most, and every function stays on the
 * ops path.
 */
#ifdef NG_DIRECT_MULTI
#define NG_DIRECT_GROUP_MAX	64UL
#define NG_DIRECT_EVERY		false
#else
#define NG_DIRECT_GROUP_MAX	ULONG_MAX
#define NG_DIRECT_EVERY		true
#endif

/*
 * struct ftrace_hash is private to kernel/trace/trace.h; its head (the
 * size in bits, the buckets, the count) is the same from 3.x to 7.3.
 * Read by direct.c, of an ops of ours that nothing else changes: under
 * ng_control_lock the count for the stats file and the buckets' entries
 * (struct ftrace_func_entry, public in every kernel nanograph builds
 * for) when a module goes; from the hook, one bucket
 * (ng_ops_filter_has()).  An empty hash may be NULL (never set).
 */
struct ng_ftrace_hash_head {
	unsigned long size_bits;
	struct hlist_head *buckets;
	unsigned long count;
};

/* The caller holds ng_control_lock, under which only we change it. */
static inline const struct ng_ftrace_hash_head *
ng_ops_filter_hash(struct ftrace_ops *ops)
{
	return (const void *)rcu_dereference_protected(ops->func_hash->filter_hash,
						       true);
}

static inline unsigned long ng_ops_filter_count(struct ftrace_ops *ops)
{
	const struct ng_ftrace_hash_head *h = ng_ops_filter_hash(ops);

	return h ? h->count : 0;
}

/*
 * Call @fn on each function of @ops's filter until it returns true;
 * whether it did.
 */
static inline bool ng_ops_filter_walk(struct ftrace_ops *ops,
				      bool (*fn)(unsigned long ip, void *arg),
				      void *arg)
{
	const struct ng_ftrace_hash_head *h = ng_ops_filter_hash(ops);
	struct ftrace_func_entry *e;
	unsigned long i;

	if (!h)
		return false;
	for (i = 0; i < 1UL << h->size_bits; i++) {
		hlist_for_each_entry(e, &h->buckets[i], hlist) {
			if (fn(e->ip, arg))
				return true;
		}
	}
	return false;
}

/*
 * Whether @ip is in @ops's filter, read from a hook (preemption off): a
 * filter change publishes the new hash with rcu_assign_pointer()
 * (ftrace_hash_move()) and its caller frees the old one after an RCU
 * grace period (free_ftrace_hash_rcu()), which the hook's section holds
 * off; ftrace_free_filter() does not wait, and is for an ops no hook can
 * reach.  The bucket is ftrace_hash_key()'s, 6.1 to 7.3.  An ops ftrace
 * has never seen has no func_hash yet: the hook may ask a group just
 * before its first filter.
 */
static __always_inline bool ng_ops_filter_has(struct ftrace_ops *ops,
					      unsigned long ip)
{
	/* NULL until ftrace first sees the ops (ftrace_ops_init()). */
	struct ftrace_ops_hash *fh = READ_ONCE(ops->func_hash);
	const struct ng_ftrace_hash_head *h;
	struct ftrace_func_entry *e;
	unsigned long b;

	if (!fh)
		return false;
	h = (const void *)rcu_dereference_sched(fh->filter_hash);
	if (!h || !h->count)
		return false;
	b = h->size_bits ? hash_long(ip, h->size_bits) : 0;
	hlist_for_each_entry_rcu_notrace(e, &h->buckets[b], hlist)
		if (e->ip == ip)
			return true;
	return false;
}

/*
 * CONFIG_TASKS_RUDE_RCU: selected by ftrace on every kernel nanograph
 * builds for (6.1-6.12); later kernels may drop it where noinstr makes
 * idle a quiescent state for RCU Tasks.  Without it there is nothing to
 * wait for.
 */
#ifdef CONFIG_TASKS_RUDE_RCU
#define ng_synchronize_rcu_tasks_rude()	synchronize_rcu_tasks_rude()
#else
#define ng_synchronize_rcu_tasks_rude()	do { } while (0)
#endif

#ifdef CONFIG_X86
/*
 * 6.13 (Debian's 6.12 from 6.12.75): the call-site stack pointer through
 * ftrace_regs_get_stack_pointer(); before, the pt_regs field.
 */
#ifdef ftrace_regs_get_stack_pointer
#define ng_fregs_sp(fregs)	ftrace_regs_get_stack_pointer(fregs)
#else
#define ng_fregs_sp(fregs)	((fregs)->regs.sp)
#endif
/*
 * 6.2: a traced function's argument n through ftrace_regs_get_argument();
 * before, regs_get_kernel_argument() of the pt_regs that ftrace_regs was.
 */
#ifdef ftrace_regs_get_argument
#define ng_fregs_arg(fregs, n)	ftrace_regs_get_argument(fregs, n)
#else
#define ng_fregs_arg(fregs, n)	regs_get_kernel_argument(&(fregs)->regs, n)
#endif
#endif /* CONFIG_X86 */

#ifdef CONFIG_ARM64
/*
 * 6.2: arm64 ftrace moved from WITH_REGS (a pt_regs, LR in regs[30]) to
 * WITH_ARGS (a layout of its own with lr and sp fields).
 */
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_ARGS
/*
 * No accessor gives the address of the saved LR, which is what is
 * rewritten: the kernel's own ftrace_graph_func() takes
 * &arch_ftrace_regs(fregs)->lr too.
 */
#define ng_fregs_lr(fregs)	(&ng_arch_fregs(fregs)->lr)
#define ng_fregs_sp(fregs)	ftrace_regs_get_stack_pointer(fregs)
#define ng_fregs_arg(fregs, n)	ftrace_regs_get_argument(fregs, n)
#else
#define ng_fregs_lr(fregs)	((unsigned long *)&(fregs)->regs.regs[30])
#define ng_fregs_sp(fregs)	((fregs)->regs.sp)
#define ng_fregs_arg(fregs, n)	((fregs)->regs.regs[n])
#endif
/*
 * 6.4: ptrauth_strip_insn_pac() became ptrauth_strip_kernel_insn_pac()
 * (a macro, in asm/compiler.h) for kernel return addresses.
 */
#ifdef ptrauth_strip_kernel_insn_pac
#define ng_strip_pac(ptr)	ptrauth_strip_kernel_insn_pac(ptr)
#else
#define ng_strip_pac(ptr)	ptrauth_strip_insn_pac(ptr)
#endif
#endif /* CONFIG_ARM64 */

#ifdef CONFIG_ARM
/*
 * 6.3: arm's walk_stackframe() callback became a stack_trace_consume_fn,
 * (data, pc) -> continue?, instead of (frame, data) -> stop?.  Kbuild sets
 * NG_WALK_STACKFRAME_PC_CB from the header, which has no macro to test.
 * Either way the callback's cookie is called "data".
 */
#ifdef NG_WALK_STACKFRAME_PC_CB
#define NG_WALK_CB(name)	bool name(void *data, unsigned long pc)
#define NG_WALK_GO_ON(more)	(more)
#else
#define NG_WALK_CB(name)	int name(struct stackframe *frame, void *data)
#define NG_WALK_GO_ON(more)	(!(more))
#endif
#endif /* CONFIG_ARM */

#endif /* __ASSEMBLY__ */

#endif /* NG_COMPAT_H */
