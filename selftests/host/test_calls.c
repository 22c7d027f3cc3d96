// SPDX-License-Identifier: GPL-2.0
/*
 * test_calls.c - recordings of func_call and func_open (one event per
 * call) converted to the same push/pop files as the same run's
 * func_entry and func_exit: trees rebuilt from postorder with equal
 * timestamps, calls open at the end, an open call that returned after
 * all, duplicate opens, idle tasks, lost parents, recordings holding
 * both kinds, the decoder, and trace.dat files through the command,
 * with memory that does not grow with the number of calls.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <event-parse.h>

#include "nanograph.h"
#include "nanograph_event.h"
#include "ktap.h"
#include "tdat_gen.h"

static const char kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T vfs_read\n"
	"ffffffff81002000 t rw_verify_area\n"
	"ffffffff81003000 T ksys_read\n"
	"ffffffff81004000 T do_idle\n"
	"ffffffff81005000 T schedule\n"
	"ffffffffc0001000 t nf_hook_slow\t[nf_tables]\n";

#define VFS_READ	0xffffffff81001000ULL
#define RW_VERIFY	0xffffffff81002004ULL
#define KSYS_READ	0xffffffff81003000ULL
#define DO_IDLE		0xffffffff81004000ULL
#define SCHEDULE	0xffffffff81005000ULL
#define NF_HOOK		0xffffffffc0001010ULL

/*
 * One step of a run as entry/exit events would show it; the same run
 * as func_call events is made from it (calls_of()).
 */
struct step {
	char kind;		/* 'E' entry, 'X' exit */
	int cpu, tid;
	uint64_t counter;
	unsigned int depth;
	uint64_t ip;
};

#define E(cpu, tid, t, d, ip)	{ 'E', cpu, tid, t, d, ip }
#define X(cpu, tid, t, d, ip)	{ 'X', cpu, tid, t, d, ip }
#define NR(a)			(sizeof(a) / sizeof((a)[0]))

static struct ng_syms *syms;

/* A converter into <tmpdir>/@name (made), the clock 1 GHz, 1000 = 5000 ns. */
static struct ng_conv *conv_in(const char *name)
{
	struct ng_event clock = {
		.type = NG_EV_CLOCK, .counter = 1000, .mono_ns = 5000,
		.freq = 1000000000,
	};
	struct ng_conv *c = NULL;

	if (!syms && ng_syms_parse(&syms, kallsyms, strlen(kallsyms)))
		return NULL;
	mkdir(t_path(name), 0755);
	if (ng_conv_new(&c, t_path(name), syms))
		return NULL;
	ng_conv_event(c, &clock);
	return c;
}

static int feed_step(struct ng_conv *c, const struct step *s)
{
	struct ng_event ev = {
		.type = s->kind == 'E' ? NG_EV_ENTRY : NG_EV_EXIT,
		.cpu = s->cpu, .tid = s->tid, .counter = s->counter,
		.depth = s->depth, .ip = s->ip,
	};

	return ng_conv_event(c, &ev);
}

/* The steps as entry/exit events, into <tmpdir>/@name. */
static int convert_pairs(const char *name, const struct step *s, size_t n,
			 struct ng_conv_summary *sum)
{
	struct ng_conv *c = conv_in(name);
	size_t i;

	if (!c)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		feed_step(c, &s[i]);
	return ng_conv_finish(c, sum);
}

#define MAX_EVENTS	256
#define MAX_TASKS	8

/* A task's frames while the steps are walked. */
struct task {
	int key;			/* tid, or -(cpu + 1) for idle */
	int cpu;
	unsigned int n;
	struct step frame[64];
};

/* What the open calls at the end look like. */
enum opens {
	OPENS_INNER_FIRST,
	OPENS_OUTER_FIRST,
	OPENS_TWICE,		/* the stop walk, then the task freed */
	OPENS_RETURNED,		/* then each returns while recording stops */
};

static struct task *task_of(struct task *tasks, size_t *nr, const struct step *s)
{
	int key = s->tid > 0 ? s->tid : -(s->cpu + 1);
	size_t i;

	for (i = 0; i < *nr; i++)
		if (tasks[i].key == key)
			return &tasks[i];
	if (*nr == MAX_TASKS)
		return NULL;
	tasks[*nr] = (struct task){ .key = key, .cpu = s->cpu };
	return &tasks[(*nr)++];
}

static struct ng_event open_ev(const struct task *t, const struct step *f)
{
	return (struct ng_event){
		.type = NG_EV_OPEN, .cpu = t->key > 0 ? 0 : t->cpu,
		.tid = t->key > 0 ? t->key : 0, .counter = f->counter,
		.depth = f->depth, .ip = f->ip,
	};
}

/*
 * The same run as the module writes it with func_call: one event at each
 * return, carrying the entry's counter, and func_open for the frames
 * still open at the end, as @opens says. Returns the number of events.
 */
static size_t calls_of(const struct step *s, size_t n, enum opens opens,
		       struct ng_event *out)
{
	struct task tasks[MAX_TASKS], *t;
	size_t nr_tasks = 0, nr = 0, i, k;
	unsigned int j;
	int round;

	for (i = 0; i < n; i++) {
		t = task_of(tasks, &nr_tasks, &s[i]);
		if (!t)
			return 0;
		if (s[i].kind == 'E') {
			t->frame[t->n++] = s[i];
			continue;
		}
		t->n--;
		out[nr++] = (struct ng_event){
			.type = NG_EV_CALL, .cpu = s[i].cpu, .tid = s[i].tid,
			.counter = t->frame[t->n].counter,
			.depth = t->frame[t->n].depth, .ip = t->frame[t->n].ip,
			.exit_counter = s[i].counter,
		};
	}
	for (round = 0; round < (opens == OPENS_TWICE ? 2 : 1); round++)
		for (k = 0; k < nr_tasks; k++)
			for (j = 0; j < tasks[k].n; j++) {
				t = &tasks[k];
				out[nr++] = open_ev(t, &t->frame[opens == OPENS_OUTER_FIRST ?
							j : t->n - 1 - j]);
			}
	return nr;
}

/* The events into <tmpdir>/@name. */
static int convert_events(const char *name, const struct ng_event *ev,
			  size_t n, struct ng_conv_summary *sum)
{
	struct ng_conv *c = conv_in(name);
	size_t i;

	if (!c)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		ng_conv_event(c, &ev[i]);
	return ng_conv_finish(c, sum);
}

/* <tmpdir>/@a/@file and <tmpdir>/@b/@file hold the same bytes. */
static bool same_file(const char *a, const char *b, const char *file)
{
	char pa[600], pb[600], *x, *y;
	size_t lx = 0, ly = 0;
	bool same;

	snprintf(pa, sizeof(pa), "%s/%s", t_path(a), file);
	snprintf(pb, sizeof(pb), "%s/%s", t_path(b), file);
	x = t_read_file(pa, &lx);
	y = t_read_file(pb, &ly);
	same = x && y && lx == ly && !memcmp(x, y, lx);
	if (!same) {
		t_diag("%s differs:", file);
		t_diag("  %s: %s", a, x ? t_escape(x, lx) : "(none)");
		t_diag("  %s: %s", b, y ? t_escape(y, ly) : "(none)");
	}
	free(x);
	free(y);
	return same;
}

/*
 * Convert @s as entry/exit events into "pairs" and as func_call events
 * into "calls"; @files (NULL-terminated) must be byte for byte the same,
 * and so must the counts.
 */
static bool same_as_pairs(const struct step *s, size_t n, enum opens opens,
			  const char *const *files, struct ng_conv_summary *sum)
{
	struct ng_event ev[MAX_EVENTS];
	struct ng_conv_summary ps;
	size_t nr = calls_of(s, n, opens, ev);
	bool same = nr > 0;

	if (convert_pairs("pairs", s, n, &ps) ||
	    convert_events("calls", ev, nr, sum))
		return false;
	for (; *files; files++)
		same = same_file("pairs", "calls", *files) && same;
	if (ps.pushes != sum->pushes || ps.entries != sum->entries ||
	    ps.exits != sum->exits || ps.closed_at_end != sum->closed_at_end ||
	    ps.repaired != sum->repaired || ps.clamped != sum->clamped ||
	    ps.threads != sum->threads || ps.first_ns != sum->first_ns ||
	    ps.last_ns != sum->last_ns) {
		t_diag("counts differ: pushes %llu/%llu entries %llu/%llu exits %llu/%llu closed %llu/%llu",
		       (unsigned long long)ps.pushes, (unsigned long long)sum->pushes,
		       (unsigned long long)ps.entries, (unsigned long long)sum->entries,
		       (unsigned long long)ps.exits, (unsigned long long)sum->exits,
		       (unsigned long long)ps.closed_at_end,
		       (unsigned long long)sum->closed_at_end);
		same = false;
	}
	return same;
}

/*
 * Three threads interleaved on two CPUs, one migrating, nesting five
 * deep, and equal counters: a parent and its two children all entered
 * at 1300, a child entered and returned at its parent's entry, siblings
 * at different depths with the same counters.
 */
static const struct step tree[] = {
	E(0, 10, 1100, 0, KSYS_READ),
	E(0, 10, 1101, 1, VFS_READ),
	E(1, 11, 1101, 0, NF_HOOK),
	E(0, 10, 1102, 2, RW_VERIFY),
	E(0, 10, 1103, 3, SCHEDULE),
	E(1, 11, 1103, 1, VFS_READ),
	E(0, 10, 1104, 4, NF_HOOK),
	X(0, 10, 1105, 4, NF_HOOK),
	X(1, 11, 1105, 1, VFS_READ),
	X(0, 10, 1106, 3, SCHEDULE),
	E(0, 10, 1106, 3, SCHEDULE),
	X(0, 10, 1106, 3, SCHEDULE),
	X(0, 10, 1107, 2, RW_VERIFY),
	X(1, 11, 1108, 0, NF_HOOK),
	X(1, 10, 1110, 1, VFS_READ),		/* migrated */
	X(1, 10, 1120, 0, KSYS_READ),
	E(0, 12, 1300, 0, KSYS_READ),
	E(0, 12, 1300, 1, VFS_READ),
	X(0, 12, 1300, 1, VFS_READ),
	E(0, 12, 1300, 1, RW_VERIFY),
	E(0, 12, 1300, 2, SCHEDULE),
	X(0, 12, 1300, 2, SCHEDULE),
	X(0, 12, 1300, 1, RW_VERIFY),
	E(0, 12, 1300, 1, VFS_READ),
	X(0, 12, 1300, 1, VFS_READ),
	X(0, 12, 1301, 0, KSYS_READ),
	E(1, 10, 1400, 0, VFS_READ),
	E(1, 10, 1400, 1, VFS_READ),
	E(1, 10, 1400, 2, VFS_READ),
	E(1, 10, 1400, 3, VFS_READ),
	E(1, 10, 1400, 4, VFS_READ),
	X(1, 10, 1400, 4, VFS_READ),
	X(1, 10, 1400, 3, VFS_READ),
	E(1, 10, 1400, 3, RW_VERIFY),
	X(1, 10, 1401, 3, RW_VERIFY),
	X(1, 10, 1401, 2, VFS_READ),
	X(1, 10, 1401, 1, VFS_READ),
	X(1, 10, 1402, 0, VFS_READ),
};

static const char *const tree_files[] = {
	"10.txt", "11.txt", "12.txt", "threads.tsv", NULL,
};

static void test_same_as_pairs(void)
{
	struct ng_conv_summary s;

	T_ASSERT(same_as_pairs(tree, NR(tree), OPENS_INNER_FIRST, tree_files, &s));
	T_FILE_EQ(t_path("calls/12.txt"),
		  "5300:+ksys_read\n5300:+vfs_read\n5300:POP\n"
		  "5300:+rw_verify_area\n5300:+schedule\n5300:POP\n5300:POP\n"
		  "5300:+vfs_read\n5300:POP\n5301:POP\n");
	T_EQ_U64(s.threads, 3);
	T_EQ_U64(s.events, NR(tree) / 2);
	T_EQ_U64(s.entries, NR(tree) / 2);
	T_EQ_U64(s.exits, NR(tree) / 2);
	T_EQ_U64(s.pushes, NR(tree) / 2);
	T_EQ_U64(s.repaired + s.closed_at_end + s.unmatched_exits + s.clamped, 0);
	T_EQ_U64(s.ignored, 0);
}

/*
 * Calls still running at the end, at several depths, with returned
 * calls under them: func_open closes them at the end as entries that
 * never saw their exit are, whichever order the opens come in.
 */
static const struct step open_tree[] = {
	E(0, 20, 2000, 0, KSYS_READ),
	E(0, 20, 2001, 1, VFS_READ),
	E(0, 20, 2002, 2, RW_VERIFY),
	X(0, 20, 2003, 2, RW_VERIFY),
	E(0, 20, 2004, 2, SCHEDULE),
	E(0, 20, 2005, 3, NF_HOOK),
	X(0, 20, 2006, 3, NF_HOOK),
	E(0, 21, 2006, 0, VFS_READ),
	X(0, 21, 2007, 0, VFS_READ),
	E(0, 20, 2008, 3, NF_HOOK),		/* still running too */
	E(0, 20, 2009, 4, RW_VERIFY),
	X(0, 20, 2010, 4, RW_VERIFY),
	E(1, 21, 2011, 0, NF_HOOK),
	E(1, 21, 2012, 1, VFS_READ),
	X(1, 21, 2013, 1, VFS_READ),
};

static void test_open_calls(void)
{
	static const char *const files[] = { "20.txt", "21.txt", NULL };
	struct ng_conv_summary s;

	T_ASSERT(same_as_pairs(open_tree, NR(open_tree), OPENS_INNER_FIRST,
			       files, &s));
	T_FILE_EQ(t_path("calls/20.txt"),
		  "6000:+ksys_read\n6001:+vfs_read\n6002:+rw_verify_area\n"
		  "6003:POP\n6004:+schedule\n6005:+nf_hook_slow [nf_tables]\n"
		  "6006:POP\n6008:+nf_hook_slow [nf_tables]\n"
		  "6009:+rw_verify_area\n6010:POP\n"
		  "6010:POP\n6010:POP\n6010:POP\n6010:POP\n");
	T_EQ_U64(s.closed_at_end, 5);
	T_EQ_U64(s.pushes, 10);
	T_ASSERT(same_as_pairs(open_tree, NR(open_tree), OPENS_OUTER_FIRST,
			       files, &s));
	T_EQ_U64(s.closed_at_end, 5);
}

/* The same func_open twice (stop walk, then the task freed): one call. */
static void test_duplicate_open(void)
{
	static const char *const files[] = { "20.txt", "21.txt", NULL };
	struct ng_conv_summary s;

	T_ASSERT(same_as_pairs(open_tree, NR(open_tree), OPENS_TWICE, files, &s));
	T_EQ_U64(s.closed_at_end, 5);
	T_EQ_U64(s.pushes, 10);
}

/*
 * A func_open, then the same call's func_call (it returned while
 * recording stopped): one call, with its exit.
 */
static void test_open_then_returned(void)
{
	struct ng_event ev[] = {
		{ .type = NG_EV_CALL, .tid = 30, .counter = 1101, .depth = 1,
		  .ip = VFS_READ, .exit_counter = 1102 },
		{ .type = NG_EV_OPEN, .tid = 30, .counter = 1100, .depth = 0,
		  .ip = KSYS_READ, .cpu = 0 },
		{ .type = NG_EV_OPEN, .tid = 30, .counter = 1103, .depth = 1,
		  .ip = RW_VERIFY, .cpu = 0 },
		{ .type = NG_EV_CALL, .tid = 30, .counter = 1103, .depth = 1,
		  .ip = RW_VERIFY, .exit_counter = 1110 },
		{ .type = NG_EV_CALL, .tid = 30, .counter = 1100, .depth = 0,
		  .ip = KSYS_READ, .exit_counter = 1120 },
	};
	struct ng_conv_summary s;

	T_EQ_INT(convert_events("calls", ev, NR(ev), &s), 0);
	T_FILE_EQ(t_path("calls/30.txt"),
		  "5100:+ksys_read\n5101:+vfs_read\n5102:POP\n"
		  "5103:+rw_verify_area\n5110:POP\n5120:POP\n");
	T_EQ_U64(s.closed_at_end, 0);
	T_EQ_U64(s.pushes, 3);
	T_EQ_U64(s.entries, 3);
	T_EQ_U64(s.exits, 3);
}

/*
 * The stop walk read a task's depth, then the task (on another CPU)
 * returned from its inner call before the walk wrote that call's
 * func_open: the func_call comes first, then the opens of both frames.
 * The inner call is the one that returned, once; only the outer stays
 * open.
 */
static void test_returned_before_its_open(void)
{
	struct ng_event ev[] = {
		{ .type = NG_EV_CALL, .tid = 31, .counter = 1200, .depth = 1,
		  .ip = VFS_READ, .exit_counter = 1300 },
		{ .type = NG_EV_OPEN, .tid = 31, .counter = 1100, .depth = 0,
		  .ip = KSYS_READ, .cpu = 0 },
		{ .type = NG_EV_OPEN, .tid = 31, .counter = 1200, .depth = 1,
		  .ip = VFS_READ, .cpu = 0 },
	};
	struct ng_conv_summary s;

	T_EQ_INT(convert_events("calls", ev, NR(ev), &s), 0);
	T_FILE_EQ(t_path("calls/31.txt"),
		  "5100:+ksys_read\n5200:+vfs_read\n5300:POP\n5300:POP\n");
	T_EQ_U64(s.pushes, 2);
	T_EQ_U64(s.closed_at_end, 1);
	T_EQ_U64(s.clamped, 0);
}

/*
 * Idle tasks: func_open of pid 0 goes to the file of the CPU its cpu
 * field names, not of the CPU that wrote it.
 */
static void test_idle_open(void)
{
	static const struct step idle[] = {
		E(2, 0, 1100, 0, DO_IDLE),
		E(2, 0, 1101, 1, SCHEDULE),
		X(2, 0, 1102, 1, SCHEDULE),
		E(3, 0, 1103, 0, DO_IDLE),
		X(3, 0, 1104, 0, DO_IDLE),
		E(3, 0, 1105, 0, DO_IDLE),
	};
	static const char *const files[] = {
		"0-2.txt", "0-3.txt", "threads.tsv", NULL,
	};
	struct ng_conv_summary s;

	T_ASSERT(same_as_pairs(idle, NR(idle), OPENS_INNER_FIRST, files, &s));
	T_FILE_EQ(t_path("calls/0-2.txt"),
		  "5100:+do_idle\n5101:+schedule\n5102:POP\n5102:POP\n");
	T_FILE_EQ(t_path("calls/0-3.txt"),
		  "5103:+do_idle\n5104:POP\n5105:+do_idle\n5105:POP\n");
	T_ASSERT(!t_exists(t_path("calls/0-0.txt")));
	T_EQ_U64(s.closed_at_end, 2);
}

/*
 * Lost parents: calls at depth 2 whose depth-1 caller's func_call was
 * lost, under a depth-0 call, and calls whose callers never came at
 * all. Every call is written once, in time order, the files balanced.
 */
static void test_lost_parent(void)
{
	struct ng_event ev[] = {
		{ .type = NG_EV_CALL, .tid = 40, .counter = 1102, .depth = 2,
		  .ip = RW_VERIFY, .exit_counter = 1103 },
		{ .type = NG_EV_CALL, .tid = 40, .counter = 1104, .depth = 2,
		  .ip = SCHEDULE, .exit_counter = 1105 },
		/* vfs_read at depth 1 [1101,1106] lost */
		{ .type = NG_EV_CALL, .tid = 40, .counter = 1100, .depth = 0,
		  .ip = KSYS_READ, .exit_counter = 1110 },
		/* no caller at all, and one entered before the depth-1 call */
		{ .type = NG_EV_CALL, .tid = 40, .counter = 1200, .depth = 3,
		  .ip = NF_HOOK, .exit_counter = 1201 },
		{ .type = NG_EV_CALL, .tid = 40, .counter = 1203, .depth = 1,
		  .ip = VFS_READ, .exit_counter = 1204 },
	};
	struct ng_conv_summary s;
	struct ng_pp_check chk;

	T_EQ_INT(convert_events("calls", ev, NR(ev), &s), 0);
	T_FILE_EQ(t_path("calls/40.txt"),
		  "5100:+ksys_read\n5102:+rw_verify_area\n5103:POP\n"
		  "5104:+schedule\n5105:POP\n5110:POP\n"
		  "5200:+nf_hook_slow [nf_tables]\n5201:POP\n"
		  "5203:+vfs_read\n5204:POP\n");
	T_EQ_INT(ng_pp_check_file(t_path("calls/40.txt"), &chk), NG_PP_OK);
	T_EQ_U64(s.pushes, 5);
	T_EQ_U64(s.entries, 5);
	T_EQ_U64(s.exits, 5);
	T_EQ_U64(s.repaired + s.closed_at_end + s.unmatched_exits, 0);
}

/*
 * A recording of both kinds (nanograph:* enabled): each call converted
 * once, from the kind that came first, the other counted as ignored.
 */
static void test_mixed_kinds(void)
{
	struct ng_event calls[MAX_EVENTS], mixed[2 * MAX_EVENTS];
	struct ng_event second[2 * MAX_EVENTS];
	struct ng_conv_summary ps, s;
	size_t nr = calls_of(tree, NR(tree), OPENS_INNER_FIRST, calls);
	size_t i, k = 0, n = 0;
	bool moved = false;

	T_EQ_INT(convert_pairs("pairs", tree, NR(tree), &ps), 0);
	/* Entries first: each func_call right after its func_exit. */
	for (i = 0; i < NR(tree); i++) {
		mixed[n++] = (struct ng_event){
			.type = tree[i].kind == 'E' ? NG_EV_ENTRY : NG_EV_EXIT,
			.cpu = tree[i].cpu, .tid = tree[i].tid,
			.counter = tree[i].counter, .depth = tree[i].depth,
			.ip = tree[i].ip,
		};
		if (tree[i].kind == 'X')
			mixed[n++] = calls[k++];
	}
	T_EQ_INT(convert_events("mixed", mixed, n, &s), 0);
	for (i = 0; tree_files[i]; i++)
		T_ASSERT(same_file("pairs", "mixed", tree_files[i]));
	T_EQ_U64(s.ignored, nr);
	T_EQ_U64(s.events, NR(tree));
	T_EQ_U64(s.pushes, ps.pushes);

	/* A func_call first: the entries and exits are the ignored ones. */
	second[0] = calls[0];		/* moved to the front */
	for (i = 0, k = 1; i < n; i++)
		if (mixed[i].type != NG_EV_CALL || moved)
			second[k++] = mixed[i];
		else
			moved = true;
	T_EQ_INT(convert_events("mixed2", second, k, &s), 0);
	for (i = 0; tree_files[i]; i++)
		T_ASSERT(same_file("pairs", "mixed2", tree_files[i]));
	T_EQ_U64(s.ignored, NR(tree));
	T_EQ_U64(s.events, nr);
	T_EQ_U64(s.pushes, ps.pushes);
}

/*
 * An idle task whose CPU went offline with calls open (it drops them)
 * and came back: the dropped calls are written before the new ones, not
 * as their callers; the next drop's open call, or the new outermost
 * call when it returns, holds the new calls.
 */
static void test_sealed_opens(void)
{
	struct ng_event ev[] = {
		{ .type = NG_EV_CALL, .cpu = 1, .counter = 1101, .depth = 1,
		  .ip = SCHEDULE, .exit_counter = 1102 },
		{ .type = NG_EV_OPEN, .cpu = 1, .counter = 1100, .depth = 0,
		  .ip = DO_IDLE },
		{ .type = NG_EV_OPEN, .cpu = 1, .counter = 1103, .depth = 1,
		  .ip = SCHEDULE },
		/* back online: do_idle calls schedule again */
		{ .type = NG_EV_CALL, .cpu = 1, .counter = 1201, .depth = 2,
		  .ip = RW_VERIFY, .exit_counter = 1202 },
		{ .type = NG_EV_CALL, .cpu = 1, .counter = 1200, .depth = 1,
		  .ip = SCHEDULE, .exit_counter = 1203 },
		/* offline again inside do_idle */
		{ .type = NG_EV_OPEN, .cpu = 1, .counter = 1199, .depth = 0,
		  .ip = DO_IDLE },
	};
	struct ng_conv_summary s;

	T_EQ_INT(convert_events("calls", ev, NR(ev), &s), 0);
	T_FILE_EQ(t_path("calls/0-1.txt"),
		  "5100:+do_idle\n5101:+schedule\n5102:POP\n5103:+schedule\n"
		  "5199:POP\n5199:POP\n"
		  "5199:+do_idle\n5200:+schedule\n5201:+rw_verify_area\n"
		  "5202:POP\n5203:POP\n5203:POP\n");
	T_EQ_U64(s.pushes, 6);

	/* Back online for good: the new do_idle returns. */
	ev[NR(ev) - 1] = (struct ng_event){
		.type = NG_EV_CALL, .cpu = 1, .counter = 1199, .depth = 0,
		.ip = DO_IDLE, .exit_counter = 1300,
	};
	T_EQ_INT(convert_events("calls2", ev, NR(ev), &s), 0);
	T_FILE_EQ(t_path("calls2/0-1.txt"),
		  "5100:+do_idle\n5101:+schedule\n5102:POP\n5103:+schedule\n"
		  "5199:POP\n5199:POP\n"
		  "5199:+do_idle\n5200:+schedule\n5201:+rw_verify_area\n"
		  "5202:POP\n5203:POP\n5300:POP\n");
	T_EQ_U64(s.closed_at_end + s.clamped, 0);
}

/* Events before the clock wait for it, func_call and func_open too. */
static void test_held_until_clock(void)
{
	struct ng_event ev[] = {
		{ .type = NG_EV_CALL, .tid = 50, .counter = 1101, .depth = 1,
		  .ip = VFS_READ, .exit_counter = 1102 },
		{ .type = NG_EV_OPEN, .tid = 50, .counter = 1100, .depth = 0,
		  .ip = KSYS_READ },
		{ .type = NG_EV_CLOCK, .counter = 1000, .mono_ns = 5000,
		  .freq = 1000000000 },
	};
	struct ng_conv *c = NULL;
	size_t i;

	T_EQ_INT(ng_conv_new(&c, t_tmpdir(), NULL), 0);
	for (i = 0; i < NR(ev); i++)
		T_EQ_INT(ng_conv_event(c, &ev[i]), 0);
	T_EQ_INT(ng_conv_finish(c, NULL), 0);
	T_FILE_EQ(t_path("50.txt"),
		  "5100:+0xffffffff81003000\n5101:+0xffffffff81001000\n"
		  "5102:POP\n5102:POP\n");
}

/* ---- the decoder, on formats as tracefs publishes them ---- */

/* A tep of the nanograph events named in @names (NULL-terminated). */
static struct tep_handle *tep_of(const char *const *names)
{
	struct tep_handle *tep = tep_alloc();
	const char *fmt;

	if (!tep)
		return NULL;
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	for (; *names; names++) {
		fmt = t_tdat_format(*names);
		if (!fmt || tep_parse_event(tep, fmt, strlen(fmt), "nanograph")) {
			tep_free(tep);
			return NULL;
		}
	}
	return tep;
}

/* A func_open record of @pid/@frame_cpu, read on @cpu. */
static void decode_open(const struct ng_decoder *d, int cpu, int pid,
			int frame_cpu, struct ng_event *ev)
{
	unsigned char data[32] = { 0 };
	uint16_t id = 1005;
	int32_t writer = T_TDAT_OPEN_WRITER, more[2] = { pid, frame_cpu };
	uint64_t tsd = ng_tsd(1234, 3), ip = VFS_READ;
	struct tep_record rec = { .cpu = cpu, .size = sizeof(data), .data = data };

	memcpy(data, &id, 2);
	memcpy(data + 4, &writer, 4);
	memcpy(data + 8, &tsd, 8);
	memcpy(data + 16, &ip, 8);
	memcpy(data + 24, more, 8);
	ng_decode(d, &rec, ev);
}

static void test_decoder(void)
{
	static const char *const only_calls[] = { "func_call", "clock_sync", NULL };
	static const char *const call_open[] = { "func_call", "func_open", NULL };
	static const char *const only_open[] = { "func_open", "clock_sync", NULL };
	static const char *const none[] = { "clock_sync", NULL };
	struct ng_decoder *d = NULL;
	struct tep_handle *tep;
	struct ng_event ev;

	tep = tep_of(only_calls);
	T_ASSERT(tep);
	T_EQ_INT(ng_decoder_new(&d, tep), 0);
	ng_decoder_free(d);
	tep_free(tep);

	tep = tep_of(none);
	T_ASSERT(tep);
	T_EQ_INT(ng_decoder_new(&d, tep), -ENOENT);
	tep_free(tep);
	tep = tep_of(only_open);	/* a func_open alone rebuilds nothing */
	T_ASSERT(tep);
	T_EQ_INT(ng_decoder_new(&d, tep), -ENOENT);
	tep_free(tep);

	tep = tep_of(call_open);
	T_ASSERT(tep);
	T_EQ_INT(ng_decoder_new(&d, tep), 0);
	decode_open(d, 1, 0, 3, &ev);	/* CPU 3's idle task, written on 1 */
	T_EQ_INT(ev.type, NG_EV_OPEN);
	T_EQ_INT(ev.tid, 0);
	T_EQ_INT(ev.cpu, 3);
	T_EQ_U64(ev.counter, 1234);
	T_EQ_INT(ev.depth, 3);
	T_EQ_U64(ev.ip, VFS_READ);
	decode_open(d, 1, 77, -1, &ev);
	T_EQ_INT(ev.tid, 77);
	T_EQ_INT(ev.cpu, 1);
	ng_decoder_free(d);
	tep_free(tep);
}

/* ---- trace.dat files through "nanograph convert" ---- */

static struct t_result convert_cmd(const char *out, const char *dat)
{
	char *argv[] = { NULL, "convert", "-q", "-o", (char *)out, (char *)dat,
			 NULL };
	char *env[] = { "ASAN_OPTIONS=quarantine_size_mb=0", NULL };

	return t_nanograph_run(argv, env);
}

/*
 * func_call and func_open in a trace.dat: the tree rebuilt, the idle
 * task's open call in the file of the CPU its cpu field names, nothing
 * under the writer's pid.
 */
static void test_cmd_tdat(void)
{
	char dat[600], out[600];
	struct t_tdat *t;

	snprintf(dat, sizeof(dat), "%s", t_path("c.dat"));
	snprintf(out, sizeof(out), "%s", t_path("c"));
	t = t_tdat_open(dat, 2, kallsyms, "60 worker\n");
	T_ASSERT(t);
	t_tdat_clock(t, 0, 100, 1000, 5000, 1000000000);
	t_tdat_call(t, 0, 60, 101, 1102, 2, RW_VERIFY, 1103);
	t_tdat_call(t, 1, 60, 102, 1101, 1, VFS_READ, 1104);
	t_tdat_call(t, 1, 0, 103, 1105, 1, SCHEDULE, 1106);
	t_tdat_call(t, 1, 60, 104, 1100, 0, KSYS_READ, 1107);
	t_tdat_call(t, 0, 60, 105, 1108, 1, VFS_READ, 1109);
	t_tdat_open_call(t, 0, 106, 1108, 0, SCHEDULE, 60, -1);
	t_tdat_open_call(t, 0, 107, 1104, 0, DO_IDLE, 0, 1);
	T_EQ_INT(t_tdat_close(t), 0);
	T_RUN(convert_cmd(out, dat), 0, "", "");
	T_FILE_EQ(t_path("c/60.txt"),
		  "5100:+ksys_read\n5101:+vfs_read\n5102:+rw_verify_area\n"
		  "5103:POP\n5104:POP\n5107:POP\n"
		  "5108:+schedule\n5108:+vfs_read\n5109:POP\n"
		  "5109:POP\n");
	T_FILE_EQ(t_path("c/0-1.txt"),
		  "5104:+do_idle\n5105:+schedule\n5106:POP\n5106:POP\n");
	T_FILE_EQ(t_path("c/threads.tsv"),
		  "tid\tpid\tcomm\n0-1\t0\tswapper/1\n60\t-1\tworker\n");
	T_FILE_HAS(t_path("c/info.json"), "\"calls\": 7");
}

/*
 * A trace.dat of nanograph:* (both kinds): the calls once, what was left
 * out said and kept in info.json.
 */
static void test_cmd_mixed(void)
{
	char dat[600], out[600], want[1200];
	char *argv[] = { NULL, "convert", "-o", out, dat, NULL };
	struct t_tdat *t;

	snprintf(dat, sizeof(dat), "%s", t_path("m.dat"));
	snprintf(out, sizeof(out), "%s", t_path("m"));
	t = t_tdat_open(dat, 1, kallsyms, "");
	T_ASSERT(t);
	t_tdat_clock(t, 0, 100, 1000, 5000, 1000000000);
	t_tdat_entry(t, 0, 9, 101, 1001, 0, VFS_READ);
	t_tdat_entry(t, 0, 9, 102, 1002, 1, SCHEDULE);
	t_tdat_exit(t, 0, 9, 103, 1003, 1, SCHEDULE);
	t_tdat_call(t, 0, 9, 103, 1002, 1, SCHEDULE, 1003);
	t_tdat_exit(t, 0, 9, 104, 1004, 0, VFS_READ);
	t_tdat_call(t, 0, 9, 104, 1001, 0, VFS_READ, 1004);
	T_EQ_INT(t_tdat_close(t), 0);
	snprintf(want, sizeof(want),
		 "nanograph: 1 threads, 4 events (2 calls), 0 lost, 0.0 KiB in %s/\n"
		 "nanograph: 2 events left out: the recording holds its calls both as func_entry/func_exit and as func_call/func_open; each call is converted once, from the kind that came first\n",
		 out);
	T_RUN(t_nanograph_run(argv, NULL), 0, "", want);
	T_FILE_EQ(t_path("m/9.txt"),
		  "5001:+vfs_read\n5002:+schedule\n5003:POP\n5004:POP\n");
	T_FILE_HAS(t_path("m/info.json"), "\"ignored\": 2,");
}

/* A trace.dat of @trees outermost calls of thread 42, four deep each. */
static int make_tdat(const char *path, long trees)
{
	struct t_tdat *t = t_tdat_open(path, 1, kallsyms, "42 worker\n");
	static const uint64_t ips[] = { KSYS_READ, VFS_READ, RW_VERIFY, SCHEDULE };
	uint64_t base;
	long i;
	int d;

	if (!t)
		return -1;
	t_tdat_clock(t, 0, 999, 2000, 7000, 1000000000);
	for (i = 0; i < trees; i++) {
		base = 2000 + 8 * i;
		for (d = 3; d >= 0; d--)
			t_tdat_call(t, 0, 42, base + 7 - d, base + d, d, ips[d],
				    base + 7 - d);
	}
	return t_tdat_close(t);
}

/*
 * Memory stays flat however many calls: a thread's calls are freed at
 * each outermost return. 2M calls (500,000 trees four deep) against 100.
 */
static void test_cmd_memory_flat(void)
{
	static const char first[] =
		"7000:+ksys_read\n7001:+vfs_read\n7002:+rw_verify_area\n"
		"7003:+schedule\n7004:POP\n7005:POP\n7006:POP\n7007:POP\n"
		"7008:+ksys_read\n";
	char small[600], big[600], out[600], *text;
	struct t_result r;
	long base;
	bool ok;

	t_run_watch_anon(true);
	snprintf(small, sizeof(small), "%s", t_path("small.dat"));
	snprintf(big, sizeof(big), "%s", t_path("big.dat"));
	snprintf(out, sizeof(out), "%s", t_path("out"));
	T_EQ_INT(make_tdat(small, 25), 0);
	T_EQ_INT(make_tdat(big, 500000), 0);
	r = convert_cmd(out, small);
	base = r.peak_anon_kb;
	T_RUN(r, 0, "", "");
	text = t_read_file(t_path("out/42.txt"), NULL);
	ok = text && !strncmp(text, first, strlen(first));
	free(text);
	T_ASSERT(ok);
	r = convert_cmd(out, big);
	t_diag("peak RssAnon %ld KiB for 100 calls, %ld KiB for 2M", base,
	       r.peak_anon_kb);
	T_ASSERT(base > 0 && r.peak_anon_kb - base < 16 * 1024);
	T_RUN(r, 0, "", "");
	T_FILE_HAS(t_path("out/info.json"), "\"calls\": 2000000");
}

static const struct t_case cases[] = {
	{ "same_as_entry_exit", test_same_as_pairs },
	{ "open_calls_closed_at_end", test_open_calls },
	{ "duplicate_open", test_duplicate_open },
	{ "open_then_returned", test_open_then_returned },
	{ "returned_before_its_open", test_returned_before_its_open },
	{ "idle_open_by_cpu_field", test_idle_open },
	{ "lost_parent", test_lost_parent },
	{ "mixed_kinds_converted_once", test_mixed_kinds },
	{ "sealed_opens", test_sealed_opens },
	{ "held_until_clock", test_held_until_clock },
	{ "decoder", test_decoder },
	{ "cmd_tdat_calls", test_cmd_tdat },
	{ "cmd_mixed_kinds", test_cmd_mixed },
	{ "cmd_memory_flat_calls", test_cmd_memory_flat },
};

T_SUITE(calls, cases);
