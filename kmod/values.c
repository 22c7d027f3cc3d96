// SPDX-License-Identifier: GPL-2.0
/*
 * What a call was given and what it returned (options/args,
 * options/retaddr, options/retval): the argument registers and the
 * return address at its entry, the return register at its exit.
 *
 * The hook and the trampoline's C side (tracer.c) have them already:
 * ftrace hands the hook the saved argument registers (ftrace_regs, or
 * pt_regs on 32-bit arm) and the parent ip, and the return trampoline
 * hands the handler the return register (arch/<arch>/return_hooker.S).
 * Recording them is writing them down: in raw mode as records after the
 * entry or exit record, reserved with it (include/nanograph_event.h),
 * and as the func_args and func_retval events wherever enabled.  Off,
 * each costs a patched-out branch; nothing is kept in the frame, so the
 * shadow stacks do not grow.
 *
 * Which registers hold which argument, and of what type, is the
 * collector's business (the kernel's BTF, read with libbpf): the module
 * records registers, zero-extended, and the number asked for.
 */
#define pr_fmt(fmt) "nanograph: " fmt

#include <linux/jump_label.h>
#include <linux/mutex.h>

#include "ng_module.h"
#include "ng_arch_api.h"

DEFINE_STATIC_KEY_FALSE(ng_entry_values_on);
DEFINE_STATIC_KEY_FALSE(ng_retval_on);
unsigned int ng_args_nr;
bool ng_retaddr;

/* Set the key to @on, whatever it was. */
static void ng_key_set(struct static_key_false *key, bool on)
{
	if (on)
		static_branch_enable(key);
	else
		static_branch_disable(key);
}

/*
 * options/args (@nr registers, at most NG_ARCH_NARGS) and
 * options/retaddr: on or off at any time; an entry records what was
 * asked when it was hooked.
 */
int ng_values_set_entry(unsigned int nr, bool retaddr)
{
	lockdep_assert_held(&ng_control_lock);
	if (nr > NG_ARCH_NARGS)
		return -EINVAL;
	WRITE_ONCE(ng_args_nr, nr);
	WRITE_ONCE(ng_retaddr, retaddr);
	ng_key_set(&ng_entry_values_on, nr || retaddr);
	return 0;
}

/* options/retval: on or off at any time. */
void ng_values_set_retval(bool on)
{
	lockdep_assert_held(&ng_control_lock);
	ng_key_set(&ng_retval_on, on);
}
