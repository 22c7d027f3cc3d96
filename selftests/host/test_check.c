// SPDX-License-Identifier: GPL-2.0
/*
 * test_check.c - the push/pop format checker accepts what the format
 * allows and names the first error, with its line, of each kind it forbids.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "nanograph.h"
#include "ktap.h"

static int check_str(const char *s, struct ng_pp_check *c)
{
	return ng_pp_check_buf(s, strlen(s), c);
}

static void test_good(void)
{
	struct ng_pp_check c;

	T_EQ_INT(check_str("1:+a\n2:+b [m]\n2:POP\n3:+c\n3:POP\n4:POP\n", &c),
		 NG_PP_OK);
	T_EQ_U64(c.lines, 6);
	T_EQ_U64(c.pushes, 3);
	T_EQ_U64(c.pops, 3);
	T_EQ_U64(c.max_depth, 2);
	T_EQ_U64(c.depth, 0);
	T_EQ_U64(c.first_ns, 1);
	T_EQ_U64(c.last_ns, 4);
	T_EQ_U64(c.error_line, 0);
	T_EQ_STR(c.error_msg, "");
}

/* Labels may hold anything but a newline: ':', '(', spaces, a signature. */
static void test_good_odd_labels(void)
{
	struct ng_pp_check c;

	T_EQ_INT(check_str("0005:+a:b (c) [d]\n5:+Lfoo;.bar()V\n5:++\n"
			   "18446744073709551615:POP\n18446744073709551615:POP\n"
			   "18446744073709551615:POP\n", &c), NG_PP_OK);
	T_EQ_U64(c.first_ns, 5);
	T_EQ_U64(c.last_ns, UINT64_MAX);
	T_EQ_U64(c.pushes, 3);
}

static void test_good_empty(void)
{
	struct ng_pp_check c;

	T_EQ_INT(check_str("", &c), NG_PP_OK);
	T_EQ_U64(c.lines, 0);
}

/* Each grammar violation, after two good lines so the line number shows. */
static void test_bad_syntax(void)
{
	static const char *const bad[] = {
		"abc\n", "\n", "12\n", "12;+a\n", "12:\n", "12:+\n",
		"12:pop\n", "12:POPX\n", "12:POP \n", "12:a\n", " 12:+a\n",
		"-1:+a\n", "+12:+a\n", "1 2:+a\n", "12:POP\r\n",
		"99999999999999999999:+a\n", "18446744073709551616:+a\n",
		"12:+a",	/* last line without its newline */
	};
	struct ng_pp_check c;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char buf[128];

		snprintf(buf, sizeof(buf), "1:+x\n1:POP\n%s", bad[i]);
		if (check_str(buf, &c) != NG_PP_ESYNTAX || c.error_line != 3) {
			t_diag("input line %s: error %d at line %llu", t_escape(bad[i],
			       strlen(bad[i])), c.error, (unsigned long long)c.error_line);
			T_ASSERT(!"syntax error at line 3 expected");
		}
		T_ASSERT(c.error_msg[0]);
	}
}

static void test_bad_time(void)
{
	struct ng_pp_check c;

	T_EQ_INT(check_str("5:+a\n6:+b\n4:POP\n7:POP\n", &c), NG_PP_ETIME);
	T_EQ_U64(c.error_line, 3);
	T_ASSERT(strstr(c.error_msg, "4"));
	T_ASSERT(strstr(c.error_msg, "6"));
	/* counting still covers the whole file */
	T_EQ_U64(c.lines, 4);
	T_EQ_U64(c.pops, 2);
}

static void test_bad_underflow(void)
{
	struct ng_pp_check c;

	T_EQ_INT(check_str("1:+a\n2:POP\n3:POP\n4:+b\n5:POP\n", &c),
		 NG_PP_EUNDERFLOW);
	T_EQ_U64(c.error_line, 3);
	T_EQ_U64(c.lines, 5);
}

static void test_bad_unbalanced(void)
{
	struct ng_pp_check c;

	T_EQ_INT(check_str("1:+a\n2:+b\n3:+c\n4:POP\n", &c), NG_PP_EUNBALANCED);
	T_EQ_U64(c.error_line, 4);
	T_EQ_U64(c.depth, 2);
	T_ASSERT(strstr(c.error_msg, "2 frame"));
}

/* The first error is the one reported, not a later or a worse one. */
static void test_first_error_wins(void)
{
	struct ng_pp_check c;

	T_EQ_INT(check_str("1:+a\n2:POP\n3:POP\n2:+b\nxx\n", &c),
		 NG_PP_EUNDERFLOW);
	T_EQ_U64(c.error_line, 3);
}

static void test_file(void)
{
	const char *good = t_path("good.txt"), *bad = t_path("bad.txt");
	struct ng_pp_check c;

	T_EQ_INT(t_write_file(good, "10:+f [m]\n20:POP\n"), 0);
	T_EQ_INT(ng_pp_check_file(good, &c), NG_PP_OK);
	T_EQ_U64(c.lines, 2);
	T_EQ_U64(c.last_ns, 20);

	T_EQ_INT(t_write_file(bad, "10:+f\n20:POP"), 0);
	T_EQ_INT(ng_pp_check_file(bad, &c), NG_PP_ESYNTAX);
	T_EQ_U64(c.error_line, 2);
	T_ASSERT(strstr(c.error_msg, "newline"));

	T_EQ_INT(t_write_file(bad, "10:+f\n"), 0);
	T_EQ_INT(ng_pp_check_file(bad, &c), NG_PP_EUNBALANCED);
}

static void test_file_errors(void)
{
	struct ng_pp_check c;

	T_EQ_INT(ng_pp_check_file(t_path("missing.txt"), &c), -ENOENT);
	T_EQ_INT(mkdir(t_path("dir"), 0755), 0);
	T_EQ_INT(ng_pp_check_file(t_path("dir"), &c), -EISDIR);
}

static void test_error_names(void)
{
	int e, f;

	for (e = NG_PP_OK; e <= NG_PP_EUNBALANCED; e++) {
		T_ASSERT(strcmp(ng_pp_error_name(e), "unknown"));
		for (f = NG_PP_OK; f < e; f++)
			T_ASSERT(strcmp(ng_pp_error_name(e), ng_pp_error_name(f)));
	}
}

static const struct t_case cases[] = {
	{ "good", test_good },
	{ "good_odd_labels", test_good_odd_labels },
	{ "good_empty", test_good_empty },
	{ "bad_syntax", test_bad_syntax },
	{ "bad_time", test_bad_time },
	{ "bad_underflow", test_bad_underflow },
	{ "bad_unbalanced", test_bad_unbalanced },
	{ "first_error_wins", test_first_error_wins },
	{ "file", test_file },
	{ "file_errors", test_file_errors },
	{ "error_names", test_error_names },
};

T_SUITE(check, cases);
