// SPDX-License-Identifier: GPL-2.0
/*
 * Is a return slot held by another tracer's return trampoline?
 *
 * function_graph, kretprobes (rethook) and fprobes hook returns the way
 * nanograph does: they keep the return address they found and put their
 * trampoline's in its place.  One whose hook runs after nanograph's at a
 * site keeps nanograph's trampoline as "the" return address and wraps
 * it: the task will return through the other trampoline, then through
 * nanograph's.  ftrace_ops run newest first, so that is an ops
 * registered before nanograph's (function_graph, or on x86 the kprobes'
 * shared ops, registered with the first kprobe on a function entry,
 * however old the kretprobe); on 6.1's arm64 and on arm function_graph
 * runs after every ops, whenever it started.  The drain cannot put
 * the real address back there (it lies in the other tracer's own stack)
 * and must not drop the frame either (the task still comes back through
 * nanograph's trampoline, and finds its stack freed or the module gone).
 * It waits for that task to return (retstack.c), so it has to tell such
 * a slot from one a task left without returning (stale, safe to drop).
 *
 * None of those trampolines is exported, and kallsyms_lookup_name() is
 * not either, so they are told by name.  Only on the drain's slow path:
 * a slot that does not hold nanograph's trampoline, in a task asleep.
 */
#include <linux/kallsyms.h>
#include <linux/string.h>

#include "ng_module.h"

/* The kernel's return trampolines, 6.1 to 7.3, on x86_64, arm64, arm. */
static const char *const ng_foreign_trampolines[] = {
	"return_to_handler",		/* function_graph, fgraph users */
	"arch_rethook_trampoline",	/* kretprobes and fprobes (rethook) */
	"__kretprobe_trampoline",	/* kretprobes without rethook */
};

/* Does @addr lie in another tracer's return trampoline? */
bool ng_foreign_return(unsigned long addr)
{
	char name[KSYM_SYMBOL_LEN];
	unsigned int i;

	sprint_symbol_no_offset(name, addr);
	for (i = 0; i < ARRAY_SIZE(ng_foreign_trampolines); i++)
		if (!strcmp(name, ng_foreign_trampolines[i]))
			return true;
	return false;
}
