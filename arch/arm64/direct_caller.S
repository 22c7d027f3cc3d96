/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64 direct trampoline (kmod/direct.c).
 *
 * A hooked function's patch site, "mov x9, x30; bl ng_direct_caller",
 * comes here instead of ftrace's caller; where the BL cannot reach us,
 * or another ftrace user shares the function, ftrace_caller branches
 * here (x17) with the same registers.  Register contract at that point:
 *
 *   x0-x8   the traced function's arguments (x8: the indirect result
 *           location): preserved, x0-x5 handed to the C side
 *           (options/args)
 *   x9      the traced function's return address, its caller's LR,
 *           not signed yet (the patch site is before paciasp): the slot
 *           we hook
 *   x30     where the traced function goes on: the address after the BL
 *   x29     the caller's frame pointer (the function has no frame yet)
 *   sp      the traced function's sp at entry: the key its return
 *           presents to ng_return_handler()
 *   x10-x17 scratch (ftrace_caller clobbers them too); x18 untouched
 *
 * We call the one C entry point, ng_direct_entry(pc, slot, key, args),
 * and go on into the traced function with x30 = its return address (the
 * saved x9, perhaps now ng_return_hooker), as ftrace_stub_direct_tramp
 * does.  Two frame records, as ftrace_caller makes: the call site's
 * (x29, x9) and ours (x29, x30), so that the unwinder sees the traced
 * function and its caller.  The slot is a copy of x9 apart from them,
 * as ftrace_caller's FREGS_LR is: a task preempted here after the hook
 * shows the unwinder, and the drain (unhook.c), the real return address
 * in the record, not a slot to put back (the drain waits for it).
 */
#include <linux/linkage.h>
#include <asm/assembler.h>

	.text
SYM_CODE_START(ng_direct_caller)
	hint	#34			/* bti c: reached by BL or BR x17 */
	sub	sp, sp, #112		/* 16-byte aligned save area */
	stp	x0, x1, [sp]		/* the arguments ... */
	stp	x2, x3, [sp, #16]
	stp	x4, x5, [sp, #32]
	stp	x6, x7, [sp, #48]
	stp	x8, x9, [sp, #64]	/* ... the indirect result register; the slot */
	stp	x29, x9, [sp, #96]	/* the call site's frame record */
	add	x29, sp, #96
	stp	x29, x30, [sp, #80]	/* ours */
	add	x29, sp, #80
	mov	x0, x30			/* arg 1: pc, after the BL */
	add	x1, sp, #72		/* arg 2: the slot, the copy of x9 */
	add	x2, sp, #112		/* arg 3: the key, sp at entry */
	mov	x3, sp			/* arg 4: the saved arguments */
	bl	ng_direct_entry		/* may rewrite the slot */
	ldp	x0, x1, [sp]		/* the arguments back */
	ldp	x2, x3, [sp, #16]
	ldp	x4, x5, [sp, #32]
	ldp	x6, x7, [sp, #48]
	ldp	x8, x9, [sp, #64]	/* x9: the return address, maybe ours now */
	ldr	x10, [sp, #88]		/* where the traced function goes on */
	ldr	x29, [sp, #96]		/* the caller's fp */
	add	sp, sp, #112		/* sp as at entry */
	mov	x30, x9			/* the traced function returns there */
	ret	x10			/* into the traced function */
SYM_CODE_END(ng_direct_caller)
