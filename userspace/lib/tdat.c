// SPDX-License-Identifier: LGPL-2.1
/*
 * tdat.c - push/pop files from a trace-cmd recording.
 *
 * "trace-cmd record -e nanograph" stores the per-CPU ring-buffer pages,
 * the event formats, kallsyms and saved comms in trace.dat. libtracecmd
 * reads it: this file is the pipeline's trace.dat source (source.h), and
 * its records go through the same decoder, merge and sink as "record"'s.
 * The module writes a clock_sync event when tracing starts, so the file
 * also carries its own time base.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <trace-cmd.h>

#include "nanograph.h"
#include "source.h"

struct tdat {
	struct ng_source src;
	struct tracecmd_input *handle;
	struct tep_handle *tep;
	struct ng_decoder *dec;
	struct ng_conv *conv;
	const struct ng_syms *syms;
};

/* A CPU's record during a pass, and what it decoded to. */
struct tdat_cpu {
	struct tep_record *rec;
	struct ng_event ev;
};

/*
 * The CPU's next record, decoded; from its first on a pass's first call,
 * wherever an earlier pass stopped. Missed events count as lost. The
 * records come from libtracecmd's tracecmd_read_cpu_first() and
 * tracecmd_read_data(), merged by merge.c in timestamp order (ties to
 * the lower CPU) as tracecmd_iterate_events() would. The merge is ours:
 * libtracecmd 3.1's iterator, stopped early, frees records it does not
 * own (it warns, and leaks them).
 */
static int tdat_next(struct ng_source *s, int cpu, const struct ng_event **ev)
{
	struct tdat *t = (struct tdat *)s;
	struct tdat_cpu *c = &((struct tdat_cpu *)s->cpu)[cpu];

	if (!c->rec) {
		c->rec = tracecmd_read_cpu_first(t->handle, cpu);
	} else {
		tracecmd_free_record(c->rec);
		c->rec = tracecmd_read_data(t->handle, cpu);
	}
	if (!c->rec)
		return 0;
	if (s->conv && c->rec->missed_events)
		ng_conv_lost(s->conv, cpu, c->rec->missed_events);
	ng_decode(t->dec, c->rec, &c->ev);
	*ev = &c->ev;
	return 1;
}

/* The records the pass still holds go back to libtracecmd. */
static void tdat_end(struct ng_source *s)
{
	struct tdat_cpu *c = s->cpu;
	int cpu;

	for (cpu = 0; cpu < s->nr_cpus; cpu++)
		tracecmd_free_record(c[cpu].rec);
}

static const struct ng_source_ops tdat_ops = {
	.cpu_size = sizeof(struct tdat_cpu),
	.next = tdat_next,
	.end = tdat_end,
};

/*
 * Would libtracecmd open @path without crashing?  Its failed open frees a
 * handle half made (tracecmd_open_fd() → tracecmd_close(): a NULL
 * dereference with libtracecmd 1.3 on a file cut inside its CPU data,
 * `head -c 3200 trace.dat`; trace-cmd report exits before closing).
 * So the first open of a file is tried in a child, its complaints
 * silenced: 0 if it opened, -EBADMSG if it failed or crashed.
 */
static int tdat_probe(const char *path)
{
	struct tracecmd_input *handle;
	int status, fd;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		fd = open("/dev/null", O_WRONLY);
		if (fd >= 0)
			dup2(fd, STDERR_FILENO);
		handle = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
		_exit(handle ? 0 : 1);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EBADMSG;
}

/* Open @path with libtracecmd: -ENOENT, -EACCES, or -EBADMSG for the rest. */
static int tdat_open(const char *path, struct tracecmd_input **handlep)
{
	int ret;

	*handlep = NULL;
	if (access(path, R_OK))
		return errno == ENOENT || errno == EACCES ? -errno : -EBADMSG;
	ret = tdat_probe(path);
	if (ret)
		return ret;
	errno = 0;
	*handlep = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (*handlep)
		return 0;
	return errno == ENOENT || errno == EACCES ? -errno : -EBADMSG;
}

/* trace.dat carries the comms trace-cmd saved, not the thread groups. */
static void tdat_thread(void *priv, int tid, int *pid, char *comm, size_t size)
{
	struct tdat *t = priv;

	*pid = -1;
	snprintf(comm, size, "%s", tep_data_comm_from_pid(t->tep, tid));
}

/*
 * trace.dat carries the recording machine's kallsyms, which name each
 * address right wherever the file is converted; but libtraceevent keeps
 * no module names. This machine's table adds the module when it has a
 * function starting at the same address (the same kernel); then its name
 * is taken too, so that aliases read as "record" writes them. It is never
 * used alone: a trace.dat from another kernel keeps its own names.
 */
static const char *tdat_sym(void *priv, uint64_t addr, const char **module)
{
	struct tdat *t = priv;
	const char *name = tep_find_function(t->tep, addr);
	const struct ng_sym *ks;

	*module = NULL;
	if (!name || !t->syms)
		return name;
	/* The same function if it starts at the same address (aliases too). */
	ks = ng_syms_lookup(t->syms, addr);
	if (ks && ks->addr == tep_find_function_address(t->tep, addr)) {
		*module = ks->module;
		return ks->name;
	}
	return name;
}

int ng_tdat_convert(const char *path, const char *dir,
		    const struct ng_syms *syms, const struct ng_clock *clock,
		    const struct ng_cancel *cancel,
		    struct ng_conv_summary *sum)
{
	struct tracecmd_input *handle = NULL;
	struct tdat t = { 0 };
	int ret;

	memset(sum, 0, sizeof(*sum));
	ret = ng_conv_new(&t.conv, dir, NULL);
	if (ret)
		return ret;
	ng_conv_set_cancel(t.conv, cancel);
	ret = tdat_open(path, &handle);
	if (ret)
		goto out;
	t.handle = handle;
	t.tep = tracecmd_get_tep(handle);
	ng_source_init(&t.src, &tdat_ops, tep_get_cpus(t.tep), false, NULL);
	ret = ng_decoder_new(&t.dec, t.tep);
	if (ret)
		goto out;
	/*
	 * The time base first: without one, fail before writing anything.
	 * A clock given wins over the file's first clock_sync (to line the
	 * conversion up with another recording's sync pair). The second
	 * pass starts over on the same handle (each CPU from its first
	 * record): an open parses the file's event formats and kallsyms,
	 * seconds under emulation.
	 */
	if (clock) {
		ng_conv_set_clock(t.conv, clock);
	} else {
		ret = ng_sink_find_clock(&t.src, t.conv);
		if (!ret)
			ret = -ENODATA;	/* no clock_sync in the file */
		if (ret < 0)
			goto out;
	}
	t.syms = syms;
	ng_conv_set_thread_info(t.conv, tdat_thread, &t);
	ng_conv_set_resolver(t.conv, tdat_sym, &t);
	ret = ng_sink_feed(&t.src, t.conv);
	if (ret)
		goto out;
	ret = ng_conv_finish(t.conv, sum);
	t.conv = NULL;		/* finish frees it, even on error */
out:
	ng_conv_abort(t.conv);
	ng_decoder_free(t.dec);
	if (handle)
		tracecmd_close(handle);
	return ret;
}
