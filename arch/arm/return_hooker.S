/* SPDX-License-Identifier: GPL-2.0 */
/*
 * 32-bit arm (ARM mode) return trampoline.
 *
 * The entry hook (ng_hook(), kmod/tracer.c) replaced a traced
 * function's return address (in its stack frame, or in lr for functions
 * that keep it there) with ng_return_hooker; the function's return lands
 * here.  Register contract at that point:
 *
 *   r0-r3   the function's return value (r0, or r0:r1): preserved, and
 *           r1:r0 handed to the C side too as a u64 (options/retval,
 *           flight triggers)
 *   sp      the stack pointer the function was called with
 *   r4-r11  callee-saved: left as the function restored them
 *   ip, lr  dead after a return
 *
 * We call the one C entry point, ng_return_handler(sp at entry), which
 * pops the shadow stack and returns the real return address, and return
 * there.  The pad instruction and .cantunwind make the EHABI unwinder stop
 * here quietly when a stack trace meets a hooked frame.
 */
#include <linux/linkage.h>
#include <asm/assembler.h>
#include <asm/unwind.h>

	.text
	.arm
	.align	2
ENTRY(ng_return_hooker_pad)
UNWIND(.fnstart)
UNWIND(.cantunwind)
	nop				@ pad: never executed
ENTRY(ng_return_hooker)
	stmdb	sp!, {r0-r3}		@ save the return value; 16 bytes keep
					@ the stack 8-byte aligned for the call
	mov	r2, r0			@ arg 2, a u64 in the even pair r2:r3:
	mov	r3, r1			@ the return value, low word in r2
	add	r0, sp, #16		@ arg 1: sp at entry, the frame's key
	bl	ng_return_handler	@ r0 = the real return address
	mov	lr, r0			@ return there ...
	ldmia	sp!, {r0-r3}		@ ... with the return value restored
	ret	lr
UNWIND(.fnend)
ENDPROC(ng_return_hooker_pad)
