// SPDX-License-Identifier: GPL-2.0
/*
 * test_convert.c - the event-to-push/pop converter on synthetic event
 * streams: nesting, threads sharing a CPU, migration, calls open at the
 * start and at the end, lost events, counter wrap, the clock, idle tasks,
 * symbols, and all-or-nothing output.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "nanograph.h"
#include "nanograph_event.h"
#include "ktap.h"
#include "tdat_gen.h"

static const char kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T vfs_read\n"
	"ffffffff81002000 t rw_verify_area\n"
	"ffffffff81003000 T ksys_read\n"
	"ffffffffc0001000 t nf_hook_slow\t[nf_tables]\n";

#define VFS_READ	0xffffffff81001000ULL
#define RW_VERIFY	0xffffffff81002004ULL	/* a call site inside it */
#define KSYS_READ	0xffffffff81003000ULL
#define NF_HOOK		0xffffffffc0001010ULL

static struct ng_syms *syms;

/* A converter into the test's directory, with the test symbols. */
static struct ng_conv *conv(void)
{
	struct ng_conv *c = NULL;

	if (!syms && ng_syms_parse(&syms, kallsyms, strlen(kallsyms)))
		return NULL;
	if (ng_conv_new(&c, t_tmpdir(), syms))
		return NULL;
	return c;
}

/* The clock of most tests: 1 GHz, counter 1000 is 5000 ns. */
static void clock_ev(struct ng_conv *c)
{
	struct ng_event ev = {
		.type = NG_EV_CLOCK, .counter = 1000, .mono_ns = 5000,
		.freq = 1000000000,
	};

	ng_conv_event(c, &ev);
}

static int ev(struct ng_conv *c, enum ng_event_type type, int cpu, int tid,
	      uint64_t counter, unsigned int depth, uint64_t ip)
{
	struct ng_event e = {
		.type = type, .cpu = cpu, .tid = tid, .counter = counter,
		.depth = depth, .ip = ip,
	};

	return ng_conv_event(c, &e);
}

#define IN(c, cpu, tid, t, d, ip)  T_EQ_INT(ev(c, NG_EV_ENTRY, cpu, tid, t, d, ip), 0)
#define OUT(c, cpu, tid, t, d, ip) T_EQ_INT(ev(c, NG_EV_EXIT, cpu, tid, t, d, ip), 0)

static void test_nesting(void)
{
	struct ng_conv_summary s;
	struct ng_conv *c = conv();

	T_ASSERT(c);
	clock_ev(c);
	IN(c, 0, 42, 1100, 0, KSYS_READ);
	IN(c, 0, 42, 1110, 1, VFS_READ);
	IN(c, 0, 42, 1120, 2, RW_VERIFY);
	OUT(c, 0, 42, 1130, 2, RW_VERIFY);
	OUT(c, 0, 42, 1190, 1, VFS_READ);
	OUT(c, 0, 42, 1200, 0, KSYS_READ);
	T_EQ_INT(ng_conv_finish(c, &s), 0);
	T_FILE_EQ(t_path("42.txt"),
		  "5100:+ksys_read\n5110:+vfs_read\n5120:+rw_verify_area\n"
		  "5130:POP\n5190:POP\n5200:POP\n");
	T_FILE_EQ(t_path("threads.tsv"), "tid\tpid\tcomm\n42\t-1\t\n");
	T_EQ_U64(s.threads, 1);
	T_EQ_U64(s.events, 6);
	T_EQ_U64(s.pushes, 3);
	T_EQ_U64(s.first_ns, 5100);
	T_EQ_U64(s.last_ns, 5200);
	T_EQ_U64(s.repaired + s.unmatched_exits + s.closed_at_end + s.clamped, 0);
}

/* Two threads taking turns on one CPU get a file each. */
static void test_interleaved(void)
{
	struct ng_conv *c = conv();

	T_ASSERT(c);
	clock_ev(c);
	IN(c, 0, 10, 1100, 0, VFS_READ);
	IN(c, 0, 11, 1110, 0, KSYS_READ);
	IN(c, 0, 10, 1120, 1, RW_VERIFY);
	OUT(c, 0, 11, 1130, 0, KSYS_READ);
	OUT(c, 0, 10, 1140, 1, RW_VERIFY);
	OUT(c, 0, 10, 1150, 0, VFS_READ);
	T_EQ_INT(ng_conv_finish(c, NULL), 0);
	T_FILE_EQ(t_path("10.txt"),
		  "5100:+vfs_read\n5120:+rw_verify_area\n5140:POP\n5150:POP\n");
	T_FILE_EQ(t_path("11.txt"), "5110:+ksys_read\n5130:POP\n");
}

/* A thread that moves to another CPU mid-call stays one stack. */
static void test_migration(void)
{
	struct ng_conv *c = conv();

	T_ASSERT(c);
	clock_ev(c);
	IN(c, 0, 7, 1100, 0, VFS_READ);
	IN(c, 0, 7, 1110, 1, RW_VERIFY);
	OUT(c, 1, 7, 1300, 1, RW_VERIFY);
	OUT(c, 1, 7, 1310, 0, VFS_READ);
	T_EQ_INT(ng_conv_finish(c, NULL), 0);
	T_FILE_EQ(t_path("7.txt"),
		  "5100:+vfs_read\n5110:+rw_verify_area\n5300:POP\n5310:POP\n");
}

/* Returns from calls entered before the recording are left out. */
static void test_open_at_start(void)
{
	struct ng_conv_summary s;
	struct ng_conv *c = conv();

	T_ASSERT(c);
	clock_ev(c);
	IN(c, 0, 5, 1100, 3, VFS_READ);
	OUT(c, 0, 5, 1110, 3, VFS_READ);
	OUT(c, 0, 5, 1120, 2, KSYS_READ);	/* entered before */
	OUT(c, 0, 5, 1130, 0, KSYS_READ);	/* entered before */
	T_EQ_INT(ng_conv_finish(c, &s), 0);
	T_FILE_EQ(t_path("5.txt"), "5100:+vfs_read\n5110:POP\n");
	T_EQ_U64(s.unmatched_exits, 2);
}

/* Calls still running when recording stops are closed at the end. */
static void test_open_at_end(void)
{
	struct ng_conv_summary s;
	struct ng_conv *c = conv();

	T_ASSERT(c);
	clock_ev(c);
	IN(c, 0, 5, 1100, 0, KSYS_READ);
	IN(c, 0, 5, 1110, 1, VFS_READ);
	IN(c, 0, 5, 1120, 2, RW_VERIFY);
	OUT(c, 0, 5, 1130, 2, RW_VERIFY);
	T_EQ_INT(ng_conv_finish(c, &s), 0);
	T_FILE_EQ(t_path("5.txt"),
		  "5100:+ksys_read\n5110:+vfs_read\n5120:+rw_verify_area\n"
		  "5130:POP\n5130:POP\n5130:POP\n");
	T_EQ_U64(s.closed_at_end, 2);
}

/*
 * Lost events: a lost exit is repaired by the next entry or exit at its
 * depth or above; the file stays balanced and every call appears once.
 */
static void test_lost_events(void)
{
	struct ng_conv_summary s;
	struct ng_conv *c = conv();

	T_ASSERT(c);
	clock_ev(c);
	IN(c, 0, 9, 1100, 0, KSYS_READ);
	IN(c, 0, 9, 1110, 1, VFS_READ);
	IN(c, 0, 9, 1120, 2, RW_VERIFY);
	/* exit of rw_verify_area lost; a sibling enters at depth 2 */
	ng_conv_lost(c, 0, 1);
	IN(c, 0, 9, 1130, 2, RW_VERIFY);
	/* exits at depth 2 and 1 lost; the outermost returns */
	ng_conv_lost(c, 0, 2);
	OUT(c, 0, 9, 1200, 0, KSYS_READ);
	T_EQ_INT(ng_conv_finish(c, &s), 0);
	T_FILE_EQ(t_path("9.txt"),
		  "5100:+ksys_read\n5110:+vfs_read\n5120:+rw_verify_area\n"
		  "5130:POP\n5130:+rw_verify_area\n5200:POP\n5200:POP\n5200:POP\n");
	T_EQ_U64(s.repaired, 3);
	T_EQ_U64(s.lost, 3);
	T_EQ_U64(s.unmatched_exits, 0);
}

/* The event holds 56 bits of the counter: values past a wrap still convert. */
static void test_counter_wrap(void)
{
	uint64_t top = NG_TSD_COUNTER_MASK;	/* 2^56 - 1 */
	struct ng_clock clk = {
		.counter = top - 99, .mono_ns = 1000000, .freq = 1000000000,
	};
	struct ng_event e = {
		.type = NG_EV_CLOCK, .counter = top - 99, .mono_ns = 1000000,
		.freq = 1000000000,
	};
	struct ng_conv *c = conv();

	T_EQ_U64(ng_clock_ns(&clk, top - 99), 1000000);
	T_EQ_U64(ng_clock_ns(&clk, 50), 1000150);	/* wrapped */
	T_EQ_U64(ng_clock_ns(&clk, top - 199), 999900);	/* before the sync */
	/* A full 64-bit sync counter: only the low 56 bits matter. */
	clk.counter |= 0xff00000000000000ULL;
	T_EQ_U64(ng_clock_ns(&clk, 50), 1000150);
	/* Other frequencies scale: 24 MHz, 3 ticks = 125 ns. */
	clk.counter = 0;
	clk.freq = 24000000;
	T_EQ_U64(ng_clock_ns(&clk, 3), 1000125);

	T_ASSERT(c);
	T_EQ_INT(ng_conv_event(c, &e), 0);
	IN(c, 0, 3, top - 9, 0, VFS_READ);
	OUT(c, 0, 3, 20, 0, VFS_READ);
	T_EQ_INT(ng_conv_finish(c, NULL), 0);
	T_FILE_EQ(t_path("3.txt"), "1000090:+vfs_read\n1000120:POP\n");
}

/* Events before the clock_sync wait for it; later syncs do not move time. */
static void test_clock_arrives_late(void)
{
	struct ng_event late = {
		.type = NG_EV_CLOCK, .counter = 1000, .mono_ns = 9000,
		.freq = 1000000000,
	};
	struct ng_conv *c = conv();

	T_ASSERT(c);
	IN(c, 0, 4, 1100, 0, VFS_READ);
	clock_ev(c);
	T_EQ_INT(ng_conv_event(c, &late), 0);
	OUT(c, 0, 4, 1150, 0, VFS_READ);
	T_EQ_INT(ng_conv_finish(c, NULL), 0);
	T_FILE_EQ(t_path("4.txt"), "5100:+vfs_read\n5150:POP\n");
}

/* No clock_sync in the events: the given clock, else an error and no files. */
static void test_no_clock(void)
{
	struct ng_clock clk = { .counter = 0, .mono_ns = 0, .freq = 1000000000 };
	struct ng_conv *c = conv();

	T_ASSERT(c);
	IN(c, 0, 4, 1100, 0, VFS_READ);
	OUT(c, 0, 4, 1150, 0, VFS_READ);
	T_EQ_INT(ng_conv_finish(c, NULL), -ENODATA);
	T_ASSERT(!t_exists(t_path("4.txt")));
	T_ASSERT(!t_temp_of(t_path("4.txt")));
	T_ASSERT(!t_exists(t_path("threads.tsv")));

	c = conv();
	T_ASSERT(c);
	ng_conv_set_clock(c, &clk);
	IN(c, 0, 4, 1100, 0, VFS_READ);
	OUT(c, 0, 4, 1150, 0, VFS_READ);
	T_EQ_INT(ng_conv_finish(c, NULL), 0);
	T_FILE_EQ(t_path("4.txt"), "1100:+vfs_read\n1150:POP\n");
}

/* The clock file's text parses; junk does not. */
static void test_clock_parse(void)
{
	struct ng_clock clk;

	T_EQ_INT(ng_clock_parse("counter: tsc\nfrequency: 2400000000\n"
				"sync: 123456 789\nsync_uncertainty: 10\n", &clk), 0);
	T_EQ_U64(clk.freq, 2400000000ULL);
	T_EQ_U64(clk.counter, 123456);
	T_EQ_U64(clk.mono_ns, 789);
	T_EQ_STR(clk.name, "tsc");		/* for info.json */
	/* 32-bit arm without the generic timer: a 1 GHz counter of ns. */
	T_EQ_INT(ng_clock_parse("counter: ktime_get_mono_fast_ns\n"
				"frequency: 1000000000\n"
				"sync: 5000000123 5000000120\n", &clk), 0);
	T_EQ_U64(ng_clock_ns(&clk, 5000000123ULL), 5000000120ULL);
	T_EQ_U64(ng_clock_ns(&clk, 7000000123ULL), 7000000120ULL);
	T_EQ_U64(ng_clock_ns(&clk, 4000000123ULL), 4000000120ULL);
	T_EQ_STR(clk.name, "ktime_get_mono_fast_ns");
	T_EQ_INT(ng_clock_parse("frequency: 1\nsync: 1 2\n", &clk), 0);
	T_EQ_STR(clk.name, "");
	T_EQ_INT(ng_clock_parse("frequency: 0\nsync: 1 2\n", &clk), -EINVAL);
	T_EQ_INT(ng_clock_parse("sync: 1 2\n", &clk), -EINVAL);
	T_EQ_INT(ng_clock_parse("", &clk), -EINVAL);
}

/* Each CPU's idle task (pid 0) has its own stack and file. */
static void test_idle(void)
{
	struct ng_conv *c = conv();

	T_ASSERT(c);
	clock_ev(c);
	IN(c, 0, 0, 1100, 0, VFS_READ);
	IN(c, 1, 0, 1105, 0, KSYS_READ);
	OUT(c, 0, 0, 1110, 0, VFS_READ);
	OUT(c, 1, 0, 1115, 0, KSYS_READ);
	IN(c, 1, 12, 1120, 0, VFS_READ);
	OUT(c, 1, 12, 1125, 0, VFS_READ);
	T_EQ_INT(ng_conv_finish(c, NULL), 0);
	T_FILE_EQ(t_path("0-0.txt"), "5100:+vfs_read\n5110:POP\n");
	T_FILE_EQ(t_path("0-1.txt"), "5105:+ksys_read\n5115:POP\n");
	T_FILE_EQ(t_path("threads.tsv"),
		  "tid\tpid\tcomm\n0-0\t0\tswapper/0\n0-1\t0\tswapper/1\n12\t-1\t\n");
}

static void info(void *priv, int tid, int *pid, char *comm, size_t size)
{
	(void)priv;
	*pid = tid == 21 ? 20 : tid;
	snprintf(comm, size, "%s", tid == 21 ? "worker\tx" : "main");
}

/* Module functions, unknown addresses, and the thread table. */
static void test_symbols_threads(void)
{
	struct ng_conv_summary s;
	struct ng_conv *c = conv();

	T_ASSERT(c);
	ng_conv_set_thread_info(c, info, NULL);
	clock_ev(c);
	IN(c, 0, 21, 1100, 0, NF_HOOK);
	IN(c, 0, 21, 1101, 1, 0x1234);	/* below every symbol */
	OUT(c, 0, 21, 1102, 1, 0x1234);
	OUT(c, 0, 21, 1103, 0, NF_HOOK);
	IN(c, 0, 20, 1104, 0, NF_HOOK);
	OUT(c, 0, 20, 1105, 0, NF_HOOK);
	T_EQ_INT(ng_conv_finish(c, &s), 0);
	T_FILE_EQ(t_path("21.txt"), "5100:+nf_hook_slow [nf_tables]\n5101:+0x1234\n"
		  "5102:POP\n5103:POP\n");
	T_FILE_EQ(t_path("threads.tsv"),
		  "tid\tpid\tcomm\n20\t20\tmain\n21\t20\tworker?x\n");
	T_EQ_U64(s.unresolved, 1);
}

/* An event order the kernel can produce (an interrupt between the
 * counter read and the write) gives lower timestamps: they are raised. */
static void test_clamp(void)
{
	struct ng_conv_summary s;
	struct ng_conv *c = conv();

	T_ASSERT(c);
	clock_ev(c);
	IN(c, 0, 8, 1120, 1, RW_VERIFY);	/* the interrupt's call */
	OUT(c, 0, 8, 1130, 1, RW_VERIFY);
	IN(c, 0, 8, 1100, 0, VFS_READ);		/* read its counter first */
	OUT(c, 0, 8, 1140, 0, VFS_READ);
	T_EQ_INT(ng_conv_finish(c, &s), 0);
	T_FILE_EQ(t_path("8.txt"), "5120:+rw_verify_area\n5130:POP\n"
		  "5130:+vfs_read\n5140:POP\n");
	T_EQ_U64(s.clamped, 1);
}

/* A write error anywhere leaves nothing under a final name. */
static void test_all_or_nothing(void)
{
	struct rlimit rl = { 64, 64 };
	struct ng_conv_summary s;
	struct ng_conv *c = conv();
	int i, ret;

	T_ASSERT(c);
	clock_ev(c);
	IN(c, 0, 1, 1100, 0, VFS_READ);
	OUT(c, 0, 1, 1110, 0, VFS_READ);
	for (i = 0; i < 100; i++) {
		IN(c, 0, 2, 1200 + 2 * i, 0, VFS_READ);
		OUT(c, 0, 2, 1201 + 2 * i, 0, VFS_READ);
	}
	signal(SIGXFSZ, SIG_IGN);
	T_EQ_INT(setrlimit(RLIMIT_FSIZE, &rl), 0);
	ret = ng_conv_finish(c, &s);
	T_ASSERT(ret == -EFBIG);
	T_ASSERT(!t_exists(t_path("1.txt")));
	T_ASSERT(!t_exists(t_path("2.txt")));
	T_ASSERT(!t_temp_of(t_path("2.txt")));
	T_ASSERT(!t_exists(t_path("threads.tsv")));
	T_EQ_U64(s.threads, 0);
}

/* The peak resident set of this process so far, KiB. */
static long maxrss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/*
 * With a clock given, memory stays flat however many events come and
 * whether or not a clock_sync ever does: the given clock was only a
 * fallback, and every event waited in memory for a clock_sync (20M
 * events took 1.2 GiB). Two million events here held 128 MiB.
 */
static void test_memory_flat_given_clock(void)
{
	struct ng_clock clk = { .counter = 0, .mono_ns = 1000, .freq = 1000000000 };
	struct ng_conv_summary s;
	struct ng_conv *c = conv();
	long before;
	uint64_t i;

	T_ASSERT(c);
	ng_conv_set_clock(c, &clk);
	before = maxrss_kb();
	for (i = 0; i < 1000000; i++) {
		IN(c, 0, 5, 2 * i, 0, VFS_READ);
		OUT(c, 0, 5, 2 * i + 1, 0, VFS_READ);
	}
	t_diag("2M events: peak RSS grew by %ld KiB", maxrss_kb() - before);
	T_ASSERT(maxrss_kb() - before < 16 * 1024);
	T_EQ_INT(ng_conv_finish(c, &s), 0);
	T_EQ_U64(s.pushes, 1000000);
	T_EQ_U64(s.first_ns, 1000);
	T_EQ_U64(s.last_ns, 2000999);
}

/*
 * Without any clock, the events before the first clock_sync wait for it,
 * but only NG_CONV_MAX_HELD of them: then -ENODATA, and nothing written.
 */
static void test_held_events_bounded(void)
{
	struct ng_conv *c = conv();
	int i, ret = 0;

	T_ASSERT(c);
	for (i = 0; i < NG_CONV_MAX_HELD && !ret; i++)
		ret = ev(c, NG_EV_ENTRY, 0, 4, 1100 + i, 0, VFS_READ);
	T_EQ_INT(ret, 0);
	T_EQ_INT(ev(c, NG_EV_EXIT, 0, 4, 1100 + i, 0, VFS_READ), -ENODATA);
	T_EQ_INT(ng_conv_finish(c, NULL), -ENODATA);
	T_ASSERT(!t_exists(t_path("4.txt")));
	T_ASSERT(!t_temp_of(t_path("4.txt")));
	T_ASSERT(!t_exists(t_path("threads.tsv")));
}

/* ---- the convert command, on trace.dat files made by tdat_gen.c ---- */

/* A trace.dat of @calls calls of thread 42 on CPU 0; a clock_sync last if @sync. */
static int make_tdat(const char *path, long calls, bool sync)
{
	struct t_tdat *t = t_tdat_open(path, 2, kallsyms, "42 worker\n");
	long i;

	if (!t)
		return -1;
	for (i = 0; i < calls; i++) {
		t_tdat_entry(t, 0, 42, 1000 + 2 * i, 2000 + 2 * i, 0, VFS_READ);
		t_tdat_exit(t, 0, 42, 1001 + 2 * i, 2001 + 2 * i, 0, VFS_READ);
	}
	if (sync)	/* tracing_on=0's clock_sync: counter 2000 was 7000 ns */
		t_tdat_clock(t, 1, 1000 + 2 * calls, 2000, 7000, 1000000000);
	return t_tdat_close(t);
}

/* "nanograph convert" with ASan's quarantine off: freed memory is reused. */
static struct t_result convert_cmd(const char *a1, const char *a2,
				   const char *a3, const char *a4,
				   const char *a5)
{
	char *argv[] = { NULL, "convert", "-q", (char *)a1, (char *)a2,
			 (char *)a3, (char *)a4, (char *)a5, NULL };
	char *env[] = { "ASAN_OPTIONS=quarantine_size_mb=0", NULL };

	return t_nanograph_run(argv, env);
}

/*
 * The memory the command allocates does not grow with the trace (its
 * resident set does: libtracecmd maps the file): 1.5M calls
 * against 100, converted with --clock (no clock_sync in the file), and
 * with only the clock_sync of tracing_on=0, at the very end, which is
 * now found first. Before, both held every event: 3M events, 190 MiB.
 */
static void test_cmd_memory_flat(void)
{
	static const struct { bool sync; const char *clock; } runs[] = {
		{ false, "--clock" },
		{ true, NULL },
	};
	char small[600], big[600], clk[600], out[600], *text;
	struct t_result r;
	long base;
	size_t i;
	bool ok;

	t_run_watch_anon(true);
	snprintf(clk, sizeof(clk), "%s", t_path("clock"));
	T_EQ_INT(t_write_file(clk, "frequency: 1000000000\nsync: 2000 7000\n"), 0);
	for (i = 0; i < 2; i++) {
		snprintf(small, sizeof(small), "%s", t_path("small.dat"));
		snprintf(big, sizeof(big), "%s", t_path("big.dat"));
		snprintf(out, sizeof(out), "%s", t_path("out"));
		T_EQ_INT(make_tdat(small, 100, runs[i].sync), 0);
		T_EQ_INT(make_tdat(big, 1500000, runs[i].sync), 0);
		r = convert_cmd("-o", out, runs[i].clock ? "--clock" : small,
				runs[i].clock ? clk : NULL, runs[i].clock ? small : NULL);
		base = r.peak_anon_kb;
		T_RUN(r, 0, "", "");
		text = t_read_file(t_path("out/42.txt"), NULL);
		ok = text && !strncmp(text, "7000:+vfs_read\n7001:POP\n7002:+vfs_read\n", 38);
		free(text);
		T_ASSERT(ok);
		r = convert_cmd("-o", out, runs[i].clock ? "--clock" : big,
				runs[i].clock ? clk : NULL, runs[i].clock ? big : NULL);
		t_diag("%s: peak RssAnon %ld KiB for 100 calls, %ld KiB for 1.5M",
		       runs[i].sync ? "clock_sync at the end" : "--clock",
		       base, r.peak_anon_kb);
		T_ASSERT(base > 0 && r.peak_anon_kb - base < 16 * 1024);
		T_RUN(r, 0, "", "");
	}
}

/*
 * --clock wins over the file's clock_sync: it lines a conversion up with
 * another recording's sync pair (a trace-cmd record -p nanograph beside a
 * nanograph record).  Before, it was read only when the file had none.
 */
static void test_cmd_clock_overrides(void)
{
	char dat[600], clk[600], out[600], *text;
	bool ok;

	snprintf(dat, sizeof(dat), "%s", t_path("sync.dat"));
	snprintf(clk, sizeof(clk), "%s", t_path("clock9"));
	snprintf(out, sizeof(out), "%s", t_path("out9"));
	T_EQ_INT(make_tdat(dat, 3, true), 0);
	T_EQ_INT(t_write_file(clk, "frequency: 1000000000\nsync: 2000 9000\n"), 0);
	T_RUN(convert_cmd("-o", out, dat, NULL, NULL), 0, "", "");
	text = t_read_file(t_path("out9/42.txt"), NULL);
	ok = text && !strncmp(text, "7000:+vfs_read\n", 15);
	free(text);
	T_ASSERT(ok);
	T_RUN(convert_cmd("-o", out, "--clock", clk, dat), 0, "", "");
	text = t_read_file(t_path("out9/42.txt"), NULL);
	ok = text && !strncmp(text, "9000:+vfs_read\n9001:POP\n", 24);
	free(text);
	T_ASSERT(ok);
}

/*
 * More threads than open files: 5000 threads taking turns, three calls
 * each, under a limit of 256 open files. The converter kept one FILE *
 * per thread and failed with EMFILE at about 250 (1020 by default).
 */
static void test_threads_over_open_files(void)
{
	struct rlimit rl = { 256, 256 };
	struct ng_conv_summary s;
	struct ng_conv *c = conv();
	char name[32], want[128];
	int tid, round;

	T_ASSERT(c);
	T_EQ_INT(setrlimit(RLIMIT_NOFILE, &rl), 0);
	clock_ev(c);
	for (round = 0; round < 3; round++)
		for (tid = 1; tid <= 5000; tid++) {
			IN(c, 0, tid, 10000 * round + 2 * tid, 0, VFS_READ);
			OUT(c, 0, tid, 10000 * round + 2 * tid + 1, 0, VFS_READ);
		}
	T_EQ_INT(ng_conv_finish(c, &s), 0);
	T_EQ_U64(s.threads, 5000);
	T_EQ_U64(s.pushes, 15000);
	for (tid = 1; tid <= 5000; tid += 499) {
		snprintf(name, sizeof(name), "%d.txt", tid);
		snprintf(want, sizeof(want), "%d:+vfs_read\n%d:POP\n%d:+vfs_read\n%d:POP\n"
			 "%d:+vfs_read\n%d:POP\n", 4000 + 2 * tid, 4001 + 2 * tid,
			 14000 + 2 * tid, 14001 + 2 * tid, 24000 + 2 * tid,
			 24001 + 2 * tid);
		T_FILE_EQ(t_path(name), want);
	}
	T_ASSERT(!t_temp_of(t_path("5000.txt")));
}

/* The same through the command, on a trace.dat of 5000 threads, ulimit -n 256. */
static void test_cmd_threads_over_open_files(void)
{
	struct rlimit rl = { 256, 256 };
	struct t_tdat *t;
	char dat[600], out[600], name[64], *tsv;
	size_t len;
	int tid, round, rows = 0;
	size_t i;

	snprintf(dat, sizeof(dat), "%s", t_path("many.dat"));
	snprintf(out, sizeof(out), "%s", t_path("many"));
	t = t_tdat_open(dat, 4, kallsyms, "");
	T_ASSERT(t);
	for (round = 0; round < 3; round++)
		for (tid = 1; tid <= 5000; tid++) {
			uint64_t ts = 10000 * round + 2 * tid;

			if (!round && tid == 1)
				t_tdat_clock(t, 0, ts, 1000, 5000, 1000000000);
			t_tdat_entry(t, tid % 4, tid, ts, ts, 0, VFS_READ);
			t_tdat_exit(t, tid % 4, tid, ts + 1, ts + 1, 0, VFS_READ);
		}
	T_EQ_INT(t_tdat_close(t), 0);
	T_EQ_INT(setrlimit(RLIMIT_NOFILE, &rl), 0);
	T_RUN(convert_cmd("-o", out, dat, NULL, NULL), 0, "", "");
	T_FILE_EQ(t_path("many/4999.txt"),
		  "13998:+vfs_read\n13999:POP\n23998:+vfs_read\n23999:POP\n"
		  "33998:+vfs_read\n33999:POP\n");
	tsv = t_read_file(t_path("many/threads.tsv"), &len);
	T_ASSERT(tsv);
	for (i = 0; i < len; i++)
		rows += tsv[i] == '\n';
	free(tsv);
	T_EQ_INT(rows, 5001);
	snprintf(name, sizeof(name), "many/%d.txt", 1);
	T_ASSERT(!t_temp_of(t_path(name)));
}

/*
 * A function of a module unloaded before kallsyms was read: written as
 * its address, counted, never under a neighbour's name (it was
 * "nft_do_chain [nf_tables]", the function below it).
 */
static void test_unloaded_module_as_hex(void)
{
	static const char ks[] =
		"ffffffff81001000 T vfs_read\n"
		"ffffffff83000000 B _end\n"
		"ffffffffc0a02000 T nft_do_chain\t[nf_tables]\n"
		"ffffffffc0b00000 t ext4_lookup\t[ext4]\n";
	static const char mods[] =
		"nf_tables 8192 0 - Live 0xffffffffc0a01000\n"
		"ext4 8192 0 - Live 0xffffffffc0b00000\n";
	struct ng_conv_summary s;
	struct ng_syms *table;
	struct ng_conv *c;

	T_EQ_INT(ng_syms_parse(&table, ks, strlen(ks)), 0);
	T_EQ_INT(ng_syms_set_modules(table, mods, strlen(mods)), 0);
	T_EQ_INT(ng_conv_new(&c, t_tmpdir(), table), 0);
	clock_ev(c);
	IN(c, 0, 6, 1100, 0, 0xffffffffc0a02010ULL);
	IN(c, 0, 6, 1101, 1, 0xffffffffc0a10000ULL);	/* gone */
	OUT(c, 0, 6, 1102, 1, 0xffffffffc0a10000ULL);
	IN(c, 0, 6, 1103, 1, 0xffffffffc0a10000ULL);
	OUT(c, 0, 6, 1104, 1, 0xffffffffc0a10000ULL);
	OUT(c, 0, 6, 1105, 0, 0xffffffffc0a02010ULL);
	T_EQ_INT(ng_conv_finish(c, &s), 0);
	ng_syms_free(table);
	T_FILE_EQ(t_path("6.txt"), "5100:+nft_do_chain [nf_tables]\n"
		  "5101:+0xffffffffc0a10000\n5102:POP\n"
		  "5103:+0xffffffffc0a10000\n5104:POP\n5105:POP\n");
	T_EQ_U64(s.unresolved, 1);
}

/* convert says once how many addresses it could not name. */
static void test_cmd_warns_unresolved(void)
{
	char dat[600], out[600], want[1200];
	struct t_tdat *t = NULL;
	char *argv[] = { NULL, "convert", "-o", out, dat, NULL };

	snprintf(dat, sizeof(dat), "%s", t_path("u.dat"));
	snprintf(out, sizeof(out), "%s", t_path("u"));
	t = t_tdat_open(dat, 1, kallsyms, "");
	T_ASSERT(t);
	t_tdat_clock(t, 0, 100, 1000, 5000, 1000000000);
	t_tdat_entry(t, 0, 9, 101, 1001, 0, 0x1000);
	t_tdat_entry(t, 0, 9, 102, 1002, 1, 0x2000);
	t_tdat_exit(t, 0, 9, 103, 1003, 1, 0x2000);
	t_tdat_exit(t, 0, 9, 104, 1004, 0, 0x1000);
	T_EQ_INT(t_tdat_close(t), 0);
	snprintf(want, sizeof(want),
		 "nanograph: 1 threads, 4 events (2 calls), 0 lost, 0.0 KiB in %s/\n"
		 "nanograph: warning: 2 function addresses lie in no function of the trace's kallsyms: written as hex\n",
		 out);
	T_RUN(t_nanograph_run(argv, NULL), 0, "", want);
	T_FILE_EQ(t_path("u/9.txt"), "5001:+0x1000\n5002:+0x2000\n5003:POP\n5004:POP\n");
}

/*
 * options/sched's events in a trace.dat of func_call events: the reader
 * (10) sleeps in vfs_read, the writer (20) wakes it inside ksys_read's
 * call to rw_verify_area, both calls written at their return, after the
 * wake.  sched.tsv names the waker's function from the wake event's ip
 * (the writer's calls were not known at the wake), the sleep and the
 * return by the events' pid, not their writer (sched_in is written by
 * the task leaving).
 */
static void test_cmd_sched_events(void)
{
	char dat[600], out[600];
	struct t_tdat *t = NULL;
	char *argv[] = { NULL, "convert", "-o", out, dat, NULL };

	snprintf(dat, sizeof(dat), "%s", t_path("s.dat"));
	snprintf(out, sizeof(out), "%s", t_path("s"));
	t = t_tdat_open(dat, 2, kallsyms, "10 reader\n20 writer\n");
	T_ASSERT(t);
	t_tdat_clock(t, 0, 100, 1000, 5000, 1000000000);
	t_tdat_sched_out(t, 0, 10, 110, 1010, 1, 0);
	t_tdat_sched_wake(t, 1, 20, 10, 120, 1020, 0, RW_VERIFY);
	t_tdat_sched_in(t, 0, 0, 10, 130, 1030);
	t_tdat_call(t, 1, 20, 140, 1015, 1, RW_VERIFY, 1025);
	t_tdat_call(t, 1, 20, 141, 1012, 0, KSYS_READ, 1040);
	t_tdat_call(t, 0, 10, 150, 1005, 0, VFS_READ, 1050);
	T_EQ_INT(t_tdat_close(t), 0);
	T_RUN(t_nanograph_run(argv, NULL), 0, NULL, NULL);
	T_FILE_EQ(t_path("s/sched.tsv"),
		  "# nanograph sched 1\n"
		  "5010\tout\t10\tS\t1\n"
		  "5020\twake\t10\t20\twriter\ttask\trw_verify_area\n"
		  "5030\tin\t10\n");
	T_FILE_EQ(t_path("s/10.txt"), "5005:+vfs_read\n5050:POP\n");
}

/*
 * A trace.dat cut short or with a damaged header (a copy interrupted, a
 * disk full): convert says so and exits 1, never crashes, and leaves no
 * temporary directory beside the output.  Before, every cut inside the
 * headers crashed (rc 139: libtracecmd's failed open) and left a
 * ".out.XXXXXX" directory behind each time.
 */
static void test_cmd_truncated(void)
{
	static const long cuts[] = { 0, 8, 100, 1000, 3200, 5000, 20000 };
	char dat[600], cut[600], out[600], *all, *err;
	size_t len, i, bad = 0;
	struct t_result r;
	FILE *f;

	snprintf(dat, sizeof(dat), "%s", t_path("whole.dat"));
	snprintf(cut, sizeof(cut), "%s", t_path("cut.dat"));
	snprintf(out, sizeof(out), "%s", t_path("cutout"));
	T_EQ_INT(make_tdat(dat, 2000, true), 0);
	all = t_read_file(dat, &len);
	T_ASSERT(all && len > 20000);
	for (i = 0; all && i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		f = fopen(cut, "w");
		T_ASSERT(f);
		if (!f)
			break;
		fwrite(all, 1, (size_t)cuts[i], f);
		fclose(f);
		r = convert_cmd("-o", out, cut, NULL, NULL);
		err = r.err;
		if (r.status < 0 || r.status > 1 || (r.status == 1 && (!err || !*err))) {
			t_diag("cut at %ld bytes: status %d, stderr: %s", cuts[i],
			       r.status, err ? err : "(none)");
			bad++;
		}
		t_result_free(&r);
		if (t_temp_of(out)) {
			t_diag("cut at %ld bytes: a temporary directory is left", cuts[i]);
			bad++;
		}
	}
	free(all);
	T_EQ_INT((int)bad, 0);
}

static const struct t_case cases[] = {
	{ "nesting", test_nesting },
	{ "interleaved_threads_one_cpu", test_interleaved },
	{ "cpu_migration", test_migration },
	{ "calls_open_at_start", test_open_at_start },
	{ "calls_open_at_end", test_open_at_end },
	{ "lost_events", test_lost_events },
	{ "counter_wrap", test_counter_wrap },
	{ "clock_arrives_late", test_clock_arrives_late },
	{ "no_clock", test_no_clock },
	{ "clock_parse", test_clock_parse },
	{ "idle_tasks", test_idle },
	{ "symbols_and_threads", test_symbols_threads },
	{ "clamped_timestamps", test_clamp },
	{ "all_or_nothing", test_all_or_nothing },
	{ "memory_flat_given_clock", test_memory_flat_given_clock },
	{ "held_events_bounded", test_held_events_bounded },
	{ "cmd_memory_flat", test_cmd_memory_flat },
	{ "cmd_clock_overrides", test_cmd_clock_overrides },
	{ "threads_over_open_files", test_threads_over_open_files },
	{ "cmd_threads_over_open_files", test_cmd_threads_over_open_files },
	{ "unloaded_module_as_hex", test_unloaded_module_as_hex },
	{ "cmd_warns_unresolved", test_cmd_warns_unresolved },
	{ "cmd_truncated", test_cmd_truncated },
	{ "cmd_sched_events", test_cmd_sched_events },
};

T_SUITE(convert, cases);
