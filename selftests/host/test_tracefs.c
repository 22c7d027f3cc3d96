// SPDX-License-Identifier: GPL-2.0
/*
 * test_tracefs.c - ng_tracefs_find() agrees with the mount table and never
 * mounts tracefs itself (libtracefs' tracefs_tracing_dir() would).
 */
#include <errno.h>
#include <mntent.h>
#include <stdio.h>
#include <sys/stat.h>

#include "nanograph.h"
#include "ktap.h"

/* Count tracefs mounts; remember whether @dir is one of them. */
static int tracefs_mounts(const char *dir, bool *found)
{
	struct mntent *m;
	FILE *fp;
	int n = 0;

	*found = false;
	fp = setmntent("/proc/self/mounts", "r");
	if (!fp)
		return -1;
	while ((m = getmntent(fp))) {
		if (strcmp(m->mnt_type, "tracefs"))
			continue;
		n++;
		if (dir && !strcmp(m->mnt_dir, dir))
			*found = true;
	}
	endmntent(fp);
	return n;
}

static void test_find_agrees_with_mounts(void)
{
	const char *dir = NULL;
	int before, after, ret;
	struct stat st;
	bool found;

	before = tracefs_mounts(NULL, &found);
	T_ASSERT(before >= 0);
	ret = ng_tracefs_find(&dir);
	after = tracefs_mounts(dir, &found);
	T_EQ_INT(after, before);
	if (ret == -ENODEV) {
		t_diag("tracefs not mounted here");
		T_EQ_INT(before, 0);
		T_ASSERT(dir == NULL);
		return;
	}
	T_EQ_INT(ret, 0);
	t_diag("tracefs at %s", dir);
	T_ASSERT(dir && found);
	T_EQ_INT(stat(dir, &st), 0);
	T_ASSERT(S_ISDIR(st.st_mode));
}

static const struct t_case cases[] = {
	{ "find_agrees_with_mounts", test_find_agrees_with_mounts },
};

T_SUITE(tracefs, cases);
