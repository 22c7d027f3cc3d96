// SPDX-License-Identifier: GPL-2.0
/*
 * set_event_pid: record only these tasks (empty: every task), and with
 * options/event-fork their children too, as ftrace's file and option of
 * the same names.
 *
 * The set is a bitmap over every possible pid, so that the hot path tests
 * one bit and the fork probe adds a child without allocating.  A replace
 * builds a new bitmap and swaps it in under RCU (the entry hook runs with
 * preemption off, an RCU read-side section); an append sets bits in place.
 * A child forked while a replace is swapping the map may be missed, as
 * with ftrace's own pid lists.
 */
#define pr_fmt(fmt) "nanograph: " fmt

#include <linux/bitmap.h>
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/threads.h>
#include <linux/tracepoint.h>
#include <linux/vmalloc.h>

#include "nanograph.h"

struct ng_pid_map {
	unsigned long bits[BITS_TO_LONGS(PID_MAX_LIMIT)];
};

struct ng_pid_map __rcu *ng_pids;
unsigned int ng_event_fork;	/* options/event-fork */
static struct tracepoint *ng_tp_fork;

/* The hot path's test, out of line only because the map is private. */
bool ng_pid_in(struct ng_pid_map *map, pid_t pid)
{
	return test_bit(pid, map->bits);
}

/* Does @map admit @task?  No map: every task. */
bool ng_pid_map_wants(struct ng_pid_map *map, struct task_struct *task)
{
	return !map || ng_pid_in(map, task->pid);
}

/*
 * Is @task to be recorded?  @parent, when @task is being created, counts
 * as event-fork will when the fork completes.  An RCU reader of any kind.
 */
bool ng_pid_wants(struct task_struct *task, struct task_struct *parent)
{
	struct ng_pid_map *map = rcu_dereference_check(ng_pids, rcu_read_lock_any_held());

	if (ng_pid_map_wants(map, task))
		return true;
	return parent && READ_ONCE(ng_event_fork) && ng_pid_in(map, parent->pid);
}

/* A map of @tokens (parsed already), plus @base's pids if given. */
static struct ng_pid_map *ng_pids_build(char **tokens, unsigned int n,
					struct ng_pid_map *base)
{
	struct ng_pid_map *map = vzalloc(sizeof(*map));
	unsigned int i, pid;

	if (!map)
		return NULL;
	if (base)
		bitmap_copy(map->bits, base->bits, PID_MAX_LIMIT);
	for (i = 0; i < n; i++) {
		WARN_ON(kstrtouint(tokens[i], 10, &pid));
		set_bit(pid, map->bits);
	}
	return map;
}

/*
 * Parse every token before changing anything; with @reset the tokens
 * replace the set (none clears it), else they are added to it.  While
 * recording, the tasks let in get their shadow stacks before the new
 * set takes effect, so that none of their calls is skipped for want of
 * one (a task that gets none, for want of memory, is counted skipped).
 */
int ng_pids_apply(char **tokens, unsigned int n, bool reset)
{
	struct ng_pid_map *old, *map;
	unsigned int i, pid;
	int ret;

	for (i = 0; i < n; i++) {
		ret = kstrtouint(tokens[i], 10, &pid);
		if (ret)
			return ret;
		if (pid >= PID_MAX_LIMIT)
			return -EINVAL;
	}
	old = rcu_dereference_protected(ng_pids, lockdep_is_held(&ng_control_lock));
	map = NULL;
	if (n || !reset) {
		map = ng_pids_build(tokens, n, reset ? NULL : old);
		if (!map)
			return -ENOMEM;
	}
	ng_stacks_assign(map);
	if (!reset && old) {
		/* Added in place: the fork probe may be adding a child. */
		for (i = 0; i < n; i++) {
			WARN_ON(kstrtouint(tokens[i], 10, &pid));
			set_bit(pid, old->bits);
		}
		vfree(map);
		return 0;
	}
	rcu_assign_pointer(ng_pids, map);
	if (old) {
		synchronize_rcu();
		vfree(old);
	}
	return 0;
}

/* The set now, for the control lock's holder. */
struct ng_pid_map *ng_pids_current(void)
{
	return rcu_dereference_protected(ng_pids, lockdep_is_held(&ng_control_lock));
}

/* The set as ftrace lists it: one pid a line, in order. */
void ng_pids_render(struct seq_buf *s)
{
	struct ng_pid_map *map;
	unsigned int pid;

	map = rcu_dereference_protected(ng_pids, lockdep_is_held(&ng_control_lock));
	if (!map)
		return;
	for_each_set_bit(pid, map->bits, PID_MAX_LIMIT)
		seq_buf_printf(s, "%u\n", pid);
}

/* sched_process_fork: a child of a recorded task is recorded too. */
static void ng_pids_fork(void *data, struct task_struct *parent,
			 struct task_struct *child)
{
	struct ng_pid_map *map;

	if (!READ_ONCE(ng_event_fork))
		return;
	rcu_read_lock();
	map = rcu_dereference(ng_pids);
	if (map && ng_pid_in(map, parent->pid))
		set_bit(child->pid, map->bits);
	rcu_read_unlock();
}

static void ng_find_fork_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_fork"))
		ng_tp_fork = tp;
}

int ng_pids_init(void)
{
	for_each_kernel_tracepoint(ng_find_fork_tp, NULL);
	if (!ng_tp_fork) {
		pr_err("no sched_process_fork tracepoint\n");
		return -ENOENT;
	}
	return tracepoint_probe_register(ng_tp_fork, ng_pids_fork, NULL);
}

void ng_pids_exit(void)
{
	tracepoint_probe_unregister(ng_tp_fork, ng_pids_fork, NULL);
	tracepoint_synchronize_unregister();
	vfree(rcu_dereference_protected(ng_pids, true));
	RCU_INIT_POINTER(ng_pids, NULL);
}
