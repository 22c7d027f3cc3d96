// SPDX-License-Identifier: LGPL-2.1
/*
 * tdat.c - push/pop files from a trace-cmd recording.
 *
 * "trace-cmd record -e nanograph" stores the per-CPU ring-buffer pages,
 * the event formats, kallsyms and saved comms in trace.dat. libtracecmd
 * reads it and merges the CPUs by timestamp, the same order "record"
 * merges its own buffers in, and each record goes through the same
 * decoder and converter. The module writes a clock_sync event when
 * tracing starts, so the file also carries its own time base.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <trace-cmd.h>

#include "nanograph.h"

struct tdat {
	struct tep_handle *tep;
	struct ng_decoder *dec;
	struct ng_conv *conv;
	const struct ng_syms *syms;
	int err;
};

/*
 * Every record, in timestamp order across the CPUs. Only a negative
 * return stops tracecmd_iterate_events() (libtracecmd 3.1 goes on after
 * a positive one).
 */
static int tdat_record(struct tracecmd_input *handle, struct tep_record *rec,
		       int cpu, void *priv)
{
	struct tdat *t = priv;
	struct ng_event ev;

	(void)handle;
	if (rec->missed_events)
		ng_conv_lost(t->conv, cpu, rec->missed_events);
	ng_decode(t->dec, rec, &ev);
	t->err = ng_conv_event(t->conv, &ev);
	return t->err ? -1 : 0;
}

/* What the first pass looks for: the recording's first clock_sync. */
struct first_clock {
	struct ng_decoder *dec;
	struct ng_clock clock;
	bool found;
};

static int tdat_clock(struct tracecmd_input *handle, struct tep_record *rec,
		      int cpu, void *priv)
{
	struct first_clock *fc = priv;
	struct ng_event ev;

	(void)handle;
	(void)cpu;
	ng_decode(fc->dec, rec, &ev);
	fc->found = ng_clock_from_event(&ev, &fc->clock);
	return fc->found ? -1 : 0;
}

/* Open @path with libtracecmd: -ENOENT, -EACCES, or -EBADMSG for the rest. */
static int tdat_open(const char *path, struct tracecmd_input **handlep)
{
	errno = 0;
	*handlep = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (*handlep)
		return 0;
	return errno == ENOENT || errno == EACCES ? -errno : -EBADMSG;
}

/*
 * The first pass: find the first clock_sync in timestamp order, reading
 * no further than it (the module writes one when tracing starts, so that
 * is the beginning, unless trace-cmd started later). A handle of its own:
 * libtracecmd reads on from where an iteration stopped.
 */
static int tdat_find_clock(const char *path, struct ng_clock *clock,
			   bool *found)
{
	struct first_clock fc = { 0 };
	struct tracecmd_input *handle;
	int ret = tdat_open(path, &handle);

	if (ret)
		return ret;
	ret = ng_decoder_new(&fc.dec, tracecmd_get_tep(handle));
	if (!ret && tracecmd_iterate_events(handle, NULL, 0, tdat_clock,
					    &fc) < 0 && !fc.found)
		ret = -EBADMSG;
	ng_decoder_free(fc.dec);
	tracecmd_close(handle);
	*clock = fc.clock;
	*found = fc.found;
	return ret;
}

/* trace.dat carries the comms trace-cmd saved, not the thread groups. */
static void tdat_thread(void *priv, int tid, int *pid, char *comm, size_t size)
{
	struct tdat *t = priv;

	*pid = -1;
	snprintf(comm, size, "%s", tep_data_comm_from_pid(t->tep, tid));
}

/*
 * trace.dat carries the recording machine's kallsyms, which name each
 * address right wherever the file is converted; but libtraceevent keeps
 * no module names. This machine's table adds the module when it has a
 * function starting at the same address (the same kernel); then its name
 * is taken too, so that aliases read as "record" writes them. It is never
 * used alone: a trace.dat from another kernel keeps its own names.
 */
static const char *tdat_sym(void *priv, uint64_t addr, const char **module)
{
	struct tdat *t = priv;
	const char *name = tep_find_function(t->tep, addr);
	const struct ng_sym *ks;

	*module = NULL;
	if (!name || !t->syms)
		return name;
	/* The same function if it starts at the same address (aliases too). */
	ks = ng_syms_lookup(t->syms, addr);
	if (ks && ks->addr == tep_find_function_address(t->tep, addr)) {
		*module = ks->module;
		return ks->name;
	}
	return name;
}

int ng_tdat_convert(const char *path, const char *dir,
		    const struct ng_syms *syms, const struct ng_clock *clock,
		    struct ng_conv_summary *sum)
{
	struct tracecmd_input *handle = NULL;
	struct ng_clock first;
	struct tdat t = { 0 };
	bool found;
	int ret;

	memset(sum, 0, sizeof(*sum));
	/* The time base first: without one, fail before writing anything. */
	ret = tdat_find_clock(path, &first, &found);
	if (ret)
		return ret;
	if (!found && !clock)
		return -ENODATA;
	ret = tdat_open(path, &handle);
	if (ret)
		return ret;
	t.tep = tracecmd_get_tep(handle);
	ret = ng_decoder_new(&t.dec, t.tep);
	if (ret)
		goto out;
	t.syms = syms;
	ret = ng_conv_new(&t.conv, dir, NULL);
	if (ret)
		goto out;
	/* The recording's own clock_sync, else the one given. */
	ng_conv_set_clock(t.conv, found ? &first : clock);
	ng_conv_set_thread_info(t.conv, tdat_thread, &t);
	ng_conv_set_resolver(t.conv, tdat_sym, &t);
	ret = tracecmd_iterate_events(handle, NULL, 0, tdat_record, &t);
	if (t.err) {
		ng_conv_abort(t.conv);
		ret = t.err;
		goto out;
	}
	if (ret < 0) {
		ng_conv_abort(t.conv);
		ret = -EBADMSG;
		goto out;
	}
	ret = ng_conv_finish(t.conv, sum);
out:
	ng_decoder_free(t.dec);
	tracecmd_close(handle);
	return ret;
}
