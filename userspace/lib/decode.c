// SPDX-License-Identifier: LGPL-2.1
/*
 * decode.c - turn ring-buffer records into struct ng_event.
 *
 * The event layout is include/nanograph_event.h. Fields are found by name
 * through libtraceevent, from the formats the kernel published (or the
 * trace.dat carried), so the decoder reads a 32-bit arm recording on a
 * 64-bit host as well as its own: sizes and offsets come from the format,
 * never from this file.
 */
#include <errno.h>
#include <stdlib.h>
#include <event-parse.h>

#include "nanograph.h"
#include "nanograph_event.h"

struct ng_decoder {
	struct tep_handle *tep;
	int entry_id, exit_id, clock_id;	/* -1: not in this recording */
	struct tep_format_field *tsd, *ip;	/* shared by entry and exit */
	struct tep_format_field *c_counter, *c_mono, *c_freq;
};

/* A field the format must have; NULL makes the decoder refuse. */
static struct tep_format_field *field(struct tep_event *e, const char *name)
{
	return e ? tep_find_field(e, name) : NULL;
}

/*
 * Find our events once, so that decoding a record is a compare of its
 * type and a few fixed-offset reads.
 */
int ng_decoder_new(struct ng_decoder **dp, struct tep_handle *tep)
{
	struct tep_event *entry, *exit, *clock;
	struct ng_decoder *d;

	entry = tep_find_event_by_name(tep, NG_EVENT_SYSTEM, NG_EVENT_ENTRY);
	exit = tep_find_event_by_name(tep, NG_EVENT_SYSTEM, NG_EVENT_EXIT);
	clock = tep_find_event_by_name(tep, NG_EVENT_SYSTEM, NG_EVENT_CLOCK);
	if (!entry || !exit)
		return -ENOENT;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->tep = tep;
	d->entry_id = entry->id;
	d->exit_id = exit->id;
	d->clock_id = -1;
	d->tsd = field(entry, "tsd");
	d->ip = field(entry, "ip");
	/* The two events share one class: the same layout. */
	if (!d->tsd || !d->ip || !field(exit, "tsd") ||
	    field(exit, "tsd")->offset != d->tsd->offset ||
	    !field(exit, "ip") || field(exit, "ip")->offset != d->ip->offset) {
		free(d);
		return -EPROTO;
	}
	d->c_counter = field(clock, "counter");
	d->c_mono = field(clock, "mono_ns");
	d->c_freq = field(clock, "freq");
	if (clock && d->c_counter && d->c_mono && d->c_freq)
		d->clock_id = clock->id;
	*dp = d;
	return 0;
}

/* Read a field that the format says is there; 0 if the record is short. */
static uint64_t num(const struct ng_decoder *d, struct tep_format_field *f,
		    struct tep_record *rec)
{
	if (f->offset < 0 || f->size <= 0 || f->offset + f->size > rec->size)
		return 0;
	return tep_read_number(d->tep, (char *)rec->data + f->offset, f->size);
}

/* Classify @rec and pull out the fields its type has. */
void ng_decode(const struct ng_decoder *d, struct tep_record *rec,
	       struct ng_event *ev)
{
	int type = tep_data_type(d->tep, rec);
	uint64_t tsd;

	ev->type = NG_EV_OTHER;
	ev->cpu = rec->cpu;
	ev->ts = rec->ts;
	ev->tid = tep_data_pid(d->tep, rec);
	ev->counter = ev->ip = ev->mono_ns = ev->freq = 0;
	ev->depth = 0;
	if (type == d->entry_id || type == d->exit_id) {
		ev->type = type == d->entry_id ? NG_EV_ENTRY : NG_EV_EXIT;
		tsd = num(d, d->tsd, rec);
		ev->counter = NG_TSD_COUNTER(tsd);
		ev->depth = NG_TSD_DEPTH(tsd);
		ev->ip = num(d, d->ip, rec);
	} else if (type == d->clock_id) {
		ev->type = NG_EV_CLOCK;
		ev->counter = num(d, d->c_counter, rec);
		ev->mono_ns = num(d, d->c_mono, rec);
		ev->freq = num(d, d->c_freq, rec);
	}
}

void ng_decoder_free(struct ng_decoder *d)
{
	free(d);
}
