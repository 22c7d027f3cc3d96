// SPDX-License-Identifier: LGPL-2.1
/*
 * errors.c - "replay --errors": where the error codes of a recording came
 * from.  For every call that returned an error code (retval.tsv), the
 * path from its thread's outermost call down to the call that produced
 * the error first, its origin: the deepest call in a chain of calls
 * that each returned that same code from a callee that returned it.
 * Paths are grouped and counted, most frequent first:
 *
 *   # COUNT  ERROR         PATH (outermost > ... > origin; * returned it)
 *         1  -9 (EBADF)    __x64_sys_read* > ksys_read*
 *
 * retsnoop shows such stacks as they happen, one at a time; here they
 * come from a complete recording, counted.
 *
 * The walk keeps, per open call, the chain of its first callee that
 * returned an error ("ksys_read* > fdget*"); a later callee that returns
 * the same code carries the same error on (an ERR_PTR() handed from one
 * callee to the next) and adds no path; one that returns another code
 * ends the chain kept and keeps its own.  A call that returns the code
 * of its chain takes the chain over, prefixed with itself; a call that
 * does not ends it: the path is then the open calls above plus the
 * chain.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nanograph.h"
#include "strmap.h"

/* An open call of the walk, and the failed chain of its callees. */
struct frame {
	char *label;
	int err;		/* the error of @chain; 0: none */
	char *chain;		/* "callee* > ... > origin*" */
};

struct path_count {
	uint64_t count;
	int err;
};

struct ew {
	const struct ng_recording *rec;
	const struct ng_rec_thread *t;
	struct frame *stack;
	size_t n, cap;
	struct ng_strmap *paths;	/* "ERR\tPATH" -> struct path_count */
	uint64_t errors;	/* calls that returned an error code */
};

/* A call entered: one more open call, with no failed callee yet. */
static int ew_enter(void *priv, const char *label, uint64_t ns, size_t depth)
{
	struct ew *w = priv;
	struct frame *f;

	(void)ns;
	(void)depth;
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 32;

		f = realloc(w->stack, cap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		w->stack = f;
		w->cap = cap;
	}
	f = &w->stack[w->n];
	f->label = strdup(label);
	f->err = 0;
	f->chain = NULL;
	if (!f->label)
		return -ENOMEM;
	w->n++;
	return 0;
}

/*
 * A chain ends: its path, the first @above open calls then @chain, is
 * counted under error @err.
 */
static int count_path(struct ew *w, size_t above, int err, const char *chain)
{
	struct path_count *pc;
	size_t len = 16 + strlen(chain), j;
	char *key, *p;

	for (j = 0; j < above; j++)
		len += strlen(w->stack[j].label) + 3;
	key = malloc(len);
	if (!key)
		return -ENOMEM;
	p = key + sprintf(key, "%d\t", err);
	for (j = 0; j < above; j++)
		p += sprintf(p, "%s > ", w->stack[j].label);
	strcpy(p, chain);
	pc = ng_strmap_get(w->paths, key, strlen(key), NULL);
	free(key);
	if (!pc)
		return -ENOMEM;
	pc->err = err;
	pc->count++;
	return 0;
}

/* The failed chain frame @i holds ends there (it did not carry it on). */
static int chain_end(struct ew *w, size_t i)
{
	struct frame *f = &w->stack[i];
	int ret = count_path(w, i + 1, f->err, f->chain);

	free(f->chain);
	f->chain = NULL;
	f->err = 0;
	return ret;
}

/*
 * A call left: if it returned an error code, it carries on its failed
 * callee's chain when that returned the same code, or starts one (and
 * the callee's chain of another code ends below it); the chain goes to
 * its caller, or ends at an outermost call.
 */
static int ew_leave(void *priv, const struct ng_call *c)
{
	struct ew *w = priv;
	const struct ng_call_values *v;
	struct frame *f, *up;
	char *chain = NULL;
	int err = 0, ret = 0;

	if (!w->n)
		return 0;
	f = &w->stack[w->n - 1];
	v = ng_values_ret(w->rec->values, ng_rec_thread_key(w->t), c->end_ns,
			  (unsigned int)c->depth);
	if (v)
		err = ng_retval_errno(w->rec->values, c->label, v->retval);
	if (f->err && f->err != err)
		ret = chain_end(w, w->n - 1);
	if (!ret && err) {
		w->errors++;
		chain = malloc(strlen(f->label) + 5 + (f->chain ? strlen(f->chain) : 0));
		if (!chain)
			ret = -ENOMEM;
		else if (f->chain)
			sprintf(chain, "%s* > %s", f->label, f->chain);
		else
			sprintf(chain, "%s*", f->label);
	}
	free(f->chain);
	free(f->label);
	w->n--;
	if (ret || !chain)
		return ret;
	if (!w->n) {
		/* An outermost call: its chain ends with it. */
		ret = count_path(w, 0, err, chain);
		free(chain);
		return ret;
	}
	up = &w->stack[w->n - 1];
	/* The same code from an earlier callee: that one is the origin. */
	if (up->err == err) {
		free(chain);
		return 0;
	}
	/* Another code: the caller's earlier failed callee's chain ends. */
	if (up->err)
		ret = chain_end(w, w->n - 1);
	up->err = err;
	up->chain = chain;
	return ret;
}

static int count_cmp(const void *a, const void *b)
{
	const struct path_count *x = *(struct path_count *const *)a;
	const struct path_count *y = *(struct path_count *const *)b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(ng_strmap_key(x), ng_strmap_key(y));
}

/*
 * The @nr counts of @vals (sorted), one a line: the count in @width
 * columns, the error ("-9 (EBADF)"), and what the key has after its
 * code (a path, a function), escaped as every label printed is.
 */
static void print_counts(FILE *fp, void **vals, size_t nr, int width)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		const struct path_count *pc = vals[i];
		const char *name = ng_errno_name(pc->err);
		char err[48];

		if (name)
			snprintf(err, sizeof(err), "-%d (%s)", pc->err, name);
		else
			snprintf(err, sizeof(err), "-%d", pc->err);
		fprintf(fp, "%*" PRIu64 "  %-23s  ", width, pc->count, err);
		ng_fputs_escaped(strchr(ng_strmap_key(pc), '\t') + 1, fp);
		fputc('\n', fp);
	}
}

int ng_replay_errors(const struct ng_recording *rec, FILE *fp,
		     struct ng_pp_bad *bad)
{
	struct ew w = { .rec = rec };
	struct ng_pp_visitor v = { ew_enter, ew_leave, &w };
	struct ng_pp_bad ignored;
	void **vals = NULL;
	size_t i, nr = 0;
	int ret = 0;

	if (!bad)
		bad = &ignored;
	memset(bad, 0, sizeof(*bad));
	if (!ng_values_have_retvals(rec->values))
		return -ENOENT;
	w.paths = ng_strmap_new(sizeof(struct path_count));
	if (!w.paths)
		return -ENOMEM;
	for (i = 0; !ret && i < rec->nr_threads; i++) {
		w.t = &rec->threads[i];
		ret = ng_recording_walk(rec, w.t, &v, bad);
		if (ret && ret != -ENOMEM)
			bad->file = w.t->file;
		/* Calls still open at the file's end: their chains end. */
		while (w.n) {
			struct frame *f = &w.stack[w.n - 1];

			if (!ret && f->err)
				ret = chain_end(&w, w.n - 1);
			free(f->chain);
			free(f->label);
			w.n--;
		}
	}
	if (!ret)
		ret = ng_strmap_values(w.paths, &vals, &nr);
	if (!ret) {
		qsort(vals, nr, sizeof(*vals), count_cmp);
		fprintf(fp, "# %" PRIu64 " calls returned an error code; %zu path%s\n",
			w.errors, nr, nr == 1 ? "" : "s");
		if (nr)
			fprintf(fp, "#   COUNT  ERROR                    PATH (outermost > ... > origin; * returned it)\n");
	}
	if (!ret)
		print_counts(fp, vals, nr, 9);
	if (!ret && ferror(fp))
		ret = -EIO;
	free(vals);
	free(w.stack);
	ng_strmap_free(w.paths);
	return ret;
}

/* ---- report: error codes by function ---- */

struct fe {
	const struct ng_recording *rec;
	int tid;
	struct ng_strmap *counts;	/* "ERR\tLABEL" -> struct path_count */
};

static int fe_leave(void *priv, const struct ng_call *c)
{
	struct fe *e = priv;
	const struct ng_call_values *v;
	struct path_count *pc;
	char key[512];
	int err;

	v = ng_values_ret(e->rec->values, e->tid, c->end_ns, (unsigned int)c->depth);
	err = v ? ng_retval_errno(e->rec->values, c->label, v->retval) : 0;
	if (!err)
		return 0;
	snprintf(key, sizeof(key), "%d\t%s", err, c->label);
	pc = ng_strmap_get(e->counts, key, strlen(key), NULL);
	if (!pc)
		return -ENOMEM;
	pc->err = err;
	pc->count++;
	return 0;
}

int ng_report_errors(const struct ng_recording *rec, FILE *fp,
		     struct ng_pp_bad *bad)
{
	struct fe e = { .rec = rec };
	struct ng_pp_visitor v = { NULL, fe_leave, &e };
	void **vals = NULL;
	size_t i, nr = 0;
	int ret = 0;

	if (!ng_values_have_retvals(rec->values))
		return -ENOENT;
	e.counts = ng_strmap_new(sizeof(struct path_count));
	if (!e.counts)
		return -ENOMEM;
	for (i = 0; !ret && i < rec->nr_threads; i++) {
		e.tid = ng_rec_thread_key(&rec->threads[i]);
		ret = ng_recording_walk(rec, &rec->threads[i], &v, bad);
		if (ret && ret != -ENOMEM)
			bad->file = rec->threads[i].file;
	}
	if (!ret)
		ret = ng_strmap_values(e.counts, &vals, &nr);
	if (!ret) {
		qsort(vals, nr, sizeof(*vals), count_cmp);
		fprintf(fp, "\n# errors: calls that returned an error code, by function and code\n");
		fprintf(fp, "%10s  %-23s  Function\n", "Calls", "Error");
	}
	if (!ret)
		print_counts(fp, vals, nr, 10);
	free(vals);
	ng_strmap_free(e.counts);
	return ret;
}
