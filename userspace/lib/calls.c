// SPDX-License-Identifier: LGPL-2.1
/*
 * calls.c - a thread's call tree rebuilt from nanograph:func_call and
 * nanograph:func_open, as the entries and exits func_entry and func_exit
 * would have given (Documentation/trace-format.md).
 *
 * A func_call is written when the call returns, so a thread's calls come
 * children first (postorder), each with its depth and its entry's and
 * exit's counters. They are held until an outermost call (depth 0)
 * returns: then they are one finished forest, which is built and written
 * in preorder, entry before children before exit. func_open names a call
 * that had not returned when recording stopped (or its task was freed,
 * or its CPU went offline): it is remembered by depth, and becomes a
 * node with no exit when the thread is flushed at the end, unless the
 * call's func_call comes after all (it returned while recording
 * stopped), or came before it (it returned while the stop walk was
 * writing the task's opens: the walk had read the depth before).
 *
 * Memory: a thread holds the last returned call's entry per depth (2 KiB)
 * and the calls since its last outermost return, 40 bytes each and 4
 * for the build's stack: at most the largest outermost
 * call's subtree (a call that never returns while recording keeps its
 * descendants until the end), plus the calls whose parents were lost
 * before it. The arrays are freed at each flush once they outgrew
 * KEEP_NODES, so a thread of short calls keeps a few KiB.
 *
 * Nothing recurses: the build is a stack of subtrees, the walk an
 * explicit path (depths grow strictly along it, so it fits 256 frames).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nanograph.h"
#include "nanograph_event.h"
#include "calls.h"

#define NONE		UINT32_MAX
#define NR_DEPTHS	(NG_TSD_DEPTH_MAX + 1)
#define KEEP_NODES	64

/* A call, and its place in the tree once built. */
struct node {
	uint64_t entry, exit, ip;	/* counters: low 56 bits */
	uint32_t child, next;		/* first child, next sibling; NONE */
	unsigned char depth;
	bool open;			/* func_open: no exit */
};

/* A func_open remembered at its depth. */
struct open_call {
	uint64_t entry, ip;
	bool set;
};

struct ng_calls {
	struct node *node;		/* func_calls in arrival order */
	uint32_t *roots;		/* the build's stack of subtrees */
	size_t nr, cap;			/* both arrays have cap */
	struct open_call *open;		/* [NR_DEPTHS], made by a func_open */
	/*
	 * [NR_DEPTHS]: the entry of the last call that returned at each
	 * depth, with RETURNED set (0: none yet), made by a func_call.
	 */
	uint64_t *returned;
};

#define RETURNED	(1ULL << 63)

static unsigned char depth_of(const struct ng_event *ev)
{
	return ev->depth > NG_TSD_DEPTH_MAX ? NG_TSD_DEPTH_MAX : ev->depth;
}

/*
 * The thread's state, made on its first call or open, with the table
 * per depth that a func_call (@opens false: returned) or a func_open
 * (open) keeps made at its first use; NULL if out of memory.
 */
static struct ng_calls *calls_get(struct ng_calls **cp, bool opens)
{
	struct ng_calls *c = *cp ? *cp : (*cp = calloc(1, sizeof(**cp)));

	if (c && opens && !c->open)
		c->open = calloc(NR_DEPTHS, sizeof(*c->open));
	if (c && !opens && !c->returned)
		c->returned = calloc(NR_DEPTHS, sizeof(*c->returned));
	if (!c || (opens ? !c->open : !c->returned))
		return NULL;
	return c;
}

/* One more node at the end; indices stay valid, pointers do not. */
static int append(struct ng_calls *c, uint64_t entry, uint64_t exit,
		  uint64_t ip, unsigned char depth, bool open)
{
	if (c->nr == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		struct node *n;
		uint32_t *r;

		if (cap >= NONE)
			return -EOVERFLOW;
		n = realloc(c->node, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		c->node = n;
		r = realloc(c->roots, cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		c->roots = r;
		c->cap = cap;
	}
	c->node[c->nr++] = (struct node){
		.entry = entry, .exit = exit, .ip = ip, .depth = depth,
		.open = open, .child = NONE, .next = NONE,
	};
	return 0;
}

/*
 * Node @i, the next in postorder, adopts the subtrees on top of the stack
 * that lie within it: deeper, and entered no earlier (a subtree entered
 * before it belongs to a caller whose own func_call was lost). Popped
 * last first, they are prepended, so the children stay in time order.
 */
static void adopt(struct ng_calls *c, uint32_t i, size_t *nr_roots)
{
	struct node *n = &c->node[i], *top;

	n->child = n->next = NONE;
	while (*nr_roots) {
		top = &c->node[c->roots[*nr_roots - 1]];
		if (top->depth <= n->depth ||
		    ng_counter_before(top->entry, n->entry))
			break;
		top->next = n->child;
		n->child = c->roots[--*nr_roots];
	}
	c->roots[(*nr_roots)++] = i;
}

static int emit_node(const struct node *n, enum ng_event_type type,
		     ng_calls_emit_fn emit, void *priv)
{
	struct ng_event ev = {
		.type = type, .depth = n->depth, .ip = n->ip,
		.counter = type == NG_EV_ENTRY ? n->entry : n->exit,
	};

	if (type == NG_EV_EXIT && n->open)
		return 0;	/* the converter closes it at the end */
	return emit(priv, &ev);
}

/* The tree under node @i in preorder: entry, the children, exit. */
static int emit_tree(const struct ng_calls *c, uint32_t i,
		     ng_calls_emit_fn emit, void *priv)
{
	uint32_t path[NR_DEPTHS];
	unsigned int np = 0;
	int ret = emit_node(&c->node[i], NG_EV_ENTRY, emit, priv);

	while (!ret) {
		if (c->node[i].child != NONE) {
			path[np++] = i;
			i = c->node[i].child;
			ret = emit_node(&c->node[i], NG_EV_ENTRY, emit, priv);
			continue;
		}
		ret = emit_node(&c->node[i], NG_EV_EXIT, emit, priv);
		while (!ret && c->node[i].next == NONE && np) {
			i = path[--np];
			ret = emit_node(&c->node[i], NG_EV_EXIT, emit, priv);
		}
		if (ret || c->node[i].next == NONE)
			break;
		i = c->node[i].next;
		ret = emit_node(&c->node[i], NG_EV_ENTRY, emit, priv);
	}
	return ret;
}

/*
 * Build and emit the first @done calls held, with the open calls after
 * them when @with_opens (deepest first: each open call returns after the
 * ones it called), and keep the calls after @done for later.
 */
static int flush(struct ng_calls *c, size_t done, bool with_opens,
		 ng_calls_emit_fn emit, void *priv)
{
	size_t nr = c->nr, nr_roots = 0, i;
	int d, ret = 0;

	for (d = NR_DEPTHS - 1; with_opens && c->open && d >= 0 && !ret; d--) {
		struct open_call *o = &c->open[d];

		if (o->set)
			ret = append(c, o->entry, 0, o->ip, d, true);
		o->set = false;
	}
	for (i = 0; i < done && !ret; i++)
		adopt(c, i, &nr_roots);
	for (i = nr; i < c->nr && !ret; i++)
		adopt(c, i, &nr_roots);
	for (i = 0; i < nr_roots && !ret; i++)
		ret = emit_tree(c, c->roots[i], emit, priv);
	memmove(c->node, c->node + done, (nr - done) * sizeof(*c->node));
	c->nr = nr - done;
	if (!c->nr && c->cap > KEEP_NODES) {
		free(c->node);
		free(c->roots);
		c->node = NULL;
		c->roots = NULL;
		c->cap = 0;
	}
	return ret;
}

/*
 * The thread has a new frame at @depth, entered at @entry, where an
 * open call was: that set of open calls is over (its CPU went offline
 * and came back, or recording stopped again). Emit it with the calls
 * held before, but not the calls that lie within the new frame: the
 * held calls at the end that are deeper and entered no earlier.
 */
static int seal(struct ng_calls *c, uint64_t entry, unsigned char depth,
		ng_calls_emit_fn emit, void *priv)
{
	size_t done = c->nr;

	while (done && c->node[done - 1].depth > depth &&
	       !ng_counter_before(c->node[done - 1].entry, entry))
		done--;
	return flush(c, done, true, emit, priv);
}

int ng_calls_call(struct ng_calls **cp, const struct ng_event *ev,
		  ng_calls_emit_fn emit, void *priv)
{
	struct ng_calls *c = calls_get(cp, false);
	unsigned char depth = depth_of(ev);
	struct open_call *o;
	int ret = 0;

	if (!c)
		return -ENOMEM;
	c->returned[depth] = ev->counter | RETURNED;
	o = c->open ? &c->open[depth] : NULL;
	if (o && o->set && o->entry == ev->counter)
		o->set = false;		/* returned while recording stopped */
	else if (o && o->set && ng_counter_before(o->entry, ev->counter))
		ret = seal(c, ev->counter, depth, emit, priv);
	if (!ret)
		ret = append(c, ev->counter, ev->exit_counter, ev->ip, depth,
			     false);
	if (!ret && !depth)
		ret = flush(c, c->nr, false, emit, priv);
	return ret;
}

int ng_calls_open(struct ng_calls **cp, const struct ng_event *ev,
		  ng_calls_emit_fn emit, void *priv)
{
	struct ng_calls *c = calls_get(cp, true);
	struct open_call *o = c ? &c->open[depth_of(ev)] : NULL;
	int ret;

	if (!o)
		return -ENOMEM;
	if (o->set && o->entry == ev->counter)
		return 0;	/* written again when its task was freed */
	/*
	 * The stop walk read the task's depth, then the task returned from
	 * this call (on another CPU) before the walk wrote its func_open:
	 * the func_call came first.  The call is over; it is not open.
	 */
	if (c->returned && c->returned[depth_of(ev)] == (ev->counter | RETURNED))
		return 0;
	ret = o->set ? seal(c, ev->counter, depth_of(ev), emit, priv) : 0;
	if (ret)
		return ret;
	*o = (struct open_call){ .entry = ev->counter, .ip = ev->ip,
				 .set = true };
	return 0;
}

int ng_calls_flush(struct ng_calls *c, ng_calls_emit_fn emit, void *priv)
{
	return c ? flush(c, c->nr, true, emit, priv) : 0;
}

void ng_calls_free(struct ng_calls *c)
{
	if (!c)
		return;
	free(c->node);
	free(c->roots);
	free(c->open);
	free(c->returned);
	free(c);
}
