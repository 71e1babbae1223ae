/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ext4 side: the super block, the journal inode and the map from
 * journal (logical) blocks to filesystem blocks, read from the inode's
 * extent tree (or, for an ext3-style inode, its block pointers), and block
 * I/O on the image file or block device.
 */
#ifndef JFUZZ_IMAGE_H
#define JFUZZ_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#define JF_ERRLEN	256
/* Journals larger than this are refused (the map is held in memory). */
#define JF_MAX_JBLOCKS	(1u << 22)

struct jf_image {
	int fd;
	uint64_t dev_size;	/* bytes */
	uint32_t bs;		/* filesystem block size */
	uint64_t blocks_count;	/* filesystem blocks */
	uint32_t journal_inum;
	uint64_t journal_bytes;	/* the journal inode's i_size */
	uint32_t jblocks;	/* journal blocks, all mapped */
	uint64_t *jmap;		/* journal block -> filesystem block */
};

/* Byte order helpers, shared by the jfuzz files. */
static inline uint16_t get_le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}
static inline uint16_t get_be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}
static inline uint64_t get_be64(const uint8_t *p)
{
	return (uint64_t)get_be32(p) << 32 | get_be32(p + 4);
}
static inline void put_be16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static inline void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}
static inline void put_be64(uint8_t *p, uint64_t v)
{
	put_be32(p, (uint32_t)(v >> 32));
	put_be32(p + 4, (uint32_t)v);
}

/*
 * Open @path read-only (or read-write) and map its journal.  Returns 0, or
 * -1 with a message in @err: not ext4, no journal, an external journal, a
 * hole or a block outside the filesystem in the journal's map.
 */
int jf_image_open(struct jf_image *img, const char *path, int writable,
		  char *err, size_t errlen);
void jf_image_close(struct jf_image *img);

/* Journal block @jblock (one image block) in or out; 0 or -1 (errno). */
int jf_read_jblock(const struct jf_image *img, uint32_t jblock, void *buf);
int jf_write_jblock(const struct jf_image *img, uint32_t jblock,
		    const void *buf);

#endif /* JFUZZ_IMAGE_H */
