// SPDX-License-Identifier: GPL-2.0
/*
 * The module's one traceable function: the target of the calibration
 * calls (control.c's "calibrate").  Kbuild keeps the compiler's ftrace
 * instrumentation for this file alone, so that the function is listed in
 * available_filter_functions as "ng_calib_target [nanograph]" and is
 * hooked as any kernel function is.  The collector times calls of it
 * untraced and traced to learn the tracer's own cost per call
 * (userspace/lib/calibrate.c).
 */
#include "nanograph.h"

/* Empty: a traced call of it costs the tracer's part and nothing else. */
noinline void ng_calib_target(void)
{
	barrier();
}
