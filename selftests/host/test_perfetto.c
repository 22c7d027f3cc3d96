// SPDX-License-Identifier: GPL-2.0
/*
 * test_perfetto.c - "nanograph export --perfetto", read back by a reader
 * that is not ours: protoc, with the field numbers of Perfetto's published
 * .proto files (perfetto_min.proto, beside this file), and "protoc
 * --decode_raw", which needs no schema at all. The decoded text is parsed
 * here and checked the way Perfetto's importer would use it: every packet
 * on a sequence, the sequence's state cleared before it is used, each name
 * interned once per sequence and before its first use, slices nested per
 * thread, and the push/pop text rebuilt from the decoded packets equal to
 * the input files, every timestamp summed back from its deltas.
 *
 * Without protoc (package protobuf-compiler, which tools/setup-host.sh
 * installs) the decoding tests are skipped, saying so.
 *
 * NANOGRAPH_PERFETTO_PROTO=FILE decodes with Perfetto's own schema
 * instead: FILE is upstream's merged protos/perfetto/trace/
 * perfetto_trace.proto (not in this tree; Documentation/report-export.md
 * says how to get it), and every check below must hold the same.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nanograph.h"
#include "ktap.h"
#include "t_util.h"

/*
 * The schema: perfetto_min.proto beside this file (the build passes
 * absolute paths), or NANOGRAPH_PERFETTO_PROTO's. @dir gets its
 * directory, @file its name.
 */
static void schema(char *dir, size_t dir_size, const char **file)
{
	const char *path = getenv("NANOGRAPH_PERFETTO_PROTO"), *base;
	bool upstream = path && *path;

	if (!upstream)
		path = __FILE__;
	base = strrchr(path, '/');
	*file = !upstream ? "perfetto_min.proto" : base ? base + 1 : path;
	if (base)
		snprintf(dir, dir_size, "%.*s", (int)(base - path), path);
	else
		snprintf(dir, dir_size, ".");
}

/*
 * protoc's decoding of @path, malloc'd: with the schema when @raw is
 * false, --decode_raw when true. Skips the test without protoc; NULL
 * (said why) if protoc refuses the file.
 */
static char *protoc(const char *path, bool raw)
{
	char cmd[4096], dir[1024];
	char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	char *out = NULL, *err = NULL;
	const char *file;
	int st;

	schema(dir, sizeof(dir), &file);
	if (raw)
		snprintf(cmd, sizeof(cmd), "exec protoc --decode_raw < '%s'",
			 path);
	else
		snprintf(cmd, sizeof(cmd),
			 "exec protoc --decode=perfetto.protos.Trace -I '%s' '%s/%s' < '%s'",
			 dir, dir, file, path);
	st = t_run(argv, NULL, &out, &err);
	if (st == 127) {
		free(out);
		free(err);
		t_skip("no protoc: install protobuf-compiler (tools/setup-host.sh does)");
	}
	if (st || (err && *err)) {
		t_diag("protoc exited %d: %s", st,
		       err ? t_escape(err, strlen(err)) : "?");
		free(out);
		out = NULL;
	}
	free(err);
	return out;
}

/* ---- reading protoc's text format back ---- */

/* A growing string. */
struct str {
	char *s;
	size_t len, cap;
};

static void str_add(struct str *b, const char *s, size_t len)
{
	if (b->len + len + 1 > b->cap) {
		b->cap = 2 * (b->len + len + 1);
		b->s = realloc(b->s, b->cap);
		if (!b->s)
			abort();
	}
	memcpy(b->s + b->len, s, len);
	b->len += len;
	b->s[b->len] = '\0';
}

/* One decoded TracePacket: the fields the export writes. */
struct pkt {
	bool has_ts, has_seq, has_type, has_iid;
	uint64_t ts, seq, flags, type, name_iid;
	size_t nr_names;
	uint64_t en_iid[4];
	char *en_name[4];
	bool snapshot, defaults, descriptor;
	size_t nr_clocks;
	uint64_t clock_id[4], clock_ts[4];
	bool clock_inc[4];
	char primary[64];
	uint64_t def_clock, def_track;
	uint64_t uuid, parent;
	bool process, thread;
	long long pid, tid;
	char *pname, *tname;
	char *td_name;		/* a track named, neither process nor thread */
	char *name;		/* an event's name as a string */
	uint64_t track_uuid;	/* an event's own track, 0: the default */
	uint64_t flow, term;	/* flow_ids, terminating_flow_ids (one) */
};

/* An instant: on a track, at an absolute time, perhaps in a flow. */
struct instant {
	uint64_t ts, track, flow, term;
	char *name;
};

/* A packet sequence as a reader rebuilds it. */
struct seq {
	bool cleared;
	uint64_t clock;		/* clock 64: the last absolute time */
	uint64_t track;		/* the default track of its events */
	char **names;		/* by iid */
	size_t nr_names;
	size_t depth;
	struct str text;	/* the push/pop text of its events */
	bool described;		/* its thread's track was described */
	long long pid, tid;
	char *tname;
};

#define MAX_SEQ	64

struct reader {
	struct seq seq[MAX_SEQ + 1];
	size_t nr_seq;			/* highest sequence id seen */
	struct { long long pid; char *name; uint64_t uuid; } procs[MAX_SEQ];
	size_t nr_procs;
	struct { uint64_t uuid, parent; } named[MAX_SEQ];	/* off-CPU tracks */
	size_t nr_named;
	struct instant inst[64];
	size_t nr_inst;
	uint64_t packets;
	char why[512];			/* the first thing wrong, or "" */
};

__attribute__((format(printf, 2, 3)))
static void bad(struct reader *r, const char *fmt, ...)
{
	va_list ap;

	if (r->why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
}

/* A text-format string ("..." with C escapes, octal for bytes) unquoted. */
static char *unquote(const char *s)
{
	char *out = malloc(strlen(s) + 1), *p = out;

	if (!out)
		abort();
	if (*s == '"')
		s++;
	while (*s && *s != '"') {
		if (*s != '\\') {
			*p++ = *s++;
			continue;
		}
		s++;
		if (*s >= '0' && *s <= '7') {
			int v = 0, n;

			for (n = 0; n < 3 && *s >= '0' && *s <= '7'; n++)
				v = v * 8 + *s++ - '0';
			*p++ = v;
			continue;
		}
		switch (*s) {
		case 'n': *p++ = '\n'; break;
		case 't': *p++ = '\t'; break;
		case 'r': *p++ = '\r'; break;
		default: *p++ = *s; break;	/* \" \' \\ */
		}
		s++;
	}
	*p = '\0';
	return out;
}

/* What one packet means on its sequence. */
static void apply(struct reader *r, struct pkt *k)
{
	struct seq *q;
	size_t i, j;

	r->packets++;
	if (!k->has_seq || !k->seq || k->seq > MAX_SEQ) {
		bad(r, "packet %" PRIu64 ": trusted_packet_sequence_id missing or out of range", r->packets);
		return;
	}
	q = &r->seq[k->seq];
	if (k->seq > r->nr_seq)
		r->nr_seq = k->seq;
	if (k->flags & 1) {	/* SEQ_INCREMENTAL_STATE_CLEARED */
		if (q->cleared)
			bad(r, "sequence %" PRIu64 " cleared twice", k->seq);
		if (!k->defaults || k->def_clock != 64 || !k->def_track)
			bad(r, "sequence %" PRIu64 ": no defaults (clock 64, a track) where it is cleared", k->seq);
		if (!k->snapshot || k->nr_clocks != 2 || k->clock_id[0] != 3 ||
		    k->clock_inc[0] || k->clock_id[1] != 64 || !k->clock_inc[1] ||
		    k->clock_ts[0] != k->clock_ts[1] ||
		    strcmp(k->primary, "BUILTIN_CLOCK_MONOTONIC"))
			bad(r, "sequence %" PRIu64 ": clock snapshot is not MONOTONIC = incremental clock 64", k->seq);
		q->cleared = true;
		q->clock = k->clock_ts[1];
		q->track = k->def_track;
		return;
	}
	if (k->has_ts) {
		if (!q->cleared) {
			bad(r, "packet %" PRIu64 ": a timestamp before sequence %" PRIu64 " is cleared", r->packets, k->seq);
			return;
		}
		if (k->ts > INT64_MAX)	/* a delta that runs backwards */
			bad(r, "packet %" PRIu64 ": timestamp delta %" PRIu64 " goes back in time", r->packets, k->ts);
		q->clock += k->ts;
	}
	if (k->descriptor) {
		if (k->process) {
			if (r->nr_procs == MAX_SEQ)
				return;
			for (i = 0; i < r->nr_procs; i++)
				if (r->procs[i].pid == k->pid)
					bad(r, "process %lld described twice", k->pid);
			r->procs[r->nr_procs].pid = k->pid;
			r->procs[r->nr_procs].uuid = k->uuid;
			r->procs[r->nr_procs++].name = k->pname;
			k->pname = NULL;
		} else if (k->thread) {
			if (q->described)
				bad(r, "sequence %" PRIu64 ": thread described twice", k->seq);
			if (q->cleared && k->uuid != q->track)
				bad(r, "sequence %" PRIu64 ": thread track %" PRIu64 " is not the events' %" PRIu64,
				    k->seq, k->uuid, q->track);
			for (i = 0; i < r->nr_procs; i++)
				if (r->procs[i].pid == k->pid &&
				    r->procs[i].uuid != k->parent)
					bad(r, "thread %lld: parent is not its process's track", k->tid);
			q->described = true;
			q->pid = k->pid;
			q->tid = k->tid;
			q->tname = k->tname;
			k->tname = NULL;
		} else if (k->td_name) {
			/* a child of a thread's track, the sequence's own */
			for (i = 1; i <= MAX_SEQ; i++)
				if (r->seq[i].described &&
				    r->seq[i].track == k->parent)
					break;
			if (i > MAX_SEQ)
				bad(r, "track \"%s\": its parent is no thread's track", k->td_name);
			if (k->uuid != q->track)
				bad(r, "track \"%s\" is not its sequence's default", k->td_name);
			if (r->nr_named < MAX_SEQ) {
				r->named[r->nr_named].uuid = k->uuid;
				r->named[r->nr_named++].parent = k->parent;
			}
		} else {
			bad(r, "a track descriptor of neither a process nor a thread");
		}
		return;
	}
	if (!k->has_type)
		return;
	if (!q->cleared || !k->has_ts) {
		bad(r, "packet %" PRIu64 ": an event without a timestamp or a cleared sequence", r->packets);
		return;
	}
	for (i = 0; i < k->nr_names; i++) {
		if (!(k->flags & 2))
			bad(r, "sequence %" PRIu64 ": interned data without SEQ_NEEDS_INCREMENTAL_STATE", k->seq);
		if (k->en_iid[i] != q->nr_names + 1)
			bad(r, "sequence %" PRIu64 ": iid %" PRIu64 " is not the next one (%zu)",
			    k->seq, k->en_iid[i], q->nr_names + 1);
		for (j = 0; j < q->nr_names; j++)
			if (!strcmp(q->names[j], k->en_name[i]))
				bad(r, "sequence %" PRIu64 ": \"%s\" interned twice", k->seq, k->en_name[i]);
		q->names = realloc(q->names, (q->nr_names + 1) * sizeof(*q->names));
		if (!q->names)
			abort();
		q->names[q->nr_names++] = k->en_name[i];
		k->en_name[i] = NULL;
	}
	if (k->type == 3) {	/* TYPE_INSTANT: on a thread's track */
		if (!k->name || !k->track_uuid || r->nr_inst == 64) {
			bad(r, "sequence %" PRIu64 ": an instant without a name or a track", k->seq);
			return;
		}
		r->inst[r->nr_inst] = (struct instant){ q->clock, k->track_uuid,
							k->flow, k->term, k->name };
		r->nr_inst++;
		k->name = NULL;
		return;
	}
	if (k->track_uuid && k->track_uuid != q->track)
		bad(r, "sequence %" PRIu64 ": a slice on another track", k->seq);
	if (k->type == 1) {	/* TYPE_SLICE_BEGIN */
		const char *name = k->name;
		char head[32];

		if (!name && (!k->has_iid || !k->name_iid || k->name_iid > q->nr_names)) {
			bad(r, "sequence %" PRIu64 ": name_iid %" PRIu64 " not interned before", k->seq, k->name_iid);
			return;
		}
		if (!name)
			name = q->names[k->name_iid - 1];
		snprintf(head, sizeof(head), "%" PRIu64 ":+", q->clock);
		str_add(&q->text, head, strlen(head));
		str_add(&q->text, name, strlen(name));
		str_add(&q->text, "\n", 1);
		q->depth++;
	} else if (k->type == 2) {	/* TYPE_SLICE_END */
		char line[32];

		if (!q->depth)
			bad(r, "sequence %" PRIu64 ": an END with no slice open", k->seq);
		else
			q->depth--;
		snprintf(line, sizeof(line), "%" PRIu64 ":POP\n", q->clock);
		str_add(&q->text, line, strlen(line));
	} else {
		bad(r, "an event of type %" PRIu64, k->type);
	}
}

/* Where a field sits: its enclosing messages, innermost last. */
static bool in(char stack[][32], int depth, const char *a, const char *b)
{
	return depth >= 1 && !strcmp(stack[depth - 1], a) &&
	       (!b || (depth >= 2 && !strcmp(stack[depth - 2], b)));
}

/*
 * Parse protoc's text output of a Trace and apply every packet; false
 * with r->why when something is off (a field the schema does not know is
 * printed as a number: refused too).
 */
static bool read_trace(struct reader *r, char *text)
{
	char stack[16][32], *line, *next, *colon, *v;
	struct pkt k = { 0 };
	int depth = 0;
	size_t i;

	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		while (*line == ' ')
			line++;
		if (!*line)
			continue;
		if (*line >= '0' && *line <= '9') {
			bad(r, "a field the schema does not know: %s", line);
			break;
		}
		if (!strcmp(line, "}")) {
			if (!depth--)
				break;
			if (!depth) {
				apply(r, &k);
				free(k.pname);
				free(k.tname);
				free(k.td_name);
				free(k.name);
				for (i = 0; i < k.nr_names; i++)
					free(k.en_name[i]);
				memset(&k, 0, sizeof(k));
			}
			continue;
		}
		v = strstr(line, " {");
		if (v && !v[2]) {
			*v = '\0';
			if (depth == 16)
				break;
			snprintf(stack[depth++], sizeof(stack[0]), "%s", line);
			if (in(stack, depth, "clocks", NULL) && k.nr_clocks < 4)
				k.nr_clocks++;
			if (in(stack, depth, "event_names", NULL) && k.nr_names < 4)
				k.nr_names++;
			k.snapshot |= in(stack, depth, "clock_snapshot", NULL);
			k.defaults |= in(stack, depth, "trace_packet_defaults", NULL);
			k.descriptor |= in(stack, depth, "track_descriptor", NULL);
			k.process |= in(stack, depth, "process", NULL);
			k.thread |= in(stack, depth, "thread", NULL);
			continue;
		}
		colon = strstr(line, ": ");
		if (!colon || !depth) {
			bad(r, "not text format: %s", line);
			break;
		}
		*colon = '\0';
		v = colon + 2;
#define U(x) strtoull(x, NULL, 10)
		if (in(stack, depth, "packet", NULL)) {
			if (!strcmp(line, "timestamp"))
				k.has_ts = true, k.ts = U(v);
			else if (!strcmp(line, "trusted_packet_sequence_id"))
				k.has_seq = true, k.seq = U(v);
			else if (!strcmp(line, "sequence_flags"))
				k.flags = U(v);
		} else if (in(stack, depth, "track_event", "packet")) {
			if (!strcmp(line, "type"))
				k.has_type = true,
				k.type = !strcmp(v, "TYPE_SLICE_BEGIN") ? 1 :
					 !strcmp(v, "TYPE_SLICE_END") ? 2 :
					 !strcmp(v, "TYPE_INSTANT") ? 3 : 99;
			else if (!strcmp(line, "name_iid"))
				k.has_iid = true, k.name_iid = U(v);
			else if (!strcmp(line, "name") && !k.name)
				k.name = unquote(v);
			else if (!strcmp(line, "track_uuid"))
				k.track_uuid = U(v);
			else if (!strcmp(line, "flow_ids"))
				k.flow = U(v);
			else if (!strcmp(line, "terminating_flow_ids"))
				k.term = U(v);
		} else if (in(stack, depth, "event_names", "interned_data") && k.nr_names) {
			if (!strcmp(line, "iid"))
				k.en_iid[k.nr_names - 1] = U(v);
			else if (!strcmp(line, "name"))
				k.en_name[k.nr_names - 1] = unquote(v);
		} else if (in(stack, depth, "clocks", "clock_snapshot") && k.nr_clocks) {
			if (!strcmp(line, "clock_id"))
				k.clock_id[k.nr_clocks - 1] = U(v);
			else if (!strcmp(line, "timestamp"))
				k.clock_ts[k.nr_clocks - 1] = U(v);
			else if (!strcmp(line, "is_incremental"))
				k.clock_inc[k.nr_clocks - 1] = !strcmp(v, "true");
		} else if (in(stack, depth, "clock_snapshot", "packet")) {
			if (!strcmp(line, "primary_trace_clock"))
				snprintf(k.primary, sizeof(k.primary), "%s", v);
		} else if (in(stack, depth, "trace_packet_defaults", "packet")) {
			if (!strcmp(line, "timestamp_clock_id"))
				k.def_clock = U(v);
		} else if (in(stack, depth, "track_event_defaults", "trace_packet_defaults")) {
			if (!strcmp(line, "track_uuid"))
				k.def_track = U(v);
		} else if (in(stack, depth, "track_descriptor", "packet")) {
			if (!strcmp(line, "uuid"))
				k.uuid = U(v);
			else if (!strcmp(line, "parent_uuid"))
				k.parent = U(v);
			else if (!strcmp(line, "name") && !k.td_name)
				k.td_name = unquote(v);
		} else if (in(stack, depth, "process", "track_descriptor")) {
			if (!strcmp(line, "pid"))
				k.pid = strtoll(v, NULL, 10);
			else if (!strcmp(line, "process_name"))
				k.pname = unquote(v);
		} else if (in(stack, depth, "thread", "track_descriptor")) {
			if (!strcmp(line, "pid"))
				k.pid = strtoll(v, NULL, 10);
			else if (!strcmp(line, "tid"))
				k.tid = strtoll(v, NULL, 10);
			else if (!strcmp(line, "thread_name"))
				k.tname = unquote(v);
		}
#undef U
	}
	if (depth)
		bad(r, "unbalanced braces in protoc's output");
	for (i = 1; i <= r->nr_seq; i++)
		if (r->seq[i].depth)
			bad(r, "sequence %zu: %zu slice(s) never ended", i,
			    r->seq[i].depth);
	return !r->why[0];
}

static void reader_free(struct reader *r)
{
	size_t i, j;

	for (i = 0; i <= MAX_SEQ; i++) {
		for (j = 0; j < r->seq[i].nr_names; j++)
			free(r->seq[i].names[j]);
		free(r->seq[i].names);
		free(r->seq[i].text.s);
		free(r->seq[i].tname);
	}
	for (i = 0; i < r->nr_procs; i++)
		free(r->procs[i].name);
	for (i = 0; i < r->nr_inst; i++)
		free(r->inst[i].name);
	free(r);
}

/*
 * Export @dir to @out and read it back through protoc; NULL if bad. With
 * @overhead, its two costs taken off (--overhead).
 */
static struct reader *export_and_read(const char *dir, const char *out,
				      struct ng_pf_stats *st,
				      const double *overhead)
{
	struct reader *r = calloc(1, sizeof(*r));
	struct ng_recording rec;
	struct ng_pp_bad pb;
	char *text;
	int ret;

	if (!r || ng_recording_open(&rec, dir))
		goto fail;
	ret = overhead ? ng_recording_compensate(&rec, overhead[0], overhead[1]) : 0;
	if (!ret)
		ret = ng_export_perfetto(&rec, out, &pb, st);
	ng_recording_close(&rec);
	if (ret) {
		t_diag("ng_export_perfetto: %s", strerror(-ret));
		goto fail;
	}
	text = protoc(out, false);
	if (!text)
		goto fail;
	if (!read_trace(r, text))
		t_diag("decoded trace: %s", r->why);
	free(text);
	if (!r->why[0])
		return r;
fail:
	if (r)
		reader_free(r);
	return NULL;
}

/* ---- the tests ---- */

/* protoc's decoding of the example, whole: every field by its name. */
static const char decoded_want[] =
	"packet {\n"
	"  clock_snapshot {\n"
	"    clocks {\n"
	"      clock_id: 3\n"
	"      timestamp: 300\n"
	"    }\n"
	"    clocks {\n"
	"      clock_id: 64\n"
	"      timestamp: 300\n"
	"      is_incremental: true\n"
	"    }\n"
	"    primary_trace_clock: BUILTIN_CLOCK_MONOTONIC\n"
	"  }\n"
	"  trusted_packet_sequence_id: 1\n"
	"  sequence_flags: 1\n"
	"  trace_packet_defaults {\n"
	"    track_event_defaults {\n"
	"      track_uuid: 8594128897\n"
	"    }\n"
	"    timestamp_clock_id: 64\n"
	"  }\n"
	"}\n"
	"packet {\n"
	"  timestamp: 0\n"
	"  trusted_packet_sequence_id: 1\n"
	"  track_descriptor {\n"
	"    uuid: 4294967296\n"
	"    process {\n"
	"      pid: 0\n"
	"      process_name: \"idle\"\n"
	"    }\n"
	"  }\n"
	"}\n"
	"packet {\n"
	"  timestamp: 0\n"
	"  trusted_packet_sequence_id: 1\n"
	"  track_descriptor {\n"
	"    uuid: 8594128897\n"
	"    thread {\n"
	"      pid: 0\n"
	"      tid: 4194305\n"
	"      thread_name: \"swapper/1\"\n"
	"    }\n"
	"    parent_uuid: 4294967296\n"
	"  }\n"
	"}\n"
	"packet {\n"
	"  timestamp: 0\n"
	"  trusted_packet_sequence_id: 1\n"
	"  track_event {\n"
	"    type: TYPE_SLICE_BEGIN\n"
	"    name_iid: 1\n"
	"  }\n"
	"  interned_data {\n"
	"    event_names {\n"
	"      iid: 1\n"
	"      name: \"b\"\n"
	"    }\n"
	"  }\n"
	"  sequence_flags: 2\n"
	"}\n"
	"packet {\n"
	"  timestamp: 10\n"
	"  trusted_packet_sequence_id: 1\n"
	"  track_event {\n"
	"    type: TYPE_SLICE_END\n"
	"  }\n"
	"}\n";

/*
 * The example through protoc with the schema: its first sequence, CPU 1's
 * idle task, field by field; then the whole file rebuilt into the input.
 */
static void test_decode_example(void)
{
	struct ng_pf_stats st;
	struct reader *r;
	struct stat sb;
	char *text;

	T_EQ_INT(t_make_example(true), 0);
	r = export_and_read(t_path("rec"), t_path("t.perfetto-trace"), &st, NULL);
	T_ASSERT(r);
	T_EQ_U64(r->nr_seq, 2);
	T_EQ_STR(r->seq[1].text.s, t_idle1);
	T_EQ_STR(r->seq[2].text.s, t_thread5);
	T_EQ_STR(r->seq[1].tname, "swapper/1");
	T_EQ_INT(r->seq[1].pid, 0);
	T_EQ_INT(r->seq[1].tid, NG_IDLE_TID_BASE + 1);
	T_EQ_STR(r->seq[2].tname, "main");
	T_EQ_INT(r->seq[2].tid, 5);
	T_EQ_U64(r->nr_procs, 2);
	T_EQ_STR(r->procs[0].name, "idle");
	T_EQ_STR(r->procs[1].name, "main");
	/* a, b and "c [mod]" on thread 5, b again on the idle task */
	T_EQ_U64(st.interned, 4);
	T_EQ_U64(st.calls, 5);
	T_EQ_U64(st.packets, r->packets);
	T_EQ_INT(stat(t_path("t.perfetto-trace"), &sb), 0);
	T_EQ_U64(st.bytes, sb.st_size);
	reader_free(r);

	text = protoc(t_path("t.perfetto-trace"), false);
	T_ASSERT(text && strlen(text) >= sizeof(decoded_want) - 1);
	text[sizeof(decoded_want) - 1] = '\0';	/* the first sequence */
	T_EQ_STR(text, decoded_want);
	free(text);
}

/*
 * The same bytes without the schema, "protoc --decode_raw": the field
 * numbers as Perfetto's protos give them. 1: Trace.packet; in a packet,
 * 10 trusted_packet_sequence_id, 13 sequence_flags, 59 defaults (58
 * timestamp_clock_id, 11 TrackEventDefaults, its 11 track_uuid), 6
 * ClockSnapshot (1 Clock: 1 clock_id, 2 timestamp, 3 is_incremental; 2
 * primary_trace_clock), 8 timestamp, 60 TrackDescriptor (1 uuid, 5
 * parent_uuid, 3 ProcessDescriptor: 1 pid, 6 process_name; 4
 * ThreadDescriptor: 1 pid, 2 tid, 5 thread_name), 11 TrackEvent (9 type,
 * 10 name_iid), 12 InternedData (2 EventName: 1 iid, 2 name).
 */
static const char raw_want[] =
	"1 {\n"
	"  10: 1\n"
	"  13: 1\n"
	"  59 {\n"
	"    58: 64\n"
	"    11 {\n"
	"      11: 8589934593\n"
	"    }\n"
	"  }\n"
	"  6 {\n"
	"    1 {\n"
	"      1: 3\n"
	"      2: 10\n"
	"    }\n"
	"    1 {\n"
	"      1: 64\n"
	"      2: 10\n"
	"      3: 1\n"
	"    }\n"
	"    2: 3\n"
	"  }\n"
	"}\n"
	"1 {\n"
	"  8: 0\n"
	"  60 {\n"
	"    1: 4294967297\n"
	"    3 {\n"
	"      1: 1\n"
	"      6: \"1\"\n"
	"    }\n"
	"  }\n"
	"  10: 1\n"
	"}\n"
	"1 {\n"
	"  8: 0\n"
	"  60 {\n"
	"    1: 8589934593\n"
	"    5: 4294967297\n"
	"    4 {\n"
	"      1: 1\n"
	"      2: 1\n"
	"      5: \"1\"\n"
	"    }\n"
	"  }\n"
	"  10: 1\n"
	"}\n"
	"1 {\n"
	"  8: 0\n"
	"  11 {\n"
	"    9: 1\n"
	"    10: 1\n"
	"  }\n"
	"  10: 1\n"
	"  12 {\n"
	"    2 {\n"
	"      1: 1\n"
	"      2: \"f\"\n"
	"    }\n"
	"  }\n"
	"  13: 2\n"
	"}\n"
	"1 {\n"
	"  8: 10\n"
	"  11 {\n"
	"    9: 2\n"
	"  }\n"
	"  10: 1\n"
	"}\n"
	"1 {\n"
	"  8: 10\n"
	"  11 {\n"
	"    9: 1\n"
	"    10: 1\n"
	"  }\n"
	"  10: 1\n"
	"}\n"
	"1 {\n"
	"  8: 10\n"
	"  11 {\n"
	"    9: 2\n"
	"  }\n"
	"  10: 1\n"
	"}\n";

static void test_decode_raw(void)
{
	struct ng_recording rec;
	char *text;

	mkdir(t_path("rec"), 0755);
	T_EQ_INT(t_write_file(t_rp("1.txt"), "10:+f\n20:POP\n30:+f\n40:POP\n"), 0);
	T_EQ_INT(ng_recording_open(&rec, t_path("rec")), 0);
	T_EQ_INT(ng_export_perfetto(&rec, t_path("r.pftrace"), NULL, NULL), 0);
	ng_recording_close(&rec);
	text = protoc(t_path("r.pftrace"), true);
	T_ASSERT(text);
	T_EQ_STR(text, raw_want);
	free(text);
}

/*
 * The bytes of the common packets, as the size targets count them: a
 * BEGIN of an interned name is 12 bytes, an END 10, with one-byte deltas,
 * iids and sequence ids (Documentation/report-export.md).
 */
static void test_wire_bytes(void)
{
	static const unsigned char tail[] = {
		0x0a, 0x08, 0x40, 0x0a, 0x5a, 0x02, 0x48, 0x02, 0x50, 0x01,
		0x0a, 0x0a, 0x40, 0x0a, 0x5a, 0x04, 0x48, 0x01, 0x50, 0x01,
		0x50, 0x01,
		0x0a, 0x08, 0x40, 0x0a, 0x5a, 0x02, 0x48, 0x02, 0x50, 0x01,
	};
	struct ng_recording rec;
	char *buf;
	size_t len;

	mkdir(t_path("rec"), 0755);
	T_EQ_INT(t_write_file(t_rp("1.txt"), "10:+f\n20:POP\n30:+f\n40:POP\n"), 0);
	T_EQ_INT(ng_recording_open(&rec, t_path("rec")), 0);
	T_EQ_INT(ng_export_perfetto(&rec, t_path("w.pftrace"), NULL, NULL), 0);
	ng_recording_close(&rec);
	buf = t_read_file(t_path("w.pftrace"), &len);
	T_ASSERT(buf && len > sizeof(tail));
	T_ASSERT(!memcmp(buf + len - sizeof(tail), tail, sizeof(tail)));
	free(buf);
}

/*
 * A recording that exercises the encoding: 300 names (iids past one
 * byte), deltas of 0, 127, 128, 16384 and 2^40 ns, timestamps up to
 * 2^64 - 1, deep nesting, enough calls to cross the buffers between the
 * threads, a name that is not UTF-8, a thread of unknown process, a
 * thread without calls, two threads of one process. Rebuilt from the
 * decoded packets, every file comes back byte for byte.
 */
static void test_roundtrip(void)
{
	static const uint64_t gaps[] = { 0, 1, 127, 128, 16383, 16384, 3, 1ULL << 40 };
	static const char odd_text[] =
		"18446744073709551000:+b\xff" "ad\n"
		"18446744073709551000:+\"q\\\"\n"
		"18446744073709551615:POP\n18446744073709551615:POP\n";
	const size_t calls = 60000;
	struct str big = { 0 }, odd = { 0 };
	struct ng_pf_stats st;
	struct reader *r;
	uint64_t ns = 1000;
	size_t i, depth = 0, n = 0;
	char line[64];

	mkdir(t_path("rec"), 0755);
	/* thread 7: a random-looking walk over 300 names, depth up to 40 */
	for (i = 0; n < calls || depth; i++) {
		unsigned int x = (i * 2654435761U) >> 7;
		bool push = n < calls && depth < 40 && (!depth || x % 3);

		if (!push && !depth)
			continue;
		ns += i < 16 ? gaps[i % 8] : x % 300;
		if (push) {
			snprintf(line, sizeof(line), "%" PRIu64 ":+fn_%u\n", ns,
				 x / 3 % 300);
			depth++;
			n++;
		} else {
			snprintf(line, sizeof(line), "%" PRIu64 ":POP\n", ns);
			depth--;
		}
		str_add(&big, line, strlen(line));
	}
	T_EQ_INT(t_write_file(t_rp("7.txt"), big.s), 0);
	/* thread 9: not in threads.tsv; odd names; the end of time */
	str_add(&odd, odd_text, strlen(odd_text));
	T_EQ_INT(t_write_file(t_rp("9.txt"), odd.s), 0);
	T_EQ_INT(t_write_file(t_rp("11.txt"), ""), 0);
	T_EQ_INT(t_write_file(t_rp("5.txt"), t_thread5), 0);
	T_EQ_INT(t_write_file(t_rp("threads.tsv"),
			      "tid\tpid\tcomm\n5\t5\tmain\n7\t5\twork\xc3\xa9r\n11\t11\tidle one\n"), 0);

	r = export_and_read(t_path("rec"), t_path("rt.perfetto-trace"), &st, NULL);
	T_ASSERT(r);
	/* sequences in tid order: 5, 7, 9, 11 */
	T_EQ_U64(r->nr_seq, 4);
	T_EQ_STR(r->seq[1].text.s, t_thread5);
	T_ASSERT(r->seq[2].text.s && !strcmp(r->seq[2].text.s, big.s));
	T_EQ_U64(r->seq[2].nr_names, 300);
	T_EQ_STR(r->seq[3].text.s,
		 "18446744073709551000:+b\xef\xbf\xbd" "ad\n"
		 "18446744073709551000:+\"q\\\"\n"
		 "18446744073709551615:POP\n18446744073709551615:POP\n");
	T_ASSERT(!r->seq[4].text.s && !r->seq[4].cleared);
	T_ASSERT(r->seq[4].described);
	T_EQ_STR(r->seq[4].tname, "idle one");
	T_EQ_STR(r->seq[2].tname, "work\xc3\xa9r");
	T_EQ_INT(r->seq[2].pid, 5);
	/* unknown process: its own, named after the thread (as --chrome) */
	T_EQ_INT(r->seq[3].pid, 9);
	T_EQ_STR(r->seq[3].tname, "9");
	/* processes 5, 9 and 11 once each */
	T_EQ_U64(r->nr_procs, 3);
	T_EQ_U64(st.calls, 4 + calls + 2);
	T_EQ_U64(st.interned, 3 + 300 + 2);
	reader_free(r);
	free(big.s);
	free(odd.s);
}

/*
 * --compensate: the slices on the timeline without the tracer, as
 * --chrome has them (test_compensate.c works the times out): 100 ns a
 * call, 20 of it inside; f's end would come before g's and stays at it.
 */
static void test_compensated(void)
{
	static const double overhead[2] = { 100, 20 };
	struct reader *r;

	mkdir(t_path("rec"), 0755);
	T_EQ_INT(t_write_file(t_rp("1.txt"),
			      "1000:+a\n1100:+b\n1200:+c\n1500:POP\n1600:+d\n1700:POP\n"
			      "2000:POP\n2100:+e\n2300:POP\n3000:POP\n3100:+f\n3200:+g\n"
			      "3400:POP\n3400:POP\n"), 0);
	r = export_and_read(t_path("rec"), t_path("c.perfetto-trace"), NULL,
			    overhead);
	T_ASSERT(r);
	T_EQ_STR(r->seq[1].text.s,
		 "960:+a\n1010:+b\n1060:+c\n1340:POP\n1360:+d\n1440:POP\n"
		 "1690:POP\n1710:+e\n1890:POP\n2540:POP\n2560:+f\n2610:+g\n"
		 "2790:POP\n2790:POP\n");
	reader_free(r);
}

/*
 * A label longer than every buffer on its way (the walk's 1 MiB chunk,
 * a 256 KiB record buffer, a 1 MiB output buffer) comes out whole.
 */
static void test_long_label(void)
{
	static const char head[] = "10:+a\n20:+";
	static const char tail[] = "\n30:POP\n40:+a\n50:POP\n60:POP\n";
	const size_t len = 3 << 19;	/* 1.5 MiB */
	struct str in = { 0 };
	struct reader *r;
	char *label;

	label = malloc(len + 1);
	T_ASSERT(label);
	memset(label, 'x', len);
	label[len] = '\0';
	label[0] = 'L';
	str_add(&in, head, strlen(head));
	str_add(&in, label, len);
	str_add(&in, tail, strlen(tail));
	mkdir(t_path("rec"), 0755);
	T_EQ_INT(t_write_file(t_rp("3.txt"), in.s), 0);
	r = export_and_read(t_path("rec"), t_path("long.pftrace"), NULL, NULL);
	free(label);
	if (!r)
		free(in.s);
	T_ASSERT(r);
	T_ASSERT(r->seq[1].text.s && !strcmp(r->seq[1].text.s, in.s));
	T_EQ_U64(r->seq[1].nr_names, 2);
	reader_free(r);
	free(in.s);
}

/* A bad file: the walk's reason, file and line; no output at all. */
static void test_bad_input(void)
{
	struct ng_recording rec;
	struct ng_pp_bad bad;

	T_EQ_INT(t_make_example(true), 0);
	T_EQ_INT(t_write_file(t_rp("7.txt"), "100:+a\n200:POP\n300:+b\n"), 0);
	T_EQ_INT(ng_recording_open(&rec, t_path("rec")), 0);
	T_EQ_INT(ng_export_perfetto(&rec, t_path("out.pf"), &bad, NULL), -EBADMSG);
	T_EQ_STR(bad.file, "7.txt");
	T_EQ_U64(bad.line, 3);
	T_EQ_STR(bad.why, "1 frame(s) still open at end of file");
	T_ASSERT(!t_exists(t_path("out.pf")));
	T_ASSERT(!t_temp_of(t_path("out.pf")));
	/* an output that cannot be written is not blamed on an input */
	T_EQ_INT(t_write_file(t_rp("7.txt"), "1:+a\n2:POP\n"), 0);
	T_EQ_INT(ng_export_perfetto(&rec, t_path("no/out.pf"), &bad, NULL), -ENOENT);
	T_ASSERT(!bad.file);
	/* a file that vanished after the listing is named */
	T_EQ_INT(unlink(t_rp("7.txt")), 0);
	T_EQ_INT(ng_export_perfetto(&rec, t_path("out.pf"), &bad, NULL), -ENOENT);
	T_EQ_STR(bad.file, "7.txt");
	T_ASSERT(!t_exists(t_path("out.pf")));
	ng_recording_close(&rec);
}

/*
 * A full disk, with /dev/full standing in for the temporary file: the
 * writer thread's error comes back, whether it strikes at the end (one
 * buffer) or while the encoder and the parser still run (many), and no
 * file is left under either name.
 */
/*
 * Files of this process and its children can grow to @bytes at most
 * (RLIMIT_FSIZE; SIGXFSZ ignored: the write fails with EFBIG), or as
 * before when @bytes is 0: a full disk for the one output being written.
 * (A symlink to /dev/full planted at the temporary name did this before
 * those names became unguessable.)
 */
static void fsize_limit(rlim_t bytes)
{
	static struct rlimit old;
	static bool saved;
	struct rlimit lim;

	if (!saved) {
		getrlimit(RLIMIT_FSIZE, &old);
		saved = true;
	}
	signal(SIGXFSZ, SIG_IGN);
	lim = old;
	if (bytes)
		lim.rlim_cur = bytes;
	setrlimit(RLIMIT_FSIZE, &lim);
}

static void test_write_error(void)
{
	struct ng_recording rec;
	struct ng_pp_bad bad;
	struct str big = { 0 };
	char line[64];
	size_t i;

	T_EQ_INT(t_make_example(true), 0);
	T_EQ_INT(ng_recording_open(&rec, t_path("rec")), 0);
	fsize_limit(1);
	T_EQ_INT(ng_export_perfetto(&rec, t_path("full.pf"), &bad, NULL), -EFBIG);
	fsize_limit(0);
	T_ASSERT(!bad.file);
	T_ASSERT(!t_exists(t_path("full.pf")));
	T_ASSERT(!t_temp_of(t_path("full.pf")));
	ng_recording_close(&rec);

	/* about 10 MB of output: the error stops the export midway */
	for (i = 0; i < 400000; i++) {
		snprintf(line, sizeof(line), "%zu:+f\n%zu:POP\n", 2 * i, 2 * i + 1);
		str_add(&big, line, strlen(line));
	}
	T_EQ_INT(t_write_file(t_rp("6.txt"), big.s), 0);
	free(big.s);
	T_EQ_INT(ng_recording_open(&rec, t_path("rec")), 0);
	fsize_limit(1 << 20);
	T_EQ_INT(ng_export_perfetto(&rec, t_path("full.pf"), &bad, NULL), -EFBIG);
	fsize_limit(0);
	T_ASSERT(!bad.file);
	T_ASSERT(!t_exists(t_path("full.pf")));
	T_ASSERT(!t_temp_of(t_path("full.pf")));
	ng_recording_close(&rec);
}

/* The command: default path, -o, its output not read back as input. */
static void test_cmd_export(void)
{
	char dir[600], out[600];
	struct reader *r;
	char *text;

	T_EQ_INT(t_make_example(true), 0);
	snprintf(dir, sizeof(dir), "%s", t_path("rec"));
	T_RUN(t_ng("export", "--perfetto", dir, NULL), 0, "", "");
	T_ASSERT(t_exists(t_rp("trace.perfetto-trace")));
	T_RUN(t_ng("export", "--perfetto", dir, NULL), 0, "", "");
	snprintf(out, sizeof(out), "%s", t_path("x.pftrace"));
	T_RUN(t_ng("export", "-o", out, "--perfetto", dir, NULL), 0, "", "");
	text = protoc(out, false);
	T_ASSERT(text);
	r = calloc(1, sizeof(*r));
	T_ASSERT(r);
	if (!read_trace(r, text))
		t_diag("decoded trace: %s", r->why);
	free(text);
	T_ASSERT(!r->why[0]);
	T_EQ_STR(r->seq[2].text.s, t_thread5);
	reader_free(r);
}

/* Every error of the option, with its message; nothing left behind. */
static void test_cmd_export_errors(void)
{
	char dir[600], out[600], want[2000], line[64];
	struct str big = { 0 };
	size_t i;

	T_EQ_INT(t_make_example(true), 0);
	snprintf(dir, sizeof(dir), "%s", t_path("rec"));
	T_RUN(t_ng("export", "--perfetto", "--chrome", dir, NULL), 2, "",
	      "nanograph export: give only one of --chrome, --perfetto and --folded\n"
	      "Try 'nanograph help export'.\n");
	T_RUN(t_ng("export", "--folded", "--perfetto", dir, NULL), 2, "",
	      "nanograph export: give only one of --chrome, --perfetto and --folded\n"
	      "Try 'nanograph help export'.\n");
	/* the same option twice is no conflict */
	T_RUN(t_ng("export", "--perfetto", "--perfetto", dir, NULL), 0, "", "");
	T_RUN(t_ng("export", "--perfetto", NULL), 2, "",
	      "nanograph export: no recording directory given\n"
	      "Try 'nanograph help export'.\n");
	T_RUN(t_ng("export", "--perfetto=yes", dir, NULL), 2, "",
	      "nanograph export: option '--perfetto' takes no value\n"
	      "Try 'nanograph help export'.\n");

	/* a bad file: named with its line; an earlier export stays whole */
	T_EQ_INT(t_write_file(t_rp("trace.perfetto-trace"), "old"), 0);
	T_EQ_INT(t_write_file(t_rp("8.txt"), "100:+a\n100:PO\n"), 0);
	snprintf(want, sizeof(want),
		 "nanograph export: %s/8.txt:2: not a valid push/pop line: "
		 "expected POP or +<label> after ':' (see 'nanograph check %s/8.txt'); "
		 "nothing written\n", dir, dir);
	T_RUN(t_ng("export", "--perfetto", dir, NULL), 1, "", want);
	T_FILE_EQ(t_rp("trace.perfetto-trace"), "old");
	T_ASSERT(!t_temp_of(t_rp("trace.perfetto-trace")));
	T_EQ_INT(unlink(t_rp("8.txt")), 0);

	/* an output that cannot be written */
	snprintf(out, sizeof(out), "%s", t_path("no/such/x.pftrace"));
	snprintf(want, sizeof(want),
		 "nanograph export: cannot write %s: No such file or directory\n", out);
	T_RUN(t_ng("export", "--perfetto", "-o", out, dir, NULL), 1, "", want);

	/*
	 * A full disk: a file size limit stands in for it, above what the
	 * messages take, below the export of 20,000 more calls.
	 */
	for (i = 0; i < 20000; i++) {
		snprintf(line, sizeof(line), "%zu:+f\n%zu:POP\n", 2 * i, 2 * i + 1);
		str_add(&big, line, strlen(line));
	}
	T_EQ_INT(t_write_file(t_rp("6.txt"), big.s), 0);
	free(big.s);
	snprintf(want, sizeof(want),
		 "nanograph export: cannot write %s/trace.perfetto-trace: File too large\n",
		 dir);
	fsize_limit(64 << 10);
	T_RUN(t_ng("export", "--perfetto", dir, NULL), 1, "", want);
	fsize_limit(0);
	T_EQ_INT(unlink(t_rp("6.txt")), 0);
	T_FILE_EQ(t_rp("trace.perfetto-trace"), "old");
	T_ASSERT(!t_temp_of(t_rp("trace.perfetto-trace")));
}

/*
 * The innermost call of push/pop @text open at @ts (entered at or before
 * it, not yet returned), into @name; false if none.
 */
static bool call_at(const char *text, uint64_t ts, char *name, size_t size)
{
	char stack[16][64];
	const char *p;
	int depth = 0;
	uint64_t t;

	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		t = strtoull(p, NULL, 10);
		if (t > ts)
			break;
		if (strncmp(strchr(p, ':'), ":POP", 4)) {
			if (depth == 16)
				return false;
			snprintf(stack[depth++], sizeof(stack[0]), "%.*s",
				 (int)strcspn(strchr(p, ':') + 2, "\n"),
				 strchr(p, ':') + 2);
		} else if (depth && t < ts) {
			depth--;
		}
	}
	if (!depth)
		return false;
	snprintf(name, size, "%s", stack[depth - 1]);
	return true;
}

/*
 * record --sched: a sequence more for the thread sched.tsv names, with
 * its off-CPU track (a child of the thread's) holding its sleeping and
 * runnable slices; a wake by another thread of the recording is a flow
 * from an instant in the waker's call (vfs_write) to one in the woken
 * call (vfs_read) at its switch-in; the threads' own sequences are as
 * without a sched.tsv. A wake by a thread not in the recording is no flow.
 */
static void test_sched_flows(void)
{
	struct ng_pf_stats st;
	struct reader *r;
	char in[64];

	T_EQ_INT(t_make_sched_example(), 0);
	r = export_and_read(t_path("rec"), t_path("s.pftrace"), &st, NULL);
	T_ASSERT(r);
	T_EQ_U64(r->nr_seq, 3);
	T_EQ_STR(r->seq[1].text.s, "5200:+vfs_write\n5220:POP\n");
	T_EQ_STR(r->seq[3].text.s,
		 "5110:+Sleeping: woken by 420 writer in vfs_write\n5210:POP\n"
		 "5210:+Runnable\n5230:POP\n"
		 "5240:+Runnable (preempted)\n5250:POP\n"
		 "5280:+Sleeping: woken by 999 other\n5300:POP\n"
		 "5300:+Runnable\n5310:POP\n");
	T_EQ_U64(r->nr_named, 1);
	T_EQ_U64(r->named[0].uuid, NG_PF_STATE_UUID + 421);
	T_EQ_U64(r->named[0].parent, NG_PF_THREAD_UUID + 421);
	T_EQ_U64(st.states, 5);
	T_EQ_U64(st.flows, 1);
	/* one flow: from the waker's call at the wake to the woken's */
	T_EQ_U64(r->nr_inst, 2);
	T_EQ_U64(r->inst[0].ts, 5210);
	T_EQ_U64(r->inst[0].track, NG_PF_THREAD_UUID + 420);
	T_EQ_STR(r->inst[0].name, "wakes 421");
	T_ASSERT(r->inst[0].flow && !r->inst[0].term);
	T_ASSERT(call_at(r->seq[1].text.s, r->inst[0].ts, in, sizeof(in)));
	T_EQ_STR(in, "vfs_write");
	T_EQ_U64(r->inst[1].ts, 5230);
	T_EQ_U64(r->inst[1].track, NG_PF_THREAD_UUID + 421);
	T_EQ_STR(r->inst[1].name, "woken by 420");
	T_ASSERT(r->inst[1].term == r->inst[0].flow && !r->inst[1].flow);
	T_ASSERT(call_at(r->seq[2].text.s, r->inst[1].ts, in, sizeof(in)));
	T_EQ_STR(in, "vfs_read");
	reader_free(r);

	/*
	 * The first span's wake came just before its sleep (while 421 was
	 * still on its CPU): the flow starts at the wake, before the
	 * sequence's first slice, and no timestamp runs backwards.
	 */
	T_EQ_INT(t_write_file(t_rp("sched.tsv"),
			      "# nanograph sched 1\n"
			      "5205\twake\t421\t420\twriter\ttask\tvfs_write\n"
			      "5210\tout\t421\tS\t1\n"
			      "5230\tin\t421\n"), 0);
	r = export_and_read(t_path("rec"), t_path("e.pftrace"), &st, NULL);
	T_ASSERT(r);
	T_EQ_STR(r->seq[3].text.s, "5210:+Runnable\n5230:POP\n");
	T_EQ_U64(r->nr_inst, 2);
	T_EQ_U64(r->inst[0].ts, 5205);
	T_EQ_U64(r->inst[1].ts, 5230);
	reader_free(r);
}

/*
 * With args.tsv, retval.tsv and protos.tsv, each call's arguments are
 * debug annotations of its BEGIN, by name and typed, and its return value
 * one named "ret" of its END; a call without values has none, and a
 * void function's END none.  Read back by protoc with Perfetto's schema;
 * --chrome writes them as each event's args.
 */
static void test_values(void)
{
	char dir[600], out[700], *text;

	snprintf(dir, sizeof(dir), "%s", t_path("v"));
	snprintf(out, sizeof(out), "%s", t_path("v.perfetto-trace"));
	T_EQ_INT(mkdir(dir, 0755), 0);
	T_EQ_INT(t_write_file(t_path("v/7.txt"),
			      "1000:+ksys_read\n1100:+vfs_read\n1200:POP\n1300:POP\n"
			      "2000:+fput\n2100:POP\n"), 0);
	T_EQ_INT(t_write_file(t_path("v/args.tsv"),
			      "# nanograph args 1\n"
			      "1000\t7\t0\tksys_read\tdo_syscall_64+0x87\t0x3\t0x7ffd0000\t0x1000\n"
			      "2000\t7\t0\tfput\t-\t0xffff888100000000\n"), 0);
	T_EQ_INT(t_write_file(t_path("v/retval.tsv"),
			      "# nanograph retval 1\n"
			      "1200\t7\t1\tvfs_read\t0x1000\n"
			      "1300\t7\t0\tksys_read\t0xfffffffffffffff7\n"
			      "2100\t7\t0\tfput\t0x5\n"), 0);
	T_EQ_INT(t_write_file(t_path("v/protos.tsv"),
			      "# nanograph protos 1\n"
			      "ksys_read\ts:8:ssize_t\tu:4:fd:unsigned int\tp:8:buf:char *\tu:8:count:size_t\n"
			      "fput\tv:0:void\tp:8:file:struct file *\n"), 0);
	T_RUN(t_ng("export", "--perfetto", "-o", out, dir, NULL), 0, "", "");
	text = protoc(out, false);
	T_ASSERT(text);
	/* protoc writes a message's fields by number: string_value (6) first. */
	T_ASSERT(strstr(text, "debug_annotations {\n      string_value: \"3\"\n      name: \"fd\"\n"));
	T_ASSERT(strstr(text, "string_value: \"4096\"\n      name: \"count\"\n"));
	T_ASSERT(strstr(text, "string_value: \"do_syscall_64+0x87\"\n      name: \"site\"\n"));
	T_ASSERT(strstr(text, "string_value: \"-9 (EBADF)\"\n      name: \"ret\"\n"));
	/* vfs_read has no prototype: a register, as funcgraph-retval writes it. */
	T_ASSERT(strstr(text, "string_value: \"0x1000\"\n      name: \"ret\"\n"));
	T_ASSERT(strstr(text, "string_value: \"0xffff888100000000\"\n      name: \"file\"\n"));
	/* fput is void: no "ret" annotation of 5. */
	T_ASSERT(!strstr(text, "string_value: \"5\"") && !strstr(text, "string_value: \"0x5\""));
	free(text);
	/* --chrome: the same as the events' args. */
	T_RUN(t_ng("export", "--chrome", "-o", "-", dir, NULL), 0,
	      "{\"traceEvents\":[\n"
	      "{\"ph\":\"M\",\"pid\":7,\"name\":\"process_name\",\"args\":{\"name\":\"7\"}},\n"
	      "{\"ph\":\"M\",\"pid\":7,\"tid\":7,\"name\":\"thread_name\",\"args\":{\"name\":\"7\"}},\n"
	      "{\"ph\":\"X\",\"pid\":7,\"tid\":7,\"ts\":1.000,\"dur\":0.300,\"name\":\"ksys_read\","
	      "\"args\":{\"fd\":\"3\",\"buf\":\"0x7ffd0000\",\"count\":\"4096\","
	      "\"site\":\"do_syscall_64+0x87\",\"ret\":\"-9 (EBADF)\"}},\n"
	      "{\"ph\":\"X\",\"pid\":7,\"tid\":7,\"ts\":1.100,\"dur\":0.100,\"name\":\"vfs_read\","
	      "\"args\":{\"ret\":\"0x1000\"}},\n"
	      "{\"ph\":\"X\",\"pid\":7,\"tid\":7,\"ts\":2.000,\"dur\":0.100,\"name\":\"fput\","
	      "\"args\":{\"file\":\"0xffff888100000000\"}}\n"
	      "],\"displayTimeUnit\":\"ns\"}\n", "");
}

static const struct t_case cases[] = {
	{ "decode_example", test_decode_example },
	{ "decode_raw", test_decode_raw },
	{ "wire_bytes", test_wire_bytes },
	{ "roundtrip", test_roundtrip },
	{ "long_label", test_long_label },
	{ "bad_input", test_bad_input },
	{ "write_error", test_write_error },
	{ "cmd_export", test_cmd_export },
	{ "cmd_export_errors", test_cmd_export_errors },
	{ "compensated", test_compensated },
	{ "sched_flows", test_sched_flows },
	{ "values", test_values },
};

T_SUITE(perfetto, cases);
