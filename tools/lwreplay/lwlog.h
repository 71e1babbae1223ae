/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a dm-log-writes log (drivers/md/dm-log-writes.c).
 *
 * Layout, all little-endian:
 *
 *   byte 0           super: magic, version, nr_entries, sectorsize
 *   byte sectorsize  entry 0 header (one sectorsize block), then its data
 *   ...              entry 1 header, data, ...
 *
 * An entry header is {sector, nr_sectors, flags, data_len} padded to one
 * sectorsize block; a MARK entry keeps its text (data_len bytes) right after
 * those 32 bytes.  A write is followed by nr_sectors * sectorsize bytes of
 * data; a DISCARD, a FLUSH without data and a MARK carry no data.
 *
 * Units: the kernel stores entry->sector and entry->nr_sectors in units of
 * the log's sectorsize (bio_to_dev_sectors()), which is the logical block
 * size of the logged device.  Only for sectorsize 512 are these 512-byte
 * sectors.
 */
#ifndef LWREPLAY_LWLOG_H
#define LWREPLAY_LWLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LW_MAGIC		0x6a736677736872ULL
#define LW_VERSION		1ULL

#define LW_FLAG_FLUSH		(1ULL << 0)
#define LW_FLAG_FUA		(1ULL << 1)
#define LW_FLAG_DISCARD		(1ULL << 2)
#define LW_FLAG_MARK		(1ULL << 3)
#define LW_FLAG_METADATA	(1ULL << 4)
#define LW_FLAGS_KNOWN		((1ULL << 5) - 1)

#define LW_SUPER_SIZE		28	/* 3 x le64 + le32 */
#define LW_ENTRY_HDR_SIZE	32	/* 4 x le64 */
#define LW_MIN_SECTORSIZE	512
#define LW_MAX_SECTORSIZE	65536

/* Room for an error message that names the entry and its byte offset. */
#define LW_ERRLEN		256

struct lw_entry {
	uint64_t sector;	/* first block on DEV, sectorsize units */
	uint64_t nr_sectors;	/* blocks written or discarded */
	uint64_t flags;		/* LW_FLAG_* */
	uint64_t offset;	/* byte offset of the header in the log */
	char *mark;		/* NUL-terminated text of a MARK, else NULL */
};

struct lw_log {
	int fd;			/* open read-only; data is read on demand */
	uint64_t size;		/* bytes in the log file or device */
	uint64_t version;
	uint32_t sectorsize;
	uint64_t nr_entries;
	struct lw_entry *entries;
};

/*
 * Open and validate the whole log: super block, every entry header and
 * that every entry's data lies inside the log.  On failure returns -1 with
 * a message in err and leaves *log closed; a log that opened is freed with
 * lwlog_close().
 */
int lwlog_open(const char *path, struct lw_log *log, char *err, size_t errlen);
void lwlog_close(struct lw_log *log);

/* A write or discard: an entry that changes blocks on DEV. */
bool lw_entry_changes_dev(const struct lw_entry *e);

/* Byte range on DEV an entry changes (0 length for FLUSH/MARK). */
uint64_t lw_entry_dev_offset(const struct lw_log *log, const struct lw_entry *e);
uint64_t lw_entry_dev_length(const struct lw_log *log, const struct lw_entry *e);

/* Byte offset in the log of the data following an entry header. */
uint64_t lw_entry_data_offset(const struct lw_log *log, const struct lw_entry *e);

/*
 * Check every entry fits on a device of dev_size bytes; names the first
 * one that does not.
 */
int lwlog_check_fits(const struct lw_log *log, uint64_t dev_size,
		     char *err, size_t errlen);

/* "FLUSH|FUA|..." for printing; "WRITE" for a plain write. */
const char *lw_flags_name(uint64_t flags, char *buf, size_t buflen);

#endif /* LWREPLAY_LWLOG_H */
