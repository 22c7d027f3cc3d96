// SPDX-License-Identifier: LGPL-2.1
/*
 * perfetto.c - a recording in Perfetto's own trace format: a Trace, i.e.
 * a stream of "repeated TracePacket packet = 1" entries, written with a
 * protobuf wire encoder of a few lines (varints and length-delimited
 * fields), no protobuf library.
 *
 * Layout, per thread of the recording, one packet sequence
 * (trusted_packet_sequence_id = its index + 1), in the order of
 * Perfetto's own SDK (track_event_internal.cc, ResetIncrementalState):
 *
 *   the packet that starts the sequence's state, t0 being the time of the
 *   thread's first call:
 *     sequence_flags SEQ_INCREMENTAL_STATE_CLEARED,
 *     TracePacketDefaults { timestamp_clock_id 64,
 *                           TrackEventDefaults { track_uuid: the thread } },
 *     ClockSnapshot { MONOTONIC = t0, clock 64 = t0 is_incremental,
 *                     primary_trace_clock MONOTONIC }
 *   TrackDescriptor of its process (once per process, on the first
 *     sequence that has it): uuid, ProcessDescriptor { pid, process_name }
 *   TrackDescriptor of the thread: uuid, parent_uuid (the process's),
 *     ThreadDescriptor { pid, tid, thread_name }
 *     (both at t0; a thread without calls has only these two, untimed)
 *   per call a TYPE_SLICE_BEGIN TrackEvent with name_iid, and a
 *     TYPE_SLICE_END one; each timestamp the delta from the sequence's
 *     previous one (clock 64 is incremental), the first delta 0 from t0;
 *     the BEGIN that first uses a name on the sequence also carries
 *     InternedData { EventName { iid, name } } and SEQ_NEEDS_INCREMENTAL_STATE.
 *   with args.tsv and retval.tsv (record --args, --retval), a call's
 *     arguments (and call site) as debug_annotations { name,
 *     string_value } of its BEGIN, its return value as "ret" on its END
 *     (Perfetto shows both among the slice's args), typed as replay
 *     writes them.
 *
 * With a sched.tsv (record --sched), after every thread's sequence, one
 * more for each thread it names (pf_sched()): cleared as above with its
 * off-CPU track (a child of the thread's, named "off-CPU") as default;
 * that track's TrackDescriptor; then in time order its slices (names as
 * strings, not interned: each differs) and, for a wake by a thread of
 * the recording, a TYPE_INSTANT on the waker's track with flow_ids and
 * one on the woken thread's track at its switch-in with
 * terminating_flow_ids (track_uuid given on each: Perfetto places events
 * by track and time, whatever sequence they come on).
 *
 * Packets that only use an iid (and the incremental clock) do not repeat
 * SEQ_NEEDS_INCREMENTAL_STATE: Perfetto's importer reads that flag only to
 * drop packets of a sequence whose state was lost with earlier packets (a
 * ring buffer that wrapped), which an export never has, and 2 bytes on
 * each of the two packets of a call would be a sixth of the file.
 *
 * Field numbers are those of Perfetto's protos (protos/perfetto/trace/):
 * selftests/host/perfetto_min.proto holds just these messages, with the
 * upstream file each comes from, and the host tests decode exports with
 * protoc and it.
 *
 * Memory: the buffers of two rings (about 9 MB) and one map entry per
 * distinct label, which remembers the label's iid on the current
 * sequence; nothing per call. Parsing, encoding and writing run in three
 * threads (perfetto_int.h): the parser is perfetto_parse.c, the rings
 * between them perfetto_ring.c, the wire encoding perfetto_pb.h; this
 * file is the encoder, which builds the tracks and packets.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nanograph.h"
#include "json.h"
#include "outfile.h"
#include "perfetto_int.h"
#include "perfetto_pb.h"
#include "strmap.h"

/* ---- the encoder ---- */

#define PF_OUT_SIZE	(1U << 20)
/* Room a BEGIN or END packet without interned data never exceeds. */
#define PF_EVENT_MAX	48

/* What the map remembers of a label. */
struct pf_name {
	uint32_t seq;		/* the last sequence that interned it */
	uint32_t iid;		/* its iid there */
	char *clean;		/* the label as valid UTF-8, NULL if it is */
};

struct pf {
	const struct ng_recording *rec;
	struct ng_outfile out;
	struct pf_ring outq;		/* encoder -> writer */
	uint8_t *buf;			/* the output buffer being filled */
	size_t len, cap;
	int werr;			/* the writer's first error */
	struct ng_strmap *names;	/* label -> struct pf_name */
	struct ng_strmap *pids;		/* pid -> nothing: processes described */
	struct pb pkt, sub, sub2, ann;	/* builders for the rare packets */
	uint8_t pend[4096];		/* REC_VALUES for the next push or pop */
	size_t pend_len;
	uint32_t seq;			/* this thread's sequence */
	uint32_t next_iid;		/* the last iid given on it */
	uint64_t last_ns;		/* incremental clock: the last timestamp */
	uint64_t track;			/* this thread's track uuid */
	const struct ng_rec_thread *thread;
	bool started;			/* its state-clearing packet is written */
	struct ng_pf_stats st;
};

/* The writer thread: write each full buffer; after an error, skip them. */
static void *pf_writer(void *arg)
{
	struct pf *w = arg;
	const uint8_t *buf;
	size_t len;
	int err = 0;

	while (ng_pf_ring_pop(&w->outq, &buf, &len)) {
		if (!err && len && fwrite(buf, 1, len, w->out.fp) != len)
			err = errno ? -errno : -EIO;
		ng_pf_ring_release(&w->outq, err);
	}
	w->werr = err;	/* read after pthread_join() */
	return NULL;
}

/* Pass the full output buffer on; a write error fails the export. */
static void pf_flush(struct pf *w)
{
	bool cancel;

	if (!w->len)
		return;
	w->st.bytes += w->len;
	w->buf = ng_pf_ring_push(&w->outq, w->len, &w->cap, &cancel);
	w->len = 0;
	if (cancel && !w->out.err)
		w->out.err = -EIO;	/* the writer's own error replaces it */
}

/* Append @len bytes, across buffers if they do not fit in this one. */
static void pf_put(struct pf *w, const void *data, size_t len)
{
	const uint8_t *d = data;
	size_t n;

	while (len) {
		if (w->len == w->cap)
			pf_flush(w);
		n = w->cap - w->len < len ? w->cap - w->len : len;
		memcpy(w->buf + w->len, d, n);
		w->len += n;
		d += n;
		len -= n;
	}
}

/* One TracePacket from the builder, as "packet" of the Trace. */
static int pf_put_packet(struct pf *w, struct pb *body)
{
	uint8_t head[11], *p = head;

	if (body->oom)
		return -ENOMEM;
	*p++ = TAG(TRACE_PACKET, WT_LEN);
	p = put_varint(p, body->len);
	pf_put(w, head, p - head);
	pf_put(w, body->p, body->len);
	body->len = 0;
	w->st.packets++;
	return w->out.err;
}

/*
 * @s as valid UTF-8, malloc'd, each byte that does not start a valid
 * sequence replaced by U+FFFD; NULL when @s is valid already (kernel
 * symbols always are) or without memory (*@oom set).
 */
static char *utf8_clean(const char *s, bool *oom)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n, bad = 0;
	char *out, *p;

	for (; *u; u += n ? n : 1) {
		n = *u < 0x80 ? 1 : ng_utf8_len(u);
		bad += !n;
	}
	if (!bad)
		return NULL;
	out = malloc(strlen(s) + 2 * bad + 1);
	if (!out) {
		*oom = true;
		return NULL;
	}
	for (u = (const unsigned char *)s, p = out; *u; u += n ? n : 1) {
		n = *u < 0x80 ? 1 : ng_utf8_len(u);
		if (n) {
			memcpy(p, u, n);
			p += n;
		} else {
			memcpy(p, "\xef\xbf\xbd", 3);
			p += 3;
		}
	}
	*p = '\0';
	return out;
}

/* A string field with @s made valid UTF-8 (comms are any bytes). */
static void pb_string(struct pb *b, unsigned int field, const char *s)
{
	bool oom = false;
	char *clean = utf8_clean(s, &oom);

	if (oom)
		b->oom = true;
	s = clean ? clean : s;
	pb_bytes(b, field, s, strlen(s));
	free(clean);
}

/*
 * The thread's TrackDescriptor, after its process's the first time that
 * process is seen. Track descriptors are trace-wide; they go on the
 * thread's sequence, at its t0 when @timed (delta 0 on clock 64).
 */
static int pf_describe(struct pf *w, bool timed)
{
	const struct ng_rec_thread *t = w->thread;
	long long pid = ng_chrome_pid(t), tid = ng_chrome_tid(t);
	uint64_t proc = NG_PF_PROCESS_UUID + pid;
	bool added;
	int ret;

	if (!ng_strmap_get(w->pids, &pid, sizeof(pid), &added))
		return -ENOMEM;
	if (added) {
		pb_varint(&w->sub, PD_PID, pid);
		pb_string(&w->sub, PD_PROCESS_NAME, t->process);
		pb_varint(&w->sub2, TD_UUID, proc);
		pb_msg(&w->sub2, TD_PROCESS, &w->sub);
		if (timed)
			pb_varint(&w->pkt, PKT_TIMESTAMP, 0);
		pb_msg(&w->pkt, PKT_TRACK_DESCRIPTOR, &w->sub2);
		pb_varint(&w->pkt, PKT_SEQUENCE_ID, w->seq);
		ret = pf_put_packet(w, &w->pkt);
		if (ret)
			return ret;
	}
	pb_varint(&w->sub, THD_PID, pid);
	pb_varint(&w->sub, THD_TID, tid);
	pb_string(&w->sub, THD_THREAD_NAME, t->comm);
	pb_varint(&w->sub2, TD_UUID, w->track);
	pb_varint(&w->sub2, TD_PARENT_UUID, proc);
	pb_msg(&w->sub2, TD_THREAD, &w->sub);
	if (timed)
		pb_varint(&w->pkt, PKT_TIMESTAMP, 0);
	pb_msg(&w->pkt, PKT_TRACK_DESCRIPTOR, &w->sub2);
	pb_varint(&w->pkt, PKT_SEQUENCE_ID, w->seq);
	return pf_put_packet(w, &w->pkt);
}

/*
 * Clear the sequence's state, make clock 64 (incremental, starting at
 * @t0) and w->track the defaults of its packets, and tie clock 64 to
 * CLOCK_MONOTONIC, the clock of the recording, which is also the trace's.
 */
static int pf_clear(struct pf *w, uint64_t t0)
{
	struct pb clock = { 0 };

	pb_varint(&w->pkt, PKT_SEQUENCE_ID, w->seq);
	pb_varint(&w->pkt, PKT_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);

	pb_varint(&w->sub, TED_TRACK_UUID, w->track);
	pb_varint(&w->sub2, DEF_TIMESTAMP_CLOCK_ID, NG_PF_CLOCK_INCREMENTAL);
	pb_msg(&w->sub2, DEF_TRACK_EVENT_DEFAULTS, &w->sub);
	pb_msg(&w->pkt, PKT_DEFAULTS, &w->sub2);

	pb_varint(&clock, CLK_CLOCK_ID, BUILTIN_CLOCK_MONOTONIC);
	pb_varint(&clock, CLK_TIMESTAMP, t0);
	pb_msg(&w->sub, CS_CLOCKS, &clock);
	pb_varint(&clock, CLK_CLOCK_ID, NG_PF_CLOCK_INCREMENTAL);
	pb_varint(&clock, CLK_TIMESTAMP, t0);
	pb_varint(&clock, CLK_IS_INCREMENTAL, 1);
	pb_msg(&w->sub, CS_CLOCKS, &clock);
	pb_varint(&w->sub, CS_PRIMARY_TRACE_CLOCK, BUILTIN_CLOCK_MONOTONIC);
	pb_msg(&w->pkt, PKT_CLOCK_SNAPSHOT, &w->sub);
	free(clock.p);

	w->started = true;
	w->last_ns = t0;
	return pf_put_packet(w, &w->pkt);
}

/* Before the sequence's first call: clear it, then describe the tracks. */
static int pf_start(struct pf *w, uint64_t t0)
{
	int ret = pf_clear(w, t0);

	return ret ? ret : pf_describe(w, true);
}

/* The annotations of @blob (REC_VALUES) into @te, a TrackEvent. */
static void pf_annotate(struct pf *w, struct pb *te, const uint8_t *blob,
			size_t len)
{
	const uint8_t *p = blob, *end = blob + len;
	uint16_t nl, vl;

	while (end - p >= 4) {
		memcpy(&nl, p, 2);
		if ((size_t)(end - p) < 4U + nl)
			break;
		memcpy(&vl, p + 2 + nl, 2);
		if ((size_t)(end - p) < 4U + nl + vl)
			break;
		pb_bytes(&w->ann, DA_NAME, p + 2, nl);
		pb_bytes(&w->ann, DA_STRING_VALUE, p + 4 + nl, vl);
		pb_msg(te, TE_DEBUG_ANNOTATIONS, &w->ann);
		p += 4 + nl + vl;
	}
}

/*
 * The rare, slow path, with builders: a BEGIN that interns its name
 * (@n) on this sequence (@intern), or a BEGIN or END (@type) with
 * annotations (@blob, REC_VALUES's).
 */
static int pf_event_built(struct pf *w, uint64_t delta, unsigned int type,
			      struct pf_name *n, bool intern,
			      const uint8_t *blob, size_t len)
{
	pb_varint(&w->pkt, PKT_TIMESTAMP, delta);
	pb_varint(&w->sub, TE_TYPE, type);
	if (n)
		pb_varint(&w->sub, TE_NAME_IID, n->iid);
	pf_annotate(w, &w->sub, blob, len);
	pb_msg(&w->pkt, PKT_TRACK_EVENT, &w->sub);
	pb_varint(&w->pkt, PKT_SEQUENCE_ID, w->seq);
	if (intern) {
		const char *name = n->clean ? n->clean : ng_strmap_key(n);

		pb_varint(&w->sub, EN_IID, n->iid);
		pb_bytes(&w->sub, EN_NAME, name, strlen(name));
		pb_msg(&w->sub2, ID_EVENT_NAMES, &w->sub);
		pb_msg(&w->pkt, PKT_INTERNED_DATA, &w->sub2);
		pb_varint(&w->pkt, PKT_SEQUENCE_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
		w->st.interned++;
	}
	return pf_put_packet(w, &w->pkt);
}

/*
 * A call starts. The common case, a name this sequence has interned
 * already, is written in place:
 *   0a LEN  40 <delta>  5a LEN 48 01 50 <iid>  50 <seq>
 */
static int pf_enter(struct pf *w, const char *label, size_t len, uint64_t ns,
		    const uint8_t *ann, size_t ann_len)
{
	struct pf_name *n = ng_strmap_get(w->names, label, len, NULL);
	uint8_t *p, *body;
	uint64_t delta;
	bool oom = false;
	int ret;

	if (!n)
		return -ENOMEM;
	if (!w->started) {
		ret = pf_start(w, ns);
		if (ret)
			return ret;
	}
	delta = ns - w->last_ns;
	w->last_ns = ns;
	w->st.calls++;
	if (n->seq != w->seq) {
		if (!n->seq) {		/* new to the map: is it UTF-8? */
			n->clean = utf8_clean(ng_strmap_key(n), &oom);
			if (oom)
				return -ENOMEM;
		}
		n->seq = w->seq;
		n->iid = ++w->next_iid;
		return pf_event_built(w, delta, TYPE_SLICE_BEGIN, n, true,
				      ann, ann_len);
	}
	if (ann_len)
		return pf_event_built(w, delta, TYPE_SLICE_BEGIN, n, false,
					  ann, ann_len);
	if (w->len + PF_EVENT_MAX > w->cap)
		pf_flush(w);
	p = w->buf + w->len;
	body = p + 2;
	p = body;
	*p++ = TAG(PKT_TIMESTAMP, WT_VARINT);
	p = put_varint(p, delta);
	*p++ = TAG(PKT_TRACK_EVENT, WT_LEN);
	*p++ = 3 + vlen(n->iid);
	*p++ = TAG(TE_TYPE, WT_VARINT);
	*p++ = TYPE_SLICE_BEGIN;
	*p++ = TAG(TE_NAME_IID, WT_VARINT);
	p = put_varint(p, n->iid);
	*p++ = TAG(PKT_SEQUENCE_ID, WT_VARINT);
	p = put_varint(p, w->seq);
	body[-2] = TAG(TRACE_PACKET, WT_LEN);
	body[-1] = p - body;	/* at most 31: one byte */
	w->len = p - w->buf;
	w->st.packets++;
	return w->out.err;
}

/* A call ends: 0a LEN  40 <delta>  5a 02 48 02  50 <seq> */
static int pf_leave(struct pf *w, uint64_t ns, const uint8_t *ann,
		    size_t ann_len)
{
	uint8_t *p, *body;

	if (ann_len) {
		uint64_t delta = ns - w->last_ns;

		w->last_ns = ns;
		return pf_event_built(w, delta, TYPE_SLICE_END, NULL, false,
					  ann, ann_len);
	}
	if (w->len + PF_EVENT_MAX > w->cap)
		pf_flush(w);
	p = w->buf + w->len;
	body = p + 2;
	p = body;
	*p++ = TAG(PKT_TIMESTAMP, WT_VARINT);
	p = put_varint(p, ns - w->last_ns);
	w->last_ns = ns;
	*p++ = TAG(PKT_TRACK_EVENT, WT_LEN);
	*p++ = 2;
	*p++ = TAG(TE_TYPE, WT_VARINT);
	*p++ = TYPE_SLICE_END;
	*p++ = TAG(PKT_SEQUENCE_ID, WT_VARINT);
	p = put_varint(p, w->seq);
	body[-2] = TAG(TRACE_PACKET, WT_LEN);
	body[-1] = p - body;
	w->len = p - w->buf;
	w->st.packets++;
	return w->out.err;
}

/* Thread @i of the recording starts: a sequence of its own. */
static void pf_thread(struct pf *w, size_t i)
{
	w->thread = &w->rec->threads[i];
	w->seq = i + 1;
	w->next_iid = 0;
	w->started = false;
	w->track = NG_PF_THREAD_UUID + ng_chrome_tid(w->thread);
}

/* Its file ended: a thread without calls is still described. */
static int pf_thread_done(struct pf *w)
{
	return w->started ? 0 : pf_describe(w, false);
}

/* ---- scheduling: sched.tsv's spans off the CPU, and who woke whom ---- */

/*
 * One TrackEvent of the sequence at @ns: @type on @track (0: the
 * sequence's default), named @name (NULL: no name), with @flow (0: none)
 * in field @flow_field.
 */
static int pf_event(struct pf *w, uint64_t ns, unsigned int type,
		    uint64_t track, const char *name, unsigned int flow_field,
		    uint64_t flow)
{
	pb_varint(&w->pkt, PKT_TIMESTAMP, ns - w->last_ns);
	w->last_ns = ns;
	pb_varint(&w->sub, TE_TYPE, type);
	if (track)
		pb_varint(&w->sub, TE_TRACK_UUID, track);
	if (name)
		pb_string(&w->sub, TE_NAME, name);
	if (flow)
		pb_fixed64(&w->sub, flow_field, flow);
	pb_msg(&w->pkt, PKT_TRACK_EVENT, &w->sub);
	pb_varint(&w->pkt, PKT_SEQUENCE_ID, w->seq);
	return pf_put_packet(w, &w->pkt);
}

/* A slice of the off-CPU track over [@from, @to), if it is not empty. */
static int pf_state(struct pf *w, uint64_t from, uint64_t to, const char *name)
{
	int ret;

	if (to <= from)
		return 0;
	ret = pf_event(w, from, TYPE_SLICE_BEGIN, 0, name, 0, 0);
	if (!ret)
		ret = pf_event(w, to, TYPE_SLICE_END, 0, NULL, 0, 0);
	w->st.states += !ret;
	return ret;
}

/*
 * One span off the CPU of thread @t, in time order: asleep; if a thread
 * of the recording woke it, an instant in the waker's call at the wake
 * with a flow; runnable; the instant in @t's own call at its switch-in
 * that ends the flow.
 */
static int pf_span(struct pf *w, const struct ng_sched_span *sp,
		   const struct ng_rec_thread *t)
{
	const struct ng_rec_thread *waker = NULL;
	uint64_t flow = w->st.flows + 1;
	char name[NG_SCHED_SLEEP_MAX];
	int ret;

	if (sp->wake_ns == UINT64_MAX || sp->in_ns == UINT64_MAX)
		return 0;		/* still off the CPU at the end */
	ret = pf_state(w, sp->out_ns, sp->wake_ns,
		       ng_sched_sleep_name(name, sizeof(name), sp));
	if (!ret)
		waker = ng_recording_waker(w->rec, sp);
	if (!ret && waker) {
		snprintf(name, sizeof(name), "wakes %s", t->tid);
		ret = pf_event(w, sp->woken_ns, TYPE_INSTANT,
			       NG_PF_THREAD_UUID + ng_chrome_tid(waker), name,
			       TE_FLOW_IDS, flow);
	}
	if (!ret)
		ret = pf_state(w, sp->wake_ns, sp->in_ns,
			       ng_sched_runnable_name(sp));
	if (!ret && waker) {
		snprintf(name, sizeof(name), "woken by %s", waker->tid);
		ret = pf_event(w, sp->in_ns, TYPE_INSTANT,
			       NG_PF_THREAD_UUID + ng_chrome_tid(t), name,
			       TE_TERMINATING_FLOW_IDS, flow);
		w->st.flows += !ret;
	}
	return ret;
}

/*
 * After every thread's sequence: a sequence for each thread sched.tsv
 * names, its off-CPU track described (a child of the thread's), then its
 * spans in time order.
 */
static int pf_sched(struct pf *w)
{
	const struct ng_sched_span *v;
	const struct ng_rec_thread *t;
	size_t i, j, n;
	int ret = 0;

	w->seq = w->rec->nr_threads;
	for (i = 0; !ret && i < w->rec->nr_threads; i++) {
		t = &w->rec->threads[i];
		n = t->idle ? 0 : ng_sched_spans(w->rec->sched, (int)t->id, &v);
		if (!n || v[0].out_ns == UINT64_MAX)
			continue;
		w->seq++;
		w->track = NG_PF_STATE_UUID + ng_chrome_tid(t);
		/* its first event: the out, or a wake that came just before it */
		ret = pf_clear(w, v[0].woken_ns < v[0].out_ns ? v[0].woken_ns :
				  v[0].out_ns);
		if (ret)
			break;
		pb_varint(&w->sub, TD_UUID, w->track);
		pb_varint(&w->sub, TD_PARENT_UUID,
			  NG_PF_THREAD_UUID + ng_chrome_tid(t));
		pb_string(&w->sub, TD_NAME, "off-CPU");
		pb_varint(&w->pkt, PKT_TIMESTAMP, 0);
		pb_msg(&w->pkt, PKT_TRACK_DESCRIPTOR, &w->sub);
		pb_varint(&w->pkt, PKT_SEQUENCE_ID, w->seq);
		ret = pf_put_packet(w, &w->pkt);
		for (j = 0; !ret && j < n; j++)
			ret = pf_span(w, &v[j], t);
	}
	return ret;
}

/* Encode one buffer of records; the first error stops it. */
static int pf_records(struct pf *w, const uint8_t *p, size_t len)
{
	const uint8_t *end = p + len;
	uint64_t ns;
	uint32_t n;
	int ret = 0;

	while (!ret && p < end) {
		switch (*p++) {
		case REC_ENTER:
			memcpy(&ns, p, 8);
			memcpy(&n, p + 8, 4);
			ret = pf_enter(w, (const char *)p + 12, n, ns, w->pend,
				       w->pend_len);
			w->pend_len = 0;
			p += 12 + n;
			break;
		case REC_LEAVE:
			memcpy(&ns, p, 8);
			ret = pf_leave(w, ns, w->pend, w->pend_len);
			w->pend_len = 0;
			p += 8;
			break;
		case REC_VALUES:
			memcpy(&n, p, 4);
			w->pend_len = n <= sizeof(w->pend) ? n : 0;
			memcpy(w->pend, p + 4, w->pend_len);
			p += 4 + n;
			break;
		case REC_THREAD:
			memcpy(&n, p, 4);
			pf_thread(w, n);
			p += 4;
			break;
		default:	/* REC_DONE */
			ret = pf_thread_done(w);
			break;
		}
	}
	return ret;
}

/* Free the cleaned labels and the maps. */
static void pf_free(struct pf *w)
{
	void **all;
	size_t i, n;

	if (w->names && !ng_strmap_values(w->names, &all, &n)) {
		for (i = 0; i < n; i++)
			free(((struct pf_name *)all[i])->clean);
		free(all);
	}
	ng_strmap_free(w->names);
	ng_strmap_free(w->pids);
	free(w->pkt.p);
	free(w->sub.p);
	free(w->sub2.p);
	free(w->ann.p);
}

/*
 * Parser, encoder and writer over the rings; the first error stops all
 * three, and a bad input leaves no file.
 */
static int pf_run(struct pf *w, struct pf_parser *ps)
{
	pthread_t parser, writer;
	const uint8_t *buf;
	size_t len;
	int ret = 0;

	if ((errno = pthread_create(&writer, NULL, pf_writer, w)))
		return -errno;
	if ((errno = pthread_create(&parser, NULL, ng_pf_parser_main, ps))) {
		ret = -errno;
		ng_pf_ring_close(&w->outq, 0);
		pthread_join(writer, NULL);
		return ret;
	}
	w->buf = ng_pf_ring_cur(&w->outq, &w->cap);
	while (ng_pf_ring_pop(&ps->q, &buf, &len)) {
		if (!ret)	/* after an error, only keep the ring moving */
			ret = pf_records(w, buf, len);
		ng_pf_ring_release(&ps->q, ret);
	}
	pthread_join(parser, NULL);
	if (!ret)
		ret = ps->ret;
	if (!ret && ng_recording_draws_sched(w->rec))
		ret = pf_sched(w);
	if (!ret)
		w->st.bytes += w->len;
	ng_pf_ring_close(&w->outq, ret ? 0 : w->len);
	pthread_join(writer, NULL);
	if (ret == -EIO && w->werr)	/* the writer stopped us: its error */
		ret = w->werr;
	return ret ? ret : w->werr;
}

int ng_export_perfetto(const struct ng_recording *rec, const char *path,
		       struct ng_pp_bad *bad, struct ng_pf_stats *st)
{
	struct pf w = { .rec = rec };
	struct pf_parser ps = { .rec = rec };
	struct ng_pp_bad ignored;
	int ret;

	ps.bad = bad ? bad : &ignored;
	memset(ps.bad, 0, sizeof(*ps.bad));
	if (rec->nr_threads >= UINT32_MAX / 2)	/* and a sched sequence each */
		return -E2BIG;
	w.names = ng_strmap_new(sizeof(struct pf_name));
	w.pids = ng_strmap_new(0);
	ret = !w.names || !w.pids ? -ENOMEM : 0;
	if (!ret)
		ret = ng_pf_ring_init(&w.outq, PF_OUT_SIZE);
	if (!ret)
		ret = ng_pf_ring_init(&ps.q, PF_REC_SIZE);
	if (!ret)
		ret = ng_outfile_open_path(&w.out, path);
	if (!ret) {
		/* our own buffers: stdio's would only copy them once more */
		setvbuf(w.out.fp, NULL, _IONBF, 0);
		ret = pf_run(&w, &ps);
		/* the walk's own failure: name its file */
		if (ret && ret == ps.ret && ret != -ENOMEM)
			ps.bad->file = rec->threads[ps.failed].file;
		if (ret)
			ng_outfile_abort(&w.out);
		else
			ret = ng_outfile_commit(&w.out);
	}
	if (!ret && st)
		*st = w.st;
	ng_pf_ring_free(&ps.q);
	ng_pf_ring_free(&w.outq);
	pf_free(&w);
	return ret;
}
