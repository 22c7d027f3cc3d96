// SPDX-License-Identifier: LGPL-2.1
/*
 * cap_raw.c - the raw mode's capture (capture.h): stream the module's own
 * per-CPU buffers (<control dir>/per_cpu/cpuN/raw, 16-byte records, see
 * include/nanograph_event.h) to spill files while the workload runs; the
 * raw source (src_raw.c) reads them back.
 *
 * Task records seen while draining are noted in the capture's tasks;
 * they get the names of the comm records when the recording is replayed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "nanograph.h"
#include "nanograph_event.h"
#include "readall.h"
#include "source.h"
#include "tasks.h"

#define CHUNK		(64 * 1024)	/* bytes per read(2) of a spill file */

struct raw_cpu {
	int in;			/* per_cpu/cpuN/raw, -1 if absent */
	int fd;			/* spill file */
	char path[4096];
};

struct cap_raw {
	struct ng_capture cap;
	struct ng_ctl ctl;
	int nr_cpus;
	struct raw_cpu *cpus;
	uint64_t dropped0;	/* the stats file's dropped total at open */
	unsigned char *buf;
};

static struct cap_raw *to_raw(struct ng_capture *c)
{
	return (struct cap_raw *)c;
}

/* Note the tasks named by a chunk's task records while /proc has them. */
static void scan_chunk(struct cap_raw *r, const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i + NG_RAW_RECORD_SIZE <= n; i += NG_RAW_RECORD_SIZE) {
		uint64_t w[2];

		memcpy(w, p + i, sizeof(w));
		if (w[0] == (NG_RAW_META | NG_RAW_TASK))
			ng_tasks_note(r->cap.tasks, (int)(uint32_t)w[1],
				      (int)(w[1] >> 32));
	}
}

/*
 * Read one CPU's file in two passes: until a 0, twice.  The module hands
 * records out in passes (rawbuf.c): a pass ends with a 0 where the
 * records ended when it began, even if more came since.  The first 0
 * ends whatever pass is open, perhaps one another reader began before
 * this call; the second pass starts after it, so everything written
 * before this call is read.  Each pass is bounded by the buffer, so a
 * drain ends however busy the writers are (then the next drain takes
 * the rest).  With @keep false what is read is thrown away.
 */
static int drain_cpu(struct cap_raw *r, struct raw_cpu *c, bool keep)
{
	int zeros = 0;

	while (zeros < 2) {
		ssize_t n = read(c->in, r->buf, CHUNK);
		int ret;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (!n) {
			zeros++;
			continue;
		}
		if (!keep || c->fd < 0)
			continue;
		ret = ng_spill_write(c->fd, r->buf, n);
		if (ret)
			return ret;
		scan_chunk(r, r->buf, n);
		r->cap.bytes += n;
	}
	return 0;
}

static int raw_drain(struct ng_capture *cap)
{
	struct cap_raw *r = to_raw(cap);
	int cpu, ret;

	for (cpu = 0; cpu < r->nr_cpus; cpu++) {
		if (r->cpus[cpu].in < 0)
			continue;
		ret = drain_cpu(r, &r->cpus[cpu], true);
		if (ret)
			return ret;
	}
	return 0;
}

/* Close and remove one CPU's spill file, if it has one. */
static void drop_spill(struct raw_cpu *c)
{
	if (c->fd < 0)
		return;
	close(c->fd);
	unlink(c->path);
	c->fd = -1;
}

/* A flight snapshot's own files, made only once its trigger fired. */
static int raw_spill_to(struct ng_capture *cap, const char *dir)
{
	struct cap_raw *r = to_raw(cap);
	int cpu;

	r->cap.bytes = 0;
	for (cpu = 0; cpu < r->nr_cpus; cpu++) {
		struct raw_cpu *c = &r->cpus[cpu];

		drop_spill(c);
		if (c->in < 0 || !dir)
			continue;
		snprintf(c->path, sizeof(c->path), "%s/cpu%d.raw", dir, cpu);
		c->fd = open(c->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (c->fd < 0)
			return -errno;
	}
	return 0;
}

/* Records the module dropped since the capture was opened (stats). */
static int raw_lost(const struct ng_capture *cap, uint64_t *lost)
{
	const struct cap_raw *r = (const struct cap_raw *)cap;
	struct ng_ctl_stats st;
	int ret = ng_ctl_stats(&r->ctl, &st);

	if (!ret)
		*lost = st.dropped - r->dropped0;
	return ret;
}

/* The raw source over the spill files, telling the tasks their names. */
static int raw_source(struct ng_capture *cap, struct ng_source **sp)
{
	struct cap_raw *r = to_raw(cap);
	int *fds = calloc(r->nr_cpus, sizeof(*fds));
	int cpu, ret;

	if (!fds)
		return -ENOMEM;
	for (cpu = 0; cpu < r->nr_cpus; cpu++)
		fds[cpu] = r->cpus[cpu].fd;
	ret = ng_src_raw_new(sp, fds, r->nr_cpus, r->cap.tasks);
	free(fds);
	return ret;
}

/* Close the buffers' files and drop the spill files. */
static void raw_close(struct ng_capture *cap)
{
	struct cap_raw *r = to_raw(cap);
	int cpu;

	for (cpu = 0; r->cpus && cpu < r->nr_cpus; cpu++) {
		if (r->cpus[cpu].in >= 0)
			close(r->cpus[cpu].in);
		drop_spill(&r->cpus[cpu]);
	}
	free(r->cpus);
	free(r->buf);
	free(r);
}

static const struct ng_capture_ops raw_ops = {
	.drain = raw_drain,
	.spill_to = raw_spill_to,
	.lost = raw_lost,
	.source = raw_source,
	.close = raw_close,
};

int ng_cap_raw_open(struct ng_capture **cp, const struct ng_rec_opts *o,
		    struct ng_tasks *tasks)
{
	struct ng_ctl_stats st;
	struct cap_raw *r;
	char name[64];
	int cpu, ret;

	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->cap.ops = &raw_ops;
	r->cap.tasks = tasks;
	ret = ng_ctl_init(&r->ctl, o->ctl_root);
	if (ret)
		goto err;
	r->nr_cpus = sysconf(_SC_NPROCESSORS_CONF);
	r->cpus = calloc(r->nr_cpus, sizeof(*r->cpus));
	/* No descriptors yet, whatever fails next: the close closes none. */
	for (cpu = 0; r->cpus && cpu < r->nr_cpus; cpu++)
		r->cpus[cpu].in = r->cpus[cpu].fd = -1;
	r->buf = malloc(CHUNK);
	if (!r->cpus || !r->buf) {
		ret = -ENOMEM;
		goto err;
	}
	/* The stats file's dropped total: raw records the module could not write. */
	ret = ng_ctl_stats(&r->ctl, &st);
	if (ret)
		goto err;
	r->dropped0 = st.dropped;
	for (cpu = 0; cpu < r->nr_cpus; cpu++) {
		struct raw_cpu *c = &r->cpus[cpu];
		char path[4200];

		snprintf(name, sizeof(name), "per_cpu/cpu%d/raw", cpu);
		snprintf(path, sizeof(path), "%s/%s", ng_ctl_root(&r->ctl), name);
		c->in = open(path, O_RDONLY | O_CLOEXEC);
		if (c->in < 0) {
			if (errno == ENOENT)
				continue;	/* not a possible CPU */
			ret = -errno;
			goto err;
		}
		/* Records left from an earlier session are not this recording's. */
		ret = drain_cpu(r, c, false);
		if (ret)
			goto err;
	}
	ret = raw_spill_to(&r->cap, o->raw_dir);
	if (ret)
		goto err;
	*cp = &r->cap;
	return 0;
err:
	raw_close(&r->cap);
	return ret;
}
