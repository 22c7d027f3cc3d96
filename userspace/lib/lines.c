// SPDX-License-Identifier: LGPL-2.1
/*
 * lines.c - read an input file line by line, bounded (lines.h): large
 * read()s split in place, so no line is copied and memory is one chunk,
 * or the longest line where that is longer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lines.h"

/* Bytes read at a time; a longer line grows the buffer, up to the bound. */
#define LINES_CHUNK	(1U << 20)

/* Which files are read: regular ones, and pipes where @pipe_ok. */
static int lines_kind(int fd, bool pipe_ok)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (S_ISREG(st.st_mode) || (pipe_ok && S_ISFIFO(st.st_mode)))
		return 0;
	return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
}

int ng_lines_open(struct ng_lines *l, const char *path, size_t max,
		  bool pipe_ok)
{
	int ret;

	memset(l, 0, sizeof(*l));
	l->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (l->fd < 0)
		return -errno;
	ret = lines_kind(l->fd, pipe_ok);
	/* O_NONBLOCK only so that opening a FIFO cannot hang; reads block */
	if (!ret && fcntl(l->fd, F_SETFL, 0))
		ret = -errno;
	if (!ret) {
		l->cap = LINES_CHUNK;
		l->buf = malloc(l->cap);
		if (!l->buf)
			ret = -ENOMEM;
	}
	if (ret) {
		close(l->fd);
		l->fd = -1;
		return ret;
	}
	l->max = max;
	posix_fadvise(l->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	return 0;
}

/* Room for more: what is left moves to the front, or the buffer grows. */
static int lines_fill(struct ng_lines *l)
{
	ssize_t n;
	char *p;

	if (l->pos) {
		memmove(l->buf, l->buf + l->pos, l->have);
		l->pos = 0;
	}
	if (l->have == l->cap) {
		/* a line as long as the bound and its newline fit, no more */
		if (l->have > l->max)
			return -E2BIG;
		p = realloc(l->buf, 2 * l->cap);
		if (!p)
			return -ENOMEM;
		l->buf = p;
		l->cap *= 2;
	}
	do
		n = read(l->fd, l->buf + l->have, l->cap - l->have);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	l->have += n;
	l->eof = !n;
	return 0;
}

int ng_lines_next(struct ng_lines *l, const char **line, size_t *len,
		  bool *partial)
{
	char *start, *nl;
	int ret;

	for (;;) {
		start = l->buf + l->pos;
		nl = l->have ? memchr(start, '\n', l->have) : NULL;
		if (nl || (l->eof && l->have)) {
			*len = nl ? (size_t)(nl - start) : l->have;
			if (*len > l->max)
				return -E2BIG;
			*line = start;
			*partial = !nl;
			l->have -= *len + !!nl;
			l->pos = l->have ? l->pos + *len + !!nl : 0;
			return 1;
		}
		if (l->eof)
			return 0;
		ret = lines_fill(l);
		if (ret)
			return ret;
	}
}

void ng_lines_close(struct ng_lines *l)
{
	if (l->fd >= 0)
		close(l->fd);
	free(l->buf);
	memset(l, 0, sizeof(*l));
	l->fd = -1;
}

int ng_lines_each(const char *dir, const char *name, size_t max,
		  int (*fn)(void *priv, char *line), void *priv)
{
	char path[4096], *copy = malloc(max + 1);
	struct ng_lines l;
	const char *line;
	bool partial;
	size_t len;
	int ret;

	if (!copy)
		return -ENOMEM;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path)) {
		free(copy);
		return -ENAMETOOLONG;
	}
	ret = ng_lines_open(&l, path, max, false);
	while (!ret && (ret = ng_lines_next(&l, &line, &len, &partial)) > 0) {
		ret = 0;
		if (partial || !len || line[0] == '#')
			continue;
		memcpy(copy, line, len);
		copy[len] = '\0';
		ret = fn(priv, copy);
	}
	ng_lines_close(&l);
	free(copy);
	return ret;
}
