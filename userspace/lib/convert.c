// SPDX-License-Identifier: LGPL-2.1
/*
 * convert.c - nanograph events, in ring-buffer order, to one push/pop file
 * per thread.
 *
 * Both "record" (per-CPU buffers merged by timestamp) and "convert"
 * (libtracecmd's merge of a trace.dat) feed this, so both write the same
 * files from the same events.
 *
 * Each entry and exit carries the index of its frame on the task's shadow
 * stack (its depth). That makes every call's exit matchable exactly, and
 * lets the converter stay consistent when events are missing:
 *  - an entry at depth d closes the open frames at depth >= d first: their
 *    exits were lost (counted as repaired);
 *  - an exit at depth d closes the frame at depth d and any deeper ones;
 *    with no frame open at d, the call began before the recording (or its
 *    entry was lost) and the exit is dropped (unmatched_exits).
 * The idle task is pid 0 on every CPU, and each CPU's runs its own stack:
 * it gets one file per CPU, "0-<cpu>.txt".
 *
 * A recording made with func_call and func_open instead (one event per
 * call) has each thread's tree rebuilt by calls.c, which hands back the
 * entries and exits those events stand for, in the order entry/exit
 * events would have come: the rules above then apply unchanged, and the
 * files are the same. The first function event decides which of the
 * two kinds is converted; the other kind is counted as ignored.
 *
 * A recording can have more threads than the process may open files
 * (1024 by default): the writers whose threads ran least recently are
 * parked (their descriptor closed, the file kept) and reopened for
 * appending when their thread shows up again, so at most max_open are
 * open at once, and an EMFILE parks one more and retries.
 *
 * Symbols are resolved once per address through a small cache. Threads
 * and symbols are found through the one hash map (hashmap.h), keyed by
 * the bijective hash of the tid (or idle key) and of the address.
 *
 * Time: every timestamp of a recording is converted with one sync pair,
 * the first clock_sync of the recording. The readers of whole recordings
 * (ng_rec_replay(), ng_raw_replay_fds(), ng_tdat_convert()) look for it
 * before feeding any event and set it with ng_conv_set_clock(), so the
 * converter holds nothing back and its memory stays flat however long
 * the recording. A caller that sets no clock gets the first clock_sync
 * it feeds, and the events before it are held until it comes, at most
 * NG_CONV_MAX_HELD of them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nanograph.h"
#include "calls.h"
#include "hashmap.h"
#include "nanograph_event.h"
#include "outfile.h"

#define MAX_FRAMES	256		/* depth is 8 bits in the event */
#define FIRST_SLOTS	64

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
	struct thread *last;		/* the one thread_find() found last */
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

static int flush_held(struct ng_conv *c);

/*
 * How many push/pop files to keep open: half of what the open-files limit
 * leaves after 64 for everything else (trace.dat, spill files, stdio),
 * at least 8, at most 1024. EMFILE is handled anyway.
 */
static unsigned int max_open_files(void)
{
	struct rlimit rl;
	rlim_t n = 1024;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY)
		n = rl.rlim_cur > 64 ? (rl.rlim_cur - 64) / 2 : 0;
	return n < 8 ? 8 : n > 1024 ? 1024 : n;
}

int ng_conv_new(struct ng_conv **cp, const char *dir,
		const struct ng_syms *syms)
{
	struct ng_conv *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->dir = strdup(dir);
	c->seed = ng_hash_seed();
	if (!c->dir || ng_hmap_init(&c->threads, FIRST_SLOTS) ||
	    ng_hmap_init(&c->syms_cache, FIRST_SLOTS)) {
		free(c->dir);
		ng_hmap_fini(&c->threads);
		free(c);
		return -ENOMEM;
	}
	c->syms = syms;
	c->lru.lru_prev = c->lru.lru_next = &c->lru;
	c->max_open = max_open_files();
	*cp = c;
	return 0;
}

/* From now on every event is converted with @clock, and held ones too. */
void ng_conv_set_clock(struct ng_conv *c, const struct ng_clock *clock)
{
	if (!clock->freq)
		return;
	c->clock = *clock;
	if (c->nr_held && !c->err)
		c->err = flush_held(c);
}

void ng_conv_set_thread_info(struct ng_conv *c, ng_thread_info_fn fn,
			     void *priv)
{
	c->info = fn;
	c->info_priv = priv;
}

void ng_conv_set_window(struct ng_conv *c, uint64_t from_ns)
{
	c->window_from = from_ns;
}

void ng_conv_set_resolver(struct ng_conv *c, ng_sym_resolver_fn fn,
			  void *priv)
{
	c->resolver = fn;
	c->sym_priv = priv;
}

#define CANCEL_EVERY	4096

void ng_conv_set_cancel(struct ng_conv *c, const struct ng_cancel *cancel)
{
	if (cancel)
		c->cancel = *cancel;
	else
		memset(&c->cancel, 0, sizeof(c->cancel));
}

int ng_conv_check_cancel(struct ng_conv *c)
{
	if (!c->err && c->cancel.fn && c->cancel.fn(c->cancel.priv))
		c->err = -ECANCELED;
	return c->err;
}

/* A thread key's or an address's place in its map: equal keys, equal hashes. */
static uint64_t key_hash(const struct ng_conv *c, uint64_t key)
{
	return ng_hmap_u64_hash(key, c->seed);
}

static void lru_del(struct thread *t)
{
	t->lru_prev->lru_next = t->lru_next;
	t->lru_next->lru_prev = t->lru_prev;
}

static void lru_add(struct ng_conv *c, struct thread *t)
{
	t->lru_next = c->lru.lru_next;
	t->lru_prev = &c->lru;
	c->lru.lru_next->lru_prev = t;
	c->lru.lru_next = t;
}

/* Park the file of the thread that ran least recently: -EMFILE if none. */
static int park_oldest(struct ng_conv *c)
{
	struct thread *t = c->lru.lru_prev;

	if (t == &c->lru)
		return -EMFILE;
	lru_del(t);
	t->open = false;
	c->nr_open--;
	return ng_pp_park(t->w);
}

/* Room for one more open file, under max_open. */
static int make_room(struct ng_conv *c)
{
	int ret = 0;

	while (!ret && c->nr_open >= c->max_open)
		ret = park_oldest(c);
	return ret;
}

/* Count @t's writer as open and most recently used. */
static void now_open(struct ng_conv *c, struct thread *t)
{
	t->open = true;
	c->nr_open++;
	lru_add(c, t);
}

/* @t is about to be written: its file open, and first in the LRU order. */
static int touch(struct ng_conv *c, struct thread *t)
{
	int ret;

	if (t->open) {
		lru_del(t);
		lru_add(c, t);
		return 0;
	}
	ret = make_room(c);
	while (!ret && (ret = ng_pp_unpark(t->w)) &&
	       (ret == -EMFILE || ret == -ENFILE) && c->nr_open)
		ret = park_oldest(c);
	if (!ret)
		now_open(c, t);
	return ret;
}

/* Create @t's file, parking others for a descriptor if need be. */
static int thread_open(struct ng_conv *c, struct thread *t)
{
	int ret = make_room(c);

	while (!ret && (ret = ng_pp_open_name(&t->w, c->dir, t->name)) &&
	       (ret == -EMFILE || ret == -ENFILE) && c->nr_open)
		ret = park_oldest(c);
	if (!ret)
		now_open(c, t);
	return ret;
}

/*
 * The thread of @key (a tid, or -(cpu + 1)) if it has a file, else NULL.
 * The last one found first: a CPU's events come in runs of one task's.
 */
static struct thread *thread_find(struct ng_conv *c, int key)
{
	struct thread *t = c->last;

	if (t && t->key == key)
		return t;
	t = ng_hmap_find_hash(&c->threads, key_hash(c, (uint64_t)(int64_t)key));
	if (t)
		c->last = t;
	return t;
}

/* The key of an event's thread: its tid, or its CPU's idle task. */
static int event_thread(const struct ng_event *ev)
{
	return ev->tid > 0 ? ev->tid : -(ev->cpu + 1);
}

/* The thread an event belongs to, its file opened on first sight. */
static struct thread *thread_get(struct ng_conv *c, const struct ng_event *ev)
{
	int key = event_thread(ev);
	struct thread *t = thread_find(c, key);
	int ret;

	if (t) {
		ret = touch(c, t);
		if (ret) {
			c->err = ret;
			return NULL;
		}
		return t;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		c->err = -ENOMEM;
		return NULL;
	}
	t->key = key;
	if (key > 0)
		snprintf(t->name, sizeof(t->name), "%d.txt", key);
	else
		snprintf(t->name, sizeof(t->name), "0-%d.txt", ev->cpu);
	ret = thread_open(c, t);
	if (ret) {
		free(t);
		c->err = ret;
		return NULL;
	}
	ret = ng_hmap_add(&c->threads, key_hash(c, (uint64_t)(int64_t)key), t);
	if (ret) {
		lru_del(t);
		c->nr_open--;
		ng_pp_abort(t->w);
		free(t);
		c->err = ret;
		return NULL;
	}
	return t;
}

/* Keep a string made for an unknown symbol until the converter goes. */
static const char *own(struct ng_conv *c, char *s)
{
	char **n;

	if (!s)
		return NULL;
	n = realloc(c->owned, (c->nr_owned + 1) * sizeof(*n));
	if (!n) {
		free(s);
		return NULL;
	}
	c->owned = n;
	c->owned[c->nr_owned++] = s;
	return s;
}

/*
 * Name @addr once: through the caller's resolver if it set one, else the
 * kallsyms table; an address neither knows is written in hex.
 */
static const struct sym *sym_get(struct ng_conv *c, uint64_t addr)
{
	uint64_t h = key_hash(c, addr);
	const char *name = NULL, *module = NULL;
	const struct ng_sym *ks;
	struct sym *s = ng_hmap_find_hash(&c->syms_cache, h);
	char *text;

	if (s)
		return s;
	if (c->resolver) {
		name = c->resolver(c->sym_priv, addr, &module);
	} else if (c->syms) {
		ks = ng_syms_lookup(c->syms, addr);
		if (ks) {
			name = ks->name;
			module = ks->module;
		}
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		c->err = -ENOMEM;
		return NULL;
	}
	s->addr = addr;
	if (!name) {
		c->sum.unresolved++;
		if (asprintf(&text, "0x%" PRIx64, addr) < 0)
			text = NULL;
		name = own(c, text);
		module = NULL;
	}
	s->name = name;
	s->module = module;
	if (!s->name || ng_hmap_add(&c->syms_cache, h, s)) {
		free(s);
		c->err = -ENOMEM;
		return NULL;
	}
	return s;
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
	s = sym_get(c, ev->ip);
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

/* Where calls.c writes a thread's rebuilt entries and exits. */
struct rebuilt {
	struct ng_conv *c;
	struct thread *t;
};

static int replay_rebuilt(void *priv, const struct ng_event *ev)
{
	struct rebuilt *r = priv;

	return replay(r->c, r->t, ev);
}

/*
 * A table beside the push/pop files, DIR/@name.tsv, opened at its first
 * line, after one naming its format and version ("# nanograph sched 1").
 */
static int table_open(struct ng_conv *c, struct ng_outfile *f, bool *open,
		      const char *name)
{
	char file[64];
	int ret;

	if (*open)
		return 0;
	snprintf(file, sizeof(file), "%s.tsv", name);
	ret = ng_outfile_open(f, c->dir, file);
	if (ret)
		return ret;
	*open = true;
	return ng_outfile_printf(f, "# nanograph %s 1\n", name);
}

/*
 * A scheduling record, as a line of sched.tsv (Documentation/
 * trace-format.md): the push/pop files stay as they are, and the waker's
 * function is the innermost call open in its file when it woke the
 * thread.
 */
static int on_sched(struct ng_conv *c, const struct ng_event *ev)
{
	static const char *const ctx[] = { "task", "hardirq", "softirq", "irq", "nmi" };
	uint64_t ns = ng_clock_ns(&c->clock, ev->counter);
	const struct thread *w;
	const struct sym *s;
	const char *fn = "-";
	char comm[64] = "";
	int pid = -1, ret;
	size_t i;

	ret = table_open(c, &c->sched, &c->sched_open, "sched");
	if (ret)
		return ret;
	c->sum.sched++;
	switch (ev->type) {
	case NG_EV_SWITCH_OUT:
		return ng_outfile_printf(&c->sched, "%" PRIu64 "\tout\t%d\t%c\t%u\n",
					 ns, ev->tid, ev->runnable ? 'R' : 'S', ev->state);
	case NG_EV_SWITCH_IN:
		return ng_outfile_printf(&c->sched, "%" PRIu64 "\tin\t%d\n", ns, ev->tid);
	case NG_EV_MIGRATE:
		return ng_outfile_printf(&c->sched, "%" PRIu64 "\tmigrate\t%d\t%d\t%d\n",
					 ns, ev->tid, ev->from_cpu, ev->to_cpu);
	default:
		break;
	}
	/*
	 * The waker's function: named by the event (the events mode, whose
	 * func_call events come at each call's return), else its innermost
	 * call open in its file.
	 */
	w = thread_find(c, event_thread(ev));
	if (ev->ip) {
		s = sym_get(c, ev->ip);
		if (!s)
			return c->err;
		fn = s->name;
	} else if (w && w->n && w->fn[w->n - 1]) {
		fn = w->fn[w->n - 1]->name;
	}
	c->sum.wakes++;
	if (strcmp(fn, "-"))
		c->sum.wakes_attributed++;
	else if (!w)
		c->sum.wakes_untraced++;
	else
		c->sum.wakes_no_call++;
	if (!ev->tid)		/* an interrupt on an idle CPU */
		snprintf(comm, sizeof(comm), "swapper/%d", ev->cpu);
	else if (c->info)
		c->info(c->info_priv, ev->tid, &pid, comm, sizeof(comm));
	/* One line, as threads.tsv writes names: control characters as '?'. */
	for (i = 0; comm[i]; i++)
		if ((unsigned char)comm[i] < 0x20 || comm[i] == 0x7f)
			comm[i] = '?';
	return ng_outfile_printf(&c->sched, "%" PRIu64 "\twake\t%d\t%d\t%s\t%s\t%s\n",
				 ns, ev->wakee, ev->tid, comm[0] ? comm : "-",
				 ctx[ev->ctx & NG_RAW_CTX_NMI ? 4 : ev->ctx & 3], fn);
}

/*
 * The start of a line of table @name (opened at its first line) about
 * the call of thread @ev->tid at @ev->depth whose counter is
 * @ev->counter: "NS TID DEPTH FUNCTION", tab-separated, no newline.
 * counters.tsv, args.tsv and retval.tsv start so (trace-format.md).
 */
static int call_line(struct ng_conv *c, struct ng_outfile *f, bool *open,
		     const char *name, const struct ng_event *ev)
{
	const struct sym *s;
	int ret;

	ret = table_open(c, f, open, name);
	if (ret)
		return ret;
	s = sym_get(c, ev->ip);
	if (!s)
		return c->err;
	return ng_outfile_printf(f, "%" PRIu64 "\t%d\t%u\t%s",
				 ng_clock_ns(&c->clock, ev->counter),
				 event_thread(ev), ev->depth, s->name);
}

/*
 * A call's fault and context-switch counts, as a line of counters.tsv
 * (Documentation/trace-format.md): the call of thread @ev->tid at
 * @ev->depth that returned at @ev->counter, by its exit's nanoseconds.
 */
static int on_counters(struct ng_conv *c, const struct ng_event *ev)
{
	int ret = call_line(c, &c->counters, &c->counters_open, "counters", ev);

	if (ret)
		return ret;
	c->sum.counters++;
	return ng_outfile_printf(&c->counters, "\t%u\t%u\t%u\t%u\n",
				 ev->counts[NG_COUNT_MINFLT],
				 ev->counts[NG_COUNT_MAJFLT],
				 ev->counts[NG_COUNT_NVCSW],
				 ev->counts[NG_COUNT_NIVCSW]);
}

/*
 * Where a call returns to, as "function+0xoff" (or the bare address
 * when no symbol covers it), for args.tsv.
 */
static void site_text(const struct ng_conv *c, uint64_t addr, char *buf,
		      size_t size)
{
	const struct ng_sym *ks = c->syms ? ng_syms_lookup(c->syms, addr) : NULL;

	if (!addr)
		snprintf(buf, size, "-");
	else if (ks)
		snprintf(buf, size, "%s+0x%" PRIx64, ks->name, addr - ks->addr);
	else
		snprintf(buf, size, "0x%" PRIx64, addr);
}

/*
 * A call's entry values, as a line of args.tsv (Documentation/
 * trace-format.md): the call of thread @ev->tid at @ev->depth entered at
 * @ev->counter, its call site and its argument registers in hex.
 */
static int on_args(struct ng_conv *c, const struct ng_event *ev)
{
	int ret = call_line(c, &c->args, &c->args_open, "args", ev);
	char site[160];
	unsigned int i;

	if (ret)
		return ret;
	site_text(c, ev->site, site, sizeof(site));
	c->sum.args++;
	ret = ng_outfile_printf(&c->args, "\t%s", site);
	for (i = 0; i < ev->nargs && i < NG_ARGS_MAX && !ret; i++)
		ret = ng_outfile_printf(&c->args, "\t0x%" PRIx64, ev->args[i]);
	return ret ?: ng_outfile_printf(&c->args, "\n");
}

/*
 * A call's return register, as a line of retval.tsv: the call of thread
 * @ev->tid at @ev->depth that returned at @ev->counter, by its exit's
 * nanoseconds, as counters.tsv's lines.
 */
static int on_retval(struct ng_conv *c, const struct ng_event *ev)
{
	int ret = call_line(c, &c->retvals, &c->retvals_open, "retval", ev);

	if (ret)
		return ret;
	c->sum.retvals++;
	return ng_outfile_printf(&c->retvals, "\t0x%" PRIx64 "\n", ev->retval);
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

	/* before thread_get(): a thread only seen before it gets no file */
	if (outside_window(c, ev))
		return 0;
	if (ev->type == NG_EV_SWITCH_OUT || ev->type == NG_EV_SWITCH_IN ||
	    ev->type == NG_EV_WAKE || ev->type == NG_EV_MIGRATE)
		return on_sched(c, ev);
	if (ev->type == NG_EV_COUNTERS)
		return on_counters(c, ev);
	if (ev->type == NG_EV_ARGS)
		return on_args(c, ev);
	if (ev->type == NG_EV_RETVAL)
		return on_retval(c, ev);
	c->sum.events++;
	t = thread_get(c, ev);
	r.t = t;
	if (!t)
		return c->err;
	if (ev->type == NG_EV_CALL)
		return ng_calls_call(&t->calls, ev, replay_rebuilt, &r);
	if (ev->type == NG_EV_OPEN)
		return ng_calls_open(&t->calls, ev, replay_rebuilt, &r);
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

/* Threads in file order: idle tasks by CPU, then tids ascending. */
static int thread_cmp(const void *a, const void *b)
{
	const struct thread *x = *(struct thread *const *)a;
	const struct thread *y = *(struct thread *const *)b;

	if ((x->key < 0) != (y->key < 0))
		return x->key < 0 ? -1 : 1;
	if (x->key < 0)
		return x->key > y->key ? -1 : x->key < y->key;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* All threads in one sorted array; NULL on allocation failure. */
static struct thread **thread_array(struct ng_conv *c)
{
	struct thread **v = calloc(c->threads.count + 1, sizeof(*v));
	struct thread *t;
	size_t i = 0, n = 0;

	if (!v)
		return NULL;
	while ((t = ng_hmap_next(&c->threads, &i)))
		v[n++] = t;
	qsort(v, n, sizeof(*v), thread_cmp);
	return v;
}

/* threads.tsv from what the caller knows of each thread. */
static int write_threads(struct ng_conv *c, struct thread **v)
{
	struct ng_threads_writer *tw;
	unsigned int i;
	int ret;

	ret = ng_threads_open(&tw, c->dir);
	if (ret)
		return ret;
	for (i = 0; i < c->threads.count && !ret; i++) {
		struct thread *t = v[i];
		char comm[64] = "", tid[16];
		int pid = -1;

		if (t->key < 0) {
			snprintf(tid, sizeof(tid), "0-%d", -t->key - 1);
			snprintf(comm, sizeof(comm), "swapper/%d", -t->key - 1);
			ret = ng_threads_add_row(tw, tid, 0, comm);
			continue;
		}
		if (c->info)
			c->info(c->info_priv, t->key, &pid, comm, sizeof(comm));
		ret = ng_threads_add(tw, t->key, pid, comm);
	}
	if (ret) {
		ng_threads_abort(tw);
		return ret;
	}
	return ng_threads_close(tw);
}

/* Remove published files after a later failure: all or nothing. */
static void unpublish(struct ng_conv *c, struct thread **v, unsigned int n)
{
	char path[4096];
	unsigned int i;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", c->dir, v[i]->name);
		unlink(path);
	}
}

static void free_all(struct ng_conv *c)
{
	struct thread *t;
	size_t i = 0, j;
	void *s;

	while ((t = ng_hmap_next(&c->threads, &i))) {
		ng_pp_abort(t->w);
		ng_calls_free(t->calls);
		free(t->fn);
		free(t);
	}
	for (i = 0; (s = ng_hmap_next(&c->syms_cache, &i));)
		free(s);
	if (c->sched_open)
		ng_outfile_abort(&c->sched);
	if (c->counters_open)
		ng_outfile_abort(&c->counters);
	if (c->args_open)
		ng_outfile_abort(&c->args);
	if (c->retvals_open)
		ng_outfile_abort(&c->retvals);
	for (j = 0; j < c->nr_owned; j++)
		free(c->owned[j]);
	free(c->owned);
	ng_hmap_fini(&c->threads);
	ng_hmap_fini(&c->syms_cache);
	free(c->held);
	free(c->dir);
	free(c);
}

/*
 * Write what each thread's func_calls still hold, with its open calls
 * (no exit: closed at the end like entries that never saw their exit).
 */
static int flush_calls(struct ng_conv *c)
{
	struct thread *t;
	size_t i = 0;
	int ret = 0;

	while (!ret && (t = ng_hmap_next(&c->threads, &i))) {
		struct rebuilt r = { c, t };

		if (!t->calls)
			continue;
		ret = touch(c, t);
		if (!ret)
			ret = ng_calls_flush(t->calls, replay_rebuilt, &r);
	}
	return ret;
}

int ng_conv_finish(struct ng_conv *c, struct ng_conv_summary *sum)
{
	struct thread **v = NULL;
	unsigned int i, done = 0;
	struct stat st;
	char path[4096];
	int ret = c->err;

	if (!ret && c->nr_held)
		ret = -ENODATA;	/* no clock_sync and no clock given */
	if (!ret)
		ret = flush_calls(c);
	/* Closing reopens parked files one at a time: park all first. */
	while (!ret && c->nr_open)
		ret = park_oldest(c);
	if (!ret) {
		v = thread_array(c);
		if (!v)
			ret = -ENOMEM;
	}
	for (i = 0; !ret && i < c->threads.count; i++) {
		struct thread *t = v[i];

		ret = ng_conv_check_cancel(c);
		if (ret)
			break;
		ret = ng_pp_close(t->w, &t->st);
		t->w = NULL;
		c->sum.closed_at_end += t->st.closed_at_end;
		c->sum.clamped += t->st.clamped;
		c->sum.pushes += t->st.pushes;
		if (ret)
			break;
		done++;
		snprintf(path, sizeof(path), "%s/%s", c->dir, t->name);
		if (!stat(path, &st))
			c->sum.bytes += st.st_size;
	}
	c->sum.threads = done;
	c->sum.clock = c->clock;
	if (!ret)
		ret = write_threads(c, v);
	if (!ret && c->sched_open) {
		c->sched_open = false;
		ret = ng_outfile_commit(&c->sched);
	}
	if (!ret && c->counters_open) {
		c->counters_open = false;
		ret = ng_outfile_commit(&c->counters);
	}
	if (!ret && c->args_open) {
		c->args_open = false;
		ret = ng_outfile_commit(&c->args);
	}
	if (!ret && c->retvals_open) {
		c->retvals_open = false;
		ret = ng_outfile_commit(&c->retvals);
	}
	if (ret && v) {
		unpublish(c, v, done);
		c->sum.threads = 0;
	}
	if (sum)
		*sum = c->sum;
	free(v);
	free_all(c);
	return ret;
}

void ng_conv_abort(struct ng_conv *c)
{
	if (c)
		free_all(c);
}
