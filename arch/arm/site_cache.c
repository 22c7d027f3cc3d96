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
 * it runs on a function's first call only.
 *
 * The table is open-addressed.  A slot is claimed by a cmpxchg of its
 * ip and never changes owner while recording; its answer is published
 * after the claim (smp_store_release() in ng_site_store(), paired with
 * smp_load_acquire() in ng_site_lookup()).  It is emptied only in
 * ng_site_cache_reset(), when no hook runs (tracing_on=1, before any ops
 * is registered).
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

#include "nanograph.h"
#include "ng_arch.h"

#define NG_SITE_BITS	13
#define NG_SITES	BIT(NG_SITE_BITS)
/* A lookup or a claim looks at this many slots from the hashed one. */
#define NG_SITE_PROBES	8

/*
 * An answer, in one word: bit 0 set once filled; bit 1 when LR was not
 * saved (the slot is the saved regs' ARM_lr); then the slot's and the
 * key's offsets from the saved SP, in words, 15 bits each.
 */
#define NG_SITE_FILLED		BIT(0)
#define NG_SITE_IN_LR		BIT(1)
#define NG_SITE_SLOT_SHIFT	2
#define NG_SITE_KEY_SHIFT	17
#define NG_SITE_OFF_MAX		((1UL << 15) - 1)

struct ng_site {
	unsigned long ip;	/* 0: free */
	unsigned long where;	/* 0: claimed, not yet filled */
};

static struct ng_site ng_sites[NG_SITES];
static bool ng_sites_stale;

/* Functions whose answer is in the table, and hooks that found no room. */
static atomic_t ng_sites_filled = ATOMIC_INIT(0);
static DEFINE_PER_CPU(unsigned long, ng_sites_full);
static DEFINE_PER_CPU(unsigned long, ng_sites_mismatch);

/*
 * site_check=1 (a test's switch): unwind on every call anyway and count
 * the calls where the table's answer differs from the unwinder's.
 */
static bool site_check;
module_param(site_check, bool, 0644);
MODULE_PARM_DESC(site_check, "arm: compare every cached return slot with the unwinder's (tests)");

bool ng_site_checking(void)
{
	return READ_ONCE(site_check);
}

/* The slot of @ip, or NULL: no room within NG_SITE_PROBES slots. */
static struct ng_site *ng_site_find(unsigned long ip, bool claim)
{
	unsigned int h = hash_32(ip, NG_SITE_BITS), i;

	for (i = 0; i < NG_SITE_PROBES; i++) {
		struct ng_site *s = &ng_sites[(h + i) & (NG_SITES - 1)];
		unsigned long owner = READ_ONCE(s->ip);

		if (owner == ip)
			return s;
		if (owner)
			continue;
		if (!claim)
			return NULL;
		owner = cmpxchg(&s->ip, 0, ip);
		if (!owner || owner == ip)
			return s;
	}
	return NULL;
}

/*
 * The cached answer for @ip, as hook.c's out-parameters, from the saved
 * registers @regs; false if there is none (yet).
 */
bool ng_site_lookup(unsigned long ip, struct pt_regs *regs,
		    unsigned long **slot, unsigned long *key)
{
	struct ng_site *s;
	unsigned long w;

	if (READ_ONCE(ng_sites_stale))
		return false;
	s = ng_site_find(ip, false);
	if (!s)
		return false;
	/* Pairs with the release in ng_site_store(). */
	w = smp_load_acquire(&s->where);
	if (!(w & NG_SITE_FILLED))
		return false;
	*slot = w & NG_SITE_IN_LR ? &regs->ARM_lr :
		(unsigned long *)(regs->ARM_sp +
				  4 * ((w >> NG_SITE_SLOT_SHIFT) & NG_SITE_OFF_MAX));
	*key = regs->ARM_sp + 4 * ((w >> NG_SITE_KEY_SHIFT) & NG_SITE_OFF_MAX);
	return true;
}

/*
 * Remember the unwinder's answer for @ip.  Offsets that do not fit (a
 * frame over 128 KiB) are not remembered: that function keeps unwinding.
 */
void ng_site_store(unsigned long ip, struct pt_regs *regs,
		   unsigned long *slot, unsigned long key)
{
	unsigned long sp = regs->ARM_sp, w = NG_SITE_FILLED, off;
	struct ng_site *s;

	if (READ_ONCE(ng_sites_stale))
		return;
	if (slot == &regs->ARM_lr) {
		w |= NG_SITE_IN_LR;
	} else {
		off = (unsigned long)slot - sp;
		if ((unsigned long)slot < sp || off % 4 || off / 4 > NG_SITE_OFF_MAX)
			return;
		w |= off / 4 << NG_SITE_SLOT_SHIFT;
	}
	off = key - sp;
	if (key < sp || off % 4 || off / 4 > NG_SITE_OFF_MAX)
		return;
	w |= off / 4 << NG_SITE_KEY_SHIFT;

	s = ng_site_find(ip, true);
	if (!s) {
		this_cpu_inc(ng_sites_full);
		return;
	}
	/* Pairs with the acquire in ng_site_lookup(). */
	if (!cmpxchg_release(&s->where, 0, w))
		atomic_inc(&ng_sites_filled);
}

/* site_check=1: the table said @slot and @key, the unwinder otherwise. */
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
	if (READ_ONCE(site_check))
		seq_buf_printf(s, "site_cache_mismatches %lu\n", mismatch);
}
