// SPDX-License-Identifier: GPL-2.0
/*
 * Instantiates the nanograph trace events; they appear under
 * /sys/kernel/tracing/events/nanograph/ while the module is loaded.
 */
#define CREATE_TRACE_POINTS
#include "nanograph_trace.h"

#ifdef NG_HAVE_TRACER
#include "ftrace_tracer.h"

/*
 * The ftrace tracer writes records of these events' types itself
 * (ftrace_tracer.c): its layouts must be the ones TRACE_EVENT made here.
 */
static_assert(sizeof(struct ng_ft_func) == sizeof(struct trace_event_raw_ng_func));
static_assert(offsetof(struct ng_ft_func, tsd) == offsetof(struct trace_event_raw_ng_func, tsd));
static_assert(offsetof(struct ng_ft_func, ip) == offsetof(struct trace_event_raw_ng_func, ip));
static_assert(sizeof(struct ng_ft_clock) == sizeof(struct trace_event_raw_clock_sync));
static_assert(offsetof(struct ng_ft_clock, counter) ==
	      offsetof(struct trace_event_raw_clock_sync, counter));
static_assert(offsetof(struct ng_ft_clock, uncertainty) ==
	      offsetof(struct trace_event_raw_clock_sync, uncertainty));

static_assert(sizeof(struct ng_ft_args) == sizeof(struct trace_event_raw_func_args));
static_assert(offsetof(struct ng_ft_args, site) ==
	      offsetof(struct trace_event_raw_func_args, site));
static_assert(offsetof(struct ng_ft_args, args) ==
	      offsetof(struct trace_event_raw_func_args, args));
static_assert(sizeof(struct ng_ft_retval) == sizeof(struct trace_event_raw_func_retval));
static_assert(offsetof(struct ng_ft_retval, retval) ==
	      offsetof(struct trace_event_raw_func_retval, retval));

/* Assigned when the module's events were registered, at load. */
void ng_ft_event_types(struct ng_ft_types *types)
{
	types->entry = event_func_entry.event.type;
	types->exit = event_func_exit.event.type;
	types->clock = event_clock_sync.event.type;
	types->args = event_func_args.event.type;
	types->retval = event_func_retval.event.type;
}
#endif
