/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * calls.h - library-internal: one thread's func_call and func_open events
 * turned back into the entries and exits of its call tree, for convert.c.
 */
#ifndef NG_CALLS_H
#define NG_CALLS_H

struct ng_event;
struct ng_calls;

/*
 * Where the rebuilt tree goes: an NG_EV_ENTRY or NG_EV_EXIT event with
 * its counter, depth and ip (cpu and tid are not set), in the order
 * entry/exit events would have come. 0 or -errno, which stops the walk.
 */
typedef int (*ng_calls_emit_fn)(void *priv, const struct ng_event *ev);

/*
 * A func_call of the thread: held until its outermost caller returns,
 * then the tree is emitted. *@cp is made on first use.
 */
int ng_calls_call(struct ng_calls **cp, const struct ng_event *ev,
		  ng_calls_emit_fn emit, void *priv);
/* A func_open of the thread: remembered until a flush or its func_call. */
int ng_calls_open(struct ng_calls **cp, const struct ng_event *ev,
		  ng_calls_emit_fn emit, void *priv);
/* At the end: emit what is held, the open calls with no exit. */
int ng_calls_flush(struct ng_calls *c, ng_calls_emit_fn emit, void *priv);
void ng_calls_free(struct ng_calls *c);

#endif /* NG_CALLS_H */
