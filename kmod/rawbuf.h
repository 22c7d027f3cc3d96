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
 *   - the writer orders its records before commit with smp_wmb(), as
 *     perf_output_put_handle() does, which the reader, on any CPU, pairs
 *     with its acquire of commit: a store barrier, not a release, since
 *     only stores need ordering there (on arm a DMB ISHST per record
 *     instead of a full DMB ISH; on arm64 DMB ISHST and a plain store
 *     instead of STLR, which QEMU's TCG makes a full host fence);
 *   - the reader's release of tail pairs with the writer's space check
 *     of tail, and the writer stores into a record only once that check
 *     of tail has passed, a control dependency that orders the load of
 *     tail before those stores (as perf_output_begin() does), so a
 *     record still being copied out is never overwritten.  No barrier:
 *     on 32-bit arm an acquire is a DMB per record.
 * The flight recorder (flight.c) lets a writer that finds its buffer full
 * move tail itself, overwriting the oldest records, instead of dropping
 * its own; reading is refused meanwhile.  ng_raw_overwrite() (rawbuf.c)
 * says how the two sides agree on when that stops.
 */
#ifndef NG_RAWBUF_H
#define NG_RAWBUF_H

#include <linux/atomic.h>
#include <linux/build_bug.h>
#include <linux/jump_label.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "ng_module.h"
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
	int last_gen;			/* ng_raw_comm_gen when it was compared */
};

DECLARE_PER_CPU_ALIGNED(struct ng_raw_cpu, ng_raw_cpus);
/* Renames so far (ng_raw_renamed()): a CPU compares names again after one. */
extern atomic_t ng_raw_comm_gen;
/* On while buffer_mode is "raw": the hot path tests only this key. */
DECLARE_STATIC_KEY_FALSE(ng_raw_on);
/* On while flight is not "off": task records are restated periodically. */
DECLARE_STATIC_KEY_FALSE(ng_flight_on);

/* A flight window's task record is at most this many records back. */
#define NG_FLIGHT_RESTATE	256
/* Records a full flight buffer frees at once (at most a quarter of it). */
#define NG_FLIGHT_SLACK		64UL

static __always_inline void ng_raw_put(struct ng_raw_cpu *c, unsigned long pos,
				       u64 tsd, u64 ip)
{
	struct ng_raw_record *r = &c->data[pos & c->mask];

	r->tsd = tsd;
	r->ip = ip;
}

/*
 * The @n records reserved from @pos as one array, for a writer that
 * fills several (each store then needs no index of its own); NULL when
 * they wrap round the end of the buffer, where ng_raw_put() is used.
 */
static __always_inline struct ng_raw_record *ng_raw_span(struct ng_raw_cpu *c,
							 unsigned long pos,
							 unsigned long n)
{
	unsigned long at = pos & c->mask;

	return likely(at + n <= c->mask + 1) ? &c->data[at] : NULL;
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
	/*
	 * Pairs with the acquire of commit in ng_raw_read(): the records
	 * are written before commit.
	 */
	smp_wmb();
	WRITE_ONCE(c->commit, head);
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
 * Would @n records from @head overrun the reader?  The writer stores into
 * them only if this says no, a control dependency that orders the load
 * of tail before those stores (pairs with the release of tail in
 * ng_raw_read(); see the top).
 */
static __always_inline bool ng_raw_full(struct ng_raw_cpu *c,
					unsigned long head, unsigned long n)
{
	return head + n - READ_ONCE(c->tail) > c->mask + 1;
}

/*
 * In flight mode the task record is written again every
 * NG_FLIGHT_RESTATE records: the oldest records are overwritten, task
 * records among them, and the collector still names a thread as it was
 * when it ran, even one long gone.
 */
static __always_inline bool ng_raw_restate_due(struct ng_raw_cpu *c)
{
	return static_branch_unlikely(&ng_flight_on) &&
	       READ_ONCE(c->head) - c->task_pos >= NG_FLIGHT_RESTATE;
}

/*
 * Is current the task this CPU's last records were written for, with no
 * rename anywhere since (ng_raw_renamed()), and no restatement due?  If
 * not, ng_raw_emit_held() compares the name and restates the task when
 * either changed or one is due.  One word for the name's sake, not the
 * name's two or four.
 */
static __always_inline bool ng_raw_same_task(struct ng_raw_cpu *c)
{
	return READ_ONCE(c->last_pid) == current->pid &&
	       c->last_gen == atomic_read(&ng_raw_comm_gen) &&
	       !ng_raw_restate_due(c);
}

void ng_raw_emit_held(struct ng_raw_cpu *c, u64 tsd, unsigned long ip,
		      const struct ng_raw_record *x, unsigned int n);

/*
 * Reserve @n records of @c (this CPU's) for current: the common case,
 * the same task as the last record and room for them.  True with *@pos
 * the first, for the caller to fill and ng_raw_commit(); false when a
 * task record is due or the buffer is full, and then the caller hands
 * its records to ng_raw_emit_held() instead.  Either way @c's nest
 * count is held from here.  Preemption is off.
 */
static __always_inline bool ng_raw_begin(struct ng_raw_cpu *c, unsigned long n,
					 unsigned long *pos)
{
	unsigned long head;

	BUILD_BUG_ON(NG_STACK_DEPTH > NG_RAW_DEPTH_MAX);
	c->nest++;
	barrier();
	if (unlikely(!ng_raw_same_task(c)))
		return false;
	do {
		head = READ_ONCE(c->head);
		if (unlikely(ng_raw_full(c, head, n)))
			return false;
	} while (cmpxchg_local(&c->head, head, head + n) != head);
	*pos = head;
	return true;
}

/*
 * The tsd words of the value records (include/nanograph_event.h): the
 * call site and argument register @i of the call at @depth, the return
 * value of the call whose exit record's tsd is @exit_tsd.
 */
#define NG_RAW_SITE_REC(depth) \
	(NG_RAW_META | NG_RAW_SITE | (u64)(depth) << NG_RAW_ARG_SHIFT)
#define NG_RAW_ARG_REC(depth, i) \
	(NG_RAW_META | NG_RAW_ARG | ((u64)(depth) | (u64)(i) << 8) << NG_RAW_ARG_SHIFT)
#define NG_RAW_RETVAL_REC(exit_tsd) \
	(NG_RAW_META | NG_RAW_RETVAL | \
	 (u64)NG_TSD_DEPTH((exit_tsd) & ~NG_RAW_EXIT) << NG_RAW_ARG_SHIFT)

void ng_raw_emit_held_retval(struct ng_raw_cpu *c, u64 tsd, unsigned long ip,
			     u64 retval);

/*
 * An exit record, and with @value its call's return value record in the
 * same reservation (options/retval).  Scalars, not a record in memory:
 * the trampoline's C side inlines this, and keeps its frame small.
 */
static __always_inline void ng_raw_emit_exit(u64 tsd, unsigned long ip,
					     bool value, u64 retval)
{
	struct ng_raw_cpu *c = this_cpu_ptr(&ng_raw_cpus);
	unsigned long pos;

	if (unlikely(!ng_raw_begin(c, 1 + value, &pos))) {
		if (value)
			ng_raw_emit_held_retval(c, tsd, ip, retval);
		else
			ng_raw_emit_held(c, tsd, ip, NULL, 0);
		return;
	}
	ng_raw_put(c, pos, tsd, ip);
	if (value)
		ng_raw_put(c, pos + 1, NG_RAW_RETVAL_REC(tsd), retval);
	ng_raw_commit(c);
}

/*
 * One entry or exit record for current, as most calls write.  The
 * common case is inline; a task record first (ng_raw_same_task()), or a
 * full buffer, goes out of line to ng_raw_emit_held(), which takes over
 * this writer's nest count: so the hot path keeps nothing live across a
 * call, and spills nothing.
 */
static __always_inline void ng_raw_emit(u64 tsd, unsigned long ip)
{
	struct ng_raw_cpu *c = this_cpu_ptr(&ng_raw_cpus);
	unsigned long pos;

	if (unlikely(!ng_raw_begin(c, 1, &pos))) {
		ng_raw_emit_held(c, tsd, ip, NULL, 0);
		return;
	}
	ng_raw_put(c, pos, tsd, ip);
	ng_raw_commit(c);
}

void ng_raw_emit_clock(u64 counter, u64 mono_ns, u64 freq);

/* Which stats a meta record counts in (ng_raw_emit_meta()). */
enum ng_meta_class {
	NG_META_SCHED,
	NG_META_COUNTERS,
};

void ng_raw_emit_meta(struct task_struct *task, u64 meta, u64 payload,
		      u64 now, enum ng_meta_class class);
void ng_raw_renamed(struct task_struct *task, const char *comm);

#endif /* NG_RAWBUF_H */
