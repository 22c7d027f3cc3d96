// SPDX-License-Identifier: LGPL-2.1
/*
 * analyze.c - read a recording back: which files it holds and whose they
 * are (threads.tsv), each file's calls with their exact inclusive and self
 * times (checked line by line by the rules of "nanograph check"); the
 * per-function profile that "nanograph report" prints from them is
 * profile.c.
 *
 * A recording can hold tens of millions of lines: files are streamed one
 * line at a time, and the walk keeps only the open frames of one thread.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nanograph.h"
#include "lines.h"
#include "ppline.h"

/* ---- the recording directory ---- */

/*
 * "<digits>" or "0-<digits>" (@len bytes): a tid, or a CPU's idle task.
 * Anything else is not ours, so it is refused rather than guessed at.
 */
bool ng_tid_parse(const char *s, size_t len, bool *idle, long long *id)
{
	unsigned long long v = 0;
	size_t i = 0;

	*idle = len > 2 && s[0] == '0' && s[1] == '-';
	if (*idle)
		i = 2;
	if (i == len || len - i > 10)
		return false;
	for (; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
	}
	if (v > INT_MAX)
		return false;
	*id = v;
	return true;
}

/* Idle tasks first (by CPU: they are tid 0), then threads by tid. */
static int thread_cmp(const void *a, const void *b)
{
	const struct ng_rec_thread *x = a, *y = b;

	if (x->idle != y->idle)
		return x->idle ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* A push/pop file's name fills in @t's tid; false for any other name. */
static bool pp_name(const char *name, struct ng_rec_thread *t)
{
	size_t len = strlen(name);

	if (len < 5 || len - 4 >= sizeof(t->tid) ||
	    strcmp(name + len - 4, ".txt") ||
	    !ng_tid_parse(name, len - 4, &t->idle, &t->id))
		return false;
	memcpy(t->tid, name, len - 4);
	t->tid[len - 4] = '\0';
	return true;
}

bool ng_pp_file_name(const char *name)
{
	struct ng_rec_thread t;

	return pp_name(name, &t);
}

/* One row of threads.tsv, parsed. */
struct tsv_row {
	bool idle;
	long long id;
	int pid;
	char comm[64];
};

/* Split "tid\tpid\tcomm" (@len bytes, no newline); false for the header or a bad row. */
static bool parse_row(const char *line, size_t len, struct tsv_row *r)
{
	const char *pid = memchr(line, '\t', len), *comm;
	char num[16];
	uint64_t v;

	if (!pid)
		return false;
	comm = memchr(pid + 1, '\t', line + len - pid - 1);
	if (!comm || !ng_tid_parse(line, pid - line, &r->idle, &r->id))
		return false;
	/* -1: not known (convert writes it); anything else not a pid: the same */
	r->pid = -1;
	if ((size_t)(comm - pid - 1) < sizeof(num)) {
		memcpy(num, pid + 1, comm - pid - 1);
		num[comm - pid - 1] = '\0';
		if (!ng_parse_num(num, 0, 0, INT_MAX, &v))
			r->pid = (int)v;
	}
	comm++;
	snprintf(r->comm, sizeof(r->comm), "%.*s",
		 (int)(line + len - comm), comm);
	return true;
}

/* Rows in the order of threads: idle tasks by CPU, then by tid. */
static int row_cmp(const void *a, const void *b)
{
	const struct tsv_row *x = a, *y = b;

	if (x->idle != y->idle)
		return x->idle ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The row of a thread, or NULL: rows are few, threads may be many. */
static const struct tsv_row *find_row(const struct tsv_row *rows, size_t nr,
				      bool idle, long long id)
{
	struct tsv_row key = { .idle = idle, .id = id };

	return nr ? bsearch(&key, rows, nr, sizeof(*rows), row_cmp) : NULL;
}

/* A threads.tsv line is short: tid, pid and a comm of 16 bytes. */
#define TSV_LINE_MAX	4096

/*
 * The rows of threads.tsv that @want (sorted, @nr_want of them) names,
 * sorted, in *@rowsp: memory follows the recording's threads, not the
 * size of the table, which is only read (a regular file, lines.h).
 */
static size_t tsv_rows(const char *dir, const struct tsv_row *want,
		       size_t nr_want, struct tsv_row **rowsp, bool *opened)
{
	struct tsv_row *rows = NULL, *r, row;
	size_t nr = 0, cap = 0, len;
	struct ng_lines in;
	const char *line;
	char *path;
	bool partial;

	*rowsp = NULL;
	if (asprintf(&path, "%s/threads.tsv", dir) < 0)
		return 0;
	*opened = !ng_lines_open(&in, path, TSV_LINE_MAX, false);
	free(path);
	if (!*opened)
		return 0;
	while (ng_lines_next(&in, &line, &len, &partial) > 0) {
		if (len && line[len - 1] == '\r')
			len--;
		if (!parse_row(line, len, &row) ||
		    !find_row(want, nr_want, row.idle, row.id))
			continue;
		if (nr == cap) {
			cap = cap ? 2 * cap : 64;
			r = realloc(rows, cap * sizeof(*r));
			if (!r)
				break;
			rows = r;
		}
		rows[nr++] = row;
	}
	ng_lines_close(&in);
	if (nr)
		qsort(rows, nr, sizeof(*rows), row_cmp);
	*rowsp = rows;
	return nr;
}

/*
 * Name each thread from threads.tsv: its pid and comm, and the comm of its
 * process's main thread (the row whose tid is the pid), which may have a
 * row but no file of its own: read twice, for the threads, then for
 * their processes. Names are a convenience: a missing or odd table
 * leaves the tids as names rather than failing the report.
 */
static void read_threads_tsv(struct ng_recording *rec)
{
	struct tsv_row *want, *rows = NULL, *procs = NULL;
	size_t nr = 0, nr_procs = 0, i, n;
	const struct tsv_row *row;
	struct ng_rec_thread *t;
	bool opened;

	want = calloc(rec->nr_threads ? rec->nr_threads : 1, sizeof(*want));
	if (want) {
		/* rec->threads are in row_cmp's order already */
		for (i = 0; i < rec->nr_threads; i++) {
			want[i].idle = rec->threads[i].idle;
			want[i].id = rec->threads[i].id;
		}
		nr = tsv_rows(rec->dir, want, rec->nr_threads, &rows,
			      &rec->have_threads_tsv);
		for (i = n = 0; i < nr; i++)
			if (rows[i].pid > 0)
				want[n++] = (struct tsv_row){ .id = rows[i].pid };
		if (n) {
			qsort(want, n, sizeof(*want), row_cmp);
			nr_procs = tsv_rows(rec->dir, want, n, &procs, &opened);
		}
	}
	free(want);
	for (t = rec->threads; t < rec->threads + rec->nr_threads; t++) {
		row = find_row(rows, nr, t->idle, t->id);
		if (row) {
			t->pid = row->pid;
			if (row->comm[0])
				memcpy(t->comm, row->comm, sizeof(t->comm));
		}
	}
	for (t = rec->threads; t < rec->threads + rec->nr_threads; t++) {
		row = t->pid > 0 ? find_row(procs, nr_procs, false, t->pid) : NULL;
		if (t->idle)
			snprintf(t->process, sizeof(t->process), "idle");
		else if (row && row->comm[0])
			memcpy(t->process, row->comm, sizeof(t->process));
		else
			memcpy(t->process, t->comm, sizeof(t->process));
	}
	free(rows);
	free(procs);
}

/* A recording is whatever push/pop files DIR holds; names are optional. */
int ng_recording_open(struct ng_recording *rec, const char *dir)
{
	struct ng_rec_thread t, *n;
	struct dirent *de;
	size_t cap = 0, len;
	int ret = 0;
	DIR *d;

	memset(rec, 0, sizeof(*rec));
	d = opendir(dir);
	if (!d)
		return -errno;
	rec->dir = strdup(dir);
	if (!rec->dir)
		ret = -ENOMEM;
	/* "DIR/" names its files "DIR/5.txt", not "DIR//5.txt" */
	for (len = ret ? 0 : strlen(rec->dir); len > 1 && rec->dir[len - 1] == '/'; )
		rec->dir[--len] = '\0';
	while (!ret && (de = readdir(d))) {
		memset(&t, 0, sizeof(t));
		if (!pp_name(de->d_name, &t))
			continue;
		if (rec->nr_threads == cap) {
			cap = cap ? 2 * cap : 64;
			n = realloc(rec->threads, cap * sizeof(*n));
			if (!n) {
				ret = -ENOMEM;
				break;
			}
			rec->threads = n;
		}
		if (asprintf(&t.path, "%s%s%s", rec->dir,
			     strcmp(rec->dir, "/") ? "/" : "", de->d_name) < 0) {
			ret = -ENOMEM;
			break;
		}
		t.file = t.path + strlen(t.path) - strlen(de->d_name);
		t.pid = t.idle ? 0 : -1;
		snprintf(t.comm, sizeof(t.comm), "%s", t.tid);
		rec->threads[rec->nr_threads++] = t;
	}
	closedir(d);
	if (!ret && !rec->nr_threads)
		ret = -ENOENT;
	if (ret) {
		ng_recording_close(rec);
		return ret;
	}
	qsort(rec->threads, rec->nr_threads, sizeof(*rec->threads), thread_cmp);
	read_threads_tsv(rec);
	/* No sched.tsv, or one that cannot be read: every call on a CPU. */
	if (ng_sched_load(&rec->sched, rec->dir))
		rec->sched = NULL;
	/* No counters.tsv, or one that cannot be read: no counts shown. */
	if (ng_counts_load(&rec->counts, rec->dir))
		rec->counts = NULL;
	/* No args.tsv nor retval.tsv: calls without values. */
	if (ng_values_load(&rec->values, rec->dir))
		rec->values = NULL;
	return 0;
}

int ng_rec_thread_key(const struct ng_rec_thread *t)
{
	return t->idle ? -(int)t->id - 1 : (int)t->id;
}

bool ng_recording_draws_sched(const struct ng_recording *rec)
{
	return rec->sched && !rec->comp && !ng_filter_hides_calls(rec->filter);
}

/* Thread @tid (not an idle task): a binary search, threads being sorted. */
static const struct ng_rec_thread *thread_of_tid(const struct ng_recording *rec,
						 long long tid)
{
	size_t lo = 0, hi = rec->nr_threads, mid;
	const struct ng_rec_thread *t;

	while (lo < hi) {		/* idle tasks first, then by tid */
		mid = lo + (hi - lo) / 2;
		t = &rec->threads[mid];
		if (t->idle || t->id < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	t = lo < rec->nr_threads ? &rec->threads[lo] : NULL;
	return t && !t->idle && t->id == tid ? t : NULL;
}

const struct ng_rec_thread *ng_recording_waker(const struct ng_recording *rec,
					       const struct ng_sched_span *sp)
{
	if (sp->waker <= 0 || strcmp(sp->ctx, "task"))
		return NULL;
	return thread_of_tid(rec, sp->waker);
}

/* Free what ng_recording_open() allocated; @rec may be opened again. */
void ng_recording_close(struct ng_recording *rec)
{
	size_t i;

	for (i = 0; i < rec->nr_threads; i++)
		free(rec->threads[i].path);
	free(rec->threads);
	free(rec->dir);
	free(rec->comp);
	ng_sched_free(rec->sched);
	ng_counts_free(rec->counts);
	ng_values_free(rec->values);
	memset(rec, 0, sizeof(*rec));
}

/*
 * Check every file before anything goes to a stream, which cannot take
 * back what it was given: the same checks as the walk, so a bad input
 * leaves the stream untouched, as it leaves no file under a path.
 */
int ng_recording_check(const struct ng_recording *rec, struct ng_pp_bad *bad)
{
	const struct ng_rec_thread *t;
	struct ng_pp_check c;
	int ret;

	for (t = rec->threads; t < rec->threads + rec->nr_threads; t++) {
		ret = ng_pp_check_file(t->path, &c);
		if (!ret && !c.error)
			continue;
		bad->file = t->file;
		if (ret < 0)
			return ret;
		bad->line = c.error_line;
		snprintf(bad->why, sizeof(bad->why), "%s", c.error_msg);
		return -EBADMSG;
	}
	return 0;
}

/* ---- walking a push/pop file ---- */

/* An open frame; its label sits at label_at in the walk's label buffer. */
struct frame {
	uint64_t start;
	uint64_t child;		/* inclusive time of the calls it made */
	size_t label_at;
	uint64_t below;		/* calls closed below it so far */
	uint64_t kids;		/* of them, its direct children */
};

struct walk {
	struct frame *stack;
	size_t depth, cap;
	char *labels;		/* the open frames' labels, NUL-separated */
	size_t labels_len, labels_cap;
	struct ng_pp_bad *bad;
	uint64_t line;
};

/* Record the first (and only) error, in the words of pushpop_check.c. */
__attribute__((format(printf, 2, 3)))
static int walk_fail(struct walk *w, const char *fmt, ...)
{
	va_list ap;

	w->bad->line = w->line;
	va_start(ap, fmt);
	vsnprintf(w->bad->why, sizeof(w->bad->why), fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

/* Open a frame: its start, and its label kept until it closes. */
static int walk_push(struct walk *w, uint64_t ns, const char *label,
		     size_t len)
{
	if (w->depth == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 64;
		struct frame *s = realloc(w->stack, cap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		w->stack = s;
		w->cap = cap;
	}
	if (w->labels_len + len + 1 > w->labels_cap) {
		size_t cap = 2 * (w->labels_len + len + 1);
		char *l = realloc(w->labels, cap);

		if (!l)
			return -ENOMEM;
		w->labels = l;
		w->labels_cap = cap;
	}
	w->stack[w->depth++] = (struct frame){ ns, 0, w->labels_len, 0, 0 };
	memcpy(w->labels + w->labels_len, label, len);
	w->labels[w->labels_len + len] = '\0';
	w->labels_len += len + 1;
	return 0;
}

/*
 * Check one line (without its newline) and hand it to @v. The grammar is
 * ppline.h's and the rules across lines come in the order of check_line()
 * in pushpop_check.c, so report and export refuse exactly what
 * "nanograph check" refuses, at the same line.
 */
static int walk_line(struct walk *w, const struct ng_pp_visitor *v,
		     const char *line, size_t len, uint64_t *last,
		     bool partial)
{
	struct ng_pp_line l;
	const char *why;
	uint64_t ns;
	int ret;

	why = ng_pp_parse_line(line, len, &l);
	if (why)
		return walk_fail(w, "%s", why);
	ns = l.ns;
	if (w->line > 1 && ns < *last)
		return walk_fail(w, "timestamp %" PRIu64 " is before the previous %" PRIu64,
				 ns, *last);
	*last = ns;
	if (l.pop && !w->depth)
		return walk_fail(w, "POP with no open frame");
	if (partial)
		return walk_fail(w, "missing newline at end of file");

	if (!l.pop) {
		if (w->depth == NG_PP_DEPTH_MAX)
			return walk_fail(w, "more than %u open frames",
					 NG_PP_DEPTH_MAX);
		ret = walk_push(w, ns, l.label, l.label_len);
		if (!ret && v->enter)
			ret = v->enter(v->priv, w->labels + w->stack[w->depth - 1].label_at,
				       ns, w->depth - 1);
	} else {
		struct frame *f = &w->stack[--w->depth];
		struct ng_call c = {
			.label = w->labels + f->label_at,
			.start_ns = f->start,
			.end_ns = ns,
			.self_ns = ns - f->start - f->child,
			.depth = w->depth,
			.dur_ns = ns - f->start,
			.calls_below = f->below,
			.children = f->kids,
		};

		if (w->depth) {
			f[-1].child += ns - f->start;
			f[-1].below += f->below + 1;
			f[-1].kids++;
		}
		ret = v->leave ? v->leave(v->priv, &c) : 0;
		w->labels_len = f->label_at;
	}
	return ret;
}

/*
 * Stream one file (a regular one: lines.h): memory is one chunk (or the
 * longest line) whatever the size of the file, no line is copied, and
 * the stack holds only the open frames, at most NG_PP_DEPTH_MAX.
 */
int ng_pp_walk(const char *path, const struct ng_pp_visitor *v,
	       struct ng_pp_bad *bad)
{
	struct ng_pp_bad ignored;
	struct walk w = { .bad = bad ? bad : &ignored };
	struct ng_lines in;
	const char *line;
	uint64_t last = 0;
	bool partial;
	size_t len;
	int ret;

	memset(w.bad, 0, sizeof(*w.bad));
	ret = ng_lines_open(&in, path, NG_PP_LINE_MAX, false);
	if (ret == -EINVAL || ret == -EISDIR)
		return walk_fail(&w, "not a regular file");
	if (ret)
		return ret;
	while ((ret = ng_lines_next(&in, &line, &len, &partial)) > 0) {
		w.line++;
		ret = walk_line(&w, v, line, len, &last, partial);
		if (ret)
			break;
	}
	if (ret == -E2BIG) {
		w.line++;
		ret = walk_fail(&w, "line longer than %u bytes", NG_PP_LINE_MAX);
	}
	if (!ret && w.depth)
		ret = walk_fail(&w, "%zu frame(s) still open at end of file",
				w.depth);
	ng_lines_close(&in);
	free(w.stack);
	free(w.labels);
	return ret;
}

/* ---- what the files hold ---- */

/* Each call counts once; outermost calls bound the span. */
static int totals_leave(void *priv, const struct ng_call *c)
{
	struct ng_rec_totals *t = priv;

	if (!t->calls || c->start_ns < t->first_ns)
		t->first_ns = c->start_ns;
	if (c->end_ns > t->last_ns)
		t->last_ns = c->end_ns;
	t->calls++;
	return 0;
}

/* A walk per file that keeps nothing but the counts: flat in memory. */
int ng_recording_totals(const struct ng_recording *rec,
			struct ng_rec_totals *t, struct ng_pp_bad *bad)
{
	struct ng_pp_visitor v = { .leave = totals_leave, .priv = t };
	size_t i;
	int ret;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < rec->nr_threads; i++) {
		ret = ng_pp_walk(rec->threads[i].path, &v, bad);
		if (ret) {
			if (ret != -ENOMEM && bad)
				bad->file = rec->threads[i].file;
			return ret;
		}
	}
	t->threads = rec->nr_threads;
	return 0;
}
