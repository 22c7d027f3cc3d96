// SPDX-License-Identifier: GPL-2.0
/*
 * test_session.c - the recording session (lib/session.c) against a fake
 * control directory: every change undone, the last first, with the
 * value read before the first change (a choice file as its word, the
 * state files at rest); a failure half-way undoes what was done; an
 * undo is done once, and by ng_session_free() if not before.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nanograph.h"
#include "ktap.h"
#include "t_util.h"

/* <tmpdir>/nanograph as record finds a module's, and a session on it. */
static int fake_session(struct ng_ctl *ctl, struct ng_session **sp)
{
	int ret = t_make_rec(NULL, 0, "nanograph",
			     "set_ftrace_filter", "vfs_*\n",
			     "set_graph_function", "",
			     "max_graph_depth", "3\n",
			     "buffer_mode", "[events] raw\n",
			     "raw_buffer_size_kb", "4096\n",
			     "trigger", "vfs_read>1000\n",
			     "flight", "off\nlast vfs_read 1500 cpu 0 tid 7\n",
			     "tracing_on", "0\n", NULL);

	if (!ret)
		ret = ng_ctl_init(ctl, t_path("nanograph"));
	return ret ? ret : ng_session_new(sp, ctl);
}

static const char *cf(const char *name)
{
	static char path[4][600];
	static int i;

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/%s", t_path("nanograph"), name);
	return path[i];
}

/*
 * The changes of a --flight recording, in record's order: the hooks,
 * the buffers, the triggers, the arm, tracing_on.
 */
static int record_like(struct ng_session *s)
{
	int ret = ng_session_set(s, "set_ftrace_filter", "vfs_read");

	if (!ret)
		ret = ng_session_set(s, "raw_buffer_size_kb", "8192");
	if (!ret)
		ret = ng_session_set(s, "buffer_mode", "raw");
	if (!ret)
		ret = ng_session_set(s, "trigger", "vfs_write>5000\n");
	if (!ret)
		ret = ng_session_set(s, "flight", "arm");
	return ret ? ret : ng_session_set(s, "tracing_on", "1");
}

/* What record does, then its undo: each file as it was found. */
static void test_undo_restores(void)
{
	struct ng_session *s;
	struct ng_ctl ctl;

	T_EQ_INT(fake_session(&ctl, &s), 0);
	T_EQ_INT(record_like(s), 0);
	T_EQ_INT(ng_session_append(s, "set_ftrace_filter", "vfs_write"), 0);
	T_EQ_INT(ng_session_set(s, "set_graph_function", "ksys_read"), 0);
	T_EQ_INT(ng_session_set(s, "max_graph_depth", "9"), 0);
	T_EQ_INT(ng_session_set(s, "max_graph_depth", "7"), 0);
	T_FILE_EQ(cf("set_ftrace_filter"), "vfs_readvfs_write");
	T_FILE_EQ(cf("max_graph_depth"), "7");

	T_EQ_INT(ng_session_undo(s), 0);
	T_FILE_EQ(cf("set_ftrace_filter"), "vfs_*\n");
	/* an empty list is written as a newline: it clears the list */
	T_FILE_EQ(cf("set_graph_function"), "\n");
	/* the value before the first change, not the one before the last */
	T_FILE_EQ(cf("max_graph_depth"), "3\n");
	T_FILE_EQ(cf("raw_buffer_size_kb"), "4096\n");
	/* a choice as its bracketed word */
	T_FILE_EQ(cf("buffer_mode"), "events");
	T_FILE_EQ(cf("trigger"), "vfs_read>1000\n");
	/* the state files at rest, not as they read */
	T_FILE_EQ(cf("flight"), "off");
	T_FILE_EQ(cf("tracing_on"), "0");

	/* once: a change after the undo stays */
	T_EQ_INT(ng_ctl_write(&ctl, "max_graph_depth", "5"), 0);
	T_EQ_INT(ng_session_undo(s), 0);
	T_FILE_EQ(cf("max_graph_depth"), "5");
	ng_session_free(s);
	T_FILE_EQ(cf("max_graph_depth"), "5");
}

/*
 * The last change is undone first: "first" and "second" are one file
 * (symbolic links), so the file ends as the earlier change found it
 * only if the later one is undone before it.
 */
static void test_undo_order(void)
{
	struct ng_session *s;
	struct ng_ctl ctl;

	T_EQ_INT(fake_session(&ctl, &s), 0);
	T_EQ_INT(t_write_file(cf("shared"), "0\n"), 0);
	T_EQ_INT(symlink("shared", cf("first")), 0);
	T_EQ_INT(symlink("shared", cf("second")), 0);
	T_EQ_INT(ng_session_set(s, "first", "1"), 0);
	T_EQ_INT(ng_session_set(s, "second", "2"), 0);
	T_EQ_INT(ng_session_undo(s), 0);
	T_FILE_EQ(cf("shared"), "0\n");
	ng_session_free(s);
}

/*
 * A change that fails half-way (its file missing) leaves no step; the
 * changes before it are undone, by ng_session_free() as well.  A file
 * that went away is the undo's error, after the others are put back.
 */
static void test_undo_after_failure(void)
{
	struct ng_session *s;
	struct ng_ctl ctl;

	T_EQ_INT(fake_session(&ctl, &s), 0);
	T_EQ_INT(ng_session_set(s, "max_graph_depth", "9"), 0);
	T_EQ_INT(ng_session_set(s, "buffer_mode", "raw"), 0);
	T_EQ_INT(ng_session_set(s, "options/sched", "1"), -ENOENT);
	T_ASSERT(access(cf("options/sched"), F_OK) != 0);
	ng_session_free(s);
	T_FILE_EQ(cf("max_graph_depth"), "3\n");
	T_FILE_EQ(cf("buffer_mode"), "events");

	T_EQ_INT(fake_session(&ctl, &s), 0);
	T_EQ_INT(ng_session_set(s, "max_graph_depth", "9"), 0);
	T_EQ_INT(ng_session_set(s, "trigger", "kmalloc=-12\n"), 0);
	T_EQ_INT(ng_session_set(s, "tracing_on", "1"), 0);
	T_EQ_INT(unlink(cf("trigger")), 0);
	T_EQ_INT(ng_session_undo(s), -ENOENT);
	T_FILE_EQ(cf("tracing_on"), "0");
	T_FILE_EQ(cf("max_graph_depth"), "3\n");
	T_ASSERT(access(cf("trigger"), F_OK) != 0);
	ng_session_free(s);
}

/*
 * ng_session_keep(): a file changed by someone else (the module, a
 * library function writing the control directory itself) is put back
 * too; a keep after a change keeps the first value.
 */
static void test_keep(void)
{
	struct ng_session *s;
	struct ng_ctl ctl;

	T_EQ_INT(fake_session(&ctl, &s), 0);
	T_EQ_INT(ng_session_keep(s, "set_ftrace_filter"), 0);
	T_EQ_INT(ng_ctl_write(&ctl, "set_ftrace_filter", "ng_calib_target"), 0);
	T_EQ_INT(ng_session_set(s, "max_graph_depth", "9"), 0);
	T_EQ_INT(ng_session_keep(s, "max_graph_depth"), 0);
	T_EQ_INT(ng_session_keep(s, "missing"), -ENOENT);
	ng_session_free(s);
	T_FILE_EQ(cf("set_ftrace_filter"), "vfs_*\n");
	T_FILE_EQ(cf("max_graph_depth"), "3\n");
}

/* Files kept since a mark and forgotten are not written back. */
static void test_forget_to(void)
{
	struct ng_session *s;
	struct ng_ctl ctl;
	const void *mark;

	T_EQ_INT(fake_session(&ctl, &s), 0);
	T_EQ_INT(ng_session_set(s, "max_graph_depth", "9"), 0);
	mark = ng_session_mark(s);
	T_EQ_INT(ng_session_keep(s, "set_ftrace_filter"), 0);
	T_EQ_INT(ng_session_keep(s, "missing"), -ENOENT);
	ng_session_forget_to(s, mark);
	/* changed by someone else meanwhile: not ours to put back */
	T_EQ_INT(t_write_file(cf("set_ftrace_filter"), "ksys_read\n"), 0);
	T_EQ_INT(ng_session_undo(s), 0);
	ng_session_free(s);
	T_FILE_EQ(cf("set_ftrace_filter"), "ksys_read\n");
	T_FILE_EQ(cf("max_graph_depth"), "3\n");
}

/* A glob with brackets is a glob: put back whole, not as a choice's word. */
static void test_bracket_glob(void)
{
	struct ng_session *s;
	struct ng_ctl ctl;

	T_EQ_INT(fake_session(&ctl, &s), 0);
	T_EQ_INT(t_write_file(cf("set_event_comm"), "kworker[0-9]*\n"), 0);
	T_EQ_INT(ng_session_set(s, "set_event_comm", "bash"), 0);
	T_EQ_INT(ng_session_set(s, "buffer_mode", "raw"), 0);
	T_EQ_INT(ng_session_undo(s), 0);
	ng_session_free(s);
	T_FILE_EQ(cf("set_event_comm"), "kworker[0-9]*\n");
	T_FILE_EQ(cf("buffer_mode"), "events");
}

/* ng_session_admit_process(): set_event_pid kept, then the threads added. */
static void test_admit_process(void)
{
	struct ng_session *s;
	const char *file = NULL;
	struct ng_ctl ctl;
	char want[32];

	T_EQ_INT(fake_session(&ctl, &s), 0);
	T_EQ_INT(t_write_file(cf("set_event_pid"), "7\n"), 0);
	T_EQ_INT(ng_session_admit_process(s, getpid(), &file), 0);
	snprintf(want, sizeof(want), "7\n%d\n", (int)getpid());
	T_FILE_EQ(cf("set_event_pid"), want);
	ng_session_free(s);
	T_FILE_EQ(cf("set_event_pid"), "7\n");
	/* PID_MAX_LIMIT: no process ever has this pid */
	T_EQ_INT(ng_session_new(&s, &ctl), 0);
	T_EQ_INT(ng_session_admit_process(s, 4194304, &file), -ENOENT);
	T_ASSERT(file == NULL);
	ng_session_free(s);
	T_EQ_INT(unlink(cf("set_event_pid")), 0);
	T_EQ_INT(ng_session_new(&s, &ctl), 0);
	T_EQ_INT(ng_session_admit_process(s, getpid(), &file), -ENOENT);
	T_EQ_STR(file, "set_event_pid");
	ng_session_free(s);
}

static const struct t_case cases[] = {
	{ "undo_restores", test_undo_restores },
	{ "undo_order", test_undo_order },
	{ "undo_after_failure", test_undo_after_failure },
	{ "keep", test_keep },
	{ "bracket_glob", test_bracket_glob },
	{ "forget_to", test_forget_to },
	{ "admit_process", test_admit_process },
};

T_SUITE(session, cases);
