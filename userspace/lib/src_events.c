// SPDX-License-Identifier: LGPL-2.1
/*
 * src_events.c - the events mode's source (source.h): the spill files of
 * cap_events.c, one a CPU, each the ring-buffer sub-buffers that CPU's
 * trace_pipe_raw gave, whole and in order, read back as events.
 *
 * libtraceevent's kbuffer walks a sub-buffer's events and their
 * timestamps; the decoder (decode.c) turns each into struct ng_event. A
 * sub-buffer that says events were missed before it (the ring buffer was
 * full) counts them as lost while converting.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <event-parse.h>
#include <kbuffer.h>

#include "nanograph.h"
#include "source.h"

/* One CPU's position in its spill file during a pass. */
struct cursor {
	struct kbuffer *kbuf;
	uint64_t page;
	void *buf;
	void *data;		/* current event, NULL when done */
	unsigned long long ts;
	bool started;
	struct ng_event ev;
};

struct src_events {
	struct ng_source src;	/* with the spill files */
	struct tep_handle *tep;
	const struct ng_decoder *dec;
	int subbuf;		/* bytes of a sub-buffer, as spilled */
	uint64_t *pages;	/* sub-buffers in each file */
};

/* A kbuffer and a page buffer for each CPU; nothing read yet. */
static int events_begin(struct ng_source *s)
{
	struct src_events *e = (struct src_events *)s;
	struct cursor *cur = s->cpu;
	int cpu;

	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		cur[cpu].kbuf = tep_kbuffer(e->tep);
		cur[cpu].buf = malloc(e->subbuf);
		if (!cur[cpu].kbuf || !cur[cpu].buf)
			return -ENOMEM;
	}
	return 0;
}

/* The first event of the next sub-buffer that has one; missed ones counted. */
static int load_page(struct src_events *e, struct cursor *c, int cpu)
{
	while (!c->data && c->page < e->pages[cpu]) {
		ssize_t n = pread(e->src.fds[cpu], c->buf, e->subbuf,
				  (off_t)(c->page * e->subbuf));

		if (n != e->subbuf)
			return n < 0 ? -errno : -EIO;
		c->page++;
		if (kbuffer_load_subbuffer(c->kbuf, c->buf) < 0)
			continue;
		if (e->src.conv && kbuffer_missed_events(c->kbuf))
			ng_conv_lost(e->src.conv, cpu,
				     kbuffer_missed_events(c->kbuf));
		c->data = kbuffer_read_event(c->kbuf, &c->ts);
	}
	return 0;
}

/* The CPU's next event: the next in its sub-buffer, or the next one's first. */
static int events_next(struct ng_source *s, int cpu, const struct ng_event **ev)
{
	struct src_events *e = (struct src_events *)s;
	struct cursor *c = &((struct cursor *)s->cpu)[cpu];
	struct tep_record rec;
	int ret;

	if (c->started && c->data)
		c->data = kbuffer_next_event(c->kbuf, &c->ts);
	c->started = true;
	ret = load_page(e, c, cpu);
	if (ret || !c->data)
		return ret;
	memset(&rec, 0, sizeof(rec));
	rec.ts = c->ts;
	rec.cpu = cpu;
	rec.data = c->data;
	rec.size = kbuffer_event_size(c->kbuf);
	ng_decode(e->dec, &rec, &c->ev);
	*ev = &c->ev;
	return 1;
}

/* Free what begin() took, however far the pass went. */
static void events_end(struct ng_source *s)
{
	struct cursor *cur = s->cpu;
	int cpu;

	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		if (cur[cpu].kbuf)
			kbuffer_free(cur[cpu].kbuf);
		free(cur[cpu].buf);
	}
}

/* The source itself, with the spill files' list (not the files). */
static void events_free(struct ng_source *s)
{
	struct src_events *e = (struct src_events *)s;

	ng_source_release(s);
	free(e->pages);
	free(e);
}

static const struct ng_source_ops events_ops = {
	.cpu_size = sizeof(struct cursor),
	.begin = events_begin,
	.next = events_next,
	.end = events_end,
	.free = events_free,
};

int ng_src_events_new(struct ng_source **sp, struct tep_handle *tep,
		      const struct ng_decoder *dec, int subbuf,
		      const int *fds, const uint64_t *pages, int nr)
{
	struct src_events *e = calloc(1, sizeof(*e));

	if (!e)
		return -ENOMEM;
	e->pages = calloc(nr > 0 ? nr : 1, sizeof(*e->pages));
	if (!e->pages || ng_source_init(&e->src, &events_ops, nr, false, fds)) {
		events_free(&e->src);
		return -ENOMEM;
	}
	if (nr > 0)
		memcpy(e->pages, pages, nr * sizeof(*pages));
	e->tep = tep;
	e->dec = dec;
	e->subbuf = subbuf;
	*sp = &e->src;
	return 0;
}
