// SPDX-License-Identifier: GPL-2.0
/*
 * Recording decided by the traced tasks themselves.
 *
 * set_event_comm: a thread is recorded while its name matches one of the
 * globs, so a program starts and stops the recording of a thread by
 * renaming it (prctl(PR_SET_NAME), or an exec), as Nanoscope does.
 * trace_self: a thread starts or stops its own recording with a write.
 *
 * Both act through set_event_pid's map (pids.c): they add and remove
 * pids, and the hook tests one bit as before.  A write of set_event_comm
 * replaces that map with the threads whose names match now; from then on
 * the task_rename tracepoint (which exec fires too) adds or removes the
 * renamed thread, and a thread forked by a matching one is added at fork,
 * its name being its parent's.  A rename racing with the write of the
 * list may be missed, as a fork racing with a replace of set_event_pid.
 */
#define pr_fmt(fmt) "nanograph: " fmt

#include <linux/glob.h>
#include <linux/kobject.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/tracepoint.h>

#include "ng_module.h"
#include "rawbuf.h"

/* A glob longer than this cannot be meant for a 15-character name. */
#define NG_COMM_GLOB_MAX	64

struct ng_comm_set {
	struct rcu_head rcu;
	unsigned int n;
	char globs[][NG_COMM_GLOB_MAX];
};

static struct ng_comm_set __rcu *ng_comms;
static struct tracepoint *ng_tp_rename;

static bool ng_comm_set_matches(const struct ng_comm_set *set, const char *comm)
{
	unsigned int i;

	for (i = 0; i < set->n; i++)
		if (glob_match(set->globs[i], comm))
			return true;
	return false;
}

/*
 * Is @task listed by its name now?  No list: no.  An RCU reader (the
 * task's name is read unlocked, as ftrace's saved_cmdlines does).
 */
bool ng_comm_wants(struct task_struct *task)
{
	struct ng_comm_set *set = rcu_dereference_check(ng_comms, rcu_read_lock_any_held());

	return set && ng_comm_set_matches(set, task->comm);
}

/*
 * task_rename: @task takes the name @comm (fired before it is copied,
 * under the task's lock).  A thread that now matches gets its shadow
 * stack at once, so that its calls right after the rename are recorded.
 * The raw buffers learn of every rename (ng_raw_renamed()).
 */
static void ng_comm_renamed(void *data, struct task_struct *task, const char *comm)
{
	struct ng_comm_set *set;
	bool in = false;

	ng_raw_renamed(task, comm);

	/* Probes are preemptible from 7.0 on (SRCU): the map needs RCU. */
	rcu_read_lock();
	set = rcu_dereference(ng_comms);
	if (set) {
		in = ng_comm_set_matches(set, comm);
		ng_pid_map_assign(rcu_dereference(ng_pids), task->pid, in);
	}
	rcu_read_unlock();
	if (in)
		ng_stack_give(task);
}

/* The threads whose names @set matches now, as a set_event_pid map. */
static struct ng_pid_map *ng_comm_map(const struct ng_comm_set *set)
{
	struct ng_pid_map *map = ng_pid_map_alloc();
	struct task_struct *p, *t;

	if (!map)
		return NULL;
	rcu_read_lock();
	for_each_process_thread(p, t)
		if (ng_comm_set_matches(set, t->comm))
			ng_pid_map_assign(map, t->pid, true);
	rcu_read_unlock();
	return map;
}

/*
 * set_event_comm's tokens (lists.c keeps them for reading back): with
 * @reset they replace the globs, else they are added.  No globs left:
 * names no longer decide, and set_event_pid stays as it is.  Otherwise
 * set_event_pid becomes the threads that match, none perhaps (it then
 * reads "no task is recorded").
 */
int ng_comms_apply(char **tokens, unsigned int n, bool reset)
{
	struct ng_comm_set *old, *set;
	struct ng_pid_map *map;
	unsigned int i, keep;

	lockdep_assert_held(&ng_control_lock);
	for (i = 0; i < n; i++)
		if (strlen(tokens[i]) >= NG_COMM_GLOB_MAX)
			return -E2BIG;
	old = rcu_dereference_protected(ng_comms, lockdep_is_held(&ng_control_lock));
	keep = !reset && old ? old->n : 0;
	set = NULL;
	if (keep + n) {
		set = kzalloc(struct_size(set, globs, keep + n), GFP_KERNEL);
		if (!set)
			return -ENOMEM;
		if (keep)
			memcpy(set->globs, old->globs, keep * sizeof(set->globs[0]));
		for (i = 0; i < n; i++)
			strscpy(set->globs[keep + i], tokens[i], NG_COMM_GLOB_MAX);
		set->n = keep + n;
		map = ng_comm_map(set);
		if (!map) {
			kfree(set);
			return -ENOMEM;
		}
		ng_pids_replace(map);
	}
	rcu_assign_pointer(ng_comms, set);
	if (old)
		kfree_rcu(old, rcu);
	return 0;
}

/*
 * trace_self: "1" records the writing thread from now on, "0" no more
 * (pids.c says how the two pid lists change).
 */
static ssize_t trace_self_store(struct kobject *kobj, struct kobj_attribute *attr,
				const char *buf, size_t count)
{
	unsigned long on;
	int ret;

	ret = ng_parse_number(buf, count, 1, EINVAL, &on);
	if (ret)
		return ret;
	mutex_lock(&ng_control_lock);
	ret = ng_pids_self(current, on);
	mutex_unlock(&ng_control_lock);
	return ret ?: count;
}

struct kobj_attribute ng_attr_trace_self = __ATTR_WO(trace_self);

static void ng_find_rename(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "task_rename"))
		ng_tp_rename = tp;
}

int ng_comm_init(void)
{
	for_each_kernel_tracepoint(ng_find_rename, NULL);
	if (!ng_tp_rename) {
		pr_err("no task_rename tracepoint\n");
		return -ENOENT;
	}
	return tracepoint_probe_register(ng_tp_rename, ng_comm_renamed, NULL);
}

/*
 * Module exit.  The set is unpublished before the grace period that
 * tracepoint_synchronize_unregister() waits (synchronize_rcu() among
 * them), and freed after it: the fork and new-task probes (pids.c,
 * retstack.c), still registered, read it under rcu_read_lock().
 */
void ng_comm_exit(void)
{
	struct ng_comm_set *set;

	tracepoint_probe_unregister(ng_tp_rename, ng_comm_renamed, NULL);
	set = rcu_replace_pointer(ng_comms, NULL, true);
	tracepoint_synchronize_unregister();
	kfree(set);
}
