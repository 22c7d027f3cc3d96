// SPDX-License-Identifier: GPL-2.0
/*
 * test_cli.c - the nanograph command: exit codes (0 ok, 1 failure, 2
 * usage), one-line errors, the check summaries and the status blocks.
 * Runs the binary given to the runner with --nanograph.
 */
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nanograph.h"
#include "ktap.h"
#include "t_util.h"

/* Run nanograph with up to 4 arguments and an optional environment entry. */
static struct t_result ng(char *env, const char *a1, const char *a2,
			  const char *a3, const char *a4)
{
	char *argv[] = { NULL, (char *)a1, (char *)a2, (char *)a3, (char *)a4,
			 NULL };
	char *envv[] = { env, NULL };

	return t_nanograph_run(argv, envv);
}

static void test_usage_errors(void)
{
	T_RUN(ng(NULL, "frobnicate", NULL, NULL, NULL), 2, "",
	      "nanograph: unknown command 'frobnicate'\nTry 'nanograph help'.\n");
	T_RUN(ng(NULL, "-x", NULL, NULL, NULL), 2, "",
	      "nanograph: unknown option '-x'\nTry 'nanograph help'.\n");
	T_RUN(ng(NULL, "check", "--bogus", "f", NULL), 2, "",
	      "nanograph check: unknown option '--bogus'\nTry 'nanograph help check'.\n");
	T_RUN(ng(NULL, "check", NULL, NULL, NULL), 2, "",
	      "nanograph check: no FILE given\nTry 'nanograph help check'.\n");
	T_RUN(ng(NULL, "status", "extra", NULL, NULL), 2, "", NULL);
	T_RUN(ng(NULL, "version", "extra", NULL, NULL), 2, "", NULL);
	T_RUN(ng(NULL, "help", "nope", NULL, NULL), 2, "", NULL);
	/* no command at all: usage on stderr */
	T_RUN(ng(NULL, NULL, NULL, NULL, NULL), 2, "", NULL);
}

/* The collector's commands are listed, have help, and refuse bad usage. */
static void test_collector_commands(void)
{
	static const char *const cmds[] = { "record", "convert", "report", "export", "info" };
	struct t_result r;
	size_t i;

	r = ng(NULL, "help", NULL, NULL, NULL);
	T_EQ_INT(r.status, 0);
	for (i = 0; i < 5 && r.out; i++)
		if (!strstr(r.out, cmds[i]))
			break;
	t_result_free(&r);
	T_EQ_INT(i, 5);
	r = ng(NULL, "help", "record", NULL, NULL);
	T_EQ_INT(r.status, 0);
	T_ASSERT(r.out && strstr(r.out, "set_graph_function") &&
		 strstr(r.out, "--buffer-kb"));
	t_result_free(&r);
	T_RUN(ng(NULL, "record", "-D", "x", NULL), 2, "", NULL);
	T_RUN(ng(NULL, "record", "-D", "256", NULL), 2, "", NULL);
	T_RUN(ng(NULL, "record", "--duration", "-1", NULL), 2, "", NULL);
	T_RUN(ng(NULL, "record", "--buffer-kb", "1", NULL), 2, "", NULL);
	T_RUN(ng(NULL, "record", "-p", "1", "true"), 2, "",
	      "nanograph record: give either -p PID or a command, not both\n"
	      "Try 'nanograph help record'.\n");
	T_RUN(ng(NULL, "record", "--bogus", NULL, NULL), 2, "", NULL);
	T_RUN(ng(NULL, "record", "-o", "x", NULL), 2, "",
	      "nanograph record: what to record? give -a, -p PID or a command\n"
	      "Try 'nanograph help record'.\n");
	T_RUN(ng(NULL, "convert", NULL, NULL, NULL), 2, "", NULL);
	T_RUN(ng(NULL, "convert", "a.dat", "b.dat", NULL), 2, "", NULL);
	T_RUN(ng(NULL, "convert", "/no/such.dat", NULL, NULL), 1, "",
	      "nanograph convert: /no/such.dat: No such file or directory\n");
}

/*
 * Every option of every command, used wrongly: the exit status is 2 and
 * stderr is exactly the one line that names the option and the mistake,
 * then the hint. Before: "--hook" alone printed a NUL byte as the
 * option's name, "--duration" alone said "unknown option", and "-p
 * 4294967297" recorded pid 1.
 */
static void test_option_errors(void)
{
	static const struct {
		const char *args[5];
		const char *msg;
	} cases[] = {
		{ { "record", "--hook" }, "option '--hook' needs a value" },
		{ { "record", "--hook", "" }, "option '--hook' needs a value" },
		{ { "record", "--duration" }, "option '--duration' needs a value" },
		{ { "record", "--buffer-kb" }, "option '--buffer-kb' needs a value" },
		{ { "record", "-F" }, "option '-F' needs a value" },
		{ { "record", "-F", "" }, "option '-F' needs a value" },
		{ { "record", "-N" }, "option '-N' needs a value" },
		{ { "record", "-N", "" }, "option '-N' needs a value" },
		{ { "record", "-D" }, "option '-D' needs a value" },
		{ { "record", "-p" }, "option '-p' needs a value" },
		{ { "record", "-o" }, "option '-o' needs a value" },
		{ { "record", "-o", "" }, "option '-o' needs a value" },
		{ { "record", "-qD" }, "option '-D' needs a value" },
		{ { "record", "-D", "x" }, "-D wants a depth (0: no limit) from 0 to 255, not 'x'" },
		{ { "record", "-D", "256" }, "-D wants a depth (0: no limit) from 0 to 255, not '256'" },
		{ { "record", "-D", "-1" }, "-D wants a depth (0: no limit) from 0 to 255, not '-1'" },
		{ { "record", "-p", "4294967297" }, "-p wants a process id from 1 to 4194304, not '4294967297'" },
		{ { "record", "-p", "0" }, "-p wants a process id from 1 to 4194304, not '0'" },
		{ { "record", "-p", " 12" }, "-p wants a process id from 1 to 4194304, not ' 12'" },
		{ { "record", "--duration", "0" }, "--duration wants seconds from 0.001 to 31536000, not '0'" },
		{ { "record", "--duration", "-1" }, "--duration wants seconds from 0.001 to 31536000, not '-1'" },
		{ { "record", "--duration", "inf" }, "--duration wants seconds from 0.001 to 31536000, not 'inf'" },
		{ { "record", "--duration", "0.0005" }, "--duration wants seconds from 0.001 to 31536000, not '0.0005'" },
		{ { "record", "--duration", "31536000.001" }, "--duration wants seconds from 0.001 to 31536000, not '31536000.001'" },
		{ { "record", "--buffer-kb", "3" }, "--buffer-kb wants KiB per CPU from 4 to 4194304, not '3'" },
		{ { "record", "--buffer-kb", "4194305" }, "--buffer-kb wants KiB per CPU from 4 to 4194304, not '4194305'" },
		{ { "record", "--buffer-kb", "1k" }, "--buffer-kb wants KiB per CPU from 4 to 4194304, not '1k'" },
		{ { "record", "--raw=1" }, "option '--raw' takes no value" },
		{ { "record", "--quiet=yes" }, "option '--quiet' takes no value" },
		{ { "record", "--help=1" }, "option '--help' takes no value" },
		{ { "record", "-qx" }, "unknown option '-x'" },
		{ { "record", "--clock", "f" }, "unknown option '--clock'" },
		{ { "record", "--bogus=1" }, "unknown option '--bogus'" },
		{ { "record", "-a", "-p", "1" }, "give either -a or -p PID, not both" },
		{ { "record", "-p", "1", "-a" }, "give either -a or -p PID, not both" },
		{ { "record", "-ap", "1" }, "give either -a or -p PID, not both" },
		{ { "record", "-a", "-p", "1", "true" }, "give either -a or -p PID, not both" },
		{ { "record", "-a", "true" }, "give either -a or a command, not both (-a --duration S records every task for S seconds)" },
		{ { "record", "-a", "--", "sleep", "1" }, "give either -a or a command, not both (-a --duration S records every task for S seconds)" },
		{ { "record", "-a", "--duration", "5", "true" }, "give either -a or a command, not both (-a --duration S records every task for S seconds)" },
		{ { "record", "-p", "1", "--", "true" }, "give either -p PID or a command, not both" },
		{ { "record", "-q" }, "what to record? give -a, -p PID or a command" },
		{ { "record", "--duration", "1" }, "what to record? give -a, -p PID or a command" },
		{ { "record", "-a", "--duration" }, "option '--duration' needs a value" },
		{ { "record", "-a", "--duration", "0" }, "--duration wants seconds from 0.001 to 31536000, not '0'" },
		{ { "record", "-a", "--duration", "2x" }, "--duration wants seconds from 0.001 to 31536000, not '2x'" },
		{ { "record", "-a", "--duration", "" }, "--duration wants seconds from 0.001 to 31536000, not ''" },
		{ { "record", "-a", "-p", "0" }, "-p wants a process id from 1 to 4194304, not '0'" },
		{ { "record", "-ax" }, "unknown option '-x'" },
		{ { "record", "--when-comm" }, "option '--when-comm' needs a value" },
		{ { "record", "--when-comm", "" }, "option '--when-comm' needs a value" },
		{ { "record", "--when-comm", "app*", "-a" }, "--when-comm and --trace-self choose the threads themselves: not with -a or -p" },
		{ { "record", "--trace-self", "-p", "1" }, "--when-comm and --trace-self choose the threads themselves: not with -a or -p" },
		{ { "record", "--trace-self" }, "--when-comm and --trace-self record until a command ends or --duration S" },
		{ { "record", "--trace-self=1" }, "option '--trace-self' takes no value" },
		{ { "record", "-a", "--all" }, "unknown option '--all'" },
		{ { "convert", "-o" }, "option '-o' needs a value" },
		{ { "convert", "-o", "" }, "option '-o' needs a value" },
		{ { "convert", "--clock" }, "option '--clock' needs a value" },
		{ { "convert", "--clock", "" }, "option '--clock' needs a value" },
		{ { "convert", "--kallsyms" }, "option '--kallsyms' needs a value" },
		{ { "convert", "--kallsyms", "" }, "option '--kallsyms' needs a value" },
		{ { "convert", "--quiet=1" }, "option '--quiet' takes no value" },
		{ { "convert", "-x" }, "unknown option '-x'" },
		{ { "report", "-s" }, "option '-s' needs a value" },
		{ { "report", "--sort" }, "option '--sort' needs a value" },
		{ { "report", "--sort", "speed" }, "--sort wants total, self, calls, avg, max, oncpu, offcpu or name, not 'speed'" },
		{ { "report", "-n" }, "option '-n' needs a value" },
		{ { "report", "-n", "-1" }, "-n wants a number of rows from 0 to 2147483647, not '-1'" },
		{ { "report", "-n", "2147483648" }, "-n wants a number of rows from 0 to 2147483647, not '2147483648'" },
		{ { "report", "-n", "10x" }, "-n wants a number of rows from 0 to 2147483647, not '10x'" },
		{ { "report", "--threads=1" }, "option '--threads' takes no value" },
		{ { "report", "--ns=1" }, "option '--ns' takes no value" },
		{ { "report", "-o" }, "option '-o' needs a value" },
		{ { "report", "-o", "" }, "option '-o' needs a value" },
		{ { "report", "--output" }, "option '--output' needs a value" },
		{ { "report", "--diff=1" }, "option '--diff' takes no value" },
		{ { "report", "--diff", "a" }, "--diff compares two recordings: give OLD and NEW" },
		{ { "report", "--diff", "a", "b", "c" }, "--diff compares two recordings: give OLD and NEW" },
		{ { "report", "--diff", "-t", "a" }, "--diff compares whole recordings: not with --threads" },
		{ { "report", "--diff", "-s", "max" }, "--diff has no max column: sort by total, self, calls, avg, oncpu, offcpu or name" },
		{ { "report", "--diff", "-s", "speed" }, "--sort wants total, self, calls, avg, max, oncpu, offcpu or name, not 'speed'" },
		{ { "report", "--diff", "--tid", "5" }, "--diff compares two runs, whose thread ids differ: not with --tid (--comm chooses threads by name)" },
		{ { "report", "--diff", "--time-range", "1~2" }, "--diff compares two runs, whose timestamps differ: not with --time-range" },
		{ { "info", "--json=1" }, "option '--json' takes no value" },
		{ { "info", "--json", "--json=" }, "option '--json' takes no value" },
		{ { "info", "-x" }, "unknown option '-x'" },
		{ { "info", "--jsn" }, "unknown option '--jsn'" },
		{ { "info" }, "no recording directory given" },
		{ { "info", "--json" }, "no recording directory given" },
		{ { "info", "a", "b" }, "give one recording directory" },
		{ { "info", "--help=1" }, "option '--help' takes no value" },
		{ { "export", "--chrome=1" }, "option '--chrome' takes no value" },
		{ { "export", "--folded=1" }, "option '--folded' takes no value" },
		{ { "export", "--chrome", "--folded" }, "give only one of --chrome, --perfetto and --folded" },
		{ { "export", "--perfetto", "-o", "-" }, "--perfetto writes a file, not standard output: give -o FILE" },
		{ { "export", "-o" }, "option '-o' needs a value" },
		{ { "export", "-o", "" }, "option '-o' needs a value" },
		{ { "export", "--output" }, "option '--output' needs a value" },
		{ { "convert", "--help=1" }, "option '--help' takes no value" },
		{ { "report", "--help=1" }, "option '--help' takes no value" },
		{ { "export", "--help=1" }, "option '--help' takes no value" },
		{ { "status", "--help=1" }, "option '--help' takes no value" },
		{ { "version", "--help=1" }, "option '--help' takes no value" },
		{ { "help", "--help=1" }, "option '--help' takes no value" },
		{ { "check", "--help=1" }, "option '--help' takes no value" },
		{ { "check", "-x" }, "unknown option '-x'" },
		{ { "status", "--bogus" }, "unknown option '--bogus'" },
		{ { "version", "-v" }, "unknown option '-v'" },
		{ { "help", "--all" }, "unknown option '--all'" },
	};
	char want[512];
	size_t i, bad = 0;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[7] = { NULL };
		int j;

		for (j = 0; j < 5 && cases[i].args[j]; j++)
			argv[j + 1] = (char *)cases[i].args[j];
		snprintf(want, sizeof(want), "nanograph %s: %s\nTry 'nanograph help %s'.\n",
			 cases[i].args[0], cases[i].msg, cases[i].args[0]);
		if (!t_result_is(t_nanograph_run(argv, NULL), 2, "", want)) {
			t_diag("  for: %s %s %s", cases[i].args[0],
			       cases[i].args[1] ? cases[i].args[1] : "",
			       cases[i].args[2] ? cases[i].args[2] : "");
			bad++;
		}
	}
	T_EQ_U64(bad, 0);
}

/*
 * The help promises what the command does, and the command does what the
 * help promises: record -a, with or without --duration, gets past the
 * options (here to the missing module, exit status 1, nothing changed:
 * the control directory is one that does not exist).
 */
static void test_help_is_true(void)
{
	struct t_result r = ng(NULL, "help", NULL, NULL, NULL);
	char env[700];
	bool ok = r.status == 0 && r.out &&
		  strstr(r.out, "record a command, a running process or the whole system as push/pop files\n");

	t_result_free(&r);
	T_ASSERT(ok);
	r = ng(NULL, "help", "record", NULL, NULL);
	ok = r.status == 0 && r.out &&
	     strstr(r.out, "usage: nanograph record [OPTIONS] [-a | -p PID | [--] CMD ARGS...]\n") &&
	     strstr(r.out, "\n  -a              every task but nanograph itself, until --duration or\n"
			   "                  Ctrl-C (set_event_notrace_pid)\n") &&
	     strstr(r.out, "0 with -p or -a");
	if (!ok && r.out)
		t_diag("  help record: %s", t_escape(r.out, strlen(r.out)));
	t_result_free(&r);
	T_ASSERT(ok);

	snprintf(env, sizeof(env), NG_CTL_ENV "=%s", t_path("absent"));
	r = ng(env, "record", "-a", "-o", t_path("out"));
	ok = r.status == 1 && r.err && !strncmp(r.err, "nanograph record: ", 18) &&
	     !strstr(r.err, "Try 'nanograph help") && !t_exists(t_path("out"));
	if (!ok)
		t_diag("  record -a: status %d, stderr: %s", r.status,
		       r.err ? t_escape(r.err, strlen(r.err)) : "(none)");
	t_result_free(&r);
	T_ASSERT(ok);
	r = ng(env, "record", "-a", "--duration", "0.5");
	ok = r.status == 1 && r.err && !strstr(r.err, "Try 'nanograph help");
	t_result_free(&r);
	T_ASSERT(ok);
}

static void test_help_and_version(void)
{
	struct t_result r = ng(NULL, "help", NULL, NULL, NULL);
	bool ok = r.status == 0 && r.out && strstr(r.out, "\n  status ") &&
		  strstr(r.out, "\n  check FILE...") && !*r.err;

	t_result_free(&r);
	T_ASSERT(ok);
	r = ng(NULL, "--help", NULL, NULL, NULL);
	ok = r.status == 0 && r.out && strstr(r.out, "usage: nanograph");
	t_result_free(&r);
	T_ASSERT(ok);
	r = ng(NULL, "check", "-h", NULL, NULL);
	ok = r.status == 0 && r.out && !strncmp(r.out, "usage: nanograph check FILE...", 30);
	t_result_free(&r);
	T_ASSERT(ok);
	T_RUN(ng(NULL, "version", NULL, NULL, NULL), 0,
	      "nanograph " NANOGRAPH_VERSION "\n", "");
	T_RUN(ng(NULL, "--version", NULL, NULL, NULL), 0,
	      "nanograph " NANOGRAPH_VERSION "\n", "");
}

static void test_check_files(void)
{
	char good[600], bad[600], missing[600], want[2000];

	snprintf(good, sizeof(good), "%s", t_path("good.txt"));
	snprintf(bad, sizeof(bad), "%s", t_path("bad.txt"));
	snprintf(missing, sizeof(missing), "%s", t_path("missing.txt"));
	T_EQ_INT(t_write_file(good, "10:+a\n20:+b [m]\n30:POP\n40:POP\n"), 0);
	T_EQ_INT(t_write_file(bad, "10:+a\n5:POP\n"), 0);

	snprintf(want, sizeof(want),
		 "%s: ok: 4 lines, 2 calls, max depth 2, 10..40 ns\n", good);
	T_RUN(ng(NULL, "check", good, NULL, NULL), 0, want, "");

	snprintf(want, sizeof(want),
		 "%s: ok: 4 lines, 2 calls, max depth 2, 10..40 ns\n"
		 "%s:2: error (time goes backwards): timestamp 5 is before the previous 10\n"
		 "%s: cannot read: No such file or directory\n", good, bad, missing);
	T_RUN(ng(NULL, "check", good, bad, missing), 1, want, "");
}

/* status against a fake control directory given by $NANOGRAPH_SYSFS. */
static void test_status_fake_module(void)
{
	char env[700], want[800];
	struct t_result r;
	bool ok;

	T_EQ_INT(mkdir(t_path("sys"), 0755), 0);
	T_EQ_INT(t_write_file(t_path("sys/tracing_on"), "1\n"), 0);
	T_EQ_INT(t_write_file(t_path("sys/set_ftrace_filter"), "vfs_read\nvfs_write\n"), 0);
	T_EQ_INT(t_write_file(t_path("sys/set_event_pid"), ""), 0);
	T_EQ_INT(t_write_file(t_path("sys/write_only"), "hidden\n"), 0);
	T_EQ_INT(chmod(t_path("sys/write_only"), 0200), 0);
	snprintf(env, sizeof(env), NG_CTL_ENV "=%s", t_path("sys"));

	r = ng(env, "status", NULL, NULL, NULL);
	ok = r.status == 0 && r.out && !*r.err;

	snprintf(want, sizeof(want), "module: loaded (%s)\n", t_path("sys"));
	ok = ok && !strncmp(r.out, want, strlen(want)) && strstr(r.out, "\ntracefs: ") &&
	     strstr(r.out, "\nset_event_pid:\nset_ftrace_filter:\n  vfs_read\n"
			   "  vfs_write\ntracing_on: 1\n") &&
	     !strstr(r.out, "write_only") && !strstr(r.out, "hidden");
	if (!ok && r.out)
		t_diag("  status %d, stdout: %s", r.status, t_escape(r.out, strlen(r.out)));
	t_result_free(&r);
	T_ASSERT(ok);
}

static void test_status_not_loaded(void)
{
	char env[700], want[700];
	struct t_result r;
	bool ok;

	snprintf(env, sizeof(env), NG_CTL_ENV "=%s", t_path("absent"));
	r = ng(env, "status", NULL, NULL, NULL);
	snprintf(want, sizeof(want), "module: not loaded (no %s); load it with: insmod nanograph.ko\n", t_path("absent"));
	ok = r.status == 1 && r.out && !strncmp(r.out, want, strlen(want)) &&
		  strstr(r.out, "\ntracefs: ");
	t_result_free(&r);
	T_ASSERT(ok);
}

/*
 * Run nanograph with @argv, its standard output on /dev/full, stderr into
 * @err (@size bytes, NUL-terminated). Returns its exit status, -1 if it
 * could not run.
 */
static int run_stdout_full(char **argv, char *err, size_t size)
{
	int pipefd[2], status;
	ssize_t n, len = 0;
	pid_t pid;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		int fd = open("/dev/full", O_WRONLY);

		if (fd < 0 || dup2(fd, 1) < 0 || dup2(pipefd[1], 2) < 0)
			_exit(126);
		close(pipefd[0]);
		argv[0] = (char *)t_nanograph();
		execv(argv[0], argv);
		_exit(127);
	}
	close(pipefd[1]);
	while ((n = read(pipefd[0], err + len, size - 1 - len)) > 0)
		len += n;
	err[len] = '\0';
	close(pipefd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * Output that cannot be written is an error whatever the command:
 * report and info printed into a full standard output and exited 0.
 */
static void test_stdout_full(void)
{
	static const char *const cmds[][4] = {
		{ "report", NULL }, { "replay", NULL }, { "info", NULL },
		{ "export", "--folded", "-o", "-" },
	};
	char dir[512], err[1024];
	size_t i, j;

	if (!t_nanograph())
		t_skip("no nanograph binary given");
	if (access("/dev/full", W_OK))
		t_skip("no /dev/full");
	T_EQ_INT(t_make_rec(dir, sizeof(dir), "full", "5.txt",
			    "1:+f\n2:POP\n", NULL), 0);
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char *argv[8] = { NULL };
		int st;

		for (j = 0; j < 4 && cmds[i][j]; j++)
			argv[1 + j] = (char *)cmds[i][j];
		argv[1 + j] = dir;
		st = run_stdout_full(argv, err, sizeof(err));
		t_diag("%s: exit %d, %s", cmds[i][0], st, err);
		T_EQ_INT(st, 1);
		T_ASSERT(strstr(err, "No space left on device"));
	}
}

/*
 * -o naming something other than a regular file writes into it: a FIFO
 * stays a FIFO and its reader gets the output (the temporary name and
 * rename of a regular file once turned /dev/full into a plain file).
 */
static void test_output_into_fifo(void)
{
	char dir[512], fifo[600], buf[4096];
	struct stat st;
	ssize_t n;
	int fd;

	if (!t_nanograph())
		t_skip("no nanograph binary given");
	T_EQ_INT(t_make_rec(dir, sizeof(dir), "fifo", "5.txt",
			    "1:+f\n2:POP\n", NULL), 0);
	snprintf(fifo, sizeof(fifo), "%s.fifo", dir);
	T_EQ_INT(mkfifo(fifo, 0600), 0);
	/* Read and write ends of our own: the writer's open does not block. */
	fd = open(fifo, O_RDWR | O_NONBLOCK);
	T_ASSERT(fd >= 0);
	T_ASSERT(t_result_is(t_ng("replay", "-o", fifo, dir, NULL), 0, "", NULL));
	T_EQ_INT(stat(fifo, &st), 0);
	T_ASSERT(S_ISFIFO(st.st_mode));
	n = read(fd, buf, sizeof(buf) - 1);
	T_ASSERT(n > 0);
	buf[n > 0 ? n : 0] = '\0';
	T_ASSERT(strstr(buf, "f();"));
	T_ASSERT(t_result_is(t_ng("export", "--folded", "-o", fifo, dir, NULL), 0, "", NULL));
	T_ASSERT(!stat(fifo, &st) && S_ISFIFO(st.st_mode));
	n = read(fd, buf, sizeof(buf) - 1);
	T_ASSERT(n > 0);
	close(fd);
	unlink(fifo);
}

static const struct t_case cases[] = {
	{ "usage_errors", test_usage_errors },
	{ "collector_commands", test_collector_commands },
	{ "option_errors", test_option_errors },
	{ "help_is_true", test_help_is_true },
	{ "help_and_version", test_help_and_version },
	{ "check_files", test_check_files },
	{ "status_fake_module", test_status_fake_module },
	{ "status_not_loaded", test_status_not_loaded },
	{ "stdout_full", test_stdout_full },
	{ "output_into_fifo", test_output_into_fifo },
};

T_SUITE(cli, cases);
