/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whole-buffer I/O on file descriptors, for regular files and block
 * devices alike. Shared by the tools (tools/common/fdutil.c).
 */
#ifndef TOOLS_FDUTIL_H
#define TOOLS_FDUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Size in bytes of a regular file or a block device.  Returns -1 with
 * errno set on failure, or EINVAL for other kinds of file.
 */
int fd_size(int fd, uint64_t *size, bool *is_blockdev);

/*
 * Read or write exactly len bytes at off, retrying short transfers and
 * EINTR.  Returns 0 or -1.  A read that meets end of file fails with
 * errno 0, so the caller can tell truncation from an I/O error.
 */
int pread_full(int fd, void *buf, size_t len, uint64_t off);
int pwrite_full(int fd, const void *buf, size_t len, uint64_t off);

#endif /* TOOLS_FDUTIL_H */
