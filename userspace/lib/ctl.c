// SPDX-License-Identifier: LGPL-2.1
/*
 * ctl.c - the module's control directory, /sys/kernel/nanograph/.
 *
 * Each control file is a sysfs attribute: a read returns the whole state,
 * and each write(2) is handed to the module as one command. So a value is
 * written with as few write calls as possible and errors are reported as
 * the -errno the module chose (-EINVAL, -E2BIG, ...).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nanograph.h"
#include "readall.h"

/* Pick the root directory: argument, then environment, then the default. */
int ng_ctl_init(struct ng_ctl *ctl, const char *root)
{
	int n;

	if (!root) {
		root = getenv(NG_CTL_ENV);
		if (!root || !*root)
			root = NG_CTL_DEFAULT_ROOT;
	}
	n = snprintf(ctl->root, sizeof(ctl->root), "%s", root);
	if (n < 0 || (size_t)n >= sizeof(ctl->root)) {
		ctl->root[0] = '\0';
		return -ENAMETOOLONG;
	}
	return 0;
}

/* Let callers show which directory they are looking at. */
const char *ng_ctl_root(const struct ng_ctl *ctl)
{
	return ctl->root;
}

/* The module creates the directory at load and removes it at unload. */
bool ng_ctl_available(const struct ng_ctl *ctl)
{
	struct stat st;

	return ctl->root[0] && stat(ctl->root, &st) == 0 && S_ISDIR(st.st_mode);
}

int ng_ctl_check_abi(const struct ng_ctl *ctl, unsigned int *abi)
{
	uint64_t v;
	char *val;
	int ret;

	ret = ng_ctl_read(ctl, "abi", &val, NULL);
	if (ret)
		return ret;
	val[strcspn(val, "\n")] = '\0';
	ret = ng_parse_num(val, 0, 0, UINT32_MAX, &v) ? -EBADMSG : 0;
	free(val);
	if (ret)
		return ret;
	*abi = (unsigned int)v;
	return v == NG_ABI ? 0 : -EPROTO;
}

/*
 * A control file's name is a relative path inside the directory, such as
 * "tracing_on" or "options/event-fork": no empty, "." or ".." component,
 * so it can never leave the directory.
 */
static bool name_ok(const char *name)
{
	const char *c = name, *end;
	size_t len;

	if (!name || !*name)
		return false;
	for (;;) {
		end = strchrnul(c, '/');
		len = end - c;
		if (!len || (len == 1 && c[0] == '.') ||
		    (len == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		if (!*end)
			return true;
		c = end + 1;
	}
}

/* Build "<root>/<name>", refusing names that would leave the directory. */
static int ctl_path(const struct ng_ctl *ctl, const char *name, char *path,
		    size_t size)
{
	int n;

	if (!ctl->root[0] || !name_ok(name))
		return -EINVAL;
	n = snprintf(path, size, "%s/%s", ctl->root, name);
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	return 0;
}

/* Read one control file whole. */
int ng_ctl_read(const struct ng_ctl *ctl, const char *name, char **bufp,
		size_t *lenp)
{
	char path[sizeof(ctl->root) + 256];
	int fd, ret;

	ret = ctl_path(ctl, name, path, sizeof(path));
	if (ret)
		return ret;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/*
	 * Past NG_CTL_MAX_READ - 2 bytes: the limit as it always was (a
	 * buffer of NG_CTL_MAX_READ bytes, its last one the NUL, gave up
	 * when full).
	 */
	ret = ng_read_all(fd, NG_CTL_MAX_READ - 2, bufp, lenp);
	close(fd);
	return ret;
}

/*
 * Write @val to control file @name opened with @flags. Never creates the
 * file: a missing control file is -ENOENT, not a new regular file.
 */
static int ctl_write(const struct ng_ctl *ctl, const char *name,
		     const char *val, int flags)
{
	char path[sizeof(ctl->root) + 256];
	size_t len = strlen(val), done = 0;
	int fd, ret;

	ret = ctl_path(ctl, name, path, sizeof(path));
	if (ret)
		return ret;
	fd = open(path, O_WRONLY | O_CLOEXEC | flags);
	if (fd < 0)
		return -errno;
	while (done < len) {
		ssize_t n = write(fd, val + done, len - done);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		if (n == 0) {
			ret = -EIO;
			break;
		}
		done += n;
	}
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

/* ">" semantics: the new value replaces the old one. */
int ng_ctl_write(const struct ng_ctl *ctl, const char *name, const char *val)
{
	return ctl_write(ctl, name, val, O_TRUNC);
}

/* ">>" semantics: the value is added, as with ftrace's filter files. */
int ng_ctl_append(const struct ng_ctl *ctl, const char *name, const char *val)
{
	return ctl_write(ctl, name, val, O_APPEND);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Free what ng_ctl_list() returned. */
void ng_ctl_list_free(char **names, int count)
{
	int i;

	if (!names)
		return;
	for (i = 0; i < count; i++)
		free(names[i]);
	free(names);
}

/* A growing array of names, for ng_ctl_list(). */
struct name_list {
	char **names;
	int count, cap;
};

static int name_list_add(struct name_list *l, const char *prefix, const char *name)
{
	char *n;

	if (l->count == l->cap) {
		int cap = l->cap ? l->cap * 2 : 16;
		char **grown = realloc(l->names, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		l->names = grown;
		l->cap = cap;
	}
	if (asprintf(&n, "%s%s", prefix, name) < 0)
		return -ENOMEM;
	l->names[l->count++] = n;
	return 0;
}

/*
 * Add the regular files of @dir (under @root) to @l, each with @dir as
 * its prefix, and the names of its subdirectories to @subdirs if given.
 */
static int list_dir(const char *root, const char *dir, struct name_list *l,
		    struct name_list *subdirs)
{
	char path[PATH_MAX], prefix[NAME_MAX + 2] = "";
	struct dirent *de;
	int ret = 0;
	DIR *d;

	if (*dir)
		snprintf(prefix, sizeof(prefix), "%s/", dir);
	snprintf(path, sizeof(path), "%s/%s", root, dir);
	d = opendir(path);
	if (!d)
		return -errno;
	while (!ret && (errno = 0, de = readdir(d))) {
		struct stat st;

		if (de->d_name[0] == '.' ||
		    fstatat(dirfd(d), de->d_name, &st, 0))
			continue;
		if (S_ISREG(st.st_mode))
			ret = name_list_add(l, prefix, de->d_name);
		else if (S_ISDIR(st.st_mode) && subdirs)
			ret = name_list_add(subdirs, "", de->d_name);
	}
	if (!ret && errno)
		ret = -errno;
	closedir(d);
	return ret;
}

/*
 * List the control files, so callers (status, tests) need not hard-code
 * the set the loaded module happens to offer: the top-level files and
 * those one directory down, as "options/event-fork".
 */
int ng_ctl_list(const struct ng_ctl *ctl, char ***namesp)
{
	struct name_list l = { 0 }, subdirs = { 0 };
	int i, ret;

	ret = list_dir(ctl->root, "", &l, &subdirs);
	for (i = 0; !ret && i < subdirs.count; i++)
		ret = list_dir(ctl->root, subdirs.names[i], &l, NULL);
	ng_ctl_list_free(subdirs.names, subdirs.count);
	if (ret) {
		ng_ctl_list_free(l.names, l.count);
		return ret;
	}
	if (l.count)
		qsort(l.names, l.count, sizeof(*l.names), cmp_names);
	*namesp = l.names;
	return l.count;
}

/* ---- the stats file ---------------------------------------------------- */

/* The number of a "KEY N" line of @text; 0 when there is none. */
static uint64_t line_num(const char *text, const char *key)
{
	uint64_t v;

	return ng_parse_line_nums(text, key, 0, UINT64_MAX, &v, 1) ? 0 : v;
}

int ng_ctl_stats(const struct ng_ctl *ctl, struct ng_ctl_stats *st)
{
	uint64_t v[4];
	char *text;
	int ret;

	memset(st, 0, sizeof(*st));
	ret = ng_ctl_read(ctl, "stats", &text, NULL);
	if (ret)
		return ret;
	ret = -EBADMSG;
	if (!ng_parse_line_nums(text, "total", 0, UINT64_MAX, v, 4)) {
		st->entries = v[0];
		st->exits = v[1];
		st->dropped = v[2];
		st->skipped = v[3];
		ret = 0;
	}
	st->live_frames = line_num(text, "live_frames");
	/* a module without the flight recorder has neither line: 0 */
	st->overwritten = line_num(text, "overwritten");
	st->frozen_dropped = line_num(text, "frozen_dropped");
	free(text);
	return ret;
}

/* ---- a setting, as writing it back takes it ---------------------------- */

/*
 * A choice file (buffer_mode: "[events] raw") is read as its bracketed
 * word, which is what writing it back takes.
 */
static void setting_choice(char *v)
{
	char *open = strchr(v, '['), *close = open ? strchr(open, ']') : NULL;

	if (!close)
		return;
	memmove(v, open + 1, close - open - 1);
	v[close - open - 1] = '\0';
}

/*
 * The choice files.  Only they: a glob list reads back as written, and
 * "kworker[0-9]*" is a glob, not a choice.
 */
static bool is_choice(const char *name)
{
	return !strcmp(name, "buffer_mode");
}

/* What a recording session keeps, to write back as it was. */
int ng_ctl_read_setting(const struct ng_ctl *ctl, const char *name,
			char **valp)
{
	int ret = ng_ctl_read(ctl, name, valp, NULL);

	if (!ret && is_choice(name))
		setting_choice(*valp);
	return ret;
}

/* ---- which tasks record records ------------------------------------------ */

/* Append every thread of process @pid to list file @file, one a write. */
static int add_threads(const struct ng_ctl *ctl, const char *file, int pid,
		       const char **failed)
{
	char path[64], tid[NAME_MAX + 2];
	struct dirent *de;
	int ret = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d) {
		*failed = NULL;
		return -errno;
	}
	while (!ret && (errno = 0, de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(tid, sizeof(tid), "%s\n", de->d_name);
		ret = ng_ctl_append(ctl, file, tid);
	}
	if (!ret && errno) {
		ret = -errno;
		*failed = NULL;
	} else if (ret) {
		*failed = file;
	}
	closedir(d);
	return ret;
}

int ng_ctl_admit_process(const struct ng_ctl *ctl, int pid, const char **file)
{
	return add_threads(ctl, "set_event_pid", pid, file);
}

int ng_ctl_select_tasks(const struct ng_ctl *ctl, int pid, const char **file)
{
	/* The list that names tasks, and the other one, emptied. */
	const char *list = pid ? "set_event_pid" : "set_event_notrace_pid";
	const char *other = pid ? "set_event_notrace_pid" : "set_event_pid";
	int ret;

	*file = "options/event-fork";
	ret = ng_ctl_write(ctl, *file, pid ? "1" : "0");
	if (!ret) {
		*file = other;
		ret = ng_ctl_write(ctl, other, "\n");
	}
	if (!ret) {
		*file = list;
		ret = ng_ctl_write(ctl, list, "\n");
	}
	if (!ret)
		ret = add_threads(ctl, list, pid ? pid : (int)getpid(), file);
	return ret;
}
