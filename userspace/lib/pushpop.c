// SPDX-License-Identifier: LGPL-2.1
/*
 * pushpop.c - write one thread's calls as a Nanoscope push/pop file.
 *
 * Format (design.md, "Trace format"): one line per event,
 *
 *	<ns>:+<function>		push of a core kernel function
 *	<ns>:+<function> [<module>]	push of a module function
 *	<ns>:POP			return from the innermost open frame
 *
 * <ns> is CLOCK_MONOTONIC nanoseconds in decimal.
 *
 * Label spelling: every function name is written with a leading '+'.
 * Nanoscope's viewer takes a label from the text before the first '(' of a
 * Java signature and shows a bare kernel name ("vfs_read") with an empty
 * label; a leading '+' tells it "not a signature, use the whole name", so
 * "+vfs_read" displays as "vfs_read" and "+nf_hook_slow [nf_tables]" as
 * "nf_hook_slow [nf_tables]". A label never contains a newline, so scripts
 * that split each line on its first ':' keep working. Readers other than
 * Nanoscope should strip the one leading '+'.
 *
 * The writer enforces the format's invariants whatever its input does:
 *  - timestamps never decrease: a lower one is raised to the previous one
 *    (counted in clamped);
 *  - every push gets exactly one pop: a pop with no open frame is dropped
 *    (dropped_pops), frames still open at close are popped at the last
 *    timestamp (closed_at_end).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nanograph.h"
#include "outfile.h"

struct ng_pp_writer {
	struct ng_outfile out;
	uint64_t last_ns;
	uint64_t depth;
	struct ng_pp_stats stats;
};

/* Open DIR/.<tid>.txt.XXXXXX; it becomes DIR/<tid>.txt at close. */
int ng_pp_open(struct ng_pp_writer **wp, const char *dir, pid_t tid)
{
	char name[32];

	if (tid < 0)
		return -EINVAL;
	snprintf(name, sizeof(name), "%d.txt", (int)tid);
	return ng_pp_open_name(wp, dir, name);
}

/* The same for any file name, such as the idle tasks' "0-<cpu>.txt". */
int ng_pp_open_name(struct ng_pp_writer **wp, const char *dir,
		    const char *name)
{
	struct ng_pp_writer *w;
	int ret;

	if (!*name || strchr(name, '/'))
		return -EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	ret = ng_outfile_open(&w->out, dir, name);
	if (ret) {
		free(w);
		return ret;
	}
	*wp = w;
	return 0;
}

/* A name must be non-empty and fit on one line to keep the grammar. */
static bool name_ok(const char *s)
{
	return s && *s && !strpbrk(s, "\n");
}

/* Keep timestamps nondecreasing; count every correction. */
static uint64_t clamp_ns(struct ng_pp_writer *w, uint64_t ns)
{
	if (ns < w->last_ns) {
		w->stats.clamped++;
		return w->last_ns;
	}
	w->last_ns = ns;
	return ns;
}

/* Record entry into @func (of @module, or the core kernel if NULL). */
int ng_pp_push(struct ng_pp_writer *w, uint64_t ns, const char *func,
	       const char *module)
{
	int ret;

	if (!name_ok(func) || (module && !name_ok(module)))
		return -EINVAL;
	ns = clamp_ns(w, ns);
	if (module)
		ret = ng_outfile_printf(&w->out, "%" PRIu64 ":+%s [%s]\n", ns,
					func, module);
	else
		ret = ng_outfile_printf(&w->out, "%" PRIu64 ":+%s\n", ns, func);
	if (ret)
		return ret;
	w->depth++;
	w->stats.pushes++;
	if (w->depth > w->stats.max_depth)
		w->stats.max_depth = w->depth;
	return 0;
}

/* Write one POP line and close the innermost frame. */
static int write_pop(struct ng_pp_writer *w, uint64_t ns)
{
	int ret = ng_outfile_printf(&w->out, "%" PRIu64 ":POP\n", ns);

	if (ret)
		return ret;
	w->depth--;
	w->stats.pops++;
	return 0;
}

/* Record a return; one that matches no push (tracing began inside it) is dropped. */
int ng_pp_pop(struct ng_pp_writer *w, uint64_t ns)
{
	if (!w->depth) {
		w->stats.dropped_pops++;
		return 0;
	}
	return write_pop(w, clamp_ns(w, ns));
}

/* Let go of the descriptor; the next write takes one again. */
int ng_pp_park(struct ng_pp_writer *w)
{
	return ng_outfile_park(&w->out);
}

int ng_pp_unpark(struct ng_pp_writer *w)
{
	return ng_outfile_unpark(&w->out);
}

/* How many frames are open now. */
uint64_t ng_pp_depth(const struct ng_pp_writer *w)
{
	return w->depth;
}

/* Close the frames left open at the last timestamp and publish the file. */
int ng_pp_close(struct ng_pp_writer *w, struct ng_pp_stats *stats)
{
	int ret = 0;

	while (w->depth && !ret) {
		ret = write_pop(w, w->last_ns);
		if (!ret)
			w->stats.closed_at_end++;
	}
	if (ret)
		ng_outfile_abort(&w->out);
	else
		ret = ng_outfile_commit(&w->out);
	if (stats)
		*stats = w->stats;
	free(w);
	return ret;
}

/* Throw the file away. */
void ng_pp_abort(struct ng_pp_writer *w)
{
	if (!w)
		return;
	ng_outfile_abort(&w->out);
	free(w);
}
