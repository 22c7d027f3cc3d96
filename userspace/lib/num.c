// SPDX-License-Identifier: LGPL-2.1
/*
 * num.c - the one parser of decimal numbers with a range, for every
 * number the collector takes from a user or a control file.
 *
 * strtol() and friends accept what a user never meant as a number
 * (leading spaces, a sign, "0x" prefixes, "1e3", "inf") and wrap or
 * truncate silently when the result lands in a narrower type: "-p
 * 4294967297" became pid 1. This parser takes digits, optionally one '.'
 * and at most @decimals digits after it, checks for overflow at every
 * digit and checks the range last, so a caller only ever sees a value it
 * said it accepts.  And the one way a duration is written for people.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "nanograph.h"

int ng_parse_num(const char *s, unsigned int decimals, uint64_t min,
		 uint64_t max, uint64_t *val)
{
	unsigned int frac = 0;
	bool dot = false;
	uint64_t v = 0;
	const char *p;
	int digits = 0;

	if (!s || !*s)
		return -EINVAL;
	for (p = s; *p; p++) {
		unsigned int d;

		if (*p == '.' && !dot && decimals) {
			dot = true;
			continue;
		}
		if (*p < '0' || *p > '9')
			return -EINVAL;
		if (dot && ++frac > decimals)
			return -EINVAL;
		d = *p - '0';
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
		digits++;
	}
	/* "5." and "." are not numbers; ".5" is not written that way either. */
	if (!digits || (dot && (!frac || *s == '.')))
		return -EINVAL;
	for (; frac < decimals; frac++) {
		if (v > UINT64_MAX / 10)
			return -ERANGE;
		v *= 10;
	}
	if (v < min || v > max)
		return -ERANGE;
	*val = v;
	return 0;
}

/* Blanks between the words of a line of kernel text. */
static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

int ng_parse_line_nums(const char *text, const char *key, uint64_t min,
		       uint64_t max, uint64_t *vals, int n)
{
	size_t klen = strlen(key), wlen;
	const char *line, *p;
	char word[24];
	int i, ret;

	for (line = text; line && *line; line = strchr(line, '\n'),
	     line = line ? line + 1 : NULL) {
		if (strncmp(line, key, klen) || (klen && !blank(line[klen])))
			continue;
		p = line + klen;
		for (i = 0; i < n; i++) {
			while (blank(*p))
				p++;
			wlen = strcspn(p, " \t\n");
			if (!wlen || wlen >= sizeof(word))
				return -EINVAL;
			memcpy(word, p, wlen);
			word[wlen] = '\0';
			ret = ng_parse_num(word, 0, min, max, &vals[i]);
			if (ret)
				return ret;
			p += wlen;
		}
		return 0;
	}
	return -ENOENT;
}

/* 1234 ns as "1.234 us", like uftrace; or the integer with @raw. */
const char *ng_fmt_time(char *buf, size_t size, uint64_t ns, bool raw)
{
	static const char *const unit[] = { "ns", "us", "ms", "s" };
	uint64_t scale = 1;
	int u = 0;

	if (raw) {
		snprintf(buf, size, "%" PRIu64, ns);
		return buf;
	}
	while (u < 3 && ns / scale >= 1000) {
		scale *= 1000;
		u++;
	}
	if (!u)
		snprintf(buf, size, "%" PRIu64 " ns", ns);
	else
		snprintf(buf, size, "%" PRIu64 ".%03" PRIu64 " %s", ns / scale,
			 ns % scale / (scale / 1000), unit[u]);
	return buf;
}
