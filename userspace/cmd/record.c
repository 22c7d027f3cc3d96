// SPDX-License-Identifier: GPL-2.0
/*
 * record.c - "nanograph record": configure the module, run or attach to
 * the workload, stream the events while it runs, write push/pop files.
 *
 * This file is the order of the steps (cmd_record()) and the clean-up
 * every way out goes through; each step lives in the file of its part
 * (record.h lists them).  Everything the command changes (the module's
 * control files, a tracefs instance, saved_cmdlines_size) is put back as
 * it was, whichever way the recording ends: the command's exit, Ctrl-C,
 * SIGTERM, --duration, or an error.
 *
 * Convention (cmd.h): 0 to go on, else the exit code after the line.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "record.h"

/* One error line: "nanograph record: <what>"; the exit code of a failure. */
int rec_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "nanograph record: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return NG_EXIT_FAIL;
}

/* CLOCK_MONOTONIC in seconds: the progress line, --duration. */
double rec_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* DIR/.raw (or the snapshot's): the spill files, removed at the end. */
int rec_make_raw_dir(struct run *r)
{
	snprintf(r->raw_dir, sizeof(r->raw_dir), "%s/.raw", ng_outdir_path(r->out));
	if (!mkdir(r->raw_dir, 0700))
		return 0;
	rec_fail("cannot create %s: %s", r->raw_dir, strerror(errno));
	r->raw_dir[0] = '\0';
	return NG_EXIT_FAIL;
}

/* The kernel's symbols, to name the recorded addresses; a warning if not. */
void rec_load_symbols(struct run *r, const struct rec_opts *o)
{
	int ret = ng_syms_load(&r->syms, NULL);

	if (ret && !o->quiet)
		fprintf(stderr, "nanograph record: warning: cannot read /proc/kallsyms (%s): functions are written as addresses\n",
			strerror(-ret));
	/* Each module's end: code past it is no module's (one unloaded since). */
	if (!ret)
		ng_syms_load_modules(r->syms, NULL);
}

/* The buffers' reader: spill files now, or (--flight) at each snapshot. */
static int open_recorder(struct run *r, const struct rec_opts *o)
{
	struct ng_rec_opts ro = {
		.buffer_kb = o->buffer_kb,
		.raw_dir = o->flight ? NULL : r->raw_dir,
		.raw = o->raw,
		.ctl_root = ng_ctl_root(&r->ctl),
	};
	int ret;

	ret = o->flight ? 0 : rec_make_raw_dir(r);
	if (ret)
		return ret;
	ret = ng_rec_open(&r->rec, &ro);
	if (!ret)
		return 0;
	if (o->raw)
		return rec_fail("cannot open the raw buffers in %s/per_cpu: %s",
				ng_ctl_root(&r->ctl), strerror(-ret));
	return rec_fail("cannot set up the tracefs instance 'nanograph': %s",
			strerror(-ret));
}

/* Put back everything changed, whatever happened. */
static void cleanup(struct run *r)
{
	rec_workload_close(&r->wl);
	ng_session_free(r->session);	/* what is left to put back */
	if (r->fl.fd >= 0)
		close(r->fl.fd);
	ng_rec_close(r->rec);
	if (r->raw_dir[0])
		rmdir(r->raw_dir);
	ng_syms_free(r->syms);
	ng_info_settings_free(r->settings);
}

/*
 * Before anything changes: the command line, then the conditions; the
 * output directory (a new one next to DIR, swapped in once the
 * recording is whole; --flight makes one a snapshot).
 */
static int prepare(struct run *r, struct rec_opts *o, int argc, char **argv)
{
	int ret = rec_parse(r->self, argc, argv, o);

	if (ret >= 0)
		return ret;
	ret = rec_preflight(r, o);
	if (ret)
		return ret;
	/* From here on, every way out puts back what was changed. */
	rec_catch_signals();
	r->out_name = o->dir;
	ret = o->flight ? 0 : ng_cmd_open_outdir(r->self, o->dir, &r->out);
	return ret ? ret : -1;
}

/* "nanograph record": each step in turn; every way out through cleanup(). */
int cmd_record(const struct ng_cmd *self, int argc, char **argv)
{
	struct rec_opts o = { 0 };
	struct run r = { .self = self, .wl = { .go_fd = -1, .err_fd = -1 },
			 .fl = { .fd = -1 } };
	int ret;

	ret = prepare(&r, &o, argc, argv);
	if (ret >= 0)
		goto out_opts;
	rec_raise_nofile(&r.wl);
	ret = rec_read_clock(&r);
	if (!ret)
		ret = rec_configure(&r, &o);
	if (!ret)
		ret = open_recorder(&r, &o);
	if (!ret)
		ret = rec_flight_start(&r, &o);
	if (!ret)
		ret = rec_start(&r, &o);
	if (ret)
		goto out;
	r.start_s = rec_now_s();
	clock_gettime(CLOCK_REALTIME, &r.start_rt);
	if (o.argv) {
		ret = rec_release(&r.wl, o.argv);
		if (ret)
			goto out;
	}
	ret = o.flight ? rec_fly(&r, &o) : rec_record_whole(&r, &o);
out:
	cleanup(&r);
	ret = o.flight ? rec_flight_finish(&r, &o, ret) : rec_finish(&r, &o, ret);
out_opts:
	rec_opts_free(&o);
	return ret;
}
