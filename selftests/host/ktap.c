// SPDX-License-Identifier: GPL-2.0
/*
 * ktap.c - runner and helpers for the host unit tests.
 *
 *   host-tests [--nanograph PATH] [FILTER]
 *
 * Runs every test whose "suite_case" name contains FILTER, each in a forked
 * child with a fresh temporary directory and a time limit, and prints KTAP:
 * "KTAP version 1", the plan "1..N", then "ok N name" / "not ok N name",
 * with "# " diagnostics before each result. Exits 1 if any test failed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"

extern const struct t_suite t_suite_pushpop, t_suite_check, t_suite_threads,
	t_suite_ctl, t_suite_tracefs, t_suite_cli, t_suite_convert,
	t_suite_analyze, t_suite_syms, t_suite_rawrec, t_suite_perfetto,
	t_suite_num, t_suite_outdir, t_suite_info, t_suite_replay,
	t_suite_calls, t_suite_compensate, t_suite_flight, t_suite_strmap,
	t_suite_session, t_suite_json, t_suite_hashmap, t_suite_merge;

static const struct t_suite *const suites[] = {
	&t_suite_pushpop, &t_suite_check, &t_suite_threads,
	&t_suite_ctl, &t_suite_tracefs, &t_suite_cli, &t_suite_convert,
	&t_suite_analyze, &t_suite_syms, &t_suite_rawrec, &t_suite_perfetto,
	&t_suite_num,
	&t_suite_outdir,
	&t_suite_info,
	&t_suite_replay,
	&t_suite_calls,
	&t_suite_compensate,
	&t_suite_flight,
	&t_suite_strmap,
	&t_suite_session,
	&t_suite_json,
	&t_suite_hashmap,
	&t_suite_merge,
};

#define TEST_TIMEOUT_S	30

static char tmpdir[256];
static const char *nanograph_bin;
static bool failed;

/* Diagnostic line: KTAP wants "# " before anything that is not a result. */
void t_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* Record a failed assertion; the macro then returns from the test. */
void t_fail_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	failed = true;
	printf("# %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* End the test as skipped; only a test's child process calls this. */
void t_skip(const char *why)
{
	t_write_file(t_path(".skip"), why);
	fflush(stdout);
	_exit(T_EXIT_SKIP);
}

const char *t_escape(const char *s, size_t len)
{
	static char buf[1024];
	size_t i, o = 0;

	for (i = 0; i < len && o < sizeof(buf) - 8; i++) {
		unsigned char ch = s[i];

		if (ch == '\n')
			o += sprintf(buf + o, "\\n");
		else if (ch == '\t')
			o += sprintf(buf + o, "\\t");
		else if (ch < 0x20 || ch >= 0x7f || ch == '\\' || ch == '"')
			o += sprintf(buf + o, "\\x%02x", ch);
		else
			buf[o++] = ch;
	}
	if (i < len)
		o += sprintf(buf + o, "...");
	buf[o] = '\0';
	return buf;
}

const char *t_tmpdir(void)
{
	return tmpdir;
}

const char *t_path(const char *name)
{
	static char bufs[4][512];
	static int next;
	char *buf = bufs[next++ % 4];

	snprintf(buf, sizeof(bufs[0]), "%s/%s", tmpdir, name);
	return buf;
}

bool t_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

const char *t_temp_of(const char *path)
{
	static char buf[1024];
	const char *slash = strrchr(path, '/');
	char dir[512], prefix[512];
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1,
		 slash ? path : ".");
	snprintf(prefix, sizeof(prefix), ".%s.", slash ? slash + 1 : path);
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, prefix, strlen(prefix)))
			continue;
		snprintf(buf, sizeof(buf), "%s/%s", dir, e->d_name);
		closedir(d);
		return buf;
	}
	if (d)
		closedir(d);
	return NULL;
}

char *t_read_file(const char *path, size_t *lenp)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	ssize_t n;
	int fd;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return NULL;
	}
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += n;
		if (cap - len < 2) {
			char *nbuf = realloc(buf, cap * 2);

			if (!nbuf) {
				n = -1;
				break;
			}
			buf = nbuf;
			cap *= 2;
		}
	}
	close(fd);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	if (lenp)
		*lenp = len;
	return buf;
}

int t_write_file(const char *path, const char *content)
{
	size_t len = strlen(content);
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, content, len) != (ssize_t)len)
		ret = -EIO;
	close(fd);
	return ret;
}

/* @path's content against @want, whole or (@whole false) in part. */
static bool file_matches(const char *path, const char *want, bool whole)
{
	char *got = t_read_file(path, NULL);
	bool ok = got && (whole ? !strcmp(got, want) : !!strstr(got, want));

	if (!ok) {
		if (got)
			t_diag("  got:  %s", t_escape(got, strlen(got)));
		else
			t_diag("  got:  (cannot read %s: %s)", path, strerror(errno));
		t_diag("  %s %s", whole ? "want:" : "want part:",
		       t_escape(want, strlen(want)));
	}
	free(got);
	return ok;
}

bool t_file_is(const char *path, const char *want)
{
	return file_matches(path, want, true);
}

bool t_file_has(const char *path, const char *part)
{
	return file_matches(path, part, false);
}

const char *t_nanograph(void)
{
	return nanograph_bin;
}

static long last_maxrss_kb, peak_anon_kb;
static bool watch_anon;

long t_run_maxrss_kb(void)
{
	return last_maxrss_kb;
}

void t_run_watch_anon(bool on)
{
	watch_anon = on;
}

long t_run_peak_anon_kb(void)
{
	return peak_anon_kb;
}

/* RssAnon of @pid once it runs @prog (not the fork before exec), or -1. */
static long anon_kb(pid_t pid, const char *prog)
{
	const char *base = strrchr(prog, '/') ? strrchr(prog, '/') + 1 : prog;
	char path[64], line[256];
	long kb = -1;
	size_t len;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	len = strlen(base) < 15 ? strlen(base) : 15;
	if (!fgets(line, sizeof(line), f) || strncmp(line, base, len) ||
	    line[len] != '\n') {
		fclose(f);
		return -1;
	}
	fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "RssAnon: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* Wait for @pid, watching its anonymous memory if asked. */
static int wait_child(pid_t pid, const char *prog, int *status,
		      struct rusage *ru)
{
	struct timespec ms = { 0, 1000000 };
	pid_t got;
	long kb;

	peak_anon_kb = 0;
	if (!watch_anon)
		return wait4(pid, status, 0, ru) < 0 ? -1 : 0;
	while ((got = wait4(pid, status, WNOHANG, ru)) == 0) {
		kb = anon_kb(pid, prog);
		if (kb > peak_anon_kb)
			peak_anon_kb = kb;
		nanosleep(&ms, NULL);
	}
	return got < 0 ? -1 : 0;
}

int t_run(char *const argv[], char *const env[], char **out, char **err)
{
	char outp[512], errp[512];
	struct rusage ru;
	int status;
	pid_t pid;

	snprintf(outp, sizeof(outp), "%s/.run.out", tmpdir);
	snprintf(errp, sizeof(errp), "%s/.run.err", tmpdir);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int o = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(126);
		for (; env && *env; env++)
			putenv(*env);
		execv(argv[0], argv);
		_exit(127);
	}
	if (wait_child(pid, argv[0], &status, &ru))
		return -1;
	last_maxrss_kb = ru.ru_maxrss;
	*out = t_read_file(outp, NULL);
	*err = t_read_file(errp, NULL);
	unlink(outp);
	unlink(errp);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	if (remove(path))
		t_diag("cannot remove %s: %s", path, strerror(errno));
	return 0;
}

/*
 * Run one test in a child; returns its exit status (0 pass, 77 skip, with
 * the reason copied to @skip).
 */
static int run_case(const struct t_case *tc, char *skip, size_t skipsize)
{
	char *why;
	const char *base = getenv("TMPDIR");
	int status;
	pid_t pid;

	snprintf(tmpdir, sizeof(tmpdir), "%s/ng-host-test.XXXXXX",
		 base && *base ? base : "/tmp");
	if (!mkdtemp(tmpdir)) {
		t_diag("mkdtemp %s: %s", tmpdir, strerror(errno));
		return 1;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		t_diag("fork: %s", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		alarm(TEST_TIMEOUT_S);
		tc->fn();
		fflush(stdout);
		/* _exit skips the leak check: a failed test leaves things behind. */
		if (failed)
			_exit(1);
		exit(0);
	}
	if (waitpid(pid, &status, 0) < 0)
		status = 1 << 8;
	why = t_read_file(t_path(".skip"), NULL);
	snprintf(skip, skipsize, "%s", why ? why : "");
	free(why);
	nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	if (WIFSIGNALED(status)) {
		t_diag("killed by signal %d%s", WTERMSIG(status),
		       WTERMSIG(status) == SIGALRM ? " (timeout)" : "");
		return 1;
	}
	if (WEXITSTATUS(status) && WEXITSTATUS(status) != 1 &&
	    WEXITSTATUS(status) != T_EXIT_SKIP)
		t_diag("exit status %d (sanitizer report on stderr?)",
		       WEXITSTATUS(status));
	return WEXITSTATUS(status);
}

static bool selected(const char *suite, const char *name, const char *filter)
{
	char full[256];

	snprintf(full, sizeof(full), "%s_%s", suite, name);
	return !filter || strstr(full, filter);
}

int main(int argc, char **argv)
{
	const char *filter = NULL;
	int i, n = 0, bad = 0;
	size_t s, c;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--nanograph") && i + 1 < argc)
			nanograph_bin = argv[++i];
		else if (argv[i][0] != '-' && !filter)
			filter = argv[i];
		else {
			fprintf(stderr, "usage: %s [--nanograph PATH] [FILTER]\n",
				argv[0]);
			return 2;
		}
	}
	for (s = 0; s < sizeof(suites) / sizeof(suites[0]); s++)
		for (c = 0; c < suites[s]->nr; c++)
			n += selected(suites[s]->name, suites[s]->cases[c].name, filter);

	printf("KTAP version 1\n1..%d\n", n);
	n = 0;
	for (s = 0; s < sizeof(suites) / sizeof(suites[0]); s++) {
		for (c = 0; c < suites[s]->nr; c++) {
			const struct t_case *tc = &suites[s]->cases[c];
			char skip[256];
			int ret;

			if (!selected(suites[s]->name, tc->name, filter))
				continue;
			ret = run_case(tc, skip, sizeof(skip));
			n++;
			if (ret == T_EXIT_SKIP) {
				printf("ok %d %s_%s # SKIP %s\n", n,
				       suites[s]->name, tc->name, skip);
			} else if (ret) {
				printf("not ok %d %s_%s\n", n, suites[s]->name,
				       tc->name);
				bad++;
			} else {
				printf("ok %d %s_%s\n", n, suites[s]->name, tc->name);
			}
		}
	}
	printf("# %d tests, %d failed\n", n, bad);
	return bad ? 1 : 0;
}

struct t_result t_nanograph_run(char **argv, char *const env[])
{
	struct t_result r;

	if (!t_nanograph())
		t_skip("no --nanograph binary given");
	argv[0] = (char *)t_nanograph();
	r.status = t_run(argv, env, &r.out, &r.err);
	r.maxrss_kb = t_run_maxrss_kb();
	r.peak_anon_kb = t_run_peak_anon_kb();
	if (!r.out || !r.err) {
		t_result_free(&r);
		r.status = -1;
	}
	return r;
}

void t_result_free(struct t_result *r)
{
	free(r->out);
	free(r->err);
	r->out = NULL;
	r->err = NULL;
}

bool t_result_is(struct t_result r, int st, const char *out, const char *err)
{
	bool ok = r.out && r.status == st && (!out || !strcmp(r.out, out)) &&
		  (!err || !strcmp(r.err, err));

	if (!ok && r.out) {
		t_diag("  status %d, stdout: %s", r.status,
		       t_escape(r.out, strlen(r.out)));
		t_diag("  stderr: %s", t_escape(r.err, strlen(r.err)));
	}
	t_result_free(&r);
	return ok;
}
