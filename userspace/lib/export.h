/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * export.h - library-internal: what the text exports share (export.c's
 * Chrome JSON, folded.c's folded stacks): an output file with a large
 * buffer and writes that format numbers by hand, no printf per event.
 */
#ifndef NG_EXPORT_H
#define NG_EXPORT_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "outfile.h"

/*
 * Open @path as an outfile with a large buffer (a JSON export can be
 * gigabytes), or write to @fp if it is given.
 */
int ng_export_open(struct ng_outfile *o, const char *path, FILE *fp);

/* Write bytes; the first failure sticks and makes the commit fail. */
static inline void out_put(struct ng_outfile *o, const char *s, size_t len)
{
	if (!o->err && fwrite(s, 1, len, o->fp) != len)
		o->err = errno ? -errno : -EIO;
}

/* out_put() of a NUL-terminated string. */
static inline void out_str(struct ng_outfile *o, const char *s)
{
	out_put(o, s, strlen(s));
}

/* Decimal digits of @v at @p; returns the end. No printf per event. */
static inline char *put_u64(char *p, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

#endif /* NG_EXPORT_H */
