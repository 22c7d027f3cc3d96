// SPDX-License-Identifier: LGPL-2.1
/*
 * json.c - the collector's one JSON writer (json.h); the reader is
 * json_parse.c.
 *
 * The writer keeps only what the layout needs: how deep it is, which of
 * the open containers are arrays (a bit each) and whether the innermost
 * one has anything yet. A value in an array writes the separator before
 * it; in an object the key does. Strings are escaped while they are
 * written, runs of bytes that need nothing in one fwrite, so a name costs
 * no allocation; ng_json_escape() makes the same bytes for callers that
 * write one label many times.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

/* ---- writing ---- */

/* Bytes into the outfile; a parked one goes through its printf, which reopens it. */
static void put(struct ng_outfile *of, const char *s, size_t n)
{
	if (of->err || !n)
		return;
	if (!of->fp) {
		ng_outfile_printf(of, "%.*s", (int)n, s);
		return;
	}
	if (fwrite(s, 1, n, of->fp) != n)
		of->err = errno ? -errno : -EIO;
}

void ng_jw_init(struct ng_json_writer *w, struct ng_outfile *of,
		enum ng_json_layout layout)
{
	*w = (struct ng_json_writer){ .of = of, .layout = layout, .first = true };
}

static bool in_array(const struct ng_json_writer *w)
{
	return w->depth && (w->arrays >> (w->depth - 1) & 1);
}

/* Before a value: an array's separator; an object's key wrote its own. */
static void value_start(struct ng_json_writer *w)
{
	if (!in_array(w))
		return;
	if (!w->first)
		put(w->of, w->layout == NG_JSON_LINES ? ", " : ",",
		    w->layout == NG_JSON_LINES ? 2 : 1);
	w->first = false;
}

/* The line break and indentation of the lines layout, at @depth. */
static void newline(struct ng_json_writer *w, unsigned int depth)
{
	char b[1 + 2 * NG_JSON_MAX_DEPTH];

	b[0] = '\n';
	memset(b + 1, ' ', 2 * depth);
	put(w->of, b, 1 + 2 * depth);
}

void ng_jw_key(struct ng_json_writer *w, const char *key)
{
	if (!w->first)
		put(w->of, ",", 1);
	if (w->layout == NG_JSON_LINES)
		newline(w, w->depth);
	put(w->of, "\"", 1);
	ng_json_put_escaped(w->of, key);
	if (w->layout == NG_JSON_LINES)
		put(w->of, "\": ", 3);
	else
		put(w->of, "\":", 2);
	w->first = false;
}

/* One container more; the bitmask bounds the depth. */
static void open_container(struct ng_json_writer *w, bool array)
{
	value_start(w);
	if (w->depth == NG_JSON_MAX_DEPTH) {
		if (!w->of->err)
			w->of->err = -E2BIG;
		return;
	}
	put(w->of, array ? "[" : "{", 1);
	if (array)
		w->arrays |= 1U << w->depth;
	else
		w->arrays &= ~(1U << w->depth);
	w->depth++;
	w->first = true;
}

void ng_jw_object(struct ng_json_writer *w)
{
	open_container(w, false);
}

void ng_jw_array(struct ng_json_writer *w)
{
	open_container(w, true);
}

/* An object of the lines layout ends on a line of its own, arrays inline. */
void ng_jw_end(struct ng_json_writer *w)
{
	bool array = in_array(w);

	if (!w->depth)
		return;
	w->depth--;
	if (!array && w->layout == NG_JSON_LINES)
		newline(w, w->depth);
	put(w->of, array ? "]" : "}", 1);
	w->first = false;
}

void ng_jw_null(struct ng_json_writer *w)
{
	value_start(w);
	put(w->of, "null", 4);
}

void ng_jw_str(struct ng_json_writer *w, const char *s)
{
	if (!s) {
		ng_jw_null(w);
		return;
	}
	value_start(w);
	put(w->of, "\"", 1);
	ng_json_put_escaped(w->of, s);
	put(w->of, "\"", 1);
}

void ng_jw_u64(struct ng_json_writer *w, uint64_t v)
{
	char buf[24];

	value_start(w);
	put(w->of, buf, snprintf(buf, sizeof(buf), "%" PRIu64, v));
}

void ng_jw_i64(struct ng_json_writer *w, int64_t v)
{
	char buf[24];

	value_start(w);
	put(w->of, buf, snprintf(buf, sizeof(buf), "%" PRId64, v));
}

void ng_jw_printf(struct ng_json_writer *w, const char *fmt, ...)
{
	char buf[128], *big = NULL;
	va_list ap;
	int n;

	value_start(w);
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(buf)) {
		va_start(ap, fmt);
		n = vasprintf(&big, fmt, ap);
		va_end(ap);
	}
	if (n < 0) {
		if (!w->of->err)
			w->of->err = -ENOMEM;
		return;
	}
	put(w->of, big ? big : buf, n);
	free(big);
}

void ng_jw_raw(struct ng_json_writer *w, const char *s)
{
	put(w->of, s, strlen(s));
}

int ng_jw_err(const struct ng_json_writer *w)
{
	return w->of->err;
}

/* ---- escaping ---- */

/* Overlongs, surrogates and code points past U+10FFFF are not UTF-8. */
size_t ng_utf8_len(const unsigned char *s)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;		/* overlong */
	else if (c == 0xed)
		hi = 0x9f;		/* surrogates */
	else if (c == 0xf0)
		lo = 0x90;		/* overlong */
	else if (c == 0xf4)
		hi = 0x8f;		/* above U+10FFFF */
	for (i = 1; i < n; i++, lo = 0x80, hi = 0xbf)
		if (s[i] < lo || s[i] > hi)
			return 0;
	return n;
}

/*
 * The escape of the byte at @u (one that is not written as it is) into
 * @buf, its length; *@step gets how many bytes it stands for, 0 if the
 * bytes at @u are valid UTF-8 and stay as they are.
 */
static size_t escape_at(const unsigned char *u, char *buf, size_t *step)
{
	size_t n = *u < 0x80 ? 1 : ng_utf8_len(u);

	*step = n ? n : 1;
	if (*u == '"' || *u == '\\') {
		buf[0] = '\\';
		buf[1] = *u;
		return 2;
	}
	if (*u < 0x20)
		return sprintf(buf, "\\u%04x", *u);
	if (!n)
		return sprintf(buf, "\\ufffd");
	*step = 0;
	return n;
}

/* Whether the byte goes through as it is, the common case. */
static inline bool plain(unsigned char c)
{
	return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

void ng_json_put_escaped(struct ng_outfile *of, const char *s)
{
	const unsigned char *u = (const unsigned char *)s, *run = u;
	size_t n, step;
	char buf[8];

	while (*u) {
		if (plain(*u)) {
			u++;
			continue;
		}
		n = escape_at(u, buf, &step);
		if (!step) {		/* UTF-8: part of the run */
			u += n;
			continue;
		}
		put(of, (const char *)run, u - run);
		put(of, buf, n);
		u += step;
		run = u;
	}
	put(of, (const char *)run, u - run);
}

char *ng_json_escape(const char *s)
{
	char *out = malloc(6 * strlen(s) + 1), *p = out;
	const unsigned char *u = (const unsigned char *)s;
	size_t n, step;

	if (!out)
		return NULL;
	while (*u) {
		if (plain(*u)) {
			*p++ = *u++;
			continue;
		}
		n = escape_at(u, p, &step);
		if (!step) {
			memcpy(p, u, n);
			step = n;
		}
		p += n;
		u += step;
	}
	*p = '\0';
	return out;
}
