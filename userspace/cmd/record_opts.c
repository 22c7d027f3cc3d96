// SPDX-License-Identifier: GPL-2.0
/*
 * record_opts.c - "nanograph record"'s command line: its help, the
 * options parsed into struct rec_opts, and the checks of the whole
 * (what to record, --flight's options together) made before anything
 * changes, so that a mistake is a usage error (exit status 2) and the
 * module is never touched.
 *
 * Convention (cmd.h): -1 to go on, else the exit code after the line.
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"

#define DEFAULT_TAIL_MS	100

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
"  --no-direct     enter through ftrace's ops callback, not its direct calls\n"
"                  (options/direct 0): BPF fentry/fexit programs and\n"
"                  livepatches can then attach to the hooked functions\n"
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

/* One more of a repeated option's values (argv's string, not a copy). */
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
		       struct rec_opts *o)
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
			const char *arg, struct rec_opts *o)
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
static int add_trigger_funcs(struct rec_opts *o, char ***list, int *n,
			     const char *opt)
{
	int i, j, nr = *n;

	if (!nr)
		return -1;	/* every function hooked, every call recorded */
	for (i = 0; i < o->nr_triggers; i++) {
		const char *func = o->triggers[i].func;

		for (j = 0; j < nr && fnmatch((*list)[j], func, 0); j++)
			;
		if (j < nr)
			continue;
		if (push_arg(list, n, o->triggers[i].func))
			return rec_fail("out of memory");
		if (!o->quiet)
			fprintf(stderr, "nanograph record: %s %s added: --trigger's function must be %s\n",
				opt, func, !strcmp(opt, "--hook") ? "hooked" :
				"recorded (a root of its own)");
	}
	return -1;
}

/* --flight's options together, and the buffer size; -1 to go on. */
static int check_flight(const struct ng_cmd *self, struct rec_opts *o)
{
	int ret;

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
	if (o->size_mb && o->buffer_kb > REC_MAX_RAW_KB)
		return ng_usage_error(self->name, "--size %" PRIu64 " is %lu KiB per CPU, above the module's %d",
				      o->size_mb, o->buffer_kb, REC_MAX_RAW_KB);
	ret = add_trigger_funcs(o, &o->hook, &o->nr_hook, "--hook");
	return ret >= 0 ? ret :
		add_trigger_funcs(o, &o->graph, &o->nr_graph, "-F");
}

/*
 * --when-comm, --trace-self: the threads decide whether they are
 * recorded, by their names (set_event_comm) or by writing trace_self;
 * anywhere in the system, the command (if any) being the workload.
 */
bool rec_by_program(const struct rec_opts *o)
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
		if (!*p)
			return ng_usage_error(self->name, "--args wants FUNC[,FUNC...] (no empty one)");
		if (push_arg(globs, n, p))
			return rec_fail("out of memory");
		p = comma + 1;
	} while (comma);
	return -1;
}

/* Values of the long options without a short form. */
enum {
	OPT_HOOK = 256, OPT_DURATION, OPT_BUFFER, OPT_RAW, OPT_EVENTS,
	OPT_NO_CALIBRATE, OPT_FLIGHT, OPT_TRIGGER, OPT_WINDOW, OPT_SIZE,
	OPT_TAIL, OPT_COUNT, OPT_WHEN_COMM, OPT_TRACE_SELF, OPT_SCHED,
	OPT_COUNTERS, OPT_RETVAL, OPT_ARGS, OPT_RETADDR, OPT_NO_DIRECT
};

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
	{ "no-direct", no_argument, NULL, OPT_NO_DIRECT },
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

/*
 * The options that may repeat, each a name added to its list: -F, -N,
 * --hook, --when-comm; -2 if @c is none of them.
 */
static int list_option(const struct ng_cmd *self, int c, struct rec_opts *o)
{
	const char *opt;
	char ***list;
	int *n, ret;

	switch (c) {
	case 'F':
		opt = "-F";
		list = &o->graph;
		n = &o->nr_graph;
		break;
	case 'N':
		opt = "-N";
		list = &o->notrace;
		n = &o->nr_notrace;
		break;
	case OPT_HOOK:
		opt = "--hook";
		list = &o->hook;
		n = &o->nr_hook;
		break;
	case OPT_WHEN_COMM:
		opt = "--when-comm";
		list = &o->when_comm;
		n = &o->nr_when_comm;
		break;
	default:
		return -2;
	}
	ret = need_value(self, opt, optarg);
	if (ret < 0 && push_arg(list, n, optarg))
		return rec_fail("out of memory");
	return ret;
}

/* The options that take a number: -D, -p, --duration, --buffer-kb; -2 if none. */
static int number_option(const struct ng_cmd *self, int c, struct rec_opts *o)
{
	uint64_t v = 0;
	int ret;

	switch (c) {
	case 'D':
		ret = ng_opt_num(self, "-D", optarg, 0, 0, 255,
				 "a depth (0: no limit)", &v);
		o->depth = v;
		return ret;
	case 'p':
		/* PID_MAX_LIMIT: no pid is larger on any kernel */
		ret = ng_opt_num(self, "-p", optarg, 0, 1, 4194304,
				 "a process id", &v);
		o->pid = v;
		return ret;
	case OPT_DURATION:
		/* milliseconds; at most a year */
		ret = ng_opt_num(self, "--duration", optarg, 3, 1,
				 365ULL * 24 * 3600 * 1000, "seconds", &v);
		o->duration = v / 1000.0;
		return ret;
	case OPT_BUFFER:
		ret = ng_opt_num(self, "--buffer-kb", optarg, 0, 4,
				 1UL << 22, "KiB per CPU", &v);
		o->buffer_kb = v;
		o->buffer_given = true;
		return ret;
	default:
		return -2;
	}
}

/* The options without a value that switch something on, and what. */
static const struct {
	int c;
	size_t flag;	/* offset of the bool in struct rec_opts */
} flags[] = {
	{ 'q', offsetof(struct rec_opts, quiet) },
	{ 'a', offsetof(struct rec_opts, all) },
	{ OPT_NO_CALIBRATE, offsetof(struct rec_opts, no_calibrate) },
	{ OPT_SCHED, offsetof(struct rec_opts, sched) },
	{ OPT_COUNTERS, offsetof(struct rec_opts, counters) },
	{ OPT_RETVAL, offsetof(struct rec_opts, retval) },
	{ OPT_RETADDR, offsetof(struct rec_opts, retaddr) },
	{ OPT_NO_DIRECT, offsetof(struct rec_opts, no_direct) },
	{ OPT_FLIGHT, offsetof(struct rec_opts, flight) },
	{ OPT_TRACE_SELF, offsetof(struct rec_opts, trace_self) },
};

/* One of flags[], or --raw/--events; false if @c is none of them. */
static bool flag_option(int c, struct rec_opts *o)
{
	size_t i;

	if (c == OPT_RAW || c == OPT_EVENTS) {
		o->raw = c == OPT_RAW;	/* the last one given wins */
		return true;
	}
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		if (flags[i].c == c) {
			*(bool *)((char *)o + flags[i].flag) = true;
			return true;
		}
	}
	return false;
}

/* One option @c of getopt_long(), into @o. */
static int parse_option(const struct ng_cmd *self, int c, char **argv,
			struct rec_opts *o)
{
	int ret;

	if (flag_option(c, o))
		return -1;
	ret = list_option(self, c, o);
	if (ret == -2)
		ret = number_option(self, c, o);
	if (ret != -2)
		return ret;
	switch (c) {
	case 'h':
		ng_cmd_help(self);
		return NG_EXIT_OK;
	case 'o':
		o->dir = optarg;
		return need_value(self, "-o", optarg);
	case OPT_ARGS:
		o->args = true;
		return optarg ? split_globs(self, optarg, &o->args_globs,
					    &o->nr_args_globs) : -1;
	case OPT_TRIGGER:
	case OPT_WINDOW:
	case OPT_SIZE:
	case OPT_TAIL:
	case OPT_COUNT:
		o->flight_opts = true;
		return parse_flight(self, c - OPT_TRIGGER, optarg, o);
	default:
		return ng_option_error(self, c, argv, longopts);
	}
}

/* What to record: one of -a, -p, a command, or threads that choose. */
static int check_scope(const struct ng_cmd *self, const struct rec_opts *o)
{
	if (o->all && o->pid)
		return ng_usage_error(self->name,
				      "give either -a or -p PID, not both");
	if (o->all && o->argv)
		return ng_usage_error(self->name,
				      "give either -a or a command, not both (-a --duration S records every task for S seconds)");
	if (o->argv && o->pid)
		return ng_usage_error(self->name,
				      "give either -p PID or a command, not both");
	if (!o->argv && !o->pid && !o->all && !rec_by_program(o))
		return ng_usage_error(self->name,
				      "what to record? give -a, -p PID or a command");
	if (rec_by_program(o) && (o->all || o->pid))
		return ng_usage_error(self->name,
				      "--when-comm and --trace-self choose the threads themselves: not with -a or -p");
	if (rec_by_program(o) && !o->argv && !o->duration)
		return ng_usage_error(self->name,
				      "--when-comm and --trace-self record until a command ends or --duration S");
	return -1;
}

/* Parse the command line into @o and check it as a whole. */
int rec_parse(const struct ng_cmd *self, int argc, char **argv,
	      struct rec_opts *o)
{
	int c, ret;

	o->dir = REC_DEFAULT_DIR;
	o->buffer_kb = REC_DEFAULT_BUF_KB;
	/* The cheaper mode, lossless as well at the rates measured: performance.md. */
	o->raw = true;
	o->depth = -1;
	o->tail_ns = DEFAULT_TAIL_MS * 1000000ULL;
	o->count = 1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:hqaF:N:D:p:o:", longopts,
				NULL)) != -1) {
		ret = parse_option(self, c, argv, o);
		if (ret >= 0)
			return ret;
	}
	if (optind < argc)
		o->argv = argv + optind;
	ret = check_scope(self, o);
	return ret >= 0 ? ret : check_flight(self, o);
}

/* What parsing allocated (the lists; their strings are argv's). */
void rec_opts_free(struct rec_opts *o)
{
	free(o->graph);
	free(o->notrace);
	free(o->hook);
	free(o->when_comm);
	free(o->args_globs);
}
