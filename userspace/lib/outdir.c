// SPDX-License-Identifier: LGPL-2.1
/*
 * outdir.c - a recording's directory, replaced whole or not at all.
 *
 * A new recording is written into a fresh directory next to the target
 * (".NAME.XXXXXX" in the same parent, so on the same filesystem), and
 * only swapped in once it is complete: an error, a typo in a function
 * name or a command that cannot run leave an earlier recording as it
 * was, and the new one never shares a directory with an earlier one's
 * files (a thread that no longer exists, an export). The earlier
 * recording is kept as NAME.old, as perf keeps perf.data.old.
 *
 * Only recordings are ever moved or removed: a directory is one when it
 * holds threads.tsv (record and convert always write it). Anything else
 * under NAME or NAME.old is refused at open, before anything is done.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nanograph.h"

struct ng_outdir {
	char *dir;	/* NAME, as given (symbolic links resolved) */
	char *old;	/* NAME.old */
	char *tmp;	/* the directory being written */
};

/* What is at @path: -ENOENT, 0 empty dir, 1 recording, -ENOTEMPTY other. */
static int what_is(const char *path)
{
	struct dirent *de;
	struct stat st;
	bool empty = true;
	char *tsv;
	DIR *d;

	if (stat(path, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (asprintf(&tsv, "%s/threads.tsv", path) < 0)
		return -ENOMEM;
	if (!lstat(tsv, &st) && S_ISREG(st.st_mode)) {
		free(tsv);
		return 1;
	}
	free(tsv);
	d = opendir(path);
	if (!d)
		return -errno;
	while (empty && (de = readdir(d)))
		empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
	closedir(d);
	return empty ? 0 : -ENOTEMPTY;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return (flag == FTW_DP ? rmdir(path) : unlink(path)) ? -1 : 0;
}

/* Remove a directory we made, or a recording, and what it holds. */
static int remove_tree(const char *path)
{
	if (nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS) && errno != ENOENT)
		return -errno;
	return 0;
}

static void ng_outdir_free(struct ng_outdir *o)
{
	if (!o)
		return;
	free(o->dir);
	free(o->old);
	free(o->tmp);
	free(o);
}

int ng_outdir_open(struct ng_outdir **op, const char *dir)
{
	struct ng_outdir *o = calloc(1, sizeof(*o));
	char *slash, *base, real[PATH_MAX];
	struct stat st;
	size_t len;
	mode_t mask;
	int ret, n;

	*op = NULL;
	if (!o)
		return -ENOMEM;
	ret = -ENOMEM;
	/* A symbolic link to a directory: the directory is the target. */
	if (!lstat(dir, &st) && S_ISLNK(st.st_mode) && realpath(dir, real))
		dir = real;
	o->dir = strdup(dir);
	if (!o->dir)
		goto err;
	for (len = strlen(o->dir); len > 1 && o->dir[len - 1] == '/'; )
		o->dir[--len] = '\0';
	slash = strrchr(o->dir, '/');
	base = slash ? slash + 1 : o->dir;
	ret = -EINVAL;
	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		goto err;
	ret = -ENOMEM;
	if (asprintf(&o->old, "%s.old", o->dir) < 0) {
		o->old = NULL;
		goto err;
	}
	/* ".NAME.XXXXXX" in NAME's parent directory */
	n = slash ? (int)(slash - o->dir) + 1 : 0;
	if (asprintf(&o->tmp, "%.*s.%s.XXXXXX", n, o->dir, base) < 0) {
		o->tmp = NULL;
		goto err;
	}
	ret = what_is(o->dir);
	if (ret < 0 && ret != -ENOENT)
		goto err;
	ret = what_is(o->old);
	if (ret == -ENOTEMPTY || ret == -ENOTDIR)
		ret = -EEXIST;
	if (ret < 0 && ret != -ENOENT)
		goto err;
	if (!mkdtemp(o->tmp)) {
		ret = -errno;
		goto err;
	}
	/* mkdtemp() makes it 0700: give it mkdir()'s mode. */
	mask = umask(022);
	umask(mask);
	chmod(o->tmp, 0777 & ~mask);
	*op = o;
	return 0;
err:
	ng_outdir_free(o);
	return ret;
}

const char *ng_outdir_path(const struct ng_outdir *o)
{
	return o->tmp;
}

/*
 * Swap the new recording in. An earlier one goes to NAME.old (an older
 * NAME.old is removed first): exchanged in one step where the filesystem
 * can (RENAME_EXCHANGE), so NAME always holds a whole recording, else in
 * two renames. An empty NAME is simply replaced.
 */
int ng_outdir_commit(struct ng_outdir *o)
{
	int ret = what_is(o->dir);

	if (ret == -ENOENT || ret == 0) {
		ret = rename(o->tmp, o->dir) ? -errno : 0;
		goto out;
	}
	if (ret < 0)
		goto out;
	ret = what_is(o->old);
	if (ret >= 0)
		ret = remove_tree(o->old);
	else if (ret == -ENOENT)
		ret = 0;
	if (ret)
		goto out;
	if (!renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->dir, RENAME_EXCHANGE)) {
		/* o->tmp now holds the earlier recording */
		ret = rename(o->tmp, o->old) ? -errno : 0;
		goto out;
	}
	if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP) {
		ret = -errno;
		goto out;
	}
	if (rename(o->dir, o->old)) {
		ret = -errno;
		goto out;
	}
	if (rename(o->tmp, o->dir)) {
		ret = -errno;
		rename(o->old, o->dir);
	}
out:
	if (ret)
		remove_tree(o->tmp);
	ng_outdir_free(o);
	return ret;
}

void ng_outdir_abort(struct ng_outdir *o)
{
	if (!o)
		return;
	remove_tree(o->tmp);
	ng_outdir_free(o);
}
