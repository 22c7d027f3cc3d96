/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record.h - the parts of "nanograph record", shared between its files.
 * Only cmd/record*.c include this.
 *
 * The command is split by what each part does, in the order a recording
 * goes through them:
 *
 *   record_opts.c      the command line into struct rec_opts, checked
 *                      as a whole before anything changes
 *   record_module.c    the module: the conditions record needs, its
 *                      control files set through a recording session
 *                      (lib/session.c), which puts them back
 *   record_workload.c  the workload: the command started and released,
 *                      or the process watched; signals; the exit status
 *   record_stream.c    a whole recording: stream the buffers into the
 *                      spill files until the workload ends, then stop
 *   record_flight.c    --flight: arm, wait for a trigger, write the
 *                      snapshot of the buffers' window
 *   record_output.c    the recording's files (push/pop files, info.json,
 *                      protos.tsv) and the summary
 *   record.c           cmd_record(): the steps above in order, and the
 *                      clean-up every way out goes through
 *
 * Every function of these files follows the command's convention
 * (cmd.h): option parsing returns -1 to go on, any other step 0 to go
 * on; else the exit code, after its one line on stderr.
 */
#ifndef NG_CMD_RECORD_H
#define NG_CMD_RECORD_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <time.h>

#include "nanograph.h"
#include "cmd.h"

#define REC_DEFAULT_DIR		"nanograph.data"
#define REC_DEFAULT_BUF_KB	8192
#define REC_POLL_MS		50
#define REC_MAX_RAW_KB		1048576	/* the module's raw_buffer_size_kb limit */

/* The command line, as parsed and checked (record_opts.c). */
struct rec_opts {
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
	bool no_direct;		/* --no-direct: options/direct 0 */
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

/* The workload: a command record started, or none (record_workload.c). */
struct rec_workload {
	pid_t child;
	int status;		/* the command's wait status */
	bool child_done;
	int go_fd;		/* write end: the child may exec */
	int err_fd;		/* read end: errno of a failed exec */
	bool duration_stop;	/* record ended the command at --duration */
	struct rlimit user_nofile;	/* the open-files limit record found */
	bool nofile_raised;		/* and raised for itself */
};

/* --flight's state, across its snapshots (record_flight.c). */
struct rec_flight {
	int fd;				/* the flight file, for poll(2) */
	struct ng_ctl_stats stats_arm;	/* the module's counts at the last arm */
	struct ng_flight_hit hit;	/* the snapshot's triggering call */
	struct ng_info_trigger trigger;	/* the same for info.json */
	uint64_t window_from;		/* ns: the snapshot's window */
	uint64_t lost;			/* records dropped since the arm */
	uint64_t overwritten;		/* records overwritten since the arm */
	char dir[4096];			/* DIR/flight-<ns> */
	uint64_t snapshots;		/* taken */
};

/* One run of record: what the steps share. */
struct run {
	const struct ng_cmd *self;
	struct ng_ctl ctl;
	struct ng_session *session;	/* the control files changed */
	struct ng_recorder *rec;
	struct ng_syms *syms;
	struct ng_clock clock;
	char raw_dir[4096];
	struct rec_workload wl;
	struct rec_flight fl;
	struct ng_outdir *out;		/* where the recording is written */
	const char *out_name;		/* the directory being written, for messages */
	struct ng_conv_summary sum;
	struct ng_ctl_stats stats0;	/* the module's counts at the start */
	bool stats0_read;		/* stats0 could be read */
	uint64_t skipped;		/* calls the module skipped while recording */
	bool skipped_known;		/* stats read at both ends: skipped is true */
	struct ng_info_settings *settings;	/* the module's, as configured */
	struct timespec start_rt;	/* wall clock at tracing_on=1 */
	double start_s;			/* CLOCK_MONOTONIC at tracing_on=1 */
	uint64_t duration_ns;		/* from tracing_on=1 to its stop */
	struct ng_overhead overhead;	/* the cost per call, if calibrated */
	char overhead_fn[128];		/* the function calibrated on */
	bool calibrated;
};

/*
 * SIGINT, SIGTERM, SIGHUP: the first stops the recording (rec_stop_signal),
 * which is then written; another one, or one while the recording is being
 * written (rec_converting), abandons it (rec_abort_signal).
 */
extern volatile sig_atomic_t rec_stop_signal, rec_abort_signal, rec_converting;

/* record.c */
int rec_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
double rec_now_s(void);
int rec_make_raw_dir(struct run *r);
void rec_load_symbols(struct run *r, const struct rec_opts *o);

/* record_opts.c */
int rec_parse(const struct ng_cmd *self, int argc, char **argv,
	      struct rec_opts *o);
bool rec_by_program(const struct rec_opts *o);
void rec_opts_free(struct rec_opts *o);

/* record_module.c */
int rec_preflight(struct run *r, const struct rec_opts *o);
int rec_set(struct run *r, const char *file, const char *val);
int rec_configure(struct run *r, const struct rec_opts *o);
int rec_read_clock(struct run *r);
int rec_start(struct run *r, const struct rec_opts *o);

/* record_workload.c */
void rec_catch_signals(void);
void rec_raise_nofile(struct rec_workload *w);
int rec_spawn(struct rec_workload *w, char **argv);
void rec_child_asleep(pid_t pid);
int rec_release(struct rec_workload *w, char **argv);
bool rec_workload_alive(struct rec_workload *w, const struct rec_opts *o);
bool rec_duration_over(struct rec_workload *w, const struct rec_opts *o,
		       double start);
void rec_pass_signal(struct rec_workload *w);
void rec_reap(struct rec_workload *w);
void rec_workload_close(struct rec_workload *w);
void rec_say_command_end(const struct rec_workload *w,
			 const struct rec_opts *o);
int rec_exit_status(const struct rec_workload *w);

/* record_stream.c */
int rec_drain(struct run *r);
int rec_record_whole(struct run *r, const struct rec_opts *o);

/* record_flight.c */
int rec_flight_preflight(struct run *r, const struct rec_opts *o);
int rec_flight_start(struct run *r, const struct rec_opts *o);
int rec_fly(struct run *r, const struct rec_opts *o);
int rec_flight_finish(struct run *r, const struct rec_opts *o, int ret);

/* record_output.c */
int rec_interrupted(const char *dir);
int rec_write_output(struct run *r, const struct rec_opts *o);
int rec_finish(struct run *r, const struct rec_opts *o, int ret);

#endif /* NG_CMD_RECORD_H */
