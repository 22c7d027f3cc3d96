// SPDX-License-Identifier: LGPL-2.1
/*
 * perfetto_parse.c - the Perfetto export's parser thread: walks each
 * thread's push/pop file (ng_recording_walk(), which checks it) and
 * passes every push and pop on to the encoder as a record in the ring
 * between them (the records: perfetto_int.h), with the call's arguments
 * and return value as annotations when the recording has them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nanograph.h"
#include "perfetto_int.h"

/* Room for @n more bytes of records; -ECANCELED if the encoder stopped. */
static inline int rec_room(struct pf_parser *ps, size_t n)
{
	bool cancel = false;
	size_t i;
	uint8_t *b;

	if (ps->len + n > ps->cap) {
		ps->buf = ng_pf_ring_push(&ps->q, ps->len, &ps->cap, &cancel);
		ps->len = 0;
		if (cancel)
			return -ECANCELED;
	}
	if (n > ps->cap) {	/* a label longer than a buffer */
		i = ps->q.filled % PF_RING;
		b = realloc(ps->q.bufs[i], n);
		if (!b)
			return -ENOMEM;
		ps->q.bufs[i] = ps->buf = b;
		ps->q.caps[i] = ps->cap = n;
	}
	return 0;
}

/* A record without a label: its type and @len bytes of numbers. */
static int rec_put(struct pf_parser *ps, uint8_t type, const void *num,
		   size_t len)
{
	int ret = rec_room(ps, 1 + len);

	if (ret)
		return ret;
	ps->buf[ps->len] = type;
	if (len)
		memcpy(ps->buf + ps->len + 1, num, len);
	ps->len += 1 + len;
	return 0;
}

/* One annotation into ps->ann; one that does not fit is left out. */
static int ann_put(void *priv, const char *name, const char *value, bool typed)
{
	struct pf_parser *ps = priv;
	uint16_t nl = (uint16_t)strlen(name), vl = (uint16_t)strlen(value);

	(void)typed;
	if (ps->ann_len + 4U + nl + vl > sizeof(ps->ann))
		return 0;
	memcpy(ps->ann + ps->ann_len, &nl, 2);
	memcpy(ps->ann + ps->ann_len + 2, name, nl);
	memcpy(ps->ann + ps->ann_len + 2 + nl, &vl, 2);
	memcpy(ps->ann + ps->ann_len + 4 + nl, value, vl);
	ps->ann_len += 4U + nl + vl;
	return 0;
}

/* The annotations made, as a REC_VALUES record after the push or pop. */
static int rec_values(struct pf_parser *ps)
{
	uint32_t len = (uint32_t)ps->ann_len;
	int ret;

	if (!len)
		return 0;
	ret = rec_room(ps, 5 + len);
	if (ret)
		return ret;
	ps->buf[ps->len] = REC_VALUES;
	memcpy(ps->buf + ps->len + 1, &len, 4);
	memcpy(ps->buf + ps->len + 5, ps->ann, len);
	ps->len += 5 + len;
	return 0;
}

static int rec_enter(void *priv, const char *label, uint64_t ns, size_t depth)
{
	struct pf_parser *ps = priv;
	uint32_t len = strlen(label);
	uint8_t *p;
	int ret;

	if (ps->rec->values) {
		const struct ng_call_values *v =
			ng_values_args(ps->rec->values, ps->tid, ns, (unsigned int)depth);

		ps->ann_len = 0;
		if (v) {
			ng_args_each(ps->rec->values, label, v, ann_put, ps);
			if (v->site[0])
				ann_put(ps, "site", v->site, true);
		}
		ret = rec_values(ps);
		if (ret)
			return ret;
	}
	ret = rec_room(ps, 13 + len);
	if (ret)
		return ret;
	p = ps->buf + ps->len;
	*p = REC_ENTER;
	memcpy(p + 1, &ns, 8);
	memcpy(p + 9, &len, 4);
	memcpy(p + 13, label, len);
	ps->len += 13 + len;
	return 0;
}

static int rec_leave(void *priv, const struct ng_call *call)
{
	struct pf_parser *ps = priv;
	int ret;

	if (ps->rec->values) {
		const struct ng_call_values *v =
			ng_values_ret(ps->rec->values, ps->tid, call->end_ns,
				      (unsigned int)call->depth);
		char text[64];

		ps->ann_len = 0;
		if (v && ng_retval_text(ps->rec->values, call->label, text,
					sizeof(text), v->retval))
			ann_put(ps, "ret", text, true);
		ret = rec_values(ps);
		if (ret)
			return ret;
	}
	ret = rec_room(ps, 9);
	if (ret)
		return ret;
	ps->buf[ps->len] = REC_LEAVE;
	memcpy(ps->buf + ps->len + 1, &call->end_ns, 8);
	ps->len += 9;
	return 0;
}

/* The parser thread: every file in turn, until the end or an error. */
void *ng_pf_parser_main(void *arg)
{
	struct pf_parser *ps = arg;
	struct ng_pp_visitor v = { rec_enter, rec_leave, ps };
	uint32_t i;
	int ret = 0;

	ps->buf = ng_pf_ring_cur(&ps->q, &ps->cap);
	for (i = 0; !ret && i < ps->rec->nr_threads; i++) {
		ps->tid = ng_rec_thread_key(&ps->rec->threads[i]);
		ret = rec_put(ps, REC_THREAD, &i, 4);
		if (!ret)
			ret = ng_recording_walk(ps->rec, &ps->rec->threads[i],
						&v, ps->bad);
		if (!ret)
			ret = rec_put(ps, REC_DONE, NULL, 0);
		if (ret)
			ps->failed = i;
	}
	ps->ret = ret;		/* read after pthread_join() */
	ng_pf_ring_close(&ps->q, ps->len);
	return NULL;
}
