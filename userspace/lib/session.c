// SPDX-License-Identifier: LGPL-2.1
/*
 * session.c - a recording session: the changes a recording makes to the
 * module's control files, each with how to undo it.
 *
 * The first time a file is changed (or kept, ng_session_keep()) its
 * value is read, and becomes a step of the session; ng_session_undo()
 * writes the steps back, the last one first, whichever way the
 * recording ended.  Applied in the order the module needs (the lists
 * and buffers, then the options and triggers, the pid lists, the flight
 * arm, tracing_on last), the reverse is the order the module needs to
 * undo them: tracing_on=0 before anything else, the flight recorder off
 * before its triggers and the buffers (EBUSY while it is on), the
 * buffers after tracing_on=0: the module takes them once the drain that
 * follows is over, a write to them waiting for it (control-files.md),
 * so nothing here waits or retries.
 *
 * Two files read back a state rather than what a write takes: their
 * undo is their rest value (states[]).  A choice file ("[events] raw")
 * is kept as its bracketed word (ng_ctl_read_setting()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nanograph.h"

/* One file changed: what it read before the first change. */
struct step {
	struct step *prev;	/* the step before: undone after this one */
	char *name;
	char *undo;
};

/* The steps as a stack, the last first: the order of the undo. */
struct ng_session {
	struct ng_ctl ctl;
	struct step *last;
};

/*
 * Files whose read is a state, not a setting: tracing_on (a session
 * always leaves the tracer stopped) and flight (reads the state and the
 * last hit; "off" is its rest).
 */
static const struct {
	const char *name, *rest;
} states[] = {
	{ "tracing_on", "0" },
	{ "flight", "off" },
};

/* An empty session on @ctl's directory: nothing to undo yet. */
int ng_session_new(struct ng_session **sp, const struct ng_ctl *ctl)
{
	struct ng_session *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->ctl = *ctl;
	*sp = s;
	return 0;
}

/* The directory a session changes, for reads and messages. */
const struct ng_ctl *ng_session_ctl(const struct ng_session *s)
{
	return &s->ctl;
}

/* @name's step, or NULL: the session changed it already. */
static struct step *find(struct ng_session *s, const char *name)
{
	struct step *st;

	for (st = s->last; st; st = st->prev)
		if (!strcmp(st->name, name))
			return st;
	return NULL;
}

/* A step undone, or one whose read failed (NULL fields are fine). */
static void free_step(struct step *st)
{
	if (!st)
		return;
	free(st->name);
	free(st->undo);
	free(st);
}

/* The rest value of a state file, or NULL for a setting. */
static const char *rest_of(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(states) / sizeof(states[0]); i++)
		if (!strcmp(states[i].name, name))
			return states[i].rest;
	return NULL;
}

/*
 * A new step for @name, its undo read now (or its rest value): before
 * the first write, so that a failed read changes nothing.
 */
static int add_step(struct ng_session *s, const char *name)
{
	struct step *st = calloc(1, sizeof(*st));
	const char *rest = rest_of(name);
	int ret = -ENOMEM;

	if (st)
		st->name = strdup(name);
	if (st && st->name && rest) {
		st->undo = strdup(rest);
		ret = st->undo ? 0 : -ENOMEM;
	} else if (st && st->name) {
		ret = ng_ctl_read_setting(&s->ctl, name, &st->undo);
	}
	if (ret) {
		free_step(st);
		return ret;
	}
	st->prev = s->last;
	s->last = st;
	return 0;
}

/* Where the session stands: the last step so far. */
const void *ng_session_mark(const struct ng_session *s)
{
	return s->last;
}

/* The steps since @mark go unwritten: their files were only read. */
void ng_session_forget_to(struct ng_session *s, const void *mark)
{
	struct step *st;

	while (s->last && s->last != mark) {
		st = s->last;
		s->last = st->prev;
		free_step(st);
	}
}

/* A file changed twice is put back as the first change found it. */
int ng_session_keep(struct ng_session *s, const char *name)
{
	return find(s, name) ? 0 : add_step(s, name);
}

/*
 * The step first, then the write: a write that fails keeps its step, as
 * it may have changed the file before it failed (a list, token by token).
 */
int ng_session_set(struct ng_session *s, const char *name, const char *val)
{
	int ret = ng_session_keep(s, name);

	return ret ? ret : ng_ctl_write(&s->ctl, name, val);
}

/* As ng_session_set(), for a list file that takes tokens one a write. */
int ng_session_append(struct ng_session *s, const char *name,
		      const char *val)
{
	int ret = ng_session_keep(s, name);

	return ret ? ret : ng_ctl_append(&s->ctl, name, val);
}

/* The files ng_ctl_select_tasks() writes, kept before it does. */
int ng_session_select_tasks(struct ng_session *s, int pid, const char **file)
{
	static const char *const files[] = {
		"options/event-fork", "set_event_notrace_pid", "set_event_pid",
	};
	size_t i;
	int ret;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		*file = files[i];
		ret = ng_session_keep(s, files[i]);
		if (ret)
			return ret;
	}
	return ng_ctl_select_tasks(&s->ctl, pid, file);
}

/* set_event_pid, kept before ng_ctl_admit_process() adds the threads. */
int ng_session_admit_process(struct ng_session *s, int pid, const char **file)
{
	int ret;

	*file = "set_event_pid";
	ret = ng_session_keep(s, *file);
	return ret ? ret : ng_ctl_admit_process(&s->ctl, pid, file);
}

/* Put one file back: an empty list as a lone newline, which clears it. */
static int undo_step(const struct ng_session *s, const struct step *st)
{
	return ng_ctl_write(&s->ctl, st->name, *st->undo ? st->undo : "\n");
}

/*
 * Every step, the last first, each once: a second undo (or a change
 * made after it) finds nothing to do.  The first error, after trying
 * them all.
 */
int ng_session_undo(struct ng_session *s)
{
	struct step *st;
	int ret, first = 0;

	while (s && s->last) {
		st = s->last;
		s->last = st->prev;
		ret = undo_step(s, st);
		if (ret && !first)
			first = ret;
		free_step(st);
	}
	return first;
}

/* Undo what is left (an exit path that did not), then free. */
void ng_session_free(struct ng_session *s)
{
	if (!s)
		return;
	ng_session_undo(s);
	free(s);
}
