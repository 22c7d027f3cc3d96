// SPDX-License-Identifier: LGPL-2.1
/*
 * src_raw.c - the raw mode's source (source.h): files of the module's
 * 16-byte records (per_cpu/cpuN/raw content, include/nanograph_event.h),
 * one a CPU, read from their start as events.
 *
 * A CPU's records are not all events. A task record says whose the
 * entries and exits after it are, a comm record names a task, and a
 * counters, site, arg or retval record is about the call whose entry or
 * exit came just before it on that CPU: this file keeps that context per
 * CPU (struct cursor) and hands out self-contained events, the site and
 * arg records after an entry gathered into one ARGS event. Records that
 * name no task (another reader took the task record) are counted as
 * unattributed. The counters are 56 bits wide: the merge compares them
 * modulo 2^56 (wraps).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nanograph.h"
#include "nanograph_event.h"
#include "source.h"
#include "tasks.h"

#define CHUNK		(64 * 1024)	/* bytes per read(2) of a file */

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

/* A record's second half (comm, clock): -errno, or c->done at the end. */
static int payload(struct cursor *c, uint64_t w2[2])
{
	bool got;
	int ret = next_record(c, w2, &got);

	if (ret || !got)
		c->done = true;
	return ret;
}

/*
 * A meta record: a task or comm record taken in (0), or a clock,
 * scheduling, counters or retval event into c->ev (1); -errno, or 0 with
 * c->done at the end.
 */
static int meta_record(struct cursor *c, const uint64_t w[2])
{
	char comm[2 * sizeof(uint64_t) + 1];
	uint64_t w2[2];
	int ret;

	if (w[0] == (NG_RAW_META | NG_RAW_TASK)) {
		c->tid = (int)(uint32_t)w[1];
		c->pid = (int)(w[1] >> 32);
		return 0;
	}
	if (w[0] != (NG_RAW_META | NG_RAW_COMM) &&
	    w[0] != (NG_RAW_META | NG_RAW_CLOCK))
		return sched_event(c, w);
	ret = payload(c, w2);
	if (ret || c->done)
		return ret;
	if (w[0] == (NG_RAW_META | NG_RAW_COMM)) {
		memcpy(comm, w2, sizeof(w2));
		comm[sizeof(w2)] = '\0';
		if (c->tasks && c->tid >= 0)
			ng_tasks_comm(c->tasks, c->tid, c->pid, w[1], comm);
		return 0;
	}
	c->ev.type = NG_EV_CLOCK;
	c->ev.tid = c->tid;
	c->ev.counter = w[1];
	c->ev.ts = w[1] & NG_TSD_COUNTER_MASK;
	c->ev.mono_ns = w2[0];
	c->ev.freq = w2[1];
	return 1;
}

/* An entry or exit into c->ev (1); 0 if it names no task (counted). */
static int call_record(struct cursor *c, const uint64_t w[2])
{
	if (c->tid < 0) {
		/* Whose?  Another reader took the task record. */
		c->unattributed++;
		return 0;
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
	return 1;
}

/*
 * The entry's gathered values are complete: they are the next event,
 * then the record read after them (@w; NULL at the end of the file).
 */
static void args_flush(struct cursor *c, const uint64_t *w)
{
	c->pending = false;
	c->ev = c->args;
	if (!w)
		return;
	memcpy(c->held, w, sizeof(c->held));
	c->have_held = true;
	c->entries[c->ev.depth].ip = 0;
}

/* Advance to the next event, taking task and comm records in. */
static int cursor_next(struct cursor *c)
{
	uint64_t w[2];
	bool got;
	int ret;

	for (;;) {
		ret = next_record(c, w, &got);
		if (ret || !got) {
			if (c->pending && !ret) {
				args_flush(c, NULL);
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
			args_flush(c, w);
			return 0;
		}
		memset(&c->ev, 0, sizeof(c->ev));
		c->ev.cpu = c->cpu;
		ret = NG_RAW_IS_META(w[0]) ? meta_record(c, w) : call_record(c, w);
		if (ret < 0)
			return ret;
		if (ret || c->done)
			return 0;
	}
}

/* The source: the files (its common part's), and who is told the names. */
struct src_raw {
	struct ng_source src;
	struct ng_tasks *tasks;	/* told the comm names while converting */
};

/* Every file from its start, each with a buffer of its own. */
static int raw_begin(struct ng_source *s)
{
	struct cursor *cur = s->cpu;
	int i;

	for (i = 0; i < s->nr_cpus; i++) {
		struct cursor *c = &cur[i];

		c->fd = s->fds[i];
		c->cpu = i;
		c->tid = -1;
		c->tasks = s->conv ? ((struct src_raw *)s)->tasks : NULL;
		c->done = c->fd < 0;
		if (c->done)
			continue;
		c->buf = malloc(CHUNK);
		if (!c->buf)
			return -ENOMEM;
		if (lseek(c->fd, 0, SEEK_SET) < 0)
			return -errno;
	}
	return 0;
}

/* The CPU's next event, unless its file has ended. */
static int raw_next(struct ng_source *s, int cpu, const struct ng_event **ev)
{
	struct cursor *c = &((struct cursor *)s->cpu)[cpu];
	int ret;

	if (c->done)
		return 0;
	ret = cursor_next(c);
	if (ret < 0)
		return ret;
	*ev = &c->ev;
	return !c->done;
}

/* The records that named no task go to the converter, if converting. */
static void raw_end(struct ng_source *s)
{
	struct cursor *cur = s->cpu;
	uint64_t unattributed = 0;
	int i;

	for (i = 0; i < s->nr_cpus; i++) {
		unattributed += cur[i].unattributed;
		free(cur[i].buf);
	}
	if (s->conv)
		ng_conv_unattributed(s->conv, unattributed);
}

static void raw_free(struct ng_source *s)
{
	ng_source_release(s);
	free((struct src_raw *)s);
}

static const struct ng_source_ops raw_ops = {
	.cpu_size = sizeof(struct cursor),
	.begin = raw_begin,
	.next = raw_next,
	.end = raw_end,
	.free = raw_free,
};

int ng_src_raw_new(struct ng_source **sp, const int *fds, int nr,
		   struct ng_tasks *tasks)
{
	struct src_raw *r = calloc(1, sizeof(*r));
	int ret;

	if (!r)
		return -ENOMEM;
	ret = ng_source_init(&r->src, &raw_ops, nr, true, fds);
	if (ret) {
		free(r);
		return ret;
	}
	r->tasks = tasks;
	*sp = &r->src;
	return 0;
}

int ng_raw_replay_fds(const int *fds, int nr, struct ng_conv *conv)
{
	struct ng_source *s;
	int ret = ng_src_raw_new(&s, fds, nr, NULL);

	if (ret)
		return ret;
	ret = ng_sink_replay(s, conv);
	ng_source_free(s);
	return ret;
}

int ng_raw_walk_fds(const int *fds, int nr,
		    int (*fn)(void *priv, const struct ng_event *ev), void *priv)
{
	struct ng_source *s;
	int ret = ng_src_raw_new(&s, fds, nr, NULL);

	if (ret)
		return ret;
	ret = ng_merge(s, NULL, fn, priv);
	ng_source_free(s);
	return ret;
}
