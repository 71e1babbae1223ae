/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Self-describing data records.
 *
 * Every 4 KiB the workloads write says what it is: which path it was
 * written for, which file (a new id for every file created), which record
 * of the file, which generation of that record, and a checksum over all of
 * it. After a crash the checker can tell, for any record in any file,
 * whether it is the promised content, a newer version of it, something
 * older, a torn write or another file's stale data.
 */
#ifndef CRASHWORK_RECORD_H
#define CRASHWORK_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CW_RECORD_SIZE	4096
#define CW_MAGIC	0x314b574853415243ULL	/* "CRASHWK1", little endian */

struct cw_record_id {
	uint64_t pathid;	/* cw_path_id() of the name it was written for */
	uint64_t fileid;	/* unique per created file, increasing */
	uint64_t index;		/* record number within the file */
	uint64_t gen;		/* generation of this record, from 1 */
};

enum cw_record_kind {
	CW_RECORD_ZERO,		/* never written (hole, unwritten extent) */
	CW_RECORD_VALID,	/* intact record, id filled in */
	CW_RECORD_GARBAGE,	/* neither: torn, corrupted or foreign */
};

uint64_t cw_hash64(const void *buf, size_t len, uint64_t seed);
uint64_t cw_path_id(const char *name);
void cw_record_fill(void *buf, const struct cw_record_id *id);
enum cw_record_kind cw_record_parse(const void *buf, struct cw_record_id *id);

/*
 * Is @have at least as new as @want? Later files written for the same name
 * get larger file ids, later overwrites of a record larger generations.
 */
static inline bool cw_record_newer_or_same(const struct cw_record_id *have,
					   const struct cw_record_id *want)
{
	if (have->fileid != want->fileid)
		return have->fileid > want->fileid;
	return have->gen >= want->gen;
}

#endif
