/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * outfile.h - library-internal: an output file written under a temporary
 * name (DIR/.NAME.XXXXXX, made with O_EXCL) and renamed to DIR/NAME
 * once complete, so that a reader who sees the final name sees a whole file.
 */
#ifndef NG_OUTFILE_H
#define NG_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

struct ng_outfile {
	FILE *fp;
	char *tmp;	/* DIR/.NAME.XXXXXX */
	char *final;	/* DIR/NAME; NULL for a stream */
	int err;	/* first write error (-errno), sticky */
	bool own;	/* a stream we opened (a device, a FIFO): closed at the end */
};

int ng_outfile_open(struct ng_outfile *of, const char *dir, const char *name);
/* The same for a path: DIR/NAME, or NAME in the current directory. */
int ng_outfile_open_path(struct ng_outfile *of, const char *path);
/*
 * Write to @fp, a stream the caller owns (stdout): no temporary name;
 * commit flushes it and reports the first error, abort leaves it open.
 */
void ng_outfile_stream(struct ng_outfile *of, FILE *fp);
/* Writes to a parked file reopen it first (for appending). */
int ng_outfile_printf(struct ng_outfile *of, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * Flush and close the file descriptor, keeping the file being written:
 * for a writer of more files than it may hold open. 0 or the sticky error.
 */
int ng_outfile_park(struct ng_outfile *of);
/* Reopen a parked file for appending (nothing if open): 0 or -errno. */
int ng_outfile_unpark(struct ng_outfile *of);
int ng_outfile_commit(struct ng_outfile *of);
void ng_outfile_abort(struct ng_outfile *of);

#endif /* NG_OUTFILE_H */
