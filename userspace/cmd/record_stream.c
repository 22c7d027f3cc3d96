// SPDX-License-Identifier: GPL-2.0
/*
 * record_stream.c - a whole recording (not --flight): from tracing_on=1
 * until the workload ends, a signal or --duration, the buffers are moved
 * into spill files every REC_POLL_MS (so that they never fill), with a
 * progress line on a terminal; then the module stops, the frames still
 * live get a moment to return, the rest is taken, the tracer's cost per
 * call is measured, and the recording is written (record_output.c).
 *
 * Convention (cmd.h): 0 to go on, else the exit code after the line.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "record.h"

/* Entries and exits the module has counted so far, from stats. */
static uint64_t module_events(struct run *r, uint64_t *live_frames)
{
	struct ng_ctl_stats st;

	ng_ctl_stats(&r->ctl, &st);	/* all 0 if it cannot be read */
	if (live_frames)
		*live_frames = st.live_frames;
	return st.entries + st.exits;
}

/* Move the buffers' content to the spill files; say why if that fails. */
int rec_drain(struct run *r)
{
	int ret = ng_rec_drain(r->rec);

	if (ret == -ENOSPC || ret == -EDQUOT)
		return rec_fail("writing %s: %s: free some space or choose another -o DIR; nothing was kept",
				r->raw_dir, strerror(-ret));
	if (ret < 0)
		return rec_fail("reading the trace buffers: %s", strerror(-ret));
	return 0;
}

/* Stream until the workload ends, a signal, or the duration. */
static int stream(struct run *r, const struct rec_opts *o)
{
	bool tty = !o->quiet && isatty(STDERR_FILENO);
	double start = rec_now_s(), last = start;
	uint64_t events_last = module_events(r, NULL);
	struct timespec poll = { 0, REC_POLL_MS * 1000000L };
	int ret;

	for (;;) {
		ret = rec_drain(r);
		if (ret)
			return ret;
		if (rec_stop_signal || !rec_workload_alive(&r->wl, o) ||
		    rec_duration_over(&r->wl, o, start))
			break;
		if (tty && rec_now_s() - last >= 1.0) {
			uint64_t ev = module_events(r, NULL), lost = 0;

			ng_rec_lost(r->rec, &lost);
			fprintf(stderr, "\r  %.0f s  %" PRIu64 " events/s  %.1f MiB  %" PRIu64 " lost   ",
				rec_now_s() - start,
				(uint64_t)((ev - events_last) / (rec_now_s() - last)),
				ng_rec_bytes(r->rec) / 1048576.0, lost);
			events_last = ev;
			last = rec_now_s();
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
	struct timespec poll = { 0, REC_POLL_MS * 1000000L };
	struct ng_ctl_stats st;
	uint64_t live = 0;
	int i, ret;

	ret = ng_session_set(r->session, "tracing_on", "0");
	if (ret)
		return rec_fail("cannot stop the module: %s/tracing_on: %s",
				ng_ctl_root(&r->ctl), strerror(-ret));
	for (i = 0; i < 20 && !rec_abort_signal; i++) {
		module_events(r, &live);
		if (!live)
			break;
		nanosleep(&poll, NULL);
	}
	if (!ng_ctl_stats(&r->ctl, &st) && st.skipped >= r->stats0.skipped) {
		r->skipped = st.skipped - r->stats0.skipped;
		r->skipped_known = r->stats0_read;
	}
	return rec_drain(r);
}

/*
 * The tracer's cost per call, for --compensate: measured after the
 * recording (nothing delays its start), in the raw mode only (the trace
 * events' cost would need its own instance).  A failure costs only the
 * figure, said in one line.
 */
static void calibrate(struct run *r, const struct rec_opts *o)
{
	int ret;

	if (!o->raw || o->no_calibrate || rec_abort_signal)
		return;
	ret = ng_calibrate(r->session, &r->clock, &r->overhead, r->overhead_fn,
			   sizeof(r->overhead_fn));
	r->calibrated = !ret;
	if (ret)
		fprintf(stderr, "nanograph record: warning: the tracer's cost per call could not be measured (%s): --compensate will need --overhead\n",
			ret == -EIO ? "calibration calls not recorded whole, or lost in noise" :
			strerror(-ret));
}

/* The recording from tracing_on=1 to its files: stream, stop, write. */
int rec_record_whole(struct run *r, const struct rec_opts *o)
{
	int ret = stream(r, o);
	double secs;

	if (!ret)
		ret = stop_recording(r);
	if (ret)
		return ret;
	rec_pass_signal(&r->wl);
	secs = rec_now_s() - r->start_s;
	r->duration_ns = (uint64_t)(secs * 1e9 + 0.5);
	calibrate(r, o);
	rec_converting = 1;
	if (rec_abort_signal)
		return rec_interrupted(o->dir);
	/* Symbols after the run: reading kallsyms takes a while; not at the start. */
	rec_load_symbols(r, o);
	return rec_write_output(r, o);
}
