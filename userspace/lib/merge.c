// SPDX-License-Identifier: LGPL-2.1
/*
 * merge.c - the recording pipeline's merge: the records of all CPUs of a
 * source (source.h) in one time order.
 *
 * Each CPU's records come in the order they were written; across CPUs
 * the earliest goes first, a tie to the lower CPU, so the order is the
 * same on every run and for every source. A binary min-heap holds each
 * CPU's next record: taking one and putting that CPU's next back costs
 * log2(CPUs) comparisons, not one per CPU, which matters on machines of
 * hundreds of CPUs where most are idle and their files short.
 *
 * Raw-mode counters are 56 bits wide and may wrap within a recording:
 * such a source says so (wraps) and its records are compared modulo
 * 2^56 (ng_counter_before()), so a wrap reorders nothing.
 */
#include <errno.h>
#include <stdlib.h>

#include "nanograph.h"
#include "nanograph_event.h"
#include "source.h"

/* One CPU's next record in the heap. */
struct slot {
	uint64_t ts;
	int cpu;
	const struct ng_event *ev;
};

struct heap {
	struct slot *v;
	int n;
	bool wraps;
};

/* Whether @a goes before @b: the earlier, or on a tie the lower CPU. */
static inline bool slot_before(const struct heap *h, const struct slot *a,
			       const struct slot *b)
{
	if (a->ts != b->ts)
		return h->wraps ? ng_counter_before(a->ts, b->ts) : a->ts < b->ts;
	return a->cpu < b->cpu;
}

/* Move the slot at @i down to where the heap order wants it. */
static void sift_down(struct heap *h, int i)
{
	struct slot s = h->v[i];

	for (;;) {
		int c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && slot_before(h, &h->v[c + 1], &h->v[c]))
			c++;
		if (!slot_before(h, &h->v[c], &s))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	h->v[i] = s;
}

/* Add a slot at the bottom and move it up. */
static void heap_push(struct heap *h, int cpu, const struct ng_event *ev)
{
	struct slot s = { ev->ts, cpu, ev };
	int i = h->n++;

	while (i) {
		int p = (i - 1) / 2;

		if (!slot_before(h, &s, &h->v[p]))
			break;
		h->v[i] = h->v[p];
		i = p;
	}
	h->v[i] = s;
}

/* The top's CPU has another record (@ev), or none (NULL): reorder. */
static void heap_replace_top(struct heap *h, const struct ng_event *ev)
{
	if (ev) {
		h->v[0].ts = ev->ts;
		h->v[0].ev = ev;
	} else if (--h->n) {
		h->v[0] = h->v[h->n];
	} else {
		return;
	}
	sift_down(h, 0);
}

/* Every CPU's first record into the heap. 0 or -errno. */
static int heap_fill(struct heap *h, struct ng_source *s)
{
	const struct ng_event *ev;
	int cpu, ret;

	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		ret = s->ops->next(s, cpu, &ev);
		if (ret < 0)
			return ret;
		if (ret)
			heap_push(h, cpu, ev);
	}
	return 0;
}

/* Pop records in order to @fn until it stops or they end. */
static int heap_drain(struct heap *h, struct ng_source *s, ng_event_fn fn,
		      void *priv)
{
	const struct ng_event *ev;
	int ret;

	while (h->n) {
		ret = fn(priv, h->v[0].ev);
		if (ret)
			return ret;
		ret = s->ops->next(s, h->v[0].cpu, &ev);
		if (ret < 0)
			return ret;
		heap_replace_top(h, ret ? ev : NULL);
	}
	return 0;
}

int ng_merge(struct ng_source *s, struct ng_conv *conv, ng_event_fn fn,
	     void *priv)
{
	struct heap h = { .wraps = s->wraps };
	int ret;

	h.v = calloc(s->nr_cpus > 0 ? s->nr_cpus : 1, sizeof(*h.v));
	s->cpu = calloc(s->nr_cpus > 0 ? s->nr_cpus : 1, s->ops->cpu_size);
	if (!h.v || !s->cpu) {
		free(h.v);
		free(s->cpu);
		s->cpu = NULL;
		return -ENOMEM;
	}
	s->conv = conv;
	ret = s->ops->begin ? s->ops->begin(s) : 0;
	if (!ret)
		ret = heap_fill(&h, s);
	if (!ret)
		ret = heap_drain(&h, s, fn, priv);
	s->ops->end(s);
	s->conv = NULL;
	free(s->cpu);
	s->cpu = NULL;
	free(h.v);
	return ret;
}
