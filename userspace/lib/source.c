// SPDX-License-Identifier: LGPL-2.1
/*
 * source.c - what every source of the recording pipeline has (source.h):
 * its ops, its CPUs, and for the sources that read a file a CPU (the
 * events and raw modes' spill files), those files.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "source.h"

/* One place that sets a source's common part, whichever source it is. */
int ng_source_init(struct ng_source *s, const struct ng_source_ops *ops,
		   int nr, bool wraps, const int *fds)
{
	memset(s, 0, sizeof(*s));
	s->ops = ops;
	s->nr_cpus = nr > 0 ? nr : 0;
	s->wraps = wraps;
	if (!fds || !s->nr_cpus)
		return 0;
	s->fds = malloc(s->nr_cpus * sizeof(*s->fds));
	if (!s->fds)
		return -ENOMEM;
	memcpy(s->fds, fds, s->nr_cpus * sizeof(*fds));
	return 0;
}

void ng_source_release(struct ng_source *s)
{
	free(s->fds);
	s->fds = NULL;
}

void ng_source_free(struct ng_source *s)
{
	if (s && s->ops->free)
		s->ops->free(s);
}
