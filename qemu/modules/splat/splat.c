// SPDX-License-Identifier: GPL-2.0
/*
 * splat: a test-only module that makes the debug kernel's checkers fire
 * on purpose, so the runner's self-test can show that each kind of report
 * reaches the console and fails the run. QEMU guests only; never load it
 * into a host kernel.
 *
 *   insmod splat.ko kind=kasan        use after free (KASAN)
 *   insmod splat.ko kind=lockdep      two locks taken in both orders
 *   insmod splat.ko kind=sleep        a mutex under a spinlock
 *                                     (DEBUG_ATOMIC_SLEEP)
 *
 * Each misbehaviour is harmless in itself (nothing else uses the memory or
 * the locks) and the module loads successfully afterwards.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

static char *kind = "";
module_param(kind, charp, 0444);
MODULE_PARM_DESC(kind, "what to trigger: kasan, lockdep or sleep");

static void splat_use_after_free(void)
{
	char *p = kmalloc(64, GFP_KERNEL);

	if (!p)
		return;
	kfree(p);
	/* READ_ONCE: the compiler must not drop the access. */
	pr_info("splat: byte after free: %d\n", READ_ONCE(p[8]));
}

static DEFINE_MUTEX(splat_lock_a);
static DEFINE_MUTEX(splat_lock_b);

static void splat_lock_inversion(void)
{
	mutex_lock(&splat_lock_a);
	mutex_lock(&splat_lock_b);
	mutex_unlock(&splat_lock_b);
	mutex_unlock(&splat_lock_a);
	/* The other order: lockdep reports the possible deadlock here. */
	mutex_lock(&splat_lock_b);
	mutex_lock(&splat_lock_a);
	mutex_unlock(&splat_lock_a);
	mutex_unlock(&splat_lock_b);
}

static DEFINE_SPINLOCK(splat_spin);

/*
 * A mutex taken under a spinlock: uncontended, so nothing really sleeps,
 * but mutex_lock() may sleep and DEBUG_ATOMIC_SLEEP's might_sleep() check
 * reports the call.
 */
static void splat_sleep_in_atomic(void)
{
	spin_lock(&splat_spin);
	mutex_lock(&splat_lock_a);
	mutex_unlock(&splat_lock_a);
	spin_unlock(&splat_spin);
}

static int __init splat_init(void)
{
	if (!strcmp(kind, "kasan"))
		splat_use_after_free();
	else if (!strcmp(kind, "lockdep"))
		splat_lock_inversion();
	else if (!strcmp(kind, "sleep"))
		splat_sleep_in_atomic();
	else
		return -EINVAL;
	return 0;
}

static void __exit splat_exit(void)
{
}

module_init(splat_init);
module_exit(splat_exit);
MODULE_DESCRIPTION("Test-only: trigger debug-kernel reports on purpose");
MODULE_LICENSE("GPL");
