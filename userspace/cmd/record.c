// SPDX-License-Identifier: GPL-2.0
/*
 * record.c - "nanograph record": configure the module, run or attach to
 * the workload, stream the events while it runs, write push/pop files.
 *
 * Everything the command changes (the module's control files, a tracefs
 * instance, saved_cmdlines_size) is put back as it was, whichever way the
 * recording ends: the command's exit, Ctrl-C, SIGTERM, --duration, or an
 * error.
 *
 * What is recorded: a command it starts, a process (-p), or with -a every
 * task but the collector itself, whose threads go in set_event_notrace_pid
 * (ng_ctl_select_tasks()); with -p and -a nobody is admitted until every
 * function is hooked (admit()).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nanograph.h"
#include "cmd.h"

const char ng_record_help[] =
"Options (uftrace's habits; each of -F, -N, --hook may repeat):\n"
"  -F FUNC         record only FUNC and what it calls (set_graph_function)\n"
"  -N FUNC         never record FUNC or what it calls (set_graph_notrace)\n"
"  -D DEPTH        record at most DEPTH nested calls (max_graph_depth)\n"
"  --hook GLOB     hook only functions matching GLOB (set_ftrace_filter);\n"
"                  default: every traceable function\n"
"  -p PID          attach to process PID and its threads and children\n"
"  -a              every task but nanograph itself, until --duration or\n"
"                  Ctrl-C (set_event_notrace_pid)\n"
"  -o DIR          output directory (default: nanograph.data)\n"
"  --duration S    stop after S seconds (a started command gets SIGTERM)\n"
"  --buffer-kb N   buffer per CPU in KiB (default: 8192)\n"
"  --raw           the module's raw per-CPU buffers (the default): the\n"
"                  cheapest per call\n"
"  --events        nanograph's trace events in a tracefs instance instead,\n"
"                  readable alongside by trace-cmd; the same output\n"
"  --no-calibrate  do not measure the tracer's cost per call after the\n"
"                  recording (info.json's overhead, for --compensate)\n"
"  -q, --quiet     no progress line and no summary\n"
"\n"
"A command is started and recorded with its threads and children until it\n"
"exits; with -p, the process, its threads and the children it forks from\n"
"then on, until it exits; with -a, every task of the system (those started\n"
"meanwhile too) but record's own threads, until --duration or a signal.\n"
"Give one of the three. Ctrl-C, SIGTERM, SIGHUP (the last two passed on\n"
"to a started command) and --duration stop the recording, which is then\n"
"written; a second signal, or one while it is written, abandons it.\n"
"\n"
"Exit status: the command's, as time(1) and strace(1) give it (its exit\n"
"code, or 128 + the signal that killed it); 0 with -p or -a, or when\n"
"--duration ended the command; 128 + the signal when abandoned; 1 when\n"
"recording failed; 2 for a usage error.\n"
"\n"
"DIR gets one <tid>.txt push/pop file per thread, threads.tsv and\n"
"info.json (how it was recorded, what was lost: 'nanograph info DIR').\n"
"It is written as a new directory next to DIR and swapped in when\n"
"complete: an earlier recording in DIR is kept as DIR.old, and a failed\n"
"recording leaves DIR as it was. Needs root, tracefs and the module\n"
"loaded.";

#define DEFAULT_DIR	"nanograph.data"
#define DEFAULT_BUF_KB	8192
#define POLL_MS		50

struct opts {
	char **graph, **notrace, **hook;
	int nr_graph, nr_notrace, nr_hook;
	long depth;
	pid_t pid;
	bool all;		/* -a: every task but the collector */
	const char *dir;
	double duration;
	unsigned long buffer_kb;
	bool quiet;
	bool raw;
	bool no_calibrate;
	char **argv;		/* the command, or NULL */
};

struct run {
	struct ng_ctl ctl;
	struct ng_ctl_saved *saved;
	struct ng_recorder *rec;
	struct ng_syms *syms;
	struct ng_clock clock;
	char raw_dir[4096];
	pid_t child;
	int status;		/* the command's wait status */
	bool child_done;
	int go_fd;		/* write end: the child may exec */
	int err_fd;		/* read end: errno of a failed exec */
	bool duration_stop;	/* record ended the command at --duration */
	struct ng_outdir *out;	/* where the recording is written */
	struct ng_conv_summary sum;
	struct ng_ctl_stats stats0;	/* the module's counts at the start */
	bool stats0_read;	/* stats0 could be read */
	uint64_t skipped;	/* calls the module skipped while recording */
	bool skipped_known;	/* stats read at both ends: skipped is true */
	struct rlimit user_nofile;	/* the open-files limit record found */
	bool nofile_raised;		/* and raised for itself */
	struct ng_info_settings *settings;	/* the module's, as configured */
	struct timespec start_rt;	/* wall clock at tracing_on=1 */
	uint64_t duration_ns;		/* from tracing_on=1 to its stop */
	struct ng_overhead overhead;	/* the cost per call, if calibrated */
	char overhead_fn[128];		/* the function calibrated on */
	bool calibrated;
};

/*
 * SIGINT, SIGTERM, SIGHUP: the first stops the recording, which is then
 * written; another one, or one while the recording is being written
 * (converting), abandons it: nothing is kept, DIR stays as it was.
 */
static volatile sig_atomic_t stop_signal, abort_signal, converting;

static void on_signal(int sig)
{
	if (stop_signal || converting)
		abort_signal = sig;
	else
		stop_signal = sig;
}

static bool cancelled(void *priv)
{
	(void)priv;
	return abort_signal != 0;
}

static void on_sigchld(int sig)
{
	(void)sig;
}

/* One error line: "nanograph record: <what>". */
static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "nanograph record: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return NG_EXIT_FAIL;
}

static int push_arg(char ***v, int *n, char *arg)
{
	char **nv = realloc(*v, (*n + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	nv[(*n)++] = arg;
	*v = nv;
	return 0;
}

/* A value that is a name: present and not empty ("-F ''" is a mistake). */
static int need_value(const struct ng_cmd *self, const char *opt,
		      const char *arg)
{
	if (*arg)
		return -1;
	return ng_usage_error(self->name, "option '%s' needs a value", opt);
}

/* Parse the command line into @o; -1 to go on, else an exit code. */
static int parse(const struct ng_cmd *self, int argc, char **argv,
		 struct opts *o)
{
	enum { OPT_HOOK = 256, OPT_DURATION, OPT_BUFFER, OPT_RAW, OPT_EVENTS,
	       OPT_NO_CALIBRATE };
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "hook", required_argument, NULL, OPT_HOOK },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "buffer-kb", required_argument, NULL, OPT_BUFFER },
		{ "raw", no_argument, NULL, OPT_RAW },
		{ "events", no_argument, NULL, OPT_EVENTS },
		{ "no-calibrate", no_argument, NULL, OPT_NO_CALIBRATE },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v = 0;
	int c, ret;

	o->dir = DEFAULT_DIR;
	o->buffer_kb = DEFAULT_BUF_KB;
	/* The cheaper mode, lossless as well at the rates measured: performance.md. */
	o->raw = true;
	o->depth = -1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:hqaF:N:D:p:o:", longopts,
				NULL)) != -1) {
		ret = -1;
		switch (c) {
		case 'h':
			ng_cmd_help(self);
			return NG_EXIT_OK;
		case 'q':
			o->quiet = true;
			break;
		case 'a':
			o->all = true;
			break;
		case 'F':
			ret = need_value(self, "-F", optarg);
			if (ret < 0 && push_arg(&o->graph, &o->nr_graph, optarg))
				return fail("out of memory");
			break;
		case 'N':
			ret = need_value(self, "-N", optarg);
			if (ret < 0 && push_arg(&o->notrace, &o->nr_notrace, optarg))
				return fail("out of memory");
			break;
		case OPT_HOOK:
			ret = need_value(self, "--hook", optarg);
			if (ret < 0 && push_arg(&o->hook, &o->nr_hook, optarg))
				return fail("out of memory");
			break;
		case 'D':
			ret = ng_opt_num(self, "-D", optarg, 0, 0, 255,
					 "a depth (0: no limit)", &v);
			o->depth = v;
			break;
		case 'p':
			/* PID_MAX_LIMIT: no pid is larger on any kernel */
			ret = ng_opt_num(self, "-p", optarg, 0, 1, 4194304,
					 "a process id", &v);
			o->pid = v;
			break;
		case 'o':
			ret = need_value(self, "-o", optarg);
			o->dir = optarg;
			break;
		case OPT_DURATION:
			/* milliseconds; at most a year */
			ret = ng_opt_num(self, "--duration", optarg, 3, 1,
					 365ULL * 24 * 3600 * 1000, "seconds", &v);
			o->duration = v / 1000.0;
			break;
		case OPT_BUFFER:
			ret = ng_opt_num(self, "--buffer-kb", optarg, 0, 4,
					 1UL << 22, "KiB per CPU", &v);
			o->buffer_kb = v;
			break;
		case OPT_RAW:
		case OPT_EVENTS:
			/* the last one given wins */
			o->raw = c == OPT_RAW;
			break;
		case OPT_NO_CALIBRATE:
			o->no_calibrate = true;
			break;
		default:
			return ng_option_error(self, c, argv, longopts);
		}
		if (ret >= 0)
			return ret;
	}
	if (optind < argc)
		o->argv = argv + optind;
	if (o->all && o->pid)
		return ng_usage_error(self->name,
				      "give either -a or -p PID, not both");
	if (o->all && o->argv)
		return ng_usage_error(self->name,
				      "give either -a or a command, not both (-a --duration S records every task for S seconds)");
	if (o->argv && o->pid)
		return ng_usage_error(self->name,
				      "give either -p PID or a command, not both");
	if (!o->argv && !o->pid && !o->all)
		return ng_usage_error(self->name,
				      "what to record? give -a, -p PID or a command");
	return -1;
}

/* The conditions record needs, each with the line that says how to get it. */
static int preflight(struct run *r)
{
	const char *dir;
	char *val = NULL;
	uint64_t on;
	int ret;

	if (geteuid() != 0)
		return fail("must be run as root: the module's control files and tracefs are root-only (try: sudo nanograph record ...)");
	ret = ng_tracefs_find(&dir);
	if (ret)
		return fail("tracefs is not mounted: mount it with 'mount -t tracefs nodev /sys/kernel/tracing'");
	if (ng_ctl_init(&r->ctl, NULL) || !ng_ctl_available(&r->ctl))
		return fail("the nanograph module is not loaded (%s is missing): load it with 'insmod kmod/nanograph.ko' from the build tree",
			    ng_ctl_root(&r->ctl));
	ret = ng_ctl_read(&r->ctl, "tracing_on", &val, NULL);
	if (ret)
		return fail("cannot read %s/tracing_on: %s", ng_ctl_root(&r->ctl),
			    strerror(-ret));
	val[strcspn(val, "\n")] = '\0';
	if (ng_parse_num(val, 0, 0, 1, &on) || on) {
		free(val);
		return fail("the module is already recording (tracing_on is 1): another 'nanograph record' or a manual session; stop it with 'echo 0 > %s/tracing_on'",
			    ng_ctl_root(&r->ctl));
	}
	free(val);
	return -1;
}

/* Write one control file; on failure, say which and why. */
static int set(struct run *r, const char *file, const char *val)
{
	int ret = ng_ctl_write(&r->ctl, file, val);

	if (ret)
		fail("cannot write '%s' to %s/%s: %s", val, ng_ctl_root(&r->ctl),
		     file, strerror(-ret));
	return ret;
}

/* Write a list file from repeated options, one write per token. */
static int set_list(struct run *r, const char *file, const char *opt,
		    char **tokens, int n)
{
	char what[512];
	int i, ret;

	ret = set(r, file, "\n");
	for (i = 0; !ret && i < n; i++) {
		snprintf(what, sizeof(what), "%s %s", opt, tokens[i]);
		ret = ng_ctl_append(&r->ctl, file, tokens[i]);
		if (ret == -EINVAL)
			fail("%s: no traceable function matches it (see /sys/kernel/tracing/available_filter_functions)",
			     what);
		else if (ret)
			fail("cannot write '%s' to %s/%s: %s", tokens[i],
			     ng_ctl_root(&r->ctl), file, strerror(-ret));
	}
	return ret;
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
		return fail("no process %d: %s", pid, strerror(-ret));
	if (!file)
		return fail("cannot list record's own threads in /proc/self/task: %s",
			    strerror(-ret));
	return fail("cannot write %s/%s: %s", ng_ctl_root(&r->ctl), file,
		    strerror(-ret));
}

/* Point the pid filter at @pid's tasks, or (0) at all but the collector. */
static int select_tasks(struct run *r, int pid)
{
	const char *file = NULL;
	int ret = ng_ctl_select_tasks(&r->ctl, pid, &file);

	return tasks_failed(r, pid, ret, file);
}

/*
 * Fork the command, stopped on a pipe until recording has started; a
 * failed exec comes back as an errno on a close-on-exec pipe.
 */
static int spawn(struct run *r, char **argv)
{
	int go[2], err[2], e;
	char buf;

	if (pipe2(go, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
		return fail("pipe: %s", strerror(errno));
	r->child = fork();
	if (r->child < 0)
		return fail("fork: %s", strerror(errno));
	if (!r->child) {
		sigset_t none;

		close(go[1]);
		close(err[0]);
		if (read(go[0], &buf, 1) != 1)
			_exit(127);
		/* The command runs as it would have without record. */
		if (r->nofile_raised)
			setrlimit(RLIMIT_NOFILE, &r->user_nofile);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		execvp(argv[0], argv);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	r->go_fd = go[1];
	r->err_fd = err[0];
	return 0;
}

/* Let the child exec; report if it could not. */
static int release(struct run *r, char **argv)
{
	int e = 0;

	if (write(r->go_fd, "g", 1) != 1)
		return fail("cannot start %s: %s", argv[0], strerror(errno));
	close(r->go_fd);
	r->go_fd = -1;
	if (read(r->err_fd, &e, sizeof(e)) == sizeof(e)) {
		close(r->err_fd);
		r->err_fd = -1;
		return fail("cannot run %s: %s", argv[0], strerror(e));
	}
	close(r->err_fd);
	r->err_fd = -1;
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Entries and exits the module has counted so far, from stats. */
static uint64_t module_events(struct run *r, uint64_t *live_frames)
{
	struct ng_ctl_stats st;

	ng_ctl_stats(&r->ctl, &st);	/* all 0 if it cannot be read */
	if (live_frames)
		*live_frames = st.live_frames;
	return st.entries + st.exits;
}

/* A zombie has exited too: its parent just has not reaped it yet. */
static bool process_alive(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

/* Is the workload still there? */
static bool workload_alive(struct run *r, const struct opts *o)
{
	if (r->child > 0 && !r->child_done) {
		if (waitpid(r->child, &r->status, WNOHANG) == r->child)
			r->child_done = true;
		return !r->child_done;
	}
	if (o->pid)
		return process_alive(o->pid);
	return true;
}

/* Move the buffers' content to the spill files; say why if that fails. */
static int drain(struct run *r)
{
	int ret = ng_rec_drain(r->rec);

	if (ret == -ENOSPC || ret == -EDQUOT)
		return fail("writing %s: %s: free some space or choose another -o DIR; nothing was kept",
			    r->raw_dir, strerror(-ret));
	if (ret < 0)
		return fail("reading the trace buffers: %s", strerror(-ret));
	return 0;
}

/* Stream until the workload ends, a signal, or the duration. */
static int stream(struct run *r, const struct opts *o)
{
	bool tty = !o->quiet && isatty(STDERR_FILENO);
	double start = now_s(), last = start;
	uint64_t events_last = module_events(r, NULL);
	struct timespec poll = { 0, POLL_MS * 1000000L };

	for (;;) {
		if (drain(r))
			return NG_EXIT_FAIL;
		if (stop_signal || !workload_alive(r, o))
			break;
		if (o->duration && now_s() - start >= o->duration) {
			if (r->child > 0 && !r->child_done) {
				kill(r->child, SIGTERM);
				r->duration_stop = true;
			}
			break;
		}
		if (tty && now_s() - last >= 1.0) {
			uint64_t ev = module_events(r, NULL), lost = 0;

			ng_rec_lost(r->rec, &lost);
			fprintf(stderr, "\r  %.0f s  %" PRIu64 " events/s  %.1f MiB  %" PRIu64 " lost   ",
				now_s() - start,
				(uint64_t)((ev - events_last) / (now_s() - last)),
				ng_rec_bytes(r->rec) / 1048576.0, lost);
			events_last = ev;
			last = now_s();
		}
		nanosleep(&poll, NULL);
	}
	if (tty)
		fprintf(stderr, "\r%60s\r", "");
	return 0;
}

/*
 * tracing_on=0, then give the frames still live a moment to return
 * (their exits are still recorded), and take the rest of the buffers.
 */
static int stop_recording(struct run *r)
{
	struct timespec poll = { 0, POLL_MS * 1000000L };
	struct ng_ctl_stats st;
	uint64_t live = 0;
	int i, ret;

	ret = ng_ctl_write(&r->ctl, "tracing_on", "0");
	if (ret)
		return fail("cannot stop the module: %s/tracing_on: %s",
			    ng_ctl_root(&r->ctl), strerror(-ret));
	for (i = 0; i < 20 && !abort_signal; i++) {
		module_events(r, &live);
		if (!live)
			break;
		nanosleep(&poll, NULL);
	}
	if (!ng_ctl_stats(&r->ctl, &st) && st.skipped >= r->stats0.skipped) {
		r->skipped = st.skipped - r->stats0.skipped;
		r->skipped_known = r->stats0_read;
	}
	return drain(r);
}

/*
 * The tracer's cost per call, for --compensate: measured after the
 * recording (nothing delays its start), in the raw mode only (the trace
 * events' cost would need its own instance).  A failure costs only the
 * figure, said in one line.
 */
static void calibrate(struct run *r, const struct opts *o)
{
	int ret;

	if (!o->raw || o->no_calibrate || abort_signal)
		return;
	ret = ng_calibrate(&r->ctl, &r->clock, &r->overhead, r->overhead_fn,
			   sizeof(r->overhead_fn));
	r->calibrated = !ret;
	if (ret)
		fprintf(stderr, "nanograph record: warning: the tracer's cost per call could not be measured (%s): --compensate will need --overhead\n",
			ret == -EIO ? "calibration calls not recorded whole, or lost in noise" :
			strerror(-ret));
}

/*
 * Raise the open-files limit for record's own files (two per CPU, and
 * the push/pop files the converter keeps open), remembering the user's:
 * the command gets that one back (spawn()).
 */
static void raise_nofile(struct run *r)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	r->user_nofile = rl;
	r->nofile_raised = rl.rlim_cur < rl.rlim_max;
	if (r->nofile_raised) {
		rl.rlim_cur = rl.rlim_max;
		r->nofile_raised = !setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* Abandoned by a signal: say so; the exit status of the signal. */
static int interrupted(const struct opts *o)
{
	fprintf(stderr, "nanograph record: interrupted while writing the recording: nothing was kept, %s is as it was\n",
		o->dir);
	return 128 + abort_signal;
}

/* DIR/info.json: this run, the module's settings and what was missed. */
static int write_info(const struct run *r, const struct opts *o)
{
	struct ng_info info = {
		.source = "record",
		.argc = ng_argc,
		.argv = ng_argv,
		.command = o->argv,
		.pid = o->pid,
		.scope = o->all ? "system" : o->pid ? "process" : "command",
		.this_host = true,
		.start = &r->start_rt,
		.duration_ns = r->duration_ns,
		.mode = o->raw ? "raw" : "events",
		.counter = r->clock.name[0] ? r->clock.name : NULL,
		.settings = r->settings,
		.sum = &r->sum,
		.skipped = r->skipped_known ? r->skipped : NG_INFO_UNKNOWN,
		.overhead = r->calibrated ? &r->overhead : NULL,
	};

	while (o->argv && o->argv[info.command_argc])
		info.command_argc++;
	return ng_info_write(ng_outdir_path(r->out), &info);
}

/* Merge and convert into the new directory; the counts in r->sum. */
static int write_output(struct run *r, const struct opts *o)
{
	struct ng_cancel cancel = { cancelled, NULL };
	struct ng_conv_summary *sum = &r->sum;
	struct ng_conv *conv;
	uint64_t lost = 0;
	int ret;

	ng_rec_lost(r->rec, &lost);
	ret = ng_conv_new(&conv, ng_outdir_path(r->out), r->syms);
	if (ret)
		return fail("out of memory");
	ng_conv_set_clock(conv, &r->clock);
	ng_conv_set_thread_info(conv, ng_rec_thread_info, r->rec);
	ng_conv_set_cancel(conv, &cancel);
	ret = ng_rec_replay(r->rec, conv);
	if (ret == -ECANCELED) {
		ng_conv_abort(conv);
		return interrupted(o);
	}
	if (ret) {
		ng_conv_abort(conv);
		return fail("reading back the recorded events: %s", strerror(-ret));
	}
	ng_conv_lost(conv, -1, (long long)lost);
	ret = ng_conv_finish(conv, sum);
	if (!ret)
		ret = write_info(r, o);
	if (ret == -ECANCELED)
		return interrupted(o);
	if (ret == -ENOSPC || ret == -EDQUOT)
		return fail("writing %s: %s: free some space or choose another -o DIR; nothing was kept",
			    o->dir, strerror(-ret));
	if (ret)
		return fail("writing %s: %s; nothing was kept", o->dir,
			    strerror(-ret));
	return NG_EXIT_OK;
}

/* The summary, once the recording is in place. */
static void summary(const struct run *r, const struct opts *o, double secs)
{
	const struct ng_conv_summary *sum = &r->sum;

	if (o->quiet)
		return;
	fprintf(stderr,
		"nanograph: %" PRIu64 " threads, %" PRIu64 " events (%" PRIu64
		" calls), %" PRIu64 " lost, %" PRIu64 " skipped, %.2f s, %.1f KiB in %s/\n",
		sum->threads, sum->events, sum->pushes, sum->lost, r->skipped,
		secs, sum->bytes / 1024.0, o->dir);
	if (r->calibrated)
		fprintf(stderr,
			"nanograph: tracing cost %.0f ns per call, %.0f ns of it inside the call's own time (%" PRIu64
			" calls of %s)\n",
			r->overhead.per_call_ns, r->overhead.inside_ns,
			r->overhead.calls, r->overhead_fn);
	if (sum->lost)
		fprintf(stderr,
			"nanograph: warning: the buffer was full and %" PRIu64
			" events were lost; record again with a larger --buffer-kb (now %lu)\n",
			sum->lost, o->buffer_kb);
	if (sum->unresolved)
		fprintf(stderr,
			"nanograph: warning: %" PRIu64 " function address%s in no function the kernel lists now (a module unloaded during the recording?): written as hex\n",
			sum->unresolved, sum->unresolved == 1 ? " lies" : "es lie");
	ng_cmd_say_left_out(sum);
	if (sum->closed_at_end || sum->unmatched_exits || sum->repaired)
		fprintf(stderr,
			"nanograph: %" PRIu64 " calls still running at the end were closed there; %" PRIu64
			" returns from calls entered before the recording were left out; %" PRIu64
			" calls whose return was lost were closed at the next event\n",
			sum->closed_at_end, sum->unmatched_exits, sum->repaired);
	if (r->skipped)
		fprintf(stderr,
			"nanograph: the module skipped %" PRIu64
			" calls of the traced tasks, which are not in the files: deeper than %s64 frames of a shadow stack, or in a task without one (stats: skipped)\n",
			r->skipped, o->depth > 0 ? "-D or the " : "the ");
	if (r->child > 0 && r->child_done && WIFEXITED(r->status) &&
	    WEXITSTATUS(r->status))
		fprintf(stderr, "nanograph: %s exited with status %d\n",
			o->argv[0], WEXITSTATUS(r->status));
	else if (r->child > 0 && r->child_done && WIFSIGNALED(r->status) &&
		 !r->duration_stop)
		fprintf(stderr, "nanograph: %s was killed by signal %d (%s)\n",
			o->argv[0], WTERMSIG(r->status),
			strsignal(WTERMSIG(r->status)));
}

/*
 * record's exit status once the recording is in place, as time(1) and
 * strace(1) give theirs: the command's (its exit code, or 128 + the
 * signal that killed it); 0 when record itself ended the command at
 * --duration, and for -p. A command still running (it ignored the signal
 * passed on) gives 128 + the signal that stopped the recording.
 */
static int exit_status(const struct run *r)
{
	if (r->child <= 0 || r->duration_stop)
		return NG_EXIT_OK;
	if (!r->child_done)
		return stop_signal ? 128 + stop_signal : NG_EXIT_OK;
	if (WIFEXITED(r->status))
		return WEXITSTATUS(r->status);
	if (WIFSIGNALED(r->status))
		return 128 + WTERMSIG(r->status);
	return NG_EXIT_FAIL;
}

/* Configure the module from the options; the saved state is put back later. */
static int configure(struct run *r, const struct opts *o)
{
	char num[32];
	int ret;

	ret = ng_ctl_save(&r->ctl, ng_ctl_record_files, &r->saved);
	if (ret)
		return fail("cannot read the module's settings in %s: %s",
			    ng_ctl_root(&r->ctl), strerror(-ret));
	if (set_list(r, "set_ftrace_filter", "--hook", o->hook, o->nr_hook) ||
	    set_list(r, "set_graph_function", "-F", o->graph, o->nr_graph) ||
	    set_list(r, "set_graph_notrace", "-N", o->notrace, o->nr_notrace))
		return NG_EXIT_FAIL;
	snprintf(num, sizeof(num), "%ld", o->depth < 0 ? 0 : o->depth);
	if (set(r, "max_graph_depth", num))
		return NG_EXIT_FAIL;
	/* The raw buffers are sized and allocated here, before recording. */
	snprintf(num, sizeof(num), "%lu", o->buffer_kb);
	if ((o->raw && set(r, "raw_buffer_size_kb", num)) ||
	    set(r, "buffer_mode", o->raw ? "raw" : "events"))
		return NG_EXIT_FAIL;
	if (o->argv && spawn(r, o->argv))
		return NG_EXIT_FAIL;
	/* A started command waits on a pipe until every function is hooked. */
	if (o->argv)
		return select_tasks(r, r->child) ? NG_EXIT_FAIL : -1;
	/*
	 * -a and -p: no task until every function is hooked (see admit()).
	 * The collector is in set_event_notrace_pid, which wins: a
	 * set_event_pid of its own pid admits nobody.  -p follows the
	 * process's children (event-fork) once admitted.
	 */
	if (o->pid) {
		snprintf(num, sizeof(num), "/proc/%d/task", o->pid);
		if (access(num, F_OK))
			return fail("no process %d: %s", o->pid, strerror(errno));
	}
	if (select_tasks(r, 0))
		return NG_EXIT_FAIL;
	snprintf(num, sizeof(num), "%d", (int)getpid());
	if (set(r, "set_event_pid", num) ||
	    (o->pid && set(r, "options/event-fork", "1")))
		return NG_EXIT_FAIL;
	return -1;
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
static int admit(struct run *r, const struct opts *o)
{
	const char *file = NULL;
	int ret;

	if (o->all)
		return set(r, "set_event_pid", "\n");
	if (!o->pid)
		return 0;
	ret = ng_ctl_admit_process(&r->ctl, o->pid, &file);
	return tasks_failed(r, o->pid, ret, file);
}

/* Put back everything changed, whatever happened. */
static void cleanup(struct run *r)
{
	if (r->go_fd >= 0) {		/* the child never got to exec */
		close(r->go_fd);
		if (r->child > 0)
			waitpid(r->child, NULL, 0);
	}
	if (r->err_fd >= 0)
		close(r->err_fd);
	if (r->saved) {
		int i;

		ng_ctl_write(&r->ctl, "tracing_on", "0");
		/*
		 * The buffer mode changes back only once the module has let
		 * go of the last hooked frame (EBUSY until then).
		 */
		for (i = 0; i < 100 && ng_ctl_restore(&r->ctl, r->saved) == -EBUSY; i++)
			usleep(50000);
		ng_ctl_saved_free(r->saved);
	}
	ng_rec_close(r->rec);
	if (r->raw_dir[0])
		rmdir(r->raw_dir);
	ng_syms_free(r->syms);
	ng_info_settings_free(r->settings);
}

int cmd_record(const struct ng_cmd *self, int argc, char **argv)
{
	struct ng_rec_opts ro = { 0 };
	struct opts o = { 0 };
	struct run r = { .go_fd = -1, .err_fd = -1 };
	struct sigaction sa = { 0 };
	char *clock = NULL;
	double start, secs = 0;
	int ret;

	ret = parse(self, argc, argv, &o);
	if (ret >= 0)
		goto out_opts;
	ret = preflight(&r);
	if (ret >= 0)
		goto out_opts;
	/* From here on, every way out puts back what was changed. */
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_sigchld;
	sigaction(SIGCHLD, &sa, NULL);
	/* A closed stderr must not kill record before it puts things back. */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	/* A new directory next to DIR, swapped in once the recording is whole. */
	ret = ng_cmd_open_outdir(self, o.dir, &r.out);
	if (ret)
		goto out_opts;
	raise_nofile(&r);
	if (ng_ctl_read(&r.ctl, "clock", &clock, NULL) ||
	    ng_clock_parse(clock, &r.clock)) {
		free(clock);
		ret = fail("cannot read the counter's frequency from %s/clock",
			   ng_ctl_root(&r.ctl));
		goto out;
	}
	free(clock);

	ret = configure(&r, &o);
	if (ret >= 0)
		goto out;
	snprintf(r.raw_dir, sizeof(r.raw_dir), "%s/.raw", ng_outdir_path(r.out));
	if (mkdir(r.raw_dir, 0700)) {
		ret = fail("cannot create %s: %s", r.raw_dir, strerror(errno));
		r.raw_dir[0] = '\0';
		goto out;
	}
	ro.buffer_kb = o.buffer_kb;
	ro.raw_dir = r.raw_dir;
	ro.raw = o.raw;
	ro.ctl_root = ng_ctl_root(&r.ctl);
	ret = ng_rec_open(&r.rec, &ro);
	if (ret) {
		ret = o.raw ? fail("cannot open the raw buffers in %s/per_cpu: %s",
				   ng_ctl_root(&r.ctl), strerror(-ret)) :
			fail("cannot set up the tracefs instance 'nanograph': %s",
			     strerror(-ret));
		goto out;
	}
	/* all 0 if it cannot be read; info.json then says null */
	r.stats0_read = !ng_ctl_stats(&r.ctl, &r.stats0);
	ret = set(&r, "tracing_on", "1");
	if (!ret)
		ret = admit(&r, &o);
	if (ret) {
		ret = NG_EXIT_FAIL;
		goto out;
	}
	/* What is in effect, for info.json; unknown (null) if unreadable. */
	if (ng_info_read_settings(&r.ctl, &r.settings))
		r.settings = NULL;
	start = now_s();
	clock_gettime(CLOCK_REALTIME, &r.start_rt);
	if (o.argv && release(&r, o.argv)) {
		ret = NG_EXIT_FAIL;
		goto out;
	}
	if (stream(&r, &o)) {
		ret = NG_EXIT_FAIL;
		goto out;
	}
	if (stop_recording(&r)) {
		ret = NG_EXIT_FAIL;
		goto out;
	}
	/* SIGTERM and SIGHUP are passed on; Ctrl-C reaches it from the tty. */
	if ((stop_signal == SIGTERM || stop_signal == SIGHUP) &&
	    r.child > 0 && !r.child_done)
		kill(r.child, stop_signal);
	secs = now_s() - start;
	r.duration_ns = (uint64_t)(secs * 1e9 + 0.5);
	calibrate(&r, &o);
	converting = 1;
	if (abort_signal) {
		ret = interrupted(&o);
		goto out;
	}
	/* Symbols after the run: reading kallsyms takes a while; not at the start. */
	ret = ng_syms_load(&r.syms, NULL);
	if (ret && !o.quiet)
		fprintf(stderr, "nanograph record: warning: cannot read /proc/kallsyms (%s): functions are written as addresses\n",
			strerror(-ret));
	/* Each module's end: code past it is no module's (one unloaded since). */
	if (!ret)
		ng_syms_load_modules(r.syms, NULL);
	ret = write_output(&r, &o);
out:
	cleanup(&r);
	if (!ret) {
		ret = ng_outdir_commit(r.out);
		if (ret) {
			ret = fail("cannot put the recording in place as %s: %s; nothing was kept",
				   o.dir, strerror(-ret));
		} else {
			/* a command that ended while the files were written */
			if (r.child > 0 && !r.child_done &&
			    waitpid(r.child, &r.status, WNOHANG) == r.child)
				r.child_done = true;
			summary(&r, &o, secs);
			ret = exit_status(&r);
		}
	} else if (r.out) {
		ng_outdir_abort(r.out);
	}
out_opts:
	free(o.graph);
	free(o.notrace);
	free(o.hook);
	return ret;
}
