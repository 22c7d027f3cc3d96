// SPDX-License-Identifier: LGPL-2.1
/*
 * syms.c - the kernel's text symbols from a kallsyms listing, for naming
 * traced addresses: parsed once into one sorted array, looked up with a
 * binary search.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nanograph.h"

struct entry {
	struct ng_sym sym;
	size_t index;		/* input order, for a stable choice of alias */
	bool global;
};

struct ng_syms {
	struct entry *v;
	size_t n;
	char *arena;		/* every name and module string */
};

/* Address order; at one address a global symbol, then the earlier line. */
static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->sym.addr != y->sym.addr)
		return x->sym.addr < y->sym.addr ? -1 : 1;
	if (x->global != y->global)
		return x->global ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Parse one line; false for anything that is not a kept text symbol. */
static bool parse_line(const char *p, const char *end, uint64_t *addr,
		       char *type, const char **name, size_t *nlen,
		       const char **mod, size_t *mlen)
{
	uint64_t a = 0;
	const char *q;
	int digits = 0;

	for (; p < end && strchr("0123456789abcdefABCDEF", *p) && *p; p++, digits++)
		a = a * 16 + (*p <= '9' ? *p - '0' : (*p | 0x20) - 'a' + 10);
	if (!digits || digits > 16 || p + 3 > end || p[0] != ' ' || p[2] != ' ')
		return false;
	*type = p[1];
	if (!strchr("tTwW", *type) || !*type)
		return false;
	p += 3;
	for (q = p; q < end && *q != '\t' && *q != ' '; q++)
		;
	if (q == p)
		return false;
	*addr = a;
	*name = p;
	*nlen = q - p;
	*mod = NULL;
	*mlen = 0;
	while (q < end && (*q == '\t' || *q == ' '))
		q++;
	if (q < end && *q == '[') {
		const char *m = q + 1, *c = memchr(m, ']', end - m);

		if (c && c > m) {
			*mod = m;
			*mlen = c - m;
		}
	}
	return true;
}

/* Padding symbols before each function on 6.x kernels: never a caller's name. */
static bool padding(const char *name, size_t len)
{
	return (len > 6 && !memcmp(name, "__pfx_", 6)) ||
	       (len > 6 && !memcmp(name, "__cfi_", 6));
}

int ng_syms_parse(struct ng_syms **sp, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *eol, *name, *mod;
	size_t nlen, mlen, cap = 0, used = 0, arena_size = 0, lines = 0;
	bool nonzero = false;
	struct ng_syms *s;
	uint64_t addr;
	char type;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	/* Names and modules are at most the input's size. */
	s->arena = malloc(len + 1);
	if (!s->arena) {
		free(s);
		return -ENOMEM;
	}
	for (; p < end; p = eol + 1, lines++) {
		eol = memchr(p, '\n', end - p);
		if (!eol)
			eol = end;
		if (!parse_line(p, eol, &addr, &type, &name, &nlen, &mod, &mlen))
			continue;
		if (addr)
			nonzero = true;
		if (padding(name, nlen))
			continue;
		if (used == cap) {
			size_t ncap = cap ? 2 * cap : 4096;
			struct entry *nv = realloc(s->v, ncap * sizeof(*nv));

			if (!nv) {
				ng_syms_free(s);
				return -ENOMEM;
			}
			s->v = nv;
			cap = ncap;
		}
		s->v[used].sym.addr = addr;
		s->v[used].index = lines;
		s->v[used].global = type == 'T' || type == 'W';
		memcpy(s->arena + arena_size, name, nlen);
		s->v[used].sym.name = (const char *)(uintptr_t)arena_size;
		arena_size += nlen;
		s->arena[arena_size++] = '\0';
		s->v[used].sym.module = NULL;
		if (mod) {
			memcpy(s->arena + arena_size, mod, mlen);
			s->v[used].sym.module = (const char *)(uintptr_t)(arena_size + 1);
			arena_size += mlen;
			s->arena[arena_size++] = '\0';
		}
		used++;
	}
	if (!used) {
		ng_syms_free(s);
		return -ENOENT;
	}
	if (!nonzero) {
		ng_syms_free(s);
		return -EPERM;
	}
	s->n = used;
	/* Offsets become pointers once the arena stops moving (it never does). */
	for (used = 0; used < s->n; used++) {
		struct ng_sym *y = &s->v[used].sym;

		y->name = s->arena + (uintptr_t)y->name;
		if (y->module)
			y->module = s->arena + (uintptr_t)y->module - 1;
	}
	qsort(s->v, s->n, sizeof(*s->v), entry_cmp);
	*sp = s;
	return 0;
}

/* /proc/kallsyms reports size 0: read until EOF. */
int ng_syms_load(struct ng_syms **sp, const char *path)
{
	size_t len = 0, cap = 1 << 20;
	char *buf = malloc(cap), *nb;
	ssize_t n;
	int fd, ret;

	if (!buf)
		return -ENOMEM;
	fd = open(path ? path : "/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		free(buf);
		return ret;
	}
	for (;;) {
		if (len == cap) {
			nb = realloc(buf, cap * 2);
			if (!nb) {
				ret = -ENOMEM;
				goto out;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			goto out;
		}
		if (!n)
			break;
		len += n;
	}
	ret = ng_syms_parse(sp, buf, len);
out:
	close(fd);
	free(buf);
	return ret;
}

/* The last symbol at or below @addr; among aliases the first in sort order. */
const struct ng_sym *ng_syms_lookup(const struct ng_syms *s, uint64_t addr)
{
	size_t lo = 0, hi, mid;

	if (!s || !s->n || addr < s->v[0].sym.addr)
		return NULL;
	hi = s->n;
	/* Find the first entry above @addr; the answer's address is just before. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (s->v[mid].sym.addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	addr = s->v[lo - 1].sym.addr;
	/* Back to the first alias at that address. */
	for (lo--; lo > 0 && s->v[lo - 1].sym.addr == addr; lo--)
		;
	return &s->v[lo].sym;
}

size_t ng_syms_count(const struct ng_syms *s)
{
	return s ? s->n : 0;
}

void ng_syms_free(struct ng_syms *s)
{
	if (!s)
		return;
	free(s->v);
	free(s->arena);
	free(s);
}
