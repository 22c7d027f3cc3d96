// SPDX-License-Identifier: LGPL-2.1
/*
 * tasks.c - the threads a recording has seen (tasks.h): one entry per tid
 * in the one hash map (hashmap.h), keyed by the tid's bijective hash.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nanograph.h"
#include "nanograph_event.h"
#include "hashmap.h"
#include "tasks.h"

#define TASK_SLOTS	4096

struct task {
	int tid, pid;
	char comm[16];
	bool named;		/* comm is from a comm record, at named_at */
	uint64_t named_at;
};

struct ng_tasks {
	struct ng_hmap map;
	uint64_t seed;
};

/* Room for TASK_SLOTS / 2 threads before the map first grows. */
struct ng_tasks *ng_tasks_new(void)
{
	struct ng_tasks *ts = calloc(1, sizeof(*ts));

	if (!ts)
		return NULL;
	ts->seed = ng_hash_seed();
	if (ng_hmap_init(&ts->map, TASK_SLOTS)) {
		free(ts);
		return NULL;
	}
	return ts;
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

static uint64_t tid_hash(const struct ng_tasks *ts, int tid)
{
	return ng_hmap_u64_hash((uint64_t)(int64_t)tid, ts->seed);
}

static struct task *find(const struct ng_tasks *ts, int tid)
{
	return ng_hmap_find_hash(&ts->map, tid_hash(ts, tid));
}

/* A new entry for @tid, with what /proc says of it now; NULL: no memory. */
static struct task *add(struct ng_tasks *ts, int tid, int pid)
{
	struct task *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;	/* the end-of-run lookups still apply */
	t->tid = tid;
	t->pid = -1;
	ng_tasks_proc(tid, &t->pid, t->comm, sizeof(t->comm));
	if (pid > 0)
		t->pid = pid;
	if (ng_hmap_add(&ts->map, tid_hash(ts, tid), t)) {
		free(t);
		return NULL;
	}
	return t;
}

void ng_tasks_note(struct ng_tasks *ts, int tid, int pid)
{
	if (tid > 0 && !find(ts, tid))
		add(ts, tid, pid);
}

void ng_tasks_comm(struct ng_tasks *ts, int tid, int pid, uint64_t counter,
		   const char *comm)
{
	struct task *t;

	if (tid <= 0 || !comm[0])
		return;
	t = find(ts, tid);
	if (!t)
		t = add(ts, tid, pid);
	if (!t || (t->named && ng_counter_before(counter, t->named_at)))
		return;
	snprintf(t->comm, sizeof(t->comm), "%.*s", (int)sizeof(t->comm) - 1, comm);
	t->named = true;
	t->named_at = counter;
	if (pid > 0)
		t->pid = pid;
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
	size_t i = 0;
	void *t;

	if (!ts)
		return;
	while ((t = ng_hmap_next(&ts->map, &i)))
		free(t);
	ng_hmap_fini(&ts->map);
	free(ts);
}
