// SPDX-License-Identifier: GPL-2.0
/*
 * nanograph as an ftrace tracer, on a kernel that lets a module register
 * one (kernel-patches/, Documentation/current-tracer.md).
 *
 * "echo nanograph > current_tracer", in the top level or in an instance,
 * keeps the hook on with the module's own filters (ng_tracer_get()), and
 * the hook writes each hooked call's nanograph:func_entry and
 * nanograph:func_exit into that trace array's buffer: records of the
 * trace events' own types and layouts (ftrace_tracer.h), so that
 * trace-cmd reads them through the events' format files and the
 * collector converts a trace.dat of them to push/pop files, as it does
 * for the events.  A nanograph:clock_sync at init and at each
 * tracing_on=1 gives the counter's frequency and a sync pair.
 *
 * "trace" and "trace_pipe" print the records as function_graph prints
 * its own: a leaf is "func();" with its duration, a call with children
 * "func() {" ... "}", the duration on the closing line, from nanograph's
 * counter.  The options/ files nanograph-{cpu,proc,duration,abstime,
 * irqs,tail} do what function_graph's funcgraph-* of those names do.
 *
 * Built only where Module.symvers exports register_tracer (Kbuild).
 */
#define pr_fmt(fmt) "nanograph: " fmt

#include <linux/delay.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/rcupdate.h>
#include <linux/ring_buffer.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/trace_seq.h>

/* kernel/trace/trace.h of the kernel's own source (Kbuild: NG_KSRC). */
#include "trace.h"

#include "compat.h"
#include "counter.h"
#include "ftrace_tracer.h"
#include "ng_module.h"
#include "nanograph_event.h"
#include "ng_arch.h"

/* The trace arrays whose current tracer is nanograph, for the hook. */
struct ng_ft_arrays {
	struct rcu_head rcu;
	unsigned int n;
	struct trace_array *tr[] __counted_by(n);
};

static struct ng_ft_arrays __rcu *ng_ft_arrays;
DEFINE_STATIC_KEY_FALSE(ng_ft_key);
static struct ng_ft_types ng_ft_types;

/*
 * set_ftrace_pid and set_ftrace_notrace_pid of @tr, as the function
 * tracers obey them: ftrace keeps the verdict for the task on this CPU
 * in ftrace_ignore_pid while either list is set.
 */
static __always_inline bool ng_ft_pid_wanted(struct trace_array *tr)
{
	int pid;

	if (likely(!rcu_access_pointer(tr->function_pids) &&
		   !rcu_access_pointer(tr->function_no_pids)))
		return true;
	pid = this_cpu_read(tr->array_buffer.data->ftrace_ignore_pid);
	if (pid == FTRACE_PID_IGNORE)
		return false;
	return pid == FTRACE_PID_TRACE || pid == current->pid;
}

/*
 * From the hook (tracer.c), preemption off, under ftrace's recursion
 * lock: record @rec (@size bytes, of event type @type; its leading
 * trace_entry is the ring buffer's to fill) into each trace array that
 * has nanograph current.  The context word is taken as the function
 * tracer takes it, one preemption level (the recursion lock's)
 * subtracted.
 */
static __always_inline void ng_ft_write(unsigned short type, const void *rec,
					size_t size)
{
	struct ng_ft_arrays *arrays = rcu_dereference_sched(ng_ft_arrays);
	struct ring_buffer_event *event;
	struct trace_buffer *buffer;
	unsigned int trace_ctx, i;

	if (unlikely(!arrays))
		return;
	trace_ctx = tracing_gen_ctx_dec();
	for (i = 0; i < arrays->n; i++) {
		if (!ng_ft_pid_wanted(arrays->tr[i]))
			continue;
		buffer = arrays->tr[i]->array_buffer.buffer;
		event = trace_buffer_lock_reserve(buffer, type, size, trace_ctx);
		if (!event)
			continue;
		memcpy((char *)ring_buffer_event_data(event) + sizeof(struct trace_entry),
		       (const char *)rec + sizeof(struct trace_entry),
		       size - sizeof(struct trace_entry));
		trace_buffer_unlock_commit_nostack(buffer, event);
	}
}

/* A func_entry or func_exit record. */
void notrace ng_ft_emit(bool exit, unsigned long ip, u64 tsd)
{
	struct ng_ft_func rec = { .tsd = tsd, .ip = ip };

	ng_ft_write(exit ? ng_ft_types.exit : ng_ft_types.entry, &rec, sizeof(rec));
}

/*
 * The func_args record of the entry just written (options/args,
 * options/retaddr): the printer shows it on the entry's line.
 */
void notrace ng_ft_emit_args(unsigned long ip, u64 tsd, unsigned long site,
			     unsigned int nargs, const unsigned long *args)
{
	struct ng_ft_args rec;

	/* Its padding too: the whole record goes into the buffer. */
	memset(&rec, 0, sizeof(rec));
	rec.tsd = tsd;
	rec.ip = ip;
	rec.site = site;
	rec.nargs = nargs;
	memcpy(rec.args, args, sizeof(rec.args));
	ng_ft_write(ng_ft_types.args, &rec, sizeof(rec));
}

/* The func_retval record of the exit just written (options/retval). */
void notrace ng_ft_emit_retval(unsigned long ip, u64 tsd, u64 retval)
{
	struct ng_ft_retval rec = { .tsd = tsd, .ip = ip, .retval = retval };

	ng_ft_write(ng_ft_types.retval, &rec, sizeof(rec));
}

/* A clock_sync record into @tr: what converts its counter values. */
static void ng_ft_clock(struct trace_array *tr)
{
	struct trace_buffer *buffer = tr->array_buffer.buffer;
	struct ring_buffer_event *event;
	struct ng_ft_clock *rec;
	u64 counter, ns, unc;

	ng_clock_sync(&counter, &ns, &unc);
	event = trace_buffer_lock_reserve(buffer, ng_ft_types.clock, sizeof(*rec),
					  tracing_gen_ctx());
	if (!event)
		return;
	rec = ring_buffer_event_data(event);
	rec->counter = counter;
	rec->mono_ns = ns;
	rec->freq = ng_counter_freq();
	rec->uncertainty = unc;
	trace_buffer_unlock_commit_nostack(buffer, event);
}

/*
 * Add @tr to the arrays the hook writes to, or remove it; the key is on
 * while there is one.  A removed array may be freed as soon as reset
 * returns (rmdir of an instance): wait for every hook that may still
 * hold it, RCU readers, and, as the drain does, hooks running where RCU
 * is not watching.
 */
static int ng_ft_arrays_change(struct trace_array *tr, bool add)
{
	struct ng_ft_arrays *old, *new = NULL;
	unsigned int n, i, j = 0;

	lockdep_assert_held(&ng_control_lock);
	old = rcu_dereference_protected(ng_ft_arrays, lockdep_is_held(&ng_control_lock));
	n = old ? old->n : 0;
	if (add || n > 1) {
		/* Removal must not fail: it is a few bytes. */
		new = kmalloc(struct_size(new, tr, n + 1),
			      add ? GFP_KERNEL : GFP_KERNEL | __GFP_NOFAIL);
		if (!new)
			return -ENOMEM;
		new->n = n + 1;		/* tr[]'s bound while filled (__counted_by) */
		for (i = 0; i < n; i++)
			if (old->tr[i] != tr)
				new->tr[j++] = old->tr[i];
		if (add)
			new->tr[j++] = tr;
		new->n = j;
	}
	rcu_assign_pointer(ng_ft_arrays, new);
	if (new && !old)
		static_branch_enable(&ng_ft_key);
	else if (!new)
		static_branch_disable(&ng_ft_key);
	if (!add) {
		synchronize_rcu();
		ng_synchronize_rcu_tasks_rude();
	}
	kfree(old);
	return 0;
}

/*
 * echo nanograph > current_tracer: ftrace calls this with
 * trace_types_lock held, and the hook is started (or joined) with the
 * control lock; nothing under the control lock takes event_mutex, which
 * ftrace takes before trace_types_lock (tracer.c, ng_events_sync()).
 */
static int ng_ft_init(struct trace_array *tr)
{
	int ret;

	mutex_lock(&ng_control_lock);
	ret = ng_ft_arrays_change(tr, true);
	if (!ret) {
		ret = ng_tracer_get(false);
		if (ret)
			ng_ft_arrays_change(tr, false);
	}
	mutex_unlock(&ng_control_lock);
	if (ret)
		return ret;
	tracing_start_cmdline_record();
	ng_ft_clock(tr);
	return 0;
}

/* How long a switch away from nanograph waits for the drain. */
#define NG_FT_RESET_WAIT_MS	10000

/*
 * Another tracer (nop) replaces nanograph in @tr, or the instance goes:
 * no record goes there from now on; the last user stops the hook, and
 * the drain lets its frames go.  The switch waits for that (reset may
 * sleep), so that rmmod right after it succeeds.  ftrace holds
 * trace_types_lock here, which the drain never takes; its last step may
 * take event_mutex (turning off events tracing_on=1 enabled), which
 * ftrace takes before trace_types_lock: hence a bounded wait.
 */
static void ng_ft_reset(struct trace_array *tr)
{
	mutex_lock(&ng_control_lock);
	ng_tracer_put(false);
	ng_ft_arrays_change(tr, false);
	mutex_unlock(&ng_control_lock);
	tracing_stop_cmdline_record();
	ng_drain_wait(NG_FT_RESET_WAIT_MS);
}

/* tracing_on=1 in @tr: a sync pair for what follows. */
static void ng_ft_start(struct trace_array *tr)
{
	ng_ft_clock(tr);
}

/*
 * The function_graph-style view of "trace" and "trace_pipe", from here
 * to the end.
 */

#define NG_FT_OPT_CPU		BIT(0)
#define NG_FT_OPT_PROC		BIT(1)
#define NG_FT_OPT_DURATION	BIT(2)
#define NG_FT_OPT_ABSTIME	BIT(3)
#define NG_FT_OPT_IRQS		BIT(4)
#define NG_FT_OPT_TAIL		BIT(5)

static struct tracer_opt ng_ft_opts[] = {
	{ .name = "nanograph-cpu", .bit = NG_FT_OPT_CPU },
	{ .name = "nanograph-proc", .bit = NG_FT_OPT_PROC },
	{ .name = "nanograph-duration", .bit = NG_FT_OPT_DURATION },
	{ .name = "nanograph-abstime", .bit = NG_FT_OPT_ABSTIME },
	{ .name = "nanograph-irqs", .bit = NG_FT_OPT_IRQS },
	{ .name = "nanograph-tail", .bit = NG_FT_OPT_TAIL },
	{ }
};

/* function_graph's defaults: cpu, duration and irqs on. */
static struct tracer_flags ng_ft_flags = {
	.val = NG_FT_OPT_CPU | NG_FT_OPT_DURATION | NG_FT_OPT_IRQS,
	.opts = ng_ft_opts,
};

/* Width of the CPU column: the digits of the largest CPU number. */
static int ng_ft_cpu_width;

#define NG_FT_INDENT		2
#define NG_FT_PROC_WIDTH	14
/* Calls whose "{" line was printed and whose "}" was not, per reader. */
#define NG_FT_OPEN_SLOTS	1024
#define NG_FT_OPEN_PROBES	8

struct ng_ft_open {
	pid_t pid;		/* 0: a free slot (idle tasks: pid 0, never opened) */
	unsigned int depth;
	u64 counter;		/* the entry's */
};

/* What a reader remembers of each CPU's records. */
struct ng_ft_cpu {
	pid_t last_pid;		/* the task of its last line, -1 before any */
	bool ignore;		/* its next record was printed already */
	int hidden_depth;	/* hiding an interrupt's calls from there, or -1 */
	pid_t hidden_pid;	/* on the stack of that task */
	unsigned long hidden_ip;	/* the call that started hiding */
};

/*
 * One line's records: an entry with what follows it on its CPU (its
 * func_args, and a leaf's exit with its func_retval), or an exit with
 * its func_retval.  On a consuming read the printer has taken them from
 * the buffer, all but the last one taken when @pending.
 */
struct ng_ft_line {
	struct ng_ft_func rec;
	struct ng_ft_args args;
	struct ng_ft_func exit;
	u64 retval;
	bool is_exit, has_args, leaf, has_retval, pending;
};

/*
 * A reader's state (iter->private), as function_graph keeps: the task
 * last printed per CPU (for the context-switch lines), the line last
 * gathered, kept when it did not fit (a consuming read has already
 * taken its records from the buffer), the CPUs whose next record was
 * printed already, and the entries of calls still open.
 */
struct ng_ft_iter {
	struct ng_ft_line line;
	u64 ts;
	int cpu;
	bool failed;
	struct ng_ft_cpu *cpus;	/* nr_cpu_ids of them */
	struct ng_ft_open open[NG_FT_OPEN_SLOTS];
};

static struct ng_ft_open *ng_ft_open_find(struct ng_ft_iter *data, pid_t pid,
					  unsigned int depth, bool empty)
{
	unsigned int h = hash_32(pid ^ (depth << 22), ilog2(NG_FT_OPEN_SLOTS)), i;
	struct ng_ft_open *o;

	for (i = 0; i < NG_FT_OPEN_PROBES; i++) {
		o = &data->open[(h + i) % NG_FT_OPEN_SLOTS];
		if ((o->pid == pid && o->depth == depth) || (empty && !o->pid))
			return o;
	}
	return NULL;
}

/* The counter as nanoseconds: nanograph's counter runs at its own rate. */
static u64 ng_ft_ns(u64 ticks)
{
	u64 freq = ng_counter_freq();

	return freq == NSEC_PER_SEC ? ticks : mul_u64_u64_div_u64(ticks, NSEC_PER_SEC, freq);
}

static void ng_ft_print_proc(struct trace_seq *s, pid_t pid)
{
	char comm[TASK_COMM_LEN], pid_str[12];
	int len, spaces;

	trace_find_cmdline(pid, comm);
	comm[7] = '\0';
	snprintf(pid_str, sizeof(pid_str), "%d", pid);
	len = strlen(comm) + strlen(pid_str) + 1;
	spaces = len < NG_FT_PROC_WIDTH ? NG_FT_PROC_WIDTH - len : 0;
	trace_seq_printf(s, "%*s%s-%s%*s", spaces / 2, "", comm, pid_str,
			 spaces - spaces / 2, "");
}

/* A task other than the last one on this CPU: say so, as function_graph. */
static void ng_ft_print_switch(struct trace_iterator *iter, pid_t pid, int cpu)
{
	struct ng_ft_iter *data = iter->private;
	struct trace_seq *s = &iter->seq;
	pid_t prev;

	if (!data || data->cpus[cpu].last_pid == pid)
		return;
	prev = data->cpus[cpu].last_pid;
	data->cpus[cpu].last_pid = pid;
	if (prev == -1)
		return;
	trace_seq_puts(s, " ------------------------------------------\n");
	trace_seq_printf(s, " %*d) ", ng_ft_cpu_width, cpu);
	ng_ft_print_proc(s, prev);
	trace_seq_puts(s, " => ");
	ng_ft_print_proc(s, pid);
	trace_seq_puts(s, "\n ------------------------------------------\n\n");
}

/* The columns before the function: time, CPU, task. */
static void ng_ft_print_prologue(struct trace_iterator *iter, pid_t pid, u64 ts,
				 int cpu, u32 flags)
{
	struct trace_seq *s = &iter->seq;

	ng_ft_print_switch(iter, pid, cpu);
	if (!(iter->tr->trace_flags & TRACE_ITER_CONTEXT_INFO))
		return;
	if (flags & NG_FT_OPT_ABSTIME) {
		u32 rem_ns;
		u64 sec = div_u64_rem(ts, NSEC_PER_SEC, &rem_ns);

		trace_seq_printf(s, "%5llu.%06u |  ", sec, rem_ns / 1000);
	}
	if (flags & NG_FT_OPT_CPU)
		trace_seq_printf(s, " %*d) ", ng_ft_cpu_width, cpu);
	if (flags & NG_FT_OPT_PROC) {
		ng_ft_print_proc(s, pid);
		trace_seq_puts(s, " | ");
	}
}

/*
 * The duration column, as function_graph's: microseconds with up to
 * seven digits in all, or blank (@known false).
 */
static void ng_ft_print_duration(struct trace_iterator *iter, bool known, u64 ns,
				 u32 flags)
{
	struct trace_seq *s = &iter->seq;
	char usecs[24];
	u32 rem;
	int len;

	if (!(flags & NG_FT_OPT_DURATION) ||
	    !(iter->tr->trace_flags & TRACE_ITER_CONTEXT_INFO))
		return;
	if (!known) {
		trace_seq_puts(s, "              |  ");
		return;
	}
	len = snprintf(usecs, sizeof(usecs), "%llu", div_u64_rem(ns, 1000, &rem));
	trace_seq_printf(s, "  %s", usecs);
	if (len < 7) {
		char nsecs[5];

		snprintf(nsecs, min_t(int, sizeof(nsecs), 8 - len), "%03u", rem);
		trace_seq_printf(s, ".%s", nsecs);
		len += strlen(nsecs) + 1;
	}
	trace_seq_printf(s, " us %*s|  ", len < 8 ? 8 - len : 0, "");
}

static void ng_ft_indent(struct trace_seq *s, unsigned int depth)
{
	trace_seq_printf(s, "%*s", depth * NG_FT_INDENT, "");
}

/*
 * Looking past the record being printed, on its CPU, as function_graph
 * does for a leaf: a trace file's iterator is advanced over each record
 * taken; a consuming read (trace_pipe) consumes the record before
 * peeking at the next one, and the last one taken stays in the buffer
 * for the reader to consume after the line (@pending).
 */
struct ng_ft_look {
	struct trace_iterator *iter;
	struct ring_buffer_iter *ring;
	bool pending;
};

static const struct trace_entry *ng_ft_peek(struct ng_ft_look *l)
{
	struct trace_buffer *buffer = l->iter->array_buffer->buffer;
	struct ring_buffer_event *event;

	unsigned long lost = 0;

	if (l->ring) {
		event = ring_buffer_iter_peek(l->ring, NULL);
	} else {
		if (l->pending)
			ring_buffer_consume(buffer, l->iter->cpu, NULL, NULL);
		l->pending = false;
		event = ring_buffer_peek(buffer, l->iter->cpu, NULL, &lost);
	}
	/*
	 * A record after lost ones is not this line's: left to the reader,
	 * which reports the loss before it.
	 */
	return event && !lost ? ring_buffer_event_data(event) : NULL;
}

/* The record ng_ft_peek() returned belongs to this line. */
static void ng_ft_take(struct ng_ft_look *l)
{
	if (l->ring)
		ring_buffer_iter_advance(l->ring);
	else
		l->pending = true;
}

/* Is @next nanograph's @type record about the call of @rec, at its @tsd? */
static bool ng_ft_about(const struct trace_entry *next, unsigned short type,
			const struct ng_ft_func *rec)
{
	const struct ng_ft_func *f = (const struct ng_ft_func *)next;

	/* func_args and func_retval begin as func_entry does. */
	BUILD_BUG_ON(offsetof(struct ng_ft_args, tsd) != offsetof(struct ng_ft_func, tsd) ||
		     offsetof(struct ng_ft_args, ip) != offsetof(struct ng_ft_func, ip) ||
		     offsetof(struct ng_ft_retval, tsd) != offsetof(struct ng_ft_func, tsd) ||
		     offsetof(struct ng_ft_retval, ip) != offsetof(struct ng_ft_func, ip));
	return next && next->type == type && next->pid == rec->ent.pid &&
	       f->ip == rec->ip && f->tsd == rec->tsd;
}

/*
 * Gather the line of @rec, the record being printed on iter->cpu: an
 * entry's func_args, its exit if it is a leaf (the next record is its
 * own exit: same task, function and depth), and an exit's func_retval
 * (looked for while options/retval is on: a consuming read's exit, a
 * leaf's too, is otherwise left for the reader to consume).
 * The hook writes each value record right after its entry or exit; an
 * interrupt's records in between leave it to a line of its own.
 */
static void ng_ft_gather(struct trace_iterator *iter, const struct ng_ft_func *rec,
			 bool exit, struct ng_ft_line *line)
{
	struct ng_ft_look l = { .iter = iter, .ring = trace_buffer_iter(iter, iter->cpu) };
	bool retval = static_branch_unlikely(&ng_retval_on);
	const struct ng_ft_func *last = &line->rec;
	const struct trace_entry *next;

	/*
	 * @rec is gone from here on: a trace file's iterator copies each
	 * record it peeks into the same place, a consuming read gives its
	 * page back.  Its copy is what the records after it are compared to.
	 */
	line->rec = *rec;
	l.pending = !l.ring;	/* the reader has not consumed @rec itself */
	line->is_exit = exit;
	line->has_args = false;
	line->leaf = false;
	line->has_retval = false;
	/* A return value only while they are recorded. */
	if (exit && !retval) {
		line->pending = l.pending;
		return;
	}
	next = ng_ft_peek(&l);
	if (!exit) {
		if (ng_ft_about(next, ng_ft_types.args, &line->rec)) {
			line->args = *(const struct ng_ft_args *)next;
			line->has_args = true;
			ng_ft_take(&l);
			next = ng_ft_peek(&l);
		}
		if (next && next->type == ng_ft_types.exit && next->pid == line->rec.ent.pid &&
		    ((const struct ng_ft_func *)next)->ip == line->rec.ip &&
		    NG_TSD_DEPTH(((const struct ng_ft_func *)next)->tsd) ==
		    NG_TSD_DEPTH(line->rec.tsd)) {
			line->exit = *(const struct ng_ft_func *)next;
			line->leaf = true;
			last = &line->exit;
			ng_ft_take(&l);
			next = retval ? ng_ft_peek(&l) : NULL;
		}
	}
	if ((exit || line->leaf) && ng_ft_about(next, ng_ft_types.retval, last)) {
		line->retval = ((const struct ng_ft_retval *)next)->retval;
		line->has_retval = true;
		ng_ft_take(&l);
	}
	line->pending = l.pending;
}

/*
 * Without "irqs", the calls an interrupt or NMI made are hidden.  A call
 * is judged at its entry alone (hardirq or NMI in its context flags, as
 * function_graph judges in_hardirq() when it records), and its exit,
 * and everything deeper on that CPU and task until then, follow:
 * irq_exit_rcu() leaves hardirq context before it returns and runs
 * softirqs, irq_enter_rcu() enters it before it returns, and judging each
 * record by its own flags printed a "}" without its "{", or the other
 * way round.  Lost events end the hiding (the exit may be among them).
 * Without a reader's state (no memory) each entry is judged alone.
 */
static bool ng_ft_hidden(struct trace_iterator *iter,
			 const struct ng_ft_func *rec, bool exit, u32 flags)
{
	bool irq = rec->ent.flags & (TRACE_FLAG_HARDIRQ | TRACE_FLAG_NMI);
	struct ng_ft_iter *data = iter->private;
	int depth = NG_TSD_DEPTH(rec->tsd);
	struct ng_ft_cpu *c;

	if (flags & NG_FT_OPT_IRQS)
		return false;
	if (!data)
		return irq && !exit;
	c = &data->cpus[iter->cpu];
	if (iter->lost_events)
		c->hidden_depth = -1;
	if (c->hidden_depth >= 0 && rec->ent.pid == c->hidden_pid) {
		if (depth > c->hidden_depth)
			return true;
		if (depth == c->hidden_depth && exit && rec->ip == c->hidden_ip) {
			c->hidden_depth = -1;	/* the interrupt's call returned */
			return true;
		}
	}
	/* Not hiding, or the exit that ends it was lost: judge anew. */
	c->hidden_depth = -1;
	if (exit || !irq)
		return false;
	c->hidden_depth = depth;
	c->hidden_pid = rec->ent.pid;
	c->hidden_ip = rec->ip;
	return true;
}

/*
 * The argument registers as hex, untyped (the patched kernels have no
 * BTF; the collector types them): "(0x1, 0xffff888003c0e000)".
 */
static void ng_ft_print_args(struct trace_seq *s, const struct ng_ft_line *line)
{
	unsigned int i, n = line->has_args ? min_t(unsigned int, line->args.nargs,
						   NG_ARGS_MAX) : 0;

	trace_seq_putc(s, '(');
	for (i = 0; i < n; i++)
		trace_seq_printf(s, "%s%#lx", i ? ", " : "", line->args.args[i]);
	trace_seq_putc(s, ')');
}

/*
 * " ret=0x1000", or " ret=-9" for an error code, as funcgraph-retval
 * prints the return register (a 32-bit error in a 64-bit register
 * counts too; on 32-bit arm r0 alone, as there).
 */
static void ng_ft_print_retval(struct trace_seq *s, u64 retval)
{
	unsigned long v = (unsigned long)retval;
	long err = (long)v;

	if (IS_ENABLED(CONFIG_64BIT) && (v & BIT(31)) && !upper_32_bits(v))
		err = (long)sign_extend64(v, 31);
	if (v && IS_ERR_VALUE((unsigned long)err))
		trace_seq_printf(s, " ret=%ld", err);
	else
		trace_seq_printf(s, " ret=%#lx", v);
}

/*
 * A value record on its own is hidden with the calls around it: while
 * its task's calls from an interrupt are hidden on this CPU, at or
 * below the depth the hiding started.
 */
static bool ng_ft_hidden_value(struct trace_iterator *iter,
			       const struct trace_entry *ent, u32 flags)
{
	const struct ng_ft_func *rec = (const struct ng_ft_func *)ent;
	struct ng_ft_iter *data = iter->private;
	struct ng_ft_cpu *c;

	if (flags & NG_FT_OPT_IRQS)
		return false;
	if (!data)
		return ent->flags & (TRACE_FLAG_HARDIRQ | TRACE_FLAG_NMI);
	c = &data->cpus[iter->cpu];
	return c->hidden_depth >= 0 && ent->pid == c->hidden_pid &&
	       NG_TSD_DEPTH(rec->tsd) >= c->hidden_depth;
}

/*
 * An entry's line: "func();" with its duration, or "func() {",
 * remembered until its "}"; with options/args its registers between
 * the parentheses, and options/retaddr's call site and a leaf's return
 * value in a comment, where funcgraph-args, -retaddr and -retval put
 * them.
 */
static void ng_ft_print_entry(struct trace_iterator *iter, const struct ng_ft_line *line,
			      u64 ts, u32 flags)
{
	struct ng_ft_iter *data = iter->private;
	unsigned int depth = NG_TSD_DEPTH(line->rec.tsd);
	bool site = line->has_args && line->args.site;
	struct trace_seq *s = &iter->seq;
	struct ng_ft_open *o;

	ng_ft_print_prologue(iter, line->rec.ent.pid, ts, iter->cpu, flags);
	ng_ft_print_duration(iter, line->leaf, !line->leaf ? 0 :
			     ng_ft_ns((NG_TSD_COUNTER(line->exit.tsd) -
				       NG_TSD_COUNTER(line->rec.tsd)) & NG_TSD_COUNTER_MASK),
			     flags);
	ng_ft_indent(s, depth);
	trace_seq_printf(s, "%ps", (void *)line->rec.ip);
	ng_ft_print_args(s, line);
	trace_seq_puts(s, line->leaf ? ";" : " {");
	if (site || line->has_retval) {
		trace_seq_puts(s, " /*");
		if (site)
			trace_seq_printf(s, " <-%pS", (void *)line->args.site);
		if (line->has_retval)
			ng_ft_print_retval(s, line->retval);
		trace_seq_puts(s, " */");
	}
	trace_seq_putc(s, '\n');
	if (line->leaf || !data || !line->rec.ent.pid)
		return;
	o = ng_ft_open_find(data, line->rec.ent.pid, depth, true);
	if (o) {
		o->pid = line->rec.ent.pid;
		o->depth = depth;
		o->counter = NG_TSD_COUNTER(line->rec.tsd);
	}
}

/*
 * An exit's line: "}", with the call's duration if its entry was seen,
 * and its return value as funcgraph-retval prints it.
 */
static void ng_ft_print_exit(struct trace_iterator *iter, const struct ng_ft_line *line,
			     u64 ts, u32 flags)
{
	struct ng_ft_iter *data = iter->private;
	const struct ng_ft_func *rec = &line->rec;
	unsigned int depth = NG_TSD_DEPTH(rec->tsd);
	struct trace_seq *s = &iter->seq;
	struct ng_ft_open *o = NULL;

	if (data && rec->ent.pid)
		o = ng_ft_open_find(data, rec->ent.pid, depth, false);
	ng_ft_print_prologue(iter, rec->ent.pid, ts, iter->cpu, flags);
	ng_ft_print_duration(iter, o,
			     o ? ng_ft_ns((NG_TSD_COUNTER(rec->tsd) - o->counter) &
					  NG_TSD_COUNTER_MASK) : 0,
			     flags);
	ng_ft_indent(s, depth);
	if (o && !line->has_retval && !(flags & NG_FT_OPT_TAIL)) {
		trace_seq_puts(s, "}\n");
	} else {
		trace_seq_printf(s, "} /* %ps", (void *)rec->ip);
		if (line->has_retval)
			ng_ft_print_retval(s, line->retval);
		trace_seq_puts(s, " */\n");
	}
	if (o && !trace_seq_has_overflowed(s))
		o->pid = 0;
}

/*
 * Print @line; one that does not fit is kept to be printed again (its
 * records may be consumed already).  A consuming read has taken all of
 * the line's records but the last one, when @line->pending: the reader
 * consumes that one if told HANDLED.
 */
static enum print_line_t ng_ft_print_gathered(struct trace_iterator *iter,
					      const struct ng_ft_line *line,
					      u64 ts, u32 flags)
{
	struct ng_ft_iter *data = iter->private;
	struct trace_seq *s = &iter->seq;
	pid_t last = data ? data->cpus[iter->cpu].last_pid : 0;

	if (line->is_exit)
		ng_ft_print_exit(iter, line, ts, flags);
	else
		ng_ft_print_entry(iter, line, ts, flags);
	if (data) {
		data->failed = trace_seq_has_overflowed(s);
		/* The context-switch lines again with the line. */
		if (data->failed)
			data->cpus[iter->cpu].last_pid = last;
		if (data->failed && &data->line != line)
			data->line = *line;
		data->cpu = iter->cpu;
		data->ts = ts;
	}
	if (trace_seq_has_overflowed(s))
		return TRACE_TYPE_PARTIAL_LINE;
	return line->pending ? TRACE_TYPE_HANDLED : TRACE_TYPE_NO_CONSUME;
}

/*
 * A func_args or func_retval record no line took (an interrupt's
 * records came between it and its call's): a comment of its own.
 */
static enum print_line_t ng_ft_print_value(struct trace_iterator *iter, bool retval,
					   u32 flags)
{
	const struct ng_ft_args *a = (const struct ng_ft_args *)iter->ent;
	const struct ng_ft_retval *r = (const struct ng_ft_retval *)iter->ent;
	struct trace_seq *s = &iter->seq;
	struct ng_ft_line line = { .has_args = true };

	ng_ft_print_prologue(iter, iter->ent->pid, iter->ts, iter->cpu, flags);
	ng_ft_print_duration(iter, false, 0, flags);
	ng_ft_indent(s, NG_TSD_DEPTH(a->tsd));
	if (retval) {
		trace_seq_printf(s, "/* %ps", (void *)r->ip);
		ng_ft_print_retval(s, r->retval);
	} else {
		line.args = *a;
		trace_seq_printf(s, "/* %ps", (void *)a->ip);
		ng_ft_print_args(s, &line);
		if (a->site)
			trace_seq_printf(s, " <-%pS", (void *)a->site);
	}
	trace_seq_puts(s, " */\n");
	return trace_handle_return(s);
}

/* The sync pair, as a comment line. */
static enum print_line_t ng_ft_print_clock(struct trace_iterator *iter,
					   const struct ng_ft_clock *rec, u32 flags)
{
	struct trace_seq *s = &iter->seq;

	ng_ft_print_prologue(iter, rec->ent.pid, iter->ts, iter->cpu, flags);
	ng_ft_print_duration(iter, false, 0, flags);
	trace_seq_printf(s, "/* nanograph clock_sync: counter=%llu mono_ns=%llu freq=%llu */\n",
			 rec->counter, rec->mono_ns, rec->freq);
	return trace_handle_return(s);
}

/*
 * The longest line of a gathered call: the columns, the indent, the
 * function, six registers, the call site and a return value.
 */
#define NG_FT_LINE_MAX	(128 + NG_STACK_DEPTH * NG_FT_INDENT + KSYM_NAME_LEN + \
			 NG_ARGS_MAX * 20 + KSYM_SYMBOL_LEN)

/*
 * A consuming read (trace_pipe's read and splice, each filling a page
 * at most) stops before a call whose records it would take when the
 * longest line no longer fits that page: the records stay in the
 * buffer for the next read.  A line kept because it did not fit
 * (data->failed) would not be printed by a reader that then finds the
 * buffer empty, and splice drops a line that does not fit its page.
 */
static bool ng_ft_page_full(struct trace_iterator *iter)
{
	BUILD_BUG_ON(NG_FT_LINE_MAX >= PAGE_SIZE || PAGE_SIZE > TRACE_SEQ_BUFFER_SIZE + 1024);
	return !trace_buffer_iter(iter, iter->cpu) &&
	       trace_seq_used(&iter->seq) > PAGE_SIZE - NG_FT_LINE_MAX;
}

/*
 * ftrace asks this first for every entry of the buffer: nanograph's
 * records are ours to print, anything else (other events enabled in the
 * same array, trace_marker) is printed the default way.
 */
static enum print_line_t ng_ft_print_line(struct trace_iterator *iter)
{
	struct ng_ft_iter *data = iter->private;
	struct trace_entry *ent = iter->ent;
	u32 flags = ng_ft_flags.val;
	struct ng_ft_line line;
	enum print_line_t ret;
	int cpu = iter->cpu;
	bool exit;

	/* A line that did not fit last time: that line first. */
	if (data && data->failed) {
		iter->cpu = data->cpu;
		ret = ng_ft_print_gathered(iter, &data->line, data->ts, flags);
		if (ret == TRACE_TYPE_HANDLED && iter->cpu != cpu) {
			/* Its last record is still in that CPU's buffer. */
			data->cpus[iter->cpu].ignore = true;
			ret = TRACE_TYPE_NO_CONSUME;
		}
		iter->cpu = cpu;
		return ret;
	}
	if (data && data->cpus[cpu].ignore) {
		data->cpus[cpu].ignore = false;
		return TRACE_TYPE_HANDLED;
	}
	if (ent->type == ng_ft_types.entry || ent->type == ng_ft_types.exit) {
		if (ng_ft_page_full(iter))
			return TRACE_TYPE_PARTIAL_LINE;
		exit = ent->type == ng_ft_types.exit;
		ng_ft_gather(iter, (struct ng_ft_func *)ent, exit, &line);
		if (ng_ft_hidden(iter, &line.rec, exit, flags)) {
			/* A hidden leaf's exit, taken with it, ends the hiding. */
			if (line.leaf)
				ng_ft_hidden(iter, &line.exit, true, flags);
			return line.pending ? TRACE_TYPE_HANDLED : TRACE_TYPE_NO_CONSUME;
		}
		return ng_ft_print_gathered(iter, &line, iter->ts, flags);
	}
	if (ent->type == ng_ft_types.args || ent->type == ng_ft_types.retval) {
		if (ng_ft_hidden_value(iter, ent, flags))
			return TRACE_TYPE_HANDLED;
		return ng_ft_print_value(iter, ent->type == ng_ft_types.retval, flags);
	}
	if (ent->type == ng_ft_types.clock)
		return ng_ft_print_clock(iter, (struct ng_ft_clock *)ent, flags);
	return TRACE_TYPE_UNHANDLED;
}

static void ng_ft_print_header(struct seq_file *s)
{
	struct trace_iterator *iter = s->private;
	u32 flags = ng_ft_flags.val;

	if (!(iter->tr->trace_flags & TRACE_ITER_CONTEXT_INFO))
		return;
	seq_printf(s, "#%s%s%s%s               FUNCTION CALLS\n",
		   flags & NG_FT_OPT_ABSTIME ? "     TIME       " : "",
		   flags & NG_FT_OPT_CPU ? " CPU" : "",
		   flags & NG_FT_OPT_PROC ? "  TASK/PID       " : "",
		   flags & NG_FT_OPT_DURATION ? "  DURATION   " : "");
	seq_printf(s, "#%s%s%s%s               |   |   |   |\n",
		   flags & NG_FT_OPT_ABSTIME ? "      |         " : "",
		   flags & NG_FT_OPT_CPU ? " |  " : "",
		   flags & NG_FT_OPT_PROC ? "   |    |        " : "",
		   flags & NG_FT_OPT_DURATION ? "   |   |      " : "");
}

/*
 * A reader opens "trace" or "trace_pipe": its state.  ftrace_dump()
 * opens one where it may not sleep.
 */
static void ng_ft_open(struct trace_iterator *iter)
{
	gfp_t gfp = preemptible() ? GFP_KERNEL : GFP_ATOMIC;
	struct ng_ft_iter *data;
	int cpu;

	iter->private = NULL;
	data = kvzalloc(sizeof(*data), gfp);
	if (!data)
		goto fail;
	data->cpus = kcalloc(nr_cpu_ids, sizeof(*data->cpus), gfp);
	if (!data->cpus)
		goto fail;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		data->cpus[cpu].last_pid = -1;
		data->cpus[cpu].hidden_depth = -1;
	}
	iter->private = data;
	return;
fail:
	kvfree(data);
	/* The view still works, without durations on "}" lines. */
	pr_warn("no memory for a trace reader's state\n");
}

static void ng_ft_close(struct trace_iterator *iter)
{
	struct ng_ft_iter *data = iter->private;

	if (!data)
		return;
	kfree(data->cpus);
	kvfree(data);
	iter->private = NULL;
}

/* Any option may change at any time: the printers read them per line. */
static int ng_ft_set_flag(struct trace_array *tr, u32 old, u32 bit, int set)
{
	return 0;
}

static struct tracer ng_ft_tracer = {
	.name		= "nanograph",
	.owner		= THIS_MODULE,
	.init		= ng_ft_init,
	.reset		= ng_ft_reset,
	.start		= ng_ft_start,
	.open		= ng_ft_open,
	.pipe_open	= ng_ft_open,
	.close		= ng_ft_close,
	.pipe_close	= ng_ft_close,
	.print_line	= ng_ft_print_line,
	.print_header	= ng_ft_print_header,
	.flags		= &ng_ft_flags,
	.set_flag	= ng_ft_set_flag,
	.allow_instances = true,
};

/* Module init, last: from here on, current_tracer can name us. */
int ng_ft_register(void)
{
	int ret;

	ng_ft_event_types(&ng_ft_types);
	ng_ft_cpu_width = snprintf(NULL, 0, "%u", nr_cpu_ids - 1);
	ret = register_tracer(&ng_ft_tracer);
	if (ret)
		pr_err("cannot register the ftrace tracer: %d\n", ret);
	return ret;
}

/*
 * Module exit, first.  A trace array with nanograph current, or an open
 * option file of it, pins the module (struct tracer's owner), so exit
 * never finds it in use; only rmmod -f could, and then it waits for
 * "echo nop > current_tracer" and for the file to be closed: a hung
 * rmmod -f is acceptable, a trace array calling freed text or a file
 * reading freed memory not.
 */
void ng_ft_unregister(void)
{
	while (unregister_tracer(&ng_ft_tracer) == -EBUSY) {
		pr_warn_once("unload waits until nanograph is no current_tracer and none of its option files is open\n");
		msleep(100);
	}
}
