// SPDX-License-Identifier: GPL-2.0
/*
 * test_pushpop.c - the push/pop writer keeps the trace format's invariants
 * whatever its input, and only ever publishes whole files.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "nanograph.h"
#include "ktap.h"

/* Close @w and compare DIR/<tid>.txt with @want. */
#define CLOSE_AND_EXPECT(w, tid, st, want) do {				\
	T_EQ_INT(ng_pp_close(w, st), 0);				\
	T_FILE_EQ(t_path(#tid ".txt"), want);				\
} while (0)

static void test_nesting(void)
{
	struct ng_pp_writer *w;
	struct ng_pp_stats st;

	T_EQ_INT(ng_pp_open(&w, t_tmpdir(), 42), 0);
	T_EQ_INT(ng_pp_push(w, 100, "a", NULL), 0);
	T_EQ_INT(ng_pp_push(w, 150, "b", "mod"), 0);
	T_EQ_U64(ng_pp_depth(w), 2);
	T_EQ_INT(ng_pp_pop(w, 200), 0);
	T_EQ_INT(ng_pp_push(w, 210, "c", NULL), 0);
	T_EQ_INT(ng_pp_pop(w, 220), 0);
	T_EQ_INT(ng_pp_pop(w, 300), 0);
	T_EQ_U64(ng_pp_depth(w), 0);
	CLOSE_AND_EXPECT(w, 42, &st,
			 "100:+a\n150:+b [mod]\n200:POP\n210:+c\n220:POP\n300:POP\n");
	T_EQ_U64(st.pushes, 3);
	T_EQ_U64(st.pops, 3);
	T_EQ_U64(st.max_depth, 2);
	T_EQ_U64(st.clamped, 0);
	T_EQ_U64(st.closed_at_end, 0);
	T_EQ_U64(st.dropped_pops, 0);
}

static void test_open_frames_closed_at_end(void)
{
	struct ng_pp_writer *w;
	struct ng_pp_stats st;

	T_EQ_INT(ng_pp_open(&w, t_tmpdir(), 1), 0);
	T_EQ_INT(ng_pp_push(w, 10, "a", NULL), 0);
	T_EQ_INT(ng_pp_push(w, 20, "b", NULL), 0);
	T_EQ_INT(ng_pp_push(w, 30, "c", NULL), 0);
	T_EQ_INT(ng_pp_pop(w, 40), 0);
	T_EQ_U64(ng_pp_depth(w), 2);
	CLOSE_AND_EXPECT(w, 1, &st,
			 "10:+a\n20:+b\n30:+c\n40:POP\n40:POP\n40:POP\n");
	T_EQ_U64(st.pushes, 3);
	T_EQ_U64(st.pops, 3);
	T_EQ_U64(st.closed_at_end, 2);
}

/* A dropped pop writes nothing and does not move the clock either. */
static void test_pop_on_empty_stack_dropped(void)
{
	struct ng_pp_writer *w;
	struct ng_pp_stats st;

	T_EQ_INT(ng_pp_open(&w, t_tmpdir(), 2), 0);
	T_EQ_INT(ng_pp_pop(w, 5), 0);
	T_EQ_INT(ng_pp_push(w, 10, "a", NULL), 0);
	T_EQ_INT(ng_pp_pop(w, 20), 0);
	T_EQ_INT(ng_pp_pop(w, 30), 0);
	T_EQ_U64(ng_pp_depth(w), 0);
	T_EQ_INT(ng_pp_push(w, 25, "b", NULL), 0);
	T_EQ_INT(ng_pp_pop(w, 26), 0);
	CLOSE_AND_EXPECT(w, 2, &st, "10:+a\n20:POP\n25:+b\n26:POP\n");
	T_EQ_U64(st.dropped_pops, 2);
	T_EQ_U64(st.clamped, 0);
	T_EQ_U64(st.pops, 2);
}

static void test_decreasing_timestamps_clamped(void)
{
	struct ng_pp_writer *w;
	struct ng_pp_stats st;

	T_EQ_INT(ng_pp_open(&w, t_tmpdir(), 3), 0);
	T_EQ_INT(ng_pp_push(w, 100, "a", NULL), 0);
	T_EQ_INT(ng_pp_push(w, 90, "b", NULL), 0);
	T_EQ_INT(ng_pp_pop(w, 80), 0);
	T_EQ_INT(ng_pp_pop(w, 120), 0);
	T_EQ_INT(ng_pp_push(w, 120, "c", NULL), 0);
	CLOSE_AND_EXPECT(w, 3, &st,
			 "100:+a\n100:+b\n100:POP\n120:POP\n120:+c\n120:POP\n");
	T_EQ_U64(st.clamped, 2);
	T_EQ_U64(st.closed_at_end, 1);
}

/* The final name appears only at close, and the data goes to the temp name. */
static void test_temp_then_rename(void)
{
	const char *final = t_path("7.txt");
	struct ng_pp_writer *w;
	char tmp[1024];
	struct stat st;
	int i;

	T_EQ_INT(ng_pp_open(&w, t_tmpdir(), 7), 0);
	T_ASSERT(!t_exists(final));
	T_ASSERT(t_temp_of(final));
	snprintf(tmp, sizeof(tmp), "%s", t_temp_of(final) ?: "");
	for (i = 0; i < 20000; i++)
		T_EQ_INT(ng_pp_push(w, i, "some_long_function_name", "mod"), 0);
	/* well past any stdio buffer: bytes must be in the temp file by now */
	T_EQ_INT(stat(tmp, &st), 0);
	T_ASSERT(st.st_size > 0);
	T_ASSERT(!t_exists(final));
	T_EQ_INT(ng_pp_close(w, NULL), 0);
	T_ASSERT(t_exists(final));
	T_ASSERT(!t_exists(tmp));
}

/*
 * A stale file from an earlier run is replaced; a stale temporary one
 * (a crash) is left alone, the new one has a name of its own.
 */
static void test_replaces_stale_files(void)
{
	struct ng_pp_writer *w;

	T_EQ_INT(t_write_file(t_path("8.txt"), "old\n"), 0);
	T_EQ_INT(t_write_file(t_path(".8.txt.tmp"), "stale temp\n"), 0);
	T_EQ_INT(ng_pp_open(&w, t_tmpdir(), 8), 0);
	T_EQ_INT(ng_pp_push(w, 1, "f", NULL), 0);
	CLOSE_AND_EXPECT(w, 8, NULL, "1:+f\n1:POP\n");
	T_FILE_EQ(t_path(".8.txt.tmp"), "stale temp\n");
}

static void test_abort_leaves_nothing(void)
{
	struct ng_pp_writer *w;

	T_EQ_INT(ng_pp_open(&w, t_tmpdir(), 9), 0);
	T_EQ_INT(ng_pp_push(w, 1, "f", NULL), 0);
	ng_pp_abort(w);
	T_ASSERT(!t_exists(t_path("9.txt")));
	T_ASSERT(!t_temp_of(t_path("9.txt")));
}

/* Labels that would break the line grammar are refused, writing nothing. */
static void test_bad_labels_rejected(void)
{
	struct ng_pp_writer *w;
	struct ng_pp_stats st;

	T_EQ_INT(ng_pp_open(&w, t_tmpdir(), 10), 0);
	T_EQ_INT(ng_pp_push(w, 1, "", NULL), -EINVAL);
	T_EQ_INT(ng_pp_push(w, 1, NULL, NULL), -EINVAL);
	T_EQ_INT(ng_pp_push(w, 1, "a\nb", NULL), -EINVAL);
	T_EQ_INT(ng_pp_push(w, 1, "a", ""), -EINVAL);
	T_EQ_INT(ng_pp_push(w, 1, "a", "m\n"), -EINVAL);
	T_EQ_U64(ng_pp_depth(w), 0);
	/* a refused push must not move the clock */
	T_EQ_INT(ng_pp_push(w, 0, "ok", NULL), 0);
	CLOSE_AND_EXPECT(w, 10, &st, "0:+ok\n0:POP\n");
	T_EQ_U64(st.pushes, 1);
	T_EQ_U64(st.clamped, 0);
}

static void test_open_errors(void)
{
	struct ng_pp_writer *w = NULL;

	T_EQ_INT(ng_pp_open(&w, t_path("no-such-dir"), 1), -ENOENT);
	T_EQ_INT(ng_pp_open(&w, t_tmpdir(), -1), -EINVAL);
	T_ASSERT(w == NULL);
}

/* A write error (file size limit here) loses the file, never half of it. */
static void test_write_error_publishes_nothing(void)
{
	struct rlimit rl = { .rlim_cur = 4096, .rlim_max = RLIM_INFINITY };
	struct ng_pp_writer *w;
	int i, ret = 0;

	signal(SIGXFSZ, SIG_IGN);
	T_EQ_INT(setrlimit(RLIMIT_FSIZE, &rl), 0);
	T_EQ_INT(ng_pp_open(&w, t_tmpdir(), 11), 0);
	for (i = 0; i < 100000 && !ret; i++)
		ret = ng_pp_push(w, i, "function_name", NULL);
	if (!ret)
		ret = ng_pp_close(w, NULL);
	else
		T_EQ_INT(ng_pp_close(w, NULL), ret);
	T_EQ_INT(ret, -EFBIG);
	T_ASSERT(!t_exists(t_path("11.txt")));
	T_ASSERT(!t_temp_of(t_path("11.txt")));
}

/* Same when the error only shows when the last buffered bytes are flushed. */
static void test_flush_error_publishes_nothing(void)
{
	struct rlimit rl = { .rlim_cur = 100, .rlim_max = RLIM_INFINITY };
	struct ng_pp_writer *w;
	int i;

	signal(SIGXFSZ, SIG_IGN);
	T_EQ_INT(setrlimit(RLIMIT_FSIZE, &rl), 0);
	T_EQ_INT(ng_pp_open(&w, t_tmpdir(), 13), 0);
	/* about 300 bytes: more than the limit, less than a stdio buffer */
	for (i = 0; i < 20; i++) {
		T_EQ_INT(ng_pp_push(w, i, "f", NULL), 0);
		T_EQ_INT(ng_pp_pop(w, i), 0);
	}
	T_EQ_INT(ng_pp_close(w, NULL), -EFBIG);
	T_ASSERT(!t_exists(t_path("13.txt")));
	T_ASSERT(!t_temp_of(t_path("13.txt")));
}

static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* Whatever the input order, the output passes the format checker. */
static void test_random_input_gives_valid_file(void)
{
	static const char *const names[] = { "vfs_read", "x", "f g", "h(i)" };
	struct ng_pp_writer *w;
	struct ng_pp_stats st;
	struct ng_pp_check c;
	uint64_t ns = 1000;
	int i;

	T_EQ_INT(ng_pp_open(&w, t_tmpdir(), 12), 0);
	for (i = 0; i < 5000; i++) {
		uint64_t r = rnd();

		ns = (r & 7) ? ns + (r >> 40) % 50 : ns - (r >> 40) % 30;
		if ((r >> 3) % 5 < 3)
			T_EQ_INT(ng_pp_push(w, ns, names[(r >> 8) % 4],
					    (r >> 12) & 1 ? "mod" : NULL), 0);
		else
			T_EQ_INT(ng_pp_pop(w, ns), 0);
	}
	T_EQ_INT(ng_pp_close(w, &st), 0);
	T_ASSERT(st.clamped > 0);
	T_ASSERT(st.dropped_pops > 0);
	T_EQ_INT(ng_pp_check_file(t_path("12.txt"), &c), NG_PP_OK);
	T_EQ_U64(c.pushes, st.pushes);
	T_EQ_U64(c.pops, st.pops);
	T_EQ_U64(c.pushes, c.pops);
	T_EQ_U64(c.max_depth, st.max_depth);
}

/* A parked writer lets go of its descriptor and goes on where it was. */
static void test_park_and_reopen(void)
{
	struct ng_pp_writer *w;
	struct ng_pp_stats st;

	T_EQ_INT(ng_pp_open(&w, t_tmpdir(), 7), 0);
	T_EQ_INT(ng_pp_push(w, 10, "a", NULL), 0);
	T_EQ_INT(ng_pp_park(w), 0);
	T_EQ_INT(ng_pp_park(w), 0);		/* twice is fine */
	T_ASSERT(t_temp_of(t_path("7.txt")));
	T_FILE_EQ(t_temp_of(t_path("7.txt")) ?: "", "10:+a\n");
	T_EQ_INT(ng_pp_push(w, 20, "b", NULL), 0);	/* reopens */
	T_EQ_INT(ng_pp_park(w), 0);
	T_EQ_INT(ng_pp_unpark(w), 0);
	T_EQ_INT(ng_pp_unpark(w), 0);		/* open already */
	T_EQ_INT(ng_pp_pop(w, 30), 0);
	T_EQ_INT(ng_pp_park(w), 0);
	/* closing a parked writer pops the rest and publishes */
	T_EQ_INT(ng_pp_close(w, &st), 0);
	T_FILE_EQ(t_path("7.txt"), "10:+a\n20:+b\n30:POP\n30:POP\n");
	T_EQ_U64(st.closed_at_end, 1);
	T_ASSERT(!t_temp_of(t_path("7.txt")));

	/* aborting a parked writer leaves nothing */
	T_EQ_INT(ng_pp_open(&w, t_tmpdir(), 8), 0);
	T_EQ_INT(ng_pp_push(w, 10, "a", NULL), 0);
	T_EQ_INT(ng_pp_park(w), 0);
	ng_pp_abort(w);
	T_ASSERT(!t_temp_of(t_path("8.txt")));
	T_ASSERT(!t_exists(t_path("8.txt")));
}

static const struct t_case cases[] = {
	{ "park_and_reopen", test_park_and_reopen },
	{ "nesting", test_nesting },
	{ "open_frames_closed_at_end", test_open_frames_closed_at_end },
	{ "pop_on_empty_stack_dropped", test_pop_on_empty_stack_dropped },
	{ "decreasing_timestamps_clamped", test_decreasing_timestamps_clamped },
	{ "temp_then_rename", test_temp_then_rename },
	{ "replaces_stale_files", test_replaces_stale_files },
	{ "abort_leaves_nothing", test_abort_leaves_nothing },
	{ "bad_labels_rejected", test_bad_labels_rejected },
	{ "open_errors", test_open_errors },
	{ "write_error_publishes_nothing", test_write_error_publishes_nothing },
	{ "flush_error_publishes_nothing", test_flush_error_publishes_nothing },
	{ "random_input_gives_valid_file", test_random_input_gives_valid_file },
};

T_SUITE(pushpop, cases);
