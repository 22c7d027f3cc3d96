// SPDX-License-Identifier: LGPL-2.1
/*
 * folded.c - a recording as folded stacks ("comm;f1;...;fn weight"),
 * which flamegraph.pl and speedscope read; the weight is fn's self time
 * in nanoseconds, so the weights add up to the recorded time to the
 * nanosecond. Streamed a file at a time into a tree of the distinct
 * stacks, written by walking it (export.h's writes).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nanograph.h"
#include "export.h"
#include "strmap.h"

/*
 * A distinct stack: the node of its caller's stack and its own label; the
 * comms hang from one root. Found by (parent, label) pointers, so a call
 * finds its node with one small hash whatever its depth, and the output
 * is written by walking the tree: memory follows the number of distinct
 * stacks, never the size of the output.
 */
struct fnode {
	struct fnode *parent;		/* NULL for the root */
	const char *label;		/* interned */
	uint64_t weight;		/* self time, summed */
	struct fnode *child;		/* first callee */
	struct fnode *sibling;		/* next callee of parent */
	size_t nr_children;
};

struct folded {
	struct ng_strmap *labels;	/* label -> nothing: interned labels */
	struct ng_strmap *nodes;	/* (parent, label) -> struct fnode */
	struct fnode root;		/* parent of the comms, not written */
	struct fnode *comm;		/* this thread's comm */
	struct fnode **open;		/* node of each open frame, by depth,
					 * the deeper ones all at the last */
	size_t open_cap;
	char *tmp;			/* a label with its ';' replaced */
	size_t tmp_cap;
};

/* The interned copy of @s, with ';' as '_': ';' separates the frames. */
static const char *fold_label(struct folded *f, const char *s)
{
	size_t len = strlen(s), i;
	void *v;

	if (strchr(s, ';')) {
		if (len + 1 > f->tmp_cap) {
			char *t = realloc(f->tmp, len + 1);

			if (!t)
				return NULL;
			f->tmp = t;
			f->tmp_cap = len + 1;
		}
		for (i = 0; i <= len; i++)
			f->tmp[i] = s[i] == ';' ? '_' : s[i];
		s = f->tmp;
	}
	v = ng_strmap_get(f->labels, s, len, NULL);
	return v ? ng_strmap_key(v) : NULL;
}

/* The node of @label called from @parent's stack, made on first use. */
static struct fnode *fold_node(struct folded *f, struct fnode *parent,
			       const char *label)
{
	const void *key[2] = { parent, fold_label(f, label) };
	struct fnode *n;
	bool added;

	if (!key[1])
		return NULL;
	n = ng_strmap_get(f->nodes, key, sizeof(key), &added);
	if (n && added) {
		n->parent = parent;
		n->label = key[1];
		n->sibling = parent->child;
		parent->child = n;
		parent->nr_children++;
	}
	return n;
}

/*
 * A call starts: find its stack's node, below its caller's; past
 * NG_FOLDED_MAX_DEPTH, the one "[deeper]" node below the last frame.
 */
static int folded_enter(void *priv, const char *label, uint64_t ns,
			size_t depth)
{
	struct folded *f = priv;
	struct fnode *n;

	(void)ns;
	if (depth > NG_FOLDED_MAX_DEPTH)
		return 0;
	if (depth == NG_FOLDED_MAX_DEPTH)
		label = NG_FOLDED_DEEPER;
	if (depth == f->open_cap) {
		size_t cap = f->open_cap ? 2 * f->open_cap : 64;
		struct fnode **o = realloc(f->open, cap * sizeof(*o));

		if (!o)
			return -ENOMEM;
		f->open = o;
		f->open_cap = cap;
	}
	n = fold_node(f, depth ? f->open[depth - 1] : f->comm, label);
	if (!n)
		return -ENOMEM;
	f->open[depth] = n;
	return 0;
}

/* A call ends: its self time goes to its stack. */
static int folded_leave(void *priv, const struct ng_call *call)
{
	struct folded *f = priv;
	size_t depth = call->depth;

	if (depth > NG_FOLDED_MAX_DEPTH)
		depth = NG_FOLDED_MAX_DEPTH;
	f->open[depth]->weight += call->self_ns;
	return 0;
}

/*
 * What a node contributes below its parent's path: its own line
 * ("label weight") or the block of its callees' lines ("label;..."). A
 * block never interleaves with anything else (no label holds ';'), but a
 * node's own line and its block can have a sibling's lines between them
 * ("f 5" < "f.cold 3" < "f;g 2"), so they are sorted as two items.
 */
struct fold_item {
	const struct fnode *n;
	char tail[24];			/* " <weight>" or ";" */
};

/* Compare "label tail" strings bytewise without building them. */
static int fold_item_cmp(const void *a, const void *b)
{
	const struct fold_item *x = a, *y = b;
	const unsigned char *p = (const void *)x->n->label;
	const unsigned char *q = (const void *)y->n->label;
	bool pt = false, qt = false;

	for (;; p++, q++) {
		if (!*p && !pt) {
			p = (const void *)x->tail;
			pt = true;
		}
		if (!*q && !qt) {
			q = (const void *)y->tail;
			qt = true;
		}
		if (*p != *q || !*p)
			return *p - *q;
	}
}

/* One node whose lines are being written: its sorted items, and where. */
struct fold_level {
	struct fold_item *items;
	size_t nr, next;
	size_t len;			/* o->path's length at this node */
};

struct fold_out {
	struct ng_outfile out;
	char *path;			/* "comm;f1;...;fk" of the node being written */
	size_t len, cap;
	struct fold_level *levels;	/* from the root to the node being written */
	size_t depth, levels_cap;
};

/*
 * Enter @n, whose path is o->path: sort what it contributes (its
 * callees' own lines and blocks) into a new level.
 */
static int fold_enter(struct fold_out *o, const struct fnode *n)
{
	struct fold_level *lv;
	const struct fnode *c;
	size_t nr = 0;

	if (o->depth == o->levels_cap) {
		size_t cap = o->levels_cap ? 2 * o->levels_cap : 64;

		lv = realloc(o->levels, cap * sizeof(*lv));
		if (!lv)
			return -ENOMEM;
		o->levels = lv;
		o->levels_cap = cap;
	}
	lv = &o->levels[o->depth];
	lv->items = malloc((2 * n->nr_children + 1) * sizeof(*lv->items));
	if (!lv->items)
		return -ENOMEM;
	for (c = n->child; c; c = c->sibling) {
		/* below the root (not a comm): a line, unless it weighs nothing */
		if (n->parent && c->weight) {
			lv->items[nr].n = c;
			lv->items[nr].tail[0] = ' ';
			*put_u64(lv->items[nr].tail + 1, c->weight) = '\0';
			nr++;
		}
		if (c->child) {
			lv->items[nr].n = c;
			strcpy(lv->items[nr].tail, ";");
			nr++;
		}
	}
	qsort(lv->items, nr, sizeof(*lv->items), fold_item_cmp);
	lv->nr = nr;
	lv->next = 0;
	lv->len = o->len;
	o->depth++;
	return 0;
}

/*
 * Write every line below the root in byte order, the order of "LC_ALL=C
 * sort" (what a line-by-line diff wants): depth first through the sorted
 * items, with a stack of levels rather than recursion, since a stack as
 * deep as the input's (hundreds of thousands of frames, which "check"
 * accepts) would overflow the C stack.
 */
static int fold_write(struct fold_out *o, const struct fnode *root)
{
	const struct fold_item *it;
	struct fold_level *lv;
	size_t len;
	char *p;
	int ret = fold_enter(o, root);

	while (!ret && o->depth) {
		lv = &o->levels[o->depth - 1];
		if (lv->next == lv->nr) {
			free(lv->items);
			o->depth--;
			continue;
		}
		it = &lv->items[lv->next++];
		len = strlen(it->n->label);
		if (lv->len + len + 2 > o->cap) {
			p = realloc(o->path, 2 * (lv->len + len + 2));
			if (!p) {
				ret = -ENOMEM;
				break;
			}
			o->path = p;
			o->cap = 2 * (lv->len + len + 2);
		}
		p = o->path + lv->len;
		if (o->depth > 1)		/* below a comm */
			*p++ = ';';
		memcpy(p, it->n->label, len);
		p += len;
		o->len = p - o->path;
		if (it->tail[0] == ' ') {
			out_put(&o->out, o->path, o->len);
			out_str(&o->out, it->tail);
			out_put(&o->out, "\n", 1);
			ret = o->out.err;
		} else {
			ret = fold_enter(o, it->n);
		}
	}
	while (o->depth)
		free(o->levels[--o->depth].items);
	return ret;
}

/*
 * Stacks start with the comm, so flame graphs group by program. Every
 * file is read before anything is written.
 */
static int export_folded(const struct ng_recording *rec, const char *path,
			 FILE *fp, struct ng_pp_bad *bad)
{
	struct folded f = { 0 };
	struct ng_pp_visitor v = { folded_enter, folded_leave, &f };
	const struct ng_rec_thread *t;
	struct fold_out o = { 0 };
	struct ng_pp_bad ignored;
	int ret = 0;

	if (!bad)
		bad = &ignored;
	memset(bad, 0, sizeof(*bad));
	f.labels = ng_strmap_new(0);
	f.nodes = ng_strmap_new(sizeof(struct fnode));
	if (!f.labels || !f.nodes)
		ret = -ENOMEM;
	for (t = rec->threads; !ret && t < rec->threads + rec->nr_threads; t++) {
		f.comm = fold_node(&f, &f.root, t->comm);
		if (!f.comm) {
			ret = -ENOMEM;
			break;
		}
		ret = ng_recording_walk(rec, t, &v, bad);
		if (ret && ret != -ENOMEM)
			bad->file = t->file;
	}
	if (!ret)
		ret = ng_export_open(&o.out, path, fp);
	if (!ret) {
		ret = fold_write(&o, &f.root);
		if (ret)
			ng_outfile_abort(&o.out);
		else
			ret = ng_outfile_commit(&o.out);
	}
	free(o.path);
	free(o.levels);
	ng_strmap_free(f.labels);
	ng_strmap_free(f.nodes);
	free(f.open);
	free(f.tmp);
	return ret;
}

int ng_export_folded(const struct ng_recording *rec, const char *path,
		     struct ng_pp_bad *bad)
{
	return export_folded(rec, path, NULL, bad);
}

int ng_export_folded_fp(const struct ng_recording *rec, FILE *fp,
			struct ng_pp_bad *bad)
{
	return export_folded(rec, NULL, fp, bad);
}
