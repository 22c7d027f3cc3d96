// SPDX-License-Identifier: GPL-2.0
/*
 * Instantiates the nanograph trace events; they appear under
 * /sys/kernel/tracing/events/nanograph/ while the module is loaded.
 */
#define CREATE_TRACE_POINTS
#include "nanograph_trace.h"
