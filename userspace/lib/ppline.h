/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * ppline.h - library-internal: the one parser of a push/pop line
 * (Documentation/trace-format.md), "<ns>:POP" or "<ns>:+<label>", shared
 * by the checker (pushpop_check.c: "nanograph check") and the walker
 * (analyze.c: report, replay, export), so that both accept and refuse
 * the same lines in the same words.  Only the grammar of one line is
 * here; the rules across lines (time order, balance) stay with each
 * caller, which goes on after an error (the checker counts the whole
 * file) or stops there (the walker).  Inline: the walker runs it for
 * every line of recordings of hundreds of millions of calls.
 */
#ifndef NG_PPLINE_H
#define NG_PPLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * What a reader holds is bounded, the same for the checker and the
 * walker: a line (a label is a function's name, 512 bytes in the
 * kernel; converted files may carry longer ones) and the open frames
 * (the kernel's shadow stacks hold 64; "check" takes files far deeper).
 */
#define NG_PP_LINE_MAX		(16U << 20)
#define NG_PP_DEPTH_MAX		(1U << 20)

struct ng_pp_line {
	uint64_t ns;
	bool pop;
	const char *label;	/* a push's label, without '+'; not terminated */
	size_t label_len;
};

/*
 * Parse @line (@len bytes, without its newline) into *@l.  Returns NULL,
 * or why the line breaks the grammar, in "nanograph check"'s words.
 */
static inline const char *ng_pp_parse_line(const char *line, size_t len,
					   struct ng_pp_line *l)
{
	uint64_t ns = 0;
	size_t i;

	for (i = 0; i < len && line[i] >= '0' && line[i] <= '9'; i++) {
		unsigned int d = line[i] - '0';

		/* 19 digits always fit: no division on the common path */
		if (i >= 19 && ns > (UINT64_MAX - d) / 10)
			return "timestamp does not fit in 64 bits";
		ns = ns * 10 + d;
	}
	if (!i)
		return len ? "line does not start with a timestamp" : "empty line";
	if (i == len || line[i] != ':')
		return "expected ':' after the timestamp";
	line += i + 1;
	len -= i + 1;
	l->ns = ns;
	if (len == 3 && !memcmp(line, "POP", 3)) {
		l->pop = true;
		l->label = NULL;
		l->label_len = 0;
		return NULL;
	}
	if (!len || line[0] != '+')
		return "expected POP or +<label> after ':'";
	if (len == 1)
		return "empty label after '+'";
	/* a C string ends at a NUL: two names would read as one */
	if (memchr(line + 1, '\0', len - 1))
		return "NUL byte in label";
	l->pop = false;
	l->label = line + 1;
	l->label_len = len - 1;
	return NULL;
}

#endif /* NG_PPLINE_H */
