// SPDX-License-Identifier: GPL-2.0
/* The header of a device-mapper ioctl: see include/dmctl.h. */
#include <errno.h>
#include <string.h>

#include "dmctl.h"

int dm_ioctl_header(struct dm_ioctl *io, size_t size, const char *name)
{
	if (size < sizeof(*io) || strlen(name) >= sizeof(io->name)) {
		errno = EINVAL;
		return -1;
	}
	io->version[0] = DM_VERSION_MAJOR;
	io->version[1] = 0;
	io->version[2] = 0;
	io->data_size = size;
	io->data_start = sizeof(*io);
	strcpy(io->name, name);
	return 0;
}
