// SPDX-License-Identifier: GPL-2.0
#include "lwlog.h"
#include "fdutil.h"
#include "errbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t get_le64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static uint32_t get_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 |
	       (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

bool lw_entry_changes_dev(const struct lw_entry *e)
{
	return e->nr_sectors > 0 && !(e->flags & LW_FLAG_MARK);
}

uint64_t lw_entry_dev_offset(const struct lw_log *log, const struct lw_entry *e)
{
	return e->sector * log->sectorsize;
}

uint64_t lw_entry_dev_length(const struct lw_log *log, const struct lw_entry *e)
{
	return lw_entry_changes_dev(e) ? e->nr_sectors * log->sectorsize : 0;
}

uint64_t lw_entry_data_offset(const struct lw_log *log, const struct lw_entry *e)
{
	return e->offset + log->sectorsize;
}

/* Bytes of data the entry carries in the log after its header. */
static uint64_t entry_log_data_len(const struct lw_log *log,
				   const struct lw_entry *e)
{
	if (!lw_entry_changes_dev(e) || (e->flags & LW_FLAG_DISCARD))
		return 0;
	return e->nr_sectors * log->sectorsize;
}

static bool is_power_of_two(uint32_t v)
{
	return v && !(v & (v - 1));
}

static int read_super(struct lw_log *log, char *err, size_t errlen)
{
	unsigned char buf[LW_SUPER_SIZE];
	uint64_t magic;

	if (log->size < LW_SUPER_SIZE)
		return errbuf_fail(err, errlen,
			    "log is %llu bytes, too short for a super block",
			    (unsigned long long)log->size);
	if (pread_full(log->fd, buf, sizeof(buf), 0) < 0)
		return errbuf_fail(err, errlen, "cannot read the super block: %s",
			    errno ? strerror(errno) : "short read");
	magic = get_le64(buf);
	log->version = get_le64(buf + 8);
	log->nr_entries = get_le64(buf + 16);
	log->sectorsize = get_le32(buf + 24);
	if (magic != LW_MAGIC)
		return errbuf_fail(err, errlen,
			    "bad magic 0x%llx at byte 0 (expected 0x%llx): not a dm-log-writes log",
			    (unsigned long long)magic, LW_MAGIC);
	if (log->version != LW_VERSION)
		return errbuf_fail(err, errlen,
			    "unsupported log version %llu (only %llu is known)",
			    (unsigned long long)log->version, LW_VERSION);
	return 0;
}

static int check_geometry(const struct lw_log *log, char *err, size_t errlen)
{
	uint64_t max_entries;

	if (log->sectorsize < LW_MIN_SECTORSIZE ||
	    log->sectorsize > LW_MAX_SECTORSIZE ||
	    !is_power_of_two(log->sectorsize))
		return errbuf_fail(err, errlen,
			    "bad sectorsize %u in the super block (need a power of two in %u..%u)",
			    log->sectorsize, LW_MIN_SECTORSIZE,
			    LW_MAX_SECTORSIZE);
	if (log->size < log->sectorsize)
		return errbuf_fail(err, errlen,
			    "log is %llu bytes, shorter than its super block sector (%u bytes)",
			    (unsigned long long)log->size, log->sectorsize);
	/* Every entry takes at least one header sector. */
	max_entries = (log->size - log->sectorsize) / log->sectorsize;
	if (log->nr_entries > max_entries)
		return errbuf_fail(err, errlen,
			    "super block claims %llu entries but a log of %llu bytes holds at most %llu",
			    (unsigned long long)log->nr_entries,
			    (unsigned long long)log->size,
			    (unsigned long long)max_entries);
	return 0;
}

static int read_mark_text(const struct lw_log *log, struct lw_entry *e,
			  uint64_t data_len, uint64_t idx,
			  char *err, size_t errlen)
{
	e->mark = calloc(1, data_len + 1);
	if (!e->mark)
		return errbuf_fail(err, errlen, "out of memory");
	if (data_len && pread_full(log->fd, e->mark, data_len,
				   e->offset + LW_ENTRY_HDR_SIZE) < 0)
		return errbuf_fail(err, errlen,
			    "entry %llu at byte %llu: cannot read mark text: %s",
			    (unsigned long long)idx,
			    (unsigned long long)e->offset,
			    errno ? strerror(errno) : "short read");
	return 0;
}

/* Rules for one header; the kernel never writes an entry breaking them. */
static const char *entry_problem(const struct lw_log *log,
				 const struct lw_entry *e, uint64_t data_len)
{
	uint64_t end;

	if (e->flags & ~LW_FLAGS_KNOWN)
		return "unknown flag bits";
	if (e->flags & LW_FLAG_MARK) {
		if (e->nr_sectors)
			return "MARK entry with a non-zero sector count";
		if (data_len > log->sectorsize - LW_ENTRY_HDR_SIZE)
			return "MARK text longer than its header sector";
		return NULL;
	}
	if (data_len)
		return "non-zero data_len on an entry that is not a MARK";
	if (e->nr_sectors == 0 && !(e->flags & LW_FLAG_FLUSH))
		return "zero-length write (no sectors, no FLUSH, no MARK)";
	if (__builtin_add_overflow(e->sector, e->nr_sectors, &end) ||
	    __builtin_mul_overflow(end, log->sectorsize, &end))
		return "sector range overflows 64 bits";
	return NULL;
}

static int read_entry(const struct lw_log *log, struct lw_entry *e,
		      uint64_t idx, char *err, size_t errlen)
{
	unsigned char hdr[LW_ENTRY_HDR_SIZE];
	uint64_t data_len;
	const char *problem;

	if (e->offset > log->size || log->size - e->offset < log->sectorsize)
		return errbuf_fail(err, errlen,
			    "entry %llu at byte %llu: header runs past the end of the log (%llu bytes)",
			    (unsigned long long)idx,
			    (unsigned long long)e->offset,
			    (unsigned long long)log->size);
	if (pread_full(log->fd, hdr, sizeof(hdr), e->offset) < 0)
		return errbuf_fail(err, errlen,
			    "entry %llu at byte %llu: cannot read header: %s",
			    (unsigned long long)idx,
			    (unsigned long long)e->offset,
			    errno ? strerror(errno) : "short read");
	e->sector = get_le64(hdr);
	e->nr_sectors = get_le64(hdr + 8);
	e->flags = get_le64(hdr + 16);
	data_len = get_le64(hdr + 24);
	problem = entry_problem(log, e, data_len);
	if (problem)
		return errbuf_fail(err, errlen,
			    "entry %llu at byte %llu: %s (sector %llu, nr_sectors %llu, flags 0x%llx, data_len %llu)",
			    (unsigned long long)idx,
			    (unsigned long long)e->offset, problem,
			    (unsigned long long)e->sector,
			    (unsigned long long)e->nr_sectors,
			    (unsigned long long)e->flags,
			    (unsigned long long)data_len);
	if (!(e->flags & LW_FLAG_MARK))
		return 0;
	return read_mark_text(log, e, data_len, idx, err, errlen);
}

/*
 * Where the entry after e starts; fails if e's data runs past the end.
 * entry_problem() already ruled out overflow of nr_sectors * sectorsize.
 */
static int next_entry_offset(const struct lw_log *log,
			     const struct lw_entry *e, uint64_t idx,
			     uint64_t *next, char *err, size_t errlen)
{
	uint64_t data_len = entry_log_data_len(log, e);
	uint64_t data_off = lw_entry_data_offset(log, e);

	if (data_off > log->size || log->size - data_off < data_len)
		return errbuf_fail(err, errlen,
			    "entry %llu at byte %llu: its %llu bytes of data run past the end of the log (%llu bytes)",
			    (unsigned long long)idx,
			    (unsigned long long)e->offset,
			    (unsigned long long)data_len,
			    (unsigned long long)log->size);
	*next = data_off + data_len;
	return 0;
}

static int read_entries(struct lw_log *log, char *err, size_t errlen)
{
	uint64_t off = log->sectorsize;

	log->entries = calloc(log->nr_entries ? log->nr_entries : 1,
			      sizeof(*log->entries));
	if (!log->entries)
		return errbuf_fail(err, errlen, "out of memory for %llu entries",
			    (unsigned long long)log->nr_entries);
	for (uint64_t i = 0; i < log->nr_entries; i++) {
		struct lw_entry *e = &log->entries[i];

		e->offset = off;
		if (read_entry(log, e, i, err, errlen) < 0 ||
		    next_entry_offset(log, e, i, &off, err, errlen) < 0)
			return -1;
	}
	return 0;
}

int lwlog_open(const char *path, struct lw_log *log, char *err, size_t errlen)
{
	memset(log, 0, sizeof(*log));
	log->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (log->fd < 0)
		return errbuf_fail(err, errlen, "cannot open log %s: %s", path,
			    strerror(errno));
	if (fd_size(log->fd, &log->size, NULL) < 0) {
		errbuf_fail(err, errlen, "cannot size log %s: %s", path,
		     strerror(errno));
		goto out_close;
	}
	if (read_super(log, err, errlen) < 0 ||
	    check_geometry(log, err, errlen) < 0 ||
	    read_entries(log, err, errlen) < 0)
		goto out_close;
	return 0;
out_close:
	lwlog_close(log);
	return -1;
}

void lwlog_close(struct lw_log *log)
{
	if (log->entries) {
		for (uint64_t i = 0; i < log->nr_entries; i++)
			free(log->entries[i].mark);
	}
	free(log->entries);
	if (log->fd >= 0)
		close(log->fd);
	memset(log, 0, sizeof(*log));
	log->fd = -1;
}

int lwlog_check_fits(const struct lw_log *log, uint64_t dev_size,
		     char *err, size_t errlen)
{
	for (uint64_t i = 0; i < log->nr_entries; i++) {
		const struct lw_entry *e = &log->entries[i];
		uint64_t end = lw_entry_dev_offset(log, e) +
			       lw_entry_dev_length(log, e);

		if (lw_entry_changes_dev(e) && end > dev_size)
			return errbuf_fail(err, errlen,
				    "entry %llu at byte %llu: sectors %llu..%llu end at byte %llu, past the end of DEV (%llu bytes)",
				    (unsigned long long)i,
				    (unsigned long long)e->offset,
				    (unsigned long long)e->sector,
				    (unsigned long long)(e->sector + e->nr_sectors - 1),
				    (unsigned long long)end,
				    (unsigned long long)dev_size);
	}
	return 0;
}

const char *lw_flags_name(uint64_t flags, char *buf, size_t buflen)
{
	static const struct { uint64_t bit; const char *name; } names[] = {
		{ LW_FLAG_FLUSH, "FLUSH" }, { LW_FLAG_FUA, "FUA" },
		{ LW_FLAG_DISCARD, "DISCARD" }, { LW_FLAG_MARK, "MARK" },
		{ LW_FLAG_METADATA, "META" },
	};
	const uint64_t kinds = LW_FLAG_FLUSH | LW_FLAG_FUA | LW_FLAG_DISCARD |
			       LW_FLAG_MARK;
	char tmp[64] = "";

	if (!(flags & kinds))
		strcat(tmp, "WRITE");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(flags & names[i].bit))
			continue;
		if (tmp[0])
			strcat(tmp, "|");
		strcat(tmp, names[i].name);
	}
	if (flags & ~LW_FLAGS_KNOWN)
		strcat(tmp, tmp[0] ? "|?" : "?");
	snprintf(buf, buflen, "%s", tmp);
	return buf;
}
