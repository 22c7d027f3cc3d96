// SPDX-License-Identifier: LGPL-2.1
/*
 * export.c - a recording in the formats other tools read:
 *
 *  - Chrome Trace Event JSON, which ui.perfetto.dev (and chrome://tracing)
 *    loads: one complete ("X") event per call, thread and process names as
 *    metadata. Perfetto has no importer for push/pop text; pid/tid keyed
 *    JSON gives one track per thread, grouped by process.
 *  - Folded stacks ("comm;f1;...;fn weight"), which flamegraph.pl and
 *    speedscope read; the weight is fn's self time in nanoseconds
 *    (folded.c).
 *
 * Times stay integers: microseconds with three decimals are printed from
 * nanoseconds, never through floating point, so ts and dur are exact and
 * folded weights add up to the recorded time to the nanosecond.
 *
 * Both stream the files one at a time. The JSON holds back only the calls
 * of one outermost call, so that a parent is written before its children
 * (viewers resolve calls that start in the same nanosecond by file order);
 * the folded stacks (folded.c) keep one node per distinct stack, as a tree.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nanograph.h"
#include "export.h"
#include "json.h"
#include "outfile.h"
#include "strmap.h"

/* A thread's own track: its tid, or past PID_MAX_LIMIT for an idle task. */
long long ng_chrome_tid(const struct ng_rec_thread *t)
{
	return t->idle ? NG_IDLE_TID_BASE + t->id : t->id;
}

/* A process to group the thread under: its pid, or itself if unknown. */
long long ng_chrome_pid(const struct ng_rec_thread *t)
{
	if (t->idle)
		return 0;
	return t->pid > 0 ? t->pid : t->id;
}

/*
 * Open @path as an outfile with a large buffer (a JSON export can be
 * gigabytes), or write to @fp if it is given.
 */
int ng_export_open(struct ng_outfile *o, const char *path, FILE *fp)
{
	int ret;

	if (fp) {
		ng_outfile_stream(o, fp);
		return 0;
	}
	ret = ng_outfile_open_path(o, path);
	if (!ret)
		setvbuf(o->fp, NULL, _IOFBF, 1 << 20);
	return ret;
}

/* Nanoseconds as microseconds with three decimals: 1234567 -> 1234.567. */
static char *put_us(char *p, uint64_t ns)
{
	unsigned int frac = ns % 1000;

	p = put_u64(p, ns / 1000);
	*p++ = '.';
	*p++ = '0' + frac / 100;
	*p++ = '0' + frac / 10 % 10;
	*p++ = '0' + frac % 10;
	return p;
}

/* ---- Chrome JSON ---- */

/* A call whose event is held back until its outermost call ends. */
struct slot {
	const char *name;	/* JSON-escaped label */
	uint64_t start;
	uint64_t dur;		/* SLOT_OPEN until the call ends */
	char *args;		/* its "args" members (args.tsv, retval.tsv), or NULL */
};

#define SLOT_OPEN		UINT64_MAX
/*
 * Calls held back per thread at most: past this (an outermost call with
 * a million calls inside), the calls that ended are written at once and
 * only the open ones wait, so memory stays bounded.
 */
#define CHROME_MAX_PENDING	(1U << 20)

struct chrome {
	struct ng_outfile out;
	struct ng_strmap *names;	/* label -> char * JSON-escaped, or NULL if the same */
	char prefix[96];		/* ",\n{...,"pid":P,"tid":T,"ts":" of this thread */
	size_t prefix_len;
	struct slot *slots;		/* in start order */
	size_t nr, cap;
	size_t *open;			/* slot of each open frame, by depth */
	size_t open_cap;
	const struct ng_recording *rec;	/* its values (args.tsv, retval.tsv) */
	int tid;			/* this thread's key in them */
};

/* Whether @s needs ng_json_escape(); most kernel function names do not. */
static bool needs_escape(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	for (; *u; u++)
		if (*u == '"' || *u == '\\' || *u < 0x20 || *u >= 0x80)
			return true;
	return false;
}

/* The escaped label, made once per distinct label; NULL without memory. */
static const char *chrome_name(struct chrome *c, const char *label)
{
	char **esc = ng_strmap_get(c->names, label, strlen(label), NULL);

	if (!esc)
		return NULL;
	if (*esc)
		return *esc;
	if (!needs_escape(label))
		return ng_strmap_key(esc);
	*esc = ng_json_escape(label);
	return *esc;
}

/*
 * One "X" event, formatted by hand and not through the writer (json.c):
 * there can be tens of millions, and the writer's calls per member cost
 * more than these few copies of a prefix made once per thread.
 */
static void chrome_event(struct chrome *c, const struct slot *s)
{
	char num[64], *p;

	out_put(&c->out, c->prefix, c->prefix_len);
	p = put_us(num, s->start);
	memcpy(p, ",\"dur\":", 7);
	p = put_us(p + 7, s->dur);
	memcpy(p, ",\"name\":\"", 9);
	out_put(&c->out, num, p + 9 - num);
	out_str(&c->out, s->name);
	if (s->args) {
		out_put(&c->out, "\",\"args\":{", 10);
		out_str(&c->out, s->args);
		out_put(&c->out, "}}", 2);
	} else {
		out_put(&c->out, "\"}", 2);
	}
}

/* Append "NAME":"VALUE" to *@args (malloc'd); false without memory. */
static bool args_add(char **args, const char *name, const char *value)
{
	size_t old = *args ? strlen(*args) : 0;
	char *n, *ev = ng_json_escape(value), *en = ng_json_escape(name);
	bool ok = false;

	if (ev && en) {
		n = realloc(*args, old + strlen(en) + strlen(ev) + 7);
		if (n) {
			sprintf(n + old, "%s\"%s\":\"%s\"", old ? "," : "", en, ev);
			*args = n;
			ok = true;
		}
	}
	free(ev);
	free(en);
	return ok;
}

static int chrome_arg(void *priv, const char *name, const char *value, bool typed)
{
	(void)typed;
	return args_add(priv, name, value) ? 0 : -ENOMEM;
}

/*
 * Write the calls that ended, in start order, and keep the @nr_open open
 * ones (each an ancestor of the next) at the front for later.
 */
static void chrome_flush(struct chrome *c, size_t nr_open)
{
	size_t i, k;

	for (i = 0; i < c->nr; i++)
		if (c->slots[i].dur != SLOT_OPEN) {
			chrome_event(c, &c->slots[i]);
			free(c->slots[i].args);
			c->slots[i].args = NULL;
		}
	for (k = 0; k < nr_open; k++) {
		c->slots[k] = c->slots[c->open[k]];
		c->open[k] = k;
	}
	c->nr = nr_open;
}

/* A call starts: it takes the next slot, so slots are in start order. */
static int chrome_enter(void *priv, const char *label, uint64_t ns,
			size_t depth)
{
	struct chrome *c = priv;
	const char *name = chrome_name(c, label);

	if (!name)
		return -ENOMEM;
	if (c->nr >= CHROME_MAX_PENDING)
		chrome_flush(c, depth);
	if (c->nr == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 1024;
		struct slot *s = realloc(c->slots, cap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		c->slots = s;
		c->cap = cap;
	}
	if (depth == c->open_cap) {
		size_t cap = c->open_cap ? 2 * c->open_cap : 64;
		size_t *o = realloc(c->open, cap * sizeof(*o));

		if (!o)
			return -ENOMEM;
		c->open = o;
		c->open_cap = cap;
	}
	c->slots[c->nr] = (struct slot){ name, ns, SLOT_OPEN, NULL };
	if (c->rec->values) {
		const struct ng_call_values *v =
			ng_values_args(c->rec->values, c->tid, ns, (unsigned int)depth);
		char **args = &c->slots[c->nr].args;

		if (v && (ng_args_each(c->rec->values, label, v, chrome_arg, args) ||
			  (v->site[0] && !args_add(args, "site", v->site)))) {
			free(*args);
			return -ENOMEM;
		}
	}
	c->open[depth] = c->nr++;
	return c->out.err;
}

/* A call ends; when it is an outermost one, its whole tree is written. */
static int chrome_leave(void *priv, const struct ng_call *call)
{
	struct chrome *c = priv;

	struct slot *s = &c->slots[c->open[call->depth]];

	s->dur = call->end_ns - call->start_ns;
	if (c->rec->values) {
		const struct ng_call_values *v =
			ng_values_ret(c->rec->values, c->tid, call->end_ns,
				      (unsigned int)call->depth);
		char text[64];

		if (v && ng_retval_text(c->rec->values, call->label, text,
					sizeof(text), v->retval) &&
		    !args_add(&s->args, "ret", text))
			return -ENOMEM;
	}
	if (!call->depth)
		chrome_flush(c, 0);
	return c->out.err;
}

/*
 * A metadata event: @what ("process_name", "thread_name") of @pid, or of
 * @tid in it, is @name. Through the writer: one per thread, unlike the
 * calls' events.
 */
static void chrome_meta(struct chrome *c, bool first, long long pid,
			const long long *tid, const char *what, const char *name)
{
	struct ng_json_writer w;

	if (!first)
		out_str(&c->out, ",\n");
	ng_jw_init(&w, &c->out, NG_JSON_COMPACT);
	ng_jw_object(&w);
	ng_jw_key(&w, "ph");
	ng_jw_str(&w, "M");
	ng_jw_key(&w, "pid");
	ng_jw_i64(&w, pid);
	if (tid) {
		ng_jw_key(&w, "tid");
		ng_jw_i64(&w, *tid);
	}
	ng_jw_key(&w, "name");
	ng_jw_str(&w, what);
	ng_jw_key(&w, "args");
	ng_jw_object(&w);
	ng_jw_key(&w, "name");
	ng_jw_str(&w, name);
	ng_jw_end(&w);
	ng_jw_end(&w);
}

/* thread_name for each thread, process_name once for each process. */
static int chrome_metadata(struct chrome *c, const struct ng_recording *rec)
{
	struct ng_strmap *seen = ng_strmap_new(0);
	const struct ng_rec_thread *t;
	bool added, first = true;
	long long pid, tid;

	if (!seen)
		return -ENOMEM;
	for (t = rec->threads; t < rec->threads + rec->nr_threads; t++) {
		pid = ng_chrome_pid(t);
		if (!ng_strmap_get(seen, &pid, sizeof(pid), &added)) {
			ng_strmap_free(seen);
			return -ENOMEM;
		}
		if (added) {
			chrome_meta(c, first, pid, NULL, "process_name", t->process);
			first = false;
		}
		tid = ng_chrome_tid(t);
		chrome_meta(c, first, pid, &tid, "thread_name", t->comm);
		first = false;
	}
	ng_strmap_free(seen);
	return c->out.err;
}

/* Free the escaped labels and the per-thread buffers. */
static void chrome_free(struct chrome *c)
{
	void **names;
	size_t i, n;

	if (c->names && !ng_strmap_values(c->names, &names, &n)) {
		for (i = 0; i < n; i++)
			free(*(char **)names[i]);
		free(names);
	}
	ng_strmap_free(c->names);
	for (i = 0; c->slots && i < c->nr; i++)
		free(c->slots[i].args);
	free(c->slots);
	free(c->open);
}

/* A time in exact microseconds as the value of @key. */
static void chrome_time(struct ng_json_writer *w, const char *key, uint64_t ns)
{
	char num[32];

	*put_us(num, ns) = '\0';
	ng_jw_key(w, key);
	ng_jw_printf(w, "%s", num);
}

/* A sched event's start: the separator, then "ph" and "cat". */
static void chrome_sched_event(struct chrome *c, struct ng_json_writer *w,
			       const char *ph)
{
	out_str(&c->out, ",\n");
	ng_jw_init(w, &c->out, NG_JSON_COMPACT);
	ng_jw_object(w);
	ng_jw_key(w, "ph");
	ng_jw_str(w, ph);
}

/* The row of @t: its process and its own track. */
static void chrome_row(struct ng_json_writer *w, const struct ng_rec_thread *t)
{
	ng_jw_key(w, "pid");
	ng_jw_i64(w, ng_chrome_pid(t));
	ng_jw_key(w, "tid");
	ng_jw_i64(w, ng_chrome_tid(t));
}

/* An "X" event of the sched category on @t's row, named @name. */
static void chrome_state(struct chrome *c, const struct ng_rec_thread *t,
			 uint64_t from, uint64_t to, const char *name)
{
	struct ng_json_writer w;

	if (to <= from)
		return;
	chrome_sched_event(c, &w, "X");
	ng_jw_key(&w, "cat");
	ng_jw_str(&w, "sched");
	chrome_row(&w, t);
	chrome_time(&w, "ts", from);
	chrome_time(&w, "dur", to - from);
	ng_jw_key(&w, "name");
	ng_jw_str(&w, name);
	ng_jw_end(&w);
}

/* One end of a flow: "s" in the waker's call, "f" in the woken's. */
static void chrome_flow(struct chrome *c, const struct ng_rec_thread *t,
			uint64_t ts, bool start, unsigned long long id)
{
	struct ng_json_writer w;

	chrome_sched_event(c, &w, start ? "s" : "f");
	if (!start) {
		ng_jw_key(&w, "bp");
		ng_jw_str(&w, "e");
	}
	ng_jw_key(&w, "cat");
	ng_jw_str(&w, "sched");
	ng_jw_key(&w, "name");
	ng_jw_str(&w, "wake");
	ng_jw_key(&w, "id");
	ng_jw_u64(&w, id);
	chrome_row(&w, t);
	chrome_time(&w, "ts", ts);
	ng_jw_end(&w);
}

/*
 * record --sched, as far as the JSON format goes: each span off the CPU
 * as "X" slices on the thread's own row (inside the call it was in) and,
 * for a wake by a thread of the recording, a flow ("s" bound to the
 * waker's enclosing call, "f" with "bp":"e" to the woken one's) between
 * the two calls. The names are those of --perfetto.
 */
static int chrome_sched(struct chrome *c, const struct ng_recording *rec)
{
	const struct ng_sched_span *v, *sp;
	const struct ng_rec_thread *t, *waker;
	unsigned long long flows = 0;
	char name[NG_SCHED_SLEEP_MAX];
	size_t i, n;

	for (t = rec->threads; t < rec->threads + rec->nr_threads; t++) {
		n = t->idle ? 0 : ng_sched_spans(rec->sched, (int)t->id, &v);
		for (i = 0; i < n && !c->out.err; i++) {
			sp = &v[i];
			if (sp->wake_ns == UINT64_MAX || sp->in_ns == UINT64_MAX)
				continue;
			chrome_state(c, t, sp->out_ns, sp->wake_ns,
				     ng_sched_sleep_name(name, sizeof(name), sp));
			chrome_state(c, t, sp->wake_ns, sp->in_ns,
				     ng_sched_runnable_name(sp));
			waker = ng_recording_waker(rec, sp);
			if (!waker)
				continue;
			chrome_flow(c, waker, sp->woken_ns, true, ++flows);
			chrome_flow(c, t, sp->in_ns, false, flows);
		}
	}
	return c->out.err;
}

/* Metadata, then each thread's calls; a bad input leaves no output. */
static int export_chrome(const struct ng_recording *rec, const char *path,
			 FILE *fp, struct ng_pp_bad *bad)
{
	struct chrome c = { .rec = rec };
	struct ng_pp_visitor v = { chrome_enter, chrome_leave, &c };
	const struct ng_rec_thread *t;
	struct ng_pp_bad ignored;
	int ret;

	if (!bad)
		bad = &ignored;
	memset(bad, 0, sizeof(*bad));
	if (fp) {
		ret = ng_recording_check(rec, bad);
		if (ret)
			return ret;
	}
	c.names = ng_strmap_new(sizeof(char *));
	if (!c.names)
		return -ENOMEM;
	ret = ng_export_open(&c.out, path, fp);
	if (ret) {
		chrome_free(&c);
		return ret;
	}
	out_str(&c.out, "{\"traceEvents\":[\n");
	ret = chrome_metadata(&c, rec);
	for (t = rec->threads; !ret && t < rec->threads + rec->nr_threads; t++) {
		c.prefix_len = snprintf(c.prefix, sizeof(c.prefix),
					",\n{\"ph\":\"X\",\"pid\":%lld,\"tid\":%lld,\"ts\":",
					ng_chrome_pid(t), ng_chrome_tid(t));
		while (c.nr)
			free(c.slots[--c.nr].args);
		c.tid = ng_rec_thread_key(t);
		ret = ng_recording_walk(rec, t, &v, bad);
		if (ret && ret != -ENOMEM && !c.out.err)
			bad->file = t->file;
	}
	if (!ret && ng_recording_draws_sched(rec))
		ret = chrome_sched(&c, rec);
	out_str(&c.out, "\n],\"displayTimeUnit\":\"ns\"}\n");
	if (!ret)
		ret = ng_outfile_commit(&c.out);
	else
		ng_outfile_abort(&c.out);
	chrome_free(&c);
	return ret;
}

int ng_export_chrome(const struct ng_recording *rec, const char *path,
		     struct ng_pp_bad *bad)
{
	return export_chrome(rec, path, NULL, bad);
}

int ng_export_chrome_fp(const struct ng_recording *rec, FILE *fp,
			struct ng_pp_bad *bad)
{
	return export_chrome(rec, NULL, fp, bad);
}
