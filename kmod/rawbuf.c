// SPDX-License-Identifier: GPL-2.0
/*
 * Raw buffer mode: per-CPU buffers of 16-byte records, the module's own,
 * instead of trace events in the ftrace ring buffer.
 *
 * Why: a trace event costs a tracepoint call, the ring buffer's reserve
 * and commit (several local atomics, a clock read and timestamp
 * bookkeeping) and a 12-byte header before nanograph's 16 bytes.  A raw
 * record is the 16 bytes alone, reserved with one CPU-local cmpxchg; the
 * counter in the record already orders it.  Which task a record belongs
 * to is written once per change of task on the CPU (a "task" record),
 * not per record.  The layout is in include/nanograph_event.h, the hot
 * path in rawbuf.h.
 *
 * The buffers exist while buffer_mode is "raw": allocated when the mode
 * is chosen or resized, freed when it is left or the module unloads, all
 * only while the tracer is idle (no ops registered, no frame live), so no
 * writer can be running.  Only online CPUs get one, and a CPU that comes
 * online gets its own before it runs anything (ng_raw_cpu_prepare(), as
 * the ring buffer's trace_rb_cpu_prepare()); one that goes offline keeps
 * it, with what it holds, until the mode is left.  Cloud machines report
 * 64 to 240 possible CPUs, most of which never come online.
 *
 * Each CPU's buffer is read, consuming, from
 * /sys/kernel/nanograph/per_cpu/cpuN/raw: a binary sysfs file, so read(2)
 * and splice(2) both work.  A read never blocks; 0 bytes means "nothing
 * now"; a read too small for one record is refused (EINVAL).  A full
 * buffer drops new records and counts them in the stats file's dropped
 * column; nothing is overwritten, unless the flight recorder is armed
 * (flight.c), which overwrites the oldest records and refuses reads.
 *
 * sysfs copies what a read callback returns to user space after the
 * callback, and moves the file position only when that copy succeeded.
 * So the records a read is handed are not consumed at once: they stay
 * "handed" (ng_raw_handed) until the same open file reads again at a
 * later position (the copy succeeded), or any other open file reads this
 * CPU, or the file is closed (they count as read).  A read at the same
 * position again means the copy failed (EFAULT): the same records are
 * handed again.  They are kept by open file (openfile.c).  No
 * records are handed while the flight recorder overwrites: arm settles
 * them and arms in one step (ng_raw_flight_arm()), and reads are refused
 * until the freeze.
 *
 * Reads come in passes: the first read after a 0 notes where the records
 * end, and the pass returns 0 once it reaches that point, even if more
 * came in meanwhile (they are the next pass's).  A reader whose own
 * read(2) calls are hooked (ksys_read, vfs_read: any task, or the reader's
 * own pid, is recorded) writes a few records on its CPU with every call;
 * without passes, reading until 0 never ended on that CPU.
 */
#define pr_fmt(fmt) "nanograph: " fmt

#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kobject.h>
#include <linux/log2.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/vmalloc.h>

#include "ng_arch_api.h"
#include "compat.h"
#include "ng_module.h"
#include "rawbuf.h"

DEFINE_PER_CPU_ALIGNED(struct ng_raw_cpu, ng_raw_cpus);
DEFINE_STATIC_KEY_FALSE(ng_raw_on);
DEFINE_STATIC_KEY_FALSE(ng_flight_on);
atomic_t ng_raw_comm_gen;

/* Records before each CPU's first task record when a window was settled. */
static atomic_long_t ng_raw_cut;

/* Per-CPU size in KiB, a power of two; what raw_buffer_size_kb shows. */
unsigned int ng_raw_size_kb = 4096;

/* Leaving overwriting: reads are refused (ng_raw_lock). */
static bool ng_raw_settling;

/* The size of the buffers allocated, 0 while there are none (ng_raw_lock). */
static unsigned int ng_raw_alloc_kb;
static enum cpuhp_state ng_raw_cpuhp;

/* Readers against allocation and release of the buffers. */
static DEFINE_MUTEX(ng_raw_lock);

/* What the last read of a CPU's raw file was handed, not yet consumed. */
struct ng_raw_handed {
	struct ng_keep keep;	/* the file it was handed to; none: nothing */
	loff_t pos;		/* where that read started */
	unsigned long n;	/* records */
	int cpu;
};

/*
 * Set up in ng_raw_init(): a module's per-CPU initialisers are copied
 * without their relocations, so no pointer can be given here.
 */
static DEFINE_PER_CPU(struct ng_raw_handed, ng_raw_handed);

static struct kobject *ng_percpu_kobj;
static struct kobject **ng_cpu_kobjs;
static struct bin_attribute *ng_raw_attrs;

/*
 * A full buffer in flight mode (armed or triggered): move tail past the
 * oldest records to make room for those up to @end, and count them as
 * overwritten.  False otherwise: the caller drops its record.  A flight
 * buffer stays full, so room is made for NG_FLIGHT_SLACK records more:
 * the writers after this one find room without coming here (a call and
 * a CPU-local cmpxchg, no barrier, once per NG_FLIGHT_SLACK records).
 * When the state leaves overwriting, ng_raw_flight_leave() waits for
 * the writers that read the old state (they run with preemption off).
 */
static noinline bool ng_raw_overwrite(struct ng_raw_cpu *c, unsigned long end)
{
	unsigned long size = c->mask + 1;
	unsigned long tail, want = end - size + min(NG_FLIGHT_SLACK, size / 4);

	/* Pairs with ng_flight_arm(): the buffers were made ready first. */
	if (!ng_flight_overwrites(smp_load_acquire(&ng_flight_state)))
		return false;
	do {
		tail = READ_ONCE(c->tail);
		if ((long)(tail - want) >= 0)
			return true;
	} while (cmpxchg_local(&c->tail, tail, want) != tail);
	ng_stat_add(overwritten, want - tail);
	return true;
}

/* A record left out: lost, unless a flight window is frozen by design. */
static noinline void ng_raw_dropped(void)
{
	if (READ_ONCE(ng_flight_state) == NG_FLIGHT_FROZEN)
		ng_stat_inc(frozen_dropped);
	else
		ng_stat_inc(dropped);
}

/*
 * Reserve @n records; false when they do not fit.  A dropped record
 * makes the next writer restate its task.
 */
static bool ng_raw_reserve(struct ng_raw_cpu *c, unsigned long n,
			   unsigned long *pos)
{
	unsigned long head;

	do {
		head = READ_ONCE(c->head);
		if (unlikely(ng_raw_full(c, head, n)) &&
		    !ng_raw_overwrite(c, head + n)) {
			WRITE_ONCE(c->last_pid, -1);
			return false;
		}
	} while (cmpxchg_local(&c->head, head, head + n) != head);
	*pos = head;
	return true;
}

/*
 * The task record at @pos: @task's ids, then @comm0 and @comm1 as its
 * name at counter @now; this CPU's records are @task's from there on
 * (the caller says so in last_pid).
 */
static void ng_raw_fill_task(struct ng_raw_cpu *c, unsigned long pos,
			     struct task_struct *task, u64 now, u64 comm0,
			     u64 comm1)
{
	c->task_pos = pos;
	ng_raw_put(c, pos, NG_RAW_META | NG_RAW_TASK,
		   (u64)task->tgid << 32 | (u32)task->pid);
	ng_raw_put(c, pos + 1, NG_RAW_META | NG_RAW_COMM, NG_TSD_COUNTER(now));
	ng_raw_put(c, pos + 2, comm0, comm1);
	c->last_comm[0] = comm0;
	c->last_comm[1] = comm1;
}

/* A task record for current, or a task renaming itself (current too). */
static void ng_raw_put_task(struct ng_raw_cpu *c, unsigned long pos,
			    struct task_struct *task, u64 now, u64 comm0,
			    u64 comm1)
{
	ng_raw_fill_task(c, pos, task, now, comm0, comm1);
	WRITE_ONCE(c->last_pid, task->pid);
}

/*
 * The rest of ng_raw_emit() and its kin (ng_raw_begin()'s callers), out
 * of line, the @n records of @x after the record: a task record and the
 * task's name before the record when the task or its name changed, or in
 * flight mode the task record is due again (ng_raw_restate_due()); and a
 * buffer that is full (overwritten in flight mode, else the record is
 * dropped).  The name is read unlocked, as ftrace's saved_cmdlines does.
 * The caller holds @c's nest count; this commits and releases it.
 */
noinline void ng_raw_emit_held(struct ng_raw_cpu *c, u64 tsd, unsigned long ip,
			       const struct ng_raw_record *x, unsigned int n)
{
	int gen = atomic_read(&ng_raw_comm_gen);
	unsigned long pos;
	u64 comm0, comm1;
	unsigned int i;
	bool task;

	BUILD_BUG_ON(sizeof(current->comm) != 2 * sizeof(u64));
	memcpy(&comm0, current->comm, sizeof(comm0));
	memcpy(&comm1, current->comm + sizeof(comm0), sizeof(comm1));
	task = READ_ONCE(c->last_pid) != current->pid ||
	       c->last_comm[0] != comm0 || c->last_comm[1] != comm1 ||
	       ng_raw_restate_due(c);
	c->last_gen = gen;
	if (likely(ng_raw_reserve(c, 1 + n + 3 * task, &pos))) {
		if (task) {
			ng_raw_put_task(c, pos, current, tsd, comm0, comm1);
			pos += 3;
		}
		ng_raw_put(c, pos, tsd, ip);
		for (i = 0; i < n; i++)
			ng_raw_put(c, pos + 1 + i, x[i].tsd, x[i].ip);
	} else {
		ng_raw_dropped();
	}
	ng_raw_commit(c);
}

/* The held path of an exit with its return value (ng_raw_emit_exit()). */
noinline void ng_raw_emit_held_retval(struct ng_raw_cpu *c, u64 tsd,
				      unsigned long ip, u64 retval)
{
	struct ng_raw_record x = { NG_RAW_RETVAL_REC(tsd), retval };

	ng_raw_emit_held(c, tsd, ip, &x, 1);
}

/*
 * task_rename (comm.c; exec fires it too), before the new name is copied
 * in: every CPU compares its task's name again at its next record.  A
 * task renaming itself (exec, PR_SET_NAME) inside a hooked call, whose
 * records this CPU's last are, is restated here at once with the new
 * @comm, so that the records it writes before the copy (the calls the
 * copy makes, its own exits) carry that name; any other is left for its
 * next record to restate, after the copy (and a task that records
 * nothing gets no task record).  A task whose CPU compares in the
 * instant before the copy (renamed by another, through /proc/PID/comm,
 * or outside any hooked call but for one inside the copy) keeps its old
 * name on that CPU until another task's records come between.  Any
 * context but NMI.
 */
void ng_raw_renamed(struct task_struct *task, const char *comm)
{
	char name[TASK_COMM_LEN];
	struct ng_raw_cpu *c;
	struct ng_stack *t;
	u64 comm0, comm1, now;
	unsigned long pos;

	if (!static_branch_unlikely(&ng_raw_on))
		return;
	atomic_inc(&ng_raw_comm_gen);
	if (task != current)
		return;
	BUILD_BUG_ON(sizeof(name) != 2 * sizeof(u64));
	strscpy_pad(name, comm, sizeof(name));
	memcpy(&comm0, name, sizeof(comm0));
	memcpy(&comm1, name + sizeof(comm0), sizeof(comm1));
	preempt_disable_notrace();
	c = this_cpu_ptr(&ng_raw_cpus);
	t = ng_stack_of(task);
	if (READ_ONCE(c->last_pid) != task->pid || !t || !READ_ONCE(t->depth)) {
		preempt_enable_notrace();
		return;
	}
	now = ng_counter_read();
	c->nest++;
	barrier();
	if (ng_raw_reserve(c, 3, &pos)) {
		ng_raw_put_task(c, pos, task, now, comm0, comm1);
		c->last_gen = atomic_read(&ng_raw_comm_gen);
	}
	ng_raw_commit(c);
	preempt_enable_notrace();
}

/*
 * A one-record meta kind (include/nanograph_event.h) of kind and
 * argument @meta, second word @payload, at @now, for @task: a scheduling
 * record (sched.c; @task current, @next of sched_switch, about to run on
 * this CPU, or a task the scheduler moves, which runs nowhere meanwhile)
 * or a counters record (counters.c; current), @class saying which for
 * the stats.
 * A task record comes first unless this CPU's last records are @task's,
 * under its name now; decided in the loop that reserves, so that a
 * writer nesting before the reservation is seen.  One nesting after it
 * writes for current: for @next, last_pid reads -1 meanwhile (a nested
 * writer restates current), and becomes @next's only if nothing did.
 * Neither an entry nor an exit: counted apart, and so are the ones
 * dropped.  Preemption is off.  A scheduling record comes with
 * interrupts off but in sched_waking's wakeup of current; a counters
 * record from any context a hooked call returns in, NMI included: the
 * reservation is made for nesting writers either way (for current, whose
 * interrupts write for current as well).
 */
void ng_raw_emit_meta(struct task_struct *task, u64 meta, u64 payload,
		      u64 now, enum ng_meta_class class)
{
	struct ng_raw_cpu *c = this_cpu_ptr(&ng_raw_cpus);
	int gen = atomic_read(&ng_raw_comm_gen);
	bool other = task != current;
	unsigned long head, n;
	u64 comm0, comm1;
	bool restate;

	memcpy(&comm0, task->comm, sizeof(comm0));
	memcpy(&comm1, task->comm + sizeof(comm0), sizeof(comm1));
	c->nest++;
	barrier();
	do {
		head = READ_ONCE(c->head);
		barrier();
		restate = READ_ONCE(c->last_pid) != task->pid ||
			  c->last_comm[0] != comm0 || c->last_comm[1] != comm1 ||
			  ng_raw_restate_due(c);
		if (restate && other)
			WRITE_ONCE(c->last_pid, -1);
		n = 1 + 3 * restate;
		if (unlikely(ng_raw_full(c, head, n)) &&
		    !ng_raw_overwrite(c, head + n)) {
			WRITE_ONCE(c->last_pid, -1);
			if (READ_ONCE(ng_flight_state) == NG_FLIGHT_FROZEN)
				ng_stat_inc(frozen_dropped);
			else if (class == NG_META_COUNTERS)
				ng_stat_inc(counter_dropped);
			else
				ng_stat_inc(sched_dropped);
			goto out;
		}
	} while (cmpxchg_local(&c->head, head, head + n) != head);
	if (restate && other) {
		ng_raw_fill_task(c, head, task, now, comm0, comm1);
		head += 3;
	} else if (restate) {
		ng_raw_put_task(c, head, task, now, comm0, comm1);
		head += 3;
	}
	c->last_gen = gen;
	ng_raw_put(c, head, NG_RAW_META | meta, payload);
	/* Fails if a nested writer restated current after the reservation. */
	if (restate && other)
		cmpxchg_local(&c->last_pid, -1, task->pid);
	if (class == NG_META_COUNTERS)
		ng_stat_inc(counter_records);
	else
		ng_stat_inc(sched_records);
out:
	ng_raw_commit(c);
}

/*
 * The clock_sync pair, into the buffer of the CPU this runs on.  When it
 * does not fit it is not counted as dropped (that column counts entries
 * and exits): the collector has the clock file's pair to fall back on.
 */
void ng_raw_emit_clock(u64 counter, u64 mono_ns, u64 freq)
{
	struct ng_raw_cpu *c;
	unsigned long pos;

	if (!static_branch_unlikely(&ng_raw_on))
		return;
	preempt_disable();
	c = this_cpu_ptr(&ng_raw_cpus);
	c->nest++;
	barrier();
	if (ng_raw_reserve(c, 2, &pos)) {
		ng_raw_put(c, pos, NG_RAW_META | NG_RAW_CLOCK, counter);
		ng_raw_put(c, pos + 1, mono_ns, freq);
	}
	ng_raw_commit(c);
	preempt_enable();
}

/*
 * The records a read was handed count as read (the reader's position is
 * about to change hands, or to be thrown away).  ng_raw_lock held.
 */
static void ng_raw_settle_handed(struct ng_raw_cpu *c, struct ng_raw_handed *h)
{
	lockdep_assert_held(&ng_raw_lock);
	if (!h->keep.file)
		return;
	/* Pairs with ng_raw_reserve(): copied out before they are reused. */
	smp_store_release(&c->tail, c->tail + h->n);
	ng_keep_drop(&h->keep);
}

/* The file the records were handed to was closed: they count as read. */
static void ng_raw_handed_release(struct ng_keep *k)
{
	struct ng_raw_handed *h = container_of(k, struct ng_raw_handed, keep);

	ng_raw_settle_handed(per_cpu_ptr(&ng_raw_cpus, h->cpu), h);
}

/*
 * Leave overwriting (freeze, off): the state becomes @state, then wait
 * until no writer moves tail (those that read the old state run with
 * preemption off, some where RCU is not watching: both grace periods see
 * them out, as ng_drain_grace() waits for the trampoline's last lines),
 * then start each CPU's records at its first task record.  Those before
 * it are the remains of overwritten ones (a name without its task record,
 * half a clock pair) that no reader could place; they count as
 * overwritten.  Reads are refused until then (ng_raw_settling): one in
 * between would be handed records that the writers or this then moved
 * past.  Writers go on adding records after commit meanwhile, which does
 * not touch what is between tail and commit.  Returns the state left.
 */
int ng_raw_flight_leave(int state)
{
	int cpu, old;

	mutex_lock(&ng_raw_lock);
	/* A trigger may still move armed to triggered: either comes first. */
	old = xchg(&ng_flight_state, state);
	ng_raw_settling = true;
	mutex_unlock(&ng_raw_lock);
	synchronize_rcu();
	ng_synchronize_rcu_tasks_rude();
	mutex_lock(&ng_raw_lock);
	for_each_possible_cpu(cpu) {
		struct ng_raw_cpu *c = per_cpu_ptr(&ng_raw_cpus, cpu);
		unsigned long t, commit;

		if (!c->data)
			continue;
		/* None handed since the arm: reads were refused. */
		WARN_ON_ONCE(per_cpu_ptr(&ng_raw_handed, cpu)->keep.file);
		/* Pairs with ng_raw_commit(): the records below commit are whole. */
		commit = smp_load_acquire(&c->commit);
		for (t = c->tail; t != commit; t++)
			if (c->data[t & c->mask].tsd == (NG_RAW_META | NG_RAW_TASK))
				break;
		atomic_long_add(t - c->tail, &ng_raw_cut);
		/* Pairs with ng_raw_reserve(), as a read's does. */
		smp_store_release(&c->tail, t);
		c->pass = false;
	}
	ng_raw_settling = false;
	mutex_unlock(&ng_raw_lock);
	return old;
}

/*
 * arm: from off or frozen (@discard) what the buffers hold is thrown
 * away (a window saved, or records of before), and each CPU names its
 * task again in its next record; then the state becomes armed.  Both
 * under ng_raw_lock, under which a read looks at the state: a read
 * between them was handed records that the armed writers then overwrote
 * or a freeze cut, and the next read skipped as many records of the
 * window, counted nowhere.  Called while no writer moves tail (off or
 * frozen, or armed already by a trigger's state: triggered).
 */
void ng_raw_flight_arm(bool discard)
{
	int cpu;

	mutex_lock(&ng_raw_lock);
	for_each_possible_cpu(cpu) {
		struct ng_raw_cpu *c = per_cpu_ptr(&ng_raw_cpus, cpu);

		if (!discard)
			continue;
		ng_raw_settle_handed(c, per_cpu_ptr(&ng_raw_handed, cpu));
		if (!c->data)
			continue;
		/* Pairs with ng_raw_commit() and ng_raw_reserve(), as a read's. */
		smp_store_release(&c->tail, smp_load_acquire(&c->commit));
		c->pass = false;
		WRITE_ONCE(c->last_pid, -1);
	}
	/* Test only: a read that comes now must wait for the arm. */
	if (ng_inject(NG_INJECT_ARM_DELAY))
		msleep(500);
	/* Pairs with ng_raw_overwrite(): the buffers are ready first. */
	smp_store_release(&ng_flight_state, NG_FLIGHT_ARMED);
	mutex_unlock(&ng_raw_lock);
}

unsigned long ng_raw_flight_cut(void)
{
	return atomic_long_read(&ng_raw_cut);
}

static void ng_raw_free(void)
{
	int cpu;

	lockdep_assert_held(&ng_raw_lock);
	for_each_possible_cpu(cpu) {
		struct ng_raw_cpu *c = per_cpu_ptr(&ng_raw_cpus, cpu);
		struct ng_raw_handed *h = per_cpu_ptr(&ng_raw_handed, cpu);

		ng_keep_drop(&h->keep);

		vfree(c->data);
		memset(c, 0, sizeof(*c));
		c->last_pid = -1;
	}
	ng_raw_alloc_kb = 0;
}

/* An empty buffer of @kb KiB for @cpu, on its node. */
static int ng_raw_alloc_cpu(int cpu, unsigned int kb)
{
	struct ng_raw_cpu *c = per_cpu_ptr(&ng_raw_cpus, cpu);
	size_t bytes = (size_t)kb << 10;

	lockdep_assert_held(&ng_raw_lock);
	c->data = vmalloc_node(bytes, cpu_to_node(cpu));
	if (!c->data)
		return -ENOMEM;
	c->mask = bytes / sizeof(struct ng_raw_record) - 1;
	c->head = 0;
	c->commit = 0;
	c->tail = 0;
	c->pass = false;
	c->nest = 0;
	c->task_pos = 0;
	c->last_pid = -1;
	return 0;
}

/*
 * Empty buffers of @kb KiB for every online CPU, or none at all; CPU
 * hotplug held off (the caller holds cpus_read_lock()), so that a CPU
 * coming up meanwhile finds them made, and gets its own.
 */
static int ng_raw_alloc(unsigned int kb)
{
	int cpu;

	/* lockdep_assert_cpus_held() is not exported to modules */
	lockdep_assert_held(&ng_raw_lock);
	for_each_online_cpu(cpu) {
		if (ng_raw_alloc_cpu(cpu, kb)) {
			ng_raw_free();
			return -ENOMEM;
		}
	}
	ng_raw_alloc_kb = kb;
	return 0;
}

/*
 * A CPU comes up, before it runs anything: its buffer, if the others
 * have theirs and it has none yet (it kept its own while offline).  If
 * none can be had, it stays down, as with the ring buffer's.
 */
static int ng_raw_cpu_prepare(unsigned int cpu)
{
	int ret = 0;

	mutex_lock(&ng_raw_lock);
	if (ng_raw_alloc_kb && !per_cpu_ptr(&ng_raw_cpus, cpu)->data)
		ret = ng_raw_alloc_cpu(cpu, ng_raw_alloc_kb);
	mutex_unlock(&ng_raw_lock);
	return ret;
}

/*
 * buffer_mode: @raw chooses the raw buffers, else the trace events.
 * Called with ng_control_lock held and the tracer idle.
 */
int ng_raw_set_mode(bool raw)
{
	int ret = 0;

	lockdep_assert_held(&ng_control_lock);
	if (raw == static_key_enabled(&ng_raw_on))
		return 0;
	cpus_read_lock();
	mutex_lock(&ng_raw_lock);
	if (raw) {
		ret = ng_raw_alloc(ng_raw_size_kb);
		if (!ret)
			static_branch_enable_cpuslocked(&ng_raw_on);
	} else {
		static_branch_disable_cpuslocked(&ng_raw_on);
		ng_raw_free();
	}
	mutex_unlock(&ng_raw_lock);
	cpus_read_unlock();
	return ret;
}

bool ng_raw_mode(void)
{
	return static_key_enabled(&ng_raw_on);
}

/*
 * tracing_on=1: each CPU's next record names its task again.  A reader
 * that emptied the buffers before this recording (nanograph record does,
 * of an earlier session's records) took the task records with them; a
 * task that wrote last before and writes first now would otherwise have
 * its records follow none, and the reader could not tell whose they are.
 * Writers are the frames of an earlier session still returning, if any:
 * one of them racing with this can leave one record unnamed, which the
 * reader leaves out and counts (counts.unattributed).
 */
void ng_raw_restate_tasks(void)
{
	int cpu;

	if (!static_key_enabled(&ng_raw_on))
		return;
	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu_ptr(&ng_raw_cpus, cpu)->last_pid, -1);
}

/*
 * raw_buffer_size_kb: rounded up to a power of two (the buffer index is
 * masked); in raw mode the buffers are replaced, and what they held is
 * gone, as with ftrace's buffer_size_kb.  Tracer idle, ng_control_lock
 * held.
 */
int ng_raw_resize(unsigned long *kb)
{
	int ret = 0;

	lockdep_assert_held(&ng_control_lock);
	if (*kb < 4)
		return -EINVAL;
	*kb = roundup_pow_of_two(*kb);
	if (!static_key_enabled(&ng_raw_on))
		return 0;
	cpus_read_lock();
	mutex_lock(&ng_raw_lock);
	ng_raw_free();
	ret = ng_raw_alloc(*kb);
	if (ret && ng_raw_alloc(ng_raw_size_kb))
		/* not even the old size */
		static_branch_disable_cpuslocked(&ng_raw_on);
	mutex_unlock(&ng_raw_lock);
	cpus_read_unlock();
	return ret;
}

/*
 * per_cpu/cpuN/raw: move whole records out, oldest first; sysfs hands us
 * at most a page per call.  Reading consumes, once the copy to user space
 * is known to have succeeded (see the top of this file); the offset says
 * only that.  A pass (reads up to a 0) ends where the records ended
 * when it began.
 */
static ssize_t ng_raw_read(struct file *filp, struct kobject *kobj,
			   ng_bin_attr_t *attr, char *buf, loff_t off,
			   size_t count)
{
	long cpu = (long)attr->private;
	struct ng_raw_cpu *c = per_cpu_ptr(&ng_raw_cpus, cpu);
	struct ng_raw_handed *h = per_cpu_ptr(&ng_raw_handed, cpu);
	unsigned long tail, n, first;
	size_t rs = sizeof(struct ng_raw_record);

	if (count < rs)
		return -EINVAL;		/* never "empty" while records wait */
	if (ng_locked_down())
		return -EPERM;
	mutex_lock(&ng_raw_lock);
	if (!c->data) {
		mutex_unlock(&ng_raw_lock);
		return 0;
	}
	/* The writers move tail; ng_raw_flight_arm() took the handed. */
	if (ng_flight_overwrites(READ_ONCE(ng_flight_state)) || ng_raw_settling) {
		mutex_unlock(&ng_raw_lock);
		return -EBUSY;
	}
	/* Unless this is the failed read again, they were read. */
	if (!ng_keep_is(&h->keep, filp) || h->pos != off)
		ng_raw_settle_handed(c, h);
	tail = c->tail;
	if (!c->pass) {
		/* Pairs with ng_raw_commit(): the records below commit are whole. */
		c->pass_end = smp_load_acquire(&c->commit);
		c->pass = true;
	}
	n = min_t(unsigned long, c->pass_end - tail, count / rs);
	if (!n)
		c->pass = false;
	first = min(n, c->mask + 1 - (tail & c->mask));
	memcpy(buf, &c->data[tail & c->mask], first * rs);
	memcpy(buf + first * rs, c->data, (n - first) * rs);
	if (n) {
		ng_keep_hold(&h->keep, filp);
		h->pos = off;
		h->n = n;
	} else {
		ng_keep_drop(&h->keep);
	}
	mutex_unlock(&ng_raw_lock);
	return n * rs;
}

/*
 * per_cpu/cpuN/raw for every possible CPU, under @parent.  Plain kobjects
 * for the directories, as ftrace's per_cpu/ has one per CPU.
 */
int ng_raw_files_init(struct kobject *parent)
{
	int cpu, ret = -ENOMEM;

	ng_percpu_kobj = kobject_create_and_add("per_cpu", parent);
	ng_cpu_kobjs = kcalloc(nr_cpu_ids, sizeof(*ng_cpu_kobjs), GFP_KERNEL);
	ng_raw_attrs = kcalloc(nr_cpu_ids, sizeof(*ng_raw_attrs), GFP_KERNEL);
	if (!ng_percpu_kobj || !ng_cpu_kobjs || !ng_raw_attrs)
		goto err;
	for_each_possible_cpu(cpu) {
		struct bin_attribute *a = &ng_raw_attrs[cpu];
		char name[16];

		ng_keep_add(&per_cpu_ptr(&ng_raw_handed, cpu)->keep);

		snprintf(name, sizeof(name), "cpu%d", cpu);
		ng_cpu_kobjs[cpu] = kobject_create_and_add(name, ng_percpu_kobj);
		if (!ng_cpu_kobjs[cpu]) {
			ret = -ENOMEM;
			goto err;
		}
		sysfs_bin_attr_init(a);
		a->attr.name = "raw";
		a->attr.mode = 0400;
		a->read = ng_raw_read;
		a->private = (void *)(long)cpu;
		ret = sysfs_create_bin_file(ng_cpu_kobjs[cpu], a);
		if (ret)
			goto err;
	}
	return 0;
err:
	ng_raw_files_exit();
	return ret;
}

/* Remove the files; sysfs waits for readers inside ng_raw_read(). */
void ng_raw_files_exit(void)
{
	int cpu;

	for (cpu = 0; ng_cpu_kobjs && cpu < nr_cpu_ids; cpu++) {
		if (!ng_cpu_kobjs[cpu])
			continue;
		sysfs_remove_bin_file(ng_cpu_kobjs[cpu], &ng_raw_attrs[cpu]);
		kobject_put(ng_cpu_kobjs[cpu]);
	}
	kobject_put(ng_percpu_kobj);
	kfree(ng_cpu_kobjs);
	kfree(ng_raw_attrs);
	ng_percpu_kobj = NULL;
	ng_cpu_kobjs = NULL;
	ng_raw_attrs = NULL;
}

/*
 * At load: each CPU's handed records are kept by open file; CPUs that
 * come up while in raw mode get their buffers.
 */
int ng_raw_init(void)
{
	int cpu, ret;

	for_each_possible_cpu(cpu) {
		struct ng_raw_handed *h = per_cpu_ptr(&ng_raw_handed, cpu);

		h->keep = (struct ng_keep)NG_KEEP_INIT(&ng_raw_lock,
						       ng_raw_handed_release);
		h->cpu = cpu;
	}

	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN,
					"nanograph/raw:prepare",
					ng_raw_cpu_prepare, NULL);
	if (ret < 0)
		return ret;
	ng_raw_cpuhp = ret;
	return 0;
}

/* Module exit: no writer can run any more. */
void ng_raw_exit(void)
{
	static_branch_disable(&ng_raw_on);
	cpuhp_remove_state_nocalls(ng_raw_cpuhp);
	mutex_lock(&ng_raw_lock);
	ng_raw_free();
	mutex_unlock(&ng_raw_lock);
}
