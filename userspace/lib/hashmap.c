// SPDX-License-Identifier: LGPL-2.1
/*
 * hashmap.c - the collector's one hash map (hashmap.h): growth, deletion
 * and the hashes. Lookups are inline in hashmap.h.
 *
 * Growth rehashes nothing: each slot keeps its item's hash, so doubling
 * is one pass placing each item at its hash's first free slot. Deletion
 * closes the gap at once (the "backward shift" of linear probing): each
 * item after it in the run moves back into the gap unless its own home
 * slot lies between the gap and itself, so every lookup still finds its
 * item before an empty slot, and no deleted marker is ever left.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/random.h>

#include "hashmap.h"

int ng_hmap_init(struct ng_hmap *m, size_t slots)
{
	unsigned int bits = 4;

	while ((1UL << bits) < slots)
		bits++;
	m->slots = calloc(1UL << bits, sizeof(*m->slots));
	if (!m->slots)
		return -ENOMEM;
	m->mask = (1UL << bits) - 1;
	m->shift = 64 - bits;
	m->count = 0;
	return 0;
}

void ng_hmap_fini(struct ng_hmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->mask = m->count = 0;
}

/* The first free slot of @hash's run: where an item of it goes. */
static void place(struct ng_hmap *m, uint64_t hash, void *item)
{
	size_t i = ng_hmap_home(m, hash);

	while (m->slots[i].item)
		i = (i + 1) & m->mask;
	m->slots[i].hash = hash;
	m->slots[i].item = item;
}

/* Twice the slots, each item placed again by its kept hash. */
static int grow(struct ng_hmap *m)
{
	struct ng_hmap old = *m;
	size_t i;

	m->slots = calloc(2 * (old.mask + 1), sizeof(*m->slots));
	if (!m->slots) {
		*m = old;
		return -ENOMEM;
	}
	m->mask = 2 * old.mask + 1;
	m->shift = old.shift - 1;
	for (i = 0; i <= old.mask; i++)
		if (old.slots[i].item)
			place(m, old.slots[i].hash, old.slots[i].item);
	free(old.slots);
	return 0;
}

/* At most half full: linear probing's runs stay short. */
int ng_hmap_add(struct ng_hmap *m, uint64_t hash, void *item)
{
	int ret;

	if (2 * (m->count + 1) > m->mask + 1) {
		ret = grow(m);
		if (ret)
			return ret;
	}
	place(m, hash, item);
	m->count++;
	return 0;
}

/* Whether slot @home lies cyclically in (@gap, @at]: then @at stays. */
static bool home_between(size_t gap, size_t home, size_t at)
{
	if (gap <= at)
		return gap < home && home <= at;
	return gap < home || home <= at;
}

bool ng_hmap_del(struct ng_hmap *m, uint64_t hash, const void *item)
{
	size_t i = ng_hmap_home(m, hash), gap, j;

	while (m->slots[i].item != item) {
		if (!m->slots[i].item)
			return false;
		i = (i + 1) & m->mask;
	}
	gap = i;
	for (j = (gap + 1) & m->mask; m->slots[j].item; j = (j + 1) & m->mask) {
		if (home_between(gap, ng_hmap_home(m, m->slots[j].hash), j))
			continue;
		m->slots[gap] = m->slots[j];
		gap = j;
	}
	m->slots[gap].item = NULL;
	m->count--;
	return true;
}

size_t ng_hmap_longest_probe(const struct ng_hmap *m)
{
	size_t i, n, most = 0;

	for (i = 0; i <= m->mask; i++) {
		if (!m->slots[i].item)
			continue;
		n = ((i - ng_hmap_home(m, m->slots[i].hash)) & m->mask) + 1;
		if (n > most)
			most = n;
	}
	return most;
}

/*
 * The hash key of this process, random: 60,000 function names crafted
 * for one bucket of strmap's unkeyed hash took report from 0.14 s to
 * 22 s. Every map keeps using the key it started with.
 */
uint64_t ng_hash_seed(void)
{
	static uint64_t seed;
	uint64_t s = __atomic_load_n(&seed, __ATOMIC_RELAXED);
	struct timespec ts;

	if (s)
		return s;
	if (getrandom(&s, sizeof(s), GRND_NONBLOCK) != sizeof(s)) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		s = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ULL ^
		    (uint64_t)(uintptr_t)&ts ^ (uint64_t)ts.tv_sec;
	}
	s |= 1;
	__atomic_store_n(&seed, s, __ATOMIC_RELAXED);
	return s;
}

/*
 * Eight bytes at a time, each word mixed in by a multiply, and the
 * result finished with the murmur3 finalizer so that the low bits (the
 * slot) depend on every byte: a hash per call of a recording is most of
 * the cost of a lookup, and byte-at-a-time FNV-1a was twice as slow on
 * function names.
 */
uint64_t ng_hash_bytes(const void *key, size_t len, uint64_t seed)
{
	const unsigned char *p = key, *end = p + len;
	uint64_t h = 0xcbf29ce484222325ULL ^ seed ^ len, w;

	if (len >= 8) {
		for (; end - p > 8; p += 8) {
			memcpy(&w, p, 8);
			h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
			h ^= h >> 32;
		}
		/* the last 8 bytes, overlapping the previous word if need be */
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
