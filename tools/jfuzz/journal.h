/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The jbd2 side: the journal super block, a walk of the log from s_start
 * and s_sequence the way recovery's scan pass walks it (without judging
 * checksums), and the jbd2 checksums of every kind of block.
 */
#ifndef JFUZZ_JOURNAL_H
#define JFUZZ_JOURNAL_H

#include "image.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* On-disk constants (include/linux/jbd2.h). */
#define JBD2_MAGIC		0xc03b3998u
#define JBD2_DESCRIPTOR_BLOCK	1
#define JBD2_COMMIT_BLOCK	2
#define JBD2_SUPERBLOCK_V1	3
#define JBD2_SUPERBLOCK_V2	4
#define JBD2_REVOKE_BLOCK	5
#define JBD2_FLAG_ESCAPE	1
#define JBD2_FLAG_SAME_UUID	2
#define JBD2_FLAG_DELETED	4
#define JBD2_FLAG_LAST_TAG	8
#define JBD2_COMPAT_CHECKSUM	0x1
#define JBD2_INCOMPAT_REVOKE	0x1
#define JBD2_INCOMPAT_64BIT	0x2
#define JBD2_INCOMPAT_ASYNC	0x4
#define JBD2_INCOMPAT_CSUM_V2	0x8
#define JBD2_INCOMPAT_CSUM_V3	0x10
#define JBD2_INCOMPAT_FAST_COMMIT 0x20
#define JBD2_INCOMPAT_CSUM_ORDER 0x40
#define JBD2_CRC32C_CHKSUM	4
#define JBD2_FC_DEFAULT_BLOCKS	256

/* Journal super block field offsets. */
#define JSB_BLOCKSIZE	0x0c
#define JSB_MAXLEN	0x10
#define JSB_FIRST	0x14
#define JSB_SEQUENCE	0x18
#define JSB_START	0x1c
#define JSB_ERRNO	0x20
#define JSB_COMPAT	0x24
#define JSB_INCOMPAT	0x28
#define JSB_ROCOMPAT	0x2c
#define JSB_UUID	0x30
#define JSB_NR_USERS	0x40
#define JSB_CSUM_TYPE	0x50
#define JSB_NUM_FC	0x54
#define JSB_CHECKSUM	0xfc
#define JSB_SIZE	1024

/* Commit block field offsets. */
#define CB_SEQUENCE	0x08
#define CB_CSUM_TYPE	0x0c
#define CB_CSUM_SIZE	0x0d
#define CB_UNFLUSHED	0x0e	/* CSUM_ORDER unflushed window, __be16 */
#define CB_CHKSUM	0x10
#define CB_COMMIT_SEC	0x30
#define CB_COMMIT_NSEC	0x38

#define JHDR_SIZE	12	/* magic, block type, sequence */
#define REVOKE_HDR_SIZE	16	/* header + r_count */
#define TAIL_SIZE	4	/* descriptor/revoke checksum tail */

enum jf_kind { JF_DESC, JF_DATA, JF_REVOKE, JF_COMMIT };

/* One block of the log, as the walk found it. */
struct jf_lblock {
	uint32_t jblock;	/* journal block */
	uint32_t tid;
	enum jf_kind kind;
	size_t tx;		/* index into jf_journal.txs */
	/* JF_DATA only: where its tag is, and what it says */
	uint32_t desc;		/* journal block of the descriptor */
	uint32_t tag_off;	/* byte offset of the tag in it */
	uint32_t tag_index;	/* tag number in the descriptor, from 0 */
	uint64_t fsblock;
	uint16_t flags;
};

struct jf_tx {
	uint32_t tid;
	size_t first;		/* index of its first block in blocks[] */
	size_t count;
	bool committed;		/* the walk reached its commit block */
};

struct jf_journal {
	const struct jf_image *img;
	uint8_t sb[JSB_SIZE];	/* the journal super block, as read */
	uint32_t bs, maxlen, first, start, sequence, nr_users;
	uint32_t compat, incompat, rocompat;
	int csum_version;	/* 0 none, 1 (COMPAT_CHECKSUM), 2, 3 */
	uint32_t last;		/* log blocks are [first, last) */
	uint32_t tag_bytes;
	uint32_t seed;		/* crc32c of the UUID: the checksum seed */
	struct jf_lblock *blocks;
	size_t nblocks;
	struct jf_tx *txs;
	size_t ntxs;
	char end[128];		/* why the walk stopped */
};

/*
 * Read the journal super block of @img and walk the log.  Returns 0 (an
 * empty or unwalkable log is not an error: nblocks is 0 and end says why)
 * or -1 with a message in @err (I/O error, no journal super block, a
 * block size other than the filesystem's).
 */
int jf_journal_load(struct jf_journal *j, const struct jf_image *img,
		    char *err, size_t errlen);
void jf_journal_free(struct jf_journal *j);

/* Log block arithmetic: the block after @b, wrapping at last. */
uint32_t jf_next(const struct jf_journal *j, uint32_t b);
bool jf_has_csum23(const struct jf_journal *j);

/* Counts over the walked log. */
struct jf_counts { size_t desc, data, revoke, commit, committed; };
void jf_count(const struct jf_journal *j, struct jf_counts *c);

/* Checksums: what the field should hold for the block as it is. */
uint32_t jf_jsb_csum(const uint8_t *sb);
uint32_t jf_tail_csum(const struct jf_journal *j, const uint8_t *blk);
uint32_t jf_commit_csum(const struct jf_journal *j, const uint8_t *blk);
uint32_t jf_tag_csum(const struct jf_journal *j, uint32_t tid,
		     const uint8_t *data);
/*
 * Make the checksum of a header block (descriptor, revoke, commit: by its
 * block type) match its contents; nothing without csum v2/v3.  Returns
 * what was recomputed ("tail", "commit", or NULL).
 */
const char *jf_fix_block_csum(const struct jf_journal *j, uint8_t *blk);
/* Store @csum in the tag at @tag_off of descriptor @desc (v2: low 16 bits). */
void jf_set_tag_csum(const struct jf_journal *j, uint8_t *desc,
		     uint32_t tag_off, uint32_t csum);
uint32_t jf_get_tag_csum(const struct jf_journal *j, const uint8_t *desc,
			 uint32_t tag_off);
void jf_fix_jsb_csum(uint8_t *sb);

/* --dump: the super block, every log block, and a summary line. */
void jf_dump(const struct jf_journal *j, FILE *f);

#endif /* JFUZZ_JOURNAL_H */
