// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin for tools/profile.sh: how many guest instructions
 * each translation block ran, by the block's guest address.
 *
 * Loaded with "-plugin tbcount.so,dir=DIR".  Every block translated gets
 * a counter that the generated code bumps inline each time the block
 * runs; a thread polls DIR: a file named "reset" there zeroes every
 * counter, one named "dump" writes "ADDR INSNS RUNS" lines of the blocks
 * that ran to DIR/tb.txt (through DIR/tb.txt.tmp, so a reader never sees
 * half of it) and is removed.  Counting is approximate by design: the
 * inline add is not atomic across vCPUs, and a reset races with running
 * blocks; a profile runs for millions of blocks.
 *
 * QEMU's plugin API, version 1 (QEMU 7.2, bookworm's), is declared here
 * rather than taken from qemu-plugin.h, which Debian does not package:
 * only the calls this plugin makes.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_info_t;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* One per translation (a block translated again gets another). */
struct tb_count {
	uint64_t vaddr;
	uint64_t insns;
	uint64_t runs;
	struct tb_count *next;
};

static struct tb_count *counts;
static pthread_mutex_t counts_lock = PTHREAD_MUTEX_INITIALIZER;
static char dir[4096];

/* Called as each block is translated: give it a counter. */
static void tb_translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	struct tb_count *c = calloc(1, sizeof(*c));

	(void)id;
	if (!c)
		return;
	c->vaddr = qemu_plugin_tb_vaddr(tb);
	c->insns = qemu_plugin_tb_n_insns(tb);
	pthread_mutex_lock(&counts_lock);
	c->next = counts;
	counts = c;
	pthread_mutex_unlock(&counts_lock);
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &c->runs, 1);
}

/* Is DIR/NAME there?  Then remove it and say so. */
static bool take(const char *name)
{
	char path[sizeof(dir) + 16];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return unlink(path) == 0;
}

static void dump(void)
{
	char tmp[sizeof(dir) + 16], path[sizeof(dir) + 16];
	struct tb_count *c;
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s/tb.txt.tmp", dir);
	snprintf(path, sizeof(path), "%s/tb.txt", dir);
	f = fopen(tmp, "w");
	if (!f)
		return;
	pthread_mutex_lock(&counts_lock);
	for (c = counts; c; c = c->next)
		if (c->runs)
			fprintf(f, "%016llx %llu %llu\n",
				(unsigned long long)c->vaddr,
				(unsigned long long)c->insns,
				(unsigned long long)c->runs);
	pthread_mutex_unlock(&counts_lock);
	if (fclose(f) == 0)
		rename(tmp, path);
}

static void *poll_dir(void *arg)
{
	struct tb_count *c;

	(void)arg;
	for (;;) {
		usleep(100000);
		if (take("reset")) {
			pthread_mutex_lock(&counts_lock);
			for (c = counts; c; c = c->next)
				c->runs = 0;
			pthread_mutex_unlock(&counts_lock);
		}
		if (take("dump"))
			dump();
	}
	return NULL;
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const struct qemu_info_t *info,
			int argc, char **argv)
{
	pthread_t t;
	int i;

	(void)info;
	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "dir=", 4))
			snprintf(dir, sizeof(dir), "%s", argv[i] + 4);
	if (!dir[0]) {
		fprintf(stderr, "tbcount: no dir=DIR argument\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_translated);
	return pthread_create(&t, NULL, poll_dir, NULL) ? -1 : 0;
}
