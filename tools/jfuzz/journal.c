// SPDX-License-Identifier: GPL-2.0
#include "journal.h"
#include "crc32c.h"
#include "errbuf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool jf_has_csum23(const struct jf_journal *j)
{
	return j->csum_version >= 2;
}

uint32_t jf_next(const struct jf_journal *j, uint32_t b)
{
	b++;
	if (b >= j->last)
		b -= j->last - j->first;
	return b;
}

/* journal_tag_bytes() of fs/jbd2/journal.c */
static uint32_t tag_bytes(const struct jf_journal *j)
{
	uint32_t sz;

	if (j->csum_version == 3)
		return 16;
	sz = 12;
	if (j->csum_version == 2)
		sz += 2;
	return j->incompat & JBD2_INCOMPAT_64BIT ? sz : sz - 4;
}

uint32_t jf_jsb_csum(const uint8_t *sb)
{
	uint8_t copy[JSB_SIZE];

	memcpy(copy, sb, JSB_SIZE);
	memset(copy + JSB_CHECKSUM, 0, 4);
	return crc32c(~0u, copy, JSB_SIZE);
}

void jf_fix_jsb_csum(uint8_t *sb)
{
	put_be32(sb + JSB_CHECKSUM, jf_jsb_csum(sb));
}

/* crc32c(seed, block) with the 4 bytes at @off taken as zero. */
static uint32_t csum_without(const struct jf_journal *j, const uint8_t *blk,
			     uint32_t off)
{
	static const uint8_t zero[4];
	uint32_t c = crc32c(j->seed, blk, off);

	c = crc32c(c, zero, 4);
	return crc32c(c, blk + off + 4, j->bs - off - 4);
}

uint32_t jf_tail_csum(const struct jf_journal *j, const uint8_t *blk)
{
	return csum_without(j, blk, j->bs - TAIL_SIZE);
}

uint32_t jf_commit_csum(const struct jf_journal *j, const uint8_t *blk)
{
	return csum_without(j, blk, CB_CHKSUM);
}

uint32_t jf_tag_csum(const struct jf_journal *j, uint32_t tid,
		     const uint8_t *data)
{
	uint8_t seq[4];

	put_be32(seq, tid);
	return crc32c(crc32c(j->seed, seq, 4), data, j->bs);
}

const char *jf_fix_block_csum(const struct jf_journal *j, uint8_t *blk)
{
	if (!jf_has_csum23(j))
		return NULL;
	switch (get_be32(blk + 4)) {
	case JBD2_DESCRIPTOR_BLOCK:
	case JBD2_REVOKE_BLOCK:
		put_be32(blk + j->bs - TAIL_SIZE, jf_tail_csum(j, blk));
		return "tail";
	case JBD2_COMMIT_BLOCK:
		put_be32(blk + CB_CHKSUM, jf_commit_csum(j, blk));
		return "commit";
	}
	return NULL;
}

void jf_set_tag_csum(const struct jf_journal *j, uint8_t *desc,
		     uint32_t tag_off, uint32_t csum)
{
	if (j->csum_version == 3)
		put_be32(desc + tag_off + 12, csum);
	else if (j->csum_version == 2)
		put_be16(desc + tag_off + 4, (uint16_t)csum);
}

uint32_t jf_get_tag_csum(const struct jf_journal *j, const uint8_t *desc,
			 uint32_t tag_off)
{
	if (j->csum_version == 3)
		return get_be32(desc + tag_off + 12);
	if (j->csum_version == 2)
		return get_be16(desc + tag_off + 4);
	return 0;
}

static int grow(void **v, size_t n, size_t *cap, size_t size)
{
	void *p;

	if (n < *cap)
		return 0;
	*cap = *cap ? *cap * 2 : 64;
	p = realloc(*v, *cap * size);
	if (!p)
		return -1;
	*v = p;
	return 0;
}

struct walk {
	struct jf_journal *j;
	size_t bcap, tcap;
	uint32_t visited, limit;
};

static int add_block(struct walk *w, const struct jf_lblock *b)
{
	struct jf_journal *j = w->j;

	if (grow((void **)&j->blocks, j->nblocks, &w->bcap, sizeof(*b)))
		return -1;
	j->blocks[j->nblocks] = *b;
	j->blocks[j->nblocks].tx = j->ntxs - 1;
	j->txs[j->ntxs - 1].count++;
	j->nblocks++;
	w->visited++;
	return 0;
}

/* Tags of descriptor @blk (at @jb): one JF_DATA block each. */
static int add_tags(struct walk *w, const uint8_t *blk, uint32_t jb,
		    uint32_t tid, uint32_t *next)
{
	struct jf_journal *j = w->j;
	uint32_t size = j->bs - (jf_has_csum23(j) ? TAIL_SIZE : 0);
	uint32_t off = JHDR_SIZE, index = 0;

	while (off + j->tag_bytes <= size && w->visited < w->limit) {
		struct jf_lblock b = {
			.jblock = *next, .tid = tid, .kind = JF_DATA,
			.desc = jb, .tag_off = off, .tag_index = index++,
			.fsblock = get_be32(blk + off),
			.flags = get_be16(blk + off + 6),
		};

		if (j->incompat & JBD2_INCOMPAT_64BIT)
			b.fsblock |= (uint64_t)get_be32(blk + off + 8) << 32;
		if (add_block(w, &b))
			return -1;
		*next = jf_next(j, *next);
		off += j->tag_bytes;
		if (!(b.flags & JBD2_FLAG_SAME_UUID))
			off += 16;
		if (b.flags & JBD2_FLAG_LAST_TAG)
			break;
	}
	return 0;
}

static int walk_log(struct jf_journal *j, char *err, size_t errlen)
{
	struct walk w = { .j = j, .limit = j->last - j->first };
	uint32_t jb = j->start, tid = j->sequence;
	uint8_t *blk = malloc(j->bs);
	int r = 0;

	if (!blk)
		return errbuf_fail(err, errlen, "out of memory");
	snprintf(j->end, sizeof(j->end), "walked the whole log");
	while (w.visited < w.limit) {
		uint32_t type, seq, here = jb;

		if (jf_read_jblock(j->img, jb, blk) < 0) {
			r = errbuf_fail(err, errlen, "cannot read journal block %u: %s",
				 jb, errno ? strerror(errno) : "short read");
			break;
		}
		type = get_be32(blk + 4);
		seq = get_be32(blk + 8);
		if (get_be32(blk) != JBD2_MAGIC) {
			snprintf(j->end, sizeof(j->end), "no magic at journal block %u", jb);
			break;
		}
		if (seq != tid) {
			snprintf(j->end, sizeof(j->end),
				 "sequence %u at journal block %u, expected %u", seq, jb, tid);
			break;
		}
		if (type != JBD2_DESCRIPTOR_BLOCK && type != JBD2_COMMIT_BLOCK &&
		    type != JBD2_REVOKE_BLOCK) {
			snprintf(j->end, sizeof(j->end),
				 "block type %u at journal block %u", type, jb);
			break;
		}
		if (!j->ntxs || j->txs[j->ntxs - 1].tid != tid ||
		    j->txs[j->ntxs - 1].committed) {
			if (grow((void **)&j->txs, j->ntxs, &w.tcap, sizeof(*j->txs))) {
				r = errbuf_fail(err, errlen, "out of memory");
				break;
			}
			j->txs[j->ntxs++] = (struct jf_tx){ .tid = tid, .first = j->nblocks };
		}
		struct jf_lblock b = { .jblock = jb, .tid = tid,
			.kind = type == JBD2_DESCRIPTOR_BLOCK ? JF_DESC :
				type == JBD2_COMMIT_BLOCK ? JF_COMMIT : JF_REVOKE };

		if (add_block(&w, &b)) {
			r = errbuf_fail(err, errlen, "out of memory");
			break;
		}
		jb = jf_next(j, jb);
		if (type == JBD2_DESCRIPTOR_BLOCK && add_tags(&w, blk, here, tid, &jb)) {
			r = errbuf_fail(err, errlen, "out of memory");
			break;
		}
		if (type == JBD2_COMMIT_BLOCK) {
			j->txs[j->ntxs - 1].committed = true;
			tid++;
		}
	}
	free(blk);
	return r;
}

int jf_journal_load(struct jf_journal *j, const struct jf_image *img,
		    char *err, size_t errlen)
{
	uint8_t *blk;
	uint32_t type;

	memset(j, 0, sizeof(*j));
	j->img = img;
	blk = malloc(img->bs);
	if (!blk)
		return errbuf_fail(err, errlen, "out of memory");
	if (jf_read_jblock(img, 0, blk) < 0) {
		free(blk);
		return errbuf_fail(err, errlen, "cannot read the journal super block");
	}
	memcpy(j->sb, blk, JSB_SIZE);
	free(blk);
	type = get_be32(j->sb + 4);
	if (get_be32(j->sb) != JBD2_MAGIC ||
	    (type != JBD2_SUPERBLOCK_V1 && type != JBD2_SUPERBLOCK_V2))
		return errbuf_fail(err, errlen, "no jbd2 super block in journal block 0");
	j->bs = get_be32(j->sb + JSB_BLOCKSIZE);
	if (j->bs != img->bs)
		return errbuf_fail(err, errlen, "journal block size %u is not the filesystem's (%u)",
			    j->bs, img->bs);
	j->maxlen = get_be32(j->sb + JSB_MAXLEN);
	j->first = get_be32(j->sb + JSB_FIRST);
	j->start = get_be32(j->sb + JSB_START);
	j->sequence = get_be32(j->sb + JSB_SEQUENCE);
	j->nr_users = get_be32(j->sb + JSB_NR_USERS);
	if (type == JBD2_SUPERBLOCK_V2) {
		j->compat = get_be32(j->sb + JSB_COMPAT);
		j->incompat = get_be32(j->sb + JSB_INCOMPAT);
		j->rocompat = get_be32(j->sb + JSB_ROCOMPAT);
	}
	j->csum_version = j->incompat & JBD2_INCOMPAT_CSUM_V3 ? 3 :
			  j->incompat & JBD2_INCOMPAT_CSUM_V2 ? 2 :
			  j->compat & JBD2_COMPAT_CHECKSUM ? 1 : 0;
	j->tag_bytes = tag_bytes(j);
	j->seed = crc32c(~0u, j->sb + JSB_UUID, 16);
	j->last = j->maxlen < img->jblocks ? j->maxlen : img->jblocks;
	if (j->incompat & JBD2_INCOMPAT_FAST_COMMIT) {
		uint32_t fc = get_be32(j->sb + JSB_NUM_FC);

		fc = fc ? fc : JBD2_FC_DEFAULT_BLOCKS;
		j->last = j->last > fc ? j->last - fc : 0;
	}
	if (!j->start) {
		snprintf(j->end, sizeof(j->end), "clean: s_start is 0, nothing to recover");
		return 0;
	}
	if (!j->first || j->first >= j->last || j->start < j->first ||
	    j->start >= j->last) {
		snprintf(j->end, sizeof(j->end),
			 "s_start %u outside the log [%u, %u)", j->start, j->first, j->last);
		return 0;
	}
	return walk_log(j, err, errlen);
}

void jf_journal_free(struct jf_journal *j)
{
	free(j->blocks);
	free(j->txs);
	j->blocks = NULL;
	j->txs = NULL;
	j->nblocks = j->ntxs = 0;
}

void jf_count(const struct jf_journal *j, struct jf_counts *c)
{
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < j->nblocks; i++) {
		switch (j->blocks[i].kind) {
		case JF_DESC: c->desc++; break;
		case JF_DATA: c->data++; break;
		case JF_REVOKE: c->revoke++; break;
		case JF_COMMIT: c->commit++; break;
		}
	}
	for (size_t i = 0; i < j->ntxs; i++)
		c->committed += j->txs[i].committed;
}

static const char *const kind_names[] = {
	[JF_DESC] = "descriptor", [JF_DATA] = "data",
	[JF_REVOKE] = "revoke", [JF_COMMIT] = "commit",
};

void jf_dump(const struct jf_journal *j, FILE *f)
{
	struct jf_counts c;

	fprintf(f, "journal: inode %u, %u blocks of %u bytes\n",
		j->img->journal_inum, j->img->jblocks, j->bs);
	fprintf(f, "super: maxlen %u first %u start %u sequence %u nr_users %u errno %d\n",
		j->maxlen, j->first, j->start, j->sequence, j->nr_users,
		(int)get_be32(j->sb + JSB_ERRNO));
	fprintf(f, "features: compat %#x incompat %#x rocompat %#x, csum v%d, tag %u bytes%s%s\n",
		j->compat, j->incompat, j->rocompat, j->csum_version,
		j->tag_bytes, j->incompat & JBD2_INCOMPAT_64BIT ? ", 64bit" : "",
		j->incompat & JBD2_INCOMPAT_CSUM_ORDER ? ", csum_order" : "");
	for (size_t t = 0; t < j->ntxs; t++) {
		const struct jf_tx *tx = &j->txs[t];

		fprintf(f, "tx %u: %zu blocks%s\n", tx->tid, tx->count,
			tx->committed ? "" : ", no commit block");
		for (size_t i = tx->first; i < tx->first + tx->count; i++) {
			const struct jf_lblock *b = &j->blocks[i];

			fprintf(f, "  %6u %-10s", b->jblock, kind_names[b->kind]);
			if (b->kind == JF_DATA)
				fprintf(f, " -> %llu flags %#x",
					(unsigned long long)b->fsblock, b->flags);
			fputc('\n', f);
		}
	}
	fprintf(f, "end: %s\n", j->end);
	jf_count(j, &c);
	fprintf(f, "summary transactions=%zu committed=%zu descriptors=%zu data=%zu revokes=%zu commits=%zu csum=v%d csum_order=%d\n",
		j->ntxs, c.committed, c.desc, c.data, c.revoke, c.commit,
		j->csum_version, !!(j->incompat & JBD2_INCOMPAT_CSUM_ORDER));
}
