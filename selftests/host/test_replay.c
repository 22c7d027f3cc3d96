// SPDX-License-Identifier: GPL-2.0
/*
 * test_replay.c - "nanograph replay" and the filters of the views: the
 * call tree byte for byte (leaves and nested calls, durations,
 * indentation, threads and idle tasks, --abstime), each filter through
 * the library's walk and through replay, report and export, the usage
 * error of every filter option, a stack 300,000 deep, and memory that
 * does not grow with the length of a file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "nanograph.h"
#include "ktap.h"
#include "t_util.h"

/*
 * The example of Documentation/report-export.md, cat.data: cat (412)
 * reads a file twice; CPU 1's idle task takes an interrupt exit nested in
 * another.
 */
static const char cat412[] =
	"5000000:+ksys_read\n"
	"5000250:+vfs_read\n"
	"5000400:+rw_verify_area\n"
	"5000520:POP\n"
	"5000600:+ext4_file_read_iter [ext4]\n"
	"5000700:+filemap_read\n"
	"5003800:POP\n"
	"5003900:POP\n"
	"5004000:POP\n"
	"5004100:POP\n"
	"5010000:+ksys_read\n"
	"5010200:+vfs_read\n"
	"5010300:+rw_verify_area\n"
	"5010380:POP\n"
	"5010450:+ext4_file_read_iter [ext4]\n"
	"5010500:+filemap_read\n"
	"5011700:POP\n"
	"5011750:POP\n"
	"5011800:POP\n"
	"5011900:POP\n";
static const char idle1[] =
	"5002000:+do_idle\n"
	"5002100:+__irq_exit_rcu\n"
	"5002150:+__irq_exit_rcu\n"
	"5002400:POP\n"
	"5002600:POP\n"
	"5008000:POP\n";
static const char cat_tsv[] =
	"tid\tpid\tcomm\n0-1\t0\tswapper/1\n412\t412\tcat\n";

/* "<tmpdir>/cat.data/<name>". */
static const char *cp(const char *name)
{
	char sub[256];

	snprintf(sub, sizeof(sub), "cat.data/%s", name);
	return t_path(sub);
}

/* cat.data in the test's directory; its path in @dir. */
static int make_cat(char *dir, size_t size)
{
	return t_make_rec(dir, size, "cat.data", "412.txt", cat412,
			  "0-1.txt", idle1, "threads.tsv", cat_tsv, NULL);
}

/* ---- the tree ---- */

/*
 * The example's trees, whole and in the pieces the filters leave: each
 * thread's block starts with its head.
 */
#define IDLE1_HEAD \
	"# tid 0-1, pid 0, swapper/1\n"					\
	"#    DURATION |  FUNCTION CALLS\n"
#define CAT412_HEAD \
	"# tid 412, pid 412, cat\n"					\
	"#    DURATION |  FUNCTION CALLS\n"

#define IDLE1_TREE IDLE1_HEAD						\
	"              |  do_idle() {\n"				\
	"              |    __irq_exit_rcu() {\n"			\
	"     0.250 us |      __irq_exit_rcu();\n"			\
	"     0.500 us |    } /* __irq_exit_rcu */\n"			\
	"     6.000 us |  } /* do_idle */\n"

#define CAT412_TREE CAT412_HEAD						\
	"              |  ksys_read() {\n"				\
	"              |    vfs_read() {\n"				\
	"     0.120 us |      rw_verify_area();\n"			\
	"              |      ext4_file_read_iter [ext4]() {\n"		\
	"     3.100 us |        filemap_read();\n"			\
	"     3.300 us |      } /* ext4_file_read_iter [ext4] */\n"	\
	"     3.750 us |    } /* vfs_read */\n"				\
	"     4.100 us |  } /* ksys_read */\n"				\
	"              |  ksys_read() {\n"				\
	"              |    vfs_read() {\n"				\
	"     0.080 us |      rw_verify_area();\n"			\
	"              |      ext4_file_read_iter [ext4]() {\n"		\
	"     1.200 us |        filemap_read();\n"			\
	"     1.300 us |      } /* ext4_file_read_iter [ext4] */\n"	\
	"     1.600 us |    } /* vfs_read */\n"				\
	"     1.900 us |  } /* ksys_read */\n"

/* The idle task first, a blank line between threads. */
#define EXAMPLE_TREE IDLE1_TREE "\n" CAT412_TREE

/* cat's first read without rw_verify_area, which lasts under 1 us. */
#define CAT412_READ1_EXT4						\
	"              |  ksys_read() {\n"				\
	"              |    vfs_read() {\n"				\
	"              |      ext4_file_read_iter [ext4]() {\n"		\
	"     3.100 us |        filemap_read();\n"			\
	"     3.300 us |      } /* ext4_file_read_iter [ext4] */\n"	\
	"     3.750 us |    } /* vfs_read */\n"				\
	"     4.100 us |  } /* ksys_read */\n"

/*
 * The whole tree of the example: the idle task first, a blank line
 * between threads, leaves with their duration, nested calls opened
 * without one and closed with it, two spaces a level.
 */
static void test_replay_example(void)
{
	char dir[600];

	T_EQ_INT(make_cat(dir, sizeof(dir)), 0);
	T_RUN(t_ng("replay", dir, NULL), 0, EXAMPLE_TREE, "");
	T_RUN(t_ng("replay", "-o", "-", dir, NULL), 0, EXAMPLE_TREE, "");
	/* the same, whole, in a file; nothing written into the recording */
	T_RUN(t_ng("replay", "--output", t_path("tree.txt"), dir, NULL), 0, "", "");
	T_FILE_EQ(t_path("tree.txt"), EXAMPLE_TREE);
	T_ASSERT(!t_temp_of(t_path("tree.txt")));
}

/* --abstime: each line's event, a call's start or a closing brace's end. */
static void test_replay_abstime(void)
{
	char dir[600];

	T_EQ_INT(make_cat(dir, sizeof(dir)), 0);
	T_RUN(t_ng("replay", "--abstime", "--tid", "0-1", dir, NULL), 0,
	      "# tid 0-1, pid 0, swapper/1\n"
	      "#      TIMESTAMP      DURATION |  FUNCTION CALLS\n"
	      "         5002000               |  do_idle() {\n"
	      "         5002100               |    __irq_exit_rcu() {\n"
	      "         5002150      0.250 us |      __irq_exit_rcu();\n"
	      "         5002600      0.500 us |    } /* __irq_exit_rcu */\n"
	      "         5008000      6.000 us |  } /* do_idle */\n", "");
}

/*
 * Leaves beside nested calls, zero and long durations, threads in the
 * recording's order (idle tasks by CPU, then tids by number), a thread
 * with no call left out, names without threads.tsv.
 */
static void test_replay_shapes(void)
{
	char dir[600];

	snprintf(dir, sizeof(dir), "%s", t_path("r"));
	T_EQ_INT(mkdir(dir, 0755), 0);
	T_EQ_INT(t_write_file(t_path("r/12.txt"),
			      "0:+a\n0:POP\n"
			      "5:+b\n5:+c\n6:POP\n7:+d\n1234567897:POP\n2000000000:POP\n"
			      "2000000000:+e\n2000000001:POP\n"), 0);
	T_EQ_INT(t_write_file(t_path("r/5.txt"), "1:+x\n3:POP\n"), 0);
	T_EQ_INT(t_write_file(t_path("r/7.txt"), ""), 0);
	T_EQ_INT(t_write_file(t_path("r/0-3.txt"), "1:+y\n2:POP\n"), 0);
	T_EQ_INT(t_write_file(t_path("r/0-0.txt"), "1:+z\n2:POP\n"), 0);
	T_RUN(t_ng("replay", dir, NULL), 0,
	      "# tid 0-0, pid 0, 0-0\n"
	      "#    DURATION |  FUNCTION CALLS\n"
	      "     0.001 us |  z();\n"
	      "\n"
	      "# tid 0-3, pid 0, 0-3\n"
	      "#    DURATION |  FUNCTION CALLS\n"
	      "     0.001 us |  y();\n"
	      "\n"
	      "# tid 5, pid ?, 5\n"
	      "#    DURATION |  FUNCTION CALLS\n"
	      "     0.002 us |  x();\n"
	      "\n"
	      "# tid 12, pid ?, 12\n"
	      "#    DURATION |  FUNCTION CALLS\n"
	      "     0.000 us |  a();\n"
	      "              |  b() {\n"
	      "     0.001 us |    c();\n"
	      "1234567.890 us |    d();\n"
	      "1999999.995 us |  } /* b */\n"
	      "     0.001 us |  e();\n", "");
}

/*
 * With a counters.tsv, replay says of a call that faulted or was switched
 * out how often, on its leaf or closing line, after what a sched.tsv says;
 * a line is found by the thread, the call's return and its depth (an
 * idle task's by its -(cpu + 1)), and one that matches no call, or is
 * torn, shows nowhere.  A table that is a device (/dev/zero, which has
 * no end) is not read.
 */
static void test_replay_counts(void)
{
	char dir[600];

	snprintf(dir, sizeof(dir), "%s", t_path("c"));
	T_EQ_INT(mkdir(dir, 0755), 0);
	T_EQ_INT(t_write_file(t_path("c/421.txt"),
			      "5000:+ksys_read\n5100:+vfs_read\n5260:POP\n"
			      "5270:+fput\n5280:POP\n5300:POP\n"), 0);
	T_EQ_INT(t_write_file(t_path("c/0-1.txt"), "5000:+do_idle\n5100:POP\n"), 0);
	T_EQ_INT(t_write_file(t_path("c/sched.tsv"),
			      "# nanograph sched 1\n"
			      "5110\tout\t421\tS\t1\n"
			      "5210\twake\t421\t420\twriter\ttask\tvfs_write\n"
			      "5230\tin\t421\n"), 0);
	T_EQ_INT(t_write_file(t_path("c/counters.tsv"),
			      "# nanograph counters 1\n"
			      "5260\t421\t1\tvfs_read\t64\t0\t1\t0\n"
			      "5300\t421\t0\tksys_read\t64\t2\t1\t0\n"
			      "5280\t421\t0\tfput\t5\t0\t0\t0\n"
			      "5100\t-2\t0\tdo_idle\t0\t0\t0\t3\n"
			      "5280\t421\t1\tfp"), 0);
	T_RUN(t_ng("replay", dir, NULL), 0,
	      "# tid 0-1, pid 0, 0-1\n"
	      "#    DURATION |  FUNCTION CALLS\n"
	      "     0.100 us |  do_idle(); /* 3 involuntary switches */\n"
	      "\n"
	      "# tid 421, pid ?, 421\n"
	      "#    DURATION |  FUNCTION CALLS\n"
	      "              |  ksys_read() {\n"
	      "     0.160 us |    vfs_read(); /* on-cpu 40 ns, runnable 20 ns, "
	      "blocked 100 ns, woken by 420 writer in vfs_write, 64 minor faults, "
	      "1 voluntary switches */\n"
	      "     0.010 us |    fput();\n"
	      "     0.300 us |  } /* ksys_read: on-cpu 180 ns, runnable 20 ns, "
	      "blocked 100 ns, woken by 420 writer in vfs_write, 64 minor faults, "
	      "2 major faults, 1 voluntary switches */\n", "");
	/* Tables that are devices are not read: replay as without them. */
	snprintf(dir, sizeof(dir), "%s", t_path("c2"));
	T_EQ_INT(mkdir(dir, 0755), 0);
	T_EQ_INT(t_write_file(t_path("c2/421.txt"), "5100:+vfs_read\n5260:POP\n"), 0);
	T_EQ_INT(symlink("/dev/zero", t_path("c2/counters.tsv")), 0);
	T_EQ_INT(symlink("/dev/zero", t_path("c2/sched.tsv")), 0);
	T_RUN(t_ng("replay", dir, NULL), 0,
	      "# tid 421, pid ?, 421\n"
	      "#    DURATION |  FUNCTION CALLS\n"
	      "     0.160 us |  vfs_read();\n", "");
}

/*
 * With an args.tsv and a retval.tsv, replay writes a call's argument
 * registers between its parentheses, its return value on its leaf or
 * closing line (an error code as "-9 (EBADF)", else hex), and with
 * --retaddr its call site; lines are found by thread, nanoseconds (the
 * entry's for args, the return's for values) and depth.  --errors
 * counts each error's path from the outermost call to its origin: a
 * call that returned the code its callee returned carries the chain on,
 * one that did not ends it.  On a 32-bit arm recording (info.json's
 * machine) a register is its low 32 bits.
 */
static void test_replay_values(void)
{
	char dir[600], err[1024];

	snprintf(dir, sizeof(dir), "%s", t_path("v"));
	T_EQ_INT(mkdir(dir, 0755), 0);
	T_EQ_INT(t_write_file(t_path("v/7.txt"),
			      "1000:+ksys_read\n1100:+vfs_read\n1200:POP\n1300:POP\n"
			      "2000:+ksys_read\n2100:POP\n"
			      "3000:+do_sys_open\n3100:+path_openat\n3150:+lookup\n"
			      "3160:POP\n3170:+walk\n3180:POP\n3200:POP\n3300:POP\n"), 0);
	T_EQ_INT(t_write_file(t_path("v/args.tsv"),
			      "# nanograph args 1\n"
			      "1000\t7\t0\tksys_read\tdo_syscall_64+0x87\t0x3\t0x7ffd0000\t0x64\n"
			      "1100\t7\t1\tvfs_read\tksys_read+0x6f\t0xffff8881\t0x7ffd0000\n"
			      "2000\t7\t0\tksys_read\t-\t0xffffffff\n"), 0);
	T_EQ_INT(t_write_file(t_path("v/retval.tsv"),
			      "# nanograph retval 1\n"
			      "1200\t7\t1\tvfs_read\t0x64\n"
			      "1300\t7\t0\tksys_read\t0x64\n"
			      "2100\t7\t0\tksys_read\t0xfffffffffffffff7\n"
			      "3160\t7\t2\tlookup\t0xfffffffffffffffe\n"
			      "3180\t7\t2\twalk\t0xfffffffffffffffe\n"
			      "3200\t7\t1\tpath_openat\t0xfffffffffffffffe\n"
			      "3300\t7\t0\tdo_sys_open\t0x3\n"
			      "3300\t7\t0\ttorn"), 0);
	T_RUN(t_ng("replay", "--retaddr", dir, NULL), 0,
	      "# tid 7, pid ?, 7\n"
	      "#    DURATION |  FUNCTION CALLS\n"
	      "              |  ksys_read(0x3, 0x7ffd0000, 0x64) { /* <-do_syscall_64+0x87 */\n"
	      "     0.100 us |    vfs_read(0xffff8881, 0x7ffd0000); /* <-ksys_read+0x6f, ret=0x64 */\n"
	      "     0.300 us |  } /* ksys_read ret=0x64 */\n"
	      "     0.100 us |  ksys_read(0xffffffff); /* ret=-9 (EBADF) */\n"
	      "              |  do_sys_open() {\n"
	      "              |    path_openat() {\n"
	      "     0.010 us |      lookup(); /* ret=-2 (ENOENT) */\n"
	      "     0.010 us |      walk(); /* ret=-2 (ENOENT) */\n"
	      "     0.100 us |    } /* path_openat ret=-2 (ENOENT) */\n"
	      "     0.300 us |  } /* do_sys_open ret=0x3 */\n", "");
	T_RUN(t_ng("replay", "--errors", dir, NULL), 0,
	      "# 4 calls returned an error code; 2 paths\n"
	      "#   COUNT  ERROR                    PATH (outermost > ... > origin; * returned it)\n"
	      "        1  -2 (ENOENT)              do_sys_open > path_openat* > lookup*\n"
	      "        1  -9 (EBADF)               ksys_read*\n", "");
	/* report ends with the errors by function and code. */
	T_RUN(t_ng("report", "-n", "1", dir, NULL), 0,
	      "# 1 thread, 7 calls, 2.300 us recorded\n"
	      "       Total         Self      Calls          Avg          Max  Function\n"
	      "      400 ns       300 ns          2       200 ns       300 ns  ksys_read\n"
	      "\n"
	      "# errors: calls that returned an error code, by function and code\n"
	      "     Calls  Error                    Function\n"
	      "         1  -2 (ENOENT)              lookup\n"
	      "         1  -2 (ENOENT)              path_openat\n"
	      "         1  -2 (ENOENT)              walk\n"
	      "         1  -9 (EBADF)               ksys_read\n", "");
	/* --retval: the calls that pass, with the calls they are in. */
	T_RUN(t_ng("replay", "--retval", "<0", dir, NULL), 0,
	      "# tid 7, pid ?, 7\n"
	      "#    DURATION |  FUNCTION CALLS\n"
	      "     0.100 us |  ksys_read(0xffffffff); /* ret=-9 (EBADF) */\n"
	      "              |  do_sys_open() {\n"
	      "              |    path_openat() {\n"
	      "     0.010 us |      lookup(); /* ret=-2 (ENOENT) */\n"
	      "     0.010 us |      walk(); /* ret=-2 (ENOENT) */\n"
	      "     0.100 us |    } /* path_openat ret=-2 (ENOENT) */\n"
	      "     0.300 us |  } /* do_sys_open ret=0x3 */\n", "");
	T_RUN(t_ng("replay", "--retval", "-EBADF", dir, NULL), 0,
	      "# tid 7, pid ?, 7\n"
	      "#    DURATION |  FUNCTION CALLS\n"
	      "     0.100 us |  ksys_read(0xffffffff); /* ret=-9 (EBADF) */\n", "");
	T_RUN(t_ng("replay", "--retval", ">=0x64", "-D", "1", dir, NULL), 0,
	      "# tid 7, pid ?, 7\n"
	      "#    DURATION |  FUNCTION CALLS\n"
	      "     0.300 us |  ksys_read(0x3, 0x7ffd0000, 0x64); /* ret=0x64 */\n", "");
	T_RUN(t_ng("replay", "--retval", "<zero", dir, NULL), 2, "",
	      "nanograph replay: --retval wants [OP]VALUE, OP one of < <= > >= == != and VALUE "
	      "a number or an error code (-EAGAIN), not '<zero'\n"
	      "Try 'nanograph help replay'.\n");
	/* 32-bit arm: r1 is not part of an int's value. */
	T_EQ_INT(t_write_file(t_path("v/info.json"), "{\"machine\": \"armv7l\"}\n"), 0);
	T_EQ_INT(t_write_file(t_path("v/retval.tsv"),
			      "# nanograph retval 1\n"
			      "2100\t7\t0\tksys_read\t0x12345678fffffff7\n"
			      "1200\t7\t1\tvfs_read\t0xabcd000000000064\n"), 0);
	T_RUN(t_ng("replay", "--tid", "7", dir, NULL), 0,
	      "# tid 7, pid ?, 7\n"
	      "#    DURATION |  FUNCTION CALLS\n"
	      "              |  ksys_read(0x3, 0x7ffd0000, 0x64) {\n"
	      "     0.100 us |    vfs_read(0xffff8881, 0x7ffd0000); /* ret=0x64 */\n"
	      "     0.300 us |  } /* ksys_read */\n"
	      "     0.100 us |  ksys_read(0xffffffff); /* ret=-9 (EBADF) */\n"
	      "              |  do_sys_open() {\n"
	      "              |    path_openat() {\n"
	      "     0.010 us |      lookup();\n"
	      "     0.010 us |      walk();\n"
	      "     0.100 us |    } /* path_openat */\n"
	      "     0.300 us |  } /* do_sys_open */\n", "");
	/* Without retval.tsv, --errors says what it needs. */
	T_EQ_INT(unlink(t_path("v/retval.tsv")), 0);
	snprintf(err, sizeof(err), "nanograph replay: --errors needs a recording made "
		 "with 'record --retval': %s has no retval.tsv\n"
		 "Try 'nanograph help replay'.\n", dir);
	T_RUN(t_ng("replay", "--errors", dir, NULL), 2, "", err);
}

/*
 * A BTF file of the test's kernel: @ptr-byte pointers and longs (4: a
 * 32-bit arm kernel's).  vfs_read(struct file *file, char *buf, size_t
 * count, loff_t *pos) returns ssize_t; vfs_llseek(struct file *file,
 * loff_t offset, int whence) returns loff_t; get_file(int fd) returns a
 * struct file * (or an ERR_PTR()); put_file(struct file *file) is void;
 * is_ok(int fd) returns bool.
 */
static void write_btf(const char *path, size_t ptr)
{
	struct btf *b = btf__new_empty();
	int lng, ulng, llng, in, bl, ch, fl, pfl, pch, ssz, sz, loff, ploff, pr;
	const void *raw;
	__u32 size;
	FILE *f;

	T_ASSERT(b);
	btf__set_pointer_size(b, ptr);
	lng = btf__add_int(b, "long", ptr, BTF_INT_SIGNED);
	ulng = btf__add_int(b, "long unsigned int", ptr, 0);
	llng = btf__add_int(b, "long long", 8, BTF_INT_SIGNED);
	in = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	bl = btf__add_int(b, "_Bool", 1, BTF_INT_BOOL);
	ch = btf__add_int(b, "char", 1, BTF_INT_SIGNED);
	fl = btf__add_struct(b, "file", 16);
	pfl = btf__add_ptr(b, fl);
	pch = btf__add_ptr(b, ch);
	ssz = btf__add_typedef(b, "ssize_t", lng);
	sz = btf__add_typedef(b, "size_t", ulng);
	loff = btf__add_typedef(b, "loff_t", llng);
	ploff = btf__add_ptr(b, loff);
	pr = btf__add_func_proto(b, ssz);
	btf__add_func_param(b, "file", pfl);
	btf__add_func_param(b, "buf", pch);
	btf__add_func_param(b, "count", sz);
	btf__add_func_param(b, "pos", ploff);
	T_ASSERT(btf__add_func(b, "vfs_read", BTF_FUNC_GLOBAL, pr) > 0);
	pr = btf__add_func_proto(b, loff);
	btf__add_func_param(b, "file", pfl);
	btf__add_func_param(b, "offset", loff);
	btf__add_func_param(b, "whence", in);
	T_ASSERT(btf__add_func(b, "vfs_llseek", BTF_FUNC_GLOBAL, pr) > 0);
	pr = btf__add_func_proto(b, pfl);
	btf__add_func_param(b, "fd", in);
	T_ASSERT(btf__add_func(b, "get_file", BTF_FUNC_GLOBAL, pr) > 0);
	pr = btf__add_func_proto(b, 0);
	btf__add_func_param(b, "file", pfl);
	T_ASSERT(btf__add_func(b, "put_file", BTF_FUNC_GLOBAL, pr) > 0);
	pr = btf__add_func_proto(b, bl);
	btf__add_func_param(b, "fd", in);
	T_ASSERT(btf__add_func(b, "is_ok", BTF_FUNC_GLOBAL, pr) > 0);
	raw = btf__raw_data(b, &size);
	T_ASSERT(raw);
	f = fopen(path, "w");
	T_ASSERT(f && fwrite(raw, 1, size, f) == size && !fclose(f));
	btf__free(b);
}

/*
 * With a protos.tsv (written from BTF), replay types what it prints:
 * arguments by name, integers in decimal cut to their width, pointers in
 * hex, errors by name, an ERR_PTR() as such, a bool as true or false,
 * and a void function's register not at all; --errors takes a pointer's
 * ERR_PTR() for an error and a bool for none.  A function the BTF lacks
 * stays untyped.  On 32-bit arm a 64-bit argument is an even register
 * pair (a third argument after one is not in r0-r3) and a 64-bit return
 * is r1:r0.
 */
static void test_replay_typed(void)
{
	struct ng_protos_stats st;
	char dir[600], btf[700];

	snprintf(dir, sizeof(dir), "%s", t_path("ty"));
	snprintf(btf, sizeof(btf), "%s", t_path("vmlinux.btf"));
	T_EQ_INT(mkdir(dir, 0755), 0);
	write_btf(btf, 8);
	T_EQ_INT(t_write_file(t_path("ty/7.txt"),
			      "1000:+vfs_read\n1100:POP\n1200:+get_file\n1300:POP\n"
			      "1400:+put_file\n1500:POP\n1600:+is_ok\n1700:POP\n"
			      "1800:+unknown_fn\n1900:POP\n"), 0);
	T_EQ_INT(t_write_file(t_path("ty/args.tsv"),
			      "# nanograph args 1\n"
			      "1000\t7\t0\tvfs_read\t-\t0xffff888100000000\t0x7ffd0000\t0x1000\t0xffffc90000000010\t0x0\t0x0\n"
			      "1200\t7\t0\tget_file\t-\t0xffffffffffffff9c\n"
			      "1400\t7\t0\tput_file\t-\t0x0\n"
			      "1800\t7\t0\tunknown_fn\t-\t0x5\n"), 0);
	T_EQ_INT(t_write_file(t_path("ty/retval.tsv"),
			      "# nanograph retval 1\n"
			      "1100\t7\t0\tvfs_read\t0x1000\n"
			      "1300\t7\t0\tget_file\t0xfffffffffffffff4\n"
			      "1500\t7\t0\tput_file\t0xffffffffffffffea\n"
			      "1700\t7\t0\tis_ok\t0xffffff01\n"
			      "1900\t7\t0\tunknown_fn\t0xfffffffffffffffe\n"), 0);
	T_EQ_INT(ng_protos_write(dir, btf, &st), 0);
	T_EQ_U64(st.typed, 4);
	T_EQ_U64(st.untyped, 1);
	T_FILE_EQ(t_path("ty/protos.tsv"),
		  "# nanograph protos 1\n"
		  "vfs_read\ts:8:ssize_t\tp:8:file:struct file *\tp:8:buf:char *\t"
		  "u:8:count:size_t\tp:8:pos:loff_t *\n"
		  "get_file\tp:8:struct file *\ts:4:fd:int\n"
		  "put_file\tv:0:void\tp:8:file:struct file *\n"
		  "is_ok\tb:1:_Bool\ts:4:fd:int\n");
	T_RUN(t_ng("replay", dir, NULL), 0,
	      "# tid 7, pid ?, 7\n"
	      "#    DURATION |  FUNCTION CALLS\n"
	      "     0.100 us |  vfs_read(file=0xffff888100000000, buf=0x7ffd0000, "
	      "count=4096, pos=0xffffc90000000010); /* ret=4096 */\n"
	      "     0.100 us |  get_file(fd=-100); /* ret=ERR_PTR(-ENOMEM) */\n"
	      "     0.100 us |  put_file(file=0x0);\n"
	      "     0.100 us |  is_ok(); /* ret=true */\n"
	      "     0.100 us |  unknown_fn(0x5); /* ret=-2 (ENOENT) */\n", "");
	T_RUN(t_ng("replay", "--errors", dir, NULL), 0,
	      "# 2 calls returned an error code; 2 paths\n"
	      "#   COUNT  ERROR                    PATH (outermost > ... > origin; * returned it)\n"
	      "        1  -12 (ENOMEM)             get_file*\n"
	      "        1  -2 (ENOENT)              unknown_fn*\n", "");

	/* 32-bit arm. */
	snprintf(dir, sizeof(dir), "%s", t_path("ty32"));
	T_EQ_INT(mkdir(dir, 0755), 0);
	write_btf(btf, 4);
	T_EQ_INT(t_write_file(t_path("ty32/info.json"), "{\"machine\": \"armv7l\"}\n"), 0);
	T_EQ_INT(t_write_file(t_path("ty32/7.txt"),
			      "1000:+vfs_llseek\n1100:POP\n1200:+vfs_read\n1300:POP\n"), 0);
	T_EQ_INT(t_write_file(t_path("ty32/args.tsv"),
			      "# nanograph args 1\n"
			      "1000\t7\t0\tvfs_llseek\t-\t0xc1000000\t0x1\t0x2\t0x1\n"
			      "1200\t7\t0\tvfs_read\t-\t0xc1000000\t0xbe000000\t0x64\t0xc2000000\n"), 0);
	T_EQ_INT(t_write_file(t_path("ty32/retval.tsv"),
			      "# nanograph retval 1\n"
			      "1100\t7\t0\tvfs_llseek\t0x100000002\n"
			      "1300\t7\t0\tvfs_read\t0x12345678fffffff7\n"), 0);
	T_EQ_INT(ng_protos_write(dir, btf, &st), 0);
	T_RUN(t_ng("replay", dir, NULL), 0,
	      "# tid 7, pid ?, 7\n"
	      "#    DURATION |  FUNCTION CALLS\n"
	      "     0.100 us |  vfs_llseek(file=0xc1000000, offset=4294967298, whence=?); "
	      "/* ret=4294967298 */\n"
	      "     0.100 us |  vfs_read(file=0xc1000000, buf=0xbe000000, count=100, "
	      "pos=0xc2000000); /* ret=-9 (EBADF) */\n", "");
	/* No BTF: -ENOENT, nothing written. */
	T_EQ_INT(unlink(t_path("ty32/protos.tsv")), 0);
	T_EQ_INT(ng_protos_write(dir, t_path("ty32/nothing"), &st), -ENOENT);
	T_ASSERT(access(t_path("ty32/protos.tsv"), F_OK) != 0);
}

/*
 * With a sched.tsv, replay says of a call that was off the CPU what its
 * time was made of (sleep, woken by a thread in a call; preempted once; runnable
 * after the wake) and who woke it, on its leaf or closing line; a call on
 * the CPU all along, and another thread, as before; a wake written just
 * before the sleep it ends leaves no sleep.  sched.tsv lines of a kind
 * not known, or torn, are skipped.  report adds each function's time on
 * and off a CPU, and sorts by them.
 */
static void test_replay_sched(void)
{
	char dir[600];

	snprintf(dir, sizeof(dir), "%s", t_path("s"));
	T_EQ_INT(mkdir(dir, 0755), 0);
	T_EQ_INT(t_write_file(t_path("s/421.txt"),
			      "5000:+ksys_read\n5100:+vfs_read\n5260:POP\n"
			      "5270:+fput\n5280:POP\n5300:POP\n"), 0);
	T_EQ_INT(t_write_file(t_path("s/420.txt"), "5200:+vfs_write\n5220:POP\n"), 0);
	T_EQ_INT(t_write_file(t_path("s/430.txt"), "5290:+pipe_read\n5410:POP\n"), 0);
	T_EQ_INT(t_write_file(t_path("s/sched.tsv"),
			      "# nanograph sched 1\n"
			      "5110\tout\t421\tS\t1\n"
			      "5150\tmigrate\t421\t3\n"
			      "5210\twake\t421\t420\twriter\ttask\tvfs_write\n"
			      "5230\tin\t421\n"
			      "5240\tout\t421\tR\t0\n"
			      "5250\tin\t421\n"
			      "5300\twake\t430\t420\twriter\ttask\tvfs_write\n"
			      "5305\tout\t430\tS\t1\n"
			      "5400\tin\t430\n"
			      "5290\tout\t421\t"), 0);
	T_RUN(t_ng("replay", dir, NULL), 0,
	      "# tid 420, pid ?, 420\n"
	      "#    DURATION |  FUNCTION CALLS\n"
	      "     0.020 us |  vfs_write();\n"
	      "\n"
	      "# tid 421, pid ?, 421\n"
	      "#    DURATION |  FUNCTION CALLS\n"
	      "              |  ksys_read() {\n"
	      "     0.160 us |    vfs_read(); /* on-cpu 30 ns, runnable 30 ns, "
	      "blocked 100 ns, woken by 420 writer in vfs_write */\n"
	      "     0.010 us |    fput();\n"
	      "     0.300 us |  } /* ksys_read: on-cpu 170 ns, runnable 30 ns, "
	      "blocked 100 ns, woken by 420 writer in vfs_write */\n"
	      "\n"
	      "# tid 430, pid ?, 430\n"
	      "#    DURATION |  FUNCTION CALLS\n"
	      "     0.120 us |  pipe_read(); /* on-cpu 25 ns, runnable 95 ns */\n", "");
	/* --oncpu: each duration is its time on a CPU */
	T_RUN(t_ng("replay", "--oncpu", dir, NULL), 0,
	      "# tid 420, pid ?, 420\n"
	      "#    DURATION |  FUNCTION CALLS\n"
	      "     0.020 us |  vfs_write();\n"
	      "\n"
	      "# tid 421, pid ?, 421\n"
	      "#    DURATION |  FUNCTION CALLS\n"
	      "              |  ksys_read() {\n"
	      "     0.030 us |    vfs_read(); /* on-cpu 30 ns, runnable 30 ns, "
	      "blocked 100 ns, woken by 420 writer in vfs_write */\n"
	      "     0.010 us |    fput();\n"
	      "     0.170 us |  } /* ksys_read: on-cpu 170 ns, runnable 30 ns, "
	      "blocked 100 ns, woken by 420 writer in vfs_write */\n"
	      "\n"
	      "# tid 430, pid ?, 430\n"
	      "#    DURATION |  FUNCTION CALLS\n"
	      "     0.025 us |  pipe_read(); /* on-cpu 25 ns, runnable 95 ns */\n", "");
	/* a wake from an interrupt says so, and the call it came in on */
	T_EQ_INT(mkdir(t_path("s2"), 0755), 0);
	T_EQ_INT(t_write_file(t_path("s2/440.txt"), "6000:+do_nanosleep\n6100:POP\n"), 0);
	T_EQ_INT(t_write_file(t_path("s2/sched.tsv"),
			      "# nanograph sched 1\n"
			      "6010\tout\t440\tS\t1\n"
			      "6050\twake\t440\t0\tswapper/0\thardirq\tdefault_idle\n"
			      "6060\tin\t440\n"), 0);
	T_RUN(t_ng("replay", t_path("s2"), NULL), 0,
	      "# tid 440, pid ?, 440\n"
	      "#    DURATION |  FUNCTION CALLS\n"
	      "     0.100 us |  do_nanosleep(); /* on-cpu 50 ns, runnable 10 ns, "
	      "blocked 40 ns, woken by hardirq on 0 swapper/0 in default_idle */\n", "");
	/*
	 * A wake that came while 450 was on its CPU and ended no sleep is
	 * replaced by the wake that ends the sleep after it; an "in" while
	 * 451 is on a CPU drops such a wake; a lost "in" (452 leaves its
	 * CPU twice) ends the first span where the second begins.
	 */
	T_EQ_INT(mkdir(t_path("s3"), 0755), 0);
	T_EQ_INT(t_write_file(t_path("s3/450.txt"), "50:+futex_wait\n3000:POP\n"), 0);
	T_EQ_INT(t_write_file(t_path("s3/451.txt"), "3050:+futex_wait\n3600:POP\n"), 0);
	T_EQ_INT(t_write_file(t_path("s3/452.txt"), "3900:+pipe_read\n4200:POP\n"), 0);
	T_EQ_INT(t_write_file(t_path("s3/sched.tsv"),
			      "# nanograph sched 1\n"
			      "100\twake\t450\t420\tstale\ttask\tfutex_wake\n"
			      "1000\tout\t450\tS\t1\n"
			      "2000\twake\t450\t430\tholder\ttask\tfutex_wake\n"
			      "2010\tin\t450\n"
			      "3100\twake\t451\t420\tstale\ttask\tfutex_wake\n"
			      "3200\tin\t451\n"
			      "3300\tout\t451\tS\t1\n"
			      "3500\tin\t451\n"
			      "4000\tout\t452\tS\t1\n"
			      "4100\tout\t452\tS\t1\n"
			      "4150\tin\t452\n"), 0);
	T_RUN(t_ng("replay", t_path("s3"), NULL), 0,
	      "# tid 450, pid ?, 450\n"
	      "#    DURATION |  FUNCTION CALLS\n"
	      "     2.950 us |  futex_wait(); /* on-cpu 1.940 us, runnable 10 ns, "
	      "blocked 1.000 us, woken by 430 holder in futex_wake */\n"
	      "\n"
	      "# tid 451, pid ?, 451\n"
	      "#    DURATION |  FUNCTION CALLS\n"
	      "     0.550 us |  futex_wait(); /* on-cpu 350 ns, blocked 200 ns */\n"
	      "\n"
	      "# tid 452, pid ?, 452\n"
	      "#    DURATION |  FUNCTION CALLS\n"
	      "     0.300 us |  pipe_read(); /* on-cpu 150 ns, blocked 150 ns */\n", "");
	/* report: of each total, on a CPU and off it; sortable by either */
	T_RUN(t_ng("report", "--ns", "-s", "offcpu", "-n", "3", dir, NULL), 0,
	      "# 3 threads, 5 calls, 410 ns recorded\n"
	      "       Total         Self      Calls          Avg          Max"
	      "        On-CPU      Off-CPU  Function\n"
	      "         300          130          1          300          300"
	      "           170          130  ksys_read\n"
	      "         160          160          1          160          160"
	      "            30          130  vfs_read\n"
	      "         120          120          1          120          120"
	      "            25           95  pipe_read\n", "");
}

/*
 * report --diff of a recording made with --sched and one without: on-CPU
 * and off-CPU columns follow the others (all on a CPU on the side with
 * no sched.tsv), and --sort offcpu orders by the size of their change.
 */
static void test_report_diff_sched(void)
{
	char old[600], new[600], want[3000];

	snprintf(old, sizeof(old), "%s", t_path("old"));
	snprintf(new, sizeof(new), "%s", t_path("new"));
	T_EQ_INT(mkdir(old, 0755), 0);
	T_EQ_INT(mkdir(new, 0755), 0);
	T_EQ_INT(t_write_file(t_path("old/421.txt"),
			      "5000:+ksys_read\n5100:+vfs_read\n5260:POP\n"
			      "5270:+fput\n5280:POP\n5300:POP\n"), 0);
	T_EQ_INT(t_write_file(t_path("old/sched.tsv"),
			      "# nanograph sched 1\n5110\tout\t421\tS\t1\n"
			      "5210\twake\t421\t420\twriter\ttask\tvfs_write\n"
			      "5230\tin\t421\n"), 0);
	T_EQ_INT(t_write_file(t_path("new/440.txt"), "6000:+vfs_read\n6100:POP\n"), 0);
	snprintf(want, sizeof(want),
		 "# old %s: 1 thread, 3 calls, 300 ns recorded\n"
		 "# new %s: 1 thread, 1 call, 100 ns recorded\n"
		 " OldCalls  NewCalls      Diff        %%"
		 "    OldTotal    NewTotal        Diff        %%"
		 "     OldSelf     NewSelf        Diff        %%"
		 "      OldAvg      NewAvg        Diff        %%"
		 "    OldOnCPU    NewOnCPU        Diff        %%"
		 "   OldOffCPU   NewOffCPU        Diff        %%  Function\n"
		 "        1         0        -1     gone"
		 "         300           0        -300     gone"
		 "         130           0        -130     gone"
		 "         300           0        -300     gone"
		 "         180           0        -180     gone"
		 "         120           0        -120     gone  ksys_read\n"
		 "        1         1         0     0.0%%"
		 "         160         100         -60   -37.5%%"
		 "         160         100         -60   -37.5%%"
		 "         160         100         -60   -37.5%%"
		 "          40         100         +60  +150.0%%"
		 "         120           0        -120  -100.0%%  vfs_read\n",
		 old, new);
	T_RUN(t_ng("report", "--diff", "--ns", "-s", "offcpu", "-n", "2", old, new, NULL),
	      0, want, "");
}

/* Past NG_REPLAY_MAX_INDENT levels the indentation stops and the depth shows. */
static void test_replay_indent_cap(void)
{
	char *buf, *p, *want, *w;
	size_t d, n = NG_REPLAY_MAX_INDENT + 3;
	struct t_result r;
	bool ok;

	buf = malloc(32 * n);
	want = malloc(400 * n);
	T_ASSERT(buf && want);
	p = buf;
	for (d = 0; d < n; d++)
		p += sprintf(p, "%zu:+f%zu\n", d, d);
	for (d = n; d-- > 0; )
		p += sprintf(p, "%zu:POP\n", 1000 - d);
	T_EQ_INT(mkdir(t_path("r"), 0755), 0);
	T_EQ_INT(t_write_file(t_path("r/1.txt"), buf), 0);
	w = want + sprintf(want, "# tid 1, pid ?, 1\n#    DURATION |  FUNCTION CALLS\n");
	for (d = 0; d < n - 1; d++) {
		w += sprintf(w, "              |  %*s", (int)(2 * (d < 50 ? d : 50)), "");
		if (d >= 50)
			w += sprintf(w, "[%zu] ", d);
		w += sprintf(w, "f%zu() {\n", d);
	}
	w += sprintf(w, "     0.%03u us |  %100s[52] f52();\n",
		     (unsigned int)(1000 - 2 * (n - 1)), "");
	for (d = n - 1; d-- > 0; ) {
		w += sprintf(w, "     %u.%03u us |  %*s", (unsigned int)((1000 - 2 * d) / 1000),
			     (unsigned int)((1000 - 2 * d) % 1000),
			     (int)(2 * (d < 50 ? d : 50)), "");
		if (d >= 50)
			w += sprintf(w, "[%zu] ", d);
		w += sprintf(w, "} /* f%zu */\n", d);
	}
	r = t_ng("replay", t_path("r"), NULL);
	ok = t_result_is(r, 0, want, "");
	free(buf);
	free(want);
	T_ASSERT(ok);
	T_EQ_INT(NG_REPLAY_MAX_INDENT, 50);
}

/* ---- the filters, in the library ---- */

/* The walk of @text (written to f.txt) through @f, as a trace. */
static const char *walk(const struct ng_filter *f, const char *text)
{
	static struct t_trace tr;
	struct ng_pp_visitor v = t_trace_visitor(&tr);
	struct ng_pp_bad bad;
	int ret;

	tr.len = 0;
	tr.buf[0] = '\0';
	if (t_write_file(t_path("f.txt"), text))
		return "(cannot write f.txt)";
	ret = ng_filter_walk(f, t_path("f.txt"), &v, &bad);
	if (ret)
		snprintf(tr.buf, sizeof(tr.buf), "(error %d)", ret);
	return tr.buf;
}

/* A fresh filter for each case, from the setters and adders. */
static struct ng_filter *filter(uint64_t threshold, uint64_t depth,
				uint64_t start, uint64_t end, const char *show,
				const char *hide)
{
	struct ng_filter *f;

	if (ng_filter_new(&f))
		return NULL;
	ng_filter_set_threshold(f, threshold);
	ng_filter_set_depth(f, depth);
	ng_filter_set_range(f, start, end);
	if ((show && ng_filter_add_func(f, show, false)) ||
	    (hide && ng_filter_add_func(f, hide, true))) {
		ng_filter_free(f);
		return NULL;
	}
	return f;
}

#define ALL	UINT64_MAX

/* Each filter alone and together, on the same file, call by call. */
static void test_filter_walk(void)
{
	static const struct {
		uint64_t threshold, depth, start, end;
		const char *show, *hide, *want;
	} cases[] = {
		{ 0, 0, 0, ALL, NULL, NULL,
		  "+a@100/0 +b@110/1 -b[110,130]/1 +b@140/1 +c [mod]@145/2 "
		  "-c [mod][145,146]/2 -b[140,150]/1 -a[100,200]/0 " },
		/* durations: c (1 ns) goes, then the second b (10), then all */
		{ 10, 0, 0, ALL, NULL, NULL,
		  "+a@100/0 +b@110/1 -b[110,130]/1 +b@140/1 -b[140,150]/1 -a[100,200]/0 " },
		{ 11, 0, 0, ALL, NULL, NULL,
		  "+a@100/0 +b@110/1 -b[110,130]/1 -a[100,200]/0 " },
		{ 100, 0, 0, ALL, NULL, NULL, "+a@100/0 -a[100,200]/0 " },
		{ 101, 0, 0, ALL, NULL, NULL, "" },
		/* depth */
		{ 0, 2, 0, ALL, NULL, NULL,
		  "+a@100/0 +b@110/1 -b[110,130]/1 +b@140/1 -b[140,150]/1 -a[100,200]/0 " },
		{ 0, 1, 0, ALL, NULL, NULL, "+a@100/0 -a[100,200]/0 " },
		/* -F: the subtrees, their depth from the -F call */
		{ 0, 0, 0, ALL, "b", NULL,
		  "+b@110/0 -b[110,130]/0 +b@140/0 +c [mod]@145/1 -c [mod][145,146]/1 -b[140,150]/0 " },
		{ 0, 0, 0, ALL, "c", NULL, "+c [mod]@145/0 -c [mod][145,146]/0 " },
		{ 0, 0, 0, ALL, "* [mod]", NULL, "+c [mod]@145/0 -c [mod][145,146]/0 " },
		{ 0, 0, 0, ALL, "nothing", NULL, "" },
		{ 0, 1, 0, ALL, "b", NULL, "+b@110/0 -b[110,130]/0 +b@140/0 -b[140,150]/0 " },
		/* -N: the subtrees go */
		{ 0, 0, 0, ALL, NULL, "b", "+a@100/0 -a[100,200]/0 " },
		{ 0, 0, 0, ALL, NULL, "c*",
		  "+a@100/0 +b@110/1 -b[110,130]/1 +b@140/1 -b[140,150]/1 -a[100,200]/0 " },
		{ 0, 0, 0, ALL, "b", "c", "+b@110/0 -b[110,130]/0 +b@140/0 -b[140,150]/0 " },
		{ 0, 0, 0, ALL, "c", "a", "" },
		/* the range: calls that overlap it, ends included */
		{ 0, 0, 131, 139, NULL, NULL, "+a@100/0 -a[100,200]/0 " },
		{ 0, 0, 146, 146, NULL, NULL,
		  "+a@100/0 +b@140/1 +c [mod]@145/2 -c [mod][145,146]/2 -b[140,150]/1 -a[100,200]/0 " },
		{ 0, 0, 0, 110, NULL, NULL, "+a@100/0 +b@110/1 -b[110,130]/1 -a[100,200]/0 " },
		{ 0, 0, 130, 140, NULL, NULL,
		  "+a@100/0 +b@110/1 -b[110,130]/1 +b@140/1 -b[140,150]/1 -a[100,200]/0 " },
		{ 0, 0, 201, ALL, NULL, NULL, "" },
		{ 0, 0, 0, 99, NULL, NULL, "" },
		/* together: each applies */
		{ 10, 0, 141, ALL, "b", NULL, "+b@140/0 -b[140,150]/0 " },
		{ 1, 2, 146, ALL, "b", NULL, "+b@140/0 +c [mod]@145/1 -c [mod][145,146]/1 -b[140,150]/0 " },
	};
	struct ng_filter *f;
	size_t i, bad = 0;
	const char *got;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		f = filter(cases[i].threshold, cases[i].depth, cases[i].start,
			   cases[i].end, cases[i].show, cases[i].hide);
		T_ASSERT(f);
		got = walk(f, t_thread5);
		if (strcmp(got, cases[i].want)) {
			t_diag("case %zu: got  %s", i, got);
			t_diag("case %zu: want %s", i, cases[i].want);
			bad++;
		}
		ng_filter_free(f);
	}
	T_EQ_U64(bad, 0);
	/* no filter at all: the plain walk */
	T_EQ_STR(walk(NULL, t_thread5), cases[0].want);
}

/*
 * A caller waits for its first shown call: the one before it that is
 * not shown leaves no trace, and the caller still comes first. Nested -F
 * calls count depth from the outermost; -F under -N stays hidden.
 */
static void test_filter_walk_order(void)
{
	struct ng_filter *f = filter(10, 0, 0, ALL, NULL, NULL);

	T_ASSERT(f);
	T_EQ_STR(walk(f, "0:+p\n1:+x\n2:POP\n3:+y\n20:POP\n30:POP\n"),
		 "+p@0/0 +y@3/1 -y[3,20]/1 -p[0,30]/0 ");
	/* a deep chain waits whole, then comes out outermost first */
	T_EQ_STR(walk(f, "0:+a\n0:+b\n0:+c\n1:+d\n2:POP\n11:POP\n11:POP\n11:POP\n"),
		 "+a@0/0 +b@0/1 +c@0/2 -c[0,11]/2 -b[0,11]/1 -a[0,11]/0 ");
	ng_filter_free(f);
	f = filter(0, 0, 0, ALL, "r", NULL);
	T_ASSERT(f);
	T_EQ_STR(walk(f, "0:+s\n0:+r\n10:+r\n20:+q\n30:POP\n40:POP\n50:POP\n60:POP\n"),
		 "+r@0/0 +r@10/1 +q@20/2 -q[20,30]/2 -r[10,40]/1 -r[0,50]/0 ");
	ng_filter_free(f);
	f = filter(0, 0, 0, ALL, "q", "r");
	T_ASSERT(f);
	T_EQ_STR(walk(f, "0:+r\n10:+q\n20:POP\n30:POP\n40:+q\n50:POP\n"),
		 "+q@40/0 -q[40,50]/0 ");
	ng_filter_free(f);
}

/* What a glob matches: the label, or the name before " [module]". */
static void test_glob(void)
{
	static const struct {
		const char *glob, *label;
		bool match;
	} cases[] = {
		{ "vfs_read", "vfs_read", true },
		{ "vfs_*", "vfs_read", true },
		{ "vfs_*", "vfs_read [m]", true },
		{ "*read", "vfs_read [m]", true },
		{ "* [ext4]", "f [ext4]", true },
		{ "* [ext4]", "f", false },
		{ "f", "f [m]", true },
		{ "f [m]", "f [m]", true },
		{ "f [n]", "f [m]", false },
		{ "f", "f.cold", false },
		{ "f*", "f.cold", true },
		{ "a*b*c", "axxbyyc", true },
		{ "a*b*c", "axxbyy", false },
		{ "*ab", "aab", true },
		{ "a*a", "a", false },
		{ "*", "anything [m]", true },
		{ "**", "", true },
		{ "*x*", "abc", false },
		{ "[m]", "[m]", true },
		{ "vfs_read", "vfs_readv", false },
		{ "?", "a", false },
	};
	size_t i, bad = 0;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (ng_glob_match(cases[i].glob, cases[i].label) != cases[i].match) {
			t_diag("'%s' vs '%s': want %d", cases[i].glob,
			       cases[i].label, cases[i].match);
			bad++;
		}
	T_EQ_U64(bad, 0);
}

/* Durations with units and fractions, time ranges, tid and comm lists. */
static void test_filter_values(void)
{
	static const struct {
		const char *s;
		int ret;
		uint64_t ns;
	} durs[] = {
		{ "500ns", 0, 500 }, { "500", 0, 500 }, { "10us", 0, 10000 },
		{ "1.5us", 0, 1500 }, { "2ms", 0, 2000000 },
		{ "1.5s", 0, 1500000000 }, { "0.000000001s", 0, 1 },
		{ "0", 0, 0 }, { "18446744073709551615", 0, UINT64_MAX },
		{ "18446744073709551616", -ERANGE, 0 },
		{ "18446744073709552s", -ERANGE, 0 },
		{ "1.0001us", -EINVAL, 0 }, { "1.5ns", -EINVAL, 0 },
		{ "1.5", -EINVAL, 0 }, { "10 us", -EINVAL, 0 },
		{ "us", -EINVAL, 0 }, { "1m", -EINVAL, 0 }, { "-1us", -EINVAL, 0 },
		{ "", -EINVAL, 0 }, { "1US", -EINVAL, 0 }, { ".5ms", -EINVAL, 0 },
	};
	struct ng_filter *f;
	uint64_t v, a, b;
	size_t i;

	for (i = 0; i < sizeof(durs) / sizeof(durs[0]); i++) {
		v = 12345;
		if (ng_parse_duration(durs[i].s, &v) != durs[i].ret ||
		    (!durs[i].ret && v != durs[i].ns)) {
			t_diag("duration '%s'", durs[i].s);
			T_EQ_INT(ng_parse_duration(durs[i].s, &v), durs[i].ret);
			T_EQ_U64(v, durs[i].ns);
		}
	}
	T_EQ_INT(ng_parse_time_range("100~200", &a, &b), 0);
	T_EQ_U64(a, 100);
	T_EQ_U64(b, 200);
	T_EQ_INT(ng_parse_time_range("~200", &a, &b), 0);
	T_EQ_U64(a, 0);
	T_EQ_U64(b, 200);
	T_EQ_INT(ng_parse_time_range("100~", &a, &b), 0);
	T_EQ_U64(a, 100);
	T_EQ_U64(b, UINT64_MAX);
	T_EQ_INT(ng_parse_time_range("7~7", &a, &b), 0);
	T_EQ_INT(ng_parse_time_range("~", &a, &b), 0);
	T_EQ_U64(a, 0);
	T_EQ_U64(b, UINT64_MAX);
	T_EQ_INT(ng_parse_time_range("200~100", &a, &b), -EINVAL);
	T_EQ_INT(ng_parse_time_range("100", &a, &b), -EINVAL);
	T_EQ_INT(ng_parse_time_range("1~2~3", &a, &b), -EINVAL);
	T_EQ_INT(ng_parse_time_range("a~", &a, &b), -EINVAL);
	T_EQ_INT(ng_parse_time_range("1us~2us", &a, &b), -EINVAL);
	T_EQ_INT(ng_parse_time_range(" 1~2", &a, &b), -EINVAL);
	T_EQ_INT(ng_parse_time_range("1~18446744073709551616", &a, &b), -ERANGE);

	T_EQ_INT(ng_filter_new(&f), 0);
	T_ASSERT(ng_filter_empty(f));
	T_ASSERT(ng_filter_empty(NULL));
	T_EQ_INT(ng_filter_add_tids(f, "5"), 0);
	T_EQ_INT(ng_filter_add_tids(f, "0-1,12"), 0);
	T_EQ_INT(ng_filter_add_tids(f, "x"), -EINVAL);
	T_EQ_INT(ng_filter_add_tids(f, "5,"), -EINVAL);
	T_EQ_INT(ng_filter_add_tids(f, ",5"), -EINVAL);
	T_EQ_INT(ng_filter_add_tids(f, "0-"), -EINVAL);
	T_EQ_INT(ng_filter_add_tids(f, "-1"), -EINVAL);
	T_EQ_INT(ng_filter_add_tids(f, "2147483648"), -EINVAL);
	T_EQ_INT(ng_filter_add_tids(f, "5, 6"), -EINVAL);
	T_EQ_INT(ng_filter_add_comms(f, "a,b"), 0);
	T_EQ_INT(ng_filter_add_comms(f, "a,,b"), -EINVAL);
	T_EQ_INT(ng_filter_add_comms(f, ","), -EINVAL);
	T_EQ_INT(ng_filter_add_comms(f, ""), -EINVAL);
	T_EQ_INT(ng_filter_add_func(f, "", false), -EINVAL);
	T_EQ_INT(ng_filter_add_func(f, "", true), -EINVAL);
	T_ASSERT(!ng_filter_empty(f));
	ng_filter_free(f);
}

/* --tid and --comm choose threads; a value that names none is refused. */
static void test_filter_threads(void)
{
	struct ng_recording rec;
	struct ng_filter *f;
	const char *miss = NULL;
	bool comm = false;
	char dir[600];

	T_EQ_INT(make_cat(dir, sizeof(dir)), 0);
	T_EQ_INT(t_write_file(cp("413.txt"), "1:+f\n2:POP\n"), 0);
	T_EQ_INT(t_write_file(cp("threads.tsv"),
			      "tid\tpid\tcomm\n0-1\t0\tswapper/1\n412\t412\tcat\n413\t412\tcat\n"), 0);

	T_EQ_INT(ng_filter_new(&f), 0);
	T_EQ_INT(ng_filter_add_tids(f, "413,0-1"), 0);
	T_EQ_INT(ng_recording_open(&rec, dir), 0);
	T_EQ_INT(ng_recording_filter(&rec, f, &miss, &comm), 0);
	T_EQ_INT(rec.nr_threads, 2);
	T_EQ_STR(rec.threads[0].tid, "0-1");
	T_EQ_STR(rec.threads[1].tid, "413");
	T_ASSERT(rec.filter == f);
	ng_recording_close(&rec);
	ng_filter_free(f);

	/* comm: every thread of that name; with a tid, both must hold */
	T_EQ_INT(ng_filter_new(&f), 0);
	T_EQ_INT(ng_filter_add_comms(f, "cat"), 0);
	T_EQ_INT(ng_recording_open(&rec, dir), 0);
	T_EQ_INT(ng_recording_filter(&rec, f, &miss, &comm), 0);
	T_EQ_INT(rec.nr_threads, 2);
	T_EQ_STR(rec.threads[0].tid, "412");
	ng_recording_close(&rec);
	T_EQ_INT(ng_filter_add_tids(f, "0-1,413"), 0);
	T_EQ_INT(ng_recording_open(&rec, dir), 0);
	T_EQ_INT(ng_recording_filter(&rec, f, &miss, &comm), 0);
	T_EQ_INT(rec.nr_threads, 1);
	T_EQ_STR(rec.threads[0].tid, "413");
	ng_recording_close(&rec);
	ng_filter_free(f);

	/* a value naming no thread: which one, and the recording unchanged */
	T_EQ_INT(ng_filter_new(&f), 0);
	T_EQ_INT(ng_filter_add_tids(f, "412,99"), 0);
	T_EQ_INT(ng_recording_open(&rec, dir), 0);
	T_EQ_INT(ng_recording_filter(&rec, f, &miss, &comm), -ESRCH);
	T_EQ_STR(miss, "99");
	T_ASSERT(!comm);
	T_EQ_INT(rec.nr_threads, 3);
	T_ASSERT(!rec.filter);
	ng_recording_close(&rec);
	ng_filter_free(f);
	T_EQ_INT(ng_filter_new(&f), 0);
	T_EQ_INT(ng_filter_add_comms(f, "cat,dog"), 0);
	T_EQ_INT(ng_recording_open(&rec, dir), 0);
	T_EQ_INT(ng_recording_filter(&rec, f, &miss, &comm), -ESRCH);
	T_EQ_STR(miss, "dog");
	T_ASSERT(comm);
	ng_recording_close(&rec);
	ng_filter_free(f);
}

/* ---- the filters, in the commands ---- */

/* A command's words between its name and DIR, then what it prints. */
struct words_out {
	const char *args[8];	/* NULL after the last */
	const char *out;
};

/*
 * Whether "nanograph @cmd ARGS... @dir" (@args NULL-terminated, at most
 * 8; no @dir if NULL) exits with @st and prints @out and @err; names
 * the command line if not.
 */
static bool run_words(const char *cmd, const char *const *args,
		      const char *dir, int st, const char *out, const char *err)
{
	char *argv[12] = { NULL, (char *)cmd };
	char line[512];
	size_t i, n = 0;

	for (i = 0; i < 8 && args[i]; i++)
		argv[i + 2] = (char *)args[i];
	argv[i + 2] = (char *)dir;
	if (t_result_is(t_nanograph_run(argv, NULL), st, out, err))
		return true;
	for (i = 1; argv[i] && n < sizeof(line); i++)
		n += snprintf(line + n, sizeof(line) - n, " %s", argv[i]);
	t_diag("  for:%s", line);
	return false;
}

/* Each of @cases run by @cmd on @dir: how many printed otherwise. */
static size_t run_cases(const char *cmd, const struct words_out *cases,
			size_t nr, const char *dir)
{
	size_t i, bad = 0;

	for (i = 0; i < nr; i++)
		bad += !run_words(cmd, cases[i].args, dir, 0, cases[i].out, "");
	return bad;
}

/* Each filter's effect on replay, byte for byte. */
static void test_cmd_replay_filters(void)
{
	static const struct words_out cases[] = {
		/* -t: do_idle keeps 6 us but none of its calls, so it is a leaf */
		{ { "-t", "3us" },
		  IDLE1_HEAD "     6.000 us |  do_idle();\n"
		  "\n" CAT412_HEAD CAT412_READ1_EXT4 },
		/* the boundary is included: 3.1 us */
		{ { "--time-threshold=3100", "--tid", "412" },
		  CAT412_HEAD CAT412_READ1_EXT4 },
		/* -D */
		{ { "-D", "1" },
		  IDLE1_HEAD "     6.000 us |  do_idle();\n"
		  "\n" CAT412_HEAD
		  "     4.100 us |  ksys_read();\n"
		  "     1.900 us |  ksys_read();\n" },
		/* -F with -D: vfs_read and its callees, a tree of its own; no idle block */
		{ { "-F", "vfs_*", "--depth", "2" },
		  CAT412_HEAD
		  "              |  vfs_read() {\n"
		  "     0.120 us |    rw_verify_area();\n"
		  "     3.300 us |    ext4_file_read_iter [ext4]();\n"
		  "     3.750 us |  } /* vfs_read */\n"
		  "              |  vfs_read() {\n"
		  "     0.080 us |    rw_verify_area();\n"
		  "     1.300 us |    ext4_file_read_iter [ext4]();\n"
		  "     1.600 us |  } /* vfs_read */\n" },
		/* -F on a module's function by its name; repeated -F */
		{ { "-F", "ext4_file_read_iter", "-F", "__irq_exit_rcu" },
		  IDLE1_HEAD
		  "              |  __irq_exit_rcu() {\n"
		  "     0.250 us |    __irq_exit_rcu();\n"
		  "     0.500 us |  } /* __irq_exit_rcu */\n"
		  "\n" CAT412_HEAD
		  "              |  ext4_file_read_iter [ext4]() {\n"
		  "     3.100 us |    filemap_read();\n"
		  "     3.300 us |  } /* ext4_file_read_iter [ext4] */\n"
		  "              |  ext4_file_read_iter [ext4]() {\n"
		  "     1.200 us |    filemap_read();\n"
		  "     1.300 us |  } /* ext4_file_read_iter [ext4] */\n" },
		/* -N hides the subtree; --comm picks the thread */
		{ { "-N", "* [ext4]", "--comm", "cat" },
		  CAT412_HEAD
		  "              |  ksys_read() {\n"
		  "              |    vfs_read() {\n"
		  "     0.120 us |      rw_verify_area();\n"
		  "     3.750 us |    } /* vfs_read */\n"
		  "     4.100 us |  } /* ksys_read */\n"
		  "              |  ksys_read() {\n"
		  "              |    vfs_read() {\n"
		  "     0.080 us |      rw_verify_area();\n"
		  "     1.600 us |    } /* vfs_read */\n"
		  "     1.900 us |  } /* ksys_read */\n" },
		/* --time-range: what overlaps 5002300..5003000, ends included */
		{ { "--time-range", "5002300~5003000" },
		  IDLE1_TREE "\n" CAT412_HEAD CAT412_READ1_EXT4 },
		{ { "--time-range", "5011900~", "--tid", "0-1,412" },
		  CAT412_HEAD "     1.900 us |  ksys_read();\n" },
		/* filters that leave nothing: nothing is written */
		{ { "-t", "1s" }, "" },
		/* the values of one kind are alternatives */
		{ { "--tid", "412", "--tid", "0-1" }, EXAMPLE_TREE },
		{ { "--comm", "cat,swapper/1" }, EXAMPLE_TREE },
	};
	char dir[600];

	T_EQ_INT(make_cat(dir, sizeof(dir)), 0);
	T_EQ_U64(run_cases("replay", cases, sizeof(cases) / sizeof(cases[0]),
			   dir), 0);
}

#define REPORT_HEAD \
	"       Total         Self      Calls          Avg          Max  Function\n"

/* report counts only what the filters show; -t stays --threads there. */
static void test_cmd_report_filters(void)
{
	static const struct words_out cases[] = {
		{ { "--ns", "--time-threshold", "1us" },
		  "# 2 threads, 9 calls, 11900 ns recorded\n"
		  REPORT_HEAD
		  "        6000         5500          1         6000         6000  do_idle\n"
		  "        6000          650          2         3000         4100  ksys_read\n"
		  "        5350          550          2         2675         3750  vfs_read\n"
		  "        4600          300          2         2300         3300  ext4_file_read_iter [ext4]\n"
		  "        4300         4300          2         2150         3100  filemap_read\n" },
		{ { "--ns", "-t", "-F", "vfs_read", "-N", "rw_*" },
		  "# 2 threads, 6 calls, 11550 ns recorded\n"
		  "\n"
		  "# tid 0-1, pid 0, swapper/1: 0 calls, 0 ns recorded\n"
		  REPORT_HEAD
		  "\n"
		  "# tid 412, pid 412, cat: 6 calls, 11550 ns recorded\n"
		  REPORT_HEAD
		  "        5350          550          2         2675         3750  vfs_read\n"
		  "        4600          300          2         2300         3300  ext4_file_read_iter [ext4]\n"
		  "        4300         4300          2         2150         3100  filemap_read\n" },
		{ { "--ns", "--comm", "swapper/1", "-D", "1" },
		  "# 1 thread, 1 call, 6000 ns recorded\n"
		  REPORT_HEAD
		  "        6000         5500          1         6000         6000  do_idle\n" },
		{ { "--ns", "--time-range", "~5000399" },
		  "# 2 threads, 2 calls, 4100 ns recorded\n"
		  REPORT_HEAD
		  "        4100          350          1         4100         4100  ksys_read\n"
		  "        3750          330          1         3750         3750  vfs_read\n" },
	};
	char dir[600];

	T_EQ_INT(make_cat(dir, sizeof(dir)), 0);
	T_EQ_U64(run_cases("report", cases, sizeof(cases) / sizeof(cases[0]),
			   dir), 0);
}

/* export writes what the filters show; with -F, stacks start there. */
static void test_cmd_export_filters(void)
{
	char dir[600];

	T_EQ_INT(make_cat(dir, sizeof(dir)), 0);
	T_RUN(t_ng("export", "--folded", "-o", "-", "-F", "vfs_read", "-N", "filemap_read",
		 dir, NULL), 0,
	      "cat;vfs_read 550\n"
	      "cat;vfs_read;ext4_file_read_iter [ext4] 300\n"
	      "cat;vfs_read;rw_verify_area 200\n", "");
	T_RUN(t_ng("export", "--chrome", "-o", "-", "--tid", "0-1", "-t", "400", dir, NULL), 0,
	      "{\"traceEvents\":[\n"
	      "{\"ph\":\"M\",\"pid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"idle\"}},\n"
	      "{\"ph\":\"M\",\"pid\":0,\"tid\":4194305,\"name\":\"thread_name\",\"args\":{\"name\":\"swapper/1\"}},\n"
	      "{\"ph\":\"X\",\"pid\":0,\"tid\":4194305,\"ts\":5002.000,\"dur\":6.000,\"name\":\"do_idle\"},\n"
	      "{\"ph\":\"X\",\"pid\":0,\"tid\":4194305,\"ts\":5002.100,\"dur\":0.500,\"name\":\"__irq_exit_rcu\"}\n"
	      "],\"displayTimeUnit\":\"ns\"}\n", "");
	T_RUN(t_ng("export", "--perfetto", "-o", t_path("t.pf"), "--comm", "cat",
		 "--time-range", "5010000~", dir, NULL), 0, "", "");
	T_ASSERT(t_exists(t_path("t.pf")));
}

/* ---- errors ---- */

/*
 * Every filter option of every command that takes it, used wrongly:
 * exit 2, and one line naming the option as it was typed and the value.
 */
static void test_filter_option_errors(void)
{
	static const char *const cmds[] = { "replay", "report", "export" };
	static const struct {
		const char *args[3];	/* two words at most, then NULL */
		const char *msg;
	} cases[] = {
		{ { "--time-threshold", "x" }, "--time-threshold wants a duration such as 500ns, 10us, 2ms or 1.5s, not 'x'" },
		{ { "--time-threshold=1.5ns" }, "--time-threshold wants a duration such as 500ns, 10us, 2ms or 1.5s, not '1.5ns'" },
		{ { "--time-thr", "5m" }, "--time-threshold wants a duration such as 500ns, 10us, 2ms or 1.5s, not '5m'" },
		{ { "--time-threshold", "-1us" }, "--time-threshold wants a duration such as 500ns, 10us, 2ms or 1.5s, not '-1us'" },
		{ { "--time-threshold", "18446744073709552s" }, "--time-threshold wants a duration such as 500ns, 10us, 2ms or 1.5s, not '18446744073709552s'" },
		{ { "--time-threshold" }, "option '--time-threshold' needs a value" },
		{ { "--time-threshold", "" }, "option '--time-threshold' needs a value" },
		{ { "-D", "x" }, "-D wants a depth (0: no limit) from 0 to 2147483647, not 'x'" },
		{ { "-D", "-1" }, "-D wants a depth (0: no limit) from 0 to 2147483647, not '-1'" },
		{ { "-D2147483648" }, "-D wants a depth (0: no limit) from 0 to 2147483647, not '2147483648'" },
		{ { "--depth=1.5" }, "--depth wants a depth (0: no limit) from 0 to 2147483647, not '1.5'" },
		{ { "-D" }, "option '-D' needs a value" },
		{ { "-D", "" }, "option '-D' needs a value" },
		{ { "--tid", "abc" }, "--tid wants thread ids separated by commas (412, or 0-CPU for a CPU's idle task), not 'abc'" },
		{ { "--tid", "5,,6" }, "--tid wants thread ids separated by commas (412, or 0-CPU for a CPU's idle task), not '5,,6'" },
		{ { "--tid=0-" }, "--tid wants thread ids separated by commas (412, or 0-CPU for a CPU's idle task), not '0-'" },
		{ { "--tid", "-5" }, "--tid wants thread ids separated by commas (412, or 0-CPU for a CPU's idle task), not '-5'" },
		{ { "--tid" }, "option '--tid' needs a value" },
		{ { "--tid=" }, "option '--tid' needs a value" },
		{ { "--comm", "a,,b" }, "--comm wants thread names separated by commas, not 'a,,b'" },
		{ { "--comm", "cat," }, "--comm wants thread names separated by commas, not 'cat,'" },
		{ { "--comm" }, "option '--comm' needs a value" },
		{ { "--comm", "" }, "option '--comm' needs a value" },
		{ { "-F" }, "option '-F' needs a value" },
		{ { "-F", "" }, "option '-F' needs a value" },
		{ { "--filter=" }, "option '--filter' needs a value" },
		{ { "-N" }, "option '-N' needs a value" },
		{ { "-N", "" }, "option '-N' needs a value" },
		{ { "--notrace", "" }, "option '--notrace' needs a value" },
		{ { "--time-range", "5" }, "--time-range wants START~END, nanoseconds with START at most END (either may be left out), not '5'" },
		{ { "--time-range", "9~1" }, "--time-range wants START~END, nanoseconds with START at most END (either may be left out), not '9~1'" },
		{ { "--time-range", "1ms~2ms" }, "--time-range wants START~END, nanoseconds with START at most END (either may be left out), not '1ms~2ms'" },
		{ { "--time-range=1~2~3" }, "--time-range wants START~END, nanoseconds with START at most END (either may be left out), not '1~2~3'" },
		{ { "--time-range" }, "option '--time-range' needs a value" },
		{ { "--time-range", "" }, "option '--time-range' needs a value" },
		{ { "--time", "1" }, "unknown option '--time'" },
	};
	char want[512];
	size_t c, i, bad = 0;

	for (c = 0; c < 3; c++)
		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			snprintf(want, sizeof(want), "nanograph %s: %s\nTry 'nanograph help %s'.\n",
				 cmds[c], cases[i].msg, cmds[c]);
			bad += !run_words(cmds[c], cases[i].args, NULL, 2, "", want);
		}
	T_EQ_U64(bad, 0);
}

/* The short -t: the threshold in replay and export; report's --threads. */
static void test_filter_option_short_t(void)
{
	T_RUN(t_ng("replay", "-t", "1x", NULL), 2, "",
	      "nanograph replay: -t wants a duration such as 500ns, 10us, 2ms or 1.5s, not '1x'\n"
	      "Try 'nanograph help replay'.\n");
	T_RUN(t_ng("export", "-t1x", NULL), 2, "",
	      "nanograph export: -t wants a duration such as 500ns, 10us, 2ms or 1.5s, not '1x'\n"
	      "Try 'nanograph help export'.\n");
	T_RUN(t_ng("replay", "-t", NULL), 2, "",
	      "nanograph replay: option '-t' needs a value\n"
	      "Try 'nanograph help replay'.\n");
	T_RUN(t_ng("report", "-t", "1us", "x", NULL), 2, "",
	      "nanograph report: give one recording directory\n"
	      "Try 'nanograph help report'.\n");
}

/* replay's own mistakes, and what it says of a bad recording. */
static void test_cmd_replay_errors(void)
{
	char dir[600], want[2000];

	T_EQ_INT(make_cat(dir, sizeof(dir)), 0);
	T_RUN(t_ng("replay", NULL), 2, "",
	      "nanograph replay: no recording directory given\n"
	      "Try 'nanograph help replay'.\n");
	T_RUN(t_ng("replay", dir, dir, NULL), 2, "",
	      "nanograph replay: give one recording directory\n"
	      "Try 'nanograph help replay'.\n");
	T_RUN(t_ng("replay", "-o", "", dir, NULL), 2, "",
	      "nanograph replay: option '-o' needs a value\n"
	      "Try 'nanograph help replay'.\n");
	T_RUN(t_ng("replay", "--abstime=1", dir, NULL), 2, "",
	      "nanograph replay: option '--abstime' takes no value\n"
	      "Try 'nanograph help replay'.\n");
	T_RUN(t_ng("replay", "--bogus", dir, NULL), 2, "",
	      "nanograph replay: unknown option '--bogus'\n"
	      "Try 'nanograph help replay'.\n");
	T_RUN(t_ng("replay", "-h", NULL), 0, NULL, "");
	snprintf(want, sizeof(want),
		 "nanograph replay: --oncpu needs a recording made with 'record --sched': %s has no sched.tsv\n"
		 "Try 'nanograph help replay'.\n", dir);
	T_RUN(t_ng("replay", "--oncpu", dir, NULL), 2, "", want);

	/* values that name no thread of the recording: exit 1 */
	snprintf(want, sizeof(want), "nanograph replay: --tid 99: %s has no such thread (no %s/99.txt)\n",
		 dir, dir);
	T_RUN(t_ng("replay", "--tid", "412,99", dir, NULL), 1, "", want);
	snprintf(want, sizeof(want), "nanograph report: --comm dog: no thread of %s has this name (see %s/threads.tsv)\n",
		 dir, dir);
	T_RUN(t_ng("report", "--comm", "dog", dir, NULL), 1, "", want);

	/* a bad file: one line, nothing on stdout, no file under -o's name */
	T_EQ_INT(t_write_file(cp("7.txt"), "100:+a\n90:POP\n"), 0);
	snprintf(want, sizeof(want),
		 "nanograph replay: %s/7.txt:2: not a valid push/pop line: "
		 "timestamp 90 is before the previous 100 (see 'nanograph check %s/7.txt')\n",
		 dir, dir);
	T_RUN(t_ng("replay", dir, NULL), 1, "", want);
	T_RUN(t_ng("replay", "-o", t_path("out.txt"), dir, NULL), 1, "", want);
	T_ASSERT(!t_exists(t_path("out.txt")));
	T_ASSERT(!t_temp_of(t_path("out.txt")));
	/* a thread the filters leave out is not read */
	T_RUN(t_ng("replay", "--tid", "0-1", "-o", t_path("out.txt"), dir, NULL), 0, "", "");
	T_FILE_EQ(t_path("out.txt"), IDLE1_TREE);

	snprintf(want, sizeof(want), "nanograph replay: cannot write %s: No such file or directory\n",
		 t_path("no/such/out.txt"));
	T_RUN(t_ng("replay", "-o", t_path("no/such/out.txt"), "--tid", "0-1", dir, NULL), 1, "", want);
	T_EQ_INT(mkdir(t_path("empty"), 0755), 0);
	snprintf(want, sizeof(want),
		 "nanograph replay: %s: no push/pop files (<tid>.txt) here: "
		 "is it a 'nanograph record -o' directory?\n", t_path("empty"));
	T_RUN(t_ng("replay", t_path("empty"), NULL), 1, "", want);
}

/* replay is in the command list and has help. */
static void test_replay_help(void)
{
	struct t_result r = t_ng("help", NULL);
	bool ok = r.status == 0 && r.out &&
		  strstr(r.out, "\n  replay [OPTIONS] DIR each thread's calls as a call tree");

	t_result_free(&r);
	T_ASSERT(ok);
	r = t_ng("help", "replay", NULL);
	ok = r.status == 0 && r.out &&
	     !strncmp(r.out, "usage: nanograph replay [OPTIONS] DIR\n",
		      strlen("usage: nanograph replay [OPTIONS] DIR\n")) &&
	     strstr(r.out, "--abstime") && strstr(r.out, "--time-range START~END");
	t_result_free(&r);
	T_ASSERT(ok);
}

/* ---- size ---- */

#define DEEP	300000

/* The length of one line of the deep file's replay at depth @d. */
static size_t deep_line_len(size_t d, size_t tail)
{
	char tag[32];

	if (d < NG_REPLAY_MAX_INDENT)
		return 17 + 2 * d + tail;
	return 17 + 2 * NG_REPLAY_MAX_INDENT + sprintf(tag, "[%zu] ", d) + tail;
}

/*
 * A stack 300,000 frames deep (which "check" accepts): nothing recurses,
 * and the lines stop growing past the indentation's cap, so the output
 * is linear in the input (80 MB here, not the 180 GB of full indentation).
 */
static void test_replay_deep(void)
{
	static const char head[] =
		"# tid 1, pid ?, 1\n#    DURATION |  FUNCTION CALLS\n"
		"              |  f() {\n              |    f() {\n";
	static const char end[] =
		"     0.001 us |    } /* f */\n     0.001 us |  } /* f */\n";
	size_t i, len, want_len = 0;
	char *out, tail[300];
	struct stat st;
	bool ok;

	T_EQ_INT(t_make_deep("deep", DEEP), 0);
	T_RUN(t_ng("replay", "-o", t_path("deep.txt"), t_path("deep"), NULL), 0, "", "");

	want_len = strlen("# tid 1, pid ?, 1\n#    DURATION |  FUNCTION CALLS\n");
	for (i = 0; i < DEEP - 1; i++)		/* "f() {\n", "} / * f * /\n" */
		want_len += deep_line_len(i, 6) + deep_line_len(i, 10);
	want_len += deep_line_len(DEEP - 1, 5);	/* "f();\n" */
	T_EQ_INT(stat(t_path("deep.txt"), &st), 0);
	T_EQ_U64(st.st_size, want_len);

	out = t_read_file(t_path("deep.txt"), &len);
	T_ASSERT(out);
	snprintf(tail, sizeof(tail), "     0.001 us |  %100s[299999] f();\n"
		 "     0.001 us |  %100s[299998] } /* f */\n", "", "");
	ok = len == want_len && strstr(out, tail) &&
	     !strcmp(out + len - strlen(end), end) &&
	     !strncmp(out, head, strlen(head));
	free(out);
	T_ASSERT(ok);
}

/*
 * Memory follows the depth, not the length: 400,000 calls take no more
 * than 2,000 (the file is 9 MB; the walk reads 1 MiB at a time).
 */
static void test_replay_flat_memory(void)
{
	long small, big;
	size_t i;
	FILE *f;

	T_EQ_INT(mkdir(t_path("s"), 0755), 0);
	T_EQ_INT(mkdir(t_path("b"), 0755), 0);
	f = fopen(t_path("s/1.txt"), "w");
	T_ASSERT(f);
	for (i = 0; i < 2000; i++)
		fprintf(f, "%zu:+f\n%zu:POP\n", 1000000 + i, 1000000 + i);
	T_EQ_INT(fclose(f), 0);
	f = fopen(t_path("b/1.txt"), "w");
	T_ASSERT(f);
	for (i = 0; i < 400000; i++)
		fprintf(f, "%zu:+f\n%zu:POP\n", 1000000 + i, 1000000 + i);
	T_EQ_INT(fclose(f), 0);
	T_RUN(t_ng("replay", "-o", t_path("s.txt"), t_path("s"), NULL), 0, "", "");
	small = t_run_maxrss_kb();
	T_RUN(t_ng("replay", "-o", t_path("b.txt"), t_path("b"), NULL), 0, "", "");
	big = t_run_maxrss_kb();
	t_diag("max RSS: %ld KiB for 2,000 calls, %ld KiB for 400,000", small, big);
	T_ASSERT(big - small < 4096);
}

static const struct t_case cases[] = {
	{ "example", test_replay_example },
	{ "abstime", test_replay_abstime },
	{ "shapes", test_replay_shapes },
	{ "sched", test_replay_sched },
	{ "counts", test_replay_counts },
	{ "values", test_replay_values },
	{ "typed", test_replay_typed },
	{ "report_diff_sched", test_report_diff_sched },
	{ "indent_cap", test_replay_indent_cap },
	{ "filter_walk", test_filter_walk },
	{ "filter_walk_order", test_filter_walk_order },
	{ "glob", test_glob },
	{ "filter_values", test_filter_values },
	{ "filter_threads", test_filter_threads },
	{ "cmd_filters", test_cmd_replay_filters },
	{ "cmd_report_filters", test_cmd_report_filters },
	{ "cmd_export_filters", test_cmd_export_filters },
	{ "filter_option_errors", test_filter_option_errors },
	{ "filter_option_short_t", test_filter_option_short_t },
	{ "cmd_errors", test_cmd_replay_errors },
	{ "help", test_replay_help },
	{ "deep", test_replay_deep },
	{ "flat_memory", test_replay_flat_memory },
};

T_SUITE(replay, cases);
