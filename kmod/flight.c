// SPDX-License-Identifier: GPL-2.0
/*
 * The flight recorder: the raw buffers overwrite their oldest records
 * instead of dropping new ones, and a call that lasts too long (or
 * returns a given value) marks the point for the collector to freeze
 * what they hold, so that the seconds before a rare slow call can be
 * saved without streaming everything (Documentation/control-files.md,
 * "Flight recording").
 *
 * States, moved by writes of the flight file under ng_control_lock, and
 * once by a trigger (armed -> triggered) from any context:
 *
 *	off  --arm-->  armed  --a trigger fires-->  triggered
 *	armed, triggered  --freeze-->  frozen  --arm-->  armed
 *	any  --off-->  off
 *
 * The triggers are checked at a call's exit (tracer.c), where its
 * duration and return value are known; only calls at least as long as
 * the shortest duration trigger's come here (every call, while a
 * return-value trigger is set).  A trigger names a function; the module
 * cannot look a name up (kallsyms_lookup_name() is not exported), so a
 * long call's address is named with sprint_symbol_no_offset() once, and
 * the verdict kept in a table of addresses (struct ng_verdicts): which
 * triggers name its function.  Every later exit of that address costs a
 * hash and a comparison, whatever the number of functions hooked.  The
 * table is made at each arm and made anew when a module comes or goes
 * while armed, since a module's addresses may be the next one's.
 */
#define pr_fmt(fmt) "nanograph: " fmt

#include <linux/atomic.h>
#include <linux/ctype.h>
#include <linux/hash.h>
#include <linux/irq_work.h>
#include <linux/kallsyms.h>
#include <linux/kernfs.h>
#include <linux/kobject.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "ng_module.h"
#include "nanograph_event.h"
#include "nanograph_flight.h"
#include "ng_arch.h"
#include "rawbuf.h"

#define NG_TRIGGERS_MAX		8
/* 2^17 addresses: every function of a 7.x kernel (about 60,000) fits */
#define NG_VERDICT_BITS		17
#define NG_VERDICT_PROBES	16
/* A slot being filled: no function starts at address 1. */
#define NG_VERDICT_BUSY		1UL

int ng_flight_state;
DEFINE_STATIC_KEY_FALSE(ng_trigger_on);
u64 ng_trigger_min = U64_MAX;

/* What a trigger compares: a call's duration, or its return value. */
enum ng_trigger_kind {
	NG_TRIGGER_DURATION,
	NG_TRIGGER_RETVAL,
};

/* A return value's comparison, as written after FUNC=. */
enum ng_trigger_op {
	NG_OP_LT, NG_OP_LE, NG_OP_GT, NG_OP_GE, NG_OP_EQ, NG_OP_NE,
};

static const char *const ng_op_names[] = {
	[NG_OP_LT] = "<", [NG_OP_LE] = "<=", [NG_OP_GT] = ">",
	[NG_OP_GE] = ">=", [NG_OP_EQ] = "=", [NG_OP_NE] = "!=",
};

/*
 * Which time a duration trigger compares: the call's wall time, its time
 * on a CPU (wall less its time off one), or its time asleep until woken
 * (sched.c keeps both, while such a trigger is armed).
 */
enum ng_trigger_clock {
	NG_CLOCK_WALL,
	NG_CLOCK_ONCPU,
	NG_CLOCK_BLOCKED,
};

static const char *const ng_clock_names[] = {
	[NG_CLOCK_WALL] = "", [NG_CLOCK_ONCPU] = ":oncpu",
	[NG_CLOCK_BLOCKED] = ":blocked",
};

struct ng_trigger {
	char name[KSYM_NAME_LEN];
	enum ng_trigger_kind kind;
	enum ng_trigger_clock clock;	/* duration: which time */
	u64 ns;			/* duration: as written */
	u64 ticks;		/* the same in counter ticks */
	enum ng_trigger_op op;	/* return value: how it is compared */
	int value;		/* with what */
};

/*
 * The verdict on one address: the triggers (a bit each) that name its
 * function, none for most.  @ip is 0 while the slot is free and
 * NG_VERDICT_BUSY while its first user fills it; it is set last, with
 * release, so that a reader that finds its address reads its mask.
 */
struct ng_verdict {
	unsigned long ip;
	unsigned long mask;
};

struct ng_verdicts {
	struct rcu_head rcu;
	struct ng_verdict slot[1 << NG_VERDICT_BITS];
};

/*
 * Changed only while flight is off (the trigger file refuses otherwise),
 * so the exit path reads them without a lock.
 */
static struct ng_trigger ng_triggers[NG_TRIGGERS_MAX];
static unsigned int ng_nr_triggers;
/*
 * While armed with triggers; replaced under ng_verdicts_lock, read under
 * RCU.  A lock of its own: the module notifier takes it at every module
 * load, which must not wait for a start or stop under ng_control_lock.
 */
static struct ng_verdicts __rcu *ng_verdicts;
static DEFINE_MUTEX(ng_verdicts_lock);

/* The call that fired: written by the one that claimed it. */
static struct {
	unsigned int trigger;
	u64 ticks;
	int cpu;
	pid_t pid;
	u64 exit;
	int retval;
} ng_hit;
static atomic_t ng_hit_claimed;
static bool ng_hit_frozen;	/* frozen from triggered: the hit stands */

/* Where a long call's address is named: preemption is off there. */
static DEFINE_PER_CPU(char [KSYM_SYMBOL_LEN], ng_sym_buf);
static DEFINE_PER_CPU(bool, ng_sym_busy);

static struct kernfs_node *ng_flight_kn;
static void ng_flight_wake_fn(struct irq_work *work);
static struct irq_work ng_flight_wake = IRQ_WORK_INIT(ng_flight_wake_fn);

/* Wake pollers of the flight file; kernfs_notify() takes a spinlock. */
static void ng_flight_wake_fn(struct irq_work *work)
{
	if (ng_flight_kn)
		kernfs_notify(ng_flight_kn);
}

/*
 * Claim the hit for this call and say so: the first call to get here
 * after arm wins, the state moves to triggered only from armed (a freeze
 * or off written meanwhile stays), and the hit is written before the
 * state that publishes it (cmpxchg() is a full barrier).
 */
static void ng_trigger_fire(unsigned int i, u64 ticks, u64 now, int retval)
{
	if (atomic_cmpxchg(&ng_hit_claimed, 0, 1))
		return;
	ng_hit.trigger = i;
	ng_hit.ticks = ticks;
	ng_hit.retval = retval;
	ng_hit.cpu = raw_smp_processor_id();
	ng_hit.pid = current->pid;
	ng_hit.exit = now & NG_TSD_COUNTER_MASK;
	if (cmpxchg(&ng_flight_state, NG_FLIGHT_ARMED, NG_FLIGHT_TRIGGERED) ==
	    NG_FLIGHT_ARMED)
		irq_work_queue(&ng_flight_wake);
}

/*
 * Name @ip as a trigger would: the symbol without offset and module.
 * NULL when it cannot be done here: nested in another lookup on this
 * CPU, or where RCU is not watching (module symbols are found under
 * RCU; the idle path of some CPUs runs hooked calls outside it).
 */
static char *ng_trigger_name(unsigned long ip)
{
	char *buf, *sp;

	if (!rcu_is_watching() || this_cpu_read(ng_sym_busy))
		return NULL;
	this_cpu_write(ng_sym_busy, true);
	buf = this_cpu_ptr(ng_sym_buf);
	sprint_symbol_no_offset(buf, ip);
	sp = strchr(buf, ' ');
	if (sp)
		*sp = '\0';
	return buf;
}

/*
 * Does a call that lasted @ticks (@clocks of them off a CPU) fire @t?
 * A time trigger does not fire on a call whose frame has no clocks (it
 * began before the trigger was armed).  Return values are compared as
 * the C int most functions return (the upper half of a 64-bit register
 * is undefined then), so an ERR_PTR() compares as its errno too.
 */
static bool ng_trigger_hits(const struct ng_trigger *t, u64 ticks, int ret,
			    bool returned, const struct ng_call_clocks *clocks)
{
	if (t->kind == NG_TRIGGER_DURATION && t->clock == NG_CLOCK_ONCPU)
		return clocks->known && clocks->off < ticks &&
		       ticks - clocks->off >= t->ticks;
	if (t->kind == NG_TRIGGER_DURATION && t->clock == NG_CLOCK_BLOCKED)
		return clocks->known && clocks->blocked >= t->ticks;
	if (t->kind == NG_TRIGGER_DURATION)
		return ticks >= t->ticks;
	if (!returned)
		return false;
	switch (t->op) {
	case NG_OP_LT: return ret < t->value;
	case NG_OP_LE: return ret <= t->value;
	case NG_OP_GT: return ret > t->value;
	case NG_OP_GE: return ret >= t->value;
	case NG_OP_EQ: return ret == t->value;
	case NG_OP_NE: return ret != t->value;
	}
	return false;
}

/*
 * The triggers that name @ip's function, looked up by name: a bit each.
 * -EAGAIN when it cannot be done here (ng_trigger_name()) or in NMI,
 * where the module symbols' lookup is not safe; the call is then let go.
 */
static long ng_trigger_mask_of(unsigned long ip)
{
	unsigned long mask = 0;
	unsigned int i, n = READ_ONCE(ng_nr_triggers);
	char *name;

	if (in_nmi())
		return -EAGAIN;
	name = ng_trigger_name(ip);
	if (!name)
		return -EAGAIN;
	ng_stat_inc(trigger_lookups);
	for (i = 0; i < n; i++)
		if (!strcmp(ng_triggers[i].name, name))
			mask |= BIT(i);
	this_cpu_write(ng_sym_busy, false);
	return mask;
}

/*
 * @ip's verdict from @v, learnt on first use: a free slot on its probe
 * sequence is claimed (cmpxchg: one filler per slot), filled, then
 * published.  A slot being filled by another CPU is passed over; at
 * worst the same address gets a second slot with the same verdict.
 * -EAGAIN when the verdict cannot be had now.
 */
static long ng_verdict_of(struct ng_verdicts *v, unsigned long ip)
{
	unsigned int h = hash_long(ip, NG_VERDICT_BITS), i;
	struct ng_verdict *slot;
	unsigned long cur;
	long mask;

	for (i = 0; i < NG_VERDICT_PROBES; i++) {
		slot = &v->slot[(h + i) & ((1 << NG_VERDICT_BITS) - 1)];
		/* Pairs with the smp_store_release() below. */
		cur = smp_load_acquire(&slot->ip);
		if (cur == ip)
			return READ_ONCE(slot->mask);
		if (cur)
			continue;
		mask = ng_trigger_mask_of(ip);
		if (mask < 0)
			return mask;
		if (cmpxchg(&slot->ip, 0UL, NG_VERDICT_BUSY))
			return mask;	/* taken meanwhile: not kept */
		WRITE_ONCE(slot->mask, mask);
		/* Pairs with the smp_load_acquire() above: mask, then ip. */
		smp_store_release(&slot->ip, ip);
		return mask;
	}
	/* Every slot of its sequence taken: named each time, not kept. */
	return ng_trigger_mask_of(ip);
}

/*
 * A call of @ip lasted @ticks, at least the shortest duration trigger's
 * (every call, when a return-value trigger is set), and returned @retval
 * if @returned: does it fire a trigger?  Out of line, since only such
 * calls come here; the name lookup happens once per address and arm.
 */
noinline void ng_trigger_check(unsigned long ip, u64 ticks, u64 now,
			       unsigned long retval, bool returned,
			       struct ng_call_clocks clocks)
{
	struct ng_verdicts *v;
	unsigned int i;
	int ret = (int)retval;
	long mask;

	/*
	 * An exit runs with preemption off, an RCU reader, but on 32-bit
	 * arm a hooked function may return where RCU is not watching (after
	 * ct_irq_exit()): the table may be freed under it there.
	 */
	if (READ_ONCE(ng_flight_state) != NG_FLIGHT_ARMED || !rcu_is_watching())
		return;
	v = rcu_dereference_sched(ng_verdicts);
	if (!v)
		return;
	mask = ng_verdict_of(v, ip);
	if (mask <= 0)
		return;
	for (i = 0; i < NG_TRIGGERS_MAX; i++) {
		if ((mask & BIT(i)) &&
		    ng_trigger_hits(&ng_triggers[i], ticks, ret, returned, &clocks)) {
			ng_trigger_fire(i, ticks, now, ret);
			return;
		}
	}
}

/*
 * A new, empty verdict table in place of the old one (NULL: none), which
 * is freed once no exit can be reading it.
 */
static int ng_verdicts_renew(bool make)
{
	struct ng_verdicts *v = NULL, *old;

	lockdep_assert_held(&ng_verdicts_lock);
	if (make) {
		/* vmalloc: 2 MiB and a head would be a 4 MiB kmalloc */
		v = vzalloc(sizeof(*v));
		if (!v)
			return -ENOMEM;
	}
	old = rcu_replace_pointer(ng_verdicts, v,
				  lockdep_is_held(&ng_verdicts_lock));
	if (old)
		kvfree_rcu(old, rcu);
	return 0;
}

/*
 * A module comes or goes: while armed, the verdicts start over before a
 * new module's code runs (COMING: its addresses may be an unloaded one's,
 * whose verdicts would be taken for its own), and when one goes (GOING,
 * so that the table does not keep verdicts of addresses no one has).
 */
static int ng_flight_module_event(struct notifier_block *nb,
				  unsigned long action, void *data)
{
	if (action != MODULE_STATE_COMING && action != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	if (!rcu_access_pointer(ng_verdicts))
		return NOTIFY_DONE;
	mutex_lock(&ng_verdicts_lock);
	if (rcu_access_pointer(ng_verdicts) && ng_verdicts_renew(true)) {
		/* No table, no fires: better than stale verdicts. */
		ng_verdicts_renew(false);
		pr_warn("no memory for the trigger's addresses: no trigger fires until the next arm\n");
	}
	mutex_unlock(&ng_verdicts_lock);
	return NOTIFY_OK;
}

/* Arm and off: a table of their own, or none. */
static int ng_verdicts_set(bool make)
{
	int ret;

	lockdep_assert_held(&ng_control_lock);
	mutex_lock(&ng_verdicts_lock);
	ret = ng_verdicts_renew(make);
	mutex_unlock(&ng_verdicts_lock);
	return ret;
}

static struct notifier_block ng_flight_module_nb = {
	.notifier_call = ng_flight_module_event,
};

/* Counter ticks to nanoseconds, and back. */
static u64 ng_ticks_to_ns(u64 ticks)
{
	return mul_u64_u64_div_u64(ticks, NSEC_PER_SEC, ng_counter_freq());
}

static u64 ng_ns_to_ticks(u64 ns)
{
	return max_t(u64, 1, mul_u64_u64_div_u64(ns, ng_counter_freq(), NSEC_PER_SEC));
}

static const char *const ng_flight_names[] = {
	[NG_FLIGHT_OFF] = "off",
	[NG_FLIGHT_ARMED] = "armed",
	[NG_FLIGHT_TRIGGERED] = "triggered",
	[NG_FLIGHT_FROZEN] = "frozen",
};

/*
 * flight: the state, and the hit while there is one.  Under the lock:
 * a hit changes only by a new fire, which needs an arm first.
 */
static ssize_t flight_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	int state, len;

	mutex_lock(&ng_control_lock);
	/* Pairs with ng_trigger_fire()'s cmpxchg(): the hit is written. */
	state = smp_load_acquire(&ng_flight_state);
	len = sysfs_emit(buf, "%s", ng_flight_names[state]);
	if (state == NG_FLIGHT_TRIGGERED ||
	    (state == NG_FLIGHT_FROZEN && ng_hit_frozen)) {
		const struct ng_trigger *t = &ng_triggers[ng_hit.trigger];

		len += sysfs_emit_at(buf, len, " %s %llu %d %d %llu", t->name,
				     ng_ticks_to_ns(ng_hit.ticks), ng_hit.cpu,
				     ng_hit.pid, ng_hit.exit);
		if (t->kind == NG_TRIGGER_RETVAL)
			len += sysfs_emit_at(buf, len, " %d", ng_hit.retval);
	}
	len += sysfs_emit_at(buf, len, "\n");
	mutex_unlock(&ng_control_lock);
	return len;
}

/* Leave overwriting (freeze, off): the buffers become readable again. */
static void ng_flight_stop_overwriting(int state)
{
	int old;

	lockdep_assert_held(&ng_control_lock);
	old = ng_raw_flight_leave(state);
	ng_hit_frozen = old == NG_FLIGHT_TRIGGERED && state == NG_FLIGHT_FROZEN;
}

/* Whether a trigger compares a time the scheduler probes keep. */
static bool ng_timed_triggers(void)
{
	unsigned int i;

	for (i = 0; i < ng_nr_triggers; i++)
		if (ng_triggers[i].kind == NG_TRIGGER_DURATION &&
		    ng_triggers[i].clock != NG_CLOCK_WALL)
			return true;
	return false;
}

static int ng_flight_arm(void)
{
	int state = READ_ONCE(ng_flight_state), ret;

	lockdep_assert_held(&ng_control_lock);
	if (!ng_raw_mode())
		return -EINVAL;
	if (state == NG_FLIGHT_ARMED)
		return 0;
	/* What can fail first: a failed arm changes nothing. */
	if (ng_nr_triggers && ng_verdicts_set(true))
		return -ENOMEM;
	ret = ng_timed_triggers() ? ng_sched_use(NG_SCHED_CLOCKS, true) : 0;
	if (ret) {
		ng_verdicts_set(false);
		return ret;
	}
	atomic_set(&ng_hit_claimed, 0);
	ng_hit_frozen = false;
	if (ng_nr_triggers)
		static_branch_enable(&ng_trigger_on);
	/* Task records every NG_FLIGHT_RESTATE records from now on. */
	static_branch_enable(&ng_flight_on);
	/* From off or frozen, what the buffers hold goes first. */
	ng_raw_flight_arm(state == NG_FLIGHT_OFF || state == NG_FLIGHT_FROZEN);
	return 0;
}

static int ng_flight_off(void)
{
	int state = READ_ONCE(ng_flight_state);

	lockdep_assert_held(&ng_control_lock);
	if (state == NG_FLIGHT_ARMED || state == NG_FLIGHT_TRIGGERED)
		ng_flight_stop_overwriting(NG_FLIGHT_OFF);
	WRITE_ONCE(ng_flight_state, NG_FLIGHT_OFF);
	static_branch_disable(&ng_trigger_on);
	static_branch_disable(&ng_flight_on);
	ng_sched_use(NG_SCHED_CLOCKS, false);
	ng_verdicts_set(false);
	atomic_set(&ng_hit_claimed, 0);
	ng_hit_frozen = false;
	return 0;
}

static ssize_t flight_store(struct kobject *kobj, struct kobj_attribute *attr,
			    const char *buf, size_t count)
{
	int ret, state;

	if (count >= PAGE_SIZE)
		return -E2BIG;
	mutex_lock(&ng_control_lock);
	state = READ_ONCE(ng_flight_state);
	if (sysfs_streq(buf, "arm") || sysfs_streq(buf, "1")) {
		ret = ng_flight_arm();
	} else if (sysfs_streq(buf, "off") || sysfs_streq(buf, "0")) {
		ret = ng_flight_off();
	} else if (sysfs_streq(buf, "freeze")) {
		ret = -EINVAL;
		if (state == NG_FLIGHT_ARMED || state == NG_FLIGHT_TRIGGERED) {
			ng_flight_stop_overwriting(NG_FLIGHT_FROZEN);
			ret = 0;
		}
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&ng_control_lock);
	return ret ?: count;
}

struct kobj_attribute ng_attr_flight = __ATTR_RW_MODE(flight, 0600);

bool ng_flight_busy(void)
{
	return READ_ONCE(ng_flight_state) != NG_FLIGHT_OFF;
}

static ssize_t trigger_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	unsigned int i;
	int len = 0;

	mutex_lock(&ng_control_lock);
	for (i = 0; i < ng_nr_triggers; i++) {
		const struct ng_trigger *t = &ng_triggers[i];

		if (t->kind == NG_TRIGGER_DURATION)
			len += sysfs_emit_at(buf, len, "%s%s>%llu\n", t->name,
					     ng_clock_names[t->clock], t->ns);
		else
			len += sysfs_emit_at(buf, len, "%s=%s%d\n", t->name,
					     ng_op_names[t->op], t->value);
	}
	mutex_unlock(&ng_control_lock);
	return len;
}

/* A duration: digits, then ns, us, ms, s or nothing (nanoseconds). */
static int ng_parse_duration(char *s, u64 *ns)
{
	static const struct { const char *unit; u64 mult; } units[] = {
		{ "ns", 1 }, { "us", NSEC_PER_USEC }, { "ms", NSEC_PER_MSEC },
		{ "s", NSEC_PER_SEC }, { "", 1 },
	};
	char *u = s;
	u64 v;
	int i, ret;

	while (isdigit(*u))
		u++;
	if (u == s)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(units); i++)
		if (!strcmp(u, units[i].unit))
			break;
	if (i == ARRAY_SIZE(units))
		return -EINVAL;
	*u = '\0';
	ret = kstrtoull(s, 10, &v);
	if (ret)
		return ret;
	if (!v || v > div64_u64(NG_TRIGGER_NS_MAX, units[i].mult))
		return -ERANGE;
	*ns = v * units[i].mult;
	return 0;
}

/*
 * A return value to compare with: a number (0x for hex) or -ENAME, one of
 * the usual errno names (include/nanograph_flight.h, the collector's too).
 * Decimal unless 0x: a leading 0 is not octal ("010" is ten).
 */
static int ng_parse_retval(const char *s, int *value)
{
	const char *digits = s + (s[0] == '-');
	int i;

	if (s[0] == '-' && s[1] == 'E') {
		for (i = 0; i < ARRAY_SIZE(ng_trigger_errnos); i++) {
			if (!strcmp(s + 1, ng_trigger_errnos[i].name)) {
				*value = -ng_trigger_errnos[i].err;
				return 0;
			}
		}
		return -EINVAL;
	}
	return kstrtoint(s, digits[0] == '0' && tolower(digits[1]) == 'x' ?
			 16 : 10, value);
}

/* After FUNC=: an operator, then the value. */
static int ng_parse_comparison(char *s, struct ng_trigger *t)
{
	int op, best = -1;

	/* The longest operator that starts @s: "<=" before "<". */
	for (op = 0; op < ARRAY_SIZE(ng_op_names); op++)
		if (!strncmp(s, ng_op_names[op], strlen(ng_op_names[op])) &&
		    (best < 0 || strlen(ng_op_names[op]) > strlen(ng_op_names[best])))
			best = op;
	if (best < 0)
		return -EINVAL;
	t->kind = NG_TRIGGER_RETVAL;
	t->op = best;
	return ng_parse_retval(s + strlen(ng_op_names[best]), &t->value);
}

/*
 * A duration trigger's FUNC may end in :oncpu or :blocked: which time it
 * compares, taken off @name into @t.
 */
static int ng_parse_clock(char *name, struct ng_trigger *t)
{
	char *colon = strchr(name, ':');
	int i;

	t->clock = NG_CLOCK_WALL;
	if (!colon)
		return 0;
	for (i = NG_CLOCK_ONCPU; i < ARRAY_SIZE(ng_clock_names); i++) {
		if (!strcmp(colon, ng_clock_names[i])) {
			t->clock = i;
			*colon = '\0';
			return 0;
		}
	}
	return -EINVAL;
}

/*
 * One line, FUNC>DURATION (FUNC:oncpu>, FUNC:blocked>) or
 * FUNC=<OP><VALUE>, into @t.
 */
static int ng_parse_trigger(char *line, struct ng_trigger *t)
{
	char *sep = strpbrk(line, ">="), kind;
	size_t len;
	int ret;

	if (!sep)
		return -EINVAL;
	kind = *sep;
	*sep = '\0';
	ret = kind == '>' ? ng_parse_clock(line, t) : 0;
	if (ret)
		return ret;
	len = strlen(line);
	if (!len || len >= sizeof(t->name) || strpbrk(line, "*?[]!:") ||
	    strpbrk(line, " \t"))
		return -EINVAL;
	if (kind == '>') {
		t->kind = NG_TRIGGER_DURATION;
		ret = ng_parse_duration(sep + 1, &t->ns);
		t->ticks = ng_ns_to_ticks(t->ns);
	} else {
		ret = ng_parse_comparison(sep + 1, t);
	}
	if (ret)
		return ret;
	strscpy(t->name, line, sizeof(t->name));
	return 0;
}

/*
 * trigger: the write replaces the list, parsed whole first; only while
 * flight is off, so that the exit path needs no lock.
 */
static ssize_t trigger_store(struct kobject *kobj, struct kobj_attribute *attr,
			     const char *buf, size_t count)
{
	struct ng_trigger *parsed;
	char *text, *cur, *line;
	unsigned int n = 0;
	u64 min = U64_MAX;
	int ret = 0;

	if (count >= PAGE_SIZE)
		return -E2BIG;
	text = kmemdup_nul(buf, count, GFP_KERNEL);
	parsed = kcalloc(NG_TRIGGERS_MAX, sizeof(*parsed), GFP_KERNEL);
	if (!text || !parsed) {
		ret = -ENOMEM;
		goto out;
	}
	cur = text;
	while ((line = strsep(&cur, "\n"))) {
		line = strim(line);
		if (!*line)
			continue;
		if (n == NG_TRIGGERS_MAX) {
			ret = -ENOSPC;
			goto out;
		}
		ret = ng_parse_trigger(line, &parsed[n]);
		if (ret)
			goto out;
		/* A return value is looked at in every exit. */
		min = min(min, parsed[n].kind == NG_TRIGGER_DURATION ? parsed[n].ticks : 0);
		n++;
	}
	mutex_lock(&ng_control_lock);
	if (ng_flight_busy()) {
		ret = -EBUSY;
	} else {
		memcpy(ng_triggers, parsed, sizeof(*parsed) * NG_TRIGGERS_MAX);
		WRITE_ONCE(ng_nr_triggers, n);
		WRITE_ONCE(ng_trigger_min, min);
	}
	mutex_unlock(&ng_control_lock);
out:
	kfree(text);
	kfree(parsed);
	return ret ?: count;
}

struct kobj_attribute ng_attr_trigger = __ATTR_RW_MODE(trigger, 0600);

/* After the control files exist: the flight file's node, for poll. */
void ng_flight_init(struct kobject *kobj)
{
	ng_flight_kn = sysfs_get_dirent(kobj->sd, "flight");
	/* Cannot fail: a blocking notifier chain takes any block. */
	WARN_ON(register_module_notifier(&ng_flight_module_nb));
}

/* The control files are gone: nothing arms again. */
void ng_flight_exit(void)
{
	unregister_module_notifier(&ng_flight_module_nb);
	mutex_lock(&ng_control_lock);
	ng_flight_off();
	mutex_unlock(&ng_control_lock);
}

/*
 * The tracer is gone too (no exit handler runs, ng_tracer_exit() waited
 * for them): a wakeup that a trigger queued before off is the last user
 * of the flight file's node.
 */
void ng_flight_release(void)
{
	irq_work_sync(&ng_flight_wake);
	kernfs_put(ng_flight_kn);
	ng_flight_kn = NULL;
}
