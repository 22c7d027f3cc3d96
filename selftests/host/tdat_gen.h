/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tdat_gen.h - write a trace-cmd trace.dat (file version 6) of nanograph
 * events, as "trace-cmd record -e nanograph" would, for the host tests of
 * "nanograph convert": any number of events, threads and CPUs, with or
 * without a clock_sync, made in a moment and read by the real libtracecmd.
 */
#ifndef NG_TDAT_GEN_H
#define NG_TDAT_GEN_H

#include <stdint.h>

struct t_tdat;

/*
 * Start a trace.dat at @path with @cpus CPUs, its kallsyms listing
 * @kallsyms and saved comms @cmdlines ("<pid> <comm>\n" lines; may be "").
 */
struct t_tdat *t_tdat_open(const char *path, int cpus, const char *kallsyms,
			   const char *cmdlines);
/*
 * Events in each CPU's order; @ts is the ring-buffer timestamp, which
 * must not decrease on a CPU. @counter is the module's counter.
 */
void t_tdat_entry(struct t_tdat *t, int cpu, int pid, uint64_t ts,
		  uint64_t counter, unsigned int depth, uint64_t ip);
void t_tdat_exit(struct t_tdat *t, int cpu, int pid, uint64_t ts,
		 uint64_t counter, unsigned int depth, uint64_t ip);
/* func_call: a call of @pid that returned, with its entry's counter. */
void t_tdat_call(struct t_tdat *t, int cpu, int pid, uint64_t ts,
		 uint64_t entry_counter, unsigned int depth, uint64_t ip,
		 uint64_t exit_counter);
/*
 * func_open: a call of @pid (0: the idle task of @frame_cpu; otherwise
 * @frame_cpu is -1) that had not returned, written on @cpu by another
 * task, T_TDAT_OPEN_WRITER, as the module's stop walk would.
 */
#define T_TDAT_OPEN_WRITER	4242
void t_tdat_open_call(struct t_tdat *t, int cpu, uint64_t ts,
		      uint64_t counter, unsigned int depth, uint64_t ip,
		      int pid, int frame_cpu);
/*
 * options/sched's events: @pid left @cpu (asleep in @state, or runnable
 * when @preempted), got it back after @writer, or was woken by @waker
 * (ctx an NG_RAW_CTX_* value or 0) inside the hooked function at @ip.
 */
void t_tdat_sched_out(struct t_tdat *t, int cpu, int pid, uint64_t ts,
		      uint64_t counter, unsigned int state, int preempted);
void t_tdat_sched_in(struct t_tdat *t, int cpu, int writer, int pid,
		     uint64_t ts, uint64_t counter);
void t_tdat_sched_wake(struct t_tdat *t, int cpu, int waker, int pid,
		       uint64_t ts, uint64_t counter, unsigned int ctx,
		       uint64_t ip);
void t_tdat_clock(struct t_tdat *t, int cpu, uint64_t ts, uint64_t counter,
		  uint64_t mono_ns, uint64_t freq);
/* The format text of nanograph event @name ("func_call"), or NULL. */
const char *t_tdat_format(const char *name);
/* Write the file; 0, or -1 if anything failed. Frees @t. */
int t_tdat_close(struct t_tdat *t);

#endif /* NG_TDAT_GEN_H */
