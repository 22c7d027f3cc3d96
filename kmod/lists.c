// SPDX-License-Identifier: GPL-2.0
/*
 * set_ftrace_filter, set_ftrace_notrace, set_graph_function and
 * set_graph_notrace: lists of ftrace globs; and the same writer for
 * set_event_pid and set_event_notrace_pid, whose tokens are pids (pids.c).
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
 * same open file arrives.  Each page is one write: it takes effect whole
 * or, refused, changes nothing (the pages before it stay).
 *
 * A write never changes anything before it is known to succeed: the new
 * list is built aside, its new globs are tried on a scratch ops that is
 * never registered (whether a glob matches does not depend on what the
 * filter holds), and only then applied to the tracer and swapped in.  So
 * a refused write has nothing to undo; there is no putting an old list
 * back glob by glob.  Only the kernel failing half-way (ENOMEM) leaves
 * something to undo, best effort.
 *
 * A root list (set_graph_function, set_graph_notrace) that selects no
 * function, say "!vfs_read" alone, is no root list: its ops would have an
 * empty filter, which ftrace takes for "every function".
 */
#include <linux/ctype.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/ftrace.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "ng_module.h"

/* Most globs one list holds. */
#define NG_LIST_MAX	65536

struct ng_list_state {
	char **tokens;
	unsigned int n;
	/*
	 * A write whose last page was full may go on: its next page comes
	 * from the same open file (cont, openfile.c) at cont_off.  A glob
	 * cut at the end of that page waits in cut for its rest, or until
	 * the file is closed.
	 */
	struct ng_keep cont;
	loff_t cont_off;
	size_t cut_len;
	char cut[NG_TOKEN_MAX];
};

static void ng_list_cont_release(struct ng_keep *k);

static struct ng_list_state ng_lists[NG_NR_LISTS] = {
	[0 ... NG_NR_LISTS - 1] = {
		.cont = NG_KEEP_INIT(&ng_control_lock, ng_list_cont_release),
	},
};

/* The open file a list's write may go on from; NULL: none. */
static void ng_list_cont(struct ng_list_state *st, struct file *filp)
{
	if (filp)
		ng_keep_hold(&st->cont, filp);
	else
		ng_keep_drop(&st->cont);
}

/* The file a write might have gone on from was closed. */
static void ng_list_cont_release(struct ng_keep *k)
{
	struct ng_list_state *st = container_of(k, struct ng_list_state, cont);

	ng_keep_drop(k);
	st->cut_len = 0;
}

/* Each list's continuation is kept by open file (openfile.c). */
void ng_lists_keep_init(void)
{
	int i;

	for (i = 0; i < NG_NR_LISTS; i++)
		ng_keep_add(&ng_lists[i].cont);
}

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
	if (ng_list_of_pids(list))
		return ng_pids_apply(list, tokens, n, reset);
	if (list == NG_EVENT_COMM)
		return ng_comms_apply(tokens, n, reset);
	return ng_tracer_apply_list(list, tokens, n, reset);
}

/*
 * Whether a root list selects any function at all.  ftrace's hash of
 * matched functions is private, but every filter that ends up empty is
 * given ftrace's one shared empty hash (EMPTY_HASH in
 * kernel/trace/ftrace.c, "if the new source is empty, just return the
 * empty_hash"), a pointer in the public struct ftrace_ops_hash.  So the
 * globs are applied to a scratch ops that is never registered, and its
 * filter compared, never dereferenced, with that of an ops whose filter
 * was reset.  Should a kernel ever give each ops an empty hash of its
 * own (the two resets below then differ), a list of "!glob" tokens alone
 * is taken as empty, and nothing else.
 */
static struct ftrace_ops ng_scratch_ops, ng_empty_ops;
static int ng_empty_known;	/* 0: not yet looked, 1: shared, -1: not */

static bool ng_filter_empty(struct ftrace_ops *ops)
{
	return rcu_access_pointer(ops->func_hash->filter_hash) ==
	       rcu_access_pointer(ng_empty_ops.func_hash->filter_hash);
}

static bool ng_globs_select_nothing(char **tokens, unsigned int n, int *err)
{
	unsigned int i;
	bool empty;

	*err = 0;
	if (!ng_empty_known) {
		*err = ftrace_set_filter(&ng_empty_ops, NULL, 0, 1) ?:
		       ftrace_set_filter(&ng_scratch_ops, NULL, 0, 1);
		if (*err)
			return false;
		ng_empty_known = ng_filter_empty(&ng_scratch_ops) &&
				 rcu_access_pointer(ng_empty_ops.func_hash->filter_hash) ? 1 : -1;
	}
	if (ng_empty_known < 0) {
		for (i = 0; i < n; i++)
			if (tokens[i][0] != '!')
				return false;
		return true;
	}
	for (i = 0; i < n && !*err; i++) {
		/* ftrace's matcher edits the glob in place: give it a copy. */
		char *glob = kstrdup(tokens[i], GFP_KERNEL);

		*err = glob ? ftrace_set_filter(&ng_scratch_ops, glob, strlen(glob), i == 0) :
			      -ENOMEM;
		kfree(glob);
	}
	empty = !*err && ng_filter_empty(&ng_scratch_ops);
	ftrace_set_filter(&ng_scratch_ops, NULL, 0, 1);
	return empty;
}

/*
 * A root list written with "!glob" tokens may select nothing; then it is
 * cleared (no roots: every hooked call is recorded), as ftrace's
 * set_graph_function is when emptied, and reads back as empty.  So is
 * set_args_filter (empty: every hooked call's arguments).  A list
 * without "!" tokens cannot: a glob that matches nothing is refused.
 */
static int ng_roots_normalise(enum ng_list list, char ***tokens, unsigned int *n,
			      unsigned int first_new)
{
	unsigned int i;
	int err;

	if (list != NG_GRAPH_FUNCTION && list != NG_GRAPH_NOTRACE &&
	    list != NG_ARGS_FILTER)
		return 0;
	for (i = first_new; i < *n; i++)
		if ((*tokens)[i][0] == '!')
			break;
	if (i == *n)
		return 0;
	if (!ng_globs_select_nothing(*tokens, *n, &err))
		return err;
	ng_tokens_free(*tokens, *n);
	*tokens = NULL;
	*n = 0;
	return 0;
}

/*
 * Would each of @tokens match some function?  Tried on the scratch ops,
 * one at a time, as the tracer will apply them: whether ftrace's matcher
 * finds a glob does not depend on what the filter already holds ("!glob"
 * too: it succeeds when the glob names a function, whether or not that
 * function was in the filter).  The scratch filter is emptied again.
 */
static int ng_globs_check(char **tokens, unsigned int n)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		/* ftrace's matcher edits the glob in place: give it a copy. */
		char *glob = kstrdup(tokens[i], GFP_KERNEL);

		ret = glob ? ftrace_set_filter(&ng_scratch_ops, glob, strlen(glob), 1) :
			     -ENOMEM;
		kfree(glob);
	}
	ftrace_set_filter(&ng_scratch_ops, NULL, 0, 1);
	return ret;
}

/*
 * One write(2) to a list file, already serialised by ng_control_lock.
 * The new list is built aside and checked whole; only then is it applied
 * to the tracer and swapped in, with where the write may go on.  A write
 * that fails changes nothing: not the list, not the tracer, not a glob
 * held back from the page before.
 */
ssize_t ng_list_write(enum ng_list list, struct file *filp, const char *buf,
		      loff_t off, size_t count)
{
	struct ng_list_state *st = &ng_lists[list];
	bool append = (filp->f_flags & O_APPEND) || off > 0;
	bool cont = ng_keep_is(&st->cont, filp) && st->cont_off == off;
	size_t prefix = cont ? st->cut_len : 0, len, cut = 0;
	unsigned int n = 0, first_new, i;
	char **tokens = NULL;
	char *text;
	int ret;

	lockdep_assert_held(&ng_control_lock);
	len = prefix + count;
	text = kmalloc(len + 1, GFP_KERNEL);
	if (!text)
		return -ENOMEM;
	memcpy(text, st->cut, prefix);
	memcpy(text + prefix, buf, count);
	text[len] = '\0';

	/*
	 * A full page that ends inside a glob: the rest comes next.  The
	 * glob is cut off the text here, and becomes the one held back
	 * only if this write succeeds.
	 */
	if (count == PAGE_SIZE && !isspace(text[len - 1])) {
		size_t start = len;

		while (start && !isspace(text[start - 1]))
			start--;
		cut = len - start;
		if (cut >= NG_TOKEN_MAX) {
			ret = -E2BIG;
			goto out;
		}
		len = start;
	}

	if (append) {
		for (i = 0; i < st->n; i++) {
			ret = ng_token_add(&tokens, &n, st->tokens[i]);
			if (ret)
				goto out_tokens;
		}
	}
	first_new = n;
	/* ng_tokenize() ends at a NUL: keep the glob cut off for later. */
	if (cut) {
		char c = text[len];

		text[len] = '\0';
		ret = ng_tokenize(text, &tokens, &n);
		text[len] = c;
	} else {
		ret = ng_tokenize(text, &tokens, &n);
	}
	if (ret)
		goto out_tokens;
	if (append && n == first_new)
		goto done;			/* nothing new */
	/*
	 * Globs that match nothing are refused before anything changes.  A
	 * single new glob needs no trial: ftrace applies one glob whole or
	 * not at all.
	 */
	if (ng_list_of_functions(list) && n - first_new > 1) {
		ret = ng_globs_check(tokens + first_new, n - first_new);
		if (ret)
			goto out_tokens;
	}
	ret = ng_roots_normalise(list, &tokens, &n, first_new);
	if (ret)
		goto out_tokens;

	/*
	 * Appending applies only the new tokens; replacing applies all (an
	 * emptied root list is a replace by nothing).  The pid set changes
	 * all at once or not at all; a glob list, its globs checked, fails
	 * only if the kernel does (ENOMEM): then the tracer is given the
	 * old list again, as well as it can be.
	 */
	if (append && n)
		ret = ng_apply(list, tokens + st->n, n - st->n, false);
	else
		ret = ng_apply(list, tokens, n, true);
	if (ret) {
		if (ng_list_of_functions(list))
			ng_apply(list, st->tokens, st->n, true);
		goto out_tokens;
	}
	swap(st->tokens, tokens);
	swap(st->n, n);
done:
	/* Where this write may go on, and what it holds back for that. */
	ng_list_cont(st, count == PAGE_SIZE ? filp : NULL);
	st->cont_off = off + count;
	st->cut_len = cut;
	memcpy(st->cut, text + len, cut);
	ret = 0;
out_tokens:
	ng_tokens_free(tokens, n);
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

	if (ng_list_of_pids(list)) {
		ng_pids_render(list, s);
		return;
	}
	if (!st->n && (list == NG_FTRACE_FILTER || list == NG_GRAPH_FUNCTION))
		seq_buf_printf(s, "#### all functions enabled ####\n");
	for (i = 0; i < st->n; i++)
		seq_buf_printf(s, "%s\n", st->tokens[i]);
}

/* No glob in @list: for set_ftrace_filter, every function is hooked. */
bool ng_list_empty(enum ng_list list)
{
	lockdep_assert_held(&ng_control_lock);
	return !ng_lists[list].n;
}

/* The globs of @list, in the order written: how many, in *@tokens. */
unsigned int ng_list_tokens(enum ng_list list, char ***tokens)
{
	lockdep_assert_held(&ng_control_lock);
	*tokens = ng_lists[list].tokens;
	return ng_lists[list].n;
}

void ng_lists_free(void)
{
	int i;

	mutex_lock(&ng_control_lock);
	for (i = 0; i < NG_NR_LISTS; i++) {
		ng_list_cont(&ng_lists[i], NULL);
		ng_tokens_free(ng_lists[i].tokens, ng_lists[i].n);
		ng_lists[i].tokens = NULL;
		ng_lists[i].n = 0;
	}
	mutex_unlock(&ng_control_lock);
	ftrace_free_filter(&ng_scratch_ops);
	ftrace_free_filter(&ng_empty_ops);
}
