// SPDX-License-Identifier: GPL-2.0
/*
 * record_flight.c - "nanograph record --flight": the raw buffers
 * overwrite their oldest records while the module waits for a trigger
 * (a call too slow, or returning a value); when one fires, record lets
 * --tail pass, freezes the buffers, and writes their window as a
 * recording of its own, DIR/flight-<ns>; then arms again, until --count
 * snapshots, the workload's end, a signal or --duration.
 *
 * The module's flight file is the state machine (off, armed, triggered,
 * frozen: Documentation/control-files.md); poll(2) on it wakes record at
 * a trigger.
 *
 * Convention (cmd.h): 0 to go on, else the exit code after the line.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "record.h"

#define FLIGHT_POLL_MS	100	/* how soon an armed wait notices an exit */

/*
 * --flight's conditions: a module with the flight recorder, not in use,
 * and a DIR that can hold snapshot directories (created at the first).
 */
int rec_flight_preflight(struct run *r, const struct rec_opts *o)
{
	struct ng_flight_state st;
	struct stat sb;
	char *val = NULL;
	int ret;

	ret = ng_ctl_read(&r->ctl, "flight", &val, NULL);
	if (ret == -ENOENT)
		return rec_fail("this nanograph module has no flight recorder (%s/flight is missing): load one built from a newer tree",
				ng_ctl_root(&r->ctl));
	if (ret)
		return rec_fail("cannot read %s/flight: %s", ng_ctl_root(&r->ctl),
				strerror(-ret));
	ret = ng_flight_parse(val, &st);
	if (ret || st.state != NG_FLIGHT_OFF) {
		val[strcspn(val, "\n")] = '\0';
		ret = rec_fail("the flight recorder is in use (flight reads '%s'): another session; stop it with 'echo off > %s/flight'",
			       val, ng_ctl_root(&r->ctl));
		free(val);
		return ret;
	}
	free(val);
	if (!stat(o->dir, &sb) && !S_ISDIR(sb.st_mode))
		return rec_fail("%s is not a directory: --flight writes its snapshots into a directory (-o DIR)",
				o->dir);
	return 0;
}

/* Read the flight file from its start (as after a poll wakeup); say why not. */
static int flight_state(struct run *r, struct ng_flight_state *st)
{
	char buf[512];
	ssize_t n = pread(r->fl.fd, buf, sizeof(buf) - 1, 0);

	if (n < 0)
		return rec_fail("cannot read %s/flight: %s", ng_ctl_root(&r->ctl),
				strerror(errno));
	buf[n] = '\0';
	if (!ng_flight_parse(buf, st))
		return 0;
	buf[strcspn(buf, "\n")] = '\0';
	return rec_fail("%s/flight reads '%s': not a state this collector knows",
			ng_ctl_root(&r->ctl), buf);
}

/* Arm: the buffers overwrite, the triggers fire; a snapshot's counts start here. */
static int flight_arm(struct run *r)
{
	int ret = rec_set(r, "flight", "arm");

	if (ret)
		return ret;
	ng_ctl_stats(&r->ctl, &r->fl.stats_arm);	/* all 0 if unreadable */
	return 0;
}

/*
 * Wait for a trigger (*@fired), or the workload's end, a signal or
 * --duration.  poll(2) wakes at a trigger; its timeout notices the
 * rest.  The end is looked at before the state, so a trigger that fired
 * just before it is still taken.
 */
static int flight_wait(struct run *r, const struct rec_opts *o, bool *fired)
{
	struct pollfd pfd = { .fd = r->fl.fd, .events = POLLPRI };
	struct ng_flight_state st;
	bool end;
	int ret;

	for (*fired = false;;) {
		end = rec_stop_signal || !rec_workload_alive(&r->wl, o) ||
		      rec_duration_over(&r->wl, o, r->start_s);
		ret = flight_state(r, &st);
		if (ret)
			return ret;
		if (st.state == NG_FLIGHT_TRIGGERED) {
			*fired = true;
			return 0;
		}
		if (st.state != NG_FLIGHT_ARMED)
			return rec_fail("the flight recorder is no longer armed (someone wrote %s/flight): stopping",
					ng_ctl_root(&r->ctl));
		if (end)
			return 0;
		if (poll(&pfd, 1, FLIGHT_POLL_MS) < 0 && errno != EINTR)
			return rec_fail("poll %s/flight: %s", ng_ctl_root(&r->ctl),
					strerror(errno));
	}
}

/* --tail: what follows the hit, cut short by a signal that stops. */
static void flight_tail(const struct rec_opts *o)
{
	struct timespec ts = { o->tail_ns / 1000000000, o->tail_ns % 1000000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR && !rec_stop_signal)
		;
}

/*
 * The snapshot of hit @h: named by its return, DIR/flight-<ns>, opened
 * whole-or-nothing, its spill files created; DIR itself at the first.
 */
static int flight_open(struct run *r, const struct rec_opts *o,
		       const struct ng_flight_hit *h)
{
	int ret;

	r->fl.hit = *h;
	r->fl.trigger = (struct ng_info_trigger){
		.function = r->fl.hit.func,
		.duration_ns = h->duration_ns,
		.cpu = h->cpu,
		.tid = h->tid,
		.exit_ns = ng_clock_ns(&r->clock, h->exit_counter),
		.has_value = h->has_value,
		.value = h->value,
	};
	r->fl.window_from = ng_flight_window_from(r->fl.trigger.exit_ns,
					       h->duration_ns, o->window_ns);
	snprintf(r->fl.dir, sizeof(r->fl.dir), "%s/flight-%" PRIu64,
		 o->dir, r->fl.trigger.exit_ns);
	r->out_name = r->fl.dir;
	if (mkdir(o->dir, 0777) && errno != EEXIST)
		return rec_fail("cannot create %s: %s", o->dir, strerror(errno));
	ret = ng_cmd_open_outdir(r->self, r->fl.dir, &r->out);
	if (!ret)
		ret = rec_make_raw_dir(r);
	if (ret)
		return ret;
	ret = ng_rec_spill_to(r->rec, r->raw_dir);
	if (ret)
		return rec_fail("cannot create the spill files in %s: %s", r->raw_dir,
				strerror(-ret));
	return 0;
}

/*
 * How long after the triggering call returned its snapshot was in place
 * (both CLOCK_MONOTONIC): --tail, the freeze, the drain and the writing.
 */
static void say_latency(const struct run *r, const struct rec_opts *o)
{
	char took[32], tail[32];
	struct timespec now;
	uint64_t ns;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ns = (uint64_t)now.tv_sec * 1000000000ULL + now.tv_nsec;
	if (ns < r->fl.trigger.exit_ns)
		return;
	fprintf(stderr, "nanograph: in place %s after the call returned (--tail %s)\n",
		ng_fmt_time(took, sizeof(took), ns - r->fl.trigger.exit_ns, false),
		ng_fmt_time(tail, sizeof(tail), o->tail_ns, false));
}
/* What a snapshot holds, in one line. */
static void snapshot_summary(const struct run *r, const struct rec_opts *o)
{
	const struct ng_conv_summary *sum = &r->sum;
	char dur[32], value[48] = "";

	if (o->quiet)
		return;
	if (r->fl.hit.has_value)
		snprintf(value, sizeof(value), " returned %d and", r->fl.hit.value);
	fprintf(stderr,
		"nanograph: %s/: %s%s lasted %s (tid %d, cpu %d); %" PRIu64
		" threads, %" PRIu64 " calls, %" PRIu64
		" records overwritten before the window, %" PRIu64
		" lost, %.1f KiB\n",
		r->fl.dir, r->fl.hit.func, value,
		ng_fmt_time(dur, sizeof(dur), r->fl.hit.duration_ns, false),
		r->fl.hit.tid, r->fl.hit.cpu, sum->threads, sum->pushes,
		r->fl.overwritten, sum->lost, sum->bytes / 1024.0);
	if (o->window_ns)
		fprintf(stderr, "nanograph: %" PRIu64 " events before --window left out\n",
			sum->outside_window);
	ng_cmd_say_left_out(sum);
	say_latency(r, o);
}

/* Put the snapshot in place, and say what it holds. */
static int finish_snapshot(struct run *r, const struct rec_opts *o)
{
	int ret = ng_outdir_commit(r->out);

	r->out = NULL;
	if (ret)
		return rec_fail("cannot put the snapshot in place as %s: %s",
				r->fl.dir, strerror(-ret));
	r->fl.snapshots++;
	snapshot_summary(r, o);
	return 0;
}

/*
 * Freeze, read the window out of the buffers and write it as a
 * recording of its own.  A signal while it is written abandons it (as
 * record's own recording).
 */
static int flight_snapshot(struct run *r, const struct rec_opts *o)
{
	struct ng_flight_state st;
	struct ng_ctl_stats now;
	int ret;

	ret = rec_set(r, "flight", "freeze");
	if (!ret)
		ret = flight_state(r, &st);
	if (ret)
		return ret;
	if (!st.has_hit)
		return rec_fail("%s/flight names no call after freeze",
				ng_ctl_root(&r->ctl));
	ret = flight_open(r, o, &st.hit);
	if (!ret)
		ret = rec_drain(r);
	if (!ret) {
		ng_ctl_stats(&r->ctl, &now);
		r->fl.lost = now.dropped - r->fl.stats_arm.dropped;
		r->fl.overwritten = now.overwritten - r->fl.stats_arm.overwritten;
		r->skipped = now.skipped - r->fl.stats_arm.skipped;
		r->skipped_known = true;
		r->duration_ns = (uint64_t)((rec_now_s() - r->start_s) * 1e9 + 0.5);
		rec_converting = 1;
		ret = rec_write_output(r, o);
		rec_converting = 0;
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

/*
 * --count reached with a command: it runs on untraced, and record waits
 * for it as it would have (its exit status is record's); Ctrl-C or
 * --duration stops waiting.
 */
static void wait_command(struct run *r, const struct rec_opts *o)
{
	struct timespec poll = { 0, REC_POLL_MS * 1000000L };

	if (r->wl.child <= 0 || !rec_workload_alive(&r->wl, o))
		return;
	if (!o->quiet)
		fprintf(stderr, "nanograph: %" PRIu64 " snapshot%s taken (--count %" PRIu64
			"): recording stopped; waiting for %s to end\n",
			r->fl.snapshots, r->fl.snapshots == 1 ? "" : "s", o->count,
			o->argv[0]);
	while (!rec_stop_signal && rec_workload_alive(&r->wl, o) &&
	       !rec_duration_over(&r->wl, o, r->start_s))
		nanosleep(&poll, NULL);
}

/* --flight: snapshots until --count, the workload's end, a signal or --duration. */
int rec_fly(struct run *r, const struct rec_opts *o)
{
	bool fired;
	int ret;

	if (!o->quiet)
		fprintf(stderr, "nanograph: armed: waiting for a trigger (Ctrl-C stops)\n");
	while (r->fl.snapshots < o->count) {
		ret = flight_wait(r, o, &fired);
		if (ret)
			return ret;
		if (!fired)
			break;
		flight_tail(o);
		ret = flight_snapshot(r, o);
		if (!ret && r->fl.snapshots < o->count)
			ret = flight_arm(r);
		if (ret)
			return ret;
	}
	/* the command runs on untraced: the module as it was found */
	ng_session_undo(r->session);
	if (r->fl.snapshots == o->count)
		wait_command(r, o);
	rec_pass_signal(&r->wl);
	return 0;
}

/* After --flight: what was written, and record's exit status. */
int rec_flight_finish(struct run *r, const struct rec_opts *o, int ret)
{
	if (r->out)
		ng_outdir_abort(r->out);
	if (ret)
		return ret;
	rec_reap(&r->wl);
	if (!o->quiet && !r->fl.snapshots)
		fprintf(stderr, "nanograph: no trigger fired: nothing was written\n");
	else if (!o->quiet)
		fprintf(stderr, "nanograph: %" PRIu64 " snapshot%s in %s/\n",
			r->fl.snapshots, r->fl.snapshots == 1 ? "" : "s", o->dir);
	if (!o->quiet)
		rec_say_command_end(&r->wl, o);
	return rec_exit_status(&r->wl);
}

/*
 * --flight, before tracing_on=1: the symbols (a snapshot is written at
 * once), the flight file open for poll(2), and armed, after the
 * recorder has emptied the buffers (an armed buffer refuses reads).
 */
int rec_flight_start(struct run *r, const struct rec_opts *o)
{
	char path[4200];

	if (!o->flight)
		return 0;
	rec_load_symbols(r, o);
	snprintf(path, sizeof(path), "%s/flight", ng_ctl_root(&r->ctl));
	r->fl.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fl.fd < 0)
		return rec_fail("cannot open %s: %s", path, strerror(errno));
	return flight_arm(r);
}
