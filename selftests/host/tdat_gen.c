// SPDX-License-Identifier: GPL-2.0
/*
 * tdat_gen.c - a trace.dat writer for the host tests (tdat_gen.h).
 *
 * The layout is trace-cmd's file version 6 (trace-cmd.dat(5)): magic,
 * version, endianness, long size, page size; header_page and
 * header_event; the ftrace and event formats; kallsyms; printk formats;
 * saved cmdlines; the CPU count; options; "flyrecord" and each CPU's
 * offset and size; then each CPU's ring-buffer pages, page aligned. A
 * page is a u64 timestamp, a u64 commit (bytes of data) and the events,
 * each a u32 header (type_len in the low 5 bits: the data length in
 * words; the time delta from the previous event in the other 27) and
 * the event's data: the common fields (type, flags, preempt count, pid)
 * and the nanograph fields, laid out as the formats below say. Little
 * endian, 64-bit, as on the hosts the tests run on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdat_gen.h"

#define PAGE		4096
#define PAGE_DATA	(PAGE - 16)
#define DELTA_MAX	((1U << 27) - 1)
#define ID_ENTRY	1001
#define ID_EXIT		1002
#define ID_CLOCK	1003
#define ID_CALL		1004
#define ID_OPEN		1005
#define ID_SCHED_OUT	1006
#define ID_SCHED_IN	1007
#define ID_SCHED_WAKE	1008

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";

static const char header_event[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

#define COMMON \
	"format:\n" \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

#define FUNC_FIELDS \
	"\tfield:u64 tsd;\toffset:8;\tsize:8;\tsigned:0;\n" \
	"\tfield:unsigned long ip;\toffset:16;\tsize:8;\tsigned:0;\n\n" \
	"print fmt: \"ip=%lx tsd=%llu\", REC->ip, REC->tsd\n"

static const char *const formats[] = {
	"name: func_entry\nID: 1001\n" COMMON FUNC_FIELDS,
	"name: func_exit\nID: 1002\n" COMMON FUNC_FIELDS,
	"name: clock_sync\nID: 1003\n" COMMON
	"\tfield:u64 counter;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 mono_ns;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 freq;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 uncertainty;\toffset:32;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"counter=%llu\", REC->counter\n",
	"name: func_call\nID: 1004\n" COMMON
	"\tfield:u64 tsd;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long ip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 exit;\toffset:24;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"ip=%lx tsd=%llu exit=%llu\", REC->ip, REC->tsd, REC->exit\n",
	"name: func_open\nID: 1005\n" COMMON
	"\tfield:u64 tsd;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long ip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:int pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int cpu;\toffset:28;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"ip=%lx tsd=%llu pid=%d cpu=%d\", REC->ip, REC->tsd, REC->pid, REC->cpu\n",
	"name: sched_out\nID: 1006\n" COMMON
	"\tfield:u64 counter;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:int pid;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int state;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned char preempted;\toffset:24;\tsize:1;\tsigned:0;\n\n"
	"print fmt: \"pid=%d state=%u\", REC->pid, REC->state\n",
	"name: sched_in\nID: 1007\n" COMMON
	"\tfield:u64 counter;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:int pid;\toffset:16;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"pid=%d\", REC->pid\n",
	"name: sched_wake\nID: 1008\n" COMMON
	"\tfield:u64 counter;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long ip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:int pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int ctx;\toffset:28;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"pid=%d ctx=%u\", REC->pid, REC->ctx\n",
};

const char *t_tdat_format(const char *name)
{
	size_t i, len = strlen(name);

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strncmp(formats[i] + 6, name, len) &&
		    formats[i][6 + len] == '\n')
			return formats[i];
	return NULL;
}

struct cpu_pages {
	FILE *spill;			/* whole pages, in order */
	unsigned long pages;
	unsigned char page[PAGE];
	size_t used;			/* bytes of data in page */
	uint64_t last_ts;
};

struct t_tdat {
	FILE *out;
	int nr_cpus;
	struct cpu_pages *cpus;
	int err;
};

static void put(struct t_tdat *t, const void *p, size_t n)
{
	if (fwrite(p, 1, n, t->out) != n)
		t->err = -1;
}

static void put4(struct t_tdat *t, uint32_t v)
{
	put(t, &v, 4);
}

static void put8(struct t_tdat *t, uint64_t v)
{
	put(t, &v, 8);
}

/* A section with a size before it: 8 bytes of size, or 4 with @small. */
static void put_sized(struct t_tdat *t, const char *s, int small)
{
	if (small)
		put4(t, strlen(s));
	else
		put8(t, strlen(s));
	put(t, s, strlen(s));
}

struct t_tdat *t_tdat_open(const char *path, int cpus, const char *kallsyms,
			   const char *cmdlines)
{
	struct t_tdat *t = calloc(1, sizeof(*t));
	size_t i;
	int cpu;

	if (!t)
		return NULL;
	t->out = fopen(path, "w+");
	t->nr_cpus = cpus;
	t->cpus = calloc(cpus, sizeof(*t->cpus));
	if (!t->out || !t->cpus)
		t->err = -1;
	for (cpu = 0; !t->err && cpu < cpus; cpu++) {
		t->cpus[cpu].spill = tmpfile();
		if (!t->cpus[cpu].spill)
			t->err = -1;
	}
	if (t->err)
		return t;
	put(t, "\027\010\104tracing6", 11);
	put(t, "", 1);			/* the version string's NUL */
	put(t, "\0\010", 2);		/* little endian, 8-byte long */
	put4(t, PAGE);
	put(t, "header_page", 12);
	put_sized(t, header_page, 0);
	put(t, "header_event", 13);
	put_sized(t, header_event, 0);
	put4(t, 0);			/* ftrace formats */
	put4(t, 1);			/* event systems */
	put(t, "nanograph", 10);
	put4(t, sizeof(formats) / sizeof(formats[0]));
	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		put_sized(t, formats[i], 0);
	put_sized(t, kallsyms, 1);
	put4(t, 0);			/* printk formats */
	put_sized(t, cmdlines, 0);
	put4(t, cpus);
	put(t, "options  ", 10);
	put(t, "\0", 2);		/* option 0: the end */
	return t;
}

/* Finish @c's page: it goes to the spill file, whole. */
static void flush_page(struct t_tdat *t, struct cpu_pages *c)
{
	uint64_t commit = c->used;

	if (!c->used)
		return;
	memcpy(c->page + 8, &commit, 8);
	memset(c->page + 16 + c->used, 0, PAGE_DATA - c->used);
	if (fwrite(c->page, 1, PAGE, c->spill) != PAGE)
		t->err = -1;
	c->pages++;
	c->used = 0;
}

/* One event of @len bytes (a multiple of 4, at most 112) on @cpu at @ts. */
static void event(struct t_tdat *t, int cpu, uint64_t ts, const void *data,
		  size_t len)
{
	struct cpu_pages *c = &t->cpus[cpu];
	uint64_t delta = c->used ? ts - c->last_ts : 0;
	uint32_t hdr;

	if (t->err || cpu < 0 || cpu >= t->nr_cpus) {
		t->err = -1;
		return;
	}
	if (c->used && (delta > DELTA_MAX || c->used + 4 + len > PAGE_DATA)) {
		flush_page(t, c);
		delta = 0;
	}
	if (!c->used)
		memcpy(c->page, &ts, 8);
	hdr = (uint32_t)(len / 4) | (uint32_t)delta << 5;
	memcpy(c->page + 16 + c->used, &hdr, 4);
	memcpy(c->page + 16 + c->used + 4, data, len);
	c->used += 4 + len;
	c->last_ts = ts;
}

/* An event of @id: the common fields, then tsd and ip, then @more. */
static void func(struct t_tdat *t, uint16_t id, int cpu, int pid, uint64_t ts,
		 uint64_t counter, unsigned int depth, uint64_t ip,
		 const void *more, size_t more_len)
{
	unsigned char d[32] = { 0 };
	uint64_t tsd = (counter & ((1ULL << 56) - 1)) | (uint64_t)depth << 56;
	int32_t p = pid;

	memcpy(d, &id, 2);
	memcpy(d + 4, &p, 4);
	memcpy(d + 8, &tsd, 8);
	memcpy(d + 16, &ip, 8);
	if (more_len)
		memcpy(d + 24, more, more_len);
	event(t, cpu, ts, d, 24 + more_len);
}

void t_tdat_entry(struct t_tdat *t, int cpu, int pid, uint64_t ts,
		  uint64_t counter, unsigned int depth, uint64_t ip)
{
	func(t, ID_ENTRY, cpu, pid, ts, counter, depth, ip, NULL, 0);
}

void t_tdat_exit(struct t_tdat *t, int cpu, int pid, uint64_t ts,
		 uint64_t counter, unsigned int depth, uint64_t ip)
{
	func(t, ID_EXIT, cpu, pid, ts, counter, depth, ip, NULL, 0);
}

void t_tdat_call(struct t_tdat *t, int cpu, int pid, uint64_t ts,
		 uint64_t entry_counter, unsigned int depth, uint64_t ip,
		 uint64_t exit_counter)
{
	func(t, ID_CALL, cpu, pid, ts, entry_counter, depth, ip,
	     &exit_counter, 8);
}

void t_tdat_open_call(struct t_tdat *t, int cpu, uint64_t ts,
		      uint64_t counter, unsigned int depth, uint64_t ip,
		      int pid, int frame_cpu)
{
	int32_t more[2] = { pid, frame_cpu };

	func(t, ID_OPEN, cpu, T_TDAT_OPEN_WRITER, ts, counter, depth, ip,
	     more, sizeof(more));
}

/* A scheduling event of @id written by @writer: counter, then @more. */
static void sched(struct t_tdat *t, uint16_t id, int cpu, int writer,
		  uint64_t ts, uint64_t counter, const void *more,
		  size_t more_len)
{
	unsigned char d[32] = { 0 };
	int32_t p = writer;

	memcpy(d, &id, 2);
	memcpy(d + 4, &p, 4);
	memcpy(d + 8, &counter, 8);
	memcpy(d + 16, more, more_len);
	event(t, cpu, ts, d, 16 + (more_len + 7) / 8 * 8);
}

void t_tdat_sched_out(struct t_tdat *t, int cpu, int pid, uint64_t ts,
		      uint64_t counter, unsigned int state, int preempted)
{
	unsigned char more[16] = { 0 };
	int32_t p = pid;

	memcpy(more, &p, 4);
	memcpy(more + 4, &state, 4);
	more[8] = (unsigned char)preempted;
	sched(t, ID_SCHED_OUT, cpu, pid, ts, counter, more, 9);
}

void t_tdat_sched_in(struct t_tdat *t, int cpu, int writer, int pid,
		     uint64_t ts, uint64_t counter)
{
	int32_t p = pid;

	sched(t, ID_SCHED_IN, cpu, writer, ts, counter, &p, 4);
}

void t_tdat_sched_wake(struct t_tdat *t, int cpu, int waker, int pid,
		       uint64_t ts, uint64_t counter, unsigned int ctx,
		       uint64_t ip)
{
	unsigned char more[16];
	int32_t p = pid;

	memcpy(more, &ip, 8);
	memcpy(more + 8, &p, 4);
	memcpy(more + 12, &ctx, 4);
	sched(t, ID_SCHED_WAKE, cpu, waker, ts, counter, more, 16);
}

void t_tdat_clock(struct t_tdat *t, int cpu, uint64_t ts, uint64_t counter,
		  uint64_t mono_ns, uint64_t freq)
{
	unsigned char d[40] = { 0 };
	uint16_t id = ID_CLOCK;

	memcpy(d, &id, 2);
	memcpy(d + 8, &counter, 8);
	memcpy(d + 16, &mono_ns, 8);
	memcpy(d + 24, &freq, 8);
	event(t, cpu, ts, d, sizeof(d));
}

int t_tdat_close(struct t_tdat *t)
{
	unsigned char page[PAGE];
	uint64_t off;
	long pos;
	int cpu, ret;

	for (cpu = 0; !t->err && cpu < t->nr_cpus; cpu++)
		flush_page(t, &t->cpus[cpu]);
	if (!t->err) {
		put(t, "flyrecord", 10);
		pos = ftell(t->out) + 16L * t->nr_cpus;
		off = (pos + PAGE - 1) / PAGE * PAGE;
		for (cpu = 0; cpu < t->nr_cpus; cpu++) {
			put8(t, off);
			put8(t, (uint64_t)t->cpus[cpu].pages * PAGE);
			off += (uint64_t)t->cpus[cpu].pages * PAGE;
		}
		memset(page, 0, sizeof(page));
		put(t, page, (PAGE - pos % PAGE) % PAGE);
	}
	for (cpu = 0; !t->err && cpu < t->nr_cpus; cpu++) {
		FILE *s = t->cpus[cpu].spill;

		rewind(s);
		while (fread(page, 1, PAGE, s) == PAGE)
			put(t, page, PAGE);
	}
	for (cpu = 0; t->cpus && cpu < t->nr_cpus; cpu++)
		if (t->cpus[cpu].spill)
			fclose(t->cpus[cpu].spill);
	ret = t->err;
	if (t->out && fclose(t->out))
		ret = -1;
	free(t->cpus);
	free(t);
	return ret;
}
