/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * rawrec.h - library-internal: the raw buffer mode's recorder, behind
 * record.c's ng_rec_* functions (ng_rec_opts.raw).
 */
#ifndef NG_RAWREC_H
#define NG_RAWREC_H

#include <stdint.h>

struct ng_conv;
struct ng_rawrec;
struct ng_tasks;

/*
 * Open the module's per_cpu/cpuN/raw files under @ctl_root (NULL: the
 * default control directory) and a spill file per CPU in @spill_dir
 * (NULL: none yet, see ng_rawrec_spill_to()).
 * Task records seen while draining are noted in @tasks, and given the names of the comm records when the
 * recording is replayed. What the buffers hold already (an earlier session's
 * records) is read and discarded: open with the module idle.
 */
int ng_rawrec_open(struct ng_rawrec **rp, const char *ctl_root,
		   const char *spill_dir, struct ng_tasks *tasks);
/*
 * Move everything written before the call to the spill files (two read
 * passes per CPU, each bounded by the buffer): after tracing_on=0 and
 * the last frame's return, one call takes the rest.  0 or -errno;
 * ng_rawrec_bytes() counts what was moved.
 */
int ng_rawrec_drain(struct ng_rawrec *r);
/*
 * Spill from now on to new files in @spill_dir (NULL: none, what is
 * drained is thrown away), removing the earlier ones: a flight
 * snapshot's own files, written only once a trigger fired.  Counts
 * bytes from 0 again.  0 or -errno.
 */
int ng_rawrec_spill_to(struct ng_rawrec *r, const char *spill_dir);
uint64_t ng_rawrec_bytes(const struct ng_rawrec *r);
int ng_rawrec_lost(const struct ng_rawrec *r, uint64_t *lost);
int ng_rawrec_replay(struct ng_rawrec *r, struct ng_conv *conv);
void ng_rawrec_close(struct ng_rawrec *r);

#endif /* NG_RAWREC_H */
