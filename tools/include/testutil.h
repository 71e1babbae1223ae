/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files and commands for the tools' unit tests (tools/common/testutil.c;
 * a test lists it in its tool's _TEST).
 */
#ifndef TOOLS_TESTUTIL_H
#define TOOLS_TESTUTIL_H

#include <stdarg.h>
#include <stddef.h>

char *tu_tmpdir(void);				/* fresh directory, malloc'd path */
char *tu_path(const char *dir, const char *name);	/* malloc'd */
int tu_write_file(const char *path, const void *buf, size_t len);
/* The whole file, NUL-terminated (so text can be used as a string). */
unsigned char *tu_read_file(const char *path, size_t *len);
void tu_rmdir(const char *dir);			/* rm -rf */

struct tu_cmd {
	int status;	/* exit code, or 128 + signal */
	char *out;
	char *err;
};

/* argv[0] (a path) with argv, output captured; its status. */
int tu_run(struct tu_cmd *r, char *const argv[]);
/* $TOOLS_BIN/TOOL with the NULL-terminated arguments in ap. */
int tu_toolv(struct tu_cmd *r, const char *tool, va_list ap);
/* /bin/sh -c CMD, output captured. */
int tu_sh(struct tu_cmd *r, const char *cmd);
void tu_cmd_free(struct tu_cmd *r);

#endif /* TOOLS_TESTUTIL_H */
