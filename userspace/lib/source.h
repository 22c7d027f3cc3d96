/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * source.h - library-internal: the recording pipeline's middle, between
 * the buffers and the files (Documentation/design.md, "The recording
 * pipeline"):
 *
 *   source -> merge -> sink
 *
 * A source yields each CPU's records in the order they were written, as
 * struct ng_event: the events mode's spill files of ring-buffer pages
 * (src_events.c), the raw mode's files of 16-byte records (src_raw.c) and
 * a trace-cmd trace.dat (tdat.c). Each is a struct ng_source with an ops
 * table; nothing else is said about where the records come from.
 *
 * The merge (merge.c) takes the earliest record of all CPUs, ties to the
 * lower CPU, with a tournament tree over the CPUs (a binary tree kept as
 * a heap is), and hands it on. The sink is the converter (conv.h): it
 * makes calls of the entries and exits and writes the push/pop files,
 * the tables beside them and the counts; its two passes (the time base
 * first, then everything) are sink.c's.
 */
#ifndef NG_SOURCE_H
#define NG_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ng_conv;
struct ng_decoder;
struct ng_event;
struct ng_source;

/* Called with each record in merge order: 0 go on, > 0 stop, or -errno. */
typedef int (*ng_event_fn)(void *priv, const struct ng_event *ev);

struct ng_source_ops {
	/*
	 * Bytes of a CPU's state during a pass (a cursor): the merge gives
	 * the pass an array of them in s->cpu, zeroed, and frees it after.
	 */
	size_t cpu_size;
	/*
	 * Start a pass: every CPU from its first record (NULL: nothing to
	 * do). 0 or -errno.
	 */
	int (*begin)(struct ng_source *s);
	/*
	 * CPU @cpu's next record into *@ev (the source's, valid until the
	 * next call for @cpu): 1, 0 at that CPU's end, or -errno.
	 */
	int (*next)(struct ng_source *s, int cpu, const struct ng_event **ev);
	/* End the pass, whatever stopped it, and free what begin() took. */
	void (*end)(struct ng_source *s);
	/*
	 * Free the source (ng_source_free()); NULL for one that is not
	 * allocated (tdat.c's, on the stack).
	 */
	void (*free)(struct ng_source *s);
};

struct ng_source {
	const struct ng_source_ops *ops;
	int nr_cpus;
	/* The timestamps are 56-bit counters, compared modulo 2^56. */
	bool wraps;
	/*
	 * During the pass that converts, the converter: lost and unnamed
	 * records are counted there. NULL during a scan.
	 */
	struct ng_conv *conv;
	void *cpu;		/* each CPU's state during a pass (cpu_size) */
	int *fds;		/* a file a CPU (-1: none), if read from files */
};

/*
 * Set up @s with @ops over @nr CPUs; @fds (may be NULL) is copied: each
 * CPU's file. 0 or -ENOMEM.
 */
int ng_source_init(struct ng_source *s, const struct ng_source_ops *ops,
		   int nr, bool wraps, const int *fds);
/* Free what ng_source_init() took (not @s itself). */
void ng_source_release(struct ng_source *s);
/* Free a source made by one of the constructors below; NULL is none. */
void ng_source_free(struct ng_source *s);

/*
 * One pass over @s: every record of every CPU in time order (ties to the
 * lower CPU) to @fn, until it returns non-zero (returned) or the records
 * end (0). @conv (may be NULL) gets the counts of lost records.
 */
int ng_merge(struct ng_source *s, struct ng_conv *conv, ng_event_fn fn,
	     void *priv);

/*
 * The sink's first pass: find the first clock record in merge order and
 * make it @conv's clock, reading no further. 1 if found, 0 if not, or
 * -errno.
 */
int ng_sink_find_clock(struct ng_source *s, struct ng_conv *conv);
/* The second: every record into @conv. 0 or -errno. */
int ng_sink_feed(struct ng_source *s, struct ng_conv *conv);
/* Both passes, as a recording is replayed: 0 or -errno. */
int ng_sink_replay(struct ng_source *s, struct ng_conv *conv);

/* ---- the sources ---------------------------------------------------- */

struct ng_tasks;
struct tep_handle;

/*
 * The events mode's (src_events.c): @nr spill files of whole sub-buffers
 * of @subbuf bytes, @fds[i] CPU i's holding @pages[i] of them, decoded
 * with @dec (of @tep). Both must outlive the source.
 */
int ng_src_events_new(struct ng_source **sp, struct tep_handle *tep,
		      const struct ng_decoder *dec, int subbuf,
		      const int *fds, const uint64_t *pages, int nr);

/*
 * The raw mode's (src_raw.c): @nr files of raw records, @fds[i] CPU i's
 * (-1: none), each read from its start. While converting, @tasks (may be
 * NULL) is told the names the comm records give.
 */
int ng_src_raw_new(struct ng_source **sp, const int *fds, int nr,
		   struct ng_tasks *tasks);

#endif /* NG_SOURCE_H */
