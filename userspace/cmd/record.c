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
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
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
"  --when-comm GLOB  record the threads whose name (comm) matches GLOB, while\n"
"                  it does: a thread starts and stops its own recording by\n"
"                  renaming itself, prctl(PR_SET_NAME) (set_event_comm;\n"
"                  may repeat)\n"
"  --trace-self    record the threads that ask: a thread writes 1 to\n"
"                  /sys/kernel/nanograph/trace_self to start, 0 to stop\n"
"  -o DIR          output directory (default: nanograph.data)\n"
"  --duration S    stop after S seconds (a started command gets SIGTERM)\n"
"  --buffer-kb N   buffer per CPU in KiB (default: 8192)\n"
"  --raw           the module's raw per-CPU buffers (the default): the\n"
"                  cheapest per call\n"
"  --events        nanograph's trace events in a tracefs instance instead,\n"
"                  readable alongside by trace-cmd; the same output\n"
"  --no-calibrate  do not measure the tracer's cost per call after the\n"
"                  recording (info.json's overhead, for --compensate)\n"
"  --sched         also record when the traced threads leave a CPU, get it\n"
"                  back and who wakes them, while inside hooked calls\n"
"                  (options/sched), into DIR/sched.tsv\n"
"  --counters      also record each call's page faults and context switches\n"
"                  when any (options/counters), into DIR/counters.tsv\n"
"  --retval        also record each call's return register (options/retval),\n"
"                  into DIR/retval.tsv\n"
"  --args[=FUNC,...]\n"
"                  also record each call's argument registers (options/args:\n"
"                  six, four on arm), into DIR/args.tsv; with FUNCs (globs)\n"
"                  only the calls of those functions (set_args_filter)\n"
"  --retaddr       also record where each call returns to (options/retaddr),\n"
"                  into DIR/args.tsv\n"
"  -q, --quiet     no progress line and no summary\n"
"\n"
"Flight recording (keep the last records in memory, write them only when\n"
"a call is too slow):\n"
"  --flight        record into the raw buffers, overwriting the oldest\n"
"                  records, until a trigger fires; then write the buffers'\n"
"                  window as DIR/flight-<ns>/, a recording of its own\n"
"  --trigger FUNC>DURATION\n"
"                  fire when a call of FUNC lasts DURATION or more (unit\n"
"                  ns, us, ms or s; up to 8 triggers); FUNC:oncpu>D when\n"
"                  it was on a CPU D or more, FUNC:blocked>D asleep; or with\n"
"                  FUNC=OPVALUE when its return value compares so (OP\n"
"                  one of < <= > >= = !=, VALUE a number or -ENAME:\n"
"                  'vfs_read=<0'); FUNC is added to --hook and -F when\n"
"                  they are given and do not match it\n"
"  --window S      keep only the last S seconds before the trigger's\n"
"                  return (always the whole triggering call)\n"
"  --size MB       raw buffers of MB MiB in all (default: --buffer-kb\n"
"                  per CPU)\n"
"  --tail S        go on recording S seconds after the hit (default 0.1)\n"
"  --count N       stop after N snapshots (default 1); a command is then\n"
"                  waited for, untraced\n"
"\n"
"A command is started and recorded with its threads and children until it\n"
"exits; with -p, the process, its threads and the children it forks from\n"
"then on, until it exits; with -a, every task of the system (those started\n"
"meanwhile too) but record's own threads, until --duration or a signal.\n"
"Give one of the three. --when-comm and --trace-self let the threads of the\n"
"whole system decide, with a command (then only the workload) or with\n"
"--duration. Ctrl-C, SIGTERM, SIGHUP (the last two passed on\n"
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
"recording leaves DIR as it was. With --flight, DIR holds one directory\n"
"a snapshot, flight-<the trigger's return, CLOCK_MONOTONIC ns>, and is\n"
"created at the first one: nothing is written before a trigger fires.\n"
"Needs root, tracefs and the module loaded.";

#define DEFAULT_DIR	"nanograph.data"
#define DEFAULT_BUF_KB	8192
#define POLL_MS		50
#define FLIGHT_POLL_MS	100	/* how soon an armed wait notices an exit */
#define DEFAULT_TAIL_MS	100
#define MAX_RAW_KB	1048576	/* the module's raw_buffer_size_kb limit */

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
	bool sched;		/* --sched: options/sched, sched.tsv */
	bool counters;		/* --counters: options/counters, counters.tsv */
	bool retval;		/* --retval: options/retval, retval.tsv */
	bool args;		/* --args: options/args, args.tsv */
	char **args_globs;	/* --args=FUNC,...: set_args_filter */
	int nr_args_globs;
	bool retaddr;		/* --retaddr: options/retaddr, args.tsv */
	bool buffer_given;	/* --buffer-kb */
	char **argv;		/* the command, or NULL */
	/* who decides who is recorded: threads by their names, or by asking */
	char **when_comm;	/* --when-comm globs */
	int nr_when_comm;
	bool trace_self;	/* --trace-self */
	/* --flight and its options */
	bool flight;
	bool flight_opts;	/* one of the options below was given */
	struct ng_trigger triggers[NG_TRIGGER_MAX];
	int nr_triggers;
	uint64_t window_ns;	/* 0: the whole buffer */
	uint64_t size_mb;	/* 0: --buffer-kb per CPU */
	uint64_t tail_ns;
	uint64_t count;		/* snapshots to take */
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
	const struct ng_cmd *self;
	const char *out_name;		/* the directory being written, for messages */
	double start_s;			/* CLOCK_MONOTONIC at tracing_on=1 */
	/* --flight */
	struct ng_ctl_saved *flight_saved;	/* the trigger file as found */
	/* options/sched and options/counters as found (--sched, --counters) */
	struct ng_ctl_saved *option_saved;
	int flight_fd;			/* the flight file, for poll(2) */
	struct ng_ctl_stats stats_arm;	/* the module's counts at the last arm */
	struct ng_flight_hit hit;	/* the snapshot's triggering call */
	struct ng_info_trigger trigger;	/* the same for info.json */
	uint64_t window_from;		/* ns: the snapshot's window */
	uint64_t snap_lost;		/* records dropped since the arm */
	uint64_t overwritten;		/* records overwritten since the arm */
	char snap_dir[4096];		/* DIR/flight-<ns> */
	uint64_t snapshots;		/* taken */
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

/* One --trigger, checked as the module checks it, before anything changes. */
static int add_trigger(const struct ng_cmd *self, const char *arg,
		       struct opts *o)
{
	const char *sep;
	int ret;

	if (o->nr_triggers == NG_TRIGGER_MAX)
		return ng_usage_error(self->name, "at most %d --trigger (the module's limit)",
				      NG_TRIGGER_MAX);
	ret = ng_trigger_parse(arg, &o->triggers[o->nr_triggers]);
	sep = strpbrk(arg, ">=");
	if (ret == -ERANGE)
		return ng_usage_error(self->name, "--trigger '%s': %s", arg,
				      *sep == '>' ? "the duration must be from 1 ns to 3600 s" :
				      "the value must fit a C int");
	if (ret)
		return ng_usage_error(self->name, "--trigger '%s': not FUNC>DURATION or FUNC=OPVALUE (a function name without blanks, colons or glob characters, perhaps :oncpu or :blocked, then '>' and a whole number with an optional unit ns, us, ms or s, or '=', one of < <= > >= = != and a number or -ENAME: 'vfs_read>10ms', 'vfs_read:blocked>200ms', 'vfs_read=<0', 'kmalloc==-ENOMEM')",
				      arg);
	o->nr_triggers++;
	return -1;
}

/*
 * The options of --flight, @which counted from --trigger in the order
 * of their enum: -1 to go on, else an exit code.
 */
static int parse_flight(const struct ng_cmd *self, int which,
			const char *arg, struct opts *o)
{
	uint64_t v = 0;
	int ret;

	switch (which) {
	case 0:
		return add_trigger(self, arg, o);
	case 1:
		/* milliseconds, up to the longest trigger's duration */
		ret = ng_opt_num(self, "--window", arg, 3, 1, 3600 * 1000,
				 "seconds", &v);
		o->window_ns = v * 1000000;
		return ret;
	case 2:
		ret = ng_opt_num(self, "--size", arg, 0, 1, 1ULL << 30, "MiB",
				 &v);
		o->size_mb = v;
		return ret;
	case 3:
		ret = ng_opt_num(self, "--tail", arg, 3, 0, 60 * 1000,
				 "seconds", &v);
		o->tail_ns = v * 1000000;
		return ret;
	default:
		ret = ng_opt_num(self, "--count", arg, 0, 1, 1000000,
				 "a number of snapshots", &v);
		o->count = v;
		return ret;
	}
}

/*
 * A trigger's function must be hooked and recorded: given --hook (or
 * -F), a FUNC no glob of it matches is added to it, and said.
 */
static int add_trigger_funcs(struct opts *o, char ***list, int *n,
			     const char *opt)
{
	int i, j, nr = *n;

	if (!nr)
		return 0;	/* every function hooked, every call recorded */
	for (i = 0; i < o->nr_triggers; i++) {
		const char *func = o->triggers[i].func;

		for (j = 0; j < nr && fnmatch((*list)[j], func, 0); j++)
			;
		if (j < nr)
			continue;
		if (push_arg(list, n, o->triggers[i].func))
			return fail("out of memory");
		if (!o->quiet)
			fprintf(stderr, "nanograph record: %s %s added: --trigger's function must be %s\n",
				opt, func, !strcmp(opt, "--hook") ? "hooked" :
				"recorded (a root of its own)");
	}
	return 0;
}

/* --flight's options together, and the buffer size; -1 to go on. */
static int check_flight(const struct ng_cmd *self, struct opts *o)
{
	if (!o->flight)
		return o->flight_opts ?
			ng_usage_error(self->name, "--trigger, --window, --size, --tail and --count go with --flight") :
			-1;
	if (!o->nr_triggers)
		return ng_usage_error(self->name, "--flight needs at least one --trigger 'FUNC>DURATION'");
	if (o->window_ns && o->size_mb)
		return ng_usage_error(self->name, "give either --window or --size, not both");
	if (o->size_mb && o->buffer_given)
		return ng_usage_error(self->name, "give either --size (MiB in all) or --buffer-kb (KiB per CPU), not both");
	if (!o->raw)
		return ng_usage_error(self->name, "--flight records in the raw buffers: not with --events");
	if (o->size_mb)
		o->buffer_kb = ng_flight_buffer_kb(o->size_mb,
						   sysconf(_SC_NPROCESSORS_CONF));
	if (o->size_mb && o->buffer_kb > MAX_RAW_KB)
		return ng_usage_error(self->name, "--size %" PRIu64 " is %lu KiB per CPU, above the module's %d",
				      o->size_mb, o->buffer_kb, MAX_RAW_KB);
	if (add_trigger_funcs(o, &o->hook, &o->nr_hook, "--hook") ||
	    add_trigger_funcs(o, &o->graph, &o->nr_graph, "-F"))
		return NG_EXIT_FAIL;
	return -1;
}

/*
 * --when-comm, --trace-self: the threads decide whether they are
 * recorded, by their names (set_event_comm) or by writing trace_self;
 * anywhere in the system, the command (if any) being the workload.
 */
static bool by_program(const struct opts *o)
{
	return o->nr_when_comm || o->trace_self;
}

/*
 * --args=FUNC,...: the globs, each a token of set_args_filter, cut in
 * place (@list is an argv string); an empty one is a usage error.
 */
static int split_globs(const struct ng_cmd *self, char *list, char ***globs,
		       int *n)
{
	char *p = list, *comma;

	do {
		comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		if (!*p) {
			ng_usage_error(self->name, "--args wants FUNC[,FUNC...] (no empty one)");
			return -1;
		}
		if (push_arg(globs, n, p)) {
			fail("out of memory");
			return -1;
		}
		p = comma + 1;
	} while (comma);
	return 0;
}

/* Parse the command line into @o; -1 to go on, else an exit code. */
static int parse(const struct ng_cmd *self, int argc, char **argv,
		 struct opts *o)
{
	enum { OPT_HOOK = 256, OPT_DURATION, OPT_BUFFER, OPT_RAW, OPT_EVENTS,
	       OPT_NO_CALIBRATE, OPT_FLIGHT, OPT_TRIGGER, OPT_WINDOW, OPT_SIZE,
	       OPT_TAIL, OPT_COUNT, OPT_WHEN_COMM, OPT_TRACE_SELF, OPT_SCHED,
	       OPT_COUNTERS, OPT_RETVAL, OPT_ARGS, OPT_RETADDR };
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "hook", required_argument, NULL, OPT_HOOK },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "buffer-kb", required_argument, NULL, OPT_BUFFER },
		{ "raw", no_argument, NULL, OPT_RAW },
		{ "events", no_argument, NULL, OPT_EVENTS },
		{ "no-calibrate", no_argument, NULL, OPT_NO_CALIBRATE },
		{ "sched", no_argument, NULL, OPT_SCHED },
		{ "counters", no_argument, NULL, OPT_COUNTERS },
		{ "retval", no_argument, NULL, OPT_RETVAL },
		{ "args", optional_argument, NULL, OPT_ARGS },
		{ "retaddr", no_argument, NULL, OPT_RETADDR },
		{ "flight", no_argument, NULL, OPT_FLIGHT },
		{ "trigger", required_argument, NULL, OPT_TRIGGER },
		{ "window", required_argument, NULL, OPT_WINDOW },
		{ "size", required_argument, NULL, OPT_SIZE },
		{ "tail", required_argument, NULL, OPT_TAIL },
		{ "count", required_argument, NULL, OPT_COUNT },
		{ "when-comm", required_argument, NULL, OPT_WHEN_COMM },
		{ "trace-self", no_argument, NULL, OPT_TRACE_SELF },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v = 0;
	int c, ret;

	o->dir = DEFAULT_DIR;
	o->buffer_kb = DEFAULT_BUF_KB;
	/* The cheaper mode, lossless as well at the rates measured: performance.md. */
	o->raw = true;
	o->depth = -1;
	o->tail_ns = DEFAULT_TAIL_MS * 1000000ULL;
	o->count = 1;
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
			o->buffer_given = true;
			break;
		case OPT_RAW:
		case OPT_EVENTS:
			/* the last one given wins */
			o->raw = c == OPT_RAW;
			break;
		case OPT_NO_CALIBRATE:
			o->no_calibrate = true;
			break;
		case OPT_SCHED:
			o->sched = true;
			break;
		case OPT_COUNTERS:
			o->counters = true;
			break;
		case OPT_RETVAL:
			o->retval = true;
			break;
		case OPT_ARGS:
			o->args = true;
			if (optarg && split_globs(self, optarg, &o->args_globs,
						  &o->nr_args_globs))
				return NG_EXIT_USAGE;
			break;
		case OPT_RETADDR:
			o->retaddr = true;
			break;
		case OPT_FLIGHT:
			o->flight = true;
			break;
		case OPT_WHEN_COMM:
			ret = need_value(self, "--when-comm", optarg);
			if (ret < 0 && push_arg(&o->when_comm, &o->nr_when_comm, optarg))
				return fail("out of memory");
			break;
		case OPT_TRACE_SELF:
			o->trace_self = true;
			break;
		case OPT_TRIGGER:
		case OPT_WINDOW:
		case OPT_SIZE:
		case OPT_TAIL:
		case OPT_COUNT:
			o->flight_opts = true;
			ret = parse_flight(self, c - OPT_TRIGGER, optarg, o);
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
	if (!o->argv && !o->pid && !o->all && !by_program(o))
		return ng_usage_error(self->name,
				      "what to record? give -a, -p PID or a command");
	if (by_program(o) && (o->all || o->pid))
		return ng_usage_error(self->name,
				      "--when-comm and --trace-self choose the threads themselves: not with -a or -p");
	if (by_program(o) && !o->argv && !o->duration)
		return ng_usage_error(self->name,
				      "--when-comm and --trace-self record until a command ends or --duration S");
	return check_flight(self, o);
}

/*
 * --flight's conditions: a module with the flight recorder, not in use,
 * and a DIR that can hold snapshot directories (created at the first).
 */
static int flight_preflight(struct run *r, const struct opts *o)
{
	struct ng_flight_state st;
	struct stat sb;
	char *val = NULL;
	int ret;

	ret = ng_ctl_read(&r->ctl, "flight", &val, NULL);
	if (ret == -ENOENT)
		return fail("this nanograph module has no flight recorder (%s/flight is missing): load one built from a newer tree",
			    ng_ctl_root(&r->ctl));
	if (ret)
		return fail("cannot read %s/flight: %s", ng_ctl_root(&r->ctl),
			    strerror(-ret));
	ret = ng_flight_parse(val, &st);
	if (ret || st.state != NG_FLIGHT_OFF) {
		val[strcspn(val, "\n")] = '\0';
		ret = fail("the flight recorder is in use (flight reads '%s'): another session; stop it with 'echo off > %s/flight'",
			   val, ng_ctl_root(&r->ctl));
		free(val);
		return ret;
	}
	free(val);
	if (!stat(o->dir, &sb) && !S_ISDIR(sb.st_mode))
		return fail("%s is not a directory: --flight writes its snapshots into a directory (-o DIR)",
			    o->dir);
	return -1;
}

/*
 * The module and this collector must speak the same interface (NG_ABI):
 * built from different trees they would misread each other in odd ways.
 * -1 when they do, else the exit status of one clear line.
 */
static int abi_check(const struct ng_ctl *ctl)
{
	unsigned int abi = 0;
	int ret = ng_ctl_check_abi(ctl, &abi);

	if (!ret)
		return -1;
	if (ret == -EPROTO)
		return fail("the nanograph module speaks interface %u, this collector %d: build both from the same tree (make)",
			    abi, NG_ABI);
	if (ret == -ENOENT)
		return fail("the nanograph module has no %s/abi: it is older than this collector; build both from the same tree (make)",
			    ng_ctl_root(ctl));
	return fail("cannot read %s/abi: %s", ng_ctl_root(ctl), strerror(-ret));
}

/* The conditions record needs, each with the line that says how to get it. */
static int preflight(struct run *r, const struct opts *o)
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
	ret = abi_check(&r->ctl);
	if (ret >= 0)
		return ret;
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
	return o->flight ? flight_preflight(r, o) : -1;
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
	char what[512];
	int i, ret;

	ret = n ? 0 : set(r, file, "\n");
	for (i = 0; !ret && i < n; i++) {
		snprintf(what, sizeof(what), "%s %s", opt, tokens[i]);
		ret = i ? ng_ctl_append(&r->ctl, file, tokens[i]) :
			  ng_ctl_write(&r->ctl, file, tokens[i]);
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

/*
 * Wait (up to 2 s) until the child sleeps, in its read of the go pipe:
 * its only wait before exec.  Admitted before that, with the hook already
 * running for another user (a trace array whose current tracer is
 * nanograph), the calls of that read would be recorded, and the first
 * of them lost, written before the recorder's buffers were open.
 */
static void child_asleep(pid_t pid)
{
	char path[64], stat[512], *p;
	ssize_t n;
	int i, fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (i = 0; i < 2000; i++) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return;
		n = read(fd, stat, sizeof(stat) - 1);
		close(fd);
		if (n <= 0)
			return;
		stat[n] = '\0';
		/* "pid (comm) S ...": the comm may hold anything, ')' too. */
		p = strrchr(stat, ')');
		if (p && p[1] == ' ' && p[2] == 'S')
			return;
		usleep(1000);
	}
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
	/* A command that ended stays ended (flight asks again after a hit). */
	if (r->child > 0) {
		if (!r->child_done &&
		    waitpid(r->child, &r->status, WNOHANG) == r->child)
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

/* --duration is over: a started command gets SIGTERM. */
static bool duration_over(struct run *r, const struct opts *o, double start)
{
	if (!o->duration || now_s() - start < o->duration)
		return false;
	if (r->child > 0 && !r->child_done) {
		kill(r->child, SIGTERM);
		r->duration_stop = true;
	}
	return true;
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
		if (stop_signal || !workload_alive(r, o) ||
		    duration_over(r, o, start))
			break;
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
static int interrupted(const char *dir)
{
	fprintf(stderr, "nanograph record: interrupted while writing the recording: nothing was kept, %s is as it was\n",
		dir);
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
		.mode = o->flight ? "flight" : o->raw ? "raw" : "events",
		.trigger = o->flight ? &r->trigger : NULL,
		.overwritten = r->overwritten,
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

/*
 * DIR/protos.tsv: the types of the functions whose arguments or return
 * values were recorded, from the running kernel's BTF.  A kernel
 * without BTF is no error: replay prints the registers untyped, and
 * this says so once.
 */
static int write_protos(const struct run *r, const struct opts *o)
{
	struct ng_protos_stats st;
	int ret;

	if (!r->sum.args && !r->sum.retvals)
		return 0;
	ret = ng_protos_write(ng_outdir_path(r->out), NULL, &st);
	if (ret == -ENOENT) {
		if (!o->quiet)
			fprintf(stderr, "nanograph record: this kernel has no BTF (/sys/kernel/btf/vmlinux): arguments and return values stay untyped registers\n");
		return 0;
	}
	if (!ret && st.untyped && !o->quiet)
		fprintf(stderr, "nanograph record: %zu of %zu functions are not in the kernel's BTF: their values stay untyped\n",
			st.untyped, st.untyped + st.typed);
	return ret;
}

/* Merge and convert into the new directory; the counts in r->sum. */
static int write_output(struct run *r, const struct opts *o)
{
	struct ng_cancel cancel = { cancelled, NULL };
	struct ng_conv_summary *sum = &r->sum;
	struct ng_conv *conv;
	uint64_t lost = r->snap_lost;
	int ret;

	/* a flight snapshot's: since its arm (flight_snapshot()) */
	if (!o->flight)
		ng_rec_lost(r->rec, &lost);
	ret = ng_conv_new(&conv, ng_outdir_path(r->out), r->syms);
	if (ret)
		return fail("out of memory");
	ng_conv_set_clock(conv, &r->clock);
	ng_conv_set_window(conv, r->window_from);
	ng_conv_set_thread_info(conv, ng_rec_thread_info, r->rec);
	ng_conv_set_cancel(conv, &cancel);
	ret = ng_rec_replay(r->rec, conv);
	if (ret == -ECANCELED) {
		ng_conv_abort(conv);
		return interrupted(r->out_name);
	}
	if (ret) {
		ng_conv_abort(conv);
		return fail("reading back the recorded events: %s", strerror(-ret));
	}
	ng_conv_lost(conv, -1, (long long)lost);
	ret = ng_conv_finish(conv, sum);
	if (!ret)
		ret = write_protos(r, o);
	if (!ret)
		ret = write_info(r, o);
	if (ret == -ECANCELED)
		return interrupted(r->out_name);
	if (ret == -ENOSPC || ret == -EDQUOT)
		return fail("writing %s: %s: free some space or choose another -o DIR; nothing was kept",
			    r->out_name, strerror(-ret));
	if (ret)
		return fail("writing %s: %s; nothing was kept", r->out_name,
			    strerror(-ret));
	return NG_EXIT_OK;
}

static void say_command_end(const struct run *r, const struct opts *o);

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
	say_command_end(r, o);
}

/* How the command ended, when not as expected. */
static void say_command_end(const struct run *r, const struct opts *o)
{
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

/* The trigger file: saved to be put back, then one line a --trigger. */
static int set_triggers(struct run *r, const struct opts *o)
{
	static const char *const files[] = { "trigger", NULL };
	char text[NG_TRIGGER_MAX * (NG_TRIGGER_FUNC_MAX + 24)];
	size_t len = 0;
	int i, ret;

	ret = ng_ctl_save(&r->ctl, files, &r->flight_saved);
	if (ret)
		return fail("cannot read %s/trigger: %s", ng_ctl_root(&r->ctl),
			    strerror(-ret));
	for (i = 0; i < o->nr_triggers; i++) {
		len += ng_trigger_format(&o->triggers[i], text + len,
					 sizeof(text) - len);
		len += snprintf(text + len, sizeof(text) - len, "\n");
	}
	return set(r, "trigger", text);
}

/*
 * --sched, --counters, --retval, --args, --retaddr: their option files
 * on, as they are put back at the end; a module without one (older than
 * the collector) says so.  options/args takes the most registers the
 * architecture has: six, else (32-bit arm, EINVAL) four.
 */
static int set_options(struct run *r, const struct opts *o)
{
	const char *files[7];
	int n = 0, i, ret;

	if (o->sched)
		files[n++] = "options/sched";
	if (o->counters)
		files[n++] = "options/counters";
	if (o->retval)
		files[n++] = "options/retval";
	if (o->retaddr)
		files[n++] = "options/retaddr";
	if (o->args) {
		files[n++] = "options/args";
		files[n++] = "set_args_filter";
	}
	files[n] = NULL;
	if (!n)
		return 0;
	ret = ng_ctl_save(&r->ctl, files, &r->option_saved);
	if (ret == -ENOENT)
		return fail("this nanograph module lacks %s: load one built from this tree",
			    n == 1 ? files[0] : "one of the option files asked for");
	if (ret)
		return fail("cannot read %s's options: %s", ng_ctl_root(&r->ctl),
			    strerror(-ret));
	for (i = 0; i < n; i++) {
		if (!strcmp(files[i], "set_args_filter")) {
			if (set_list(r, files[i], "--args", o->args_globs,
				     o->nr_args_globs))
				return NG_EXIT_FAIL;
			continue;
		}
		if (!strcmp(files[i], "options/args")) {
			/* Six registers; four where there are four (EINVAL). */
			ret = ng_ctl_write(&r->ctl, files[i], "6");
			if (ret == -EINVAL)
				ret = set(r, files[i], "4");
			else if (ret)
				ret = set(r, files[i], "6");
		} else {
			ret = set(r, files[i], "1");
		}
		if (ret)
			return NG_EXIT_FAIL;
	}
	return 0;
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
	    set(r, "buffer_mode", o->raw ? "raw" : "events") ||
	    set_options(r, o) ||
	    (o->flight && set_triggers(r, o)))
		return NG_EXIT_FAIL;
	if (o->argv && spawn(r, o->argv))
		return NG_EXIT_FAIL;
	/*
	 * A started command waits on a pipe until every function is hooked;
	 * it is admitted once it sleeps there.
	 */
	if (o->argv && !by_program(o)) {
		child_asleep(r->child);
		return select_tasks(r, r->child) ? NG_EXIT_FAIL : -1;
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
	ret = ng_ctl_admit_process(&r->ctl, o->pid, &file);
	return tasks_failed(r, o->pid, ret, file);
}

/*
 * Stop recording and put the module's settings back; once.  The flight
 * recorder goes off first: the buffer mode cannot change while it is on.
 */
static void restore_module(struct run *r)
{
	int i;

	if (!r->saved)
		return;
	ng_ctl_write(&r->ctl, "tracing_on", "0");
	if (r->flight_saved) {
		ng_ctl_write(&r->ctl, "flight", "off");
		ng_ctl_restore(&r->ctl, r->flight_saved);
		ng_ctl_saved_free(r->flight_saved);
		r->flight_saved = NULL;
	}
	if (r->option_saved) {
		ng_ctl_restore(&r->ctl, r->option_saved);
		ng_ctl_saved_free(r->option_saved);
		r->option_saved = NULL;
	}
	/*
	 * The buffer mode changes back only once the module has let go of
	 * the last hooked frame (EBUSY until then).
	 */
	for (i = 0; i < 100 && ng_ctl_restore(&r->ctl, r->saved) == -EBUSY; i++)
		usleep(50000);
	ng_ctl_saved_free(r->saved);
	r->saved = NULL;
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
	restore_module(r);
	if (r->flight_fd >= 0)
		close(r->flight_fd);
	ng_rec_close(r->rec);
	if (r->raw_dir[0])
		rmdir(r->raw_dir);
	ng_syms_free(r->syms);
	ng_info_settings_free(r->settings);
}

/* DIR/.raw (or the snapshot's): the spill files, removed at the end. */
static int make_raw_dir(struct run *r)
{
	snprintf(r->raw_dir, sizeof(r->raw_dir), "%s/.raw", ng_outdir_path(r->out));
	if (!mkdir(r->raw_dir, 0700))
		return 0;
	fail("cannot create %s: %s", r->raw_dir, strerror(errno));
	r->raw_dir[0] = '\0';
	return NG_EXIT_FAIL;
}

/* The kernel's symbols, to name the recorded addresses; a warning if not. */
static void load_symbols(struct run *r, const struct opts *o)
{
	int ret = ng_syms_load(&r->syms, NULL);

	if (ret && !o->quiet)
		fprintf(stderr, "nanograph record: warning: cannot read /proc/kallsyms (%s): functions are written as addresses\n",
			strerror(-ret));
	/* Each module's end: code past it is no module's (one unloaded since). */
	if (!ret)
		ng_syms_load_modules(r->syms, NULL);
}

/* SIGTERM and SIGHUP are passed on; Ctrl-C reaches it from the tty. */
static void pass_signal(struct run *r)
{
	if ((stop_signal == SIGTERM || stop_signal == SIGHUP) &&
	    r->child > 0 && !r->child_done)
		kill(r->child, stop_signal);
}

/* The recording from tracing_on=1 to its files: stream, stop, write. */
static int record_whole(struct run *r, const struct opts *o)
{
	double secs;

	if (stream(r, o) || stop_recording(r))
		return NG_EXIT_FAIL;
	pass_signal(r);
	secs = now_s() - r->start_s;
	r->duration_ns = (uint64_t)(secs * 1e9 + 0.5);
	calibrate(r, o);
	converting = 1;
	if (abort_signal)
		return interrupted(o->dir);
	/* Symbols after the run: reading kallsyms takes a while; not at the start. */
	load_symbols(r, o);
	return write_output(r, o);
}

/* Put the recording in place, then the summary and record's exit status. */
static int finish(struct run *r, const struct opts *o, int ret)
{
	if (ret) {
		if (r->out)
			ng_outdir_abort(r->out);
		return ret;
	}
	ret = ng_outdir_commit(r->out);
	if (ret)
		return fail("cannot put the recording in place as %s: %s; nothing was kept",
			    o->dir, strerror(-ret));
	/* a command that ended while the files were written */
	if (r->child > 0 && !r->child_done &&
	    waitpid(r->child, &r->status, WNOHANG) == r->child)
		r->child_done = true;
	summary(r, o, r->duration_ns / 1e9);
	return exit_status(r);
}

/* ---- --flight: wait for a trigger, freeze, write the window ---- */

/* Read the flight file from its start (as after a poll wakeup); say why not. */
static int flight_state(struct run *r, struct ng_flight_state *st)
{
	char buf[512];
	ssize_t n = pread(r->flight_fd, buf, sizeof(buf) - 1, 0);

	if (n < 0)
		return fail("cannot read %s/flight: %s", ng_ctl_root(&r->ctl),
			    strerror(errno));
	buf[n] = '\0';
	if (!ng_flight_parse(buf, st))
		return 0;
	buf[strcspn(buf, "\n")] = '\0';
	return fail("%s/flight reads '%s': not a state this collector knows",
		    ng_ctl_root(&r->ctl), buf);
}

/* Arm: the buffers overwrite, the triggers fire; a snapshot's counts start here. */
static int flight_arm(struct run *r)
{
	if (set(r, "flight", "arm"))
		return NG_EXIT_FAIL;
	ng_ctl_stats(&r->ctl, &r->stats_arm);	/* all 0 if unreadable */
	return 0;
}

/*
 * Wait for a trigger (1), or the workload's end, a signal or --duration
 * (0); -1 after saying what failed.  poll(2) wakes at a trigger; its
 * timeout notices the rest.  The end is looked at before the state, so
 * a trigger that fired just before it is still taken.
 */
static int flight_wait(struct run *r, const struct opts *o)
{
	struct pollfd pfd = { .fd = r->flight_fd, .events = POLLPRI };
	struct ng_flight_state st;
	bool end;

	for (;;) {
		end = stop_signal || !workload_alive(r, o) ||
		      duration_over(r, o, r->start_s);
		if (flight_state(r, &st))
			return -1;
		if (st.state == NG_FLIGHT_TRIGGERED)
			return 1;
		if (st.state != NG_FLIGHT_ARMED) {
			fail("the flight recorder is no longer armed (someone wrote %s/flight): stopping",
			     ng_ctl_root(&r->ctl));
			return -1;
		}
		if (end)
			return 0;
		if (poll(&pfd, 1, FLIGHT_POLL_MS) < 0 && errno != EINTR) {
			fail("poll %s/flight: %s", ng_ctl_root(&r->ctl),
			     strerror(errno));
			return -1;
		}
	}
}

/* --tail: what follows the hit, cut short by a signal that stops. */
static void flight_tail(const struct opts *o)
{
	struct timespec ts = { o->tail_ns / 1000000000, o->tail_ns % 1000000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR && !stop_signal)
		;
}

/*
 * The snapshot of hit @h: named by its return, DIR/flight-<ns>, opened
 * whole-or-nothing, its spill files created; DIR itself at the first.
 */
static int flight_open(struct run *r, const struct opts *o,
		       const struct ng_flight_hit *h)
{
	int ret;

	r->hit = *h;
	r->trigger = (struct ng_info_trigger){
		.function = r->hit.func,
		.duration_ns = h->duration_ns,
		.cpu = h->cpu,
		.tid = h->tid,
		.exit_ns = ng_clock_ns(&r->clock, h->exit_counter),
		.has_value = h->has_value,
		.value = h->value,
	};
	r->window_from = ng_flight_window_from(r->trigger.exit_ns,
					       h->duration_ns, o->window_ns);
	snprintf(r->snap_dir, sizeof(r->snap_dir), "%s/flight-%" PRIu64,
		 o->dir, r->trigger.exit_ns);
	r->out_name = r->snap_dir;
	if (mkdir(o->dir, 0777) && errno != EEXIST)
		return fail("cannot create %s: %s", o->dir, strerror(errno));
	if (ng_cmd_open_outdir(r->self, r->snap_dir, &r->out) || make_raw_dir(r))
		return NG_EXIT_FAIL;
	ret = ng_rec_spill_to(r->rec, r->raw_dir);
	if (ret)
		return fail("cannot create the spill files in %s: %s", r->raw_dir,
			    strerror(-ret));
	return 0;
}

/* What a snapshot holds, in one line. */
/*
 * How long after the triggering call returned its snapshot was in place
 * (both CLOCK_MONOTONIC): --tail, the freeze, the drain and the writing.
 */
static void say_latency(const struct run *r, const struct opts *o)
{
	char took[32], tail[32];
	struct timespec now;
	uint64_t ns;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ns = (uint64_t)now.tv_sec * 1000000000ULL + now.tv_nsec;
	if (ns < r->trigger.exit_ns)
		return;
	fprintf(stderr, "nanograph: in place %s after the call returned (--tail %s)\n",
		ng_fmt_time(took, sizeof(took), ns - r->trigger.exit_ns, false),
		ng_fmt_time(tail, sizeof(tail), o->tail_ns, false));
}

static void snapshot_summary(const struct run *r, const struct opts *o)
{
	const struct ng_conv_summary *sum = &r->sum;
	char dur[32], value[48] = "";

	if (o->quiet)
		return;
	if (r->hit.has_value)
		snprintf(value, sizeof(value), " returned %d and", r->hit.value);
	fprintf(stderr,
		"nanograph: %s/: %s%s lasted %s (tid %d, cpu %d); %" PRIu64
		" threads, %" PRIu64 " calls, %" PRIu64
		" records overwritten before the window, %" PRIu64
		" lost, %.1f KiB\n",
		r->snap_dir, r->hit.func, value,
		ng_fmt_time(dur, sizeof(dur), r->hit.duration_ns, false),
		r->hit.tid, r->hit.cpu, sum->threads, sum->pushes,
		r->overwritten, sum->lost, sum->bytes / 1024.0);
	if (o->window_ns)
		fprintf(stderr, "nanograph: %" PRIu64 " events before --window left out\n",
			sum->outside_window);
	ng_cmd_say_left_out(sum);
	say_latency(r, o);
}

static int finish_snapshot(struct run *r, const struct opts *o);

/*
 * Freeze, read the window out of the buffers and write it as a
 * recording of its own.  A signal while it is written abandons it (as
 * record's own recording).
 */
static int flight_snapshot(struct run *r, const struct opts *o)
{
	struct ng_flight_state st;
	struct ng_ctl_stats now;
	int ret;

	if (set(r, "flight", "freeze") || flight_state(r, &st))
		return NG_EXIT_FAIL;
	if (!st.has_hit)
		return fail("%s/flight names no call after freeze",
			    ng_ctl_root(&r->ctl));
	ret = flight_open(r, o, &st.hit);
	if (!ret && drain(r))
		ret = NG_EXIT_FAIL;
	if (!ret) {
		ng_ctl_stats(&r->ctl, &now);
		r->snap_lost = now.dropped - r->stats_arm.dropped;
		r->overwritten = now.overwritten - r->stats_arm.overwritten;
		r->skipped = now.skipped - r->stats_arm.skipped;
		r->skipped_known = true;
		r->duration_ns = (uint64_t)((now_s() - r->start_s) * 1e9 + 0.5);
		converting = 1;
		ret = write_output(r, o);
		converting = 0;
	}
	ng_rec_spill_to(r->rec, NULL);
	if (r->raw_dir[0])
		rmdir(r->raw_dir);
	r->raw_dir[0] = '\0';
	if (!ret)
		ret = finish_snapshot(r, o);
	else if (r->out)
		ng_outdir_abort(r->out);
	r->out = NULL;
	return ret;
}

/* Put the snapshot in place, and say what it holds. */
static int finish_snapshot(struct run *r, const struct opts *o)
{
	int ret = ng_outdir_commit(r->out);

	r->out = NULL;
	if (ret)
		return fail("cannot put the snapshot in place as %s: %s",
			    r->snap_dir, strerror(-ret));
	r->snapshots++;
	snapshot_summary(r, o);
	return 0;
}

/*
 * --count reached with a command: it runs on untraced, and record waits
 * for it as it would have (its exit status is record's); Ctrl-C or
 * --duration stops waiting.
 */
static void wait_command(struct run *r, const struct opts *o)
{
	struct timespec poll = { 0, POLL_MS * 1000000L };

	if (r->child <= 0 || !workload_alive(r, o))
		return;
	if (!o->quiet)
		fprintf(stderr, "nanograph: %" PRIu64 " snapshot%s taken (--count %" PRIu64
			"): recording stopped; waiting for %s to end\n",
			r->snapshots, r->snapshots == 1 ? "" : "s", o->count,
			o->argv[0]);
	while (!stop_signal && workload_alive(r, o) &&
	       !duration_over(r, o, r->start_s))
		nanosleep(&poll, NULL);
}

/* --flight: snapshots until --count, the workload's end, a signal or --duration. */
static int fly(struct run *r, const struct opts *o)
{
	int ret = 0;

	if (!o->quiet)
		fprintf(stderr, "nanograph: armed: waiting for a trigger (Ctrl-C stops)\n");
	while (r->snapshots < o->count) {
		ret = flight_wait(r, o);
		if (ret <= 0)
			break;
		flight_tail(o);
		ret = flight_snapshot(r, o);
		if (ret)
			return ret;
		if (r->snapshots < o->count && flight_arm(r))
			return NG_EXIT_FAIL;
	}
	if (ret < 0)
		return NG_EXIT_FAIL;
	restore_module(r);
	if (r->snapshots == o->count)
		wait_command(r, o);
	pass_signal(r);
	return 0;
}

/* After --flight: what was written, and record's exit status. */
static int flight_finish(struct run *r, const struct opts *o, int ret)
{
	if (r->out)
		ng_outdir_abort(r->out);
	if (ret)
		return ret;
	if (r->child > 0 && !r->child_done &&
	    waitpid(r->child, &r->status, WNOHANG) == r->child)
		r->child_done = true;
	if (!o->quiet && !r->snapshots)
		fprintf(stderr, "nanograph: no trigger fired: nothing was written\n");
	else if (!o->quiet)
		fprintf(stderr, "nanograph: %" PRIu64 " snapshot%s in %s/\n",
			r->snapshots, r->snapshots == 1 ? "" : "s", o->dir);
	if (!o->quiet)
		say_command_end(r, o);
	return exit_status(r);
}

/* Signals: the first stops, the next abandons; SIGPIPE ignored. */
static void catch_signals(void)
{
	struct sigaction sa = { 0 };

	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_sigchld;
	sigaction(SIGCHLD, &sa, NULL);
	/* A closed stderr must not kill record before it puts things back. */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

/* The module's counter clock, for the timestamps (and the snapshots' names). */
static int read_clock(struct run *r)
{
	char *clock = NULL;
	int ret = 0;

	if (ng_ctl_read(&r->ctl, "clock", &clock, NULL) ||
	    ng_clock_parse(clock, &r->clock))
		ret = fail("cannot read the counter's frequency from %s/clock",
			   ng_ctl_root(&r->ctl));
	free(clock);
	return ret;
}

/* The buffers' reader: spill files now, or (--flight) at each snapshot. */
static int open_recorder(struct run *r, const struct opts *o)
{
	struct ng_rec_opts ro = {
		.buffer_kb = o->buffer_kb,
		.raw_dir = o->flight ? NULL : r->raw_dir,
		.raw = o->raw,
		.ctl_root = ng_ctl_root(&r->ctl),
	};
	int ret;

	if (!o->flight && make_raw_dir(r))
		return NG_EXIT_FAIL;
	ret = ng_rec_open(&r->rec, &ro);
	if (!ret)
		return 0;
	if (o->raw)
		return fail("cannot open the raw buffers in %s/per_cpu: %s",
			    ng_ctl_root(&r->ctl), strerror(-ret));
	return fail("cannot set up the tracefs instance 'nanograph': %s",
		    strerror(-ret));
}

/*
 * --flight, before tracing_on=1: the symbols (a snapshot is written at
 * once), the flight file open for poll(2), and armed, after the
 * recorder has emptied the buffers (an armed buffer refuses reads).
 */
static int flight_start(struct run *r, const struct opts *o)
{
	char path[4200];

	if (!o->flight)
		return 0;
	load_symbols(r, o);
	snprintf(path, sizeof(path), "%s/flight", ng_ctl_root(&r->ctl));
	r->flight_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->flight_fd < 0)
		return fail("cannot open %s: %s", path, strerror(errno));
	return flight_arm(r);
}

int cmd_record(const struct ng_cmd *self, int argc, char **argv)
{
	struct opts o = { 0 };
	struct run r = { .go_fd = -1, .err_fd = -1, .flight_fd = -1,
			 .self = self };
	int ret;

	ret = parse(self, argc, argv, &o);
	if (ret >= 0)
		goto out_opts;
	ret = preflight(&r, &o);
	if (ret >= 0)
		goto out_opts;
	/* From here on, every way out puts back what was changed. */
	catch_signals();
	r.out_name = o.dir;
	/* A new directory next to DIR, swapped in once the recording is whole. */
	if (!o.flight && ng_cmd_open_outdir(self, o.dir, &r.out)) {
		ret = NG_EXIT_FAIL;
		goto out_opts;
	}
	raise_nofile(&r);
	ret = read_clock(&r);
	if (ret)
		goto out;
	ret = configure(&r, &o);
	if (ret >= 0)
		goto out;
	ret = open_recorder(&r, &o) || flight_start(&r, &o);
	if (ret) {
		ret = NG_EXIT_FAIL;
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
	r.start_s = now_s();
	clock_gettime(CLOCK_REALTIME, &r.start_rt);
	if (o.argv && release(&r, o.argv)) {
		ret = NG_EXIT_FAIL;
		goto out;
	}
	ret = o.flight ? fly(&r, &o) : record_whole(&r, &o);
out:
	cleanup(&r);
	ret = o.flight ? flight_finish(&r, &o, ret) : finish(&r, &o, ret);
out_opts:
	free(o.graph);
	free(o.notrace);
	free(o.hook);
	free(o.when_comm);
	return ret;
}
