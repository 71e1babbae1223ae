// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for jfuzz: the journal inode's map, the log walk in every tag
 * layout, the checksums against an independent implementation, every
 * mutation class through the command line, determinism, and bad input.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tinytest.h"
#include "jbuild.h"
#include "../crc32c.h"
#include "../image.h"
#include "../journal.h"
#include "../mutate.h"

/*
 * The standard log: s_start 5, tids 40..42.
 *   tx 40: desc(5) data 1000 1001 1002 (6-8) commit(9)
 *   tx 41: revoke 1001 1500 (10) commit(11)
 *   tx 42: desc(12) data 1003 1100 (13-14) revoke 1002 (15) commit(16)
 */
static void std_journal(struct jbuild *b, int csum, bool is64, enum jb_map map)
{
	static const uint64_t t1[] = { 1000, 1001, 1002 }, r1[] = { 1001, 1500 };
	static const uint64_t t3[] = { 1003, 1100 }, r3[] = { 1002 };

	jb_init(b, csum, is64, map);
	jb_begin(b, 5, 40);
	jb_desc(b, 3, t1, 0x2);		/* block 1001 escaped */
	jb_commit(b);
	jb_revoke(b, 2, r1);
	jb_commit(b);
	jb_desc(b, 2, t3, 0);
	jb_revoke(b, 1, r3);
	jb_commit(b);
	jb_super(b, false);
}

struct fixture {
	struct jbuild b;
	char *dir, *img, *out;
};

static bool fixture_open(struct fixture *f, int csum, bool is64,
			 enum jb_map map)
{
	std_journal(&f->b, csum, is64, map);
	f->dir = tu_tmpdir();
	f->img = tu_path(f->dir, "img");
	f->out = tu_path(f->dir, "out");
	return jb_save(&f->b, f->img) == 0;
}

static void fixture_close(struct fixture *f)
{
	tu_rmdir(f->dir);
	free(f->dir);
	free(f->img);
	free(f->out);
	jb_free(&f->b);
}

/* Load the journal of @path with the library. */
static bool load(struct tt *t, const char *path, struct jf_image *img,
		 struct jf_journal *j)
{
	char err[JF_ERRLEN] = "";

	if (!TT_CHECK(t, jf_image_open(img, path, 0, err, sizeof(err)) == 0)) {
		fprintf(stderr, "  %s\n", err);
		return false;
	}
	if (!TT_CHECK(t, jf_journal_load(j, img, err, sizeof(err)) == 0)) {
		fprintf(stderr, "  %s\n", err);
		jf_image_close(img);
		return false;
	}
	return true;
}

static void t_crc32c(struct tt *t)
{
	uint8_t buf[4096];
	uint64_t s = 1;

	/* the standard check value: crc32c("123456789") with ~0 in and out */
	TT_CHECK_EQ(t, ~crc32c(~0u, "123456789", 9), 0xe3069283u);
	TT_CHECK_EQ(t, ~ref_crc32c(~0u, "123456789", 9), 0xe3069283u);
	for (size_t i = 0; i < sizeof(buf); i++) {
		s = s * 6364136223846793005ULL + 1442695040888963407ULL;
		buf[i] = (uint8_t)(s >> 33);
	}
	for (size_t len = 0; len < sizeof(buf); len += 509)
		TT_CHECK_EQ(t, crc32c((uint32_t)len, buf, len),
			    ref_crc32c((uint32_t)len, buf, len));
}

static void check_map(struct tt *t, enum jb_map map, bool is64)
{
	struct fixture f;
	struct jf_image img;
	char err[JF_ERRLEN];

	TT_REQUIRE(t, fixture_open(&f, 3, is64, map));
	TT_REQUIRE(t, jf_image_open(&img, f.img, 0, err, sizeof(err)) == 0);
	TT_CHECK_EQ(t, img.bs, 1024);
	TT_CHECK_EQ(t, img.blocks_count, JB_BLOCKS);
	TT_CHECK_EQ(t, img.jblocks, JB_JBLOCKS);
	for (uint32_t i = 0; i < JB_JBLOCKS; i++)
		if (!TT_CHECK_EQ(t, img.jmap[i], f.b.jmap[i]))
			break;
	jf_image_close(&img);
	fixture_close(&f);
}

static void t_map_extents(struct tt *t) { check_map(t, JB_EXTENTS, true); }
static void t_map_extent_tree(struct tt *t) { check_map(t, JB_EXTENT_TREE, false); }
static void t_map_indirect(struct tt *t) { check_map(t, JB_INDIRECT, false); }

static void check_parse(struct tt *t, int csum, bool is64)
{
	static const uint32_t jblocks[] = { 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	static const enum jf_kind kinds[] = { JF_DESC, JF_DATA, JF_DATA, JF_DATA,
		JF_COMMIT, JF_REVOKE, JF_COMMIT, JF_DESC, JF_DATA, JF_DATA,
		JF_REVOKE, JF_COMMIT };
	struct fixture f;
	struct jf_image img;
	struct jf_journal j;
	struct jf_counts c;

	TT_REQUIRE(t, fixture_open(&f, csum, is64, JB_EXTENTS));
	TT_REQUIRE(t, load(t, f.img, &img, &j));
	TT_CHECK_EQ(t, j.csum_version, csum);
	TT_CHECK_EQ(t, j.start, 5);
	TT_CHECK_EQ(t, j.sequence, 40);
	TT_REQUIRE(t, TT_CHECK_EQ(t, j.nblocks, 12));
	for (size_t i = 0; i < 12; i++) {
		TT_CHECK_EQ(t, j.blocks[i].jblock, jblocks[i]);
		TT_CHECK_EQ(t, j.blocks[i].kind, kinds[i]);
	}
	TT_CHECK_EQ(t, j.blocks[1].fsblock, 1000);
	TT_CHECK_EQ(t, j.blocks[2].fsblock, 1001);
	TT_CHECK_EQ(t, j.blocks[2].flags, JBD2_FLAG_SAME_UUID | JBD2_FLAG_ESCAPE);
	TT_CHECK_EQ(t, j.blocks[3].flags, JBD2_FLAG_SAME_UUID | JBD2_FLAG_LAST_TAG);
	TT_CHECK_EQ(t, j.blocks[3].tag_index, 2);
	TT_CHECK_EQ(t, j.blocks[9].fsblock, 1100);
	TT_CHECK_EQ(t, j.blocks[9].desc, 12);
	TT_REQUIRE(t, TT_CHECK_EQ(t, j.ntxs, 3));
	TT_CHECK_EQ(t, j.txs[0].tid, 40);
	TT_CHECK_EQ(t, j.txs[1].tid, 41);
	TT_CHECK_EQ(t, j.txs[2].tid, 42);
	TT_CHECK_EQ(t, j.txs[2].count, 5);
	jf_count(&j, &c);
	TT_CHECK_EQ(t, c.committed, 3);
	TT_CHECK_EQ(t, c.desc, 2);
	TT_CHECK_EQ(t, c.data, 5);
	TT_CHECK_EQ(t, c.revoke, 2);
	TT_CHECK_EQ(t, c.commit, 3);
	TT_CHECK_CONTAINS(t, j.end, "no magic at journal block 17");
	jf_journal_free(&j);
	jf_image_close(&img);
	fixture_close(&f);
}

static void t_parse_v3_64bit(struct tt *t) { check_parse(t, 3, true); }
static void t_parse_v3_32bit(struct tt *t) { check_parse(t, 3, false); }
static void t_parse_v2_64bit(struct tt *t) { check_parse(t, 2, true); }
static void t_parse_v2_32bit(struct tt *t) { check_parse(t, 2, false); }
static void t_parse_no_csum(struct tt *t) { check_parse(t, 0, false); }

/* A transaction wrapping from the last journal block to s_first. */
static void t_parse_wrap_and_high_block(struct tt *t)
{
	static const uint64_t blocks[] = { 7, (1ULL << 32) + 5, 9 };
	struct fixture f = { 0 };
	struct jf_image img;
	struct jf_journal j;

	jb_init(&f.b, 3, true, JB_EXTENT_TREE);
	jb_begin(&f.b, JB_JBLOCKS - 2, 7);
	jb_desc(&f.b, 3, blocks, 0);
	jb_commit(&f.b);
	jb_super(&f.b, false);
	f.dir = tu_tmpdir();
	f.img = tu_path(f.dir, "img");
	f.out = tu_path(f.dir, "out");
	TT_REQUIRE(t, jb_save(&f.b, f.img) == 0);
	TT_REQUIRE(t, load(t, f.img, &img, &j));
	TT_REQUIRE(t, TT_CHECK_EQ(t, j.nblocks, 5));
	TT_CHECK_EQ(t, j.blocks[0].jblock, JB_JBLOCKS - 2);
	TT_CHECK_EQ(t, j.blocks[1].jblock, JB_JBLOCKS - 1);
	TT_CHECK_EQ(t, j.blocks[2].jblock, 1);
	TT_CHECK_EQ(t, j.blocks[2].fsblock, (1ULL << 32) + 5);
	TT_CHECK_EQ(t, j.blocks[4].jblock, 3);
	TT_CHECK_EQ(t, j.blocks[4].kind, JF_COMMIT);
	TT_CHECK(t, j.txs[0].committed);
	jf_journal_free(&j);
	jf_image_close(&img);
	fixture_close(&f);
}

/* jfuzz's checksums of the built blocks equal what jbuild stored. */
static void check_checksums(struct tt *t, int csum, bool is64)
{
	struct fixture f;
	struct jf_image img;
	struct jf_journal j;

	TT_REQUIRE(t, fixture_open(&f, csum, is64, JB_EXTENTS));
	TT_REQUIRE(t, load(t, f.img, &img, &j));
	TT_CHECK_EQ(t, jf_jsb_csum(j.sb), get_be32(j.sb + JSB_CHECKSUM));
	for (size_t i = 0; i < j.nblocks; i++) {
		const struct jf_lblock *b = &j.blocks[i];
		const uint8_t *blk = jb_jblock(&f.b, b->jblock);

		switch (b->kind) {
		case JF_DESC: case JF_REVOKE:
			TT_CHECK_EQ(t, jf_tail_csum(&j, blk), get_be32(blk + 1020));
			break;
		case JF_COMMIT:
			TT_CHECK_EQ(t, jf_commit_csum(&j, blk), get_be32(blk + CB_CHKSUM));
			break;
		case JF_DATA: {
			const uint8_t *desc = jb_jblock(&f.b, b->desc);
			uint32_t want = jf_tag_csum(&j, b->tid, blk);

			TT_CHECK_EQ(t, jf_get_tag_csum(&j, desc, b->tag_off),
				    csum == 3 ? want : want & 0xffff);
			break;
		}
		}
	}
	jf_journal_free(&j);
	jf_image_close(&img);
	fixture_close(&f);
}

static void t_checksums_v3(struct tt *t) { check_checksums(t, 3, true); }
static void t_checksums_v2(struct tt *t) { check_checksums(t, 2, false); }

/* Bytes of @a and @b differ only inside journal blocks of @f. */
static bool only_journal_changed(const struct fixture *f, const uint8_t *a,
				 const uint8_t *b, size_t len, size_t *changed)
{
	*changed = 0;
	for (size_t i = 0; i < len; i++) {
		if (a[i] == b[i])
			continue;
		uint64_t blk = i / JB_BS;
		bool in = false;

		for (uint32_t k = 0; k < JB_JBLOCKS && !in; k++)
			in = f->b.jmap[k] == blk;
		if (!in)
			return false;
		(*changed)++;
	}
	return true;
}

static void check_class(struct tt *t, const char *cls, int csum, bool is64)
{
	struct fixture f;
	size_t ilen, olen, changed, same = 0;
	uint8_t *in;

	TT_REQUIRE(t, fixture_open(&f, csum, is64, JB_EXTENTS));
	in = tu_read_file(f.img, &ilen);
	for (int s = 0; s < 15; s++) {
		char seed[16], want[64];
		struct tu_cmd r;
		uint8_t *out;

		snprintf(seed, sizeof(seed), "%d", s);
		snprintf(want, sizeof(want), "seed=%d class=%s jblock=", s, cls);
		unlink(f.out);
		TT_CHECK_EQ(t, tu_jfuzz(&r, "--seed", seed, "--class", cls, "--out",
					f.out, f.img, NULL), 0);
		TT_CHECK(t, !strncmp(r.out, want, strlen(want)));
		TT_CHECK_CONTAINS(t, r.out, " field=");
		TT_CHECK_CONTAINS(t, r.out, " -> ");
		TT_CHECK(t, strchr(r.out, '\n') == r.out + strlen(r.out) - 1);
		out = tu_read_file(f.out, &olen);
		TT_REQUIRE(t, out && olen == ilen);
		if (!TT_CHECK(t, only_journal_changed(&f, in, out, ilen, &changed)))
			fprintf(stderr, "  %s", r.out);
		same += changed == 0;	/* e.g. zeroing zeroes: rare */
		free(out);
		tu_cmd_free(&r);
	}
	TT_CHECK(t, same <= 1);
	free(in);
	fixture_close(&f);
}

static void t_class_tag(struct tt *t) { check_class(t, "tag", 3, true); }
static void t_class_commit(struct tt *t) { check_class(t, "commit", 3, true); }
static void t_class_revoke(struct tt *t) { check_class(t, "revoke", 2, false); }
static void t_class_jsb(struct tt *t) { check_class(t, "jsb", 3, false); }
static void t_class_truncate(struct tt *t) { check_class(t, "truncate", 3, true); }
static void t_class_tid(struct tt *t) { check_class(t, "tid", 3, true); }
static void t_class_absurd(struct tt *t) { check_class(t, "absurd", 3, true); }
static void t_class_magic(struct tt *t) { check_class(t, "magic", 0, false); }
static void t_class_semantic(struct tt *t) { check_class(t, "semantic", 2, true); }

/*
 * Every checksum at the original layout, checked independently: the jsb,
 * each header block, each data block's tag.  Returns how many fail.
 */
static int bad_checksums(const struct fixture *f, const struct jf_journal *j,
			 const uint8_t *img)
{
	int bad = !ref_jsb_ok(img, &f->b);

	for (size_t i = 0; i < j->nblocks; i++) {
		const struct jf_lblock *b = &j->blocks[i];
		const uint8_t *blk = img + f->b.jmap[b->jblock] * JB_BS;

		if (b->kind != JF_DATA)
			bad += !ref_header_ok(blk, f->b.uuid);
		else
			bad += !ref_tag_ok(img + f->b.jmap[b->desc] * JB_BS,
					   b->tag_off, f->b.csum, b->tid, blk,
					   f->b.uuid);
	}
	return bad;
}

/*
 * Recomputing classes leave every checksum valid; stale ones break at
 * least one; jsb says which it did.
 */
static void check_recompute(struct tt *t, int csum, bool is64)
{
	static const struct { const char *cls; int stale; } cases[] = {
		{ "semantic", 0 }, { "absurd", 0 }, { "tag", 1 }, { "commit", 1 },
		{ "revoke", 1 }, { "magic", 1 }, { "jsb", -1 },
	};
	struct fixture f;
	struct jf_image img;
	struct jf_journal j;
	size_t len;

	TT_REQUIRE(t, fixture_open(&f, csum, is64, JB_EXTENTS));
	TT_REQUIRE(t, load(t, f.img, &img, &j));
	TT_CHECK_EQ(t, bad_checksums(&f, &j, f.b.img), 0);
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		for (int s = 0; s < 20; s++) {
			char seed[16];
			struct tu_cmd r;
			uint8_t *out;
			int bad, stale = cases[k].stale;

			snprintf(seed, sizeof(seed), "%d", s);
			TT_REQUIRE(t, tu_jfuzz(&r, "--seed", seed, "--class", cases[k].cls,
					       "--out", f.out, f.img, NULL) == 0);
			out = tu_read_file(f.out, &len);
			bad = bad_checksums(&f, &j, out);
			if (stale < 0)
				stale = !!strstr(r.out, "csum=stale");
			if (!TT_CHECK(t, stale ? bad > 0 : bad == 0))
				fprintf(stderr, "  %d bad checksums after %s", bad, r.out);
			free(out);
			tu_cmd_free(&r);
		}
	}
	jf_journal_free(&j);
	jf_image_close(&img);
	fixture_close(&f);
}

static void t_recompute_v3(struct tt *t) { check_recompute(t, 3, true); }
static void t_recompute_v2(struct tt *t) { check_recompute(t, 2, false); }

static void t_determinism(struct tt *t)
{
	struct fixture f;
	size_t la, lb;
	int distinct = 0;
	uint8_t *prev = NULL;
	char *copy;

	TT_REQUIRE(t, fixture_open(&f, 3, true, JB_EXTENTS));
	copy = tu_path(f.dir, "copy");
	for (int s = 0; s < 12; s++) {
		char seed[16];
		struct tu_cmd r1, r2, r3;
		uint8_t *a, *b, *c;

		snprintf(seed, sizeof(seed), "%d", s * 7919);
		TT_CHECK_EQ(t, tu_jfuzz(&r1, "--seed", seed, "--out", f.out, f.img, NULL), 0);
		a = tu_read_file(f.out, &la);
		TT_CHECK_EQ(t, tu_jfuzz(&r2, "--seed", seed, "--out", f.out, f.img, NULL), 0);
		b = tu_read_file(f.out, &lb);
		TT_CHECK(t, la == lb && !memcmp(a, b, la));
		TT_CHECK_STR(t, r1.out, r2.out);
		/* --in-place gives the same bytes as --out */
		TT_REQUIRE(t, jb_save(&f.b, copy) == 0);
		TT_CHECK_EQ(t, tu_jfuzz(&r3, "--seed", seed, "--in-place", copy, NULL), 0);
		c = tu_read_file(copy, &lb);
		TT_CHECK(t, la == lb && !memcmp(a, c, la));
		TT_CHECK_STR(t, r1.out, r3.out);
		distinct += !prev || memcmp(prev, a, la);
		free(prev);
		prev = a;
		free(b);
		free(c);
		tu_cmd_free(&r1);
		tu_cmd_free(&r2);
		tu_cmd_free(&r3);
	}
	TT_CHECK(t, distinct >= 10);
	free(prev);
	free(copy);
	fixture_close(&f);
}

/* Seeds choose among every class. */
static void t_seed_covers_classes(struct tt *t)
{
	struct fixture f;
	int seen[JF_NCLASSES] = { 0 };

	TT_REQUIRE(t, fixture_open(&f, 3, true, JB_EXTENTS));
	for (int s = 0; s < 120; s++) {
		char seed[16];
		struct tu_cmd r;

		snprintf(seed, sizeof(seed), "%d", s);
		TT_REQUIRE(t, tu_jfuzz(&r, "--seed", seed, "--out", f.out, f.img, NULL) == 0);
		for (int c = 0; c < JF_NCLASSES; c++) {
			char want[32];

			snprintf(want, sizeof(want), " class=%s ", jf_classes[c].name);
			seen[c] += !!strstr(r.out, want);
		}
		tu_cmd_free(&r);
	}
	for (int c = 0; c < JF_NCLASSES; c++)
		if (!TT_CHECK(t, seen[c] >= 3))
			fprintf(stderr, "  class %s chosen %d times\n",
				jf_classes[c].name, seen[c]);
	fixture_close(&f);
}

static void t_nothing_to_mutate(struct tt *t)
{
	static const uint64_t blocks[] = { 1000 };
	struct fixture f = { 0 };
	struct tu_cmd r;
	struct stat st;

	/* clean journal: s_start 0 */
	TT_REQUIRE(t, fixture_open(&f, 3, true, JB_EXTENTS));
	jb_super(&f.b, true);
	TT_REQUIRE(t, jb_save(&f.b, f.img) == 0);
	TT_CHECK_EQ(t, tu_jfuzz(&r, "--seed", "3", "--out", f.out, f.img, NULL), 1);
	TT_CHECK_CONTAINS(t, r.err, "nothing to mutate");
	TT_CHECK_CONTAINS(t, r.err, "s_start is 0");
	TT_CHECK(t, stat(f.out, &st) < 0);	/* no output made */
	tu_cmd_free(&r);
	for (int c = 0; c < JF_NCLASSES; c++) {
		TT_CHECK_EQ(t, tu_jfuzz(&r, "--class", jf_classes[c].name,
					"--in-place", f.img, NULL), 1);
		tu_cmd_free(&r);
	}
	fixture_close(&f);

	/* one transaction, no revoke block */
	jb_init(&f.b, 3, true, JB_EXTENTS);
	jb_begin(&f.b, 1, 1);
	jb_desc(&f.b, 1, blocks, 0);
	jb_commit(&f.b);
	jb_super(&f.b, false);
	f.dir = tu_tmpdir();
	f.img = tu_path(f.dir, "img");
	f.out = tu_path(f.dir, "out");
	TT_REQUIRE(t, jb_save(&f.b, f.img) == 0);
	TT_CHECK_EQ(t, tu_jfuzz(&r, "--class", "revoke", "--out", f.out, f.img, NULL), 1);
	TT_CHECK_CONTAINS(t, r.err, "nothing to mutate for class revoke");
	tu_cmd_free(&r);
	TT_CHECK_EQ(t, tu_jfuzz(&r, "--class", "tag", "--out", f.out, f.img, NULL), 0);
	tu_cmd_free(&r);
	for (int s = 0; s < 20; s++) {
		char seed[16];

		snprintf(seed, sizeof(seed), "%d", s);
		TT_CHECK_EQ(t, tu_jfuzz(&r, "--seed", seed, "--out", f.out, f.img, NULL), 0);
		TT_CHECK(t, !strstr(r.out, "class=revoke"));
		tu_cmd_free(&r);
	}
	fixture_close(&f);
}

static void t_dump_and_list(struct tt *t)
{
	struct fixture f;
	struct tu_cmd r;

	TT_REQUIRE(t, fixture_open(&f, 3, true, JB_EXTENTS));
	TT_CHECK_EQ(t, tu_jfuzz(&r, "--dump", f.img, NULL), 0);
	TT_CHECK_CONTAINS(t, r.out, "summary transactions=3 committed=3 descriptors=2 data=5 revokes=2 commits=3 csum=v3 csum_order=0\n");
	TT_CHECK_CONTAINS(t, r.out, "tx 41: 2 blocks\n");
	TT_CHECK_CONTAINS(t, r.out, "-> 1001 flags 0x3");
	tu_cmd_free(&r);
	TT_CHECK_EQ(t, tu_jfuzz(&r, "--list", NULL), 0);
	for (int c = 0; c < JF_NCLASSES; c++)
		TT_CHECK_CONTAINS(t, r.out, jf_classes[c].name);
	tu_cmd_free(&r);
	TT_CHECK_EQ(t, tu_jfuzz(&r, "--help", NULL), 0);
	TT_CHECK_CONTAINS(t, r.out, "exit codes:");
	tu_cmd_free(&r);
	fixture_close(&f);
}

struct usage_case {
	const char *args[6];
	int status;
	const char *message;
};

static void t_bad_args(struct tt *t)
{
	struct fixture f;
	char notext4[4200], missing[4200];

	TT_REQUIRE(t, fixture_open(&f, 3, true, JB_EXTENTS));
	snprintf(missing, sizeof(missing), "%s/missing", f.dir);
	snprintf(notext4, sizeof(notext4), "%s/zero", f.dir);
	{
		uint8_t *z = calloc(1, 65536);

		tu_write_file(notext4, z, 65536);
		free(z);
	}
	const struct usage_case cases[] = {
		{ { NULL }, 2, "no IMAGE given" },
		{ { f.img, NULL }, 2, "exactly one of --out FILE and --in-place" },
		{ { "--in-place", "--out", f.out, f.img, NULL }, 2, "exactly one of" },
		{ { "--class", "frob", "--in-place", f.img, NULL }, 2, "unknown class 'frob'" },
		{ { "--seed", "x1", "--in-place", f.img, NULL }, 2, "bad value 'x1' for --seed" },
		{ { "--seed", "-1", "--in-place", f.img, NULL }, 2, "--seed needs a number" },
		{ { "--seed", NULL }, 2, "--seed needs a number" },
		{ { "--bogus", f.img, NULL }, 2, "unknown option '--bogus'" },
		{ { "--in-place", f.img, f.out, NULL }, 2, "too many arguments" },
		{ { "--list", f.img, NULL }, 2, "--list takes nothing else" },
		{ { "--dump", "--in-place", f.img, NULL }, 2, "--dump changes nothing" },
		{ { "--in-place", missing, NULL }, 2, "cannot open" },
		{ { "--in-place", notext4, NULL }, 2, "no ext4 super block" },
		{ { "--out", "/nonexistent/dir/out", f.img, NULL }, 3, "cannot create" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *const *a = cases[i].args;
		struct tu_cmd r;

		tu_jfuzz(&r, a[0], a[1], a[2], a[3], a[4], a[5], NULL);
		if (!TT_CHECK_EQ(t, r.status, cases[i].status) |
		    !TT_CHECK_CONTAINS(t, r.err, cases[i].message))
			fprintf(stderr, "  usage case %zu\n", i);
		tu_cmd_free(&r);
	}
	fixture_close(&f);
}

/* A journal super block that is not jbd2's, or a block size mismatch. */
static void t_bad_journal(struct tt *t)
{
	struct fixture f;
	struct tu_cmd r;

	TT_REQUIRE(t, fixture_open(&f, 3, true, JB_EXTENTS));
	jb_jblock(&f.b, 0)[0] ^= 0xff;
	TT_REQUIRE(t, jb_save(&f.b, f.img) == 0);
	TT_CHECK_EQ(t, tu_jfuzz(&r, "--in-place", f.img, NULL), 2);
	TT_CHECK_CONTAINS(t, r.err, "no jbd2 super block");
	tu_cmd_free(&r);
	jb_super(&f.b, false);
	put_be32(jb_jblock(&f.b, 0) + JSB_BLOCKSIZE, 4096);
	TT_REQUIRE(t, jb_save(&f.b, f.img) == 0);
	TT_CHECK_EQ(t, tu_jfuzz(&r, "--dump", f.img, NULL), 2);
	TT_CHECK_CONTAINS(t, r.err, "journal block size 4096");
	tu_cmd_free(&r);
	fixture_close(&f);
}

/*
 * The real thing, checked by a second implementation: mke2fs makes the
 * journal inode, debugfs writes transactions (csum v3), and e2fsck's
 * recovery, not ours, judges the checksums jfuzz recomputed.
 */
static void t_e2fsprogs(struct tt *t)
{
	char *dir = tu_tmpdir(), cmd[8192];
	struct tu_cmd r;
	int checked = 0;

	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && mkfs.ext4 -q -F -b 1024 -J size=1 img 16M && "
		 "printf 'jo -c\\njw -b 300,301,302 /dev/zero\\njw -r 400,401\\n"
		 "jw -b 500,501 -r 300 /dev/zero\\njc\\n' | debugfs -w -f - img", dir);
	if (tu_sh(&r, cmd) != 0) {
		fprintf(stderr, "  skipped: mkfs.ext4/debugfs failed: %s\n", r.err);
		tu_cmd_free(&r);
		tu_rmdir(dir);
		free(dir);
		return;
	}
	tu_cmd_free(&r);
	snprintf(cmd, sizeof(cmd), "%s/img", dir);
	TT_CHECK_EQ(t, tu_jfuzz(&r, "--dump", cmd, NULL), 0);
	TT_CHECK_CONTAINS(t, r.out, "summary transactions=3 committed=3 descriptors=2 data=5 revokes=2 commits=3 csum=v3");
	tu_cmd_free(&r);
	for (int s = 0; s < 24; s++) {
		char seed[16], in[4200], out[4200];

		snprintf(seed, sizeof(seed), "%d", s);
		snprintf(in, sizeof(in), "%s/img", dir);
		snprintf(out, sizeof(out), "%s/out", dir);
		TT_REQUIRE(t, tu_jfuzz(&r, "--seed", seed, "--class", "semantic",
				       "--out", out, in, NULL) == 0);
		bool super = strstr(r.out, " jblock=0 ") != NULL;
		char line[400];

		snprintf(line, sizeof(line), "%s", r.out);
		tu_cmd_free(&r);
		if (super)
			continue;	/* features may change what the blocks mean */
		snprintf(cmd, sizeof(cmd), "e2fsck -fy '%s/out' 2>&1", dir);
		tu_sh(&r, cmd);
		if (!TT_CHECK(t, !strstr(r.out, "checksum error") &&
			      strstr(r.out, "recovering journal")))
			fprintf(stderr, "  after %s  e2fsck said: %s\n", line, r.out);
		checked++;
		tu_cmd_free(&r);
	}
	TT_CHECK(t, checked >= 8);
	tu_rmdir(dir);
	free(dir);
}

static const struct tt_case cases[] = {
	TT_CASE(t_crc32c),
	TT_CASE(t_map_extents),
	TT_CASE(t_map_extent_tree),
	TT_CASE(t_map_indirect),
	TT_CASE(t_parse_v3_64bit),
	TT_CASE(t_parse_v3_32bit),
	TT_CASE(t_parse_v2_64bit),
	TT_CASE(t_parse_v2_32bit),
	TT_CASE(t_parse_no_csum),
	TT_CASE(t_parse_wrap_and_high_block),
	TT_CASE(t_checksums_v3),
	TT_CASE(t_checksums_v2),
	TT_CASE(t_class_tag),
	TT_CASE(t_class_commit),
	TT_CASE(t_class_revoke),
	TT_CASE(t_class_jsb),
	TT_CASE(t_class_truncate),
	TT_CASE(t_class_tid),
	TT_CASE(t_class_absurd),
	TT_CASE(t_class_magic),
	TT_CASE(t_class_semantic),
	TT_CASE(t_recompute_v3),
	TT_CASE(t_recompute_v2),
	TT_CASE(t_determinism),
	TT_CASE(t_seed_covers_classes),
	TT_CASE(t_nothing_to_mutate),
	TT_CASE(t_dump_and_list),
	TT_CASE(t_bad_args),
	TT_CASE(t_bad_journal),
	TT_CASE(t_e2fsprogs),
	{ 0 },
};

int main(int argc, char **argv)
{
	const struct tt_suite suites[] = { { "jfuzz", cases }, { 0 } };

	return tt_main(argc, argv, suites);
}
