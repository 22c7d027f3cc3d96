// SPDX-License-Identifier: GPL-2.0
/*
 * test_threads.c - threads.tsv has its header, one three-field row per
 * thread whatever the comm holds, and appears only when complete.
 */
#include <errno.h>

#include "nanograph.h"
#include "ktap.h"

static void test_rows(void)
{
	struct ng_threads_writer *w;

	T_EQ_INT(ng_threads_open(&w, t_tmpdir()), 0);
	T_EQ_INT(ng_threads_add(w, 100, 99, "bash"), 0);
	T_EQ_INT(ng_threads_add(w, 101, 99, "worker 1"), 0);
	T_EQ_INT(ng_threads_close(w), 0);
	T_FILE_EQ(t_path("threads.tsv"),
		  "tid\tpid\tcomm\n100\t99\tbash\n101\t99\tworker 1\n");
}

static void test_header_only(void)
{
	struct ng_threads_writer *w;

	T_EQ_INT(ng_threads_open(&w, t_tmpdir()), 0);
	T_EQ_INT(ng_threads_close(w), 0);
	T_FILE_EQ(t_path("threads.tsv"), "tid\tpid\tcomm\n");
}

/* A comm with tabs or newlines must not add fields or rows. */
static void test_comm_sanitized(void)
{
	struct ng_threads_writer *w;

	T_EQ_INT(ng_threads_open(&w, t_tmpdir()), 0);
	T_EQ_INT(ng_threads_add(w, 5, 5, "a\tb\nc\x7f\x01"), 0);
	T_EQ_INT(ng_threads_add(w, 6, 5, NULL), 0);
	T_EQ_INT(ng_threads_add(w, 7, 5, "h\xc3\xa9llo"), 0);
	T_EQ_INT(ng_threads_close(w), 0);
	T_FILE_EQ(t_path("threads.tsv"),
		  "tid\tpid\tcomm\n5\t5\ta?b?c??\n6\t5\t\n7\t5\th\xc3\xa9llo\n");
}

static void test_temp_then_rename(void)
{
	struct ng_threads_writer *w;

	T_EQ_INT(ng_threads_open(&w, t_tmpdir()), 0);
	T_EQ_INT(ng_threads_add(w, 1, 1, "init"), 0);
	T_ASSERT(!t_exists(t_path("threads.tsv")));
	T_ASSERT(t_temp_of(t_path("threads.tsv")));
	T_EQ_INT(ng_threads_close(w), 0);
	T_ASSERT(t_exists(t_path("threads.tsv")));
	T_ASSERT(!t_temp_of(t_path("threads.tsv")));
}

static void test_abort_and_errors(void)
{
	struct ng_threads_writer *w;

	T_EQ_INT(ng_threads_open(&w, t_tmpdir()), 0);
	T_EQ_INT(ng_threads_add(w, 1, 1, "init"), 0);
	ng_threads_abort(w);
	T_ASSERT(!t_exists(t_path("threads.tsv")));
	T_ASSERT(!t_temp_of(t_path("threads.tsv")));
	T_EQ_INT(ng_threads_open(&w, t_path("no-such-dir")), -ENOENT);
}

static const struct t_case cases[] = {
	{ "rows", test_rows },
	{ "header_only", test_header_only },
	{ "comm_sanitized", test_comm_sanitized },
	{ "temp_then_rename", test_temp_then_rename },
	{ "abort_and_errors", test_abort_and_errors },
};

T_SUITE(threads, cases);
