/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap.h - a tiny test harness for the host unit tests: test tables,
 * assertions and helpers. The runner (ktap.c) runs every test in its own
 * child process, with its own temporary directory, and reports KTAP on
 * stdout, so one crashing test cannot hide the others.
 */
#ifndef NG_KTAP_H
#define NG_KTAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct t_case {
	const char *name;
	void (*fn)(void);
};

struct t_suite {
	const char *name;
	const struct t_case *cases;
	size_t nr;
};

#define T_SUITE(sname, table) \
	const struct t_suite t_suite_##sname = { #sname, table, \
		sizeof(table) / sizeof(table[0]) }

/* Exit code a test uses to say it cannot run here ("# SKIP"). */
#define T_EXIT_SKIP	77

void t_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void t_fail_at(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void t_skip(const char *why) __attribute__((noreturn));
/* Render @s (@len bytes) with C escapes, into a static buffer. */
const char *t_escape(const char *s, size_t len);

/* Each assertion reports where and what, then ends the test (return). */
#define T_ASSERT(cond) do {						\
	if (!(cond)) {							\
		t_fail_at(__FILE__, __LINE__, "assertion failed: %s", #cond); \
		return;							\
	}								\
} while (0)

#define T_EQ_INT(a, b) do {						\
	long long _a = (a), _b = (b);					\
	if (_a != _b) {							\
		t_fail_at(__FILE__, __LINE__, "%s == %s: got %lld, want %lld", \
			  #a, #b, _a, _b);				\
		return;							\
	}								\
} while (0)

#define T_EQ_U64(a, b) do {						\
	unsigned long long _a = (a), _b = (b);				\
	if (_a != _b) {							\
		t_fail_at(__FILE__, __LINE__, "%s == %s: got %llu, want %llu", \
			  #a, #b, _a, _b);				\
		return;							\
	}								\
} while (0)

#define T_EQ_STR(a, b) do {						\
	const char *_a = (a), *_b = (b);				\
	if (!_a || !_b || strcmp(_a, _b)) {				\
		t_fail_at(__FILE__, __LINE__, "%s == %s", #a, #b);	\
		t_diag("  got:  %s", _a ? t_escape(_a, strlen(_a)) : "(null)"); \
		t_diag("  want: %s", _b ? t_escape(_b, strlen(_b)) : "(null)"); \
		return;							\
	}								\
} while (0)

/* The whole content of file @path is the string @want. */
#define T_FILE_EQ(path, want) do {					\
	if (!t_file_is(path, want)) {					\
		t_fail_at(__FILE__, __LINE__, "content of %s", #path);	\
		return;							\
	}								\
} while (0)

/* The file @path holds the string @part somewhere. */
#define T_FILE_HAS(path, part) T_ASSERT(t_file_has(path, part))

/* ---- helpers (ktap.c) ---- */

/* True if @path holds exactly @want; else says what it holds instead. */
bool t_file_is(const char *path, const char *want);
/* True if @path holds @part; else says what it holds instead. */
bool t_file_has(const char *path, const char *part);

/* This test's own empty directory, removed after the test. */
const char *t_tmpdir(void);
/* "<tmpdir>/<name>" in one of a few rotating static buffers. */
const char *t_path(const char *name);
bool t_exists(const char *path);
/*
 * The temporary file being written for @path (DIR/.NAME.XXXXXX, outfile.c),
 * in a static buffer, or NULL if there is none.
 */
const char *t_temp_of(const char *path);
/* Whole file, malloc'd and NUL-terminated; NULL if unreadable. */
char *t_read_file(const char *path, size_t *lenp);
/* Create or replace @path with @content; 0 or -errno. */
int t_write_file(const char *path, const char *content);
/* The nanograph binary given with --nanograph, or NULL. */
const char *t_nanograph(void);
/*
 * Run @argv with extra environment @env (NULL-terminated "K=V" list, may
 * be NULL), capture stdout and stderr into malloc'd strings. Returns the
 * exit status, or -1 if it did not exit normally.
 */
int t_run(char *const argv[], char *const env[], char **out, char **err);

/* The peak resident set of the last t_run() child, in KiB. */
long t_run_maxrss_kb(void);
/*
 * Whether t_run() watches its child's anonymous memory (RssAnon, read
 * from /proc every millisecond once it has exec'd), and the peak seen in
 * the last run, in KiB. The resident set also counts file pages a
 * program maps (libtracecmd maps the trace it reads); this is the memory
 * the program allocates.
 */
void t_run_watch_anon(bool on);
long t_run_peak_anon_kb(void);

/* What a run of the nanograph binary did: status (-1: did not exit). */
struct t_result {
	int status;
	char *out;
	char *err;
	long maxrss_kb;		/* its peak resident set */
	long peak_anon_kb;	/* with t_run_watch_anon(true) */
};

/*
 * Run the --nanograph binary with @argv (NULL-terminated; argv[0] is set
 * here) and extra environment @env (may be NULL). Skips the test when no
 * binary was given; out and err are NULL when they could not be captured.
 */
struct t_result t_nanograph_run(char **argv, char *const env[]);
void t_result_free(struct t_result *r);
/*
 * Whether @r ended with status @st and printed exactly @out and @err (NULL:
 * anything); says what it got otherwise. Frees @r.
 */
bool t_result_is(struct t_result r, int st, const char *out, const char *err);

#define T_RUN(r, st, out, err) T_ASSERT(t_result_is(r, st, out, err))

#endif /* NG_KTAP_H */
