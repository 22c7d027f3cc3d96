/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64 return trampoline.
 *
 * The entry hook (ng_hook(), kmod/tracer.c) replaced a traced
 * function's return address (its LR, still unsigned at the patch site)
 * with ng_return_hooker; the function's ret lands here.  Register
 * contract at that point:
 *
 *   x0-x7   the function's return value (x0, or x0:x1, or an HFA): preserved,
 *           and x0 handed to the C side too (options/retval, flight
 *           triggers)
 *   sp      the stack pointer the function was called with
 *   x30     ng_return_hooker (authenticated by the callee's autiasp)
 *   x8-x18  caller-saved: dead after a return
 *   x19-x29 callee-saved: left as the function restored them
 *
 * We call the one C entry point, ng_return_handler(sp at entry), which
 * pops the shadow stack and returns the real return address, and leave
 * with ret (not br): ret is the return-predictor hint and needs no BTI
 * landing pad at the return site.  No PAC instructions here: the address
 * we return to was never signed.
 *
 * The one instruction before the label, under a symbol of its own, is
 * for stack traces: the kernel's unwinder reports ng_return_hooker as
 * the return address of a hooked frame, and printers of return addresses
 * (%pB: /proc/PID/stack, ...) look up the address minus one.  Without
 * the pad that lands in whatever function the linker put before us;
 * with it, in ng_return_hooker_pad (Documentation/stack-traces.md).
 */
#include <linux/linkage.h>
#include <asm/assembler.h>

	.text
SYM_CODE_START(ng_return_hooker_pad)
	udf	#0			/* pad: never executed, see above */
SYM_INNER_LABEL(ng_return_hooker, SYM_L_GLOBAL)
	sub	sp, sp, #64		/* 16-byte aligned save area */
	stp	x0, x1, [sp]		/* the return value ... */
	stp	x2, x3, [sp, #16]
	stp	x4, x5, [sp, #32]
	stp	x6, x7, [sp, #48]	/* ... all eight registers of it */
	mov	x1, x0			/* arg 2: the return value */
	add	x0, sp, #64		/* arg 1: sp at entry, the frame's key */
	bl	ng_return_handler	/* x0 = the real return address */
	mov	x30, x0			/* return there */
	ldp	x0, x1, [sp]		/* restore the return value */
	ldp	x2, x3, [sp, #16]
	ldp	x4, x5, [sp, #32]
	ldp	x6, x7, [sp, #48]
	add	sp, sp, #64		/* sp back to what the caller expects */
	ret
SYM_CODE_END(ng_return_hooker_pad)
