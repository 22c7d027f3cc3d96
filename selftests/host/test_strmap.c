// SPDX-License-Identifier: GPL-2.0
/*
 * test_strmap.c - the hash map behind report and export, against names
 * made to collide: a recording's function and thread names are anyone's
 * to choose.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../../userspace/lib/strmap.h"
#include "ktap.h"

/* strmap.c's hash as it was, with no key: what an attacker can compute. */
static uint64_t unkeyed_hash(const void *key, size_t len)
{
	const unsigned char *p = key, *end = p + len;
	uint64_t h = 0xcbf29ce484222325ULL ^ len, w;

	if (len >= 8) {
		for (; end - p > 8; p += 8) {
			memcpy(&w, p, 8);
			h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
			h ^= h >> 32;
		}
		memcpy(&w, end - 8, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
	} else if (len) {
		w = 0;
		memcpy(&w, p, len);
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

/*
 * 3,000 names whose unkeyed hashes share their low 12 bits (a map of
 * them has 4,096 buckets: one bucket for all, before the key): the
 * longest chain must stay short.  With the hash unkeyed it was 3,000.
 */
static void test_crafted_names(void)
{
	enum { WANT = 3000 };
	static char names[WANT][24];
	struct ng_strmap *m = ng_strmap_new(sizeof(int));
	unsigned long i, n = 0;
	size_t longest;

	T_ASSERT(m);
	for (i = 0; m && n < WANT; i++) {
		char name[24];
		int len = snprintf(name, sizeof(name), "crafted_fn_%lu", i);

		if ((unkeyed_hash(name, len) & 0xfff) == 0x234)
			memcpy(names[n++], name, len + 1);
	}
	for (i = 0; m && i < WANT; i++)
		T_ASSERT(ng_strmap_get(m, names[i], strlen(names[i]), NULL));
	longest = m ? ng_strmap_longest_chain(m) : 0;
	t_diag("%d names crafted for one bucket of the unkeyed hash: longest chain %zu",
	       WANT, longest);
	T_ASSERT(m && ng_strmap_count(m) == WANT);
	T_ASSERT(longest < 16);
	ng_strmap_free(m);
}

/* Every key found again, under its own value, across growth. */
static void test_lookups(void)
{
	struct ng_strmap *m = ng_strmap_new(sizeof(long));
	char key[32];
	bool added;
	long *v;
	int i;

	T_ASSERT(m);
	for (i = 0; m && i < 50000; i++) {
		snprintf(key, sizeof(key), "f%d", i);
		v = ng_strmap_get(m, key, strlen(key), &added);
		T_ASSERT(v && added);
		if (v)
			*v = i;
	}
	for (i = 0; m && i < 50000; i += 7) {
		snprintf(key, sizeof(key), "f%d", i);
		v = ng_strmap_get(m, key, strlen(key), &added);
		T_ASSERT(v && !added && *v == i);
	}
	T_ASSERT(m && ng_strmap_count(m) == 50000);
	ng_strmap_free(m);
}

static const struct t_case cases[] = {
	{ "crafted_names", test_crafted_names },
	{ "lookups", test_lookups },
};

T_SUITE(strmap, cases);
