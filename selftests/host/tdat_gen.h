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
void t_tdat_clock(struct t_tdat *t, int cpu, uint64_t ts, uint64_t counter,
		  uint64_t mono_ns, uint64_t freq);
/* Write the file; 0, or -1 if anything failed. Frees @t. */
int t_tdat_close(struct t_tdat *t);

#endif /* NG_TDAT_GEN_H */
