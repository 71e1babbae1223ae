// SPDX-License-Identifier: GPL-2.0
/*
 * flushcost: a test-only block device that charges a fixed time for every
 * durability operation and forwards all I/O to a lower device.
 *
 * Used by the flush-cost benchmark (docs/benchmark.md) in the QEMU guest
 * only; never load it into a host kernel.
 *
 *   insmod flushcost.ko lower=/dev/nullb0 flush_us=1000 fua_us=1000 fua=1
 *
 * creates /dev/fcost0. It is a blk-mq device that advertises a volatile
 * write cache (and native FUA if fua=1), so the block layer's flush
 * machinery runs in its own queue: concurrent flushes are merged there as
 * on a real drive, and with fua=0 a FUA write reaches this driver as a
 * write followed by a separate flush request. What arrives in queue_rq is
 * therefore exactly what a drive would see:
 *   REQ_OP_FLUSH           -> flush the lower device, charge flush_us
 *   write with REQ_FUA     -> FUA write to the lower device, charge fua_us
 *   other reads and writes -> forwarded, free (the lower device is RAM)
 * Charges share one device timeline: a charged operation starts when the
 * previous one has finished, so durability operations never overlap.
 * The lower device (null_blk, memory_backed, cache_size, fua=1) keeps the
 * data and the volatile cache; it sees the same flushes and FUA writes.
 *
 * Counters (read-only module parameters): nr_flush, nr_fua, charged_us.
 *
 * Faults (fault-injection tests, qemu/scenarios/fault.sh), module
 * parameters writable at any time in /sys/module/flushcost/parameters/:
 *   fail_flush=N           the next N cache flushes fail with BLK_STS_IOERR
 *                          (-1: every flush fails until set back to 0)
 *   fail_write=N           the same for writes, FUA writes included
 *   drop_write=1           writes and flushes are acknowledged and not done:
 *                          a device that silently loses them
 * A failed or dropped operation never reaches the lower device and is not
 * charged; reads always go through. Counters: nr_flush_failed,
 * nr_write_failed, nr_dropped (writes and flushes dropped).
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/workqueue.h>

static char *lower = "/dev/nullb0";
module_param(lower, charp, 0444);
MODULE_PARM_DESC(lower, "lower block device path");
static unsigned int flush_us = 1000;
module_param(flush_us, uint, 0644);
MODULE_PARM_DESC(flush_us, "time charged per cache flush (microseconds)");
static unsigned int fua_us = 1000;
module_param(fua_us, uint, 0644);
MODULE_PARM_DESC(fua_us, "time charged per FUA write (microseconds)");
static bool fua = true;
module_param(fua, bool, 0444);
MODULE_PARM_DESC(fua, "advertise native FUA (0: the block layer emulates it with a post-flush)");

static unsigned long nr_flush, nr_fua, charged_us;
module_param(nr_flush, ulong, 0444);
MODULE_PARM_DESC(nr_flush, "cache flushes completed (read-only counter)");
module_param(nr_fua, ulong, 0444);
MODULE_PARM_DESC(nr_fua, "FUA writes completed (read-only counter)");
module_param(charged_us, ulong, 0444);
MODULE_PARM_DESC(charged_us, "time charged so far (read-only counter, microseconds)");

static int fail_flush, fail_write;
module_param(fail_flush, int, 0644);
MODULE_PARM_DESC(fail_flush, "fail the next N flushes (-1: all, 0: none)");
module_param(fail_write, int, 0644);
MODULE_PARM_DESC(fail_write, "fail the next N writes (-1: all, 0: none)");
static bool drop_write;
module_param(drop_write, bool, 0644);
MODULE_PARM_DESC(drop_write, "acknowledge writes and flushes without doing them");

static unsigned long nr_flush_failed, nr_write_failed, nr_dropped;
module_param(nr_flush_failed, ulong, 0444);
MODULE_PARM_DESC(nr_flush_failed, "flushes failed by fail_flush (read-only counter)");
module_param(nr_write_failed, ulong, 0444);
MODULE_PARM_DESC(nr_write_failed, "writes failed by fail_write (read-only counter)");
module_param(nr_dropped, ulong, 0444);
MODULE_PARM_DESC(nr_dropped, "writes and flushes dropped by drop_write (read-only counter)");

#define FC_MAX_SECTORS	1024	/* 512 KiB: at most 129 single-page segments */

struct fc_cmd {
	struct work_struct work;
};

static struct {
	int major;
	struct file *lower_file;
	struct block_device *lower;
	struct blk_mq_tag_set set;
	struct gendisk *disk;
	struct workqueue_struct *wq;
	spinlock_t lock;	/* protects busy_until, the counters, the fault knobs */
	ktime_t busy_until;	/* end of the last charged operation */
} fc;

/*
 * Wait until @end. A timer fires on the first expiry check after its time,
 * which is up to hrtimer_resolution late (a whole tick on a kernel without
 * high-resolution timers), so sleep until a bit more than that is left and
 * spin the rest: a 1 ms charge costs 1 ms, not a tick or two. The guest
 * kernel has high-resolution timers (qemu/guest.config), where this is a
 * plain sleep and the CPU is free for other threads during a charge, as
 * it is while a real drive flushes its cache.
 */
static void fc_wait_until(ktime_t end)
{
	const s64 margin = hrtimer_resolution + hrtimer_resolution / 4;

	for (;;) {
		s64 left = ktime_to_ns(ktime_sub(end, ktime_get()));
		ktime_t wake;

		if (left <= 0)
			return;
		if (left > margin) {
			wake = ktime_sub_ns(end, margin);
			set_current_state(TASK_UNINTERRUPTIBLE);
			schedule_hrtimeout(&wake, HRTIMER_MODE_ABS);
		} else {
			cpu_relax();
			cond_resched();
		}
	}
}

/* Reserve @us on the device timeline and wait until that slot ends. */
static void fc_charge(unsigned int us, unsigned long *counter)
{
	ktime_t end;

	spin_lock(&fc.lock);
	end = ktime_add_us(max(ktime_get(), fc.busy_until), us);
	fc.busy_until = end;
	(*counter)++;
	charged_us += us;
	spin_unlock(&fc.lock);
	fc_wait_until(end);
}

/* Copy-free forward of a read or write: one bio over the request's pages. */
static blk_status_t fc_rw(struct request *rq)
{
	struct req_iterator iter;
	struct bio_vec bv;
	unsigned short n = 0;
	struct bio *bio;
	int err;

	rq_for_each_segment(bv, rq, iter)
		n++;
	bio = bio_alloc(fc.lower, n, rq->cmd_flags & (REQ_OP_MASK | REQ_FUA | REQ_SYNC),
			GFP_NOIO);
	bio->bi_iter.bi_sector = blk_rq_pos(rq);
	rq_for_each_segment(bv, rq, iter) {
		if (bio_add_page(bio, bv.bv_page, bv.bv_len, bv.bv_offset) != bv.bv_len) {
			bio_put(bio);
			return BLK_STS_IOERR;
		}
	}
	err = submit_bio_wait(bio);
	bio_put(bio);
	return errno_to_blk_status(err);
}

enum fc_fault { FC_DO, FC_FAIL, FC_DROP };

/*
 * Is this write or flush hit by a fault? Consumes one of a counted
 * fail_flush/fail_write and counts the hit. A knob written from sysfs
 * while an operation consumes it may lose that one step: arm faults
 * while the device is quiet, or where that does not matter.
 */
static enum fc_fault fc_fault(int *knob, unsigned long *failed)
{
	enum fc_fault f = FC_DO;

	spin_lock(&fc.lock);
	if (READ_ONCE(drop_write)) {
		nr_dropped++;
		f = FC_DROP;
	} else if (*knob) {
		if (*knob > 0)
			(*knob)--;
		(*failed)++;
		f = FC_FAIL;
	}
	spin_unlock(&fc.lock);
	return f;
}

static void fc_work(struct work_struct *work)
{
	struct request *rq = blk_mq_rq_from_pdu(container_of(work, struct fc_cmd, work));
	enum fc_fault f = FC_DO;
	blk_status_t st;

	if (req_op(rq) == REQ_OP_FLUSH)
		f = fc_fault(&fail_flush, &nr_flush_failed);
	else if (req_op(rq) == REQ_OP_WRITE)
		f = fc_fault(&fail_write, &nr_write_failed);
	if (f != FC_DO) {
		blk_mq_end_request(rq, f == FC_FAIL ? BLK_STS_IOERR : BLK_STS_OK);
		return;
	}

	switch (req_op(rq)) {
	case REQ_OP_FLUSH:
		st = errno_to_blk_status(blkdev_issue_flush(fc.lower));
		fc_charge(flush_us, &nr_flush);
		break;
	case REQ_OP_READ:
	case REQ_OP_WRITE:
		st = fc_rw(rq);
		if (req_op(rq) == REQ_OP_WRITE && (rq->cmd_flags & REQ_FUA))
			fc_charge(fua_us, &nr_fua);
		break;
	default:
		st = BLK_STS_NOTSUPP;
	}
	blk_mq_end_request(rq, st);
}

static blk_status_t fc_queue_rq(struct blk_mq_hw_ctx *hctx,
				const struct blk_mq_queue_data *bd)
{
	struct fc_cmd *cmd = blk_mq_rq_to_pdu(bd->rq);

	blk_mq_start_request(bd->rq);
	INIT_WORK(&cmd->work, fc_work);
	queue_work(fc.wq, &cmd->work);
	return BLK_STS_OK;
}

static const struct blk_mq_ops fc_mq_ops = {
	.queue_rq = fc_queue_rq,
};

static const struct block_device_operations fc_fops = {
	.owner = THIS_MODULE,
};

static int __init fc_init(void)
{
	struct queue_limits lim = {
		.max_hw_sectors = FC_MAX_SECTORS,
		.max_segments = FC_MAX_SECTORS / 8 + 1,
		.features = BLK_FEAT_WRITE_CACHE | (fua ? BLK_FEAT_FUA : 0),
	};
	int err;

	spin_lock_init(&fc.lock);
	fc.lower_file = bdev_file_open_by_path(lower, BLK_OPEN_READ | BLK_OPEN_WRITE,
					       &fc, NULL);
	if (IS_ERR(fc.lower_file))
		return PTR_ERR(fc.lower_file);
	fc.lower = file_bdev(fc.lower_file);
	lim.logical_block_size = bdev_logical_block_size(fc.lower);
	lim.physical_block_size = bdev_physical_block_size(fc.lower);

	err = -ENOMEM;
	fc.wq = alloc_workqueue("flushcost", WQ_MEM_RECLAIM | WQ_UNBOUND | WQ_HIGHPRI, 0);
	if (!fc.wq)
		goto out_file;
	fc.major = register_blkdev(0, "flushcost");
	if (fc.major < 0) {
		err = fc.major;
		goto out_wq;
	}
	fc.set.ops = &fc_mq_ops;
	fc.set.nr_hw_queues = 1;
	fc.set.queue_depth = 128;
	fc.set.numa_node = NUMA_NO_NODE;
	fc.set.cmd_size = sizeof(struct fc_cmd);
	fc.set.flags = BLK_MQ_F_SHOULD_MERGE;
	err = blk_mq_alloc_tag_set(&fc.set);
	if (err)
		goto out_major;
	fc.disk = blk_mq_alloc_disk(&fc.set, &lim, NULL);
	if (IS_ERR(fc.disk)) {
		err = PTR_ERR(fc.disk);
		goto out_set;
	}
	fc.disk->major = fc.major;
	fc.disk->first_minor = 0;
	fc.disk->minors = 1;
	fc.disk->fops = &fc_fops;
	fc.disk->flags |= GENHD_FL_NO_PART;
	snprintf(fc.disk->disk_name, DISK_NAME_LEN, "fcost0");
	set_capacity(fc.disk, bdev_nr_sectors(fc.lower));
	err = add_disk(fc.disk);
	if (err)
		goto out_disk;
	pr_info("flushcost: fcost0 on %s, flush %u us, FUA %s %u us\n", lower,
		flush_us, fua ? "native" : "emulated", fua_us);
	return 0;
out_disk:
	put_disk(fc.disk);
out_set:
	blk_mq_free_tag_set(&fc.set);
out_major:
	unregister_blkdev(fc.major, "flushcost");
out_wq:
	destroy_workqueue(fc.wq);
out_file:
	fput(fc.lower_file);
	return err;
}

static void __exit fc_exit(void)
{
	del_gendisk(fc.disk);
	put_disk(fc.disk);
	blk_mq_free_tag_set(&fc.set);
	unregister_blkdev(fc.major, "flushcost");
	destroy_workqueue(fc.wq);
	fput(fc.lower_file);
}

module_init(fc_init);
module_exit(fc_exit);
MODULE_DESCRIPTION("test-only block device charging a fixed cost per flush and FUA write");
MODULE_LICENSE("GPL");
