// SPDX-License-Identifier: GPL-2.0
/*
 * dmload NAME 'START LENGTH TARGET ARGS...'
 *
 * Make NAME a fresh device-mapper device with this one-target table: remove
 * NAME if it exists, create it and its /dev/mapper node, load the table,
 * resume (the ioctls of `dmsetup remove` and `dmsetup create`).
 *
 * Why: the crash checker needs a new transient snapshot of the replay
 * device for every crash state. Loading the table again into the same
 * device is not enough: dm-snapshot hands the old snapshot's exceptions
 * over to a new table on the same COW device, so the previous state's
 * recovery writes would show through. And in the TCG guest one
 * dynamically linked dmsetup costs 0.1-0.2 s (libselinux, libudev, pcre2
 * to load), two per state; this static tool does it all in a few ms.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/dm-ioctl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "dmctl.h"

#define BUF_SIZE 16384

static union {
	struct dm_ioctl io;
	char bytes[BUF_SIZE];
} buf;

/* One ioctl on the control device; target specs, if any, follow the header. */
static int dm(int ctl, unsigned long cmd, const char *name)
{
	if (dm_ioctl_header(&buf.io, BUF_SIZE, name))
		return -1;
	return ioctl(ctl, cmd, &buf.io);
}

/* "START LENGTH TARGET ARGS..." as a dm_target_spec after the header. */
static int put_table(const char *table)
{
	struct dm_target_spec *spec = (void *)(buf.bytes + sizeof(buf.io));
	char *params = (char *)(spec + 1);
	unsigned long long start, length;
	int n = 0;

	if (sscanf(table, "%llu %llu %15s %n", &start, &length,
		   spec->target_type, &n) < 3 || !n ||
	    strlen(table + n) + 8 > (size_t)(buf.bytes + BUF_SIZE - params))
		return -1;
	strcpy(params, table + n);
	spec->sector_start = start;
	spec->length = length;
	/* Where a next spec would start, 8-byte aligned (there is none). */
	spec->next = (sizeof(*spec) + strlen(params) + 1 + 7) & ~7UL;
	buf.io.target_count = 1;
	return 0;
}

static int fail(const char *what, const char *name)
{
	fprintf(stderr, "dmload: %s %s: %s\n", what, name, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	char node[sizeof("/dev/" DM_DIR "/") + DM_NAME_LEN];
	const char *name = argv[1];
	dev_t dev;
	int ctl;

	if (argc != 3 || strlen(name) >= DM_NAME_LEN || strchr(name, '/')) {
		fprintf(stderr, "usage: dmload NAME 'START LENGTH TARGET ARGS...'\n");
		return 2;
	}
	snprintf(node, sizeof(node), "/dev/" DM_DIR "/%s", name);
	ctl = open("/dev/" DM_DIR "/" DM_CONTROL_NODE, O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return fail("open", "/dev/" DM_DIR "/" DM_CONTROL_NODE);

	memset(&buf, 0, sizeof(buf));
	if (dm(ctl, DM_DEV_REMOVE, name) < 0 && errno != ENXIO)
		return fail("remove", name);
	unlink(node);

	memset(&buf, 0, sizeof(buf));
	if (dm(ctl, DM_DEV_CREATE, name) < 0)
		return fail("create", name);
	/* The kernel hands dev out as huge_encode_dev(). */
	dev = makedev((buf.io.dev >> 8) & 0xfff,
		      (buf.io.dev & 0xff) | ((buf.io.dev >> 12) & 0xfff00));
	if (mknod(node, S_IFBLK | 0600, dev) < 0)
		return fail("mknod", node);

	memset(&buf, 0, sizeof(buf));
	if (put_table(argv[2]) < 0) {
		fprintf(stderr, "dmload: bad table '%s'\n", argv[2]);
		return 2;
	}
	if (dm(ctl, DM_TABLE_LOAD, name) < 0)
		return fail("load table into (see the kernel log)", name);
	memset(&buf, 0, sizeof(buf));
	if (dm(ctl, DM_DEV_SUSPEND, name) < 0)	/* no SUSPEND flag: resume */
		return fail("resume", name);
	return 0;
}
