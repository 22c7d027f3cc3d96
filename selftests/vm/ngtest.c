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
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
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

static int usage(void)
{
	fprintf(stderr, "usage: ngtest write|append FILE DATA | write-big FILE SIZE | write-file|append-file FILE SRC | read FILE CHUNK | read-size FILE N | read-fault FILE | read-split FILE N CMD | loop-read FILE N | hold-tasks N CMD | splice FILE N | rmmod NAME | asuser UID CMD...\n");
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
