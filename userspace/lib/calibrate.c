// SPDX-License-Identifier: LGPL-2.1
/*
 * calibrate.c - the tracer's own cost per traced call, measured on this
 * machine, in the raw mode, for --compensate (report-export.md).
 *
 * A child process has the module call its empty calibration target
 * (writes to the control file "calibrate", each asking for a chunk of
 * calls): first with nothing hooked, then with the target hooked and the
 * child traced.  The difference per call is the whole cost of a traced
 * call (entry hook, return trampoline, two records); the time between a
 * call's two records is the part a call's own duration includes.
 * Of each run the fastest chunk counts: an interrupt, a migration or the
 * host's other work only ever add time, and hit the longer traced chunks
 * more often than the plain ones.  Of the calls' own durations the
 * median counts: each is too short to be hit often.
 *
 * The module must be idle or stopped (tracing_on=0) and in the raw mode;
 * the lists and tracing_on are changed through the caller's recording
 * session, which puts them back.
 * Each chunk fits the buffers however small they are: the records are
 * taken out after each.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nanograph.h"
#include "nanograph_event.h"

#define TARGET		"ng_calib_target"
#define MAX_CHUNKS	64
#define MAX_CALLS	(MAX_CHUNKS * 250)

struct calib {
	const struct ng_ctl *ctl;
	struct ng_session *session;	/* every change made through it */
	int nr_cpus;
	int *in;		/* per_cpu/cpuN/raw, -1 if absent */
	int *fd;		/* what was read of it: a memfd */
	char *buf;
	pid_t child;
	uint64_t *ticks;	/* durations of the child's calls */
	unsigned int n;
	uint64_t entry;		/* the child's open call's entry, if open */
	bool open;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * The child: @chunks chunks of @calls calls untraced, each chunk's time
 * written to @out, then the same again, one chunk per byte from @in.
 * One write of the control file @fd makes a chunk's calls.
 */
static void __attribute__((noreturn)) child(int fd, int in, int out,
					     unsigned int chunks,
					     unsigned int calls)
{
	char b, num[16];
	unsigned int c;
	int len;
	uint64_t t;

	len = snprintf(num, sizeof(num), "%u", calls);
	for (c = 0; c < 2 * chunks; c++) {
		if (c >= chunks && read(in, &b, 1) != 1)
			_exit(1);
		t = now_ns();
		if (pwrite(fd, num, len, 0) != len)
			_exit(1);
		t = now_ns() - t;
		if (write(out, &t, sizeof(t)) != sizeof(t))
			_exit(1);
	}
	_exit(0);
}

/* Move what the CPU files hold now into the memfds: two passes, as cap_raw.c. */
static int take(struct calib *k)
{
	int cpu;

	for (cpu = 0; cpu < k->nr_cpus; cpu++) {
		int zeros = 0;

		while (k->in[cpu] >= 0 && zeros < 2) {
			ssize_t n = read(k->in[cpu], k->buf, 65536);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				return -errno;
			zeros += !n;
			if (n && write(k->fd[cpu], k->buf, n) != n)
				return -EIO;
		}
	}
	return 0;
}

/* A call of the child's: its duration, from its entry's record to its exit's. */
static int on_event(void *priv, const struct ng_event *ev)
{
	struct calib *k = priv;

	if (ev->tid != k->child || ev->depth)
		return 0;
	if (ev->type == NG_EV_ENTRY) {
		k->entry = ev->counter;
		k->open = true;
	} else if (ev->type == NG_EV_EXIT && k->open && k->n < MAX_CALLS) {
		k->ticks[k->n++] = (ev->counter - k->entry) & NG_TSD_COUNTER_MASK;
		k->open = false;
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

static uint64_t lowest(const uint64_t *v, unsigned int n)
{
	uint64_t low = v[0];
	unsigned int i;

	for (i = 1; i < n; i++)
		if (v[i] < low)
			low = v[i];
	return low;
}

/* Open the CPU files and a memfd for each; empty them of older records. */
static int calib_open(struct calib *k)
{
	char name[64];
	int cpu;

	k->nr_cpus = sysconf(_SC_NPROCESSORS_CONF);
	k->in = calloc(k->nr_cpus, sizeof(*k->in));
	k->fd = calloc(k->nr_cpus, sizeof(*k->fd));
	k->buf = malloc(65536);
	k->ticks = calloc(MAX_CALLS, sizeof(*k->ticks));
	if (!k->in || !k->fd || !k->buf || !k->ticks)
		return -ENOMEM;
	for (cpu = 0; cpu < k->nr_cpus; cpu++)
		k->in[cpu] = k->fd[cpu] = -1;
	for (cpu = 0; cpu < k->nr_cpus; cpu++) {
		char path[sizeof(k->ctl->root) + 64];

		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/raw",
			 ng_ctl_root(k->ctl), cpu);
		k->in[cpu] = open(path, O_RDONLY | O_CLOEXEC);
		if (k->in[cpu] < 0 && errno != ENOENT)
			return -errno;
		snprintf(name, sizeof(name), "calib%d", cpu);
		k->fd[cpu] = memfd_create(name, MFD_CLOEXEC);
		if (k->fd[cpu] < 0)
			return -errno;
	}
	if (take(k))
		return -EIO;
	for (cpu = 0; cpu < k->nr_cpus; cpu++)
		if (ftruncate(k->fd[cpu], 0) || lseek(k->fd[cpu], 0, SEEK_SET))
			return -errno;
	return 0;
}

static void calib_close(struct calib *k)
{
	int cpu;

	for (cpu = 0; k->in && cpu < k->nr_cpus; cpu++) {
		if (k->in[cpu] >= 0)
			close(k->in[cpu]);
		if (k->fd[cpu] >= 0)
			close(k->fd[cpu]);
	}
	free(k->in);
	free(k->fd);
	free(k->buf);
	free(k->ticks);
}

/*
 * The calls per chunk: a chunk's records (two per call and a task
 * record's three) fit one CPU's buffer with room to spare.
 */
static int chunk_calls(const struct ng_ctl *ctl, unsigned int *calls)
{
	char *text = NULL;
	unsigned long kb;
	uint64_t records;
	int ret = ng_ctl_read(ctl, "raw_buffer_size_kb", &text, NULL);

	if (ret)
		return ret;
	kb = strtoul(text, NULL, 10);
	free(text);
	records = (uint64_t)kb * 1024 / NG_RAW_RECORD_SIZE;
	if (records < 64)
		return -ENOSPC;
	*calls = records / 4 < 250 ? records / 4 : 250;
	return 0;
}

/* Hook the calibration target alone, for nobody yet. */
static int hook_target(struct ng_session *s)
{
	static const char *const cleared[] = {
		"set_graph_function", "set_graph_notrace", "set_event_pid",
		"set_event_notrace_pid",
	};
	unsigned int i;
	int ret;

	for (i = 0; i < sizeof(cleared) / sizeof(cleared[0]); i++) {
		ret = ng_session_set(s, cleared[i], "\n");
		if (ret)
			return ret;
	}
	ret = ng_session_set(s, "max_graph_depth", "0");
	if (!ret)
		ret = ng_session_set(s, "options/event-fork", "0");
	if (!ret)
		ret = ng_session_set(s, "set_ftrace_filter", TARGET);
	/* A module without the target (older than the collector) says EINVAL. */
	return ret == -EINVAL ? -ENOENT : ret;
}

/* Run the child and collect its chunk times and its calls' durations. */
static int measure(struct calib *k, unsigned int chunks, unsigned int calls,
		   uint64_t *plain, uint64_t *traced)
{
	int go[2] = { -1, -1 }, times[2] = { -1, -1 }, fd;
	char path[sizeof(k->ctl->root) + 16], pid[32], b = 0;
	unsigned int c;
	int ret = -EIO, status;

	snprintf(path, sizeof(path), "%s/calibrate", ng_ctl_root(k->ctl));
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ENOENT : -errno;
	if (pipe2(go, O_CLOEXEC) || pipe2(times, O_CLOEXEC))
		goto out;
	k->child = fork();
	if (k->child < 0) {
		ret = -errno;
		goto out;
	}
	if (!k->child)
		child(fd, go[0], times[1], chunks, calls);
	close(go[0]);
	close(times[1]);
	go[0] = times[1] = -1;
	for (c = 0; c < chunks; c++)
		if (read(times[0], &plain[c], sizeof(*plain)) != sizeof(*plain))
			goto out;
	snprintf(pid, sizeof(pid), "%d", (int)k->child);
	ret = ng_session_set(k->session, "set_event_pid", pid);
	if (!ret)
		ret = ng_session_set(k->session, "tracing_on", "1");
	for (c = 0; !ret && c < chunks; c++) {
		ret = -EIO;
		if (write(go[1], &b, 1) != 1 ||
		    read(times[0], &traced[c], sizeof(*traced)) != sizeof(*traced))
			break;
		ret = take(k);
	}
	if (!ret)
		ret = ng_session_set(k->session, "tracing_on", "0");
	if (!ret)
		ret = take(k);
out:
	if (k->child > 0) {
		if (ret)
			kill(k->child, SIGKILL);
		while (waitpid(k->child, &status, 0) < 0 && errno == EINTR)
			;
	}
	close(fd);
	close(go[0]);
	close(go[1]);
	close(times[0]);
	close(times[1]);
	return ret;
}

int ng_calibrate(struct ng_session *s, const struct ng_clock *clock,
		 struct ng_overhead *o, char *function, size_t size)
{
	uint64_t plain[MAX_CHUNKS], traced[MAX_CHUNKS], p, t;
	struct calib k = { .ctl = ng_session_ctl(s), .session = s };
	unsigned int calls, chunks;
	int ret;

	memset(o, 0, sizeof(*o));
	if (size)
		function[0] = '\0';
	if (!clock->freq)
		return -EINVAL;
	ret = chunk_calls(k.ctl, &calls);
	if (!ret)
		ret = hook_target(s);
	if (!ret)
		ret = calib_open(&k);
	if (ret)
		goto out;
	/* About 10,000 calls, in at least 16 chunks. */
	chunks = 10000 / calls;
	chunks = chunks < 16 ? 16 : chunks > MAX_CHUNKS ? MAX_CHUNKS : chunks;
	ret = measure(&k, chunks, calls, plain, traced);
	if (ret)
		goto out;
	ret = ng_raw_walk_fds(k.fd, k.nr_cpus, on_event, &k);
	if (ret)
		goto out;
	/* Each call recorded whole, or the figures are not this mode's. */
	ret = -EIO;
	if (k.n < (uint64_t)chunks * calls * 9 / 10)
		goto out;
	p = lowest(plain, chunks);
	t = lowest(traced, chunks);
	if (t <= p)
		goto out;
	o->calls = (uint64_t)chunks * calls;
	snprintf(function, size, "%s [nanograph]", TARGET);
	o->function = function;
	o->per_call_ns = (double)(t - p) / calls;
	o->inside_ns = (double)median(k.ticks, k.n) * 1e9 / clock->freq;
	if (o->inside_ns > o->per_call_ns)
		o->inside_ns = o->per_call_ns;
	ret = 0;
out:
	calib_close(&k);
	return ret;
}
