/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Error messages into a caller's buffer, for library functions that
 * report why they failed without printing (tools/common/errbuf.c).
 */
#ifndef TOOLS_ERRBUF_H
#define TOOLS_ERRBUF_H

#include <stddef.h>

/* Format a message into err (errlen bytes, always terminated); returns -1. */
int errbuf_fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* TOOLS_ERRBUF_H */
