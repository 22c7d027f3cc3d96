/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * nanograph_perfetto.h - part of libnanograph (include nanograph.h): a
 * recording written in Perfetto's own trace format, the protobuf stream
 * of TracePackets that ui.perfetto.dev and trace_processor read natively
 * (Documentation/report-export.md, "--perfetto").
 */
#ifndef NANOGRAPH_PERFETTO_H
#define NANOGRAPH_PERFETTO_H

#include <stdint.h>

struct ng_recording;
struct ng_pp_bad;

/*
 * The trusted_packet_sequence_id and track uuids of the export: thread i
 * of the recording (in ng_recording_open() order) writes sequence i + 1;
 * its track is NG_PF_THREAD_UUID + its Chrome tid, its process's track
 * NG_PF_PROCESS_UUID + its Chrome pid (ng_chrome_tid(), ng_chrome_pid()).
 */
#define NG_PF_PROCESS_UUID	(1ULL << 32)
#define NG_PF_THREAD_UUID	(2ULL << 32)
/* A thread's off-CPU track (record --sched), a child of its track. */
#define NG_PF_STATE_UUID	(3ULL << 32)
/* The sequence-scoped clock whose packet timestamps are deltas. */
#define NG_PF_CLOCK_INCREMENTAL	64

/* What an export wrote, for the command's tests and the benchmarks. */
struct ng_pf_stats {
	uint64_t calls;		/* slices: one BEGIN and one END packet each */
	uint64_t packets;	/* all TracePackets */
	uint64_t interned;	/* event names interned, summed over sequences */
	uint64_t bytes;		/* size of the file */
	uint64_t states;	/* off-CPU slices (record --sched) */
	uint64_t flows;		/* wake arrows: waker's call -> woken's */
};

/*
 * Write @rec to @path (through a temporary name, so @path only ever holds
 * a whole file) as a Perfetto Trace: per thread one packet sequence with
 * a TrackDescriptor (ThreadDescriptor pid, tid, name) under its process's
 * (ProcessDescriptor pid, name), then a TYPE_SLICE_BEGIN and a
 * TYPE_SLICE_END TrackEvent per call, names interned once per sequence,
 * timestamps as deltas of an incremental clock anchored to CLOCK_MONOTONIC
 * by a ClockSnapshot. Streamed: memory follows the number of distinct
 * labels, never the number of calls.
 *
 * A recording with a sched.tsv (record --sched) gets one more sequence
 * per thread it names, after the threads': a child track of the thread's
 * ("off-CPU", NG_PF_STATE_UUID + its Chrome tid) with a slice for each
 * time asleep ("Sleeping", then who woke it) and each time runnable
 * ("Runnable", "Runnable (preempted)"); and for each wake by a thread of
 * the recording, an instant on the waker's track (in the call it was in)
 * and one on the woken's at its next switch-in (in the call it was
 * blocked in), joined by a flow. 0, or -errno with *@bad saying which
 * input file and line failed, if any; *@st (may be NULL) on success.
 */
int ng_export_perfetto(const struct ng_recording *rec, const char *path,
		       struct ng_pp_bad *bad, struct ng_pf_stats *st);

#endif /* NANOGRAPH_PERFETTO_H */
