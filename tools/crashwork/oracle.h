/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The oracle: what each fsync/fdatasync return promised.
 *
 * A text file of promises, each group closed by the mark written to the
 * dm-log-writes log right after the sync calls returned:
 *
 *   data <path> <fileid> <first> <count> <gen>
 *       records first..first+count-1 of <path> hold file <fileid>'s
 *       content at generation <gen>, or something newer written for
 *       the same name
 *   dir <path>       the directory exists
 *   absent <path>    the name is gone (names are never reused)
 *   mark <name>
 *   failed           the promises since the last mark or failed line are
 *                    an operation whose sync failed
 *
 * A crash at or after mark <name> in the log must keep every promise made
 * before that mark line. Later lines are loaded too, not due: the crash
 * may have kept the operations they describe (an unlink, a rename over a
 * name) before their sync returned, and those may replace a due promise.
 * For the same reason an operation whose sync failed is written with its
 * promises and "failed": never due, whatever mark follows (another
 * thread's), but it may have happened. Each operation's lines, with its
 * mark or "failed", are written in one piece.
 */
#ifndef CRASHWORK_ORACLE_H
#define CRASHWORK_ORACLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define CW_PATH_MAX	128

enum cw_promise_kind { CW_PROMISE_DATA, CW_PROMISE_DIR, CW_PROMISE_ABSENT };

struct cw_promise {
	enum cw_promise_kind kind;
	char path[CW_PATH_MAX];
	uint64_t fileid;
	uint64_t first;
	uint64_t count;
	uint64_t gen;
	unsigned long seq;	/* order in the oracle */
	bool due;		/* made before the crash point's mark */
};

struct cw_oracle {
	struct cw_promise *promises;
	size_t nr;
	size_t alloc;
};

/*
 * Load every promise; those made before mark @upto are due (all of them if
 * @upto is NULL, none if it is ""). Returns 0, or -1 with a message on
 * stderr if the file is unreadable, malformed, or has no such mark.
 */
int cw_oracle_load(struct cw_oracle *oracle, const char *file,
		   const char *upto);
void cw_oracle_free(struct cw_oracle *oracle);
size_t cw_oracle_due(const struct cw_oracle *oracle);

#endif
