/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The raw buffer mode's hot path: one 16-byte record into this CPU's
 * buffer (rawbuf.c has the rest and the why).
 *
 * Every writer of a CPU's buffer runs on that CPU with preemption off;
 * interrupts and NMIs may nest inside a writer, and they finish before
 * it resumes.  So:
 *   - a record is reserved by moving head with a CPU-local cmpxchg (no
 *     lock prefix on x86, no barrier on arm64/arm), retried if a nested
 *     writer moved it first;
 *   - only the outermost writer publishes commit = head, after which
 *     every record below head is complete (nested writers are done), as
 *     perf's ring buffer does (kernel/events/ring_buffer.c);
 *   - the reader, on any CPU, pairs an acquire of commit with a release
 *     of tail; the writer stores into a record only once its space check
 *     of tail has passed, a control dependency that orders the load of
 *     tail before those stores (as perf_output_begin() does), so a
 *     record still being copied out is never overwritten.  No barrier:
 *     on 32-bit arm an acquire is a DMB per record.
 * The flight recorder (flight.c) lets a writer that finds its buffer full
 * move tail itself, overwriting the oldest records, instead of dropping
 * its own; reading is refused meanwhile.  ng_raw_overwrite() says how
 * the two sides agree on when that stops.
 */
#ifndef NG_RAWBUF_H
#define NG_RAWBUF_H

#include <linux/build_bug.h>
#include <linux/jump_label.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "nanograph.h"
#include "nanograph_event.h"

struct ng_raw_record {
	u64 tsd;
	u64 ip;
};

struct ng_raw_cpu {
	struct ng_raw_record *data;	/* NULL: no buffer */
	unsigned long mask;		/* records in data - 1 (a power of 2) */
	unsigned long head;		/* records reserved */
	unsigned long commit;		/* records complete, for the reader */
	unsigned long tail;		/* records read: the reader's */
	unsigned long pass_end;		/* the reader's: where this pass ends */
	bool pass;			/* the reader's: a pass is under way */
	unsigned int nest;		/* writers in progress on this CPU */
	unsigned long task_pos;		/* where the last task record is */
	int last_pid;			/* whose the last records are; -1: none */
	u64 last_comm[2];		/* and that task's name then */
};

DECLARE_PER_CPU_ALIGNED(struct ng_raw_cpu, ng_raw_cpus);
/* On while buffer_mode is "raw": the hot path tests only this key. */
DECLARE_STATIC_KEY_FALSE(ng_raw_on);
/* On while flight is not "off": task records are restated periodically. */
DECLARE_STATIC_KEY_FALSE(ng_flight_on);

/* A flight window's task record is at most this many records back. */
#define NG_FLIGHT_RESTATE	256
/* Records a full flight buffer frees at once (at most a quarter of it). */
#define NG_FLIGHT_SLACK		64UL

bool ng_raw_overwrite(struct ng_raw_cpu *c, unsigned long end);
void ng_raw_dropped(void);

static __always_inline void ng_raw_put(struct ng_raw_cpu *c, unsigned long pos,
				       u64 tsd, u64 ip)
{
	struct ng_raw_record *r = &c->data[pos & c->mask];

	r->tsd = tsd;
	r->ip = ip;
}

/*
 * Publish what is complete: only the outermost writer may, and it must
 * look again if a nested one reserved more after it read head.
 */
static __always_inline void ng_raw_commit(struct ng_raw_cpu *c)
{
	unsigned long head;

again:
	head = READ_ONCE(c->head);
	barrier();
	if (c->nest > 1) {
		c->nest--;
		return;
	}
	/* Pairs with ng_raw_read(): the records are written before commit. */
	smp_store_release(&c->commit, head);
	barrier();
	c->nest--;
	barrier();
	if (unlikely(READ_ONCE(c->head) != head)) {
		c->nest++;
		barrier();
		goto again;
	}
}

/*
 * Reserve @n records; false when they do not fit.  A dropped record
 * makes the next writer restate its task.
 */
static __always_inline bool ng_raw_reserve(struct ng_raw_cpu *c,
					   unsigned long n,
					   unsigned long *pos)
{
	unsigned long head;

	do {
		head = READ_ONCE(c->head);
		/*
		 * Pairs with the release of tail in ng_raw_read(): the records
		 * are stored only if this branch lets them, so the load of tail
		 * is ordered before them (a control dependency, see the top).
		 */
		if (unlikely(head + n - READ_ONCE(c->tail) > c->mask + 1) &&
		    !ng_raw_overwrite(c, head + n)) {
			WRITE_ONCE(c->last_pid, -1);
			return false;
		}
	} while (cmpxchg_local(&c->head, head, head + n) != head);
	*pos = head;
	return true;
}

/*
 * One entry or exit record for current, preceded by a task record and
 * the task's name when this CPU's last records were another task's, or
 * the name changed since (exec, PR_SET_NAME), or, in flight mode, the
 * task record is NG_FLIGHT_RESTATE records back (the oldest records are
 * overwritten, task records among them): the collector then names
 * a thread as it was when it ran, even one long gone.  The name is read
 * unlocked, as ftrace's saved_cmdlines does; a rename racing with it
 * shows half of each, and the next record puts it right.  Preemption is
 * off.
 */
static __always_inline void ng_raw_emit(u64 tsd, unsigned long ip)
{
	struct ng_raw_cpu *c = this_cpu_ptr(&ng_raw_cpus);
	int pid = current->pid;
	unsigned long pos;
	/* Two words, not an array: an array on the stack costs a canary. */
	u64 comm0, comm1;
	bool task;

	BUILD_BUG_ON(sizeof(current->comm) != 2 * sizeof(u64));
	memcpy(&comm0, current->comm, sizeof(comm0));
	memcpy(&comm1, current->comm + sizeof(comm0), sizeof(comm1));
	task = READ_ONCE(c->last_pid) != pid || c->last_comm[0] != comm0 ||
	       c->last_comm[1] != comm1 ||
	       (static_branch_unlikely(&ng_flight_on) &&
		READ_ONCE(c->head) - c->task_pos >= NG_FLIGHT_RESTATE);
	BUILD_BUG_ON(NG_STACK_DEPTH > NG_RAW_DEPTH_MAX);
	c->nest++;
	barrier();
	if (likely(ng_raw_reserve(c, 1 + 3 * task, &pos))) {
		if (task) {
			c->task_pos = pos;
			ng_raw_put(c, pos++, NG_RAW_META | NG_RAW_TASK,
				   (u64)current->tgid << 32 | (u32)pid);
			ng_raw_put(c, pos++, NG_RAW_META | NG_RAW_COMM,
				   NG_TSD_COUNTER(tsd));
			ng_raw_put(c, pos++, comm0, comm1);
			c->last_comm[0] = comm0;
			c->last_comm[1] = comm1;
			WRITE_ONCE(c->last_pid, pid);
		}
		ng_raw_put(c, pos, tsd, ip);
	} else {
		ng_raw_dropped();
	}
	ng_raw_commit(c);
}

void ng_raw_emit_clock(u64 counter, u64 mono_ns, u64 freq);

#endif /* NG_RAWBUF_H */
