// SPDX-License-Identifier: GPL-2.0
/*
 * The control directory, /sys/kernel/nanograph.
 *
 * A module cannot create files in tracefs on a stock kernel (the tracefs
 * creation functions are not exported), so the controls live in sysfs,
 * with the names and syntax of ftrace's own files.  Files whose contents
 * can exceed a page (function lists, pid lists, per-CPU stats) are binary
 * attributes, which are read with an offset and so have no size limit;
 * the others are ordinary attributes.  All are root-only.
 *
 * Every write is parsed completely before anything changes: bad input
 * returns an errno and leaves the state as it was.
 */
#define pr_fmt(fmt) "nanograph: " fmt

#include <linux/file.h>
#include <linux/kernel.h>
#include <linux/kobject.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "compat.h"
#include "ng_module.h"
#include "ng_arch_api.h"

/* Largest text a listing file renders: a whole kallsyms worth of globs. */
#define NG_LISTING_MAX	(8U << 20)

static struct kobject *ng_kobj;

/* Serialises every change of tracer state made through the files. */
DEFINE_MUTEX(ng_control_lock);
static unsigned int ng_tracing_on;

/*
 * A listing file: one of the lists of lists.c, or the stats text.  A
 * struct rather than a bare value, so that it can travel in
 * bin_attribute.private.
 */
struct ng_listing {
	int list;		/* an enum ng_list, or -1 */
	ng_render_t render;	/* when list is -1 */
};

static void ng_listing_render(const struct ng_listing *l, struct seq_buf *s)
{
	if (l->list >= 0)
		ng_list_render(l->list, s);
	else
		l->render(s);
}

/*
 * Render a file's text into a buffer, growing it until the text fits.
 * The lock keeps writers from changing a list while it is rendered.
 */
static char *ng_listing_text(const struct ng_listing *l, size_t *len)
{
	size_t size = PAGE_SIZE;
	struct seq_buf s;
	char *text;

	for (;;) {
		text = kvmalloc(size, GFP_KERNEL);
		if (!text)
			return ERR_PTR(-ENOMEM);
		seq_buf_init(&s, text, size);
		mutex_lock(&ng_control_lock);
		ng_listing_render(l, &s);
		mutex_unlock(&ng_control_lock);
		if (!seq_buf_has_overflowed(&s))
			break;
		kvfree(text);
		if (size >= NG_LISTING_MAX)
			return ERR_PTR(-EFBIG);
		size *= 2;
	}
	*len = seq_buf_used(&s);
	return text;
}

/*
 * A reader's text of a listing, as seq_file keeps one per open file:
 * rendered when a read starts at offset 0 (or anywhere the previous read
 * of that open file did not end), then served to that file's following
 * reads, so that one pass over a listing is rendered once and is one
 * consistent picture, whatever the chunk size.  Texts are kept by open
 * file (openfile.c) in a few slots: dropped when their reader reads past
 * the end or closes the file, or, least recently used first, when a new
 * reader needs the slot (that reader's next read then renders afresh).
 */
#define NG_SNAPS	8

struct ng_snap {
	struct ng_keep keep;	/* whose text this is */
	const struct bin_attribute *attr;
	loff_t next;		/* where that file's next read starts */
	size_t len;
	char *text;		/* NULL: a free slot */
	unsigned long used;	/* for least recently used */
};

static DEFINE_MUTEX(ng_snap_lock);
static void ng_snap_release(struct ng_keep *k);

static struct ng_snap ng_snaps[NG_SNAPS] = {
	[0 ... NG_SNAPS - 1] = {
		.keep = NG_KEEP_INIT(&ng_snap_lock, ng_snap_release),
	},
};

static unsigned long ng_snap_clock;

static void ng_snap_drop(struct ng_snap *sn)
{
	kvfree(sn->text);
	ng_keep_drop(&sn->keep);
	sn->attr = NULL;
	sn->next = 0;
	sn->len = 0;
	sn->text = NULL;
	sn->used = 0;
}

/* Its reader closed the file. */
static void ng_snap_release(struct ng_keep *k)
{
	ng_snap_drop(container_of(k, struct ng_snap, keep));
}

/* The slot holding @filp's text, else a free or least recently used one. */
static struct ng_snap *ng_snap_slot(const struct file *filp,
				    const struct bin_attribute *attr)
{
	struct ng_snap *sn, *lru = &ng_snaps[0];

	for (sn = ng_snaps; sn < ng_snaps + NG_SNAPS; sn++) {
		if (sn->text && ng_keep_is(&sn->keep, filp) && sn->attr == attr)
			return sn;
		if (!sn->text)
			lru = sn;
		else if (lru->text && sn->used < lru->used)
			lru = sn;
	}
	return lru;
}

/* The listing files' read: the window [off, off + count) of the text. */
static ssize_t ng_listing_read(struct file *filp, struct kobject *kobj,
			       ng_bin_attr_t *attr, char *buf,
			       loff_t off, size_t count)
{
	struct ng_snap *sn;
	ssize_t ret = 0;
	size_t len;
	char *text;

	mutex_lock(&ng_snap_lock);
	sn = ng_snap_slot(filp, attr);
	if (!sn->text || !ng_keep_is(&sn->keep, filp) || sn->attr != attr ||
	    sn->next != off || !off) {
		text = ng_listing_text(attr->private, &len);
		if (IS_ERR(text)) {
			mutex_unlock(&ng_snap_lock);
			return PTR_ERR(text);
		}
		ng_snap_drop(sn);
		ng_keep_hold(&sn->keep, filp);
		sn->attr = attr;
		sn->text = text;
		sn->len = len;
	}
	if (off < sn->len) {
		ret = min_t(size_t, count, sn->len - off);
		memcpy(buf, sn->text + off, ret);
	}
	sn->next = off + ret;
	sn->used = ++ng_snap_clock;
	if (!ret)
		ng_snap_drop(sn);	/* read to the end */
	mutex_unlock(&ng_snap_lock);
	return ret;
}

/* A write to one of the lists (lists.c). */
static ssize_t ng_listing_write(struct file *filp, struct kobject *kobj,
				ng_bin_attr_t *attr, char *buf,
				loff_t off, size_t count)
{
	const struct ng_listing *l = attr->private;
	ssize_t ret;

	mutex_lock(&ng_control_lock);
	ret = ng_list_write(l->list, filp, buf, off, count);
	mutex_unlock(&ng_control_lock);
	return ret;
}

static const struct ng_listing ng_ftrace_filter_listing = {
	.list = NG_FTRACE_FILTER,
};

static const struct ng_listing ng_ftrace_notrace_listing = {
	.list = NG_FTRACE_NOTRACE,
};

static const struct ng_listing ng_graph_function_listing = {
	.list = NG_GRAPH_FUNCTION,
};

static const struct ng_listing ng_graph_notrace_listing = {
	.list = NG_GRAPH_NOTRACE,
};

static const struct ng_listing ng_args_filter_listing = {
	.list = NG_ARGS_FILTER,
};

static const struct ng_listing ng_event_pid_listing = {
	.list = NG_EVENT_PID,
};

static const struct ng_listing ng_event_notrace_pid_listing = {
	.list = NG_EVENT_NOTRACE_PID,
};

static const struct ng_listing ng_event_comm_listing = {
	.list = NG_EVENT_COMM,
};

static const struct ng_listing ng_stats_listing = {
	.list = -1,
	.render = ng_stats_render,
};

#define NG_LISTING_ATTR(_name, _listing)				\
	struct bin_attribute bin_attr_##_name = {			\
		.attr = { .name = __stringify(_name), .mode = 0600 },	\
		.read = ng_listing_read,				\
		.write = ng_listing_write,				\
		.private = (void *)&(_listing),				\
	}

static NG_LISTING_ATTR(set_ftrace_filter, ng_ftrace_filter_listing);
static NG_LISTING_ATTR(set_ftrace_notrace, ng_ftrace_notrace_listing);
static NG_LISTING_ATTR(set_graph_function, ng_graph_function_listing);
static NG_LISTING_ATTR(set_graph_notrace, ng_graph_notrace_listing);
static NG_LISTING_ATTR(set_args_filter, ng_args_filter_listing);
static NG_LISTING_ATTR(set_event_pid, ng_event_pid_listing);
static NG_LISTING_ATTR(set_event_notrace_pid, ng_event_notrace_pid_listing);
static NG_LISTING_ATTR(set_event_comm, ng_event_comm_listing);

static struct bin_attribute bin_attr_stats = {
	.attr = { .name = "stats", .mode = 0400 },
	.read = ng_listing_read,
	.private = (void *)&ng_stats_listing,
};

/*
 * A file holding one number, as ftrace's tracing_on, max_graph_depth and
 * options files do: shared parsing, bounds and locking.  @apply, if set,
 * makes the change happen (under ng_control_lock), may refuse it, and may
 * normalise the value stored.
 */
struct ng_value_attr {
	struct kobj_attribute kattr;
	unsigned int *value;
	unsigned long max;	/* largest value accepted */
	int over_max;		/* errno for a larger one */
	int (*apply)(unsigned long *val);
};

static ssize_t ng_value_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	const struct ng_value_attr *va = container_of(attr, struct ng_value_attr, kattr);

	return sysfs_emit(buf, "%u\n", READ_ONCE(*va->value));
}

/*
 * The one decimal number of a control-file write, parsed whole before
 * anything changes.  kernfs hands a store method at most one page of a
 * write; input that fills the page is not a number but too much data,
 * and gets -E2BIG rather than a parse error.  Above @max: -@over_max.
 */
int ng_parse_number(const char *buf, size_t count, unsigned long max,
		    int over_max, unsigned long *val)
{
	int ret;

	if (count >= PAGE_SIZE)
		return -E2BIG;
	ret = kstrtoul(buf, 10, val);
	if (ret)
		return ret;
	return *val > max ? -over_max : 0;
}

static ssize_t ng_value_store(struct kobject *kobj, struct kobj_attribute *attr,
			      const char *buf, size_t count)
{
	const struct ng_value_attr *va = container_of(attr, struct ng_value_attr, kattr);
	unsigned long val;
	int ret;

	ret = ng_parse_number(buf, count, va->max, va->over_max, &val);
	if (ret)
		return ret;
	mutex_lock(&ng_control_lock);
	ret = va->apply ? va->apply(&val) : 0;
	if (!ret)
		WRITE_ONCE(*va->value, val);
	mutex_unlock(&ng_control_lock);
	return ret ?: count;
}

#define NG_VALUE_ATTR(_var, _file, _max, _over_max, _apply)		\
	struct ng_value_attr ng_attr_##_var = {				\
		.kattr = {						\
			.attr = { .name = _file, .mode = 0600 },	\
			.show = ng_value_show,				\
			.store = ng_value_store,			\
		},							\
		.value = &ng_##_var,					\
		.max = _max,						\
		.over_max = _over_max,					\
		.apply = _apply,					\
	}

/*
 * tracing_on: like ftrace's, "0" stops and any other number starts; it
 * reads back 0 or 1.  It is one user of the hook: a trace array whose
 * current tracer is nanograph is another (ng_tracer_get()).  The default
 * events are switched before and after, without the control lock
 * (ng_events_sync()).
 */
static int ng_tracing_apply(unsigned long *on)
{
	*on = !!*on;
	if (*on)
		return ng_tracer_get(true);
	ng_tracer_put(true);
	return 0;
}

static ssize_t tracing_on_store(struct kobject *kobj, struct kobj_attribute *attr,
				const char *buf, size_t count)
{
	unsigned long val;
	ssize_t ret;

	ret = ng_parse_number(buf, count, ULONG_MAX, ERANGE, &val);
	if (ret)
		return ret;
	/* Stopping stays allowed: a recording from before can end. */
	ret = val ? ng_locked_down() : 0;
	if (ret)
		return ret;
	if (val)
		ng_events_sync(true);
	ret = ng_value_store(kobj, attr, buf, count);
	ng_events_sync(false);
	return ret;
}

static struct ng_value_attr ng_attr_tracing_on = {
	.kattr = __ATTR(tracing_on, 0600, ng_value_show, tracing_on_store),
	.value = &ng_tracing_on,
	.max = ULONG_MAX,
	.over_max = ERANGE,
	.apply = ng_tracing_apply,
};

/*
 * max_graph_depth: as ftrace's, 0 means unlimited.  The hook reads the
 * value on every call while a setting narrows what it records
 * (ng_narrowed_sync()), and this is one.
 */
static int ng_max_depth_apply(unsigned long *depth)
{
	WRITE_ONCE(ng_max_depth, *depth);
	ng_narrowed_sync();
	return 0;
}

static NG_VALUE_ATTR(max_depth, "max_graph_depth", UINT_MAX, ERANGE,
		     ng_max_depth_apply);
/*
 * options/event-fork: as ftrace's option of that name, children of the
 * pids in set_event_pid and set_event_notrace_pid are added to it when
 * they are forked (pids.c).
 */
static NG_VALUE_ATTR(event_fork, "event-fork", 1, EINVAL, NULL);

/*
 * options/sched: scheduling records of the tasks inside hooked calls
 * (sched.c), 0 or 1, changed at any time.
 */
static unsigned int ng_sched;

static int ng_sched_apply(unsigned long *on)
{
	return ng_sched_use(NG_SCHED_RECORDS, *on);
}

static NG_VALUE_ATTR(sched, "sched", 1, EINVAL, ng_sched_apply);

/*
 * options/counters: each call's page faults and context switches
 * (counters.c), 0 or 1, changed at any time.
 */
static unsigned int ng_counters;

static int ng_counters_apply(unsigned long *on)
{
	ng_counters_set(*on);
	return 0;
}

static NG_VALUE_ATTR(counters, "counters", 1, EINVAL, ng_counters_apply);

/*
 * options/args: how many argument registers each entry records (0 to
 * NG_ARCH_NARGS: 6 on x86_64 and arm64, 4 on arm); options/retaddr:
 * each entry records where the call returns to; options/retval: each
 * exit records the return register (values.c).  Changed at any time.
 */
static unsigned int ng_args, ng_retaddr_opt, ng_retval;

static int ng_args_apply(unsigned long *nr)
{
	return ng_values_set_entry(*nr, ng_retaddr_opt);
}

static int ng_retaddr_apply(unsigned long *on)
{
	return ng_values_set_entry(ng_args, *on);
}

static int ng_retval_apply(unsigned long *on)
{
	ng_values_set_retval(*on);
	return 0;
}

static NG_VALUE_ATTR(args, "args", NG_ARCH_NARGS, EINVAL, ng_args_apply);
static NG_VALUE_ATTR(retaddr_opt, "retaddr", 1, EINVAL, ng_retaddr_apply);
static NG_VALUE_ATTR(retval, "retval", 1, EINVAL, ng_retval_apply);

/*
 * options/direct: hook set_ftrace_filter's functions through ftrace's
 * direct calls (direct.c) from the next tracing_on=1; 1 by default where
 * the kernel and the architecture have them, and only 0 elsewhere
 * (EOPNOTSUPP).  Off while recording through them hands over to the ops
 * path at once.
 */
static int ng_direct_apply(unsigned long *on)
{
	if (*on)
		return NG_DIRECT_MAX ? 0 : -EOPNOTSUPP;
	return ng_direct_handover(ng_list_empty(NG_FTRACE_FILTER));
}

static NG_VALUE_ATTR(direct, "direct", 1, EINVAL, ng_direct_apply);

/*
 * calibrate: a write of N makes N calls of ng_calib_target()
 * (calib_target.c), which the collector hooks and times to learn the
 * tracer's cost per call; the file reads back the last N.  At any time:
 * the calls are traced only where that function is hooked.
 */
static unsigned int ng_calibrate;

/* What the calibration target calls: nothing, but not inlined there. */
noinline void ng_calib_sink(void)
{
	barrier();
}

static int ng_calibrate_apply(unsigned long *n)
{
	unsigned long i;

	for (i = 0; i < *n; i++) {
		ng_calib_target();
		if (!(i & 1023))
			cond_resched();
	}
	return 0;
}

static NG_VALUE_ATTR(calibrate, "calibrate", NG_CALIBRATE_MAX, ERANGE, ng_calibrate_apply);

/* @kb rounds to the size there is already. */
static bool ng_raw_size_same(unsigned long *kb)
{
	if (*kb < 4 || roundup_pow_of_two(*kb) != ng_raw_size_kb)
		return false;
	*kb = ng_raw_size_kb;
	return true;
}

/*
 * raw_buffer_size_kb: the raw mode's per-CPU buffer, as ftrace's
 * buffer_size_kb; a power of two, changed only while idle (after the
 * drain of a stop, which a change waits for).
 */
static int ng_raw_size_apply(unsigned long *kb)
{
	int ret;

	if (ng_raw_size_same(kb))
		return 0;	/* no change: fine even while tracing */
	if (*kb < 4)
		return -EINVAL;
	if (ng_flight_busy())
		return -EBUSY;
	ret = ng_control_wait_drained();
	if (ret)
		return ret;
	if (ng_raw_size_same(kb))
		return 0;	/* another write made it so meanwhile */
	return ng_tracer_busy() || ng_flight_busy() ? -EBUSY : ng_raw_resize(kb);
}

static NG_VALUE_ATTR(raw_size_kb, "raw_buffer_size_kb", 1U << 20, ERANGE,
		     ng_raw_size_apply);

/*
 * buffer_mode: where records go, shown as ftrace shows trace_clock, the
 * current choice in brackets.  "events": nanograph:* trace events in the
 * ftrace ring buffer (trace-cmd compatible); "raw": the module's own
 * per-CPU buffers, per_cpu/cpuN/raw.
 */
static ssize_t buffer_mode_show(struct kobject *kobj, struct kobj_attribute *attr,
				char *buf)
{
	return sysfs_emit(buf, ng_raw_mode() ? "events [raw]\n" : "[events] raw\n");
}

static ssize_t buffer_mode_store(struct kobject *kobj, struct kobj_attribute *attr,
				 const char *buf, size_t count)
{
	bool raw;
	int ret = 0;

	if (count >= PAGE_SIZE)
		return -E2BIG;
	if (sysfs_streq(buf, "raw"))
		raw = true;
	else if (sysfs_streq(buf, "events"))
		raw = false;
	else
		return -EINVAL;
	mutex_lock(&ng_control_lock);
	/* A change waits for a stop's drain (the current mode never does). */
	if (raw != ng_raw_mode() && !ng_flight_busy())
		ret = ng_control_wait_drained();
	if (!ret && raw != ng_raw_mode())
		ret = ng_tracer_busy() || ng_flight_busy() ? -EBUSY : ng_raw_set_mode(raw);
	mutex_unlock(&ng_control_lock);
	return ret ?: count;
}

static struct kobj_attribute ng_attr_buffer_mode = __ATTR_RW_MODE(buffer_mode, 0600);

static ssize_t clock_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	struct seq_buf s;

	seq_buf_init(&s, buf, PAGE_SIZE);
	ng_clock_render(&s);
	return seq_buf_used(&s);
}

static struct kobj_attribute ng_attr_clock = __ATTR_RO_MODE(clock, 0400);

/* The interface's number (NG_ABI): a collector checks it before anything. */
static ssize_t abi_show(struct kobject *kobj, struct kobj_attribute *attr,
			char *buf)
{
	return sysfs_emit(buf, "%d\n", NG_ABI);
}

static struct kobj_attribute ng_attr_abi = __ATTR_RO_MODE(abi, 0400);

static struct attribute *ng_attrs[] = {
	&ng_attr_tracing_on.kattr.attr,
	&ng_attr_max_depth.kattr.attr,
	&ng_attr_clock.attr,
	&ng_attr_abi.attr,
	&ng_attr_raw_size_kb.kattr.attr,
	&ng_attr_buffer_mode.attr,
	&ng_attr_calibrate.kattr.attr,
	&ng_attr_flight.attr,
	&ng_attr_trigger.attr,
	&ng_attr_trace_self.attr,
	NULL,
};

static ng_bin_attr_list_t ng_bin_attrs[] = {
	&bin_attr_set_ftrace_filter,
	&bin_attr_set_ftrace_notrace,
	&bin_attr_set_graph_function,
	&bin_attr_set_graph_notrace,
	&bin_attr_set_args_filter,
	&bin_attr_set_event_pid,
	&bin_attr_set_event_notrace_pid,
	&bin_attr_set_event_comm,
	&bin_attr_stats,
	NULL,
};

static const struct attribute_group ng_group = {
	.attrs = ng_attrs,
	.bin_attrs = ng_bin_attrs,
};

static struct attribute *ng_option_attrs[] = {
	&ng_attr_event_fork.kattr.attr,
	&ng_attr_sched.kattr.attr,
	&ng_attr_counters.kattr.attr,
	&ng_attr_args.kattr.attr,
	&ng_attr_retaddr_opt.kattr.attr,
	&ng_attr_retval.kattr.attr,
	&ng_attr_direct.kattr.attr,
	NULL,
};

static const struct attribute_group ng_options_group = {
	.name = "options",
	.attrs = ng_option_attrs,
};

static const struct attribute_group *ng_groups[] = {
	&ng_group,
	&ng_options_group,
	NULL,
};

/* Create /sys/kernel/nanograph and its files, or nothing at all. */
int ng_control_init(void)
{
	int ret, i;

	for (i = 0; i < NG_SNAPS; i++)
		ng_keep_add(&ng_snaps[i].keep);
	ng_lists_keep_init();
	ng_kobj = kobject_create_and_add("nanograph", kernel_kobj);
	if (!ng_kobj) {
		ng_keep_stop();
		return -ENOMEM;
	}
	ret = sysfs_create_groups(ng_kobj, ng_groups);
	if (!ret) {
		ret = ng_raw_files_init(ng_kobj);
		if (ret)
			sysfs_remove_groups(ng_kobj, ng_groups);
		else
			ng_flight_init(ng_kobj);
	}
	if (ret) {
		kobject_put(ng_kobj);
		ng_kobj = NULL;
		ng_keep_stop();
	}
	return ret;
}

/*
 * Remove the directory.  sysfs waits for readers and writers already
 * inside a file's callbacks, so nothing runs in here afterwards.
 */
void ng_control_exit(void)
{
	int i;

	ng_raw_files_exit();
	sysfs_remove_groups(ng_kobj, ng_groups);
	ng_flight_exit();
	kobject_put(ng_kobj);
	ng_kobj = NULL;
	ng_keep_stop();
	mutex_lock(&ng_snap_lock);
	for (i = 0; i < NG_SNAPS; i++)
		ng_snap_drop(&ng_snaps[i]);
	mutex_unlock(&ng_snap_lock);
}
