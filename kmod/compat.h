/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - every difference between the kernels nanograph builds for,
 * in one place, one line of history each.  Included from C and from the
 * arch trampolines (assembly).
 */
#ifndef NG_COMPAT_H
#define NG_COMPAT_H

#include <linux/version.h>

#ifdef __ASSEMBLY__

/*
 * 6.4: objtool's UNWIND_HINT_UNDEFINED replaced the raw "type=CALL end=0"
 * hint.  Either way the ORC unwinder stops with an error (not a clean,
 * "reliable" end) at the return trampoline.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#define NG_UNWIND_HINT_UNDEFINED	UNWIND_HINT_UNDEFINED
#else
#define NG_UNWIND_HINT_UNDEFINED	UNWIND_HINT type=UNWIND_HINT_TYPE_CALL end=0
#endif

/*
 * 6.2: call depth tracking (renamed MITIGATION_ in 6.9) wants the return
 * after an untracked intra-function call to be a plain ret.
 */
#if defined(CONFIG_MITIGATION_CALL_DEPTH_TRACKING) || defined(CONFIG_CALL_DEPTH_TRACKING)
#define NG_RET_AFTER_ROP						\
	ALTERNATIVE __stringify(RET),					\
		    __stringify(ANNOTATE_UNRET_SAFE; ret; int3),	\
		    X86_FEATURE_CALL_DEPTH
#else
#define NG_RET_AFTER_ROP	RET
#endif

#else /* !__ASSEMBLY__ */

#include <linux/ftrace.h>

/*
 * 6.13 (and Debian's 6.12 from stable 6.12.75): struct ftrace_regs became
 * opaque; the arch layout is reached through arch_ftrace_regs().
 */
#ifdef arch_ftrace_regs
#define ng_arch_fregs(fregs)	arch_ftrace_regs(fregs)
#else
#define ng_arch_fregs(fregs)	(fregs)
#endif

#endif /* __ASSEMBLY__ */

#endif /* NG_COMPAT_H */
