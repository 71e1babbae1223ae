// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "jbuild.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- independent checksums --- */

uint32_t ref_crc32c(uint32_t crc, const void *buf, size_t len)
{
	uint32_t table[256];
	const uint8_t *p = buf;

	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
		table[i] = c;
	}
	for (size_t i = 0; i < len; i++)
		crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
	return crc;
}

static void be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v;
}

static void be16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8; p[1] = v;
}

static uint32_t rbe32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static void le16(uint8_t *p, uint16_t v)
{
	p[0] = v; p[1] = v >> 8;
}

static void le32(uint8_t *p, uint32_t v)
{
	p[0] = v; p[1] = v >> 8; p[2] = v >> 16; p[3] = v >> 24;
}

static uint32_t seed_of(const uint8_t uuid[16])
{
	return ref_crc32c(0xffffffffu, uuid, 16);
}

/* crc32c(seed, block) with the checksum field at @off as zero */
static uint32_t block_csum(const uint8_t *blk, uint32_t off,
			   const uint8_t uuid[16])
{
	uint8_t copy[JB_BS];

	memcpy(copy, blk, JB_BS);
	memset(copy + off, 0, 4);
	return ref_crc32c(seed_of(uuid), copy, JB_BS);
}

static uint32_t data_csum(uint32_t tid, const uint8_t *data,
			  const uint8_t uuid[16])
{
	uint8_t seq[4];

	be32(seq, tid);
	return ref_crc32c(ref_crc32c(seed_of(uuid), seq, 4), data, JB_BS);
}

bool ref_header_ok(const uint8_t *blk, const uint8_t uuid[16])
{
	switch (rbe32(blk + 4)) {
	case 1: case 5:
		return rbe32(blk + JB_BS - 4) == block_csum(blk, JB_BS - 4, uuid);
	case 2:
		return rbe32(blk + 16) == block_csum(blk, 16, uuid);
	}
	return false;
}

bool ref_tag_ok(const uint8_t *desc, uint32_t tag_off, int csum, uint32_t tid,
		const uint8_t *data, const uint8_t uuid[16])
{
	uint32_t c = data_csum(tid, data, uuid);

	if (csum == 3)
		return rbe32(desc + tag_off + 12) == c;
	return ((uint32_t)desc[tag_off + 4] << 8 | desc[tag_off + 5]) == (c & 0xffff);
}

bool ref_jsb_ok(const uint8_t *img, const struct jbuild *b)
{
	uint8_t copy[1024];

	memcpy(copy, img + b->jmap[0] * JB_BS, 1024);
	memset(copy + 0xfc, 0, 4);
	return rbe32(img + b->jmap[0] * JB_BS + 0xfc) ==
	       ref_crc32c(0xffffffffu, copy, 1024);
}

/* --- the image --- */

static uint8_t *fsblock(struct jbuild *b, uint64_t n)
{
	return b->img + n * JB_BS;
}

static void map_range(struct jbuild *b, uint32_t lblk, uint32_t len,
		      uint64_t start)
{
	for (uint32_t i = 0; i < len; i++)
		b->jmap[lblk + i] = start + i;
}

static void extent(uint8_t *e, uint32_t lblk, uint16_t len, uint64_t start)
{
	le32(e, lblk);
	le16(e + 4, len);
	le16(e + 6, (uint16_t)(start >> 32));
	le32(e + 8, (uint32_t)start);
}

static void ext_header(uint8_t *h, uint16_t entries, uint16_t max,
		       uint16_t depth)
{
	le16(h, 0xf30a);
	le16(h + 2, entries);
	le16(h + 4, max);
	le16(h + 6, depth);
}

void jb_init(struct jbuild *b, int csum, bool is64, enum jb_map map)
{
	uint8_t *sb, *gd, *inode, *ib;

	memset(b, 0, sizeof(*b));
	b->img = calloc(JB_BLOCKS, JB_BS);
	b->csum = csum;
	b->is64 = is64;
	b->maxlen = JB_JBLOCKS;
	for (int i = 0; i < 16; i++)
		b->uuid[i] = (uint8_t)(0x11 * (i + 1));
	sb = b->img + 1024;
	le32(sb + 0x00, 64);			/* s_inodes_count */
	le32(sb + 0x04, JB_BLOCKS);
	le32(sb + 0x14, 1);			/* s_first_data_block */
	le32(sb + 0x18, 0);			/* 1 KiB blocks */
	le32(sb + 0x20, 8192);			/* blocks per group */
	le32(sb + 0x28, 64);			/* inodes per group */
	le16(sb + 0x38, 0xef53);
	le32(sb + 0x4c, 1);			/* dynamic rev */
	le16(sb + 0x58, 256);			/* inode size */
	le32(sb + 0x5c, 0x4);			/* has_journal */
	le32(sb + 0x60, 0x40 | (is64 ? 0x80 : 0));	/* extents, 64bit */
	le32(sb + 0xe0, 8);			/* journal inode */
	le16(sb + 0xfe, is64 ? 64 : 32);
	gd = fsblock(b, 2);
	le32(gd + 8, 10);			/* inode table at block 10 */
	inode = fsblock(b, 10) + 7 * 256;	/* inode 8 */
	le32(inode + 0x04, JB_JBLOCKS * JB_BS);
	ib = inode + 0x28;
	switch (map) {
	case JB_EXTENTS:
		le32(inode + 0x20, 0x80000);
		ext_header(ib, 2, 4, 0);
		extent(ib + 12, 0, 64, 100);
		extent(ib + 24, 64, 64, 300);
		map_range(b, 0, 64, 100);
		map_range(b, 64, 64, 300);
		break;
	case JB_EXTENT_TREE: {
		uint8_t *leaf = fsblock(b, 50);

		le32(inode + 0x20, 0x80000);
		ext_header(ib, 1, 4, 1);
		le32(ib + 12, 0);		/* index: lblk 0 -> block 50 */
		le32(ib + 16, 50);
		ext_header(leaf, 3, (JB_BS - 12) / 12, 0);
		extent(leaf + 12, 0, 40, 100);
		extent(leaf + 24, 40, 60, 400);
		extent(leaf + 36, 100, 28, 600);
		map_range(b, 0, 40, 100);
		map_range(b, 40, 60, 400);
		map_range(b, 100, 28, 600);
		break;
	}
	case JB_INDIRECT: {
		uint8_t *ind = fsblock(b, 50);

		for (uint32_t i = 0; i < 12; i++)
			le32(ib + i * 4, 100 + i);
		le32(ib + 12 * 4, 50);
		for (uint32_t i = 12; i < JB_JBLOCKS; i++)
			le32(ind + (i - 12) * 4, 700 + i - 12);
		map_range(b, 0, 12, 100);
		map_range(b, 12, JB_JBLOCKS - 12, 700);
		le32(sb + 0x60, is64 ? 0x80 : 0);
		break;
	}
	}
	b->incompat = 0x1 | (is64 ? 0x2 : 0) |
		      (csum == 3 ? 0x10 : csum == 2 ? 0x8 : 0);
}

void jb_free(struct jbuild *b)
{
	free(b->img);
	b->img = NULL;
}

uint8_t *jb_jblock(struct jbuild *b, uint32_t jblock)
{
	return fsblock(b, b->jmap[jblock]);
}

void jb_super(struct jbuild *b, bool clean)
{
	uint8_t *sb = jb_jblock(b, 0);

	memset(sb, 0, JB_BS);
	be32(sb, 0xc03b3998u);
	be32(sb + 4, 4);
	be32(sb + 0x0c, JB_BS);
	be32(sb + 0x10, b->maxlen);
	be32(sb + 0x14, 1);
	be32(sb + 0x18, b->first_tid);
	be32(sb + 0x1c, clean ? 0 : b->start);
	be32(sb + 0x28, b->incompat);
	memcpy(sb + 0x30, b->uuid, 16);
	be32(sb + 0x40, 1);
	if (b->csum) {
		sb[0x50] = 4;
		/* the super block is seeded with ~0, not the UUID */
		uint8_t copy[1024];

		memcpy(copy, sb, 1024);
		memset(copy + 0xfc, 0, 4);
		be32(sb + 0xfc, ref_crc32c(0xffffffffu, copy, 1024));
	}
}

void jb_begin(struct jbuild *b, uint32_t start, uint32_t tid)
{
	b->start = b->next = start;
	b->first_tid = b->tid = tid;
}

static uint32_t advance(struct jbuild *b)
{
	uint32_t here = b->next;

	b->next = b->next + 1 >= b->maxlen ? 1 : b->next + 1;
	return here;
}

static void header(uint8_t *blk, uint32_t type, uint32_t tid)
{
	memset(blk, 0, JB_BS);
	be32(blk, 0xc03b3998u);
	be32(blk + 4, type);
	be32(blk + 8, tid);
}

static uint32_t tag_bytes(const struct jbuild *b)
{
	uint32_t sz;

	if (b->csum == 3)
		return 16;
	sz = 12 + (b->csum == 2 ? 2 : 0);
	return b->is64 ? sz : sz - 4;
}

void jb_desc(struct jbuild *b, size_t n, const uint64_t *blocks,
	     unsigned escape_mask)
{
	uint8_t *desc = jb_jblock(b, advance(b));
	uint32_t off = 12;

	header(desc, 1, b->tid);
	for (size_t i = 0; i < n; i++) {
		uint8_t *data = jb_jblock(b, advance(b)), *tag = desc + off;
		uint16_t flags = (i ? 2 : 0) | (i + 1 == n ? 8 : 0) |
				 (escape_mask >> i & 1 ? 1 : 0);
		uint32_t c;

		for (uint32_t k = 0; k < JB_BS; k++)
			data[k] = (uint8_t)(b->tid * 31 + blocks[i] * 7 + k);
		if (flags & 1)
			memset(data, 0, 4);
		c = data_csum(b->tid, data, b->uuid);
		be32(tag, (uint32_t)blocks[i]);
		if (b->csum == 3) {
			be32(tag + 4, flags);
			be32(tag + 12, c);
		} else {
			be16(tag + 4, b->csum == 2 ? (uint16_t)c : 0);
			be16(tag + 6, flags);
		}
		if (b->is64)
			be32(tag + 8, (uint32_t)(blocks[i] >> 32));
		off += tag_bytes(b);
		if (!(flags & 2)) {
			memcpy(desc + off, b->uuid, 16);
			off += 16;
		}
	}
	if (b->csum)
		be32(desc + JB_BS - 4, block_csum(desc, JB_BS - 4, b->uuid));
}

void jb_revoke(struct jbuild *b, size_t n, const uint64_t *blocks)
{
	uint8_t *blk = jb_jblock(b, advance(b));
	uint32_t rl = b->is64 ? 8 : 4;

	header(blk, 5, b->tid);
	be32(blk + 12, 16 + (uint32_t)n * rl);
	for (size_t i = 0; i < n; i++) {
		if (b->is64) {
			be32(blk + 16 + i * 8, (uint32_t)(blocks[i] >> 32));
			be32(blk + 20 + i * 8, (uint32_t)blocks[i]);
		} else {
			be32(blk + 16 + i * 4, (uint32_t)blocks[i]);
		}
	}
	if (b->csum)
		be32(blk + JB_BS - 4, block_csum(blk, JB_BS - 4, b->uuid));
}

void jb_commit(struct jbuild *b)
{
	uint8_t *blk = jb_jblock(b, advance(b));

	header(blk, 2, b->tid);
	be32(blk + 0x30, 0);
	be32(blk + 0x34, 1700000000u + b->tid);
	be32(blk + 0x38, 12345);
	if (b->csum)
		be32(blk + 16, block_csum(blk, 16, b->uuid));
	b->tid++;
}

int jb_save(const struct jbuild *b, const char *path)
{
	return tu_write_file(path, b->img, (size_t)JB_BLOCKS * JB_BS);
}

/* --- commands --- */

int tu_jfuzz(struct tu_cmd *r, ...)
{
	va_list ap;
	int rc;

	va_start(ap, r);
	rc = tu_toolv(r, "jfuzz", ap);
	va_end(ap);
	return rc;
}
