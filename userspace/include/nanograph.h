/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * libnanograph: the collector library of nanograph.
 *
 * The library knows nothing of the command line. Every function that can
 * fail returns 0 (or a count) on success and a negative errno on failure;
 * none prints anything. The library is LGPL-2.1 like libtracefs, which it
 * uses; the nanograph command and the tests are GPL-2.0.
 */
#ifndef NANOGRAPH_H
#define NANOGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define NANOGRAPH_VERSION	"0.1.0"

/* ---- control directory of the module (ctl.c) -------------------------- */

/* Where the module puts its control files, and the variable that moves it. */
#define NG_CTL_DEFAULT_ROOT	"/sys/kernel/nanograph"
#define NG_CTL_ENV		"NANOGRAPH_SYSFS"
/* Largest control file ng_ctl_read() accepts before giving up with -EFBIG. */
#define NG_CTL_MAX_READ		(64UL << 20)

struct ng_ctl {
	char root[4096];
};

/*
 * Point @ctl at @root; with @root NULL, at $NANOGRAPH_SYSFS if set and not
 * empty, else at NG_CTL_DEFAULT_ROOT. The directory need not exist yet.
 * Returns 0, or -ENAMETOOLONG.
 */
int ng_ctl_init(struct ng_ctl *ctl, const char *root);
const char *ng_ctl_root(const struct ng_ctl *ctl);
/* True when the control directory exists, i.e. the module is loaded. */
bool ng_ctl_available(const struct ng_ctl *ctl);
/*
 * Read control file @name whole into a malloc'd, NUL-terminated buffer.
 * *@bufp is the caller's to free(); *@lenp (may be NULL) gets its length.
 */
int ng_ctl_read(const struct ng_ctl *ctl, const char *name, char **bufp,
		size_t *lenp);
/* Replace (">") or add to (">>") the content of control file @name. */
int ng_ctl_write(const struct ng_ctl *ctl, const char *name, const char *val);
int ng_ctl_append(const struct ng_ctl *ctl, const char *name, const char *val);
/*
 * Names of the regular files in the control directory, sorted. Returns
 * their count and a malloc'd array in *@namesp; free with ng_ctl_list_free().
 */
int ng_ctl_list(const struct ng_ctl *ctl, char ***namesp);
void ng_ctl_list_free(char **names, int count);

/* ---- tracefs (tracefs.c) ----------------------------------------------- */

/*
 * Find the mounted tracefs through libtracefs. *@dirp gets a string owned
 * by libtracefs. Returns 0, or -ENODEV when tracefs is not mounted; never
 * mounts it.
 */
int ng_tracefs_find(const char **dirp);

/* ---- push/pop output (pushpop.c, threads.c) ---------------------------- */

/* What a push/pop writer did, including how often it had to fix its input. */
struct ng_pp_stats {
	uint64_t pushes;	/* push lines written */
	uint64_t pops;		/* pop lines written, closed_at_end included */
	uint64_t max_depth;	/* deepest nesting seen */
	uint64_t clamped;	/* timestamps raised to the previous one */
	uint64_t closed_at_end;	/* frames still open at close, popped there */
	uint64_t dropped_pops;	/* pops with no open frame, not written */
};

struct ng_pp_writer;

/*
 * Start DIR/<tid>.txt. Lines go to DIR/.<tid>.txt.tmp, which is renamed to
 * the final name by ng_pp_close(), so the final name only ever holds a
 * whole file.
 */
int ng_pp_open(struct ng_pp_writer **wp, const char *dir, pid_t tid);
/*
 * Write a push of @func at @ns; @module is NULL for the core kernel.
 * Returns -EINVAL (and writes nothing) for an empty name or one holding
 * a newline.
 */
int ng_pp_push(struct ng_pp_writer *w, uint64_t ns, const char *func,
	       const char *module);
/* Write a pop at @ns; a pop with no open frame is dropped and counted. */
int ng_pp_pop(struct ng_pp_writer *w, uint64_t ns);
uint64_t ng_pp_depth(const struct ng_pp_writer *w);
/*
 * Pop the frames still open at the last timestamp, then publish the file.
 * Always frees @w. *@stats (may be NULL) gets the counts even on error; on
 * error the temporary file is removed and the final name never appears.
 */
int ng_pp_close(struct ng_pp_writer *w, struct ng_pp_stats *stats);
/* Drop the file being written: remove the temporary name, free @w. */
void ng_pp_abort(struct ng_pp_writer *w);

struct ng_threads_writer;

/* DIR/threads.tsv: header "tid\tpid\tcomm", then one row per thread. */
int ng_threads_open(struct ng_threads_writer **wp, const char *dir);
/* Control characters in @comm (tab, newline, ...) are written as '?'. */
int ng_threads_add(struct ng_threads_writer *w, pid_t tid, pid_t pid,
		   const char *comm);
int ng_threads_close(struct ng_threads_writer *w);
void ng_threads_abort(struct ng_threads_writer *w);

/* ---- push/pop format checker (pushpop_check.c) ------------------------- */

enum ng_pp_error {
	NG_PP_OK = 0,
	NG_PP_ESYNTAX,		/* line is not <ns>:POP or <ns>:+<label> */
	NG_PP_ETIME,		/* timestamp lower than the previous line's */
	NG_PP_EUNDERFLOW,	/* POP with no open frame */
	NG_PP_EUNBALANCED,	/* frames still open at end of file */
};

struct ng_pp_check {
	uint64_t lines;
	uint64_t pushes;
	uint64_t pops;
	uint64_t depth;		/* open frames after the last line */
	uint64_t max_depth;
	uint64_t first_ns;	/* valid when pushes + pops > 0 */
	uint64_t last_ns;
	enum ng_pp_error error;	/* first error found, NG_PP_OK if none */
	uint64_t error_line;	/* 1-based line of that error */
	char error_msg[160];
};

/*
 * Check @len bytes of push/pop text. Fills *@c and returns c->error; the
 * counts cover the whole input even after an error.
 */
int ng_pp_check_buf(const char *buf, size_t len, struct ng_pp_check *c);
/*
 * Check the file at @path the same way. Returns -errno if it cannot be
 * read, else c->error (>= 0).
 */
int ng_pp_check_file(const char *path, struct ng_pp_check *c);
const char *ng_pp_error_name(enum ng_pp_error e);

#endif /* NANOGRAPH_H */
