/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * tasks.h - library-internal: the threads a recording has seen, with
 * their process and name as /proc showed them while they ran, for
 * threads.tsv (threads that exit before the recording ends are gone from
 * /proc by then). Noted by both captures (cap_events.c, cap_raw.c).
 */
#ifndef NG_TASKS_H
#define NG_TASKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ng_tasks;

struct ng_tasks *ng_tasks_new(void);
/* Remember @tid on first sight, reading /proc now; @pid if already known. */
void ng_tasks_note(struct ng_tasks *ts, int tid, int pid);
/*
 * @tid was called @comm at @counter (a raw comm record): the name of the
 * latest counter wins over others and over /proc's. @pid if known (> 0).
 */
void ng_tasks_comm(struct ng_tasks *ts, int tid, int pid, uint64_t counter,
		   const char *comm);
/* What was noted for @tid: true with *@pid and @comm filled if known. */
bool ng_tasks_get(const struct ng_tasks *ts, int tid, int *pid, char *comm,
		  size_t size);
/* /proc/<tid>/comm and the Tgid of /proc/<tid>/status, where they exist. */
void ng_tasks_proc(int tid, int *pid, char *comm, size_t size);
void ng_tasks_free(struct ng_tasks *ts);

#endif /* NG_TASKS_H */
