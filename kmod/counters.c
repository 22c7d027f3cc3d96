// SPDX-License-Identifier: GPL-2.0
/*
 * Per-call counters (options/counters): how many page faults and context
 * switches a call's task went through while the call ran.
 *
 * The task keeps the four counts itself (min_flt, maj_flt, nvcsw,
 * nivcsw, bumped by the fault handler and the scheduler).  The hook
 * copies them into the new frame, 16 bits each, when the option is on
 * (ng_counts_of()); the frame's pop subtracts, lane by lane, and writes
 * the changes after the call's exit when any is not zero: a counters
 * record in raw mode (include/nanograph_event.h), the func_counters
 * event wherever it is enabled.  A call that changed nothing writes
 * nothing, so the option costs one copy a call and one compare at its
 * return.  Each change is modulo 65536 (a lane's width).
 *
 * A call hooked in an interrupt is counted on the task it interrupted:
 * the counts are that task's, and nearly always unchanged across it.
 */
#define pr_fmt(fmt) "nanograph: " fmt

#include <linux/jump_label.h>
#include <linux/sched.h>

#include "nanograph.h"
#include "nanograph_event.h"
#include "nanograph_trace.h"
#include "rawbuf.h"

DEFINE_STATIC_KEY_FALSE(ng_counters_on);

/*
 * options/counters: on or off at any time.  Frames pushed while it was
 * off carry no counts and write none at their return.
 */
void ng_counters_set(bool on)
{
	lockdep_assert_held(&ng_control_lock);
	if (on)
		static_branch_enable(&ng_counters_on);
	else
		static_branch_disable(&ng_counters_on);
}

/*
 * The exit of the call at @depth of function @ip, whose frame holds the
 * counts of its entry (@entry): write the changes if there are any.
 * Out of line: the return path pays a call only with the option on.
 */
noinline void ng_counters_exit(unsigned long ip, unsigned int depth,
			       u64 entry, u64 now)
{
	u64 cur = ng_counts_of(current), delta = 0;
	int i;

	for (i = 0; i < NG_COUNTS; i++)
		delta |= ((NG_COUNT_LANE(cur, i) - NG_COUNT_LANE(entry, i)) &
			  0xffffULL) << (NG_COUNT_BITS * i);
	if (!delta)
		return;
	if (static_branch_unlikely(&ng_raw_on))
		ng_raw_emit_meta(current, NG_RAW_COUNTERS |
				 (u64)depth << NG_RAW_ARG_SHIFT, delta, now,
				 NG_META_COUNTERS);
	trace_func_counters(ip, ng_tsd(now, depth),
			    NG_COUNT_LANE(delta, NG_COUNT_MINFLT),
			    NG_COUNT_LANE(delta, NG_COUNT_MAJFLT),
			    NG_COUNT_LANE(delta, NG_COUNT_NVCSW),
			    NG_COUNT_LANE(delta, NG_COUNT_NIVCSW));
}
