// SPDX-License-Identifier: GPL-2.0
/*
 * convert.c - "nanograph convert": push/pop files from a trace-cmd
 * recording of the nanograph events (trace-cmd record -e nanograph).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nanograph.h"
#include "cmd.h"

const char ng_convert_help[] =
"Options:\n"
"  -o DIR            output directory (default: nanograph.data), replaced\n"
"                    whole when the conversion succeeds; an earlier\n"
"                    recording there is kept as DIR.old\n"
"  --kallsyms FILE   symbols for module names (default: /proc/kallsyms)\n"
"  --clock FILE      a copy of the module's clock file, whose sync pair\n"
"                    converts the times instead of the trace.dat's first\n"
"                    nanograph:clock_sync (for one without, or to match\n"
"                    another recording's pair)\n"
"  --btf FILE        the BTF of the recorded kernel (its\n"
"                    /sys/kernel/btf/vmlinux, copied): types the arguments\n"
"                    and return values of func_args and func_retval events\n"
"                    (DIR/protos.tsv); without it they stay registers\n"
"  -q, --quiet       no summary\n"
"\n"
"Functions are named from the kallsyms trace-cmd stored in TRACE.DAT; the\n"
"module of a module function comes from --kallsyms when that names the\n"
"same address the same way (the same kernel). Timestamps use the clock_sync\n"
"event the module writes when tracing starts; start trace-cmd before\n"
"'echo 1 > tracing_on' so that it is in the recording, or pass --clock.\n"
"Ctrl-C (SIGTERM, SIGHUP) stops a conversion and leaves DIR as it was.\n"
"DIR also gets info.json: the conversion's command line and counts\n"
"('nanograph info DIR').";

/* The signal that interrupted the conversion, if any. */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

static bool cancelled(void *priv)
{
	(void)priv;
	return interrupted != 0;
}

/* One error line: "nanograph convert: <what>". */
static int fail(const char *what, const char *why)
{
	fprintf(stderr, "nanograph convert: %s: %s\n", what, why);
	return NG_EXIT_FAIL;
}

/* --clock FILE: a saved copy of the module's clock file. */
static int read_clock(const char *path, struct ng_clock *clock)
{
	char text[1024];
	size_t n;
	FILE *f = fopen(path, "re");

	if (!f)
		return fail(path, strerror(errno));
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	if (ng_clock_parse(text, clock))
		return fail(path, "not a nanograph clock file (no 'frequency:' and 'sync:' lines)");
	return 0;
}

/*
 * DIR/info.json of a conversion: what a trace.dat tells, no more. It
 * carries no module settings, no skipped count, no start time, and the
 * kernel and host it names are not this machine's: those are null.
 */
static int write_info(const char *in, const struct ng_clock *clockp,
		      const struct ng_conv_summary *sum, const char *dir)
{
	struct ng_info info = {
		.source = "convert",
		.argc = ng_argc,
		.argv = ng_argv,
		.input = in,
		.duration_ns = NG_INFO_UNKNOWN,
		.mode = "events",
		.counter = clockp && clockp->name[0] ? clockp->name : NULL,
		.sum = sum,
		.skipped = NG_INFO_UNKNOWN,
	};

	return ng_info_write(dir, &info);
}

/* What the command line asks for. */
struct conv_opts {
	const char *dir, *ksyms, *clock_file, *btf, *in;
	bool quiet, help;
};

/* The options into @o: 0, or the exit code of a usage error. */
static int parse(const struct ng_cmd *self, int argc, char **argv,
		 struct conv_opts *o)
{
	enum { OPT_KALLSYMS = 256, OPT_CLOCK, OPT_BTF };
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
		{ "clock", required_argument, NULL, OPT_CLOCK },
		{ "btf", required_argument, NULL, OPT_BTF },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->dir = "nanograph.data";
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:hqo:", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			o->help = true;
			return 0;
		case 'q':
			o->quiet = true;
			break;
		case 'o':
			o->dir = optarg;
			break;
		case OPT_KALLSYMS:
			o->ksyms = optarg;
			break;
		case OPT_CLOCK:
			o->clock_file = optarg;
			break;
		case OPT_BTF:
			o->btf = optarg;
			break;
		default:
			return ng_option_error(self, c, argv, longopts);
		}
		if (optarg && !*optarg)
			return ng_usage_error(self->name,
					      "option '%s' needs a value",
					      c == 'o' ? "-o" : c == OPT_CLOCK ?
					      "--clock" : c == OPT_BTF ? "--btf" :
					      "--kallsyms");
	}
	if (argc - optind != 1)
		return ng_usage_error(self->name, argc == optind ?
				      "which trace.dat? give one file" :
				      "give exactly one trace.dat");
	o->in = argv[optind];
	return 0;
}

/*
 * Beside the push/pop files, the types of the values (from the BTF
 * given) and info.json; then DIR swapped in whole. An exit code.
 */
static int publish(const struct conv_opts *o, const struct ng_clock *clockp,
		   const struct ng_conv_summary *sum, struct ng_outdir *out)
{
	struct ng_protos_stats st;
	int ret;

	if (o->btf && (sum->args || sum->retvals)) {
		ret = ng_protos_write(ng_outdir_path(out), o->btf, &st);
		if (ret) {
			ng_outdir_abort(out);
			return fail(o->btf, ret == -ENOENT ? "not a BTF file libbpf can read" :
				    strerror(-ret));
		}
	}
	ret = write_info(o->in, clockp, sum, ng_outdir_path(out));
	if (ret) {
		ng_outdir_abort(out);
		if (ret == -ENOSPC || ret == -EDQUOT)
			return fail(o->dir, "no space left; nothing was kept: free some space or choose another -o DIR");
		fprintf(stderr, "nanograph convert: writing %s/%s: %s; nothing was kept\n",
			o->dir, NG_INFO_FILE, strerror(-ret));
		return NG_EXIT_FAIL;
	}
	ret = ng_outdir_commit(out);
	if (ret)
		return fail(o->dir, strerror(-ret));
	return NG_EXIT_OK;
}

/* Why the conversion failed (-errno @err), in one line: an exit code. */
static int say_failure(const struct conv_opts *o, int err)
{
	switch (err) {
	case -ECANCELED:
		fprintf(stderr, "nanograph convert: interrupted: nothing was kept, %s is as it was\n",
			o->dir);
		return 128 + interrupted;
	case -EBADMSG:
		return fail(o->in, "not a trace-cmd trace.dat, or truncated or damaged: libtracecmd cannot read it");
	case -ENOENT:
		return fail(o->in, "holds no nanograph events (record with 'trace-cmd record -e nanograph')");
	case -ENODATA:
		return fail(o->in, "no nanograph:clock_sync event to convert timestamps with: start trace-cmd before 'echo 1 > tracing_on', or pass --clock FILE");
	case -ENOSPC:
	case -EDQUOT:
		return fail(o->dir, "no space left; nothing was kept: free some space or choose another -o DIR");
	default:
		return fail(o->in, strerror(-err));
	}
}

/* What was converted, unless --quiet. */
static void say_summary(const struct conv_opts *o,
			const struct ng_conv_summary *sum)
{
	if (o->quiet)
		return;
	fprintf(stderr,
		"nanograph: %" PRIu64 " threads, %" PRIu64 " events (%" PRIu64
		" calls), %" PRIu64 " lost, %.1f KiB in %s/\n",
		sum->threads, sum->events, sum->pushes, sum->lost,
		sum->bytes / 1024.0, o->dir);
	if (sum->unresolved)
		fprintf(stderr,
			"nanograph: warning: %" PRIu64 " function address%s in no function of the trace's kallsyms: written as hex\n",
			sum->unresolved, sum->unresolved == 1 ? " lies" : "es lie");
	ng_cmd_say_left_out(sum);
}

int cmd_convert(const struct ng_cmd *self, int argc, char **argv)
{
	struct conv_opts o = { 0 };
	struct ng_clock clock = { 0 }, *clockp = NULL;
	struct ng_conv_summary sum;
	struct ng_syms *syms = NULL;
	struct ng_cancel cancel = { cancelled, NULL };
	struct sigaction sa = { 0 };
	struct ng_outdir *out;
	int ret;

	ret = parse(self, argc, argv, &o);
	if (ret || o.help) {
		if (o.help)
			ng_cmd_help(self);
		return ret;
	}
	if (access(o.in, R_OK))
		return fail(o.in, strerror(errno));
	if (o.clock_file) {
		ret = read_clock(o.clock_file, &clock);
		if (ret)
			return ret;
		clockp = &clock;
	}
	ret = ng_syms_load(&syms, o.ksyms);
	if (ret && o.ksyms)
		return fail(o.ksyms, strerror(-ret));
	/* Into a new directory, swapped in whole at the end. */
	if (ng_cmd_open_outdir(self, o.dir, &out)) {
		ng_syms_free(syms);
		return NG_EXIT_FAIL;
	}
	/* Ctrl-C, SIGTERM, SIGHUP: stop, and leave DIR as it was. */
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	ret = ng_tdat_convert(o.in, ng_outdir_path(out), syms, clockp, &cancel,
			      &sum);
	ng_syms_free(syms);
	if (ret) {
		ng_outdir_abort(out);
		return say_failure(&o, ret);
	}
	ret = publish(&o, clockp, &sum, out);
	if (!ret)
		say_summary(&o, &sum);
	return ret;
}
