// SPDX-License-Identifier: GPL-2.0
/*
 * genrec.c - a synthetic recording for the export benchmarks
 * (tools/export-bench.sh): DIR/<tid>.txt push/pop files and DIR/threads.tsv,
 * as "nanograph record" writes them, with CALLS calls in all spread over
 * THREADS threads, FUNCS distinct kernel-like function names and nesting
 * up to DEPTH. The same arguments always give the same bytes (a fixed
 * xorshift seed), so figures can be reproduced.
 *
 *   genrec DIR CALLS [THREADS [FUNCS [DEPTH [ZIPF]]]]
 *       defaults: 4 threads, 2000 functions, depth 32, ZIPF 1
 *
 * Which function a call is: the k-th most called one with a probability
 * proportional to 1 / k^ZIPF, Zipf's law, as call counts of kernel
 * functions go (a few spinlock, RCU and allocator functions make most of
 * the calls); ZIPF 0 makes them all equally likely, the worst case for
 * the Perfetto export's interning (most names need two-byte iids).
 *
 * Times: each line is 20 to 400 ns after the previous one, and one line in
 * 64 waits 400 ns to 10 us (a sleep, an interrupt): the gaps a traced
 * kernel shows between function-graph events (a tracer's own cost is tens
 * of ns per event). Streamed with a large stdio buffer: 100 million calls
 * take a few GB and about a minute.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

/* xorshift64*: fast, and the same sequence everywhere. */
static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

static const char *const pre[] = {
	"vfs", "ext4", "do", "__x64_sys", "security", "filemap", "page",
	"mem_cgroup", "rcu", "sched", "tcp", "ip", "kmem_cache", "__d",
	"generic", "lock", "path", "file", "inode", "blk_mq",
};
static const char *const suf[] = {
	"read", "write", "open", "alloc", "free", "lookup", "lock", "unlock",
	"fault", "update", "get", "put", "init", "release", "submit", "wake",
	"check", "map", "flush", "iter",
};

/* Write n decimal digits of v at p: faster than fprintf for 200M lines. */
static char *put_u64(char *p, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* The first function whose cumulative weight passes a uniform draw. */
static unsigned int pick(const double *cdf, unsigned int n, double sum,
			 uint64_t r)
{
	double u = (r >> 11) * 0x1p-53 * sum;
	unsigned int lo = 0, hi = n - 1, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (cdf[mid] <= u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int fail(const char *what, const char *path)
{
	fprintf(stderr, "genrec: %s %s: %s\n", what, path, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	unsigned long long calls, per, done;
	unsigned int threads = 4, funcs = 2000, maxdepth = 32, t, i;
	double zipf = 1, *cdf, sum = 0;
	char **names, path[4096], line[256], *p;
	static char iobuf[1 << 20];
	uint64_t ns;
	FILE *f;

	if (argc < 3 || argc > 7) {
		fprintf(stderr, "usage: genrec DIR CALLS [THREADS [FUNCS [DEPTH [ZIPF]]]]\n");
		return 2;
	}
	calls = strtoull(argv[2], NULL, 10);
	if (argc > 3)
		threads = strtoul(argv[3], NULL, 10);
	if (argc > 4)
		funcs = strtoul(argv[4], NULL, 10);
	if (argc > 5)
		maxdepth = strtoul(argv[5], NULL, 10);
	if (argc > 6)
		zipf = strtod(argv[6], NULL);
	if (!threads || !funcs || !maxdepth) {
		fprintf(stderr, "genrec: THREADS, FUNCS and DEPTH must be > 0\n");
		return 2;
	}
	names = calloc(funcs, sizeof(*names));
	cdf = calloc(funcs, sizeof(*cdf));
	if (!names || !cdf)
		return 1;
	for (i = 0; i < funcs; i++)
		cdf[i] = sum += pow(i + 1, -zipf);
	for (i = 0; i < funcs; i++) {
		unsigned int a = i % 20, b = i / 20 % 20, c = i / 400;

		if (asprintf(&names[i], c ? "%s_%s_%u" : "%s_%s", pre[a],
			     suf[b], c) < 0)
			return 1;
	}

	snprintf(path, sizeof(path), "%s/threads.tsv", argv[1]);
	f = fopen(path, "w");
	if (!f)
		return fail("cannot write", path);
	fprintf(f, "tid\tpid\tcomm\n");
	for (t = 0; t < threads; t++)
		fprintf(f, "%u\t1000\t%s\n", 1000 + t, t ? "worker" : "bench");
	if (fclose(f))
		return fail("cannot write", path);

	per = calls / threads;
	for (t = 0; t < threads; t++) {
		unsigned long long mine = per + (t < calls % threads);
		size_t depth = 0;

		snprintf(path, sizeof(path), "%s/%u.txt", argv[1], 1000 + t);
		f = fopen(path, "w");
		if (!f)
			return fail("cannot write", path);
		setvbuf(f, iobuf, _IOFBF, sizeof(iobuf));
		ns = 1000000000ULL + t * 1000;
		for (done = 0; done < mine || depth;) {
			uint64_t r = rnd();
			/* push while calls remain, less likely the deeper */
			int push = done < mine && depth < maxdepth &&
				   (!depth || r % 1000 < 500 - 8 * depth);

			ns += 20 + (r >> 16) % 381;
			if (!(r >> 40 & 63))
				ns += (r >> 20) % 9600;
			p = put_u64(line, ns);
			if (push) {
				*p++ = ':';
				*p++ = '+';
				i = pick(cdf, funcs, sum, rnd());
				strcpy(p, names[i]);
				p += strlen(names[i]);
				depth++;
				done++;
			} else {
				memcpy(p, ":POP", 4);
				p += 4;
				depth--;
			}
			*p++ = '\n';
			fwrite(line, 1, p - line, f);
		}
		if (fclose(f))
			return fail("cannot write", path);
	}
	return 0;
}
