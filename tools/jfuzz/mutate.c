// SPDX-License-Identifier: GPL-2.0
#include "mutate.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const struct jf_class_info jf_classes[JF_NCLASSES] = {
	[JF_C_TAG] = { "tag",
		"bit flip in a descriptor tag (block number, flags, checksum)" },
	[JF_C_COMMIT] = { "commit",
		"bit flip in a commit block (sequence, checksum type/size/value, commit time)" },
	[JF_C_REVOKE] = { "revoke",
		"bit flip in a revoke block (r_count, a revoked block number)" },
	[JF_C_JSB] = { "jsb",
		"bit flip in a journal super block field (s_first, s_maxlen, s_start, s_sequence, s_nr_users, features, s_checksum_type, s_blocksize); checksum kept or recomputed" },
	[JF_C_TRUNCATE] = { "truncate",
		"the tail of a transaction zeroed, garbage, or torn at a sector" },
	[JF_C_TID] = { "tid",
		"a transaction copied over a later one, or a block's or the super block's sequence changed" },
	[JF_C_ABSURD] = { "absurd",
		"absurd counts and block numbers, checksums recomputed (tag block beyond the fs or in the journal, no last tag, r_count huge, s_maxlen past the inode, ...)" },
	[JF_C_MAGIC] = { "magic",
		"wrong magic in the journal super block or a log block" },
	[JF_C_SEMANTIC] = { "semantic",
		"checksum-valid but wrong: a field or a logged block changed, then every checksum covering it recomputed" },
};

int jf_class_by_name(const char *name)
{
	for (int i = 0; i < JF_NCLASSES; i++)
		if (!strcmp(name, jf_classes[i].name))
			return i;
	return -1;
}

/* splitmix64: the whole mutation is a function of the seed. */
struct rng {
	uint64_t s;
};

static uint64_t rnd(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t below(struct rng *r, uint64_t n)
{
	return n ? rnd(r) % n : 0;
}

struct ctx {
	const struct jf_journal *j;
	struct jf_plan *p;
	struct rng rng;
	char *err;
	size_t errlen;
};

/* The plan's copy of journal block @jb (read on first use); NULL on error. */
static uint8_t *block(struct ctx *c, uint32_t jb)
{
	struct jf_plan *p = c->p;
	struct jf_write *w;

	for (size_t i = 0; i < p->n; i++)
		if (p->w[i].jblock == jb)
			return p->w[i].buf;
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 8;
		void *v = realloc(p->w, cap * sizeof(*p->w));

		if (!v)
			goto oom;
		p->w = v;
		p->cap = cap;
	}
	w = &p->w[p->n];
	w->jblock = jb;
	w->buf = malloc(c->j->bs);
	if (!w->buf)
		goto oom;
	if (jf_read_jblock(c->j->img, jb, w->buf) < 0) {
		snprintf(c->err, c->errlen, "cannot read journal block %u", jb);
		free(w->buf);
		return NULL;
	}
	p->n++;
	return w->buf;
oom:
	snprintf(c->err, c->errlen, "out of memory");
	return NULL;
}

static void say(struct ctx *c, uint32_t jb, int64_t tid, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The one line: class, journal block, transaction, then field and change. */
static void say(struct ctx *c, uint32_t jb, int64_t tid, const char *fmt, ...)
{
	char *d = c->p->desc;
	size_t len = sizeof(c->p->desc);
	int n;
	va_list ap;

	if (tid < 0)
		n = snprintf(d, len, "class=%s jblock=%u tid=- field=",
			     jf_classes[c->p->cls].name, jb);
	else
		n = snprintf(d, len, "class=%s jblock=%u tid=%" PRId64 " field=",
			     jf_classes[c->p->cls].name, jb, tid);
	va_start(ap, fmt);
	vsnprintf(d + n, len - (size_t)n, fmt, ap);
	va_end(ap);
}

/* Big-endian fields of 1, 2, 4 or 8 bytes. */
static uint64_t get_field(const uint8_t *p, unsigned width)
{
	switch (width) {
	case 1: return p[0];
	case 2: return get_be16(p);
	case 4: return get_be32(p);
	default: return get_be64(p);
	}
}

static void put_field(uint8_t *p, unsigned width, uint64_t v)
{
	switch (width) {
	case 1: p[0] = (uint8_t)v; break;
	case 2: put_be16(p, (uint16_t)v); break;
	case 4: put_be32(p, (uint32_t)v); break;
	default: put_be64(p, v); break;
	}
}

struct field {
	const char *name;
	uint32_t off;
	unsigned width;
	unsigned low_bits;	/* if set, half the flips hit these low bits */
};

/* Flip one bit of @f in @buf; "NAME 0xOLD -> 0xNEW" into @out. */
static void flip_field(struct ctx *c, uint8_t *buf, const struct field *f,
		       char *out, size_t outlen)
{
	uint64_t old = get_field(buf + f->off, f->width), v;
	unsigned bits = f->width * 8, bit;

	if (f->low_bits && below(&c->rng, 2))
		bits = f->low_bits;
	bit = (unsigned)below(&c->rng, bits);
	v = old ^ (1ULL << bit);
	put_field(buf + f->off, f->width, v);
	snprintf(out, outlen, "%s %#" PRIx64 " -> %#" PRIx64, f->name, old, v);
}

/* Set @f to @v; "NAME 0xOLD -> 0xNEW" into @out. */
static void set_field(uint8_t *buf, const struct field *f, uint64_t v,
		      char *out, size_t outlen)
{
	uint64_t old = get_field(buf + f->off, f->width);

	put_field(buf + f->off, f->width, v);
	snprintf(out, outlen, "%s %#" PRIx64 " -> %#" PRIx64, f->name, old, v);
}

/* A random walked block of @kind (any header block if @kind < 0). */
static const struct jf_lblock *pick(struct ctx *c, int kind)
{
	const struct jf_journal *j = c->j;
	size_t n = 0, k;

	for (size_t i = 0; i < j->nblocks; i++)
		n += kind < 0 ? j->blocks[i].kind != JF_DATA
			      : (int)j->blocks[i].kind == kind;
	if (!n)
		return NULL;
	k = below(&c->rng, n);
	for (size_t i = 0; i < j->nblocks; i++) {
		bool match = kind < 0 ? j->blocks[i].kind != JF_DATA
				      : (int)j->blocks[i].kind == kind;

		if (match && k-- == 0)
			return &j->blocks[i];
	}
	return NULL;
}

static bool has_kind(const struct jf_journal *j, enum jf_kind kind)
{
	for (size_t i = 0; i < j->nblocks; i++)
		if (j->blocks[i].kind == kind)
			return true;
	return false;
}

static bool is64(const struct jf_journal *j)
{
	return j->incompat & JBD2_INCOMPAT_64BIT;
}

static unsigned revoke_record_len(const struct jf_journal *j)
{
	return is64(j) ? 8 : 4;
}

/* Records in revoke block @buf that fit in the block. */
static uint32_t revoke_records(const struct jf_journal *j, const uint8_t *buf)
{
	uint32_t count = get_be32(buf + 12), max = j->bs - TAIL_SIZE;

	if (count > max)
		count = max;
	return count < REVOKE_HDR_SIZE ? 0 :
	       (count - REVOKE_HDR_SIZE) / revoke_record_len(j);
}

/* Fix the checksum of header block @buf: " csum=..." for the line. */
static const char *fix(struct ctx *c, uint8_t *buf)
{
	const char *what = jf_fix_block_csum(c->j, buf);

	if (!what)
		return " csum=none";
	return !strcmp(what, "tail") ? " csum=recomputed(tail)"
				     : " csum=recomputed(commit)";
}

static const char *fix_jsb(struct ctx *c, uint8_t *sb)
{
	(void)c;
	jf_fix_jsb_csum(sb);
	return " csum=recomputed(jsb)";
}

/* Tag fields of the data block @b's tag (offsets within the descriptor). */
static size_t tag_fields(const struct jf_journal *j, const struct jf_lblock *b,
			 struct field *f, char names[][40])
{
	size_t n = 0;

	snprintf(names[n], 40, "tag[%u].t_blocknr", b->tag_index);
	f[n] = (struct field){ names[n], b->tag_off, 4, 0 };
	n++;
	snprintf(names[n], 40, "tag[%u].t_flags", b->tag_index);
	f[n] = (struct field){ names[n], b->tag_off + 6, 2, 4 };
	n++;
	if (j->csum_version >= 2) {
		snprintf(names[n], 40, "tag[%u].t_checksum", b->tag_index);
		f[n] = j->csum_version == 3 ?
			(struct field){ names[n], b->tag_off + 12, 4, 0 } :
			(struct field){ names[n], b->tag_off + 4, 2, 0 };
		n++;
	}
	if (is64(j)) {
		snprintf(names[n], 40, "tag[%u].t_blocknr_high", b->tag_index);
		f[n] = (struct field){ names[n], b->tag_off + 8, 4, 0 };
		n++;
	}
	return n;
}

/* --- raw bit flips --- */

static int m_tag(struct ctx *c)
{
	const struct jf_lblock *b = pick(c, JF_DATA);
	struct field f[4];
	char names[4][40], change[160];
	uint8_t *buf;
	size_t n;

	if (!b)
		return 1;
	buf = block(c, b->desc);
	if (!buf)
		return -1;
	n = tag_fields(c->j, b, f, names);
	flip_field(c, buf, &f[below(&c->rng, n)], change, sizeof(change));
	say(c, b->desc, b->tid, "%s csum=stale", change);
	return 0;
}

static int m_commit(struct ctx *c)
{
	static const struct field f[] = {
		{ "h_sequence", CB_SEQUENCE, 4, 0 },
		{ "h_chksum_type", CB_CSUM_TYPE, 1, 0 },
		{ "h_chksum_size", CB_CSUM_SIZE, 1, 0 },
		{ "h_unflushed", CB_UNFLUSHED, 2, 0 },
		{ "h_chksum[0]", CB_CHKSUM, 4, 0 },
		{ "h_commit_sec", CB_COMMIT_SEC, 8, 0 },
		{ "h_commit_nsec", CB_COMMIT_NSEC, 4, 0 },
	};
	const struct jf_lblock *b = pick(c, JF_COMMIT);
	char change[160];
	uint8_t *buf;

	if (!b)
		return 1;
	buf = block(c, b->jblock);
	if (!buf)
		return -1;
	flip_field(c, buf, &f[below(&c->rng, sizeof(f) / sizeof(f[0]))],
		   change, sizeof(change));
	say(c, b->jblock, b->tid, "%s csum=stale", change);
	return 0;
}

static int m_revoke(struct ctx *c)
{
	const struct jf_lblock *b = pick(c, JF_REVOKE);
	unsigned rl = revoke_record_len(c->j);
	char change[160], name[40];
	struct field f = { "r_count", 12, 4, 12 };
	uint32_t records;
	uint8_t *buf;

	if (!b)
		return 1;
	buf = block(c, b->jblock);
	if (!buf)
		return -1;
	records = revoke_records(c->j, buf);
	if (records && below(&c->rng, 2)) {
		uint32_t k = (uint32_t)below(&c->rng, records);

		snprintf(name, sizeof(name), "record[%u]", k);
		f = (struct field){ name, REVOKE_HDR_SIZE + k * rl, rl, 0 };
	}
	flip_field(c, buf, &f, change, sizeof(change));
	say(c, b->jblock, b->tid, "%s csum=stale", change);
	return 0;
}

static const struct field jsb_fields[] = {
	{ "s_blocksize", JSB_BLOCKSIZE, 4, 0 },
	{ "s_maxlen", JSB_MAXLEN, 4, 0 },
	{ "s_first", JSB_FIRST, 4, 0 },
	{ "s_sequence", JSB_SEQUENCE, 4, 0 },
	{ "s_start", JSB_START, 4, 0 },
	{ "s_nr_users", JSB_NR_USERS, 4, 0 },
	{ "s_feature_compat", JSB_COMPAT, 4, 0 },
	{ "s_feature_incompat", JSB_INCOMPAT, 4, 7 },
	{ "s_feature_ro_compat", JSB_ROCOMPAT, 4, 0 },
	{ "s_checksum_type", JSB_CSUM_TYPE, 1, 0 },
};

static int m_jsb(struct ctx *c)
{
	uint8_t *sb = block(c, 0);
	char change[160];
	size_t n = sizeof(jsb_fields) / sizeof(jsb_fields[0]);

	if (!sb)
		return -1;
	flip_field(c, sb, &jsb_fields[below(&c->rng, n)], change, sizeof(change));
	say(c, 0, -1, "%s%s", change,
	    below(&c->rng, 2) ? fix_jsb(c, sb) : " csum=stale");
	return 0;
}

/* --- truncated transactions --- */

static bool truncatable(const struct jf_tx *tx)
{
	return tx->count >= 2;
}

static int m_truncate(struct ctx *c)
{
	const struct jf_journal *j = c->j;
	const struct jf_tx *tx = NULL;
	size_t n = 0, k, cut;
	unsigned mode, from = 0;
	static const char *const modes[] = { "zero", "garbage", "torn" };

	for (size_t i = 0; i < j->ntxs; i++)
		n += truncatable(&j->txs[i]);
	if (!n)
		return 1;
	/* Half the time the last transaction that can be cut: the torn tail. */
	if (below(&c->rng, 2)) {
		for (size_t i = j->ntxs; i-- > 0 && !tx;)
			if (truncatable(&j->txs[i]))
				tx = &j->txs[i];
	} else {
		k = below(&c->rng, n);
		for (size_t i = 0; i < j->ntxs && !tx; i++)
			if (truncatable(&j->txs[i]) && k-- == 0)
				tx = &j->txs[i];
	}
	cut = 1 + below(&c->rng, tx->count - 1);
	mode = (unsigned)below(&c->rng, 3);
	if (mode == 2)	/* torn: the first cut block from a sector on */
		from = 512 * (uint32_t)below(&c->rng, j->bs / 512);
	for (size_t i = cut; i < tx->count; i++) {
		uint8_t *buf = block(c, j->blocks[tx->first + i].jblock);
		uint32_t start = i == cut ? from : 0;

		if (!buf)
			return -1;
		for (uint32_t b = start; b < j->bs; b++)
			buf[b] = mode == 0 ? 0 : (uint8_t)rnd(&c->rng);
	}
	say(c, j->blocks[tx->first + cut].jblock, tx->tid,
	    "tail blocks[%zu..%zu] of %zu (journal blocks %u..%u, from byte %u) data -> %s",
	    cut, tx->count - 1, tx->count, j->blocks[tx->first + cut].jblock,
	    j->blocks[tx->first + tx->count - 1].jblock, from, modes[mode]);
	return 0;
}

/* --- transaction IDs --- */

static int tid_copy(struct ctx *c)
{
	const struct jf_journal *j = c->j;
	size_t a = below(&c->rng, j->ntxs - 1), b;
	const struct jf_tx *src, *dst;
	uint32_t to;

	b = a + 1 + below(&c->rng, j->ntxs - a - 1);
	src = &j->txs[a];
	dst = &j->txs[b];
	to = j->blocks[dst->first].jblock;
	for (size_t i = 0; i < src->count; i++) {
		uint8_t copy[65536], *buf;

		if (jf_read_jblock(j->img, j->blocks[src->first + i].jblock, copy) < 0) {
			snprintf(c->err, c->errlen, "cannot read journal block %u",
				 j->blocks[src->first + i].jblock);
			return -1;
		}
		buf = block(c, to);
		if (!buf)
			return -1;
		memcpy(buf, copy, j->bs);
		to = jf_next(j, to);
	}
	say(c, j->blocks[dst->first].jblock, dst->tid,
	    "transaction copy: tx %u (%zu blocks from journal block %u) -> over tx %u",
	    src->tid, src->count, j->blocks[src->first].jblock, dst->tid);
	return 0;
}

static int tid_block(struct ctx *c)
{
	const struct jf_lblock *b = pick(c, -1);
	struct field f = { "h_sequence", 8, 4, 0 };
	uint32_t deltas[] = { (uint32_t)-1, 1, 2, (uint32_t)-2, 0x80000000u };
	uint32_t v;
	char change[160];
	uint8_t *buf;

	if (!b)
		return 1;
	buf = block(c, b->jblock);
	if (!buf)
		return -1;
	if (below(&c->rng, 4) == 0)
		v = c->j->txs[below(&c->rng, c->j->ntxs)].tid;
	else
		v = b->tid + deltas[below(&c->rng, 5)];
	if (v == b->tid)
		v = b->tid + 1;
	set_field(buf, &f, v, change, sizeof(change));
	say(c, b->jblock, b->tid, "%s%s", change,
	    below(&c->rng, 2) ? fix(c, buf) : " csum=stale");
	return 0;
}

static int tid_super(struct ctx *c)
{
	const struct jf_journal *j = c->j;
	struct field f = { "s_sequence", JSB_SEQUENCE, 4, 0 };
	uint8_t *sb = block(c, 0);
	uint32_t v;
	char change[160];

	if (!sb)
		return -1;
	if (j->ntxs > 1 && below(&c->rng, 2))
		v = j->txs[1 + below(&c->rng, j->ntxs - 1)].tid;
	else
		v = j->sequence + (below(&c->rng, 2) ? 1 : (uint32_t)-1);
	set_field(sb, &f, v, change, sizeof(change));
	say(c, 0, -1, "%s%s", change, fix_jsb(c, sb));
	return 0;
}

static int m_tid(struct ctx *c)
{
	unsigned k = (unsigned)below(&c->rng, 3);

	if (k == 0 && c->j->ntxs >= 2)
		return tid_copy(c);
	if (k == 2)
		return tid_super(c);
	return tid_block(c);
}

/* --- absurd values, checksums recomputed --- */

enum absurd_kind {
	A_TAG_BEYOND, A_TAG_INTERNAL, A_NO_LAST_TAG, A_RCOUNT, A_RECORD,
	A_MAXLEN, A_FIRST, A_START, A_NR_USERS, A_BLOCKSIZE, A_CSUM_SIZE,
	A_COUNT,
};

static bool absurd_applies(const struct jf_journal *j, enum absurd_kind k)
{
	switch (k) {
	case A_TAG_BEYOND: case A_TAG_INTERNAL: case A_NO_LAST_TAG:
		return has_kind(j, JF_DATA);
	case A_RCOUNT: case A_RECORD:
		return has_kind(j, JF_REVOKE);
	case A_CSUM_SIZE:
		return has_kind(j, JF_COMMIT);
	default:
		return true;
	}
}

/* Set tag block number (both halves with 64bit) of data block @b. */
static void set_tag_block(struct ctx *c, uint8_t *desc,
			  const struct jf_lblock *b, uint64_t v,
			  char *out, size_t outlen)
{
	uint64_t old = b->fsblock;

	put_be32(desc + b->tag_off, (uint32_t)v);
	if (is64(c->j))
		put_be32(desc + b->tag_off + 8, (uint32_t)(v >> 32));
	else
		v &= 0xffffffffu;
	snprintf(out, outlen, "tag[%u].blocknr %#" PRIx64 " -> %#" PRIx64,
		 b->tag_index, old, v);
}

static int absurd_tag(struct ctx *c, enum absurd_kind k)
{
	const struct jf_lblock *b = pick(c, JF_DATA);
	const struct jf_image *img = c->j->img;
	char change[160];
	uint8_t *desc = block(c, b->desc);
	uint64_t v;

	if (!desc)
		return -1;
	if (k == A_TAG_BEYOND) {
		uint64_t choices[] = { img->blocks_count, img->blocks_count + 1 +
				       below(&c->rng, 1000), 0xffffffffu,
				       0xffffffffffffffffULL };
		v = choices[below(&c->rng, is64(c->j) ? 4 : 3)];
		set_tag_block(c, desc, b, v, change, sizeof(change));
	} else if (k == A_TAG_INTERNAL) {
		/* block 0, or a block of the journal itself */
		v = below(&c->rng, 3) ? img->jmap[below(&c->rng, img->jblocks)] : 0;
		set_tag_block(c, desc, b, v, change, sizeof(change));
	} else {
		/* the descriptor's last tag loses LAST_TAG: tags run on */
		const struct jf_lblock *last = b;

		for (const struct jf_lblock *x = b; x < c->j->blocks + c->j->nblocks &&
		     x->kind == JF_DATA && x->desc == b->desc; x++)
			last = x;
		struct field f = { "t_flags", last->tag_off + 6, 2, 0 };
		uint16_t flags = get_be16(desc + last->tag_off + 6);
		char name[40];

		snprintf(name, sizeof(name), "tag[%u].t_flags", last->tag_index);
		f.name = name;
		set_field(desc, &f, flags & ~JBD2_FLAG_LAST_TAG, change, sizeof(change));
		b = last;
	}
	say(c, b->desc, b->tid, "%s%s", change, fix(c, desc));
	return 0;
}

static int absurd_revoke(struct ctx *c, enum absurd_kind k)
{
	const struct jf_lblock *b = pick(c, JF_REVOKE);
	const struct jf_journal *j = c->j;
	unsigned rl = revoke_record_len(j);
	char change[160], name[40];
	uint8_t *buf = block(c, b->jblock);
	struct field f = { "r_count", 12, 4, 0 };
	uint64_t v;

	if (!buf)
		return -1;
	if (k == A_RCOUNT || !revoke_records(j, buf)) {
		uint64_t choices[] = { 0xffffffffu, j->bs, j->bs - 3, j->bs + 4,
				       0x10000, 0, REVOKE_HDR_SIZE - 1 };
		v = choices[below(&c->rng, 7)];
	} else {
		uint32_t r = (uint32_t)below(&c->rng, revoke_records(j, buf));
		uint64_t choices[] = { j->img->blocks_count + below(&c->rng, 1000),
				       0xffffffffu, 0xffffffffffffffffULL, 0 };

		snprintf(name, sizeof(name), "record[%u]", r);
		f = (struct field){ name, REVOKE_HDR_SIZE + r * rl, rl, 0 };
		v = choices[below(&c->rng, 4)];
		if (rl == 4)
			v &= 0xffffffffu;
	}
	set_field(buf, &f, v, change, sizeof(change));
	say(c, b->jblock, b->tid, "%s%s", change, fix(c, buf));
	return 0;
}

static int absurd_super(struct ctx *c, enum absurd_kind k)
{
	const struct jf_journal *j = c->j;
	uint8_t *sb = block(c, 0);
	char change[160];
	uint32_t v;

	if (!sb)
		return -1;
	switch (k) {
	case A_MAXLEN: {
		uint32_t choices[] = { j->img->jblocks + 1,
				       j->img->jblocks + 1 + (uint32_t)below(&c->rng, 100000),
				       0xffffffffu, 0, 1 };
		v = choices[below(&c->rng, 5)];
		set_field(sb, &jsb_fields[1], v, change, sizeof(change));
		break;
	}
	case A_FIRST: {
		uint32_t choices[] = { 0, j->maxlen, j->maxlen + 1, 0xffffffffu,
				       j->maxlen - 1 };
		v = choices[below(&c->rng, 5)];
		set_field(sb, &jsb_fields[2], v, change, sizeof(change));
		break;
	}
	case A_START: {
		uint32_t choices[] = { j->maxlen, 0xffffffffu, j->first - 1,
				       j->maxlen - 1, j->img->jblocks };
		v = choices[below(&c->rng, 5)];
		set_field(sb, &jsb_fields[4], v, change, sizeof(change));
		break;
	}
	case A_NR_USERS: {
		uint32_t choices[] = { 0, 49, 0xffffffffu, 2 };
		v = choices[below(&c->rng, 4)];
		set_field(sb, &jsb_fields[5], v, change, sizeof(change));
		break;
	}
	default: {
		uint32_t choices[] = { 0, 512, j->bs * 2, 65536, 0xffffffffu };
		v = choices[below(&c->rng, 5)];
		set_field(sb, &jsb_fields[0], v, change, sizeof(change));
		break;
	}
	}
	say(c, 0, -1, "%s%s", change, fix_jsb(c, sb));
	return 0;
}

static int absurd_commit(struct ctx *c)
{
	const struct jf_lblock *b = pick(c, JF_COMMIT);
	static const struct field f[] = {
		{ "h_chksum_size", CB_CSUM_SIZE, 1, 0 },
		{ "h_chksum_type", CB_CSUM_TYPE, 1, 0 },
		{ "h_unflushed", CB_UNFLUSHED, 2, 0 },
	};
	const struct field *pick_f = &f[below(&c->rng, sizeof(f) / sizeof(f[0]))];
	char change[160];
	uint8_t *buf = block(c, b->jblock);

	if (!buf)
		return -1;
	/* 0xff, or the largest window a commit block can claim. */
	set_field(buf, pick_f, pick_f->width == 2 ? 0xffff : 0xff, change,
		  sizeof(change));
	say(c, b->jblock, b->tid, "%s%s", change, fix(c, buf));
	return 0;
}

static int m_absurd(struct ctx *c)
{
	enum absurd_kind kinds[A_COUNT], k;
	size_t n = 0;

	for (int i = 0; i < A_COUNT; i++)
		if (absurd_applies(c->j, (enum absurd_kind)i))
			kinds[n++] = (enum absurd_kind)i;
	k = kinds[below(&c->rng, n)];
	switch (k) {
	case A_TAG_BEYOND: case A_TAG_INTERNAL: case A_NO_LAST_TAG:
		return absurd_tag(c, k);
	case A_RCOUNT: case A_RECORD:
		return absurd_revoke(c, k);
	case A_CSUM_SIZE:
		return absurd_commit(c);
	default:
		return absurd_super(c, k);
	}
}

/* --- wrong magic --- */

static int m_magic(struct ctx *c)
{
	const struct jf_lblock *b = below(&c->rng, 4) ? pick(c, -1) : NULL;
	uint32_t jb = b ? b->jblock : 0;
	uint8_t *buf = block(c, jb);
	uint32_t old, v;

	if (!buf)
		return -1;
	old = get_be32(buf);
	switch (below(&c->rng, 3)) {
	case 0: v = old ^ (1u << below(&c->rng, 32)); break;
	case 1: v = 0; break;
	default: v = __builtin_bswap32(old); break;
	}
	put_be32(buf, v);
	say(c, jb, b ? (int64_t)b->tid : -1, "h_magic %#x -> %#x csum=stale", old, v);
	return 0;
}

/* --- checksum-valid but semantically wrong --- */

enum sem_kind {
	S_TAG_BLOCK, S_TAG_FLAGS, S_DATA, S_REVOKE_LIVE, S_COMMIT, S_SUPER,
	S_COUNT,
};

static bool sem_applies(const struct jf_journal *j, enum sem_kind k)
{
	if (k == S_SUPER)
		return true;
	if (!jf_has_csum23(j))
		return false;
	switch (k) {
	case S_TAG_BLOCK: case S_TAG_FLAGS: case S_DATA:
		return has_kind(j, JF_DATA);
	case S_REVOKE_LIVE:
		return has_kind(j, JF_REVOKE) && has_kind(j, JF_DATA);
	default:
		return has_kind(j, JF_COMMIT);
	}
}

static int sem_tag(struct ctx *c, enum sem_kind k)
{
	const struct jf_journal *j = c->j;
	const struct jf_lblock *b = pick(c, JF_DATA);
	char change[160];
	uint8_t *desc = block(c, b->desc);

	if (!desc)
		return -1;
	if (k == S_TAG_BLOCK) {
		const struct jf_lblock *o = pick(c, JF_DATA);
		uint64_t v;

		switch (below(&c->rng, 3)) {
		case 0: v = o->fsblock; break;	/* another logged block's home */
		case 1: v = 1 + below(&c->rng, j->img->blocks_count - 1); break;
		default: v = j->img->bs == 1024 ? 1 : 0; break; /* the super block */
		}
		if (v == b->fsblock)
			v = b->fsblock + 1;
		set_tag_block(c, desc, b, v, change, sizeof(change));
	} else {
		static const uint16_t flags[] = { JBD2_FLAG_ESCAPE,
			JBD2_FLAG_SAME_UUID, JBD2_FLAG_LAST_TAG, JBD2_FLAG_DELETED };
		struct field f = { "t_flags", b->tag_off + 6, 2, 0 };
		char name[40];

		snprintf(name, sizeof(name), "tag[%u].t_flags", b->tag_index);
		f.name = name;
		set_field(desc, &f, b->flags ^ flags[below(&c->rng, 4)], change,
			  sizeof(change));
	}
	say(c, b->desc, b->tid, "%s%s", change, fix(c, desc));
	return 0;
}

/* A logged block's contents changed, its tag checksum made to match. */
static int sem_data(struct ctx *c)
{
	const struct jf_journal *j = c->j;
	const struct jf_lblock *b = pick(c, JF_DATA);
	uint8_t *data = block(c, b->jblock), *desc;
	uint32_t old, v;
	unsigned how = (unsigned)below(&c->rng, 3), bytes = 0;
	static const char *const hows[] = { "bytes changed", "zeroed", "garbage" };
	char what[64];

	if (!data)
		return -1;
	if (how == 0) {
		bytes = 1 + (unsigned)below(&c->rng, 8);
		for (unsigned i = 0; i < bytes; i++)
			data[below(&c->rng, j->bs)] ^= (uint8_t)(1 + below(&c->rng, 255));
	} else {
		for (uint32_t i = 0; i < j->bs; i++)
			data[i] = how == 1 ? 0 : (uint8_t)rnd(&c->rng);
	}
	desc = block(c, b->desc);
	if (!desc)
		return -1;
	old = jf_get_tag_csum(j, desc, b->tag_off);
	jf_set_tag_csum(j, desc, b->tag_off, jf_tag_csum(j, b->tid, data));
	v = jf_get_tag_csum(j, desc, b->tag_off);
	if (how == 0)
		snprintf(what, sizeof(what), "%u %s", bytes, hows[how]);
	else
		snprintf(what, sizeof(what), "%s", hows[how]);
	say(c, b->jblock, b->tid,
	    "data of fs block %" PRIu64 " (%s; tag[%u].t_checksum %#x -> %#x in journal block %u)%s",
	    b->fsblock, what, b->tag_index, old, v, b->desc, fix(c, desc));
	return 0;
}

/* A revoke record now names a block that a transaction logs. */
static int sem_revoke(struct ctx *c)
{
	const struct jf_journal *j = c->j;
	const struct jf_lblock *b = pick(c, JF_REVOKE), *d = pick(c, JF_DATA);
	unsigned rl = revoke_record_len(j);
	uint8_t *buf = block(c, b->jblock);
	uint32_t records, r, count;
	char change[160], name[40];
	struct field f;

	if (!buf)
		return -1;
	records = revoke_records(j, buf);
	count = get_be32(buf + 12);
	if (!records || (below(&c->rng, 2) &&
			 count + rl <= j->bs - TAIL_SIZE)) {
		/* a new record at the end */
		r = records;
		put_be32(buf + 12, REVOKE_HDR_SIZE + (r + 1) * rl);
		snprintf(name, sizeof(name), "record[%u](new, r_count %u -> %u)",
			 r, count, REVOKE_HDR_SIZE + (r + 1) * rl);
	} else {
		r = (uint32_t)below(&c->rng, records);
		snprintf(name, sizeof(name), "record[%u]", r);
	}
	f = (struct field){ name, REVOKE_HDR_SIZE + r * rl, rl, 0 };
	set_field(buf, &f, d->fsblock, change, sizeof(change));
	say(c, b->jblock, b->tid, "%s%s", change, fix(c, buf));
	return 0;
}

static int sem_commit(struct ctx *c)
{
	const struct jf_lblock *b = pick(c, JF_COMMIT);
	uint8_t *buf = block(c, b->jblock);
	char change[160];
	uint64_t sec;

	if (!buf)
		return -1;
	sec = get_be64(buf + CB_COMMIT_SEC);
	switch (below(&c->rng, 4)) {
	case 0: {
		struct field f = { "h_commit_sec", CB_COMMIT_SEC, 8, 0 };

		set_field(buf, &f, below(&c->rng, 2) ? 0 : sec - 1 - below(&c->rng, 100000),
			  change, sizeof(change));
		break;
	}
	case 1: {
		struct field f = { "h_commit_sec", CB_COMMIT_SEC, 8, 0 };

		set_field(buf, &f, sec + 1 + below(&c->rng, 1u << 30), change,
			  sizeof(change));
		break;
	}
	case 2: {
		struct field f = { "h_chksum_type", CB_CSUM_TYPE, 1, 0 };

		set_field(buf, &f, 1 + below(&c->rng, 4), change, sizeof(change));
		break;
	}
	default: {
		struct field f = { "h_chksum_size", CB_CSUM_SIZE, 1, 0 };

		set_field(buf, &f, 4 * (1 + below(&c->rng, 8)), change, sizeof(change));
		break;
	}
	}
	say(c, b->jblock, b->tid, "%s%s", change, fix(c, buf));
	return 0;
}

static int sem_super(struct ctx *c)
{
	const struct jf_journal *j = c->j;
	uint8_t *sb = block(c, 0);
	char change[160];
	struct field f;
	uint64_t v;

	if (!sb)
		return -1;
	switch (below(&c->rng, 5)) {
	case 0:
		f = jsb_fields[3];	/* s_sequence */
		v = j->sequence + (below(&c->rng, 2) ? 1 : (uint32_t)-1);
		break;
	case 1: {
		const struct jf_lblock *b = &j->blocks[below(&c->rng, j->nblocks)];

		f = jsb_fields[4];	/* s_start: another log block */
		v = b->jblock != j->start ? b->jblock : jf_next(j, b->jblock);
		break;
	}
	case 2:
		f = (struct field){ "s_errno", JSB_ERRNO, 4, 0 };
		v = (uint32_t)-5;	/* -EIO: the journal was aborted */
		break;
	case 3: {
		static const uint32_t bits[] = { JBD2_INCOMPAT_CSUM_ORDER,
			JBD2_INCOMPAT_ASYNC, JBD2_INCOMPAT_64BIT,
			JBD2_INCOMPAT_REVOKE, 0x80, 0x100,
			JBD2_INCOMPAT_CSUM_V2 | JBD2_INCOMPAT_CSUM_V3 };
		uint32_t bit = bits[below(&c->rng, 7)];

		f = jsb_fields[7];	/* s_feature_incompat */
		v = j->incompat ^ bit;
		if (bit == (JBD2_INCOMPAT_CSUM_V2 | JBD2_INCOMPAT_CSUM_V3) &&
		    !jf_has_csum23(j))
			v = j->incompat | JBD2_INCOMPAT_CSUM_V3;
		break;
	}
	default:
		f = below(&c->rng, 2) ? jsb_fields[6] : jsb_fields[8];
		v = get_be32(sb + f.off) ^ (1u << (1 + below(&c->rng, 31)));
		break;
	}
	set_field(sb, &f, v, change, sizeof(change));
	say(c, 0, -1, "%s%s", change, fix_jsb(c, sb));
	return 0;
}

static int m_semantic(struct ctx *c)
{
	enum sem_kind kinds[S_COUNT], k;
	size_t n = 0;

	for (int i = 0; i < S_COUNT; i++)
		if (sem_applies(c->j, (enum sem_kind)i))
			kinds[n++] = (enum sem_kind)i;
	k = kinds[below(&c->rng, n)];
	switch (k) {
	case S_TAG_BLOCK: case S_TAG_FLAGS:
		return sem_tag(c, k);
	case S_DATA:
		return sem_data(c);
	case S_REVOKE_LIVE:
		return sem_revoke(c);
	case S_COMMIT:
		return sem_commit(c);
	default:
		return sem_super(c);
	}
}

bool jf_class_applies(const struct jf_journal *j, enum jf_class cls)
{
	if (!j->nblocks)
		return false;
	switch (cls) {
	case JF_C_TAG:
		return has_kind(j, JF_DATA);
	case JF_C_COMMIT:
		return has_kind(j, JF_COMMIT);
	case JF_C_REVOKE:
		return has_kind(j, JF_REVOKE);
	case JF_C_TRUNCATE:
		for (size_t i = 0; i < j->ntxs; i++)
			if (truncatable(&j->txs[i]))
				return true;
		return false;
	default:
		return true;
	}
}

int jf_mutate(const struct jf_journal *j, int cls, uint64_t seed,
	      struct jf_plan *p, char *err, size_t errlen)
{
	static int (*const fns[JF_NCLASSES])(struct ctx *) = {
		[JF_C_TAG] = m_tag, [JF_C_COMMIT] = m_commit,
		[JF_C_REVOKE] = m_revoke, [JF_C_JSB] = m_jsb,
		[JF_C_TRUNCATE] = m_truncate, [JF_C_TID] = m_tid,
		[JF_C_ABSURD] = m_absurd, [JF_C_MAGIC] = m_magic,
		[JF_C_SEMANTIC] = m_semantic,
	};
	struct ctx c = { .j = j, .p = p, .rng = { seed ^ 0x6a667a7aULL },
			 .err = err, .errlen = errlen };
	int r;

	memset(p, 0, sizeof(*p));
	if (j->bs > 65536) {
		snprintf(err, errlen, "block size %u too large", j->bs);
		return -1;
	}
	if (cls < 0) {
		int ok[JF_NCLASSES], n = 0;

		for (int i = 0; i < JF_NCLASSES; i++)
			if (jf_class_applies(j, (enum jf_class)i))
				ok[n++] = i;
		if (!n)
			return 1;
		cls = ok[below(&c.rng, (uint64_t)n)];
	} else if (cls >= JF_NCLASSES || !jf_class_applies(j, (enum jf_class)cls)) {
		return 1;
	}
	p->cls = (enum jf_class)cls;
	r = fns[cls](&c);
	if (r) {
		jf_plan_free(p);
		if (r < 0 && !*err)
			snprintf(err, errlen, "mutation failed");
	}
	return r;
}

int jf_plan_apply(const struct jf_plan *p, const struct jf_image *img)
{
	for (size_t i = 0; i < p->n; i++)
		if (jf_write_jblock(img, p->w[i].jblock, p->w[i].buf) < 0)
			return -1;
	return 0;
}

void jf_plan_free(struct jf_plan *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->w[i].buf);
	free(p->w);
	p->w = NULL;
	p->n = p->cap = 0;
}
