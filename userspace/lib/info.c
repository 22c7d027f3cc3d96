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
 * Written by hand: a fixed layout, one field a line, strings escaped as
 * the Chrome export escapes them (ng_json_escape()).
 *
 * Read back by a small JSON parser of its own for "nanograph info" and
 * for the warning report and export print on an incomplete recording.
 * The file may have been edited by hand, so the parser takes any JSON
 * object and flattens it into "key path: value" fields. It does not
 * recurse: nesting is an explicit stack of NG_INFO_MAX_DEPTH frames,
 * and the file (NG_INFO_MAX_SIZE) and what it parses into are bounded.
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
#include "readall.h"
#include "outfile.h"

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

/* A JSON writer of one field a line; only objects nest. */
struct jw {
	struct ng_outfile of;
	int depth;
	bool first;		/* no field yet in the innermost object */
};

static void jw_fail(struct jw *w, int err)
{
	if (!w->of.err)
		w->of.err = err;
}

/* The separator, the indentation and "key": (our keys need no escaping). */
static void jw_key(struct jw *w, const char *key)
{
	ng_outfile_printf(&w->of, "%s\n%*s\"%s\": ", w->first ? "" : ",",
			  2 * w->depth, "", key);
	w->first = false;
}

/* An object as the value of @key, or the whole document (@key NULL). */
static void jw_open(struct jw *w, const char *key)
{
	if (key)
		jw_key(w, key);
	ng_outfile_printf(&w->of, "{");
	w->depth++;
	w->first = true;
}

static void jw_close(struct jw *w)
{
	w->depth--;
	ng_outfile_printf(&w->of, "\n%*s}", 2 * w->depth, "");
	w->first = false;
}

static void jw_null(struct jw *w)
{
	ng_outfile_printf(&w->of, "null");
}

/* A string, escaped; NULL is null. */
static void jw_str(struct jw *w, const char *s)
{
	char *esc;

	if (!s) {
		jw_null(w);
		return;
	}
	esc = ng_json_escape(s);
	if (!esc) {
		jw_fail(w, -ENOMEM);
		return;
	}
	ng_outfile_printf(&w->of, "\"%s\"", esc);
	free(esc);
}

/* A count; NG_INFO_UNKNOWN is null. */
static void jw_u64(struct jw *w, uint64_t v)
{
	if (v == NG_INFO_UNKNOWN)
		jw_null(w);
	else
		ng_outfile_printf(&w->of, "%" PRIu64, v);
}

/* An argument vector as an array of strings; none is null. */
static void jw_argv(struct jw *w, int argc, char *const *argv)
{
	int i;

	if (argc <= 0 || !argv) {
		jw_null(w);
		return;
	}
	ng_outfile_printf(&w->of, "[");
	for (i = 0; i < argc; i++) {
		if (i)
			ng_outfile_printf(&w->of, ", ");
		jw_str(w, argv[i]);
	}
	ng_outfile_printf(&w->of, "]");
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
 * A control file's text as info.json holds it: a list file as an array
 * (its "####" notes and empty lines left out, so an empty file is []),
 * pids as numbers; a number file as its number. NULL (unread) is null.
 */
static void jw_setting(struct jw *w, const char *text, enum setting_kind kind)
{
	const char *line, *end;
	bool first = true;
	uint64_t v;
	size_t len;
	char *one;

	if (!text) {
		jw_null(w);
		return;
	}
	if (kind != S_NUMBER)
		ng_outfile_printf(&w->of, "[");
	for (line = text; *line; line = *end ? end + 1 : end) {
		end = line + strcspn(line, "\n");
		len = end - line;
		trim(&line, &len);
		if (!len || line[0] == '#')
			continue;
		one = strndup(line, len);
		if (!one) {
			jw_fail(w, -ENOMEM);
			return;
		}
		if (kind == S_GLOBS) {
			ng_outfile_printf(&w->of, "%s", first ? "" : ", ");
			jw_str(w, one);
			first = false;
		} else if (!ng_parse_num(one, 0, 0, UINT64_MAX - 1, &v)) {
			ng_outfile_printf(&w->of, "%s", first ? "" : ", ");
			jw_u64(w, v);
			first = false;
		}
		free(one);
		if (kind == S_NUMBER)
			break;		/* its first line says it all */
	}
	if (kind != S_NUMBER)
		ng_outfile_printf(&w->of, "]");
	else if (first)
		jw_null(w);		/* not a number */
}

/* ISO 8601 in UTC, to the microsecond: "2026-11-20T13:03:12.345678Z". */
static void jw_time(struct jw *w, const struct timespec *ts)
{
	char buf[64];
	struct tm tm;

	if (!ts || !gmtime_r(&ts->tv_sec, &tm) ||
	    !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm)) {
		jw_null(w);
		return;
	}
	ng_outfile_printf(&w->of, "\"%s.%06ldZ\"", buf,
			  (long)(ts->tv_nsec / 1000));
}

/* A cost in ns, to the tenth. */
static void jw_ns(struct jw *w, double v)
{
	ng_outfile_printf(&w->of, "%.1f", v);
}

/* Open object @key for what @p points to; false (and null written) if none. */
static bool jw_open_or_null(struct jw *w, const char *key, const void *p)
{
	if (p) {
		jw_open(w, key);
		return true;
	}
	jw_key(w, key);
	jw_null(w);
	return false;
}

/* The tracer's cost per call as record calibrated it; none is null. */
static void jw_overhead(struct jw *w, const struct ng_overhead *o)
{
	if (!jw_open_or_null(w, "overhead", o))
		return;
	jw_key(w, "per_call_ns");
	jw_ns(w, o->per_call_ns);
	jw_key(w, "inside_ns");
	jw_ns(w, o->inside_ns);
	jw_key(w, "calls");
	jw_u64(w, o->calls);
	jw_key(w, "function");
	jw_str(w, o->function);
	jw_close(w);
}

/* A flight snapshot's triggering call; other recordings have null. */
static void jw_trigger(struct jw *w, const struct ng_info_trigger *t)
{
	if (!jw_open_or_null(w, "trigger", t))
		return;
	jw_key(w, "function");
	jw_str(w, t->function);
	jw_key(w, "duration_ns");
	jw_u64(w, t->duration_ns);
	jw_key(w, "cpu");
	jw_u64(w, t->cpu);
	jw_key(w, "tid");
	jw_u64(w, t->tid);
	jw_key(w, "exit_ns");
	jw_u64(w, t->exit_ns);
	jw_key(w, "return_value");
	if (t->has_value)
		ng_outfile_printf(&w->of, "%d", t->value);
	else
		jw_null(w);
	jw_close(w);
}

/*
 * The whole file, fields in the order of Documentation/trace-format.md.
 * Anything the collector does not know is null, never a guess.
 */
int ng_info_write(const char *dir, const struct ng_info *in)
{
	const struct ng_conv_summary *sum = in->sum;
	const struct ng_clock *clk = &sum->clock;
	const char *counter = in->counter;
	struct jw w = { .first = true };
	struct utsname u;
	bool host = in->this_host && !uname(&u);
	size_t i;
	int ret;

	if (!counter && clk->name[0])
		counter = clk->name;
	ret = ng_outfile_open(&w.of, dir, NG_INFO_FILE);
	if (ret)
		return ret;
	jw_open(&w, NULL);
	jw_key(&w, "format");
	jw_u64(&w, NG_INFO_FORMAT);
	jw_key(&w, "nanograph_version");
	jw_str(&w, NANOGRAPH_VERSION);
	jw_key(&w, "source");
	jw_str(&w, in->source);
	jw_key(&w, "collector_argv");
	jw_argv(&w, in->argc, in->argv);
	jw_key(&w, "scope");
	jw_str(&w, in->scope);
	jw_key(&w, "traced_command");
	jw_argv(&w, in->command_argc, in->command);
	jw_key(&w, "traced_pid");
	jw_u64(&w, in->pid > 0 ? (uint64_t)in->pid : NG_INFO_UNKNOWN);
	jw_key(&w, "input");
	jw_str(&w, in->input);
	jw_key(&w, "kernel_release");
	jw_str(&w, host ? u.release : NULL);
	jw_key(&w, "machine");
	jw_str(&w, host ? u.machine : NULL);
	jw_key(&w, "hostname");
	jw_str(&w, host ? u.nodename : NULL);
	jw_key(&w, "start_time");
	jw_time(&w, in->start);
	jw_key(&w, "duration_ns");
	jw_u64(&w, in->duration_ns);
	jw_key(&w, "mode");
	jw_str(&w, in->mode);
	jw_trigger(&w, in->trigger);

	jw_open(&w, "clock");
	jw_key(&w, "timestamps");
	jw_str(&w, "CLOCK_MONOTONIC");
	jw_key(&w, "counter");
	jw_str(&w, counter);
	jw_key(&w, "counter_hz");
	jw_u64(&w, clk->freq ? clk->freq : NG_INFO_UNKNOWN);
	jw_key(&w, "sync_counter");
	jw_u64(&w, clk->freq ? clk->counter : NG_INFO_UNKNOWN);
	jw_key(&w, "sync_monotonic_ns");
	jw_u64(&w, clk->freq ? clk->mono_ns : NG_INFO_UNKNOWN);
	jw_close(&w);

	if (in->settings) {
		jw_open(&w, "filters");
		for (i = 0; i < NR_SETTINGS; i++) {
			jw_key(&w, settings[i].key);
			jw_setting(&w, in->settings->text[i], settings[i].kind);
		}
		jw_close(&w);
	} else {
		jw_key(&w, "filters");
		jw_null(&w);
	}

	jw_open(&w, "counts");
	jw_key(&w, "threads");
	jw_u64(&w, sum->threads);
	jw_key(&w, "calls");
	jw_u64(&w, sum->pushes);
	jw_key(&w, "events");
	jw_u64(&w, sum->events);
	jw_key(&w, "ignored");
	jw_u64(&w, sum->ignored);
	jw_key(&w, "lost");
	jw_u64(&w, sum->lost);
	jw_key(&w, "overwritten");
	jw_u64(&w, in->overwritten);
	jw_key(&w, "outside_window");
	jw_u64(&w, sum->outside_window);
	jw_key(&w, "unattributed");
	jw_u64(&w, sum->unattributed);
	jw_key(&w, "skipped");
	jw_u64(&w, in->skipped);
	jw_key(&w, "repaired");
	jw_u64(&w, sum->repaired);
	jw_key(&w, "closed_at_end");
	jw_u64(&w, sum->closed_at_end);
	jw_key(&w, "unmatched_exits");
	jw_u64(&w, sum->unmatched_exits);
	jw_key(&w, "clamped");
	jw_u64(&w, sum->clamped);
	jw_key(&w, "unresolved");
	jw_u64(&w, sum->unresolved);
	jw_key(&w, "sched");
	jw_u64(&w, sum->sched);
	jw_key(&w, "wakes");
	jw_u64(&w, sum->wakes);
	jw_key(&w, "wakes_attributed");
	jw_u64(&w, sum->wakes_attributed);
	jw_key(&w, "wakes_untraced");
	jw_u64(&w, sum->wakes_untraced);
	jw_key(&w, "wakes_no_call");
	jw_u64(&w, sum->wakes_no_call);
	jw_key(&w, "counters");
	jw_u64(&w, sum->counters);
	jw_key(&w, "args");
	jw_u64(&w, sum->args);
	jw_key(&w, "retvals");
	jw_u64(&w, sum->retvals);
	jw_key(&w, "bytes");
	jw_u64(&w, sum->bytes);
	jw_close(&w);

	jw_overhead(&w, in->overhead);

	jw_key(&w, "first_ns");
	jw_u64(&w, sum->events ? sum->first_ns : NG_INFO_UNKNOWN);
	jw_key(&w, "last_ns");
	jw_u64(&w, sum->events ? sum->last_ns : NG_INFO_UNKNOWN);
	jw_close(&w);
	ng_outfile_printf(&w.of, "\n");
	return ng_outfile_commit(&w.of);
}

/* ---- reading ---- */

/* What the parse makes at most: keys and values, and one key path. */
#define MAX_POOL	(16U << 20)
#define MAX_PATH	1024

struct ng_info_file {
	char *text;		/* the file, NUL-terminated */
	size_t len;
	char *pool;		/* keys and values, NUL-terminated each */
	struct ng_info_field *fields;
	size_t nr;
};

/* A field while the pool may still move: offsets, not pointers. */
struct field_at {
	size_t key, value;
	enum ng_json_type type;
	bool element;
};

/* An open object or array. */
struct frame {
	bool array;
	size_t count;		/* members or elements before this one */
	size_t path_len;	/* its own key path's length */
	size_t key_at;		/* an array's path in the pool: its elements' key */
};

struct parser {
	const char *s, *p, *end;
	char *pool;
	size_t pool_len, pool_cap;
	struct field_at *f;
	size_t nr, cap;
	char path[MAX_PATH];
	size_t path_len;
	struct ng_pp_bad *bad;
};

/* The error, on the line of the parser's position. */
static int bad_at(struct parser *ps, const char *why)
{
	const char *q;

	ps->bad->line = 1;
	for (q = ps->s; q < ps->p && q < ps->end; q++)
		ps->bad->line += *q == '\n';
	snprintf(ps->bad->why, sizeof(ps->bad->why), "%s", why);
	return -EBADMSG;
}

/* Append @n bytes to the pool; -EFBIG past MAX_POOL. */
static int pool_put(struct parser *ps, const void *b, size_t n)
{
	size_t cap = ps->pool_cap ? ps->pool_cap : 4096;
	char *np;

	if (ps->pool_len + n > ps->pool_cap) {
		while (cap < ps->pool_len + n)
			cap *= 2;
		if (cap > MAX_POOL)
			return -EFBIG;
		np = realloc(ps->pool, cap);
		if (!np)
			return -ENOMEM;
		ps->pool = np;
		ps->pool_cap = cap;
	}
	memcpy(ps->pool + ps->pool_len, b, n);
	ps->pool_len += n;
	return 0;
}

/* A NUL-terminated copy of @n bytes in the pool, at *@at. */
static int pool_str(struct parser *ps, const char *s, size_t n, size_t *at)
{
	*at = ps->pool_len;
	return pool_put(ps, s, n) ?: pool_put(ps, "", 1);
}

static int add_field(struct parser *ps, size_t key, size_t value,
		     enum ng_json_type type, bool element)
{
	struct field_at *nf;
	size_t cap;

	if (ps->nr == ps->cap) {
		cap = ps->cap ? 2 * ps->cap : 64;
		nf = realloc(ps->f, cap * sizeof(*nf));
		if (!nf)
			return -ENOMEM;
		ps->f = nf;
		ps->cap = cap;
	}
	ps->f[ps->nr++] = (struct field_at){ key, value, type, element };
	return 0;
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' ||
				   *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

/* Four hex digits at @s (which has at least 4 bytes before its end). */
static bool hex4(const char *s, unsigned int *v)
{
	int i;

	*v = 0;
	for (i = 0; i < 4; i++) {
		char c = s[i];

		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			*v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			*v |= c - 'A' + 10;
		else
			return false;
	}
	return true;
}

/* A code point as UTF-8 into the pool. */
static int put_utf8(struct parser *ps, unsigned int cp)
{
	unsigned char b[4];
	size_t n;

	if (cp < 0x80) {
		b[0] = cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = 0xc0 | cp >> 6;
		b[1] = 0x80 | (cp & 0x3f);
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = 0xe0 | cp >> 12;
		b[1] = 0x80 | (cp >> 6 & 0x3f);
		b[2] = 0x80 | (cp & 0x3f);
		n = 3;
	} else {
		b[0] = 0xf0 | cp >> 18;
		b[1] = 0x80 | (cp >> 12 & 0x3f);
		b[2] = 0x80 | (cp >> 6 & 0x3f);
		b[3] = 0x80 | (cp & 0x3f);
		n = 4;
	}
	return pool_put(ps, b, n);
}

/*
 * The string at ps->p (its opening quote), unescaped into the pool at
 * *@at. A \u0000 or a lone surrogate becomes U+FFFD: values are C
 * strings, and UTF-8 has no surrogates.
 */
static int parse_string(struct parser *ps, size_t *at)
{
	unsigned int cp, lo;
	int ret = 0;
	char c;

	*at = ps->pool_len;
	ps->p++;
	while (!ret) {
		if (ps->p >= ps->end)
			return bad_at(ps, "unterminated string");
		c = *ps->p;
		if (c == '"') {
			ps->p++;
			break;
		}
		if ((unsigned char)c < 0x20)
			return bad_at(ps, "control character in a string");
		if (c != '\\') {
			ret = pool_put(ps, &c, 1);
			ps->p++;
			continue;
		}
		if (ps->end - ps->p < 2)
			return bad_at(ps, "unterminated string");
		c = ps->p[1];
		ps->p += 2;
		switch (c) {
		case '"': case '\\': case '/':
			break;
		case 'b': c = '\b'; break;
		case 'f': c = '\f'; break;
		case 'n': c = '\n'; break;
		case 'r': c = '\r'; break;
		case 't': c = '\t'; break;
		case 'u':
			if (ps->end - ps->p < 4 || !hex4(ps->p, &cp))
				return bad_at(ps, "\\u is not followed by 4 hex digits");
			ps->p += 4;
			if (cp >= 0xd800 && cp <= 0xdbff && ps->end - ps->p >= 6 &&
			    ps->p[0] == '\\' && ps->p[1] == 'u' &&
			    hex4(ps->p + 2, &lo) && lo >= 0xdc00 && lo <= 0xdfff) {
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				ps->p += 6;
			} else if ((cp >= 0xd800 && cp <= 0xdfff) || !cp) {
				cp = 0xfffd;
			}
			ret = put_utf8(ps, cp);
			continue;
		default:
			ps->p--;
			return bad_at(ps, "unknown escape in a string");
		}
		ret = pool_put(ps, &c, 1);
	}
	return ret ?: pool_put(ps, "", 1);
}

/* A number as JSON spells it, copied as written. */
static int parse_number(struct parser *ps, size_t *at)
{
	const char *q = ps->p, *start = ps->p;
	bool digits;

#define DIGITS() do {							\
	digits = false;							\
	while (q < ps->end && *q >= '0' && *q <= '9') {			\
		q++;							\
		digits = true;						\
	}								\
} while (0)
	if (q < ps->end && *q == '-')
		q++;
	if (q < ps->end && *q == '0' && q + 1 < ps->end && q[1] >= '0' && q[1] <= '9')
		return bad_at(ps, "a number with a leading zero");
	DIGITS();
	if (!digits)
		return bad_at(ps, "expected a value");
	if (q < ps->end && *q == '.') {
		q++;
		DIGITS();
		if (!digits)
			return bad_at(ps, "no digit after a decimal point");
	}
	if (q < ps->end && (*q == 'e' || *q == 'E')) {
		q++;
		if (q < ps->end && (*q == '+' || *q == '-'))
			q++;
		DIGITS();
		if (!digits)
			return bad_at(ps, "no digit in an exponent");
	}
#undef DIGITS
	ps->p = q;
	return pool_str(ps, start, q - start, at);
}

/* A value that is not an object or array, into the pool. */
static int parse_scalar(struct parser *ps, size_t *at, enum ng_json_type *type)
{
	static const struct {
		const char *word;
		enum ng_json_type type;
	} words[] = {
		{ "true", NG_JSON_BOOL }, { "false", NG_JSON_BOOL },
		{ "null", NG_JSON_NULL },
	};
	size_t i, n;

	if (ps->p < ps->end && *ps->p == '"') {
		*type = NG_JSON_STRING;
		return parse_string(ps, at);
	}
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		n = strlen(words[i].word);
		if ((size_t)(ps->end - ps->p) >= n && !memcmp(ps->p, words[i].word, n)) {
			ps->p += n;
			*type = words[i].type;
			return pool_str(ps, words[i].word, n, at);
		}
	}
	*type = NG_JSON_NUMBER;
	return parse_number(ps, at);
}

/* Set the path to @len bytes (a container's own path). */
static void path_cut(struct parser *ps, size_t len)
{
	ps->path_len = len;
	ps->path[len] = '\0';
}

/* Append to the path; refused past MAX_PATH. */
static int path_add(struct parser *ps, const char *s, size_t n)
{
	if (ps->path_len + n >= MAX_PATH)
		return bad_at(ps, "key path longer than 1023 bytes");
	memcpy(ps->path + ps->path_len, s, n);
	path_cut(ps, ps->path_len + n);
	return 0;
}

/* An object's "key": of @f, making the path of the value that follows. */
static int parse_key(struct parser *ps, const struct frame *f)
{
	size_t at, mark = ps->pool_len;
	int ret;

	skip_ws(ps);
	if (ps->p >= ps->end || *ps->p != '"')
		return bad_at(ps, "expected a key in quotes");
	ret = parse_string(ps, &at);
	if (!ret && f->path_len)
		ret = path_add(ps, ".", 1);
	if (!ret)
		ret = path_add(ps, ps->pool + at, strlen(ps->pool + at));
	ps->pool_len = mark;		/* the key lives on in the path only */
	if (ret)
		return ret;
	skip_ws(ps);
	if (ps->p >= ps->end || *ps->p != ':')
		return bad_at(ps, "expected ':' after a key");
	ps->p++;
	return 0;
}

/*
 * The document: an object, its values flattened into fields. A loop over
 * values with an explicit stack of open containers; after each value,
 * a ',' goes on in its container, a closing bracket pops it and goes on
 * in the one around it.
 */
static int parse(struct parser *ps)
{
	struct frame st[NG_INFO_MAX_DEPTH], *f;
	enum ng_json_type type;
	size_t depth = 0, at, key = 0;
	char idx[32], open;
	int ret;

	skip_ws(ps);
	if (ps->p >= ps->end || *ps->p != '{')
		return bad_at(ps, "not a JSON object");
	for (;;) {
		/* a value: the path is its key (an array's, for an element) */
		skip_ws(ps);
		open = ps->p < ps->end ? *ps->p : 0;
		if (open == '{' || open == '[') {
			if (depth == NG_INFO_MAX_DEPTH)
				return bad_at(ps, "nested deeper than 32");
			if (depth && st[depth - 1].array) {
				snprintf(idx, sizeof(idx), "[%zu]", st[depth - 1].count);
				ret = path_add(ps, idx, strlen(idx));
				if (ret)
					return ret;
			}
			f = &st[depth++];
			*f = (struct frame){ .array = open == '[', .path_len = ps->path_len };
			if (f->array) {
				ret = pool_str(ps, ps->path, ps->path_len, &f->key_at);
				if (ret)
					return ret;
			}
			ps->p++;
			skip_ws(ps);
			if (ps->p < ps->end && *ps->p == (f->array ? ']' : '}')) {
				ps->p++;
				/* empty: a field of its own, but the document's */
				ret = depth == 1 ? 0 :
				      pool_str(ps, ps->path, ps->path_len, &key) ?:
				      pool_str(ps, "", 0, &at) ?:
				      add_field(ps, key, at, f->array ? NG_JSON_EMPTY_ARRAY :
						NG_JSON_EMPTY_OBJECT, false);
				if (ret)
					return ret;
				depth--;
			} else {
				if (!f->array && (ret = parse_key(ps, f)))
					return ret;
				continue;
			}
		} else {
			if (!depth)
				return bad_at(ps, "expected a value");
			f = &st[depth - 1];
			ret = parse_scalar(ps, &at, &type);
			if (!ret && !f->array)
				ret = pool_str(ps, ps->path, ps->path_len, &key);
			if (!ret)
				ret = add_field(ps, f->array ? f->key_at : key, at,
						type, f->array);
			if (ret)
				return ret;
		}
		/* after a value: more of its container, or its end */
		for (;;) {
			if (!depth) {
				skip_ws(ps);
				return ps->p < ps->end ?
				       bad_at(ps, "text after the object") : 0;
			}
			f = &st[depth - 1];
			f->count++;
			path_cut(ps, f->path_len);
			skip_ws(ps);
			if (ps->p < ps->end && *ps->p == ',') {
				ps->p++;
				if (!f->array && (ret = parse_key(ps, f)))
					return ret;
				break;
			}
			if (ps->p < ps->end && *ps->p == (f->array ? ']' : '}')) {
				ps->p++;
				depth--;
				continue;
			}
			return bad_at(ps, f->array ? "expected ',' or ']'" :
				      "expected ',' or '}'");
		}
	}
}

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
	struct ng_pp_bad ignored;
	struct parser ps = { .bad = bad ? bad : &ignored };
	size_t i;
	int ret;

	memset(ps.bad, 0, sizeof(*ps.bad));
	if (!f)
		return -ENOMEM;
	ret = read_text(dir, &f->text, &f->len);
	if (!ret) {
		ps.s = ps.p = f->text;
		ps.end = f->text + f->len;
		ret = parse(&ps);
		if (ret == -EBADMSG)
			ps.bad->file = NG_INFO_FILE;
	}
	if (!ret) {
		f->fields = calloc(ps.nr ? ps.nr : 1, sizeof(*f->fields));
		if (!f->fields)
			ret = -ENOMEM;
	}
	if (ret) {
		free(ps.pool);
		free(ps.f);
		ng_info_file_free(f);
		return ret;
	}
	/* the pool stays where it is now: offsets become pointers */
	f->pool = ps.pool;
	for (i = 0; i < ps.nr; i++)
		f->fields[i] = (struct ng_info_field){
			.key = ps.pool + ps.f[i].key,
			.value = ps.pool + ps.f[i].value,
			.type = ps.f[i].type,
			.element = ps.f[i].element,
		};
	f->nr = ps.nr;
	free(ps.f);
	*fp = f;
	return 0;
}

const struct ng_info_field *ng_info_fields(const struct ng_info_file *f,
					   size_t *nr)
{
	*nr = f->nr;
	return f->fields;
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

	for (i = 0; i < f->nr; i++)
		if (!strcmp(f->fields[i].key, key))
			return &f->fields[i];
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
	for (i = 0; !fl && i < f->nr; i++)
		if (!strncmp(f->fields[i].key, "overhead.", 9))
			fl = &f->fields[i];
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
	free(f->pool);
	free(f->fields);
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
