// SPDX-License-Identifier: GPL-2.0
/*
 * nanograph: a low-overhead function-graph tracer, as a loadable module.
 *
 * This file only brings the parts up and down, in dependency order.
 * Documentation/design.md describes the whole.
 */
#define pr_fmt(fmt) "nanograph: " fmt

#include <linux/init.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "ng_module.h"
#include "ng_arch_api.h"

/*
 * Test-only checks of what the hot path promises, off in any real use
 * (patched-out branches): the hook counts the calls that got past its
 * RCU check with RCU not watching all the same, and those it refused
 * with RCU watching (stats "selfcheck_unwatched", "selfcheck_refused"),
 * and cached shadow stacks that were wrong or stale ("selfcheck_stack";
 * all 56-rcu-watching), and with inject=8 the return path can hold a
 * task (57-preempted-return).
 */
DEFINE_STATIC_KEY_FALSE(ng_selfcheck);
static bool ng_selfcheck_on;
module_param_named(selfcheck, ng_selfcheck_on, bool, 0400);
MODULE_PARM_DESC(selfcheck, "test only: check the hot path's promises (see inject=8)");

/*
 * Choose how the counter is read first: nothing may read it before (on
 * 32-bit arm the default read is an undefined instruction on some CPUs).
 * Create the control directory, then register the ftrace tracer, last:
 * once they exist, users can act.
 */
static int __init nanograph_init(void)
{
	int ret;

	if (ng_selfcheck_on)
		static_branch_enable(&ng_selfcheck);
	ret = ng_locked_down();
	if (ret)
		return ret;
	ret = ng_arch_counter_init();
	if (ret)
		return ret;
	ret = ng_arch_init();
	if (ret)
		goto out_counter;
	ret = ng_tracer_init();
	if (ret)
		goto out_arch;
	ret = ng_control_init();
	if (ret)
		goto out_tracer;
	ret = ng_ft_register();
	if (!ret && ng_inject(NG_INJECT_LOAD)) {
		ng_ft_unregister();
		ret = -ENOMEM;
	}
	if (ret)
		goto out_control;
	pr_info("loaded; control files in /sys/kernel/nanograph\n");
	return 0;

out_control:
	ng_control_exit();
out_tracer:
	/* As at exit, from here on (the flight file's reference too). */
	ng_tracer_exit();
	ng_flight_release();
	ng_lists_free();
out_arch:
	ng_arch_exit();
out_counter:
	ng_arch_counter_exit();
	return ret;
}

/*
 * Unregister the ftrace tracer first (no trace array has it current: that
 * would pin the module), then remove the control directory, so nothing
 * new can start; then wait for every hooked frame to return (tracer.c)
 * before the text goes away.
 */
static void __exit nanograph_exit(void)
{
	ng_tracer_exiting();
	ng_ft_unregister();
	ng_control_exit();
	ng_tracer_exit();
	ng_flight_release();
	ng_lists_free();
	ng_arch_exit();
	ng_arch_counter_exit();
	pr_info("unloaded\n");
}

/*
 * Test-only failures (selftests/vm/tests/55-inject.tc), a mask of
 * NG_INJECT_*: the error paths of a start and of the load, which no
 * real failure reaches on demand.  0 in any real use.
 */
unsigned int ng_inject_mask;
module_param_named(inject, ng_inject_mask, uint, 0600);
MODULE_PARM_DESC(inject, "test only: fail on purpose (1: stacks, 2: ftrace registration, 4: load; 8 with selfcheck: hold a return; 16: slow arm; 32: a module going's hand-over)");

module_init(nanograph_init);
module_exit(nanograph_exit);

MODULE_AUTHOR("The nanograph developers");
MODULE_DESCRIPTION("Low-overhead function-graph tracer with push/pop output");
MODULE_LICENSE("GPL");
