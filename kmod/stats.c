// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU event counts.
 *
 * The hot path bumps its own CPU's counters: under ftrace's recursion
 * lock one per context, with a plain add (ng_ctx_inc()), elsewhere
 * local64 (ng_stat_inc(): no lock, no barrier); the stats file sums them
 * when read.  Nothing is ever lost silently: every event that is not
 * recorded is counted here.
 */
#include <linux/cpumask.h>

#include "ng_arch_api.h"
#include "ng_module.h"

DEFINE_PER_CPU(struct ng_cpu_stats, ng_cpu_stats);

/* The per-CPU columns of the table, as read. */
struct ng_stats_line {
	u64 entries, exits, dropped, skipped;
};

/*
 * One line per possible CPU that has counted anything or is online, then
 * the totals: "cpu entries exits dropped skipped", as in ftrace's
 * per_cpu/cpuN/stats but in one table.
 */
void ng_stats_render(struct seq_buf *s)
{
	struct ng_stats_line sum = {};
	u64 overwritten = ng_raw_flight_cut(), frozen_dropped = 0;
	u64 nested = 0, unwatched = 0, selfcheck = 0, refused = 0, lookups = 0;
	u64 stack_wrong = 0, uncached = 0, moved = 0, looked_up = 0;
	u64 sched = 0, sched_dropped = 0, counters = 0, counters_dropped = 0;
	unsigned long frames;
	unsigned int tasks, owners;
	int cpu;

	seq_buf_printf(s, "# cpu entries exits dropped skipped\n");
	for_each_possible_cpu(cpu) {
		const struct ng_cpu_stats *st = per_cpu_ptr(&ng_cpu_stats, cpu);
		struct ng_stats_line c = {
			.exits = local64_read(&st->exits),
			.dropped = local64_read(&st->dropped),
		};
		int ctx;

		for (ctx = 0; ctx < NG_CTXS; ctx++) {
			c.entries += ng_stat_read(&st->ctx[ctx].entries);
			c.exits += ng_stat_read(&st->ctx[ctx].exits);
			c.skipped += ng_stat_read(&st->ctx[ctx].skipped);
		}

		nested += local64_read(&st->nested);
		unwatched += local64_read(&st->unwatched);
		moved += local64_read(&st->direct_moved);
		looked_up += local64_read(&st->direct_looked_up);
		selfcheck += local64_read(&st->selfcheck);
		refused += local64_read(&st->selfcheck_refused);
		stack_wrong += local64_read(&st->selfcheck_stack);
		uncached += local64_read(&st->selfcheck_uncached);
		lookups += local64_read(&st->trigger_lookups);
		overwritten += local64_read(&st->overwritten);
		frozen_dropped += local64_read(&st->frozen_dropped);
		sched += local64_read(&st->sched_records);
		sched_dropped += local64_read(&st->sched_dropped);
		counters += local64_read(&st->counter_records);
		counters_dropped += local64_read(&st->counter_dropped);
		if (!cpu_online(cpu) && !(c.entries | c.exits | c.dropped | c.skipped))
			continue;
		seq_buf_printf(s, "cpu%d %llu %llu %llu %llu\n", cpu,
			       c.entries, c.exits, c.dropped, c.skipped);
		sum.entries += c.entries;
		sum.exits += c.exits;
		sum.dropped += c.dropped;
		sum.skipped += c.skipped;
	}
	seq_buf_printf(s, "total %llu %llu %llu %llu\n",
		       sum.entries, sum.exits, sum.dropped, sum.skipped);
	/*
	 * Calls not hooked because they ran inside a tracer callback (the
	 * ring buffer's wakeup, a BPF program), as function_graph skips them.
	 */
	seq_buf_printf(s, "nested %llu\n", nested);
	/*
	 * Calls not hooked because RCU was not watching (idle code after
	 * ct_idle_enter(): see ng_hook()); with the test-only selfcheck
	 * parameter, hooks made all the same, and calls refused where
	 * rcu_is_watching() says RCU was watching; and cached shadow stacks
	 * (ng_current_stack()) that were not the lookup's, freed while still
	 * cached, or left cached at a start: all must stay 0.  Also how many
	 * freed stacks were taken out of a cache, to show that path ran.
	 */
	seq_buf_printf(s, "unwatched %llu\n", unwatched);
	/*
	 * Calls the direct path left unhooked (and counted skipped): a
	 * callback at a shared site moved the ip somewhere that is none of
	 * the groups' functions (tracer.c, ng_direct_named()); and those it
	 * named by looking the function up (a site being patched).
	 */
	seq_buf_printf(s, "direct_moved %llu\n", moved);
	seq_buf_printf(s, "direct_looked_up %llu\n", looked_up);
	if (static_branch_unlikely(&ng_selfcheck)) {
		seq_buf_printf(s, "selfcheck_unwatched %llu\n", selfcheck);
		seq_buf_printf(s, "selfcheck_refused %llu\n", refused);
		seq_buf_printf(s, "selfcheck_stack %llu\n", stack_wrong);
		seq_buf_printf(s, "selfcheck_uncached %llu\n", uncached);
	}
	/*
	 * Raw records the flight recorder let go by design: overwritten by
	 * newer ones (or cut off the start of a window), and left out while
	 * a window was frozen.  Not loss: see dropped.
	 */
	seq_buf_printf(s, "overwritten %llu\n", overwritten);
	seq_buf_printf(s, "frozen_dropped %llu\n", frozen_dropped);
	/*
	 * Exits whose function a flight trigger had to look up by name:
	 * once per address and arm, or each time where the verdict table
	 * is full (flight.c).
	 */
	seq_buf_printf(s, "trigger_lookups %llu\n", lookups);
	/*
	 * Scheduling records (options/sched, sched.c) written into the raw
	 * buffers, and those a full buffer left out: neither is an entry
	 * or an exit, so neither is in the table above.
	 */
	seq_buf_printf(s, "sched_records %llu\n", sched);
	seq_buf_printf(s, "sched_dropped %llu\n", sched_dropped);
	/* The same for the counters records (options/counters, counters.c). */
	seq_buf_printf(s, "counter_records %llu\n", counters);
	seq_buf_printf(s, "counter_dropped %llu\n", counters_dropped);
	/* Tasks holding hooked frames keep the module in use. */
	frames = ng_live_frames(&tasks, &owners);
	seq_buf_printf(s, "traced_tasks %u\n", owners);
	seq_buf_printf(s, "live_tasks %u\n", tasks);
	seq_buf_printf(s, "live_frames %lu\n", frames);
	seq_buf_printf(s, "abandoned_frames %lu\n", ng_abandoned_frames());
	/* Every CPU stopped to abandon frames: once a drain, more with backoff. */
	seq_buf_printf(s, "drain_stops %lu\n", ng_drain_stops());
	/*
	 * Tasks the drain waited for, one per stop, because another
	 * tracer's return trampoline wraps a hooked frame (foreign_ret.c).
	 */
	seq_buf_printf(s, "drain_wrapped %lu\n", ng_drain_wrapped());
	seq_buf_printf(s, "retstack_bytes %zu\n", ng_retstack_bytes());
	/*
	 * Tasks that ran traced without a stack (retstack.c): none could be
	 * allocated at fork, or given late; stacks ready for forks, and
	 * forks that found none ready.
	 */
	seq_buf_printf(s, "nostack %lu\n", ng_nostack_tasks());
	seq_buf_printf(s, "late_stacks %lu\n", ng_late_stacks());
	seq_buf_printf(s, "stack_pool %u\n", ng_stack_pool());
	seq_buf_printf(s, "stack_pool_empty %lu\n", ng_stack_pool_misses());
	/*
	 * The longest single patch of the hooked functions' text since
	 * load (ops_steps.c): how long a CPU was held, or on 32-bit arm
	 * every CPU stopped, at most; and how many patches there were.
	 */
	seq_buf_printf(s, "patch_max_us %lu\n", ng_patch_max());
	seq_buf_printf(s, "patch_steps %lu\n", ng_patch_count());
	/* The functions on the direct path and on the ops path (direct.c). */
	ng_direct_stats_render(s);
	ng_arch_stats_render(s);
}
