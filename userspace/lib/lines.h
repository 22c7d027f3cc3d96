/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * lines.h - library-internal: read an input file line by line, bounded.
 *
 * Every file a recording is read back from (the push/pop files,
 * threads.tsv) and every file "nanograph check" is given comes through
 * here, so that one rule holds for all of them: what is held is one
 * chunk or the longest line, and a line longer than the caller's bound
 * is an error, not a reason to grow until the machine runs out of
 * memory (a thread file that is a symlink to /dev/zero).  Only regular
 * files are read, and pipes where the caller allows them: a device or a
 * socket has no end, a directory no lines.
 */
#ifndef NG_LINES_H
#define NG_LINES_H

#include <stdbool.h>
#include <stddef.h>

struct ng_lines {
	int fd;
	char *buf;
	size_t cap;		/* bytes allocated */
	size_t have;		/* bytes read and not yet handed out, from pos */
	size_t pos;		/* where the next line starts */
	size_t max;		/* the longest line taken, without its newline */
	bool eof;
};

/*
 * Open @path for ng_lines_next(). 0, -EISDIR for a directory, -EINVAL
 * for anything else that is neither a regular file nor (@pipe_ok) a
 * pipe, or -errno of open(2).  @max bounds a line.
 */
int ng_lines_open(struct ng_lines *l, const char *path, size_t max,
		  bool pipe_ok);

/*
 * The next line, without its newline, in *@line (*@len bytes, not
 * terminated, valid until the next call); *@partial when it is the
 * file's last and has no newline.  1 for a line, 0 at the end, -E2BIG
 * for a line longer than the bound, -ENOMEM or -errno of read(2).
 */
int ng_lines_next(struct ng_lines *l, const char **line, size_t *len,
		  bool *partial);

/* Close and free; @l may be opened again. */
void ng_lines_close(struct ng_lines *l);

/* The longest line of a recording's tables (a name, a symbol, numbers). */
#define NG_TSV_LINE_MAX	4096

/*
 * A recording's table DIR/NAME (sched.tsv, counters.tsv): @fn on each
 * whole line that is not a comment ('#'), without its newline, as a
 * string it may change; a torn last line (no newline) is not given.
 * Stops at @fn's first non-zero return and returns it; 0 at the end,
 * -ENOENT without the file, -E2BIG for a line over @max, or -errno.
 */
int ng_lines_each(const char *dir, const char *name, size_t max,
		  int (*fn)(void *priv, char *line), void *priv);

#endif /* NG_LINES_H */
