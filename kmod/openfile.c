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
 *  - A closed file is one whose only reference left is the keeper's
 *    (file_count() == 1): no file table, no read in flight, no dup or
 *    fork holds it, and nothing can take it again.  A sweep, scheduled
 *    while any keeper holds a file, looks once a second and has the
 *    owner let go of that state (its ->release, under its lock), which
 *    puts the last reference: the file is released then, as if the
 *    attribute had a release callback one second late.  Without it a
 *    closed file lived on until its keeper was reused, and kept its
 *    sysfs mount busy meanwhile (a container that read a listing in
 *    part could not unmount /sys).
 *  - The sweep only tries the owners' locks: an owner busy (the control
 *    lock across seconds of hooking) is looked at again next time, and
 *    no lock is ever waited for in the sweep's worker.
 *
 * Keepers are registered when their files are created (ng_keep_add())
 * and the sweep is stopped after the files are gone (ng_keep_stop()),
 * before the owners free what they keep.
 */

#include <linux/file.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>

#include "ng_module.h"

static LIST_HEAD(ng_keepers);
static DEFINE_MUTEX(ng_keepers_lock);	/* the list; ng_keep_stopped */
static bool ng_keep_stopped;

static void ng_keep_sweep(struct work_struct *work);
static DECLARE_DELAYED_WORK(ng_keep_work, ng_keep_sweep);

/* Register @k, whose state @lock guards and @release lets go. */
void ng_keep_add(struct ng_keep *k, struct mutex *lock,
		 void (*release)(struct ng_keep *k))
{
	k->file = NULL;
	k->lock = lock;
	k->release = release;
	mutex_lock(&ng_keepers_lock);
	ng_keep_stopped = false;
	list_add_tail(&k->node, &ng_keepers);
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
	/* Pending already, or stopped (no file is left to come here then). */
	schedule_delayed_work(&ng_keep_work, HZ);
}

/* Nothing kept any more: the file goes, if it was its last reference. */
void ng_keep_drop(struct ng_keep *k)
{
	lockdep_assert_held(k->lock);
	if (k->file)
		fput(k->file);
	k->file = NULL;
}

/*
 * Let go of what is kept for files closed since (only the keeper's
 * reference left); come back while any keeper still holds a file.
 */
static void ng_keep_sweep(struct work_struct *work)
{
	bool again = false;
	struct ng_keep *k;

	mutex_lock(&ng_keepers_lock);
	list_for_each_entry(k, &ng_keepers, node) {
		if (!mutex_trylock(k->lock)) {
			again = true;	/* busy: next time */
			continue;
		}
		if (k->file && file_count(k->file) == 1)
			k->release(k);
		if (k->file)
			again = true;
		mutex_unlock(k->lock);
	}
	if (again && !ng_keep_stopped)
		schedule_delayed_work(&ng_keep_work, HZ);
	mutex_unlock(&ng_keepers_lock);
}

/*
 * The files are gone (no call can hold a file any more): stop the sweep
 * and forget the keepers; their owners let go of what they keep next.
 */
void ng_keep_stop(void)
{
	mutex_lock(&ng_keepers_lock);
	ng_keep_stopped = true;
	mutex_unlock(&ng_keepers_lock);
	cancel_delayed_work_sync(&ng_keep_work);
	mutex_lock(&ng_keepers_lock);
	INIT_LIST_HEAD(&ng_keepers);
	mutex_unlock(&ng_keepers_lock);
}
