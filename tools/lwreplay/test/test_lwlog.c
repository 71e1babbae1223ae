// SPDX-License-Identifier: GPL-2.0
/* Parsing the log: valid logs, and every way a log can be bad. */
#include "logbuild.h"
#include "tinytest.h"

#include <unistd.h>

/* Open the serialized log after mutate() changed it; returns lwlog_open(). */
static int open_mutated(const struct logbuild *b,
			void (*mutate)(unsigned char *buf, size_t *len),
			struct lw_log *log, char *err)
{
	char *dir = tu_tmpdir(), *path = tu_path(dir, "log");
	size_t len;
	unsigned char *buf = lb_serialize(b, &len);
	int r;

	if (mutate)
		mutate(buf, &len);
	tu_write_file(path, buf, len);
	r = lwlog_open(path, log, err, LW_ERRLEN);
	unlink(path);
	rmdir(dir);
	free(buf);
	free(path);
	free(dir);
	return r;
}

static void sample_log(struct logbuild *b, uint32_t sectorsize)
{
	lb_init(b, sectorsize);
	lb_write(b, 3, 2);		/* 0 */
	lb_flush(b);			/* 1 */
	lb_mark(b, "mkfs");		/* 2 */
	lb_fua(b, 7, 1);		/* 3 */
	lb_discard(b, 10, 4);		/* 4 */
	lb_add(b, 1, 1, LW_FLAG_FLUSH);	/* 5: flush with data */
}

static void t_parse_valid(struct tt *t)
{
	struct logbuild b;
	struct lw_log log;
	char err[LW_ERRLEN] = "";

	sample_log(&b, 512);
	TT_REQUIRE(t, open_mutated(&b, NULL, &log, err) == 0);
	TT_CHECK_EQ(t, log.nr_entries, 6);
	TT_CHECK_EQ(t, log.sectorsize, 512);
	TT_CHECK_EQ(t, log.entries[0].sector, 3);
	TT_CHECK_EQ(t, log.entries[0].nr_sectors, 2);
	TT_CHECK_EQ(t, log.entries[0].offset, 512);
	/* header + 2 sectors of data */
	TT_CHECK_EQ(t, log.entries[1].offset, 512 + 512 + 1024);
	TT_CHECK_EQ(t, log.entries[1].flags, LW_FLAG_FLUSH);
	TT_CHECK_STR(t, log.entries[2].mark, "mkfs");
	TT_CHECK(t, log.entries[0].mark == NULL);
	/* a discard carries no data in the log */
	TT_CHECK_EQ(t, log.entries[5].offset, log.entries[4].offset + 512);
	lwlog_close(&log);
	lb_free(&b);
}

/* entry->sector and nr_sectors count sectorsize blocks, not 512 bytes. */
static void t_parse_4k_units(struct tt *t)
{
	struct logbuild b;
	struct lw_log log;
	char err[LW_ERRLEN] = "";

	sample_log(&b, 4096);
	TT_REQUIRE(t, open_mutated(&b, NULL, &log, err) == 0);
	TT_CHECK_EQ(t, log.entries[0].offset, 4096);
	TT_CHECK_EQ(t, log.entries[1].offset, 4096 + 4096 + 2 * 4096);
	TT_CHECK_EQ(t, lw_entry_dev_offset(&log, &log.entries[0]), 3 * 4096);
	TT_CHECK_EQ(t, lw_entry_dev_length(&log, &log.entries[0]), 2 * 4096);
	TT_CHECK_EQ(t, lw_entry_dev_length(&log, &log.entries[1]), 0);
	TT_CHECK_EQ(t, lw_entry_dev_length(&log, &log.entries[4]), 4 * 4096);
	lwlog_close(&log);
	lb_free(&b);
}

static void t_parse_empty_log(struct tt *t)
{
	struct logbuild b;
	struct lw_log log;
	char err[LW_ERRLEN] = "";

	lb_init(&b, 512);
	TT_REQUIRE(t, open_mutated(&b, NULL, &log, err) == 0);
	TT_CHECK_EQ(t, log.nr_entries, 0);
	lwlog_close(&log);
	lb_free(&b);
}

/* Bytes after nr_entries are ignored: the super is the authority. */
static void t_trust_nr_entries(struct tt *t)
{
	struct logbuild b;
	struct lw_log log;
	char err[LW_ERRLEN] = "";
	size_t len;
	unsigned char *buf;
	char *dir = tu_tmpdir(), *path = tu_path(dir, "log");

	sample_log(&b, 512);
	buf = lb_serialize(&b, &len);
	buf = realloc(buf, len + 4096);
	memset(buf + len, 0xab, 4096);
	buf[16] = 3;	/* only the first three entries count */
	tu_write_file(path, buf, len + 4096);
	TT_REQUIRE(t, lwlog_open(path, &log, err, sizeof(err)) == 0);
	TT_CHECK_EQ(t, log.nr_entries, 3);
	lwlog_close(&log);
	free(buf);
	free(path);
	free(dir);
	lb_free(&b);
}

static void t_flags_name(struct tt *t)
{
	char buf[64];

	TT_CHECK_STR(t, lw_flags_name(0, buf, sizeof(buf)), "WRITE");
	TT_CHECK_STR(t, lw_flags_name(LW_FLAG_METADATA, buf, sizeof(buf)),
		     "WRITE|META");
	TT_CHECK_STR(t, lw_flags_name(LW_FLAG_FLUSH | LW_FLAG_FUA, buf,
				      sizeof(buf)), "FLUSH|FUA");
	TT_CHECK_STR(t, lw_flags_name(LW_FLAG_MARK, buf, 3), "MA");
}

static void t_check_fits(struct tt *t)
{
	struct logbuild b;
	struct lw_log log;
	char err[LW_ERRLEN] = "";

	sample_log(&b, 512);
	TT_REQUIRE(t, open_mutated(&b, NULL, &log, err) == 0);
	/* the discard ends at sector 14 */
	TT_CHECK(t, lwlog_check_fits(&log, 14 * 512, err, sizeof(err)) == 0);
	TT_CHECK(t, lwlog_check_fits(&log, 14 * 512 - 1, err, sizeof(err)) < 0);
	TT_CHECK_CONTAINS(t, err, "entry 4 at byte");
	TT_CHECK_CONTAINS(t, err, "past the end of DEV");
	lwlog_close(&log);
	lb_free(&b);
}

/* --- bad logs: each must fail with a message naming the problem --- */

struct bad_case {
	const char *name;
	void (*mutate)(unsigned char *buf, size_t *len);
	const char *message;
};

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void bad_magic(unsigned char *b, size_t *l) { (void)l; b[0] ^= 1; }
static void bad_version(unsigned char *b, size_t *l) { (void)l; put64(b + 8, 2); }
static void bad_sectorsize_small(unsigned char *b, size_t *l) { (void)l; b[24] = 0; b[25] = 1; }
static void bad_sectorsize_odd(unsigned char *b, size_t *l) { (void)l; b[24] = 0; b[25] = 3; }
static void bad_sectorsize_big(unsigned char *b, size_t *l) { (void)l; b[24] = 0; b[25] = 0; b[26] = 2; }
static void bad_nr_entries(unsigned char *b, size_t *l) { (void)l; put64(b + 16, UINT64_MAX); }
static void too_short(unsigned char *b, size_t *l) { (void)b; *l = 20; }
static void empty_file(unsigned char *b, size_t *l) { (void)b; *l = 0; }
/* entry 0 is a 2-sector write at 512: cut its data */
static void cut_data(unsigned char *b, size_t *l) { put64(b + 16, 1); *l = 512 + 512 + 700; }
/* entry 0 grows to 4 sectors: entry 1's header falls past the end */
static void cut_header(unsigned char *b, size_t *l)
{
	put64(b + 16, 2);
	put64(b + 512 + 8, 4);	/* entry 0 now 4 sectors: swallows entry 1 */
	*l = 512 + 512 + 4 * 512 + 100;
}
static void zero_length(unsigned char *b, size_t *l) { (void)l; put64(b + 512 + 8, 0); }
static void unknown_flag(unsigned char *b, size_t *l) { (void)l; put64(b + 512 + 16, 1 << 9); }
static void long_mark(unsigned char *b, size_t *l)
{
	(void)l;
	put64(b + 512 + 512 + 1024 + 512 + 24, 600);	/* entry 2 */
}
static void mark_with_sectors(unsigned char *b, size_t *l)
{
	(void)l;
	put64(b + 512 + 512 + 1024 + 512 + 8, 5);
}
static void data_len_on_write(unsigned char *b, size_t *l) { (void)l; put64(b + 512 + 24, 7); }
static void overflow_range(unsigned char *b, size_t *l)
{
	(void)l;
	put64(b + 512 + 512 + 1024 + 512 + 512, UINT64_MAX - 1);	/* entry 3 sector */
}

static const struct bad_case bad_cases[] = {
	{ "magic", bad_magic, "bad magic" },
	{ "version", bad_version, "unsupported log version 2" },
	{ "sectorsize 256", bad_sectorsize_small, "bad sectorsize 256" },
	{ "sectorsize 768", bad_sectorsize_odd, "bad sectorsize 768" },
	{ "sectorsize 131072", bad_sectorsize_big, "bad sectorsize 131072" },
	{ "nr_entries", bad_nr_entries, "claims 18446744073709551615 entries" },
	{ "too short", too_short, "too short for a super block" },
	{ "empty", empty_file, "too short for a super block" },
	{ "cut data", cut_data, "entry 0 at byte 512: its 1024 bytes of data run past the end" },
	{ "cut header", cut_header, "entry 1 at byte 3072: header runs past the end" },
	{ "zero length", zero_length, "entry 0 at byte 512: zero-length write" },
	{ "unknown flag", unknown_flag, "entry 0 at byte 512: unknown flag bits" },
	{ "long mark", long_mark, "entry 2 at byte 2560: MARK text longer" },
	{ "mark sectors", mark_with_sectors, "MARK entry with a non-zero sector count" },
	{ "data_len", data_len_on_write, "non-zero data_len" },
	{ "overflow", overflow_range, "entry 3 at byte 3072: sector range overflows" },
};

static void t_bad_logs(struct tt *t)
{
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		struct logbuild b;
		struct lw_log log;
		char err[LW_ERRLEN] = "";

		sample_log(&b, 512);
		if (!TT_CHECK(t, open_mutated(&b, bad_cases[i].mutate, &log, err) < 0)) {
			fprintf(stderr, "  case '%s' opened\n", bad_cases[i].name);
			lwlog_close(&log);
		}
		if (!TT_CHECK_CONTAINS(t, err, bad_cases[i].message))
			fprintf(stderr, "  case '%s'\n", bad_cases[i].name);
		lb_free(&b);
	}
}

static void t_missing_file(struct tt *t)
{
	struct lw_log log;
	char err[LW_ERRLEN] = "";

	TT_CHECK(t, lwlog_open("/nonexistent/log", &log, err, sizeof(err)) < 0);
	TT_CHECK_CONTAINS(t, err, "cannot open log /nonexistent/log");
}

const struct tt_case lwlog_cases[] = {
	TT_CASE(t_parse_valid),
	TT_CASE(t_parse_4k_units),
	TT_CASE(t_parse_empty_log),
	TT_CASE(t_trust_nr_entries),
	TT_CASE(t_flags_name),
	TT_CASE(t_check_fits),
	TT_CASE(t_bad_logs),
	TT_CASE(t_missing_file),
	{ 0 },
};
