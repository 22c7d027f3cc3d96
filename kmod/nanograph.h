/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nanograph: internal interfaces between the module's parts.
 *
 * Each .c file has one job: main.c brings the parts up and down in order,
 * control.c is the sysfs control directory, clock.c publishes the counter,
 * stats.c keeps the per-CPU counts.
 */
#ifndef NANOGRAPH_H
#define NANOGRAPH_H

#include <linux/percpu.h>
#include <linux/seq_buf.h>
#include <linux/types.h>

/* Per-CPU event counts, summed by the stats file. */
struct ng_cpu_stats {
	u64 entries;	/* function entries recorded */
	u64 exits;	/* function exits recorded */
	u64 dropped;	/* events lost because the buffer was full */
	u64 skipped;	/* entries not hooked: recursion, depth, stack full */
};

DECLARE_PER_CPU(struct ng_cpu_stats, ng_cpu_stats);

/* Renders one control file's text; used for listings of any length. */
typedef void (*ng_render_t)(struct seq_buf *s);

void ng_stats_render(struct seq_buf *s);
void ng_clock_render(struct seq_buf *s);

int ng_control_init(void);
void ng_control_exit(void);

#endif /* NANOGRAPH_H */
