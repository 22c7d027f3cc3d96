/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86_64 direct trampoline (kmod/direct.c).
 *
 * A hooked function's fentry call site calls ng_direct_caller instead of
 * ftrace's caller; where another ftrace user shares the function,
 * ftrace_regs_caller runs its callbacks first and then goes here by a
 * ret, with the stack as the call site would have left it.  Register
 * contract at that point:
 *
 *   (%rsp)      where the traced function goes on: its call site + 5
 *   8(%rsp)     the traced function's return address: the slot we hook
 *   %rdi, %rsi, %rdx, %rcx, %r8, %r9
 *               its arguments: preserved, and handed to the C side
 *               (options/args)
 *   %rax        preserved (a varargs call passes a count in %al), as
 *               ftrace_caller does
 *   %r10, %r11  scratch at a function's first instruction
 *   others      callee-saved: the C side keeps them
 *
 * We call the one C entry point, ng_direct_entry(pc, slot, key, args),
 * and return into the traced function.  The frame is a normal one, so
 * the unwinder sees ng_direct_caller called from the traced function's
 * first instruction, as it sees ftrace's caller.
 */
#include <linux/linkage.h>
#include <linux/objtool.h>
#include <asm/alternative.h>
#include <asm/nospec-branch.h>

#include "compat.h"

	.text
SYM_FUNC_START(ng_direct_caller)
	ANNOTATE_NOENDBR		/* called directly or reached by ret, never indirectly */
	NG_CALL_DEPTH_ACCOUNT		/* called by a plain call, not a thunk */
	pushq	%rbp			/* a frame of our own */
	movq	%rsp, %rbp		/* 8(%rbp) = pc, 16(%rbp) = the slot */
	pushq	%rax
	pushq	%r9			/* the arguments, last to first ... */
	pushq	%r8
	pushq	%rcx
	pushq	%rdx
	pushq	%rsi
	pushq	%rdi			/* ... so that (%rsp) is the first */
	movq	8(%rbp), %rdi		/* arg 1: pc, the call site + 5 */
	leaq	16(%rbp), %rsi		/* arg 2: the slot */
	movq	%rsi, %rdx		/* arg 3: the key, the slot's address */
	movq	%rsp, %rcx		/* arg 4: the saved arguments */
	call	ng_direct_entry		/* may rewrite the slot */
	popq	%rdi			/* the arguments back */
	popq	%rsi
	popq	%rdx
	popq	%rcx
	popq	%r8
	popq	%r9
	popq	%rax
	popq	%rbp
	RET				/* into the traced function */
SYM_FUNC_END(ng_direct_caller)
