// SPDX-License-Identifier: GPL-2.0
/*
 * check.c - "nanograph check FILE...": run the push/pop format checker on
 * each file and print one line per file, in the "file:line:" form editors
 * and CI logs already understand.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "nanograph.h"
#include "cmd.h"

/* Check one file and print its line; returns true if it is good. */
static bool check_one(const char *path)
{
	struct ng_pp_check c;
	int ret = ng_pp_check_file(path, &c);

	if (ret < 0) {
		/* -EINVAL: ng_pp_check_file() reads files and pipes only */
		printf("%s: cannot read: %s\n", path, ret == -EINVAL ?
		       "not a regular file or a pipe" : strerror(-ret));
		return false;
	}
	if (c.error) {
		printf("%s:%" PRIu64 ": error (%s): %s\n", path, c.error_line,
		       ng_pp_error_name(c.error), c.error_msg);
		return false;
	}
	if (!c.lines) {
		printf("%s: ok: empty\n", path);
		return true;
	}
	printf("%s: ok: %" PRIu64 " lines, %" PRIu64 " calls, max depth %" PRIu64
	       ", %" PRIu64 "..%" PRIu64 " ns\n", path, c.lines, c.pushes,
	       c.max_depth, c.first_ns, c.last_ns);
	return true;
}

int cmd_check(const struct ng_cmd *self, int argc, char **argv)
{
	int i, first, ret, bad = 0;

	ret = ng_cmd_options(self, argc, argv, &first);
	if (ret >= 0)
		return ret;
	if (first == argc)
		return ng_usage_error(self->name, "no FILE given");
	for (i = first; i < argc; i++)
		if (!check_one(argv[i]))
			bad++;
	return bad ? NG_EXIT_FAIL : NG_EXIT_OK;
}
