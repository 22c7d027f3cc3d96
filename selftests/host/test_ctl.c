// SPDX-License-Identifier: GPL-2.0
/*
 * test_ctl.c - control directory access against a fake directory: where
 * the root comes from, whole reads, ">" and ">>" writes, and the -errno
 * each failure must come back as; and the pid filter record sets (-a:
 * every task but its own threads) and puts back.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nanograph.h"
#include "ktap.h"

/* A ctl pointing at <tmpdir>/nanograph, created with @files (name, value). */
static int fake_ctl(struct ng_ctl *ctl, const char *const *files)
{
	char path[600];
	int ret;

	if (mkdir(t_path("nanograph"), 0755))
		return -errno;
	for (; files && files[0]; files += 2) {
		snprintf(path, sizeof(path), "%s/%s", t_path("nanograph"), files[0]);
		ret = t_write_file(path, files[1]);
		if (ret)
			return ret;
	}
	return ng_ctl_init(ctl, t_path("nanograph"));
}

static void test_root_default(void)
{
	struct ng_ctl ctl;

	T_EQ_INT(unsetenv(NG_CTL_ENV), 0);
	T_EQ_INT(ng_ctl_init(&ctl, NULL), 0);
	T_EQ_STR(ng_ctl_root(&ctl), "/sys/kernel/nanograph");
	T_EQ_INT(setenv(NG_CTL_ENV, "", 1), 0);
	T_EQ_INT(ng_ctl_init(&ctl, NULL), 0);
	T_EQ_STR(ng_ctl_root(&ctl), NG_CTL_DEFAULT_ROOT);
}

static void test_root_env_and_argument(void)
{
	struct ng_ctl ctl;

	T_EQ_INT(setenv(NG_CTL_ENV, "/tmp/fake-ng", 1), 0);
	T_EQ_INT(ng_ctl_init(&ctl, NULL), 0);
	T_EQ_STR(ng_ctl_root(&ctl), "/tmp/fake-ng");
	T_EQ_INT(ng_ctl_init(&ctl, "/elsewhere"), 0);
	T_EQ_STR(ng_ctl_root(&ctl), "/elsewhere");
}

static void test_root_too_long(void)
{
	static char longroot[5000];
	struct ng_ctl ctl;

	memset(longroot, 'a', sizeof(longroot) - 1);
	longroot[0] = '/';
	T_EQ_INT(ng_ctl_init(&ctl, longroot), -ENAMETOOLONG);
	T_ASSERT(!ng_ctl_available(&ctl));
	/* a failed init must not fall back to paths under "/" */
	T_EQ_INT(ng_ctl_write(&ctl, "tracing_on", "1"), -EINVAL);
}

/* The directory's presence is what tells that the module is loaded. */
static void test_module_absent_detection(void)
{
	struct ng_ctl ctl;

	T_EQ_INT(ng_ctl_init(&ctl, t_path("nanograph")), 0);
	T_ASSERT(!ng_ctl_available(&ctl));
	T_EQ_INT(t_write_file(t_path("nanograph"), "not a dir\n"), 0);
	T_ASSERT(!ng_ctl_available(&ctl));
	T_EQ_INT(unlink(t_path("nanograph")), 0);
	T_EQ_INT(mkdir(t_path("nanograph"), 0755), 0);
	T_ASSERT(ng_ctl_available(&ctl));

	T_EQ_INT(setenv(NG_CTL_ENV, t_path("gone"), 1), 0);
	T_EQ_INT(ng_ctl_init(&ctl, NULL), 0);
	T_ASSERT(!ng_ctl_available(&ctl));
}

static void test_read(void)
{
	static const char *const files[] = { "tracing_on", "1\n", "empty", "", NULL };
	struct ng_ctl ctl;
	size_t len = 99;
	char *val;

	T_EQ_INT(fake_ctl(&ctl, files), 0);
	T_EQ_INT(ng_ctl_read(&ctl, "tracing_on", &val, &len), 0);
	T_EQ_U64(len, 2);
	T_EQ_STR(val, "1\n");
	free(val);
	T_EQ_INT(ng_ctl_read(&ctl, "empty", &val, NULL), 0);
	T_EQ_STR(val, "");
	free(val);
}

/* A listing longer than a page (or many) comes back whole. */
static void test_read_large(void)
{
	struct ng_ctl ctl;
	size_t i, len, n = 300000;
	char *big = malloc(n + 1), *val;

	T_ASSERT(big);
	for (i = 0; i < n; i++)
		big[i] = i % 61 == 60 ? '\n' : 'a' + i % 26;
	big[n] = '\0';
	T_EQ_INT(fake_ctl(&ctl, (const char *const[]){ "set_ftrace_filter", big,
						       NULL }), 0);
	T_EQ_INT(ng_ctl_read(&ctl, "set_ftrace_filter", &val, &len), 0);
	T_EQ_U64(len, n);
	T_ASSERT(!memcmp(val, big, n + 1));
	free(val);
	free(big);
}

static void test_write_replaces(void)
{
	static const char *const files[] = { "tracing_on", "12345\n", NULL };
	struct ng_ctl ctl;

	T_EQ_INT(fake_ctl(&ctl, files), 0);
	T_EQ_INT(ng_ctl_write(&ctl, "tracing_on", "0\n"), 0);
	T_FILE_EQ(t_path("nanograph/tracing_on"), "0\n");
}

static void test_append(void)
{
	static const char *const files[] = { "set_ftrace_filter", "vfs_read\n", NULL };
	struct ng_ctl ctl;

	T_EQ_INT(fake_ctl(&ctl, files), 0);
	T_EQ_INT(ng_ctl_append(&ctl, "set_ftrace_filter", "vfs_write\n"), 0);
	T_FILE_EQ(t_path("nanograph/set_ftrace_filter"), "vfs_read\nvfs_write\n");
}

/* A missing control file is -ENOENT, and writing must not create it. */
static void test_missing_file(void)
{
	struct ng_ctl ctl;
	char *val = NULL;

	T_EQ_INT(fake_ctl(&ctl, NULL), 0);
	T_EQ_INT(ng_ctl_read(&ctl, "nope", &val, NULL), -ENOENT);
	T_ASSERT(val == NULL);
	T_EQ_INT(ng_ctl_write(&ctl, "nope", "1"), -ENOENT);
	T_EQ_INT(ng_ctl_append(&ctl, "nope", "1"), -ENOENT);
	T_ASSERT(!t_exists(t_path("nanograph/nope")));

	T_EQ_INT(ng_ctl_init(&ctl, t_path("absent")), 0);
	T_EQ_INT(ng_ctl_read(&ctl, "tracing_on", &val, NULL), -ENOENT);
}

/* Other errnos pass through unchanged, and names cannot escape the root. */
static void test_errno_passthrough(void)
{
	struct ng_ctl ctl;
	char *val = NULL;

	T_EQ_INT(fake_ctl(&ctl, NULL), 0);
	T_EQ_INT(mkdir(t_path("nanograph/sub"), 0755), 0);
	T_EQ_INT(ng_ctl_read(&ctl, "sub", &val, NULL), -EISDIR);
	T_EQ_INT(ng_ctl_write(&ctl, "sub", "1"), -EISDIR);
	T_EQ_INT(ng_ctl_read(&ctl, "../x", &val, NULL), -EINVAL);
	T_EQ_INT(ng_ctl_read(&ctl, "sub/../../x", &val, NULL), -EINVAL);
	T_EQ_INT(ng_ctl_read(&ctl, "sub/./x", &val, NULL), -EINVAL);
	T_EQ_INT(ng_ctl_write(&ctl, "sub//b", "1"), -EINVAL);
	T_EQ_INT(ng_ctl_write(&ctl, "/etc/passwd", "1"), -EINVAL);
	T_EQ_INT(ng_ctl_write(&ctl, "sub/", "1"), -EINVAL);
	T_EQ_INT(ng_ctl_write(&ctl, "..", "1"), -EINVAL);
	T_EQ_INT(ng_ctl_read(&ctl, "", &val, NULL), -EINVAL);
	T_ASSERT(val == NULL);
}

/* Files in a subdirectory (options/) are read and written by their path. */
static void test_subdirectory(void)
{
	static const char *const files[] = { "tracing_on", "0\n", NULL };
	struct ng_ctl ctl;
	char *val = NULL;
	size_t len;

	T_EQ_INT(fake_ctl(&ctl, files), 0);
	T_EQ_INT(mkdir(t_path("nanograph/options"), 0755), 0);
	T_EQ_INT(t_write_file(t_path("nanograph/options/event-fork"), "0\n"), 0);
	T_EQ_INT(ng_ctl_write(&ctl, "options/event-fork", "1\n"), 0);
	T_EQ_INT(ng_ctl_read(&ctl, "options/event-fork", &val, &len), 0);
	T_EQ_STR(val, "1\n");
	free(val);
}

/*
 * A write-only file refuses reads with -EACCES. Root ignores file modes, so
 * as root this test (alone in its child process) becomes nobody first.
 */
static void test_permission_denied(void)
{
	static const char *const files[] = { "secret", "x\n", NULL };
	struct ng_ctl ctl;
	char *val = NULL;

	T_EQ_INT(fake_ctl(&ctl, files), 0);
	T_EQ_INT(chmod(t_path("nanograph/secret"), 0200), 0);
	if (geteuid() == 0) {
		T_EQ_INT(chmod(t_tmpdir(), 0755), 0);
		if (setgid(65534) || setuid(65534))
			t_skip("cannot drop root privileges to test file modes");
	}
	T_EQ_INT(ng_ctl_read(&ctl, "secret", &val, NULL), -EACCES);
	T_ASSERT(val == NULL);
	T_EQ_INT(ng_ctl_write(&ctl, "secret", "y\n"), -EACCES);
}

static void test_list(void)
{
	static const char *const files[] = {
		"tracing_on", "0\n", "clock", "tsc\n", "stats", "", ".hidden", "",
		NULL,
	};
	struct ng_ctl ctl;
	char **names;
	int n;

	T_EQ_INT(fake_ctl(&ctl, files), 0);
	/* Files one directory down (options/) are listed with their prefix. */
	T_EQ_INT(mkdir(t_path("nanograph/options"), 0755), 0);
	T_EQ_INT(t_write_file(t_path("nanograph/options/event-fork"), "0\n"), 0);
	T_EQ_INT(mkdir(t_path("nanograph/options/deeper"), 0755), 0);
	T_EQ_INT(t_write_file(t_path("nanograph/options/deeper/x"), "0\n"), 0);
	T_EQ_INT(mkdir(t_path("nanograph/empty"), 0755), 0);
	n = ng_ctl_list(&ctl, &names);
	T_EQ_INT(n, 4);
	T_EQ_STR(names[0], "clock");
	T_EQ_STR(names[1], "options/event-fork");
	T_EQ_STR(names[2], "stats");
	T_EQ_STR(names[3], "tracing_on");
	ng_ctl_list_free(names, n);

	T_EQ_INT(ng_ctl_init(&ctl, t_path("absent")), 0);
	T_EQ_INT(ng_ctl_list(&ctl, &names), -ENOENT);
}

/* The stats file's totals and live frames, and a file without totals. */
static void test_stats(void)
{
	static const char *const files[] = {
		"stats", "# cpu entries exits dropped skipped\n"
			 "cpu0 5 4 1 0\ncpu1 2 2 0 3\ntotal 7 6 1 3\n"
			 "traced_tasks 2\nlive_tasks 1\nlive_frames 1\n",
		"bad", "", NULL,
	};
	struct ng_ctl_stats st;
	struct ng_ctl ctl, bad;

	T_EQ_INT(fake_ctl(&ctl, files), 0);
	T_EQ_INT(ng_ctl_stats(&ctl, &st), 0);
	T_EQ_U64(st.entries, 7);
	T_EQ_U64(st.exits, 6);
	T_EQ_U64(st.dropped, 1);
	T_EQ_U64(st.skipped, 3);
	T_EQ_U64(st.live_frames, 1);
	T_EQ_INT(ng_ctl_init(&bad, t_path("nanograph/bad")), 0);
	T_EQ_INT(ng_ctl_stats(&bad, &st), -ENOTDIR);
	T_EQ_INT(t_write_file(t_path("nanograph/stats"), "# cpu entries\n"), 0);
	T_EQ_INT(ng_ctl_stats(&ctl, &st), -EBADMSG);
}

/* A choice file reads as its bracketed word, which writing it back takes. */
static void test_read_setting(void)
{
	static const char *const files[] = {
		"buffer_mode", "[events] raw\n", "max_graph_depth", "3\n", NULL,
	};
	struct ng_ctl ctl;
	char *val;

	T_EQ_INT(fake_ctl(&ctl, files), 0);
	T_EQ_INT(ng_ctl_read_setting(&ctl, "buffer_mode", &val), 0);
	T_EQ_STR(val, "events");
	free(val);
	T_EQ_INT(ng_ctl_read_setting(&ctl, "max_graph_depth", &val), 0);
	T_EQ_STR(val, "3\n");
	free(val);
	T_EQ_INT(ng_ctl_read_setting(&ctl, "missing", &val), -ENOENT);
}

/*
 * The files record saves, each holding a value of its own (lists with
 * entries, event-fork 1), in <tmpdir>/nanograph with options/.
 */
static int fake_record_ctl(struct ng_ctl *ctl)
{
	static const char *const files[] = {
		"set_ftrace_filter", "vfs_read\n",
		"set_graph_function", "ksys_read\n",
		"set_graph_notrace", "schedule\n",
		"max_graph_depth", "5\n",
		"set_event_pid", "7\n",
		"set_event_notrace_pid", "8\n9\n",
		"set_event_comm", "app-*\n",
		"buffer_mode", "[events] raw\n",
		"raw_buffer_size_kb", "4096\n",
		NULL,
	};
	int ret = fake_ctl(ctl, files);

	if (ret)
		return ret;
	if (mkdir(t_path("nanograph/options"), 0755))
		return -errno;
	return t_write_file(t_path("nanograph/options/event-fork"), "1\n");
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/*
 * The tids @text lists (numbers between any other characters), or with
 * @text NULL those of /proc/PID/task, sorted and joined by spaces into
 * @buf.
 */
static const char *tid_set(char *buf, size_t size, const char *text, int pid)
{
	int tids[64], n = 0, i;
	size_t len = 0;

	buf[0] = '\0';
	if (text) {
		const char *p = text;

		while (*p && n < 64) {
			char *end;
			long v = strtol(p, &end, 10);

			if (end == p) {
				p++;
				continue;
			}
			tids[n++] = v;
			p = end;
		}
	} else {
		char path[64];
		struct dirent *de;
		DIR *d;

		snprintf(path, sizeof(path), "/proc/%d/task", pid);
		d = opendir(path);
		if (!d)
			return buf;
		while ((de = readdir(d)) && n < 64)
			if (de->d_name[0] != '.')
				tids[n++] = atoi(de->d_name);
		closedir(d);
	}
	qsort(tids, n, sizeof(int), cmp_int);
	for (i = 0; i < n && len < size; i++)
		len += snprintf(buf + len, size - len, "%s%d", i ? " " : "",
				tids[i]);
	return buf;
}

static void *wait_on_pipe(void *arg)
{
	char c;

	return (void *)(long)read(*(int *)arg, &c, 1);
}

/*
 * record -a: set_event_pid empty (every task), set_event_notrace_pid
 * every thread of the collector (this process, with a second thread),
 * event-fork off; through a recording session, whose undo puts both
 * lists and event-fork back as they were, and leaves the others alone.
 */
static void test_select_tasks_system(void)
{
	char got[512], want[512];
	struct ng_session *s;
	const char *file = "x";
	struct ng_ctl ctl;
	pthread_t thread;
	int fds[2], ret;
	char *text;

	T_EQ_INT(fake_record_ctl(&ctl), 0);
	T_EQ_INT(pipe(fds), 0);
	T_EQ_INT(pthread_create(&thread, NULL, wait_on_pipe, &fds[0]), 0);
	T_EQ_INT(ng_session_new(&s, &ctl), 0);
	ret = ng_session_select_tasks(s, 0, &file);
	tid_set(want, sizeof(want), NULL, getpid());
	T_EQ_INT(write(fds[1], "x", 1), 1);
	T_EQ_INT(pthread_join(thread, NULL), 0);
	T_EQ_INT(ret, 0);
	/* two threads: this one and the one waiting on the pipe */
	T_ASSERT(strchr(want, ' '));
	T_FILE_EQ(t_path("nanograph/set_event_pid"), "\n");
	T_FILE_EQ(t_path("nanograph/options/event-fork"), "0");
	text = t_read_file(t_path("nanograph/set_event_notrace_pid"), NULL);
	T_ASSERT(text);
	/* cleared ("\n"), then one "TID\n" a write */
	T_ASSERT(text[0] == '\n' && text[strlen(text) - 1] == '\n');
	tid_set(got, sizeof(got), text, 0);
	free(text);
	T_EQ_STR(got, want);

	T_EQ_INT(ng_session_undo(s), 0);
	ng_session_free(s);
	T_FILE_EQ(t_path("nanograph/set_event_pid"), "7\n");
	T_FILE_EQ(t_path("nanograph/set_event_notrace_pid"), "8\n9\n");
	T_FILE_EQ(t_path("nanograph/options/event-fork"), "1\n");
	T_FILE_EQ(t_path("nanograph/set_graph_function"), "ksys_read\n");
	T_FILE_EQ(t_path("nanograph/buffer_mode"), "[events] raw\n");
}

/*
 * A process (-p, or the started command): its threads in set_event_pid,
 * event-fork on, set_event_notrace_pid emptied; a process that is not
 * there is -ENOENT with no file named; a control file that is missing
 * is named.
 */
static void test_select_tasks_process(void)
{
	char got[512], want[512], pidline[32];
	const char *file = "x";
	struct ng_ctl ctl;
	int fds[2], ret;
	pid_t child;
	char *text;

	T_EQ_INT(fake_record_ctl(&ctl), 0);
	T_EQ_INT(pipe(fds), 0);
	child = fork();
	T_ASSERT(child >= 0);
	if (!child) {
		char c;

		close(fds[1]);
		_exit(read(fds[0], &c, 1) < 0);
	}
	close(fds[0]);
	ret = ng_ctl_select_tasks(&ctl, child, &file);
	close(fds[1]);
	waitpid(child, NULL, 0);
	T_EQ_INT(ret, 0);
	T_FILE_EQ(t_path("nanograph/set_event_notrace_pid"), "\n");
	T_FILE_EQ(t_path("nanograph/options/event-fork"), "1");
	snprintf(pidline, sizeof(pidline), "\n%d\n", (int)child);
	T_FILE_EQ(t_path("nanograph/set_event_pid"), pidline);
	/* every thread of a process with several: this one */
	T_EQ_INT(ng_ctl_select_tasks(&ctl, getpid(), &file), 0);
	text = t_read_file(t_path("nanograph/set_event_pid"), NULL);
	T_ASSERT(text);
	tid_set(got, sizeof(got), text, 0);
	free(text);
	T_EQ_STR(got, tid_set(want, sizeof(want), NULL, getpid()));

	/* PID_MAX_LIMIT: no process ever has this pid */
	file = "x";
	T_EQ_INT(ng_ctl_select_tasks(&ctl, 4194304, &file), -ENOENT);
	T_ASSERT(file == NULL);
	T_EQ_INT(unlink(t_path("nanograph/set_event_notrace_pid")), 0);
	T_EQ_INT(ng_ctl_select_tasks(&ctl, 0, &file), -ENOENT);
	T_EQ_STR(file, "set_event_notrace_pid");
	T_EQ_INT(ng_ctl_select_tasks(&ctl, getpid(), &file), -ENOENT);
	T_EQ_STR(file, "set_event_notrace_pid");
}

/* The module's interface number against NG_ABI, and what each failure returns. */
static void test_check_abi(void)
{
	char same[16], other[16], path[600];
	const char *files[] = { "abi", same, NULL };
	unsigned int abi = 0;
	struct ng_ctl ctl;

	snprintf(same, sizeof(same), "%d\n", NG_ABI);
	snprintf(other, sizeof(other), "%d\n", NG_ABI + 1);
	T_EQ_INT(fake_ctl(&ctl, files), 0);
	T_EQ_INT(ng_ctl_check_abi(&ctl, &abi), 0);
	T_EQ_INT(abi, NG_ABI);
	snprintf(path, sizeof(path), "%s/abi", t_path("nanograph"));
	T_EQ_INT(t_write_file(path, other), 0);
	T_EQ_INT(ng_ctl_check_abi(&ctl, &abi), -EPROTO);
	T_EQ_INT(abi, NG_ABI + 1);
	T_EQ_INT(t_write_file(path, "one\n"), 0);
	T_EQ_INT(ng_ctl_check_abi(&ctl, &abi), -EBADMSG);
	T_EQ_INT(unlink(path), 0);
	T_EQ_INT(ng_ctl_check_abi(&ctl, &abi), -ENOENT);
}

static const struct t_case cases[] = {
	{ "check_abi", test_check_abi },
	{ "root_default", test_root_default },
	{ "root_env_and_argument", test_root_env_and_argument },
	{ "root_too_long", test_root_too_long },
	{ "module_absent_detection", test_module_absent_detection },
	{ "read", test_read },
	{ "read_large", test_read_large },
	{ "write_replaces", test_write_replaces },
	{ "append", test_append },
	{ "missing_file", test_missing_file },
	{ "errno_passthrough", test_errno_passthrough },
	{ "permission_denied", test_permission_denied },
	{ "list", test_list },
	{ "subdirectory", test_subdirectory },
	{ "stats", test_stats },
	{ "read_setting", test_read_setting },
	{ "select_tasks_system", test_select_tasks_system },
	{ "select_tasks_process", test_select_tasks_process },
};

T_SUITE(ctl, cases);
