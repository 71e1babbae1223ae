/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Device-mapper ioctls without libdevmapper: the request header.
 * Shared by the tools (tools/common/dmctl.c).
 */
#ifndef TOOLS_DMCTL_H
#define TOOLS_DMCTL_H

#include <linux/dm-ioctl.h>
#include <stddef.h>

/*
 * Fill the header of a request for device @name in a buffer of @size
 * bytes that starts with @io; a payload, if any, follows the header
 * (data_start) and is left as it is. Returns 0, or -1 with errno EINVAL
 * if @name does not fit.
 */
int dm_ioctl_header(struct dm_ioctl *io, size_t size, const char *name);

#endif
