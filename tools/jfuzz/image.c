// SPDX-License-Identifier: GPL-2.0
#include "image.h"
#include "fdutil.h"
#include "errbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ext4 on-disk offsets used here (fs/ext4/ext4.h). */
#define EXT4_SB_OFFSET		1024
#define EXT4_SB_MAGIC		0xef53
#define EXT4_HAS_JOURNAL	0x0004	/* compat */
#define EXT4_JOURNAL_DEV	0x0008	/* incompat */
#define EXT4_64BIT		0x0080	/* incompat */
#define EXT4_EXTENTS_FL		0x00080000
#define EXT4_EXT_MAGIC		0xf30a
#define EXT4_EXT_MAX_DEPTH	5
#define EXT4_N_BLOCKS		15

/* Walking the journal inode's block map into img->jmap. */
struct mapper {
	struct jf_image *img;
	uint8_t *buf;		/* one block, for tree nodes */
	char *err;
	size_t errlen;
};

static int map_one(struct mapper *m, uint64_t lblk, uint64_t pblk)
{
	struct jf_image *img = m->img;

	if (lblk >= img->jblocks)
		return 0;	/* past i_size: not part of the journal */
	if (pblk == 0 || pblk >= img->blocks_count)
		return errbuf_fail(m->err, m->errlen,
			    "journal block %llu maps to block %llu, outside the filesystem (%llu blocks)",
			    (unsigned long long)lblk, (unsigned long long)pblk,
			    (unsigned long long)img->blocks_count);
	img->jmap[lblk] = pblk;
	return 0;
}

static int read_fs_block(struct mapper *m, uint64_t pblk, uint8_t *buf)
{
	struct jf_image *img = m->img;

	if (pblk == 0 || pblk >= img->blocks_count ||
	    pread_full(img->fd, buf, img->bs, pblk * img->bs) < 0)
		return errbuf_fail(m->err, m->errlen,
			    "cannot read block %llu of the journal inode's map",
			    (unsigned long long)pblk);
	return 0;
}

/* An extent tree node of @size bytes at @node; @depth as its header says. */
static int map_extents(struct mapper *m, const uint8_t *node, size_t size,
		       int level)
{
	unsigned entries = get_le16(node + 2), depth = get_le16(node + 6);

	if (get_le16(node) != EXT4_EXT_MAGIC || level > EXT4_EXT_MAX_DEPTH ||
	    12 + (size_t)entries * 12 > size)
		return errbuf_fail(m->err, m->errlen,
			    "journal inode: bad extent tree node (level %d)", level);
	for (unsigned i = 0; i < entries; i++) {
		const uint8_t *e = node + 12 + i * 12;

		if (depth == 0) {
			uint64_t lblk = get_le32(e);
			unsigned len = get_le16(e + 4);
			uint64_t start = (uint64_t)get_le16(e + 6) << 32 |
					 get_le32(e + 8);

			if (len > 32768)
				len -= 32768;	/* unwritten extent */
			for (unsigned k = 0; k < len; k++)
				if (map_one(m, lblk + k, start + k))
					return -1;
		} else {
			uint64_t leaf = (uint64_t)get_le16(e + 8) << 32 |
					get_le32(e + 4);
			uint8_t *child = malloc(m->img->bs);
			int r;

			if (!child)
				return errbuf_fail(m->err, m->errlen, "out of memory");
			r = read_fs_block(m, leaf, child);
			if (!r && get_le16(child + 6) != depth - 1)
				r = errbuf_fail(m->err, m->errlen,
					 "journal inode: extent node at block %llu has depth %u, expected %u",
					 (unsigned long long)leaf,
					 get_le16(child + 6), depth - 1);
			if (!r)
				r = map_extents(m, child, m->img->bs, level + 1);
			free(child);
			if (r)
				return r;
		}
	}
	return 0;
}

/* Block pointers, ext3 style: @level 0 is a data block. */
static int map_indirect(struct mapper *m, uint64_t pblk, int level,
			uint64_t *lblk)
{
	uint64_t per = m->img->bs / 4, span = 1;
	uint8_t *blk;
	int r = 0;

	for (int i = 0; i < level; i++)
		span *= per;
	if (pblk == 0) {
		*lblk += span;	/* a hole: the check after mapping names it */
		return 0;
	}
	if (level == 0)
		return map_one(m, (*lblk)++, pblk);
	blk = malloc(m->img->bs);
	if (!blk)
		return errbuf_fail(m->err, m->errlen, "out of memory");
	r = read_fs_block(m, pblk, blk);
	for (uint64_t i = 0; !r && i < per && *lblk < m->img->jblocks; i++)
		r = map_indirect(m, get_le32(blk + i * 4), level - 1, lblk);
	free(blk);
	return r;
}

static int map_journal(struct jf_image *img, const uint8_t *inode,
		       char *err, size_t errlen)
{
	struct mapper m = { .img = img, .err = err, .errlen = errlen };
	const uint8_t *iblock = inode + 0x28;

	for (uint32_t i = 0; i < img->jblocks; i++)
		img->jmap[i] = 0;
	if (get_le32(inode + 0x20) & EXT4_EXTENTS_FL) {
		if (map_extents(&m, iblock, 60, 0))
			return -1;
	} else {
		uint64_t lblk = 0;

		for (int i = 0; i < EXT4_N_BLOCKS && lblk < img->jblocks; i++) {
			int level = i < 12 ? 0 : i - 11;

			if (map_indirect(&m, get_le32(iblock + i * 4), level, &lblk))
				return -1;
		}
	}
	for (uint32_t i = 0; i < img->jblocks; i++)
		if (!img->jmap[i])
			return errbuf_fail(err, errlen, "journal block %u is a hole", i);
	return 0;
}

static int read_journal_inode(struct jf_image *img, const uint8_t *sb,
			      uint8_t *inode, char *err, size_t errlen)
{
	uint32_t ipg = get_le32(sb + 0x28), first = get_le32(sb + 0x14);
	uint32_t inode_size = get_le32(sb + 0x4c) ? get_le16(sb + 0x58) : 128;
	uint32_t desc_size = 32, group, index;
	uint64_t gdt, table;
	uint8_t desc[64];

	if (get_le32(sb + 0x60) & EXT4_64BIT)
		desc_size = get_le16(sb + 0xfe);
	if (!ipg || inode_size < 128 || inode_size > img->bs ||
	    desc_size < 32 || desc_size > 64)
		return errbuf_fail(err, errlen, "bad ext4 super block (inodes per group %u, inode size %u, descriptor size %u)",
			    ipg, inode_size, desc_size);
	group = (img->journal_inum - 1) / ipg;
	index = (img->journal_inum - 1) % ipg;
	gdt = (uint64_t)(first + 1) * img->bs + (uint64_t)group * desc_size;
	if (pread_full(img->fd, desc, desc_size, gdt) < 0)
		return errbuf_fail(err, errlen, "cannot read group descriptor %u", group);
	table = get_le32(desc + 8);
	if (desc_size >= 64)
		table |= (uint64_t)get_le32(desc + 0x28) << 32;
	if (!table || table >= img->blocks_count ||
	    pread_full(img->fd, inode, 128, table * img->bs +
		     (uint64_t)index * inode_size) < 0)
		return errbuf_fail(err, errlen, "cannot read journal inode %u (inode table at block %llu)",
			    img->journal_inum, (unsigned long long)table);
	return 0;
}

int jf_image_open(struct jf_image *img, const char *path, int writable,
		  char *err, size_t errlen)
{
	uint8_t sb[1024], inode[128];
	uint32_t log_bs;

	memset(img, 0, sizeof(*img));
	img->fd = open(path, writable ? O_RDWR : O_RDONLY);
	if (img->fd < 0)
		return errbuf_fail(err, errlen, "cannot open %s: %s", path, strerror(errno));
	if (fd_size(img->fd, &img->dev_size, NULL) < 0) {
		errbuf_fail(err, errlen, "%s: not a file or block device", path);
		goto out;
	}
	if (pread_full(img->fd, sb, sizeof(sb), EXT4_SB_OFFSET) < 0 ||
	    get_le16(sb + 0x38) != EXT4_SB_MAGIC) {
		errbuf_fail(err, errlen, "%s: no ext4 super block", path);
		goto out;
	}
	log_bs = get_le32(sb + 0x18);
	if (log_bs > 6) {
		errbuf_fail(err, errlen, "%s: bad block size (log %u)", path, log_bs);
		goto out;
	}
	img->bs = 1024u << log_bs;
	img->blocks_count = get_le32(sb + 0x04);
	if (get_le32(sb + 0x60) & EXT4_64BIT)
		img->blocks_count |= (uint64_t)get_le32(sb + 0x150) << 32;
	if (img->blocks_count > img->dev_size / img->bs)
		img->blocks_count = img->dev_size / img->bs;	/* truncated image */
	if (!(get_le32(sb + 0x5c) & EXT4_HAS_JOURNAL) ||
	    (get_le32(sb + 0x60) & EXT4_JOURNAL_DEV)) {
		errbuf_fail(err, errlen, "%s: no internal journal", path);
		goto out;
	}
	img->journal_inum = get_le32(sb + 0xe0);
	if (!img->journal_inum || get_le32(sb + 0xe4)) {
		errbuf_fail(err, errlen, "%s: external journal (journal inode %u, device %#x)",
		     path, img->journal_inum, get_le32(sb + 0xe4));
		goto out;
	}
	if (read_journal_inode(img, sb, inode, err, errlen))
		goto out;
	img->journal_bytes = get_le32(inode + 0x04) |
			     (uint64_t)get_le32(inode + 0x6c) << 32;
	if (img->journal_bytes / img->bs < 2 ||
	    img->journal_bytes / img->bs > JF_MAX_JBLOCKS) {
		errbuf_fail(err, errlen, "%s: journal inode size %llu bytes is not usable",
		     path, (unsigned long long)img->journal_bytes);
		goto out;
	}
	img->jblocks = (uint32_t)(img->journal_bytes / img->bs);
	img->jmap = calloc(img->jblocks, sizeof(*img->jmap));
	if (!img->jmap) {
		errbuf_fail(err, errlen, "out of memory");
		goto out;
	}
	if (map_journal(img, inode, err, errlen) == 0)
		return 0;
out:
	jf_image_close(img);
	return -1;
}

void jf_image_close(struct jf_image *img)
{
	if (img->fd >= 0)
		close(img->fd);
	free(img->jmap);
	img->jmap = NULL;
	img->fd = -1;
}

int jf_read_jblock(const struct jf_image *img, uint32_t jblock, void *buf)
{
	if (jblock >= img->jblocks) {
		errno = EINVAL;
		return -1;
	}
	return pread_full(img->fd, buf, img->bs, img->jmap[jblock] * img->bs);
}

int jf_write_jblock(const struct jf_image *img, uint32_t jblock,
		    const void *buf)
{
	if (jblock >= img->jblocks) {
		errno = EINVAL;
		return -1;
	}
	return pwrite_full(img->fd, buf, img->bs, img->jmap[jblock] * img->bs);
}
