// SPDX-License-Identifier: GPL-2.0
/*
 * ngbpf: a BPF fentry program on one kernel function, for the
 * coexistence tests (74-direct-path): a program BPF attaches through its
 * own trampoline, a direct call of ftrace's, as bpftrace's fentry probes
 * do.  Built without clang: the program is ten instructions that count
 * the function's calls in an array map.
 *
 *   ngbpf fentry FUNC SECONDS
 *
 * Attaches, prints "attached" (or "attach: ERRNO-NAME" and exits 2),
 * holds the program SECONDS or until SIGTERM or SIGINT, then prints
 * "hits N" and exits 0.  Other failures print a message and exit 1.
 */
#include <errno.h>
#include <signal.h>
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

int main(int argc, char **argv)
{
	static char log[65536];
	unsigned int key = 0;
	unsigned long long hits = 0;
	struct btf *vmlinux;
	int id, map, prog, link;

	if (argc != 4 || strcmp(argv[1], "fentry")) {
		fprintf(stderr, "usage: ngbpf fentry FUNC SECONDS\n");
		return 1;
	}
	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux) {
		fprintf(stderr, "ngbpf: no vmlinux BTF: %s\n", strerror(errno));
		return 1;
	}
	id = btf__find_by_name_kind(vmlinux, argv[2], BTF_KIND_FUNC);
	if (id < 0) {
		fprintf(stderr, "ngbpf: %s not in vmlinux BTF\n", argv[2]);
		return 1;
	}
	map = bpf_map_create(BPF_MAP_TYPE_ARRAY, "ng_hits", 4, 8, 1, NULL);
	if (map < 0) {
		fprintf(stderr, "ngbpf: map: %s\n", strerror(errno));
		return 1;
	}
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
		    .expected_attach_type = BPF_TRACE_FENTRY,
		    .attach_btf_id = id,
		    .log_buf = log, .log_size = sizeof(log), .log_level = 1);
	prog = bpf_prog_load(BPF_PROG_TYPE_TRACING, "ng_fentry", "GPL", insns,
			     sizeof(insns) / sizeof(insns[0]), &opts);
	if (prog < 0) {
		fprintf(stderr, "ngbpf: load: %s\n%s\n", strerror(errno), log);
		return 1;
	}
	/*
	 * A BPF link, as libbpf attaches fentry; the raw tracepoint open
	 * that also did on 6.x is EINVAL on 7.x.
	 */
	link = bpf_link_create(prog, 0, BPF_TRACE_FENTRY, NULL);
	if (link < 0 && errno == EINVAL)
		link = bpf_raw_tracepoint_open(NULL, prog);
	if (link < 0) {
		printf("attach: %s\n", errname(errno));
		return 2;
	}
	signal(SIGTERM, stop);
	signal(SIGINT, stop);
	signal(SIGALRM, stop);
	alarm(atoi(argv[3]));
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
