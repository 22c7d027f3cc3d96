// SPDX-License-Identifier: GPL-2.0
/*
 * test_outdir.c - a recording's directory is replaced whole or not at
 * all (ng_outdir_*), and what record and convert do with it: the earlier
 * recording becomes DIR.old, a failed run leaves DIR as it was, and no
 * file of an earlier recording is ever mixed with a new one.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nanograph.h"
#include "ktap.h"
#include "tdat_gen.h"

/* The names in @dir, sorted, space-separated ("" if none, "?" if no dir). */
static const char *ls(const char *dir)
{
	static char buf[4096];
	struct dirent **v;
	int i, n = scandir(dir, &v, NULL, alphasort);
	size_t o = 0;

	buf[0] = '\0';
	if (n < 0)
		return "?";
	for (i = 0; i < n; i++) {
		if (strcmp(v[i]->d_name, ".") && strcmp(v[i]->d_name, ".."))
			o += snprintf(buf + o, sizeof(buf) - o, "%s%s",
				      o ? " " : "", v[i]->d_name);
		free(v[i]);
	}
	free(v);
	return buf;
}

/* A recording with the files @names (space-separated) and threads.tsv. */
static int make_rec(const char *dir, const char *names)
{
	char path[700], *copy = strdup(names), *tok, *save = NULL;
	int ret = mkdir(dir, 0755) && errno != EEXIST;

	snprintf(path, sizeof(path), "%s/threads.tsv", dir);
	ret = ret || t_write_file(path, "tid\tpid\tcomm\n");
	for (tok = strtok_r(copy, " ", &save); !ret && tok;
	     tok = strtok_r(NULL, " ", &save)) {
		snprintf(path, sizeof(path), "%s/%s", dir, tok);
		ret = t_write_file(path, "1:+f\n2:POP\n");
	}
	free(copy);
	return ret;
}

/* A file in the new directory, as a writer would put it there. */
static int put(struct ng_outdir *o, const char *name)
{
	char path[700];

	snprintf(path, sizeof(path), "%s/%s", ng_outdir_path(o), name);
	return t_write_file(path, "x\n");
}

static void test_new_dir(void)
{
	struct ng_outdir *o;
	struct stat st;

	T_EQ_INT(ng_outdir_open(&o, t_path("d")), 0);
	/* next to it, hidden, and only that */
	T_ASSERT(!strncmp(ng_outdir_path(o), t_path(".d."), strlen(t_path(".d."))));
	T_ASSERT(!t_exists(t_path("d")));
	T_EQ_INT(put(o, "threads.tsv"), 0);
	T_EQ_INT(ng_outdir_commit(o), 0);
	T_EQ_STR(ls(t_tmpdir()), "d");
	T_EQ_STR(ls(t_path("d")), "threads.tsv");
	/* a directory's usual mode, not mkdtemp()'s 0700 */
	T_EQ_INT(stat(t_path("d"), &st), 0);
	T_EQ_INT(st.st_mode & 0777, 0777 & ~(umask(022), umask(022)));
}

/* The earlier recording becomes DIR.old, an older DIR.old goes. */
static void test_earlier_becomes_old(void)
{
	struct ng_outdir *o;

	T_EQ_INT(make_rec(t_path("d"), "1.txt 2.txt trace.json"), 0);
	T_EQ_INT(make_rec(t_path("d.old"), "9.txt"), 0);
	T_EQ_INT(ng_outdir_open(&o, t_path("d")), 0);
	T_EQ_INT(put(o, "3.txt"), 0);
	T_EQ_INT(put(o, "threads.tsv"), 0);
	T_EQ_INT(ng_outdir_commit(o), 0);
	T_EQ_STR(ls(t_tmpdir()), "d d.old");
	T_EQ_STR(ls(t_path("d")), "3.txt threads.tsv");
	T_EQ_STR(ls(t_path("d.old")), "1.txt 2.txt threads.tsv trace.json");
	/* "DIR/" is DIR */
	T_EQ_INT(ng_outdir_open(&o, t_path("d/")), 0);
	T_EQ_INT(put(o, "threads.tsv"), 0);
	T_EQ_INT(ng_outdir_commit(o), 0);
	T_EQ_STR(ls(t_path("d")), "threads.tsv");
	T_EQ_STR(ls(t_path("d.old")), "3.txt threads.tsv");
	T_EQ_STR(ls(t_tmpdir()), "d d.old");
}

/* Abort: DIR as it was, nothing else left. */
static void test_abort_keeps_dir(void)
{
	struct ng_outdir *o;

	T_EQ_INT(make_rec(t_path("d"), "1.txt"), 0);
	T_EQ_INT(ng_outdir_open(&o, t_path("d")), 0);
	T_EQ_INT(put(o, "2.txt"), 0);
	T_EQ_INT(mkdir(t_path("keep"), 0755), 0);
	ng_outdir_abort(o);
	T_EQ_STR(ls(t_tmpdir()), "d keep");
	T_EQ_STR(ls(t_path("d")), "1.txt threads.tsv");
}

/* An empty DIR is replaced; anything not a recording is refused first. */
static void test_refused(void)
{
	struct ng_outdir *o;

	T_EQ_INT(mkdir(t_path("empty"), 0755), 0);
	T_EQ_INT(ng_outdir_open(&o, t_path("empty")), 0);
	T_EQ_INT(put(o, "threads.tsv"), 0);
	T_EQ_INT(ng_outdir_commit(o), 0);
	T_ASSERT(!t_exists(t_path("empty.old")));
	T_EQ_STR(ls(t_path("empty")), "threads.tsv");

	T_EQ_INT(mkdir(t_path("notes"), 0755), 0);
	T_EQ_INT(t_write_file(t_path("notes/todo.txt"), "x\n"), 0);
	T_EQ_INT(ng_outdir_open(&o, t_path("notes")), -ENOTEMPTY);
	T_EQ_INT(t_write_file(t_path("file"), "x\n"), 0);
	T_EQ_INT(ng_outdir_open(&o, t_path("file")), -ENOTDIR);
	T_EQ_INT(make_rec(t_path("r"), "1.txt"), 0);
	T_EQ_INT(mkdir(t_path("r.old"), 0755), 0);
	T_EQ_INT(t_write_file(t_path("r.old/mine"), "x\n"), 0);
	T_EQ_INT(ng_outdir_open(&o, t_path("r")), -EEXIST);
	T_EQ_INT(ng_outdir_open(&o, "."), -EINVAL);
	T_EQ_INT(ng_outdir_open(&o, t_path("..")), -EINVAL);
	T_EQ_INT(ng_outdir_open(&o, "/"), -EINVAL);
	/* nothing was created by the refusals */
	T_EQ_STR(ls(t_tmpdir()), "empty file notes r r.old");
}

/* A symbolic link to a recording: the recording is replaced, the link stays. */
static void test_symlink(void)
{
	struct ng_outdir *o;

	T_EQ_INT(mkdir(t_path("disk"), 0755), 0);
	T_EQ_INT(make_rec(t_path("disk/rec"), "1.txt"), 0);
	T_EQ_INT(symlink(t_path("disk/rec"), t_path("link")), 0);
	T_EQ_INT(ng_outdir_open(&o, t_path("link")), 0);
	T_EQ_INT(put(o, "threads.tsv"), 0);
	T_EQ_INT(ng_outdir_commit(o), 0);
	T_EQ_STR(ls(t_path("link")), "threads.tsv");
	T_EQ_STR(ls(t_path("disk")), "rec rec.old");
}

/* ---- the convert command ---- */

static const char kallsyms[] = "ffffffff81001000 T vfs_read\n";

/* A trace.dat with a clock_sync and one call of each of @n threads. */
static int make_tdat(const char *path, int n, bool sync)
{
	struct t_tdat *t = t_tdat_open(path, 1, kallsyms, "");
	int tid;

	if (!t)
		return -1;
	if (sync)
		t_tdat_clock(t, 0, 100, 1000, 5000, 1000000000);
	for (tid = 1; tid <= n; tid++) {
		t_tdat_entry(t, 0, tid, 100 + 2 * tid, 1000 + 2 * tid, 0, 0xffffffff81001000ULL);
		t_tdat_exit(t, 0, tid, 101 + 2 * tid, 1001 + 2 * tid, 0, 0xffffffff81001000ULL);
	}
	return t_tdat_close(t);
}

static struct t_result nanograph(const char *a1, const char *a2, const char *a3,
				 const char *a4, const char *a5)
{
	char *argv[] = { NULL, (char *)a1, (char *)a2, (char *)a3, (char *)a4,
			 (char *)a5, NULL };

	return t_nanograph_run(argv, NULL);
}

/*
 * convert into a directory that holds an earlier recording: the new one
 * has only its own files (before: a thread of the earlier recording, its
 * trace.json and the new files, mixed), the earlier one is DIR.old; and
 * a failed convert leaves DIR as it was.
 */
static void test_cmd_convert(void)
{
	char three[600], one[600], bad[600], nosync[600], d[600], want[900];

	snprintf(three, sizeof(three), "%s", t_path("three.dat"));
	snprintf(one, sizeof(one), "%s", t_path("one.dat"));
	snprintf(bad, sizeof(bad), "%s", t_path("bad.dat"));
	snprintf(nosync, sizeof(nosync), "%s", t_path("nosync.dat"));
	T_EQ_INT(mkdir(t_path("w"), 0755), 0);
	snprintf(d, sizeof(d), "%s", t_path("w/d"));
	T_EQ_INT(make_tdat(three, 3, true), 0);
	T_EQ_INT(make_tdat(one, 1, true), 0);
	T_EQ_INT(make_tdat(nosync, 1, false), 0);
	T_EQ_INT(t_write_file(bad, "not a trace.dat\n"), 0);

	T_RUN(nanograph("convert", "-q", "-o", d, three), 0, "", "");
	T_RUN(nanograph("export", "--chrome", d, NULL, NULL), 0, "", "");
	T_EQ_STR(ls(d), "1.txt 2.txt 3.txt info.json threads.tsv trace.json");

	/* failures leave d and nothing else */
	snprintf(want, sizeof(want), "nanograph convert: %s: not a trace-cmd trace.dat, or truncated or damaged: libtracecmd cannot read it\n", bad);
	T_RUN(nanograph("convert", "-q", "-o", d, bad), 1, "", want);
	snprintf(want, sizeof(want), "nanograph convert: %s: no nanograph:clock_sync event to convert timestamps with: start trace-cmd before 'echo 1 > tracing_on', or pass --clock FILE\n", nosync);
	T_RUN(nanograph("convert", "-q", "-o", d, nosync), 1, "", want);
	T_EQ_STR(ls(t_path("w")), "d");
	T_EQ_STR(ls(d), "1.txt 2.txt 3.txt info.json threads.tsv trace.json");

	T_RUN(nanograph("convert", "-q", "-o", d, one), 0, "", "");
	T_EQ_STR(ls(d), "1.txt info.json threads.tsv");
	T_EQ_STR(ls(t_path("w")), "d d.old");
	T_FILE_EQ(t_path("w/d/1.txt"), "5002:+vfs_read\n5003:POP\n");
	T_EQ_STR(ls(t_path("w/d.old")), "1.txt 2.txt 3.txt info.json threads.tsv trace.json");

	/* not a recording: refused, untouched */
	T_EQ_INT(mkdir(t_path("w/notes"), 0755), 0);
	T_EQ_INT(t_write_file(t_path("w/notes/todo.txt"), "x\n"), 0);
	snprintf(want, sizeof(want), "nanograph convert: %s holds files but is not a nanograph recording (no threads.tsv): choose another -o DIR\n",
		 t_path("w/notes"));
	T_RUN(nanograph("convert", "-o", t_path("w/notes"), one, NULL), 1, "", want);
	T_EQ_STR(ls(t_path("w/notes")), "todo.txt");
	T_EQ_INT(mkdir(t_path("w/e"), 0755), 0);
	T_EQ_INT(make_rec(t_path("w/e"), "1.txt"), 0);
	T_EQ_INT(mkdir(t_path("w/e.old"), 0755), 0);
	T_EQ_INT(t_write_file(t_path("w/e.old/mine"), "x\n"), 0);
	snprintf(want, sizeof(want), "nanograph convert: %s.old is not a nanograph recording, and the recording in %s would replace it: move it away or choose another -o DIR\n",
		 t_path("w/e"), t_path("w/e"));
	T_RUN(nanograph("convert", "-o", t_path("w/e"), one, NULL), 1, "", want);
	T_EQ_STR(ls(t_path("w")), "d d.old e e.old notes");
}

/* The first entry of @dir whose name starts with @prefix, or NULL. */
static bool has_entry(const char *dir, const char *prefix, char *found,
		      size_t size)
{
	struct dirent *de;
	bool got = false;
	DIR *d = opendir(dir);

	while (d && !got && (de = readdir(d)))
		if (!strncmp(de->d_name, prefix, strlen(prefix))) {
			snprintf(found, size, "%s/%s", dir, de->d_name);
			got = true;
		}
	if (d)
		closedir(d);
	return got;
}

/*
 * Ctrl-C (or SIGTERM, SIGHUP) during a long convert: it stops, says so,
 * exits 128 + the signal, and leaves DIR as it was, with nothing beside
 * it. Before, the signal killed it with its temporary files in DIR.
 */
static void test_cmd_convert_interrupted(void)
{
	struct timespec ms = { 0, 1000000 };
	char big[600], small[600], d[600], tmp[900], tmpfile[1000], *err;
	struct t_tdat *t;
	int status, i, fd;
	long c;
	pid_t pid;

	snprintf(big, sizeof(big), "%s", t_path("big.dat"));
	snprintf(small, sizeof(small), "%s", t_path("small.dat"));
	snprintf(d, sizeof(d), "%s", t_path("w/d"));
	T_EQ_INT(mkdir(t_path("w"), 0755), 0);
	T_EQ_INT(make_tdat(small, 2, true), 0);
	t = t_tdat_open(big, 1, kallsyms, "");
	T_ASSERT(t);
	t_tdat_clock(t, 0, 100, 1000, 5000, 1000000000);
	for (c = 0; c < 2000000; c++) {
		t_tdat_entry(t, 0, 42, 200 + 2 * c, 2000 + 2 * c, 0, 0xffffffff81001000ULL);
		t_tdat_exit(t, 0, 42, 201 + 2 * c, 2001 + 2 * c, 0, 0xffffffff81001000ULL);
	}
	T_EQ_INT(t_tdat_close(t), 0);
	T_RUN(nanograph("convert", "-q", "-o", d, small), 0, "", "");

	if (!t_nanograph())
		t_skip("no --nanograph binary given");
	pid = fork();
	T_ASSERT(pid >= 0);
	if (!pid) {
		fd = open(t_path("err"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(126);
		execl(t_nanograph(), t_nanograph(), "convert", "-q", "-o", d,
		      big, (char *)NULL);
		_exit(127);
	}
	/* wait until it writes 42.txt in its new directory, then Ctrl-C */
	for (i = 0; i < 20000; i++) {
		if ((has_entry(t_path("w"), ".d.", tmp, sizeof(tmp)) &&
		     has_entry(tmp, ".42.txt.", tmpfile, sizeof(tmpfile))) ||
		    has_entry(d, ".42.txt.", tmpfile, sizeof(tmpfile)))
			break;
		nanosleep(&ms, NULL);
	}
	T_ASSERT(i < 20000);
	kill(pid, SIGINT);
	T_ASSERT(waitpid(pid, &status, 0) == pid);
	err = t_read_file(t_path("err"), NULL);
	T_ASSERT(err);
	t_diag("stderr: %s", t_escape(err, strlen(err)));
	free(err);
	T_ASSERT(WIFEXITED(status) || (t_diag("killed by signal %d", WTERMSIG(status)), 0));
	T_EQ_INT(WEXITSTATUS(status), 128 + SIGINT);
	snprintf(tmp, sizeof(tmp), "nanograph convert: interrupted: nothing was kept, %s is as it was\n", d);
	T_FILE_EQ(t_path("err"), tmp);
	T_EQ_STR(ls(t_path("w")), "d");
	T_EQ_STR(ls(d), "1.txt 2.txt info.json threads.tsv");
}

static const struct t_case cases[] = {
	{ "new_dir", test_new_dir },
	{ "earlier_becomes_old", test_earlier_becomes_old },
	{ "abort_keeps_dir", test_abort_keeps_dir },
	{ "refused", test_refused },
	{ "symlink", test_symlink },
	{ "cmd_convert", test_cmd_convert },
	{ "cmd_convert_interrupted", test_cmd_convert_interrupted },
};

T_SUITE(outdir, cases);
