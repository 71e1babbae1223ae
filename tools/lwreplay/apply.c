// SPDX-License-Identifier: GPL-2.0
#include "apply.h"
#include "fdutil.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* Copy unit: big enough for throughput, small enough for a tiny guest. */
#define APPLY_CHUNK	(1U << 20)

static const char *errno_text(void)
{
	return errno ? strerror(errno) : "unexpected end of file";
}

int dev_open(const char *path, struct lw_dev *dev, char *err, size_t errlen)
{
	memset(dev, 0, sizeof(*dev));
	dev->path = path;
	dev->fd = open(path, O_RDWR | O_CLOEXEC);
	if (dev->fd < 0) {
		snprintf(err, errlen, "cannot open DEV %s: %s", path,
			 strerror(errno));
		return -1;
	}
	if (fd_size(dev->fd, &dev->size, &dev->is_blockdev) < 0) {
		snprintf(err, errlen,
			 "cannot size DEV %s: %s (need a regular file or a block device)",
			 path, strerror(errno));
		goto fail;
	}
	dev->buf = malloc(APPLY_CHUNK);
	if (!dev->buf) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	return 0;
fail:
	dev_close(dev);
	return -1;
}

void dev_close(struct lw_dev *dev)
{
	if (dev->fd >= 0)
		close(dev->fd);
	free(dev->buf);
	dev->buf = NULL;
	dev->fd = -1;
}

static enum apply_result save_old(struct lw_dev *dev, struct undo_log *undo,
				  uint64_t off, uint64_t len,
				  char *err, size_t errlen)
{
	struct undo_rec rec = { .off = off, .len = (size_t)len };

	if (undo->n == undo->cap) {
		size_t cap = undo->cap ? undo->cap * 2 : 64;
		struct undo_rec *r = realloc(undo->recs, cap * sizeof(*r));

		if (!r)
			goto nomem;
		undo->recs = r;
		undo->cap = cap;
	}
	rec.old = malloc(len ? (size_t)len : 1);
	if (!rec.old)
		goto nomem;
	if (pread_full(dev->fd, rec.old, rec.len, off) < 0) {
		snprintf(err, errlen, "cannot read DEV %s at byte %" PRIu64
			 " (%" PRIu64 " bytes) to save it: %s",
			 dev->path, off, len, errno_text());
		free(rec.old);
		return APPLY_ERR_DEV;
	}
	undo->recs[undo->n++] = rec;
	undo->bytes += len;
	return APPLY_OK;
nomem:
	snprintf(err, errlen, "out of memory saving %" PRIu64
		 " bytes of DEV for undo", len);
	return APPLY_ERR_NOMEM;
}

static enum apply_result write_chunk(struct lw_dev *dev, uint64_t off,
				     size_t len, char *err, size_t errlen)
{
	if (pwrite_full(dev->fd, dev->buf, len, off) == 0)
		return APPLY_OK;
	snprintf(err, errlen, "cannot write DEV %s at byte %" PRIu64 ": %s",
		 dev->path, off, errno_text());
	return APPLY_ERR_DEV;
}

/* Copy from the log, or write zeroes for a discard, one chunk at a time. */
static enum apply_result copy_entry_data(struct lw_dev *dev,
					 const struct lw_log *log,
					 const struct lw_entry *e, uint64_t idx,
					 char *err, size_t errlen)
{
	uint64_t dst = lw_entry_dev_offset(log, e);
	uint64_t src = lw_entry_data_offset(log, e);
	uint64_t left = lw_entry_dev_length(log, e);
	bool discard = e->flags & LW_FLAG_DISCARD;
	enum apply_result r;

	if (discard)
		memset(dev->buf, 0, APPLY_CHUNK);
	while (left > 0) {
		size_t n = left < APPLY_CHUNK ? (size_t)left : APPLY_CHUNK;

		if (!discard && pread_full(log->fd, dev->buf, n, src) < 0) {
			snprintf(err, errlen,
				 "entry %" PRIu64 " at byte %" PRIu64
				 ": cannot read its data from the log: %s",
				 idx, e->offset, errno_text());
			return APPLY_ERR_LOG;
		}
		r = write_chunk(dev, dst, n, err, errlen);
		if (r != APPLY_OK)
			return r;
		dst += n;
		src += n;
		left -= n;
	}
	return APPLY_OK;
}

enum apply_result dev_apply_entry(struct lw_dev *dev, const struct lw_log *log,
				  uint64_t idx, struct undo_log *undo,
				  char *err, size_t errlen)
{
	const struct lw_entry *e = &log->entries[idx];
	uint64_t len = lw_entry_dev_length(log, e);
	enum apply_result r;

	if (len == 0)
		return APPLY_OK;
	if (len > SIZE_MAX) {
		snprintf(err, errlen, "entry %" PRIu64 " is too large", idx);
		return APPLY_ERR_NOMEM;
	}
	if (undo) {
		r = save_old(dev, undo, lw_entry_dev_offset(log, e), len,
			     err, errlen);
		if (r != APPLY_OK)
			return r;
	}
	return copy_entry_data(dev, log, e, idx, err, errlen);
}

enum apply_result dev_apply_plan(struct lw_dev *dev, const struct lw_log *log,
				 const struct idx_list *plan,
				 struct undo_log *undo, char *err, size_t errlen)
{
	for (size_t i = 0; i < plan->n; i++) {
		enum apply_result r = dev_apply_entry(dev, log, plan->v[i],
						      undo, err, errlen);
		if (r != APPLY_OK)
			return r;
	}
	return APPLY_OK;
}

void undo_free(struct undo_log *undo)
{
	for (size_t i = 0; i < undo->n; i++)
		free(undo->recs[i].old);
	free(undo->recs);
	memset(undo, 0, sizeof(*undo));
}

/* Newest first, so a range written twice ends with its oldest contents. */
enum apply_result dev_undo(struct lw_dev *dev, struct undo_log *undo,
			   char *err, size_t errlen)
{
	enum apply_result r = APPLY_OK;

	while (undo->n > 0) {
		struct undo_rec *rec = &undo->recs[undo->n - 1];

		if (pwrite_full(dev->fd, rec->old, rec->len, rec->off) < 0) {
			snprintf(err, errlen,
				 "cannot restore DEV %s at byte %" PRIu64 ": %s",
				 dev->path, rec->off, errno_text());
			r = APPLY_ERR_DEV;
			break;
		}
		free(rec->old);
		undo->n--;
		undo->bytes -= rec->len;
	}
	return r;
}

enum apply_result dev_sync(struct lw_dev *dev, char *err, size_t errlen)
{
	if (fsync(dev->fd) < 0) {
		snprintf(err, errlen, "cannot fsync DEV %s: %s", dev->path,
			 strerror(errno));
		return APPLY_ERR_DEV;
	}
	/* Readers of the raw device must not see stale cached pages. */
	if (dev->is_blockdev && ioctl(dev->fd, BLKFLSBUF, 0) < 0) {
		snprintf(err, errlen, "cannot drop the page cache of DEV %s: %s",
			 dev->path, strerror(errno));
		return APPLY_ERR_DEV;
	}
	return APPLY_OK;
}
