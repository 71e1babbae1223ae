// SPDX-License-Identifier: GPL-2.0
/* Self-describing data records: see record.h. */
#include <string.h>

#include "record.h"

struct cw_record_header {
	uint64_t magic;
	uint64_t pathid;
	uint64_t fileid;
	uint64_t index;
	uint64_t gen;
	uint64_t csum;		/* cw_hash64 of the record with csum = 0 */
};

/* FNV-1a, 64 bit: enough to tell torn or foreign records apart. */
uint64_t cw_hash64(const void *buf, size_t len, uint64_t seed)
{
	const unsigned char *p = buf;
	uint64_t h = 0xcbf29ce484222325ULL ^ seed;

	while (len--) {
		h ^= *p++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

uint64_t cw_path_id(const char *name)
{
	return cw_hash64(name, strlen(name), 0);
}

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void cw_record_fill(void *buf, const struct cw_record_id *id)
{
	struct cw_record_header *h = buf;
	uint64_t state = id->pathid ^ (id->fileid << 20) ^ (id->index << 40) ^ id->gen;
	uint64_t *word = buf;
	size_t i;

	/* Content differs per record and generation, so no two match. */
	for (i = sizeof(*h) / 8; i < CW_RECORD_SIZE / 8; i++)
		word[i] = splitmix64(&state);
	h->magic = CW_MAGIC;
	h->pathid = id->pathid;
	h->fileid = id->fileid;
	h->index = id->index;
	h->gen = id->gen;
	h->csum = 0;
	h->csum = cw_hash64(buf, CW_RECORD_SIZE, 0);
}

static bool cw_all_zero(const void *buf)
{
	const uint64_t *word = buf;
	size_t i;

	for (i = 0; i < CW_RECORD_SIZE / 8; i++)
		if (word[i])
			return false;
	return true;
}

enum cw_record_kind cw_record_parse(const void *buf, struct cw_record_id *id)
{
	unsigned char copy[CW_RECORD_SIZE];
	struct cw_record_header *h = (struct cw_record_header *)copy;
	uint64_t csum;

	if (cw_all_zero(buf))
		return CW_RECORD_ZERO;
	memcpy(copy, buf, CW_RECORD_SIZE);
	if (h->magic != CW_MAGIC)
		return CW_RECORD_GARBAGE;
	csum = h->csum;
	h->csum = 0;
	if (cw_hash64(copy, CW_RECORD_SIZE, 0) != csum)
		return CW_RECORD_GARBAGE;
	id->pathid = h->pathid;
	id->fileid = h->fileid;
	id->index = h->index;
	id->gen = h->gen;
	return CW_RECORD_VALID;
}
