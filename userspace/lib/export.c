// SPDX-License-Identifier: LGPL-2.1
/*
 * export.c - a recording in the formats other tools read:
 *
 *  - Chrome Trace Event JSON, which ui.perfetto.dev and chrome://tracing
 *    load: one complete ("X") event per call, with thread and process
 *    names as metadata. Perfetto does not import function-graph text, and
 *    pid/tid keyed JSON gives one track per thread.
 *  - Folded stacks ("comm;f1;...;fn weight"), which flamegraph.pl and
 *    speedscope read; the weight is fn's self time in nanoseconds.
 *
 * Times stay integers: microseconds with three decimals are printed from
 * nanoseconds, never through floating point.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nanograph.h"
#include "outfile.h"

/* The idle tasks' "0-<cpu>" becomes a tid above PID_MAX_LIMIT (2^22). */
#define NG_IDLE_TID_BASE	4194304

static long long json_tid(const struct ng_rec_thread *t)
{
	if (!strncmp(t->tid, "0-", 2))
		return NG_IDLE_TID_BASE + atoll(t->tid + 2);
	return atoll(t->tid);
}

/* A process to group the thread under: its pid, or itself if unknown. */
static long long json_pid(const struct ng_rec_thread *t)
{
	if (!strncmp(t->tid, "0-", 2))
		return 0;
	return t->pid > 0 ? t->pid : json_tid(t);
}

/* A JSON string body: quotes, backslashes and control characters escaped. */
static void json_str(struct ng_outfile *o, const char *s)
{
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			ng_outfile_printf(o, "\\%c", c);
		else if (c < 0x20)
			ng_outfile_printf(o, "\\u%04x", c);
		else
			ng_outfile_printf(o, "%c", c);
	}
}

struct open_call {
	char *label;
	uint64_t start, child;
};

/* One thread's stack while a file is walked. */
struct walk {
	struct ng_outfile *out;
	const struct ng_rec_thread *t;
	struct open_call *stack;
	size_t depth, cap;
	bool first;			/* no JSON event written yet */
	/* folded only */
	char *path;			/* "comm;f1;...;fn" of the open frames */
	size_t path_len, path_cap;
	size_t *path_at;		/* path length before each frame */
	struct folded *fold;
};

static int walk_push(struct walk *w, uint64_t ns, const char *label)
{
	if (w->depth == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 64;
		struct open_call *s = realloc(w->stack, cap * sizeof(*s));
		size_t *at = realloc(w->path_at, cap * sizeof(*at));

		if (s)
			w->stack = s;
		if (at)
			w->path_at = at;
		if (!s || !at)
			return -ENOMEM;
		w->cap = cap;
	}
	w->stack[w->depth].label = strdup(label);
	if (!w->stack[w->depth].label)
		return -ENOMEM;
	w->stack[w->depth].start = ns;
	w->stack[w->depth].child = 0;
	w->depth++;
	return 0;
}

/* Close the top call; the caller uses it, then frees its label. */
static struct open_call *walk_pop(struct walk *w, uint64_t ns, uint64_t *dur)
{
	struct open_call *c = &w->stack[--w->depth];

	*dur = ns - c->start;
	if (w->depth)
		w->stack[w->depth - 1].child += *dur;
	return c;
}

/* ---- Chrome JSON ---- */

static int chrome_push(void *priv, uint64_t ns, const char *label)
{
	return walk_push(priv, ns, label);
}

static int chrome_pop(void *priv, uint64_t ns)
{
	struct walk *w = priv;
	uint64_t dur;
	struct open_call *c = walk_pop(w, ns, &dur);

	ng_outfile_printf(w->out, ",\n{\"ph\":\"X\",\"pid\":%lld,\"tid\":%lld,\"ts\":%" PRIu64
			  ".%03u,\"dur\":%" PRIu64 ".%03u,\"name\":\"",
			  json_pid(w->t), json_tid(w->t), c->start / 1000,
			  (unsigned int)(c->start % 1000), dur / 1000,
			  (unsigned int)(dur % 1000));
	json_str(w->out, c->label);
	free(c->label);
	return ng_outfile_printf(w->out, "\"}");
}

/* Open DIR-relative or absolute @path as an outfile. */
static int out_open(struct ng_outfile *o, const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];

	if (!slash)
		return ng_outfile_open(o, ".", path);
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	return ng_outfile_open(o, slash == path ? "/" : dir, slash + 1);
}

static void walk_free(struct walk *w)
{
	while (w->depth)
		free(w->stack[--w->depth].label);
	free(w->stack);
	free(w->path_at);
	free(w->path);
}

int ng_export_chrome(const struct ng_recording *rec, const char *path,
		     uint64_t *bad_line, const char **bad_file)
{
	struct ng_pp_visitor v = { chrome_push, chrome_pop, NULL };
	struct ng_outfile out;
	char file[4096];
	struct walk w;
	size_t i;
	int ret;

	ret = out_open(&out, path);
	if (ret)
		return ret;
	/* Metadata first: one name per thread, one per process. */
	ng_outfile_printf(&out, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
			  "{\"ph\":\"M\",\"pid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"idle\"}}");
	for (i = 0; i < rec->nr_threads; i++) {
		const struct ng_rec_thread *t = &rec->threads[i];

		ng_outfile_printf(&out, ",\n{\"ph\":\"M\",\"pid\":%lld,\"tid\":%lld,\"name\":\"thread_name\",\"args\":{\"name\":\"",
				  json_pid(t), json_tid(t));
		json_str(&out, t->comm);
		ng_outfile_printf(&out, "\"}}");
		if (json_pid(t) == json_tid(t) && json_pid(t)) {
			ng_outfile_printf(&out, ",\n{\"ph\":\"M\",\"pid\":%lld,\"name\":\"process_name\",\"args\":{\"name\":\"",
					  json_pid(t));
			json_str(&out, t->comm);
			ng_outfile_printf(&out, "\"}}");
		}
	}
	for (i = 0; i < rec->nr_threads; i++) {
		memset(&w, 0, sizeof(w));
		w.out = &out;
		w.t = &rec->threads[i];
		v.priv = &w;
		snprintf(file, sizeof(file), "%s/%s", rec->dir, w.t->file);
		ret = ng_pp_walk(file, &v, bad_line);
		walk_free(&w);
		if (ret) {
			*bad_file = rec->threads[i].file;
			ng_outfile_abort(&out);
			return ret;
		}
	}
	ng_outfile_printf(&out, "\n]}\n");
	return ng_outfile_commit(&out);
}

/* ---- folded stacks ---- */

struct fold_entry {
	struct fold_entry *next;
	uint64_t weight;
	char stack[];
};

#define FOLD_BUCKETS	65536

struct folded {
	struct fold_entry *buckets[FOLD_BUCKETS];
	size_t nr;
};

static unsigned int fold_hash(const char *s, size_t len)
{
	unsigned int h = 5381;

	while (len--)
		h = h * 33 + (unsigned char)*s++;
	return h % FOLD_BUCKETS;
}

static int fold_add(struct folded *f, const char *stack, size_t len,
		    uint64_t weight)
{
	unsigned int h = fold_hash(stack, len);
	struct fold_entry *e;

	for (e = f->buckets[h]; e; e = e->next)
		if (!strncmp(e->stack, stack, len) && !e->stack[len]) {
			e->weight += weight;
			return 0;
		}
	e = malloc(sizeof(*e) + len + 1);
	if (!e)
		return -ENOMEM;
	memcpy(e->stack, stack, len);
	e->stack[len] = '\0';
	e->weight = weight;
	e->next = f->buckets[h];
	f->buckets[h] = e;
	f->nr++;
	return 0;
}

/* Append ";label" to the path of open frames. */
static int path_append(struct walk *w, const char *s)
{
	size_t len = strlen(s);

	if (w->path_len + len + 2 > w->path_cap) {
		size_t cap = (w->path_len + len + 2) * 2;
		char *p = realloc(w->path, cap);

		if (!p)
			return -ENOMEM;
		w->path = p;
		w->path_cap = cap;
	}
	memcpy(w->path + w->path_len, s, len + 1);
	w->path_len += len;
	return 0;
}

static int folded_push(void *priv, uint64_t ns, const char *label)
{
	struct walk *w = priv;
	int ret = walk_push(w, ns, label);

	if (ret)
		return ret;
	w->path_at[w->depth - 1] = w->path_len;
	ret = path_append(w, ";");
	return ret ? ret : path_append(w, label);
}

static int folded_pop(void *priv, uint64_t ns)
{
	struct walk *w = priv;
	uint64_t dur;
	struct open_call *c = walk_pop(w, ns, &dur);
	int ret = fold_add(w->fold, w->path, w->path_len, dur - c->child);

	free(c->label);
	w->path_len = w->path_at[w->depth];
	w->path[w->path_len] = '\0';
	return ret;
}

static int fold_cmp(const void *a, const void *b)
{
	return strcmp((*(struct fold_entry *const *)a)->stack,
		      (*(struct fold_entry *const *)b)->stack);
}

static void fold_free(struct folded *f)
{
	struct fold_entry *e, *next;
	size_t i;

	for (i = 0; i < FOLD_BUCKETS; i++)
		for (e = f->buckets[i]; e; e = next) {
			next = e->next;
			free(e);
		}
	free(f);
}

/* Stack names the comm first, so flame graphs group by program. */
int ng_export_folded(const struct ng_recording *rec, const char *path,
		     uint64_t *bad_line, const char **bad_file)
{
	struct ng_pp_visitor v = { folded_push, folded_pop, NULL };
	struct folded *f = calloc(1, sizeof(*f));
	struct fold_entry **all = NULL, *e;
	struct ng_outfile out;
	char file[4096];
	struct walk w;
	size_t i, n = 0;
	int ret = 0;

	if (!f)
		return -ENOMEM;
	for (i = 0; i < rec->nr_threads && !ret; i++) {
		memset(&w, 0, sizeof(w));
		w.t = &rec->threads[i];
		w.fold = f;
		v.priv = &w;
		ret = path_append(&w, w.t->comm);
		snprintf(file, sizeof(file), "%s/%s", rec->dir, w.t->file);
		if (!ret)
			ret = ng_pp_walk(file, &v, bad_line);
		if (ret)
			*bad_file = w.t->file;
		walk_free(&w);
	}
	if (!ret) {
		all = malloc((f->nr ? f->nr : 1) * sizeof(*all));
		if (!all)
			ret = -ENOMEM;
	}
	if (!ret) {
		for (i = 0; i < FOLD_BUCKETS; i++)
			for (e = f->buckets[i]; e; e = e->next)
				all[n++] = e;
		qsort(all, n, sizeof(*all), fold_cmp);
		ret = out_open(&out, path);
	}
	if (!ret) {
		for (i = 0; i < n; i++)
			ng_outfile_printf(&out, "%s %" PRIu64 "\n", all[i]->stack,
					  all[i]->weight);
		ret = ng_outfile_commit(&out);
	}
	free(all);
	fold_free(f);
	return ret;
}
