/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writing log entries to DEV, with an undo log so a crash state can be
 * taken back exactly: every byte a state touched is saved before it is
 * overwritten and restored afterwards, in reverse order.
 */
#ifndef LWREPLAY_APPLY_H
#define LWREPLAY_APPLY_H

#include "crash.h"
#include "lwlog.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lw_dev {
	int fd;
	const char *path;
	uint64_t size;
	bool is_blockdev;
	unsigned char *buf;	/* scratch for copying, APPLY_CHUNK bytes */
};

/* Old contents of one overwritten byte range. */
struct undo_rec {
	uint64_t off;
	size_t len;
	unsigned char *old;
};

struct undo_log {
	struct undo_rec *recs;
	size_t n;
	size_t cap;
	uint64_t bytes;		/* total saved, for reporting */
};

enum apply_result {
	APPLY_OK = 0,
	APPLY_ERR_DEV,		/* reading or writing DEV failed */
	APPLY_ERR_LOG,		/* reading the log failed */
	APPLY_ERR_NOMEM,
};

int dev_open(const char *path, struct lw_dev *dev, char *err, size_t errlen);
void dev_close(struct lw_dev *dev);

/*
 * Write entry e to DEV (its data from the log, zeroes for a discard).
 * With undo non-NULL, first save what it overwrites.
 */
enum apply_result dev_apply_entry(struct lw_dev *dev, const struct lw_log *log,
				  uint64_t idx, struct undo_log *undo,
				  char *err, size_t errlen);

/* dev_apply_entry() for each entry of plan, in order. */
enum apply_result dev_apply_plan(struct lw_dev *dev, const struct lw_log *log,
				 const struct idx_list *plan,
				 struct undo_log *undo, char *err, size_t errlen);

/* Restore everything undo saved, newest first, and empty it. */
enum apply_result dev_undo(struct lw_dev *dev, struct undo_log *undo,
			   char *err, size_t errlen);
void undo_free(struct undo_log *undo);

/*
 * Make DEV's contents visible to a reader that bypasses our file
 * descriptor: fsync, and for a block device drop its page cache too.
 */
enum apply_result dev_sync(struct lw_dev *dev, char *err, size_t errlen);

#endif /* LWREPLAY_APPLY_H */
