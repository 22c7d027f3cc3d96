/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What an architecture may add around the tracer, and the defaults for
 * those that add nothing.  An arch's ng_arch.h defines a macro of the
 * hook's name when it has its own (32-bit arm: the return-slot cache,
 * arch/arm/site_cache.c), as the kernel's asm headers do for arch_*().
 */
#ifndef NG_ARCH_HOOKS_H
#define NG_ARCH_HOOKS_H

#include <linux/seq_buf.h>

#include "ng_arch.h"

/* At module load, after the counter is chosen; and at unload. */
#ifndef ng_arch_init
static inline int ng_arch_init(void)
{
	return 0;
}

static inline void ng_arch_exit(void)
{
}
#endif

/* tracing_on=1, before any ops is registered: no hook runs. */
#ifndef ng_arch_tracing_start
static inline void ng_arch_tracing_start(void)
{
}
#endif

/* The architecture's lines of the stats file. */
#ifndef ng_arch_stats_render
static inline void ng_arch_stats_render(struct seq_buf *s)
{
}
#endif

#endif /* NG_ARCH_HOOKS_H */
