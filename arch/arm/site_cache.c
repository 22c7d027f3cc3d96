// SPDX-License-Identifier: GPL-2.0
/*
 * 32-bit arm: where each traced function keeps its return address,
 * remembered per function.
 *
 * hook.c asks the EHABI unwinder, for one frame, where the saved LR is
 * and what the caller's SP was.  At the mcount call the prologue is done
 * and nothing of variable size is on the stack yet, so for a given
 * function both answers sit at fixed offsets from the SP that
 * ftrace_regs_caller saved: the unwinder's answer for one call is its
 * answer for every call.  The unwind was 97% of a raw-mode call
 * (Documentation/performance.md); this table keeps its answer per ip, so
 * it runs on a function's first call only.  A function the unwinder
 * cannot step out of (a frameless leaf) is remembered too, as
 * NG_SITE_NONE: its calls are skipped, and counted, without unwinding
 * each time (one read in eight was, on the benchmark's read path).
 *
 * The table is open-addressed.  A slot is claimed by a cmpxchg of its
 * ip and never changes owner while recording; its answer is one word,
 * written once after the claim, so a hook that finds the ip reads either
 * 0 (not filled yet: it unwinds) or the whole answer, and needs no
 * barrier (ng_site_answer() in ng_arch.h, the hot half).  It is emptied
 * only in ng_site_cache_reset(), when no hook runs (tracing_on=1, before
 * any ops is registered).
 *
 * A module loaded while recording may reuse the text of one unloaded
 * before, and with it ips the table knows: the module notifier then turns
 * the table off (ng_sites_stale) until the next start.  The new module's
 * functions cannot run before its COMING notification, which sets the
 * flag first.
 */
#include <linux/hash.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>

#include "ng_module.h"
#include "ng_arch.h"

struct ng_site ng_sites[NG_SITES];
bool ng_sites_stale;

/* Functions whose answer is in the table, and hooks that found no room. */
static atomic_t ng_sites_filled = ATOMIC_INIT(0);
static DEFINE_PER_CPU(unsigned long, ng_sites_full);
static DEFINE_PER_CPU(unsigned long, ng_sites_mismatch);

/*
 * site_check=1 (a test's switch): unwind on every call anyway and count
 * the calls where the table's answer differs from the unwinder's.
 */
bool ng_site_check;
module_param_named(site_check, ng_site_check, bool, 0644);
MODULE_PARM_DESC(site_check, "arm: compare every cached return slot with the unwinder's (tests)");

/* The slot claimed for @ip, or NULL: no room within NG_SITE_PROBES slots. */
static struct ng_site *ng_site_claim(unsigned long ip)
{
	unsigned int h = hash_32(ip, NG_SITE_BITS), i;

	for (i = 0; i < NG_SITE_PROBES; i++) {
		struct ng_site *s = &ng_sites[(h + i) & (NG_SITES - 1)];
		unsigned long owner = READ_ONCE(s->ip);

		if (owner == ip)
			return s;
		if (owner)
			continue;
		owner = cmpxchg(&s->ip, 0, ip);
		if (!owner || owner == ip)
			return s;
	}
	return NULL;
}

/*
 * The unwinder's answer for a call, @slot and @key, as a table word
 * relative to the saved registers @regs; 0 if the offsets do not fit (a
 * frame over 128 KiB).
 */
unsigned long ng_site_encode(struct pt_regs *regs, unsigned long *slot,
			     unsigned long key)
{
	unsigned long sp = regs->ARM_sp, w = NG_SITE_FILLED, off;

	if (slot == &regs->ARM_lr) {
		w |= NG_SITE_IN_LR;
	} else {
		off = (unsigned long)slot - sp;
		if ((unsigned long)slot < sp || off % 4 || off / 4 > NG_SITE_OFF_MAX)
			return 0;
		w |= off / 4 << NG_SITE_SLOT_SHIFT;
	}
	off = key - sp;
	if (key < sp || off % 4 || off / 4 > NG_SITE_OFF_MAX)
		return 0;
	return w | off / 4 << NG_SITE_KEY_SHIFT;
}

/* Remember @where, an answer of ng_site_encode() or NG_SITE_NONE, for @ip. */
void ng_site_store(unsigned long ip, unsigned long where)
{
	struct ng_site *s;

	if (READ_ONCE(ng_sites_stale))
		return;
	s = ng_site_claim(ip);
	if (!s) {
		this_cpu_inc(ng_sites_full);
		return;
	}
	/* Once: a racing first call of the same function stored the same. */
	if (!cmpxchg(&s->where, 0, where))
		atomic_inc(&ng_sites_filled);
}

/* site_check=1: the table gave one answer, the unwinder another. */
void ng_site_mismatch(void)
{
	this_cpu_inc(ng_sites_mismatch);
}

/* tracing_on=1, before any ops is registered: no hook runs. */
void ng_site_cache_reset(void)
{
	WRITE_ONCE(ng_sites_stale, false);
	memset(ng_sites, 0, sizeof(ng_sites));
	atomic_set(&ng_sites_filled, 0);
	/* Ordered before the ops registration by its own locking. */
	smp_wmb();
}

/*
 * A module coming in may reuse an unloaded one's text: its ips may be in
 * the table with another function's answer.  Off until the next start.
 */
static int ng_site_module_cb(struct notifier_block *nb, unsigned long state,
			     void *data)
{
	if (state == MODULE_STATE_COMING)
		WRITE_ONCE(ng_sites_stale, true);
	return NOTIFY_DONE;
}

static struct notifier_block ng_site_module_nb = {
	.notifier_call = ng_site_module_cb,
};

int ng_site_cache_init(void)
{
	return register_module_notifier(&ng_site_module_nb);
}

void ng_site_cache_exit(void)
{
	unregister_module_notifier(&ng_site_module_nb);
}

/* Lines of the stats file (Documentation/control-files.md). */
void ng_site_cache_render(struct seq_buf *s)
{
	unsigned long full = 0, mismatch = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		full += per_cpu(ng_sites_full, cpu);
		mismatch += per_cpu(ng_sites_mismatch, cpu);
	}
	seq_buf_printf(s, "site_cache %d%s\n", atomic_read(&ng_sites_filled),
		       READ_ONCE(ng_sites_stale) ? " stale" : "");
	seq_buf_printf(s, "site_cache_full %lu\n", full);
	if (READ_ONCE(ng_site_check))
		seq_buf_printf(s, "site_cache_mismatches %lu\n", mismatch);
}
