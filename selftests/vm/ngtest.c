// SPDX-License-Identifier: GPL-2.0
/*
 * ngtest: small actions the in-VM selftests cannot do from a shell.
 *
 * A shell reports a failed write as a localised message; the tests need
 * the exact errno of one write(2) call, and writes of a given size.
 * Built statically so that it runs in the bare initramfs.
 *
 *   ngtest write FILE DATA        one write of DATA; prints ok or ERRNO
 *   ngtest append FILE DATA       the same with O_APPEND
 *   ngtest write-big FILE SIZE    one write of SIZE bytes of 'a'
 *   ngtest read FILE CHUNK        read FILE CHUNK bytes at a time to stdout
 *   ngtest read-count FILE CHUNK SECONDS
 *                                 read FILE CHUNK bytes at a time, output discarded, stopping
 *                                 after SECONDS; prints "CALLS BYTES MS"
 *                                 and "eof" or "cut" (time ran out)
 *   ngtest write-file FILE SRC    SRC's bytes written whole, as cat does: write(2)
 *                                 again after a short write; ok or the first ERRNO
 *   ngtest fuzz [-c] [-q] [-t] SEED COUNT FILE...
 *                                 COUNT random writes to each FILE (see fuzz())
 *   ngtest forkload SECONDS [exec] fork short-lived children doing file and
 *                                 pipe IO (and exec) until SECONDS or SIGTERM
 *   ngtest fork-work N            N such children, every other one exec'ing,
 *                                 timed: prints the nanoseconds
 *   ngtest readcheck FILE SIZE CHUNK
 *                                 a child reads FILE CHUNK bytes at a time and
 *                                 checks every return value and byte
 *   ngtest rmmod-within MS T0|now STATS
 *                                 rmmod must succeed by MS after T0 (see
 *                                 rmmod_within())
 *   ngtest drain DIR              read DIR/per_cpu/cpuN/raw until SIGTERM;
 *                                 count the records (see drain())
 *   ngtest threads N CMD1 CMD2    N threads (16 KiB stacks) each make one
 *                                 read, then block in a pipe read; see threads()
 *   ngtest append-file FILE SRC   the same with O_APPEND
 *   ngtest read-size FILE N       one read(2) of N bytes; prints the count or ERRNO
 *   ngtest reuse-write FILE GLOB  a page ending inside GLOB, closed; its last
 *                                 byte through a new open file where the page
 *                                 would go on; prints ok or ERRNO
 *   ngtest reuse-read FILE N DATA N bytes read, closed; DATA written; what a
 *                                 new open file reads from N
 *   ngtest steal-at-stop NG FIFO  when NG/tracing_on reads 0, read a chunk of
 *                                 CPU 0's raw records, write a byte to FIFO
 *   ngtest read-fault FILE        one read(2) of a page into a PROT_NONE buffer
 *                                 (result on stderr), then FILE to stdout as cat does
 *   ngtest read-split FILE N CMD  read N bytes of FILE, run CMD, read the rest with
 *                                 the same open file; all of FILE to stdout
 *   ngtest cpu-hold CPU FILE DATA one write of DATA pinned to CPU beside a probe:
 *                                 how long the write kept the CPU (cpu_hold())
 *   ngtest rmmod NAME             delete_module(NAME, O_NONBLOCK); ok or ERRNO
 *   ngtest asuser UID CMD ARGS... run CMD with uid and gid UID (not root)
 *   ngtest raw-dump FILE          read a raw buffer file until 0, one record a
 *                                 line: "task TGID PID", "comm COUNTER NAME",
 *                                 "clock COUNTER", "entry|exit COUNTER DEPTH IP",
 *                                 "switch_out COUNTER STATE preempted|-",
 *                                 "switch_in COUNTER", "wake COUNTER TID CTX"
 *   ngtest pipe-wake MS [move]    a child blocks reading a pipe until this
 *                                 process writes, MS ms later; prints
 *                                 "reader PID writer PID read_ns NS", NS
 *                                 the child's read(2) as it timed it (its
 *                                 CLOCK_MONOTONIC around it).  With "move" the
 *                                 child reads on CPU 0 and is allowed only
 *                                 CPU 1 before the write: it wakes there
 *   ngtest ping-pong N            N round trips of a byte with a child over two
 *                                 pipes; prints the loop's nanoseconds
 *   ngtest futex-wake MS          a thread waits in FUTEX_WAIT for a lock this
 *                                 one unlocks MS ms later (FUTEX_WAKE); prints
 *                                 "waiter TID holder TID"
 *   ngtest hog-read FILE MS       pinned to CPU 0 beside a spinning child, read
 *                                 all of FILE again and again for MS ms; prints
 *                                 "reader PID reads N"
 *   ngtest fresh-read FILE PAGES  a child that makes exactly two read(2)s, of
 *                                 PAGES pages of FILE into one fresh anonymous
 *                                 mapping: the first faults each page in, the
 *                                 second none; prints "reader TID minflt FIRST
 *                                 SECOND", the faults getrusage(RUSAGE_THREAD)
 *                                 saw around each
 *   ngtest poll-pri FILE SECONDS  read FILE, then poll(2) it for POLLPRI (a
 *                                 sysfs notification) up to SECONDS; prints
 *                                 "woken " and what FILE reads then, or
 *                                 "timeout"
 *   ngtest comm-reads FILE NAME:N...  for each NAME:N, take the name NAME
 *                                 (prctl PR_SET_NAME; empty: keep the name)
 *                                 and read FILE N times, a byte each
 *   ngtest self-reads TRACE_SELF FILE N...  read FILE N1 times, write 1 to
 *                                 TRACE_SELF, read N2 times, write 0, read N3
 *                                 times, and so on
 *   ngtest nanosleep PIDFILE      write the pid to PIDFILE, sleep until SIGUSR1;
 *                                 exit 0 if the sleep ended with EINTR
 *   ngtest perf-stack ID PID CMD...  perf callchains (kernel part) of the
 *                                 tracepoint ID in task PID while CMD runs
 *   ngtest bpf-stack ID PID CMD...   the same through a BPF program's
 *                                 bpf_get_stackid() on the tracepoint
 *   ngtest thread-exec N DEPTH    N times: a child whose second thread (not
 *                                 the leader) execs ngtest again, DEPTH
 *                                 times in a row; prints "ok" or what failed
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/stat.h>
#include <stdint.h>
#include <sched.h>
#include <poll.h>
#include <signal.h>
#include <linux/bpf.h>
#include <linux/futex.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nanograph_event.h"

/* Print the outcome of a syscall the way the tests compare it. */
static int report(long ret)
{
	if (ret < 0) {
		const char *name = strerrorname_np(errno);

		printf("%s\n", name ? name : "E?");
	} else {
		printf("ok\n");
	}
	return 0;
}

/* One open and one write(2) of LEN bytes, outcome printed. */
static int do_write(const char *path, const char *buf, size_t len, int flags)
{
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | flags);
	if (fd < 0)
		return report(-1);
	n = write(fd, buf, len);
	if (n >= 0 && (size_t)n != len) {
		printf("short %zd/%zu\n", n, len);
		close(fd);
		return 0;
	}
	report(n);
	close(fd);
	return 0;
}

/* Read a file with a given chunk size, to exercise offsets past a page. */
static int do_read(const char *path, size_t chunk)
{
	char *buf = malloc(chunk);
	ssize_t n;
	int fd;

	if (!buf)
		return 2;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return report(-1);
	while ((n = read(fd, buf, chunk)) > 0)
		fwrite(buf, 1, n, stdout);
	if (n < 0) {
		fflush(stdout);
		fprintf(stderr, "read %s: %s\n", path, strerror(errno));
		close(fd);
		free(buf);
		return 1;
	}
	close(fd);
	free(buf);
	return 0;
}

/* Milliseconds of CLOCK_BOOTTIME: what /proc/uptime counts (lib.sh ng_now_ms). */
static long long boot_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_BOOTTIME, &t);
	return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

/* How long reading a trace file takes, in read(2) calls and time. */
static int read_count(const char *path, size_t chunk, double seconds)
{
	unsigned long calls = 0;
	unsigned long long bytes = 0;
	char *buf = malloc(chunk);
	long long t0;
	ssize_t n = 1;
	int fd;

	if (!buf)
		return 2;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return report(-1);
	t0 = boot_ms();
	while (boot_ms() - t0 < seconds * 1000) {
		n = read(fd, buf, chunk);
		calls++;
		if (n <= 0)
			break;
		bytes += n;
	}
	printf("%lu %llu %lld %s\n", calls, bytes, boot_ms() - t0, n <= 0 ? "eof" : "cut");
	close(fd);
	free(buf);
	return n < 0;
}

/*
 * read-errors FILE CHUNK: read FILE CHUNK bytes a call to its end, then
 * read(-1) once (EBADF), and print "reader TID" and each read's return,
 * for the return values and arguments a tracer records (70-values).
 */
static int read_errors(const char *path, size_t chunk)
{
	char *buf = malloc(chunk);
	ssize_t n;
	int fd;

	if (!buf)
		return 2;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return report(-1);
	printf("reader %ld buf %p\n", (long)syscall(SYS_gettid), (void *)buf);
	do {
		n = read(fd, buf, chunk);
		printf("read %zd\n", n);
	} while (n > 0);
	n = read(-1, buf, chunk);
	printf("read %zd %d\n", n, n < 0 ? errno : 0);
	close(fd);
	free(buf);
	return 0;
}

/*
 * values-calls FILE: calls whose return values have types worth showing
 * (71-typed-values): lseek(2) of FILE to 0x100000002, a 64-bit offset
 * (its llseek method returns loff_t: r1:r0 on 32-bit arm), after the open
 * that gave FILE its descriptor (fd_install() is void), and open(2)s of
 * a path that does not exist (do_filp_open() returns ERR_PTR(-ENOENT))
 * and of an empty one (getname_flags() does).  Prints "caller TID" and
 * each result.
 */
static int values_calls(const char *path)
{
	long long off;
	int fd;

	printf("caller %ld\n", (long)syscall(SYS_gettid));
	fd = open(path, O_RDWR);
	if (fd < 0)
		return report(-1);
	off = (long long)lseek64(fd, 0x100000002LL, SEEK_SET);
	printf("lseek %lld\n", off);
	close(fd);
	fd = open("/nonexistent-ng-values", O_RDONLY);
	printf("open %d %d\n", fd, fd < 0 ? errno : 0);
	/* An empty path: getname() itself returns ERR_PTR(-ENOENT). */
	fd = open("", O_RDONLY);
	printf("open-empty %d %d\n", fd, fd < 0 ? errno : 0);
	return off != 0x100000002LL;
}

/*
 * The whole of SRC to FILE with as many write(2) calls as it takes, as
 * cat and echo do: sysfs takes a long write a page per call and returns
 * short.  Prints ok, or the errno of the first failed call.
 */
static int write_file(const char *path, const char *src, int flags)
{
	char *buf = NULL;
	size_t len = 0, done = 0;
	FILE *in = fopen(src, "r");
	ssize_t n;
	int fd;

	if (!in || getdelim(&buf, &len, '\0', in) < 0)
		return report(-1);
	len = strlen(buf);
	fclose(in);
	fd = open(path, O_WRONLY | flags);
	if (fd < 0)
		return report(-1);
	while (done < len) {
		n = write(fd, buf + done, len - done);
		if (n <= 0) {
			if (!n)
				errno = EIO;
			break;
		}
		done += n;
	}
	report(done < len ? -1 : 0);
	close(fd);
	free(buf);
	return 0;
}

/* One read(2) of N bytes: prints the count, or the errno's name. */
static int read_size(const char *path, size_t n)
{
	char *buf = malloc(n ? n : 1);
	ssize_t got;
	int fd;

	if (!buf)
		return 2;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return report(-1);
	got = read(fd, buf, n);
	if (got < 0)
		report(-1);
	else
		printf("%zd\n", got);
	close(fd);
	free(buf);
	return 0;
}

/*
 * An open file's state must not outlive it: a full page ending inside
 * GLOB written through one open file, which is closed; then, through a
 * new one (which the allocator likely gives the old one's address), the
 * glob's last byte at the offset where the first would have gone on.
 * Prints "ok" or the errno of that write.
 */
static int reuse_write(const char *path, const char *glob)
{
	size_t k = strlen(glob) - 1, size = sysconf(_SC_PAGESIZE);
	char *page = malloc(size), tail[2] = { glob[k], '\n' };
	int fd;

	if (!page)
		return 2;
	memset(page, ' ', size);
	memcpy(page + size - k, glob, k);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0 || write(fd, page, size) != (ssize_t)size) {
		printf("first write: ");
		free(page);
		return report(-1);
	}
	free(page);
	close(fd);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return report(-1);
	if (pwrite(fd, tail, 2, size) != 2)
		report(-1);
	else
		printf("ok\n");
	close(fd);
	return 0;
}

/*
 * The same for a listing's snapshot: N bytes read through one open file,
 * which is closed; DATA written to the file (a new list); then, through
 * a new open file, what reads from offset N, to stdout.
 */
static int reuse_read(const char *path, size_t n, const char *data)
{
	char buf[4096];
	ssize_t got;
	int fd;

	if (n > sizeof(buf))
		return 2;
	fd = open(path, O_RDONLY);
	if (fd < 0 || read(fd, buf, n) < 0)
		return report(-1);
	close(fd);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0 || write(fd, data, strlen(data)) < 0)
		return report(-1);
	close(fd);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return report(-1);
	got = pread(fd, buf, sizeof(buf), n);
	if (got < 0)
		report(-1);
	else
		fwrite(buf, 1, got, stdout);
	close(fd);
	return 0;
}

/* What is left of an open file, to stdout. */
static int copy_rest(int fd)
{
	char buf[4096];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (write(1, buf, n) != n)
			return 1;
	if (n < 0) {
		fprintf(stderr, "read: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

/*
 * A read(2) whose copy to user space faults (into a PROT_NONE page),
 * then the file read to the end with the same open file: what the failed
 * read was handed must not be lost.  The failed read's outcome goes to
 * stderr: EFAULT, or the byte count if it did not fail.
 */
static int read_fault(const char *path)
{
	void *bad = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0 || bad == MAP_FAILED)
		return report(-1);
	n = read(fd, bad, 4096);
	if (n < 0)
		fprintf(stderr, "%s\n", strerrorname_np(errno) ?: "E?");
	else
		fprintf(stderr, "%zd\n", n);
	n = copy_rest(fd);
	close(fd);
	return n;
}

/*
 * N bytes of FILE, then CMD (which may change what FILE lists), then the
 * rest of FILE through the same open file: one reader's view.
 */
static int read_split(const char *path, size_t n, const char *cmd)
{
	char *buf = malloc(n ? n : 1);
	size_t done = 0;
	ssize_t got;
	int fd, ret;

	if (!buf)
		return 2;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return report(-1);
	while (done < n && (got = read(fd, buf + done, n - done)) > 0)
		done += got;
	if (write(1, buf, done) != (ssize_t)done)
		return 1;
	fflush(stdout);
	ret = system(cmd);
	if (ret) {
		fprintf(stderr, "%s: status %d\n", cmd, ret);
		return 1;
	}
	ret = copy_rest(fd);
	close(fd);
	free(buf);
	return ret;
}

/* Nanoseconds from @a to @b. */
static long long ns_between(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1000000000LL + (b->tv_nsec - a->tv_nsec);
}

/*
 * The benchmark's workload: N one-byte reads of FILE, timed with
 * CLOCK_MONOTONIC around the loop only; prints the loop's time in ns.
 * With CHUNKS, also the time N reads take at the pace of the fastest of
 * CHUNKS equal slices of the loop: what the reads cost without what the
 * machine added to some slices (another process on the host's CPUs, a
 * translation cache refill under emulation: time only ever added).
 */
static int loop_read(const char *path, unsigned long n, unsigned long chunks)
{
	struct timespec a, b, c0, c1;
	unsigned long i, per = chunks ? n / chunks : 0;
	long long best = -1, t;
	char c;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return report(-1);
	clock_gettime(CLOCK_MONOTONIC, &a);
	c0 = a;
	for (i = 0; i < n; i++) {
		if (read(fd, &c, 1) != 1)
			return report(-1);
		if (per && (i + 1) % per == 0) {
			clock_gettime(CLOCK_MONOTONIC, &c1);
			t = ns_between(&c0, &c1);
			if (best < 0 || t < best)
				best = t;
			c0 = c1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	close(fd);
	if (per)
		printf("%lld %lld\n", ns_between(&a, &b), best * (long long)n / (long long)per);
	else
		printf("%lld\n", ns_between(&a, &b));
	return 0;
}

/*
 * Wait (polling every millisecond, 10 s at most) until NG/tracing_on
 * reads 0, then at once read one chunk of CPU 0's raw records (leaving
 * that read pass open) and write one byte to FIFO: what a test must do
 * within the module's 100 ms of grace for live frames.  Prints the bytes
 * read, or ERRNO.
 */
static int steal_at_stop(const char *ng, const char *fifo)
{
	char path[4200], buf[4096];
	struct timespec ms = { 0, 1000000 };
	ssize_t n;
	int i, fd;

	snprintf(path, sizeof(path), "%s/tracing_on", ng);
	for (i = 0; i < 10000; i++) {
		fd = open(path, O_RDONLY);
		if (fd < 0)
			return report(-1);
		n = read(fd, buf, sizeof(buf));
		close(fd);
		if (n > 0 && buf[0] == '0')
			break;
		nanosleep(&ms, NULL);
	}
	snprintf(path, sizeof(path), "%s/per_cpu/cpu0/raw", ng);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return report(-1);
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return report(-1);
	fd = open(fifo, O_WRONLY);
	if (fd < 0 || write(fd, "y", 1) != 1)
		return report(-1);
	close(fd);
	printf("%zd\n", n);
	return 0;
}

/*
 * N children that each make one traced call (a read of /dev/zero) and
 * then stay alive, blocked on a pipe, while CMD runs: the shadow-stack
 * memory of N traced tasks, for the benchmark.
 */
static int hold_tasks(unsigned long n, const char *cmd)
{
	int hold[2], ready[2], ret;
	unsigned long i;
	char c;

	if (pipe(hold) || pipe(ready))
		return report(-1);
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return report(-1);
		if (!pid) {
			int fd = open("/dev/zero", O_RDONLY);

			close(hold[1]);
			if (fd < 0 || read(fd, &c, 1) != 1 || write(ready[1], &c, 1) != 1)
				_exit(1);
			while (read(hold[0], &c, 1) > 0)
				;
			_exit(0);
		}
	}
	close(hold[0]);
	close(ready[1]);
	for (i = 0; i < n; i++)
		if (read(ready[0], &c, 1) != 1)
			return report(-1);
	fflush(stdout);
	ret = system(cmd);
	close(hold[1]);
	while (wait(NULL) > 0)
		;
	return ret ? 1 : 0;
}

/*
 * splice(2) up to N bytes of FILE through a pipe to stdout: the raw
 * buffer files must work with splice as trace_pipe_raw does.  Prints the
 * byte count on stderr, or the errno name.
 */
static int do_splice(const char *path, size_t n)
{
	int fd = open(path, O_RDONLY), p[2];
	size_t done = 0;
	ssize_t got;
	char buf[4096];

	if (fd < 0 || pipe(p))
		return report(-1);
	while (done < n) {
		got = splice(fd, NULL, p[1], NULL, n - done < 65536 ? n - done : 65536, 0);
		if (got < 0) {
			fprintf(stderr, "%s\n", strerrorname_np(errno) ?: "?");
			return 1;
		}
		if (!got)
			break;
		done += got;
		while (got > 0) {
			ssize_t r = read(p[0], buf, (size_t)got < sizeof(buf) ? (size_t)got : sizeof(buf));

			if (r <= 0 || write(1, buf, r) != r)
				return 1;
			got -= r;
		}
	}
	fprintf(stderr, "%zu\n", done);
	return 0;
}

/* SIGUSR1 only interrupts the sleep below: no SA_RESTART. */
static void on_usr1(int sig)
{
	(void)sig;
}

/*
 * A task asleep in nanosleep until SIGUSR1: the sleep must end with
 * EINTR, through every kernel frame it slept in.
 */
static int do_nanosleep(const char *pidfile)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	struct timespec ts = { .tv_sec = 100000 };
	FILE *f;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL))
		return report(-1);
	f = fopen(pidfile, "w");
	if (!f)
		return report(-1);
	fprintf(f, "%d\n", getpid());
	fclose(f);
	if (nanosleep(&ts, &ts) == 0 || errno != EINTR) {
		printf("nanosleep did not end with EINTR\n");
		return 1;
	}
	return 0;
}

/* /proc/kallsyms, sorted by address, to print kernel stacks readably. */
struct ksym {
	unsigned long long addr;
	char *name;		/* "name" or "name [module]" */
};
static struct ksym *ksyms;
static size_t nksyms;

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static char *slurp(const char *path, size_t *len);

/*
 * Read whole and parsed in place (no sscanf() or copy per line: the
 * parse took longer than the kernel's listing, 0.4 s, under emulation).
 * A line is "ADDR TYPE NAME" or "ADDR TYPE NAME\t[MODULE]".
 */
static void ksyms_load(void)
{
	size_t len = 0, cap = 0;
	char *buf = slurp("/proc/kallsyms", &len), *p, *end, *nl, *q, *tab;
	unsigned long long addr;

	if (!buf)
		return;
	end = buf + len;
	for (p = buf; p < end; p = nl + 1) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			break;		/* every line ends with one */
		*nl = '\0';
		addr = strtoull(p, &q, 16);
		if (q == p || q[0] != ' ' || !q[1] || q[2] != ' ' || !q[3] || !addr ||
		    (q[1] != 't' && q[1] != 'T' && q[1] != 'w' && q[1] != 'W'))
			continue;
		tab = strchr(q + 3, '\t');
		if (tab)
			*tab = ' ';	/* "name [module]" */
		if (nksyms == cap) {
			cap = cap ? 2 * cap : 65536;
			ksyms = realloc(ksyms, cap * sizeof(*ksyms));
			if (!ksyms)
				exit(2);
		}
		ksyms[nksyms].addr = addr;
		ksyms[nksyms++].name = q + 3;
	}
	qsort(ksyms, nksyms, sizeof(*ksyms), ksym_cmp);
}

/* "name+0xoff [module]", or the bare address. */
static void ksym_print(unsigned long long addr)
{
	size_t lo = 0, hi = nksyms;

	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (ksyms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	if (!nksyms || ksyms[lo].addr > addr) {
		printf(" %#llx\n", addr);
		return;
	}
	{
		const char *sp = strchr(ksyms[lo].name, ' ');
		int len = sp ? (int)(sp - ksyms[lo].name) : (int)strlen(ksyms[lo].name);

		printf(" %.*s+0x%llx%s\n", len, ksyms[lo].name, addr - ksyms[lo].addr,
		       sp ? sp : "");
	}
}

/* Run argv as a child and wait for it. */
static int run_wait(char **argv)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/*
 * After CMD woke task PID: wait (5 s at most) until it is asleep again,
 * so that its switch out, the one the tests look for, has happened.  On
 * a loaded host it may take longer than any fixed pause to run.
 */
static void asleep_again(pid_t pid)
{
	char path[64], buf[512], *p;
	int i, fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	for (i = 0; i < 250; i++) {
		fd = open(path, O_RDONLY);
		if (fd < 0)
			return;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[n > 0 ? n : 0] = '\0';
		p = strrchr(buf, ')');
		if (!p || (p[1] == ' ' && p[2] == 'S'))
			break;
		usleep(20000);
	}
	usleep(100000);
}

/*
 * perf's view: a sampling event on the tracepoint in task PID, one sample
 * per hit, with the kernel callchain (perf_callchain_kernel(), from the
 * regs the tracepoint's perf probe fetched).  Each sample printed as
 * "callchain" and one frame a line.
 */
static int perf_stack(unsigned long id, pid_t pid, char **cmd)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.config = id,
		.sample_period = 1,
		.sample_type = PERF_SAMPLE_CALLCHAIN,
		.exclude_callchain_user = 1,
		.wakeup_events = 1,
	};
	long page = sysconf(_SC_PAGESIZE);
	size_t len = 17 * page, size = 16 * page;
	struct perf_event_mmap_page *meta;
	unsigned long long head, tail;
	struct pollfd pfd;
	unsigned char *data;
	int fd, samples = 0;

	fd = syscall(SYS_perf_event_open, &attr, pid, -1, -1, 0);
	if (fd < 0)
		return report(-1);
	meta = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (meta == MAP_FAILED)
		return report(-1);
	data = (unsigned char *)meta + page;
	if (run_wait(cmd))
		fprintf(stderr, "perf-stack: the command failed\n");
	asleep_again(pid);
	pfd.fd = fd;
	pfd.events = POLLIN;
	poll(&pfd, 1, 5000);
	usleep(300000);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	ksyms_load();
	head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	tail = meta->data_tail;
	while (tail < head) {
		struct perf_event_header h;
		unsigned char rec[8192];
		size_t i;

		for (i = 0; i < sizeof(h); i++)
			((unsigned char *)&h)[i] = data[(tail + i) % size];
		if (h.size < sizeof(h) || h.size > sizeof(rec))
			break;
		for (i = 0; i < h.size; i++)
			rec[i] = data[(tail + i) % size];
		tail += h.size;
		if (h.type == PERF_RECORD_SAMPLE) {
			unsigned long long nr, ip;

			memcpy(&nr, rec + sizeof(h), sizeof(nr));
			printf("callchain\n");
			for (i = 0; i < nr && sizeof(h) + 8 * (i + 2) <= h.size; i++) {
				memcpy(&ip, rec + sizeof(h) + 8 * (i + 1), sizeof(ip));
				if (ip >= (unsigned long long)PERF_CONTEXT_MAX)
					continue;	/* a context marker */
				ksym_print(ip);
			}
			samples++;
		} else if (h.type == PERF_RECORD_LOST) {
			printf("lost\n");
		}
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
	printf("samples %d\n", samples);
	return samples ? 0 : 1;
}

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

#define NG_BPF_DEPTH	127	/* PERF_MAX_STACK_DEPTH */

/*
 * BPF's view: a tracepoint program calling bpf_get_stackid(ctx, map, 0)
 * for task PID (its tid compared in the program: a tracepoint's programs
 * run for every task), then every stack the map holds, printed as
 * "stackid" and one frame a line.  Hand-assembled: the guest has no
 * compiler or libbpf.
 */
static int bpf_stack(unsigned long id, pid_t pid, char **cmd)
{
	struct bpf_insn prog[] = {
		/* r6 = ctx */
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = 6, .src_reg = 1 },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_get_current_pid_tgid },
		/* w0 = tid */
		{ .code = BPF_ALU | BPF_MOV | BPF_X, .dst_reg = 0, .src_reg = 0 },
		{ .code = BPF_JMP | BPF_JNE | BPF_K, .dst_reg = 0, .off = 5, .imm = pid },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = 1, .src_reg = 6 },
		/* r2 = the map (two instructions), r3 = 0 */
		{ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = 2, .src_reg = BPF_PSEUDO_MAP_FD },
		{ .code = 0 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 3, .imm = 0 },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_get_stackid },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct perf_event_attr pattr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(pattr),
		.config = id,
		.sample_period = 1,
	};
	static unsigned long long ips[NG_BPF_DEPTH];
	static char log[65536];
	union bpf_attr attr;
	unsigned int key, next;
	int map, fd, pfd, stacks = 0, first = 1;
	size_t i;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_STACK_TRACE;
	attr.key_size = sizeof(unsigned int);
	attr.value_size = sizeof(ips);
	attr.max_entries = 64;
	map = sys_bpf(BPF_MAP_CREATE, &attr);
	if (map < 0)
		return report(-1);
	prog[5].imm = map;
	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_TRACEPOINT;
	attr.insns = (unsigned long)prog;
	attr.insn_cnt = sizeof(prog) / sizeof(prog[0]);
	attr.license = (unsigned long)"GPL";
	attr.log_buf = (unsigned long)log;
	attr.log_size = sizeof(log);
	attr.log_level = 1;
	fd = sys_bpf(BPF_PROG_LOAD, &attr);
	if (fd < 0) {
		fprintf(stderr, "%s", log);
		return report(-1);
	}
	/* One CPU is enough to attach: the program runs on all of them. */
	pfd = syscall(SYS_perf_event_open, &pattr, -1, 0, -1, 0);
	if (pfd < 0 || ioctl(pfd, PERF_EVENT_IOC_SET_BPF, fd) ||
	    ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0))
		return report(-1);
	if (run_wait(cmd))
		fprintf(stderr, "bpf-stack: the command failed\n");
	asleep_again(pid);
	/* Until the map holds a stack (5 s at most), and a little more. */
	for (i = 0; i < 50; i++) {
		memset(&attr, 0, sizeof(attr));
		attr.map_fd = map;
		attr.next_key = (unsigned long)&next;
		if (!sys_bpf(BPF_MAP_GET_NEXT_KEY, &attr))
			break;
		usleep(100000);
	}
	usleep(300000);
	ioctl(pfd, PERF_EVENT_IOC_DISABLE, 0);
	ksyms_load();
	for (;;) {
		memset(&attr, 0, sizeof(attr));
		attr.map_fd = map;
		attr.key = first ? 0 : (unsigned long)&key;
		attr.next_key = (unsigned long)&next;
		if (sys_bpf(BPF_MAP_GET_NEXT_KEY, &attr))
			break;
		first = 0;
		key = next;
		memset(&attr, 0, sizeof(attr));
		attr.map_fd = map;
		attr.key = (unsigned long)&key;
		attr.value = (unsigned long)ips;
		if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr))
			continue;
		printf("stackid %u\n", key);
		for (i = 0; i < NG_BPF_DEPTH && ips[i]; i++)
			ksym_print(ips[i]);
		stacks++;
	}
	printf("stacks %d\n", stacks);
	return stacks ? 0 : 1;
}

/* Milliseconds of CLOCK_MONOTONIC. */
static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

/* Microseconds of CLOCK_MONOTONIC. */
static long long now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000LL + t.tv_nsec / 1000;
}

/* What the probe of cpu_hold() and its parent share. */
struct hold_probe {
	volatile int armed, stop;
	volatile long long last_us, max_us, base_us;
};

/*
 * The probe: read the clock in a loop; its longest gap is the longest
 * stretch another task kept this CPU.  base_us: before the write.
 */
static void hold_probe_run(struct hold_probe *p)
{
	long long now, gap;

	p->last_us = now_us();
	while (!p->stop) {
		now = now_us();
		gap = now - p->last_us;
		p->last_us = now;
		if (p->armed && gap > p->max_us)
			p->max_us = gap;
		else if (!p->armed && gap > p->base_us)
			p->base_us = gap;
	}
	_exit(0);
}

/*
 * How long one write kept its CPU: the writer and a probe pinned to one
 * CPU.  The kernel runs a write until it reschedules or sleeps (Debian
 * kernels preempt voluntarily), so the probe's longest gap while the
 * write ran is the longest stretch the write held the CPU.  Prints
 * "write_ms W hold_ms H base_ms B" (B: the longest gap in the 200 ms
 * before, the scheduler's own share) and ok or the write's ERRNO.
 */
static int cpu_hold(int cpu, const char *path, const char *val)
{
	struct hold_probe *p;
	long long t0, t1;
	cpu_set_t set;
	int fd, err = 0;
	pid_t pid;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	p = mmap(NULL, sizeof(*p), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || sched_setaffinity(0, sizeof(set), &set))
		return report(-errno);
	memset((void *)p, 0, sizeof(*p));
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return report(-errno);
	pid = fork();
	if (pid < 0)
		return report(-errno);
	if (!pid)
		hold_probe_run(p);
	usleep(200000);
	p->armed = 1;
	t0 = now_us();
	if (write(fd, val, strlen(val)) < 0)
		err = errno;
	t1 = now_us();
	usleep(20000);		/* the probe sees the write's end */
	p->armed = 0;
	p->stop = 1;
	waitpid(pid, NULL, 0);
	close(fd);
	printf("write_ms %lld hold_ms %lld base_ms %lld\n", (t1 - t0) / 1000,
	       p->max_us / 1000, p->base_us / 1000);
	errno = err;
	return report(err ? -err : 0);
}

/* splitmix64: a small deterministic generator; the seed is the run. */
static uint64_t rng_state;

static uint64_t rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static size_t rng_in(size_t lo, size_t hi)
{
	return lo + rng() % (hi - lo + 1);
}

/*
 * Words the control files understand, and their edges: globs that match
 * a few, many, all or no functions, negations, module globs, comments,
 * numbers at and over every limit, pids, the buffer modes.  "$PID" is the
 * fuzzer's own pid (so that it traces itself when listed).
 */
static const char *const fuzz_words[] = {
	"vfs_read", "vfs_write", "ksys_read", "ksys_write", "rw_verify_area",
	"pipe_read", "pipe_write", "vfs_*", "*_raw_spin_lock*", "kmem_cache_*",
	"!vfs_read", "!ksys_*", "!*", "*", "*read*", ":mod:nanograph", ":mod:*",
	"vfs_read:mod:*", "no_such_function", "\\\\*", "[a-z]*", "?", "#", "####",
	"#### all functions enabled ####", "do_exit", "__fdget_pos",
	"0", "1", "2", "3", "4", "5", "64", "255", "4096", "65536", "1048576",
	"1048577", "2147483647", "4294967295", "4294967296",
	"18446744073709551615", "99999999999999999999", "-1", "+1", "0x10",
	"1x", "010", " 1", "1 ", "1\n", "$PID", "4194303", "4194304", "32768",
	"raw", "events", "[events]", "events [raw]", "raw\n", "RAW", "",
};

/*
 * One write's content: random bytes of a random length (nothing, a few,
 * up to three pages, or huge), or words from fuzz_words with random
 * separators, sometimes mutated, sometimes padded so that a word is cut
 * at a page boundary.  Returns the length; @buf holds at least 1 MiB.
 */
static size_t fuzz_content(char *buf, size_t cap)
{
	size_t len = 0, n, i;
	unsigned int r = rng() % 100;

	if (rng() % 2) {
		if (r < 5)
			len = 0;
		else if (r < 40)
			len = rng_in(1, 16);
		else if (r < 75)
			len = rng_in(17, 4096);
		else if (r < 92)
			len = rng_in(4097, 3 * 4096);
		else
			len = rng_in(65536, cap);
		for (i = 0; i < len; i += 8) {
			uint64_t v = rng();

			memcpy(buf + i, &v, len - i < 8 ? len - i : 8);
		}
		return len;
	}
	if (r < 10) {			/* cut the first word at the page end */
		len = 4096 - rng_in(1, 12);
		memset(buf, rng() % 2 ? ' ' : '\n', len);
	}
	n = rng_in(1, 6);
	for (i = 0; i < n && len < cap - 1024; i++) {
		const char *w = fuzz_words[rng() % (sizeof(fuzz_words) / sizeof(fuzz_words[0]))];
		static const char *const seps[] = { " ", "\n", "\t", "  ", "\n# c\n", "\r\n", "" };
		char num[32];
		size_t wl;

		if (!strcmp(w, "$PID")) {
			snprintf(num, sizeof(num), "%d", (int)getpid());
			w = num;
		}
		wl = strlen(w);
		memcpy(buf + len, w, wl);
		if (wl && rng() % 10 == 0)		/* a byte changed */
			buf[len + rng() % wl] = (char)rng();
		len += wl;
		if (rng() % 20 == 0)			/* a byte added */
			buf[len++] = (char)rng();
		w = seps[rng() % (sizeof(seps) / sizeof(seps[0]))];
		memcpy(buf + len, w, strlen(w));
		len += strlen(w);
	}
	if (rng() % 10 < 7)
		buf[len++] = '\n';
	return len;
}

/*
 * Tame mode (-t): no write that would hook every function, or a great
 * many, for every task: under emulation the system then crawls (the soak
 * test does exactly that, on purpose).  As the module would parse it
 * (each page up to its first NUL, lines, whitespace, "#" comments), a
 * write to set_ftrace_filter or set_graph_function must not replace the
 * list by nothing nor remove globs ("!..."), and no glob in those two or
 * set_graph_notrace may have a wildcard within its first four characters.
 */
static int fuzz_tame_ok(const char *path, const char *buf, size_t len, int append)
{
	const char *base = strrchr(path, '/');
	int everything, broad_ok, tokens = 0;
	size_t page, i;

	base = base ? base + 1 : path;
	everything = !strcmp(base, "set_ftrace_filter") || !strcmp(base, "set_graph_function");
	broad_ok = !everything && strcmp(base, "set_graph_notrace");
	if (broad_ok)
		return 1;
	for (page = 0; page < len || (!len && !page); page += 4096) {
		size_t end = len - page < 4096 ? len : page + 4096;
		/* A full page ending in a glob holds it back for the next. */
		int cut = end - page == 4096 && end < len && !strchr(" \t\r\f\v\n", buf[end - 1]);
		int comment = 0;

		for (i = page; i < end && buf[i]; ) {
			size_t t = i, lit;

			if (buf[i] == '\n') {
				comment = 0;
				i++;
				continue;
			}
			if (strchr(" \t\r\f\v", buf[i])) {
				i++;
				continue;
			}
			while (i < end && buf[i] && !strchr(" \t\r\f\v\n", buf[i]))
				i++;
			if (comment || buf[t] == '#') {
				comment = 1;
				continue;
			}
			if (!(cut && i == end))
				tokens++;
			if (everything && buf[t] == '!')
				return 0;
			for (lit = t; lit < i && !strchr("*?[\\", buf[lit]); lit++)
				;
			if (lit < i && lit - t < 4)
				return 0;
		}
		if (!len)
			break;
		/* Each page of a long write is a write(2) of its own. */
		if (!tokens && everything && !append && end < len)
			return 0;
		append = 1;
	}
	return append || tokens || !everything;
}

/* Errnos a control file may answer bad input with (control-files.md). */
static int fuzz_errno_ok(int e)
{
	return e == EINVAL || e == E2BIG || e == ERANGE || e == EBUSY || e == ENOMEM ||
	       e == ENOSPC;
}

/* A file's whole content, for the no-change-on-error check; NULL if unreadable. */
static char *slurp(const char *path, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *b = malloc(cap);
	ssize_t got;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || !b) {
		if (fd >= 0)
			close(fd);
		free(b);
		return NULL;
	}
	while ((got = read(fd, b + n, cap - n)) > 0) {
		n += got;
		if (n == cap) {
			char *g = realloc(b, cap *= 2);

			if (!g)
				break;
			b = g;
		}
	}
	close(fd);
	*len = n;
	return b;
}

/* The content of the file @name in @path's directory (@base: its name). */
static char *fuzz_sibling(const char *path, const char *base, const char *name,
			  size_t *n)
{
	char sib[4096];

	snprintf(sib, sizeof(sib), "%.*s%s", (int)(base - path), path, name);
	return slurp(sib, n);
}

/*
 * Whether a file can only change by being written: set_event_pid and
 * set_event_notrace_pid also grow by themselves while options/event-fork
 * is 1 (listed tasks fork), and set_event_pid changes as tasks take names
 * while set_event_comm holds globs; flight moves by itself when a trigger
 * fires.
 */
static int fuzz_stable(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t n = 0;
	int moves;
	char *v;

	base = base ? base + 1 : path;
	if (strlen(path) > 4000)
		return 1;
	if (!strcmp(base, "flight"))
		return 0;
	if (strcmp(base, "set_event_pid") && strcmp(base, "set_event_notrace_pid"))
		return 1;
	v = fuzz_sibling(path, base, "options/event-fork", &n);
	moves = v && n && v[0] == '1';
	free(v);
	if (!moves && !strcmp(base, "set_event_pid")) {
		v = fuzz_sibling(path, base, "set_event_comm", &n);
		moves = v && n;
		free(v);
	}
	return !moves;
}

struct fuzz_file {
	const char *path;
	unsigned long writes, ok, errs[134], bad, changed;
	long long ms;			/* time spent writing to it */
	long long slow_ms;		/* its slowest write(2)... */
	char slow[160];			/* ...described */
};

/* Describe a write for the report: where, how long, how it began. */
static void fuzz_describe(char *out, size_t size, unsigned long k, const char *buf,
			  size_t len, int append, const char *result)
{
	size_t i, o;

	o = snprintf(out, size, "#%lu %s %zu bytes -> %s: \"", k,
		     append ? "append" : "replace", len, result);
	for (i = 0; i < len && i < 24 && o + 5 < size; i++) {
		unsigned char c = buf[i];

		o += snprintf(out + o, size - o, c >= 32 && c < 127 && c != '"' &&
			      c != '\\' ? "%c" : "\\x%02x", c);
	}
	snprintf(out + o, size - o, "%s\"", i < len ? "..." : "");
}

/*
 * ngtest fuzz [-c] [-q] SEED COUNT FILE...: COUNT writes to each FILE in a
 * random order, each with content from fuzz_content(), opened for
 * replacing (O_TRUNC) or appending (O_APPEND), written with one write(2)
 * or until all of it is written (as cat does, a page at a time for sysfs
 * binary files), sometimes two writes on one open file.  Every write(2)
 * must succeed (a short count is a success) or fail with an errno of
 * fuzz_errno_ok(); anything else is reported with the write that caused
 * it.  -t: tame, see fuzz_tame_ok().  With -c, a failed write(2) must
 * leave the file reading as before
 * (only meaningful with no other writer).  The same SEED gives the same
 * writes: a failure replays with the seed printed.  Prints a summary per
 * file; exits 1 on any unexpected outcome.
 */
static int fuzz(int argc, char **argv)
{
	int check = 0, quiet = 0, tame = 0, i, nfiles, bad = 0;
	unsigned long count, k, total;
	struct fuzz_file *files;
	size_t cap = 1 << 20;
	char *buf = malloc(cap + 4096);
	long long t0 = now_ms();

	while (argc > 0 && argv[0][0] == '-') {
		if (!strcmp(argv[0], "-c"))
			check = 1;
		else if (!strcmp(argv[0], "-q"))
			quiet = 1;
		else if (!strcmp(argv[0], "-t"))
			tame = 1;
		argc--;
		argv++;
	}
	if (argc < 3 || !buf)
		return 2;
	rng_state = strtoull(argv[0], NULL, 0);
	count = strtoul(argv[1], NULL, 0);
	nfiles = argc - 2;
	files = calloc(nfiles, sizeof(*files));
	if (!files)
		return 2;
	for (i = 0; i < nfiles; i++)
		files[i].path = argv[i + 2];
	printf("fuzz: seed %s, %lu writes to each of %d files\n", argv[0], count, nfiles);
	fflush(stdout);
	total = count * nfiles;
	for (k = 0; k < total; k++) {
		struct fuzz_file *f;
		size_t len, done = 0, blen = 0;
		int append, all = rng() % 2, twice = rng() % 10 == 0;
		int fd, round;
		char *before = NULL;

		/* Each file gets exactly COUNT writes, in a random order. */
		do
			f = &files[rng() % nfiles];
		while (f->writes >= count);
		do {
			len = fuzz_content(buf, cap);
			append = rng() % 10 < 3;
		} while (tame && !fuzz_tame_ok(f->path, buf, len, append));
		f->writes++;
		fd = open(f->path, O_WRONLY | (append ? O_APPEND : O_TRUNC));
		if (fd < 0) {
			printf("fuzz: write %lu: open %s: %s\n", k, f->path, strerror(errno));
			f->bad++;
			bad = 1;
			continue;
		}
		for (round = 0; round < 1 + twice; round++) {
			if (round) {
				do
					len = fuzz_content(buf, cap);
				while (tame && !fuzz_tame_ok(f->path, buf, len, 1));
				done = 0;
			}
			do {
				size_t chunk = len - done;
				ssize_t n;

				long long w0;

				if (check && fuzz_stable(f->path))
					before = slurp(f->path, &blen);
				w0 = now_ms();
				n = write(fd, buf + done, chunk);
				w0 = now_ms() - w0;
				f->ms += w0;
				if (w0 > 2000 && !quiet) {
					char d[160];

					fuzz_describe(d, sizeof(d), k, buf + done, chunk, append,
						      n < 0 ? strerrorname_np(errno) ?: "?" : "ok");
					printf("fuzz: slow: %lld ms: %s: %s\n", w0, f->path, d);
					fflush(stdout);
				}
				if (w0 > f->slow_ms) {
					f->slow_ms = w0;
					fuzz_describe(f->slow, sizeof(f->slow), k, buf + done,
						      chunk, append, n < 0 ?
						      strerrorname_np(errno) ?: "?" : "ok");
				}
				if (n < 0) {
					int e = errno;

					if (fuzz_errno_ok(e) && e < 134) {
						f->errs[e]++;
					} else {
						printf("fuzz: write %lu: %zu bytes at %zu to %s (%s): %s\n",
						       k, chunk, done, f->path,
						       append ? "append" : "replace", strerror(e));
						f->bad++;
						bad = 1;
					}
					if (check && before) {
						size_t alen;
						char *after = slurp(f->path, &alen);

						if (after && (alen != blen || memcmp(before, after, alen))) {
							printf("fuzz: write %lu to %s failed (%s) but changed it:\n"
							       "--- before\n%.*s--- after\n%.*s---\n",
							       k, f->path, strerrorname_np(e) ?: "?",
							       (int)(blen > 400 ? 400 : blen), before,
							       (int)(alen > 400 ? 400 : alen), after);
							f->changed++;
							bad = 1;
						}
						free(after);
					}
					free(before);
					before = NULL;
					break;
				}
				free(before);
				before = NULL;
				f->ok++;
				done += n;
				if (!n)
					break;
			} while (all && done < len);
		}
		close(fd);
		if (!quiet && k % 200 == 199) {
			printf("fuzz: %lu writes, %lld ms\n", k + 1, now_ms() - t0);
			fflush(stdout);
		}
	}
	for (i = 0; i < nfiles; i++) {
		struct fuzz_file *f = &files[i];
		int e;

		printf("fuzz: %s: %lu writes: %lu write(2) ok", f->path, f->writes, f->ok);
		for (e = 0; e < 134; e++)
			if (f->errs[e])
				printf(", %s %lu", strerrorname_np(e) ?: "?", f->errs[e]);
		if (f->bad)
			printf(", %lu UNEXPECTED", f->bad);
		if (f->changed)
			printf(", %lu CHANGED ON ERROR", f->changed);
		printf("; %lld ms in write(2), slowest %lld ms: %s\n", f->ms, f->slow_ms, f->slow);
	}
	printf("fuzz: done in %lld ms\n", now_ms() - t0);
	free(files);
	free(buf);
	return bad;
}

static volatile sig_atomic_t stop_load;

static void on_term(int sig)
{
	(void)sig;
	stop_load = 1;
}

/*
 * A background load: fork short-lived children, one at a time, each
 * writing and reading a pipe and a file of its own (and with "exec",
 * every other one execs /bin/true), until SECONDS pass or SIGTERM.
 * Prints how many children ran.
 */
/* One child of the load: a pipe and a file of its own, and maybe an exec. */
static void fork_child(int do_exec)
{
	char buf[512], name[64];
	int p[2], fd;

	memset(buf, 'x', sizeof(buf));
	if (pipe(p) || write(p[1], buf, sizeof(buf)) != sizeof(buf) ||
	    read(p[0], buf, sizeof(buf)) != sizeof(buf))
		_exit(1);
	snprintf(name, sizeof(name), "/tmp/ngload.%d", (int)getpid());
	fd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, buf, sizeof(buf)) != sizeof(buf) ||
	    pread(fd, buf, sizeof(buf), 0) != sizeof(buf))
		_exit(1);
	close(fd);
	unlink(name);
	if (do_exec)
		execl("/bin/true", "true", (char *)NULL);
	_exit(0);
}

/* Fork one child and wait for it; 0, or -1 when fork failed. */
static int fork_one(int do_exec)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid)
		fork_child(do_exec);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return 0;
}

static int forkload(unsigned long seconds, int do_exec)
{
	long long end = now_ms() + seconds * 1000LL;
	unsigned long n = 0;
	struct sigaction sa = { .sa_handler = on_term };

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	while (!stop_load && (!seconds || now_ms() < end)) {
		if (fork_one(do_exec && (n & 1))) {
			usleep(10000);
			continue;
		}
		n++;
	}
	printf("%lu\n", n);
	return 0;
}

/*
 * The benchmark's whole-kernel workload: N children as forkload's, every
 * other one exec'ing /bin/true, timed with CLOCK_MONOTONIC around the
 * loop.  Prints the nanoseconds.
 */
static int fork_work(unsigned long n)
{
	struct timespec a, b;
	unsigned long i;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++)
		if (fork_one(i & 1))
			return report(-1);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%lld\n", (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec));
	return 0;
}

/*
 * A child reads FILE (made by the test: byte i is 'a' + i % 26) CHUNK
 * bytes at a time until EOF; every return value must be what the file's
 * size says, every byte right.  Prints "pid P", then "ret N" per read
 * (the last is 0).  Exits 1 on any wrong value.
 */
static int readcheck(const char *path, size_t size, size_t chunk)
{
	int p[2], status;
	pid_t pid;

	if (pipe(p))
		return report(-1);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return report(-1);
	if (!pid) {
		char *buf = malloc(chunk);
		size_t off = 0, i;
		int fd = open(path, O_RDONLY), bad = 0;
		ssize_t n;

		if (!buf || fd < 0) {
			printf("open %s: %s\n", path, strerror(errno));
			_exit(1);
		}
		printf("pid %d\n", (int)getpid());
		do {
			size_t want = size - off < chunk ? size - off : chunk;

			n = read(fd, buf, chunk);
			printf("ret %zd\n", n);
			if (n < 0 || (size_t)n != want) {
				printf("read at %zu returned %zd, expected %zu\n", off, n, want);
				bad = 1;
				break;
			}
			for (i = 0; i < (size_t)n; i++)
				if (buf[i] != 'a' + (char)((off + i) % 26)) {
					printf("byte %zu is %#x\n", off + i, buf[i] & 0xff);
					bad = 1;
					break;
				}
			off += n;
		} while (n > 0 && !bad);
		fflush(stdout);
		_exit(bad);
	}
	close(p[0]);
	close(p[1]);
	if (waitpid(pid, &status, 0) < 0)
		return report(-1);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/*
 * The soak's reader: drain DIR/per_cpu/cpuN/raw (raw buffer mode) until
 * SIGTERM, then once more, and print what the records held: "records R
 * entries E exits X meta M bytes B".  A record's first word is its tsd:
 * meta (task, clock, comm: a clock or a comm takes the next record too)
 * when its top byte is 0x7f, an exit when the top bit is set, else an
 * entry.
 */
static int drain(const char *dir)
{
	unsigned long long entries = 0, exits = 0, meta = 0, bytes = 0;
	struct sigaction sa = { .sa_handler = on_term };
	static uint64_t buf[8192];
	int fds[256], n = 0, last = 0, i, skip[256] = { 0 };
	char path[512];

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	for (i = 0; i < 256; i++) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/raw", dir, i);
		fds[n] = open(path, O_RDONLY);
		if (fds[n] >= 0)
			n++;
	}
	if (!n)
		return report(-1);
	while (!last) {
		int got_any = 0;

		last = stop_load;	/* one more full pass after SIGTERM */
		for (i = 0; i < n; i++) {
			ssize_t got;

			while ((got = read(fds[i], buf, sizeof(buf))) > 0) {
				size_t r;

				got_any = 1;
				bytes += got;
				for (r = 0; r + 1 < (size_t)got / 8; r += 2) {
					uint64_t tsd = buf[r];

					if (skip[i]) {
						skip[i] = 0;
						continue;
					}
					if ((tsd >> 56) == 0x7f) {
						meta++;
						skip[i] = (tsd & 0xff) == 2 || (tsd & 0xff) == 3;
					} else if (tsd >> 63) {
						exits++;
					} else {
						entries++;
					}
				}
			}
			if (got < 0 && errno != EINTR) {
				printf("read cpu%d: %s\n", i, strerror(errno));
				return 1;
			}
		}
		if (!got_any && !last)
			usleep(50000);
	}
	printf("records %llu entries %llu exits %llu meta %llu bytes %llu\n",
	       bytes / 16, entries, exits, meta, bytes);
	return 0;
}

/* The threads' shared state, and the futex words they wait on. */
static struct {
	int go;			/* futex: 0 wait, 1 go */
	int zero, hold;		/* /dev/zero, the read end of the hold pipe */
	int ready, done, finished;
} thr;

static void futex_wait(int *word, int val)
{
	syscall(SYS_futex, word, FUTEX_WAIT, val, NULL, NULL, 0);
}

static int thread_fn(void *arg)
{
	char c;

	(void)arg;
	__atomic_add_fetch(&thr.ready, 1, __ATOMIC_SEQ_CST);
	while (!__atomic_load_n(&thr.go, __ATOMIC_SEQ_CST))
		futex_wait(&thr.go, 0);
	/* The traced call every thread makes. */
	if (syscall(SYS_read, thr.zero, &c, 1) == 1)
		__atomic_add_fetch(&thr.done, 1, __ATOMIC_SEQ_CST);
	/* Asleep inside a traced read until the pipe's writer closes it. */
	while (syscall(SYS_read, thr.hold, &c, 1) > 0)
		;
	__atomic_add_fetch(&thr.finished, 1, __ATOMIC_SEQ_CST);
	return 0;
}

/* Wait (up to @secs) until *@word reaches @want; 0 when it did. */
static int wait_count(int *word, int want, int secs, const char *what)
{
	long long end = now_ms() + secs * 1000LL, last = now_ms();

	while (__atomic_load_n(word, __ATOMIC_SEQ_CST) < want) {
		if (now_ms() > end) {
			printf("threads: only %d of %d %s after %d s\n",
			       __atomic_load_n(word, __ATOMIC_SEQ_CST), want, what, secs);
			return 1;
		}
		if (now_ms() - last > 10000) {
			printf("threads: %d of %d %s\n", __atomic_load_n(word, __ATOMIC_SEQ_CST),
			       want, what);
			fflush(stdout);
			last = now_ms();
		}
		usleep(20000);
	}
	return 0;
}

/*
 * N threads (clone, 16 KiB stacks: 20,000 tasks fit a small VM) wait on a
 * futex; then CMD1 runs (it starts recording), all are woken at once,
 * each makes one read of /dev/zero and then blocks reading a pipe; once
 * every thread has read, CMD2 runs (the checks, while every thread is
 * asleep in its pipe read); then the pipe's writer closes and all return
 * and exit.  Exit status: CMD2's, or 1 if the threads did not get there.
 */
static int threads(unsigned long n, const char *cmd1, const char *cmd2)
{
	const size_t stack = 16384;
	int hold[2], ret = 0, rc;
	unsigned long i;
	long long t0 = now_ms();
	char *stacks;

	if (pipe(hold))
		return report(-1);
	thr.hold = hold[0];
	thr.zero = open("/dev/zero", O_RDONLY);
	stacks = mmap(NULL, n * stack, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (thr.zero < 0 || stacks == MAP_FAILED)
		return report(-1);
	for (i = 0; i < n; i++) {
		if (clone(thread_fn, stacks + (i + 1) * stack,
			  CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
			  CLONE_THREAD | CLONE_SYSVSEM, NULL) < 0) {
			printf("threads: clone %lu: %s\n", i, strerror(errno));
			fflush(stdout);
			n = i;
			ret = 1;
			break;
		}
	}
	if (wait_count(&thr.ready, n, 600, "started"))
		ret = 1;
	printf("threads: %lu created in %lld ms\n", n, now_ms() - t0);
	fflush(stdout);
	rc = system(cmd1);
	if (rc)
		ret = 1;
	t0 = now_ms();
	__atomic_store_n(&thr.go, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &thr.go, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
	if (wait_count(&thr.done, n, 600, "read"))
		ret = 1;
	printf("threads: %d made their read in %lld ms\n", thr.done, now_ms() - t0);
	fflush(stdout);
	if (!rc) {
		rc = system(cmd2);
		if (rc)
			ret = WIFEXITED(rc) ? WEXITSTATUS(rc) : 1;
	}
	t0 = now_ms();
	close(hold[1]);
	if (wait_count(&thr.finished, thr.done, 600, "finished"))
		ret = 1;
	printf("threads: all returned in %lld ms\n", now_ms() - t0);
	fflush(stdout);
	return ret;
}

/* Copy a file (the stats) to another; errors ignored. */
static void copy_file(const char *from, const char *to)
{
	size_t n = 0;
	char *b = slurp(from, &n);
	int fd;

	if (!b)
		return;
	fd = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		if (write(fd, b, n) != (ssize_t)n)
			n = 0;
		close(fd);
	}
	free(b);
}

/*
 * ngtest rmmod-within LIMIT_MS T0 STATS: the unload contract.  T0 is when
 * tracing_on=0 was written (ms of CLOCK_BOOTTIME, /proc/uptime's clock),
 * or "now": write it here first.  Then try delete_module(O_NONBLOCK)
 * every 10 ms, keeping the last stats read before each try in STATS,
 * until it succeeds or LIMIT_MS have passed since T0.  Prints "ok MS" or
 * "ERRNO MS" (the last refusal); exits 0 only on success in time.
 */
static int rmmod_within(long long limit, const char *t0s, const char *stats)
{
	static const char ng[] = "/sys/kernel/nanograph";
	char path[256];
	long long t0;

	if (!strcmp(t0s, "now")) {
		snprintf(path, sizeof(path), "%s/tracing_on", ng);
		int fd = open(path, O_WRONLY);

		t0 = boot_ms();
		if (fd < 0 || write(fd, "0", 1) != 1) {
			printf("%s 0\n", strerrorname_np(errno) ?: "?");
			return 1;
		}
		close(fd);
	} else {
		t0 = strtoll(t0s, NULL, 0);
	}
	snprintf(path, sizeof(path), "%s/stats", ng);
	for (;;) {
		long long el;

		copy_file(path, stats);
		if (!syscall(SYS_delete_module, "nanograph", O_NONBLOCK)) {
			printf("ok %lld\n", boot_ms() - t0);
			return 0;
		}
		el = boot_ms() - t0;
		if (el > limit) {
			printf("%s %lld\n", strerrorname_np(errno) ?: "?", el);
			return 1;
		}
		usleep(10000);
	}
}

/*
 * The records of one raw buffer file (include/nanograph_event.h), one a
 * line, for tests that check what the module wrote where.
 */
static int raw_dump(const char *file)
{
	uint64_t w[2], pay[2];
	int fd = open(file, O_RDONLY);
	ssize_t n;

	if (fd < 0) {
		printf("%s\n", strerror(errno));
		return 1;
	}
	while ((n = read(fd, w, sizeof(w))) == sizeof(w)) {
		uint64_t c = NG_TSD_COUNTER(w[0]);

		if (w[0] == (NG_RAW_META | NG_RAW_TASK)) {
			printf("task %u %u\n", (unsigned int)(w[1] >> 32), (unsigned int)w[1]);
		} else if (w[0] == (NG_RAW_META | NG_RAW_COMM) ||
			   w[0] == (NG_RAW_META | NG_RAW_CLOCK)) {
			if (read(fd, pay, sizeof(pay)) != sizeof(pay))
				break;
			if (w[0] == (NG_RAW_META | NG_RAW_CLOCK))
				printf("clock %llu\n", (unsigned long long)w[1]);
			else
				printf("comm %llu %.16s\n", (unsigned long long)w[1], (char *)pay);
		} else if (NG_RAW_IS_META(w[0]) &&
			   NG_RAW_KIND(w[0]) == NG_RAW_SWITCH_OUT) {
			printf("switch_out %llu %llu %s\n", (unsigned long long)w[1],
			       (unsigned long long)((w[0] >> NG_RAW_ARG_SHIFT) & NG_RAW_STATE_MASK),
			       w[0] & NG_RAW_PREEMPTED ? "preempted" : "-");
		} else if (NG_RAW_IS_META(w[0]) &&
			   NG_RAW_KIND(w[0]) == NG_RAW_SWITCH_IN) {
			printf("switch_in %llu\n", (unsigned long long)w[1]);
		} else if (NG_RAW_IS_META(w[0]) && NG_RAW_KIND(w[0]) == NG_RAW_WAKE) {
			printf("wake %llu %u %llu\n", (unsigned long long)w[1],
			       (unsigned int)(w[0] >> NG_RAW_ARG_SHIFT),
			       (unsigned long long)((w[0] & NG_TSD_COUNTER_MASK) >> NG_RAW_WAKE_CTX_SHIFT));
		} else if (NG_RAW_IS_META(w[0])) {
			printf("meta %llx %llx\n", (unsigned long long)w[0],
			       (unsigned long long)w[1]);
		} else {
			printf("%s %llu %u %llx\n", w[0] & NG_RAW_EXIT ? "exit" : "entry",
			       (unsigned long long)c,
			       NG_TSD_DEPTH(w[0] & ~NG_RAW_EXIT), (unsigned long long)w[1]);
		}
	}
	if (n < 0) {
		printf("%s\n", strerror(errno));
		return 1;
	}
	return 0;
}

/*
 * A reader (a child) blocked on a pipe until this process writes, @ms
 * later: what 65-sched-records records.  Prints "reader PID writer PID".
 */
static int pipe_wake(const char *ms, int move)
{
	struct timespec t0, t1;
	int fd[2], status, ok;
	long long *read_ns;
	cpu_set_t cpu;
	pid_t child;
	char c = 'x';

	/* Where the child leaves how long its read took. */
	read_ns = mmap(NULL, sizeof(*read_ns), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (read_ns == MAP_FAILED || pipe(fd)) {
		printf("mmap or pipe: %s\n", strerror(errno));
		return 1;
	}
	*read_ns = -1;
	child = fork();
	if (child < 0) {
		printf("fork: %s\n", strerror(errno));
		return 1;
	}
	if (!child) {
		close(fd[1]);
		CPU_ZERO(&cpu);
		CPU_SET(0, &cpu);
		if (move && sched_setaffinity(0, sizeof(cpu), &cpu))
			_exit(2);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		ok = read(fd[0], &c, 1) == 1;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		*read_ns = (t1.tv_sec - t0.tv_sec) * 1000000000LL +
			   (t1.tv_nsec - t0.tv_nsec);
		_exit(ok ? 0 : 1);
	}
	close(fd[0]);
	usleep(atoi(ms) * 1000);
	CPU_ZERO(&cpu);
	CPU_SET(1, &cpu);
	if (move && sched_setaffinity(child, sizeof(cpu), &cpu))
		printf("sched_setaffinity: %s\n", strerror(errno));
	if (write(fd[1], &c, 1) != 1)
		printf("write: %s\n", strerror(errno));
	if (waitpid(child, &status, 0) != child)
		return 1;
	printf("reader %d writer %d read_ns %lld\n", (int)child, (int)getpid(),
	       *read_ns);
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : 1;
}

/*
 * @n round trips of a byte between this process and a child over two
 * pipes: each side blocks in a read of the pipe the other writes, two
 * sleeps and two wakes a trip (make bench's switch cost).  Prints the
 * nanoseconds of the loop.
 */
static int ping_pong(long n)
{
	int ab[2], ba[2], st;
	struct timespec t0, t1;
	pid_t child;
	char c = 'x';
	long i;

	if (pipe(ab) || pipe(ba))
		return report(-1);
	child = fork();
	if (child < 0)
		return report(-1);
	if (!child) {
		close(ab[1]);	/* a parent gone ends the reads: EOF */
		close(ba[0]);
		for (i = 0; i < n; i++)
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	close(ab[0]);
	close(ba[1]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			break;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	close(ab[1]);	/* a child still reading gets EOF */
	if (waitpid(child, &st, 0) != child || !WIFEXITED(st) || WEXITSTATUS(st) || i < n) {
		printf("ping-pong: %ld of %ld trips\n", i, n);
		return 1;
	}
	printf("%lld\n", (t1.tv_sec - t0.tv_sec) * 1000000000LL + t1.tv_nsec - t0.tv_nsec);
	return 0;
}

/*
 * A lock held by another thread, as a mutex's slow path does it: a waiter
 * thread sleeps in FUTEX_WAIT on the lock word while it is 1; this thread
 * (the holder) sleeps @ms, then unlocks: the word to 0 and FUTEX_WAKE,
 * what pthread_mutex_unlock() does with a waiter.  What
 * 66-sched-causes records.  Prints "waiter TID holder TID".
 */
static volatile int fw_word = 1;
static volatile pid_t fw_tid;

static int futex_waiter(void *arg)
{
	(void)arg;
	fw_tid = syscall(SYS_gettid);
	while (fw_word)
		syscall(SYS_futex, &fw_word, FUTEX_WAIT_PRIVATE, 1, NULL, NULL, 0);
	fw_tid = -fw_tid;	/* through: the holder may go */
	return 0;
}

static int futex_wake(const char *ms)
{
	static char stack[65536];
	int i;

	if (clone(futex_waiter, stack + sizeof(stack),
		  CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
		  CLONE_THREAD | CLONE_SYSVSEM, NULL) < 0)
		return report(-1);
	usleep(atoi(ms) * 1000);
	fw_word = 0;
	syscall(SYS_futex, &fw_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	for (i = 0; fw_tid >= 0 && i < 10000; i++)
		usleep(1000);
	if (fw_tid >= 0) {
		printf("the waiter did not get through\n");
		return 1;
	}
	printf("waiter %d holder %d\n", (int)-fw_tid, (int)syscall(SYS_gettid));
	return 0;
}

/*
 * Reads of @file (one read(2) of all of it each) for @ms while a child
 * spins on the same CPU (both pinned to CPU 0): the reads wait on the
 * run queue behind it.  Prints "reader PID reads N".
 */
static int hog_read(const char *file, const char *ms)
{
	struct timespec t0, t;
	cpu_set_t cpu;
	long n = 0, size;
	pid_t hog;
	char *buf;
	int fd;

	CPU_ZERO(&cpu);
	CPU_SET(0, &cpu);
	if (sched_setaffinity(0, sizeof(cpu), &cpu))
		return report(-1);
	fd = open(file, O_RDONLY);
	size = fd < 0 ? -1 : lseek(fd, 0, SEEK_END);
	buf = size > 0 ? malloc(size) : NULL;
	if (!buf)
		return report(-1);
	hog = fork();	/* inherits CPU 0 */
	if (hog < 0)
		return report(-1);
	if (!hog)
		for (;;)
			;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if (pread(fd, buf, size, 0) != size)
			break;
		n++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 <
		 atoi(ms));
	kill(hog, SIGKILL);
	waitpid(hog, NULL, 0);
	printf("reader %d reads %ld\n", (int)getpid(), n);
	return n ? 0 : 1;
}

/*
 * Two reads into fresh pages, then into the same pages (see the usage),
 * in a child: no loader's reads before them, no other read after.
 */
static int fresh_read(const char *file, const char *pages)
{
	long page = sysconf(_SC_PAGESIZE), len = atol(pages) * page;
	struct rusage r0, r1, r2;
	int fd, status;
	char *buf;
	pid_t child;

	fd = open(file, O_RDONLY);
	buf = mmap(NULL, len > 0 ? len : page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fd < 0 || len <= 0 || buf == MAP_FAILED)
		return report(-1);
	madvise(buf, len, MADV_NOHUGEPAGE);	/* a fault a page */
	fflush(stdout);
	child = fork();
	if (child < 0)
		return report(-1);
	if (!child) {
		/* Their pages copied now, not by a getrusage() between reads. */
		memset(&r0, 0, sizeof(r0));
		memset(&r1, 0, sizeof(r1));
		memset(&r2, 0, sizeof(r2));
		getrusage(RUSAGE_THREAD, &r0);
		if (pread(fd, buf, len, 0) != len)
			_exit(1);
		getrusage(RUSAGE_THREAD, &r1);
		if (pread(fd, buf, len, 0) != len)
			_exit(1);
		getrusage(RUSAGE_THREAD, &r2);
		printf("reader %d minflt %ld %ld\n", (int)getpid(),
		       r1.ru_minflt - r0.ru_minflt, r2.ru_minflt - r1.ru_minflt);
		_exit(fflush(stdout) ? 1 : 0);
	}
	if (waitpid(child, &status, 0) != child)
		return report(-1);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/*
 * How a collector waits for a flight trigger: sysfs wakes pollers of an
 * attribute with POLLPRI | POLLERR once it was read and then notified.
 */
static int poll_pri(const char *file, int seconds)
{
	struct pollfd p = { .events = POLLPRI };
	char buf[512];
	ssize_t n;
	int r;

	p.fd = open(file, O_RDONLY);
	if (p.fd < 0 || read(p.fd, buf, sizeof(buf)) < 0) {
		printf("%s\n", strerror(errno));
		return 1;
	}
	r = poll(&p, 1, seconds * 1000);
	if (r < 0) {
		printf("%s\n", strerror(errno));
		return 1;
	}
	if (r == 0) {
		printf("timeout\n");
		return 0;
	}
	n = pread(p.fd, buf, sizeof(buf) - 1, 0);
	if (n < 0) {
		printf("%s\n", strerror(errno));
		return 1;
	}
	buf[n] = '\0';
	printf("woken %s", buf);
	return 0;
}

/* @n reads of a byte of @file, each through its own read(2). */
static int read_n(const char *file, long n)
{
	int fd = open(file, O_RDONLY);
	char c;

	if (fd < 0) {
		printf("%s: %s\n", file, strerror(errno));
		return 1;
	}
	while (n-- > 0) {
		if (read(fd, &c, 1) < 0) {
			printf("%s: %s\n", file, strerror(errno));
			close(fd);
			return 1;
		}
	}
	close(fd);
	return 0;
}

/* Reads under the names given: what set_event_comm records is known. */
static int comm_reads(const char *file, int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		char *colon = strrchr(argv[i], ':');

		if (!colon)
			return 2;
		*colon = '\0';
		if (*argv[i] && prctl(PR_SET_NAME, argv[i], 0, 0, 0)) {
			printf("prctl: %s\n", strerror(errno));
			return 1;
		}
		if (read_n(file, atol(colon + 1)))
			return 1;
	}
	return 0;
}

/* Reads between writes of 1 and 0 to trace_self, alternately. */
static int self_reads(const char *self, const char *file, int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		int fd = i ? open(self, O_WRONLY) : -2;

		if (fd == -1 || (fd >= 0 && write(fd, i % 2 ? "1" : "0", 1) != 1)) {
			printf("%s: %s\n", self, strerror(errno));
			return 1;
		}
		if (fd >= 0)
			close(fd);
		if (read_n(file, atol(argv[i])))
			return 1;
	}
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: ngtest write|append FILE DATA | write-big FILE SIZE | write-file|append-file FILE SRC | read FILE CHUNK | read-count FILE CHUNK SECONDS | read-size FILE N | reuse-write FILE GLOB | reuse-read FILE N DATA | read-fault FILE | read-split FILE N CMD | loop-read FILE N [CHUNKS] | steal-at-stop NG FIFO | hold-tasks N CMD | splice FILE N | rmmod NAME | asuser UID CMD... | raw-dump FILE | poll-pri FILE SECONDS | comm-reads FILE NAME:N... | self-reads TRACE_SELF FILE N... | nanosleep PIDFILE | pipe-wake MS [move] | ping-pong N | futex-wake MS | hog-read FILE MS | fresh-read FILE PAGES | read-errors FILE CHUNK | values-calls FILE | perf-stack|bpf-stack ID PID CMD... | fuzz [-c] [-q] [-t] SEED COUNT FILE... | forkload SECONDS [exec] | fork-work N | readcheck FILE SIZE CHUNK | threads N CMD1 CMD2 | drain DIR | cpu-hold CPU FILE DATA | rmmod-within MS T0|now STATS\n");
	return 2;
}

/* The thread that execs: it is not the leader, so de_thread() gives it
 * the leader's pid, with the exec's hooked frames open. */
static char **texec_argv;

static int texec_thread(void *arg)
{
	char buf[16];
	int fd = open("/dev/zero", O_RDONLY);

	(void)arg;
	/* A hooked call or two under this thread's own pid first. */
	if (fd >= 0 && read(fd, buf, sizeof(buf)) < 0)
		_exit(3);
	execv("/proc/self/exe", texec_argv);
	_exit(2);
}

/*
 * One link of the chain: check that the exec made this image the
 * leader (pid == tid), then, DEPTH > 0, exec from a second thread again.
 * Exit status 0 when the whole chain ran.
 */
static int thread_exec_child(unsigned long depth, pid_t was)
{
	static char stack[65536];
	char d[24], w[24];
	static char *args[6];

	if (was && (getpid() != was || syscall(SYS_gettid) != getpid()))
		return 4;
	if (!depth)
		return 0;
	snprintf(d, sizeof(d), "%lu", depth - 1);
	snprintf(w, sizeof(w), "%d", (int)getpid());
	args[0] = "ngtest";
	args[1] = "thread-exec-child";
	args[2] = d;
	args[3] = w;
	args[4] = NULL;
	texec_argv = args;
	if (clone(texec_thread, stack + sizeof(stack),
		  CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
		  CLONE_THREAD | CLONE_SYSVSEM, NULL) < 0)
		return 5;
	/* The leader waits to be killed by the other thread's exec. */
	for (;;)
		pause();
}

/* N processes, each a chain of DEPTH execs from non-leader threads. */
static int thread_exec(unsigned long n, unsigned long depth)
{
	char d[24];
	unsigned long i;
	int st;

	snprintf(d, sizeof(d), "%lu", depth);
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return report(-1);
		if (!pid) {
			execl("/proc/self/exe", "ngtest", "thread-exec-child",
			      d, "0", (char *)NULL);
			_exit(6);
		}
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
		    WEXITSTATUS(st)) {
			printf("thread-exec: round %lu: status %#x\n", i, st);
			return 1;
		}
	}
	printf("ok\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "thread-exec"))
		return thread_exec(strtoul(argv[2], NULL, 0), strtoul(argv[3], NULL, 0));
	if (argc == 4 && !strcmp(argv[1], "thread-exec-child"))
		return thread_exec_child(strtoul(argv[2], NULL, 0),
					 (pid_t)strtol(argv[3], NULL, 0));
	if (argc == 3 && !strcmp(argv[1], "rmmod"))
		return report(syscall(SYS_delete_module, argv[2], O_NONBLOCK));
	if (argc >= 4 && !strcmp(argv[1], "asuser")) {
		uid_t id = strtoul(argv[2], NULL, 0);

		/* Busybox has no su that works without a passwd database. */
		if (setgroups(0, NULL) || setresgid(id, id, id) ||
		    setresuid(id, id, id))
			return report(-1);
		execvp(argv[3], argv + 3);
		return report(-1);
	}
	if (argc == 3 && !strcmp(argv[1], "read-fault"))
		return read_fault(argv[2]);
	if (argc >= 4 && !strcmp(argv[1], "comm-reads"))
		return comm_reads(argv[2], argc - 3, argv + 3);
	if (argc >= 5 && !strcmp(argv[1], "self-reads"))
		return self_reads(argv[2], argv[3], argc - 4, argv + 4);
	if (argc == 4 && !strcmp(argv[1], "poll-pri"))
		return poll_pri(argv[2], atoi(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "raw-dump"))
		return raw_dump(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "ping-pong"))
		return ping_pong(atol(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "futex-wake"))
		return futex_wake(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "hog-read"))
		return hog_read(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "fresh-read"))
		return fresh_read(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "pipe-wake"))
		return pipe_wake(argv[2], 0);
	if (argc == 4 && !strcmp(argv[1], "pipe-wake") && !strcmp(argv[3], "move"))
		return pipe_wake(argv[2], 1);
	if (argc == 3 && !strcmp(argv[1], "nanosleep"))
		return do_nanosleep(argv[2]);
	if (argc >= 5 && !strcmp(argv[1], "perf-stack"))
		return perf_stack(strtoul(argv[2], NULL, 0), atoi(argv[3]), argv + 4);
	if (argc >= 5 && !strcmp(argv[1], "bpf-stack"))
		return bpf_stack(strtoul(argv[2], NULL, 0), atoi(argv[3]), argv + 4);
	if (argc >= 5 && !strcmp(argv[1], "fuzz"))
		return fuzz(argc - 2, argv + 2);
	if (argc == 3 && !strcmp(argv[1], "fork-work"))
		return fork_work(strtoul(argv[2], NULL, 0));
	if (argc >= 3 && !strcmp(argv[1], "forkload"))
		return forkload(strtoul(argv[2], NULL, 0), argc > 3 && !strcmp(argv[3], "exec"));
	if (argc == 3 && !strcmp(argv[1], "drain"))
		return drain(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "values-calls"))
		return values_calls(argv[2]);
	if (argc < 4)
		return usage();
	if (argc == 5 && !strcmp(argv[1], "readcheck"))
		return readcheck(argv[2], strtoul(argv[3], NULL, 0), strtoul(argv[4], NULL, 0));
	if (argc == 5 && !strcmp(argv[1], "rmmod-within"))
		return rmmod_within(strtoll(argv[2], NULL, 0), argv[3], argv[4]);
	if (argc == 5 && !strcmp(argv[1], "threads"))
		return threads(strtoul(argv[2], NULL, 0), argv[3], argv[4]);
	if (argc == 5 && !strcmp(argv[1], "read-split"))
		return read_split(argv[2], strtoul(argv[3], NULL, 0), argv[4]);
	if (!strcmp(argv[1], "write-file"))
		return write_file(argv[2], argv[3], O_TRUNC);
	if (!strcmp(argv[1], "append-file"))
		return write_file(argv[2], argv[3], O_APPEND);
	if (!strcmp(argv[1], "reuse-write"))
		return reuse_write(argv[2], argv[3]);
	if (argc == 5 && !strcmp(argv[1], "reuse-read"))
		return reuse_read(argv[2], strtoul(argv[3], NULL, 0), argv[4]);
	if (!strcmp(argv[1], "read-size"))
		return read_size(argv[2], strtoul(argv[3], NULL, 0));
	if (!strcmp(argv[1], "write"))
		return do_write(argv[2], argv[3], strlen(argv[3]), O_TRUNC);
	if (!strcmp(argv[1], "append"))
		return do_write(argv[2], argv[3], strlen(argv[3]), O_APPEND);
	if (!strcmp(argv[1], "write-big")) {
		size_t size = strtoul(argv[3], NULL, 0);
		char *buf = malloc(size ? size : 1);

		if (!buf)
			return 2;
		memset(buf, 'a', size);
		do_write(argv[2], buf, size, O_TRUNC);
		free(buf);
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "cpu-hold"))
		return cpu_hold(atoi(argv[2]), argv[3], argv[4]);
	if (!strcmp(argv[1], "splice"))
		return do_splice(argv[2], strtoul(argv[3], NULL, 0));
	if (!strcmp(argv[1], "hold-tasks"))
		return hold_tasks(strtoul(argv[2], NULL, 0), argv[3]);
	if (!strcmp(argv[1], "loop-read"))
		return loop_read(argv[2], strtoul(argv[3], NULL, 0),
				 argc > 4 ? strtoul(argv[4], NULL, 0) : 0);
	if (!strcmp(argv[1], "steal-at-stop"))
		return steal_at_stop(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "read-errors"))
		return read_errors(argv[2], strtoul(argv[3], NULL, 0));
	if (argc == 5 && !strcmp(argv[1], "read-count"))
		return read_count(argv[2], strtoul(argv[3], NULL, 0), strtod(argv[4], NULL));
	if (!strcmp(argv[1], "read"))
		return do_read(argv[2], strtoul(argv[3], NULL, 0));
	return usage();
}
