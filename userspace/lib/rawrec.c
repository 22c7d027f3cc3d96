// SPDX-License-Identifier: LGPL-2.1
/*
 * rawrec.c - the raw buffer mode's recorder: stream the module's own
 * per-CPU buffers (<control dir>/per_cpu/cpuN/raw, 16-byte records, see
 * include/nanograph_event.h) to spill files while the workload runs, then
 * merge the CPUs by counter and feed the converter.
 *
 * The events mode's recorder (record.c) does the same with trace events
 * from a tracefs instance; record.c's ng_rec_* functions hand over to the
 * functions here when opened with ng_rec_opts.raw. Both end in the same
 * converter, so the two modes write the same push/pop files.
 *
 * Merge order: a CPU's records are kept in the order they were written;
 * across CPUs the earliest counter goes first. The counters are compared
 * modulo 2^56 (the width in a record), so a wrap of the 56-bit field does
 * not reorder anything.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nanograph.h"
#include "nanograph_event.h"
#include "rawrec.h"
#include "readall.h"
#include "tasks.h"

#define CHUNK		(64 * 1024)	/* bytes per read(2) of a spill file */

struct raw_cpu {
	int in;			/* per_cpu/cpuN/raw, -1 if absent */
	int fd;			/* spill file */
	char path[4096];
};

struct ng_rawrec {
	struct ng_ctl ctl;
	struct ng_tasks *tasks;
	int nr_cpus;
	struct raw_cpu *cpus;
	uint64_t bytes;
	uint64_t dropped0;	/* the stats file's dropped total at open */
	unsigned char *buf;
};

/* Note the tasks named by a chunk's task records while /proc has them. */
static void scan_chunk(struct ng_rawrec *r, const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i + NG_RAW_RECORD_SIZE <= n; i += NG_RAW_RECORD_SIZE) {
		uint64_t w[2];

		memcpy(w, p + i, sizeof(w));
		if (w[0] == (NG_RAW_META | NG_RAW_TASK))
			ng_tasks_note(r->tasks, (int)(uint32_t)w[1],
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
static int drain_cpu(struct ng_rawrec *r, struct raw_cpu *c, bool keep)
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
		r->bytes += n;
	}
	return 0;
}

int ng_rawrec_open(struct ng_rawrec **rp, const char *ctl_root,
		   const char *spill_dir, struct ng_tasks *tasks)
{
	struct ng_ctl_stats st;
	struct ng_rawrec *r;
	char name[64];
	int cpu, ret;

	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->tasks = tasks;
	ret = ng_ctl_init(&r->ctl, ctl_root);
	if (ret)
		goto err;
	r->nr_cpus = sysconf(_SC_NPROCESSORS_CONF);
	r->cpus = calloc(r->nr_cpus, sizeof(*r->cpus));
	r->buf = malloc(CHUNK);
	if (!r->cpus || !r->buf) {
		ret = -ENOMEM;
		goto err;
	}
	for (cpu = 0; cpu < r->nr_cpus; cpu++)
		r->cpus[cpu].in = r->cpus[cpu].fd = -1;
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
	ret = ng_rawrec_spill_to(r, spill_dir);
	if (ret)
		goto err;
	*rp = r;
	return 0;
err:
	ng_rawrec_close(r);
	return ret;
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

int ng_rawrec_spill_to(struct ng_rawrec *r, const char *spill_dir)
{
	int cpu;

	r->bytes = 0;
	for (cpu = 0; cpu < r->nr_cpus; cpu++) {
		struct raw_cpu *c = &r->cpus[cpu];

		drop_spill(c);
		if (c->in < 0 || !spill_dir)
			continue;
		snprintf(c->path, sizeof(c->path), "%s/cpu%d.raw", spill_dir, cpu);
		c->fd = open(c->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (c->fd < 0)
			return -errno;
	}
	return 0;
}

int ng_rawrec_drain(struct ng_rawrec *r)
{
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

uint64_t ng_rawrec_bytes(const struct ng_rawrec *r)
{
	return r->bytes;
}

/* Records the module dropped since the recorder was opened. */
int ng_rawrec_lost(const struct ng_rawrec *r, uint64_t *lost)
{
	struct ng_ctl_stats st;
	int ret = ng_ctl_stats(&r->ctl, &st);

	if (!ret)
		*lost = st.dropped - r->dropped0;
	return ret;
}

/* One CPU's position in its records during the merge. */
struct cursor {
	int fd, cpu;
	unsigned char *buf;
	size_t len, off;
	int tid;		/* whose records these are; -1: not said yet */
	int pid;		/* and their process */
	struct ng_tasks *tasks;	/* told the comm records, if not NULL */
	uint64_t unattributed;	/* entries and exits before any task record */
	bool done;
	struct ng_event ev;	/* the next event, valid unless done */
	/*
	 * The last exit at each depth: the call a counters or retval record
	 * is of; and the last entry: the call site and arg records are of.
	 */
	struct {
		int tid;
		uint64_t counter, ip;
	} exits[NG_RAW_DEPTH_MAX + 1], entries[NG_RAW_DEPTH_MAX + 1];
	/* The site and arg records after an entry, handed on as one event. */
	struct ng_event args;
	bool pending;
	uint64_t held[2];	/* a record read ahead, to come next */
	bool have_held;
};

/* The next whole record, or false at the end (a torn tail is ignored). */
static int next_record(struct cursor *c, uint64_t w[2], bool *got)
{
	if (c->have_held) {
		memcpy(w, c->held, sizeof(c->held));
		c->have_held = false;
		*got = true;
		return 0;
	}
	if (c->len - c->off < NG_RAW_RECORD_SIZE) {
		ssize_t n = read(c->fd, c->buf, CHUNK);

		if (n < 0)
			return -errno;
		c->len = (size_t)n - (size_t)n % NG_RAW_RECORD_SIZE;
		c->off = 0;
		if (!c->len) {
			*got = false;
			return 0;
		}
	}
	memcpy(w, c->buf + c->off, 2 * sizeof(uint64_t));
	c->off += NG_RAW_RECORD_SIZE;
	*got = true;
	return 0;
}

/*
 * An event of @type into c->ev about the call whose exit at @depth came
 * last on this CPU, this task's: what a counters or retval record after
 * an exit is of; false if there is none (its exit was lost).
 */
static bool exit_event(struct cursor *c, unsigned int depth,
		       enum ng_event_type type)
{
	if (depth > NG_RAW_DEPTH_MAX || c->exits[depth].tid != c->tid ||
	    !c->exits[depth].ip)
		return false;
	c->ev.type = type;
	c->ev.tid = c->tid;
	c->ev.depth = depth;
	c->ev.ip = c->exits[depth].ip;
	c->ev.counter = c->exits[depth].counter;
	c->ev.ts = c->ev.counter;
	return true;
}

/*
 * A counters record into c->ev: of the call whose exit at its depth came
 * last on this CPU, which was this task's (include/nanograph_event.h);
 * false if there was none (its exit was lost).
 */
static bool counters_event(struct cursor *c, const uint64_t w[2], uint64_t arg)
{
	unsigned int depth = (unsigned int)(arg & 0xff), i;

	if (!exit_event(c, depth, NG_EV_COUNTERS))
		return false;
	for (i = 0; i < NG_COUNTS; i++)
		c->ev.counts[i] = (unsigned int)NG_COUNT_LANE(w[1], i);
	c->exits[depth].ip = 0;		/* one counters record per exit */
	return true;
}

/* A site or arg record: of the call whose entry came just before it. */
static bool args_record(uint64_t tsd)
{
	return NG_RAW_IS_META(tsd) &&
	       (NG_RAW_KIND(tsd) == NG_RAW_SITE || NG_RAW_KIND(tsd) == NG_RAW_ARG);
}

/*
 * Gather a site or arg record into c->args, the entry values of the
 * call at its depth whose entry came last on this CPU (they are written
 * with it, nothing in between); one whose entry is not there (a flight
 * window's first records) is left out.
 */
static void args_gather(struct cursor *c, const uint64_t w[2])
{
	uint64_t arg = (w[0] & NG_TSD_COUNTER_MASK) >> NG_RAW_ARG_SHIFT;
	unsigned int depth = (unsigned int)(arg & 0xff);
	unsigned int n = (unsigned int)(arg >> 8) & 0xff;

	if (depth > NG_RAW_DEPTH_MAX || c->tid < 0 ||
	    c->entries[depth].tid != c->tid || !c->entries[depth].ip ||
	    (c->pending && depth != c->args.depth))
		return;
	if (!c->pending) {
		memset(&c->args, 0, sizeof(c->args));
		c->args.type = NG_EV_ARGS;
		c->args.cpu = c->cpu;
		c->args.tid = c->tid;
		c->args.depth = depth;
		c->args.ip = c->entries[depth].ip;
		c->args.counter = c->entries[depth].counter;
		c->args.ts = c->args.counter;
		c->pending = true;
	}
	if (NG_RAW_KIND(w[0]) == NG_RAW_SITE) {
		c->args.site = w[1];
	} else if (n < NG_ARGS_MAX) {
		c->args.args[n] = w[1];
		if (n >= c->args.nargs)
			c->args.nargs = n + 1;
	}
}

/*
 * A retval record into c->ev: of the call whose exit at its depth came
 * just before it; false if that exit is not there.
 */
static bool retval_event(struct cursor *c, const uint64_t w[2], uint64_t arg)
{
	if (!exit_event(c, (unsigned int)(arg & 0xff), NG_EV_RETVAL))
		return false;
	c->ev.retval = w[1];
	return true;
}

/*
 * A scheduling, counters or retval record (include/nanograph_event.h) into
 * c->ev; false for another meta kind, or one that names no task yet
 * (counted).
 */
static bool sched_event(struct cursor *c, const uint64_t w[2])
{
	uint64_t arg = (w[0] & NG_TSD_COUNTER_MASK) >> NG_RAW_ARG_SHIFT;

	if (NG_RAW_KIND(w[0]) == NG_RAW_COUNTERS)
		return c->tid >= 0 && counters_event(c, w, arg);
	if (NG_RAW_KIND(w[0]) == NG_RAW_RETVAL)
		return c->tid >= 0 && retval_event(c, w, arg);
	if (NG_RAW_KIND(w[0]) == NG_RAW_MIGRATE) {
		/* Names its thread: written by whoever moved it. */
		c->ev.type = NG_EV_MIGRATE;
		c->ev.tid = (int)(arg & ((1U << NG_RAW_TID_BITS) - 1));
		arg >>= NG_RAW_TID_BITS;
		c->ev.from_cpu = (int)(arg & ((1U << NG_RAW_CPU_BITS) - 1));
		c->ev.to_cpu = (int)((arg >> NG_RAW_CPU_BITS) & ((1U << NG_RAW_CPU_BITS) - 1));
		c->ev.counter = w[1] & NG_TSD_COUNTER_MASK;
		c->ev.ts = c->ev.counter;
		return true;
	}

	switch (NG_RAW_KIND(w[0])) {
	case NG_RAW_SWITCH_OUT:
		c->ev.type = NG_EV_SWITCH_OUT;
		c->ev.state = (unsigned int)(arg & NG_RAW_STATE_MASK);
		c->ev.runnable = (w[0] & NG_RAW_PREEMPTED) || !c->ev.state;
		break;
	case NG_RAW_SWITCH_IN:
		c->ev.type = NG_EV_SWITCH_IN;
		break;
	case NG_RAW_WAKE:
		c->ev.type = NG_EV_WAKE;
		c->ev.wakee = (int)(uint32_t)arg;
		c->ev.ctx = (unsigned int)(w[0] >> NG_RAW_WAKE_CTX_SHIFT) & 0xf;
		break;
	default:
		return false;
	}
	if (c->tid < 0) {
		c->unattributed++;
		c->ev.type = NG_EV_OTHER;
		return false;
	}
	c->ev.tid = c->tid;
	c->ev.counter = w[1] & NG_TSD_COUNTER_MASK;
	c->ev.ts = c->ev.counter;
	return true;
}

/* Advance to the next entry, exit or clock, taking task records in. */
static int cursor_next(struct cursor *c)
{
	uint64_t w[2], w2[2];
	bool got;
	int ret;

	for (;;) {
		ret = next_record(c, w, &got);
		if (ret || !got) {
			if (c->pending && !ret) {
				c->pending = false;
				c->ev = c->args;
				return 0;
			}
			c->done = true;
			return ret;
		}
		if (args_record(w[0])) {
			args_gather(c, w);
			continue;
		}
		if (c->pending) {
			/* The entry's values are complete: they go first. */
			memcpy(c->held, w, sizeof(c->held));
			c->have_held = true;
			c->pending = false;
			c->ev = c->args;
			c->entries[c->ev.depth].ip = 0;
			return 0;
		}
		memset(&c->ev, 0, sizeof(c->ev));
		c->ev.cpu = c->cpu;
		if (w[0] == (NG_RAW_META | NG_RAW_TASK)) {
			c->tid = (int)(uint32_t)w[1];
			c->pid = (int)(w[1] >> 32);
			continue;
		}
		if (w[0] == (NG_RAW_META | NG_RAW_COMM)) {
			char comm[sizeof(w2) + 1];

			ret = next_record(c, w2, &got);
			if (ret || !got) {
				c->done = true;
				return ret;
			}
			memcpy(comm, w2, sizeof(w2));
			comm[sizeof(w2)] = '\0';
			if (c->tasks && c->tid >= 0)
				ng_tasks_comm(c->tasks, c->tid, c->pid, w[1], comm);
			continue;
		}
		if (w[0] == (NG_RAW_META | NG_RAW_CLOCK)) {
			ret = next_record(c, w2, &got);
			if (ret || !got) {
				c->done = true;
				return ret;
			}
			c->ev.type = NG_EV_CLOCK;
			c->ev.tid = c->tid;
			c->ev.counter = w[1];
			c->ev.ts = w[1] & NG_TSD_COUNTER_MASK;
			c->ev.mono_ns = w2[0];
			c->ev.freq = w2[1];
			return 0;
		}
		if (NG_RAW_IS_META(w[0])) {
			if (sched_event(c, w))
				return 0;
			continue;	/* a kind this reader does not know */
		}
		if (c->tid < 0) {
			/* Whose?  Another reader took the task record. */
			c->unattributed++;
			continue;
		}
		c->ev.type = (w[0] & NG_RAW_EXIT) ? NG_EV_EXIT : NG_EV_ENTRY;
		c->ev.tid = c->tid;
		c->ev.counter = NG_TSD_COUNTER(w[0]);
		c->ev.ts = c->ev.counter;
		c->ev.depth = NG_TSD_DEPTH(w[0] & ~NG_RAW_EXIT);
		c->ev.ip = w[1];
		if (c->ev.depth <= NG_RAW_DEPTH_MAX) {
			if (c->ev.type == NG_EV_EXIT) {
				c->exits[c->ev.depth].tid = c->tid;
				c->exits[c->ev.depth].counter = c->ev.counter;
				c->exits[c->ev.depth].ip = c->ev.ip;
			} else {
				c->entries[c->ev.depth].tid = c->tid;
				c->entries[c->ev.depth].counter = c->ev.counter;
				c->entries[c->ev.depth].ip = c->ev.ip;
			}
		}
		return 0;
	}
}

/*
 * Merge the records of @nr CPU files from their start and hand each
 * event to @fn, which returns 0 to go on, > 0 to stop there (returned),
 * or -errno.
 */
static int merge(const int *fds, int nr, struct ng_tasks *tasks,
		 int (*fn)(void *priv, const struct ng_event *ev), void *priv,
		 uint64_t *unattributed)
{
	struct cursor *cur = calloc(nr > 0 ? nr : 1, sizeof(*cur));
	int i, best, ret = 0;

	if (!cur)
		return -ENOMEM;
	for (i = 0; i < nr && !ret; i++) {
		cur[i].fd = fds[i];
		cur[i].cpu = i;
		cur[i].tid = -1;
		cur[i].tasks = tasks;
		cur[i].done = fds[i] < 0;
		if (cur[i].done)
			continue;
		cur[i].buf = malloc(CHUNK);
		if (!cur[i].buf)
			ret = -ENOMEM;
		else if (lseek(fds[i], 0, SEEK_SET) < 0)
			ret = -errno;
		else
			ret = cursor_next(&cur[i]);
	}
	while (!ret) {
		/* The earliest event of all CPUs; ties go to the lower CPU. */
		best = -1;
		for (i = 0; i < nr; i++)
			if (!cur[i].done &&
			    (best < 0 || ng_counter_before(cur[i].ev.ts, cur[best].ev.ts)))
				best = i;
		if (best < 0)
			break;
		ret = fn(priv, &cur[best].ev);
		if (!ret)
			ret = cursor_next(&cur[best]);
	}
	for (i = 0; i < nr; i++) {
		if (unattributed)
			*unattributed += cur[i].unattributed;
		free(cur[i].buf);
	}
	free(cur);
	return ret;
}

static int scan(void *priv, const struct ng_event *ev)
{
	return ng_conv_scan(priv, ev);
}

static int feed(void *priv, const struct ng_event *ev)
{
	return ng_conv_event(priv, ev);
}

/*
 * Two passes: the first finds the first clock record in merge order, so
 * that the second converts every record at once, holding none back.  The
 * second, which reads everything, tells @tasks (if not NULL) the names
 * the comm records give; threads.tsv is written after it.
 */
static int replay(const int *fds, int nr, struct ng_conv *conv,
		  struct ng_tasks *tasks)
{
	uint64_t unattributed = 0;
	int ret = merge(fds, nr, NULL, scan, conv, NULL);

	if (ret < 0)
		return ret;
	ret = merge(fds, nr, tasks, feed, conv, &unattributed);
	ng_conv_unattributed(conv, unattributed);
	return ret;
}

int ng_raw_replay_fds(const int *fds, int nr, struct ng_conv *conv)
{
	return replay(fds, nr, conv, NULL);
}

int ng_raw_walk_fds(const int *fds, int nr,
		    int (*fn)(void *priv, const struct ng_event *ev), void *priv)
{
	return merge(fds, nr, NULL, fn, priv, NULL);
}

int ng_rawrec_replay(struct ng_rawrec *r, struct ng_conv *conv)
{
	int *fds = calloc(r->nr_cpus, sizeof(*fds));
	int cpu, ret;

	if (!fds)
		return -ENOMEM;
	for (cpu = 0; cpu < r->nr_cpus; cpu++)
		fds[cpu] = r->cpus[cpu].fd;
	ret = replay(fds, r->nr_cpus, conv, r->tasks);
	free(fds);
	return ret;
}

/* Close the buffers' files and drop the spill files. */
void ng_rawrec_close(struct ng_rawrec *r)
{
	int cpu;

	if (!r)
		return;
	for (cpu = 0; r->cpus && cpu < r->nr_cpus; cpu++) {
		if (r->cpus[cpu].in >= 0)
			close(r->cpus[cpu].in);
		drop_spill(&r->cpus[cpu]);
	}
	free(r->cpus);
	free(r->buf);
	free(r);
}
