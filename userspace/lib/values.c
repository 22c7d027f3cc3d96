// SPDX-License-Identifier: LGPL-2.1
/*
 * values.c - a recording's args.tsv and retval.tsv (record --args,
 * --retaddr, --retval; trace-format.md): what each call was given and
 * where it returns to, found again by its thread, its entry's
 * nanoseconds and its depth (its push line's), and what it returned, by
 * its thread, its return's nanoseconds and its depth (its POP line's),
 * as counts.c finds counters.tsv's lines.
 *
 * And how a return value reads: without a type, as function_graph's
 * funcgraph-retval writes one (hex, an error code in decimal with its
 * name: "-9 (EBADF)").  Lines that do not parse are skipped, as a newer
 * file's fields would be.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nanograph.h"
#include "lines.h"

/* One table's lines, sorted by (tid, ns, depth) for bsearch. */
struct table {
	struct ng_call_values *v;
	size_t n, cap;
};

struct ng_values {
	struct table args, rets;
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

int ng_retval_errno(const struct ng_values *vs, uint64_t v)
{
	int64_t s = vs && vs->regs32 ? (int32_t)v : (int64_t)v;

	return s < 0 && s >= -NG_MAX_ERRNO ? (int)-s : 0;
}

size_t ng_retval_text(const struct ng_values *vs, char *buf, size_t size,
		      uint64_t v)
{
	int err = ng_retval_errno(vs, v);
	const char *name = err ? ng_errno_name(err) : NULL;
	int n;

	if (err && name)
		n = snprintf(buf, size, "-%d (%s)", err, name);
	else if (err)
		n = snprintf(buf, size, "-%d", err);
	else
		n = snprintf(buf, size, "0x%" PRIx64, ng_values_reg(vs, v));
	return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size ? size - 1 : 0;
}
