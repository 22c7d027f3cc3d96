/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * strmap.h - library-internal: a hash map from byte-string keys to small
 * fixed-size values, for the aggregations of report and export (functions,
 * interned labels, call-stack nodes). It grows with its content, so lookups
 * stay O(1) whether a recording has ten functions or a million stacks.
 * A layer over the one hash map (hashmap.h) that owns its entries.
 */
#ifndef NG_STRMAP_H
#define NG_STRMAP_H

#include <stdbool.h>
#include <stddef.h>

struct ng_strmap;

/* A map whose values are @value_size bytes each; NULL without memory. */
struct ng_strmap *ng_strmap_new(size_t value_size);
/*
 * The value stored under @key (@len bytes), added and zeroed if new
 * (*@added, may be NULL, says which). NULL without memory. A value never
 * moves: its address is valid until ng_strmap_free().
 */
void *ng_strmap_get(struct ng_strmap *m, const void *key, size_t len,
		    bool *added);
/* The value stored under @key (@len bytes), or NULL: nothing added. */
void *ng_strmap_find(const struct ng_strmap *m, const void *key, size_t len);
/* The key of a value from this map, NUL-terminated, as stable as the value. */
const char *ng_strmap_key(const void *value);
size_t ng_strmap_count(const struct ng_strmap *m);
/* Every value, in no particular order: a malloc'd array the caller frees. */
int ng_strmap_values(const struct ng_strmap *m, void ***valuesp, size_t *nr);
void ng_strmap_free(struct ng_strmap *m);
/* The most slots a lookup of a present key probes (tests: the hash's spread). */
size_t ng_strmap_longest_probe(const struct ng_strmap *m);

#endif /* NG_STRMAP_H */
