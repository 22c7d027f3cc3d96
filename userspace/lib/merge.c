// SPDX-License-Identifier: LGPL-2.1
/*
 * merge.c - the recording pipeline's merge: the records of all CPUs of a
 * source (source.h) in one time order.
 *
 * Each CPU's records come in the order they were written; across CPUs
 * the earliest goes first, a tie to the lower CPU, so the order is the
 * same on every run and for every source.
 *
 * The CPUs' next records are the leaves of a tournament tree, a binary
 * tree kept in an array as a heap is (node n's children are 2n and
 * 2n + 1), whose inner nodes hold the key of the loser of the match
 * played there and whose node 0 holds the overall winner's: the
 * earliest record. When the winner's CPU moves on to its next record,
 * only the matches on its path to the root are played again: log2(CPUs)
 * comparisons, a fixed number, each a swap done or not by a mask,
 * without a branch.
 *
 * A plain binary heap makes as many comparisons but stops sifting at a
 * place that depends on the data: a mispredicted branch per record or
 * two, which measured 5% slower than the linear scan it replaced, on
 * four CPUs (tools/pipeline-bench.sh); this tree is as fast there. A
 * linear scan makes one comparison per CPU per record: on machines of
 * hundreds of CPUs, most of them idle, that is the most work of all.
 *
 * Raw-mode counters are 56 bits wide and may wrap within a recording:
 * such a source says so (wraps), and each of its records is placed at
 * the 64-bit time nearest the last one handed out (unwrap()), which
 * orders them as comparing modulo 2^56 (ng_counter_before()) does: a
 * wrap reorders nothing.
 */
#include <errno.h>
#include <stdlib.h>

#include "nanograph.h"
#include "nanograph_event.h"
#include "source.h"

/*
 * A record's place in the order, two words compared in turn: its time,
 * then its CPU. A CPU with no record left (or none at all: padding)
 * comes after every record.
 */
struct key {
	uint64_t time;		/* the timestamp; unwrapped if the source wraps */
	uint64_t rank;		/* the CPU, | DONE when it has no record */
};

#define DONE		(1ULL << 63)

struct tree {
	unsigned int k;		/* leaves: the CPUs, rounded up to a power of 2 */
	bool wraps;
	bool started;		/* wraps: last was set */
	uint64_t last;		/* wraps: the last time handed out, unwrapped */
	/* node[0] the winner's key, node[1..k-1] the losers' of each match */
	struct key *node;
	const struct ng_event **ev;	/* each CPU's next record */
};

/* Whether @a goes before @b, as 0 or 1 without a branch. */
static inline uint64_t before(const struct key *a, const struct key *b)
{
	return (a->time < b->time) | ((a->time == b->time) & (a->rank < b->rank));
}

/*
 * A 56-bit counter as a 64-bit time: the one nearest the last time
 * handed out, so that comparing two is ng_counter_before() (records
 * less than 2^55 ticks apart). The first starts at 2^62, far from 0.
 */
static inline uint64_t unwrap(struct tree *t, uint64_t ts)
{
	uint64_t d;

	if (!t->started) {
		t->last = (1ULL << 62) + ts;
		t->started = true;
	}
	d = (ts - t->last) & NG_TSD_COUNTER_MASK;
	return t->last + (uint64_t)((int64_t)(d << 8) >> 8);
}

/*
 * The winner's CPU has a new key @w: play the matches on its path to the
 * root again, each a swap done or not by a mask; the winner to node[0].
 */
static void replay(struct tree *t, struct key w)
{
	unsigned int n;

	for (n = ((unsigned int)(w.rank & ~DONE) + t->k) >> 1; n; n >>= 1) {
		struct key l = t->node[n];
		uint64_t m = -before(&l, &w);
		uint64_t xt = (l.time ^ w.time) & m, xr = (l.rank ^ w.rank) & m;

		t->node[n].time = l.time ^ xt;
		t->node[n].rank = l.rank ^ xr;
		w.time ^= xt;
		w.rank ^= xr;
	}
	t->node[0] = w;
}

/* CPU @cpu's next record from the source, and its key. 0 or -errno. */
static inline int next_key(struct tree *t, struct ng_source *s,
			   unsigned int cpu, struct key *key)
{
	const struct ng_event *ev;
	int ret = s->ops->next(s, (int)cpu, &ev);

	if (ret < 0)
		return ret;
	if (!ret) {
		key->time = UINT64_MAX;
		key->rank = DONE | cpu;
		return 0;
	}
	key->time = t->wraps ? unwrap(t, ev->ts) : ev->ts;
	key->rank = cpu;
	t->ev[cpu] = ev;
	return 0;
}

/*
 * Every CPU's first record, and the first tournament, played bottom up
 * in @win (2k keys: the winner below each node, the leaves at k + i).
 */
static int tree_fill(struct tree *t, struct ng_source *s, struct key *win)
{
	unsigned int i;
	int ret;

	for (i = 0; i < t->k; i++) {
		win[t->k + i].time = UINT64_MAX;
		win[t->k + i].rank = DONE | i;
		if (i < (unsigned int)s->nr_cpus &&
		    (ret = next_key(t, s, i, &win[t->k + i])))
			return ret;
	}
	for (i = t->k - 1; i >= 1; i--) {
		const struct key *a = &win[2 * i], *b = &win[2 * i + 1];
		bool a_wins = before(a, b);

		win[i] = a_wins ? *a : *b;
		t->node[i] = a_wins ? *b : *a;
	}
	t->node[0] = win[1];
	return 0;
}

/* Hand records in order to @fn until it stops or they end. */
static int tree_drain(struct tree *t, struct ng_source *s, ng_event_fn fn,
		      void *priv)
{
	unsigned int cpu;
	struct key key;
	int ret;

	while (!(t->node[0].rank & DONE)) {
		cpu = (unsigned int)t->node[0].rank;
		t->last = t->node[0].time;
		ret = fn(priv, t->ev[cpu]);
		if (ret)
			return ret;
		ret = next_key(t, s, cpu, &key);
		if (ret)
			return ret;
		replay(t, key);
	}
	return 0;
}

/* The tree's arrays for @nr CPUs (@win: the first tournament's). */
static int tree_alloc(struct tree *t, int nr, struct key **win)
{
	t->k = 1;
	while ((int)t->k < nr)
		t->k *= 2;
	t->node = calloc(t->k, sizeof(*t->node));
	t->ev = calloc(t->k, sizeof(*t->ev));
	*win = calloc(2 * t->k, sizeof(**win));
	return t->node && t->ev && *win ? 0 : -ENOMEM;
}

int ng_merge(struct ng_source *s, struct ng_conv *conv, ng_event_fn fn,
	     void *priv)
{
	struct tree t = { .wraps = s->wraps };
	struct key *win = NULL;
	int ret = tree_alloc(&t, s->nr_cpus, &win);

	s->cpu = calloc(s->nr_cpus > 0 ? s->nr_cpus : 1, s->ops->cpu_size);
	if (ret || !s->cpu) {
		ret = -ENOMEM;
		goto out;
	}
	s->conv = conv;
	ret = s->ops->begin ? s->ops->begin(s) : 0;
	if (!ret)
		ret = tree_fill(&t, s, win);
	if (!ret)
		ret = tree_drain(&t, s, fn, priv);
	s->ops->end(s);
	s->conv = NULL;
out:
	free(s->cpu);
	s->cpu = NULL;
	free(win);
	free(t.ev);
	free(t.node);
	return ret;
}
