// SPDX-License-Identifier: GPL-2.0
/*
 * Per-call counters (options/counters): how many page faults and context
 * switches a call's task went through while the call ran.
 *
 * The task keeps the four counts itself (min_flt, maj_flt, nvcsw,
 * nivcsw, bumped by the fault handler and the scheduler).  The hook
 * copies them into the new frame, 32 bits each in two words, when the
 * option is on (ng_counts_of()); the frame's pop compares the two words
 * with the task's now and, when either changed, writes the changes
 * after the call's exit: a counters record in raw mode
 * (include/nanograph_event.h), whose 16-bit lanes saturate at 65535 (a
 * call that took more faults says "65535 or more", never a small
 * wrapped number), and the func_counters event, with the changes whole,
 * wherever it is enabled.  A call that changed nothing writes nothing,
 * so the option costs two words copied a call and two compared at its
 * return; off, a patched-out branch at entry and a flag test at return.
 *
 * A call hooked in an interrupt is counted on the task it interrupted:
 * the counts are that task's, and nearly always unchanged across it.
 */
#define pr_fmt(fmt) "nanograph: " fmt

#include <linux/jump_label.h>
#include <linux/sched.h>

#include "ng_module.h"
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
 * The exit of the call at @depth of function @ip, whose counts changed
 * from @entry (its frame's) to @cur: write the changes.  Out of line:
 * most calls change nothing and never come here.
 */
noinline void ng_counters_exit(unsigned long ip, unsigned int depth,
			       const u64 entry[2], const u64 cur[2], u64 now)
{
	u32 d[NG_COUNTS];
	u64 lanes = 0;
	int i;

	d[NG_COUNT_MINFLT] = (u32)cur[0] - (u32)entry[0];
	d[NG_COUNT_MAJFLT] = (u32)(cur[0] >> 32) - (u32)(entry[0] >> 32);
	d[NG_COUNT_NVCSW] = (u32)cur[1] - (u32)entry[1];
	d[NG_COUNT_NIVCSW] = (u32)(cur[1] >> 32) - (u32)(entry[1] >> 32);
	for (i = 0; i < NG_COUNTS; i++)
		lanes |= (u64)min_t(u32, d[i], NG_COUNT_SATURATED) <<
			 (NG_COUNT_BITS * i);
	if (static_branch_unlikely(&ng_raw_on))
		ng_raw_emit_meta(current, NG_RAW_COUNTERS |
				 (u64)depth << NG_RAW_ARG_SHIFT, lanes, now,
				 NG_META_COUNTERS);
	trace_func_counters(ip, ng_tsd(now, depth), d[NG_COUNT_MINFLT],
			    d[NG_COUNT_MAJFLT], d[NG_COUNT_NVCSW],
			    d[NG_COUNT_NIVCSW]);
}
