/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * outfile.h - library-internal: an output file written under a temporary
 * name (DIR/.NAME.tmp) and renamed to DIR/NAME once complete, so that a
 * reader who sees the final name sees a whole file.
 */
#ifndef NG_OUTFILE_H
#define NG_OUTFILE_H

#include <stdio.h>

struct ng_outfile {
	FILE *fp;
	char *tmp;	/* DIR/.NAME.tmp */
	char *final;	/* DIR/NAME */
	int err;	/* first write error (-errno), sticky */
};

int ng_outfile_open(struct ng_outfile *of, const char *dir, const char *name);
int ng_outfile_printf(struct ng_outfile *of, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int ng_outfile_commit(struct ng_outfile *of);
void ng_outfile_abort(struct ng_outfile *of);
/* ng_outfile_open() of a path: its directory (or ".") and its last name. */
int ng_outfile_open_path(struct ng_outfile *of, const char *path);

/*
 * Length of the valid UTF-8 sequence at @s that starts with a byte of
 * 0x80 or more, or 0 if it is not one (export.c): the exports write names
 * as UTF-8 and replace what is not.
 */
size_t ng_utf8_len(const unsigned char *s);

#endif /* NG_OUTFILE_H */
