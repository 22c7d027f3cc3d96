// SPDX-License-Identifier: GPL-2.0
/*
 * test_syms.c - the kallsyms table: which lines it keeps, which name an
 * address gets (aliases, padding symbols, modules), what it does with
 * lines that do not parse, and that it reads real files, FIFOs and this
 * machine's /proc/kallsyms.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nanograph.h"
#include "ktap.h"

/* Where the generated tables start, and their spacing. */
#define BASE	UINT64_C(0xffffffff81000000)
#define STEP	UINT64_C(16)

/*
 * Parse @len bytes of @text from a heap copy of exactly that size, which
 * is overwritten and freed before returning: ASan then catches any read
 * past the end, and any later use of the caller's buffer by the table.
 */
static int parse_n(struct ng_syms **sp, const char *text, size_t len)
{
	char *copy = malloc(len ? len : 1);
	int ret;

	if (!copy)
		return -ENOMEM;
	memcpy(copy, text, len);
	ret = ng_syms_parse(sp, copy, len);
	memset(copy, 'x', len);
	free(copy);
	return ret;
}

static int parse(struct ng_syms **sp, const char *text)
{
	return parse_n(sp, text, strlen(text));
}

/* @addr resolves to @name of @module (NULL: the core kernel) at @start. */
static bool sym_is(const struct ng_syms *s, uint64_t addr, uint64_t start,
		   const char *name, const char *module)
{
	const struct ng_sym *y = ng_syms_lookup(s, addr);

	if (y && y->addr == start && !strcmp(y->name, name) &&
	    (module ? y->module && !strcmp(y->module, module) : !y->module))
		return true;
	t_diag("  lookup(%#" PRIx64 "): got %s [%s] at %#" PRIx64
	       ", want %s [%s] at %#" PRIx64, addr, y ? y->name : "(none)",
	       y && y->module ? y->module : "", y ? y->addr : 0, name,
	       module ? module : "", start);
	return false;
}

#define T_SYM(s, addr, start, name, module) \
	T_ASSERT(sym_is(s, addr, start, name, module))

static void test_core_and_module(void)
{
	struct ng_syms *s;

	T_EQ_INT(parse(&s,
		       "ffffffff81000000 T _stext\n"
		       "ffffffff81001000 T vfs_read\n"
		       "ffffffff81002000 t rw_verify_area\n"
		       "ffffffffc0a01000 t nf_hook_slow\t[nf_tables]\n"
		       "ffffffffc0a02000 T nft_do_chain\t[nf_tables]\n"
		       "ffffffffc0b00000 t ext4_lookup\t[ext4]\n"), 0);
	T_EQ_U64(ng_syms_count(s), 6);
	T_SYM(s, 0xffffffff81000000, 0xffffffff81000000, "_stext", NULL);
	T_SYM(s, 0xffffffff81001000, 0xffffffff81001000, "vfs_read", NULL);
	T_SYM(s, 0xffffffff81002004, 0xffffffff81002000, "rw_verify_area",
	      NULL);
	T_SYM(s, 0xffffffffc0a01000, 0xffffffffc0a01000, "nf_hook_slow",
	      "nf_tables");
	T_SYM(s, 0xffffffffc0a02fff, 0xffffffffc0a02000, "nft_do_chain",
	      "nf_tables");
	T_SYM(s, 0xffffffffc0b00010, 0xffffffffc0b00000, "ext4_lookup",
	      "ext4");
	ng_syms_free(s);
}

/* Data, rodata, bss, absolute...: only t, T, w and W name code. */
static void test_non_text_ignored(void)
{
	struct ng_syms *s;

	T_EQ_INT(parse(&s,
		       "ffffffff81000000 T func_a\n"
		       "ffffffff81000800 d local_data\n"
		       "ffffffff81000900 D global_data\n"
		       "ffffffff81000a00 b local_bss\n"
		       "ffffffff81000b00 B global_bss\n"
		       "ffffffff81000c00 r local_rodata\n"
		       "ffffffff81000d00 R global_rodata\n"
		       "ffffffff81000e00 A absolute\n"
		       "ffffffff81000e80 V weak_object\n"
		       "ffffffff81000f00 u unique\n"
		       "ffffffff81001000 w weak_local_func\n"
		       "ffffffff81002000 W weak_func\n"
		       "ffffffffc0001000 d mod_data\t[nf_tables]\n"
		       "ffffffffc0002000 t mod_func\t[nf_tables]\n"), 0);
	T_EQ_U64(ng_syms_count(s), 4);
	T_SYM(s, 0xffffffff81000900, 0xffffffff81000000, "func_a", NULL);
	T_SYM(s, 0xffffffff81000f00, 0xffffffff81000000, "func_a", NULL);
	T_SYM(s, 0xffffffff81001000, 0xffffffff81001000, "weak_local_func",
	      NULL);
	T_SYM(s, 0xffffffff81002000, 0xffffffff81002000, "weak_func", NULL);
	T_SYM(s, 0xffffffffc0001000, 0xffffffff81002000, "weak_func", NULL);
	T_SYM(s, 0xffffffffc0002000, 0xffffffffc0002000, "mod_func",
	      "nf_tables");
	ng_syms_free(s);
}

/* One name per address: global before local, then the first line. */
static void test_aliases(void)
{
	struct ng_syms *s;

	T_EQ_INT(parse(&s,
		       "ffffffff81000000 t local_first\n"
		       "ffffffff81000000 T global_a\n"
		       "ffffffff81000000 T global_b\n"
		       "ffffffff81000000 W weak_later\n"
		       "ffffffff82000000 t local_x\n"
		       "ffffffff82000000 w local_y\n"
		       "ffffffff83000000 w weak_local\n"
		       "ffffffff83000000 W weak_global\n"
		       "ffffffff84000000 t cold_local\n"
		       "ffffffff85000000 T between\n"
		       "ffffffff84000000 T late_global\n"
		       "ffffffff84000000 T later_global\n"), 0);
	T_EQ_U64(ng_syms_count(s), 5);
	T_SYM(s, 0xffffffff81000000, 0xffffffff81000000, "global_a", NULL);
	T_SYM(s, 0xffffffff81000010, 0xffffffff81000000, "global_a", NULL);
	T_SYM(s, 0xffffffff82000000, 0xffffffff82000000, "local_x", NULL);
	T_SYM(s, 0xffffffff83000000, 0xffffffff83000000, "weak_global", NULL);
	T_SYM(s, 0xffffffff84000000, 0xffffffff84000000, "late_global", NULL);
	T_SYM(s, 0xffffffff85000000, 0xffffffff85000000, "between", NULL);
	ng_syms_free(s);
}

/*
 * The same with many aliases interleaved: the choice must not depend on
 * how the sort happens to move equal keys (glibc's qsort is not always
 * stable, musl's never is).
 */
static void test_many_aliases(void)
{
	const unsigned int nr = 5000, addrs = 10;
	size_t cap = nr * 48, len = 0;
	char *text = malloc(cap), name[16];
	struct ng_syms *s;
	unsigned int i;

	T_ASSERT(text);
	/* Address i % 10; global when i % 7 == 3, so the first global is... */
	for (i = 0; i < nr; i++)
		len += snprintf(text + len, cap - len, "%016" PRIx64 " %c n%u\n",
				BASE + STEP * (i % addrs),
				i % 7 == 3 ? 'T' : 't', i);
	T_EQ_INT(parse_n(&s, text, len), 0);
	T_EQ_U64(ng_syms_count(s), addrs);
	for (i = 0; i < addrs; i++) {
		unsigned int first = i;

		/* ...the first i + 10k with (i + 10k) % 7 == 3. */
		while (first % 7 != 3)
			first += addrs;
		snprintf(name, sizeof(name), "n%u", first);
		T_SYM(s, BASE + STEP * i, BASE + STEP * i, name, NULL);
	}
	ng_syms_free(s);

	/* All local: the first line of each address. */
	for (i = 0, len = 0; i < nr; i++)
		len += snprintf(text + len, cap - len, "%016" PRIx64 " t n%u\n",
				BASE + STEP * (i % addrs), i);
	T_EQ_INT(parse_n(&s, text, len), 0);
	for (i = 0; i < addrs; i++) {
		snprintf(name, sizeof(name), "n%u", i);
		T_SYM(s, BASE + STEP * i, BASE + STEP * i, name, NULL);
	}
	ng_syms_free(s);
	free(text);
}

/*
 * __pfx_ and __cfi_ symbols fill the bytes before each function on 6.x
 * kernels: they never name anything, even at an address of their own.
 */
static void test_padding_dropped(void)
{
	struct ng_syms *s;

	T_EQ_INT(parse(&s,
		       "ffffffff80000000 T first\n"
		       "ffffffff81000fe0 t __cfi_foo\n"
		       "ffffffff81000ff0 t __pfx_foo\n"
		       "ffffffff81001000 T foo\n"
		       "ffffffff81001ff0 T __pfx_bar\n"
		       "ffffffff81002000 T bar\n"
		       "ffffffffc0000ff0 t __pfx_modfn\t[nf_tables]\n"
		       "ffffffffc0001000 t modfn\t[nf_tables]\n"
		       "ffffffffc0002000 t __pfx\n"
		       "ffffffffc0003000 t __pfx_\n"), 0);
	T_EQ_U64(ng_syms_count(s), 5);
	T_SYM(s, 0xffffffff81001000, 0xffffffff81001000, "foo", NULL);
	T_SYM(s, 0xffffffff81000ff0, 0xffffffff80000000, "first", NULL);
	T_SYM(s, 0xffffffff81000fff, 0xffffffff80000000, "first", NULL);
	T_SYM(s, 0xffffffff81001ff8, 0xffffffff81001000, "foo", NULL);
	T_SYM(s, 0xffffffff81002000, 0xffffffff81002000, "bar", NULL);
	T_SYM(s, 0xffffffffc0001000, 0xffffffffc0001000, "modfn",
	      "nf_tables");
	/* "__pfx" is not the prefix; "__pfx_" alone is padding of nothing. */
	T_SYM(s, 0xffffffffc0003000, 0xffffffffc0002000, "__pfx", NULL);
	ng_syms_free(s);

	/* Nothing but padding: nothing to name. */
	s = (void *)1;
	T_EQ_INT(parse(&s, "ffffffff81000ff0 t __pfx_foo\n"
			   "ffffffff81000fe0 t __cfi_foo\n"), -ENOENT);
	T_ASSERT(!s);
}

static void test_lookup_bounds(void)
{
	struct ng_syms *s;

	T_EQ_INT(parse(&s,
		       "ffffffff81000000 T a\n"
		       "ffffffff81000100 T b\n"
		       "ffffffff81000200 T c\n"), 0);
	T_ASSERT(!ng_syms_lookup(s, 0));
	T_ASSERT(!ng_syms_lookup(s, 0xffffffff80ffffff));
	T_SYM(s, 0xffffffff81000000, 0xffffffff81000000, "a", NULL);
	T_SYM(s, 0xffffffff810000ff, 0xffffffff81000000, "a", NULL);
	T_SYM(s, 0xffffffff81000100, 0xffffffff81000100, "b", NULL);
	T_SYM(s, 0xffffffff81000101, 0xffffffff81000100, "b", NULL);
	T_SYM(s, 0xffffffff81000200, 0xffffffff81000200, "c", NULL);
	T_SYM(s, 0xffffffff81000201, 0xffffffff81000200, "c", NULL);
	T_SYM(s, UINT64_MAX, 0xffffffff81000200, "c", NULL);
	ng_syms_free(s);

	/* One symbol, and no table at all. */
	T_EQ_INT(parse(&s, "1000 T only\n"), 0);
	T_EQ_U64(ng_syms_count(s), 1);
	T_ASSERT(!ng_syms_lookup(s, 0xfff));
	T_SYM(s, 0x1000, 0x1000, "only", NULL);
	T_SYM(s, UINT64_MAX, 0x1000, "only", NULL);
	ng_syms_free(s);
	T_ASSERT(!ng_syms_lookup(NULL, 0x1000));
	T_EQ_U64(ng_syms_count(NULL), 0);
	ng_syms_free(NULL);
}

/* What an unprivileged reader sees with kptr_restrict: -EPERM, no table. */
static void test_all_zero_is_eperm(void)
{
	struct ng_syms *s = (void *)1;

	T_EQ_INT(parse(&s,
		       "0000000000000000 T _stext\n"
		       "0000000000000000 t __pfx_vfs_read\n"
		       "0000000000000000 T vfs_read\n"
		       "0000000000000000 D jiffies\n"
		       "0000000000000000 t nf_hook_slow\t[nf_tables]\n"),
		 -EPERM);
	T_ASSERT(!s);
	/* A data symbol's address does not make the text readable. */
	T_EQ_INT(parse(&s,
		       "0000000000000000 T vfs_read\n"
		       "ffffffff82000000 D jiffies\n"), -EPERM);
	T_ASSERT(!s);
}

static void test_empty_is_enoent(void)
{
	struct ng_syms *s = (void *)1;

	T_EQ_INT(ng_syms_parse(&s, NULL, 0), -ENOENT);
	T_ASSERT(!s);
	T_EQ_INT(parse(&s, ""), -ENOENT);
	T_EQ_INT(parse(&s, "\n\n\n"), -ENOENT);
	T_EQ_INT(parse(&s, "ffffffff82000000 D jiffies\n"
			   "ffffffff82001000 b bss\t[nf_tables]\n"), -ENOENT);
	T_EQ_INT(parse(&s, "no symbols here\n"), -ENOENT);
	T_ASSERT(!s);
}

/* Every kind of broken line is skipped; the good ones around it are kept. */
static void test_malformed_lines_skipped(void)
{
	static const char text[] =
		"\n"
		"garbage\n"
		"ffffffff81000000\n"
		"ffffffff81000000 T\n"
		"ffffffff81000000 T\x20\n"
		"ffffffff81000000 Tx name\n"
		"ffffffff81000000  T two_spaces\n"
		" ffffffff81000000 T leading_space\n"
		"xyz T not_hex\n"
		"0x81000000 T prefixed\n"
		"1ffffffff81000000 T seventeen_digits\n"
		"ffffffff81000000\tT tab_separated\n"
		"ffffffff81000000 T name trailing junk\n"
		"ffffffff81000000 t mod_open\t[nf_tables\n"
		"ffffffff81000000 t mod_empty\t[]\n"
		"ffffffff81000000 t mod_junk\t[a]b\n"
		"ffffffff81000000 t mod_space\t[a b]\n"
		"ffffffff81000000 T nul\0byte\n"
		"ffffffff81000000 T \0nul_first\n"
		"ffffffff81000000 T ctrl\001char\n"
		"00000001 T short_addr\n"
		"ffffffff81001000 T good_one\n"
		"ffffffff81002000 t good_two\t[mod]\r\n"
		"FFFFFFFF81003000 T upper_hex\n"
		"ffffffff81003800 T trailing_blanks \t\n"
		"\r\n"
		"ffffffff81004000 T last_no_newline";
	struct ng_syms *s;

	T_EQ_INT(parse_n(&s, text, sizeof(text) - 1), 0);
	T_EQ_U64(ng_syms_count(s), 6);
	T_SYM(s, 0xffffffff81000000, 1, "short_addr", NULL);
	T_SYM(s, 0xffffffff81001000, 0xffffffff81001000, "good_one", NULL);
	T_SYM(s, 0xffffffff81002000, 0xffffffff81002000, "good_two", "mod");
	T_SYM(s, 0xffffffff81003000, 0xffffffff81003000, "upper_hex", NULL);
	T_SYM(s, 0xffffffff81003800, 0xffffffff81003800, "trailing_blanks",
	      NULL);
	T_SYM(s, 0xffffffff81004000, 0xffffffff81004000, "last_no_newline",
	      NULL);
	ng_syms_free(s);
}

/* The last line may end anywhere: after the name, the module, or inside. */
static void test_last_line_without_newline(void)
{
	static const char *const cut[] = {
		"ffffffff81001000 t b\t[m",
		"ffffffff81001000 t b\t[",
		"ffffffff81001000 t ",
		"ffffffff81001000 t",
		"ffffffff81001000 ",
		"ffffffff81001000",
		"ffff",
	};
	struct ng_syms *s;
	char buf[128];
	size_t i;

	T_EQ_INT(parse(&s, "ffffffff81000000 T a\nffffffff81001000 t b\t[m]"),
		 0);
	T_EQ_U64(ng_syms_count(s), 2);
	T_SYM(s, 0xffffffff81001000, 0xffffffff81001000, "b", "m");
	ng_syms_free(s);

	T_EQ_INT(parse(&s, "ffffffff81000000 T a\nffffffff81001000 t b\t"), 0);
	T_SYM(s, 0xffffffff81001000, 0xffffffff81001000, "b", NULL);
	ng_syms_free(s);

	T_EQ_INT(parse(&s, "ffffffff81000000 T a\nffffffff81001000 t b"), 0);
	T_SYM(s, 0xffffffff81001000, 0xffffffff81001000, "b", NULL);
	ng_syms_free(s);

	for (i = 0; i < sizeof(cut) / sizeof(cut[0]); i++) {
		snprintf(buf, sizeof(buf), "ffffffff81000000 T a\n%s", cut[i]);
		T_EQ_INT(parse(&s, buf), 0);
		T_EQ_U64(ng_syms_count(s), 1);
		T_SYM(s, 0xffffffff81001000, 0xffffffff81000000, "a", NULL);
		ng_syms_free(s);
	}
}

/* Long names are kept whole; long garbage, even unterminated, is skipped. */
static void test_huge_lines(void)
{
	size_t big = 1 << 20, name = 1 << 16, len = 0, i;
	char *text = malloc(3 * big), *want = malloc(name + 1);
	const struct ng_sym *y;
	struct ng_syms *s;

	T_ASSERT(text && want);
	len += sprintf(text + len, "ffffffff81000000 T ");
	memset(text + len, 'n', name);
	memset(want, 'n', name);
	want[name] = '\0';
	len += name;
	len += sprintf(text + len, "\t[");
	memset(text + len, 'm', name);
	len += name;
	len += sprintf(text + len, "]\n");
	/* A megabyte of hex digits, then one of a name with no newline. */
	memset(text + len, 'f', big);
	len += big;
	len += sprintf(text + len, " T huge_address\nffffffff82000000 T ");
	memset(text + len, 'x', big);
	len += big;

	T_EQ_INT(parse_n(&s, text, len), 0);
	T_EQ_U64(ng_syms_count(s), 2);
	y = ng_syms_lookup(s, 0xffffffff81000000);
	T_ASSERT(y && y->module);
	T_EQ_U64(strlen(y->name), name);
	T_EQ_U64(strlen(y->module), name);
	T_ASSERT(!strcmp(y->name, want));
	for (i = 0; i < name; i++)
		T_ASSERT(y->module[i] == 'm');
	y = ng_syms_lookup(s, 0xffffffff82000000);
	T_ASSERT(y && !y->module);
	T_EQ_U64(strlen(y->name), big);
	ng_syms_free(s);
	free(text);
	free(want);
}

/* Names survive the input buffer (parse_n already frees it; say so here). */
static void test_input_not_referenced(void)
{
	char *text = strdup("ffffffff81000000 T vfs_read\n"
			    "ffffffffc0000000 t modfn\t[nf_tables]\n");
	struct ng_syms *s;

	T_ASSERT(text);
	T_EQ_INT(ng_syms_parse(&s, text, strlen(text)), 0);
	memset(text, 0, strlen(text));
	free(text);
	T_SYM(s, 0xffffffff81000000, 0xffffffff81000000, "vfs_read", NULL);
	T_SYM(s, 0xffffffffc0000000, 0xffffffffc0000000, "modfn", "nf_tables");
	ng_syms_free(s);
}

static void test_load_file(void)
{
	struct ng_syms *s = (void *)1;

	T_EQ_INT(t_write_file(t_path("kallsyms"),
			      "ffffffff81000000 T _stext\n"
			      "ffffffff81000ff0 t __pfx_vfs_read\n"
			      "ffffffff81001000 T vfs_read\n"
			      "ffffffff82000000 D jiffies\n"
			      "ffffffffc0a01000 t nf_hook_slow\t[nf_tables]\n"),
		 0);
	T_EQ_INT(ng_syms_load(&s, t_path("kallsyms")), 0);
	T_EQ_U64(ng_syms_count(s), 3);
	T_SYM(s, 0xffffffff81001234, 0xffffffff81001000, "vfs_read", NULL);
	T_SYM(s, 0xffffffffc0a01000, 0xffffffffc0a01000, "nf_hook_slow",
	      "nf_tables");
	ng_syms_free(s);

	T_EQ_INT(ng_syms_load(&s, t_path("missing")), -ENOENT);
	T_ASSERT(!s);
	T_EQ_INT(ng_syms_load(&s, t_tmpdir()), -EISDIR);
	T_ASSERT(!s);
	T_EQ_INT(t_write_file(t_path("empty"), ""), 0);
	T_EQ_INT(ng_syms_load(&s, t_path("empty")), -ENOENT);
	T_EQ_INT(t_write_file(t_path("zero"), "0000000000000000 T vfs_read\n"),
		 0);
	T_EQ_INT(ng_syms_load(&s, t_path("zero")), -EPERM);
	T_ASSERT(!s);
}

/*
 * A file with no size, like /proc/kallsyms, is read until EOF: here a FIFO
 * fed a few megabytes by a child, more than any first buffer.
 */
static void test_load_fifo(void)
{
	const char *path = t_path("fifo");
	const unsigned int nr = 100000;
	struct ng_syms *s;
	int status, ret;
	unsigned int i;
	pid_t pid;

	T_EQ_INT(mkfifo(path, 0600), 0);
	fflush(stdout);
	pid = fork();
	T_ASSERT(pid >= 0);
	if (pid == 0) {
		FILE *f = fopen(path, "w");

		alarm(30);
		if (!f)
			_exit(1);
		for (i = 0; i < nr; i++)
			fprintf(f, "%016" PRIx64 " T fifo_func_%u\t[fifo_mod]\n",
				BASE + STEP * i, i);
		_exit(fclose(f) ? 1 : 0);
	}
	ret = ng_syms_load(&s, path);
	T_ASSERT(waitpid(pid, &status, 0) == pid);
	T_EQ_INT(status, 0);
	T_EQ_INT(ret, 0);
	T_EQ_U64(ng_syms_count(s), nr);
	T_SYM(s, 0xffffffff81000000, 0xffffffff81000000, "fifo_func_0",
	      "fifo_mod");
	T_SYM(s, BASE + STEP * (nr - 1) + 8, BASE + STEP * (nr - 1),
	      "fifo_func_99999", "fifo_mod");
	ng_syms_free(s);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * kallsyms-like text of @nr lines in scrambled order, a quarter of them
 * padding and some in modules; the caller frees it.
 */
static char *syms_text(unsigned int nr, size_t *lenp)
{
	const unsigned int step = 7919;	/* prime: a permutation */
	size_t cap = (size_t)nr * 64, len = 0;
	char *text = malloc(cap);
	unsigned int i, k;

	if (!text)
		return NULL;
	for (i = 0; i < nr; i++) {
		k = (unsigned int)((uint64_t)i * step % nr);
		if (k % 4 == 3)
			len += snprintf(text + len, cap - len,
					"%016" PRIx64 " t __pfx_f%u\n",
					BASE + STEP * k, k);
		else if (k % 10 == 0)
			len += snprintf(text + len, cap - len,
					"%016" PRIx64 " t f%u\t[mod%u]\n",
					BASE + STEP * k, k,
					k % 7);
		else
			len += snprintf(text + len, cap - len,
					"%016" PRIx64 " T f%u\n",
					BASE + STEP * k, k);
	}
	*lenp = len;
	return text;
}

/* The best of three parses of @text, in seconds. */
static double parse_seconds(const char *text, size_t len)
{
	double best = 1e9, t;
	struct ng_syms *s;
	int i;

	for (i = 0; i < 3; i++) {
		t = now_s();
		if (ng_syms_parse(&s, text, len))
			return -1;
		t = now_s() - t;
		ng_syms_free(s);
		if (t < best)
			best = t;
	}
	return best;
}

/*
 * 200,000 lines parse in n log n: not a timed limit (the machine may be
 * busy), but 8 times the lines must not take much over 8 times as long,
 * where a quadratic parse would take 64 (best of three each, so a burst
 * of load on one side does not decide).  Then the answers are right.
 */
static void test_parse_200k_lines_scales(void)
{
	const unsigned int nr = 200000;
	size_t len, small_len;
	char *text = syms_text(nr, &len), *small = syms_text(nr / 8, &small_len);
	char name[32];
	struct ng_syms *s;
	double t, t_small;
	unsigned int k;

	T_ASSERT(text && small);
	t_small = parse_seconds(small, small_len);
	t = parse_seconds(text, len);
	t_diag("parsed %u lines in %.3f s, %u in %.3f s: x%.1f", nr, t,
	       nr / 8, t_small, t_small > 0 ? t / t_small : 0);
	T_ASSERT(t >= 0 && t_small >= 0);
	T_ASSERT(t <= 24 * t_small + 0.05);
	free(small);
	T_EQ_INT(ng_syms_parse(&s, text, len), 0);
	T_EQ_U64(ng_syms_count(s), nr - nr / 4);
	for (k = 0; k < nr; k += 997) {
		uint64_t a = BASE + STEP * k;
		unsigned int f = k % 4 == 3 ? k - 1 : k;
		char mod[16];

		snprintf(name, sizeof(name), "f%u", f);
		snprintf(mod, sizeof(mod), "mod%u", f % 7);
		T_SYM(s, a + 5, a - STEP * (k - f), name,
		      f % 10 == 0 ? mod : NULL);
	}
	ng_syms_free(s);
	free(text);
}

/*
 * This machine's /proc/kallsyms (the default path): vfs_read's address
 * comes back as vfs_read, and every text symbol's address resolves to a
 * symbol starting exactly there.
 */
static void test_load_proc_kallsyms(void)
{
	uint64_t vfs_read = 0, a;
	char *text, *line, *eol, type, name[256];
	size_t checked = 0;
	struct ng_syms *s;
	double t;
	int ret;

	t = now_s();
	ret = ng_syms_load(&s, NULL);
	t = now_s() - t;
	if (ret == -EPERM)
		t_skip("/proc/kallsyms has only zero addresses (not root?)");
	if (ret == -ENOENT || ret == -EACCES)
		t_skip("/proc/kallsyms cannot be read");
	T_EQ_INT(ret, 0);
	t_diag("/proc/kallsyms: %zu addresses named, loaded in %.3f s",
	       ng_syms_count(s), t);
	T_ASSERT(ng_syms_count(s) > 1000);

	text = t_read_file("/proc/kallsyms", NULL);
	T_ASSERT(text);
	for (line = text; *line; line = eol + 1) {
		eol = strchr(line, '\n');
		if (!eol)
			break;
		*eol = '\0';
		if (sscanf(line, "%" SCNx64 " %c %255s", &a, &type, name) != 3 ||
		    !strchr("tTwW", type) || !strncmp(name, "__pfx_", 6) ||
		    !strncmp(name, "__cfi_", 6))
			continue;
		if (!strcmp(name, "vfs_read") && !strchr(line, '\t'))
			vfs_read = a;
		T_ASSERT(ng_syms_lookup(s, a));
		T_EQ_U64(ng_syms_lookup(s, a)->addr, a);
		checked++;
	}
	free(text);
	t_diag("%zu text symbols checked", checked);
	T_ASSERT(vfs_read);
	T_SYM(s, vfs_read, vfs_read, "vfs_read", NULL);
	T_SYM(s, vfs_read + 1, vfs_read, "vfs_read", NULL);
	ng_syms_free(s);
}

/* Nothing at @addr: it lies outside every symbol's range. */
static bool no_sym(const struct ng_syms *s, uint64_t addr)
{
	const struct ng_sym *y = ng_syms_lookup(s, addr);

	if (!y)
		return true;
	t_diag("  lookup(%#" PRIx64 "): got %s [%s] at %#" PRIx64
	       ", want nothing", addr, y->name, y->module ? y->module : "",
	       y->addr);
	return false;
}

#define T_NO_SYM(s, addr) T_ASSERT(no_sym(s, addr))

/*
 * A listing read after a module was unloaded (record reads kallsyms once
 * the run is over): its addresses used to resolve to whatever symbol lay
 * below them, a function of another module or the core kernel's last.
 * Each symbol now ends where the next of its module starts, a module at
 * its end from /proc/modules, the core kernel at _end.
 */
static const char unloaded_kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T vfs_read\n"
	"ffffffff81002000 T _etext\n"
	"ffffffff82000000 D some_data\n"
	"ffffffff83000000 B _end\n"
	"ffffffffc0a01000 t nf_hook_slow\t[nf_tables]\n"
	"ffffffffc0a02000 T nft_do_chain\t[nf_tables]\n"
	"ffffffffc0a08000 d nft_data\t[nf_tables]\n"
	/* an unloaded module lay at c0a10000..c0a20000 */
	"ffffffffc0b00000 t ext4_lookup\t[ext4]\n"
	"ffffffffc0c00000 t bpf_prog_1234_f\t[bpf]\n"
	"ffffffffc0d00000 t ftrace_trampoline\t[__builtin__ftrace]\n";

static const char unloaded_modules[] =
	"nf_tables 45056 0 - Live 0xffffffffc0a01000\n"
	"ext4 917504 1 - Live 0xffffffffc0b00000 (E)\n";

static void test_module_ends(void)
{
	struct ng_syms *s;

	T_EQ_INT(parse(&s, unloaded_kallsyms), 0);
	/* without the modules: modules end at the next symbol only */
	T_SYM(s, 0xffffffffc0a10000, 0xffffffffc0a02000, "nft_do_chain",
	      "nf_tables");
	/* the core kernel ends at _end: the module area is not its */
	T_SYM(s, 0xffffffff82fff000, 0xffffffff81002000, "_etext", NULL);
	T_NO_SYM(s, 0xffffffff83000001);
	T_NO_SYM(s, 0xffffffffc0000000);

	T_EQ_INT(ng_syms_set_modules(s, unloaded_modules,
				     strlen(unloaded_modules)), 0);
	T_SYM(s, 0xffffffffc0a01004, 0xffffffffc0a01000, "nf_hook_slow",
	      "nf_tables");
	T_SYM(s, 0xffffffffc0a0bfff, 0xffffffffc0a02000, "nft_do_chain",
	      "nf_tables");
	T_NO_SYM(s, 0xffffffffc0a0c000);	/* past nf_tables' 45056 bytes */
	T_NO_SYM(s, 0xffffffffc0a10000);	/* the unloaded module */
	T_SYM(s, 0xffffffffc0b00010, 0xffffffffc0b00000, "ext4_lookup", "ext4");
	/* [bpf], [__builtin__ftrace]: one allocation each, a page at most */
	T_SYM(s, 0xffffffffc0c00010, 0xffffffffc0c00000, "bpf_prog_1234_f", "bpf");
	T_NO_SYM(s, 0xffffffffc0c01000);
	T_SYM(s, 0xffffffffc0d00fff, 0xffffffffc0d00000, "ftrace_trampoline",
	      "__builtin__ftrace");
	T_NO_SYM(s, 0xffffffffc0d01000);
	T_NO_SYM(s, UINT64_MAX);
	ng_syms_free(s);
}

/* A listing in a buffer of exactly its length (no NUL for the parser). */
static int set_modules(struct ng_syms *s, const char *text)
{
	size_t len = strlen(text);
	char *copy = malloc(len ? len : 1);
	int ret;

	if (!copy)
		return -ENOMEM;
	memcpy(copy, text, len);
	ret = ng_syms_set_modules(s, copy, len);
	free(copy);
	return ret;
}

/* /proc/modules as a user sees it (addresses 0) bounds nothing. */
static void test_modules_listing(void)
{
	struct ng_syms *s;

	T_EQ_INT(parse(&s, unloaded_kallsyms), 0);
	T_EQ_INT(set_modules(s, "nf_tables 45056 0 - Live 0x0000000000000000\n"),
		 -ENOENT);
	T_EQ_INT(set_modules(s, ""), -ENOENT);
	T_EQ_INT(set_modules(s, "junk\nnf_tables x 0 - Live 0xffffffffc0a01000\n"
			     "nf_tables 45056 0 - Live ffffffffc0a01000\n"
			     "nf_tables 45056 0 - Live 0xffffffffc0a01000x\n"),
		 -ENOENT);
	T_SYM(s, 0xffffffffc0a10000, 0xffffffffc0a02000, "nft_do_chain",
	      "nf_tables");
	/* from a file; no trailing newline */
	T_EQ_INT(t_write_file(t_path("modules"), "ext4 4096 1 - Live 0xffffffffc0b00000"), 0);
	T_EQ_INT(ng_syms_load_modules(s, t_path("modules")), 0);
	T_SYM(s, 0xffffffffc0b00fff, 0xffffffffc0b00000, "ext4_lookup", "ext4");
	T_NO_SYM(s, 0xffffffffc0b01000);
	/* nf_tables is not in that listing: a page, as for [bpf] */
	T_NO_SYM(s, 0xffffffffc0a03000);
	T_EQ_INT(ng_syms_load_modules(s, t_path("none")), -ENOENT);
	ng_syms_free(s);
}

static const struct t_case cases[] = {
	{ "core_and_module", test_core_and_module },
	{ "non_text_ignored", test_non_text_ignored },
	{ "aliases", test_aliases },
	{ "many_aliases", test_many_aliases },
	{ "padding_dropped", test_padding_dropped },
	{ "lookup_bounds", test_lookup_bounds },
	{ "all_zero_is_eperm", test_all_zero_is_eperm },
	{ "empty_is_enoent", test_empty_is_enoent },
	{ "malformed_lines_skipped", test_malformed_lines_skipped },
	{ "last_line_without_newline", test_last_line_without_newline },
	{ "huge_lines", test_huge_lines },
	{ "input_not_referenced", test_input_not_referenced },
	{ "load_file", test_load_file },
	{ "load_fifo", test_load_fifo },
	{ "parse_200k_lines_scales", test_parse_200k_lines_scales },
	{ "load_proc_kallsyms", test_load_proc_kallsyms },
	{ "module_ends", test_module_ends },
	{ "modules_listing", test_modules_listing },
};

T_SUITE(syms, cases);
