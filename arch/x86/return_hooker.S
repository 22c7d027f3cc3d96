/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86_64 return trampoline.
 *
 * The entry hook (ng_hook(), kmod/tracer.c) replaced a traced
 * function's return address with ng_return_hooker; the function's ret
 * lands here instead of in its caller.  Register contract at that point:
 *
 *   %rax, %rdx   the function's return value: preserved, and %rax handed to
 *                the C side too (options/retval, flight triggers)
 *   %rsp         one word above the slot the ret consumed (slot = %rsp - 8)
 *   others       dead: the SysV ABI gives a caller nothing else after a ret
 *
 * We call the one C entry point, ng_return_handler(%rsp at entry), which
 * pops the shadow stack and returns the real return address, then go
 * there through a call/ret pair rather than an indirect jmp: the return
 * site has no ENDBR (IBT), and the pair keeps the return stack buffer
 * balanced (as the kernel's return_to_handler does).
 *
 * The one int3 before the label gives the ORC unwinder an entry for
 * "return address - 1" that says "undefined": a stack trace through a
 * hooked frame stops there with an error, cleanly and never "reliable".
 */
#include <linux/linkage.h>
#include <linux/objtool.h>
#include <asm/alternative.h>
#include <asm/nospec-branch.h>
#include <asm/unwind_hints.h>

#include "compat.h"

	.text
SYM_CODE_START(ng_return_hooker_pad)
	NG_UNWIND_HINT_UNDEFINED
	ANNOTATE_NOENDBR
	int3				/* never executed: see above */
SYM_INNER_LABEL(ng_return_hooker, SYM_L_GLOBAL)
	NG_UNWIND_HINT_UNDEFINED
	ANNOTATE_NOENDBR		/* reached by ret, never by jmp/call */
	movq	%rsp, %rdi		/* arg 1: %rsp at entry, slot + 8 */
	movq	%rax, %rsi		/* arg 2: the return value */
	subq	$16, %rsp		/* keep 16-byte alignment for the call */
	movq	%rax, (%rsp)		/* save the return value ... */
	movq	%rdx, 8(%rsp)		/* ... both halves */
	call	ng_return_handler	/* %rax = the real return address */
	movq	%rax, %rdi		/* keep it in a dead register */
	movq	8(%rsp), %rdx		/* restore the return value */
	movq	(%rsp), %rax
	addq	$16, %rsp		/* %rsp = slot + 8 again */
	ANNOTATE_INTRA_FUNCTION_CALL
	call	.Ldo_rop		/* push a return address ... */
	int3
.Ldo_rop:
	movq	%rdi, (%rsp)		/* ... and replace it with the real one */
	NG_RET_AFTER_ROP		/* pops it: lands in the caller, %rsp = slot + 8 */
SYM_CODE_END(ng_return_hooker_pad)
