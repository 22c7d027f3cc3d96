// SPDX-License-Identifier: LGPL-2.1
/*
 * conv_events.c - the converter's input (conv.h): each event as the
 * merge hands it out, into pushes and pops of its thread's file, or a
 * line of a table (conv_tables.c).
 *
 * Each entry and exit carries the index of its frame on the task's shadow
 * stack (its depth). That makes every call's exit matchable exactly, and
 * lets the converter stay consistent when events are missing:
 *  - an entry at depth d closes the open frames at depth >= d first: their
 *    exits were lost (counted as repaired);
 *  - an exit at depth d closes the frame at depth d and any deeper ones;
 *    with no frame open at d, the call began before the recording (or its
 *    entry was lost) and the exit is dropped (unmatched_exits).
 *
 * A recording made with func_call and func_open instead (one event per
 * call) has each thread's tree rebuilt by calls.c, which hands back the
 * entries and exits those events stand for, in the order entry/exit
 * events would have come: the rules above then apply unchanged, and the
 * files are the same. The first function event decides which of the
 * two kinds is converted; the other kind is counted as ignored.
 *
 * Time: every timestamp of a recording is converted with one sync pair,
 * the first clock_sync of the recording. The sink's first pass
 * (ng_sink_find_clock()) looks for it before any event is fed and sets
 * it with ng_conv_set_clock(), so the converter holds nothing back and
 * its memory stays flat however long the recording. A caller that sets
 * no clock gets the first clock_sync it feeds, and the events before it
 * are held until it comes, at most NG_CONV_MAX_HELD of them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nanograph.h"
#include "calls.h"
#include "conv.h"

static int flush_held(struct ng_conv *c);

/* From now on every event is converted with @clock, and held ones too. */
void ng_conv_set_clock(struct ng_conv *c, const struct ng_clock *clock)
{
	if (!clock->freq)
		return;
	c->clock = *clock;
	if (c->nr_held && !c->err)
		c->err = flush_held(c);
}


/* Close the top frame of @t at @ns. */
static int pop(struct thread *t, uint64_t ns)
{
	t->n--;
	return ng_pp_pop(t->w, ns);
}

/* An entry at depth d: frames at d or deeper lost their exits. */
static int on_entry(struct ng_conv *c, struct thread *t,
		    const struct ng_event *ev, uint64_t ns)
{
	const struct sym *s;
	int ret;

	c->sum.entries++;
	while (t->n && t->depth[t->n - 1] >= ev->depth) {
		c->sum.repaired++;
		ret = pop(t, ns);
		if (ret)
			return ret;
	}
	if (t->n == MAX_FRAMES)		/* cannot happen: depth < 256 */
		return -EOVERFLOW;
	s = conv_sym_get(c, ev->ip);
	if (!s)
		return c->err;
	ret = ng_pp_push(t->w, ns, s->name, s->module);
	if (ret)
		return ret;
	if (t->n == t->fn_cap) {
		unsigned int cap = t->fn_cap ? 2 * t->fn_cap : 16;
		const struct sym **fn = realloc(t->fn, cap * sizeof(*fn));

		if (!fn)
			return -ENOMEM;
		t->fn = fn;
		t->fn_cap = cap;
	}
	t->fn[t->n] = s;
	t->depth[t->n++] = ev->depth;
	return 0;
}

/* An exit at depth d closes the frame at d, and deeper ones that lost theirs. */
static int on_exit_event(struct ng_conv *c, struct thread *t,
			 const struct ng_event *ev, uint64_t ns)
{
	int ret;

	c->sum.exits++;
	if (!t->n || t->depth[t->n - 1] < ev->depth) {
		c->sum.unmatched_exits++;
		return 0;
	}
	while (t->depth[t->n - 1] > ev->depth) {
		c->sum.repaired++;
		ret = pop(t, ns);
		if (ret)
			return ret;
		if (!t->n) {		/* no frame at d after all */
			c->sum.unmatched_exits++;
			return 0;
		}
	}
	if (t->depth[t->n - 1] != ev->depth) {
		c->sum.unmatched_exits++;
		return 0;
	}
	return pop(t, ns);
}

/* One entry or exit of @t, with the clock known. */
static int replay(struct ng_conv *c, struct thread *t,
		  const struct ng_event *ev)
{
	uint64_t ns = ng_clock_ns(&c->clock, ev->counter);

	if (!c->sum.first_ns || ns < c->sum.first_ns)
		c->sum.first_ns = ns;
	if (ns > c->sum.last_ns)
		c->sum.last_ns = ns;
	if (ev->type == NG_EV_ENTRY)
		return on_entry(c, t, ev, ns);
	return on_exit_event(c, t, ev, ns);
}

/* An entry or exit calls.c rebuilt from func_call and func_open events. */
int conv_replay_rebuilt(void *priv, const struct ng_event *ev)
{
	struct rebuilt *r = priv;

	return replay(r->c, r->t, ev);
}

/* Whether @ev came before the window: left out, and counted. */
static bool outside_window(struct ng_conv *c, const struct ng_event *ev)
{
	if (!c->window_from ||
	    ng_clock_ns(&c->clock, ev->counter) >= c->window_from)
		return false;
	c->sum.outside_window++;
	return true;
}

/* One function event, with the clock known. */
static int process(struct ng_conv *c, const struct ng_event *ev)
{
	struct thread *t;
	struct rebuilt r = { c, NULL };

	/* before conv_thread_get(): a thread only seen before it gets no file */
	if (outside_window(c, ev))
		return 0;
	if (ev->type == NG_EV_SWITCH_OUT || ev->type == NG_EV_SWITCH_IN ||
	    ev->type == NG_EV_WAKE || ev->type == NG_EV_MIGRATE)
		return conv_on_sched(c, ev);
	if (ev->type == NG_EV_COUNTERS)
		return conv_on_counters(c, ev);
	if (ev->type == NG_EV_ARGS)
		return conv_on_args(c, ev);
	if (ev->type == NG_EV_RETVAL)
		return conv_on_retval(c, ev);
	c->sum.events++;
	t = conv_thread_get(c, ev);
	r.t = t;
	if (!t)
		return c->err;
	if (ev->type == NG_EV_CALL)
		return ng_calls_call(&t->calls, ev, conv_replay_rebuilt, &r);
	if (ev->type == NG_EV_OPEN)
		return ng_calls_open(&t->calls, ev, conv_replay_rebuilt, &r);
	return replay(c, t, ev);
}

/* Replay what waited for the clock, in the order it came. */
static int flush_held(struct ng_conv *c)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < c->nr_held && !ret; i++)
		ret = process(c, &c->held[i]);
	free(c->held);
	c->held = NULL;
	c->nr_held = c->held_cap = 0;
	return ret;
}

/* Hold an event until a clock arrives; past NG_CONV_MAX_HELD, give up. */
static int hold(struct ng_conv *c, const struct ng_event *ev)
{
	if (c->nr_held >= NG_CONV_MAX_HELD)
		return -ENODATA;
	if (c->nr_held == c->held_cap) {
		size_t cap = c->held_cap ? 2 * c->held_cap : 4096;
		struct ng_event *n = realloc(c->held, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		c->held = n;
		c->held_cap = cap;
	}
	c->held[c->nr_held++] = *ev;
	return 0;
}

int ng_conv_scan(struct ng_conv *c, const struct ng_event *ev)
{
	struct ng_clock clock;

	if (!c->until_check--) {
		c->until_check = CANCEL_EVERY;
		if (ng_conv_check_cancel(c))
			return c->err;
	}
	if (!ng_clock_from_event(ev, &clock))
		return 0;
	ng_conv_set_clock(c, &clock);
	return 1;
}

/*
 * Whether @ev is of the kind this recording's calls are converted from:
 * the first function event decides, so that a recording holding both
 * kinds (nanograph:* enabled) does not have each call twice.
 */
static bool kind_converted(struct ng_conv *c, const struct ng_event *ev)
{
	enum conv_kind kind = ev->type == NG_EV_ENTRY || ev->type == NG_EV_EXIT ?
			      KIND_ENTRY_EXIT : KIND_CALL_OPEN;

	if (c->kind == KIND_UNKNOWN)
		c->kind = kind;
	if (c->kind == kind)
		return true;
	c->sum.ignored++;
	return false;
}

int ng_conv_event(struct ng_conv *c, const struct ng_event *ev)
{
	if (c->err)
		return c->err;
	switch (ev->type) {
	case NG_EV_CLOCK:
		if (c->clock.freq || !ng_clock_from_event(ev, &c->clock))
			return 0;
		c->err = flush_held(c);
		return c->err;
	case NG_EV_ENTRY:
	case NG_EV_EXIT:
	case NG_EV_CALL:
	case NG_EV_OPEN:
		if (!c->until_check--) {
			c->until_check = CANCEL_EVERY;
			if (ng_conv_check_cancel(c))
				return c->err;
		}
		if (!kind_converted(c, ev))
			return 0;
		c->err = c->clock.freq ? process(c, ev) : hold(c, ev);
		return c->err;
	case NG_EV_SWITCH_OUT:
	case NG_EV_SWITCH_IN:
	case NG_EV_WAKE:
	case NG_EV_MIGRATE:
	case NG_EV_COUNTERS:
	case NG_EV_ARGS:
	case NG_EV_RETVAL:
		c->err = c->clock.freq ? process(c, ev) : hold(c, ev);
		return c->err;
	default:
		return 0;
	}
}

void ng_conv_lost(struct ng_conv *c, int cpu, long long n)
{
	(void)cpu;
	c->sum.lost += n < 0 ? 1 : (uint64_t)n;
}

void ng_conv_unattributed(struct ng_conv *c, uint64_t n)
{
	c->sum.unattributed += n;
}
