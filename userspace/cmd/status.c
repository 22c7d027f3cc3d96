// SPDX-License-Identifier: GPL-2.0
/*
 * status.c - "nanograph status": is the module loaded, where is tracefs,
 * and what does every readable control file say. The files are listed
 * from the directory rather than hard-coded, so a newer module's extra
 * files show up too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "nanograph.h"
#include "cmd.h"

/* Skip write-only control files: reading them only yields an error. */
static bool readable(const struct ng_ctl *ctl, const char *name)
{
	char path[sizeof(ctl->root) + 256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", ng_ctl_root(ctl), name);
	return stat(path, &st) == 0 && (st.st_mode & 0444);
}

/*
 * "name: value" on one line, or "name:" followed by the value's lines
 * indented by two spaces when it has several.
 */
static void print_value(const char *name, char *val, size_t len)
{
	char *line, *nl;

	while (len && val[len - 1] == '\n')
		val[--len] = '\0';
	if (!memchr(val, '\n', len)) {
		printf("%s:%s%s\n", name, len ? " " : "", val);
		return;
	}
	printf("%s:\n", name);
	for (line = val; line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		printf("  %s\n", line);
	}
}

/* The module's interface against this collector's (NG_ABI). */
static void print_abi(const struct ng_ctl *ctl)
{
	unsigned int abi = 0;
	int ret = ng_ctl_check_abi(ctl, &abi);

	if (!ret)
		printf("interface: %d, this collector's\n", NG_ABI);
	else if (ret == -EPROTO)
		printf("interface: the module's %u, this collector's %d: build both from the same tree\n",
		       abi, NG_ABI);
	else if (ret == -ENOENT)
		printf("interface: the module has no abi file (older than this collector): build both from the same tree\n");
	else
		printf("interface: cannot read %s/abi: %s\n", ng_ctl_root(ctl), strerror(-ret));
}

/* Every control file, one block each; returns the number of failures. */
static int print_control_files(const struct ng_ctl *ctl)
{
	int i, count, failed = 0;
	char **names;

	count = ng_ctl_list(ctl, &names);
	if (count < 0) {
		printf("control files: cannot list %s: %s\n", ng_ctl_root(ctl),
		       strerror(-count));
		return 1;
	}
	for (i = 0; i < count; i++) {
		char *val;
		size_t len;
		int ret;

		if (!readable(ctl, names[i]))
			continue;
		ret = ng_ctl_read(ctl, names[i], &val, &len);
		if (ret) {
			printf("%s: (unreadable: %s)\n", names[i], strerror(-ret));
			failed++;
			continue;
		}
		print_value(names[i], val, len);
		free(val);
	}
	ng_ctl_list_free(names, count);
	return failed;
}

int cmd_status(const struct ng_cmd *self, int argc, char **argv)
{
	const char *tdir;
	struct ng_ctl ctl;
	int first, ret;
	bool loaded;

	ret = ng_cmd_options(self, argc, argv, &first);
	if (ret >= 0)
		return ret;
	if (first < argc)
		return ng_usage_error(self->name, "unexpected argument '%s'",
				      argv[first]);
	ret = ng_ctl_init(&ctl, NULL);
	if (ret) {
		fprintf(stderr, "nanograph status: control directory: %s\n",
			strerror(-ret));
		return NG_EXIT_FAIL;
	}
	loaded = ng_ctl_available(&ctl);
	if (loaded) {
		printf("module: loaded (%s)\n", ng_ctl_root(&ctl));
		print_abi(&ctl);
	} else
		printf("module: not loaded (no %s); load it with: insmod nanograph.ko\n",
		       ng_ctl_root(&ctl));

	ret = ng_tracefs_find(&tdir);
	if (ret == -ENODEV)
		printf("tracefs: not mounted (mount -t tracefs nodev /sys/kernel/tracing)\n");
	else if (ret)
		printf("tracefs: cannot tell: %s\n", strerror(-ret));
	else
		printf("tracefs: %s\n", tdir);

	if (!loaded)
		return NG_EXIT_FAIL;
	return print_control_files(&ctl) ? NG_EXIT_FAIL : NG_EXIT_OK;
}
