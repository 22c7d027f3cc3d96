// SPDX-License-Identifier: LGPL-2.1
/*
 * tasks.c - the threads a recording has seen (tasks.h).
 */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nanograph.h"
#include "tasks.h"

#define TASK_BUCKETS	4096

struct task {
	struct task *next;
	int tid, pid;
	char comm[16];
};

struct ng_tasks {
	struct task *buckets[TASK_BUCKETS];
};

struct ng_tasks *ng_tasks_new(void)
{
	return calloc(1, sizeof(struct ng_tasks));
}

void ng_tasks_proc(int tid, int *pid, char *comm, size_t size)
{
	char path[64], line[256];
	uint64_t tgid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", tid);
	f = fopen(path, "re");
	if (f) {
		if (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(comm, size, "%s", line);
		}
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!ng_parse_line_nums(line, "Tgid:", 0, INT_MAX, &tgid, 1)) {
			*pid = tgid;
			break;
		}
	fclose(f);
}

static struct task *find(const struct ng_tasks *ts, int tid)
{
	struct task *t;

	for (t = ts->buckets[(unsigned int)tid % TASK_BUCKETS]; t; t = t->next)
		if (t->tid == tid)
			return t;
	return NULL;
}

void ng_tasks_note(struct ng_tasks *ts, int tid, int pid)
{
	struct task *t;

	if (tid <= 0 || find(ts, tid))
		return;
	t = calloc(1, sizeof(*t));
	if (!t)
		return;		/* the end-of-run lookups still apply */
	t->tid = tid;
	t->pid = -1;
	ng_tasks_proc(tid, &t->pid, t->comm, sizeof(t->comm));
	if (pid > 0)
		t->pid = pid;
	t->next = ts->buckets[(unsigned int)tid % TASK_BUCKETS];
	ts->buckets[(unsigned int)tid % TASK_BUCKETS] = t;
}

bool ng_tasks_get(const struct ng_tasks *ts, int tid, int *pid, char *comm,
		  size_t size)
{
	const struct task *t = find(ts, tid);

	if (!t || t->pid <= 0 || !t->comm[0])
		return false;
	*pid = t->pid;
	snprintf(comm, size, "%s", t->comm);
	return true;
}

void ng_tasks_free(struct ng_tasks *ts)
{
	int i;

	if (!ts)
		return;
	for (i = 0; i < TASK_BUCKETS; i++) {
		struct task *t, *next;

		for (t = ts->buckets[i]; t; t = next) {
			next = t->next;
			free(t);
		}
	}
	free(ts);
}
