// SPDX-License-Identifier: GPL-2.0
#include "logbuild.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void *xrealloc(void *p, size_t len)
{
	p = realloc(p, len ? len : 1);
	if (!p) {
		perror("realloc");
		abort();
	}
	return p;
}

void lb_init(struct logbuild *b, uint32_t sectorsize)
{
	memset(b, 0, sizeof(*b));
	b->sectorsize = sectorsize;
}

void lb_free(struct logbuild *b)
{
	free(b->v);
	memset(b, 0, sizeof(*b));
}

size_t lb_add(struct logbuild *b, uint64_t sector, uint64_t nr, uint64_t flags)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 16;
		b->v = xrealloc(b->v, b->cap * sizeof(*b->v));
	}
	memset(&b->v[b->n], 0, sizeof(b->v[b->n]));
	b->v[b->n].sector = sector;
	b->v[b->n].nr_sectors = nr;
	b->v[b->n].flags = flags;
	return b->n++;
}

size_t lb_write(struct logbuild *b, uint64_t sector, uint64_t nr)
{
	return lb_add(b, sector, nr, 0);
}

size_t lb_fua(struct logbuild *b, uint64_t sector, uint64_t nr)
{
	return lb_add(b, sector, nr, LW_FLAG_FUA);
}

size_t lb_discard(struct logbuild *b, uint64_t sector, uint64_t nr)
{
	return lb_add(b, sector, nr, LW_FLAG_DISCARD);
}

size_t lb_flush(struct logbuild *b)
{
	return lb_add(b, 0, 0, LW_FLAG_FLUSH);
}

size_t lb_mark(struct logbuild *b, const char *text)
{
	size_t i = lb_add(b, 0, 0, LW_FLAG_MARK);

	snprintf(b->v[i].mark, sizeof(b->v[i].mark), "%s", text);
	return i;
}

static uint64_t rng_next(uint64_t *s)
{
	return crash_splitmix64(s);
}

static void random_entry(struct logbuild *b, uint64_t *rng,
			 uint64_t dev_sectors)
{
	unsigned kind = (unsigned)(rng_next(rng) % 100);
	uint64_t nr = 1 + rng_next(rng) % 8;
	uint64_t sector;
	char text[32];

	if (nr > dev_sectors)
		nr = dev_sectors;
	sector = rng_next(rng) % (dev_sectors - nr + 1);
	if (kind < 50)
		lb_add(b, sector, nr, (kind & 1) ? LW_FLAG_METADATA : 0);
	else if (kind < 60)
		lb_fua(b, sector, nr);
	else if (kind < 67)
		lb_discard(b, sector, nr);
	else if (kind < 80)
		lb_flush(b);
	else if (kind < 83)
		lb_add(b, sector, nr, LW_FLAG_FLUSH);
	else if (kind < 85)
		lb_add(b, sector, nr, LW_FLAG_FLUSH | LW_FLAG_FUA);
	else {
		snprintf(text, sizeof(text), "m%zu", b->n);
		lb_mark(b, text);
	}
}

void lb_random(struct logbuild *b, uint64_t seed, uint64_t dev_sectors,
	       size_t nr_entries)
{
	uint64_t rng = seed;

	for (size_t i = 0; i < nr_entries; i++)
		random_entry(b, &rng, dev_sectors);
}

unsigned char lb_data_byte(size_t idx, uint64_t j)
{
	uint64_t s = (uint64_t)idx * 1000003u + j / 8;
	uint64_t v = crash_splitmix64(&s);

	return (unsigned char)(v >> (8 * (j % 8)));
}

static void put_le64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static size_t entry_data_len(const struct logbuild *b, const struct lb_entry *e)
{
	if (e->flags & (LW_FLAG_MARK | LW_FLAG_DISCARD))
		return 0;
	return (size_t)e->nr_sectors * b->sectorsize;
}

static size_t serialized_len(const struct logbuild *b)
{
	size_t len = b->sectorsize;

	for (size_t i = 0; i < b->n; i++)
		len += b->sectorsize + entry_data_len(b, &b->v[i]);
	return len;
}

static size_t put_entry(const struct logbuild *b, size_t i, unsigned char *p)
{
	const struct lb_entry *e = &b->v[i];
	size_t mlen = (e->flags & LW_FLAG_MARK) ? strlen(e->mark) : 0;
	size_t dlen = entry_data_len(b, e);

	put_le64(p, e->sector);
	put_le64(p + 8, e->nr_sectors);
	put_le64(p + 16, e->flags);
	put_le64(p + 24, mlen);
	memcpy(p + 32, e->mark, mlen);
	for (size_t j = 0; j < dlen; j++)
		p[b->sectorsize + j] = lb_data_byte(i, j);
	return b->sectorsize + dlen;
}

unsigned char *lb_serialize(const struct logbuild *b, size_t *len)
{
	unsigned char *buf;
	size_t off = b->sectorsize;

	*len = serialized_len(b);
	buf = calloc(1, *len);
	if (!buf)
		abort();
	put_le64(buf, LW_MAGIC);
	put_le64(buf + 8, LW_VERSION);
	put_le64(buf + 16, b->n);
	buf[24] = (unsigned char)b->sectorsize;
	buf[25] = (unsigned char)(b->sectorsize >> 8);
	buf[26] = (unsigned char)(b->sectorsize >> 16);
	buf[27] = (unsigned char)(b->sectorsize >> 24);
	for (size_t i = 0; i < b->n; i++)
		off += put_entry(b, i, buf + off);
	return buf;
}

int lb_save(const struct logbuild *b, const char *path)
{
	size_t len;
	unsigned char *buf = lb_serialize(b, &len);
	int r = tu_write_file(path, buf, len);

	free(buf);
	return r;
}

struct lw_entry *lb_entries(const struct logbuild *b)
{
	struct lw_entry *v = calloc(b->n ? b->n : 1, sizeof(*v));
	uint64_t off = b->sectorsize;

	if (!v)
		abort();
	for (size_t i = 0; i < b->n; i++) {
		v[i].sector = b->v[i].sector;
		v[i].nr_sectors = b->v[i].nr_sectors;
		v[i].flags = b->v[i].flags;
		v[i].offset = off;
		v[i].mark = (b->v[i].flags & LW_FLAG_MARK) ? b->v[i].mark : NULL;
		off += b->sectorsize + entry_data_len(b, &b->v[i]);
	}
	return v;
}

/* --- reference model: the crash model's definition, written directly --- */

static bool ref_changes_dev(const struct lb_entry *e)
{
	return e->nr_sectors > 0 && !(e->flags & LW_FLAG_MARK);
}

static bool ref_kept(const struct crash_rule *r, size_t i, const uint64_t *rand_mask)
{
	switch (r->kind) {
	case CRASH_NONE: return false;
	case CRASH_ALL: return true;
	case CRASH_DROP: return i != r->arg;
	case CRASH_PREFIX: return i < r->arg;
	case CRASH_RAND: return crash_mask_test(rand_mask, i);
	}
	return false;
}

static void ref_write(const struct logbuild *b, size_t idx, unsigned char *img)
{
	const struct lb_entry *e = &b->v[idx];
	size_t off = (size_t)e->sector * b->sectorsize;
	size_t len = (size_t)e->nr_sectors * b->sectorsize;

	for (size_t j = 0; j < len; j++)
		img[off + j] = (e->flags & LW_FLAG_DISCARD) ? 0 : lb_data_byte(idx, j);
}

unsigned char *ref_image(const struct logbuild *b, const unsigned char *base,
			 size_t dev_size, uint64_t point,
			 const struct crash_rule *rule)
{
	unsigned char *img = malloc(dev_size);
	int64_t last_flush = -1;
	size_t nr_unflushed = 0, u = 0;
	uint64_t *rand_mask;
	char err[128];

	memcpy(img, base, dev_size);
	for (uint64_t e = 0; e <= point; e++)
		if (b->v[e].flags & LW_FLAG_FLUSH)
			last_flush = (int64_t)e;
	for (uint64_t e = 0; e <= point; e++)
		nr_unflushed += ref_changes_dev(&b->v[e]) &&
				(int64_t)e >= last_flush &&
				!(b->v[e].flags & LW_FLAG_FUA);
	rand_mask = calloc(crash_mask_words(nr_unflushed), sizeof(uint64_t));
	if (rule->kind == CRASH_RAND)
		crash_rule_mask(rule, point, nr_unflushed, rand_mask, err, sizeof(err));
	for (uint64_t e = 0; e <= point; e++) {
		const struct lb_entry *ent = &b->v[e];
		bool durable = (int64_t)e < last_flush || (ent->flags & LW_FLAG_FUA);

		if (!ref_changes_dev(ent))
			continue;
		if (durable || ref_kept(rule, u++, rand_mask))
			ref_write(b, e, img);
	}
	free(rand_mask);
	return img;
}

/* --- files and commands --- */

unsigned char *tu_pattern(size_t len, unsigned seed)
{
	unsigned char *p = malloc(len ? len : 1);
	uint64_t s = seed;

	for (size_t i = 0; i < len; i++)
		p[i] = (unsigned char)crash_splitmix64(&s);
	return p;
}

int tu_lwreplay(struct tu_cmd *r, ...)
{
	va_list ap;
	int rc;

	va_start(ap, r);
	rc = tu_toolv(r, "lwreplay", ap);
	va_end(ap);
	return rc;
}
