// SPDX-License-Identifier: LGPL-2.1
/*
 * outfile.c - write-to-temporary-then-rename, shared by every output file
 * of the trace format (push/pop files and threads.tsv).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nanograph.h"
#include "outfile.h"

/*
 * The temporary files being written, for a fatal signal's handler
 * (ng_output_remove_temporaries()): slots taken and given back with
 * atomics, a name cleared before it is freed.
 */
#define NG_LIVE_TMPS 16
static char *ng_live_tmps[NG_LIVE_TMPS];

static void live_add(char *tmp)
{
	char *none;
	int i;

	for (i = 0; i < NG_LIVE_TMPS; i++) {
		none = NULL;
		if (__atomic_compare_exchange_n(&ng_live_tmps[i], &none, tmp, false,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			return;
	}
}

static void live_del(char *tmp)
{
	char *was;
	int i;

	for (i = 0; tmp && i < NG_LIVE_TMPS; i++) {
		was = tmp;
		__atomic_compare_exchange_n(&ng_live_tmps[i], &was, NULL, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	}
}

void ng_output_remove_temporaries(void)
{
	char *tmp;
	int i;

	for (i = 0; i < NG_LIVE_TMPS; i++) {
		tmp = __atomic_load_n(&ng_live_tmps[i], __ATOMIC_SEQ_CST);
		if (tmp)
			unlink(tmp);
	}
}

static void outfile_free_names(struct ng_outfile *of)
{
	live_del(of->tmp);
	free(of->tmp);
	free(of->final);
	of->tmp = NULL;
	of->final = NULL;
}

/* of->fp: @path opened with @flags (close-on-exec added) as a stream. */
static int outfile_fopen(struct ng_outfile *of, const char *path, int flags,
			 const char *mode)
{
	int fd, ret;

	fd = open(path, flags | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	of->fp = fdopen(fd, mode);
	if (!of->fp) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return 0;
}

/*
 * The mode a new file gets from open(..., 0666): from the process's
 * umask, read without changing it (umask(2) cannot, and threads may be
 * creating files meanwhile); 0644 if /proc does not say.
 */
static mode_t outfile_new_mode(void)
{
	unsigned int mask = 022;
	char line[64];
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Umask: %o", &mask) == 1)
			break;
	if (f)
		fclose(f);
	return 0666 & ~mask;
}

/*
 * Create DIR/.NAME.XXXXXX and remember DIR/NAME.  A name of its own each
 * time, made with O_EXCL (mkostemp): a symlink planted at a fixed
 * temporary name cannot make a root export write through it, and two
 * writers of one NAME cannot mix their bytes (the last rename wins, each
 * file whole).  The file gets the mode NAME has, or a new file's.
 */
int ng_outfile_open(struct ng_outfile *of, const char *dir, const char *name)
{
	struct stat st;
	mode_t mode;
	int fd, ret;

	memset(of, 0, sizeof(*of));
	if (asprintf(&of->tmp, "%s/.%s.XXXXXX", dir, name) < 0) {
		of->tmp = NULL;
		return -ENOMEM;
	}
	if (asprintf(&of->final, "%s/%s", dir, name) < 0) {
		of->final = NULL;
		outfile_free_names(of);
		return -ENOMEM;
	}
	/* Known before it exists: mkostemp() fills the name in place. */
	live_add(of->tmp);
	fd = mkostemp(of->tmp, O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		outfile_free_names(of);
		return ret;
	}
	if (!stat(of->final, &st) && S_ISREG(st.st_mode))
		mode = st.st_mode & 07777;
	else
		mode = outfile_new_mode();
	of->fp = fchmod(fd, mode) ? NULL : fdopen(fd, "w");
	if (!of->fp) {
		ret = -errno;
		close(fd);
		unlink(of->tmp);
		outfile_free_names(of);
		return ret;
	}
	return 0;
}

/* Close the descriptor; the file stays, under its temporary name. */
int ng_outfile_park(struct ng_outfile *of)
{
	if (of->fp) {
		if (fclose(of->fp) && !of->err)
			of->err = errno ? -errno : -EIO;
		of->fp = NULL;
	}
	return of->err;
}

/*
 * Open the temporary file again, at its end. An error here is the
 * caller's to handle (EMFILE: park another file and retry); it sticks
 * only once a write needed the file.
 */
int ng_outfile_unpark(struct ng_outfile *of)
{
	if (of->fp || of->err)
		return of->err;
	return outfile_fopen(of, of->tmp, O_WRONLY | O_APPEND, "a");
}

/*
 * Open an existing file that is not a regular one (/dev/null, /dev/full,
 * a FIFO, a terminal) for writing, as it is: a temporary name renamed
 * over it would replace the device with a plain file.
 */
static int outfile_open_special(struct ng_outfile *of, const char *path)
{
	int ret;

	memset(of, 0, sizeof(*of));
	ret = outfile_fopen(of, path, O_WRONLY, "w");
	of->own = !ret;
	return ret;
}

/*
 * Split @path at its last '/': the outfile's directory and name.  A path
 * naming something other than a regular file is written in place.
 */
int ng_outfile_open_path(struct ng_outfile *of, const char *path)
{
	const char *slash = strrchr(path, '/');
	struct stat st;
	char *dir;
	int ret;

	if (!stat(path, &st) && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return outfile_open_special(of, path);

	if (!slash || slash == path)
		return ng_outfile_open(of, slash ? "/" : ".", slash ? path + 1 : path);
	dir = strndup(path, slash - path);
	if (!dir)
		return -ENOMEM;
	ret = ng_outfile_open(of, dir, slash + 1);
	free(dir);
	return ret;
}

void ng_outfile_stream(struct ng_outfile *of, FILE *fp)
{
	memset(of, 0, sizeof(*of));
	of->fp = fp;
}

/* Formatted write; the first failure sticks and is reported at commit. */
int ng_outfile_printf(struct ng_outfile *of, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!of->err && !of->fp)
		of->err = ng_outfile_unpark(of);
	if (of->err)
		return of->err;
	va_start(ap, fmt);
	n = vfprintf(of->fp, fmt, ap);
	va_end(ap);
	if (n < 0)
		of->err = errno ? -errno : -EIO;
	return of->err;
}

/*
 * Flush, close and rename into place. On any error the temporary file is
 * removed instead, so a partial file never takes the final name.
 */
int ng_outfile_commit(struct ng_outfile *of)
{
	int ret = of->err;

	if (!of->final) {		/* a stream: flush; closed only if ours */
		if (fflush(of->fp) && !ret)
			ret = errno ? -errno : -EIO;
		if (ferror(of->fp) && !ret)
			ret = -EIO;
		if (of->own && fclose(of->fp) && !ret)
			ret = errno ? -errno : -EIO;
		of->fp = NULL;
		return ret;
	}

	/* fclose() flushes, and reports a failed flush */
	if (of->fp && fclose(of->fp) && !ret)
		ret = errno ? -errno : -EIO;
	of->fp = NULL;
	if (!ret && rename(of->tmp, of->final))
		ret = -errno;
	if (ret)
		unlink(of->tmp);
	outfile_free_names(of);
	return ret;
}

/* Give up on the file: nothing appears under the final name. */
void ng_outfile_abort(struct ng_outfile *of)
{
	if (!of->final && !of->tmp) {	/* a stream (or nothing) */
		if (of->own && of->fp)
			fclose(of->fp);
		of->fp = NULL;
		return;
	}
	if (of->fp) {
		fclose(of->fp);
		of->fp = NULL;
	}
	if (of->tmp)
		unlink(of->tmp);
	outfile_free_names(of);
}

/* ---- the public face: struct ng_output ---- */

struct ng_output {
	struct ng_outfile of;
};

int ng_output_open(struct ng_output **op, const char *path)
{
	struct ng_output *o = calloc(1, sizeof(*o));
	int ret;

	if (!o)
		return -ENOMEM;
	ret = ng_outfile_open_path(&o->of, path);
	if (ret) {
		free(o);
		return ret;
	}
	*op = o;
	return 0;
}

FILE *ng_output_fp(const struct ng_output *o)
{
	return o->of.fp;
}

int ng_output_commit(struct ng_output *o)
{
	int ret;

	/* what went through the stream without ng_outfile_printf() */
	if (ferror(o->of.fp) && !o->of.err)
		o->of.err = -EIO;
	ret = ng_outfile_commit(&o->of);
	free(o);
	return ret;
}

void ng_output_abort(struct ng_output *o)
{
	if (!o)
		return;
	ng_outfile_abort(&o->of);
	free(o);
}
