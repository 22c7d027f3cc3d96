/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * perfetto_int.h - library-internal: what the Perfetto export's pieces
 * share: the rings between its threads (perfetto_ring.c), the records
 * the parser (perfetto_parse.c) hands the encoder (perfetto.c).
 */
#ifndef NG_PERFETTO_INT_H
#define NG_PERFETTO_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nanograph.h"

/* ---- handing buffers from one thread to the next ---- */

/*
 * A ring of buffers between a producer and a consumer thread: [done,
 * filled) are full and wait for the consumer, "filled" is the one the
 * producer fills. The counts never wrap (64 bits).
 */
#define PF_RING		4

struct pf_ring {
	uint8_t *bufs[PF_RING];
	size_t lens[PF_RING], caps[PF_RING];
	unsigned long filled, done;
	bool closed;		/* the producer has passed its last buffer */
	bool cancel;		/* the consumer wants no more */
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

/* Buffers of @size bytes; 0 or -ENOMEM (then ng_pf_ring_free() all the same). */
int ng_pf_ring_init(struct pf_ring *r, size_t size);
void ng_pf_ring_free(struct pf_ring *r);
/* The buffer the producer fills now. */
uint8_t *ng_pf_ring_cur(struct pf_ring *r, size_t *cap);
/*
 * Producer: pass on the buffer filled with @len bytes, wait until the
 * next is free, and return it. True in *@cancel once the consumer wants
 * no more (the producer may stop, or go on: nothing is lost either way).
 */
uint8_t *ng_pf_ring_push(struct pf_ring *r, size_t len, size_t *cap,
			 bool *cancel);
/* Producer: pass on the last buffer (@len bytes, may be 0) and stop. */
void ng_pf_ring_close(struct pf_ring *r, size_t len);
/* Consumer: the next full buffer, or false when the producer closed. */
bool ng_pf_ring_pop(struct pf_ring *r, const uint8_t **buf, size_t *len);
/* Consumer: done with the buffer ng_pf_ring_pop() gave; @cancel: want no more. */
void ng_pf_ring_release(struct pf_ring *r, bool cancel);

/* ---- the parser's records ---- */

/*
 * Three threads, each a loop over buffers: the parser walks the push/pop
 * files (ng_filter_walk(), which checks them) and passes each push and pop on
 * as a record; the encoder (the caller's thread) looks each label up and
 * writes the packets; the writer thread writes the output buffers to the
 * file. Parsing and encoding take about half of the CPU time each
 * (checking the lines, and the hash lookup of each label), writing is
 * the page cache's copy: two cores convert nearly twice as fast as one,
 * and memory is the rings' buffers.
 *
 * Records, in the parser's buffers (numbers in host order, unaligned):
 *   REC_THREAD  u32 index   the next thread of the recording starts
 *   REC_ENTER   u64 ns, u32 len, label   a push
 *   REC_LEAVE   u64 ns                 a pop
 *   REC_VALUES  u32 len, annotations      the debug annotations of the
 *               push or pop that comes next: (u16 len, name, u16 len,
 *               value)...; before it, so that the two may lie in two
 *               buffers
 *   REC_DONE                            the thread's file ended well
 */
enum { REC_THREAD = 1, REC_ENTER, REC_LEAVE, REC_DONE, REC_VALUES };

#define PF_REC_SIZE	(256U << 10)

struct pf_parser {
	const struct ng_recording *rec;
	int tid;			/* the thread's key in the tables */
	uint8_t ann[4096];		/* a call's annotations being made */
	size_t ann_len;
	struct pf_ring q;		/* parser -> encoder */
	uint8_t *buf;			/* the record buffer being filled */
	size_t len, cap;
	struct ng_pp_bad *bad;
	int ret;			/* the walk's error, -ECANCELED if told */
	size_t failed;			/* the thread whose file it is */
};

/* The parser thread's body (@arg a struct pf_parser); ps->ret its result. */
void *ng_pf_parser_main(void *arg);

#endif /* NG_PERFETTO_INT_H */
