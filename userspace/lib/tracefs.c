// SPDX-License-Identifier: LGPL-2.1
/*
 * tracefs.c - where tracefs is mounted.
 *
 * tracefs_tracing_dir() mounts tracefs itself when it finds none, which a
 * status query must not do behind the user's back. So look at the mount
 * table first, and only then take libtracefs' path (the same first
 * tracefs mount). Not tracefs_tracing_dir_is_mounted(): in libtracefs 1.6
 * it leaks the string it finds, whether or not the caller asks for it.
 */
#include <errno.h>
#include <mntent.h>
#include <stdio.h>
#include <string.h>
#include <tracefs.h>

#include "nanograph.h"

/* Whether the mount table lists a tracefs; -errno if it cannot be read. */
static int tracefs_mounted(void)
{
	struct mntent *m;
	int found = 0;
	FILE *fp;

	fp = setmntent("/proc/self/mounts", "re");
	if (!fp)
		return -errno;
	while (!found && (m = getmntent(fp)))
		found = !strcmp(m->mnt_type, "tracefs");
	endmntent(fp);
	return found;
}

/* Report the tracefs directory, or -ENODEV if tracefs is not mounted. */
int ng_tracefs_find(const char **dirp)
{
	const char *dir;
	int ret = tracefs_mounted();

	if (ret < 0)
		return ret;
	if (!ret)
		return -ENODEV;
	dir = tracefs_tracing_dir();
	if (!dir)
		return -ENODEV;
	*dirp = dir;
	return 0;
}
