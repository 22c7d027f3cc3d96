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
#include "ng_module.h"

/*
 * Nearly empty: a traced call of it costs the tracer's part and little
 * else.  It calls ng_calib_sink() (untraced, empty) so that it has a
 * frame: 32-bit arm's unwinder cannot step out of a frameless function,
 * and such calls are not hooked there (arch/arm/hook.c).  The barrier
 * after the call keeps it from becoming a tail call, which has no frame.
 */
noinline void ng_calib_target(void)
{
	ng_calib_sink();
	barrier();
}
