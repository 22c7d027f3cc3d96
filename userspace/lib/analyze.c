// SPDX-License-Identifier: LGPL-2.1
/*
 * analyze.c - read a recording back: its files, its threads, each file's
 * lines (checked as "nanograph check" does), and the per-function profile
 * "nanograph report" prints.
 *
 * Files are streamed line by line: a recording can hold tens of millions
 * of lines, and only one thread's open frames are ever in memory.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nanograph.h"

/* A push/pop file's name: digits, or "0-" and digits, then ".txt". */
static bool pp_name(const char *name)
{
	size_t len = strlen(name), digits;

	if (len < 5 || len >= sizeof(((struct ng_rec_thread *)0)->tid) ||
	    strcmp(name + len - 4, ".txt"))
		return false;
	if (!strncmp(name, "0-", 2) && len > 6)
		name += 2, len -= 2;
	digits = strspn(name, "0123456789");
	return digits && digits == len - 4;
}

/* Idle tasks first (by CPU), then threads by tid. */
static int thread_cmp(const void *a, const void *b)
{
	const struct ng_rec_thread *x = a, *y = b;
	bool xi = strchr(x->tid, '-'), yi = strchr(y->tid, '-');
	long long xv, yv;

	if (xi != yi)
		return xi ? -1 : 1;
	xv = atoll(xi ? x->tid + 2 : x->tid);
	yv = atoll(yi ? y->tid + 2 : y->tid);
	return xv < yv ? -1 : xv > yv;
}

/* Fill in pid and comm from threads.tsv rows "tid\tpid\tcomm". */
static void read_threads_tsv(struct ng_recording *rec)
{
	char path[4096], line[256];
	FILE *f;
	size_t i;

	snprintf(path, sizeof(path), "%s/threads.tsv", rec->dir);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *tid = line, *pid, *comm;

		line[strcspn(line, "\n")] = '\0';
		pid = strchr(tid, '\t');
		if (!pid)
			continue;
		*pid++ = '\0';
		comm = strchr(pid, '\t');
		if (!comm)
			continue;
		*comm++ = '\0';
		for (i = 0; i < rec->nr_threads; i++) {
			if (strcmp(rec->threads[i].tid, tid))
				continue;
			rec->threads[i].pid = atoi(pid);
			if (*comm)
				snprintf(rec->threads[i].comm,
					 sizeof(rec->threads[i].comm), "%s", comm);
			break;
		}
	}
	fclose(f);
}

int ng_recording_open(struct ng_recording *rec, const char *dir)
{
	struct ng_rec_thread *t;
	struct dirent *de;
	size_t cap = 0;
	DIR *d;

	memset(rec, 0, sizeof(*rec));
	d = opendir(dir);
	if (!d)
		return -errno;
	rec->dir = strdup(dir);
	if (!rec->dir) {
		closedir(d);
		return -ENOMEM;
	}
	while ((de = readdir(d))) {
		if (!pp_name(de->d_name))
			continue;
		if (rec->nr_threads == cap) {
			cap = cap ? 2 * cap : 64;
			t = realloc(rec->threads, cap * sizeof(*t));
			if (!t) {
				closedir(d);
				ng_recording_close(rec);
				return -ENOMEM;
			}
			rec->threads = t;
		}
		t = &rec->threads[rec->nr_threads++];
		/* pp_name() checked the length: both fit. */
		memcpy(t->file, de->d_name, strlen(de->d_name) + 1);
		memcpy(t->tid, de->d_name, strlen(de->d_name) - 4);
		t->tid[strlen(de->d_name) - 4] = '\0';
		snprintf(t->comm, sizeof(t->comm), "%s", t->tid);
		t->pid = -1;
	}
	closedir(d);
	if (!rec->nr_threads) {
		ng_recording_close(rec);
		return -ENOENT;
	}
	qsort(rec->threads, rec->nr_threads, sizeof(*rec->threads), thread_cmp);
	read_threads_tsv(rec);
	return 0;
}

void ng_recording_close(struct ng_recording *rec)
{
	free(rec->dir);
	free(rec->threads);
	memset(rec, 0, sizeof(*rec));
}

/* "<digits>:" then "POP" or "+label"; the rules of pushpop_check.c. */
int ng_pp_walk(const char *path, const struct ng_pp_visitor *v,
	       uint64_t *bad_line)
{
	uint64_t lineno = 0, depth = 0, last = 0, ns;
	size_t cap = 0;
	char *line = NULL, *p;
	ssize_t len;
	int ret = 0;
	FILE *f;

	*bad_line = 0;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while ((len = getline(&line, &cap, f)) > 0) {
		lineno++;
		if (line[len - 1] != '\n' || !isdigit((unsigned char)line[0]))
			goto bad;
		line[--len] = '\0';
		errno = 0;
		ns = strtoull(line, &p, 10);
		if (errno || *p != ':' || ns < last)
			goto bad;
		last = ns;
		p++;
		if (!strcmp(p, "POP")) {
			if (!depth)
				goto bad;
			depth--;
			ret = v->pop ? v->pop(v->priv, ns) : 0;
		} else if (p[0] == '+' && p[1]) {
			depth++;
			ret = v->push ? v->push(v->priv, ns, p + 1) : 0;
		} else {
			goto bad;
		}
		if (ret)
			goto out;
	}
	if (ferror(f)) {
		ret = -EIO;
		goto out;
	}
	if (depth) {
		lineno++;	/* the end of the file */
		goto bad;
	}
	goto out;
bad:
	*bad_line = lineno;
	ret = -EBADMSG;
out:
	free(line);
	fclose(f);
	return ret;
}

/* ---- the profile ---- */

struct fentry {
	struct fentry *next;
	struct ng_func_stats st;
};

struct frame {
	struct fentry *fn;
	uint64_t start, child;
};

#define PROFILE_BUCKETS	4096

struct ng_profile {
	struct fentry *buckets[PROFILE_BUCKETS];
	size_t nr;
	struct ng_func_stats *sorted;
	struct frame *stack;
	size_t depth, cap;
	uint64_t calls, first, last;
	bool any;
};

static unsigned int str_hash(const char *s)
{
	unsigned int h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h % PROFILE_BUCKETS;
}

int ng_profile_new(struct ng_profile **pp)
{
	*pp = calloc(1, sizeof(**pp));
	return *pp ? 0 : -ENOMEM;
}

static struct fentry *fn_get(struct ng_profile *p, const char *label)
{
	unsigned int h = str_hash(label);
	struct fentry *e;

	for (e = p->buckets[h]; e; e = e->next)
		if (!strcmp(e->st.label, label))
			return e;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->st.label = strdup(label);
	if (!e->st.label) {
		free(e);
		return NULL;
	}
	e->next = p->buckets[h];
	p->buckets[h] = e;
	p->nr++;
	return e;
}

static void see_time(struct ng_profile *p, uint64_t ns)
{
	if (!p->any || ns < p->first)
		p->first = ns;
	if (ns > p->last)
		p->last = ns;
	p->any = true;
}

static int prof_push(void *priv, uint64_t ns, const char *label)
{
	struct ng_profile *p = priv;
	struct fentry *fn = fn_get(p, label);

	if (!fn)
		return -ENOMEM;
	if (p->depth == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 64;
		struct frame *s = realloc(p->stack, cap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		p->stack = s;
		p->cap = cap;
	}
	p->stack[p->depth++] = (struct frame){ fn, ns, 0 };
	see_time(p, ns);
	return 0;
}

/* A call ends: its time is its own minus its children's, and its parent's child time. */
static int prof_pop(void *priv, uint64_t ns)
{
	struct ng_profile *p = priv;
	struct frame *f = &p->stack[--p->depth];
	uint64_t dur = ns - f->start;
	struct ng_func_stats *st = &f->fn->st;

	st->calls++;
	st->total_ns += dur;
	st->self_ns += dur - f->child;
	if (dur > st->max_ns)
		st->max_ns = dur;
	if (p->depth)
		p->stack[p->depth - 1].child += dur;
	p->calls++;
	see_time(p, ns);
	return 0;
}

int ng_profile_add_file(struct ng_profile *p, const char *path,
			uint64_t *bad_line)
{
	struct ng_pp_visitor v = { prof_push, prof_pop, p };

	p->depth = 0;
	return ng_pp_walk(path, &v, bad_line);
}

static enum ng_sort sort_key;

static uint64_t key_of(const struct ng_func_stats *s)
{
	switch (sort_key) {
	case NG_SORT_SELF:
		return s->self_ns;
	case NG_SORT_CALLS:
		return s->calls;
	case NG_SORT_AVG:
		return s->calls ? s->total_ns / s->calls : 0;
	case NG_SORT_MAX:
		return s->max_ns;
	default:
		return s->total_ns;
	}
}

static int stats_cmp(const void *a, const void *b)
{
	const struct ng_func_stats *x = a, *y = b;
	uint64_t kx, ky;

	if (sort_key != NG_SORT_NAME) {
		kx = key_of(x);
		ky = key_of(y);
		if (kx != ky)
			return kx > ky ? -1 : 1;
	}
	return strcmp(x->label, y->label);
}

const struct ng_func_stats *ng_profile_sorted(struct ng_profile *p,
					      enum ng_sort key, size_t *nr)
{
	struct fentry *e;
	size_t i, n = 0;

	free(p->sorted);
	p->sorted = malloc((p->nr ? p->nr : 1) * sizeof(*p->sorted));
	if (!p->sorted)
		return NULL;
	for (i = 0; i < PROFILE_BUCKETS; i++)
		for (e = p->buckets[i]; e; e = e->next)
			p->sorted[n++] = e->st;
	sort_key = key;
	qsort(p->sorted, n, sizeof(*p->sorted), stats_cmp);
	*nr = n;
	return p->sorted;
}

void ng_profile_totals(const struct ng_profile *p, uint64_t *calls,
		       uint64_t *first_ns, uint64_t *last_ns)
{
	*calls = p->calls;
	*first_ns = p->first;
	*last_ns = p->last;
}

void ng_profile_free(struct ng_profile *p)
{
	struct fentry *e, *next;
	size_t i;

	if (!p)
		return;
	for (i = 0; i < PROFILE_BUCKETS; i++)
		for (e = p->buckets[i]; e; e = next) {
			next = e->next;
			free((char *)e->st.label);
			free(e);
		}
	free(p->sorted);
	free(p->stack);
	free(p);
}

int ng_sort_parse(const char *name, enum ng_sort *key)
{
	static const char *const names[] = {
		[NG_SORT_TOTAL] = "total", [NG_SORT_SELF] = "self",
		[NG_SORT_CALLS] = "calls", [NG_SORT_AVG] = "avg",
		[NG_SORT_MAX] = "max", [NG_SORT_NAME] = "name",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i])) {
			*key = i;
			return 0;
		}
	return -EINVAL;
}
