// SPDX-License-Identifier: GPL-2.0
/*
 * What a control file keeps for one open file between two of its calls,
 * and letting it go when that file is closed.
 *
 * The control files are sysfs attributes (Documentation/design.md, "Why
 * sysfs"), and sysfs gives a binary attribute's read and write the open
 * file but no open or release callback.  Three things outlive one call:
 * a listing's text between its reads (control.c), where a write of a full
 * page to a list may go on (lists.c), and the raw records a read was
 * handed, consumed by that file's next read (rawbuf.c).  Each is kept in
 * a struct ng_keep, which this file owns the rules of:
 *
 *  - A keeper holds a reference to its file (get_file()) while it keeps
 *    anything, so that a closed file's address is never a new file's
 *    while something is kept for it: the new file would go on with the
 *    old one's state (61-open-file-state).
 *  - A closed file is one whose only references left are its keepers'
 *    (file_count() equal to the keepers holding it: one file opened for
 *    reading and writing can be held by a listing's text and a list's
 *    continuation at once).  No file table, no read in flight, no dup,
 *    fork or socket in flight holds it then, and nothing can hand it to
 *    user space again.  A sweep, scheduled while any keeper holds a file,
 *    looks once a second and has the owners let go of that file's state
 *    (their ->release, under their locks), which puts its last
 *    references: the file is released then, as if the attribute had a
 *    release callback one second late.  Without it a closed file lived
 *    on until its keeper was reused, and kept its sysfs mount busy
 *    meanwhile (a container that read a listing in part could not
 *    unmount /sys).
 *  - The sweep counts holders with every owner's lock held, so that no
 *    keeper takes or puts a file meanwhile; it only tries those locks:
 *    one busy (the control lock across seconds of hooking) makes it
 *    look again a second later, and no lock is ever waited for in its
 *    worker.  While a kept file stays open the sweep comes back every
 *    second: a walk of a few dozen keepers.
 *
 * A keeper's lock and release are set where it is defined (NG_KEEP_INIT)
 * and it is put on the sweep's list before its file is created
 * (ng_keep_add()); the sweep is stopped after the files are gone
 * (ng_keep_stop()), before the owners free what they keep.
 */

#include <linux/file.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>

#include "ng_module.h"

/* The most distinct owner locks: control.c's, lists.c's, rawbuf.c's. */
#define NG_KEEP_LOCKS	4

static LIST_HEAD(ng_keepers);
static struct mutex *ng_keep_locks[NG_KEEP_LOCKS];
static DEFINE_MUTEX(ng_keepers_lock);	/* the list, the locks, stopped */
static bool ng_keep_stopped;

static void ng_keep_sweep(struct work_struct *work);
static DECLARE_DELAYED_WORK(ng_keep_work, ng_keep_sweep);

/* Put @k on the sweep's list (at load, before its file exists). */
void ng_keep_add(struct ng_keep *k)
{
	int i;

	mutex_lock(&ng_keepers_lock);
	list_add_tail(&k->node, &ng_keepers);
	for (i = 0; i < NG_KEEP_LOCKS && ng_keep_locks[i] != k->lock; i++) {
		if (!ng_keep_locks[i]) {
			ng_keep_locks[i] = k->lock;
			break;
		}
	}
	WARN_ON_ONCE(i == NG_KEEP_LOCKS);
	mutex_unlock(&ng_keepers_lock);
}

/* Keep state for @filp from now on (and for no earlier file). */
void ng_keep_hold(struct ng_keep *k, struct file *filp)
{
	lockdep_assert_held(k->lock);
	if (k->file == filp)
		return;
	ng_keep_drop(k);
	k->file = get_file(filp);
	/* No file can come here once the sweep is stopped. */
	WARN_ON_ONCE(READ_ONCE(ng_keep_stopped));
	schedule_delayed_work(&ng_keep_work, HZ);	/* unless pending */
}

/* Nothing kept any more: the file goes, if it was its last reference. */
void ng_keep_drop(struct ng_keep *k)
{
	lockdep_assert_held(k->lock);
	if (k->file)
		fput(k->file);
	k->file = NULL;
}

/* How many keepers hold @file; every owner's lock held. */
static long ng_keep_holders(const struct file *file)
{
	struct ng_keep *k;
	long n = 0;

	list_for_each_entry(k, &ng_keepers, node)
		n += k->file == file;
	return n;
}

/* Try every owner's lock; false (none held) if one is busy. */
static bool ng_keep_trylock_all(void)
{
	int i;

	for (i = 0; i < NG_KEEP_LOCKS && ng_keep_locks[i]; i++) {
		if (!mutex_trylock(ng_keep_locks[i])) {
			while (i--)
				mutex_unlock(ng_keep_locks[i]);
			return false;
		}
	}
	return true;
}

static void ng_keep_unlock_all(void)
{
	int i = NG_KEEP_LOCKS;

	while (i--)
		if (ng_keep_locks[i])
			mutex_unlock(ng_keep_locks[i]);
}

/*
 * Let go of what is kept for files closed since (only their keepers'
 * references left); come back while any keeper still holds a file.
 */
static void ng_keep_sweep(struct work_struct *work)
{
	bool again = true;
	struct ng_keep *k;

	mutex_lock(&ng_keepers_lock);
	if (ng_keep_trylock_all()) {
		again = false;
		list_for_each_entry(k, &ng_keepers, node) {
			if (k->file &&
			    file_count(k->file) == ng_keep_holders(k->file))
				k->release(k);
			if (k->file)
				again = true;
		}
		ng_keep_unlock_all();
	}
	if (again && !ng_keep_stopped)
		schedule_delayed_work(&ng_keep_work, HZ);
	mutex_unlock(&ng_keepers_lock);
}

/*
 * The files are gone (no call can hold a file any more): stop the sweep
 * and take the keepers off its list; their owners let go of what they
 * keep next.
 */
void ng_keep_stop(void)
{
	struct ng_keep *k, *tmp;

	mutex_lock(&ng_keepers_lock);
	ng_keep_stopped = true;
	mutex_unlock(&ng_keepers_lock);
	cancel_delayed_work_sync(&ng_keep_work);
	mutex_lock(&ng_keepers_lock);
	list_for_each_entry_safe(k, tmp, &ng_keepers, node)
		list_del_init(&k->node);
	memset(ng_keep_locks, 0, sizeof(ng_keep_locks));
	mutex_unlock(&ng_keepers_lock);
}
