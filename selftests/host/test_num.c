// SPDX-License-Identifier: GPL-2.0
/*
 * test_num.c - ng_parse_num(), the one parser of numbers with a range:
 * what it takes, what it refuses, and that nothing wraps.
 */
#include <errno.h>
#include <stdint.h>

#include "nanograph.h"
#include "ktap.h"

/* ng_parse_num() of @s, or -1000 + the error, in one comparable value. */
static long long num(const char *s, unsigned int dec, uint64_t min,
		     uint64_t max)
{
	uint64_t v = 12345;
	int ret = ng_parse_num(s, dec, min, max, &v);

	return ret ? -1000 + ret : (long long)v;
}

static void test_integers(void)
{
	uint64_t v;

	T_EQ_INT(num("0", 0, 0, 10), 0);
	T_EQ_INT(num("10", 0, 0, 10), 10);
	T_EQ_INT(num("007", 0, 0, 10), 7);
	T_EQ_INT(num("11", 0, 0, 10), -1000 - ERANGE);
	T_EQ_INT(num("0", 0, 1, 10), -1000 - ERANGE);
	T_EQ_U64(num("4194304", 0, 1, 4194304), 4194304);
	/* The bug this replaces: strtol() into an int made pid 1 of this. */
	T_EQ_INT(num("4294967297", 0, 1, 4194304), -1000 - ERANGE);
	T_EQ_INT(ng_parse_num("18446744073709551615", 0, 0, UINT64_MAX, &v), 0);
	T_EQ_U64(v, UINT64_MAX);
	T_EQ_INT(num("18446744073709551616", 0, 0, UINT64_MAX), -1000 - ERANGE);
	T_EQ_INT(num("99999999999999999999999", 0, 0, UINT64_MAX), -1000 - ERANGE);
}

static void test_refused(void)
{
	static const char *const bad[] = {
		"", " 1", "1 ", "+1", "-1", "0x10", "1e3", "inf", "nan",
		"1.5", "1,5", "1\n", "12a", "a12", "--1",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (num(bad[i], 0, 0, UINT64_MAX) != -1000 - EINVAL) {
			t_diag("'%s' was accepted", bad[i]);
			T_ASSERT(0);
		}
	T_EQ_INT(ng_parse_num(NULL, 0, 0, 1, NULL), -EINVAL);
}

/* With decimals: fixed point, scaled; never rounded. */
static void test_decimals(void)
{
	T_EQ_INT(num("1.5", 3, 1, 10000), 1500);
	T_EQ_INT(num("0.001", 3, 1, 10000), 1);
	T_EQ_INT(num("2", 3, 1, 10000), 2000);
	T_EQ_INT(num("0.0001", 3, 1, 10000), -1000 - EINVAL);
	T_EQ_INT(num("0.000", 3, 1, 10000), -1000 - ERANGE);
	T_EQ_INT(num("10.001", 3, 1, 10000), -1000 - ERANGE);
	T_EQ_INT(num("1.", 3, 1, 10000), -1000 - EINVAL);
	T_EQ_INT(num(".5", 3, 1, 10000), -1000 - EINVAL);
	T_EQ_INT(num("1.2.3", 3, 1, 10000), -1000 - EINVAL);
	T_EQ_INT(num(".", 3, 1, 10000), -1000 - EINVAL);
	/* Scaling past 64 bits is a range error, not a wrap. */
	T_EQ_INT(num("18446744073709552", 3, 0, UINT64_MAX), -1000 - ERANGE);
}

/* Numbers after a key at the start of a line of kernel text. */
static void test_line_nums(void)
{
	static const char stats[] =
		"# cpu entries exits dropped skipped\n"
		"cpu0 10 9 0 1\n"
		"totalish 1 1 1 1\n"
		"total 10 9 0 18446744073709551615\n"
		"live_frames\t3 trailing words\n";
	uint64_t v[4] = { 0 };

	T_EQ_INT(ng_parse_line_nums(stats, "total", 0, UINT64_MAX, v, 4), 0);
	T_EQ_U64(v[0], 10);
	T_EQ_U64(v[3], UINT64_MAX);
	T_EQ_INT(ng_parse_line_nums(stats, "live_frames", 0, UINT64_MAX, v, 1), 0);
	T_EQ_U64(v[0], 3);
	T_EQ_INT(ng_parse_line_nums(stats, "cpu0", 0, 5, v, 2), -ERANGE);
	T_EQ_INT(ng_parse_line_nums(stats, "cpu1", 0, 5, v, 1), -ENOENT);
	T_EQ_INT(ng_parse_line_nums(stats, "live_frames", 0, 9, v, 2), -EINVAL);
	T_EQ_INT(ng_parse_line_nums("Tgid:\t412\n", "Tgid:", 1, 4194304, v, 1), 0);
	T_EQ_U64(v[0], 412);
	T_EQ_INT(ng_parse_line_nums("Tgid:\t-1\n", "Tgid:", 1, 4194304, v, 1), -EINVAL);
	T_EQ_INT(ng_parse_line_nums("4096\n", "", 0, UINT64_MAX, v, 1), 0);
	T_EQ_U64(v[0], 4096);
	T_EQ_INT(ng_parse_line_nums("sync: 12 34x\n", "sync:", 0, UINT64_MAX, v, 2), -EINVAL);
	T_EQ_INT(ng_parse_line_nums("", "sync:", 0, UINT64_MAX, v, 2), -ENOENT);
}

static const struct t_case cases[] = {
	{ "integers", test_integers },
	{ "refused", test_refused },
	{ "decimals", test_decimals },
	{ "line_nums", test_line_nums },
};

T_SUITE(num, cases);
