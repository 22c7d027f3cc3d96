// SPDX-License-Identifier: LGPL-2.1
/*
 * escape.c - names as text for a terminal: a function or thread name is
 * whatever bytes a file held, and a control byte written raw moves the
 * cursor, clears the screen or retitles the window.  The text views
 * (replay, report) write them as C's "\xNN" instead, as "ls -b" and
 * systemd's journal do; every other byte goes through unchanged, UTF-8
 * included.
 */
#include <stdio.h>
#include <string.h>

#include "nanograph.h"

/* The bytes written as "\xNN": C0 controls and DEL. */
static inline int is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

void ng_fputs_escaped(const char *s, FILE *fp)
{
	const char *p = s;

	for (;;) {
		while (*p && !is_control(*p))
			p++;
		fwrite(s, 1, p - s, fp);
		if (!*p)
			return;
		fprintf(fp, "\\x%02x", (unsigned char)*p);
		s = ++p;
	}
}
