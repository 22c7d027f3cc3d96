// SPDX-License-Identifier: LGPL-2.1
/*
 * tracefs.c - where tracefs is mounted.
 *
 * tracefs_tracing_dir() mounts tracefs itself when it finds none, which a
 * status query must not do behind the user's back. So ask first whether it
 * is mounted (without mounting), and only then take the path.
 */
#include <errno.h>
#include <tracefs.h>

#include "nanograph.h"

/* Report the tracefs directory, or -ENODEV if tracefs is not mounted. */
int ng_tracefs_find(const char **dirp)
{
	const char *dir = NULL;
	int ret;

	errno = 0;
	ret = tracefs_tracing_dir_is_mounted(false, &dir);
	if (ret < 0)
		return errno ? -errno : -ENODEV;
	if (ret == 0)
		return -ENODEV;
	dir = tracefs_tracing_dir();
	if (!dir)
		return -ENODEV;
	*dirp = dir;
	return 0;
}
