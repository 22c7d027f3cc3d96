// SPDX-License-Identifier: LGPL-2.1
/*
 * clock.c - from the module's counter to CLOCK_MONOTONIC nanoseconds.
 *
 * Events carry the low 56 bits of the architecture counter the clock file
 * names (TSC, CNTVCT). One (counter, CLOCK_MONOTONIC) pair and the
 * counter's frequency convert every one of them: the pair comes from the
 * clock_sync event the module writes into the recording when tracing
 * starts, or from the clock file itself.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "nanograph.h"
#include "nanograph_event.h"

bool ng_clock_from_event(const struct ng_event *ev, struct ng_clock *clock)
{
	if (ev->type != NG_EV_CLOCK || !ev->freq)
		return false;
	clock->counter = ev->counter;
	clock->mono_ns = ev->mono_ns;
	clock->freq = ev->freq;
	clock->name[0] = '\0';		/* the event does not name its counter */
	return true;
}

/*
 * The counter's name from a "counter: NAME" line, for info.json: a word
 * of printable characters, cut to fit; "" when there is no such line.
 */
static void parse_counter_name(const char *text, char *name, size_t size)
{
	const char *line, *v;
	size_t n = 0;

	name[0] = '\0';
	for (line = text; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (strncmp(line, "counter:", 8))
			continue;
		for (v = line + 8; *v == ' ' || *v == '\t'; v++)
			;
		while (n < size - 1 && v[n] > ' ' && v[n] < 0x7f)
			n++;
		memcpy(name, v, n);
		name[n] = '\0';
		return;
	}
}

/*
 * "frequency: N" and "sync: COUNTER NS", in any order, other lines
 * ignored but "counter: NAME", which only names the counter.
 */
int ng_clock_parse(const char *text, struct ng_clock *clock)
{
	uint64_t sync[2];

	memset(clock, 0, sizeof(*clock));
	if (ng_parse_line_nums(text, "frequency:", 1, UINT64_MAX,
			       &clock->freq, 1) ||
	    ng_parse_line_nums(text, "sync:", 0, UINT64_MAX, sync, 2)) {
		memset(clock, 0, sizeof(*clock));
		return -EINVAL;
	}
	clock->counter = sync[0];
	clock->mono_ns = sync[1];
	parse_counter_name(text, clock->name, sizeof(clock->name));
	return 0;
}

/*
 * The event keeps 56 bits of the counter: take the full value nearest to
 * the sync counter (at most 2^55 ticks away, years at GHz rates), then
 * scale the distance exactly in 64 bits (32-bit arm has no __int128):
 * whole seconds and the remainder apart, the remainder's product below
 * 2^64 for any counter under 18 GHz. Truncation is toward zero on both
 * sides of the sync point, so the mapping never decreases.
 */
uint64_t ng_clock_ns(const struct ng_clock *clock, uint64_t counter56)
{
	uint64_t diff = (counter56 - clock->counter) & NG_TSD_COUNTER_MASK;
	bool before = diff & (1ULL << (NG_TSD_DEPTH_SHIFT - 1));
	uint64_t ticks, ns;

	ticks = before ? (NG_TSD_COUNTER_MASK + 1) - diff : diff;
	ns = ticks / clock->freq * 1000000000ULL +
	     ticks % clock->freq * 1000000000ULL / clock->freq;
	if (!before)
		return clock->mono_ns + ns;
	return ns > clock->mono_ns ? 0 : clock->mono_ns - ns;
}
