// SPDX-License-Identifier: GPL-2.0
/*
 * The direct path: set_ftrace_filter's functions entered through
 * ftrace's direct calls.
 *
 * Through an ftrace_ops a hooked call goes call site -> ftrace_caller,
 * which saves a struct ftrace_regs -> the ops callback -> ng_hook().
 * With a direct call (register_ftrace_direct(), what BPF trampolines
 * use) the call site calls arch/<arch>/direct_caller.S instead, which
 * saves the argument registers only and calls ng_direct_entry() ->
 * ng_hook().  The call site says which function was called, so one
 * trampoline serves them all.
 *
 * A function has one direct caller at most, and a registration fails
 * whole (EBUSY) when another direct user (a BPF trampoline) holds any of
 * its functions.  So the functions go in groups by name, one direct ops
 * each: the slices of ops_steps.c, which on x86 also keep each patch of
 * the text short (an ops's functions cannot change while it is
 * registered, before 7.3); elsewhere "*" first, in one group.  A group
 * refused is split by its next character (ng_split), down to
 * NG_DIRECT_DEPTH characters more; a group refused there is left to the
 * ops path, with the functions that share its first characters.
 *
 * The ops path is never far.  With every function hooked (an empty
 * set_ftrace_filter), ng_rest_ops, whose callback is ng_ops's, hooks
 * every function no group holds: its filter is empty, its notrace the
 * groups' globs and set_ftrace_notrace.  That is the refused groups,
 * whatever the slices miss, and the functions of modules loaded while
 * recording, as ng_ops would hook them.  With a list, its globs less
 * set_ftrace_notrace's are one group; refused, the list goes through
 * ng_ops as it did before the direct path (tracer.c).
 *
 * Where another ftrace user shares a function (function_graph, the
 * function tracer, a kprobe, our own root ops), ftrace calls them from
 * its regs caller and then goes to the direct trampoline as the call
 * site would have (x86: ftrace_regs_caller's ORIG_RAX; arm64: op's
 * direct_call): the roots' callbacks run first, as they do on the ops
 * path.  No ops_func is given: an IPMODIFY user (livepatch, a kprobe
 * with a post handler) is refused a function a group holds while
 * recording, and a function it holds already is refused to the group,
 * which the split leaves to the ops path.
 *
 * options/direct (control.c) turns the path off for the next start; off
 * while recording, or set_ftrace_filter or set_ftrace_notrace changed
 * while recording, hands over to ng_ops for the rest of the recording:
 * ng_ops goes on first, then the groups come off, so no call is missed
 * in between (one hooked by both is taken once: ng_hook()'s check of
 * the frame below).  A module going hands over only the groups that
 * hold its functions (ng_direct_module_event()), the same way, to
 * ng_gone_ops: each group's unregistration waits for two RCU Tasks
 * grace periods (ftrace's rule for an ops outside the core kernel), and
 * rmmod waits for them.
 *
 * All of it runs under ng_control_lock.
 */
#define pr_fmt(fmt) "nanograph: " fmt

#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "compat.h"
#include "ng_module.h"
#include "ng_arch_api.h"

/* options/direct: 1 where the kernel and the architecture allow it. */
unsigned int ng_direct = NG_DIRECT_MAX;

/* For counting what set_ftrace_filter hooks (stats); never registered. */
static struct ftrace_ops ng_count_ops;

/*
 * For the stats file, of the last start: the groups refused whole, the
 * functions the groups hold, and every function hooked
 * (ng_direct_count(), at the start and at a hand-over).
 */
static unsigned long ng_refused, ng_direct_funcs, ng_hooked_funcs;

/* An ops not registered loses its functions. */
static void ng_ops_reset(struct ftrace_ops *ops)
{
	ftrace_set_filter(ops, NULL, 0, 1);
	ftrace_set_notrace(ops, NULL, 0, 1);
}

/*
 * Apply set_ftrace_notrace's @nt to @ops: take them out of its filter
 * (@out: "!glob" each) or add them to its notrace list.  A glob of a
 * module gone since matches nothing, and is passed over.
 */
static int ng_notrace_apply(struct ftrace_ops *ops, char **nt, unsigned int nn,
			    bool out)
{
	unsigned int i;
	char *glob;
	int ret;

	for (i = 0; i < nn; i++) {
		/* ftrace's matcher edits the glob in place: give it a copy. */
		glob = kasprintf(GFP_KERNEL, "%s%s", out ? "!" : "", nt[i]);
		if (!glob)
			return -ENOMEM;
		ret = out ? ftrace_set_filter(ops, glob, strlen(glob), 0) :
			    ftrace_set_notrace(ops, glob, strlen(glob), 0);
		kfree(glob);
		if (ret && ret != -EINVAL)
			return ret;
	}
	return 0;
}

/*
 * Recording started, or handed over to the ops path: count the functions
 * set_ftrace_filter and set_ftrace_notrace hook, for the stats file.  A
 * list alone is @ops's filter (ng_ops's, which follows the lists); every
 * function, or a list less set_ftrace_notrace, takes a pass of ftrace's
 * matcher, which the start has made already (about one slice's).  Not
 * counted at a read of stats: that read would take as long, under the
 * control lock.
 */
void ng_direct_count(struct ftrace_ops *ops)
{
	unsigned int nf, nn;
	char **ft, **nt;
	char all[2] = "*";
	int ret;

	lockdep_assert_held(&ng_control_lock);
	nf = ng_list_tokens(NG_FTRACE_FILTER, &ft);
	nn = ng_list_tokens(NG_FTRACE_NOTRACE, &nt);
	if (nf && !nn) {
		ng_hooked_funcs = ng_ops_filter_count(ops);
		return;
	}
	ret = nf ? ng_ops_globs(&ng_count_ops, false, ft, nf, true) :
		   ftrace_set_filter(&ng_count_ops, all, 1, 1);
	ret = ret ?: ng_notrace_apply(&ng_count_ops, nt, nn, true);
	ng_hooked_funcs = ret ? 0 : ng_ops_filter_count(&ng_count_ops);
	ng_ops_reset(&ng_count_ops);
}

#ifdef NG_HAVE_DIRECT

/* Groups at most; beyond, ng_rest_ops takes the functions. */
#define NG_DIRECT_GROUPS	128
/* Characters a refused group is split by, one level each. */
#define NG_DIRECT_DEPTH		4
#define NG_DIRECT_GLOB		48

/* A refused group "g*" becomes "g[a-e]*", "g[f-j]*", ... */
static const char *const ng_split[] = {
	"[a-e]", "[f-j]", "[k-o]", "[p-t]", "[u-z]", "[!a-z]",
};

struct ng_direct_group {
	struct ftrace_ops ops;
	char glob[NG_DIRECT_GLOB];	/* "" for the set_ftrace_filter list */
	bool gone;			/* handed over to ng_gone_ops */
};

static struct ng_direct_group ng_groups[NG_DIRECT_GROUPS];
/* ftrace's caller of a shared site, once a group has registered. */
unsigned long ng_direct_shared;
/*
 * The groups that have ever had a filter: ng_direct_holds() asks these,
 * so no group leaves its answer early or joins it late.  Never lowered.
 */
static unsigned int ng_groups_filtered;

/* Group @i, about to get a filter: from now on the hook may ask it. */
static struct ng_direct_group *ng_group_slot(unsigned int i)
{
	if (i >= ng_groups_filtered)
		WRITE_ONCE(ng_groups_filtered, i + 1);
	return &ng_groups[i];
}

/* Registered: the first ng_groups_nr, less the ng_groups_gone gone. */
static unsigned int ng_groups_nr, ng_groups_gone;
static bool ng_direct_on, ng_rest_on, ng_gone_on;
/*
 * An unregistration failed (ftrace disabled itself): call sites may go
 * on calling the trampoline, so the module holds itself for good.
 */
static bool ng_direct_stuck;

static struct ftrace_ops ng_rest_ops = {
	.func = ng_entry_trace,
	.flags = NG_ARCH_OPS_FLAGS,
};

/*
 * The functions of the groups a module going took off, copied from
 * their filters.  Not ng_ops, which a later hand-over of everything
 * registers.
 */
static struct ftrace_ops ng_gone_ops = {
	.func = ng_entry_trace,
	.flags = NG_ARCH_OPS_FLAGS,
};

/* ng_ops_filter_walk(): is @ip within the module @arg? */
static bool ng_ip_in_module(unsigned long ip, void *arg)
{
	return within_module(ip, arg);
}

/* ng_ops_filter_walk(): is @ip within the init text of the module @arg? */
static bool ng_ip_in_module_init(unsigned long ip, void *arg)
{
	return within_module_init(ip, arg);
}

/* A filter's functions that @pick says (all if NULL), for ng_ops_ips_set(). */
struct ng_ip_list {
	unsigned long *ips;
	unsigned long n, max;
	bool (*pick)(unsigned long ip, void *arg);
	void *arg;
};

/* ng_ops_filter_walk(): add @ip to the list @arg (sized by the count). */
static bool ng_ip_collect(unsigned long ip, void *arg)
{
	struct ng_ip_list *l = arg;

	if (l->pick && !l->pick(ip, l->arg))
		return false;
	if (WARN_ON_ONCE(l->n == l->max))
		return true;
	l->ips[l->n++] = ip;
	return false;
}

/*
 * Add to @to's filter (@remove: take out of it) the functions of
 * @from's filter that @pick says (all if NULL), by address.
 */
static int ng_ops_ips_set(struct ftrace_ops *from,
			  bool (*pick)(unsigned long ip, void *arg),
			  struct ftrace_ops *to, int remove)
{
	struct ng_ip_list l = { .max = ng_ops_filter_count(from), .pick = pick };
	int ret;

	l.ips = kvmalloc_array(l.max, sizeof(*l.ips), GFP_KERNEL);
	if (!l.ips)
		return -ENOMEM;
	ng_ops_filter_walk(from, ng_ip_collect, &l);
	ret = ftrace_set_filter_ips(to, l.ips, l.n, remove, 0);
	kvfree(l.ips);
	return ret;
}

/*
 * The modules gone live whose init text ftrace has not freed yet: from
 * their MODULE_STATE_LIVE notifier to ftrace_free_mem() after it (which
 * waits for every async function first), a start would put their init
 * functions in a group, and no notifier would take them out again
 * (ng_strip_init_text()).  Under ng_control_lock.
 */
struct ng_live_module {
	struct list_head node;
	struct module *mod;
};

static LIST_HEAD(ng_live_modules);

/*
 * Drop @mod from the list (NULL: every module whose init text is gone,
 * as its init function's address tells: the module loader zeroes the
 * init text's range once ftrace has freed it).
 */
static void ng_live_drop(struct module *mod)
{
	struct ng_live_module *lm, *tmp;

	lockdep_assert_held(&ng_control_lock);
	list_for_each_entry_safe(lm, tmp, &ng_live_modules, node) {
		if (mod ? lm->mod != mod :
		    within_module_init((unsigned long)lm->mod->init, lm->mod))
			continue;
		list_del(&lm->node);
		kfree(lm);
	}
}

/* ng_ops_ips_set()'s pick: is @ip in a listed module's init text? */
static bool ng_ip_in_live_init(unsigned long ip, void *arg)
{
	struct ng_live_module *lm;

	list_for_each_entry(lm, &ng_live_modules, node) {
		if (within_module_init(ip, lm->mod))
			return true;
	}
	return false;
}

/*
 * Take out of @ops's filter, before it is registered, the init functions
 * ftrace is about to forget.  Should ftrace forget them first, -EINVAL:
 * the group is not registered, and ng_rest_ops takes its functions.
 */
static int ng_strip_init_text(struct ftrace_ops *ops)
{
	ng_live_drop(NULL);
	if (list_empty(&ng_live_modules) ||
	    !ng_ops_filter_walk(ops, ng_ip_in_live_init, NULL))
		return 0;
	return ng_ops_ips_set(ops, ng_ip_in_live_init, ops, 1);
}

/*
 * Register group @g, its filter set: 0, or -EINVAL when set_ftrace_notrace
 * left it no function, -EBUSY when another direct user holds one, -E2BIG
 * when it has more functions than the kernel registers safely at once
 * (NG_DIRECT_GROUP_MAX, 6.1).  On failure @g is reset.
 */
static int ng_group_register(struct ng_direct_group *g, char **nt,
			     unsigned int nn)
{
	u64 t0;
	int ret;

	ret = ng_notrace_apply(&g->ops, nt, nn, true);
	ret = ret ?: ng_strip_init_text(&g->ops);
	if (!ret && ng_ops_filter_count(&g->ops) > NG_DIRECT_GROUP_MAX)
		ret = -E2BIG;
	if (!ret && ng_inject(NG_INJECT_REGISTER))
		ret = -ENOMEM;
	if (!ret) {
		t0 = ktime_get_ns();
		ret = ng_register_direct(&g->ops, (unsigned long)ng_direct_caller);
		ng_patch_timed(t0);
	}
	if (!ret) {
		ng_groups_nr++;
		/* What a shared site calls: FTRACE_REGS_ADDR, not exported. */
		WRITE_ONCE(ng_direct_shared, g->ops.trampoline);
	} else {
		ng_ops_reset(&g->ops);
	}
	return ret;
}

/*
 * The functions @glob (ending in '*') matches, as one group, or split
 * if refused.  Returns 0 whether or not they went direct; an error
 * only when the kernel failed (ENOMEM).
 */
static int ng_direct_glob(const char *glob, unsigned int depth, char **nt,
			  unsigned int nn)
{
	size_t len = strlen(glob);
	struct ng_direct_group *g;
	char sub[NG_DIRECT_GLOB];
	unsigned int i;
	int ret;

	if (ng_groups_nr == NG_DIRECT_GROUPS) {
		ng_refused++;
		return 0;
	}
	g = ng_group_slot(ng_groups_nr);
	strscpy(g->glob, glob, sizeof(g->glob));
	/* ftrace's matcher edits the glob in place: give it a copy. */
	strscpy(sub, glob, sizeof(sub));
	ret = ftrace_set_filter(&g->ops, sub, len, 1);
	if (ret == -EINVAL)
		return 0;		/* no function of that name */
	if (ret) {
		ng_ops_reset(&g->ops);
		return ret;
	}
	ret = ng_group_register(g, nt, nn);
	if (ret != -EBUSY)
		return ret == -EINVAL ? 0 : ret;
	/* Split "*" by the slices, anything else by its next character. */
	if (!strcmp(glob, "*")) {
		for (i = 0; i < NG_NR_SLICES; i++) {
			cond_resched();
			ret = ng_direct_glob(ng_slices[i], depth, nt, nn);
			if (ret)
				return ret;
		}
		return 0;
	}
	if (depth == NG_DIRECT_DEPTH) {
		ng_refused++;
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(ng_split); i++) {
		scnprintf(sub, sizeof(sub), "%.*s%s*", (int)len - 1, glob, ng_split[i]);
		ret = ng_direct_glob(sub, depth + 1, nt, nn);
		if (ret)
			return ret;
	}
	return 0;
}

/* Every function: the groups, then ng_rest_ops for the rest. */
static int ng_direct_every(char **nt, unsigned int nn)
{
	char glob[NG_DIRECT_GLOB];
	unsigned int i;
	int ret = 0;
	u64 t0;

	if (!ng_arch_patch_in_steps())
		ret = ng_direct_glob("*", 0, nt, nn);
	else
		for (i = 0; !ret && i < NG_NR_SLICES; i++) {
			cond_resched();
			ret = ng_direct_glob(ng_slices[i], 0, nt, nn);
		}
	for (i = 0; !ret && i < ng_groups_nr; i++) {
		strscpy(glob, ng_groups[i].glob, sizeof(glob));
		ret = ftrace_set_notrace(&ng_rest_ops, glob, strlen(glob), 0);
	}
	ret = ret ?: ng_notrace_apply(&ng_rest_ops, nt, nn, false);
	if (ret)
		return ret;
	t0 = ktime_get_ns();
	ret = register_ftrace_function(&ng_rest_ops);
	ng_patch_timed(t0);
	if (!ret)
		ng_rest_on = true;
	return ret;
}

/* set_ftrace_filter's list as one group. */
static int ng_direct_list(char **ft, unsigned int nf, char **nt,
			  unsigned int nn)
{
	struct ng_direct_group *g = ng_group_slot(0);
	int ret;

	g->glob[0] = '\0';
	ret = ng_ops_globs(&g->ops, false, ft, nf, true);
	if (ret) {
		ng_ops_reset(&g->ops);
		return ret;
	}
	ret = ng_group_register(g, nt, nn);
	if (ret == -EBUSY)
		ng_refused++;
	return ret;
}

/*
 * tracing_on=1: hook set_ftrace_filter's functions (all if it is empty)
 * through the direct path.  0: they are (and ng_ops is not needed);
 * otherwise nothing is registered and ng_ops takes them all.
 */
int ng_direct_start(void)
{
	unsigned int nf, nn, i;
	char **ft, **nt;
	int ret;

	lockdep_assert_held(&ng_control_lock);
	ng_refused = 0;
	ng_direct_funcs = 0;
	ng_groups_gone = 0;
	if (!READ_ONCE(ng_direct))
		return -EOPNOTSUPP;
	nf = ng_list_tokens(NG_FTRACE_FILTER, &ft);
	nn = ng_list_tokens(NG_FTRACE_NOTRACE, &nt);
	/* "!glob" there takes functions out of the notrace list: ng_ops's. */
	for (i = 0; i < nn; i++)
		if (nt[i][0] == '!')
			return -EOPNOTSUPP;
	if (!nf && !NG_DIRECT_EVERY)
		return -EOPNOTSUPP;
	ret = nf ? ng_direct_list(ft, nf, nt, nn) : ng_direct_every(nt, nn);
	if (ret || !ng_groups_nr) {
		ng_direct_stop();
		return ret ?: -ENOENT;
	}
	for (i = 0; i < ng_groups_nr; i++)
		ng_direct_funcs += ng_ops_filter_count(&ng_groups[i].ops);
	ng_direct_on = true;
	return 0;
}

/*
 * An unregistration failed (ftrace disabled itself): call sites may go
 * on calling our trampolines, so the module holds itself for good.
 */
static void ng_direct_pin(int ret)
{
	if (ng_direct_stuck)
		return;
	__module_get(THIS_MODULE);
	ng_direct_stuck = true;
	pr_err("cannot unhook the direct path (%d): the module stays\n", ret);
}

/* Unregister group @g: whether it came off. */
static bool ng_group_unregister(struct ng_direct_group *g)
{
	int ret;
	u64 t0;

	lockdep_assert_held(&ng_control_lock);
	t0 = ktime_get_ns();
	ret = ng_unregister_direct(&g->ops, (unsigned long)ng_direct_caller);
	ng_patch_timed(t0);
	if (WARN_ON_ONCE(ret)) {
		ng_direct_pin(ret);
		return false;
	}
	ng_ops_reset(&g->ops);
	return true;
}

/* Unregister an ops of ours that ng_ops_reset() then empties. */
static void ng_ops_off(struct ftrace_ops *ops, bool *on)
{
	int ret;
	u64 t0;

	if (*on) {
		t0 = ktime_get_ns();
		ret = unregister_ftrace_function(ops);
		ng_patch_timed(t0);
		if (WARN_ON_ONCE(ret))
			ng_direct_pin(ret);
		*on = false;
	}
	ng_ops_reset(ops);
}

/*
 * Unhook the direct path: ng_rest_ops, ng_gone_ops, then the groups,
 * newest first, rescheduling between them.  Tasks still inside the
 * trampoline are the drain's business (its RCU Tasks wait, tracer.c).
 */
void ng_direct_stop(void)
{
	struct ng_direct_group *g;

	lockdep_assert_held(&ng_control_lock);
	ng_ops_off(&ng_rest_ops, &ng_rest_on);
	ng_ops_off(&ng_gone_ops, &ng_gone_on);
	while (ng_groups_nr) {
		g = &ng_groups[--ng_groups_nr];
		if (g->gone) {
			g->gone = false;
			continue;
		}
		cond_resched();
		ng_group_unregister(g);
	}
	ng_groups_gone = 0;
	ng_direct_on = false;
}

/* Recording through the direct path now. */
bool ng_direct_active(void)
{
	lockdep_assert_held(&ng_control_lock);
	return ng_direct_on;
}

/* Groups registered now. */
static unsigned int ng_direct_groups(void)
{
	return ng_groups_nr - ng_groups_gone;
}

/*
 * Whether @ip is one of the groups' functions: asked by the hook for an
 * entry that came neither from its call site nor through ftrace's
 * caller of shared sites (tracer.c, ng_direct_named()): a moved ip, or
 * a site being patched.  Every group that ever had a filter is asked,
 * registered or not, so that none leaves the answer before its
 * unregistration or joins it after its registration: a filter holds
 * only functions we hook or are about to, each a real call site.  A
 * function it names is counted (direct_looked_up): the call site's own
 * test should name nearly every call.  Lock-free: every filter change we
 * make (ftrace_set_filter*(), ftrace_set_notrace(), a reset) has ftrace
 * free the old hash after an RCU grace period, which the hook's section
 * (preemption off) holds off.  Not so ftrace_free_filter(), which frees
 * at once and (6.1, 6.12) leaves the pointer: only at module exit, with
 * no hook left.
 */
bool notrace ng_direct_holds(unsigned long ip)
{
	unsigned int i, n = READ_ONCE(ng_groups_filtered);

	for (i = 0; i < n; i++) {
		if (ng_ops_filter_has(&ng_groups[i].ops, ip)) {
			ng_stat_inc(direct_looked_up);
			return true;
		}
	}
	return false;
}

/*
 * Group @g holds a going module's functions: they go to ng_gone_ops,
 * on before the group comes off, as in a hand-over of everything.  By
 * address, the group's own: the module's among them, which
 * ng_rest_ops's notrace keeps too (a glob's functions are addresses
 * from the start), so that a module loaded at one of them later is
 * hooked by ng_gone_ops.  On failure the group stays.
 */
static int ng_group_hand_over(struct ng_direct_group *g)
{
	unsigned long n = ng_ops_filter_count(&g->ops);
	int ret;
	u64 t0;

	lockdep_assert_held(&ng_control_lock);
	if (ng_inject(NG_INJECT_GONE))
		return -ENOMEM;
	t0 = ktime_get_ns();
	ret = ng_ops_ips_set(&g->ops, NULL, &ng_gone_ops, 0);
	if (ng_gone_on) {
		ng_patch_timed(t0);
	} else if (!ret) {
		t0 = ktime_get_ns();
		ret = register_ftrace_function(&ng_gone_ops);
		ng_patch_timed(t0);
		ng_gone_on = !ret;
	}
	if (ret) {
		if (!ng_gone_on)
			ng_ops_reset(&ng_gone_ops);
		return ret;
	}
	g->gone = true;
	ng_groups_gone++;
	if (ng_group_unregister(g))
		ng_direct_funcs -= n;
	return 0;
}

/*
 * Text of module @mod goes, all of it or (@init) its init text: the
 * groups holding its functions come off (ng_group_hand_over()); if one
 * cannot, everything goes to ng_ops.
 */
static int ng_direct_text_going(struct module *mod, bool init)
{
	bool (*in)(unsigned long ip, void *mod);
	struct ng_direct_group *g;
	unsigned int i;
	int ret;

	lockdep_assert_held(&ng_control_lock);
	in = init ? ng_ip_in_module_init : ng_ip_in_module;
	for (i = 0; i < ng_groups_nr; i++) {
		g = &ng_groups[i];
		if (g->gone || !ng_ops_filter_walk(&g->ops, in, mod))
			continue;
		ret = ng_group_hand_over(g);
		if (ret)
			return ng_direct_handover(ng_list_empty(NG_FTRACE_FILTER));
	}
	return 0;
}

/*
 * A module goes while the groups may hold its functions: ftrace forgets
 * its records after this notifier (ftrace_release_mod()), but not a
 * group's filter nor the kernel's direct_functions entries.  A module
 * loaded at the same address later would be refused to ng_rest_ops
 * (ftrace_module_enable() skips a direct ops), and the group's
 * unregistration would find a record it never counted: ftrace's WARN,
 * ftrace_kill().  So the groups that hold its functions hand them over
 * to the ops path first, or, if the ops path cannot take them, the
 * direct path stops.  The same for its init text once it is live
 * (ftrace_free_mem() next), which groups hold if recording started
 * while it ran.
 */
static int ng_direct_module_event(struct notifier_block *nb,
				  unsigned long action, void *data)
{
	struct ng_live_module *lm;
	struct module *mod = data;
	int ret;

	if (action != MODULE_STATE_GOING && action != MODULE_STATE_LIVE)
		return NOTIFY_DONE;
	mutex_lock(&ng_control_lock);
	ng_live_drop(action == MODULE_STATE_GOING ? mod : NULL);
	if (action == MODULE_STATE_LIVE &&
	    within_module_init((unsigned long)mod->init, mod)) {
		/* Without memory, only a start in that window would miss it. */
		lm = kmalloc(sizeof(*lm), GFP_KERNEL);
		if (lm) {
			lm->mod = mod;
			list_add(&lm->node, &ng_live_modules);
		}
	}
	if (ng_direct_active()) {
		ret = ng_direct_text_going(mod, action == MODULE_STATE_LIVE);
		if (ret) {
			pr_warn("a module's text goes, and the ops path cannot take over (%d): set_ftrace_filter's functions are no longer recorded\n",
				ret);
			ng_direct_stop();
		}
	}
	mutex_unlock(&ng_control_lock);
	return NOTIFY_OK;
}

static struct notifier_block ng_direct_module_nb = {
	.notifier_call = ng_direct_module_event,
};

/* Module load. */
int ng_direct_init(void)
{
	return register_module_notifier(&ng_direct_module_nb);
}

/* Module exit: nothing is registered any more. */
void ng_direct_exit(void)
{
	unsigned int i;

	unregister_module_notifier(&ng_direct_module_nb);
	mutex_lock(&ng_control_lock);
	while (!list_empty(&ng_live_modules))
		ng_live_drop(list_first_entry(&ng_live_modules,
					      struct ng_live_module, node)->mod);
	mutex_unlock(&ng_control_lock);
	/* rmmod -f: hung is acceptable, code calling freed text is not. */
	while (ng_direct_stuck)
		msleep(1000);
	for (i = 0; i < NG_DIRECT_GROUPS; i++)
		ftrace_free_filter(&ng_groups[i].ops);
	ftrace_free_filter(&ng_rest_ops);
	ftrace_free_filter(&ng_gone_ops);
	ftrace_free_filter(&ng_count_ops);
}

#else /* !NG_HAVE_DIRECT */

int ng_direct_start(void)
{
	return -EOPNOTSUPP;
}

void ng_direct_stop(void)
{
}

bool ng_direct_active(void)
{
	return false;
}

static unsigned int ng_direct_groups(void)
{
	return 0;
}

int ng_direct_init(void)
{
	return 0;
}

void ng_direct_exit(void)
{
	ftrace_free_filter(&ng_count_ops);
}

#endif /* NG_HAVE_DIRECT */

/* The stats file's lines: the functions on each path, of the last start. */
void ng_direct_stats_render(struct seq_buf *s)
{
	unsigned long direct = ng_direct_active() ? ng_direct_funcs : 0;

	lockdep_assert_held(&ng_control_lock);
	seq_buf_printf(s, "direct_functions %lu\n", direct);
	seq_buf_printf(s, "ops_functions %lu\n",
		       ng_hooked_funcs > direct ? ng_hooked_funcs - direct : 0);
	seq_buf_printf(s, "direct_groups %u\n", ng_direct_groups());
	seq_buf_printf(s, "direct_refused %lu\n", ng_refused);
}
