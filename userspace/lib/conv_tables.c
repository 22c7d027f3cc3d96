// SPDX-License-Identifier: LGPL-2.1
/*
 * conv_tables.c - the converter's tables beside the push/pop files
 * (conv.h; their formats in Documentation/trace-format.md): sched.tsv
 * from the scheduling events, counters.tsv, args.tsv and retval.tsv from
 * the events about one call. Each table is opened at its first line,
 * after one naming its format and version, so a recording without such
 * events has no such file.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "nanograph.h"
#include "nanograph_event.h"
#include "conv.h"

/*
 * A table beside the push/pop files, DIR/@name.tsv, opened at its first
 * line, after one naming its format and version ("# nanograph sched 1").
 */
static int table_open(struct ng_conv *c, struct ng_outfile *f, bool *open,
		      const char *name)
{
	char file[64];
	int ret;

	if (*open)
		return 0;
	snprintf(file, sizeof(file), "%s.tsv", name);
	ret = ng_outfile_open(f, c->dir, file);
	if (ret)
		return ret;
	*open = true;
	return ng_outfile_printf(f, "# nanograph %s 1\n", name);
}

/*
 * A scheduling record, as a line of sched.tsv (Documentation/
 * trace-format.md): the push/pop files stay as they are, and the waker's
 * function is the innermost call open in its file when it woke the
 * thread.
 */
int conv_on_sched(struct ng_conv *c, const struct ng_event *ev)
{
	static const char *const ctx[] = { "task", "hardirq", "softirq", "irq", "nmi" };
	uint64_t ns = ng_clock_ns(&c->clock, ev->counter);
	const struct thread *w;
	const struct sym *s;
	const char *fn = "-";
	char comm[64] = "";
	int pid = -1, ret;
	size_t i;

	ret = table_open(c, &c->sched, &c->sched_open, "sched");
	if (ret)
		return ret;
	c->sum.sched++;
	switch (ev->type) {
	case NG_EV_SWITCH_OUT:
		return ng_outfile_printf(&c->sched, "%" PRIu64 "\tout\t%d\t%c\t%u\n",
					 ns, ev->tid, ev->runnable ? 'R' : 'S', ev->state);
	case NG_EV_SWITCH_IN:
		return ng_outfile_printf(&c->sched, "%" PRIu64 "\tin\t%d\n", ns, ev->tid);
	case NG_EV_MIGRATE:
		return ng_outfile_printf(&c->sched, "%" PRIu64 "\tmigrate\t%d\t%d\t%d\n",
					 ns, ev->tid, ev->from_cpu, ev->to_cpu);
	default:
		break;
	}
	/*
	 * The waker's function: named by the event (the events mode, whose
	 * func_call events come at each call's return), else its innermost
	 * call open in its file.
	 */
	w = conv_thread_find(c, event_thread(ev));
	if (ev->ip) {
		s = conv_sym_get(c, ev->ip);
		if (!s)
			return c->err;
		fn = s->name;
	} else if (w && w->n && w->fn[w->n - 1]) {
		fn = w->fn[w->n - 1]->name;
	}
	c->sum.wakes++;
	if (strcmp(fn, "-"))
		c->sum.wakes_attributed++;
	else if (!w)
		c->sum.wakes_untraced++;
	else
		c->sum.wakes_no_call++;
	if (!ev->tid)		/* an interrupt on an idle CPU */
		snprintf(comm, sizeof(comm), "swapper/%d", ev->cpu);
	else if (c->info)
		c->info(c->info_priv, ev->tid, &pid, comm, sizeof(comm));
	/* One line, as threads.tsv writes names: control characters as '?'. */
	for (i = 0; comm[i]; i++)
		if ((unsigned char)comm[i] < 0x20 || comm[i] == 0x7f)
			comm[i] = '?';
	return ng_outfile_printf(&c->sched, "%" PRIu64 "\twake\t%d\t%d\t%s\t%s\t%s\n",
				 ns, ev->wakee, ev->tid, comm[0] ? comm : "-",
				 ctx[ev->ctx & NG_RAW_CTX_NMI ? 4 : ev->ctx & 3], fn);
}

/*
 * The start of a line of table @name (opened at its first line) about
 * the call of thread @ev->tid at @ev->depth whose counter is
 * @ev->counter: "NS TID DEPTH FUNCTION", tab-separated, no newline.
 * counters.tsv, args.tsv and retval.tsv start so (trace-format.md).
 */
static int call_line(struct ng_conv *c, struct ng_outfile *f, bool *open,
		     const char *name, const struct ng_event *ev)
{
	const struct sym *s;
	int ret;

	ret = table_open(c, f, open, name);
	if (ret)
		return ret;
	s = conv_sym_get(c, ev->ip);
	if (!s)
		return c->err;
	return ng_outfile_printf(f, "%" PRIu64 "\t%d\t%u\t%s",
				 ng_clock_ns(&c->clock, ev->counter),
				 event_thread(ev), ev->depth, s->name);
}

/*
 * A call's fault and context-switch counts, as a line of counters.tsv
 * (Documentation/trace-format.md): the call of thread @ev->tid at
 * @ev->depth that returned at @ev->counter, by its exit's nanoseconds.
 */
int conv_on_counters(struct ng_conv *c, const struct ng_event *ev)
{
	int ret = call_line(c, &c->counters, &c->counters_open, "counters", ev);

	if (ret)
		return ret;
	c->sum.counters++;
	return ng_outfile_printf(&c->counters, "\t%u\t%u\t%u\t%u\n",
				 ev->counts[NG_COUNT_MINFLT],
				 ev->counts[NG_COUNT_MAJFLT],
				 ev->counts[NG_COUNT_NVCSW],
				 ev->counts[NG_COUNT_NIVCSW]);
}

/*
 * Where a call returns to, as "function+0xoff" (or the bare address
 * when no symbol covers it), for args.tsv.
 */
static void site_text(const struct ng_conv *c, uint64_t addr, char *buf,
		      size_t size)
{
	const struct ng_sym *ks = c->syms ? ng_syms_lookup(c->syms, addr) : NULL;

	if (!addr)
		snprintf(buf, size, "-");
	else if (ks)
		snprintf(buf, size, "%s+0x%" PRIx64, ks->name, addr - ks->addr);
	else
		snprintf(buf, size, "0x%" PRIx64, addr);
}

/*
 * A call's entry values, as a line of args.tsv (Documentation/
 * trace-format.md): the call of thread @ev->tid at @ev->depth entered at
 * @ev->counter, its call site and its argument registers in hex.
 */
int conv_on_args(struct ng_conv *c, const struct ng_event *ev)
{
	int ret = call_line(c, &c->args, &c->args_open, "args", ev);
	char site[160];
	unsigned int i;

	if (ret)
		return ret;
	site_text(c, ev->site, site, sizeof(site));
	c->sum.args++;
	ret = ng_outfile_printf(&c->args, "\t%s", site);
	for (i = 0; i < ev->nargs && i < NG_ARGS_MAX && !ret; i++)
		ret = ng_outfile_printf(&c->args, "\t0x%" PRIx64, ev->args[i]);
	return ret ?: ng_outfile_printf(&c->args, "\n");
}

/*
 * A call's return register, as a line of retval.tsv: the call of thread
 * @ev->tid at @ev->depth that returned at @ev->counter, by its exit's
 * nanoseconds, as counters.tsv's lines.
 */
int conv_on_retval(struct ng_conv *c, const struct ng_event *ev)
{
	int ret = call_line(c, &c->retvals, &c->retvals_open, "retval", ev);

	if (ret)
		return ret;
	c->sum.retvals++;
	return ng_outfile_printf(&c->retvals, "\t0x%" PRIx64 "\n", ev->retval);
}

/* Each table's file and whether it is open, for the two loops below. */
static void tables(struct ng_conv *c, struct ng_outfile **f, bool **open)
{
	f[0] = &c->sched, open[0] = &c->sched_open;
	f[1] = &c->counters, open[1] = &c->counters_open;
	f[2] = &c->args, open[2] = &c->args_open;
	f[3] = &c->retvals, open[3] = &c->retvals_open;
}

/* Under their final names, in order; the first error stops it. */
int conv_tables_commit(struct ng_conv *c)
{
	struct ng_outfile *f[4];
	bool *open[4];
	int i, ret = 0;

	tables(c, f, open);
	for (i = 0; i < 4 && !ret; i++) {
		if (!*open[i])
			continue;
		*open[i] = false;
		ret = ng_outfile_commit(f[i]);
	}
	return ret;
}

/* Every table still open removed: nothing under a final name. */
void conv_tables_abort(struct ng_conv *c)
{
	struct ng_outfile *f[4];
	bool *open[4];
	int i;

	tables(c, f, open);
	for (i = 0; i < 4; i++)
		if (*open[i])
			ng_outfile_abort(f[i]);
}
