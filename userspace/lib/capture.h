/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * capture.h - library-internal: the recording pipeline's start, before
 * the source (source.h, Documentation/design.md "The recording
 * pipeline"):
 *
 *   capture -> spill files -> source -> merge -> sink
 *
 * A capture moves what the kernel's buffers hold to one spill file a CPU
 * while the workload runs, noting each thread it sees while /proc still
 * has it, and afterwards gives the source that reads those files back.
 * Two exist: the events mode's, ring-buffer pages of a tracefs instance
 * (cap_events.c), and the raw mode's, the module's own 16-byte records
 * (cap_raw.c). ng_rec_open() (record.c) picks one, and nothing after it
 * asks which it has.
 */
#ifndef NG_CAPTURE_H
#define NG_CAPTURE_H

#include <stdint.h>

struct ng_capture;
struct ng_rec_opts;
struct ng_source;
struct ng_tasks;

struct ng_capture_ops {
	/*
	 * Move what the buffers hold now to the spill files, adding what
	 * was moved to c->bytes: 0 or -errno. Bounded by the buffers'
	 * size, however busy the writers are.
	 */
	int (*drain)(struct ng_capture *c);
	/*
	 * Spill to new files in @dir from now on (NULL: none, a drain
	 * throws away what it reads), removing the earlier ones; c->bytes
	 * starts from 0 again. NULL where the capture cannot (its files
	 * are made at open).
	 */
	int (*spill_to)(struct ng_capture *c, const char *dir);
	/* Records the kernel could not keep since the open: 0 or -errno. */
	int (*lost)(const struct ng_capture *c, uint64_t *lost);
	/*
	 * A source over the spill files as they are now, to be freed with
	 * ng_source_free() before the capture is closed: 0 or -errno.
	 */
	int (*source)(struct ng_capture *c, struct ng_source **sp);
	/*
	 * Let the buffers go and remove the spill files; frees @c. The
	 * events capture disables its events and tracing, closes its
	 * per-CPU readers before it removes the instance (an open
	 * trace_pipe_raw keeps it busy), and puts saved_cmdlines_size back.
	 */
	void (*close)(struct ng_capture *c);
};

struct ng_capture {
	const struct ng_capture_ops *ops;
	/* Every thread a drain saw is noted here. */
	struct ng_tasks *tasks;
	uint64_t bytes;		/* moved to the spill files */
};

/*
 * The events mode's: create (or reuse) @o's tracefs instance with an
 * empty buffer of @o->buffer_kb a CPU, overwrite off and record-tgid on,
 * raise the system's saved_cmdlines_size to 4096 at least, enable the
 * nanograph events there and the instance's tracing, and open a spill
 * file a CPU in @o->raw_dir.
 */
int ng_cap_events_open(struct ng_capture **cp, const struct ng_rec_opts *o,
		       struct ng_tasks *tasks);
/*
 * The raw mode's: open the module's per_cpu/cpuN/raw files under
 * @o->ctl_root, discard what they hold already (an earlier session's
 * records: open with the module idle), and spill to @o->raw_dir (NULL:
 * nowhere yet, see ->spill_to).
 */
int ng_cap_raw_open(struct ng_capture **cp, const struct ng_rec_opts *o,
		    struct ng_tasks *tasks);

#endif /* NG_CAPTURE_H */
