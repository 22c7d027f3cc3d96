// SPDX-License-Identifier: LGPL-2.1
/*
 * sched.c - a recording's sched.tsv (record --sched; trace-format.md) as
 * each thread's spans off the CPU, and a call's wall time cut at them:
 * on a CPU, runnable (preempted, or woken and waiting for a CPU), and
 * asleep, with who woke it.
 *
 * The file is in time order.  A thread's "out" opens a span; a "wake" of
 * the thread while the span is open and asleep ends its sleep; the next
 * "in" closes the span.  A wake may come just before the sleep it ends
 * (the module writes it before the scheduler locks the sleeper's run
 * queue, maybe on another CPU): a wake while the thread is on a CPU is
 * kept for an "out" asleep that follows before its next "in", which it
 * then ends at once, unless another wake comes before the "in": then
 * that early one was stale (the thread went on without sleeping, and
 * slept later) and the sleep lasts until the new one.  An "in" while no
 * span is open drops a kept wake too.  An asleep span closed with no wake
 * seen was asleep until the "in" (so was one whose "in" was lost, until
 * the next "out"); a span still open at the end lasts to the end of
 * time; an "in" with no "out" before it (the thread was off the CPU when
 * the recording began) opens nothing.  Lines that do not parse are
 * skipped, as a newer file's kinds would be.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nanograph_analyze.h"
#include "lines.h"
#include "strmap.h"

struct thread_spans {
	int tid;
	struct ng_sched_span *v;
	size_t n, cap;
	bool open;		/* v[n - 1] waits for its "in" */
	bool early;		/* a wake came while on a CPU: */
	struct ng_sched_span wake;	/* its waker and time, for the next sleep */
	bool closed_early;	/* v[n - 1]'s sleep was ended by it */
};

struct ng_sched {
	struct ng_strmap *map;		/* tid (its bytes) -> thread_spans */
	struct thread_spans **t;	/* by tid, once loaded */
	size_t n;
};

static int tid_cmp(const void *a, const void *b)
{
	const struct thread_spans *x = *(void *const *)a, *y = *(void *const *)b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* @tid's spans, made empty if it has none yet; NULL: out of memory. */
static struct thread_spans *thread_of(struct ng_sched *s, int tid)
{
	struct thread_spans *t;
	bool added;

	t = ng_strmap_get(s->map, &tid, sizeof(tid), &added);
	if (t && added)
		t->tid = tid;
	return t;
}

/* A new span of @t, asleep or runnable from @ns. */
static int span_open(struct thread_spans *t, uint64_t ns, bool runnable)
{
	struct ng_sched_span *sp;

	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 8;

		sp = realloc(t->v, cap * sizeof(*sp));
		if (!sp)
			return -ENOMEM;
		t->v = sp;
		t->cap = cap;
	}
	sp = &t->v[t->n++];
	memset(sp, 0, sizeof(*sp));
	sp->out_ns = ns;
	sp->wake_ns = runnable ? ns : UINT64_MAX;
	sp->woken_ns = sp->wake_ns;
	sp->in_ns = UINT64_MAX;
	sp->waker = -1;
	t->open = true;
	t->closed_early = false;
	return 0;
}

/* The waker of a "wake" line into @sp; false if the line is torn. */
static bool parse_waker(const char *line, struct ng_sched_span *sp)
{
	char comm[64], ctx[16], fn[256];
	int waker;

	if (sscanf(line, "%*u\t%*s\t%*d\t%d\t%63[^\t]\t%15[^\t]\t%255[^\t\n]",
		   &waker, comm, ctx, fn) != 4)
		return false;
	sp->waker = waker;
	snprintf(sp->comm, sizeof(sp->comm), "%s", comm);
	snprintf(sp->ctx, sizeof(sp->ctx), "%s", ctx);
	snprintf(sp->fn, sizeof(sp->fn), "%s", fn);
	return true;
}

/* A wake at @ns while @t is on a CPU: kept for a sleep that follows. */
static int early_wake(struct thread_spans *t, const char *line, uint64_t ns)
{
	t->early = parse_waker(line, &t->wake);
	t->wake.woken_ns = ns;
	return 0;
}

/* One line: "NS out TID R|S STATE", "NS in TID" or "NS wake ...". */
static int sched_line(void *priv, char *line)
{
	struct ng_sched *s = priv;
	struct thread_spans *t;
	struct ng_sched_span *sp;
	char kind[8];
	uint64_t ns;
	int tid, ret;
	char rs;

	if (sscanf(line, "%" SCNu64 "\t%7s\t%d", &ns, kind, &tid) != 3)
		return 0;
	if (!strcmp(kind, "out")) {
		if (sscanf(line, "%*u\t%*s\t%*d\t%c", &rs) != 1)
			return 0;
		t = thread_of(s, tid);
		if (!t)
			return -ENOMEM;
		if (t->open) {		/* a lost "in": the old span ends here */
			sp = &t->v[t->n - 1];
			if (sp->wake_ns == UINT64_MAX)
				sp->wake_ns = sp->woken_ns = ns;
			sp->in_ns = ns;
		}
		ret = span_open(t, ns, rs == 'R');
		if (!ret && t->early && rs != 'R') {
			sp = &t->v[t->n - 1];
			sp->wake_ns = ns;
			sp->woken_ns = t->wake.woken_ns;
			sp->waker = t->wake.waker;
			memcpy(sp->comm, t->wake.comm, sizeof(sp->comm));
			memcpy(sp->ctx, t->wake.ctx, sizeof(sp->ctx));
			memcpy(sp->fn, t->wake.fn, sizeof(sp->fn));
			t->closed_early = true;
		}
		t->early = false;
		return ret;
	}
	t = thread_of(s, tid);
	if (!t)
		return -ENOMEM;
	if (!strcmp(kind, "wake") && !t->open)
		return early_wake(t, line, ns);
	if (!t->open) {		/* an "in" here: that wake was no sleep's */
		if (!strcmp(kind, "in"))
			t->early = false;
		return 0;
	}
	sp = &t->v[t->n - 1];
	if (!strcmp(kind, "in")) {
		if (sp->wake_ns == UINT64_MAX)
			sp->wake_ns = sp->woken_ns = ns;
		sp->in_ns = ns;
		t->open = false;
		t->early = false;
		return 0;
	}
	if (strcmp(kind, "wake"))
		return 0;
	/*
	 * A wake while asleep ends the sleep.  One after a sleep an earlier
	 * wake ended at once replaces it: a wake that really ended a sleep
	 * leaves the thread runnable, and none follows; this one came before
	 * a wait that did not sleep, the thread going on instead.
	 */
	if (sp->wake_ns != UINT64_MAX && !t->closed_early)
		return 0;
	if (!parse_waker(line, sp))
		return 0;
	sp->wake_ns = sp->woken_ns = ns;
	t->closed_early = false;
	return 0;
}

int ng_sched_load(struct ng_sched **sp, const char *dir)
{
	struct ng_sched *s;
	int ret;

	*sp = NULL;
	s = calloc(1, sizeof(*s));
	if (s)
		s->map = ng_strmap_new(sizeof(struct thread_spans));
	if (!s || !s->map) {
		free(s);
		return -ENOMEM;
	}
	ret = ng_lines_each(dir, "sched.tsv", NG_TSV_LINE_MAX, sched_line, s);
	if (!ret)
		ret = ng_strmap_values(s->map, (void ***)&s->t, &s->n);
	if (ret) {
		ng_sched_free(s);
		return ret;
	}
	qsort(s->t, s->n, sizeof(*s->t), tid_cmp);
	*sp = s;
	return 0;
}

void ng_sched_free(struct ng_sched *s)
{
	void **all;
	size_t i, n;

	if (!s)
		return;
	if (s->map && !ng_strmap_values(s->map, &all, &n)) {
		for (i = 0; i < n; i++)
			free(((struct thread_spans *)all[i])->v);
		free(all);
	}
	ng_strmap_free(s->map);
	free(s->t);
	free(s);
}

/* The length of [a, b) within [lo, hi). */
static uint64_t overlap(uint64_t a, uint64_t b, uint64_t lo, uint64_t hi)
{
	if (a < lo)
		a = lo;
	if (b > hi)
		b = hi;
	return b > a ? b - a : 0;
}

/* @tid's spans, NULL if it has none. */
static const struct thread_spans *thread_find(const struct ng_sched *s, int tid)
{
	struct thread_spans key = { .tid = tid }, *kp = &key, **found;

	found = s && s->n ? bsearch(&kp, s->t, s->n, sizeof(*s->t), tid_cmp) : NULL;
	return found ? *found : NULL;
}

size_t ng_sched_spans(const struct ng_sched *s, int tid,
		      const struct ng_sched_span **v)
{
	const struct thread_spans *t = thread_find(s, tid);

	*v = t ? t->v : NULL;
	return t ? t->n : 0;
}

void ng_sched_split(const struct ng_sched *s, int tid, uint64_t start,
		    uint64_t end, struct ng_sched_split *out)
{
	const struct thread_spans *t = thread_find(s, tid);
	size_t lo = 0, hi, mid;

	memset(out, 0, sizeof(*out));
	out->on_cpu = end > start ? end - start : 0;
	if (!t)
		return;
	/* The first span that ends after the call starts. */
	hi = t->n;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (t->v[mid].in_ns <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < t->n && t->v[lo].out_ns < end; lo++) {
		const struct ng_sched_span *sp = &t->v[lo];
		uint64_t asleep = overlap(sp->out_ns, sp->wake_ns, start, end);

		out->blocked += asleep;
		out->runnable += overlap(sp->wake_ns, sp->in_ns, start, end);
		if (asleep)
			out->woken = sp;
	}
	out->on_cpu -= out->blocked + out->runnable;
}

const char *ng_sched_waker_name(char *buf, size_t size,
				const struct ng_sched_span *sp)
{
	bool fn = strcmp(sp->fn, "-");

	if (strcmp(sp->ctx, "task"))
		snprintf(buf, size, "%s on %d %s%s%s", sp->ctx, sp->waker,
			 sp->comm, fn ? " in " : "", fn ? sp->fn : "");
	else
		snprintf(buf, size, "%d %s%s%s", sp->waker, sp->comm,
			 fn ? " in " : "", fn ? sp->fn : "");
	return buf;
}

const char *ng_sched_sleep_name(char *buf, size_t size,
				const struct ng_sched_span *sp)
{
	char who[NG_SCHED_WAKER_MAX];

	if (sp->waker < 0)
		return "Sleeping";
	snprintf(buf, size, "Sleeping: woken by %s",
		 ng_sched_waker_name(who, sizeof(who), sp));
	return buf;
}

const char *ng_sched_runnable_name(const struct ng_sched_span *sp)
{
	return sp->wake_ns == sp->out_ns && sp->waker < 0 ?
	       "Runnable (preempted)" : "Runnable";
}
