// SPDX-License-Identifier: LGPL-2.1
/*
 * perfetto_ring.c - the rings of buffers between the Perfetto export's
 * three threads (parser -> encoder -> writer, perfetto_int.h): a mutex
 * and a condition variable per ring, taken once per buffer, never per
 * record. A producer that finds the ring full waits; a consumer that
 * fails cancels, and the producer learns it at its next buffer.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "perfetto_int.h"

/* Buffers of @size bytes; 0 or -ENOMEM (then ng_pf_ring_free() all the same). */
int ng_pf_ring_init(struct pf_ring *r, size_t size)
{
	unsigned int i;

	memset(r, 0, sizeof(*r));
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->cond, NULL);
	for (i = 0; i < PF_RING; i++) {
		r->bufs[i] = malloc(size);
		if (!r->bufs[i])
			return -ENOMEM;
		r->caps[i] = size;
	}
	return 0;
}

void ng_pf_ring_free(struct pf_ring *r)
{
	unsigned int i;

	for (i = 0; i < PF_RING; i++)
		free(r->bufs[i]);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->cond);
}

/* The buffer the producer fills now. */
uint8_t *ng_pf_ring_cur(struct pf_ring *r, size_t *cap)
{
	*cap = r->caps[r->filled % PF_RING];
	return r->bufs[r->filled % PF_RING];
}

/*
 * Producer: pass on the buffer filled with @len bytes, wait until the
 * next is free, and return it. True in *@cancel once the consumer wants
 * no more (the producer may stop, or go on: nothing is lost either way).
 */
uint8_t *ng_pf_ring_push(struct pf_ring *r, size_t len, size_t *cap,
			 bool *cancel)
{
	uint8_t *buf;

	pthread_mutex_lock(&r->lock);
	r->lens[r->filled % PF_RING] = len;
	r->filled++;
	pthread_cond_broadcast(&r->cond);
	while (r->filled - r->done == PF_RING)
		pthread_cond_wait(&r->cond, &r->lock);
	if (cancel)
		*cancel = r->cancel;
	buf = ng_pf_ring_cur(r, cap);
	pthread_mutex_unlock(&r->lock);
	return buf;
}

/* Producer: pass on the last buffer (@len bytes, may be 0) and stop. */
void ng_pf_ring_close(struct pf_ring *r, size_t len)
{
	pthread_mutex_lock(&r->lock);
	r->lens[r->filled % PF_RING] = len;
	r->filled++;
	r->closed = true;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

/* Consumer: the next full buffer, or false when the producer closed. */
bool ng_pf_ring_pop(struct pf_ring *r, const uint8_t **buf, size_t *len)
{
	bool got;

	pthread_mutex_lock(&r->lock);
	while (r->done == r->filled && !r->closed)
		pthread_cond_wait(&r->cond, &r->lock);
	got = r->done != r->filled;
	if (got) {
		*buf = r->bufs[r->done % PF_RING];
		*len = r->lens[r->done % PF_RING];
	}
	pthread_mutex_unlock(&r->lock);
	return got;
}

/* Consumer: done with the buffer ng_pf_ring_pop() gave; @cancel: want no more. */
void ng_pf_ring_release(struct pf_ring *r, bool cancel)
{
	pthread_mutex_lock(&r->lock);
	r->done++;
	if (cancel)
		r->cancel = true;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
}
