// SPDX-License-Identifier: LGPL-2.1
/*
 * replay.c - a recording as text, the way the kernel's function_graph
 * tracer (and "uftrace replay", "trace-cmd report") shows a call tree:
 *
 *   # tid 412, pid 412, cat
 *   #    DURATION |  FUNCTION CALLS
 *                 |  vfs_read() {
 *        0.120 us |    rw_verify_area();
 *        3.750 us |  }
 *
 * (the closing brace followed by the function's name in a C comment).
 * A call's line is written at its push, but whether it is "f() {" or the
 * leaf "f();" (which carries the duration) is only known at the next
 * event: a push below it, or its own POP. So one line waits, the last
 * call entered, and nothing else: a call's duration goes on its closing
 * line, written at its POP. Memory follows the depth of the stack (the
 * walk's and the filter's), never the length of the file.
 *
 * With a counters.tsv (record --counters), a call that faulted or was
 * switched out says how often in the same place ("64 minor faults").
 * With a sched.tsv (record --sched), a call that was off the CPU says on
 * that line, in its comment, what its time was made of and who woke it:
 * "vfs_read: on-cpu 41.000 us, blocked 300.100 ms, woken by 1234 writer
 * in pipe_write"; with NG_REPLAY_ONCPU its duration is its time on a CPU.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nanograph.h"

struct rp {
	FILE *fp;
	const struct ng_rec_thread *t;
	bool abstime;
	bool oncpu;		/* durations on a CPU only (NG_REPLAY_ONCPU) */
	bool blocks;		/* a thread's block was written */
	bool header;		/* this thread's header is written */
	/* the last call entered, whose line waits for the next event */
	bool pending;
	uint64_t p_ns;
	size_t p_depth;
	char *p_label;
	size_t p_cap;
	/* a flight snapshot's triggering call (info.json), marked */
	bool has_trigger;
	struct ng_info_trigger trig;
	char trig_func[NG_TRIGGER_FUNC_MAX];
	const struct ng_sched *sched;	/* sched.tsv, if the recording has one */
	const struct ng_counts *counts;	/* counters.tsv, the same */
	const struct ng_values *values;	/* args.tsv, retval.tsv, the same */
	bool retaddr;		/* call sites shown (NG_REPLAY_RETADDR) */
	/* the waiting line's arguments and call site, as written */
	char p_args[1024];
	char p_site[160];
};

/* What follows the indentation of a line. */
enum rp_kind { RP_OPEN, RP_LEAF, RP_CLOSE };

/*
 * The thread's header, at its first call: a thread with nothing to show
 * (no calls, or none through the filter) gets no block at all.
 */
static void rp_header(struct rp *r)
{
	const struct ng_rec_thread *t = r->t;
	char pid[16] = "?";

	if (t->pid >= 0)
		snprintf(pid, sizeof(pid), "%d", t->pid);
	fprintf(r->fp, "%s# tid %s, pid %s, ", r->blocks ? "\n" : "",
		t->tid, pid);
	ng_fputs_escaped(t->comm, r->fp);
	fputc('\n', r->fp);
	if (r->abstime)
		fprintf(r->fp, "#%15s %13s |  FUNCTION CALLS\n", "TIMESTAMP",
			"DURATION");
	else
		fprintf(r->fp, "#%12s |  FUNCTION CALLS\n", "DURATION");
	r->blocks = r->header = true;
}

/*
 * What a call's wall time was made of, if it was off the CPU: ": on-cpu
 * X, runnable Y, blocked Z, woken by TID COMM in FUNC" (the parts that
 * are not 0); empty otherwise. Its time off the CPU into *@off.
 */
static void sched_note(const struct rp *r, const struct ng_call *c,
		       char *buf, size_t size, uint64_t *off)
{
	struct ng_sched_split sp;
	char on[32], run[32], blk[32], who[NG_SCHED_WAKER_MAX];
	const struct ng_sched_span *w;
	size_t n;

	buf[0] = '\0';
	*off = 0;
	if (!r->sched || r->t->idle)
		return;
	ng_sched_split(r->sched, (int)r->t->id, c->start_ns, c->end_ns, &sp);
	*off = sp.runnable + sp.blocked;
	if (!sp.runnable && !sp.blocked)
		return;
	ng_fmt_time(on, sizeof(on), sp.on_cpu, false);
	ng_fmt_time(run, sizeof(run), sp.runnable, false);
	ng_fmt_time(blk, sizeof(blk), sp.blocked, false);
	n = (size_t)snprintf(buf, size, ": on-cpu %s", on);
	if (sp.runnable && n < size)
		n += (size_t)snprintf(buf + n, size - n, ", runnable %s", run);
	if (sp.blocked && n < size)
		n += (size_t)snprintf(buf + n, size - n, ", blocked %s", blk);
	w = sp.woken;
	if (!w || w->waker < 0 || n >= size)
		return;
	snprintf(buf + n, size - n, ", woken by %s",
		 ng_sched_waker_name(who, sizeof(who), w));
}

/*
 * The call's page faults and context switches (counters.tsv), after what
 * @buf holds: ": 64 minor faults" or ", 64 minor faults".
 */
static void counts_note(const struct rp *r, const struct ng_call *c,
			char *buf, size_t size)
{
	const struct ng_call_counts *e;
	size_t n = strlen(buf);
	char what[160];

	if (!r->counts)
		return;
	e = ng_counts_find(r->counts, ng_rec_thread_key(r->t), c->end_ns,
			   (unsigned int)c->depth);
	if (ng_counts_note(what, sizeof(what), e) && n < size)
		snprintf(buf + n, size - n, "%s%s", n ? ", " : ": ", what);
}

/*
 * The call's return value (retval.tsv): ", ret=-9 (EBADF)" after what
 * @buf holds, or " ret=0x0" on a closing line, where it follows the
 * function's name.
 */
static void retval_note(const struct rp *r, const struct ng_call *c,
			char *buf, size_t size, bool leaf)
{
	const struct ng_call_values *v;
	size_t n = strlen(buf);
	char text[64];

	v = ng_values_ret(r->values, ng_rec_thread_key(r->t), c->end_ns, (unsigned int)c->depth);
	if (!v || n >= size ||
	    !ng_retval_text(r->values, c->label, text, sizeof(text), v->retval))
		return;
	if (leaf || n)
		snprintf(buf + n, size - n, "%sret=%s", n ? ", " : ": ", text);
	else
		snprintf(buf, size, " ret=%s", text);
}

/*
 * One line: [timestamp] duration (or blanks) "|", two spaces a level of
 * depth, then the call. Past NG_REPLAY_MAX_INDENT levels the indentation
 * stops growing and the depth is written instead ("[300000] f();"), so a
 * line never grows with depth and the output stays linear in the input.
 */
static void rp_line(struct rp *r, uint64_t ts, const uint64_t *dur,
		    size_t depth, const char *label, enum rp_kind kind,
		    bool trigger, const char *note, const char *args)
{
	const char *mark = trigger ? "  " NG_REPLAY_TRIGGER_MARK : "";

	FILE *fp = r->fp;

	if (r->abstime)
		fprintf(fp, "%16" PRIu64 " ", ts);
	if (dur)
		fprintf(fp, "%6" PRIu64 ".%03u us |  ", *dur / 1000,
			(unsigned int)(*dur % 1000));
	else
		fputs("              |  ", fp);
	if (depth < NG_REPLAY_MAX_INDENT)
		fprintf(fp, "%*s", (int)(2 * depth), "");
	else
		fprintf(fp, "%*s[%zu] ", 2 * NG_REPLAY_MAX_INDENT, "", depth);
	if (kind == RP_CLOSE)
		fputs("} /* ", fp);
	ng_fputs_escaped(label, fp);
	switch (kind) {
	case RP_OPEN:
		if (note && note[0])
			fprintf(fp, "(%s) { /* %s */\n", args, note + 2);
		else
			fprintf(fp, "(%s) {\n", args);
		break;
	case RP_LEAF:
		if (note && note[0])
			fprintf(fp, "(%s); /* %s */%s\n", args, note + 2, mark);
		else
			fprintf(fp, "(%s);%s\n", args, mark);
		break;
	case RP_CLOSE:
		fprintf(fp, "%s */%s\n", note ? note : "", mark);
		break;
	}
}

/*
 * The arguments of the call of @label entered at @ns at @depth, as the
 * recording has them ("count=4096" or "0x1000"), and its call site as a note
 * (": <-ksys_read+0x6b") when asked.
 */
static void args_text(struct rp *r, const char *label, uint64_t ns, size_t depth)
{
	const struct ng_call_values *v;

	r->p_args[0] = r->p_site[0] = '\0';
	v = ng_values_args(r->values, ng_rec_thread_key(r->t), ns, (unsigned int)depth);
	if (!v)
		return;
	ng_args_text(r->values, label, v, r->p_args, sizeof(r->p_args));
	if (r->retaddr && v->site[0])
		snprintf(r->p_site, sizeof(r->p_site), ": <-%s", v->site);
}

/* A push: the waiting line, if any, opens a block; this one waits. */
static int rp_enter(void *priv, const char *label, uint64_t ns, size_t depth)
{
	struct rp *r = priv;
	size_t len = strlen(label) + 1;

	if (!r->header)
		rp_header(r);
	if (r->pending)
		rp_line(r, r->p_ns, NULL, r->p_depth, r->p_label, RP_OPEN,
			false, r->p_site, r->p_args);
	args_text(r, label, ns, depth);
	if (len > r->p_cap) {
		char *l = realloc(r->p_label, len);

		if (!l)
			return -ENOMEM;
		r->p_label = l;
		r->p_cap = len;
	}
	memcpy(r->p_label, label, len);
	r->p_ns = ns;
	r->p_depth = depth;
	r->pending = true;
	return 0;
}

/*
 * Whether @c is the call that fired the snapshot: its thread, its
 * function (a label "func" or "func [module]"), and its return at the
 * very nanosecond of the exit record the flight file named.
 */
static bool is_trigger(const struct rp *r, const struct ng_call *c)
{
	size_t len = strlen(r->trig_func);

	return r->has_trigger && !r->t->idle && r->t->id == r->trig.tid &&
	       c->end_ns == r->trig.exit_ns &&
	       !strncmp(c->label, r->trig_func, len) &&
	       (!c->label[len] || c->label[len] == ' ');
}

/* The trigger of @rec's info.json, if it is a flight snapshot. */
static void load_trigger(struct rp *r, const struct ng_recording *rec)
{
	struct ng_info_file *f;

	if (ng_info_load(&f, rec->dir, NULL))
		return;
	if (!ng_info_trigger(f, &r->trig)) {
		snprintf(r->trig_func, sizeof(r->trig_func), "%s",
			 r->trig.function);
		r->trig.function = r->trig_func;
		r->has_trigger = true;
	}
	ng_info_file_free(f);
}

/*
 * A POP: the waiting line is this call's, which showed no call of its
 * own (a leaf); otherwise this closes a block. Either way with its
 * duration, as function_graph writes it.
 */
static int rp_leave(void *priv, const struct ng_call *c)
{
	struct rp *r = priv;
	uint64_t dur = c->dur_ns, off;
	bool trigger = is_trigger(r, c);
	char note[512];

	sched_note(r, c, note, sizeof(note), &off);
	counts_note(r, c, note, sizeof(note));
	if (r->oncpu)		/* from the duration as compensated */
		dur = dur > off ? dur - off : 0;
	if (r->pending) {
		char leaf[sizeof(note) + sizeof(r->p_site) + 2];

		retval_note(r, c, note, sizeof(note), true);
		snprintf(leaf, sizeof(leaf), "%s%s%s", r->p_site,
			 r->p_site[0] && note[0] ? ", " : "",
			 note + (r->p_site[0] && note[0] ? 2 : 0));
		rp_line(r, c->start_ns, &dur, c->depth, c->label, RP_LEAF,
			trigger, leaf, r->p_args);
	} else {
		retval_note(r, c, note, sizeof(note), false);
		rp_line(r, c->end_ns, &dur, c->depth, c->label, RP_CLOSE,
			trigger, note, "");
	}
	r->pending = false;
	return 0;
}

/* Thread after thread, in the recording's order, each through the filter. */
int ng_replay(const struct ng_recording *rec, FILE *fp, unsigned int flags,
	      struct ng_pp_bad *bad)
{
	struct rp r = {
		.fp = fp,
		.abstime = flags & NG_REPLAY_ABSTIME,
		.oncpu = flags & NG_REPLAY_ONCPU,
	};
	struct ng_pp_visitor v = { rp_enter, rp_leave, &r };
	struct ng_pp_bad ignored;
	size_t i;
	int ret = 0;

	if (!bad)
		bad = &ignored;
	memset(bad, 0, sizeof(*bad));
	if (r.oncpu && !rec->sched)
		return -ENOENT;
	load_trigger(&r, rec);
	r.sched = rec->sched;
	r.counts = rec->counts;
	r.values = rec->values;
	r.retaddr = flags & NG_REPLAY_RETADDR;
	for (i = 0; !ret && i < rec->nr_threads; i++) {
		r.t = &rec->threads[i];
		r.header = r.pending = false;
		ret = ng_recording_walk(rec, r.t, &v, bad);
		if (ret && ret != -ENOMEM)
			bad->file = r.t->file;
		if (!ret && ferror(fp))
			ret = -EIO;
	}
	free(r.p_label);
	return ret;
}
