// SPDX-License-Identifier: GPL-2.0
/*
 * The clock file: which counter stamps events, its frequency, and a
 * (counter, CLOCK_MONOTONIC ns) pair so that userspace can convert event
 * timestamps to nanoseconds without asking the kernel per event.
 */
#include <linux/irqflags.h>
#include <linux/jump_label.h>
#include <linux/ktime.h>
#include <linux/timekeeping.h>
#include <linux/trace_recursion.h>

#include "counter.h"
#include "ng_module.h"
#include "nanograph_trace.h"
#include "rawbuf.h"
#include "ng_arch.h"

/* On where the architecture's counter cannot be trusted (counter.h). */
DEFINE_STATIC_KEY_FALSE(ng_counter_fallback);

/*
 * The fallback read.  ktime_get_mono_fast_ns() is notrace, but the
 * clocksource's read function it calls (the Cortex-A9 global timer,
 * SP804, x86's HPET or ACPI PM timer) may be traceable.  Take the ftrace
 * recursion lock twice, which holds its transition bit too (the hook
 * holds the lock already when it reads the counter, so the first of the
 * two takes the transition bit), so that a hooked read function returns
 * at once instead of recording itself or reading the counter again.
 */
u64 notrace ng_counter_fallback_read(void)
{
	int bit1, bit2;
	u64 ns;

	bit1 = ftrace_test_recursion_trylock(_THIS_IP_, 0);
	bit2 = ftrace_test_recursion_trylock(_THIS_IP_, 0);
	ns = ktime_get_mono_fast_ns();
	if (bit2 >= 0)
		ftrace_test_recursion_unlock(bit2);
	if (bit1 >= 0)
		ftrace_test_recursion_unlock(bit1);
	return ns;
}

/*
 * Take the pair with interrupts off and the clock read bracketed by two
 * counter reads; their midpoint is the counter value at the clock read,
 * within half the bracket, which is also published as the uncertainty.
 */
void ng_clock_sync(u64 *counter, u64 *ns, u64 *uncertainty)
{
	unsigned long flags;
	u64 before, after;

	local_irq_save(flags);
	before = ng_counter_read();
	*ns = ktime_get_mono_fast_ns();
	after = ng_counter_read();
	local_irq_restore(flags);
	*counter = before + (after - before) / 2;
	*uncertainty = (after - before + 1) / 2;
}

/* The clock file: counter name, frequency and a fresh sync pair. */
void ng_clock_render(struct seq_buf *s)
{
	u64 counter, ns, unc;

	ng_clock_sync(&counter, &ns, &unc);
	seq_buf_printf(s, "counter: %s\n", ng_counter_name());
	seq_buf_printf(s, "frequency: %llu\n", ng_counter_freq());
	seq_buf_printf(s, "sync: %llu %llu\n", counter, ns);
	seq_buf_printf(s, "sync_uncertainty: %llu\n", unc);
}

/*
 * The same, into the recording itself: a nanograph:clock_sync event, and
 * in raw mode a clock record too (the same pair in both, so that the two
 * modes give the same nanoseconds).
 */
void ng_clock_emit(void)
{
	u64 counter, ns, unc;

	ng_clock_sync(&counter, &ns, &unc);
	trace_clock_sync(counter, ns, ng_counter_freq(), unc);
	ng_raw_emit_clock(counter, ns, ng_counter_freq());
}
