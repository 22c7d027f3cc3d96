// SPDX-License-Identifier: GPL-2.0
/*
 * record_module.c - "nanograph record" and the module: the conditions
 * it needs (root, tracefs, the module of the same interface, idle), its
 * control files set from the options, tracing_on=1 and the workload
 * admitted, and everything put back as it was found, whichever way the
 * recording ends: the command's exit, Ctrl-C, SIGTERM, --duration, or
 * an error.
 *
 * What is recorded: a command it starts, a process (-p), or with -a every
 * task but the collector itself, whose threads go in set_event_notrace_pid
 * (ng_ctl_select_tasks()); with -p and -a nobody is admitted until every
 * function is hooked (admit()).
 *
 * Convention (cmd.h): 0 to go on, else the exit code after the line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"

/*
 * The module and this collector must speak the same interface (NG_ABI):
 * built from different trees they would misread each other in odd ways.
 * 0 when they do, else the exit status of one clear line.
 */
static int abi_check(const struct ng_ctl *ctl)
{
	unsigned int abi = 0;
	int ret = ng_ctl_check_abi(ctl, &abi);

	if (!ret)
		return 0;
	if (ret == -EPROTO)
		return rec_fail("the nanograph module speaks interface %u, this collector %d: build both from the same tree (make)",
				abi, NG_ABI);
	if (ret == -ENOENT)
		return rec_fail("the nanograph module has no %s/abi: it is older than this collector; build both from the same tree (make)",
				ng_ctl_root(ctl));
	return rec_fail("cannot read %s/abi: %s", ng_ctl_root(ctl), strerror(-ret));
}

/* The conditions record needs, each with the line that says how to get it. */
int rec_preflight(struct run *r, const struct rec_opts *o)
{
	const char *dir;
	char *val = NULL;
	uint64_t on;
	int ret;

	if (geteuid() != 0)
		return rec_fail("must be run as root: the module's control files and tracefs are root-only (try: sudo nanograph record ...)");
	ret = ng_tracefs_find(&dir);
	if (ret)
		return rec_fail("tracefs is not mounted: mount it with 'mount -t tracefs nodev /sys/kernel/tracing'");
	if (ng_ctl_init(&r->ctl, NULL) || !ng_ctl_available(&r->ctl))
		return rec_fail("the nanograph module is not loaded (%s is missing): load it with 'insmod kmod/nanograph.ko' from the build tree",
				ng_ctl_root(&r->ctl));
	ret = abi_check(&r->ctl);
	if (ret)
		return ret;
	ret = ng_ctl_read(&r->ctl, "tracing_on", &val, NULL);
	if (ret)
		return rec_fail("cannot read %s/tracing_on: %s", ng_ctl_root(&r->ctl),
				strerror(-ret));
	val[strcspn(val, "\n")] = '\0';
	if (ng_parse_num(val, 0, 0, 1, &on) || on) {
		free(val);
		return rec_fail("the module is already recording (tracing_on is 1): another 'nanograph record' or a manual session; stop it with 'echo 0 > %s/tracing_on'",
				ng_ctl_root(&r->ctl));
	}
	free(val);
	return o->flight ? rec_flight_preflight(r, o) : 0;
}

/* Write one control file; on failure, say which and why. */
int rec_set(struct run *r, const char *file, const char *val)
{
	int ret = ng_session_set(r->session, file, val);

	if (ret)
		return rec_fail("cannot write '%s' to %s/%s: %s", val,
				ng_ctl_root(&r->ctl), file, strerror(-ret));
	return 0;
}

/*
 * Write a list file from repeated options, one write per token (so a
 * failure names its token).  The first replaces the list, the others
 * are added: the list never passes through empty, which in
 * set_ftrace_filter means every function, patched in and out again when
 * the hook runs already (for the current_tracer view: 10 s under
 * emulation for three --hook).
 */
static int set_list(struct run *r, const char *file, const char *opt,
		    char **tokens, int n)
{
	int i, ret;

	if (!n)
		return rec_set(r, file, "\n");
	for (i = 0; i < n; i++) {
		ret = i ? ng_session_append(r->session, file, tokens[i]) :
			  ng_session_set(r->session, file, tokens[i]);
		if (ret == -EINVAL)
			return rec_fail("%s %s: no traceable function matches it (see /sys/kernel/tracing/available_filter_functions)",
					opt, tokens[i]);
		if (ret)
			return rec_fail("cannot write '%s' to %s/%s: %s", tokens[i],
					ng_ctl_root(&r->ctl), file, strerror(-ret));
	}
	return 0;
}

/*
 * What went wrong pointing the pid filter at process @pid's threads (or,
 * @pid 0, at every task but record's own): @ret and @file as
 * ng_ctl_select_tasks() and ng_ctl_admit_process() give them.
 */
static int tasks_failed(struct run *r, int pid, int ret, const char *file)
{
	if (!ret)
		return 0;
	if (!file && pid)
		return rec_fail("no process %d: %s", pid, strerror(-ret));
	if (!file)
		return rec_fail("cannot list record's own threads in /proc/self/task: %s",
				strerror(-ret));
	return rec_fail("cannot write %s/%s: %s", ng_ctl_root(&r->ctl), file,
			strerror(-ret));
}

/* Point the pid filter at @pid's tasks, or (0) at all but the collector. */
static int select_tasks(struct run *r, int pid)
{
	const char *file = NULL;
	int ret = ng_session_select_tasks(r->session, pid, &file);

	return tasks_failed(r, pid, ret, file);
}

/* The trigger file: kept to be put back, then one line a --trigger. */
static int set_triggers(struct run *r, const struct rec_opts *o)
{
	char text[NG_TRIGGER_MAX * (NG_TRIGGER_FUNC_MAX + 24)];
	size_t len = 0;
	int i, ret;

	ret = ng_session_keep(r->session, "trigger");
	if (ret)
		return rec_fail("cannot read %s/trigger: %s", ng_ctl_root(&r->ctl),
				strerror(-ret));
	for (i = 0; i < o->nr_triggers; i++) {
		len += ng_trigger_format(&o->triggers[i], text + len,
					 sizeof(text) - len);
		len += snprintf(text + len, sizeof(text) - len, "\n");
	}
	return rec_set(r, "trigger", text);
}

/* An option file and the value record gives it (NULL: a list). */
struct opt_set {
	const char *file, *value;
};

/*
 * --sched, --counters, --retval, --args, --retaddr: their option files
 * on, --no-direct's off, as they are put back at the end; a module
 * without one (older than the collector) says so.  options/args takes
 * the most registers the architecture has: six, else (32-bit arm,
 * EINVAL) four.
 */
static int set_options(struct run *r, const struct rec_opts *o)
{
	struct opt_set set[8];
	int n = 0, i, ret;
	const void *mark;

	if (o->sched)
		set[n++] = (struct opt_set){ "options/sched", "1" };
	if (o->counters)
		set[n++] = (struct opt_set){ "options/counters", "1" };
	if (o->retval)
		set[n++] = (struct opt_set){ "options/retval", "1" };
	if (o->retaddr)
		set[n++] = (struct opt_set){ "options/retaddr", "1" };
	if (o->args) {
		set[n++] = (struct opt_set){ "options/args", "6" };
		set[n++] = (struct opt_set){ "set_args_filter", NULL };
	}
	if (o->no_direct)
		set[n++] = (struct opt_set){ "options/direct", "0" };
	/* each read before any is written; none written back if one fails */
	mark = ng_session_mark(r->session);
	for (i = 0, ret = 0; i < n && !ret; i++)
		ret = ng_session_keep(r->session, set[i].file);
	if (ret)
		ng_session_forget_to(r->session, mark);
	if (ret == -ENOENT)
		return rec_fail("this nanograph module lacks %s: load one built from this tree",
				n == 1 ? set[0].file : "one of the option files asked for");
	if (ret)
		return rec_fail("cannot read %s's options: %s", ng_ctl_root(&r->ctl),
				strerror(-ret));
	for (i = 0; i < n; i++) {
		if (!set[i].value) {
			ret = set_list(r, set[i].file, "--args", o->args_globs,
				       o->nr_args_globs);
		} else if (!strcmp(set[i].file, "options/args")) {
			/* Six registers; four where there are four (EINVAL). */
			ret = ng_session_set(r->session, set[i].file, set[i].value);
			if (ret == -EINVAL)
				ret = rec_set(r, set[i].file, "4");
			else if (ret)
				ret = rec_set(r, set[i].file, set[i].value);
		} else {
			ret = rec_set(r, set[i].file, set[i].value);
		}
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The files record changes, or the module changes meanwhile (the pid
 * lists: event-fork, --when-comm, --trace-self), kept before any is
 * written: put back, the last first, whatever the recording changed.
 * The buffer's size before its mode: the mode goes back first, which
 * frees the buffers, then the size, a number.
 */
static const char *const record_files[] = {
	"set_ftrace_filter", "set_graph_function", "set_graph_notrace",
	"max_graph_depth", "set_event_comm", "set_event_pid",
	"set_event_notrace_pid", "options/event-fork", "raw_buffer_size_kb",
	"buffer_mode", NULL,
};

/*
 * Which functions are hooked and recorded, how deep, into which
 * buffers, with which values and triggers: from the options, through
 * the recording session that puts them back.
 */
static int set_files(struct run *r, const struct rec_opts *o)
{
	char num[32];
	int i, ret;

	ret = ng_session_new(&r->session, &r->ctl);
	if (ret)
		return rec_fail("out of memory");
	/* all read before any is written: a module without one is left alone */
	for (i = 0; !ret && record_files[i]; i++)
		ret = ng_session_keep(r->session, record_files[i]);
	if (ret)
		ng_session_forget_to(r->session, NULL);
	if (ret)
		return rec_fail("cannot read the module's settings in %s: %s",
				ng_ctl_root(&r->ctl), strerror(-ret));
	ret = set_list(r, "set_ftrace_filter", "--hook", o->hook, o->nr_hook);
	if (!ret)
		ret = set_list(r, "set_graph_function", "-F", o->graph, o->nr_graph);
	if (!ret)
		ret = set_list(r, "set_graph_notrace", "-N", o->notrace,
			       o->nr_notrace);
	snprintf(num, sizeof(num), "%ld", o->depth < 0 ? 0 : o->depth);
	if (!ret)
		ret = rec_set(r, "max_graph_depth", num);
	/* The raw buffers are sized and allocated here, before recording. */
	snprintf(num, sizeof(num), "%lu", o->buffer_kb);
	if (!ret && o->raw)
		ret = rec_set(r, "raw_buffer_size_kb", num);
	if (!ret)
		ret = rec_set(r, "buffer_mode", o->raw ? "raw" : "events");
	if (!ret)
		ret = set_options(r, o);
	if (!ret && o->flight)
		ret = set_triggers(r, o);
	return ret;
}

/*
 * Who is recorded, before tracing_on=1: the command started and (unless
 * the threads choose themselves) admitted while it waits to exec; for
 * the others nobody yet (admit() lets them in).
 */
static int choose_tasks(struct run *r, const struct rec_opts *o)
{
	char num[32];
	int ret;

	if (o->argv) {
		ret = rec_spawn(&r->wl, o->argv);
		if (ret)
			return ret;
	}
	/*
	 * A started command waits on a pipe until every function is hooked;
	 * it is admitted once it sleeps there.
	 */
	if (o->argv && !rec_by_program(o)) {
		rec_child_asleep(r->wl.child);
		return select_tasks(r, r->wl.child);
	}
	/*
	 * -a, -p, --when-comm, --trace-self: no task until every function is
	 * hooked (see admit()).
	 * The collector is in set_event_notrace_pid, which wins: a
	 * set_event_pid of its own pid admits nobody.  -p follows the
	 * process's children (event-fork) once admitted.
	 */
	if (o->pid) {
		snprintf(num, sizeof(num), "/proc/%d/task", o->pid);
		if (access(num, F_OK))
			return rec_fail("no process %d: %s", o->pid, strerror(errno));
	}
	ret = select_tasks(r, 0);
	snprintf(num, sizeof(num), "%d", (int)getpid());
	if (!ret)
		ret = rec_set(r, "set_event_pid", num);
	if (!ret && o->pid)
		ret = rec_set(r, "options/event-fork", "1");
	return ret;
}

/* Configure the module from the options; the saved state is put back later. */
int rec_configure(struct run *r, const struct rec_opts *o)
{
	int ret = set_files(r, o);

	return ret ? ret : choose_tasks(r, o);
}

/*
 * -a and -p, once tracing_on=1 has returned: every task but the
 * collector, or the process's threads (added to the collector's pid,
 * which admits nobody: the collector stays out).  Hooking every function
 * takes a while (seconds under emulation, where each patched site stops
 * the machine); a task recorded meanwhile has the calls of a kernel half
 * hooked, and a system recorded meanwhile fills the buffers faster than
 * the collector, which is still waiting in that write, can drain them.
 */
static int admit(struct run *r, const struct rec_opts *o)
{
	const char *file = NULL;
	int ret;

	if (o->all)
		return rec_set(r, "set_event_pid", "\n");
	/*
	 * The names decide from here: set_event_pid becomes the threads
	 * named so now, and then follows renames.  --trace-self alone
	 * leaves it at record's pid: only the threads that ask join it.
	 */
	if (o->nr_when_comm)
		return set_list(r, "set_event_comm", "--when-comm", o->when_comm,
				o->nr_when_comm);
	if (!o->pid)
		return 0;
	ret = ng_session_admit_process(r->session, o->pid, &file);
	return tasks_failed(r, o->pid, ret, file);
}

/*
 * tracing_on=1, then the workload admitted; what is then in effect, for
 * info.json (unknown, null, if it cannot be read).
 */
int rec_start(struct run *r, const struct rec_opts *o)
{
	int ret;

	/* all 0 if it cannot be read; info.json then says null */
	r->stats0_read = !ng_ctl_stats(&r->ctl, &r->stats0);
	ret = rec_set(r, "tracing_on", "1");
	if (!ret)
		ret = admit(r, o);
	if (ret)
		return ret;
	if (ng_info_read_settings(&r->ctl, &r->settings))
		r->settings = NULL;
	return 0;
}

/* The module's counter clock, for the timestamps (and the snapshots' names). */
int rec_read_clock(struct run *r)
{
	char *clock = NULL;
	int ret = 0;

	if (ng_ctl_read(&r->ctl, "clock", &clock, NULL) ||
	    ng_clock_parse(clock, &r->clock))
		ret = rec_fail("cannot read the counter's frequency from %s/clock",
			       ng_ctl_root(&r->ctl));
	free(clock);
	return ret;
}
