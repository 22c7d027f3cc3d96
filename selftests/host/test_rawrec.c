// SPDX-License-Identifier: GPL-2.0
/*
 * test_rawrec.c - reading raw-mode records (per_cpu/cpuN/raw content)
 * into push/pop files: task records, the clock record, CPUs merged by
 * counter across a 56-bit wrap, migration, and what the reader skips.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nanograph.h"
#include "nanograph_event.h"
#include "ktap.h"

static const char kallsyms[] =
	"ffffffff81001000 T vfs_read\n"
	"ffffffff81002000 t rw_verify_area\n"
	"ffffffff81003000 T ksys_read\n";

#define VFS_READ	0xffffffff81001000ULL
#define RW_VERIFY	0xffffffff81002000ULL
#define KSYS_READ	0xffffffff81003000ULL

/* One CPU's records, as the module writes them. */
struct cpu_file {
	int fd;
};

static int cpu_open(struct cpu_file *f)
{
	f->fd = memfd_create("raw", 0);
	return f->fd;
}

static void put(struct cpu_file *f, uint64_t a, uint64_t b)
{
	uint64_t w[2] = { a, b };

	if (write(f->fd, w, sizeof(w)) != sizeof(w))
		t_diag("short write");
}

static void task(struct cpu_file *f, int tgid, int pid)
{
	put(f, NG_RAW_META | NG_RAW_TASK, (uint64_t)tgid << 32 | (uint32_t)pid);
}

static void clock_rec(struct cpu_file *f, uint64_t counter, uint64_t ns)
{
	put(f, NG_RAW_META | NG_RAW_CLOCK, counter);
	put(f, ns, 1000000000);
}

/* A comm record and its payload: @name, NUL-padded to 16 bytes. */
static void comm_rec(struct cpu_file *f, uint64_t counter, const char *name)
{
	uint64_t w[2] = { 0, 0 };

	memcpy(w, name, strnlen(name, sizeof(w)));
	put(f, NG_RAW_META | NG_RAW_COMM, counter);
	put(f, w[0], w[1]);
}

static void in(struct cpu_file *f, uint64_t t, unsigned int d, uint64_t ip)
{
	put(f, ng_tsd(t, d), ip);
}

static void out(struct cpu_file *f, uint64_t t, unsigned int d, uint64_t ip)
{
	put(f, ng_tsd(t, d) | NG_RAW_EXIT, ip);
}

/* Merge @n CPU files into push/pop files in the test's directory. */
static int convert(struct cpu_file *cpus, int n, struct ng_conv_summary *s)
{
	struct ng_syms *syms = NULL;
	struct ng_conv *c = NULL;
	int fds[4], i, ret;

	if (ng_syms_parse(&syms, kallsyms, strlen(kallsyms)) ||
	    ng_conv_new(&c, t_tmpdir(), syms))
		return -1;
	for (i = 0; i < n; i++)
		fds[i] = cpus[i].fd;
	ret = ng_raw_replay_fds(fds, n, c);
	if (ret)
		ng_conv_abort(c);
	else
		ret = ng_conv_finish(c, s);
	for (i = 0; i < n; i++)
		if (cpus[i].fd >= 0)
			close(cpus[i].fd);
	ng_syms_free(syms);
	return ret;
}

/* Two tasks on two CPUs; the clock record gives the nanoseconds. */
static void test_two_cpus(void)
{
	struct ng_conv_summary s;
	struct cpu_file cpu[2];

	T_ASSERT(cpu_open(&cpu[0]) >= 0 && cpu_open(&cpu[1]) >= 0);
	clock_rec(&cpu[0], 1000, 5000);
	task(&cpu[0], 40, 42);
	in(&cpu[0], 1100, 0, KSYS_READ);
	in(&cpu[0], 1110, 1, VFS_READ);
	task(&cpu[1], 43, 43);
	in(&cpu[1], 1105, 0, VFS_READ);
	out(&cpu[1], 1120, 0, VFS_READ);
	out(&cpu[0], 1130, 1, VFS_READ);
	out(&cpu[0], 1140, 0, KSYS_READ);
	T_EQ_INT(convert(cpu, 2, &s), 0);
	T_FILE_EQ(t_path("42.txt"),
		  "5100:+ksys_read\n5110:+vfs_read\n5130:POP\n5140:POP\n");
	T_FILE_EQ(t_path("43.txt"), "5105:+vfs_read\n5120:POP\n");
	T_EQ_U64(s.events, 6);	/* entries and exits */
	T_EQ_U64(s.threads, 2);
	T_EQ_U64(s.repaired + s.unmatched_exits + s.closed_at_end + s.clamped, 0);
}

/*
 * Task records switch the owner of the records that follow; a task that
 * moves to another CPU mid-call stays one stack.
 */
static void test_switch_and_migration(void)
{
	struct cpu_file cpu[2];

	T_ASSERT(cpu_open(&cpu[0]) >= 0 && cpu_open(&cpu[1]) >= 0);
	clock_rec(&cpu[0], 1000, 5000);
	task(&cpu[0], 7, 7);
	in(&cpu[0], 1100, 0, VFS_READ);
	task(&cpu[0], 8, 8);
	in(&cpu[0], 1105, 0, KSYS_READ);
	out(&cpu[0], 1106, 0, KSYS_READ);
	task(&cpu[1], 7, 7);
	out(&cpu[1], 1200, 0, VFS_READ);
	T_EQ_INT(convert(cpu, 2, NULL), 0);
	T_FILE_EQ(t_path("7.txt"), "5100:+vfs_read\n5200:POP\n");
	T_FILE_EQ(t_path("8.txt"), "5105:+ksys_read\n5106:POP\n");
}

/*
 * The 56-bit counter wraps between a task's entry on CPU 0 and its exit
 * on CPU 1: compared as plain numbers the exit (5) would be merged first
 * and the call lost.
 */
static void test_wrap_across_cpus(void)
{
	struct cpu_file cpu[2];
	struct ng_conv_summary s;

	T_ASSERT(cpu_open(&cpu[0]) >= 0 && cpu_open(&cpu[1]) >= 0);
	clock_rec(&cpu[0], NG_TSD_COUNTER_MASK - 100, 1000000);
	task(&cpu[0], 9, 9);
	in(&cpu[0], NG_TSD_COUNTER_MASK - 10, 0, VFS_READ);
	task(&cpu[1], 9, 9);
	out(&cpu[1], 5, 0, VFS_READ);
	T_EQ_INT(convert(cpu, 2, &s), 0);
	T_FILE_EQ(t_path("9.txt"), "1000090:+vfs_read\n1000106:POP\n");
	T_EQ_U64(s.unmatched_exits + s.closed_at_end, 0);
}

/*
 * A comm record takes the record after it whole: its payload (a name,
 * which read as a tsd is a small counter at depth 0) is never an entry,
 * whether the name is short or fills the 16 bytes.
 */
static void test_comm_records(void)
{
	struct cpu_file cpu[1];
	struct ng_conv_summary s;

	T_ASSERT(cpu_open(&cpu[0]) >= 0);
	clock_rec(&cpu[0], 1000, 5000);
	task(&cpu[0], 5, 6);
	comm_rec(&cpu[0], 1100, "dd");
	in(&cpu[0], 1100, 0, VFS_READ);
	comm_rec(&cpu[0], 1105, "fifteen-chars-x");
	out(&cpu[0], 1110, 0, VFS_READ);
	T_EQ_INT(convert(cpu, 1, &s), 0);
	T_FILE_EQ(t_path("6.txt"), "5100:+vfs_read\n5110:POP\n");
	T_EQ_U64(s.events, 2);
	T_EQ_U64(s.repaired + s.unmatched_exits + s.closed_at_end + s.clamped, 0);
}

/*
 * What the reader skips: records before the CPU's first task record
 * (counted: their calls are missing), a meta record of a kind it does
 * not know, a torn record at the end.
 * An absent CPU (-1) is fine.
 */
static void test_skips(void)
{
	struct cpu_file cpu[2] = { { -1 }, { -1 } };
	struct ng_conv_summary s;
	char torn[8] = { 0 };

	T_ASSERT(cpu_open(&cpu[1]) >= 0);
	in(&cpu[1], 1050, 0, KSYS_READ);
	clock_rec(&cpu[1], 1000, 5000);
	task(&cpu[1], 3, 3);
	in(&cpu[1], 1100, 0, VFS_READ);
	put(&cpu[1], NG_RAW_META | 99, 0);
	out(&cpu[1], 1110, 0, VFS_READ);
	T_ASSERT(write(cpu[1].fd, torn, sizeof(torn)) == sizeof(torn));
	T_EQ_INT(convert(cpu, 2, &s), 0);
	T_FILE_EQ(t_path("3.txt"), "5100:+vfs_read\n5110:POP\n");
	T_EQ_U64(s.events, 2);
	/* the entry before the task record: named no task, and counted */
	T_EQ_U64(s.unattributed, 1);
}

/* A scheduling record: @kind with its argument, at counter @t. */
static void sched_rec(struct cpu_file *f, uint64_t kind, uint64_t arg, uint64_t t)
{
	put(f, NG_RAW_META | kind | arg << NG_RAW_ARG_SHIFT, t);
}

/*
 * Scheduling records go to sched.tsv, each under the task of its CPU's
 * last task record; a wake names the waker's innermost open call, or an
 * interrupt; the push/pop files are as without them, and the wakes are
 * counted by whether their waker's call is known.  Another meta kind
 * is still skipped, and a sched record before any task record counted.
 */
static void test_sched(void)
{
	struct cpu_file cpu[2];
	struct ng_conv_summary s;

	T_ASSERT(cpu_open(&cpu[0]) >= 0 && cpu_open(&cpu[1]) >= 0);
	sched_rec(&cpu[1], NG_RAW_SWITCH_IN, 0, 1001);
	clock_rec(&cpu[0], 1000, 5000);
	task(&cpu[0], 421, 421);
	in(&cpu[0], 1100, 0, VFS_READ);
	sched_rec(&cpu[0], NG_RAW_SWITCH_OUT, 1, 1110);
	/* written by whoever moved 421: here the idle task's records */
	task(&cpu[0], 0, 0);
	sched_rec(&cpu[0], NG_RAW_MIGRATE, 421 | 0ULL << NG_RAW_TID_BITS |
		  1ULL << (NG_RAW_TID_BITS + NG_RAW_CPU_BITS), 1115);
	task(&cpu[1], 420, 420);
	in(&cpu[1], 1200, 0, KSYS_READ);
	sched_rec(&cpu[1], NG_RAW_WAKE, 421, 1210);
	out(&cpu[1], 1220, 0, KSYS_READ);
	sched_rec(&cpu[1], NG_RAW_WAKE, 421 | NG_RAW_CTX_HARDIRQ <<
		  (NG_RAW_WAKE_CTX_SHIFT - NG_RAW_ARG_SHIFT), 1225);
	task(&cpu[0], 421, 421);
	sched_rec(&cpu[0], NG_RAW_SWITCH_IN, 0, 1230);
	put(&cpu[0], NG_RAW_META | NG_RAW_PREEMPTED | NG_RAW_SWITCH_OUT |
	    (1ULL << NG_RAW_ARG_SHIFT), 1240);
	sched_rec(&cpu[0], NG_RAW_SWITCH_IN, 0, 1250);
	out(&cpu[0], 1260, 0, VFS_READ);
	task(&cpu[1], 500, 500);
	sched_rec(&cpu[1], NG_RAW_WAKE, 421, 1270);
	task(&cpu[1], 0, 0);
	sched_rec(&cpu[1], NG_RAW_WAKE, 421 | NG_RAW_CTX_HARDIRQ <<
		  (NG_RAW_WAKE_CTX_SHIFT - NG_RAW_ARG_SHIFT), 1280);
	T_EQ_INT(convert(cpu, 2, &s), 0);
	T_FILE_EQ(t_path("421.txt"), "5100:+vfs_read\n5260:POP\n");
	T_FILE_EQ(t_path("420.txt"), "5200:+ksys_read\n5220:POP\n");
	T_FILE_EQ(t_path("sched.tsv"),
		  "# nanograph sched 1\n"
		  "5110\tout\t421\tS\t1\n"
		  "5115\tmigrate\t421\t0\t1\n"
		  "5210\twake\t421\t420\t-\ttask\tksys_read\n"
		  "5225\twake\t421\t420\t-\thardirq\t-\n"
		  "5230\tin\t421\n"
		  "5240\tout\t421\tR\t1\n"
		  "5250\tin\t421\n"
		  "5270\twake\t421\t500\t-\ttask\t-\n"
		  "5280\twake\t421\t0\tswapper/1\thardirq\t-\n");
	T_EQ_U64(s.sched, 9);
	/*
	 * One wake in ksys_read, one from an irq that interrupted no call,
	 * one by a thread with no calls recorded, one from an irq on an idle
	 * CPU (named as its idle task).
	 */
	T_EQ_U64(s.wakes, 4);
	T_EQ_U64(s.wakes_attributed, 1);
	T_EQ_U64(s.wakes_no_call, 1);
	T_EQ_U64(s.wakes_untraced, 2);
	T_EQ_U64(s.events, 4);
	T_EQ_U64(s.unattributed, 1);
}

/*
 * A counters record belongs to the call whose exit at its depth came
 * last on its CPU, this task's: an interrupt's deeper call in between
 * changes nothing.  counters.tsv has a line per such call, by its exit's
 * nanoseconds; a record whose exit was lost (or a second one for the
 * same exit) is left out; the push/pop files are as without them.
 */
static void test_counters(void)
{
	struct cpu_file cpu[1];
	struct ng_conv_summary s;
	uint64_t lanes = 64ULL << (NG_COUNT_BITS * NG_COUNT_MINFLT) |
			 1ULL << (NG_COUNT_BITS * NG_COUNT_NVCSW) |
			 0xffffULL << (NG_COUNT_BITS * NG_COUNT_NIVCSW);

	T_ASSERT(cpu_open(&cpu[0]) >= 0);
	clock_rec(&cpu[0], 1000, 5000);
	task(&cpu[0], 421, 421);
	in(&cpu[0], 1100, 0, VFS_READ);
	in(&cpu[0], 1110, 1, RW_VERIFY);
	out(&cpu[0], 1120, 1, RW_VERIFY);
	in(&cpu[0], 1121, 2, KSYS_READ);	/* an interrupt's call */
	out(&cpu[0], 1122, 2, KSYS_READ);
	put(&cpu[0], NG_RAW_META | NG_RAW_COUNTERS | 1ULL << NG_RAW_ARG_SHIFT,
	    2ULL << (NG_COUNT_BITS * NG_COUNT_MAJFLT));
	sched_rec(&cpu[0], NG_RAW_COUNTERS, 1, 7);	/* the same exit again */
	out(&cpu[0], 1200, 0, VFS_READ);
	put(&cpu[0], NG_RAW_META | NG_RAW_COUNTERS, lanes);
	put(&cpu[0], NG_RAW_META | NG_RAW_COUNTERS | 5ULL << NG_RAW_ARG_SHIFT, lanes);
	T_EQ_INT(convert(cpu, 1, &s), 0);
	T_FILE_EQ(t_path("421.txt"),
		  "5100:+vfs_read\n5110:+rw_verify_area\n5120:POP\n"
		  "5121:+ksys_read\n5122:POP\n5200:POP\n");
	T_FILE_EQ(t_path("counters.tsv"),
		  "# nanograph counters 1\n"
		  "5120\t421\t1\trw_verify_area\t0\t2\t0\t0\n"
		  "5200\t421\t0\tvfs_read\t64\t0\t1\t65535\n");
	T_EQ_U64(s.counters, 2);
	T_EQ_U64(s.events, 6);
}

/* A site, arg or retval record of the call at depth @d. */
static void value_rec(struct cpu_file *f, uint64_t kind, unsigned int d,
		      unsigned int n, uint64_t v)
{
	put(f, NG_RAW_META | kind | ((uint64_t)d | (uint64_t)n << 8) << NG_RAW_ARG_SHIFT, v);
}

/*
 * Site and arg records after an entry become one args.tsv line of that
 * call (by its entry's nanoseconds), retval records after an exit a
 * retval.tsv line (by its exit's); records whose entry or exit is not
 * right before them (a flight window's first, another task's, another
 * depth's) are left out, and the push/pop files are as without them.
 */
static void test_values(void)
{
	struct cpu_file cpu[1];
	struct ng_conv_summary s;

	T_ASSERT(cpu_open(&cpu[0]) >= 0);
	clock_rec(&cpu[0], 1000, 5000);
	task(&cpu[0], 421, 421);
	value_rec(&cpu[0], NG_RAW_ARG, 0, 0, 0x77);	/* no entry before it */
	in(&cpu[0], 1100, 0, KSYS_READ);
	value_rec(&cpu[0], NG_RAW_SITE, 0, 0, KSYS_READ + 0x40);
	value_rec(&cpu[0], NG_RAW_ARG, 0, 0, 3);
	value_rec(&cpu[0], NG_RAW_ARG, 0, 1, 0x7ffd0000);
	value_rec(&cpu[0], NG_RAW_ARG, 0, 2, 0x64);
	value_rec(&cpu[0], NG_RAW_ARG, 1, 3, 0x99);	/* another depth's */
	in(&cpu[0], 1110, 1, VFS_READ);
	value_rec(&cpu[0], NG_RAW_ARG, 1, 0, 0xffff8881);
	out(&cpu[0], 1120, 1, VFS_READ);
	value_rec(&cpu[0], NG_RAW_RETVAL, 1, 0, 0x64);
	out(&cpu[0], 1130, 0, KSYS_READ);
	value_rec(&cpu[0], NG_RAW_RETVAL, 0, 0, (uint64_t)-9);
	task(&cpu[0], 422, 422);
	value_rec(&cpu[0], NG_RAW_RETVAL, 0, 0, 5);	/* 421's exit, not 422's */
	T_EQ_INT(convert(cpu, 1, &s), 0);
	T_FILE_EQ(t_path("421.txt"),
		  "5100:+ksys_read\n5110:+vfs_read\n5120:POP\n5130:POP\n");
	T_FILE_EQ(t_path("args.tsv"),
		  "# nanograph args 1\n"
		  "5100\t421\t0\tksys_read\tksys_read+0x40\t0x3\t0x7ffd0000\t0x64\n"
		  "5110\t421\t1\tvfs_read\t-\t0xffff8881\n");
	T_FILE_EQ(t_path("retval.tsv"),
		  "# nanograph retval 1\n"
		  "5120\t421\t1\tvfs_read\t0x64\n"
		  "5130\t421\t0\tksys_read\t0xfffffffffffffff7\n");
	T_EQ_U64(s.args, 2);
	T_EQ_U64(s.retvals, 2);
	T_EQ_U64(s.events, 4);
}

/* The idle task (pid 0) of each CPU gets its own file, as in events mode. */
static void test_idle(void)
{
	struct cpu_file cpu[2];

	T_ASSERT(cpu_open(&cpu[0]) >= 0 && cpu_open(&cpu[1]) >= 0);
	clock_rec(&cpu[0], 1000, 5000);
	task(&cpu[0], 0, 0);
	in(&cpu[0], 1100, 0, VFS_READ);
	out(&cpu[0], 1101, 0, VFS_READ);
	task(&cpu[1], 0, 0);
	in(&cpu[1], 1102, 0, KSYS_READ);
	out(&cpu[1], 1103, 0, KSYS_READ);
	T_EQ_INT(convert(cpu, 2, NULL), 0);
	T_FILE_EQ(t_path("0-0.txt"), "5100:+vfs_read\n5101:POP\n");
	T_FILE_EQ(t_path("0-1.txt"), "5102:+ksys_read\n5103:POP\n");
}

/*
 * One drain of more than INT_MAX bytes is a drain, not an error: it was
 * returned as an int count, which wrapped negative and stopped the
 * recording with a bogus errno. Two CPUs' buffers grow by 1.2 GB each
 * after the recorder is open (sparse files read as zeros); the spill
 * files are /dev/null, so nothing is written to disk.
 */
static void test_drain_over_2gib(void)
{
	const off_t each = 1200ULL << 20;
	struct ng_rec_opts o = { 0 };
	struct ng_recorder *r = NULL;
	char path[600];
	int cpu, fd[2];

	T_EQ_INT(mkdir(t_path("ctl"), 0755), 0);
	T_EQ_INT(mkdir(t_path("ctl/per_cpu"), 0755), 0);
	T_EQ_INT(mkdir(t_path("spill"), 0755), 0);
	T_EQ_INT(t_write_file(t_path("ctl/stats"),
			      "# cpu entries exits dropped skipped\ntotal 0 0 0 0\n"), 0);
	for (cpu = 0; cpu < 2; cpu++) {
		snprintf(path, sizeof(path), "%s/ctl/per_cpu/cpu%d", t_tmpdir(), cpu);
		T_EQ_INT(mkdir(path, 0755), 0);
		strcat(path, "/raw");
		fd[cpu] = open(path, O_RDWR | O_CREAT, 0644);
		T_ASSERT(fd[cpu] >= 0);
		snprintf(path, sizeof(path), "%s/spill/cpu%d.raw", t_tmpdir(), cpu);
		T_EQ_INT(symlink("/dev/null", path), 0);
	}
	o.raw = true;
	o.ctl_root = t_path("ctl");
	o.raw_dir = t_path("spill");
	o.buffer_kb = each >> 10;
	if (sysconf(_SC_NPROCESSORS_CONF) < 2)
		t_skip("needs two possible CPUs");
	T_EQ_INT(ng_rec_open(&r, &o), 0);
	for (cpu = 0; cpu < 2; cpu++) {
		T_EQ_INT(ftruncate(fd[cpu], each), 0);
		close(fd[cpu]);
	}
	T_EQ_INT(ng_rec_drain(r), 0);
	T_EQ_U64(ng_rec_bytes(r), 2 * (uint64_t)each);
	ng_rec_close(r);
}

/*
 * The recorder end to end on the raw capture: what a fake control
 * directory's per_cpu/cpu0/raw holds at the open (an earlier session's)
 * is discarded; what is appended after it is drained to the spill file
 * and replayed through the capture's source, the merge and the sink; the
 * thread the drain noted is named by its comm record; the module's drops
 * since the open are the recorder's lost; the close removes the spill
 * file.
 */
static void test_recorder(void)
{
	struct ng_rec_opts o = { 0 };
	struct ng_recorder *r = NULL;
	struct ng_conv_summary sum;
	struct ng_syms *syms = NULL;
	struct ng_conv *c = NULL;
	struct cpu_file f;
	char comm[16] = "";
	uint64_t lost = 1;
	int pid = 0;
	off_t end;

	T_EQ_INT(mkdir(t_path("ctl"), 0755), 0);
	T_EQ_INT(mkdir(t_path("ctl/per_cpu"), 0755), 0);
	T_EQ_INT(mkdir(t_path("ctl/per_cpu/cpu0"), 0755), 0);
	T_EQ_INT(mkdir(t_path("spill"), 0755), 0);
	T_EQ_INT(mkdir(t_path("out"), 0755), 0);
	T_EQ_INT(t_write_file(t_path("ctl/stats"),
			      "# cpu entries exits dropped skipped\ntotal 9 9 2 0\n"), 0);
	f.fd = open(t_path("ctl/per_cpu/cpu0/raw"), O_RDWR | O_CREAT | O_APPEND, 0644);
	T_ASSERT(f.fd >= 0);
	task(&f, 1, 1);
	in(&f, 900, 0, KSYS_READ);	/* not this recording's */

	o.raw = true;
	o.ctl_root = t_path("ctl");
	o.raw_dir = t_path("spill");
	T_EQ_INT(ng_rec_open(&r, &o), 0);
	end = lseek(f.fd, 0, SEEK_END);
	clock_rec(&f, 1000, 5000);
	task(&f, 40, 42);
	comm_rec(&f, 1100, "worker");
	in(&f, 1100, 0, KSYS_READ);
	in(&f, 1110, 1, VFS_READ);
	out(&f, 1130, 1, VFS_READ);
	out(&f, 1140, 0, KSYS_READ);
	T_EQ_INT(t_write_file(t_path("ctl/stats"),
			      "# cpu entries exits dropped skipped\ntotal 9 9 5 0\n"), 0);
	T_EQ_INT(ng_rec_drain(r), 0);
	T_EQ_U64(ng_rec_bytes(r), (uint64_t)(lseek(f.fd, 0, SEEK_END) - end));
	T_EQ_INT(ng_rec_lost(r, &lost), 0);
	T_EQ_U64(lost, 3);

	T_ASSERT(!ng_syms_parse(&syms, kallsyms, strlen(kallsyms)) &&
		 !ng_conv_new(&c, t_path("out"), syms));
	T_EQ_INT(ng_rec_replay(r, c), 0);
	T_EQ_INT(ng_conv_finish(c, &sum), 0);
	T_FILE_EQ(t_path("out/42.txt"),
		  "5100:+ksys_read\n5110:+vfs_read\n5130:POP\n5140:POP\n");
	T_EQ_U64(sum.events, 4);
	ng_rec_thread_info(r, 42, &pid, comm, sizeof(comm));
	T_EQ_INT(pid, 40);
	T_EQ_STR(comm, "worker");

	T_EQ_INT(access(t_path("spill/cpu0.raw"), F_OK), 0);
	ng_rec_close(r);
	T_ASSERT(access(t_path("spill/cpu0.raw"), F_OK) < 0);
	close(f.fd);
	ng_syms_free(syms);
}

static const struct t_case cases[] = {
	{ "two_cpus", test_two_cpus },
	{ "switch_and_migration", test_switch_and_migration },
	{ "wrap_across_cpus", test_wrap_across_cpus },
	{ "comm_records", test_comm_records },
	{ "skips", test_skips },
	{ "sched", test_sched },
	{ "counters", test_counters },
	{ "values", test_values },
	{ "idle", test_idle },
	{ "drain_over_2gib", test_drain_over_2gib },
	{ "recorder", test_recorder },
};

T_SUITE(rawrec, cases);
