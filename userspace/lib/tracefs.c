// SPDX-License-Identifier: LGPL-2.1
/*
 * tracefs.c - where tracefs is mounted, and the formats of one event system.
 *
 * tracefs_tracing_dir() mounts tracefs itself when it finds none, which a
 * status query must not do behind the user's back. So look at the mount
 * table first, and only then take libtracefs' path (the same first
 * tracefs mount). Not tracefs_tracing_dir_is_mounted(): in libtracefs 1.6
 * it leaks the string it finds, whether or not the caller asks for it.
 */
#include <errno.h>
#include <event-parse.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>
#include <unistd.h>

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

/* Parse the page header (@sys NULL) or an event format of @sys: -errno. */
static int parse_file(struct tep_handle *tep, const char *file, const char *sys)
{
	char *buf;
	int size = 0, ret;

	errno = 0;
	buf = tracefs_instance_file_read(NULL, file, &size);
	if (!buf)
		return -(errno ? errno : EIO);
	ret = sys ? (tep_parse_event(tep, buf, size, sys) ? -EINVAL : 0) :
		    (tep_parse_header_page(tep, buf, size, sizeof(long)) ? -EINVAL : 0);
	free(buf);
	return ret;
}

/*
 * A tep handle knowing the ring buffer's page header and the formats of
 * @system's events, and nothing else.  tracefs_local_events_system() does
 * the same and then loads kallsyms, printk_formats and saved_cmdlines,
 * which the recorder never asks the handle for (it names functions from
 * its own symbol table, after the run): 1.8 s of a 2.7 s recording of
 * `true` under emulation, before the command could start.
 */
int ng_tracefs_events_tep(const char *system, struct tep_handle **tepp)
{
	struct tep_handle *tep;
	char **events, file[512];
	int i, ret;

	events = tracefs_system_events(NULL, system);
	if (!events)
		return -ENOENT;
	tep = tep_alloc();
	ret = tep ? parse_file(tep, "events/header_page", NULL) : -ENOMEM;
	for (i = 0; !ret && events[i]; i++) {
		if ((size_t)snprintf(file, sizeof(file), "events/%s/%s/format",
				     system, events[i]) >= sizeof(file))
			ret = -ENAMETOOLONG;
		else
			ret = parse_file(tep, file, system);
	}
	tracefs_list_free(events);
	if (ret) {
		tep_free(tep);
		return ret;
	}
	/*
	 * As tracefs_local_events_system() does: the page header's commit
	 * field is a long of the kernel's, which the kbuffer reader needs
	 * to find records in a page.
	 */
	tep_set_long_size(tep, tep_get_header_page_size(tep));
	tep_set_cpus(tep, sysconf(_SC_NPROCESSORS_CONF));
	*tepp = tep;
	return 0;
}
