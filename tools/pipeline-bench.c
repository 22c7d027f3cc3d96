// SPDX-License-Identifier: GPL-2.0
/*
 * pipeline-bench.c - the recording pipeline's throughput on the host: the
 * CPU time of turning per-CPU records into push/pop files, for two of its
 * sources (Documentation/design.md, "The recording pipeline"):
 *
 *   raw        per-CPU files of the module's 16-byte records, as record
 *              --raw spills them: ng_raw_replay_fds() and ng_conv_finish()
 *   trace.dat  a trace-cmd file of func_entry/func_exit events (written
 *              by the host tests' tdat_gen.c): ng_tdat_convert(), what
 *              "nanograph convert" runs
 *
 *   pipeline-bench DIR [CALLS [RUNS [raw|trace.dat]]]
 *       defaults: 2000000 calls, 5 runs, both sources
 *
 * CALLS calls (an entry and an exit each) over 4 CPUs, one thread a CPU,
 * 2000 functions, nesting up to 16, 20 to 400 counter ticks apart; the
 * same bytes every time (a fixed splitmix64 seed). Each run converts into a
 * new directory under DIR, removed after it. Prints each source's CPU
 * times (user + system, getrusage) and their median: on a shared machine
 * CPU time follows the code, wall time what else runs.
 *
 * Built by tools/pipeline-bench.sh, against a libnanograph.a.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nanograph.h"
#include "nanograph_event.h"
#include "tdat_gen.h"

#define CPUS	4
#define FUNCS	2000
#define DEPTH	16
#define BASE	((uint64_t)0xffffffff81000000ULL)

static uint64_t rng = 42;

/* splitmix64: the same sequence everywhere. */
static uint64_t rnd(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A kallsyms text of FUNCS functions, 0x100 bytes apart. */
static char *kallsyms(void)
{
	char *buf = malloc(FUNCS * 48), *p = buf;
	int i;

	for (i = 0; buf && i < FUNCS; i++)
		p += sprintf(p, "%" PRIx64 " T bench_fn_%d\n",
			     (uint64_t)(BASE + 0x100 * (uint64_t)i), i);
	return buf;
}

/* What one CPU's generator is at: its counter and open calls. */
struct gen {
	uint64_t t;
	unsigned int n;
	uint64_t ip[DEPTH];
};

/*
 * The next event of @g: an entry (*@exit false) or an exit of the call at
 * *@depth; deeper while below DEPTH, one step in two on average.
 */
static uint64_t gen_next(struct gen *g, bool *exit, unsigned int *depth)
{
	g->t += 20 + rnd() % 380;
	if (g->n && (g->n == DEPTH || rnd() % 2)) {
		*exit = true;
		*depth = --g->n;
		return g->ip[g->n];
	}
	*exit = false;
	*depth = g->n;
	g->ip[g->n] = BASE + 0x100 * (rnd() % FUNCS);
	return g->ip[g->n++];
}

/* The raw files DIR/cpuN.raw; the counters start at 1000. */
static int write_raw(const char *dir, uint64_t calls)
{
	char path[4096];
	int cpu;

	for (cpu = 0; cpu < CPUS; cpu++) {
		struct gen g = { .t = 1000 };
		uint64_t i, w[2];
		FILE *f;

		snprintf(path, sizeof(path), "%s/cpu%d.raw", dir, cpu);
		f = fopen(path, "w");
		if (!f)
			return -1;
		w[0] = NG_RAW_META | NG_RAW_TASK;
		w[1] = (uint64_t)(1000 + cpu) << 32 | (uint32_t)(1000 + cpu);
		fwrite(w, sizeof(w), 1, f);
		w[0] = NG_RAW_META | NG_RAW_CLOCK;
		w[1] = 1000;
		fwrite(w, sizeof(w), 1, f);
		w[0] = 1000000;
		w[1] = 1000000000;
		fwrite(w, sizeof(w), 1, f);
		for (i = 0; i < 2 * calls / CPUS; i++) {
			unsigned int d;
			bool exit;

			w[1] = gen_next(&g, &exit, &d);
			w[0] = ng_tsd(g.t, d) | (exit ? NG_RAW_EXIT : 0);
			fwrite(w, sizeof(w), 1, f);
		}
		if (fclose(f))
			return -1;
	}
	return 0;
}

/* DIR/trace.dat with the same calls as func_entry and func_exit events. */
static int write_tdat(const char *dir, uint64_t calls, const char *ksyms)
{
	char path[4096];
	struct t_tdat *t;
	int cpu;

	snprintf(path, sizeof(path), "%s/trace.dat", dir);
	t = t_tdat_open(path, CPUS, ksyms, "");
	if (!t)
		return -1;
	t_tdat_clock(t, 0, 1000, 1000, 1000000, 1000000000);
	for (cpu = 0; cpu < CPUS; cpu++) {
		struct gen g = { .t = 1000 };
		uint64_t i, ip;

		for (i = 0; i < 2 * calls / CPUS; i++) {
			unsigned int d;
			bool exit;

			ip = gen_next(&g, &exit, &d);
			if (exit)
				t_tdat_exit(t, cpu, 1000 + cpu, g.t, g.t, d, ip);
			else
				t_tdat_entry(t, cpu, 1000 + cpu, g.t, g.t, d, ip);
		}
	}
	return t_tdat_close(t);
}

/* User + system time of this process so far, in seconds. */
static double cpu_time(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* One raw replay into @out: 0 or -errno. */
static int run_raw(const char *dir, const char *out, const struct ng_syms *syms)
{
	struct ng_conv_summary sum;
	struct ng_conv *c;
	char path[4096];
	int fds[CPUS], cpu, ret;

	for (cpu = 0; cpu < CPUS; cpu++) {
		snprintf(path, sizeof(path), "%s/cpu%d.raw", dir, cpu);
		fds[cpu] = open(path, O_RDONLY);
	}
	ret = ng_conv_new(&c, out, syms);
	if (!ret) {
		ret = ng_raw_replay_fds(fds, CPUS, c);
		if (ret)
			ng_conv_abort(c);
		else
			ret = ng_conv_finish(c, &sum);
	}
	for (cpu = 0; cpu < CPUS; cpu++)
		close(fds[cpu]);
	return ret;
}

/* One conversion of trace.dat into @out: 0 or -errno. */
static int run_tdat(const char *dir, const char *out)
{
	struct ng_conv_summary sum;
	char path[4096];

	snprintf(path, sizeof(path), "%s/trace.dat", dir);
	return ng_tdat_convert(path, out, NULL, NULL, NULL, &sum);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* @runs runs of one source; prints the CPU times and their median. */
static int bench(const char *name, const char *dir, int runs,
		 const struct ng_syms *syms, uint64_t calls)
{
	double t[64];
	char out[4096], cmd[4200];
	int i, ret = 0;

	for (i = 0; i < runs && !ret; i++) {
		double t0;

		snprintf(out, sizeof(out), "%s/out-%s", dir, name);
		mkdir(out, 0777);
		t0 = cpu_time();
		ret = syms ? run_raw(dir, out, syms) : run_tdat(dir, out);
		t[i] = cpu_time() - t0;
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", out);
		if (system(cmd))
			ret = -1;
	}
	if (ret) {
		fprintf(stderr, "pipeline-bench: %s: %s\n", name, strerror(-ret));
		return 1;
	}
	printf("%-9s CPU s:", name);
	for (i = 0; i < runs; i++)
		printf(" %.3f", t[i]);
	qsort(t, runs, sizeof(t[0]), cmp_double);
	printf("  median %.3f (%.2f M calls/s)\n", t[runs / 2],
	       calls / t[runs / 2] / 1e6);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t calls = argc > 2 ? strtoull(argv[2], NULL, 10) : 2000000;
	int runs = argc > 3 ? atoi(argv[3]) : 5;
	const char *only = argc > 4 ? argv[4] : "";
	struct ng_syms *syms = NULL;
	char *ksyms = kallsyms();

	if (argc < 2 || runs < 1 || runs > 64 || !ksyms) {
		fprintf(stderr, "usage: pipeline-bench DIR [CALLS [RUNS (1-64) [raw|trace.dat]]]\n");
		return 2;
	}
	if (write_raw(argv[1], calls) || write_tdat(argv[1], calls, ksyms) ||
	    ng_syms_parse(&syms, ksyms, strlen(ksyms))) {
		fprintf(stderr, "pipeline-bench: cannot write the inputs in %s\n",
			argv[1]);
		return 1;
	}
	printf("# %" PRIu64 " calls, %d CPUs, %d functions\n", calls, CPUS, FUNCS);
	if ((strcmp(only, "trace.dat") && bench("raw", argv[1], runs, syms, calls)) ||
	    (strcmp(only, "raw") && bench("trace.dat", argv[1], runs, NULL, calls)))
		return 1;
	ng_syms_free(syms);
	free(ksyms);
	return 0;
}
