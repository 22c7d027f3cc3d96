/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The records nanograph's ftrace tracer (ftrace_tracer.c) writes into a
 * trace array's buffer: the nanograph trace events' own types and
 * layouts, so that the events' format files describe them to trace-cmd
 * and libtraceevent.  events.c, where the events are instantiated,
 * checks at build time that these match the layouts TRACE_EVENT made.
 */
#ifndef NG_FTRACE_TRACER_H
#define NG_FTRACE_TRACER_H

#include <linux/trace_events.h>

#include "nanograph_event.h"

/* nanograph:func_entry and nanograph:func_exit (event class ng_func). */
struct ng_ft_func {
	struct trace_entry ent;
	u64 tsd;
	unsigned long ip;
};

/* nanograph:func_args (options/args, options/retaddr), after its entry. */
struct ng_ft_args {
	struct trace_entry ent;
	u64 tsd;
	unsigned long ip;
	unsigned long site;
	unsigned int nargs;
	unsigned long args[NG_ARGS_MAX];
};

/* nanograph:func_retval (options/retval), after its exit. */
struct ng_ft_retval {
	struct trace_entry ent;
	u64 tsd;
	unsigned long ip;
	u64 retval;
};

/* nanograph:clock_sync. */
struct ng_ft_clock {
	struct trace_entry ent;
	u64 counter;
	u64 mono_ns;
	u64 freq;
	u64 uncertainty;
};

/* The type numbers the events got when the module was loaded. */
struct ng_ft_types {
	unsigned short entry, exit, clock, args, retval;
};

void ng_ft_event_types(struct ng_ft_types *types);

#endif /* NG_FTRACE_TRACER_H */
