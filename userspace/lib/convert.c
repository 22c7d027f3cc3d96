// SPDX-License-Identifier: LGPL-2.1
/*
 * convert.c - the converter (the pipeline's sink, source.h): nanograph
 * events, in ring-buffer order, to one push/pop file per thread. This
 * file keeps the threads, their files and the symbols, and writes the
 * end; each event is taken in by conv_events.c, the tables beside the
 * files are conv_tables.c's (conv.h).
 *
 * Both "record" (per-CPU buffers merged by timestamp) and "convert"
 * (a trace.dat's) feed this through the same merge and sink, so both
 * write the same files from the same events.
 *
 * The idle task is pid 0 on every CPU, and each CPU's runs its own stack:
 * it gets one file per CPU, "0-<cpu>.txt".
 *
 * A recording can have more threads than the process may open files
 * (1024 by default): the writers whose threads ran least recently are
 * parked (their descriptor closed, the file kept) and reopened for
 * appending when their thread shows up again, so at most max_open are
 * open at once, and an EMFILE parks one more and retries.
 *
 * Symbols are resolved once per address through a small cache. Threads
 * and symbols are found through the one hash map (hashmap.h), keyed by
 * the bijective hash of the tid (or idle key) and of the address.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nanograph.h"
#include "calls.h"
#include "conv.h"

#define FIRST_SLOTS	64


/*
 * How many push/pop files to keep open: half of what the open-files limit
 * leaves after 64 for everything else (trace.dat, spill files, stdio),
 * at least 8, at most 1024. EMFILE is handled anyway.
 */
static unsigned int max_open_files(void)
{
	struct rlimit rl;
	rlim_t n = 1024;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY)
		n = rl.rlim_cur > 64 ? (rl.rlim_cur - 64) / 2 : 0;
	return n < 8 ? 8 : n > 1024 ? 1024 : n;
}

int ng_conv_new(struct ng_conv **cp, const char *dir,
		const struct ng_syms *syms)
{
	struct ng_conv *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->dir = strdup(dir);
	c->seed = ng_hash_seed();
	if (!c->dir || ng_hmap_init(&c->threads, FIRST_SLOTS) ||
	    ng_hmap_init(&c->syms_cache, FIRST_SLOTS)) {
		free(c->dir);
		ng_hmap_fini(&c->threads);
		free(c);
		return -ENOMEM;
	}
	c->syms = syms;
	c->lru.lru_prev = c->lru.lru_next = &c->lru;
	c->max_open = max_open_files();
	*cp = c;
	return 0;
}

void ng_conv_set_thread_info(struct ng_conv *c, ng_thread_info_fn fn,
			     void *priv)
{
	c->info = fn;
	c->info_priv = priv;
}

void ng_conv_set_window(struct ng_conv *c, uint64_t from_ns)
{
	c->window_from = from_ns;
}

void ng_conv_set_resolver(struct ng_conv *c, ng_sym_resolver_fn fn,
			  void *priv)
{
	c->resolver = fn;
	c->sym_priv = priv;
}

void ng_conv_set_cancel(struct ng_conv *c, const struct ng_cancel *cancel)
{
	if (cancel)
		c->cancel = *cancel;
	else
		memset(&c->cancel, 0, sizeof(c->cancel));
}

int ng_conv_check_cancel(struct ng_conv *c)
{
	if (!c->err && c->cancel.fn && c->cancel.fn(c->cancel.priv))
		c->err = -ECANCELED;
	return c->err;
}

/* A thread key's or an address's place in its map: equal keys, equal hashes. */
static uint64_t key_hash(const struct ng_conv *c, uint64_t key)
{
	return ng_hmap_u64_hash(key, c->seed);
}

static void lru_del(struct thread *t)
{
	t->lru_prev->lru_next = t->lru_next;
	t->lru_next->lru_prev = t->lru_prev;
}

static void lru_add(struct ng_conv *c, struct thread *t)
{
	t->lru_next = c->lru.lru_next;
	t->lru_prev = &c->lru;
	c->lru.lru_next->lru_prev = t;
	c->lru.lru_next = t;
}

/* Park the file of the thread that ran least recently: -EMFILE if none. */
static int park_oldest(struct ng_conv *c)
{
	struct thread *t = c->lru.lru_prev;

	if (t == &c->lru)
		return -EMFILE;
	lru_del(t);
	t->open = false;
	c->nr_open--;
	return ng_pp_park(t->w);
}

/* Room for one more open file, under max_open. */
static int make_room(struct ng_conv *c)
{
	int ret = 0;

	while (!ret && c->nr_open >= c->max_open)
		ret = park_oldest(c);
	return ret;
}

/* Count @t's writer as open and most recently used. */
static void now_open(struct ng_conv *c, struct thread *t)
{
	t->open = true;
	c->nr_open++;
	lru_add(c, t);
}

/* @t is about to be written: its file open, and first in the LRU order. */
static int touch(struct ng_conv *c, struct thread *t)
{
	int ret;

	if (t->open) {
		lru_del(t);
		lru_add(c, t);
		return 0;
	}
	ret = make_room(c);
	while (!ret && (ret = ng_pp_unpark(t->w)) &&
	       (ret == -EMFILE || ret == -ENFILE) && c->nr_open)
		ret = park_oldest(c);
	if (!ret)
		now_open(c, t);
	return ret;
}

/* Create @t's file, parking others for a descriptor if need be. */
static int thread_open(struct ng_conv *c, struct thread *t)
{
	int ret = make_room(c);

	while (!ret && (ret = ng_pp_open_name(&t->w, c->dir, t->name)) &&
	       (ret == -EMFILE || ret == -ENFILE) && c->nr_open)
		ret = park_oldest(c);
	if (!ret)
		now_open(c, t);
	return ret;
}

/*
 * The thread of @key (a tid, or -(cpu + 1)) if it has a file, else NULL.
 * The last one found first: a CPU's events come in runs of one task's.
 */
struct thread *conv_thread_find(struct ng_conv *c, int key)
{
	struct thread *t = c->last;

	if (t && t->key == key)
		return t;
	t = ng_hmap_find_hash(&c->threads, key_hash(c, (uint64_t)(int64_t)key));
	if (t)
		c->last = t;
	return t;
}

/* The thread an event belongs to, its file opened on first sight. */
struct thread *conv_thread_get(struct ng_conv *c, const struct ng_event *ev)
{
	int key = event_thread(ev);
	struct thread *t = conv_thread_find(c, key);
	int ret;

	if (t) {
		ret = touch(c, t);
		if (ret) {
			c->err = ret;
			return NULL;
		}
		return t;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		c->err = -ENOMEM;
		return NULL;
	}
	t->key = key;
	if (key > 0)
		snprintf(t->name, sizeof(t->name), "%d.txt", key);
	else
		snprintf(t->name, sizeof(t->name), "0-%d.txt", ev->cpu);
	ret = thread_open(c, t);
	if (ret) {
		free(t);
		c->err = ret;
		return NULL;
	}
	ret = ng_hmap_add(&c->threads, key_hash(c, (uint64_t)(int64_t)key), t);
	if (ret) {
		lru_del(t);
		c->nr_open--;
		ng_pp_abort(t->w);
		free(t);
		c->err = ret;
		return NULL;
	}
	return t;
}

/* Keep a string made for an unknown symbol until the converter goes. */
static const char *own(struct ng_conv *c, char *s)
{
	char **n;

	if (!s)
		return NULL;
	n = realloc(c->owned, (c->nr_owned + 1) * sizeof(*n));
	if (!n) {
		free(s);
		return NULL;
	}
	c->owned = n;
	c->owned[c->nr_owned++] = s;
	return s;
}

/*
 * Name @addr once: through the caller's resolver if it set one, else the
 * kallsyms table; an address neither knows is written in hex.
 */
const struct sym *conv_sym_get(struct ng_conv *c, uint64_t addr)
{
	uint64_t h = key_hash(c, addr);
	const char *name = NULL, *module = NULL;
	const struct ng_sym *ks;
	struct sym *s = ng_hmap_find_hash(&c->syms_cache, h);
	char *text;

	if (s)
		return s;
	if (c->resolver) {
		name = c->resolver(c->sym_priv, addr, &module);
	} else if (c->syms) {
		ks = ng_syms_lookup(c->syms, addr);
		if (ks) {
			name = ks->name;
			module = ks->module;
		}
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		c->err = -ENOMEM;
		return NULL;
	}
	s->addr = addr;
	if (!name) {
		c->sum.unresolved++;
		if (asprintf(&text, "0x%" PRIx64, addr) < 0)
			text = NULL;
		name = own(c, text);
		module = NULL;
	}
	s->name = name;
	s->module = module;
	if (!s->name || ng_hmap_add(&c->syms_cache, h, s)) {
		free(s);
		c->err = -ENOMEM;
		return NULL;
	}
	return s;
}

/* Threads in file order: idle tasks by CPU, then tids ascending. */
static int thread_cmp(const void *a, const void *b)
{
	const struct thread *x = *(struct thread *const *)a;
	const struct thread *y = *(struct thread *const *)b;

	if ((x->key < 0) != (y->key < 0))
		return x->key < 0 ? -1 : 1;
	if (x->key < 0)
		return x->key > y->key ? -1 : x->key < y->key;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* All threads in one sorted array; NULL on allocation failure. */
static struct thread **thread_array(struct ng_conv *c)
{
	struct thread **v = calloc(c->threads.count + 1, sizeof(*v));
	struct thread *t;
	size_t i = 0, n = 0;

	if (!v)
		return NULL;
	while ((t = ng_hmap_next(&c->threads, &i)))
		v[n++] = t;
	qsort(v, n, sizeof(*v), thread_cmp);
	return v;
}

/* threads.tsv from what the caller knows of each thread. */
static int write_threads(struct ng_conv *c, struct thread **v)
{
	struct ng_threads_writer *tw;
	size_t i;
	int ret;

	ret = ng_threads_open(&tw, c->dir);
	if (ret)
		return ret;
	for (i = 0; i < c->threads.count && !ret; i++) {
		struct thread *t = v[i];
		char comm[64] = "", tid[16];
		int pid = -1;

		if (t->key < 0) {
			snprintf(tid, sizeof(tid), "0-%d", -t->key - 1);
			snprintf(comm, sizeof(comm), "swapper/%d", -t->key - 1);
			ret = ng_threads_add_row(tw, tid, 0, comm);
			continue;
		}
		if (c->info)
			c->info(c->info_priv, t->key, &pid, comm, sizeof(comm));
		ret = ng_threads_add(tw, t->key, pid, comm);
	}
	if (ret) {
		ng_threads_abort(tw);
		return ret;
	}
	return ng_threads_close(tw);
}

/* Remove published files after a later failure: all or nothing. */
static void unpublish(struct ng_conv *c, struct thread **v, size_t n)
{
	char path[4096];
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", c->dir, v[i]->name);
		unlink(path);
	}
}

static void free_all(struct ng_conv *c)
{
	struct thread *t;
	size_t i = 0, j;
	void *s;

	while ((t = ng_hmap_next(&c->threads, &i))) {
		ng_pp_abort(t->w);
		ng_calls_free(t->calls);
		free(t->fn);
		free(t);
	}
	for (i = 0; (s = ng_hmap_next(&c->syms_cache, &i));)
		free(s);
	conv_tables_abort(c);
	for (j = 0; j < c->nr_owned; j++)
		free(c->owned[j]);
	free(c->owned);
	ng_hmap_fini(&c->threads);
	ng_hmap_fini(&c->syms_cache);
	free(c->held);
	free(c->dir);
	free(c);
}

/*
 * Write what each thread's func_calls still hold, with its open calls
 * (no exit: closed at the end like entries that never saw their exit).
 */
static int flush_calls(struct ng_conv *c)
{
	struct thread *t;
	size_t i = 0;
	int ret = 0;

	while (!ret && (t = ng_hmap_next(&c->threads, &i))) {
		struct rebuilt r = { c, t };

		if (!t->calls)
			continue;
		ret = touch(c, t);
		if (!ret)
			ret = ng_calls_flush(t->calls, conv_replay_rebuilt, &r);
	}
	return ret;
}

int ng_conv_finish(struct ng_conv *c, struct ng_conv_summary *sum)
{
	struct thread **v = NULL;
	size_t i, done = 0;
	struct stat st;
	char path[4096];
	int ret = c->err;

	if (!ret && c->nr_held)
		ret = -ENODATA;	/* no clock_sync and no clock given */
	if (!ret)
		ret = flush_calls(c);
	/* Closing reopens parked files one at a time: park all first. */
	while (!ret && c->nr_open)
		ret = park_oldest(c);
	if (!ret) {
		v = thread_array(c);
		if (!v)
			ret = -ENOMEM;
	}
	for (i = 0; !ret && i < c->threads.count; i++) {
		struct thread *t = v[i];

		ret = ng_conv_check_cancel(c);
		if (ret)
			break;
		ret = ng_pp_close(t->w, &t->st);
		t->w = NULL;
		c->sum.closed_at_end += t->st.closed_at_end;
		c->sum.clamped += t->st.clamped;
		c->sum.pushes += t->st.pushes;
		if (ret)
			break;
		done++;
		snprintf(path, sizeof(path), "%s/%s", c->dir, t->name);
		if (!stat(path, &st))
			c->sum.bytes += st.st_size;
	}
	c->sum.threads = done;
	c->sum.clock = c->clock;
	if (!ret)
		ret = write_threads(c, v);
	if (!ret)
		ret = conv_tables_commit(c);
	if (ret && v) {
		unpublish(c, v, done);
		c->sum.threads = 0;
	}
	if (sum)
		*sum = c->sum;
	free(v);
	free_all(c);
	return ret;
}

void ng_conv_abort(struct ng_conv *c)
{
	if (c)
		free_all(c);
}
