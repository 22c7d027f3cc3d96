// SPDX-License-Identifier: GPL-2.0
/*
 * A module for nanograph's selftests to load while recording: its
 * functions are call sites that appear under a running tracer, at
 * addresses an unloaded module may have used before.
 */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/printk.h>

/* Not inlined, so that each is a traced function of its own. */
static noinline int ng_testmod_leaf(int x)
{
	return x * 3 + 1;
}

static noinline int ng_testmod_work(int n)
{
	int i, sum = 0;

	for (i = 0; i < n; i++)
		sum += ng_testmod_leaf(i);
	return sum;
}

static int __init ng_testmod_init(void)
{
	pr_info("ng_testmod: %d\n", ng_testmod_work(10));
	return 0;
}

static void __exit ng_testmod_exit(void)
{
}

module_init(ng_testmod_init);
module_exit(ng_testmod_exit);

MODULE_DESCRIPTION("nanograph selftests: a module loaded while recording");
MODULE_LICENSE("GPL");
