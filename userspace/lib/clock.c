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

/* "frequency: N" and "sync: COUNTER NS", in any order, other lines ignored. */
int ng_clock_parse(const char *text, struct ng_clock *clock)
{
	bool have_freq = false, have_sync = false;
	const char *line;

	memset(clock, 0, sizeof(*clock));
	for (line = text; line && *line; line = strchr(line, '\n'),
	     line = line ? line + 1 : NULL) {
		if (sscanf(line, "frequency: %" SCNu64, &clock->freq) == 1)
			have_freq = clock->freq != 0;
		else if (sscanf(line, "sync: %" SCNu64 " %" SCNu64,
				&clock->counter, &clock->mono_ns) == 2)
			have_sync = true;
	}
	if (!have_freq || !have_sync) {
		memset(clock, 0, sizeof(*clock));
		return -EINVAL;
	}
	return 0;
}

/*
 * The event keeps 56 bits of the counter: take the full value nearest to
 * the sync counter (at most 2^55 ticks away, years at GHz rates), then
 * scale the signed distance with 128-bit arithmetic, which stays exact
 * for any distance and frequency.
 */
uint64_t ng_clock_ns(const struct ng_clock *clock, uint64_t counter56)
{
	uint64_t diff = (counter56 - clock->counter) & NG_TSD_COUNTER_MASK;
	__int128 delta = diff;
	__int128 ns;

	if (diff & (1ULL << (NG_TSD_DEPTH_SHIFT - 1)))
		delta -= (__int128)1 << NG_TSD_DEPTH_SHIFT;
	ns = (__int128)clock->mono_ns + delta * 1000000000 / (__int128)clock->freq;
	return ns < 0 ? 0 : (uint64_t)ns;
}
