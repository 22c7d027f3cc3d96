// SPDX-License-Identifier: LGPL-2.1
/*
 * threads.c - DIR/threads.tsv, which maps each push/pop file (named by tid)
 * to its process and command name. A header line "tid\tpid\tcomm", then one
 * tab-separated row per thread. comm is whatever the task set with prctl()
 * and may hold tabs or newlines; those and other control characters are
 * written as '?' so every row keeps exactly three fields. A task's comm is
 * at most 15 bytes; longer strings are cut at 63.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "nanograph.h"
#include "outfile.h"

struct ng_threads_writer {
	struct ng_outfile out;
};

/* Start DIR/.threads.tsv.XXXXXX with its header. */
int ng_threads_open(struct ng_threads_writer **wp, const char *dir)
{
	struct ng_threads_writer *w = calloc(1, sizeof(*w));
	int ret;

	if (!w)
		return -ENOMEM;
	ret = ng_outfile_open(&w->out, dir, "threads.tsv");
	if (!ret)
		ret = ng_outfile_printf(&w->out, "tid\tpid\tcomm\n");
	if (ret) {
		ng_outfile_abort(&w->out);
		free(w);
		return ret;
	}
	*wp = w;
	return 0;
}

/* Add one thread's row. */
int ng_threads_add(struct ng_threads_writer *w, pid_t tid, pid_t pid,
		   const char *comm)
{
	char name[16];

	snprintf(name, sizeof(name), "%d", (int)tid);
	return ng_threads_add_row(w, name, pid, comm);
}

/* A row whose tid column is a file's name, such as "0-1" for CPU 1's idle. */
int ng_threads_add_row(struct ng_threads_writer *w, const char *tid, pid_t pid,
		       const char *comm)
{
	char safe[64];
	size_t i;

	if (!comm)
		comm = "";
	for (i = 0; comm[i] && i < sizeof(safe) - 1; i++)
		safe[i] = ((unsigned char)comm[i] < 0x20 || comm[i] == 0x7f) ?
			  '?' : comm[i];
	safe[i] = '\0';
	return ng_outfile_printf(&w->out, "%s\t%d\t%s\n", tid, (int)pid, safe);
}

/* Publish threads.tsv under its final name. */
int ng_threads_close(struct ng_threads_writer *w)
{
	int ret = ng_outfile_commit(&w->out);

	free(w);
	return ret;
}

/* Throw the table away. */
void ng_threads_abort(struct ng_threads_writer *w)
{
	if (!w)
		return;
	ng_outfile_abort(&w->out);
	free(w);
}
