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
 *   ngtest write-file FILE SRC    SRC's bytes written whole, as cat does: write(2)
 *                                 again after a short write; ok or the first ERRNO
 *   ngtest append-file FILE SRC   the same with O_APPEND
 *   ngtest read-size FILE N       one read(2) of N bytes; prints the count or ERRNO
 *   ngtest read-fault FILE        one read(2) of a page into a PROT_NONE buffer
 *                                 (result on stderr), then FILE to stdout as cat does
 *   ngtest read-split FILE N CMD  read N bytes of FILE, run CMD, read the rest with
 *                                 the same open file; all of FILE to stdout
 *   ngtest rmmod NAME             delete_module(NAME, O_NONBLOCK); ok or ERRNO
 *   ngtest asuser UID CMD ARGS... run CMD with uid and gid UID (not root)
 *   ngtest nanosleep PIDFILE      write the pid to PIDFILE, sleep until SIGUSR1;
 *                                 exit 0 if the sleep ended with EINTR
 *   ngtest perf-stack ID PID CMD...  perf callchains (kernel part) of the
 *                                 tracepoint ID in task PID while CMD runs
 *   ngtest bpf-stack ID PID CMD...   the same through a BPF program's
 *                                 bpf_get_stackid() on the tracepoint
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

/*
 * The benchmark's workload: N one-byte reads of FILE, timed with
 * CLOCK_MONOTONIC around the loop only; prints the elapsed ns.
 */
static int loop_read(const char *path, unsigned long n)
{
	struct timespec a, b;
	unsigned long i;
	char c;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return report(-1);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++)
		if (read(fd, &c, 1) != 1)
			return report(-1);
	clock_gettime(CLOCK_MONOTONIC, &b);
	close(fd);
	printf("%lld\n", (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec));
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

static void ksyms_load(void)
{
	char line[512], name[256], mod[256], full[520];
	unsigned long long addr;
	size_t cap = 0;
	char type;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		int n = sscanf(line, "%llx %c %255s %255s", &addr, &type, name, mod);

		if (n < 3 || !addr || (type != 't' && type != 'T' &&
				       type != 'w' && type != 'W'))
			continue;
		if (nksyms == cap) {
			cap = cap ? 2 * cap : 65536;
			ksyms = realloc(ksyms, cap * sizeof(*ksyms));
			if (!ksyms)
				exit(2);
		}
		ksyms[nksyms].addr = addr;
		snprintf(full, sizeof(full), "%s%s%s", name, n == 4 ? " " : "",
			 n == 4 ? mod : "");
		ksyms[nksyms++].name = strdup(full);
	}
	fclose(f);
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

static int usage(void)
{
	fprintf(stderr, "usage: ngtest write|append FILE DATA | write-big FILE SIZE | write-file|append-file FILE SRC | read FILE CHUNK | read-size FILE N | read-fault FILE | read-split FILE N CMD | loop-read FILE N | hold-tasks N CMD | splice FILE N | rmmod NAME | asuser UID CMD... | nanosleep PIDFILE | perf-stack|bpf-stack ID PID CMD...\n");
	return 2;
}

int main(int argc, char **argv)
{
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
	if (argc == 3 && !strcmp(argv[1], "nanosleep"))
		return do_nanosleep(argv[2]);
	if (argc >= 5 && !strcmp(argv[1], "perf-stack"))
		return perf_stack(strtoul(argv[2], NULL, 0), atoi(argv[3]), argv + 4);
	if (argc >= 5 && !strcmp(argv[1], "bpf-stack"))
		return bpf_stack(strtoul(argv[2], NULL, 0), atoi(argv[3]), argv + 4);
	if (argc < 4)
		return usage();
	if (argc == 5 && !strcmp(argv[1], "read-split"))
		return read_split(argv[2], strtoul(argv[3], NULL, 0), argv[4]);
	if (!strcmp(argv[1], "write-file"))
		return write_file(argv[2], argv[3], O_TRUNC);
	if (!strcmp(argv[1], "append-file"))
		return write_file(argv[2], argv[3], O_APPEND);
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
	if (!strcmp(argv[1], "splice"))
		return do_splice(argv[2], strtoul(argv[3], NULL, 0));
	if (!strcmp(argv[1], "hold-tasks"))
		return hold_tasks(strtoul(argv[2], NULL, 0), argv[3]);
	if (!strcmp(argv[1], "loop-read"))
		return loop_read(argv[2], strtoul(argv[3], NULL, 0));
	if (!strcmp(argv[1], "read"))
		return do_read(argv[2], strtoul(argv[3], NULL, 0));
	return usage();
}
