// SPDX-License-Identifier: LGPL-2.1
/*
 * strmap.c - the hash map behind report and export: chained buckets that
 * double when the map holds as many entries as buckets, word-wise hashes
 * kept in each entry so growing never hashes a key twice, and each entry one
 * allocation holding its value and a copy of its key.
 */
#include <errno.h>
#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/random.h>

#include "strmap.h"

struct entry {
	struct entry *next;
	uint64_t hash;
	size_t len;
	const char *key;	/* in this allocation, after the value */
	max_align_t value[];
};

struct ng_strmap {
	struct entry **buckets;
	size_t nr_buckets;	/* a power of two */
	size_t count;
	size_t value_size;	/* rounded up to keep keys after it aligned */
	uint64_t seed;		/* this map's hash key */
};

#define STRMAP_FIRST_BUCKETS	256

/*
 * Eight bytes at a time, each word mixed in by a multiply, and the
 * result finished with the murmur3 finalizer so that the low bits (the
 * bucket) depend on every byte: a hash per call of a recording is most of
 * the cost of a lookup, and byte-at-a-time FNV-1a was twice as slow on
 * function names.
 */
static uint64_t hash_bytes(const void *key, size_t len, uint64_t seed)
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

/*
 * The hash key of the maps of this process, random: names come from the
 * recording, and a recording can be made to hold names that all fall in
 * one bucket of a hash known in advance (60,000 crafted names took report
 * from 0.14 s to 22 s).  Each map keeps the key it started with.
 */
static uint64_t strmap_seed(void)
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

/* Start small: most maps (one per thread in report --threads) stay so. */
struct ng_strmap *ng_strmap_new(size_t value_size)
{
	struct ng_strmap *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->nr_buckets = STRMAP_FIRST_BUCKETS;
	m->seed = strmap_seed();
	m->buckets = calloc(m->nr_buckets, sizeof(*m->buckets));
	if (!m->buckets) {
		free(m);
		return NULL;
	}
	m->value_size = (value_size + alignof(max_align_t) - 1) &
			~(alignof(max_align_t) - 1);
	return m;
}

/* Double the buckets; on failure keep the old ones (only slower). */
static void grow(struct ng_strmap *m)
{
	size_t n = m->nr_buckets * 2, i;
	struct entry **b = calloc(n, sizeof(*b)), *e, *next;

	if (!b)
		return;
	for (i = 0; i < m->nr_buckets; i++)
		for (e = m->buckets[i]; e; e = next) {
			next = e->next;
			e->next = b[e->hash & (n - 1)];
			b[e->hash & (n - 1)] = e;
		}
	free(m->buckets);
	m->buckets = b;
	m->nr_buckets = n;
}

/* Find or add in one call: every user wants the entry either way. */
void *ng_strmap_get(struct ng_strmap *m, const void *key, size_t len,
		    bool *added)
{
	uint64_t h = hash_bytes(key, len, m->seed);
	struct entry **b = &m->buckets[h & (m->nr_buckets - 1)], *e;
	char *k;

	if (added)
		*added = false;
	for (e = *b; e; e = e->next)
		if (e->hash == h && e->len == len && !memcmp(e->key, key, len))
			return e->value;
	e = calloc(1, sizeof(*e) + m->value_size + len + 1);
	if (!e)
		return NULL;
	k = (char *)e->value + m->value_size;
	memcpy(k, key, len);
	k[len] = '\0';
	e->key = k;
	e->len = len;
	e->hash = h;
	e->next = *b;
	*b = e;
	if (added)
		*added = true;
	if (++m->count > m->nr_buckets)
		grow(m);
	return e->value;
}

/* The value stored under @key, or NULL: nothing is added. */
void *ng_strmap_find(const struct ng_strmap *m, const void *key, size_t len)
{
	uint64_t h = hash_bytes(key, len, m->seed);
	struct entry *e;

	for (e = m->buckets[h & (m->nr_buckets - 1)]; e; e = e->next)
		if (e->hash == h && e->len == len && !memcmp(e->key, key, len))
			return e->value;
	return NULL;
}

/* The key sits in the same allocation, so a value leads back to it. */
const char *ng_strmap_key(const void *value)
{
	const struct entry *e = (const void *)((const char *)value -
					       offsetof(struct entry, value));

	return e->key;
}

/* How many entries, e.g. to size an array before ng_strmap_values(). */
size_t ng_strmap_count(const struct ng_strmap *m)
{
	return m->count;
}

/* A flat array, for sorting the entries or walking them once. */
int ng_strmap_values(const struct ng_strmap *m, void ***valuesp, size_t *nr)
{
	void **v = malloc((m->count ? m->count : 1) * sizeof(*v));
	struct entry *e;
	size_t i, n = 0;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < m->nr_buckets; i++)
		for (e = m->buckets[i]; e; e = e->next)
			v[n++] = e->value;
	*valuesp = v;
	*nr = n;
	return 0;
}

/* Free every entry (values and keys together) and the map; NULL is fine. */
void ng_strmap_free(struct ng_strmap *m)
{
	struct entry *e, *next;
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nr_buckets; i++)
		for (e = m->buckets[i]; e; e = next) {
			next = e->next;
			free(e);
		}
	free(m->buckets);
	free(m);
}

size_t ng_strmap_longest_chain(const struct ng_strmap *m)
{
	size_t i, n, most = 0;
	struct entry *e;

	for (i = 0; i < m->nr_buckets; i++) {
		for (n = 0, e = m->buckets[i]; e; e = e->next)
			n++;
		if (n > most)
			most = n;
	}
	return most;
}
