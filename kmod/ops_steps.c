// SPDX-License-Identifier: GPL-2.0
/*
 * Hooking every function in steps.
 *
 * With set_ftrace_filter empty, ng_ops hooks every traceable function:
 * about 38,000 call sites on x86_64 6.1, more on later kernels.  ftrace
 * patches the sites of one registration, or of one filter change, in one
 * go: on x86 in text_poke batches with no point to reschedule
 * (ftrace_replace_code()), on arm and arm64 under stop_machine().  Under
 * emulation that held a CPU for 26 s (an RCU stall); on a slow board it
 * stops every CPU for as long.
 *
 * So the ops is registered with a slice of the functions, and its filter
 * grows a slice at a time, rescheduling between the steps, until it is
 * reset to empty ("every function"), which adds only what the slices
 * left out.  The slices go by the first characters of the name, about
 * a tenth of the kernel's functions each.  Each step also costs a pass of
 * ftrace's matcher over every function (a symbol lookup each) and one
 * over its records: 14 steps doubled the start of x86_64 6.1 under
 * emulation (6 s in one step, with init alone recorded), and its
 * longest stop went from 6 s to 0.9 s.  What the filter holds in between is ftrace's business
 * alone: the file reads back what was written.
 *
 * Recording stops in one step: unregistering every function took under
 * 2 s where registering them took 26 s (x86_64 6.1 under emulation, the
 * hook recording all the while), and both are timed.
 *
 * ng_patch_max_ns, for the stats file: the longest single registration,
 * unregistration or filter change made here, the CPU held (or the
 * machine stopped) that long at most.
 */
#define pr_fmt(fmt) "nanograph: " fmt

#include <linux/ftrace.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "nanograph.h"

/*
 * The slices, in order, each about a tenth of the functions or less
 * (x86_64 6.1: "__" begins 4335 of 38163 names, "s" 3462, "p" 3300, "q"
 * 319); anything they miss comes with the final reset.
 */
static const char *const ng_slices[] = {
	"__[a-m]*", "__[!a-m]*", "s*", "p*", "i*", "a*", "d*", "c*", "[bt]*",
	"[rf]*", "[mxn]*", "[egkuh]*", "[vlwqozjy]*", "[!a-z]*",
};

static u64 ng_patch_max_ns;

/* One ftrace call that patches text: timed, the longest kept. */
static int ng_timed(int ret, u64 t0)
{
	u64 d = ktime_get_ns() - t0;

	if (d > READ_ONCE(ng_patch_max_ns))
		WRITE_ONCE(ng_patch_max_ns, d);
	return ret;
}

/* The longest single patch since load, in ns (stats). */
u64 ng_patch_max(void)
{
	return READ_ONCE(ng_patch_max_ns);
}

/*
 * Add slice @i to @ops's filter (@reset: replace it).  A slice that
 * matches no function (EINVAL) is no error: it has nothing to patch.
 */
static int ng_slice_set(struct ftrace_ops *ops, unsigned int i, bool reset)
{
	/* ftrace's matcher edits the glob in place: give it a copy. */
	char glob[16];
	int ret;
	u64 t0;

	strscpy(glob, ng_slices[i], sizeof(glob));
	t0 = ktime_get_ns();
	ret = ftrace_set_filter(ops, glob, strlen(glob), reset);
	return ng_timed(ret, t0) == -EINVAL ? 0 : ret;
}

/*
 * Register @ops; if @every (its filter is empty: every function), in
 * steps as above.  On failure @ops is unregistered, its filter empty.
 */
int ng_ops_register_steps(struct ftrace_ops *ops, bool every)
{
	unsigned int i;
	int ret;

	lockdep_assert_held(&ng_control_lock);
	if (!every)
		return ng_timed(register_ftrace_function(ops), ktime_get_ns());
	/* The first slice that matches anything starts the filter. */
	for (i = 0; i < ARRAY_SIZE(ng_slices); i++) {
		char glob[16];

		strscpy(glob, ng_slices[i], sizeof(glob));
		ret = ftrace_set_filter(ops, glob, strlen(glob), 1);
		if (ret != -EINVAL)
			break;
	}
	if (i == ARRAY_SIZE(ng_slices))
		ret = 0;	/* none did: every function in one step */
	if (ret)
		goto out_reset;
	ret = ng_timed(register_ftrace_function(ops), ktime_get_ns());
	if (ret)
		goto out_reset;
	for (i++; i < ARRAY_SIZE(ng_slices); i++) {
		cond_resched();
		ret = ng_slice_set(ops, i, false);
		if (ret)
			goto out_unregister;
	}
	cond_resched();
	/* Empty again: every function, the few left out added now. */
	ret = ng_timed(ftrace_set_filter(ops, NULL, 0, 1), ktime_get_ns());
	if (!ret)
		return 0;
out_unregister:
	unregister_ftrace_function(ops);
out_reset:
	ftrace_set_filter(ops, NULL, 0, 1);
	return ret;
}

/* Unregister @ops: timed like the rest (see the top of this file). */
int ng_ops_unregister_timed(struct ftrace_ops *ops)
{
	lockdep_assert_held(&ng_control_lock);
	return ng_timed(unregister_ftrace_function(ops), ktime_get_ns());
}
