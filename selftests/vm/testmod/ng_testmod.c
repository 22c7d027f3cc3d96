// SPDX-License-Identifier: GPL-2.0
/*
 * A module for nanograph's selftests to load while recording: its
 * functions are call sites that appear under a running tracer, at
 * addresses an unloaded module may have used before.
 */
#include <linux/async.h>
#include <linux/completion.h>
#include <linux/init.h>
#include <linux/kprobes.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/printk.h>

/* Not inlined, so that each is a traced function of its own. */
static noinline int ng_testmod_leaf(int x)
{
	return x * 3 + 1;
}

/*
 * A name of another first letter: on x86_64 nanograph's direct groups
 * are by first letters, and this module's functions fall in two.
 */
static noinline int halve_ng_testmod(int x)
{
	return x / 2;
}

static noinline int ng_testmod_work(int n)
{
	int i, sum = 0;

	for (i = 0; i < n; i++)
		sum += ng_testmod_leaf(halve_ng_testmod(i));
	return sum;
}

/*
 * Writing N to /sys/module/ng_testmod/parameters/work calls
 * ng_testmod_work(N): the module's functions called at will.
 */
static int ng_testmod_set_work(const char *val, const struct kernel_param *kp)
{
	unsigned int n;
	int ret;

	ret = kstrtouint(val, 0, &n);
	if (ret)
		return ret;
	if (n > 1000)
		return -EINVAL;
	pr_info("ng_testmod: %d\n", ng_testmod_work(n));
	return 0;
}

static const struct kernel_param_ops ng_testmod_work_ops = {
	.set = ng_testmod_set_work,
};
module_param_cb(work, &ng_testmod_work_ops, NULL, 0200);

/*
 * A call that a kprobe sends elsewhere (redirect=1): its pre handler
 * moves the ip from ng_testmod_victim() to ng_testmod_stand_in() and
 * returns 1, as the kernel's error-injection override does (x86_64,
 * where kprobes at a function's entry are ftrace's).  Writing N
 * to /sys/module/ng_testmod/parameters/victim calls the victim N times.
 */
static int ng_testmod_seen;

static __used noinline int ng_testmod_victim(int x)
{
	return x + READ_ONCE(ng_testmod_seen);
}

static __used noinline int ng_testmod_stand_in(int x)
{
	WRITE_ONCE(ng_testmod_seen, ng_testmod_seen + 1);
	return -1;
}

static int redirect;

/* redirect=2: the kprobe shares the site and leaves the ip alone. */
static int ng_testmod_moved(struct kprobe *p, struct pt_regs *regs)
{
	if (redirect == 2)
		return 0;
	instruction_pointer_set(regs, (unsigned long)ng_testmod_stand_in);
	return 1;
}

static struct kprobe ng_testmod_kp = {
	.symbol_name = "ng_testmod_victim",
	.pre_handler = ng_testmod_moved,
};

module_param(redirect, int, 0400);
MODULE_PARM_DESC(redirect, "1: send ng_testmod_victim's calls to ng_testmod_stand_in; 2: only probe it");

static int ng_testmod_set_victim(const char *val, const struct kernel_param *kp)
{
	unsigned int i, n;
	int ret, sum = 0;

	ret = kstrtouint(val, 0, &n);
	if (ret)
		return ret;
	if (n > 1000)
		return -EINVAL;
	for (i = 0; i < n; i++)
		sum += ng_testmod_victim(i);
	pr_info("ng_testmod: victim %d, stand-in %d\n", sum, READ_ONCE(ng_testmod_seen));
	return 0;
}

static const struct kernel_param_ops ng_testmod_victim_ops = {
	.set = ng_testmod_set_victim,
};
module_param_cb(victim, &ng_testmod_victim_ops, NULL, 0200);
MODULE_PARM_DESC(victim, "call ng_testmod_victim this many times");

/*
 * With hold_init=1 the init waits until 1 is written to
 * /sys/module/ng_testmod/parameters/release: a module whose init text is
 * there while a recording starts.  With hold_live=1 an async function
 * waits for it instead, which holds the module loader after the module
 * went live and before ftrace forgets its init text (do_init_module()
 * waits for every async function in between).
 */
static bool hold_init, hold_live;
module_param(hold_init, bool, 0400);
MODULE_PARM_DESC(hold_init, "wait in init until release is written");
module_param(hold_live, bool, 0400);
MODULE_PARM_DESC(hold_live, "wait once live until release is written");
static DECLARE_COMPLETION(ng_testmod_released);

static int ng_testmod_set_release(const char *val, const struct kernel_param *kp)
{
	complete_all(&ng_testmod_released);
	return 0;
}

static const struct kernel_param_ops ng_testmod_release_ops = {
	.set = ng_testmod_set_release,
};
module_param_cb(release, &ng_testmod_release_ops, NULL, 0200);

/* An async worker's sleep: a kernel thread takes no signal. */
static void ng_testmod_held(void *data, async_cookie_t cookie)
{
	(void)wait_for_completion_interruptible(&ng_testmod_released);
}

static int __init ng_testmod_init(void)
{
	int ret;

	if (hold_init && wait_for_completion_killable(&ng_testmod_released))
		return -EINTR;
	if (redirect) {
		ret = register_kprobe(&ng_testmod_kp);
		if (ret) {
			pr_err("ng_testmod: kprobe on ng_testmod_victim: %d\n", ret);
			return ret;
		}
	}
	if (hold_live)
		async_schedule(ng_testmod_held, NULL);
	pr_info("ng_testmod: %d\n", ng_testmod_work(10));
	return 0;
}

static void __exit ng_testmod_exit(void)
{
	if (redirect)
		unregister_kprobe(&ng_testmod_kp);
}

module_init(ng_testmod_init);
module_exit(ng_testmod_exit);

MODULE_DESCRIPTION("nanograph selftests: a module loaded while recording");
MODULE_LICENSE("GPL");
