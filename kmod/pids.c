// SPDX-License-Identifier: GPL-2.0
/*
 * set_event_pid: record only these tasks (empty: every task), and with
 * options/event-fork their children too, as ftrace's file and option of
 * the same names.  set_event_notrace_pid: never record these tasks (nor,
 * with event-fork, their children), whatever set_event_pid says, as
 * ftrace's file of that name; a collector lists its own threads there to
 * record the whole system but itself.  With event-fork a task also leaves the set when it is
 * freed, as in ftrace (event_filter_pid_sched_process_exit()), so that a
 * new task given its pid later is not recorded; a set that loses its
 * last task that way records no task, and says so when read.
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

#include "ng_module.h"

struct ng_pid_map {
	unsigned long bits[BITS_TO_LONGS(PID_MAX_LIMIT)];
};

struct ng_pid_map __rcu *ng_pids;
struct ng_pid_map __rcu *ng_notrace_pids;
unsigned int ng_event_fork;	/* options/event-fork */
static struct tracepoint *ng_tp_fork, *ng_tp_free;

/* The map of a pid list: set_event_pid's or set_event_notrace_pid's. */
static struct ng_pid_map __rcu **ng_pid_list(enum ng_list list)
{
	return list == NG_EVENT_PID ? &ng_pids : &ng_notrace_pids;
}

/* The hot path's test, out of line only because the map is private. */
bool ng_pid_in(struct ng_pid_map *map, pid_t pid)
{
	return test_bit(pid, map->bits);
}

/* An empty map: no task, until pids are added. */
struct ng_pid_map *ng_pid_map_alloc(void)
{
	return vzalloc(sizeof(struct ng_pid_map));
}

/* Put @pid in @map or take it out, in place; no map: nothing to do. */
void ng_pid_map_assign(struct ng_pid_map *map, pid_t pid, bool in)
{
	if (!map || pid < 0 || pid >= PID_MAX_LIMIT)
		return;
	if (in)
		set_bit(pid, map->bits);
	else
		clear_bit(pid, map->bits);
}

/* Does @map admit @task?  No map: every task. */
bool ng_pid_map_wants(struct ng_pid_map *map, struct task_struct *task)
{
	return !map || ng_pid_in(map, task->pid);
}

/*
 * Is @task to be recorded, as far as set_event_pid says (a task in
 * set_event_notrace_pid gets a stack all the same: the hook skips it)?
 * @parent, when @task is being created, counts as event-fork will when
 * the fork completes.  An RCU reader of any kind.
 */
bool ng_pid_wants(struct task_struct *task, struct task_struct *parent)
{
	struct ng_pid_map *map = rcu_dereference_check(ng_pids, rcu_read_lock_any_held());

	if (ng_pid_map_wants(map, task))
		return true;
	/* A child has its parent's name: set_event_comm adds it at fork. */
	if (parent && ng_comm_wants(task))
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

static void ng_pids_swap(enum ng_list list, struct ng_pid_map *map);

/*
 * Parse every token before changing anything; with @reset the tokens
 * replace the set (none clears it), else they are added to it.  While
 * recording, the tasks set_event_pid lets in get their shadow stacks
 * before the new set takes effect, so that none of their calls is
 * skipped for want of one (a task that gets none, for want of memory, is
 * counted skipped).
 */
int ng_pids_apply(enum ng_list list, char **tokens, unsigned int n, bool reset)
{
	struct ng_pid_map __rcu **slot = ng_pid_list(list);
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
	lockdep_assert_held(&ng_control_lock);
	old = rcu_dereference_protected(*slot, lockdep_is_held(&ng_control_lock));
	map = NULL;
	if (n || !reset) {
		map = ng_pids_build(tokens, n, reset ? NULL : old);
		if (!map)
			return -ENOMEM;
	}
	if (!reset && old) {
		if (list == NG_EVENT_PID)
			ng_stacks_assign(map);
		/* Added in place: the fork probe may be adding a child. */
		for (i = 0; i < n; i++) {
			WARN_ON(kstrtouint(tokens[i], 10, &pid));
			set_bit(pid, old->bits);
		}
		vfree(map);
		return 0;
	}
	ng_pids_swap(list, map);
	return 0;
}

/*
 * Make @map the list's set.  While recording, set_event_pid's new tasks
 * get their stacks first; the old map is freed once no hook reads it.
 */
static void ng_pids_swap(enum ng_list list, struct ng_pid_map *map)
{
	struct ng_pid_map __rcu **slot = ng_pid_list(list);
	struct ng_pid_map *old;

	lockdep_assert_held(&ng_control_lock);
	if (list == NG_EVENT_PID)
		ng_stacks_assign(map);
	old = rcu_dereference_protected(*slot, lockdep_is_held(&ng_control_lock));
	rcu_assign_pointer(*slot, map);
	ng_narrowed_sync();
	if (old) {
		synchronize_rcu();
		vfree(old);
	}
}

/* set_event_comm's matching threads become set_event_pid (comm.c). */
void ng_pids_replace(struct ng_pid_map *map)
{
	ng_pids_swap(NG_EVENT_PID, map);
}

/*
 * trace_self: @on puts @task in set_event_pid (if it lists tasks at all;
 * an empty one records every task already) and takes it out of
 * set_event_notrace_pid; off takes it out of set_event_pid, or, when that
 * lists no tasks (every task), puts it in set_event_notrace_pid.
 */
int ng_pids_self(struct task_struct *task, bool on)
{
	struct ng_pid_map *pids = ng_pids_current();
	struct ng_pid_map *untraced =
		rcu_dereference_protected(ng_notrace_pids, lockdep_is_held(&ng_control_lock));
	char tok[16], *tokens[] = { tok };

	snprintf(tok, sizeof(tok), "%d", task->pid);
	if (on) {
		ng_pid_map_assign(untraced, task->pid, false);
		return pids ? ng_pids_apply(NG_EVENT_PID, tokens, 1, false) : 0;
	}
	if (pids) {
		ng_pid_map_assign(pids, task->pid, false);
		return 0;
	}
	return ng_pids_apply(NG_EVENT_NOTRACE_PID, tokens, 1, false);
}

/* The set now, for the control lock's holder. */
struct ng_pid_map *ng_pids_current(void)
{
	return rcu_dereference_protected(ng_pids, lockdep_is_held(&ng_control_lock));
}

/* Does either list hold a set (one that may name no task)?  Likewise. */
bool ng_pids_listed(void)
{
	return ng_pids_current() ||
	       rcu_dereference_protected(ng_notrace_pids,
					 lockdep_is_held(&ng_control_lock));
}

/*
 * The set as ftrace lists it: one pid a line, in order.  A set emptied by
 * its tasks' exits records nothing, unlike an empty one: say so (a "#"
 * line, as ftrace's "#### all functions enabled ####").
 */
void ng_pids_render(enum ng_list list, struct seq_buf *s)
{
	struct ng_pid_map *map;
	unsigned int pid;
	bool any = false;

	map = rcu_dereference_protected(*ng_pid_list(list),
					lockdep_is_held(&ng_control_lock));
	if (!map)
		return;
	for_each_set_bit(pid, map->bits, PID_MAX_LIMIT) {
		seq_buf_printf(s, "%u\n", pid);
		any = true;
	}
	if (!any && list == NG_EVENT_PID)
		seq_buf_printf(s, "#### all listed tasks exited: no task is recorded ####\n");
}

/* With event-fork, @child joins each list @parent is in. */
static void ng_pids_follow(struct ng_pid_map __rcu **slot,
			   struct task_struct *parent, struct task_struct *child)
{
	struct ng_pid_map *map = rcu_dereference(*slot);

	if (map && ng_pid_in(map, parent->pid))
		set_bit(child->pid, map->bits);
}

/*
 * sched_process_fork: with event-fork a child of a listed task is listed
 * too; with set_event_comm, one whose name (its parent's) matches.
 */
static void ng_pids_fork(void *data, struct task_struct *parent,
			 struct task_struct *child)
{
	rcu_read_lock();
	/* set_event_comm: the child has its parent's name (comm.c). */
	if (ng_comm_wants(child))
		ng_pid_map_assign(rcu_dereference(ng_pids), child->pid, true);
	if (READ_ONCE(ng_event_fork)) {
		ng_pids_follow(&ng_pids, parent, child);
		ng_pids_follow(&ng_notrace_pids, parent, child);
	}
	rcu_read_unlock();
}

/*
 * sched_process_free: with event-fork, a task that is gone leaves the
 * set, as ftrace's event_filter_pid_sched_process_exit() does.  It runs
 * after the task's last context switch and an RCU grace period, so the
 * task's last calls are still recorded.  Its pid was released a grace
 * period before: a new task given it in between (the pid space wrapped)
 * is taken out too if a task in the set forked it, as in ftrace.
 */
static void ng_pids_free(void *data, struct task_struct *task)
{
	struct ng_pid_map *map;

	if (!READ_ONCE(ng_event_fork))
		return;
	rcu_read_lock();
	map = rcu_dereference(ng_pids);
	if (map)
		clear_bit(task->pid, map->bits);
	map = rcu_dereference(ng_notrace_pids);
	if (map)
		clear_bit(task->pid, map->bits);
	rcu_read_unlock();
}

static void ng_find_tps(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_fork"))
		ng_tp_fork = tp;
	else if (!strcmp(tp->name, "sched_process_free"))
		ng_tp_free = tp;
}

int ng_pids_init(void)
{
	int ret;

	for_each_kernel_tracepoint(ng_find_tps, NULL);
	if (!ng_tp_fork || !ng_tp_free) {
		pr_err("no sched_process_fork or sched_process_free tracepoint\n");
		return -ENOENT;
	}
	ret = tracepoint_probe_register(ng_tp_fork, ng_pids_fork, NULL);
	if (ret)
		return ret;
	ret = tracepoint_probe_register(ng_tp_free, ng_pids_free, NULL);
	if (ret) {
		tracepoint_probe_unregister(ng_tp_fork, ng_pids_fork, NULL);
		tracepoint_synchronize_unregister();
	}
	return ret;
}

/*
 * Module exit.  The maps are unpublished before the grace period that
 * tracepoint_synchronize_unregister() waits (synchronize_rcu() among
 * them), and freed after it: the new-task probe (retstack.c), still
 * registered, reads them under rcu_read_lock().
 */
void ng_pids_exit(void)
{
	struct ng_pid_map *pids, *untraced;

	tracepoint_probe_unregister(ng_tp_free, ng_pids_free, NULL);
	tracepoint_probe_unregister(ng_tp_fork, ng_pids_fork, NULL);
	pids = rcu_replace_pointer(ng_pids, NULL, true);
	untraced = rcu_replace_pointer(ng_notrace_pids, NULL, true);
	tracepoint_synchronize_unregister();
	vfree(pids);
	vfree(untraced);
}
