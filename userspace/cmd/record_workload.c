// SPDX-License-Identifier: GPL-2.0
/*
 * record_workload.c - what "nanograph record" records: a command it
 * starts, or a process it watches (-p); and the signals that stop it.
 *
 * A started command is forked at once but waits on a pipe until
 * recording has started (rec_spawn(), rec_release()), so that its first
 * call is recorded and record's own set-up is not; it runs with the
 * user's signal dispositions and open-files limit, not record's.  Its
 * end, or -p's process's, ends the recording; its exit status becomes
 * record's, as time(1) and strace(1) give theirs.
 *
 * Convention (cmd.h): 0 to go on, else the exit code after the line.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record.h"

volatile sig_atomic_t rec_stop_signal, rec_abort_signal, rec_converting;

/* The first signal stops, the next (or one while writing) abandons. */
static void on_signal(int sig)
{
	if (rec_stop_signal || rec_converting)
		rec_abort_signal = sig;
	else
		rec_stop_signal = sig;
}

/* Only to wake a sleep: the child's end is seen by waitpid(WNOHANG). */
static void on_sigchld(int sig)
{
	(void)sig;
}

/* Signals: the first stops, the next abandons; SIGPIPE ignored. */
void rec_catch_signals(void)
{
	struct sigaction sa = { 0 };

	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_sigchld;
	sigaction(SIGCHLD, &sa, NULL);
	/* A closed stderr must not kill record before it puts things back. */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

/*
 * Raise the open-files limit for record's own files (two per CPU, and
 * the push/pop files the converter keeps open), remembering the user's:
 * the command gets that one back (spawn()).
 */
void rec_raise_nofile(struct rec_workload *w)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	w->user_nofile = rl;
	w->nofile_raised = rl.rlim_cur < rl.rlim_max;
	if (w->nofile_raised) {
		rl.rlim_cur = rl.rlim_max;
		w->nofile_raised = !setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/*
 * Fork the command, stopped on a pipe until recording has started; a
 * failed exec comes back as an errno on a close-on-exec pipe.
 */
int rec_spawn(struct rec_workload *w, char **argv)
{
	int go[2], err[2], e;
	char buf;

	if (pipe2(go, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
		return rec_fail("pipe: %s", strerror(errno));
	w->child = fork();
	if (w->child < 0)
		return rec_fail("fork: %s", strerror(errno));
	if (!w->child) {
		sigset_t none;

		close(go[1]);
		close(err[0]);
		if (read(go[0], &buf, 1) != 1)
			_exit(127);
		/* The command runs as it would have without record. */
		if (w->nofile_raised)
			setrlimit(RLIMIT_NOFILE, &w->user_nofile);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		execvp(argv[0], argv);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	w->go_fd = go[1];
	w->err_fd = err[0];
	return 0;
}

/*
 * Wait (up to 2 s) until the child sleeps, in its read of the go pipe:
 * its only wait before exec.  Admitted before that, with the hook already
 * running for another user (a trace array whose current tracer is
 * nanograph), the calls of that read would be recorded, and the first
 * of them lost, written before the recorder's buffers were open.
 */
void rec_child_asleep(pid_t pid)
{
	char path[64], stat[512], *p;
	ssize_t n;
	int i, fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (i = 0; i < 2000; i++) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return;
		n = read(fd, stat, sizeof(stat) - 1);
		close(fd);
		if (n <= 0)
			return;
		stat[n] = '\0';
		/* "pid (comm) S ...": the comm may hold anything, ')' too. */
		p = strrchr(stat, ')');
		if (p && p[1] == ' ' && p[2] == 'S')
			return;
		usleep(1000);
	}
}

/* Let the child exec; report if it could not. */
int rec_release(struct rec_workload *w, char **argv)
{
	int e = 0;

	if (write(w->go_fd, "g", 1) != 1)
		return rec_fail("cannot start %s: %s", argv[0], strerror(errno));
	close(w->go_fd);
	w->go_fd = -1;
	if (read(w->err_fd, &e, sizeof(e)) == sizeof(e)) {
		close(w->err_fd);
		w->err_fd = -1;
		return rec_fail("cannot run %s: %s", argv[0], strerror(e));
	}
	close(w->err_fd);
	w->err_fd = -1;
	return 0;
}

/* A zombie has exited too: its parent just has not reaped it yet. */
static bool process_alive(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

/* Is the workload still there? */
bool rec_workload_alive(struct rec_workload *w, const struct rec_opts *o)
{
	/* A command that ended stays ended (flight asks again after a hit). */
	if (w->child > 0) {
		rec_reap(w);
		return !w->child_done;
	}
	if (o->pid)
		return process_alive(o->pid);
	return true;
}

/* --duration is over: a started command gets SIGTERM. */
bool rec_duration_over(struct rec_workload *w, const struct rec_opts *o,
		       double start)
{
	if (!o->duration || rec_now_s() - start < o->duration)
		return false;
	if (w->child > 0 && !w->child_done) {
		kill(w->child, SIGTERM);
		w->duration_stop = true;
	}
	return true;
}

/* SIGTERM and SIGHUP are passed on; Ctrl-C reaches it from the tty. */
void rec_pass_signal(struct rec_workload *w)
{
	if ((rec_stop_signal == SIGTERM || rec_stop_signal == SIGHUP) &&
	    w->child > 0 && !w->child_done)
		kill(w->child, rec_stop_signal);
}

/* A command that ended meanwhile (while the files were written). */
void rec_reap(struct rec_workload *w)
{
	if (w->child > 0 && !w->child_done &&
	    waitpid(w->child, &w->status, WNOHANG) == w->child)
		w->child_done = true;
}

/* A child that never got to exec: let it go, and wait for it. */
void rec_workload_close(struct rec_workload *w)
{
	if (w->go_fd >= 0) {
		close(w->go_fd);
		if (w->child > 0)
			waitpid(w->child, NULL, 0);
	}
	if (w->err_fd >= 0)
		close(w->err_fd);
	w->go_fd = w->err_fd = -1;
}

/* How the command ended, when not as expected. */
void rec_say_command_end(const struct rec_workload *w,
			 const struct rec_opts *o)
{
	if (w->child > 0 && w->child_done && WIFEXITED(w->status) &&
	    WEXITSTATUS(w->status))
		fprintf(stderr, "nanograph: %s exited with status %d\n",
			o->argv[0], WEXITSTATUS(w->status));
	else if (w->child > 0 && w->child_done && WIFSIGNALED(w->status) &&
		 !w->duration_stop)
		fprintf(stderr, "nanograph: %s was killed by signal %d (%s)\n",
			o->argv[0], WTERMSIG(w->status),
			strsignal(WTERMSIG(w->status)));
}

/*
 * record's exit status once the recording is in place, as time(1) and
 * strace(1) give theirs: the command's (its exit code, or 128 + the
 * signal that killed it); 0 when record itself ended the command at
 * --duration, and for -p. A command still running (it ignored the signal
 * passed on) gives 128 + the signal that stopped the recording.
 */
int rec_exit_status(const struct rec_workload *w)
{
	if (w->child <= 0 || w->duration_stop)
		return NG_EXIT_OK;
	if (!w->child_done)
		return rec_stop_signal ? 128 + rec_stop_signal : NG_EXIT_OK;
	if (WIFEXITED(w->status))
		return WEXITSTATUS(w->status);
	if (WIFSIGNALED(w->status))
		return 128 + WTERMSIG(w->status);
	return NG_EXIT_FAIL;
}
