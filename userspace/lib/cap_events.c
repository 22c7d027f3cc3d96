// SPDX-License-Identifier: LGPL-2.1
/*
 * cap_events.c - the events mode's capture (capture.h): stream the
 * nanograph trace events out of a tracefs instance while the workload
 * runs; the events source (src_events.c) reads them back.
 *
 * The capture owns a tracefs instance (a buffer of its own, so the
 * top-level buffer and whoever uses it are left alone) with the nanograph
 * events enabled, overwrite off (a full buffer drops new events and counts
 * them, instead of silently eating old ones), and record-tgid on. The
 * module sees its events enabled and leaves the top-level buffer alone.
 *
 * A drain moves whatever the per-CPU buffers hold (whole ring-buffer
 * pages, from per_cpu/cpuN/trace_pipe_raw through libtracefs) to one
 * spill file per CPU, and notes each page's threads while they are still
 * alive. Memory stays flat however long the recording runs; disk holds
 * the raw pages until the push/pop files are written.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <event-parse.h>
#include <kbuffer.h>
#include <tracefs.h>

#include "capture.h"
#include "nanograph.h"
#include "nanograph_event.h"
#include "readall.h"
#include "source.h"
#include "tasks.h"

struct cpu_spill {
	struct tracefs_cpu *tcpu;
	int fd;			/* spill file */
	uint64_t pages;
	char path[4096];
};

struct cap_events {
	struct ng_capture cap;
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	struct ng_decoder *dec;
	int nr_cpus;
	int subbuf;
	unsigned int max_pages;		/* one buffer's worth */
	struct kbuffer *kbuf;		/* for scanning pages while streaming */
	void *page;
	struct cpu_spill *cpus;
	char *saved_cmdlines_size;	/* to restore; NULL if untouched */
};

static struct cap_events *to_events(struct ng_capture *c)
{
	return (struct cap_events *)c;
}

/* Note the threads of one page's events. */
static void scan_page(struct cap_events *r, void *page)
{
	struct kbuffer *kbuf = r->kbuf;
	unsigned long long ts;
	struct tep_record rec;
	void *data;

	if (kbuffer_load_subbuffer(kbuf, page) < 0)
		return;
	for (data = kbuffer_read_event(kbuf, &ts); data;
	     data = kbuffer_next_event(kbuf, &ts)) {
		memset(&rec, 0, sizeof(rec));
		rec.data = data;
		rec.size = kbuffer_event_size(kbuf);
		ng_tasks_note(r->cap.tasks, tep_data_pid(r->tep, &rec), 0);
	}
}

/* Set saved_cmdlines_size to at least @want, remembering the old value. */
static void grow_cmdlines(struct cap_events *r, long want)
{
	char *old = tracefs_instance_file_read(NULL, "saved_cmdlines_size", NULL);
	uint64_t size;
	char val[32];

	if (!old)
		return;
	if (ng_parse_line_nums(old, "", 0, UINT64_MAX, &size, 1) ||
	    size >= (uint64_t)want) {
		free(old);
		return;
	}
	snprintf(val, sizeof(val), "%ld", want);
	if (tracefs_instance_file_write(NULL, "saved_cmdlines_size", val) < 0) {
		free(old);
		return;
	}
	r->saved_cmdlines_size = old;
}

/* Open one CPU's reader and its spill file. */
static int open_cpu(struct cap_events *r, const char *raw_dir, int cpu)
{
	struct cpu_spill *c = &r->cpus[cpu];

	c->fd = -1;
	c->tcpu = tracefs_cpu_open(r->inst, cpu, true);
	if (!c->tcpu)
		return errno == ENOENT ? 0 : -(errno ? errno : EIO);
	snprintf(c->path, sizeof(c->path), "%s/cpu%d.raw", raw_dir, cpu);
	c->fd = open(c->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (c->fd < 0)
		return -errno;
	return 0;
}

/*
 * The events' formats, a decoder for them, and the buffers a drain
 * reads pages into. 0 or -errno.
 */
static int rec_init(struct cap_events *r, const struct ng_rec_opts *o)
{
	int ret, cpu;

	ret = ng_tracefs_events_tep("nanograph", &r->tep);
	if (ret)
		return ret;
	ret = ng_decoder_new(&r->dec, r->tep);
	if (ret)
		return ret;
	r->nr_cpus = sysconf(_SC_NPROCESSORS_CONF);
	r->subbuf = tep_get_sub_buffer_size(r->tep);
	if (r->subbuf <= 0)
		r->subbuf = getpagesize();
	/*
	 * A drain's bound: every page a CPU's ring can hold.  It has
	 * buffer_kb of data in sub-buffers whose headers take up to 64
	 * bytes, rounded up, and the reader's page besides: bounded by
	 * the size alone, the last drain after tracing_on=0 left pages
	 * unread and uncounted.
	 */
	r->max_pages = (o->buffer_kb ? o->buffer_kb : 1408) * 1024ULL /
		       (r->subbuf - 64) + 3;
	r->page = malloc(r->subbuf);
	r->kbuf = tep_kbuffer(r->tep);
	r->cpus = calloc(r->nr_cpus, sizeof(*r->cpus));
	/* No descriptors yet, whatever fails next: the close closes none. */
	for (cpu = 0; r->cpus && cpu < r->nr_cpus; cpu++)
		r->cpus[cpu].fd = -1;
	if (!r->page || !r->cpus || !r->kbuf)
		return -ENOMEM;
	return 0;
}

/*
 * Our instance, with a fresh, empty, lossless-or-counted buffer, and
 * each CPU's reader and spill file. 0 or -errno.
 */
static int rec_instance(struct cap_events *r, const struct ng_rec_opts *o)
{
	const char *name = o->instance ? o->instance : "nanograph";
	int cpu, ret;

	errno = 0;
	r->inst = tracefs_instance_create(name);
	if (!r->inst)
		return -(errno ? errno : EIO);
	tracefs_event_disable(r->inst, NULL, NULL);
	if (tracefs_option_disable(r->inst, TRACEFS_OPTION_OVERWRITE) ||
	    tracefs_option_enable(r->inst, TRACEFS_OPTION_RECORD_TGID) ||
	    (o->buffer_kb &&
	     tracefs_instance_set_buffer_size(r->inst, o->buffer_kb, -1)) ||
	    tracefs_instance_file_clear(r->inst, "trace"))
		return -(errno ? errno : EIO);
	grow_cmdlines(r, 4096);
	for (cpu = 0; cpu < r->nr_cpus; cpu++) {
		ret = open_cpu(r, o->raw_dir, cpu);
		if (ret)
			return ret;
	}
	return 0;
}

/* Our events on in the instance, and the instance's tracing. 0 or -errno. */
static int rec_enable(struct cap_events *r)
{
	/*
	 * One event per call (func_call, with func_open for the calls
	 * still open at the end), not func_entry and func_exit: half the
	 * trace events, the larger part of a traced call's cost.
	 */
	if (tracefs_event_enable(r->inst, NG_EVENT_SYSTEM, NG_EVENT_CALL) ||
	    tracefs_event_enable(r->inst, NG_EVENT_SYSTEM, NG_EVENT_OPEN) ||
	    tracefs_event_enable(r->inst, NG_EVENT_SYSTEM, NG_EVENT_CLOCK) ||
	    tracefs_trace_on(r->inst))
		return -(errno ? errno : EIO);
	/*
	 * The scheduling, counters and value events too: written only while
	 * their options are on (a module older than them has none, and
	 * that is no error).
	 */
	tracefs_event_enable(r->inst, NG_EVENT_SYSTEM, NG_EVENT_SCHED_OUT);
	tracefs_event_enable(r->inst, NG_EVENT_SYSTEM, NG_EVENT_SCHED_IN);
	tracefs_event_enable(r->inst, NG_EVENT_SYSTEM, NG_EVENT_SCHED_WAKE);
	tracefs_event_enable(r->inst, NG_EVENT_SYSTEM, NG_EVENT_SCHED_MIGRATE);
	tracefs_event_enable(r->inst, NG_EVENT_SYSTEM, NG_EVENT_COUNTERS);
	tracefs_event_enable(r->inst, NG_EVENT_SYSTEM, NG_EVENT_ARGS);
	tracefs_event_enable(r->inst, NG_EVENT_SYSTEM, NG_EVENT_RETVAL);
	return 0;
}

/* Move every page the buffers hold now to the spill files. */
static int events_drain(struct ng_capture *cap)
{
	struct cap_events *r = to_events(cap);
	int cpu, n = 0;

	for (cpu = 0; cpu < r->nr_cpus; cpu++) {
		struct cpu_spill *c = &r->cpus[cpu];
		unsigned int pages = 0;

		if (!c->tcpu)
			continue;
		/*
		 * At most a buffer's worth a call: if reading makes events
		 * (the reader being recorded), stop and let the caller look
		 * at the time and the signals.
		 */
		while (pages++ < r->max_pages &&
		       (n = tracefs_cpu_read(c->tcpu, r->page, true)) > 0) {
			/* Whole sub-buffers only: replay reads them back by index. */
			if (n < r->subbuf)
				memset((char *)r->page + n, 0, r->subbuf - n);
			int ret = ng_spill_write(c->fd, r->page, r->subbuf);

			if (ret)
				return ret;
			scan_page(r, r->page);
			c->pages++;
			r->cap.bytes += n;
		}
		/*
		 * A possible CPU that never came online has no ring buffer
		 * (ENODEV): nothing to record there, ever.  Its spill file
		 * stays empty.
		 */
		if (n < 0 && errno == ENODEV) {
			tracefs_cpu_close(c->tcpu);
			c->tcpu = NULL;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
	}
	return 0;
}

/*
 * Events the ring buffer could not keep: with overwrite off, a full
 * buffer drops new events ("dropped events"); "overrun" would count
 * overwritten ones. Both come from per_cpu/cpuN/stats.
 */
static int events_lost(const struct ng_capture *cap, uint64_t *lost)
{
	const struct cap_events *r = (const struct cap_events *)cap;
	char file[64], *buf;
	uint64_t v;
	int cpu;

	*lost = 0;
	for (cpu = 0; cpu < r->nr_cpus; cpu++) {
		if (!r->cpus[cpu].tcpu)
			continue;
		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
		buf = tracefs_instance_file_read(r->inst, file, NULL);
		if (!buf)
			return -(errno ? errno : EIO);
		if (!ng_parse_line_nums(buf, "overrun:", 0, UINT64_MAX, &v, 1))
			*lost += v;
		if (!ng_parse_line_nums(buf, "dropped events:", 0, UINT64_MAX,
					&v, 1))
			*lost += v;
		free(buf);
	}
	return 0;
}

/* The events source over the spill files, decoded with our decoder. */
static int events_source(struct ng_capture *cap, struct ng_source **sp)
{
	struct cap_events *r = to_events(cap);
	uint64_t *pages;
	int *fds, cpu, ret;

	fds = calloc(r->nr_cpus, sizeof(*fds));
	pages = calloc(r->nr_cpus, sizeof(*pages));
	ret = fds && pages ? 0 : -ENOMEM;
	for (cpu = 0; !ret && cpu < r->nr_cpus; cpu++) {
		fds[cpu] = r->cpus[cpu].fd;
		pages[cpu] = r->cpus[cpu].tcpu ? r->cpus[cpu].pages : 0;
	}
	if (!ret)
		ret = ng_src_events_new(sp, r->tep, r->dec, r->subbuf, fds,
					pages, r->nr_cpus);
	free(fds);
	free(pages);
	return ret;
}

/*
 * Stop the instance's events, close the readers (an open trace_pipe_raw
 * keeps the instance busy), then remove it and its buffer, and drop the
 * spill files.
 */
static void events_close(struct ng_capture *cap)
{
	struct cap_events *r = to_events(cap);
	int cpu;

	if (r->inst) {
		tracefs_event_disable(r->inst, "nanograph", NULL);
		tracefs_trace_off(r->inst);
	}
	for (cpu = 0; r->cpus && cpu < r->nr_cpus; cpu++) {
		tracefs_cpu_close(r->cpus[cpu].tcpu);
		if (r->cpus[cpu].fd >= 0) {
			close(r->cpus[cpu].fd);
			unlink(r->cpus[cpu].path);
		}
	}
	if (r->inst) {
		tracefs_instance_destroy(r->inst);
		tracefs_instance_free(r->inst);
	}
	if (r->saved_cmdlines_size) {
		tracefs_instance_file_write(NULL, "saved_cmdlines_size",
					    r->saved_cmdlines_size);
		free(r->saved_cmdlines_size);
	}
	if (r->kbuf)
		kbuffer_free(r->kbuf);
	free(r->cpus);
	free(r->page);
	ng_decoder_free(r->dec);
	tep_free(r->tep);
	free(r);
}

static const struct ng_capture_ops events_ops = {
	.drain = events_drain,
	.lost = events_lost,
	.source = events_source,
	.close = events_close,
};

int ng_cap_events_open(struct ng_capture **cp, const struct ng_rec_opts *o,
		       struct ng_tasks *tasks)
{
	struct cap_events *r = calloc(1, sizeof(*r));
	int ret;

	if (!r)
		return -ENOMEM;
	r->cap.ops = &events_ops;
	r->cap.tasks = tasks;
	ret = rec_init(r, o) ?: rec_instance(r, o) ?: rec_enable(r);
	if (ret) {
		events_close(&r->cap);
		return ret;
	}
	*cp = &r->cap;
	return 0;
}
