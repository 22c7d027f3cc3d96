// SPDX-License-Identifier: LGPL-2.1
/*
 * info.c - DIR/info.json: what a recording is (the collector's command
 * line, the traced command or process, the kernel and host, when, the
 * module's settings, the clock) and how complete its files are (events
 * lost, calls skipped by the module, calls whose return was lost or that
 * were still running at the end). record and convert write it next to
 * the push/pop files, into the directory ng_outdir_*() swaps in, so it
 * always describes the files beside it.
 *
 * Written through json.c's writer: a fixed layout, one field a line,
 * strings escaped as the Chrome export escapes them.
 *
 * Read back through json.c's reader for "nanograph info" and for the
 * warning report and export print on an incomplete recording. The file
 * may have been edited by hand, so any JSON object is taken, flattened
 * into "key path: value" fields; the file is bounded (NG_INFO_MAX_SIZE),
 * and so is what it parses into.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "nanograph.h"
#include "json.h"
#include "readall.h"

/* ---- the module's settings ---- */

enum setting_kind {
	S_GLOBS,	/* a list file of globs or names: strings */
	S_PIDS,		/* a list file of pids: numbers */
	S_NUMBER,	/* one number */
};

/* The control files that decide what is recorded, in info.json's order. */
static const struct {
	const char *file;
	const char *key;	/* its name under "filters" */
	enum setting_kind kind;
} settings[] = {
	{ "set_ftrace_filter", "set_ftrace_filter", S_GLOBS },
	{ "set_ftrace_notrace", "set_ftrace_notrace", S_GLOBS },
	{ "set_graph_function", "set_graph_function", S_GLOBS },
	{ "set_graph_notrace", "set_graph_notrace", S_GLOBS },
	{ "max_graph_depth", "max_graph_depth", S_NUMBER },
	{ "set_event_pid", "set_event_pid", S_PIDS },
	{ "set_event_notrace_pid", "set_event_notrace_pid", S_PIDS },
	{ "options/event-fork", "event_fork", S_NUMBER },
	{ "set_event_comm", "set_event_comm", S_GLOBS },
	{ "options/direct", "direct", S_NUMBER },
};

#define NR_SETTINGS	(sizeof(settings) / sizeof(settings[0]))

struct ng_info_settings {
	char *text[NR_SETTINGS];	/* as read; NULL: could not be read */
};

/*
 * The settings as the module holds them once record has configured it:
 * what is in effect, globs as written, rather than the options that
 * asked for it (set_ftrace_notrace, which record leaves alone, too).
 */
int ng_info_read_settings(const struct ng_ctl *ctl,
			  struct ng_info_settings **sp)
{
	struct ng_info_settings *s = calloc(1, sizeof(*s));
	size_t i;
	char *buf;
	int ret;

	if (!s)
		return -ENOMEM;
	for (i = 0; i < NR_SETTINGS; i++) {
		buf = NULL;
		ret = ng_ctl_read(ctl, settings[i].file, &buf, NULL);
		if (ret == -ENOMEM) {
			ng_info_settings_free(s);
			return ret;
		}
		s->text[i] = ret ? NULL : buf;
	}
	*sp = s;
	return 0;
}

void ng_info_settings_free(struct ng_info_settings *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < NR_SETTINGS; i++)
		free(s->text[i]);
	free(s);
}

/* ---- writing ---- */

/* A count; NG_INFO_UNKNOWN is null. */
static void put_u64(struct ng_json_writer *w, uint64_t v)
{
	if (v == NG_INFO_UNKNOWN)
		ng_jw_null(w);
	else
		ng_jw_u64(w, v);
}

/* "key": count, the most common line of the file. */
static void field_u64(struct ng_json_writer *w, const char *key, uint64_t v)
{
	ng_jw_key(w, key);
	put_u64(w, v);
}

static void field_str(struct ng_json_writer *w, const char *key, const char *s)
{
	ng_jw_key(w, key);
	ng_jw_str(w, s);
}

/* An object as the value of @key. */
static void open_object(struct ng_json_writer *w, const char *key)
{
	ng_jw_key(w, key);
	ng_jw_object(w);
}

/* An argument vector as an array of strings; none is null. */
static void put_argv(struct ng_json_writer *w, int argc, char *const *argv)
{
	int i;

	if (argc <= 0 || !argv) {
		ng_jw_null(w);
		return;
	}
	ng_jw_array(w);
	for (i = 0; i < argc; i++)
		ng_jw_str(w, argv[i]);
	ng_jw_end(w);
}

/* Blanks around a control file's line are not part of its value. */
static void trim(const char **s, size_t *len)
{
	while (*len && ((*s)[0] == ' ' || (*s)[0] == '\t')) {
		(*s)++;
		(*len)--;
	}
	while (*len && ((*s)[*len - 1] == ' ' || (*s)[*len - 1] == '\t' ||
			(*s)[*len - 1] == '\r'))
		(*len)--;
}

/*
 * One line of a control file as a value: a glob as a string, a number as
 * itself; false if it is not one (a number file's text that is not).
 */
static bool put_setting_line(struct ng_json_writer *w, const char *line,
			     size_t len, enum setting_kind kind)
{
	char *one = strndup(line, len);
	bool done = true;
	uint64_t v;

	if (!one) {
		if (!w->of->err)
			w->of->err = -ENOMEM;
		return false;
	}
	if (kind == S_GLOBS)
		ng_jw_str(w, one);
	else if (!ng_parse_num(one, 0, 0, UINT64_MAX - 1, &v))
		ng_jw_u64(w, v);
	else
		done = false;
	free(one);
	return done;
}

/*
 * A control file's text as info.json holds it: a list file as an array
 * (its "####" notes and empty lines left out, so an empty file is []),
 * pids as numbers; a number file as its number. NULL (unread) is null.
 */
static void put_setting(struct ng_json_writer *w, const char *text,
			enum setting_kind kind)
{
	const char *line, *end;
	size_t len;

	if (!text) {
		ng_jw_null(w);
		return;
	}
	if (kind != S_NUMBER)
		ng_jw_array(w);
	for (line = text; *line; line = *end ? end + 1 : end) {
		end = line + strcspn(line, "\n");
		len = end - line;
		trim(&line, &len);
		if (!len || line[0] == '#')
			continue;
		if (put_setting_line(w, line, len, kind) && kind == S_NUMBER)
			return;
		if (w->of->err)
			return;
		if (kind == S_NUMBER)
			break;		/* its first line says it all */
	}
	if (kind != S_NUMBER)
		ng_jw_end(w);
	else
		ng_jw_null(w);		/* not a number */
}

/* ISO 8601 in UTC, to the microsecond: "2026-11-20T13:03:12.345678Z". */
static void put_time(struct ng_json_writer *w, const struct timespec *ts)
{
	char buf[64];
	struct tm tm;

	if (!ts || !gmtime_r(&ts->tv_sec, &tm) ||
	    !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm)) {
		ng_jw_null(w);
		return;
	}
	ng_jw_printf(w, "\"%s.%06ldZ\"", buf, (long)(ts->tv_nsec / 1000));
}

/* Open object @key for what @p points to; false (and null written) if none. */
static bool open_or_null(struct ng_json_writer *w, const char *key,
			 const void *p)
{
	if (p) {
		open_object(w, key);
		return true;
	}
	ng_jw_key(w, key);
	ng_jw_null(w);
	return false;
}

/* The tracer's cost per call as record calibrated it (ns to the tenth). */
static void put_overhead(struct ng_json_writer *w, const struct ng_overhead *o)
{
	if (!open_or_null(w, "overhead", o))
		return;
	ng_jw_key(w, "per_call_ns");
	ng_jw_printf(w, "%.1f", o->per_call_ns);
	ng_jw_key(w, "inside_ns");
	ng_jw_printf(w, "%.1f", o->inside_ns);
	field_u64(w, "calls", o->calls);
	field_str(w, "function", o->function);
	ng_jw_end(w);
}

/* A flight snapshot's triggering call; other recordings have null. */
static void put_trigger(struct ng_json_writer *w,
			const struct ng_info_trigger *t)
{
	if (!open_or_null(w, "trigger", t))
		return;
	field_str(w, "function", t->function);
	field_u64(w, "duration_ns", t->duration_ns);
	field_u64(w, "cpu", t->cpu);
	field_u64(w, "tid", t->tid);
	field_u64(w, "exit_ns", t->exit_ns);
	ng_jw_key(w, "return_value");
	if (t->has_value)
		ng_jw_i64(w, t->value);
	else
		ng_jw_null(w);
	ng_jw_end(w);
}

/* What ran, where and when: the fields before the clock. */
static void put_head(struct ng_json_writer *w, const struct ng_info *in)
{
	struct utsname u;
	bool host = in->this_host && !uname(&u);

	field_u64(w, "format", NG_INFO_FORMAT);
	field_str(w, "nanograph_version", NANOGRAPH_VERSION);
	field_str(w, "source", in->source);
	ng_jw_key(w, "collector_argv");
	put_argv(w, in->argc, in->argv);
	field_str(w, "scope", in->scope);
	ng_jw_key(w, "traced_command");
	put_argv(w, in->command_argc, in->command);
	field_u64(w, "traced_pid", in->pid > 0 ? (uint64_t)in->pid : NG_INFO_UNKNOWN);
	field_str(w, "input", in->input);
	field_str(w, "kernel_release", host ? u.release : NULL);
	field_str(w, "machine", host ? u.machine : NULL);
	field_str(w, "hostname", host ? u.nodename : NULL);
	ng_jw_key(w, "start_time");
	put_time(w, in->start);
	field_u64(w, "duration_ns", in->duration_ns);
	field_str(w, "mode", in->mode);
	put_trigger(w, in->trigger);
}

/* The clock: the counter and the sync pair that converts it. */
static void put_clock(struct ng_json_writer *w, const struct ng_info *in)
{
	const struct ng_clock *clk = &in->sum->clock;
	const char *counter = in->counter;

	if (!counter && clk->name[0])
		counter = clk->name;
	open_object(w, "clock");
	field_str(w, "timestamps", "CLOCK_MONOTONIC");
	field_str(w, "counter", counter);
	field_u64(w, "counter_hz", clk->freq ? clk->freq : NG_INFO_UNKNOWN);
	field_u64(w, "sync_counter", clk->freq ? clk->counter : NG_INFO_UNKNOWN);
	field_u64(w, "sync_monotonic_ns", clk->freq ? clk->mono_ns : NG_INFO_UNKNOWN);
	ng_jw_end(w);
}

/* The module's settings, or null when record did not read them. */
static void put_filters(struct ng_json_writer *w,
			const struct ng_info_settings *settings_read)
{
	size_t i;

	if (!open_or_null(w, "filters", settings_read))
		return;
	for (i = 0; i < NR_SETTINGS; i++) {
		ng_jw_key(w, settings[i].key);
		put_setting(w, settings_read->text[i], settings[i].kind);
	}
	ng_jw_end(w);
}

/* The counts, in the order of Documentation/trace-format.md. */
static void put_counts(struct ng_json_writer *w, const struct ng_info *in)
{
	const struct ng_conv_summary *sum = in->sum;
	const struct {
		const char *key;
		uint64_t v;
	} counts[] = {
		{ "threads", sum->threads }, { "calls", sum->pushes },
		{ "events", sum->events }, { "ignored", sum->ignored },
		{ "lost", sum->lost }, { "overwritten", in->overwritten },
		{ "outside_window", sum->outside_window },
		{ "unattributed", sum->unattributed },
		{ "skipped", in->skipped }, { "repaired", sum->repaired },
		{ "closed_at_end", sum->closed_at_end },
		{ "unmatched_exits", sum->unmatched_exits },
		{ "clamped", sum->clamped }, { "unresolved", sum->unresolved },
		{ "sched", sum->sched }, { "wakes", sum->wakes },
		{ "wakes_attributed", sum->wakes_attributed },
		{ "wakes_untraced", sum->wakes_untraced },
		{ "wakes_no_call", sum->wakes_no_call },
		{ "counters", sum->counters }, { "args", sum->args },
		{ "retvals", sum->retvals }, { "bytes", sum->bytes },
	};
	size_t i;

	open_object(w, "counts");
	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		field_u64(w, counts[i].key, counts[i].v);
	ng_jw_end(w);
}

/*
 * The whole file, fields in the order of Documentation/trace-format.md.
 * Anything the collector does not know is null, never a guess.
 */
int ng_info_write(const char *dir, const struct ng_info *in)
{
	const struct ng_conv_summary *sum = in->sum;
	struct ng_json_writer w;
	struct ng_outfile of;
	int ret;

	ret = ng_outfile_open(&of, dir, NG_INFO_FILE);
	if (ret)
		return ret;
	ng_jw_init(&w, &of, NG_JSON_LINES);
	ng_jw_object(&w);
	put_head(&w, in);
	put_clock(&w, in);
	put_filters(&w, in->settings);
	put_counts(&w, in);
	put_overhead(&w, in->overhead);
	field_u64(&w, "first_ns", sum->events ? sum->first_ns : NG_INFO_UNKNOWN);
	field_u64(&w, "last_ns", sum->events ? sum->last_ns : NG_INFO_UNKNOWN);
	ng_jw_end(&w);
	ng_jw_raw(&w, "\n");
	return ng_outfile_commit(&of);
}

/*
 * info --json of a recording without info.json: the counts its files
 * give, under info.json's names, on @fp.
 */
int ng_info_write_totals(FILE *fp, const struct ng_rec_totals *t)
{
	struct ng_json_writer w;
	struct ng_outfile of;

	ng_outfile_stream(&of, fp);
	ng_jw_init(&w, &of, NG_JSON_LINES);
	ng_jw_object(&w);
	open_object(&w, "counts");
	field_u64(&w, "threads", t->threads);
	field_u64(&w, "calls", t->calls);
	ng_jw_end(&w);
	field_u64(&w, "first_ns", t->calls ? t->first_ns : NG_INFO_UNKNOWN);
	field_u64(&w, "last_ns", t->calls ? t->last_ns : NG_INFO_UNKNOWN);
	ng_jw_end(&w);
	ng_jw_raw(&w, "\n");
	return ng_outfile_commit(&of);
}

/* ---- reading ---- */

struct ng_info_file {
	char *text;		/* the file, NUL-terminated */
	size_t len;
	struct ng_json_doc doc;
};

/* The whole file, at most NG_INFO_MAX_SIZE bytes, NUL-terminated. */
static int read_text(const char *dir, char **textp, size_t *lenp)
{
	char *path;
	int fd, ret;

	if (asprintf(&path, "%s/%s", dir, NG_INFO_FILE) < 0)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return -errno;
	ret = ng_read_all(fd, NG_INFO_MAX_SIZE, textp, lenp);
	close(fd);
	return ret;
}

int ng_info_load(struct ng_info_file **fp, const char *dir,
		 struct ng_pp_bad *bad)
{
	struct ng_info_file *f = calloc(1, sizeof(*f));
	int ret;

	if (bad)
		memset(bad, 0, sizeof(*bad));
	if (!f)
		return -ENOMEM;
	ret = read_text(dir, &f->text, &f->len);
	if (!ret) {
		ret = ng_json_flatten(f->text, f->len, &f->doc, bad);
		if (ret == -EBADMSG && bad)
			bad->file = NG_INFO_FILE;
	}
	if (ret) {
		ng_info_file_free(f);
		return ret;
	}
	*fp = f;
	return 0;
}

const struct ng_info_field *ng_info_fields(const struct ng_info_file *f,
					   size_t *nr)
{
	*nr = f->doc.nr;
	return f->doc.fields;
}

const char *ng_info_text(const struct ng_info_file *f, size_t *len)
{
	*len = f->len;
	return f->text;
}

/* Fields are few (tens): a linear search. */
const struct ng_info_field *ng_info_find(const struct ng_info_file *f,
					 const char *key)
{
	size_t i;

	for (i = 0; i < f->doc.nr; i++)
		if (!strcmp(f->doc.fields[i].key, key))
			return &f->doc.fields[i];
	return NULL;
}

int ng_info_u64(const struct ng_info_file *f, const char *key, uint64_t *v)
{
	const struct ng_info_field *fl = ng_info_find(f, key);

	if (!fl)
		return -ENOENT;
	if (fl->type == NG_JSON_NULL)
		return -ENODATA;
	if (fl->type != NG_JSON_NUMBER ||
	    ng_parse_num(fl->value, 0, 0, UINT64_MAX, v))
		return -EINVAL;
	return 0;
}

/* A cost at @key, through the parser --overhead uses. */
static int info_cost(const struct ng_info_file *f, const char *key, double *v)
{
	const struct ng_info_field *fl = ng_info_find(f, key);

	if (!fl || fl->type != NG_JSON_NUMBER || ng_parse_cost(fl->value, v))
		return -EINVAL;
	return 0;
}

/* Only what --compensate can trust: a cost is refused, never guessed. */
int ng_info_overhead(const struct ng_info_file *f, struct ng_overhead *o)
{
	const struct ng_info_field *fl = ng_info_find(f, "overhead");
	struct ng_overhead r = { 0 };
	size_t i;
	int ret;

	/* an object is its fields "overhead.*"; anything else is one field */
	for (i = 0; !fl && i < f->doc.nr; i++)
		if (!strncmp(f->doc.fields[i].key, "overhead.", 9))
			fl = &f->doc.fields[i];
	if (!fl || (fl->type == NG_JSON_NULL && !strcmp(fl->key, "overhead")))
		return -ENOENT;
	if (info_cost(f, "overhead.per_call_ns", &r.per_call_ns) ||
	    info_cost(f, "overhead.inside_ns", &r.inside_ns) ||
	    r.inside_ns > r.per_call_ns)
		return -EINVAL;
	ret = ng_info_u64(f, "overhead.calls", &r.calls);
	if (ret == -EINVAL)
		return ret;
	fl = ng_info_find(f, "overhead.function");
	if (fl && fl->type == NG_JSON_STRING)
		r.function = fl->value;
	else if (fl && fl->type != NG_JSON_NULL)
		return -EINVAL;
	*o = r;
	return 0;
}

/* The file is freed here: the name is copied to the caller's buffer. */
int ng_info_read_overhead(const char *dir, struct ng_overhead *o,
			  char *function, size_t size)
{
	struct ng_info_file *f;
	int ret = ng_info_load(&f, dir, NULL);

	if (ret == -EBADMSG)
		return -EINVAL;
	if (ret)
		return ret;
	ret = ng_info_overhead(f, o);
	if (!ret && size)
		snprintf(function, size, "%s", o->function ? o->function : "");
	if (!ret)
		o->function = size ? function : NULL;
	ng_info_file_free(f);
	return ret;
}

int ng_info_trigger(const struct ng_info_file *f, struct ng_info_trigger *t)
{
	const struct ng_info_field *fn = ng_info_find(f, "trigger.function");
	uint64_t tid, v;

	memset(t, 0, sizeof(*t));
	if (!fn) {
		fn = ng_info_find(f, "trigger");
		return fn && fn->type != NG_JSON_NULL ? -EINVAL : -ENOENT;
	}
	if (fn->type != NG_JSON_STRING || !*fn->value ||
	    ng_info_u64(f, "trigger.tid", &tid) || tid > INT_MAX ||
	    ng_info_u64(f, "trigger.exit_ns", &t->exit_ns))
		return -EINVAL;
	t->function = fn->value;
	t->tid = (int)tid;
	if (!ng_info_u64(f, "trigger.cpu", &v) && v <= INT_MAX)
		t->cpu = (int)v;
	if (ng_info_u64(f, "trigger.duration_ns", &v))
		v = 0;
	t->duration_ns = v;
	return 0;
}

void ng_info_file_free(struct ng_info_file *f)
{
	if (!f)
		return;
	free(f->text);
	ng_json_doc_free(&f->doc);
	free(f);
}

/* ---- is the recording whole? ---- */

/* The counts that mean calls are missing, and how to say so. */
int ng_info_incomplete(const struct ng_info_file *f, char *buf, size_t len)
{
	static const struct {
		const char *key, *one, *many;
	} parts[] = {
		{ "counts.lost", "event lost", "events lost" },
		{ "counts.unattributed", "record naming no task",
		  "records naming no task" },
		{ "counts.skipped", "call skipped", "calls skipped" },
		{ "counts.repaired", "call closed early (return lost)",
		  "calls closed early (return lost)" },
		{ "counts.closed_at_end", "call still running at the end",
		  "calls still running at the end" },
	};
	bool missing = false;
	size_t i, o = 0;
	uint64_t v;
	int n;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		if (ng_info_u64(f, parts[i].key, &v) || !v)
			continue;
		missing = true;
		if (!len)
			continue;
		n = snprintf(buf + o, len - o, "%s%" PRIu64 " %s", o ? ", " : "",
			     v, v == 1 ? parts[i].one : parts[i].many);
		/* cut to fit: o stays below len, where the NUL is */
		if (n > 0)
			o = o + n < len ? o + n : len - 1;
	}
	return missing;
}

/* The same from @rec's info.json; none (an older recording) is whole. */
int ng_recording_incomplete(const struct ng_recording *rec, char *buf,
			    size_t len)
{
	struct ng_info_file *f;
	int ret = ng_info_load(&f, rec->dir, NULL);

	if (len)
		buf[0] = '\0';
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return ret;
	ret = ng_info_incomplete(f, buf, len);
	ng_info_file_free(f);
	return ret;
}
