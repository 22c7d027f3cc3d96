/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * conv.h - library-internal: the converter's state (struct ng_conv), the
 * pipeline's sink (source.h), shared by its three files:
 *
 *   conv_events.c  each event as it comes: the clock and the events held
 *                  for it, the window, entries and exits to pushes and
 *                  pops (func_call and func_open through calls.c)
 *   conv_tables.c  the tables beside the push/pop files: sched.tsv,
 *                  counters.tsv, args.tsv, retval.tsv
 *   convert.c      the threads and their files (parked past the open-files
 *                  limit), the symbols, and the end: threads.tsv, every
 *                  file published or none
 */
#ifndef NG_CONV_H
#define NG_CONV_H

#include <stdbool.h>
#include <stdint.h>

#include "nanograph.h"
#include "hashmap.h"
#include "outfile.h"

#define MAX_FRAMES	256		/* depth is 8 bits in the event */

struct thread {
	struct thread *lru_prev, *lru_next;	/* while its file is open */
	bool open;			/* its writer holds a descriptor */
	int key;			/* tid, or -(cpu + 1) for an idle task */
	struct ng_pp_writer *w;
	unsigned int n;			/* open frames */
	unsigned char depth[MAX_FRAMES];	/* their depths, bottom first */
	const struct sym **fn;		/* their functions (fn_cap of them) */
	unsigned int fn_cap;
	struct ng_pp_stats st;
	struct ng_calls *calls;		/* func_calls waiting for their tree */
	char name[32];			/* file name */
};

/* Which events carry the calls: the first function event decides. */
enum conv_kind {
	KIND_UNKNOWN,
	KIND_ENTRY_EXIT,		/* func_entry, func_exit */
	KIND_CALL_OPEN,			/* func_call, func_open (calls.c) */
};

struct sym {
	uint64_t addr;
	const char *name;
	const char *module;
};

struct ng_conv {
	char *dir;
	const struct ng_syms *syms;
	struct ng_clock clock;		/* valid when clock.freq != 0 */
	uint64_t window_from;		/* ns: events before it left out */
	ng_thread_info_fn info;
	void *info_priv;
	ng_sym_resolver_fn resolver;
	void *sym_priv;
	struct ng_cancel cancel;
	unsigned int until_check;	/* events before asking cancel again */

	struct ng_hmap threads;		/* struct thread, by thread key */
	struct thread *last;		/* the one conv_thread_find() found last */
	struct thread lru;		/* open files, most recently used first */
	unsigned int nr_open, max_open;
	struct ng_hmap syms_cache;	/* struct sym, by address */
	uint64_t seed;			/* the maps' hash key */
	char **owned;			/* strings made for unknown symbols */
	size_t nr_owned;

	struct ng_event *held;		/* events waiting for a clock */
	size_t nr_held, held_cap;

	enum conv_kind kind;
	struct ng_outfile sched;	/* sched.tsv, once a record comes */
	bool sched_open;
	struct ng_outfile counters;	/* counters.tsv, once a record comes */
	bool counters_open;
	struct ng_outfile args, retvals;	/* args.tsv, retval.tsv: the same */
	bool args_open, retvals_open;
	struct ng_conv_summary sum;
	int err;			/* first error, sticky */
};

/* Events between two questions to the cancel function. */
#define CANCEL_EVERY	4096

/* The key of an event's thread: its tid, or its CPU's idle task. */
static inline int event_thread(const struct ng_event *ev)
{
	return ev->tid > 0 ? ev->tid : -(ev->cpu + 1);
}

/* Where calls.c writes a thread's rebuilt entries and exits. */
struct rebuilt {
	struct ng_conv *c;
	struct thread *t;
};

/* convert.c: the threads and symbols */
/* The thread of @key (a tid, or -(cpu + 1)) if it has a file, else NULL. */
struct thread *conv_thread_find(struct ng_conv *c, int key);
/* The thread an event belongs to, its file opened on first sight. */
struct thread *conv_thread_get(struct ng_conv *c, const struct ng_event *ev);
/* @addr's name, looked up once; NULL with c->err set if out of memory. */
const struct sym *conv_sym_get(struct ng_conv *c, uint64_t addr);

/* conv_events.c: an entry or exit calls.c rebuilt (priv: struct rebuilt) */
int conv_replay_rebuilt(void *priv, const struct ng_event *ev);

/* conv_tables.c: a line of each table, opened at its first. 0 or -errno. */
int conv_on_sched(struct ng_conv *c, const struct ng_event *ev);
int conv_on_counters(struct ng_conv *c, const struct ng_event *ev);
int conv_on_args(struct ng_conv *c, const struct ng_event *ev);
int conv_on_retval(struct ng_conv *c, const struct ng_event *ev);
/* Publish the tables opened (0 or -errno: the rest are left open), or drop them. */
int conv_tables_commit(struct ng_conv *c);
void conv_tables_abort(struct ng_conv *c);

#endif /* NG_CONV_H */
