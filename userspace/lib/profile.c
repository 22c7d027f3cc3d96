// SPDX-License-Identifier: LGPL-2.1
/*
 * profile.c - the per-function profile that "nanograph report" prints:
 * calls, inclusive and self times summed per function over the walk of
 * each file (analyze.c), one entry per distinct function in a string map,
 * sorted on demand, and the difference of two profiles (report --diff).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nanograph.h"
#include "strmap.h"

struct ng_profile {
	struct ng_strmap *funcs;	/* label -> struct ng_func_stats */
	struct ng_func_stats *sorted;
	uint64_t calls, first, last;
	/* while a thread is added: the recording's sched.tsv, its tid */
	const struct ng_sched *sched;
	int tid;
};

/* An empty profile; files are added one by one so none is held whole. */
int ng_profile_new(struct ng_profile **pp)
{
	struct ng_profile *p = calloc(1, sizeof(*p));

	if (p)
		p->funcs = ng_strmap_new(sizeof(struct ng_func_stats));
	if (!p || !p->funcs) {
		free(p);
		return -ENOMEM;
	}
	*pp = p;
	return 0;
}

/* A call ends: it adds to its function's entry, found by its label. */
static int prof_leave(void *priv, const struct ng_call *c)
{
	struct ng_profile *p = priv;
	uint64_t dur = c->dur_ns;
	struct ng_func_stats *st;
	bool added;

	st = ng_strmap_get(p->funcs, c->label, strlen(c->label), &added);
	if (!st)
		return -ENOMEM;
	if (added)
		st->label = ng_strmap_key(st);
	st->calls++;
	st->total_ns += dur;
	st->self_ns += c->self_ns;
	if (p->sched) {
		struct ng_sched_split sp;

		ng_sched_split(p->sched, p->tid, c->start_ns, c->end_ns, &sp);
		st->on_cpu_ns += sp.on_cpu;
		st->off_cpu_ns += sp.runnable + sp.blocked;
	} else {
		st->on_cpu_ns += dur;
	}
	if (dur > st->max_ns)
		st->max_ns = dur;
	if (!p->calls || c->start_ns < p->first)
		p->first = c->start_ns;
	if (c->end_ns > p->last)
		p->last = c->end_ns;
	p->calls++;
	return 0;
}

/* The walk does the checking and the times; the profile only sums. */
int ng_profile_add_file(struct ng_profile *p, const char *path,
			struct ng_pp_bad *bad)
{
	struct ng_pp_visitor v = { .leave = prof_leave, .priv = p };

	return ng_pp_walk(path, &v, bad);
}

/*
 * As ng_profile_add_file(), through the recording's filter (the calls it
 * hides are not counted), naming the thread's file if it is bad.
 */
int ng_profile_add_thread(struct ng_profile *p, const struct ng_recording *rec,
			  size_t i, struct ng_pp_bad *bad)
{
	struct ng_pp_visitor v = { .leave = prof_leave, .priv = p };
	int ret;

	p->sched = rec->threads[i].idle ? NULL : rec->sched;
	p->tid = (int)rec->threads[i].id;
	ret = ng_recording_walk(rec, &rec->threads[i], &v, bad);
	p->sched = NULL;
	if (ret && ret != -ENOMEM && bad)
		bad->file = rec->threads[i].file;
	return ret;
}

/* Order by name: the last word of every sort key. */
static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct ng_func_stats *)a)->label,
		      ((const struct ng_func_stats *)b)->label);
}

/* One comparator per key: descending by a field, then by name. */
#define DEFINE_CMP(field)						\
static int cmp_##field(const void *a, const void *b)			\
{									\
	const struct ng_func_stats *x = a, *y = b;			\
									\
	if (x->field != y->field)					\
		return x->field > y->field ? -1 : 1;			\
	return cmp_name(a, b);						\
}
DEFINE_CMP(total_ns)
DEFINE_CMP(self_ns)
DEFINE_CMP(calls)
DEFINE_CMP(avg_ns)
DEFINE_CMP(max_ns)
DEFINE_CMP(on_cpu_ns)
DEFINE_CMP(off_cpu_ns)

/* Copies, so that sorting never disturbs the map that keeps counting. */
int ng_profile_sorted(struct ng_profile *p, enum ng_sort key,
		      const struct ng_func_stats **statsp, size_t *nr)
{
	static int (*const cmp[])(const void *, const void *) = {
		[NG_SORT_TOTAL] = cmp_total_ns, [NG_SORT_SELF] = cmp_self_ns,
		[NG_SORT_CALLS] = cmp_calls, [NG_SORT_AVG] = cmp_avg_ns,
		[NG_SORT_MAX] = cmp_max_ns, [NG_SORT_NAME] = cmp_name,
		[NG_SORT_ONCPU] = cmp_on_cpu_ns, [NG_SORT_OFFCPU] = cmp_off_cpu_ns,
	};
	struct ng_func_stats *s;
	void **all;
	size_t i, n;
	int ret;

	if ((unsigned int)key >= sizeof(cmp) / sizeof(cmp[0]))
		return -EINVAL;
	ret = ng_strmap_values(p->funcs, &all, &n);
	if (ret)
		return ret;
	s = realloc(p->sorted, (n ? n : 1) * sizeof(*s));
	if (!s) {
		free(all);
		return -ENOMEM;
	}
	p->sorted = s;
	for (i = 0; i < n; i++) {
		s[i] = *(struct ng_func_stats *)all[i];
		s[i].avg_ns = s[i].total_ns / s[i].calls;
	}
	free(all);
	qsort(s, n, sizeof(*s), cmp[key]);
	*statsp = s;
	*nr = n;
	return 0;
}

/* |b - a|: the size of a change, whichever way it went. */
static uint64_t absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* The size of a row's change in the sort key's column. */
static uint64_t diff_size(const struct ng_func_diff *d, enum ng_sort key)
{
	switch (key) {
	case NG_SORT_SELF:
		return absdiff(d->old.self_ns, d->new.self_ns);
	case NG_SORT_CALLS:
		return absdiff(d->old.calls, d->new.calls);
	case NG_SORT_AVG:
		return absdiff(d->old.avg_ns, d->new.avg_ns);
	case NG_SORT_MAX:
		return absdiff(d->old.max_ns, d->new.max_ns);
	case NG_SORT_ONCPU:
		return absdiff(d->old.on_cpu_ns, d->new.on_cpu_ns);
	case NG_SORT_OFFCPU:
		return absdiff(d->old.off_cpu_ns, d->new.off_cpu_ns);
	default:
		return absdiff(d->old.total_ns, d->new.total_ns);
	}
}

/* Largest change first, then by name; by name alone for NG_SORT_NAME. */
static int cmp_diff(const void *a, const void *b, void *keyp)
{
	const struct ng_func_diff *x = a, *y = b;
	enum ng_sort key = *(const enum ng_sort *)keyp;
	uint64_t dx, dy;

	if (key != NG_SORT_NAME) {
		dx = diff_size(x, key);
		dy = diff_size(y, key);
		if (dx != dy)
			return dx > dy ? -1 : 1;
	}
	return strcmp(x->label, y->label);
}

/*
 * Both profiles by name, merged in one pass like comm(1): a label in
 * both makes one row, a label in one a row with zeros on the other side.
 * Memory is one row per distinct function.
 */
int ng_profile_diff(struct ng_profile *old, struct ng_profile *new,
		    enum ng_sort key, struct ng_func_diff **rowsp, size_t *nr)
{
	const struct ng_func_stats *a, *b;
	struct ng_func_diff *rows, *d;
	size_t na, nb, i = 0, j = 0, n = 0;
	int ret, c;

	if ((unsigned int)key > NG_SORT_OFFCPU)
		return -EINVAL;
	ret = ng_profile_sorted(old, NG_SORT_NAME, &a, &na);
	if (!ret)
		ret = ng_profile_sorted(new, NG_SORT_NAME, &b, &nb);
	if (ret)
		return ret;
	rows = calloc(na + nb ? na + nb : 1, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	while (i < na || j < nb) {
		c = i == na ? 1 : j == nb ? -1 : strcmp(a[i].label, b[j].label);
		d = &rows[n++];
		if (c <= 0) {
			d->label = a[i].label;
			d->in_old = true;
			d->old = a[i++];
		}
		if (c >= 0) {
			d->label = b[j].label;
			d->in_new = true;
			d->new = b[j++];
		}
	}
	qsort_r(rows, n, sizeof(*rows), cmp_diff, &key);
	*rowsp = rows;
	*nr = n;
	return 0;
}

/* For the summary line: how much was recorded, and over what span. */
void ng_profile_totals(const struct ng_profile *p, uint64_t *calls,
		       uint64_t *first_ns, uint64_t *last_ns)
{
	*calls = p->calls;
	*first_ns = p->first;
	*last_ns = p->last;
}

/* Free the profile and every label it interned; @p may be NULL. */
void ng_profile_free(struct ng_profile *p)
{
	if (!p)
		return;
	ng_strmap_free(p->funcs);
	free(p->sorted);
	free(p);
}

/* The names the --sort option takes, one per enum ng_sort. */
int ng_sort_parse(const char *name, enum ng_sort *key)
{
	static const char *const names[] = {
		[NG_SORT_TOTAL] = "total", [NG_SORT_SELF] = "self",
		[NG_SORT_CALLS] = "calls", [NG_SORT_AVG] = "avg",
		[NG_SORT_MAX] = "max", [NG_SORT_NAME] = "name",
		[NG_SORT_ONCPU] = "oncpu", [NG_SORT_OFFCPU] = "offcpu",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i])) {
			*key = i;
			return 0;
		}
	return -EINVAL;
}
