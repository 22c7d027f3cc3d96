// SPDX-License-Identifier: LGPL-2.1
/*
 * flight.c - the flight recorder's texts, as the module's control files
 * hold them (Documentation/control-files.md, "Flight recording"): a
 * trigger "FUNC>DURATION" (FUNC:oncpu, FUNC:blocked) or "FUNC=OPVALUE",
 * checked by the collector before it changes anything, so that a typo is
 * a usage error and not a half-configured module; and the flight file's state line with the hit, which says
 * which call fired and where its exit record is.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nanograph.h"
#include "nanograph_flight.h"

/* The units a trigger's duration may carry, and nanoseconds in each. */
static const struct {
	const char *name;
	uint64_t ns;
} units[] = {
	{ "", 1 }, { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
	{ "s", 1000000000 },
};

/* The suffixes of a duration trigger's FUNC, by enum ng_trigger_clock. */
static const char *const clocks[] = {
	[NG_TRIGGER_WALL] = "", [NG_TRIGGER_ONCPU] = ":oncpu",
	[NG_TRIGGER_BLOCKED] = ":blocked",
};

/* A name the module compares with a symbol: no glob, no blank, no '>', ':'. */
static bool plain_name(const char *s, size_t len)
{
	size_t i;

	if (!len || len >= NG_TRIGGER_FUNC_MAX)
		return false;
	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] <= ' ' || strchr("*?[]!>:", s[i]) ||
		    s[i] == 0x7f)
			return false;
	return true;
}

/* The clock a FUNC of @len bytes names by its suffix; its length without. */
static size_t clock_of(const char *s, size_t len, enum ng_trigger_clock *clock)
{
	size_t i, n;

	*clock = NG_TRIGGER_WALL;
	for (i = NG_TRIGGER_ONCPU; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
		n = strlen(clocks[i]);
		if (len > n && !memcmp(s + len - n, clocks[i], n)) {
			*clock = i;
			return len - n;
		}
	}
	return len;
}

/* "FUNC>DURATION": the duration, in ns, from 1 ns to 3600 s. */
static int parse_duration(const char *d, uint64_t *ns)
{
	size_t i, digits = strspn(d, "0123456789");
	char num[32];
	uint64_t v;
	int ret;

	if (!digits || digits >= sizeof(num))
		return digits ? -ERANGE : -EINVAL;
	memcpy(num, d, digits);
	num[digits] = '\0';
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(d + digits, units[i].name))
			continue;
		ret = ng_parse_num(num, 0, 1, NG_TRIGGER_MAX_NS / units[i].ns, &v);
		if (!ret)
			*ns = v * units[i].ns;
		return ret;
	}
	return -EINVAL;
}

/*
 * A value to compare a return with: -ENAME, or a decimal or 0x hex
 * number with an optional '-', within a C int.  No leading 0 (the
 * module would read it as octal).
 */
static int parse_value(const char *v, int *value)
{
	const char *digits = v + (*v == '-');
	bool hex = !strncmp(digits, "0x", 2);
	const char *body = digits + (hex ? 2 : 0);
	long long n;
	size_t i;
	char *end;

	if (v[0] == '-' && v[1] == 'E') {
		/* the module's list (nanograph_flight.h) */
		for (i = 0; i < sizeof(ng_trigger_errnos) /
			     sizeof(ng_trigger_errnos[0]); i++)
			if (!strcmp(v + 1, ng_trigger_errnos[i].name)) {
				*value = -ng_trigger_errnos[i].err;
				return 0;
			}
		return -EINVAL;
	}
	if (!*body || strspn(body, hex ? "0123456789abcdefABCDEF" :
			     "0123456789") != strlen(body) ||
	    (!hex && body[0] == '0' && body[1]))
		return -EINVAL;
	if (strlen(body) > 16)
		return -ERANGE;
	errno = 0;
	n = strtoll(digits, &end, hex ? 16 : 10);
	if (*v == '-')
		n = -n;
	if (errno || n < INT_MIN || n > INT_MAX)
		return -ERANGE;
	*value = (int)n;
	return 0;
}

/* The comparisons, longest first: "<=" before "<". */
static const char *const ops[] = { "<=", ">=", "!=", "<", ">", "=" };

/* "FUNC=OPVALUE": the operator and the value. */
static int parse_comparison(const char *c, struct ng_trigger *t)
{
	size_t i, len;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		len = strlen(ops[i]);
		if (strncmp(c, ops[i], len))
			continue;
		snprintf(t->op, sizeof(t->op), "%s", ops[i]);
		return parse_value(c + len, &t->value);
	}
	return -EINVAL;
}

int ng_trigger_parse(const char *s, struct ng_trigger *t)
{
	const char *sep = s ? strpbrk(s, ">=") : NULL;
	struct ng_trigger n = { .on_value = sep && *sep == '=' };
	size_t len = sep ? (size_t)(sep - s) : 0;
	int ret;

	if (sep && !n.on_value)
		len = clock_of(s, len, &n.clock);
	if (!sep || !plain_name(s, len))
		return -EINVAL;
	ret = n.on_value ? parse_comparison(sep + 1, &n) :
			   parse_duration(sep + 1, &n.ns);
	if (ret)
		return ret;
	memcpy(n.func, s, len);
	n.func[len] = '\0';
	*t = n;
	return 0;
}

int ng_trigger_format(const struct ng_trigger *t, char *buf, size_t size)
{
	if (t->on_value)
		return snprintf(buf, size, "%s=%s%d", t->func, t->op, t->value);
	return snprintf(buf, size, "%s%s>%" PRIu64, t->func, clocks[t->clock],
			t->ns);
}

/* The words of the state line, at most @max; how many, or -EINVAL. */
static int split(char *line, char **w, int max)
{
	char *save = NULL, *tok;
	int n = 0;

	for (tok = strtok_r(line, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		if (n == max)
			return -EINVAL;
		w[n++] = tok;
	}
	return n;
}

/* "FUNC DURATION_NS CPU PID EXIT_COUNTER [RETURNED]" (@n words) into @h. */
static int parse_hit(char **w, int n, struct ng_flight_hit *h)
{
	uint64_t v[4];
	int i;

	if (n == 6 && parse_value(w[5], &h->value))
		return -EINVAL;
	h->has_value = n == 6;

	if (!plain_name(w[0], strlen(w[0])))
		return -EINVAL;
	for (i = 0; i < 4; i++)
		if (ng_parse_num(w[i + 1], 0, 0, UINT64_MAX, &v[i]))
			return -EINVAL;
	if (v[1] > INT32_MAX || v[2] > INT32_MAX)
		return -EINVAL;
	snprintf(h->func, sizeof(h->func), "%s", w[0]);
	h->duration_ns = v[0];
	h->cpu = (int)v[1];
	h->tid = (int)v[2];
	h->exit_counter = v[3];
	return 0;
}

int ng_flight_parse(const char *text, struct ng_flight_state *st)
{
	static const char *const names[] = {
		[NG_FLIGHT_OFF] = "off", [NG_FLIGHT_ARMED] = "armed",
		[NG_FLIGHT_TRIGGERED] = "triggered", [NG_FLIGHT_FROZEN] = "frozen",
	};
	char line[512], *w[7];
	int n, s;

	memset(st, 0, sizeof(*st));
	if (snprintf(line, sizeof(line), "%s", text) >= (int)sizeof(line))
		return -EINVAL;
	line[strcspn(line, "\n")] = '\0';
	n = split(line, w, 7);
	if (n < 1)
		return -EINVAL;
	for (s = 0; s < (int)(sizeof(names) / sizeof(names[0])); s++) {
		if (strcmp(w[0], names[s]))
			continue;
		st->state = s;
		/* a hit only after triggered or frozen; frozen may lack one */
		if (n == 1)
			return s == NG_FLIGHT_TRIGGERED ? -EINVAL : 0;
		if (n < 6 || s < NG_FLIGHT_TRIGGERED)
			return -EINVAL;
		st->has_hit = true;
		return parse_hit(w + 1, n - 1, &st->hit);
	}
	return -EINVAL;
}

/*
 * The module's duration and the converter's timestamps round the
 * counter to nanoseconds each its own way: a microsecond more keeps
 * the triggering call's entry inside the window whatever the rounding.
 */
#define ENTRY_SLACK_NS	1000

uint64_t ng_flight_window_from(uint64_t exit_ns, uint64_t duration_ns,
			       uint64_t window_ns)
{
	uint64_t call = duration_ns + ENTRY_SLACK_NS;
	uint64_t back = window_ns > call ? window_ns : call;

	if (!window_ns || back >= exit_ns)
		return 0;
	return exit_ns - back;
}

uint64_t ng_flight_buffer_kb(uint64_t total_mb, unsigned int nr_cpus)
{
	uint64_t per_cpu, kb = 4;

	if (!nr_cpus)
		nr_cpus = 1;
	per_cpu = (total_mb * 1024 + nr_cpus - 1) / nr_cpus;
	while (kb < per_cpu)
		kb <<= 1;
	return kb;
}
