// SPDX-License-Identifier: GPL-2.0
/*
 * info.c - "nanograph info": how a recording was made and how complete
 * it is, from the DIR/info.json that record and convert write (read by
 * libnanograph's info.c); for a recording without one, what its files
 * say. This file parses options and prints.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "nanograph.h"
#include "cmd.h"

const char ng_info_help[] =
"Options:\n"
"  --json      DIR/info.json as it is, for scripts\n"
"\n"
"Each field of DIR/info.json, which record and convert write, as an\n"
"aligned 'key: value' line, in the file's order: a nested field as\n"
"'counts.lost', an array on one line (a command line quoted as a shell\n"
"takes it), null as '-', an empty list as '(empty)', control characters\n"
"as '?'. Then, if the counts say calls are missing from the files, a\n"
"last line says which.\n"
"\n"
"A recording without info.json (from before nanograph wrote one, or made\n"
"by hand) gets a line that says so, then the threads, calls and time span\n"
"its files hold; with --json the same as a JSON object.\n"
"\n"
"Exit status: 0; 1 if DIR is not a recording, or its info.json or a\n"
"push/pop file cannot be read; 2 for a usage error.\n"
"See Documentation/trace-format.md for the fields.";

/* A byte that a shell takes as itself, unquoted. */
static bool shell_safe(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c >= 0x80 || strchr("_@%+=:,./-", c);
}

/* @s on one line: control characters as '?'; quoted for a shell if @quote. */
static void put_text(FILE *fp, const char *s, bool quote)
{
	const unsigned char *u = (const unsigned char *)s;
	bool plain = *u;

	for (; quote && *u; u++)
		plain = plain && shell_safe(*u);
	quote = quote && !plain;
	if (quote)
		fputc('\'', fp);
	for (u = (const unsigned char *)s; *u; u++) {
		if (*u < 0x20 || *u == 0x7f)
			fputc('?', fp);
		else if (quote && *u == '\'')
			fputs("'\\''", fp);
		else
			fputc(*u, fp);
	}
	if (quote)
		fputc('\'', fp);
}

/* One value as a person reads it. */
static void put_value(FILE *fp, const struct ng_info_field *f, bool quote)
{
	switch (f->type) {
	case NG_JSON_NULL:
		fputs("-", fp);
		break;
	case NG_JSON_EMPTY_ARRAY:
	case NG_JSON_EMPTY_OBJECT:
		fputs("(empty)", fp);
		break;
	case NG_JSON_STRING:
		put_text(fp, f->value, quote);
		break;
	default:
		fputs(f->value, fp);
	}
}

/* Fields @i.. that make one line: an array's elements, or one field. */
static size_t run_end(const struct ng_info_field *f, size_t nr, size_t i)
{
	size_t j = i + 1;

	while (f[i].element && j < nr && f[j].element &&
	       f[j].key == f[i].key)
		j++;
	return j;
}

/* The fields as aligned "key: value" lines, then what is missing. */
static void print_fields(const struct ng_info_file *info)
{
	const struct ng_info_field *f;
	size_t nr, i, j, k, width = 0;
	char what[512];

	f = ng_info_fields(info, &nr);
	for (i = 0; i < nr; i = run_end(f, nr, i))
		if (strlen(f[i].key) > width)
			width = strlen(f[i].key);
	for (i = 0; i < nr; i = j) {
		j = run_end(f, nr, i);
		/* a key of a hand-edited file may hold anything: one line still */
		put_text(stdout, f[i].key, false);
		printf(":%*s", (int)(width - strlen(f[i].key) + 1), "");
		for (k = i; k < j; k++) {
			if (k > i)
				putchar(' ');
			put_value(stdout, &f[k], f[k].element);
		}
		putchar('\n');
	}
	if (ng_info_incomplete(info, what, sizeof(what)))
		printf("# incomplete: %s\n", what);
}

/* One line for an info.json that cannot be read; exit status 1. */
static int info_error(const char *dir, const struct ng_pp_bad *bad, int err)
{
	if (err == -EBADMSG)
		fprintf(stderr, "nanograph info: %s/%s:%" PRIu64 ": not valid JSON: %s\n",
			dir, NG_INFO_FILE, bad->line, bad->why);
	else if (err == -EFBIG)
		fprintf(stderr, "nanograph info: %s/%s: larger than %u KiB: not one nanograph wrote\n",
			dir, NG_INFO_FILE, NG_INFO_MAX_SIZE / 1024);
	else
		fprintf(stderr, "nanograph info: %s/%s: %s\n", dir, NG_INFO_FILE,
			strerror(-err));
	return NG_EXIT_FAIL;
}

/* Whether @dir holds a threads.tsv: a recording, even without calls. */
static bool has_threads_tsv(const char *dir)
{
	struct stat st;
	char *path;
	bool ret;

	if (asprintf(&path, "%s/threads.tsv", dir) < 0)
		return false;
	ret = !stat(path, &st) && S_ISREG(st.st_mode);
	free(path);
	return ret;
}

/*
 * No info.json: the threads, calls and span the files hold, read as
 * report reads them (each file checked, flat in memory), under the
 * names info.json gives them.
 */
static int print_derived(const struct ng_cmd *self, const char *dir,
			 bool json)
{
	struct ng_rec_totals t = { 0 };
	struct ng_pp_bad bad = { 0 };
	struct ng_recording rec;
	char span[32];
	int ret;

	ret = ng_recording_open(&rec, dir);
	if (ret && !(ret == -ENOENT && has_threads_tsv(dir))) {
		/* not a recording: the line report would print */
		if (!ng_cmd_open_recording(self, dir, &rec))
			ng_recording_close(&rec);
		return NG_EXIT_FAIL;
	}
	if (!ret) {
		ret = ng_recording_totals(&rec, &t, &bad);
		if (ret)
			ng_cmd_bad_input(self, &rec, &bad, ret, "");
		ng_recording_close(&rec);
		if (ret)
			return NG_EXIT_FAIL;
	}
	if (json) {
		fprintf(stderr, "nanograph info: no %s in %s: printing what its files say\n",
			NG_INFO_FILE, dir);
		/* as before: a failed write to stdout is not this command's error */
		(void)ng_info_write_totals(stdout, &t);
		return NG_EXIT_OK;
	}
	printf("# no %s in %s (a recording from before nanograph wrote one, or made by hand): what its files say\n",
	       NG_INFO_FILE, dir);
	printf("counts.threads: %" PRIu64 "\n", t.threads);
	printf("counts.calls:   %" PRIu64 "\n", t.calls);
	if (!t.calls) {
		printf("first_ns:       -\nlast_ns:        -\nspan:           -\n");
		return NG_EXIT_OK;
	}
	printf("first_ns:       %" PRIu64 "\n", t.first_ns);
	printf("last_ns:        %" PRIu64 "\n", t.last_ns);
	printf("span:           %s\n",
	       ng_fmt_time(span, sizeof(span), t.last_ns - t.first_ns, false));
	return NG_EXIT_OK;
}

/* Options, then info.json as lines or as it is, or what the files say. */
int cmd_info(const struct ng_cmd *self, int argc, char **argv)
{
	int json = 0, first, ret;
	const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, &json, 1 },
		{ NULL, 0, NULL, 0 },
	};
	struct ng_info_file *info;
	struct ng_pp_bad bad;
	const char *text;
	char *dir;
	size_t len;

	ret = ng_cmd_flags(self, argc, argv, longopts, &first);
	if (ret >= 0)
		return ret;
	if (argc - first != 1)
		return ng_usage_error(self->name, argc == first ?
				      "no recording directory given" :
				      "give one recording directory");
	/* "DIR/" names its file "DIR/info.json", as report names its files */
	dir = argv[first];
	len = strlen(dir);
	while (len > 1 && dir[len - 1] == '/')
		dir[--len] = '\0';
	ret = ng_info_load(&info, dir, &bad);
	if (ret == -ENOENT)
		return print_derived(self, dir, json);
	if (ret)
		return info_error(dir, &bad, ret);
	if (json) {
		text = ng_info_text(info, &len);
		fwrite(text, 1, len, stdout);
	} else {
		print_fields(info);
	}
	ng_info_file_free(info);
	return NG_EXIT_OK;
}
