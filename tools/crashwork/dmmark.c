// SPDX-License-Identifier: GPL-2.0
/*
 * Marks in a dm-log-writes log: "dmsetup message TARGET 0 mark NAME" as
 * one DM_TARGET_MSG ioctl on the control node, without a process.
 *
 * Why: a workload marks the log after every sync, under the lock that
 * orders its oracle, so the mark's cost is paid by every thread. In the
 * TCG guest one dynamically linked dmsetup takes 0.1-0.2 s to start, 25
 * times a 4 ms cache flush: threads then never overlap a flush, a batch
 * flush never covers two of their commits, and a commit ended before
 * its flush completed would be marked only after the flush was logged.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/dm-ioctl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "dmctl.h"
#include "dmmark.h"

/*
 * Lay out a DM_TARGET_MSG request for the target at sector 0 of device
 * @target in @buf (@size bytes, suitably aligned for struct dm_ioctl).
 * Returns 0, or -1 with errno EINVAL if the name or message does not fit.
 */
int cw_dm_message_format(void *buf, size_t size, const char *target,
			 const char *message)
{
	struct dm_ioctl *io = buf;
	struct dm_target_msg *msg;
	char *text;

	if (size < sizeof(*io) + sizeof(*msg) ||
	    strlen(message) >= size - sizeof(*io) - sizeof(*msg)) {
		errno = EINVAL;
		return -1;
	}
	memset(buf, 0, size);
	if (dm_ioctl_header(io, size, target))
		return -1;
	msg = (struct dm_target_msg *)((char *)buf + sizeof(*io));
	msg->sector = 0;
	/* Through a plain pointer: message[] is a flexible array member. */
	text = (char *)msg + offsetof(struct dm_target_msg, message);
	memcpy(text, message, strlen(message) + 1);
	return 0;
}

/*
 * Mark the dm-log-writes log of device @target with @name through the
 * control node @control (CW_DM_CONTROL). Returns 0, or -1 with errno set.
 */
int cw_dm_mark(const char *control, const char *target, const char *name)
{
	union {
		struct dm_ioctl io;
		char bytes[1024];
	} buf;
	char message[128];
	int ctl, ret, saved;

	if (snprintf(message, sizeof(message), "mark %s", name) >=
	    (int)sizeof(message)) {
		errno = EINVAL;
		return -1;
	}
	if (cw_dm_message_format(&buf, sizeof(buf), target, message))
		return -1;
	ctl = open(control, O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return -1;
	ret = ioctl(ctl, DM_TARGET_MSG, &buf.io);
	saved = errno;
	close(ctl);
	errno = saved;
	return ret < 0 ? -1 : 0;
}
