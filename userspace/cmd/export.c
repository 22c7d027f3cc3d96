// SPDX-License-Identifier: GPL-2.0
/*
 * export.c - "nanograph export": a recording as Chrome trace JSON or
 * Perfetto's protobuf trace for ui.perfetto.dev, or as folded stacks for
 * flamegraph.pl and speedscope. The formats are written by libnanograph
 * (lib/export.c, lib/perfetto.c); this file parses options and says what
 * went wrong.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nanograph.h"
#include "cmd.h"

const char ng_export_help[] =
"Options (exactly one of --chrome, --perfetto and --folded):\n"
"  --chrome    Chrome Trace Event JSON, one complete event per call, ts\n"
"              and dur in microseconds (exact to the ns): open it in\n"
"              https://ui.perfetto.dev. Default FILE: DIR/trace.json\n"
"  --perfetto  Perfetto's own protobuf trace: a BEGIN and an END TrackEvent\n"
"              per call, names interned, timestamps as ns deltas; 30% of\n"
"              --chrome's size, for recordings too large for JSON.\n"
"              Default FILE: DIR/trace.perfetto-trace\n"
"  --folded    folded stacks 'comm;f1;...;fn NS', NS the self time of fn\n"
"              in that stack, for flamegraph.pl and speedscope. Default\n"
"              FILE: DIR/stacks.folded\n"
"  -o, --output FILE\n"
"              where to write; written under a temporary name and renamed,\n"
"              so FILE only ever holds a whole export. '-o -': standard\n"
"              output (every file is checked first: a bad one leaves it\n"
"              empty)\n"
"\n"
NG_FILTER_HELP("-t, ")
"\n"
"Only the calls the filters show are written; with -F each stack starts\n"
"at the -F call. A call left out takes its time with it: its caller's\n"
"self time stays its own.\n"
"\n"
"An idle task's file 0-<cpu>.txt becomes tid 4194304 + cpu in pid 0.\n"
"A recording whose info.json says calls are missing (events lost, calls\n"
"skipped) gets one warning line on stderr: see 'nanograph info DIR'.\n"
"See Documentation/report-export.md.";

/* One line on stderr: which input or output failed, and why. */
static void export_error(const struct ng_cmd *self,
			 const struct ng_recording *rec, const char *out,
			 const struct ng_pp_bad *bad, int err)
{
	if (bad->file)
		ng_cmd_bad_input(self, rec, bad, err, "; nothing written");
	else if (err == -ENOMEM)
		fprintf(stderr, "nanograph export: %s: %s\n", rec->dir,
			strerror(-err));
	else
		fprintf(stderr, "nanograph export: cannot write %s: %s\n",
			strcmp(out, "-") ? out : "to standard output",
			strerror(-err));
}

/* Options and filters, the recording, the default FILE, the library. */
static int export(const struct ng_cmd *self, int argc, char **argv,
		  struct ng_filter *f)
{
	enum { OPT_CHROME = 256, OPT_FOLDED, OPT_PERFETTO };
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "chrome", no_argument, NULL, OPT_CHROME },
		{ "folded", no_argument, NULL, OPT_FOLDED },
		{ "perfetto", no_argument, NULL, OPT_PERFETTO },
		{ "output", required_argument, NULL, 'o' },
		NG_FILTER_LONGOPTS('t'),
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL;
	struct ng_recording rec;
	struct ng_pp_bad bad;
	char *path = NULL;
	int c, ret, fmt = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:ho:t:D:F:N:", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'h':
			ng_cmd_help(self);
			return NG_EXIT_OK;
		case 'o':
			ret = ng_opt_output(self, optarg, &out);
			if (ret >= 0)
				return ret;
			break;
		case OPT_CHROME:
		case OPT_FOLDED:
		case OPT_PERFETTO:
			if (fmt && fmt != c)
				return ng_usage_error(self->name,
					"give only one of --chrome, --perfetto and --folded");
			fmt = c;
			break;
		default:
			ret = ng_filter_option(self, f, c, argv, longopts);
			if (ret >= 0)
				return ret;
		}
	}
	if (!fmt)
		return ng_usage_error(self->name,
				      "which format? give --chrome, --perfetto or --folded");
	if (fmt == OPT_PERFETTO && out && !strcmp(out, "-"))
		return ng_usage_error(self->name,
				      "--perfetto writes a file, not standard output: give -o FILE");
	ret = ng_cmd_open_views(self, argc - optind, argv + optind, f, &rec, 1);
	if (ret)
		return ret;
	if (!out) {
		if (asprintf(&path, "%s/%s", rec.dir, fmt == OPT_CHROME ?
			     "trace.json" : fmt == OPT_PERFETTO ?
			     "trace.perfetto-trace" : "stacks.folded") < 0) {
			ng_recording_close(&rec);
			fprintf(stderr, "nanograph export: %s\n", strerror(ENOMEM));
			return NG_EXIT_FAIL;
		}
		out = path;
	}
	if (!strcmp(out, "-"))		/* standard output, as everywhere */
		ret = fmt == OPT_CHROME ? ng_export_chrome_fp(&rec, stdout, &bad) :
					  ng_export_folded_fp(&rec, stdout, &bad);
	else
		ret = fmt == OPT_CHROME ? ng_export_chrome(&rec, out, &bad) :
		      fmt == OPT_PERFETTO ? ng_export_perfetto(&rec, out, &bad, NULL) :
					    ng_export_folded(&rec, out, &bad);
	if (ret)
		export_error(self, &rec, out, &bad, ret);
	else
		ng_cmd_say_clamped(self, &rec, 1);
	ng_recording_close(&rec);
	free(path);
	return ret ? NG_EXIT_FAIL : NG_EXIT_OK;
}

int cmd_export(const struct ng_cmd *self, int argc, char **argv)
{
	return ng_cmd_run_view(self, argc, argv, export);
}
