/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test helpers: a tiny ext4-shaped image (super block, one group
 * descriptor, the journal inode with an extent tree of depth 0 or 1, or
 * block pointers) holding a jbd2 journal written block by block, with
 * checksums computed here, independently of jfuzz (table-driven crc32c,
 * the jbd2 rules written out again).  And running the jfuzz binary.
 */
#ifndef JFUZZ_TEST_JBUILD_H
#define JFUZZ_TEST_JBUILD_H

#include "testutil.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JB_BS		1024
#define JB_BLOCKS	2048	/* filesystem blocks in the image */
#define JB_JBLOCKS	128	/* journal blocks */

enum jb_map { JB_EXTENTS, JB_EXTENT_TREE, JB_INDIRECT };

struct jbuild {
	uint8_t *img;		/* JB_BLOCKS * JB_BS bytes */
	uint64_t jmap[JB_JBLOCKS];
	int csum;		/* 0 (none), 2 or 3 */
	bool is64;
	uint32_t incompat;	/* jbd2 incompat features */
	uint8_t uuid[16];
	uint32_t next;		/* next journal block to write */
	uint32_t tid;		/* transaction being written */
	uint32_t first_tid, start;
	uint32_t maxlen;	/* s_maxlen (default JB_JBLOCKS) */
};

/* Independent crc32c (table, raw: no inversion). */
uint32_t ref_crc32c(uint32_t crc, const void *buf, size_t len);

void jb_init(struct jbuild *b, int csum, bool is64, enum jb_map map);
void jb_free(struct jbuild *b);
uint8_t *jb_jblock(struct jbuild *b, uint32_t jblock);
/* Start the log at journal block @start with transaction @tid. */
void jb_begin(struct jbuild *b, uint32_t start, uint32_t tid);
/*
 * A descriptor block and its data blocks: @n tags for fs blocks @blocks;
 * tag i gets SAME_UUID unless i == 0, ESCAPE if @escape_mask bit i.
 * Data block i holds a pattern made of (tid, block).
 */
void jb_desc(struct jbuild *b, size_t n, const uint64_t *blocks,
	     unsigned escape_mask);
void jb_revoke(struct jbuild *b, size_t n, const uint64_t *blocks);
void jb_commit(struct jbuild *b);
/* Write the journal super block (s_start 0 if @clean). */
void jb_super(struct jbuild *b, bool clean);
int jb_save(const struct jbuild *b, const char *path);

/* Independent checks on an image file, at the layout jb wrote. */
bool ref_jsb_ok(const uint8_t *img, const struct jbuild *b);
bool ref_header_ok(const uint8_t *blk, const uint8_t uuid[16]);
bool ref_tag_ok(const uint8_t *desc, uint32_t tag_off, int csum, uint32_t tid,
		const uint8_t *data, const uint8_t uuid[16]);

/* $TOOLS_BIN/jfuzz with NULL-terminated arguments; its exit status. */
int tu_jfuzz(struct tu_cmd *r, ...);

#endif /* JFUZZ_TEST_JBUILD_H */
