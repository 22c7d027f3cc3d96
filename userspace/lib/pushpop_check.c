// SPDX-License-Identifier: LGPL-2.1
/*
 * pushpop_check.c - verify that a push/pop file keeps the trace format's
 * promises, so tests and users can check any file, ours or converted:
 *  - every line matches ^[0-9]+:(POP|\+[^\n]+)$ and ends with a newline;
 *  - timestamps never decrease;
 *  - the stack never pops below zero and is empty at end of file.
 * Only the first error is reported (with its line); counting goes on to the
 * end so the summary describes the whole file.  The grammar of a line is
 * ppline.h's, shared with the walker of analyze.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nanograph.h"
#include "lines.h"
#include "ppline.h"

/* Remember the first error only; later ones are usually its echoes. */
__attribute__((format(printf, 3, 4)))
static void check_fail(struct ng_pp_check *c, enum ng_pp_error e,
		       const char *fmt, ...)
{
	va_list ap;

	if (c->error)
		return;
	c->error = e;
	c->error_line = c->lines;
	va_start(ap, fmt);
	vsnprintf(c->error_msg, sizeof(c->error_msg), fmt, ap);
	va_end(ap);
}

/* Check one line, given without its newline. */
static void check_line(struct ng_pp_check *c, const char *line, size_t len)
{
	struct ng_pp_line l;
	const char *why;

	c->lines++;
	why = ng_pp_parse_line(line, len, &l);
	if (why) {
		check_fail(c, NG_PP_ESYNTAX, "%s", why);
		return;
	}
	if (c->pushes + c->pops == 0)
		c->first_ns = l.ns;
	else if (l.ns < c->last_ns)
		check_fail(c, NG_PP_ETIME,
			   "timestamp %" PRIu64 " is before the previous %" PRIu64,
			   l.ns, c->last_ns);
	c->last_ns = l.ns;

	if (!l.pop) {
		c->pushes++;
		if (c->depth == NG_PP_DEPTH_MAX)
			check_fail(c, NG_PP_ESYNTAX, "more than %u open frames",
				   NG_PP_DEPTH_MAX);
		if (++c->depth > c->max_depth)
			c->max_depth = c->depth;
	} else {
		c->pops++;
		if (c->depth)
			c->depth--;
		else
			check_fail(c, NG_PP_EUNDERFLOW, "POP with no open frame");
	}
}

/* End-of-file rules: a whole last line, and no frame left open. */
static void check_end(struct ng_pp_check *c, bool partial_last_line)
{
	if (partial_last_line)
		check_fail(c, NG_PP_ESYNTAX, "missing newline at end of file");
	if (c->depth)
		check_fail(c, NG_PP_EUNBALANCED,
			   "%" PRIu64 " frame(s) still open at end of file",
			   c->depth);
}

/* Check push/pop text held in memory. */
int ng_pp_check_buf(const char *buf, size_t len, struct ng_pp_check *c)
{
	const char *p = buf, *end = buf + len;

	memset(c, 0, sizeof(*c));
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);

		if (!nl) {
			check_line(c, p, end - p);
			check_end(c, true);
			return c->error;
		}
		check_line(c, p, nl - p);
		p = nl + 1;
	}
	check_end(c, false);
	return c->error;
}

/*
 * Check a file, streaming it: push/pop files can be gigabytes.  A regular
 * file or a pipe ("check <(...)"); a line past NG_PP_LINE_MAX ends the
 * check there, as an error of that line.
 */
int ng_pp_check_file(const char *path, struct ng_pp_check *c)
{
	struct ng_lines in;
	bool partial = false;
	const char *line;
	size_t len;
	int ret;

	memset(c, 0, sizeof(*c));
	ret = ng_lines_open(&in, path, NG_PP_LINE_MAX, true);
	if (ret)
		return ret;
	while ((ret = ng_lines_next(&in, &line, &len, &partial)) > 0)
		check_line(c, line, len);
	ng_lines_close(&in);
	if (ret == -E2BIG) {
		c->lines++;
		check_fail(c, NG_PP_ESYNTAX, "line longer than %u bytes",
			   NG_PP_LINE_MAX);
		return c->error;
	}
	if (ret)
		return ret;
	check_end(c, partial);
	return c->error;
}

/* Short names for messages and logs. */
const char *ng_pp_error_name(enum ng_pp_error e)
{
	switch (e) {
	case NG_PP_OK:
		return "ok";
	case NG_PP_ESYNTAX:
		return "syntax";
	case NG_PP_ETIME:
		return "time goes backwards";
	case NG_PP_EUNDERFLOW:
		return "pop underflow";
	case NG_PP_EUNBALANCED:
		return "unbalanced";
	}
	return "unknown";
}
