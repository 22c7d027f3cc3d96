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
 * threads (below, "the encoder").
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
#include "strmap.h"

/* Wire types (encoding.md of protobuf): varint, 64-bit, length-delimited. */
#define WT_VARINT	0
#define WT_I64		1
#define WT_LEN		2
#define TAG(field, wt)	(((field) << 3) | (wt))

/* Trace (trace.proto) */
#define TRACE_PACKET			1
/* TracePacket (trace_packet.proto) */
#define PKT_CLOCK_SNAPSHOT		6
#define PKT_TIMESTAMP			8
#define PKT_SEQUENCE_ID			10	/* trusted_packet_sequence_id */
#define PKT_TRACK_EVENT			11
#define PKT_INTERNED_DATA		12
#define PKT_SEQUENCE_FLAGS		13
#define PKT_DEFAULTS			59	/* trace_packet_defaults */
#define PKT_TRACK_DESCRIPTOR		60
#define SEQ_INCREMENTAL_STATE_CLEARED	1
#define SEQ_NEEDS_INCREMENTAL_STATE	2
/* TracePacketDefaults (trace_packet_defaults.proto) */
#define DEF_TIMESTAMP_CLOCK_ID		58
#define DEF_TRACK_EVENT_DEFAULTS	11
/* TrackEventDefaults (track_event/track_event.proto) */
#define TED_TRACK_UUID			11
/* TrackEvent (track_event/track_event.proto) */
#define TE_TYPE				9
#define TE_NAME_IID			10
#define TE_TRACK_UUID			11
#define TE_NAME				23
#define TE_DEBUG_ANNOTATIONS		4
#define TE_FLOW_IDS			47	/* repeated fixed64 */
#define TE_TERMINATING_FLOW_IDS		48	/* repeated fixed64 */
#define TYPE_SLICE_BEGIN		1
#define TYPE_SLICE_END			2
#define TYPE_INSTANT			3
/* DebugAnnotation (track_event/debug_annotation.proto) */
#define DA_STRING_VALUE			6
#define DA_NAME				10
/* InternedData (interned_data/interned_data.proto), EventName */
#define ID_EVENT_NAMES			2
#define EN_IID				1
#define EN_NAME				2
/* ClockSnapshot and its Clock (clock_snapshot.proto) */
#define CS_CLOCKS			1
#define CS_PRIMARY_TRACE_CLOCK		2
#define CLK_CLOCK_ID			1
#define CLK_TIMESTAMP			2
#define CLK_IS_INCREMENTAL		3
#define BUILTIN_CLOCK_MONOTONIC		3	/* common/builtin_clock.proto */
/* TrackDescriptor (track_event/track_descriptor.proto) */
#define TD_UUID				1
#define TD_NAME				2
#define TD_PROCESS			3
#define TD_THREAD			4
#define TD_PARENT_UUID			5
/* ProcessDescriptor (track_event/process_descriptor.proto) */
#define PD_PID				1
#define PD_PROCESS_NAME			6
/* ThreadDescriptor (track_event/thread_descriptor.proto) */
#define THD_PID				1
#define THD_TID				2
#define THD_THREAD_NAME			5

/* ---- wire encoding ---- */

/* Bytes of @v as a varint: 7 bits a byte. */
static inline size_t vlen(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* @v as a varint at @p; returns the end. */
static inline uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)v | 0x80;
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/*
 * A message being built, for the packets written once per thread or per
 * name: fields appended in any order, a nested message built in a
 * builder of its own and appended with its length. Out of memory sticks.
 */
struct pb {
	uint8_t *p;
	size_t len, cap;
	bool oom;
};

static void pb_raw(struct pb *b, const void *data, size_t len)
{
	if (b->oom)
		return;
	if (b->len + len > b->cap) {
		size_t cap = 2 * (b->len + len) + 64;
		uint8_t *p = realloc(b->p, cap);

		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, len);
	b->len += len;
}

static void pb_varint_raw(struct pb *b, uint64_t v)
{
	uint8_t tmp[10];

	pb_raw(b, tmp, put_varint(tmp, v) - tmp);
}

/* A varint field (uint32, uint64, int64, bool, enum; int32 >= 0). */
static void pb_varint(struct pb *b, unsigned int field, uint64_t v)
{
	pb_varint_raw(b, TAG(field, WT_VARINT));
	pb_varint_raw(b, v);
}

/* A fixed64 field: 8 bytes, little-endian. */
static void pb_fixed64(struct pb *b, unsigned int field, uint64_t v)
{
	uint8_t le[8];
	int i;

	for (i = 0; i < 8; i++)
		le[i] = (uint8_t)(v >> (8 * i));
	pb_varint_raw(b, TAG(field, WT_I64));
	pb_raw(b, le, sizeof(le));
}

/* A length-delimited field: bytes, string, or an encoded message. */
static void pb_bytes(struct pb *b, unsigned int field, const void *data,
		     size_t len)
{
	pb_varint_raw(b, TAG(field, WT_LEN));
	pb_varint_raw(b, len);
	pb_raw(b, data, len);
}

static void pb_msg(struct pb *b, unsigned int field, struct pb *sub)
{
	if (sub->oom)
		b->oom = true;
	pb_bytes(b, field, sub->p, sub->len);
	sub->len = 0;
	sub->oom = false;
}

/* ---- handing buffers from one thread to the next ---- */

/*
 * A ring of buffers between a producer and a consumer thread: [done,
 * filled) are full and wait for the consumer, "filled" is the one the
 * producer fills. The counts never wrap (64 bits).
 */
#define PF_RING		4

struct pf_ring {
	uint8_t *bufs[PF_RING];
	size_t lens[PF_RING], caps[PF_RING];
	unsigned long filled, done;
	bool closed;		/* the producer has passed its last buffer */
	bool cancel;		/* the consumer wants no more */
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

/* Buffers of @size bytes; 0 or -ENOMEM (then ring_free() all the same). */
static int ring_init(struct pf_ring *r, size_t size)
{
	unsigned int i;

	memset(r, 0, sizeof(*r));
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->cond, NULL);
	for (i = 0; i < PF_RING; i++) {
		r->bufs[i] = malloc(size);
		if (!r->bufs[i])
			return -ENOMEM;
		r->caps[i] = size;
	}
	return 0;
}

static void ring_free(struct pf_ring *r)
{
	unsigned int i;

	for (i = 0; i < PF_RING; i++)
		free(r->bufs[i]);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->cond);
}

/* The buffer the producer fills now. */
static uint8_t *ring_cur(struct pf_ring *r, size_t *cap)
{
	*cap = r->caps[r->filled % PF_RING];
	return r->bufs[r->filled % PF_RING];
}

/*
 * Producer: pass on the buffer filled with @len bytes, wait until the
 * next is free, and return it. True in *@cancel once the consumer wants
 * no more (the producer may stop, or go on: nothing is lost either way).
 */
static uint8_t *ring_push(struct pf_ring *r, size_t len, size_t *cap,
			  bool *cancel)
{
	uint8_t *buf;

	pthread_mutex_lock(&r->lock);
	r->lens[r->filled % PF_RING] = len;
	r->filled++;
	pthread_cond_broadcast(&r->cond);
	while (r->filled - r->done == PF_RING)
		pthread_cond_wait(&r->cond, &r->lock);
	if (cancel)
		*cancel = r->cancel;
	buf = ring_cur(r, cap);
	pthread_mutex_unlock(&r->lock);
	return buf;
}

/* Producer: pass on the last buffer (@len bytes, may be 0) and stop. */
static void ring_close(struct pf_ring *r, size_t len)
{
	pthread_mutex_lock(&r->lock);
	r->lens[r->filled % PF_RING] = len;
	r->filled++;
	r->closed = true;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

/* Consumer: the next full buffer, or false when the producer closed. */
static bool ring_pop(struct pf_ring *r, const uint8_t **buf, size_t *len)
{
	bool got;

	pthread_mutex_lock(&r->lock);
	while (r->done == r->filled && !r->closed)
		pthread_cond_wait(&r->cond, &r->lock);
	got = r->done != r->filled;
	if (got) {
		*buf = r->bufs[r->done % PF_RING];
		*len = r->lens[r->done % PF_RING];
	}
	pthread_mutex_unlock(&r->lock);
	return got;
}

/* Consumer: done with the buffer ring_pop() gave; @cancel: want no more. */
static void ring_release(struct pf_ring *r, bool cancel)
{
	pthread_mutex_lock(&r->lock);
	r->done++;
	if (cancel)
		r->cancel = true;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

/* ---- the encoder ---- */

/*
 * Three threads, each a loop over buffers: the parser walks the push/pop
 * files (ng_filter_walk(), which checks them) and passes each push and pop on
 * as a record; the encoder (the caller's thread) looks each label up and
 * writes the packets; the writer thread writes the output buffers to the
 * file. Parsing and encoding take about half of the CPU time each
 * (checking the lines, and the hash lookup of each label), writing is
 * the page cache's copy: two cores convert nearly twice as fast as one,
 * and memory is the rings' buffers.
 *
 * Records, in the parser's buffers (numbers in host order, unaligned):
 *   REC_THREAD  u32 index   the next thread of the recording starts
 *   REC_ENTER   u64 ns, u32 len, label   a push
 *   REC_LEAVE   u64 ns                 a pop
 *   REC_VALUES  u32 len, annotations      the debug annotations of the
 *               push or pop that comes next: (u16 len, name, u16 len,
 *               value)...; before it, so that the two may lie in two
 *               buffers
 *   REC_DONE                            the thread's file ended well
 */
enum { REC_THREAD = 1, REC_ENTER, REC_LEAVE, REC_DONE, REC_VALUES };

#define PF_REC_SIZE	(256U << 10)
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

	while (ring_pop(&w->outq, &buf, &len)) {
		if (!err && len && fwrite(buf, 1, len, w->out.fp) != len)
			err = errno ? -errno : -EIO;
		ring_release(&w->outq, err);
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
	w->buf = ring_push(&w->outq, w->len, &w->cap, &cancel);
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

/* ---- the parser ---- */

struct pf_parser {
	const struct ng_recording *rec;
	int tid;			/* the thread's key in the tables */
	uint8_t ann[4096];		/* a call's annotations being made */
	size_t ann_len;
	struct pf_ring q;		/* parser -> encoder */
	uint8_t *buf;			/* the record buffer being filled */
	size_t len, cap;
	struct ng_pp_bad *bad;
	int ret;			/* the walk's error, -ECANCELED if told */
	size_t failed;			/* the thread whose file it is */
};

/* Room for @n more bytes of records; -ECANCELED if the encoder stopped. */
static inline int rec_room(struct pf_parser *ps, size_t n)
{
	bool cancel = false;
	size_t i;
	uint8_t *b;

	if (ps->len + n > ps->cap) {
		ps->buf = ring_push(&ps->q, ps->len, &ps->cap, &cancel);
		ps->len = 0;
		if (cancel)
			return -ECANCELED;
	}
	if (n > ps->cap) {	/* a label longer than a buffer */
		i = ps->q.filled % PF_RING;
		b = realloc(ps->q.bufs[i], n);
		if (!b)
			return -ENOMEM;
		ps->q.bufs[i] = ps->buf = b;
		ps->q.caps[i] = ps->cap = n;
	}
	return 0;
}

/* A record without a label: its type and @len bytes of numbers. */
static int rec_put(struct pf_parser *ps, uint8_t type, const void *num,
		   size_t len)
{
	int ret = rec_room(ps, 1 + len);

	if (ret)
		return ret;
	ps->buf[ps->len] = type;
	if (len)
		memcpy(ps->buf + ps->len + 1, num, len);
	ps->len += 1 + len;
	return 0;
}

/* One annotation into ps->ann; one that does not fit is left out. */
static int ann_put(void *priv, const char *name, const char *value, bool typed)
{
	struct pf_parser *ps = priv;
	uint16_t nl = (uint16_t)strlen(name), vl = (uint16_t)strlen(value);

	(void)typed;
	if (ps->ann_len + 4U + nl + vl > sizeof(ps->ann))
		return 0;
	memcpy(ps->ann + ps->ann_len, &nl, 2);
	memcpy(ps->ann + ps->ann_len + 2, name, nl);
	memcpy(ps->ann + ps->ann_len + 2 + nl, &vl, 2);
	memcpy(ps->ann + ps->ann_len + 4 + nl, value, vl);
	ps->ann_len += 4U + nl + vl;
	return 0;
}

/* The annotations made, as a REC_VALUES record after the push or pop. */
static int rec_values(struct pf_parser *ps)
{
	uint32_t len = (uint32_t)ps->ann_len;
	int ret;

	if (!len)
		return 0;
	ret = rec_room(ps, 5 + len);
	if (ret)
		return ret;
	ps->buf[ps->len] = REC_VALUES;
	memcpy(ps->buf + ps->len + 1, &len, 4);
	memcpy(ps->buf + ps->len + 5, ps->ann, len);
	ps->len += 5 + len;
	return 0;
}

static int rec_enter(void *priv, const char *label, uint64_t ns, size_t depth)
{
	struct pf_parser *ps = priv;
	uint32_t len = strlen(label);
	uint8_t *p;
	int ret;

	if (ps->rec->values) {
		const struct ng_call_values *v =
			ng_values_args(ps->rec->values, ps->tid, ns, (unsigned int)depth);

		ps->ann_len = 0;
		if (v) {
			ng_args_each(ps->rec->values, label, v, ann_put, ps);
			if (v->site[0])
				ann_put(ps, "site", v->site, true);
		}
		ret = rec_values(ps);
		if (ret)
			return ret;
	}
	ret = rec_room(ps, 13 + len);
	if (ret)
		return ret;
	p = ps->buf + ps->len;
	*p = REC_ENTER;
	memcpy(p + 1, &ns, 8);
	memcpy(p + 9, &len, 4);
	memcpy(p + 13, label, len);
	ps->len += 13 + len;
	return 0;
}

static int rec_leave(void *priv, const struct ng_call *call)
{
	struct pf_parser *ps = priv;
	int ret;

	if (ps->rec->values) {
		const struct ng_call_values *v =
			ng_values_ret(ps->rec->values, ps->tid, call->end_ns,
				      (unsigned int)call->depth);
		char text[64];

		ps->ann_len = 0;
		if (v && ng_retval_text(ps->rec->values, call->label, text,
					sizeof(text), v->retval))
			ann_put(ps, "ret", text, true);
		ret = rec_values(ps);
		if (ret)
			return ret;
	}
	ret = rec_room(ps, 9);
	if (ret)
		return ret;
	ps->buf[ps->len] = REC_LEAVE;
	memcpy(ps->buf + ps->len + 1, &call->end_ns, 8);
	ps->len += 9;
	return 0;
}

/* The parser thread: every file in turn, until the end or an error. */
static void *pf_parser_main(void *arg)
{
	struct pf_parser *ps = arg;
	struct ng_pp_visitor v = { rec_enter, rec_leave, ps };
	uint32_t i;
	int ret = 0;

	ps->buf = ring_cur(&ps->q, &ps->cap);
	for (i = 0; !ret && i < ps->rec->nr_threads; i++) {
		ps->tid = ng_rec_thread_key(&ps->rec->threads[i]);
		ret = rec_put(ps, REC_THREAD, &i, 4);
		if (!ret)
			ret = ng_recording_walk(ps->rec, &ps->rec->threads[i],
						&v, ps->bad);
		if (!ret)
			ret = rec_put(ps, REC_DONE, NULL, 0);
		if (ret)
			ps->failed = i;
	}
	ps->ret = ret;		/* read after pthread_join() */
	ring_close(&ps->q, ps->len);
	return NULL;
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
	if ((errno = pthread_create(&parser, NULL, pf_parser_main, ps))) {
		ret = -errno;
		ring_close(&w->outq, 0);
		pthread_join(writer, NULL);
		return ret;
	}
	w->buf = ring_cur(&w->outq, &w->cap);
	while (ring_pop(&ps->q, &buf, &len)) {
		if (!ret)	/* after an error, only keep the ring moving */
			ret = pf_records(w, buf, len);
		ring_release(&ps->q, ret);
	}
	pthread_join(parser, NULL);
	if (!ret)
		ret = ps->ret;
	if (!ret && ng_recording_draws_sched(w->rec))
		ret = pf_sched(w);
	if (!ret)
		w->st.bytes += w->len;
	ring_close(&w->outq, ret ? 0 : w->len);
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
		ret = ring_init(&w.outq, PF_OUT_SIZE);
	if (!ret)
		ret = ring_init(&ps.q, PF_REC_SIZE);
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
	ring_free(&ps.q);
	ring_free(&w.outq);
	pf_free(&w);
	return ret;
}
