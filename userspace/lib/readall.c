// SPDX-License-Identifier: LGPL-2.1
/*
 * readall.c - read a file whole (readall.h): one copy for the control
 * files (ctl.c) and info.json (info.c); write a spill file (cap_events.c,
 * cap_raw.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "readall.h"

/* Read until EOF: a listing may be longer than one page or one read. */
int ng_read_all(int fd, size_t max, char **bufp, size_t *lenp)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (cap - len < 2) {	/* a byte to read and the NUL */
			char *nbuf = realloc(buf, cap * 2);

			if (!nbuf) {
				free(buf);
				return -ENOMEM;
			}
			buf = nbuf;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			free(buf);
			return n;
		}
		if (n == 0)
			break;
		len += n;
		if (len > max) {
			free(buf);
			return -EFBIG;
		}
	}
	buf[len] = '\0';
	*bufp = buf;
	if (lenp)
		*lenp = len;
	return 0;
}

int ng_spill_write(int fd, const void *buf, size_t n)
{
	ssize_t w = write(fd, buf, n);

	if (w < 0)
		return -errno;
	return (size_t)w == n ? 0 : -ENOSPC;
}
