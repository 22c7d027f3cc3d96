/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * hashmap.h - library-internal: the collector's one hash map, under the
 * string map of report and export (strmap.c), convert's threads and
 * symbols, and the threads a recording has seen (tasks.c).
 *
 * Open addressing with linear probing over a power-of-two array of
 * slots, each an item pointer and the item's 64-bit hash, whose top bits
 * are the slot a lookup starts at (so the hash must mix upwards, as a
 * multiply does). A probe reads
 * one 16-byte slot and compares the whole hash before it looks at the
 * item, so a miss rarely touches the item's memory. The items are the
 * caller's and never move (the map holds pointers), so a pointer to one
 * stays valid across growth. The map doubles past half full; deletion
 * shifts the following run back (no tombstones).
 *
 * Keys are the caller's: it gives the hash and an equality test. The
 * find is inline, so the test (a constant function) inlines too. For
 * 64-bit keys, ng_hmap_u64_hash() is a bijection: equal hashes are equal
 * keys, and the u64 calls compare hashes only.
 *
 * Hashes take a random key per process (ng_hash_seed()): names,
 * addresses and tids come from a recording, which can be made to hold
 * keys that all fall in one place of a hash known in advance. For
 * strings the key goes through every step; for u64 keys it is only
 * xored in before the multiply (a weaker defence, kept cheap: tids and
 * addresses are bounded by the kernel, names are anyone's).
 */
#ifndef NG_HASHMAP_H
#define NG_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ng_hmap_slot {
	uint64_t hash;
	void *item;		/* NULL: empty */
};

struct ng_hmap {
	struct ng_hmap_slot *slots;
	size_t mask;		/* slots - 1, slots a power of two */
	unsigned int shift;	/* 64 - log2(slots): a hash's top bits are its home */
	size_t count;
};

/* The slot a lookup of @hash starts at: the hash's top bits. */
static inline size_t ng_hmap_home(const struct ng_hmap *m, uint64_t hash)
{
	return (size_t)(hash >> m->shift);
}

/* An empty map of at least @slots slots (rounded up); -ENOMEM.  Before any use. */
int ng_hmap_init(struct ng_hmap *m, size_t slots);
/* The slots go; the items are the caller's to free (first, if need be). */
void ng_hmap_fini(struct ng_hmap *m);
/*
 * Add @item under @hash; the caller made sure no equal key is there.
 * -ENOMEM if the map had to grow and could not: the item is not added.
 */
int ng_hmap_add(struct ng_hmap *m, uint64_t hash, void *item);
/* Remove @item (found by its hash and pointer); false if absent. */
bool ng_hmap_del(struct ng_hmap *m, uint64_t hash, const void *item);
/* The longest run of probes a lookup of a present key takes (tests). */
size_t ng_hmap_longest_probe(const struct ng_hmap *m);

/* The item of slot *@i or after, *@i moved past it; NULL at the end. */
static inline void *ng_hmap_next(const struct ng_hmap *m, size_t *i)
{
	for (; m->slots && *i <= m->mask; (*i)++)
		if (m->slots[*i].item)
			return m->slots[(*i)++].item;
	return NULL;
}

/* The item under @hash for which @eq(item, @key) holds, or NULL. */
static inline void *ng_hmap_find(const struct ng_hmap *m, uint64_t hash,
				 bool (*eq)(const void *item, const void *key),
				 const void *key)
{
	size_t i = ng_hmap_home(m, hash);

	for (;; i = (i + 1) & m->mask) {
		const struct ng_hmap_slot *s = &m->slots[i];

		if (!s->item)
			return NULL;
		if (s->hash == hash && eq(s->item, key))
			return s->item;
	}
}

/* This process's hash key, random, never 0. */
uint64_t ng_hash_seed(void);
/* A seeded hash of @len bytes, eight at a time. */
uint64_t ng_hash_bytes(const void *key, size_t len, uint64_t seed);

/*
 * A bijection of @key: the seed's xor, then a multiply by an odd number
 * (Fibonacci hashing), whose top bits, the home slot, depend on every
 * bit of the key; one multiply, for convert's lookup of each event's
 * thread and each entry's function (convert's tables hashed so before).
 */
static inline uint64_t ng_hmap_u64_hash(uint64_t key, uint64_t seed)
{
	return (key ^ seed) * 0x9e3779b97f4a7c15ULL;
}

/* For ng_hmap_u64_hash() keys: equal hashes are equal keys. */
static inline void *ng_hmap_find_hash(const struct ng_hmap *m, uint64_t hash)
{
	size_t i = ng_hmap_home(m, hash);

	for (;; i = (i + 1) & m->mask) {
		const struct ng_hmap_slot *s = &m->slots[i];

		if (!s->item || s->hash == hash)
			return s->item;
	}
}

#endif /* NG_HASHMAP_H */
