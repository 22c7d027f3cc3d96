/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * perfetto_pb.h - library-internal: the protobuf wire encoding of the
 * Perfetto export (perfetto.c), apart from what it encodes: the field
 * numbers of the messages it writes (those of Perfetto's protos/perfetto/
 * trace/, selftests/host/perfetto_min.proto lists them with their files),
 * varints, and a builder for the packets written once per thread or per
 * name. Inline: the calls' packets are encoded straight into the output
 * buffer with put_varint(), tens of millions of times.
 */
#ifndef NG_PERFETTO_PB_H
#define NG_PERFETTO_PB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

static inline void pb_raw(struct pb *b, const void *data, size_t len)
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

static inline void pb_varint_raw(struct pb *b, uint64_t v)
{
	uint8_t tmp[10];

	pb_raw(b, tmp, put_varint(tmp, v) - tmp);
}

/* A varint field (uint32, uint64, int64, bool, enum; int32 >= 0). */
static inline void pb_varint(struct pb *b, unsigned int field, uint64_t v)
{
	pb_varint_raw(b, TAG(field, WT_VARINT));
	pb_varint_raw(b, v);
}

/* A fixed64 field: 8 bytes, little-endian. */
static inline void pb_fixed64(struct pb *b, unsigned int field, uint64_t v)
{
	uint8_t le[8];
	int i;

	for (i = 0; i < 8; i++)
		le[i] = (uint8_t)(v >> (8 * i));
	pb_varint_raw(b, TAG(field, WT_I64));
	pb_raw(b, le, sizeof(le));
}

/* A length-delimited field: bytes, string, or an encoded message. */
static inline void pb_bytes(struct pb *b, unsigned int field, const void *data,
		     size_t len)
{
	pb_varint_raw(b, TAG(field, WT_LEN));
	pb_varint_raw(b, len);
	pb_raw(b, data, len);
}

static inline void pb_msg(struct pb *b, unsigned int field, struct pb *sub)
{
	if (sub->oom)
		b->oom = true;
	pb_bytes(b, field, sub->p, sub->len);
	sub->len = 0;
	sub->oom = false;
}

#endif /* NG_PERFETTO_PB_H */
