// SPDX-License-Identifier: GPL-2.0
/*
 * filter_opts.c - the filter options that replay, report and export share
 * (-t/--time-threshold, -D, --tid, --comm, -F, -N, --time-range): parsed
 * here once, into the library's struct ng_filter, with one usage error
 * per mistake that names the option as it was typed and the bad value;
 * and the steps around them those commands share (the filter's life,
 * the recordings opened and filtered, a file written whole).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "nanograph.h"
#include "cmd.h"

/*
 * The option being handled as the user typed it: "-D", or "--depth" for
 * "--depth 3", "--depth=3" and "--dep 3" alike. getopt_long() has just
 * returned it: its value is the last word (optarg is that word) or the
 * end of it ("-D3", "--depth=3").
 */
static void typed_name(char *buf, size_t size, int c, char **argv,
		       const struct option *longopts)
{
	const char *token = argv[optind - 1];
	const struct option *o;

	if (optarg == token && optind >= 2)
		token = argv[optind - 2];
	if (!strncmp(token, "--", 2)) {
		for (o = longopts; o->name; o++)
			if (o->val == c) {
				snprintf(buf, size, "--%s", o->name);
				return;
			}
	}
	snprintf(buf, size, "-%c", c);
}

/*
 * --tid, --comm, -F and -N (option @name) add to a list of @f: -1, or the
 * exit status after one line.
 */
static int list_option(const struct ng_cmd *self, struct ng_filter *f, int c,
		       const char *name)
{
	int ret;

	switch (c) {
	case NG_OPT_TID:
		ret = ng_filter_add_tids(f, optarg);
		if (ret == -EINVAL)
			return ng_usage_error(self->name,
				"%s wants thread ids separated by commas (412, or 0-CPU for a CPU's idle task), not '%s'",
				name, optarg);
		break;
	case NG_OPT_COMM:
		ret = ng_filter_add_comms(f, optarg);
		if (ret == -EINVAL)
			return ng_usage_error(self->name,
				"%s wants thread names separated by commas, not '%s'",
				name, optarg);
		break;
	default:	/* -F, -N */
		ret = ng_filter_add_func(f, optarg, c == 'N');
	}
	if (ret) {
		fprintf(stderr, "nanograph %s: %s\n", self->name, strerror(-ret));
		return NG_EXIT_FAIL;
	}
	return -1;
}

int ng_filter_option(const struct ng_cmd *self, struct ng_filter *f, int c,
		     char **argv, const struct option *longopts)
{
	double per, in;
	uint64_t a, b;
	char name[32];
	int ret;

	if (c != 't' && c != 'D' && c != 'F' && c != 'N' &&
	    c != NG_OPT_THRESHOLD && c != NG_OPT_TID && c != NG_OPT_COMM &&
	    c != NG_OPT_RANGE && c != NG_OPT_COMPENSATE && c != NG_OPT_OVERHEAD &&
	    c != NG_OPT_RETVAL)
		return ng_option_error(self, c, argv, longopts);
	if (c == NG_OPT_COMPENSATE) {
		ng_filter_set_compensate(f, false, 0, 0);
		return -1;
	}
	typed_name(name, sizeof(name), c, argv, longopts);
	if (!*optarg)
		return ng_usage_error(self->name, "option '%s' needs a value",
				      name);
	switch (c) {
	case 't':
	case NG_OPT_THRESHOLD:
		if (ng_parse_duration(optarg, &a))
			return ng_usage_error(self->name,
				"%s wants a duration such as 500ns, 10us, 2ms or 1.5s, not '%s'",
				name, optarg);
		ng_filter_set_threshold(f, a);
		return -1;
	case 'D':
		ret = ng_opt_num(self, name, optarg, 0, 0, INT_MAX,
				 "a depth (0: no limit)", &a);
		if (ret < 0)
			ng_filter_set_depth(f, a);
		return ret;
	case NG_OPT_TID:
	case NG_OPT_COMM:
	case 'F':
	case 'N':
		return list_option(self, f, c, name);
	case NG_OPT_RETVAL:
		if (ng_filter_set_retval(f, optarg))
			return ng_usage_error(self->name,
				"%s wants [OP]VALUE, OP one of < <= > >= == != and VALUE a number or an error code (-EAGAIN), not '%s'",
				name, optarg);
		return -1;
	case NG_OPT_OVERHEAD:
		if (ng_parse_overhead(optarg, &per, &in))
			return ng_usage_error(self->name,
				"%s wants PER_CALL_NS[,INSIDE_NS], ns below 1 s with up to 3 decimals, INSIDE_NS at most PER_CALL_NS, not '%s'",
				name, optarg);
		ng_filter_set_compensate(f, true, per, in);
		return -1;
	default:	/* NG_OPT_RANGE */
		if (ng_parse_time_range(optarg, &a, &b))
			return ng_usage_error(self->name,
				"%s wants START~END, nanoseconds with START at most END (either may be left out), not '%s'",
				name, optarg);
		ng_filter_set_range(f, a, b);
		return -1;
	}
}

/*
 * ng_recording_filter(): 0, or NG_EXIT_FAIL after one line naming a
 * --tid or --comm value that names no thread of @rec.
 */
static int filter_recording(const struct ng_cmd *self,
			    struct ng_recording *rec,
			    const struct ng_filter *f)
{
	const char *value;
	bool comm;
	int ret = ng_recording_filter(rec, f, &value, &comm);

	if (ret == -ESRCH && comm)
		fprintf(stderr, "nanograph %s: --comm %s: no thread of %s has this name (see %s/threads.tsv)\n",
			self->name, value, rec->dir, rec->dir);
	else if (ret == -ESRCH)
		fprintf(stderr, "nanograph %s: --tid %s: %s has no such thread (no %s/%s.txt)\n",
			self->name, value, rec->dir, rec->dir, value);
	else if (ret)
		fprintf(stderr, "nanograph %s: %s\n", self->name, strerror(-ret));
	return ret ? NG_EXIT_FAIL : 0;
}

/*
 * --compensate: @rec's own cost per call from its info.json, or the one
 * given by hand. 0, or an exit code after one line naming the file: a
 * recording without a measured cost is a usage error (give --overhead).
 */
static int compensate_recording(const struct ng_cmd *self,
				struct ng_recording *rec,
				const struct ng_filter *f)
{
	struct ng_overhead o = { 0 };
	enum ng_compensation how = ng_filter_compensation(f, &o.per_call_ns,
							  &o.inside_ns);
	int ret = 0;

	if (how == NG_COMPENSATE_RECORDED)
		ret = ng_info_read_overhead(rec->dir, &o, NULL, 0);
	if (ret == -ENOENT) {
		fprintf(stderr, "nanograph %s: --compensate: %s/%s has no overhead (a recording by convert, by record --no-calibrate or from before calibration, or no info.json): give the cost with --overhead PER_CALL_NS[,INSIDE_NS]\n",
			self->name, rec->dir, NG_INFO_FILE);
		return NG_EXIT_USAGE;
	}
	if (ret == -EINVAL) {
		fprintf(stderr, "nanograph %s: --compensate: %s/%s: overhead is not an object of costs in ns (per_call_ns, inside_ns at most per_call_ns): see 'nanograph info %s'\n",
			self->name, rec->dir, NG_INFO_FILE, rec->dir);
		return NG_EXIT_FAIL;
	}
	if (!ret && how != NG_COMPENSATE_NONE)
		ret = ng_recording_compensate(rec, o.per_call_ns, o.inside_ns);
	if (ret)
		fprintf(stderr, "nanograph %s: %s/%s: %s\n", self->name,
			rec->dir, NG_INFO_FILE, strerror(-ret));
	return ret ? NG_EXIT_FAIL : 0;
}

/* Once per recording, not per call: a count says it all. */
void ng_cmd_say_clamped(const struct ng_cmd *self,
			const struct ng_recording *recs, int nr)
{
	uint64_t n;
	int i;

	for (i = 0; i < nr; i++) {
		n = recs[i].comp ? recs[i].comp->clamped : 0;
		if (n)
			fprintf(stderr, "nanograph %s: %s: %" PRIu64 " call%s came out below 0 after compensation and %s shown as 0: the calibration overestimates the cost for %s\n",
				self->name, recs[i].dir, n, n == 1 ? "" : "s",
				n == 1 ? "was" : "were", n == 1 ? "it" : "them");
	}
}

void ng_cmd_bad_input(const struct ng_cmd *self, const struct ng_recording *rec,
		      const struct ng_pp_bad *bad, int err, const char *tail)
{
	if (err == -EBADMSG && bad->file && bad->line)
		fprintf(stderr, "nanograph %s: %s/%s:%" PRIu64 ": not a valid push/pop line: %s (see 'nanograph check %s/%s')%s\n",
			self->name, rec->dir, bad->file, bad->line, bad->why,
			rec->dir, bad->file, tail);
	else if (err == -EBADMSG && bad->file)	/* the file, not a line */
		fprintf(stderr, "nanograph %s: %s/%s: %s%s\n", self->name,
			rec->dir, bad->file, bad->why, tail);
	else if (bad->file)
		fprintf(stderr, "nanograph %s: %s/%s: %s%s\n", self->name,
			rec->dir, bad->file, strerror(-err), tail);
	else
		fprintf(stderr, "nanograph %s: %s: %s%s\n", self->name,
			rec->dir, strerror(-err), tail);
}

/* One place makes and frees the filter, so a view has one exit path. */
int ng_cmd_run_view(const struct ng_cmd *self, int argc, char **argv,
		    int (*view)(const struct ng_cmd *self, int argc,
				char **argv, struct ng_filter *f))
{
	struct ng_filter *f;
	int ret;

	if (ng_filter_new(&f)) {
		fprintf(stderr, "nanograph %s: %s\n", self->name, strerror(ENOMEM));
		return NG_EXIT_FAIL;
	}
	ret = view(self, argc, argv, f);
	ng_filter_free(f);
	return ret;
}

/*
 * replay, report and export read their recordings through this one
 * sequence, so they take the same operands and say the same things, in
 * the same order: every recording opened before any warning, every
 * warning before the first thread value that names nothing.
 */
int ng_cmd_open_views(const struct ng_cmd *self, int argc, char **argv,
		      const struct ng_filter *f, struct ng_recording *recs,
		      int nr)
{
	int i, ret = 0;

	if (argc != nr)
		return ng_usage_error(self->name, !argc ?
				      "no recording directory given" :
				      "give one recording directory");
	for (i = 0; i < nr; i++)
		if (ng_cmd_open_recording(self, argv[i], &recs[i])) {
			while (i--)
				ng_recording_close(&recs[i]);
			return NG_EXIT_FAIL;
		}
	for (i = 0; i < nr; i++)
		ng_cmd_warn_incomplete(self, &recs[i]);
	for (i = 0; !ret && i < nr; i++)
		ret = filter_recording(self, &recs[i], f);
	for (i = 0; !ret && i < nr; i++)
		ret = compensate_recording(self, &recs[i], f);
	for (i = 0; ret && i < nr; i++)
		ng_recording_close(&recs[i]);
	return ret;
}

/* replay -o and report -o: whole or not at all, like an export. */
int ng_cmd_write_file(const struct ng_cmd *self, const char *out,
		      int (*put)(FILE *fp, void *arg), void *arg)
{
	struct ng_output *o;
	int ret = ng_output_open(&o, out);

	if (ret) {
		fprintf(stderr, "nanograph %s: cannot write %s: %s\n",
			self->name, out, strerror(-ret));
		return NG_EXIT_FAIL;
	}
	ret = put(ng_output_fp(o), arg);
	if (ret) {
		ng_output_abort(o);
		return ret;
	}
	ret = ng_output_commit(o);
	if (ret)
		fprintf(stderr, "nanograph %s: cannot write %s: %s\n",
			self->name, out, strerror(-ret));
	return ret ? NG_EXIT_FAIL : NG_EXIT_OK;
}
