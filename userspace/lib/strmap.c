// SPDX-License-Identifier: LGPL-2.1
/*
 * strmap.c - the string map of report and export, on the one hash map
 * (hashmap.c): each entry one allocation holding its value and a copy of
 * its key, so values never move and a value leads back to its key; the
 * map's slots keep each entry's hash, so growing never hashes a key twice.
 */
#include <errno.h>
#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"
#include "strmap.h"

struct entry {
	size_t len;
	const char *key;	/* in this allocation, after the value */
	max_align_t value[];
};

struct ng_strmap {
	struct ng_hmap map;
	size_t value_size;	/* rounded up to keep keys after it aligned */
	uint64_t seed;		/* this map's hash key */
};

/* A key being looked up. */
struct key {
	const void *p;
	size_t len;
};

#define STRMAP_FIRST_SLOTS	256

/* Start small: most maps (one per thread in report --threads) stay so. */
struct ng_strmap *ng_strmap_new(size_t value_size)
{
	struct ng_strmap *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->seed = ng_hash_seed();
	if (ng_hmap_init(&m->map, STRMAP_FIRST_SLOTS)) {
		free(m);
		return NULL;
	}
	m->value_size = (value_size + alignof(max_align_t) - 1) &
			~(alignof(max_align_t) - 1);
	return m;
}

static bool key_eq(const void *item, const void *key)
{
	const struct entry *e = item;
	const struct key *k = key;

	return e->len == k->len && !memcmp(e->key, k->p, k->len);
}

/* Find or add in one call: every user wants the entry either way. */
void *ng_strmap_get(struct ng_strmap *m, const void *key, size_t len,
		    bool *added)
{
	uint64_t h = ng_hash_bytes(key, len, m->seed);
	struct key k = { key, len };
	struct entry *e = ng_hmap_find(&m->map, h, key_eq, &k);
	char *copy;

	if (added)
		*added = false;
	if (e)
		return e->value;
	e = calloc(1, sizeof(*e) + m->value_size + len + 1);
	if (!e)
		return NULL;
	copy = (char *)e->value + m->value_size;
	memcpy(copy, key, len);
	copy[len] = '\0';
	e->key = copy;
	e->len = len;
	if (ng_hmap_add(&m->map, h, e)) {
		free(e);
		return NULL;
	}
	if (added)
		*added = true;
	return e->value;
}

/* The value stored under @key, or NULL: nothing is added. */
void *ng_strmap_find(const struct ng_strmap *m, const void *key, size_t len)
{
	struct key k = { key, len };
	struct entry *e = ng_hmap_find(&m->map, ng_hash_bytes(key, len, m->seed),
				       key_eq, &k);

	return e ? e->value : NULL;
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
	return m->map.count;
}

/* A flat array, for sorting the entries or walking them once. */
int ng_strmap_values(const struct ng_strmap *m, void ***valuesp, size_t *nr)
{
	void **v = malloc((m->map.count ? m->map.count : 1) * sizeof(*v));
	struct entry *e;
	size_t i = 0, n = 0;

	if (!v)
		return -ENOMEM;
	while ((e = ng_hmap_next(&m->map, &i)))
		v[n++] = e->value;
	*valuesp = v;
	*nr = n;
	return 0;
}

/* Free every entry (values and keys together) and the map; NULL is fine. */
void ng_strmap_free(struct ng_strmap *m)
{
	size_t i = 0;
	void *e;

	if (!m)
		return;
	while ((e = ng_hmap_next(&m->map, &i)))
		free(e);
	ng_hmap_fini(&m->map);
	free(m);
}

/* The longest probe of a present key: the hash's spread, for the tests. */
size_t ng_strmap_longest_probe(const struct ng_strmap *m)
{
	return ng_hmap_longest_probe(&m->map);
}
