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
	/* -1: not in this recording, or lacking a field */
	int entry_id, exit_id, call_id, open_id, clock_id;
	int out_id, in_id, wake_id, counters_id, migrate_id, args_id, retval_id;
	struct tep_format_field *tsd, *ip;	/* shared by entry and exit */
	struct tep_format_field *call_tsd, *call_ip, *call_exit;
	struct tep_format_field *open_tsd, *open_ip, *open_pid, *open_cpu;
	struct tep_format_field *c_counter, *c_mono, *c_freq;
	struct tep_format_field *out_pid, *out_state, *out_preempted, *out_counter;
	struct tep_format_field *in_pid, *in_counter;
	struct tep_format_field *wake_pid, *wake_ctx, *wake_ip, *wake_counter;
	struct tep_format_field *mig_pid, *mig_from, *mig_to, *mig_counter;
	struct tep_format_field *cnt_tsd, *cnt_ip, *cnt[NG_COUNTS];
	struct tep_format_field *a_tsd, *a_ip, *a_site, *a_nargs, *a_args;
	struct tep_format_field *r_tsd, *r_ip, *r_retval;
};

/* A field the format must have; NULL makes the decoder refuse. */
static struct tep_format_field *field(struct tep_event *e, const char *name)
{
	return e ? tep_find_field(e, name) : NULL;
}

static struct tep_event *event(struct tep_handle *tep, const char *name)
{
	return tep_find_event_by_name(tep, NG_EVENT_SYSTEM, name);
}

/*
 * func_entry and func_exit: both or neither. 0, -ENOENT when either is
 * missing, -EPROTO when they differ in layout (they share one class).
 */
static int find_entry_exit(struct ng_decoder *d)
{
	struct tep_event *entry = event(d->tep, NG_EVENT_ENTRY);
	struct tep_event *exit = event(d->tep, NG_EVENT_EXIT);

	if (!entry || !exit)
		return -ENOENT;
	d->tsd = field(entry, "tsd");
	d->ip = field(entry, "ip");
	if (!d->tsd || !d->ip || !field(exit, "tsd") ||
	    field(exit, "tsd")->offset != d->tsd->offset ||
	    !field(exit, "ip") || field(exit, "ip")->offset != d->ip->offset)
		return -EPROTO;
	d->entry_id = entry->id;
	d->exit_id = exit->id;
	return 0;
}

/*
 * func_call, and func_open with it (a func_open alone rebuilds nothing);
 * an event lacking one of its fields is taken as absent.
 */
static void find_call_open(struct ng_decoder *d)
{
	struct tep_event *call = event(d->tep, NG_EVENT_CALL);
	struct tep_event *open = event(d->tep, NG_EVENT_OPEN);

	d->call_tsd = field(call, "tsd");
	d->call_ip = field(call, "ip");
	d->call_exit = field(call, "exit");
	if (!d->call_tsd || !d->call_ip || !d->call_exit)
		return;
	d->call_id = call->id;
	d->open_tsd = field(open, "tsd");
	d->open_ip = field(open, "ip");
	d->open_pid = field(open, "pid");
	d->open_cpu = field(open, "cpu");
	if (d->open_tsd && d->open_ip && d->open_pid && d->open_cpu)
		d->open_id = open->id;
}

/*
 * The scheduling events (options/sched), each taken as absent when it
 * lacks a field: a recording without them converts as before.
 */
static void find_sched(struct ng_decoder *d)
{
	struct tep_event *out = event(d->tep, NG_EVENT_SCHED_OUT);
	struct tep_event *in = event(d->tep, NG_EVENT_SCHED_IN);
	struct tep_event *wake = event(d->tep, NG_EVENT_SCHED_WAKE);
	struct tep_event *mig = event(d->tep, NG_EVENT_SCHED_MIGRATE);

	d->out_pid = field(out, "pid");
	d->out_state = field(out, "state");
	d->out_preempted = field(out, "preempted");
	d->out_counter = field(out, "counter");
	if (d->out_pid && d->out_state && d->out_preempted && d->out_counter)
		d->out_id = out->id;
	d->in_pid = field(in, "pid");
	d->in_counter = field(in, "counter");
	if (d->in_pid && d->in_counter)
		d->in_id = in->id;
	d->wake_pid = field(wake, "pid");
	d->wake_ctx = field(wake, "ctx");
	d->wake_ip = field(wake, "ip");
	d->wake_counter = field(wake, "counter");
	if (d->wake_pid && d->wake_ctx && d->wake_ip && d->wake_counter)
		d->wake_id = wake->id;
	d->mig_pid = field(mig, "pid");
	d->mig_from = field(mig, "orig_cpu");
	d->mig_to = field(mig, "dest_cpu");
	d->mig_counter = field(mig, "counter");
	if (d->mig_pid && d->mig_from && d->mig_to && d->mig_counter)
		d->migrate_id = mig->id;
}

/* func_counters (options/counters), absent when it lacks a field. */
static void find_counters(struct ng_decoder *d)
{
	static const char *const names[NG_COUNTS] = {
		[NG_COUNT_MINFLT] = "minflt", [NG_COUNT_MAJFLT] = "majflt",
		[NG_COUNT_NVCSW] = "nvcsw", [NG_COUNT_NIVCSW] = "nivcsw",
	};
	struct tep_event *e = event(d->tep, NG_EVENT_COUNTERS);
	int i;

	d->cnt_tsd = field(e, "tsd");
	d->cnt_ip = field(e, "ip");
	if (!d->cnt_tsd || !d->cnt_ip)
		return;
	for (i = 0; i < NG_COUNTS; i++) {
		d->cnt[i] = field(e, names[i]);
		if (!d->cnt[i])
			return;
	}
	d->counters_id = e->id;
}

/*
 * func_args and func_retval (options/args, retaddr, retval), each absent
 * when it lacks a field; args must be an array of whole words.
 */
static void find_values(struct ng_decoder *d)
{
	struct tep_event *a = event(d->tep, NG_EVENT_ARGS);
	struct tep_event *r = event(d->tep, NG_EVENT_RETVAL);

	d->a_tsd = field(a, "tsd");
	d->a_ip = field(a, "ip");
	d->a_site = field(a, "site");
	d->a_nargs = field(a, "nargs");
	d->a_args = field(a, "args");
	if (d->a_tsd && d->a_ip && d->a_site && d->a_nargs && d->a_args &&
	    d->a_args->arraylen > 0 &&
	    (d->a_args->elementsize == 4 || d->a_args->elementsize == 8) &&
	    (unsigned int)d->a_args->size == d->a_args->arraylen * d->a_args->elementsize)
		d->args_id = a->id;
	d->r_tsd = field(r, "tsd");
	d->r_ip = field(r, "ip");
	d->r_retval = field(r, "retval");
	if (d->r_tsd && d->r_ip && d->r_retval)
		d->retval_id = r->id;
}

/*
 * Find our events once, so that decoding a record is a compare of its
 * type and a few fixed-offset reads.
 */
int ng_decoder_new(struct ng_decoder **dp, struct tep_handle *tep)
{
	struct tep_event *clock = event(tep, NG_EVENT_CLOCK);
	struct ng_decoder *d;
	int ret;

	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->tep = tep;
	d->entry_id = d->exit_id = d->call_id = d->open_id = -1;
	d->clock_id = d->out_id = d->in_id = d->wake_id = d->counters_id = -1;
	d->migrate_id = d->args_id = d->retval_id = -1;
	ret = find_entry_exit(d);
	find_call_open(d);
	find_sched(d);
	find_counters(d);
	find_values(d);
	if (ret == -EPROTO || (ret && d->call_id < 0)) {
		free(d);
		return ret;
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

/* The entry's counter and depth of a tsd field, and the ip field. */
static void read_call(const struct ng_decoder *d, struct tep_format_field *tsd,
		      struct tep_format_field *ip, struct tep_record *rec,
		      struct ng_event *ev)
{
	uint64_t v = num(d, tsd, rec);

	ev->counter = NG_TSD_COUNTER(v);
	ev->depth = NG_TSD_DEPTH(v);
	ev->ip = num(d, ip, rec);
}

/* A signed field (func_open's pid and cpu), sign-extended from its size. */
static int64_t snum(const struct ng_decoder *d, struct tep_format_field *f,
		    struct tep_record *rec)
{
	uint64_t v = num(d, f, rec);

	if (f->size > 0 && f->size < 8 && (v >> (8 * f->size - 1)) & 1)
		v |= ~0ULL << (8 * f->size);
	return (int64_t)v;
}

/*
 * A scheduling event: the task it is about from its pid field (the
 * writer of a sched_in is the task leaving), the waker the writer.
 */
static void read_sched(const struct ng_decoder *d, int type,
		       struct tep_record *rec, struct ng_event *ev)
{
	if (type == d->out_id) {
		ev->type = NG_EV_SWITCH_OUT;
		ev->tid = (int)snum(d, d->out_pid, rec);
		ev->state = (unsigned int)num(d, d->out_state, rec) & NG_RAW_STATE_MASK;
		ev->runnable = num(d, d->out_preempted, rec) || !ev->state;
		ev->counter = NG_TSD_COUNTER(num(d, d->out_counter, rec));
	} else if (type == d->in_id) {
		ev->type = NG_EV_SWITCH_IN;
		ev->tid = (int)snum(d, d->in_pid, rec);
		ev->counter = NG_TSD_COUNTER(num(d, d->in_counter, rec));
	} else if (type == d->migrate_id) {
		ev->type = NG_EV_MIGRATE;
		ev->tid = (int)snum(d, d->mig_pid, rec);
		ev->from_cpu = (int)snum(d, d->mig_from, rec);
		ev->to_cpu = (int)snum(d, d->mig_to, rec);
		ev->counter = NG_TSD_COUNTER(num(d, d->mig_counter, rec));
	} else {
		ev->type = NG_EV_WAKE;
		ev->wakee = (int)snum(d, d->wake_pid, rec);
		ev->ctx = (unsigned int)num(d, d->wake_ctx, rec) & 0xf;
		ev->ip = num(d, d->wake_ip, rec);
		ev->counter = NG_TSD_COUNTER(num(d, d->wake_counter, rec));
	}
}

/* func_args: the entry's tsd and ip, the site and the registers. */
static void read_args(const struct ng_decoder *d, struct tep_record *rec,
		      struct ng_event *ev)
{
	const struct tep_format_field *f = d->a_args;
	unsigned int i, n;

	ev->type = NG_EV_ARGS;
	read_call(d, d->a_tsd, d->a_ip, rec, ev);
	ev->site = num(d, d->a_site, rec);
	n = (unsigned int)num(d, d->a_nargs, rec);
	if (n > (unsigned int)f->arraylen)
		n = (unsigned int)f->arraylen;
	if (n > NG_ARGS_MAX)
		n = NG_ARGS_MAX;
	if (f->offset < 0 || f->offset + f->size > rec->size)
		n = 0;
	ev->nargs = n;
	for (i = 0; i < n; i++)
		ev->args[i] = tep_read_number(d->tep, (char *)rec->data + f->offset +
					      i * f->elementsize, f->elementsize);
}

/* Classify @rec and pull out the fields its type has. */
void ng_decode(const struct ng_decoder *d, struct tep_record *rec,
	       struct ng_event *ev)
{
	int type = tep_data_type(d->tep, rec);
	int64_t cpu;
	int i;

	ev->type = NG_EV_OTHER;
	ev->cpu = rec->cpu;
	ev->ts = rec->ts;
	ev->tid = tep_data_pid(d->tep, rec);
	ev->counter = ev->ip = ev->mono_ns = ev->freq = ev->exit_counter = 0;
	ev->depth = ev->nargs = 0;
	ev->site = ev->retval = 0;
	if (type < 0) {
		return;
	} else if (type == d->entry_id || type == d->exit_id) {
		ev->type = type == d->entry_id ? NG_EV_ENTRY : NG_EV_EXIT;
		read_call(d, d->tsd, d->ip, rec, ev);
	} else if (type == d->call_id) {
		ev->type = NG_EV_CALL;
		read_call(d, d->call_tsd, d->call_ip, rec, ev);
		ev->exit_counter = NG_TSD_COUNTER(num(d, d->call_exit, rec));
	} else if (type == d->open_id) {
		/* Written by another task: the frame's task is in the payload. */
		ev->type = NG_EV_OPEN;
		read_call(d, d->open_tsd, d->open_ip, rec, ev);
		ev->tid = (int)snum(d, d->open_pid, rec);
		cpu = snum(d, d->open_cpu, rec);
		if (!ev->tid && cpu >= 0)
			ev->cpu = (int)cpu;
	} else if (type == d->clock_id) {
		ev->type = NG_EV_CLOCK;
		ev->counter = num(d, d->c_counter, rec);
		ev->mono_ns = num(d, d->c_mono, rec);
		ev->freq = num(d, d->c_freq, rec);
	} else if (type == d->out_id || type == d->in_id || type == d->wake_id ||
		   type == d->migrate_id) {
		read_sched(d, type, rec, ev);
	} else if (type == d->counters_id) {
		ev->type = NG_EV_COUNTERS;
		read_call(d, d->cnt_tsd, d->cnt_ip, rec, ev);
		for (i = 0; i < NG_COUNTS; i++)
			ev->counts[i] = (unsigned int)num(d, d->cnt[i], rec);
	} else if (type == d->args_id) {
		read_args(d, rec, ev);
	} else if (type == d->retval_id) {
		ev->type = NG_EV_RETVAL;
		read_call(d, d->r_tsd, d->r_ip, rec, ev);
		ev->retval = num(d, d->r_retval, rec);
	}
}

void ng_decoder_free(struct ng_decoder *d)
{
	free(d);
}
