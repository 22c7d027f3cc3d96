// SPDX-License-Identifier: GPL-2.0
/*
 * export.c - "nanograph export": a recording as Chrome trace JSON for
 * ui.perfetto.dev, or as folded stacks for flame graphs.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "nanograph.h"
#include "cmd.h"

const char ng_export_help[] =
"Options (one of --chrome and --folded):\n"
"  --chrome    Chrome Trace Event JSON: open it in https://ui.perfetto.dev\n"
"              or chrome://tracing; one track per thread (default FILE:\n"
"              DIR/trace.json)\n"
"  --folded    folded stacks 'comm;f1;...;fn NS' weighted by fn's self\n"
"              time in ns, for flamegraph.pl and speedscope (default FILE:\n"
"              DIR/stacks.folded)\n"
"  -o FILE     where to write";

int cmd_export(const struct ng_cmd *self, int argc, char **argv)
{
	enum { OPT_CHROME = 256, OPT_FOLDED };
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "chrome", no_argument, NULL, OPT_CHROME },
		{ "folded", no_argument, NULL, OPT_FOLDED },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL, *bad_file = NULL;
	struct ng_recording rec;
	char path[4096];
	uint64_t line = 0;
	int c, ret, fmt = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+ho:", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			ng_cmd_help(self);
			return NG_EXIT_OK;
		case 'o':
			out = optarg;
			break;
		case OPT_CHROME:
		case OPT_FOLDED:
			if (fmt && fmt != c)
				return ng_usage_error(self->name,
					"give one of --chrome and --folded");
			fmt = c;
			break;
		default:
			if (optopt == 'o')
				return ng_usage_error(self->name,
					"option '-o' needs a value");
			return ng_usage_error(self->name, "unknown option '%s'",
					      argv[optind - 1]);
		}
	}
	if (!fmt)
		return ng_usage_error(self->name, "which format? give --chrome or --folded");
	if (argc - optind != 1)
		return ng_usage_error(self->name, "give one recording directory");
	if (ng_cmd_open_recording(self, argv[optind], &rec))
		return NG_EXIT_FAIL;
	if (!out) {
		snprintf(path, sizeof(path), "%s/%s", rec.dir,
			 fmt == OPT_CHROME ? "trace.json" : "stacks.folded");
		out = path;
	}
	ret = fmt == OPT_CHROME ? ng_export_chrome(&rec, out, &line, &bad_file) :
				  ng_export_folded(&rec, out, &line, &bad_file);
	if (ret == -EBADMSG)
		fprintf(stderr, "nanograph export: %s/%s:%" PRIu64 ": not a valid push/pop line; nothing written\n",
			rec.dir, bad_file, line);
	else if (ret)
		fprintf(stderr, "nanograph export: %s: %s; nothing written\n",
			bad_file ? bad_file : out, strerror(-ret));
	ng_recording_close(&rec);
	return ret ? NG_EXIT_FAIL : NG_EXIT_OK;
}
