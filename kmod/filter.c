// SPDX-License-Identifier: GPL-2.0
/*
 * set_ftrace_filter, set_ftrace_notrace, set_graph_function and
 * set_graph_notrace: lists of ftrace globs; and the same writer for
 * set_event_pid, whose tokens are pids (pids.c).
 *
 * Syntax as ftrace's files of the same names: whitespace-separated globs
 * (ftrace's own matcher expands them, "!glob" removes), "#" comments out
 * the rest of a line; ">" replaces the list, ">>" (O_APPEND) adds to it;
 * an empty replace clears it.  A glob that matches no function fails the
 * write with EINVAL and the list stays as it was.
 *
 * Differences forced by sysfs, documented in Documentation/control-files.md:
 * the file reads back the globs as written, not their expansion (ftrace's
 * hash of matched functions is private to kernel/trace); and sysfs hands a
 * long write over a page at a time, each page a write(2) of its own, so a
 * glob cut by a page boundary is held back until the next page of the
 * same open file arrives.
 */
#include <linux/ctype.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "nanograph.h"

/* Longest glob accepted: a kernel symbol name is at most 512 bytes. */
#define NG_TOKEN_MAX	512
/* Most globs one list holds. */
#define NG_LIST_MAX	65536

struct ng_list_state {
	char **tokens;
	unsigned int n;
	/* A glob cut at the end of a full page, waiting for its rest. */
	const struct file *cut_filp;
	loff_t cut_off;
	size_t cut_len;
	char cut[NG_TOKEN_MAX];
};

static struct ng_list_state ng_lists[NG_NR_LISTS];

static void ng_tokens_free(char **tokens, unsigned int n)
{
	while (n)
		kfree(tokens[--n]);
	kfree(tokens);
}

/* Append a copy of @tok to @tokens[0..*n), growing the array. */
static int ng_token_add(char ***tokens, unsigned int *n, const char *tok)
{
	char **grown;

	if (strlen(tok) >= NG_TOKEN_MAX || *n >= NG_LIST_MAX)
		return -E2BIG;
	grown = krealloc_array(*tokens, *n + 1, sizeof(char *), GFP_KERNEL);
	if (!grown)
		return -ENOMEM;
	*tokens = grown;
	grown[*n] = kstrdup(tok, GFP_KERNEL);
	if (!grown[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

/*
 * Split @text into tokens appended to @tokens[0..*n).  A token that
 * starts with "#" comments out the rest of its line, so that what the
 * file reads back ("#### all functions enabled ####") can be written.
 */
static int ng_tokenize(char *text, char ***tokens, unsigned int *n)
{
	char *line, *tok;
	int ret;

	while ((line = strsep(&text, "\n"))) {
		while ((tok = strsep(&line, " \t\r\f\v"))) {
			if (*tok == '#')
				break;
			if (!*tok)
				continue;
			ret = ng_token_add(tokens, n, tok);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* Hand tokens to the part that makes them take effect. */
static int ng_apply(enum ng_list list, char **tokens, unsigned int n, bool reset)
{
	if (list == NG_EVENT_PID)
		return ng_pids_apply(tokens, n, reset);
	return ng_tracer_apply_list(list, tokens, n, reset);
}

/*
 * One write(2) to a list file, already serialised by ng_control_lock.
 * Parses everything, applies it to the tracer, and only then replaces the
 * list; on any error the tracer gets the old list back.
 */
ssize_t ng_list_write(enum ng_list list, struct file *filp, const char *buf,
		      loff_t off, size_t count)
{
	struct ng_list_state *st = &ng_lists[list];
	bool append = (filp->f_flags & O_APPEND) || off > 0;
	size_t prefix = 0, len = count;
	unsigned int n = 0, i;
	char **tokens = NULL;
	char *text;
	int ret;

	if (st->cut_filp == filp && st->cut_off == off)
		prefix = st->cut_len;
	st->cut_filp = NULL;

	text = kmalloc(prefix + count + 1, GFP_KERNEL);
	if (!text)
		return -ENOMEM;
	memcpy(text, st->cut, prefix);
	memcpy(text + prefix, buf, count);
	len = prefix + count;
	text[len] = '\0';

	/* A full page that ends inside a glob: the rest comes next. */
	if (count == PAGE_SIZE && !isspace(text[len - 1])) {
		size_t start = len;

		while (start && !isspace(text[start - 1]))
			start--;
		if (len - start >= NG_TOKEN_MAX) {
			ret = -E2BIG;
			goto out;
		}
		st->cut_len = len - start;
		memcpy(st->cut, text + start, st->cut_len);
		st->cut_filp = filp;
		st->cut_off = off + count;
		text[start] = '\0';
	}

	if (append) {
		for (i = 0; i < st->n; i++) {
			ret = ng_token_add(&tokens, &n, st->tokens[i]);
			if (ret)
				goto out_tokens;
		}
	}
	ret = ng_tokenize(text, &tokens, &n);
	if (ret)
		goto out_tokens;
	if (append && n == st->n) {
		ret = 0;			/* nothing new */
		goto out_tokens;
	}

	/*
	 * Appending applies only the new tokens; replacing applies all.  A
	 * glob list can fail half-way and gets the old list back; the pid
	 * set changes all at once or not at all.
	 */
	if (append)
		ret = ng_apply(list, tokens + st->n, n - st->n, false);
	else
		ret = ng_apply(list, tokens, n, true);
	if (ret) {
		if (list != NG_EVENT_PID)
			ng_apply(list, st->tokens, st->n, true);
		goto out_tokens;
	}
	swap(st->tokens, tokens);
	swap(st->n, n);
out_tokens:
	ng_tokens_free(tokens, n);
	if (ret)
		st->cut_filp = NULL;
out:
	kfree(text);
	return ret ?: count;
}

/*
 * The list as written, and ftrace's text for an empty filter; the pid set
 * as it is (children added by event-fork included).
 */
void ng_list_render(enum ng_list list, struct seq_buf *s)
{
	const struct ng_list_state *st = &ng_lists[list];
	unsigned int i;

	if (list == NG_EVENT_PID) {
		ng_pids_render(s);
		return;
	}
	if (!st->n && (list == NG_FTRACE_FILTER || list == NG_GRAPH_FUNCTION))
		seq_buf_printf(s, "#### all functions enabled ####\n");
	for (i = 0; i < st->n; i++)
		seq_buf_printf(s, "%s\n", st->tokens[i]);
}

void ng_lists_free(void)
{
	int i;

	for (i = 0; i < NG_NR_LISTS; i++) {
		ng_tokens_free(ng_lists[i].tokens, ng_lists[i].n);
		ng_lists[i].tokens = NULL;
		ng_lists[i].n = 0;
	}
}
