// SPDX-License-Identifier: GPL-2.0
/*
 * Hooking every function in steps.
 *
 * With set_ftrace_filter empty, ng_ops hooks every traceable function:
 * about 38,000 call sites on x86_64 6.1, more on later kernels.  ftrace
 * patches the sites of one registration, or of one filter change, in one
 * go: on x86 in text_poke batches with no point to reschedule
 * (ftrace_replace_code()), on 32-bit arm under stop_machine(); arm64
 * reschedules between sites (FTRACE_MAY_SLEEP).  Under emulation x86
 * held a CPU for 26 s (an RCU stall).
 *
 * So, where the arch says so (ng_arch_patch_in_steps(): x86; on arm the
 * matcher's pass that each slice costs is about what one stop_machine()
 * patch of every site costs, so slices would not shorten the longest
 * stop much, and arm64 needs none), the ops is registered with a slice of the
 * functions, and its filter grows a slice at a time, rescheduling
 * between the steps, until it is reset to empty ("every function"),
 * which adds only what the slices left out.  The slices go by the first
 * characters of the name, about a tenth of the kernel's functions each.
 * Each step also costs a pass of ftrace's matcher over every function (a
 * symbol lookup each) and one over its records: on x86_64 6.1 under
 * emulation, with init alone recorded, the start went from 6.8 s to 9.4
 * s and its longest patch from 6.7 s to 0.9 s.  What the filter holds in
 * between is ftrace's business alone: the file reads back what was
 * written.
 *
 * Recording stops the same way backwards: the empty filter becomes "*"
 * (the same functions, named one by one: nothing to patch), then loses a
 * slice at a time ("!glob"), and the unregistration patches out what is
 * left.  One slice always stays: a filter that loses its last function
 * is empty again, which is every function.  In one step tracing_on=0 held
 * a CPU 23 s on x86_64 6.1 under stress-ng (a soft lockup in CI); the
 * unregistration also sleeps in RCU Tasks grace periods, so it is not
 * timed, but it patches one slice at most.
 *
 * ng_patch_max_us, for the stats file: the longest single registration
 * or filter change made here, a CPU held that long at most;
 * ng_patch_steps: how many such calls into ftrace there were (whether
 * or not one had text to patch), so that a test tells a start in slices
 * from one in one step by counting, not by timing.
 */
#define pr_fmt(fmt) "nanograph: " fmt

#include <linux/ftrace.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "ng_module.h"
#include "ng_arch_api.h"

/*
 * The slices, in order, each about a tenth of the functions or less
 * (x86_64 6.1: "__" begins 4335 of 38163 names, "s" 3462, "p" 3300, "q"
 * 319), no two sharing a function (the direct path, direct.c, registers
 * one group of functions per slice, and a function can be in one only);
 * anything they miss comes with the final reset.
 */
const char *const ng_slices[NG_NR_SLICES] = {
	"__[a-m]*", "__[!a-m]*", "_[!_]*", "s*", "p*", "i*", "a*", "d*", "c*",
	"[bt]*", "[rf]*", "[mxn]*", "[egkuh]*", "[vlwqozjy]*", "[!a-z_]*",
};

/* In us: an unsigned long is read whole on 32-bit too. */
static unsigned long ng_patch_max_us;
/* Written under ng_control_lock (stats reads it under it too). */
static unsigned long ng_patch_steps;

/*
 * The slice a shrinking filter keeps: "s*", which every kernel has.
 * ng_keep_matched: it matched functions when the filter last grew; if
 * not, the stop is one step.
 */
#define NG_SLICE_KEEP	3
static bool ng_keep_matched;

/*
 * One ftrace call that patches text, begun at @t0, ended: count it, keep
 * the longest.
 */
void ng_patch_timed(u64 t0)
{
	unsigned long d = div_u64(ktime_get_ns() - t0, NSEC_PER_USEC);

	lockdep_assert_held(&ng_control_lock);
	WRITE_ONCE(ng_patch_steps, ng_patch_steps + 1);
	if (d > READ_ONCE(ng_patch_max_us))
		WRITE_ONCE(ng_patch_max_us, d);
}

/* register_ftrace_function(), timed. */
static int ng_register(struct ftrace_ops *ops)
{
	u64 t0 = ktime_get_ns();
	int ret = register_ftrace_function(ops);

	ng_patch_timed(t0);
	return ret;
}

/* The longest single patch since load, in us (stats). */
unsigned long ng_patch_max(void)
{
	return READ_ONCE(ng_patch_max_us);
}

/* The patches (registrations and filter changes) since load (stats). */
unsigned long ng_patch_count(void)
{
	return READ_ONCE(ng_patch_steps);
}

/*
 * Add slice @i to @ops's filter (@reset: replace it), or with @out take
 * it out ("!glob").  -EINVAL: the slice matches no function (nothing
 * changed, nothing to patch).
 */
static int ng_slice_filter(struct ftrace_ops *ops, unsigned int i, bool reset,
			   bool out)
{
	/* ftrace's matcher edits the glob in place: give it a copy. */
	char glob[17] = "!";
	char *g = out ? glob : glob + 1;
	int ret;
	u64 t0;

	strscpy(glob + 1, ng_slices[i], sizeof(glob) - 1);
	t0 = ktime_get_ns();
	ret = ftrace_set_filter(ops, g, strlen(g), reset);
	ng_patch_timed(t0);
	if (i == NG_SLICE_KEEP && !out)
		ng_keep_matched = !ret;
	return ret;
}

/*
 * Grow @ops's filter by the slices from @first on, rescheduling between
 * them, then empty it: every function, the few the slices left out
 * added last.  On failure the filter holds what was added so far.
 */
static int ng_slices_grow(struct ftrace_ops *ops, unsigned int first)
{
	unsigned int i;
	int ret;
	u64 t0;

	for (i = first; i < ARRAY_SIZE(ng_slices); i++) {
		cond_resched();
		ret = ng_inject(NG_INJECT_REGISTER) ? -ENOMEM :
		      ng_slice_filter(ops, i, false, false);
		if (ret && ret != -EINVAL)
			return ret;
	}
	cond_resched();
	t0 = ktime_get_ns();
	ret = ftrace_set_filter(ops, NULL, 0, 1);
	ng_patch_timed(t0);
	return ret;
}

/*
 * Register @ops; if @every (its filter is empty: every function), in
 * steps as above.  On failure @ops is unregistered, its filter empty.
 */
int ng_ops_register_steps(struct ftrace_ops *ops, bool every)
{
	unsigned int i;
	int ret = 0;

	lockdep_assert_held(&ng_control_lock);
	if (!every || !ng_arch_patch_in_steps())
		return ng_inject(NG_INJECT_REGISTER) ? -ENOMEM : ng_register(ops);
	/* The first slice that matches anything starts the filter. */
	for (i = 0; i < ARRAY_SIZE(ng_slices); i++) {
		ret = ng_slice_filter(ops, i, true, false);
		if (ret != -EINVAL)
			break;
	}
	if (i == ARRAY_SIZE(ng_slices))
		ret = 0;	/* none did: every function in one step */
	if (ret)
		goto out_reset;
	ret = ng_register(ops);
	if (ret)
		goto out_reset;
	ret = ng_slices_grow(ops, i + 1);
	if (!ret)
		return 0;
	unregister_ftrace_function(ops);
out_reset:
	ftrace_set_filter(ops, NULL, 0, 1);
	return ret;
}

/*
 * Shrink @ops's filter from empty (every function) to the slice kept, a
 * slice at a time.  On failure the filter holds what it had reached:
 * every function, or "*" less some slices, never an empty one.
 */
static int ng_slices_shrink(struct ftrace_ops *ops)
{
	char all[2] = "*";
	unsigned int i;
	int ret;
	u64 t0;

	if (!ng_keep_matched)
		return -ENOENT;
	t0 = ktime_get_ns();
	ret = ng_inject(NG_INJECT_REGISTER) ? -ENOMEM :
	      ftrace_set_filter(ops, all, 1, 1);
	ng_patch_timed(t0);
	for (i = 0; !ret && i < ARRAY_SIZE(ng_slices); i++) {
		if (i == NG_SLICE_KEEP)
			continue;
		cond_resched();
		ret = ng_slice_filter(ops, i, false, true);
		if (ret == -EINVAL)
			ret = 0;
	}
	cond_resched();
	return ret;
}

/*
 * Unregister @ops, registered by ng_ops_register_steps(@ops, @every):
 * if @every, its filter is shrunk in steps first (x86), and emptied
 * again once it is off.  Should a step fail (ENOMEM), the rest goes in
 * one step, as it would without them.
 */
int ng_ops_unregister_steps(struct ftrace_ops *ops, bool every)
{
	int ret;

	lockdep_assert_held(&ng_control_lock);
	if (!every || !ng_arch_patch_in_steps())
		return unregister_ftrace_function(ops);
	ng_slices_shrink(ops);
	ret = unregister_ftrace_function(ops);
	/* Still registered (ftrace disabled itself?): leave its filter be. */
	if (!WARN_ON_ONCE(ret))
		ftrace_set_filter(ops, NULL, 0, 1);
	return ret;
}

/*
 * set_ftrace_filter emptied while @ops is registered: every function
 * from now on, in steps where the arch patches in steps (a clear would
 * otherwise patch the whole kernel at once, as a one-step start does).
 * On failure the filter may hold some slices beside the old list.
 */
int ng_ops_filter_every(struct ftrace_ops *ops)
{
	u64 t0;
	int ret;

	lockdep_assert_held(&ng_control_lock);
	if (ng_arch_patch_in_steps())
		return ng_slices_grow(ops, 0);
	t0 = ktime_get_ns();
	ret = ftrace_set_filter(ops, NULL, 0, 1);
	ng_patch_timed(t0);
	return ret;
}
