// SPDX-License-Identifier: GPL-2.0
/*
 * test_merge.c - the recording pipeline's merge (merge.c) and its raw
 * source (src_raw.c): the tournament tree's order against a linear scan
 * over 1 to 61 CPUs, ties, 56-bit wraps, a stop and an error in the
 * middle of a pass; the raw and the events source's events as the merge
 * hands them out, twice in a row.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <trace-cmd.h>

#include "nanograph.h"
#include "nanograph_event.h"
#include "../../userspace/lib/source.h"
#include "ktap.h"
#include "tdat_gen.h"

#define MAX_CPUS	64
#define MAX_EVENTS	64

/* A source of timestamps given per CPU; the event's ip says where from. */
struct fake {
	struct ng_source src;
	int n[MAX_CPUS];
	uint64_t ts[MAX_CPUS][MAX_EVENTS];
	int pos[MAX_CPUS];
	struct ng_event ev[MAX_CPUS];
	int fail_cpu, fail_at;	/* next() of fail_cpu fails at this event */
	int begun, ended;
};

static int fake_begin(struct ng_source *s)
{
	struct fake *f = (struct fake *)s;

	memset(f->pos, 0, sizeof(f->pos));
	f->begun++;
	return 0;
}

static int fake_next(struct ng_source *s, int cpu, const struct ng_event **ev)
{
	struct fake *f = (struct fake *)s;
	int i = f->pos[cpu];

	if (cpu == f->fail_cpu && i == f->fail_at)
		return -EIO;
	if (i >= f->n[cpu])
		return 0;
	f->pos[cpu]++;
	memset(&f->ev[cpu], 0, sizeof(f->ev[cpu]));
	f->ev[cpu].ts = f->ts[cpu][i];
	f->ev[cpu].cpu = cpu;
	f->ev[cpu].ip = (uint64_t)cpu << 32 | (uint32_t)i;
	*ev = &f->ev[cpu];
	return 1;
}

static void fake_end(struct ng_source *s)
{
	((struct fake *)s)->ended++;
}

static const struct ng_source_ops fake_ops = {
	.cpu_size = 1,
	.begin = fake_begin,
	.next = fake_next,
	.end = fake_end,
};

static void fake_init(struct fake *f, int cpus, bool wraps)
{
	memset(f, 0, sizeof(*f));
	f->src.ops = &fake_ops;
	f->src.nr_cpus = cpus;
	f->src.wraps = wraps;
	f->fail_cpu = -1;
}

/* What the merge handed out, in order. */
struct seen {
	uint64_t ip[MAX_CPUS * MAX_EVENTS];
	int n, stop_at;
};

static int collect(void *priv, const struct ng_event *ev)
{
	struct seen *s = priv;

	s->ip[s->n++] = ev->ip;
	return s->n == s->stop_at;
}

/* The order the merge promises, by a linear scan: earliest, ties to the lower CPU. */
static int reference(const struct fake *f, uint64_t *out)
{
	int pos[MAX_CPUS] = { 0 }, n = 0, cpu, best;

	for (;;) {
		best = -1;
		for (cpu = 0; cpu < f->src.nr_cpus; cpu++)
			if (pos[cpu] < f->n[cpu] &&
			    (best < 0 || (f->src.wraps ?
			     ng_counter_before(f->ts[cpu][pos[cpu]], f->ts[best][pos[best]]) :
			     f->ts[cpu][pos[cpu]] < f->ts[best][pos[best]])))
				best = cpu;
		if (best < 0)
			return n;
		out[n++] = (uint64_t)best << 32 | (uint32_t)pos[best]++;
	}
}

/* Many CPUs, some empty, random gaps and many ties: the scan's order. */
static void test_order(void)
{
	static struct fake f;
	static struct seen s;
	static uint64_t want[MAX_CPUS * MAX_EVENTS];
	uint64_t rng = 42;
	int cpu, i, n, round;

	for (round = 0; round < 20; round++) {
		fake_init(&f, 1 + round * 3 % MAX_CPUS, false);
		for (cpu = 0; cpu < f.src.nr_cpus; cpu++) {
			uint64_t t = 0;

			rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
			f.n[cpu] = (int)(rng >> 33) % (MAX_EVENTS + 1);
			for (i = 0; i < f.n[cpu]; i++) {
				rng = rng * 6364136223846793005ULL + 1;
				t += (rng >> 40) % 4;	/* 0: a tie */
				f.ts[cpu][i] = t;
			}
		}
		memset(&s, 0, sizeof(s));
		n = reference(&f, want);
		T_EQ_INT(ng_merge(&f.src, NULL, collect, &s), 0);
		T_EQ_INT(s.n, n);
		T_ASSERT(!memcmp(s.ip, want, n * sizeof(want[0])));
		T_EQ_INT(f.begun, 1);
		T_EQ_INT(f.ended, 1);
	}
}

/* 56-bit counters across their wrap: the wrapped ones come after. */
static void test_wrap(void)
{
	static struct fake f;
	static struct seen s;
	const uint64_t top = NG_TSD_COUNTER_MASK;

	fake_init(&f, 3, true);
	f.n[0] = 2, f.ts[0][0] = top - 5, f.ts[0][1] = 3;
	f.n[1] = 2, f.ts[1][0] = top - 1, f.ts[1][1] = 1;
	f.n[2] = 1, f.ts[2][0] = 1;
	T_EQ_INT(ng_merge(&f.src, NULL, collect, &s), 0);
	T_EQ_INT(s.n, 5);
	T_EQ_U64(s.ip[0], 0);			/* cpu 0, top - 5 */
	T_EQ_U64(s.ip[1], 1ULL << 32);		/* cpu 1, top - 1 */
	T_EQ_U64(s.ip[2], 1ULL << 32 | 1);	/* cpu 1, 1: a tie to the lower */
	T_EQ_U64(s.ip[3], 2ULL << 32);		/* cpu 2, 1 */
	T_EQ_U64(s.ip[4], 1);			/* cpu 0, 3 */
}

/* The callback stops a pass, or a source fails in it: returned, end() run. */
static void test_stop_and_error(void)
{
	static struct fake f;
	static struct seen s;

	fake_init(&f, 2, false);
	f.n[0] = f.n[1] = 3;
	f.ts[0][0] = 1, f.ts[0][1] = 3, f.ts[0][2] = 5;
	f.ts[1][0] = 2, f.ts[1][1] = 4, f.ts[1][2] = 6;
	s.stop_at = 4;
	T_EQ_INT(ng_merge(&f.src, NULL, collect, &s), 1);
	T_EQ_INT(s.n, 4);
	T_EQ_INT(f.ended, 1);
	memset(&s, 0, sizeof(s));
	f.fail_cpu = 1;
	f.fail_at = 2;
	T_EQ_INT(ng_merge(&f.src, NULL, collect, &s), -EIO);
	T_EQ_INT(s.n, 4);		/* 1 to 4; cpu 1's third read failed */
	T_EQ_INT(f.begun, 2);
	T_EQ_INT(f.ended, 2);
}

static void put(int fd, uint64_t a, uint64_t b)
{
	uint64_t w[2] = { a, b };

	if (write(fd, w, sizeof(w)) != sizeof(w))
		t_diag("short write");
}

static int events(void *priv, const struct ng_event *ev)
{
	struct ng_event *out = priv;

	while (out->type != NG_EV_OTHER)
		out++;
	*out = *ev;
	return 0;
}

/*
 * The raw source: the task record names the calls, the site and arg
 * records after an entry come as one ARGS event right after it, and a
 * second pass reads the same from the start.
 */
static void test_raw_source(void)
{
	struct ng_event got[2][8];
	struct ng_source *s;
	int fd = memfd_create("raw", 0), pass;

	T_ASSERT(fd >= 0);
	put(fd, NG_RAW_META | NG_RAW_TASK, 7ULL << 32 | 9);
	put(fd, ng_tsd(100, 0), 0x1000);
	put(fd, NG_RAW_META | NG_RAW_SITE | (0ULL << NG_RAW_ARG_SHIFT), 0x2222);
	put(fd, NG_RAW_META | NG_RAW_ARG | (1ULL << 8 << NG_RAW_ARG_SHIFT), 0x33);
	put(fd, ng_tsd(150, 0) | NG_RAW_EXIT, 0x1000);
	T_EQ_INT(ng_src_raw_new(&s, &fd, 1, NULL), 0);
	for (pass = 0; pass < 2; pass++) {
		memset(got[pass], 0, sizeof(got[pass]));
		T_EQ_INT(ng_merge(s, NULL, events, got[pass]), 0);
	}
	ng_source_free(s);
	close(fd);
	T_EQ_INT(got[0][0].type, NG_EV_ENTRY);
	T_EQ_INT(got[0][0].tid, 9);
	T_EQ_U64(got[0][0].ts, 100);
	T_EQ_INT(got[0][1].type, NG_EV_ARGS);
	T_EQ_U64(got[0][1].site, 0x2222);
	T_EQ_INT(got[0][1].nargs, 2);
	T_EQ_U64(got[0][1].args[1], 0x33);
	T_EQ_INT(got[0][2].type, NG_EV_EXIT);
	T_EQ_U64(got[0][2].ts, 150);
	T_EQ_INT(got[0][3].type, NG_EV_OTHER);
	T_ASSERT(!memcmp(got[0], got[1], sizeof(got[0])));
}

/* Page @i of the last @n of @path, the CPU data of a trace.dat, into a memfd. */
static int page_file(const char *path, int n, int i)
{
	char page[4096];
	int in = open(path, O_RDONLY), fd = memfd_create("spill", 0);
	off_t end = in >= 0 ? lseek(in, 0, SEEK_END) : -1;

	if (in < 0 || fd < 0 || end < 0 ||
	    pread(in, page, sizeof(page), end - (off_t)(n - i) * 4096) != sizeof(page) ||
	    write(fd, page, sizeof(page)) != sizeof(page))
		t_diag("cannot copy page %d of %s", i, path);
	if (in >= 0)
		close(in);
	return fd;
}

/*
 * The events source: spill files of whole sub-buffers, one a CPU (here
 * the pages of a generated trace.dat, with its formats), decoded and
 * merged by timestamp, the clock first; a second pass the same.
 */
static void test_events_source(void)
{
	static const char ksyms[] = "ffffffff81001000 T vfs_read\n";
	const int want_cpu[] = { 0, 0, 1, 0, 1 };
	const uint64_t want_ts[] = { 50, 100, 200, 300, 400 };
	const uint64_t pages[2] = { 1, 1 };
	struct ng_event got[2][8];
	struct tracecmd_input *h;
	struct ng_decoder *dec;
	struct ng_source *s;
	char path[4096];
	int fds[2], pass, i;
	struct t_tdat *t;

	snprintf(path, sizeof(path), "%s/trace.dat", t_tmpdir());
	t = t_tdat_open(path, 2, ksyms, "");
	t_tdat_clock(t, 0, 50, 50, 1000, 1000000000);
	t_tdat_entry(t, 0, 7, 100, 100, 0, 0xffffffff81001000ULL);
	t_tdat_exit(t, 0, 7, 300, 300, 0, 0xffffffff81001000ULL);
	t_tdat_entry(t, 1, 8, 200, 200, 0, 0xffffffff81001000ULL);
	t_tdat_exit(t, 1, 8, 400, 400, 0, 0xffffffff81001000ULL);
	T_EQ_INT(t_tdat_close(t), 0);
	h = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	T_ASSERT(h);
	T_EQ_INT(ng_decoder_new(&dec, tracecmd_get_tep(h)), 0);
	fds[0] = page_file(path, 2, 0);
	fds[1] = page_file(path, 2, 1);
	T_EQ_INT(ng_src_events_new(&s, tracecmd_get_tep(h), dec, 4096, fds,
				   pages, 2), 0);
	for (pass = 0; pass < 2; pass++) {
		memset(got[pass], 0, sizeof(got[pass]));
		T_EQ_INT(ng_merge(s, NULL, events, got[pass]), 0);
	}
	ng_source_free(s);
	ng_decoder_free(dec);
	tracecmd_close(h);
	close(fds[0]);
	close(fds[1]);
	T_EQ_INT(got[0][0].type, NG_EV_CLOCK);
	T_EQ_INT(got[0][1].type, NG_EV_ENTRY);
	T_EQ_INT(got[0][1].tid, 7);
	T_EQ_INT(got[0][4].type, NG_EV_EXIT);
	T_EQ_INT(got[0][5].type, NG_EV_OTHER);
	for (i = 0; i < 5; i++) {
		T_EQ_U64(got[0][i].ts, want_ts[i]);
		T_EQ_INT(got[0][i].cpu, want_cpu[i]);
	}
	T_ASSERT(!memcmp(got[0], got[1], sizeof(got[0])));
}

static const struct t_case cases[] = {
	{ "order", test_order },
	{ "wrap", test_wrap },
	{ "stop_and_error", test_stop_and_error },
	{ "raw_source", test_raw_source },
	{ "events_source", test_events_source },
};

T_SUITE(merge, cases);
