// SPDX-License-Identifier: LGPL-2.1
/*
 * values.c - a recording's args.tsv and retval.tsv (record --args,
 * --retaddr, --retval; trace-format.md): what each call was given and
 * where it returns to, found again by its thread, its entry's
 * nanoseconds and its depth (its push line's), and what it returned, by
 * its thread, its return's nanoseconds and its depth (its POP line's),
 * as counts.c finds counters.tsv's lines.
 *
 * And how the registers read.  With the function's prototype
 * (protos.tsv, from the kernel's BTF: btf.c), as its C types say: the
 * arguments by name, placed in the registers as the architecture's
 * calling convention puts them (a 64-bit one in an even pair on 32-bit
 * arm), integers in decimal cut to their width, pointers in hex, an
 * error code with its name ("-9 (EBADF)", an ERR_PTR() as
 * "ERR_PTR(-ENOMEM)"), a void function's value not at all.  Without
 * one, as function_graph's funcgraph-retval writes a value (hex, an
 * error code in decimal with its name) and the arguments as bare
 * registers.  Lines that do not parse are skipped, as a newer file's
 * fields would be.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nanograph.h"
#include "lines.h"
#include "strmap.h"

/* One table's lines, sorted by (tid, ns, depth) for bsearch. */
struct table {
	struct ng_call_values *v;
	size_t n, cap;
};

/* A type of protos.tsv: class (v s u b p x), bytes, C name. */
struct type {
	char cls;
	unsigned int size;
	char name[NG_TYPE_NAME_MAX];
};

#define PROTO_PARAMS	12

/* A function's prototype, from protos.tsv. */
struct proto {
	struct type ret;
	unsigned int nparams;
	struct {
		char name[64];
		struct type t;
	} params[PROTO_PARAMS];
};

struct ng_values {
	struct table args, rets;
	struct ng_strmap *protos;	/* label -> struct proto; NULL: none */
	bool regs32;		/* the recording's machine is 32-bit arm */
	bool have_rets;		/* retval.tsv was there */
};

static int values_cmp(const void *a, const void *b)
{
	const struct ng_call_values *x = a, *y = b;

	if (x->tid != y->tid)
		return (x->tid > y->tid) - (x->tid < y->tid);
	if (x->ns != y->ns)
		return (x->ns > y->ns) - (x->ns < y->ns);
	return (x->depth > y->depth) - (x->depth < y->depth);
}

static struct ng_call_values *table_add(struct table *t)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct ng_call_values *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		t->v = v;
		t->cap = cap;
	}
	memset(&t->v[t->n], 0, sizeof(t->v[t->n]));
	return &t->v[t->n++];
}

/* "NS TID DEPTH FUNCTION SITE [ARG...]", tab-separated, args in hex. */
static int args_line(void *priv, char *line)
{
	struct ng_values *vs = priv;
	struct ng_call_values e = { 0 };
	char *p, *end;
	int len = 0;

	if (sscanf(line, "%" SCNu64 "\t%d\t%u\t%*[^\t]\t%n", &e.ns, &e.tid,
		   &e.depth, &len) != 3 || !len)
		return 0;
	p = line + len;
	end = strchr(p, '\t');
	if (end)
		*end = '\0';
	if (strcmp(p, "-"))
		snprintf(e.site, sizeof(e.site), "%s", p);
	while (end && e.nargs < NG_ARGS_MAX) {
		p = end + 1;
		e.args[e.nargs] = strtoull(p, &end, 16);
		if (end == p || (*end && *end != '\t'))
			return 0;
		e.nargs++;
		if (!*end)
			break;
	}
	{
		struct ng_call_values *v = table_add(&vs->args);

		if (!v)
			return -ENOMEM;
		*v = e;
	}
	return 0;
}

/* "NS TID DEPTH FUNCTION VALUE", the value in hex. */
static int retval_line(void *priv, char *line)
{
	struct ng_values *vs = priv;
	struct ng_call_values e = { 0 }, *v;
	int len = 0;

	if (sscanf(line, "%" SCNu64 "\t%d\t%u\t%*[^\t]\t%" SCNx64 "%n", &e.ns,
		   &e.tid, &e.depth, &e.retval, &len) != 4 || !len)
		return 0;
	e.has_retval = true;
	v = table_add(&vs->rets);
	if (!v)
		return -ENOMEM;
	*v = e;
	return 0;
}

/* "CLASS:SIZE:NAME" of protos.tsv into @t; false if it does not parse. */
static bool type_parse(const char *text, struct type *t)
{
	int len = 0;

	if (sscanf(text, "%c:%u:%n", &t->cls, &t->size, &len) != 2 || !len ||
	    !strchr("vsubpx", t->cls) || t->size > 16)
		return false;
	snprintf(t->name, sizeof(t->name), "%s", text + len);
	return true;
}

/* "FUNCTION RET PARAM...": a prototype, each PARAM "CLASS:SIZE:NAME:TYPE". */
static int proto_line(void *priv, char *line)
{
	struct ng_values *vs = priv;
	char *f[2 + PROTO_PARAMS], *save = NULL, *tok;
	struct proto pr = { .nparams = 0 }, *slot;
	unsigned int n = 0, i;
	bool added;

	for (tok = strtok_r(line, "\t", &save); tok && n < 2 + PROTO_PARAMS;
	     tok = strtok_r(NULL, "\t", &save))
		f[n++] = tok;
	if (n < 2 || !type_parse(f[1], &pr.ret))
		return 0;
	for (i = 2; i < n; i++) {
		char *a = strchr(f[i], ':'), *b = a ? strchr(a + 1, ':') : NULL;
		char *c = b ? strchr(b + 1, ':') : NULL;
		char text[NG_TYPE_NAME_MAX + 16];

		if (!c || (size_t)(c - b - 1) >= sizeof(pr.params[0].name))
			return 0;
		snprintf(pr.params[pr.nparams].name, sizeof(pr.params[0].name),
			 "%.*s", (int)(c - b - 1), b + 1);
		snprintf(text, sizeof(text), "%.*s%s", (int)(b - f[i] + 1), f[i], c + 1);
		if (!type_parse(text, &pr.params[pr.nparams].t))
			return 0;
		pr.nparams++;
	}
	slot = ng_strmap_get(vs->protos, f[0], strlen(f[0]), &added);
	if (!slot)
		return -ENOMEM;
	*slot = pr;
	return 0;
}

/* protos.tsv, if the recording has one; vs->protos stays NULL if not. */
static int protos_load(struct ng_values *vs, const char *dir)
{
	int ret;

	vs->protos = ng_strmap_new(sizeof(struct proto));
	if (!vs->protos)
		return -ENOMEM;
	ret = ng_lines_each(dir, "protos.tsv", NG_TSV_LINE_MAX, proto_line, vs);
	if (ret) {
		ng_strmap_free(vs->protos);
		vs->protos = NULL;
	}
	return ret == -ENOENT ? 0 : ret;
}

/* info.json's machine: "armv7l" and the like hold 32-bit registers. */
static void regs_width(struct ng_values *vs, const char *dir)
{
	const struct ng_info_field *m;
	struct ng_info_file *f;

	if (ng_info_load(&f, dir, NULL))
		return;
	m = ng_info_find(f, "machine");
	vs->regs32 = m && !strncmp(m->value, "arm", 3) && strcmp(m->value, "arm64");
	ng_info_file_free(f);
}

int ng_values_load(struct ng_values **vp, const char *dir)
{
	struct ng_values *vs = calloc(1, sizeof(*vs));
	int ret, ret2;

	*vp = NULL;
	if (!vs)
		return -ENOMEM;
	ret = ng_lines_each(dir, "args.tsv", NG_TSV_LINE_MAX, args_line, vs);
	ret2 = ng_lines_each(dir, "retval.tsv", NG_TSV_LINE_MAX, retval_line, vs);
	/* Either table alone is a recording's values; neither is -ENOENT. */
	if (ret == -ENOENT && !ret2)
		ret = 0;
	else if (!ret && ret2 != -ENOENT)
		ret = ret2;
	if (ret) {
		ng_values_free(vs);
		return ret;
	}
	regs_width(vs, dir);
	vs->have_rets = ret2 != -ENOENT;
	ret = protos_load(vs, dir);
	if (ret) {
		ng_values_free(vs);
		return ret;
	}
	if (vs->args.n)
		qsort(vs->args.v, vs->args.n, sizeof(*vs->args.v), values_cmp);
	if (vs->rets.n)
		qsort(vs->rets.v, vs->rets.n, sizeof(*vs->rets.v), values_cmp);
	*vp = vs;
	return 0;
}

bool ng_values_have_retvals(const struct ng_values *vs)
{
	return vs && vs->have_rets;
}

void ng_values_free(struct ng_values *vs)
{
	if (!vs)
		return;
	free(vs->args.v);
	free(vs->rets.v);
	ng_strmap_free(vs->protos);
	free(vs);
}

static const struct ng_call_values *table_find(const struct table *t, int tid,
					       uint64_t ns, unsigned int depth)
{
	struct ng_call_values key = { .tid = tid, .ns = ns, .depth = depth };

	return t->n ? bsearch(&key, t->v, t->n, sizeof(*t->v), values_cmp) : NULL;
}

const struct ng_call_values *ng_values_args(const struct ng_values *vs, int tid,
					    uint64_t start_ns, unsigned int depth)
{
	return vs ? table_find(&vs->args, tid, start_ns, depth) : NULL;
}

const struct ng_call_values *ng_values_ret(const struct ng_values *vs, int tid,
					   uint64_t end_ns, unsigned int depth)
{
	return vs ? table_find(&vs->rets, tid, end_ns, depth) : NULL;
}

/* The kernel's own error codes past libc's (include/linux/errno.h). */
static const char *const kernel_errnos[] = {
	[512 - 512] = "ERESTARTSYS", [513 - 512] = "ERESTARTNOINTR",
	[514 - 512] = "ERESTARTNOHAND", [515 - 512] = "ENOIOCTLCMD",
	[516 - 512] = "ERESTART_RESTARTBLOCK", [517 - 512] = "EPROBE_DEFER",
	[518 - 512] = "EOPENSTALE", [519 - 512] = "ENOPARAM",
	[521 - 512] = "EBADHANDLE", [522 - 512] = "ENOTSYNC",
	[523 - 512] = "EBADCOOKIE", [524 - 512] = "ENOTSUPP",
	[525 - 512] = "ETOOSMALL", [526 - 512] = "ESERVERFAULT",
	[527 - 512] = "EBADTYPE", [528 - 512] = "EJUKEBOX",
	[529 - 512] = "EIOCBQUEUED", [530 - 512] = "ERECALLCONFLICT",
	[531 - 512] = "ENOGRACE",
};

const char *ng_errno_name(int err)
{
	const char *name;

	if (err >= 512 && err < 512 + (int)(sizeof(kernel_errnos) /
					     sizeof(kernel_errnos[0])))
		return kernel_errnos[err - 512];
	if (err <= 0 || err >= 512)
		return NULL;
	name = strerrorname_np(err);
	return name;
}

uint64_t ng_values_reg(const struct ng_values *vs, uint64_t v)
{
	return vs && vs->regs32 ? (uint32_t)v : v;
}

bool ng_values_typed(const struct ng_values *vs)
{
	return vs && vs->protos;
}

static const struct proto *proto_of(const struct ng_values *vs, const char *label)
{
	if (!vs || !vs->protos || !label)
		return NULL;
	return ng_strmap_find(vs->protos, label, strlen(label));
}

/* @v cut to @t's width, and sign-extended for a signed type. */
static uint64_t cut(const struct type *t, uint64_t v)
{
	unsigned int bits = t->size * 8;

	if (!bits || bits >= 64)
		return v;
	v &= (1ULL << bits) - 1;
	if (t->cls == 's' && (v >> (bits - 1)) & 1)
		v |= ~0ULL << bits;
	return v;
}

/* The error code @v is as a value of type @t (NULL: a register); else 0. */
static int type_errno(const struct ng_values *vs, const struct type *t, uint64_t v)
{
	int64_t s;

	if (t) {
		/* Signed integers, pointers (ERR_PTR) and unsigned longs. */
		if (t->cls == 'v' || t->cls == 'b' || t->cls == 'x' ||
		    (t->cls == 'u' && t->size < (vs && vs->regs32 ? 4U : 8U)))
			return 0;
		v = t->cls == 's' ? cut(t, v) : t->size == 4 ? (uint64_t)(int32_t)v : v;
	} else if (vs && vs->regs32) {
		v = (uint64_t)(int32_t)v;
	}
	s = (int64_t)v;
	return s < 0 && s >= -NG_MAX_ERRNO ? (int)-s : 0;
}

bool ng_retval_number(const struct ng_values *vs, const char *label,
		      uint64_t v, bool *neg, uint64_t *mag)
{
	const struct proto *p = proto_of(vs, label);
	const struct type *t = p ? &p->ret : NULL;
	int err = type_errno(vs, t, v);

	if (t && t->cls == 'v')
		return false;
	*neg = err || (t && t->cls == 's' && (int64_t)cut(t, v) < 0);
	if (err)
		*mag = (uint64_t)err;
	else if (*neg)
		*mag = -cut(t, v);
	else if (t)
		*mag = t->cls == 'b' ? !!cut(t, v) : cut(t, v);
	else
		*mag = ng_values_reg(vs, v);
	return true;
}

int ng_errno_by_name(const char *name)
{
	int i;

	for (i = 1; i < 512; i++) {
		const char *n = strerrorname_np(i);

		if (n && !strcmp(n, name))
			return i;
	}
	for (i = 0; i < (int)(sizeof(kernel_errnos) / sizeof(kernel_errnos[0])); i++)
		if (kernel_errnos[i] && !strcmp(kernel_errnos[i], name))
			return 512 + i;
	return 0;
}

int ng_retval_errno(const struct ng_values *vs, const char *label, uint64_t v)
{
	const struct proto *p = proto_of(vs, label);

	return type_errno(vs, p ? &p->ret : NULL, v);
}

/*
 * @v as a value of type @t, into @buf; a return value (@ret) in the
 * error range as its error code: an argument (-100: AT_FDCWD) is a number.
 */
static int value_text(const struct ng_values *vs, const struct type *t,
		      uint64_t v, char *buf, size_t size, bool ret)
{
	int err = ret ? type_errno(vs, t, v) : 0;
	const char *name = err ? ng_errno_name(err) : NULL;

	if (err && t && t->cls == 'p')
		return name ? snprintf(buf, size, "ERR_PTR(-%s)", name) :
			      snprintf(buf, size, "ERR_PTR(-%d)", err);
	if (err)
		return name ? snprintf(buf, size, "-%d (%s)", err, name) :
			      snprintf(buf, size, "-%d", err);
	if (!t)
		return snprintf(buf, size, "0x%" PRIx64, ng_values_reg(vs, v));
	v = cut(t, v);
	switch (t->cls) {
	case 's':
		return snprintf(buf, size, "%" PRId64, (int64_t)v);
	case 'u':
		return snprintf(buf, size, "%" PRIu64, v);
	case 'b':
		return snprintf(buf, size, "%s", v ? "true" : "false");
	default:
		return snprintf(buf, size, "0x%" PRIx64, v);
	}
}

static size_t clamp_len(int n, size_t size)
{
	return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size ? size - 1 : 0;
}

size_t ng_retval_text(const struct ng_values *vs, const char *label,
		      char *buf, size_t size, uint64_t v)
{
	const struct proto *p = proto_of(vs, label);

	if (size)
		buf[0] = '\0';
	if (p && p->ret.cls == 'v')
		return 0;
	return clamp_len(value_text(vs, p ? &p->ret : NULL, v, buf, size, true), size);
}

int ng_args_each(const struct ng_values *vs, const char *label,
		 const struct ng_call_values *cv, ng_arg_fn fn, void *priv)
{
	const struct proto *p = proto_of(vs, label);
	unsigned int i, reg = 0;
	char name[16], val[64];
	int ret = 0;

	if (!cv)
		return 0;
	if (!p) {
		for (i = 0; i < cv->nargs && !ret; i++) {
			snprintf(name, sizeof(name), "arg%u", i);
			snprintf(val, sizeof(val), "0x%" PRIx64, ng_values_reg(vs, cv->args[i]));
			ret = fn(priv, name, val, false);
		}
		return ret;
	}
	for (i = 0; i < p->nparams && !ret; i++) {
		const struct type *t = &p->params[i].t;
		bool pair = vs->regs32 && t->size == 8;
		uint64_t v;

		if (pair)
			reg = (reg + 1) & ~1U;	/* an even pair: r0:r1, r2:r3 */
		if (t->cls == 'x' || reg + pair >= cv->nargs) {
			/* Not in the registers recorded (or not in one). */
			ret = fn(priv, p->params[i].name, "?", true);
			reg = cv->nargs;
			continue;
		}
		v = pair ? (uint32_t)cv->args[reg] | (uint64_t)cv->args[reg + 1] << 32 :
		    ng_values_reg(vs, cv->args[reg]);
		reg += 1 + pair;
		value_text(vs, t, v, val, sizeof(val), false);
		ret = fn(priv, p->params[i].name, val, true);
	}
	return ret;
}

/* ng_args_text()'s writer: "name=value" (or the bare register) after a comma. */
struct args_buf {
	char *buf;
	size_t size, n;
};

static int args_put(void *priv, const char *name, const char *value, bool typed)
{
	struct args_buf *a = priv;

	if (a->n < a->size)
		a->n += clamp_len(snprintf(a->buf + a->n, a->size - a->n, "%s%s%s%s",
					   a->n ? ", " : "", typed ? name : "",
					   typed ? "=" : "", value), a->size - a->n);
	return 0;
}

size_t ng_args_text(const struct ng_values *vs, const char *label,
		    const struct ng_call_values *cv, char *buf, size_t size)
{
	struct args_buf a = { buf, size, 0 };

	if (size)
		buf[0] = '\0';
	ng_args_each(vs, label, cv, args_put, &a);
	return a.n;
}
