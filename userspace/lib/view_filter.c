// SPDX-License-Identifier: LGPL-2.1
/*
 * view_filter.c - what the views of a recording (replay, report,
 * export) show: which threads (--tid, --comm) and which of their calls
 * (-t, -D, -F, -N, --time-range), applied while each file is walked.
 *
 * Whether a call is shown may depend on its end (its duration, whether it
 * reaches into the time range), known only at its POP, and a shown call
 * brings its callers along. So a call that may yet be shown waits on a
 * stack of pending frames, and the first shown call below it lets the
 * chain out, outermost first: the visitor still sees the file's order,
 * and memory follows the depth of the stack, never the length of the file.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nanograph.h"

/* A --tid value: a thread as its file names it. */
struct tid_sel {
	bool idle;
	long long id;
	char text[24];		/* as given, for the error that names it */
};

struct ng_filter {
	uint64_t threshold;		/* 0: no minimum duration */
	uint64_t depth;			/* 0: no limit */
	uint64_t range_start, range_end;
	struct tid_sel *tids;
	size_t nr_tids;
	char **comms;
	size_t nr_comms;
	char **show, **hide;		/* -F and -N globs */
	size_t nr_show, nr_hide;
	enum ng_compensation compensate;
	double per_call_ns, inside_ns;	/* by hand */
	/* --retval: calls whose value compares so with neg/mag */
	enum { RV_NONE, RV_EQ, RV_NE, RV_LT, RV_LE, RV_GT, RV_GE } rv_op;
	bool rv_neg;
	uint64_t rv_mag;
};

/* A filter that lets everything through, until options narrow it. */
int ng_filter_new(struct ng_filter **fp)
{
	struct ng_filter *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	f->range_end = UINT64_MAX;
	*fp = f;
	return 0;
}

/* Free @n strings and their array. */
static void free_strs(char **s, size_t n)
{
	while (n)
		free(s[--n]);
	free(s);
}

/* Whether @f leaves out calls, beyond choosing threads; NULL does not. */
bool ng_filter_hides_calls(const struct ng_filter *f)
{
	return f && (f->threshold || f->depth || f->range_start ||
		     f->range_end != UINT64_MAX || f->nr_show || f->nr_hide ||
		     f->rv_op);
}

/* The filter and every value it copied; @f may be NULL. */
void ng_filter_free(struct ng_filter *f)
{
	if (!f)
		return;
	free(f->tids);
	free_strs(f->comms, f->nr_comms);
	free_strs(f->show, f->nr_show);
	free_strs(f->hide, f->nr_hide);
	free(f);
}

/* The last -t given counts, as with the other single-valued options. */
void ng_filter_set_threshold(struct ng_filter *f, uint64_t ns)
{
	f->threshold = ns;
}

int ng_filter_set_retval(struct ng_filter *f, const char *expr)
{
	static const struct { const char *text; int op; } ops[] = {
		{ "<=", RV_LE }, { ">=", RV_GE }, { "==", RV_EQ }, { "!=", RV_NE },
		{ "<", RV_LT }, { ">", RV_GT }, { "=", RV_EQ },
	};
	const char *p = expr;
	bool neg = false;
	uint64_t mag;
	char *end;
	int op = RV_EQ, err;
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strncmp(p, ops[i].text, strlen(ops[i].text))) {
			op = ops[i].op;
			p += strlen(ops[i].text);
			break;
		}
	if (*p == '-') {
		neg = true;
		p++;
	}
	if (*p == 'E') {
		err = ng_errno_by_name(p);
		if (!err)
			return -EINVAL;
		neg = true;	/* "EAGAIN" and "-EAGAIN" alike */
		mag = (uint64_t)err;
	} else {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		errno = 0;
		mag = strtoull(p, &end, 0);
		if (errno || *end || (neg && mag > (1ULL << 63)))
			return -EINVAL;
	}
	f->rv_op = op;
	f->rv_neg = neg && mag;
	f->rv_mag = mag;
	return 0;
}

/* How (@neg, @mag) compares with the filter's value: -1, 0 or 1. */
static int rv_cmp(const struct ng_filter *f, bool neg, uint64_t mag)
{
	if (neg != f->rv_neg)
		return neg ? -1 : 1;
	if (mag == f->rv_mag)
		return 0;
	return (mag < f->rv_mag) != neg ? -1 : 1;
}

/* Whether thread @tid's call @c returned a value that passes --retval. */
static bool rv_passes(const struct ng_filter *f, const struct ng_values *vs,
		      int tid, const struct ng_call *c)
{
	const struct ng_call_values *v;
	uint64_t mag;
	bool neg;
	int r;

	v = ng_values_ret(vs, tid, c->end_ns, (unsigned int)c->depth);
	if (!v || !ng_retval_number(vs, c->label, v->retval, &neg, &mag))
		return false;
	r = rv_cmp(f, neg, mag);
	switch (f->rv_op) {
	case RV_EQ: return !r;
	case RV_NE: return r;
	case RV_LT: return r < 0;
	case RV_LE: return r <= 0;
	case RV_GT: return r > 0;
	default: return r >= 0;
	}
}

/* -D: the depth as a view shows it (from the -F call, if any). */
void ng_filter_set_depth(struct ng_filter *f, uint64_t depth)
{
	f->depth = depth;
}

/* --time-range, both ends included; 0 and UINT64_MAX leave a side open. */
void ng_filter_set_range(struct ng_filter *f, uint64_t start, uint64_t end)
{
	f->range_start = start;
	f->range_end = end;
}

/*
 * The items of a comma-separated list, one at a time from *@s: the
 * item's start in *@item, its length returned, *@s moved past it and its
 * comma (NULL after the last item). -1 when there is none left.
 */
static long next_item(const char **s, const char **item)
{
	size_t len;

	if (!*s)
		return -1;
	*item = *s;
	len = strcspn(*s, ",");
	*s = (*s)[len] ? *s + len + 1 : NULL;
	return len;
}

/* All or nothing: a list with one bad tid adds none of them. */
int ng_filter_add_tids(struct ng_filter *f, const char *list)
{
	const char *s = list, *item;
	struct tid_sel *t;
	size_t n = 0;
	long len;

	for (; (len = next_item(&s, &item)) >= 0; n++) {
		struct tid_sel sel;

		if (!ng_tid_parse(item, len, &sel.idle, &sel.id))
			return -EINVAL;
	}
	t = realloc(f->tids, (f->nr_tids + n) * sizeof(*t));
	if (!t)
		return -ENOMEM;
	f->tids = t;
	for (s = list; (len = next_item(&s, &item)) >= 0; ) {
		t = &f->tids[f->nr_tids++];
		ng_tid_parse(item, len, &t->idle, &t->id);
		memcpy(t->text, item, len);	/* at most 12: "0-" and 10 digits */
		t->text[len] = '\0';
	}
	return 0;
}

/* Append a copy of the @len bytes at @s to an array of strings. */
static int add_str(char ***arr, size_t *nr, const char *s, size_t len)
{
	char **a = realloc(*arr, (*nr + 1) * sizeof(*a));

	if (!a)
		return -ENOMEM;
	*arr = a;
	a[*nr] = strndup(s, len);
	if (!a[*nr])
		return -ENOMEM;
	++*nr;
	return 0;
}

/* Names are compared whole: an empty one is a mistake ("a,,b"). */
int ng_filter_add_comms(struct ng_filter *f, const char *list)
{
	const char *s = list, *item;
	long len;
	int ret = 0;

	while ((len = next_item(&s, &item)) >= 0)
		if (!len)
			return -EINVAL;
	for (s = list; !ret && (len = next_item(&s, &item)) >= 0; )
		ret = add_str(&f->comms, &f->nr_comms, item, len);
	return ret;
}

/* A glob as given: "a,b" is one pattern (kernel names have no ','). */
int ng_filter_add_func(struct ng_filter *f, const char *glob, bool hide)
{
	if (!*glob)
		return -EINVAL;
	return hide ? add_str(&f->hide, &f->nr_hide, glob, strlen(glob)) :
		      add_str(&f->show, &f->nr_show, glob, strlen(glob));
}

/* --overhead wins over --compensate, whatever their order. */
void ng_filter_set_compensate(struct ng_filter *f, bool by_hand,
			      double per_call_ns, double inside_ns)
{
	if (!by_hand) {
		if (f->compensate == NG_COMPENSATE_NONE)
			f->compensate = NG_COMPENSATE_RECORDED;
		return;
	}
	f->compensate = NG_COMPENSATE_BY_HAND;
	f->per_call_ns = per_call_ns;
	f->inside_ns = inside_ns;
}

/* The command, not the filter, applies it: each recording has its own. */
enum ng_compensation ng_filter_compensation(const struct ng_filter *f,
					    double *per_call_ns,
					    double *inside_ns)
{
	if (!f)
		return NG_COMPENSATE_NONE;
	*per_call_ns = f->per_call_ns;
	*inside_ns = f->inside_ns;
	return f->compensate;
}

/* Whether a reader may skip the filter altogether. */
bool ng_filter_empty(const struct ng_filter *f)
{
	return !ng_filter_hides_calls(f) && (!f || (!f->nr_tids && !f->nr_comms));
}

/*
 * @glob against the @n bytes at @s, '*' matching any run: on a mismatch,
 * the last '*' takes one more byte and the rest is tried again. No
 * recursion, and at most (length of @s) x (length of @glob) steps.
 */
static bool glob_match_n(const char *glob, const char *s, size_t n)
{
	const char *g = glob, *star = NULL;
	size_t i = 0, mark = 0;

	while (i < n) {
		if (*g == '*') {
			star = ++g;
			mark = i;
		} else if (*g && *g == s[i]) {
			g++;
			i++;
		} else if (star) {
			g = star;
			i = ++mark;
		} else {
			return false;
		}
	}
	while (*g == '*')
		g++;
	return !*g;
}

/*
 * The whole label, or its function's name: "-F vfs_read" must find a
 * module's function too, and "-F '* [ext4]'" a module's functions.
 */
bool ng_glob_match(const char *glob, const char *label)
{
	size_t len = strlen(label), name = len;
	const char *mod = strstr(label, " [");

	if (len && label[len - 1] == ']' && mod)
		name = mod - label;
	return glob_match_n(glob, label, len) ||
	       (name < len && glob_match_n(glob, label, name));
}

/* Whether @label matches any of @n globs. */
static bool match_any(char *const *globs, size_t n, const char *label)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ng_glob_match(globs[i], label))
			return true;
	return false;
}

/* The number through ng_parse_num(), scaled to ns by the unit's decimals. */
int ng_parse_duration(const char *s, uint64_t *ns)
{
	static const struct {
		const char *name;
		unsigned int decimals;
	} units[] = { { "", 0 }, { "ns", 0 }, { "us", 3 }, { "ms", 6 }, { "s", 9 } };
	size_t n = strspn(s, "0123456789."), i;
	char num[32];

	if (n >= sizeof(num))
		return -ERANGE;
	memcpy(num, s, n);
	num[n] = '\0';
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(s + n, units[i].name))
			return ng_parse_num(num, units[i].decimals, 0,
					    UINT64_MAX, ns);
	return -EINVAL;
}

/* Either side may be empty: from the start, or to the end. */
int ng_parse_time_range(const char *s, uint64_t *start, uint64_t *end)
{
	const char *tilde = strchr(s, '~');
	uint64_t a = 0, b = UINT64_MAX;
	char num[32];
	size_t n;
	int ret;

	if (!tilde || strchr(tilde + 1, '~'))
		return -EINVAL;
	n = tilde - s;
	if (n >= sizeof(num))
		return -ERANGE;
	memcpy(num, s, n);
	num[n] = '\0';
	if (n && (ret = ng_parse_num(num, 0, 0, UINT64_MAX, &a)))
		return ret;
	if (tilde[1] && (ret = ng_parse_num(tilde + 1, 0, 0, UINT64_MAX, &b)))
		return ret;
	if (a > b)
		return -EINVAL;
	*start = a;
	*end = b;
	return 0;
}

/* Costs in thousandths of a ns, as ng_parse_num() reads 3 decimals. */
#define COST_DECIMALS	3
#define COST_SCALE	1000.0
#define COST_MAX	(1000000000ULL * 1000 - 1)	/* below 1 s */

/* One parser of numbers for --overhead and info.json alike. */
int ng_parse_cost(const char *s, double *ns)
{
	uint64_t v;

	if (ng_parse_num(s, COST_DECIMALS, 0, COST_MAX, &v))
		return -EINVAL;
	*ns = v / COST_SCALE;
	return 0;
}

/* "812.5" or "812.5,301.2": the whole cost, then the part inside a call. */
int ng_parse_overhead(const char *s, double *per_call_ns, double *inside_ns)
{
	const char *comma = strchr(s, ',');
	double o, in = 0;
	char num[32];
	size_t n = comma ? (size_t)(comma - s) : strlen(s);

	if (n >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, n);
	num[n] = '\0';
	if (ng_parse_cost(num, &o) || (comma && ng_parse_cost(comma + 1, &in)) ||
	    in > o)
		return -EINVAL;
	*per_call_ns = o;
	*inside_ns = in;
	return 0;
}

/* The costs are checked here once, so the walk can trust them. */
int ng_recording_compensate(struct ng_recording *rec, double per_call_ns,
			    double inside_ns)
{
	struct ng_comp *c;

	if (!isfinite(per_call_ns) || !isfinite(inside_ns) || inside_ns < 0 ||
	    inside_ns > per_call_ns)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->per_call_ns = per_call_ns;
	c->inside_ns = inside_ns;
	free(rec->comp);
	rec->comp = c;
	return 0;
}

/* Whether --tid value @s names thread @t. */
static bool tid_is(const struct tid_sel *s, const struct ng_rec_thread *t)
{
	return s->idle == t->idle && s->id == t->id;
}

/* Whether @t is one of the threads --tid and --comm name (all if none). */
static bool thread_chosen(const struct ng_filter *f,
			  const struct ng_rec_thread *t)
{
	bool tid = !f->nr_tids, comm = !f->nr_comms;
	size_t i;

	for (i = 0; !tid && i < f->nr_tids; i++)
		tid = tid_is(&f->tids[i], t);
	for (i = 0; !comm && i < f->nr_comms; i++)
		comm = !strcmp(f->comms[i], t->comm);
	return tid && comm;
}

/* The first --tid or --comm value naming no thread of @rec, or NULL. */
static const char *unmatched_value(const struct ng_filter *f,
				   const struct ng_recording *rec, bool *comm)
{
	const struct ng_rec_thread *t, *end = rec->threads + rec->nr_threads;
	size_t i;

	for (i = 0; i < f->nr_tids; i++) {
		for (t = rec->threads; t < end && !tid_is(&f->tids[i], t); t++)
			;
		if (t == end) {
			*comm = false;
			return f->tids[i].text;
		}
	}
	for (i = 0; i < f->nr_comms; i++) {
		for (t = rec->threads; t < end && strcmp(f->comms[i], t->comm); t++)
			;
		if (t == end) {
			*comm = true;
			return f->comms[i];
		}
	}
	return NULL;
}

/*
 * A value that names no thread is refused before anything is read: the
 * view of a thread mistyped would otherwise be silently empty.
 */
int ng_recording_filter(struct ng_recording *rec, const struct ng_filter *f,
			const char **unmatched, bool *comm)
{
	struct ng_rec_thread *t;
	size_t i, n = 0;

	if (f && (*unmatched = unmatched_value(f, rec, comm)))
		return -ESRCH;
	for (i = 0; f && i < rec->nr_threads; i++) {
		t = &rec->threads[i];
		if (thread_chosen(f, t))
			rec->threads[n++] = *t;
		else
			free(t->path);
	}
	if (f)
		rec->nr_threads = n;
	rec->filter = f;
	return 0;
}

/* ---- the walk ---- */

enum {
	FW_IN_F = 1,	/* in the subtree of a -F call (every call, without -F) */
	FW_HIDDEN = 2,	/* in the subtree of a call matching -N */
	FW_CAND = 4,	/* passes what is known at its push: may be shown */
	FW_SHOWN = 8,	/* its enter went to the visitor */
};

/* An open frame of the file, shown or not. */
struct fw_frame {
	uint64_t start;		/* as shown: compensated, or as recorded */
	size_t rel;		/* its depth as shown */
	size_t label_at;	/* its label in labels, while it may be shown */
	unsigned int flags;
};

struct fw {
	const struct ng_filter *f;
	const struct ng_values *values;	/* --retval's, with the thread's key */
	int tid;
	struct ng_comp *comp;		/* NULL: times as recorded */
	uint64_t events;		/* pushes and pops of the file so far */
	uint64_t last;			/* the last event's compensated time */
	const struct ng_pp_visitor *v;
	struct fw_frame *stack;		/* by depth in the file */
	size_t cap;
	char *labels;		/* labels of pending frames, NUL-separated */
	size_t labels_len, labels_cap;
};

/*
 * The frame at @depth is shown: its pending callers first (every one up
 * to the last shown, or to the outermost -F call: they all pass, as they
 * contain it), then itself, whose label is @label.
 */
static int fw_show(struct fw *w, size_t depth, const char *label)
{
	struct fw_frame *fr;
	size_t j = depth;
	int ret = 0;

	while (j && (w->stack[j - 1].flags & (FW_CAND | FW_SHOWN)) == FW_CAND)
		j--;
	for (; !ret && j <= depth; j++) {
		fr = &w->stack[j];
		fr->flags |= FW_SHOWN;
		if (w->v->enter)
			ret = w->v->enter(w->v->priv, j == depth ? label :
					  w->labels + fr->label_at, fr->start,
					  fr->rel);
	}
	return ret;
}

/* Keep @label of a frame that may be shown later. */
static int fw_keep_label(struct fw *w, struct fw_frame *fr, const char *label)
{
	size_t len = strlen(label) + 1;

	if (w->labels_len + len > w->labels_cap) {
		size_t cap = 2 * (w->labels_len + len);
		char *l = realloc(w->labels, cap);

		if (!l)
			return -ENOMEM;
		w->labels = l;
		w->labels_cap = cap;
	}
	fr->label_at = w->labels_len;
	memcpy(w->labels + w->labels_len, label, len);
	w->labels_len += len;
	return 0;
}

/* @x >= 0 to the nearest ns (no integer type would hold every double). */
static uint64_t round_ns(double x)
{
	return x >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t)(x + 0.5);
}

/*
 * The time of the next event of the file, @ns recorded, on the timeline
 * without the tracer: the cost of the calls before it (each event half
 * a call's), and the part of its own call's cost on this side of its
 * record, taken off; never before the event ahead of it.
 */
static uint64_t comp_time(struct fw *w, uint64_t ns, bool push)
{
	const struct ng_comp *c = w->comp;
	double off = w->events * c->per_call_ns / 2 +
		     (push ? c->per_call_ns - c->inside_ns : c->inside_ns) / 2;
	uint64_t t = off >= (double)ns ? 0 : ns - round_ns(off);

	if (t < w->last)
		t = w->last;
	w->last = t;
	return t;
}

/*
 * Call @c as compensated (ng_comp's formulas): its times moved to the
 * timeline, its durations less the tracer's cost. Returns whether one
 * came out below 0, and was clamped.
 */
static bool comp_call(struct fw *w, struct ng_call *c, uint64_t start)
{
	const struct ng_comp *k = w->comp;
	double incl = (double)c->dur_ns - k->inside_ns -
		      k->per_call_ns * (double)c->calls_below;
	double self = (double)c->self_ns - k->inside_ns -
		      (k->per_call_ns - k->inside_ns) * (double)c->children;

	c->start_ns = start;
	c->end_ns = comp_time(w, c->end_ns, false);
	c->dur_ns = incl > 0 ? round_ns(incl) : 0;
	c->self_ns = self > 0 ? round_ns(self) : 0;
	return incl < 0 || self < 0;
}

/*
 * A push: what its push tells (-F, -N, -D, a start past the range) is
 * decided now; with no duration to wait for, the call is shown at once.
 */
static int fw_enter(void *priv, const char *label, uint64_t ns, size_t depth)
{
	struct fw *w = priv;
	const struct ng_filter *f = w->f;
	struct fw_frame *fr, *up;
	unsigned int flags = 0;
	size_t rel = depth;
	uint64_t shown = w->comp ? comp_time(w, ns, true) : ns;

	w->events++;
	if (depth == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 64;

		fr = realloc(w->stack, cap * sizeof(*fr));
		if (!fr)
			return -ENOMEM;
		w->stack = fr;
		w->cap = cap;
	}
	up = depth ? &w->stack[depth - 1] : NULL;
	fr = &w->stack[depth];
	if (up && (up->flags & FW_HIDDEN)) {
		flags = FW_HIDDEN;
	} else {
		if (!f->nr_show) {
			flags = FW_IN_F;
		} else if (up && (up->flags & FW_IN_F)) {
			flags = FW_IN_F;
			rel = up->rel + 1;
		} else if (match_any(f->show, f->nr_show, label)) {
			flags = FW_IN_F;
			rel = 0;
		}
		if (match_any(f->hide, f->nr_hide, label))
			flags |= FW_HIDDEN;
	}
	if (flags == FW_IN_F && (!f->depth || rel < f->depth) &&
	    ns <= f->range_end)
		flags |= FW_CAND;
	*fr = (struct fw_frame){ shown, rel, w->labels_len, flags };
	if (!(flags & FW_CAND))
		return 0;
	if (!f->threshold && !f->rv_op && ns >= f->range_start)
		return fw_show(w, depth, label);
	return fw_keep_label(w, fr, label);
}

/* A pop: a pending call is shown if its duration and end let it. */
static int fw_leave(void *priv, const struct ng_call *call)
{
	struct fw *w = priv;
	struct fw_frame *fr = &w->stack[call->depth];
	struct ng_call c = *call;
	bool clamped = w->comp && comp_call(w, &c, fr->start);
	int ret;

	w->events++;
	w->labels_len = fr->label_at;
	if (!(fr->flags & FW_SHOWN)) {
		if (!(fr->flags & FW_CAND) || c.dur_ns < w->f->threshold ||
		    call->end_ns < w->f->range_start ||
		    (w->f->rv_op && !rv_passes(w->f, w->values, w->tid, call)))
			return 0;
		ret = fw_show(w, call->depth, call->label);
		if (ret)
			return ret;
	}
	if (clamped)
		w->comp->clamped++;
	c.depth = fr->rel;
	return w->v->leave ? w->v->leave(w->v->priv, &c) : 0;
}

/*
 * Without call filters or compensation, the plain walk: nothing to hold
 * back, no time to move.
 */
static int filter_walk(const struct ng_filter *f, struct ng_comp *comp,
		       const struct ng_values *values, int tid,
		       const char *path, const struct ng_pp_visitor *v,
		       struct ng_pp_bad *bad)
{
	static const struct ng_filter all = { .range_end = UINT64_MAX };
	struct fw w = { .f = f ? f : &all, .comp = comp, .v = v,
			.values = values, .tid = tid };
	struct ng_pp_visitor fv = { fw_enter, fw_leave, &w };
	int ret;

	if (!ng_filter_hides_calls(f) && !comp)
		return ng_pp_walk(path, v, bad);
	ret = ng_pp_walk(path, &fv, bad);
	free(w.stack);
	free(w.labels);
	return ret;
}

/* A file on its own, outside a recording: nothing to compensate. */
int ng_filter_walk(const struct ng_filter *f, const char *path,
		   const struct ng_pp_visitor *v, struct ng_pp_bad *bad)
{
	return filter_walk(f, NULL, NULL, 0, path, v, bad);
}

/* Every reader of a recording walks its threads this one way. */
int ng_recording_walk(const struct ng_recording *rec,
		      const struct ng_rec_thread *t,
		      const struct ng_pp_visitor *v, struct ng_pp_bad *bad)
{
	return filter_walk(rec->filter, rec->comp, rec->values,
			   ng_rec_thread_key(t), t->path, v, bad);
}
