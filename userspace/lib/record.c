// SPDX-License-Identifier: LGPL-2.1
/*
 * record.c - the recorder: stream the nanograph records out of the
 * kernel's buffers while the workload runs, then replay them into
 * push/pop files, through one pipeline (Documentation/design.md, "The
 * recording pipeline"):
 *
 *   capture -> spill files -> source -> merge -> sink
 *
 * ng_rec_open() picks the capture (capture.h): the events mode's
 * (cap_events.c, trace events of a tracefs instance) or, with
 * ng_rec_opts.raw, the raw mode's (cap_raw.c, the module's own buffers).
 * Everything after is the same for both: ng_rec_drain() moves what the
 * buffers hold to the spill files and notes each new thread while it is
 * still alive; ng_rec_replay() reads the files back through the
 * capture's source, the merge and the sink. Memory stays flat however
 * long the recording runs; disk holds the records until the push/pop
 * files are written.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>

#include "capture.h"
#include "nanograph.h"
#include "source.h"
#include "tasks.h"

struct ng_recorder {
	struct ng_capture *cap;
	struct ng_tasks *tasks;		/* the threads the drains saw */
	bool saved_read;		/* the two below were read */
	char *saved_tgids, *saved_cmdlines;
};

int ng_rec_open(struct ng_recorder **rp, const struct ng_rec_opts *o)
{
	struct ng_recorder *r;
	int ret;

	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->tasks = ng_tasks_new();
	if (!r->tasks) {
		free(r);
		return -ENOMEM;
	}
	if (o->raw)
		ret = ng_cap_raw_open(&r->cap, o, r->tasks);
	else
		ret = ng_cap_events_open(&r->cap, o, r->tasks);
	if (ret) {
		ng_rec_close(r);
		return ret;
	}
	*rp = r;
	return 0;
}

int ng_rec_drain(struct ng_recorder *r)
{
	return r->cap->ops->drain(r->cap);
}

int ng_rec_spill_to(struct ng_recorder *r, const char *raw_dir)
{
	if (!r->cap->ops->spill_to)
		return -EOPNOTSUPP;
	return r->cap->ops->spill_to(r->cap, raw_dir);
}

uint64_t ng_rec_bytes(const struct ng_recorder *r)
{
	return r->cap->bytes;
}

int ng_rec_lost(const struct ng_recorder *r, uint64_t *lost)
{
	*lost = 0;
	return r->cap->ops->lost(r->cap, lost);
}

/* The spill files through the capture's source, the merge, the sink. */
int ng_rec_replay(struct ng_recorder *r, struct ng_conv *conv)
{
	struct ng_source *s;
	int ret = r->cap->ops->source(r->cap, &s);

	if (ret)
		return ret;
	ret = ng_sink_replay(s, conv);
	ng_source_free(s);
	return ret;
}

/* The value of @tid's "<tid> <value>" line of saved_tgids / saved_cmdlines. */
static bool saved_lookup(const char *buf, int tid, char *out, size_t size)
{
	const char *line;
	char key[16];
	size_t klen;

	klen = snprintf(key, sizeof(key), "%d ", tid);
	for (line = buf; line && *line; line = strchr(line, '\n'),
	     line = line ? line + 1 : NULL) {
		if (strncmp(line, key, klen))
			continue;
		snprintf(out, size, "%.*s", (int)strcspn(line + klen, "\n"),
			 line + klen);
		return true;
	}
	return false;
}

/*
 * A thread's process and name: as seen while it ran, else what the
 * kernel saved (saved_tgids, saved_cmdlines), else /proc now.
 */
void ng_rec_thread_info(void *priv, int tid, int *pid, char *comm,
			size_t size)
{
	struct ng_recorder *r = priv;
	uint64_t tgid;
	char val[64];

	if (ng_tasks_get(r->tasks, tid, pid, comm, size))
		return;
	/* Read once for all the threads, after the recording has stopped. */
	if (!r->saved_read) {
		r->saved_tgids = tracefs_instance_file_read(NULL, "saved_tgids", NULL);
		r->saved_cmdlines = tracefs_instance_file_read(NULL, "saved_cmdlines",
							       NULL);
		r->saved_read = true;
	}
	if (r->saved_tgids && saved_lookup(r->saved_tgids, tid, val, sizeof(val)) &&
	    !ng_parse_num(val, 0, 1, INT_MAX, &tgid))
		*pid = tgid;
	if (r->saved_cmdlines &&
	    saved_lookup(r->saved_cmdlines, tid, val, sizeof(val)))
		snprintf(comm, size, "%s", val);
	if (*pid <= 0 || !comm[0])
		ng_tasks_proc(tid, pid, comm, size);
	if (!comm[0])
		snprintf(comm, size, "<...>");
}

/* Let the capture go (its buffers, its spill files), then the rest. */
void ng_rec_close(struct ng_recorder *r)
{
	if (!r)
		return;
	if (r->cap)
		r->cap->ops->close(r->cap);
	ng_tasks_free(r->tasks);
	free(r->saved_tgids);
	free(r->saved_cmdlines);
	free(r);
}
