// SPDX-License-Identifier: GPL-2.0
/*
 * ngbpf: BPF fentry programs on kernel functions, for the coexistence
 * tests (74-direct-path): a program BPF attaches through its own
 * trampoline, a direct call of ftrace's, as bpftrace's fentry probes do;
 * and, for make bench, an fentry and an fexit program on each of a list
 * of functions, the BPF trampoline's cost per call in the same boot as
 * the tracers'.  Built without clang: the program is ten instructions
 * that count the calls in an array map.
 *
 *   ngbpf fentry FUNC SECONDS
 *   ngbpf pair SECONDS FUNC...
 *
 * Attaches, prints "attached" (or "attach: ERRNO-NAME" and exits 2),
 * holds the programs SECONDS or until SIGTERM or SIGINT, then prints
 * "hits N", the programs' runs, and exits 0.  Other failures print a
 * message and exit 1.  pair passes over a function BPF cannot attach to
 * (not in BTF, or refused), naming it on stderr; none attached is a
 * failure.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })

static volatile sig_atomic_t done;

static void stop(int sig)
{
	(void)sig;
	done = 1;
}

static const char *errname(int e)
{
	switch (e) {
	case EBUSY: return "EBUSY";
	case EINVAL: return "EINVAL";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	default: return strerror(e);
	}
}

/* Count the runs in @map's one element: fentry or fexit on BTF's @id. */
static int prog_load(int map, int id, enum bpf_attach_type type)
{
	static char log[65536];
	struct bpf_insn insns[] = {
		/* *(u32 *)(fp - 4) = 0: the key */
		INSN(BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, -4, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4),
		/* r1 = the map (a 16-byte load of its fd) */
		INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, map),
		INSN(0, 0, 0, 0, 0),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
		/* if (r0) lock *(u64 *)r0 += 1 */
		INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 2, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, 1),
		INSN(BPF_STX | BPF_DW | BPF_ATOMIC, BPF_REG_0, BPF_REG_1, 0, BPF_ADD),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = type,
		    .attach_btf_id = id,
		    .log_buf = log, .log_size = sizeof(log), .log_level = 1);
	int prog = bpf_prog_load(BPF_PROG_TYPE_TRACING, "ng_count", "GPL", insns,
				 sizeof(insns) / sizeof(insns[0]), &opts);

	if (prog < 0)
		fprintf(stderr, "ngbpf: load: %s\n%s\n", strerror(errno), log);
	return prog;
}

/*
 * A program on @func, attached as libbpf attaches fentry and fexit: a
 * BPF link (the raw tracepoint open that also did on 6.x is EINVAL on
 * 7.x).  The link's fd, -1 with errno if it is refused, -2 for any other
 * failure (said on stderr).
 */
static int prog_attach(const struct btf *vmlinux, int map, const char *func,
		       enum bpf_attach_type type)
{
	int id = btf__find_by_name_kind(vmlinux, func, BTF_KIND_FUNC);
	int prog, link;

	if (id < 0) {
		fprintf(stderr, "ngbpf: %s not in vmlinux BTF\n", func);
		return -2;
	}
	prog = prog_load(map, id, type);
	if (prog < 0)
		return -2;
	link = bpf_link_create(prog, 0, type, NULL);
	if (link < 0 && errno == EINVAL)
		link = bpf_raw_tracepoint_open(NULL, prog);
	return link < 0 ? -1 : link;
}

int main(int argc, char **argv)
{
	unsigned int key = 0, attached = 0;
	unsigned long long hits = 0;
	struct btf *vmlinux;
	int i, map, link;
	bool pair;

	pair = argc >= 4 && !strcmp(argv[1], "pair");
	if (!pair && (argc != 4 || strcmp(argv[1], "fentry"))) {
		fprintf(stderr, "usage: ngbpf fentry FUNC SECONDS\n"
			"       ngbpf pair SECONDS FUNC...\n");
		return 1;
	}
	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux) {
		fprintf(stderr, "ngbpf: no vmlinux BTF: %s\n", strerror(errno));
		return 1;
	}
	map = bpf_map_create(BPF_MAP_TYPE_ARRAY, "ng_hits", 4, 8, 1, NULL);
	if (map < 0) {
		fprintf(stderr, "ngbpf: map: %s\n", strerror(errno));
		return 1;
	}
	if (!pair) {
		link = prog_attach(vmlinux, map, argv[2], BPF_TRACE_FENTRY);
		if (link == -1) {
			printf("attach: %s\n", errname(errno));
			return 2;
		}
		if (link < 0)
			return 1;
	}
	for (i = 3; pair && i < argc; i++) {
		/* Both or neither: a pair a call, so that hits / 2 are calls. */
		link = prog_attach(vmlinux, map, argv[i], BPF_TRACE_FENTRY);
		if (link >= 0) {
			int exit_link = prog_attach(vmlinux, map, argv[i], BPF_TRACE_FEXIT);

			if (exit_link < 0)
				close(link);
			link = exit_link;
		}
		if (link == -1)
			fprintf(stderr, "ngbpf: %s: attach: %s\n", argv[i], errname(errno));
		attached += link >= 0;
	}
	if (pair && !attached) {
		printf("attach: none\n");
		return 2;
	}
	signal(SIGTERM, stop);
	signal(SIGINT, stop);
	signal(SIGALRM, stop);
	alarm(atoi(argv[pair ? 2 : 3]));
	printf("attached\n");
	fflush(stdout);
	while (!done)
		pause();
	if (bpf_map_lookup_elem(map, &key, &hits)) {
		fprintf(stderr, "ngbpf: lookup: %s\n", strerror(errno));
		return 1;
	}
	printf("hits %llu\n", hits);
	return 0;
}
