/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * nanograph_analyze.h - part of libnanograph (include nanograph.h):
 * reading a directory of push/pop files back for "nanograph report" and
 * "nanograph export".
 */
#ifndef NANOGRAPH_ANALYZE_H
#define NANOGRAPH_ANALYZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One thread of a recording: its file and what threads.tsv says of it. */
struct ng_rec_thread {
	char file[64];		/* "<tid>.txt" or "0-<cpu>.txt" */
	char tid[32];		/* the file name without ".txt" */
	int pid;		/* -1 when unknown */
	char comm[64];		/* the tid when threads.tsv does not name it */
};

struct ng_recording {
	char *dir;
	struct ng_rec_thread *threads;	/* sorted: idle tasks, then by tid */
	size_t nr_threads;
};

/*
 * List DIR's push/pop files and read threads.tsv (optional). -ENOENT when
 * DIR holds no push/pop file.
 */
int ng_recording_open(struct ng_recording *rec, const char *dir);
void ng_recording_close(struct ng_recording *rec);

/* Called for each line of a push/pop file, in order. */
struct ng_pp_visitor {
	int (*push)(void *priv, uint64_t ns, const char *label);
	int (*pop)(void *priv, uint64_t ns);
	void *priv;
};

/*
 * Read one push/pop file and call @v per line. The file must pass the
 * format (nanograph check): -EBADMSG otherwise, with the 1-based line in
 * *@bad_line. A visitor's nonzero return stops the walk and is returned.
 */
int ng_pp_walk(const char *path, const struct ng_pp_visitor *v,
	       uint64_t *bad_line);

/* ---- report ---- */

struct ng_func_stats {
	const char *label;	/* the function as the file names it, no '+' */
	uint64_t calls;
	uint64_t total_ns;	/* inclusive time, each call counted on its own */
	uint64_t self_ns;	/* total minus the direct children's totals */
	uint64_t max_ns;	/* longest single call, inclusive */
};

enum ng_sort { NG_SORT_TOTAL, NG_SORT_SELF, NG_SORT_CALLS, NG_SORT_AVG,
	       NG_SORT_MAX, NG_SORT_NAME };

struct ng_profile;

int ng_profile_new(struct ng_profile **pp);
/* Add one push/pop file's calls to @p; errors as ng_pp_walk(). */
int ng_profile_add_file(struct ng_profile *p, const char *path,
			uint64_t *bad_line);
/* The functions seen, sorted by @key (descending; names ascending). */
const struct ng_func_stats *ng_profile_sorted(struct ng_profile *p,
					      enum ng_sort key, size_t *nr);
/* Calls, and the span from the first to the last timestamp. */
void ng_profile_totals(const struct ng_profile *p, uint64_t *calls,
		       uint64_t *first_ns, uint64_t *last_ns);
void ng_profile_free(struct ng_profile *p);
/* "total", "self", ... to a key; -EINVAL for an unknown name. */
int ng_sort_parse(const char *name, enum ng_sort *key);

/* ---- export ---- */

/*
 * Write the recording as Chrome Trace Event JSON (complete "X" events,
 * thread and process names as metadata) to @path, through a temporary
 * name.
 */
int ng_export_chrome(const struct ng_recording *rec, const char *path,
		     uint64_t *bad_line, const char **bad_file);
/*
 * Write folded stacks ("comm;f1;f2;...;fn <self ns>", identical stacks
 * summed, lines sorted) to @path, through a temporary name.
 */
int ng_export_folded(const struct ng_recording *rec, const char *path,
		     uint64_t *bad_line, const char **bad_file);

#endif /* NANOGRAPH_ANALYZE_H */
