/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The nanograph trace events: one on entry to a hooked function, one on
 * its return.  The payload is the 16 bytes of include/nanograph_event.h;
 * the printed form names the function, so trace_pipe is readable:
 *
 *   func_entry: vfs_read depth=0 ts=1234567
 *   func_exit: vfs_read depth=0 ts=1234890
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM nanograph

#if !defined(NG_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define NG_TRACE_H

#include <linux/tracepoint.h>

#include "nanograph_event.h"

DECLARE_EVENT_CLASS(ng_func,
		    TP_PROTO(unsigned long ip, u64 tsd),
		    TP_ARGS(ip, tsd),
		    TP_STRUCT__entry(__field(u64, tsd) __field(unsigned long, ip)),
		    TP_fast_assign(__entry->tsd = tsd; __entry->ip = ip;),
		    TP_printk("%ps depth=%u ts=%llu", (void *)__entry->ip,
			      NG_TSD_DEPTH(__entry->tsd),
			      NG_TSD_COUNTER(__entry->tsd)));

DEFINE_EVENT(ng_func, func_entry,
	     TP_PROTO(unsigned long ip, u64 tsd),
	     TP_ARGS(ip, tsd));

DEFINE_EVENT(ng_func, func_exit,
	     TP_PROTO(unsigned long ip, u64 tsd),
	     TP_ARGS(ip, tsd));

#endif /* NG_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE nanograph_trace
#include <trace/define_trace.h>
