// SPDX-License-Identifier: LGPL-2.1
/*
 * counts.c - a recording's counters.tsv (record --counters; trace-format
 * .md): each call's page faults and context switches, found again by its
 * thread, its return's nanoseconds and its depth, the three things its
 * POP line in the push/pop file gives.
 *
 * A call whose return was moved by the converter (a timestamp raised to
 * keep its file in order) is not found: its counts are not shown rather
 * than shown on another call.  Lines that do not parse are skipped, as a
 * newer file's fields would be.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nanograph.h"
#include "lines.h"

struct ng_counts {
	struct ng_call_counts *v;
	size_t n, cap;
};

static int counts_cmp(const void *a, const void *b)
{
	const struct ng_call_counts *x = a, *y = b;

	if (x->tid != y->tid)
		return (x->tid > y->tid) - (x->tid < y->tid);
	if (x->end_ns != y->end_ns)
		return (x->end_ns > y->end_ns) - (x->end_ns < y->end_ns);
	return (x->depth > y->depth) - (x->depth < y->depth);
}

/* "NS TID DEPTH FUNCTION MINFLT MAJFLT NVCSW NIVCSW", tab-separated. */
static int counts_line(void *priv, char *line)
{
	struct ng_counts *c = priv;
	struct ng_call_counts e;
	int len = 0;

	if (sscanf(line, "%" SCNu64 "\t%d\t%u\t%*[^\t]\t%u\t%u\t%u\t%u%n",
		   &e.end_ns, &e.tid, &e.depth, &e.counts[NG_COUNT_MINFLT],
		   &e.counts[NG_COUNT_MAJFLT], &e.counts[NG_COUNT_NVCSW],
		   &e.counts[NG_COUNT_NIVCSW], &len) != 7 || !len)
		return 0;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		struct ng_call_counts *v = realloc(c->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n++] = e;
	return 0;
}

int ng_counts_load(struct ng_counts **cp, const char *dir)
{
	struct ng_counts *c = calloc(1, sizeof(*c));
	int ret;

	*cp = NULL;
	if (!c)
		return -ENOMEM;
	ret = ng_lines_each(dir, "counters.tsv", NG_TSV_LINE_MAX, counts_line, c);
	if (ret) {
		ng_counts_free(c);
		return ret;
	}
	qsort(c->v, c->n, sizeof(*c->v), counts_cmp);
	*cp = c;
	return 0;
}

void ng_counts_free(struct ng_counts *c)
{
	if (!c)
		return;
	free(c->v);
	free(c);
}

const struct ng_call_counts *ng_counts_find(const struct ng_counts *c, int tid,
					    uint64_t end_ns, unsigned int depth)
{
	struct ng_call_counts key = { .tid = tid, .end_ns = end_ns, .depth = depth };

	return c && c->n ? bsearch(&key, c->v, c->n, sizeof(*c->v), counts_cmp) : NULL;
}

size_t ng_counts_note(char *buf, size_t size, const struct ng_call_counts *e)
{
	static const char *const what[NG_COUNTS] = {
		[NG_COUNT_MINFLT] = "minor faults",
		[NG_COUNT_MAJFLT] = "major faults",
		[NG_COUNT_NVCSW] = "voluntary switches",
		[NG_COUNT_NIVCSW] = "involuntary switches",
	};
	size_t n = 0;
	int i, w;

	if (size)
		buf[0] = '\0';
	for (i = 0; e && i < NG_COUNTS; i++) {
		if (!e->counts[i] || n >= size)
			continue;
		w = snprintf(buf + n, size - n, "%s%u %s", n ? ", " : "",
			     e->counts[i], what[i]);
		n = w < 0 ? size : n + (size_t)w;
	}
	return n < size ? n : size - (size ? 1 : 0);
}
