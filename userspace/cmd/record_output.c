// SPDX-License-Identifier: GPL-2.0
/*
 * record_output.c - a recording's files and what record says of them:
 * the spill files merged and converted into the push/pop files of a
 * new directory (ng_outdir: swapped in whole, or nothing), protos.tsv,
 * info.json, then the summary and record's exit status.  A whole
 * recording and each --flight snapshot are written alike; a signal
 * while they are written abandons them (rec_interrupted()).
 *
 * Convention (cmd.h): 0 to go on, else the exit code after the line.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "record.h"

/* The converter's question: has a signal abandoned the recording? */
static bool cancelled(void *priv)
{
	(void)priv;
	return rec_abort_signal != 0;
}

/* Abandoned by a signal: say so; the exit status of the signal. */
int rec_interrupted(const char *dir)
{
	fprintf(stderr, "nanograph record: interrupted while writing the recording: nothing was kept, %s is as it was\n",
		dir);
	return 128 + rec_abort_signal;
}

/* DIR/info.json: this run, the module's settings and what was missed. */
static int write_info(const struct run *r, const struct rec_opts *o)
{
	struct ng_info info = {
		.source = "record",
		.argc = ng_argc,
		.argv = ng_argv,
		.command = o->argv,
		.pid = o->pid,
		.scope = o->all ? "system" : o->pid ? "process" : "command",
		.this_host = true,
		.start = &r->start_rt,
		.duration_ns = r->duration_ns,
		.mode = o->flight ? "flight" : o->raw ? "raw" : "events",
		.trigger = o->flight ? &r->fl.trigger : NULL,
		.overwritten = r->fl.overwritten,
		.counter = r->clock.name[0] ? r->clock.name : NULL,
		.settings = r->settings,
		.sum = &r->sum,
		.skipped = r->skipped_known ? r->skipped : NG_INFO_UNKNOWN,
		.overhead = r->calibrated ? &r->overhead : NULL,
	};

	while (o->argv && o->argv[info.command_argc])
		info.command_argc++;
	return ng_info_write(ng_outdir_path(r->out), &info);
}

/*
 * DIR/protos.tsv: the types of the functions whose arguments or return
 * values were recorded, from the running kernel's BTF.  A kernel
 * without BTF is no error: replay prints the registers untyped, and
 * this says so once.
 */
static int write_protos(const struct run *r, const struct rec_opts *o)
{
	struct ng_protos_stats st;
	int ret;

	if (!r->sum.args && !r->sum.retvals)
		return 0;
	ret = ng_protos_write(ng_outdir_path(r->out), NULL, &st);
	if (ret == -ENOENT) {
		if (!o->quiet)
			fprintf(stderr, "nanograph record: this kernel has no BTF (/sys/kernel/btf/vmlinux): arguments and return values stay untyped registers\n");
		return 0;
	}
	if (!ret && st.untyped && !o->quiet)
		fprintf(stderr, "nanograph record: %zu of %zu functions are not in the kernel's BTF: their values stay untyped\n",
			st.untyped, st.untyped + st.typed);
	return ret;
}

/* Merge and convert into the new directory; the counts in r->sum. */
int rec_write_output(struct run *r, const struct rec_opts *o)
{
	struct ng_cancel cancel = { cancelled, NULL };
	struct ng_conv_summary *sum = &r->sum;
	struct ng_conv *conv;
	uint64_t lost = r->fl.lost;
	int ret;

	/* a flight snapshot's: since its arm (flight_snapshot()) */
	if (!o->flight)
		ng_rec_lost(r->rec, &lost);
	ret = ng_conv_new(&conv, ng_outdir_path(r->out), r->syms);
	if (ret)
		return rec_fail("out of memory");
	ng_conv_set_clock(conv, &r->clock);
	ng_conv_set_window(conv, r->fl.window_from);
	ng_conv_set_thread_info(conv, ng_rec_thread_info, r->rec);
	ng_conv_set_cancel(conv, &cancel);
	ret = ng_rec_replay(r->rec, conv);
	if (ret == -ECANCELED) {
		ng_conv_abort(conv);
		return rec_interrupted(r->out_name);
	}
	if (ret) {
		ng_conv_abort(conv);
		return rec_fail("reading back the recorded events: %s", strerror(-ret));
	}
	ng_conv_lost(conv, -1, (long long)lost);
	ret = ng_conv_finish(conv, sum);
	if (!ret)
		ret = write_protos(r, o);
	if (!ret)
		ret = write_info(r, o);
	if (ret == -ECANCELED)
		return rec_interrupted(r->out_name);
	if (ret == -ENOSPC || ret == -EDQUOT)
		return rec_fail("writing %s: %s: free some space or choose another -o DIR; nothing was kept",
				r->out_name, strerror(-ret));
	if (ret)
		return rec_fail("writing %s: %s; nothing was kept", r->out_name,
				strerror(-ret));
	return NG_EXIT_OK;
}

/* The summary, once the recording is in place. */
static void summary(const struct run *r, const struct rec_opts *o, double secs)
{
	const struct ng_conv_summary *sum = &r->sum;

	if (o->quiet)
		return;
	fprintf(stderr,
		"nanograph: %" PRIu64 " threads, %" PRIu64 " events (%" PRIu64
		" calls), %" PRIu64 " lost, %" PRIu64 " skipped, %.2f s, %.1f KiB in %s/\n",
		sum->threads, sum->events, sum->pushes, sum->lost, r->skipped,
		secs, sum->bytes / 1024.0, o->dir);
	if (r->calibrated)
		fprintf(stderr,
			"nanograph: tracing cost %.0f ns per call, %.0f ns of it inside the call's own time (%" PRIu64
			" calls of %s)\n",
			r->overhead.per_call_ns, r->overhead.inside_ns,
			r->overhead.calls, r->overhead_fn);
	if (sum->lost)
		fprintf(stderr,
			"nanograph: warning: the buffer was full and %" PRIu64
			" events were lost; record again with a larger --buffer-kb (now %lu)\n",
			sum->lost, o->buffer_kb);
	if (sum->unresolved)
		fprintf(stderr,
			"nanograph: warning: %" PRIu64 " function address%s in no function the kernel lists now (a module unloaded during the recording?): written as hex\n",
			sum->unresolved, sum->unresolved == 1 ? " lies" : "es lie");
	ng_cmd_say_left_out(sum);
	if (sum->closed_at_end || sum->unmatched_exits || sum->repaired)
		fprintf(stderr,
			"nanograph: %" PRIu64 " calls still running at the end were closed there; %" PRIu64
			" returns from calls entered before the recording were left out; %" PRIu64
			" calls whose return was lost were closed at the next event\n",
			sum->closed_at_end, sum->unmatched_exits, sum->repaired);
	if (r->skipped)
		fprintf(stderr,
			"nanograph: the module skipped %" PRIu64
			" calls of the traced tasks, which are not in the files: deeper than %s64 frames of a shadow stack, or in a task without one (stats: skipped)\n",
			r->skipped, o->depth > 0 ? "-D or the " : "the ");
	rec_say_command_end(&r->wl, o);
}

/* Put the recording in place, then the summary and record's exit status. */
int rec_finish(struct run *r, const struct rec_opts *o, int ret)
{
	if (ret) {
		if (r->out)
			ng_outdir_abort(r->out);
		return ret;
	}
	ret = ng_outdir_commit(r->out);
	if (ret)
		return rec_fail("cannot put the recording in place as %s: %s; nothing was kept",
				o->dir, strerror(-ret));
	rec_reap(&r->wl);	/* a command that ended while the files were written */
	summary(r, o, r->duration_ns / 1e9);
	return rec_exit_status(&r->wl);
}
