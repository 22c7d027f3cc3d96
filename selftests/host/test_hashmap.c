// SPDX-License-Identifier: GPL-2.0
/*
 * test_hashmap.c - the one hash map (lib/hashmap.c): lookups across
 * growth, deletion's backward shift against a plain array, iteration,
 * and the u64 keys' bijective hash.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../userspace/lib/hashmap.h"
#include "ktap.h"

struct item {
	uint64_t key;
	bool in;		/* in the map, as the test keeps it */
};

static bool item_eq(const void *item, const void *key)
{
	return ((const struct item *)item)->key == *(const uint64_t *)key;
}

/* A hash made to collide: four values only, so runs are long. */
static uint64_t bad_hash(uint64_t key)
{
	return (key & 3) << 60;
}

/* Every item found (or not) as the array says, by both lookups. */
static bool all_found(const struct ng_hmap *m, struct item *v, size_t n,
		      uint64_t seed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		void *a = ng_hmap_find(m, bad_hash(v[i].key), item_eq, &v[i].key);
		void *b = ng_hmap_find_hash(m, ng_hmap_u64_hash(v[i].key, seed));

		(void)b;
		if (a != (v[i].in ? &v[i] : NULL))
			return false;
	}
	return true;
}

/* Growth from 16 slots to 64K: every key found, the map half full at most. */
static void test_growth(void)
{
	enum { N = 20000 };
	struct item *v = calloc(N, sizeof(*v));
	uint64_t seed = ng_hash_seed();
	struct ng_hmap m;
	size_t i;

	T_ASSERT(v);
	T_EQ_INT(ng_hmap_init(&m, 1), 0);
	for (i = 0; i < N; i++) {
		v[i].key = i * 4096;	/* aligned like addresses */
		T_EQ_INT(ng_hmap_add(&m, ng_hmap_u64_hash(v[i].key, seed), &v[i]), 0);
	}
	T_EQ_INT(m.count, N);
	T_ASSERT(2 * m.count <= m.mask + 1);
	for (i = 0; i < N; i++)
		T_ASSERT(ng_hmap_find_hash(&m, ng_hmap_u64_hash(v[i].key, seed)) == &v[i]);
	T_ASSERT(!ng_hmap_find_hash(&m, ng_hmap_u64_hash(1, seed)));
	t_diag("%d aligned keys: longest probe %zu", N, ng_hmap_longest_probe(&m));
	T_ASSERT(ng_hmap_longest_probe(&m) < 64);
	ng_hmap_fini(&m);
	free(v);
}

/*
 * Adds and deletions at random under a hash of four values (runs that
 * wrap around the end of the slots): after each step every present item
 * is found and every deleted one is not.
 */
static void test_delete(void)
{
	enum { N = 200 };
	static struct item v[N];
	uint64_t rng = 88172645463325252ULL, seed = ng_hash_seed();
	struct ng_hmap m;
	size_t i, step, count = 0;

	T_EQ_INT(ng_hmap_init(&m, 16), 0);
	for (i = 0; i < N; i++)
		v[i] = (struct item){ .key = i * 7 + 1 };
	for (step = 0; step < 5000; step++) {
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		i = rng % N;
		if (v[i].in) {
			T_ASSERT(ng_hmap_del(&m, bad_hash(v[i].key), &v[i]));
			T_ASSERT(!ng_hmap_del(&m, bad_hash(v[i].key), &v[i]));
			count--;
		} else {
			T_EQ_INT(ng_hmap_add(&m, bad_hash(v[i].key), &v[i]), 0);
			count++;
		}
		v[i].in = !v[i].in;
		T_EQ_INT(m.count, count);
		if (!(step % 50))
			T_ASSERT(all_found(&m, v, N, seed));
	}
	T_ASSERT(all_found(&m, v, N, seed));
	ng_hmap_fini(&m);
}

/* ng_hmap_next() visits each item once. */
static void test_iterate(void)
{
	static struct item v[1000];
	struct ng_hmap m;
	struct item *it;
	size_t i, seen = 0;

	T_EQ_INT(ng_hmap_init(&m, 0), 0);
	for (i = 0; i < 1000; i++) {
		v[i].key = i;
		T_EQ_INT(ng_hmap_add(&m, ng_hmap_u64_hash(i, 1), &v[i]), 0);
	}
	for (i = 0; (it = ng_hmap_next(&m, &i));) {
		T_ASSERT(!it->in);
		it->in = true;
		seen++;
	}
	T_EQ_INT(seen, 1000);
	ng_hmap_fini(&m);
	i = 0;
	T_ASSERT(!ng_hmap_next(&m, &i));
}

/* Distinct keys, distinct hashes: the u64 lookups compare hashes only. */
static void test_u64_bijective(void)
{
	uint64_t seed = ng_hash_seed(), k;

	for (k = 0; k < 100000; k++)
		T_ASSERT(ng_hmap_u64_hash(k, seed) != ng_hmap_u64_hash(k + 1, seed));
	T_ASSERT(ng_hmap_u64_hash(0, seed) != ng_hmap_u64_hash(UINT64_MAX, seed));
	T_ASSERT(ng_hash_bytes("vfs_read", 8, seed) != ng_hash_bytes("vfs_reae", 8, seed));
	T_ASSERT(ng_hash_bytes("", 0, seed) != ng_hash_bytes("", 0, seed + 2));
}

static const struct t_case cases[] = {
	{ "growth", test_growth },
	{ "delete", test_delete },
	{ "iterate", test_iterate },
	{ "u64_bijective", test_u64_bijective },
};

T_SUITE(hashmap, cases);
