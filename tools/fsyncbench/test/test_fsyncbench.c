// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for fsyncbench: argument parsing, the histogram, and short
 * runs of every workload in a scratch directory (plus the binary's exit
 * codes, through $TOOLS_BIN).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tinytest.h"
#include "../args.h"
#include "../hist.h"
#include "../work.h"

#define ARGV(...) ((char *[]){ "fsyncbench", __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof((char *[]){ "fsyncbench", __VA_ARGS__ }) / sizeof(char *)))
#define PARSE(o, err, ...) fb_parse_args(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), (o), (err), sizeof(err))

static void t_args_defaults(struct tt *t)
{
	struct fb_opts o;
	char err[128];

	TT_REQUIRE(t, PARSE(&o, err, "--workload", "append", "--dir", "/x", "--ops", "5") == 0);
	TT_CHECK_EQ(t, o.workload, FB_APPEND);
	TT_CHECK_STR(t, o.dir, "/x");
	TT_CHECK_EQ(t, o.threads, 1);
	TT_CHECK_EQ(t, o.ops, 5);
	TT_CHECK_EQ(t, o.bs, 4096);
	TT_CHECK_EQ(t, o.file_size, 1u << 20);
	TT_CHECK(t, o.duration == 0);
	TT_CHECK(t, o.tag == NULL);
}

static void t_args_all(struct tt *t)
{
	struct fb_opts o;
	char err[128];

	TT_REQUIRE(t, PARSE(&o, err, "--workload=fdatasync", "--dir=/d", "--threads=64",
			    "--duration", "2.5", "--bs", "8k", "--file-size=2M", "--tag", "a:b") == 0);
	TT_CHECK_EQ(t, o.workload, FB_FDATASYNC);
	TT_CHECK_EQ(t, o.threads, 64);
	TT_CHECK(t, o.duration == 2.5);
	TT_CHECK_EQ(t, o.ops, 0);
	TT_CHECK_EQ(t, o.bs, 8192);
	TT_CHECK_EQ(t, o.file_size, 2u << 20);
	TT_CHECK_STR(t, o.tag, "a:b");
	TT_CHECK_EQ(t, o.think_us, 0);
	TT_REQUIRE(t, PARSE(&o, err, "--workload", "create", "--dir", "d", "--ops", "1",
			    "--think-us", "2000") == 0);
	TT_CHECK_EQ(t, o.think_us, 2000);
	TT_REQUIRE(t, PARSE(&o, err, "--workload", "create", "--dir", "d", "--ops", "1",
			    "--think-us=1000000") == 0);
	TT_CHECK_EQ(t, o.think_us, 1000000);
	TT_REQUIRE(t, PARSE(&o, err, "--workload", "meta", "--dir", "d", "--ops", "1") == 0);
	TT_CHECK_EQ(t, o.workload, FB_META);
	TT_REQUIRE(t, PARSE(&o, err, "--workload", "osync", "--dir", "d", "--ops", "1") == 0);
	TT_CHECK_EQ(t, o.workload, FB_OSYNC);
	TT_CHECK_STR(t, fb_workload_name(FB_OSYNC), "osync");
	TT_CHECK_EQ(t, o.files, 16);
	TT_REQUIRE(t, PARSE(&o, err, "--workload", "unpack", "--dir", "d", "--ops", "1",
			    "--files=1024") == 0);
	TT_CHECK_EQ(t, o.workload, FB_UNPACK);
	TT_CHECK_EQ(t, o.files, 1024);
}

static void t_args_help(struct tt *t)
{
	struct fb_opts o;
	char err[128];

	TT_CHECK_EQ(t, PARSE(&o, err, "--help"), 1);
	TT_CHECK_EQ(t, PARSE(&o, err, "--workload", "append", "-h"), 1);
}

static void t_args_bad(struct tt *t)
{
	struct fb_opts o;
	char err[128];

	TT_CHECK_EQ(t, PARSE(&o, err, "--dir", "d", "--ops", "1"), -1);
	TT_CHECK_CONTAINS(t, err, "--workload is required");
	TT_CHECK_EQ(t, PARSE(&o, err, "--workload", "append", "--ops", "1"), -1);
	TT_CHECK_CONTAINS(t, err, "--dir is required");
	TT_CHECK_EQ(t, PARSE(&o, err, "--workload", "append", "--dir", "d"), -1);
	TT_CHECK_CONTAINS(t, err, "exactly one");
	TT_CHECK_EQ(t, PARSE(&o, err, "--workload", "append", "--dir", "d", "--ops", "1",
			     "--duration", "1"), -1);
	TT_CHECK_CONTAINS(t, err, "exactly one");
	TT_CHECK_EQ(t, PARSE(&o, err, "--workload", "sync", "--dir", "d", "--ops", "1"), -1);
	TT_CHECK_CONTAINS(t, err, "unknown workload");
	TT_CHECK_EQ(t, PARSE(&o, err, "--workload", "unpack", "--dir", "d", "--ops", "1",
			     "--files", "1025"), -1);
	TT_CHECK_CONTAINS(t, err, "bad --files");
	TT_CHECK_EQ(t, PARSE(&o, err, "--workload", "unpack", "--dir", "d", "--ops", "1",
			     "--files", "0"), -1);
	TT_CHECK_EQ(t, PARSE(&o, err, "--workload", "append", "--dir", "d", "--ops", "1",
			     "--threads", "0"), -1);
	TT_CHECK_EQ(t, PARSE(&o, err, "--workload", "append", "--dir", "d", "--ops", "1",
			     "--threads", "257"), -1);
	TT_CHECK_EQ(t, PARSE(&o, err, "--workload", "append", "--dir", "d", "--ops", "1",
			     "--threads", "1k"), -1);
	TT_CHECK_EQ(t, PARSE(&o, err, "--workload", "append", "--dir", "d", "--ops", "-3"), -1);
	TT_CHECK_EQ(t, PARSE(&o, err, "--workload", "append", "--dir", "d", "--ops", "3x"), -1);
	TT_CHECK_EQ(t, PARSE(&o, err, "--workload", "append", "--dir", "d", "--duration", "0"), -1);
	TT_CHECK_EQ(t, PARSE(&o, err, "--workload", "append", "--dir", "d", "--duration", "nan"), -1);
	TT_CHECK_EQ(t, PARSE(&o, err, "--workload", "append", "--dir", "d", "--ops", "1",
			     "--bs", "0"), -1);
	TT_CHECK_EQ(t, PARSE(&o, err, "--workload", "append", "--dir", "d", "--ops", "1",
			     "--tag", "a b"), -1);
	TT_CHECK_EQ(t, PARSE(&o, err, "--workload", "append", "--dir", "d", "--ops", "1",
			     "--think-us", "1000001"), -1);
	TT_CHECK_CONTAINS(t, err, "bad --think-us");
	TT_CHECK_EQ(t, PARSE(&o, err, "--workload", "append", "--dir", "d", "--ops", "1",
			     "--think-us", "-1"), -1);
	TT_CHECK_EQ(t, PARSE(&o, err, "--workload", "append", "--dir", "d", "--ops", "1",
			     "--think-us", "2ms"), -1);
	TT_CHECK_EQ(t, PARSE(&o, err, "--workload", "fdatasync", "--dir", "d", "--ops", "1",
			     "--bs", "8k", "--file-size", "4k"), -1);
	TT_CHECK_EQ(t, PARSE(&o, err, "--workload", "append", "--dir", "d", "--ops"), -1);
	TT_CHECK_CONTAINS(t, err, "needs a value");
	TT_CHECK_EQ(t, PARSE(&o, err, "--workload", "append", "--dir", "d", "--ops", "1", "x"), -1);
	TT_CHECK_CONTAINS(t, err, "unexpected argument");
	TT_CHECK_EQ(t, PARSE(&o, err, "--workload", "append", "--dir", "d", "--ops", "1", "--fast", "1"), -1);
	TT_CHECK_CONTAINS(t, err, "unknown option");
}

static void t_hist_index(struct tt *t)
{
	/* Exact region, then every bucket holds [low, high], contiguous. */
	for (uint64_t v = 0; v < 16; v++)
		TT_CHECK_EQ(t, fb_hist_index(v), v);
	TT_CHECK_EQ(t, fb_hist_index(16), 16);
	TT_CHECK_EQ(t, fb_hist_index(17), 16);
	TT_CHECK_EQ(t, fb_hist_index(18), 17);
	TT_CHECK_EQ(t, fb_hist_index(31), 23);
	TT_CHECK_EQ(t, fb_hist_index(32), 24);
	TT_CHECK_EQ(t, fb_hist_index(UINT64_MAX), FB_HIST_BUCKETS - 1);
	for (unsigned int i = 0; i + 1 < FB_HIST_BUCKETS; i++) {
		TT_CHECK_EQ(t, fb_hist_high(i) + 1, fb_hist_low(i + 1));
		TT_CHECK_EQ(t, fb_hist_index(fb_hist_low(i)), i);
		TT_CHECK_EQ(t, fb_hist_index(fb_hist_high(i)), i);
	}
	/* Relative width at most 1/8 above the exact region. */
	for (unsigned int i = 16; i + 1 < FB_HIST_BUCKETS; i++)
		TT_CHECK(t, (fb_hist_high(i) - fb_hist_low(i) + 1) * 8 <= fb_hist_low(i));
}

static void t_hist_quantile(struct tt *t)
{
	struct fb_hist h = { 0 }, h2 = { 0 };

	TT_CHECK_EQ(t, fb_hist_quantile(&h, 0.5), 0);
	for (uint64_t v = 1; v <= 100; v++)
		fb_hist_add(&h, v * 1000);	/* 1..100 us */
	TT_CHECK_EQ(t, h.n, 100);
	TT_CHECK_EQ(t, h.max, 100000);
	/* p50 is the 50th value (50 us) rounded up to its bucket: < +12.5%. */
	uint64_t p50 = fb_hist_quantile(&h, 0.5), p99 = fb_hist_quantile(&h, 0.99);
	TT_CHECK(t, p50 >= 50000 && p50 < 50000 * 9 / 8);
	TT_CHECK(t, p99 >= 99000 && p99 <= 100000);
	TT_CHECK_EQ(t, fb_hist_quantile(&h, 1.0), 100000);	/* capped at max */
	TT_CHECK(t, fb_hist_quantile(&h, 0.0) >= 1000 && fb_hist_quantile(&h, 0.0) < 1125);
	/* One slow outlier in 1000 samples shows in the max, not in p99. */
	for (int i = 0; i < 999; i++)
		fb_hist_add(&h2, 2000);
	fb_hist_add(&h2, 8000000);
	TT_CHECK(t, fb_hist_quantile(&h2, 0.99) < 2250);
	TT_CHECK_EQ(t, fb_hist_quantile(&h2, 1.0), 8000000);
	/* Merge adds counts, keeps the max. */
	fb_hist_merge(&h2, &h);
	TT_CHECK_EQ(t, h2.n, 1100);
	TT_CHECK_EQ(t, h2.max, 8000000);
	TT_CHECK_EQ(t, h2.sum, 999 * 2000 + 8000000 + 5050 * 1000);
}

static char *scratch(struct tt *t)
{
	static char dir[64];

	snprintf(dir, sizeof(dir), "%s/fsyncbench-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!TT_CHECK(t, mkdtemp(dir) != NULL))
		return NULL;
	return dir;
}

static void run_one(struct tt *t, enum fb_workload w, unsigned int threads,
		    uint64_t syncs_per_op)
{
	struct fb_opts o = { .workload = w, .threads = threads, .ops = 5,
			     .bs = 1000, .file_size = 4096 };
	struct fb_result res;
	char line[512];

	TT_REQUIRE(t, (o.dir = scratch(t)) != NULL);
	TT_REQUIRE(t, fb_run(&o, &res) == 0);
	TT_CHECK_EQ(t, res.ops, 5 * threads);
	TT_CHECK_EQ(t, res.syncs, 5 * threads * syncs_per_op);
	TT_CHECK_EQ(t, res.hist.n, res.ops);
	fb_format(&o, &res, line, sizeof(line));
	TT_CHECK_CONTAINS(t, line, "ops=");
	TT_CHECK_CONTAINS(t, line, "p99_us=");
	TT_CHECK_CONTAINS(t, line, "errno=0");
}

static void t_run_append(struct tt *t) { run_one(t, FB_APPEND, 4, 1); }

static void t_run_append_size(struct tt *t)
{
	struct fb_opts o = { .workload = FB_APPEND, .threads = 2, .ops = 7, .bs = 100 };
	struct fb_result res;
	struct stat st;
	char path[128];

	TT_REQUIRE(t, (o.dir = scratch(t)) != NULL);
	TT_REQUIRE(t, fb_run(&o, &res) == 0);
	snprintf(path, sizeof(path), "%s/fb-append-1", o.dir);
	TT_REQUIRE(t, stat(path, &st) == 0);
	TT_CHECK_EQ(t, st.st_size, 700);
}

static void t_run_meta(struct tt *t) { run_one(t, FB_META, 3, 2); }
static void t_run_create(struct tt *t) { run_one(t, FB_CREATE, 2, 2); }
static void t_run_fdatasync(struct tt *t) { run_one(t, FB_FDATASYNC, 2, 1); }
static void t_run_osync(struct tt *t) { run_one(t, FB_OSYNC, 2, 1); }

static void t_run_unpack(struct tt *t)
{
	struct fb_opts o = { .workload = FB_UNPACK, .threads = 2, .ops = 3,
			     .bs = 100, .files = 4 };
	struct fb_result res;
	struct stat st;
	char path[128];

	TT_REQUIRE(t, (o.dir = scratch(t)) != NULL);
	TT_REQUIRE(t, fb_run(&o, &res) == 0);
	TT_CHECK_EQ(t, res.ops, 6);
	TT_CHECK_EQ(t, res.syncs, 6 * 5);
	snprintf(path, sizeof(path), "%s/fb-unpack-1-3", o.dir);
	TT_REQUIRE(t, stat(path, &st) == 0);
	TT_CHECK_EQ(t, st.st_size, 100);
	snprintf(path, sizeof(path), "%s/fb-unpack-1-3.tmp", o.dir);
	TT_CHECK(t, stat(path, &st) < 0 && errno == ENOENT);
}

static void t_run_prepare(struct tt *t)
{
	struct fb_opts o = { .workload = FB_FDATASYNC, .threads = 2, .bs = 512,
			     .file_size = 8192, .prepare_only = true };
	struct fb_result res;
	struct stat st;
	char path[128];
	char err[64];

	TT_REQUIRE(t, (o.dir = scratch(t)) != NULL);
	TT_REQUIRE(t, fb_run(&o, &res) == 0);
	TT_CHECK_EQ(t, res.ops, 0);
	TT_CHECK_EQ(t, res.syncs, 0);
	snprintf(path, sizeof(path), "%s/fb-fdatasync-1", o.dir);
	TT_REQUIRE(t, stat(path, &st) == 0);
	TT_CHECK_EQ(t, st.st_size, 8192);
	o.prepare_only = false;
	o.ops = 20;
	TT_REQUIRE(t, fb_run(&o, &res) == 0);
	TT_CHECK_EQ(t, res.syncs, 40);
	TT_REQUIRE(t, stat(path, &st) == 0);
	TT_CHECK_EQ(t, st.st_size, 8192);	/* overwrites only */
	TT_REQUIRE(t, PARSE(&o, err, "--workload", "append", "--dir", "d", "--prepare-only") == 0);
	TT_CHECK(t, o.prepare_only);
}

static void t_run_duration(struct tt *t)
{
	struct fb_opts o = { .workload = FB_APPEND, .threads = 2, .duration = 0.2, .bs = 10 };
	struct fb_result res;

	TT_REQUIRE(t, (o.dir = scratch(t)) != NULL);
	TT_REQUIRE(t, fb_run(&o, &res) == 0);
	TT_CHECK(t, res.secs >= 0.2 && res.secs < 5);
	TT_CHECK(t, res.ops > 0);
}

/* Runs share no state: a duration run after an op-count run that was
 * stopped early still runs, and 64 threads start together. */
static void t_run_independent(struct tt *t)
{
	struct fb_opts o = { .workload = FB_APPEND, .threads = 64, .ops = 2, .bs = 10 };
	struct fb_result res;

	TT_REQUIRE(t, (o.dir = scratch(t)) != NULL);
	TT_REQUIRE(t, fb_run(&o, &res) == 0);
	TT_CHECK_EQ(t, res.ops, 128);
	o.ops = 0;
	o.duration = 0.1;
	o.threads = 3;
	TT_REQUIRE(t, fb_run(&o, &res) == 0);
	TT_CHECK(t, res.ops > 0);
	TT_CHECK(t, res.secs >= 0.1);
}

/* A thread that cannot prepare its file ends a long run at once. */
static void t_run_prepare_fails(struct tt *t)
{
	struct fb_opts o = { .workload = FB_APPEND, .threads = 2, .duration = 60, .bs = 10 };
	struct fb_result res;
	char path[128];

	TT_REQUIRE(t, (o.dir = scratch(t)) != NULL);
	snprintf(path, sizeof(path), "%s/fb-append-1", o.dir);
	TT_REQUIRE(t, mkdir(path, 0755) == 0);	/* open(O_WRONLY) fails: EISDIR */
	TT_CHECK_EQ(t, fb_run(&o, &res), -1);
	TT_CHECK_EQ(t, res.err, EISDIR);
	TT_CHECK_STR(t, res.failed, "open");
	TT_CHECK(t, res.secs < 10);
}

static void t_run_baddir(struct tt *t)
{
	struct fb_opts o = { .workload = FB_APPEND, .threads = 1, .ops = 1, .bs = 10,
			     .dir = "/nonexistent/fsyncbench" };
	struct fb_result res;

	TT_CHECK_EQ(t, fb_run(&o, &res), -1);
	TT_CHECK(t, res.err != 0);
}

static int run_bin(const char *args)
{
	const char *bin = getenv("TOOLS_BIN");
	char cmd[512];
	int st;

	snprintf(cmd, sizeof(cmd), "%s/fsyncbench %s >/dev/null 2>&1", bin ? bin : ".", args);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void t_exit_codes(struct tt *t)
{
	char args[256];
	char *dir;

	if (!getenv("TOOLS_BIN"))
		return;	/* run outside run-tests.sh */
	TT_REQUIRE(t, (dir = scratch(t)) != NULL);
	TT_CHECK_EQ(t, run_bin("--help"), 0);
	TT_CHECK_EQ(t, run_bin("--workload nope --dir /tmp --ops 1"), 2);
	TT_CHECK_EQ(t, run_bin("--workload append --dir /nonexistent/x --ops 1"), 1);
	snprintf(args, sizeof(args), "--workload append --dir %s --ops 3 --threads 2", dir);
	TT_CHECK_EQ(t, run_bin(args), 0);
}

static const struct tt_case cases[] = {
	TT_CASE(t_args_defaults), TT_CASE(t_args_all), TT_CASE(t_args_help),
	TT_CASE(t_args_bad), TT_CASE(t_hist_index), TT_CASE(t_hist_quantile),
	TT_CASE(t_run_append), TT_CASE(t_run_append_size), TT_CASE(t_run_meta), TT_CASE(t_run_create),
	TT_CASE(t_run_fdatasync), TT_CASE(t_run_osync), TT_CASE(t_run_unpack), TT_CASE(t_run_prepare), TT_CASE(t_run_duration),
	TT_CASE(t_run_independent), TT_CASE(t_run_prepare_fails),
	TT_CASE(t_run_baddir), TT_CASE(t_exit_codes), { 0 }
};

int main(int argc, char **argv)
{
	const struct tt_suite suites[] = { { "fsyncbench", cases }, { 0 } };

	return tt_main(argc, argv, suites);
}
