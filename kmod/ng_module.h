/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nanograph: internal interfaces between the module's parts.
 *
 * Each .c file has one job: main.c brings the parts up and down in order,
 * control.c is the sysfs control directory, openfile.c what its files
 * keep for one open file, lists.c keeps the function lists, ops_steps.c
 * hooks every function in steps, pids.c keeps set_event_pid, tracer.c
 * hooks entries and returns, foreign_ret.c recognises another tracer's
 * return trampoline, retstack.c keeps the shadow stacks, events.c defines
 * the trace events, clock.c publishes the counter, stats.c keeps the
 * per-CPU counts, rawbuf.c keeps the raw buffer mode's per-CPU buffers,
 * comm.c records what the traced tasks decide themselves, flight.c is the
 * flight recorder, sched.c writes the scheduling records, counters.c the
 * per-call counters, values.c says which arguments and return values are
 * recorded, ftrace_tracer.c is nanograph as an ftrace tracer (patched
 * kernels), calib_target.c the calibration's traced function.
 */
#ifndef NG_MODULE_H
#define NG_MODULE_H

#include <linux/hash.h>
#include <linux/jump_label.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/rcupdate.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/security.h>
#include <linux/seq_buf.h>
#include <linux/spinlock.h>
#include <linux/trace_recursion.h>
#include <linux/types.h>
#include <asm/local64.h>

#include "nanograph_event.h"

struct ftrace_ops;
struct ftrace_regs;
struct task_struct;

/* Hooked frames one task can hold; deeper calls are counted as skipped. */
#define NG_STACK_DEPTH	64

/* One hooked call: where it returns to, and which call it was. */
struct ng_frame {
	unsigned long ret;	/* the real return address */
	unsigned long ip;	/* the hooked function's ftrace call site */
	unsigned long key;	/* identity at exit: see ng_arch_hook_site() */
	unsigned long flags;	/* NG_FRAME_* */
	u64 entry;		/* the counter at entry: func_call, func_open */
	u64 counts[2];		/* with NG_FRAME_COUNTS: ng_counts_of() at entry */
	u64 clocks;		/* with NG_FRAME_CLOCKS: ng_clocks_of() at entry */
};

#define NG_FRAME_ROOT		1	/* a set_graph_function root */
#define NG_FRAME_NOTRACE	2	/* a set_graph_notrace root: no events */
#define NG_FRAME_GONE		4	/* abandoned: real address put back */
#define NG_FRAME_COUNTS		8	/* counts taken: options/counters */
#define NG_FRAME_CLOCKS		16	/* clocks taken: a time trigger armed */
/*
 * Recorded, but nothing below it is: a set_graph_notrace root whose own
 * callback came after the plain hook (ng_frame_upgrade(), tracer.c).
 */
#define NG_FRAME_SHUT		32
/* The clocks' generation (ng_clocks_gen) a frame's were taken in, 16 bits. */
#define NG_FRAME_GEN_SHIFT	8
#define NG_FRAME_GEN(gen)	(((unsigned long)(gen) & 0xffff) << NG_FRAME_GEN_SHIFT)
#define NG_FRAME_GEN_MASK	NG_FRAME_GEN(0xffff)

/*
 * One task's shadow stack (retstack.c): given to a task in process
 * context (recording start, fork, set_event_pid), never from the hook.
 */
struct ng_stack {
	struct hlist_node node;		/* in its bucket of the task table */
	struct task_struct *task;
	pid_t pid;			/* the task's (exec included), for func_open */
	unsigned int depth;		/* frames in use */
	unsigned int graph_depth;	/* NG_FRAME_ROOT frames among them */
	unsigned int notrace_depth;	/* NG_FRAME_NOTRACE, _SHUT frames among them */
	/*
	 * Its clocks off a CPU (sched.c), kept while a time trigger is
	 * armed: written by its own switches, @wake_at by its wakers.
	 */
	u64 off_at;		/* the counter when it left a CPU; 0: on one */
	u64 wake_at;		/* the counter of its last wake */
	u64 off_total;		/* ticks off a CPU inside calls */
	u64 blocked_total;	/* of them, asleep until a wake */
	bool asleep;		/* it left the CPU at @off_at asleep */
	int cached_on;		/* the CPU whose ng_cur_stack it may be; -1: none */
	struct rcu_head rcu;
	struct ng_frame frames[NG_STACK_DEPTH];
};

/*
 * The task table (retstack.c): a stack per traced task, bucketed by the
 * task's address, the one thing about a task that never changes (a
 * thread that execs takes its leader's pid in de_thread(), with frames
 * open).  16384 buckets: one task per bucket up to thousands of tasks.
 */
#define NG_BUCKET_BITS	14
#define NG_BUCKETS	BIT(NG_BUCKET_BITS)
extern struct hlist_head *ng_buckets;
extern raw_spinlock_t ng_table_lock;
DECLARE_PER_CPU(struct ng_stack *, ng_idle_stacks);

static __always_inline struct hlist_head *ng_bucket(const struct task_struct *task)
{
	return &ng_buckets[hash_ptr(task, NG_BUCKET_BITS)];
}

/*
 * The stack of @task, or NULL.  Preemption must be off (an RCU-sched
 * read side), or the table lock held.  Inline: the hook and the
 * trampoline look up current's on every call.
 */
static __always_inline struct ng_stack *ng_stack_of(struct task_struct *task)
{
	struct ng_stack *s;

	if (unlikely(!task->pid)) {
		/* An idle task: the lookups for it are its own CPU's. */
		s = this_cpu_read(ng_idle_stacks);
		if (s && unlikely(!s->task))
			s->task = task;
		return s;
	}
	hlist_for_each_entry_rcu(s, ng_bucket(task), node,
				 lockdep_is_held(&ng_table_lock))
		if (s->task == task)
			return s;
	return NULL;
}

/*
 * The stack the hook and the return handler found last on this CPU, or
 * NULL (retstack.c's ng_stack_cache_here()).  Not trusted: a hit is one
 * whose task is current.  So the only rule is the memory's: a stack is
 * in one CPU's cache at most, its @cached_on's, and leaves it before its
 * grace period starts (ng_stack_uncache()).  A freed stack's task is
 * dead, and no hook runs as it to cache it again; all caches are emptied
 * when the table is, with no hook running.  Read racily: another CPU
 * only ever clears an entry, and only one whose task is gone.
 */
DECLARE_PER_CPU(struct ng_stack *, ng_cur_stack);
void ng_stack_cache_here(struct ng_stack *s);

/*
 * current's stack, or NULL: this CPU's last one if it is current's, else
 * the table's (or, for an idle task, this CPU's idle stack), which this
 * CPU then keeps.  The two hot paths' lookup: a task runs many calls
 * between two switches, and a hit is a per-CPU load, the stack's task
 * and a compare, instead of a hash and a chain.  Preemption off, as for
 * ng_stack_of().
 */
static __always_inline struct ng_stack *ng_current_stack(void)
{
	struct task_struct *task = current;
	/* Racy: another CPU may clear it (ng_stack_uncache()), never set it. */
	struct ng_stack *s = data_race(__this_cpu_read(ng_cur_stack));

	if (likely(s && READ_ONCE(s->task) == task))
		return s;
	s = ng_stack_of(task);
	if (s)
		ng_stack_cache_here(s);
	return s;
}

unsigned long ng_live_frames(unsigned int *tasks, unsigned int *owners);
unsigned long ng_abandoned_frames(void);
unsigned long ng_drain_stops(void);
unsigned long ng_drain_wrapped(void);
void ng_drain_wait(unsigned int ms);
size_t ng_retstack_bytes(void);
unsigned int ng_stack_pool(void);
unsigned long ng_stack_pool_misses(void);
unsigned long ng_nostack_tasks(void);
unsigned long ng_late_stacks(void);
void ng_stack_missing(void);
int ng_stacks_start(void);
struct ng_pid_map;
int ng_stacks_assign(struct ng_pid_map *map);
void ng_stacks_stop(void);
unsigned int ng_stacks_abandon(unsigned int *wrapped);
void ng_stacks_trim_abandoned(void);
void ng_stacks_report_open(void);
void ng_stacks_release(void);

/*
 * Abandoning a sleeping task's frames (retstack.c, arch/<arch>/unhook.c):
 * the frames that share one return slot (a tail call hooked as well as
 * its caller share the caller's), innermost first.
 */
struct ng_slot_group {
	unsigned long key;	/* the frames' key */
	unsigned long ret;	/* the real return address of the lowest */
	unsigned long *slot;	/* where the trampoline's address is now */
};

/* Is @addr another tracer's return trampoline (foreign_ret.c)? */
bool ng_foreign_return(unsigned long addr);
int ng_retstack_init(void);
void ng_retstack_exit(void);

/* Test-only failures (main.c's "inject" parameter); slow paths only. */
#define NG_INJECT_STACKS	1	/* giving the stacks at a start: ENOMEM */
#define NG_INJECT_REGISTER	2	/* registering ng_ops: ENOMEM */
#define NG_INJECT_LOAD		4	/* the load, once everything is up */
#define NG_INJECT_HOLD_RETURN	8	/* with selfcheck: see ng_test_hold() */
#define NG_INJECT_ARM_DELAY	16	/* flight=arm holds raw reads 0.5 s */
#define NG_INJECT_GONE		32	/* a module going: a group's hand-over */
extern unsigned int ng_inject_mask;
DECLARE_STATIC_KEY_FALSE(ng_selfcheck);
/* On while the hook records (tracer.c); the scheduling probes test it too. */
DECLARE_STATIC_KEY_FALSE(ng_recording);
/*
 * The users of the scheduler probes (sched.c): options/sched's records,
 * and the clocks of the time triggers (flight.c).  With ng_control_lock
 * held; the probes are registered while either wants them.
 */
#define NG_SCHED_RECORDS	1
#define NG_SCHED_CLOCKS		2
int ng_sched_use(unsigned int user, bool on);
DECLARE_STATIC_KEY_FALSE(ng_clocks_on);

/* A flight trigger's longest duration (flight.c), in seconds and ns. */
#define NG_TRIGGER_S_MAX	3600ULL
#define NG_TRIGGER_NS_MAX	(NG_TRIGGER_S_MAX * NSEC_PER_SEC)

/*
 * The task of @t's off-CPU and blocked ticks, in the two 32-bit lanes of
 * a frame's clocks (low: off, high: blocked), each shifted right by
 * ng_clock_shift so that a lane spans NG_TRIGGER_NS_MAX.
 */
extern unsigned int ng_clock_shift;
extern unsigned int ng_clocks_gen;
static __always_inline u64 ng_clocks_of(const struct ng_stack *t)
{
	return (u32)(t->off_total >> ng_clock_shift) |
	       (u64)(u32)(t->blocked_total >> ng_clock_shift) << 32;
}

/* A returning call's ticks off a CPU and, of them, blocked. */
struct ng_call_clocks {
	u64 off, blocked;
	bool known;		/* its frame took the clocks at entry */
};

/*
 * Those of frame @f of @t (current's), which lasted @ticks, at its exit:
 * known if its clocks were taken in this run of them (an earlier one did
 * not count every span) and the call is not longer than a lane spans.
 */
static __always_inline struct ng_call_clocks
ng_call_clocks(const struct ng_stack *t, const struct ng_frame *f, u64 ticks)
{
	struct ng_call_clocks c = {
		.known = (f->flags & NG_FRAME_CLOCKS) &&
			 (f->flags & NG_FRAME_GEN_MASK) ==
			 NG_FRAME_GEN(READ_ONCE(ng_clocks_gen)) &&
			 !((ticks >> ng_clock_shift) >> 32),
	};
	u64 cur = ng_clocks_of(t);

	if (c.known) {
		c.off = (u64)((u32)cur - (u32)f->clocks) << ng_clock_shift;
		c.blocked = (u64)((u32)(cur >> 32) - (u32)(f->clocks >> 32))
			    << ng_clock_shift;
	}
	return c;
}

/* options/counters (counters.c); with ng_control_lock held. */
DECLARE_STATIC_KEY_FALSE(ng_counters_on);
void ng_counters_set(bool on);
void ng_counters_exit(unsigned long ip, unsigned int depth,
		      const u64 entry[2], const u64 cur[2], u64 now);

/*
 * What calls were given and returned (values.c); set with
 * ng_control_lock held.  ng_entry_values_on: options/args or
 * options/retaddr asks for records after the entry.
 */
DECLARE_STATIC_KEY_FALSE(ng_entry_values_on);
DECLARE_STATIC_KEY_FALSE(ng_retval_on);
extern unsigned int ng_args_nr;		/* options/args: registers recorded */
extern bool ng_retaddr;			/* options/retaddr */
int ng_values_set_entry(unsigned int nr, bool retaddr);
void ng_values_set_retval(bool on);

/*
 * @task's fault and context-switch counts, 32 bits each (a call's
 * changes are exact below 2^32): @c[0] its minor faults and, above,
 * its major ones; @c[1] its voluntary switches and, above, its
 * involuntary ones.  Two words, so that the return compares two.
 */
static __always_inline void ng_counts_of(const struct task_struct *task,
					 u64 c[2])
{
	c[0] = (u32)READ_ONCE(task->min_flt) |
	       (u64)(u32)READ_ONCE(task->maj_flt) << 32;
	c[1] = (u32)READ_ONCE(task->nvcsw) |
	       (u64)(u32)READ_ONCE(task->nivcsw) << 32;
}

/*
 * Under lockdown=confidentiality tracefs refuses every open
 * (LOCKDOWN_TRACEFS): nanograph refuses the same, to start recording and
 * to read what was recorded (-EPERM).  Stopping and unloading stay
 * allowed.
 */
static inline int ng_locked_down(void)
{
	return security_locked_down(LOCKDOWN_TRACEFS);
}

static inline bool ng_inject(unsigned int what)
{
	return unlikely(READ_ONCE(ng_inject_mask) & what);
}

/*
 * Serialises every change of tracer state (control files, drain work).
 *
 * The module's lock order, outermost first; each arrow is a place that
 * takes the second while holding the first (and nothing takes them the
 * other way round):
 *
 *   ng_events_lock -> ng_control_lock	ng_events_sync() (tracer.c); it
 *	takes event_mutex (trace_set_clr_event()) only after dropping the
 *	control lock: ftrace takes event_mutex before trace_types_lock
 *   trace_types_lock -> ng_control_lock	the ftrace tracer's init and
 *	reset (ftrace_tracer.c), called by ftrace with trace_types_lock
 *   ng_snap_lock -> ng_control_lock	a listing's snapshot (control.c)
 *   ng_control_lock -> cpus_read_lock -> ng_raw_lock
 *	buffer_mode and raw_buffer_size_kb (rawbuf.c); CPU hotplug's
 *	callbacks take ng_raw_lock with the hotplug lock held too
 *   ng_control_lock -> ng_verdicts_lock	flight.c
 *   ng_keepers_lock -> (trylock) ng_snap_lock, ng_control_lock,
 *	ng_raw_lock	the sweep of closed files' state (openfile.c): it
 *	only tries them, and never waits under its own lock
 *   ng_table_lock (a raw spinlock, interrupts off): innermost, taken
 *	alone by the fork and exit probes and under the control lock;
 *	never by the hook or the trampoline (retstack.c)
 *
 * Functions that need a lock held say so with lockdep_assert_held().
 */
extern struct mutex ng_control_lock;
int ng_control_wait_drained(void);
void ng_tracer_exiting(void);
/* The longest a buffer file's write waits for a drain to end. */
#define NG_DRAIN_WAIT_MS	10000

int ng_parse_number(const char *buf, size_t count, unsigned long max,
		    int over_max, unsigned long *val);

/*
 * ftrace's recursion-lock contexts (NMI, IRQ, softirq, task, transition:
 * TRACE_CTX_TRANSITION + 1 of them), rounded up to a power of two so that
 * ng_ctx_index() masks its index rather than trusting it.
 */
#define NG_CTXS		8

/* The counts every traced call bumps, in one recursion-lock context. */
struct ng_ctx_stats {
	u64 entries;		/* function entries recorded */
	u64 exits;		/* function exits recorded */
	u64 skipped;		/* entries not hooked: depth, stack full, no stack */
};

/* Per-CPU event counts, summed by the stats file. */
struct ng_cpu_stats {
	struct ng_ctx_stats ctx[NG_CTXS];	/* ng_ctx_inc() */
	local64_t exits;	/* function exits, outside the recursion lock */
	local64_t dropped;	/* events lost because the buffer was full */
	local64_t nested;	/* entries not hooked: inside a tracer callback */
	local64_t unwatched;	/* entries not hooked: RCU not watching */
	local64_t direct_moved;	/* entries not hooked: the direct path's ip moved */
	local64_t direct_looked_up;	/* direct entries named by a lookup */
	local64_t selfcheck;	/* ng_selfcheck: hooks past the check unwatched */
	local64_t selfcheck_refused;	/* ng_selfcheck: refused, yet watched */
	local64_t selfcheck_stack;	/* ng_selfcheck: a cached stack wrong or stale */
	local64_t selfcheck_uncached;	/* ng_selfcheck: freed stacks taken out of a cache */
	local64_t trigger_lookups;	/* flight triggers: addresses named */
	local64_t overwritten;	/* raw records overwritten in flight mode */
	local64_t frozen_dropped;	/* raw records left out, flight frozen */
	local64_t sched_records;	/* scheduling records written (sched.c) */
	local64_t sched_dropped;	/* and left out: the buffer was full */
	local64_t counter_records;	/* counters records written (counters.c) */
	local64_t counter_dropped;	/* and left out: the buffer was full */
};

DECLARE_PER_CPU(struct ng_cpu_stats, ng_cpu_stats);

/*
 * Count on this CPU, preemption off (the hook, the trampoline, a raw
 * writer).  local64 and not this_cpu_inc(): 32-bit arm has no per-CPU
 * operations of its own, so this_cpu_inc() masks interrupts around the
 * 64-bit add, two CPSR writes per count, each a translation-block exit
 * under QEMU; local64 is one LDREXD/STREXD loop there, still safe from
 * an interrupt nesting on this CPU, and one non-locked add on x86.
 */
#define ng_stat_add(field, n)	local64_add((n), this_cpu_ptr(&ng_cpu_stats.field))
#define ng_stat_inc(field)	ng_stat_add(field, 1)

/*
 * Count an entry, an exit or a skipped entry under ftrace's recursion
 * lock, @bit being what ftrace_test_recursion_trylock() returned: a
 * context's bit is held by one writer at a time on a CPU (it is taken
 * with preemption off, and a context does not nest in itself; an
 * interrupt that comes before its context shows takes the transition
 * bit), so each context has its own counts and a plain add is enough.
 * That spares every traced call two atomics, one per count: local64 is
 * an LDREXD/STREXD loop on 32-bit arm, an atomic add on arm64.  The
 * add is raw_cpu_inc(): one instruction on x86 (a %gs-relative inc, not
 * a read of the per-CPU offset and three more), a load, add and store
 * elsewhere.  ng_stat_read() reads such a count.  Use:
 * ng_ctx_inc(bit, entries).
 */
static __always_inline unsigned int ng_ctx_index(int bit)
{
	BUILD_BUG_ON(TRACE_CTX_TRANSITION >= NG_CTXS);
	return (bit - TRACE_FTRACE_START) & (NG_CTXS - 1);
}

#define ng_ctx_inc(bit, field) \
	raw_cpu_inc(ng_cpu_stats.ctx[ng_ctx_index(bit)].field)

/*
 * set_args_filter (tracer.c): its functions' calls in this context
 * (ng_ctx_index()) on this CPU, one at a time, are wanted with their
 * arguments; 0: none.  Written by ng_args_ops's callback, which runs
 * before the hook at a shared site, and taken by the hook.
 */
DECLARE_PER_CPU(unsigned long [NG_CTXS], ng_args_want);

/*
 * A count of ng_ctx_inc(), read from any CPU.  On 32-bit a 64-bit
 * store may be seen half done, once per 2^32 counts, when the carry
 * reaches the high word: two reads that agree within 2^31 are taken.
 */
static inline u64 ng_stat_read(const u64 *count)
{
	u64 a, b = READ_ONCE(*count);

	if (IS_ENABLED(CONFIG_64BIT))
		return b;
	do {
		a = b;
		b = READ_ONCE(*count);
	} while (b - a > (1ULL << 31));
	return b;
}

/* Renders one control file's text; used for listings of any length. */
typedef void (*ng_render_t)(struct seq_buf *s);

void ng_stats_render(struct seq_buf *s);
void ng_clock_render(struct seq_buf *s);
void ng_clock_emit(void);
void ng_clock_sync(u64 *counter, u64 *ns, u64 *uncertainty);

int ng_control_init(void);
void ng_control_exit(void);

/*
 * What a control file keeps for one open file between its calls, and
 * lets go when the file is closed (openfile.c).  The owner's lock guards
 * file and the state; @release, called under it, lets the state go and
 * calls ng_keep_drop().  Defined with NG_KEEP_INIT().
 */
struct ng_keep {
	struct file *file;	/* held while something is kept; NULL: nothing */
	struct mutex *lock;
	void (*release)(struct ng_keep *k);
	struct list_head node;	/* on the sweep's list */
};

#define NG_KEEP_INIT(_lock, _release)	{ .lock = (_lock), .release = (_release) }

void ng_keep_add(struct ng_keep *k);
void ng_keep_hold(struct ng_keep *k, struct file *filp);
void ng_keep_drop(struct ng_keep *k);
void ng_keep_stop(void);

/* Is what @k keeps @filp's? */
static inline bool ng_keep_is(const struct ng_keep *k, const struct file *filp)
{
	return k->file == filp;
}

/* Which function list a filter file edits (lists.c, tracer.c). */
enum ng_list {
	NG_FTRACE_FILTER,
	NG_FTRACE_NOTRACE,
	NG_GRAPH_FUNCTION,
	NG_GRAPH_NOTRACE,
	NG_ARGS_FILTER,		/* set_args_filter: whose arguments (values.c) */
	NG_EVENT_PID,
	NG_EVENT_NOTRACE_PID,
	NG_EVENT_COMM,
	NG_NR_LISTS,
};

ssize_t ng_list_write(enum ng_list list, struct file *filp, const char *buf,
		      loff_t off, size_t count);
void ng_list_render(enum ng_list list, struct seq_buf *s);
bool ng_list_empty(enum ng_list list);
unsigned int ng_list_tokens(enum ng_list list, char ***tokens);
/* Longest glob accepted: a kernel symbol name is at most 512 bytes. */
#define NG_TOKEN_MAX	512
void ng_lists_keep_init(void);
void ng_lists_free(void);

/* Settings of the one-number files, owned by the part that reads them. */
extern unsigned int ng_max_depth;	/* tracer.c */
extern unsigned int ng_event_fork;	/* pids.c */

/* The pid filters (pids.c); NULL: every task, and no task. */
struct ng_pid_map;
extern struct ng_pid_map __rcu *ng_pids;
extern struct ng_pid_map __rcu *ng_notrace_pids;

/* set_event_pid and set_event_notrace_pid hold pids, not globs. */
static inline bool ng_list_of_pids(enum ng_list list)
{
	return list == NG_EVENT_PID || list == NG_EVENT_NOTRACE_PID;
}

/* The lists of function globs, for ftrace's matcher. */
static inline bool ng_list_of_functions(enum ng_list list)
{
	return list <= NG_ARGS_FILTER;
}

bool ng_pid_in(struct ng_pid_map *map, pid_t pid);
bool ng_pid_wants(struct task_struct *task, struct task_struct *parent);
bool ng_pid_map_wants(struct ng_pid_map *map, struct task_struct *task);
struct ng_pid_map *ng_pids_current(void);
bool ng_pids_listed(void);
int ng_pids_apply(enum ng_list list, char **tokens, unsigned int n, bool reset);
struct ng_pid_map *ng_pid_map_alloc(void);
void ng_pid_map_assign(struct ng_pid_map *map, pid_t pid, bool in);
void ng_pids_replace(struct ng_pid_map *map);
int ng_pids_self(struct task_struct *task, bool on);

/* Recording decided by the tasks (comm.c): set_event_comm, trace_self. */
extern struct kobj_attribute ng_attr_trace_self;
bool ng_comm_wants(struct task_struct *task);
void ng_stack_give(struct task_struct *task);
int ng_comms_apply(char **tokens, unsigned int n, bool reset);
int ng_comm_init(void);
void ng_comm_exit(void);
void ng_pids_render(enum ng_list list, struct seq_buf *s);
int ng_pids_init(void);
void ng_pids_exit(void);

/* The raw buffer mode (rawbuf.c); changes need the tracer idle. */
struct kobject;
extern unsigned int ng_raw_size_kb;	/* raw_buffer_size_kb */
int ng_raw_set_mode(bool raw);
bool ng_raw_mode(void);
void ng_raw_restate_tasks(void);
int ng_raw_resize(unsigned long *kb);
int ng_raw_files_init(struct kobject *parent);
void ng_raw_files_exit(void);
int ng_raw_init(void);
void ng_raw_exit(void);

/* The flight recorder (flight.c), its buffers' side in rawbuf.c. */
enum ng_flight_state {
	NG_FLIGHT_OFF,
	NG_FLIGHT_ARMED,
	NG_FLIGHT_TRIGGERED,
	NG_FLIGHT_FROZEN,
};

extern int ng_flight_state;
extern u64 ng_trigger_min;
DECLARE_STATIC_KEY_FALSE(ng_trigger_on);
extern struct kobj_attribute ng_attr_flight, ng_attr_trigger;

/* The writers move tail: no reader may. */
static inline bool ng_flight_overwrites(int state)
{
	return state == NG_FLIGHT_ARMED || state == NG_FLIGHT_TRIGGERED;
}

bool ng_flight_busy(void);
void ng_trigger_check(unsigned long ip, u64 ticks, u64 now, unsigned long retval,
		      bool returned, struct ng_call_clocks clocks);
void ng_flight_init(struct kobject *kobj);
void ng_flight_exit(void);
void ng_flight_release(void);
int ng_raw_flight_leave(int state);
void ng_raw_flight_arm(bool discard);
unsigned long ng_raw_flight_cut(void);

/* The tracer (tracer.c); called with ng_control_lock held. */
bool ng_tracer_busy(void);
void ng_narrowed_sync(void);
int ng_tracer_get(bool control);
void ng_tracer_put(bool control);
/* Without the control lock: see tracer.c. */
void ng_events_sync(bool starting);
int ng_tracer_apply_list(enum ng_list list, char **tokens, unsigned int n,
			 bool reset);
int ng_tracer_init(void);

/* ng_ops's callback, and the globs of a list applied to an ops (tracer.c). */
void ng_entry_trace(unsigned long ip, unsigned long parent_ip,
		    struct ftrace_ops *op, struct ftrace_regs *fregs);
int ng_ops_globs(struct ftrace_ops *ops, bool exclude, char **tokens,
		 unsigned int n, bool reset);

/*
 * The direct path (direct.c), with ng_control_lock held.  ng_direct:
 * options/direct.
 */
extern unsigned int ng_direct;
int ng_direct_start(void);
int ng_direct_handover(bool every);	/* tracer.c */
void ng_direct_stop(void);
bool ng_direct_active(void);
void ng_direct_count(struct ftrace_ops *ops);
void ng_direct_stats_render(struct seq_buf *s);
/* From the hook, preemption off: no lock. */
bool ng_direct_holds(unsigned long ip);
extern unsigned long ng_direct_shared;
int ng_direct_init(void);
void ng_direct_exit(void);

/* Registering ng_ops, every function in steps (ops_steps.c). */
#define NG_NR_SLICES	15
extern const char *const ng_slices[NG_NR_SLICES];
void ng_patch_timed(u64 t0);
int ng_ops_register_steps(struct ftrace_ops *ops, bool every);
int ng_ops_filter_every(struct ftrace_ops *ops);
int ng_ops_unregister_steps(struct ftrace_ops *ops, bool every);
unsigned long ng_patch_max(void);
unsigned long ng_patch_count(void);

/*
 * nanograph as an ftrace tracer (ftrace_tracer.c), built where the
 * kernel exports register_tracer() (kernel-patches/, Kbuild): the hook
 * writes into the trace arrays whose current tracer is nanograph while
 * the key is on.  Elsewhere these compile to nothing.
 */
#ifdef NG_HAVE_TRACER
DECLARE_STATIC_KEY_FALSE(ng_ft_key);
static __always_inline bool ng_ft_on(void)
{
	return static_branch_unlikely(&ng_ft_key);
}

void ng_ft_emit(bool exit, unsigned long ip, u64 tsd);
void ng_ft_emit_args(unsigned long ip, u64 tsd, unsigned long site,
		     unsigned int nargs, const unsigned long *args);
void ng_ft_emit_retval(unsigned long ip, u64 tsd, u64 retval);
int ng_ft_register(void);
void ng_ft_unregister(void);
#else
static __always_inline bool ng_ft_on(void)
{
	return false;
}

static inline void ng_ft_emit(bool exit, unsigned long ip, u64 tsd) { }
static inline void ng_ft_emit_args(unsigned long ip, u64 tsd, unsigned long site,
				   unsigned int nargs, const unsigned long *args) { }
static inline void ng_ft_emit_retval(unsigned long ip, u64 tsd, u64 retval) { }
static inline int ng_ft_register(void)
{
	return 0;
}

static inline void ng_ft_unregister(void) { }
#endif

void ng_tracer_exit(void);

/*
 * The calibration target (calib_target.c), the untraced function it
 * calls (control.c), and the most calls a write asks.
 */
#define NG_CALIBRATE_MAX	1000000
void ng_calib_target(void);
void ng_calib_sink(void);

#endif /* NG_MODULE_H */
