// SPDX-License-Identifier: LGPL-2.1
/*
 * syms.c - the kernel's text symbols, read once from a kallsyms listing so
 * that naming a traced address costs one binary search and never a read.
 *
 * Input: the format of /proc/kallsyms, one symbol a line,
 *
 *	<hex address> <type> <name>
 *	<hex address> <type> <name>\t[<module>]
 *
 * Only text symbols (types t, T, w, W) are kept: a traced address is a
 * function's entry. A line that does not parse is skipped, whatever it
 * holds: the listing may come from any kernel or file, and one odd line
 * must not cost the names of all the others. Nothing is read past the
 * given length, so the last line needs no newline and the buffer no NUL.
 *
 * Several names can share one address (_stext and _text, SYM_FUNC_ALIAS).
 * The table keeps one name per address, chosen the same way on every run
 * so that two conversions of one trace agree: a global symbol (T, W)
 * before a local one (t, w), then the first in input order.
 *
 * Kernels with call padding or kCFI place a "__pfx_<name>" or
 * "__cfi_<name>" symbol in the bytes just before each function. Neither is
 * ever the name of code that runs, so both are dropped; an address in that
 * padding resolves to the function before it, and a traced entry address
 * never lies there.
 *
 * Cost: parsing makes one array of lines that point into the input (no
 * allocation per line), sorts it once, then copies the names it keeps into
 * one arena of exactly the size needed; runs of one module's symbols share
 * one copy of the module's name. The table never refers to the caller's
 * buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nanograph.h"

struct ng_syms {
	struct ng_sym *v;	/* by address, one per address */
	size_t n;
	char *arena;		/* every name and module string */
};

/* One parsed line while the table is built; its strings are in the input. */
struct line {
	uint64_t addr;
	const char *name;
	const char *mod;	/* NULL for the core kernel */
	size_t nlen, mlen;
	size_t index;		/* input order, for a stable choice of alias */
	bool global;
	bool text;		/* t, T, w, W: kept; other types only bound */
};

/* Value of hex digit @c, or -1; by hand, as isxdigit() follows the locale. */
static int hex_digit(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Names and modules are printable and unbroken: anything else ends them. */
static bool name_char(unsigned char c)
{
	return c > ' ' && c != 0x7f;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/*
 * Parse the line [@p, @end) into @l; false for anything but a well-formed
 * symbol line (l->text says whether it is a text symbol). Every read is
 * checked against @end: the line is not NUL-terminated.
 */
static bool parse_line(const char *p, const char *end, struct line *l)
{
	uint64_t addr = 0;
	int digits = 0, d;
	const char *q;
	char type;

	for (; p < end && (d = hex_digit(*p)) >= 0; p++) {
		if (++digits > 16)
			return false;
		addr = addr << 4 | d;
	}
	/* " <type> " and at least one character of name. */
	if (!digits || end - p < 4 || p[0] != ' ' || p[2] != ' ')
		return false;
	type = p[1];
	if (!((type >= 'a' && type <= 'z') || (type >= 'A' && type <= 'Z')))
		return false;
	l->text = type == 't' || type == 'T' || type == 'w' || type == 'W';
	p += 3;
	for (q = p; q < end && name_char(*q); q++)
		;
	if (q == p)
		return false;
	l->addr = addr;
	l->global = type == 'T' || type == 'W';
	l->name = p;
	l->nlen = q - p;
	l->mod = NULL;
	l->mlen = 0;
	for (p = q; p < end && blank(*p); p++)
		;
	if (p < end && *p == '[') {
		for (q = ++p; q < end && name_char(*q) && *q != ']'; q++)
			;
		if (q == p || q == end || *q != ']')
			return false;
		l->mod = p;
		l->mlen = q - p;
		for (p = q + 1; p < end && blank(*p); p++)
			;
	}
	return p == end;
}

/* The padding symbols before each function on call-padding and kCFI kernels. */
static bool padding(const struct line *l)
{
	return l->nlen >= 6 && (!memcmp(l->name, "__pfx_", 6) ||
				!memcmp(l->name, "__cfi_", 6));
}

/* Address order; at one address a global symbol, then the earlier line. */
static int line_cmp(const void *a, const void *b)
{
	const struct line *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->global != y->global)
		return x->global ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Whether @l's module is that of @prev, the line kept before it (or NULL). */
static bool same_mod(const struct line *l, const struct line *prev)
{
	return prev && prev->mod && l->mlen == prev->mlen &&
	       !memcmp(l->mod, prev->mod, l->mlen);
}

/*
 * Split @buf into lines and keep the text symbols. Sets *@nonzero if any
 * text symbol, padding included, has an address other than zero, and
 * *@core_top to the highest address of a core kernel symbol that is not
 * text (_end: where the kernel image ends), 0 if there is none.
 */
static int parse_lines(const char *buf, size_t len, struct line **linesp,
		       size_t *np, bool *nonzero, uint64_t *core_top)
{
	const char *p = buf, *end = buf + len, *eol;
	struct line *lines = NULL, *nl;
	size_t n = 0, cap = 0;

	*nonzero = false;
	*core_top = 0;
	for (; p < end; p = eol < end ? eol + 1 : end) {
		eol = memchr(p, '\n', end - p);
		if (!eol)
			eol = end;
		if (n == cap) {
			size_t ncap = cap ? 2 * cap : 4096;

			if (ncap > SIZE_MAX / 2 / sizeof(*lines))
				goto nomem;
			nl = realloc(lines, ncap * sizeof(*lines));
			if (!nl)
				goto nomem;
			lines = nl;
			cap = ncap;
		}
		if (!parse_line(p, eol, &lines[n]))
			continue;
		if (!lines[n].text) {
			if (!lines[n].mod && lines[n].addr > *core_top)
				*core_top = lines[n].addr;
			continue;
		}
		if (lines[n].addr)
			*nonzero = true;
		if (padding(&lines[n]))
			continue;
		lines[n].index = n;
		n++;
	}
	*linesp = lines;
	*np = n;
	return 0;
nomem:
	free(lines);
	return -ENOMEM;
}

/*
 * Where each symbol ends: where the next one starts, if that is of the
 * same module (or both of the core kernel: module strings of one run are
 * shared, so the pointers compare). The last symbol of the core kernel
 * ends just past the core kernel's highest data symbol (_end, the end of
 * its image) when there is one above it; the last of a module where the
 * next symbol starts,
 * until ng_syms_set_modules() gives the module's end. Nothing extends
 * past the next symbol; UINT64_MAX is no end at all.
 */
static void set_ends(struct ng_syms *s, uint64_t core_top)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		struct ng_sym *y = &s->v[i];

		y->end = i + 1 < s->n ? s->v[i + 1].addr : UINT64_MAX;
		if (i + 1 < s->n && s->v[i + 1].module == y->module)
			continue;
		/* past the core kernel's last symbol, _end: not the kernel's */
		if (!y->module && core_top >= y->addr && core_top < y->end - 1)
			y->end = core_top + 1;
	}
}

/*
 * Parse a kallsyms listing into a table that owns its strings; *@sp is
 * NULL on error, so that callers can free it either way.
 */
int ng_syms_parse(struct ng_syms **sp, const char *buf, size_t len)
{
	const struct line *prev = NULL;
	size_t n, i, kept, size = 0;
	struct ng_syms *s = NULL;
	struct line *lines;
	uint64_t core_top;
	bool nonzero;
	char *a;
	int ret;

	*sp = NULL;
	if (!len)
		return -ENOENT;
	ret = parse_lines(buf, len, &lines, &n, &nonzero, &core_top);
	if (ret)
		return ret;
	if (!n) {
		ret = -ENOENT;
		goto out;
	}
	if (!nonzero) {
		ret = -EPERM;
		goto out;
	}
	qsort(lines, n, sizeof(*lines), line_cmp);
	/* One symbol per address: the first in sort order is the chosen alias. */
	for (i = kept = 0; i < n; i++) {
		if (kept && lines[i].addr == lines[kept - 1].addr)
			continue;
		lines[kept] = lines[i];
		size += lines[kept].nlen + 1;
		if (lines[kept].mod && !same_mod(&lines[kept], prev))
			size += lines[kept].mlen + 1;
		prev = &lines[kept++];
	}
	ret = -ENOMEM;
	s = calloc(1, sizeof(*s));
	if (!s)
		goto out;
	s->v = malloc(kept * sizeof(*s->v));
	s->arena = malloc(size);
	if (!s->v || !s->arena)
		goto out;
	/* The same walk again, copying; a module like the previous one is shared. */
	a = s->arena;
	prev = NULL;
	for (i = 0; i < kept; i++) {
		struct ng_sym *y = &s->v[i];

		y->addr = lines[i].addr;
		y->name = memcpy(a, lines[i].name, lines[i].nlen);
		a += lines[i].nlen;
		*a++ = '\0';
		if (!lines[i].mod) {
			y->module = NULL;
		} else if (same_mod(&lines[i], prev)) {
			y->module = s->v[i - 1].module;
		} else {
			y->module = memcpy(a, lines[i].mod, lines[i].mlen);
			a += lines[i].mlen;
			*a++ = '\0';
		}
		prev = &lines[i];
	}
	s->n = kept;
	set_ends(s, core_top);
	*sp = s;
	s = NULL;
	ret = 0;
out:
	ng_syms_free(s);
	free(lines);
	return ret;
}

/*
 * Read a whole file: /proc/kallsyms (and /proc/modules) report size 0
 * and are produced as they are read, so the file is read until EOF
 * whatever its size says; the size only sizes the first buffer of a
 * regular file.
 */
static int read_file(const char *path, char **bufp, size_t *lenp)
{
	size_t len = 0, cap = 1 << 20;
	struct stat st;
	char *buf, *nb;
	ssize_t r;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* One byte more than the size: the read that sees EOF needs no growth. */
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size < SIZE_MAX / 4)
		cap = st.st_size + 1;
	buf = malloc(cap);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	for (;;) {
		if (len == cap) {
			if (cap > SIZE_MAX / 2) {
				ret = -ENOMEM;
				goto out;
			}
			nb = realloc(buf, cap * 2);
			if (!nb) {
				ret = -ENOMEM;
				goto out;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = -errno;
			goto out;
		}
		if (!r)
			break;
		len += r;
	}
	*bufp = buf;
	*lenp = len;
	buf = NULL;
	ret = 0;
out:
	close(fd);
	free(buf);
	return ret;
}

int ng_syms_load(struct ng_syms **sp, const char *path)
{
	char *buf = NULL;
	size_t len;
	int ret;

	*sp = NULL;
	ret = read_file(path ? path : "/proc/kallsyms", &buf, &len);
	if (!ret)
		ret = ng_syms_parse(sp, buf, len);
	free(buf);
	return ret;
}

/*
 * The symbol @addr lies in: the last one at or below it. Aliases were
 * merged at parse time, so this is one binary search and nothing more.
 */
const struct ng_sym *ng_syms_lookup(const struct ng_syms *s, uint64_t addr)
{
	size_t lo = 0, hi, mid;

	if (!s || !s->n || addr < s->v[0].addr)
		return NULL;
	/* Invariant: v[lo].addr <= addr, and hi == n or v[hi].addr > addr. */
	hi = s->n;
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (s->v[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/* UINT64_MAX: no end known */
	return addr < s->v[lo].end || s->v[lo].end == UINT64_MAX ?
	       &s->v[lo] : NULL;
}

/* ---- module ends, from /proc/modules ---- */

struct module_range {
	const char *name;	/* in the listing */
	size_t nlen;
	uint64_t base, end;
};

static int module_cmp(const void *a, const void *b)
{
	const struct module_range *x = a, *y = b;
	size_t n = x->nlen < y->nlen ? x->nlen : y->nlen;
	int c = memcmp(x->name, y->name, n);

	return c ? c : (x->nlen > y->nlen) - (x->nlen < y->nlen);
}

/*
 * One line of /proc/modules: "name size refcount deps state 0xaddress",
 * maybe more; false unless it has a name, a size and a nonzero address.
 */
static bool parse_module(const char *p, const char *end,
			 struct module_range *m)
{
	const char *field[6];
	size_t flen[6];
	char num[24];
	uint64_t size, addr = 0;
	int f, d;

	for (f = 0; f < 6; f++) {
		while (p < end && blank(*p))
			p++;
		field[f] = p;
		while (p < end && name_char(*p))
			p++;
		flen[f] = p - field[f];
		if (!flen[f])
			return false;
	}
	if (flen[1] >= sizeof(num))
		return false;
	memcpy(num, field[1], flen[1]);
	num[flen[1]] = '\0';
	if (ng_parse_num(num, 0, 1, UINT32_MAX, &size))
		return false;
	if (flen[5] < 3 || flen[5] > 18 || memcmp(field[5], "0x", 2))
		return false;
	for (p = field[5] + 2; p < field[5] + flen[5]; p++) {
		d = hex_digit(*p);
		if (d < 0)
			return false;
		addr = addr << 4 | d;
	}
	if (!addr || addr + size < addr)
		return false;
	m->name = field[0];
	m->nlen = flen[0];
	m->base = addr;
	m->end = addr + size;
	return true;
}

/*
 * Bound each module's symbols by the module's end, and the symbols of a
 * module the listing does not have (an unloaded one, [bpf] programs and
 * [__builtin__ftrace] trampolines, each its own allocation) to a page:
 * code that lies past them is code the table does not know.
 */
int ng_syms_set_modules(struct ng_syms *s, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *eol;
	struct module_range *mods = NULL, *nm, key, *m;
	size_t n = 0, cap = 0, i;

	for (; p < end; p = eol < end ? eol + 1 : end) {
		eol = memchr(p, '\n', end - p);
		if (!eol)
			eol = end;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			nm = realloc(mods, cap * sizeof(*mods));
			if (!nm) {
				free(mods);
				return -ENOMEM;
			}
			mods = nm;
		}
		n += parse_module(p, eol, &mods[n]);
	}
	if (!n) {
		free(mods);
		return -ENOENT;
	}
	qsort(mods, n, sizeof(*mods), module_cmp);
	for (i = 0; s && i < s->n; i++) {
		struct ng_sym *y = &s->v[i];
		uint64_t bound;

		if (!y->module)
			continue;
		key.name = y->module;
		key.nlen = strlen(y->module);
		m = bsearch(&key, mods, n, sizeof(*mods), module_cmp);
		if (!m)
			bound = y->addr + 4096 > y->addr ? y->addr + 4096 : UINT64_MAX;
		else if (y->addr >= m->base && y->addr < m->end)
			bound = m->end;
		else
			continue;	/* not where the listing puts it: leave it */
		if (bound < y->end)
			y->end = bound;
	}
	free(mods);
	return 0;
}

int ng_syms_load_modules(struct ng_syms *s, const char *path)
{
	char *buf = NULL;
	size_t len;
	int ret = read_file(path ? path : "/proc/modules", &buf, &len);

	if (!ret)
		ret = ng_syms_set_modules(s, buf, len);
	free(buf);
	return ret;
}

/* How many addresses have a name: text symbols less padding and aliases. */
size_t ng_syms_count(const struct ng_syms *s)
{
	return s ? s->n : 0;
}

/* Free the table and its strings; NULL is fine. */
void ng_syms_free(struct ng_syms *s)
{
	if (!s)
		return;
	free(s->v);
	free(s->arena);
	free(s);
}
