// SPDX-License-Identifier: LGPL-2.1
/*
 * sink.c - the recording pipeline's end: the merged records of a source
 * (source.h) into the converter, which makes calls of them and writes the
 * push/pop files, the tables beside them and the counts (convert.c).
 *
 * A whole recording is read twice. The first pass looks for its first
 * clock record and stops there (the module writes one when tracing
 * starts: at the beginning), so that the second converts every record as
 * it comes, holding none back for want of a time base: memory stays flat
 * however long the recording. Every reader of a recording (record's
 * replay of its spill files, flight snapshots, convert of a trace.dat)
 * comes through here.
 */
#include "nanograph.h"
#include "source.h"

/* The first pass's callback: stop (1) at the first clock record. */
static int scan(void *priv, const struct ng_event *ev)
{
	return ng_conv_scan(priv, ev);
}

/* The second pass's: every record into the converter. */
static int feed(void *priv, const struct ng_event *ev)
{
	return ng_conv_event(priv, ev);
}

int ng_sink_find_clock(struct ng_source *s, struct ng_conv *conv)
{
	return ng_merge(s, NULL, scan, conv);
}

int ng_sink_feed(struct ng_source *s, struct ng_conv *conv)
{
	return ng_merge(s, conv, feed, conv);
}

int ng_sink_replay(struct ng_source *s, struct ng_conv *conv)
{
	int ret = ng_sink_find_clock(s, conv);

	if (ret < 0)
		return ret;
	return ng_sink_feed(s, conv);
}
