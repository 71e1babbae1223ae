// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for crashwork: records, the oracle, the workloads run in a
 * scratch directory, and the checker on damage of every kind it must see.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/dm-ioctl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tinytest.h"
#include "../check.h"
#include "../dmmark.h"
#include "../oracle.h"
#include "../record.h"
#include "../workload.h"

struct scratch {
	char dir[64];
	char work[96];
	char oracle[96];
};

static void scratch_make(struct tt *t, struct scratch *s)
{
	snprintf(s->dir, sizeof(s->dir), "/tmp/crashwork-test-XXXXXX");
	TT_REQUIRE(t, mkdtemp(s->dir) != NULL);
	snprintf(s->work, sizeof(s->work), "%s/fs", s->dir);
	snprintf(s->oracle, sizeof(s->oracle), "%s/oracle", s->dir);
	TT_REQUIRE(t, mkdir(s->work, 0755) == 0);
}

static void scratch_remove(struct scratch *s)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", s->dir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", s->dir);
}

static int run_workload(struct scratch *s, const char *name,
			unsigned long ops, unsigned int threads)
{
	struct cw_work work = {
		.ops = ops, .threads = threads, .seed = 7,
		.lock = PTHREAD_MUTEX_INITIALIZER,
	};
	int ret;

	work.dirfd = open(s->work, O_RDONLY | O_DIRECTORY);
	work.oracle = fopen(s->oracle, "a");
	if (work.dirfd < 0 || !work.oracle)
		return -1;
	ret = cw_workload_find(name)->run(&work);
	fclose(work.oracle);
	close(work.dirfd);
	return ret;
}

/* Check the scratch fs against the promises made up to @upto. */
static struct cw_check check_upto(struct tt *t, struct scratch *s,
				  const char *upto)
{
	struct cw_check check = { .max_report = 5 };
	struct cw_oracle oracle;

	check.dirfd = open(s->work, O_RDONLY | O_DIRECTORY);
	if (!TT_CHECK(t, cw_oracle_load(&oracle, s->oracle, upto) == 0))
		return check;
	TT_CHECK(t, cw_check_promises(&check, &oracle) == 0);
	TT_CHECK(t, cw_scan_files(&check, s->work) == 0);
	cw_oracle_free(&oracle);
	close(check.dirfd);
	return check;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* Records */

static void t_record_roundtrip(struct tt *t)
{
	struct cw_record_id id = { 11, 22, 33, 44 }, got;
	static char buf[CW_RECORD_SIZE];

	cw_record_fill(buf, &id);
	TT_REQUIRE(t, cw_record_parse(buf, &got) == CW_RECORD_VALID);
	TT_CHECK_EQ(t, got.pathid, 11);
	TT_CHECK_EQ(t, got.fileid, 22);
	TT_CHECK_EQ(t, got.index, 33);
	TT_CHECK_EQ(t, got.gen, 44);
}

static void t_record_damage(struct tt *t)
{
	struct cw_record_id id = { 1, 2, 3, 4 }, got;
	static char buf[CW_RECORD_SIZE];

	memset(buf, 0, sizeof(buf));
	TT_CHECK(t, cw_record_parse(buf, &got) == CW_RECORD_ZERO);
	cw_record_fill(buf, &id);
	/* A sector of another write (a torn record) anywhere is caught. */
	for (int off = 0; off < CW_RECORD_SIZE; off += 512) {
		buf[off + 100] ^= 1;
		TT_CHECK(t, cw_record_parse(buf, &got) == CW_RECORD_GARBAGE);
		buf[off + 100] ^= 1;
	}
	TT_CHECK(t, cw_record_parse(buf, &got) == CW_RECORD_VALID);
}

static void t_record_order(struct tt *t)
{
	struct cw_record_id want = { .fileid = 5, .gen = 3 };
	struct cw_record_id older = { .fileid = 5, .gen = 2 };
	struct cw_record_id newer = { .fileid = 5, .gen = 4 };
	struct cw_record_id replaced = { .fileid = 6, .gen = 1 };
	struct cw_record_id previous = { .fileid = 4, .gen = 9 };

	TT_CHECK(t, cw_record_newer_or_same(&want, &want));
	TT_CHECK(t, cw_record_newer_or_same(&newer, &want));
	TT_CHECK(t, cw_record_newer_or_same(&replaced, &want));
	TT_CHECK(t, !cw_record_newer_or_same(&older, &want));
	TT_CHECK(t, !cw_record_newer_or_same(&previous, &want));
}

/* Oracle */

static void t_oracle_upto(struct tt *t)
{
	struct scratch s;
	struct cw_oracle o;

	scratch_make(t, &s);
	write_file(s.oracle, "dir d1\nmark m1\ndata f 3 0 2 1\nabsent g\n"
		   "mark m2\ndir d3\n");
	TT_CHECK(t, cw_oracle_load(&o, s.oracle, "m1") == 0);
	TT_CHECK_EQ(t, o.nr, 4);
	TT_CHECK_EQ(t, cw_oracle_due(&o), 1);
	cw_oracle_free(&o);
	TT_CHECK(t, cw_oracle_load(&o, s.oracle, "m2") == 0);
	TT_CHECK_EQ(t, cw_oracle_due(&o), 3);
	TT_CHECK_EQ(t, o.promises[1].count, 2);
	cw_oracle_free(&o);
	/* Promises not yet closed by a mark were never acknowledged. */
	TT_CHECK(t, cw_oracle_load(&o, s.oracle, NULL) == 0);
	TT_CHECK_EQ(t, cw_oracle_due(&o), 3);
	TT_CHECK(t, !o.promises[3].due);
	cw_oracle_free(&o);
	TT_CHECK(t, cw_oracle_load(&o, s.oracle, "") == 0);
	TT_CHECK_EQ(t, cw_oracle_due(&o), 0);
	scratch_remove(&s);
}

/*
 * An operation whose sync failed is never due, not even when another
 * thread's mark follows it.
 */
static void t_oracle_failed_op(struct tt *t)
{
	struct scratch s;
	struct cw_oracle o;

	scratch_make(t, &s);
	write_file(s.oracle, "dir d1\nmark m1\nabsent f2\ndir d2\nfailed\n"
		   "dir d3\nmark m2\nfailed\ndir d4\n");
	TT_CHECK(t, cw_oracle_load(&o, s.oracle, NULL) == 0);
	TT_CHECK_EQ(t, o.nr, 5);
	TT_CHECK_EQ(t, cw_oracle_due(&o), 2);
	TT_CHECK(t, o.promises[0].due);
	TT_CHECK(t, !o.promises[1].due && !o.promises[2].due);
	TT_CHECK(t, o.promises[3].due);
	TT_CHECK(t, !o.promises[4].due);
	cw_oracle_free(&o);
	TT_CHECK(t, cw_oracle_load(&o, s.oracle, "m1") == 0);
	TT_CHECK_EQ(t, cw_oracle_due(&o), 1);
	cw_oracle_free(&o);
	scratch_remove(&s);
}

static void t_oracle_bad(struct tt *t)
{
	struct scratch s;
	struct cw_oracle o;

	scratch_make(t, &s);
	write_file(s.oracle, "dir d1\nmark m1\n");
	TT_CHECK(t, cw_oracle_load(&o, s.oracle, "m9") == -1);
	write_file(s.oracle, "dir d1\nbogus line\nmark m1\n");
	TT_CHECK(t, cw_oracle_load(&o, s.oracle, "m1") == -1);
	write_file(s.oracle, "data f 1 2\nmark m1\n");
	TT_CHECK(t, cw_oracle_load(&o, s.oracle, "m1") == -1);
	write_file(s.oracle, "dir d1\nfailed now\nmark m1\n");
	TT_CHECK(t, cw_oracle_load(&o, s.oracle, "m1") == -1);
	TT_CHECK(t, cw_oracle_load(&o, "/nonexistent/oracle", "m1") == -1);
	scratch_remove(&s);
}

/* Workloads and checker: clean runs pass, every kind of damage is seen. */

static void t_workloads_clean(struct tt *t)
{
	static const char *const names[] = { "append", "replace", "churn",
					     "dbsync", "owsync", "names",
					     "fcmix", "pkgsync" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct scratch s;
		struct cw_check c;

		scratch_make(t, &s);
		TT_CHECK(t, run_workload(&s, names[i], 30, 3) == 0);
		c = check_upto(t, &s, NULL);
		/* names promises empty files: nothing to read. */
		TT_CHECK(t, c.records > 0 || !strcmp(names[i], "names"));
		TT_CHECK_EQ(t, c.lost, 0);
		TT_CHECK_EQ(t, c.exposed, 0);
		scratch_remove(&s);
	}
}

static void t_check_truncated_append(struct tt *t)
{
	struct scratch s;
	char path[128];
	struct stat st;

	scratch_make(t, &s);
	TT_REQUIRE(t, run_workload(&s, "append", 10, 1) == 0);
	snprintf(path, sizeof(path), "%s/a0", s.work);
	TT_REQUIRE(t, stat(path, &st) == 0);
	TT_REQUIRE(t, truncate(path, st.st_size - CW_RECORD_SIZE) == 0);
	TT_CHECK(t, check_upto(t, &s, NULL).lost == 1);
	scratch_remove(&s);
}

static void t_check_upto_earlier_mark(struct tt *t)
{
	struct scratch s;
	char path[128];

	/* A crash before the last mark: the last append was not promised. */
	scratch_make(t, &s);
	TT_REQUIRE(t, run_workload(&s, "append", 2, 1) == 0);
	snprintf(path, sizeof(path), "%s/a0", s.work);
	TT_REQUIRE(t, truncate(path, 0) == 0);
	TT_CHECK(t, check_upto(t, &s, "").lost == 0);
	TT_CHECK(t, check_upto(t, &s, "m000001").lost > 0);
	scratch_remove(&s);
}

static void t_check_foreign_record(struct tt *t)
{
	struct cw_record_id other = { .pathid = cw_path_id("x"), .fileid = 99,
				      .index = 0, .gen = 1 };
	static char buf[CW_RECORD_SIZE];
	struct scratch s;
	struct cw_check c;
	char path[128];
	int fd;

	/* Another file's old data in a synced record: lost and exposed. */
	scratch_make(t, &s);
	TT_REQUIRE(t, run_workload(&s, "append", 5, 1) == 0);
	snprintf(path, sizeof(path), "%s/a0", s.work);
	fd = open(path, O_WRONLY);
	TT_REQUIRE(t, fd >= 0);
	cw_record_fill(buf, &other);
	TT_CHECK(t, pwrite(fd, buf, sizeof(buf), 0) == sizeof(buf));
	close(fd);
	c = check_upto(t, &s, NULL);
	TT_CHECK_EQ(t, c.lost, 1);
	TT_CHECK_EQ(t, c.exposed, 1);
	scratch_remove(&s);
}

static void t_check_exposed_unsynced(struct tt *t)
{
	static char buf[CW_RECORD_SIZE];
	struct scratch s;
	struct cw_check c;
	char path[128];
	int fd;

	/* Garbage in a file nobody synced: no promise broken, still exposed. */
	scratch_make(t, &s);
	TT_REQUIRE(t, run_workload(&s, "churn", 3, 1) == 0);
	snprintf(path, sizeof(path), "%s/unsynced", s.work);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	TT_REQUIRE(t, fd >= 0);
	memset(buf, 0x5a, sizeof(buf));
	TT_CHECK(t, write(fd, buf, sizeof(buf)) == sizeof(buf));
	close(fd);
	c = check_upto(t, &s, NULL);
	TT_CHECK_EQ(t, c.lost, 0);
	TT_CHECK_EQ(t, c.exposed, 1);
	scratch_remove(&s);
}

static void t_check_older_generation(struct tt *t)
{
	struct cw_record_id old = { .pathid = cw_path_id("db"), .index = 0,
				    .gen = 1 };
	static char buf[CW_RECORD_SIZE];
	struct cw_check c;
	struct scratch s;
	uint64_t latest;
	char path[128];
	int fd;

	/* Every record of db overwritten at least once, then one rolled back. */
	scratch_make(t, &s);
	TT_REQUIRE(t, run_workload(&s, "dbsync", 2000, 1) == 0);
	snprintf(path, sizeof(path), "%s/db", s.work);
	fd = open(path, O_RDWR);
	TT_REQUIRE(t, fd >= 0);
	TT_REQUIRE(t, pread(fd, buf, sizeof(buf), 0) == sizeof(buf));
	TT_REQUIRE(t, cw_record_parse(buf, &old) == CW_RECORD_VALID);
	TT_REQUIRE(t, old.gen > 1);
	latest = old.gen;
	old.gen = 1;
	cw_record_fill(buf, &old);
	TT_CHECK(t, pwrite(fd, buf, sizeof(buf), 0) == sizeof(buf));
	close(fd);
	/* Each fdatasync of generations 2..latest promised more than gen 1. */
	c = check_upto(t, &s, NULL);
	TT_CHECK_EQ(t, c.lost, latest - 1);
	TT_CHECK_EQ(t, c.exposed, 0);
	scratch_remove(&s);
}

static void t_check_names(struct tt *t)
{
	struct scratch s;
	char path[128];
	int fd;

	/* replace: u0 made at op 0, unlinked at op 2; d5 made at op 5. */
	scratch_make(t, &s);
	TT_REQUIRE(t, run_workload(&s, "replace", 8, 1) == 0);
	TT_CHECK_EQ(t, check_upto(t, &s, NULL).lost, 0);
	snprintf(path, sizeof(path), "%s/u0", s.work);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	TT_REQUIRE(t, fd >= 0);
	close(fd);
	TT_CHECK_EQ(t, check_upto(t, &s, NULL).lost, 1);
	TT_REQUIRE(t, unlink(path) == 0);
	snprintf(path, sizeof(path), "%s/d5", s.work);
	TT_REQUIRE(t, rmdir(path) == 0);
	TT_CHECK_EQ(t, check_upto(t, &s, NULL).lost, 1);
	scratch_remove(&s);
}

static void t_check_later_ops_not_yet_due(struct tt *t)
{
	static char junk[CW_RECORD_SIZE];
	struct scratch s;
	char path[128];
	int fd, removed = 0;

	/*
	 * A crash just after mark 1 may keep the unlinks and renames of later
	 * operations whose syncs had not returned: u0 gone, r* replaced by
	 * newer, shorter files. None of that breaks a promise due at mark 1.
	 */
	scratch_make(t, &s);
	TT_REQUIRE(t, run_workload(&s, "replace", 12, 1) == 0);
	TT_CHECK_EQ(t, check_upto(t, &s, "m000001").lost, 0);
	/* A rename over a name never leaves it missing, later or not. */
	for (int i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/r%d", s.work, i);
		removed += unlink(path) == 0;
	}
	TT_REQUIRE(t, removed > 0);
	TT_CHECK(t, check_upto(t, &s, "m000001").lost >= 1);
	/* Nor may a synced file hold garbage. */
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	TT_REQUIRE(t, fd >= 0);
	memset(junk, 0x77, sizeof(junk));
	TT_CHECK(t, write(fd, junk, sizeof(junk)) == sizeof(junk));
	close(fd);
	TT_CHECK(t, check_upto(t, &s, NULL).lost >= 1);
	scratch_remove(&s);
}

static void t_check_replaced_file_missing(struct tt *t)
{
	struct scratch s;
	char path[128];
	int lost = 0;

	scratch_make(t, &s);
	TT_REQUIRE(t, run_workload(&s, "replace", 12, 1) == 0);
	for (int i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/r%d", s.work, i);
		lost += unlink(path) == 0;
	}
	TT_REQUIRE(t, lost > 0);
	TT_CHECK_EQ(t, check_upto(t, &s, NULL).lost, lost);
	scratch_remove(&s);
}

static void t_check_names_workload(struct tt *t)
{
	struct scratch s;
	char path[128];
	int fd;

	/*
	 * names, 9 ops: f0 d1 (f0->g0, d1 gone) f3 d4 (f3->g3, d4 gone) f6
	 * d7 (f6->g6, d7 gone). After mark 2 (op 1) f0 and d1 are owed.
	 */
	scratch_make(t, &s);
	TT_REQUIRE(t, run_workload(&s, "names", 9, 1) == 0);
	TT_CHECK_EQ(t, check_upto(t, &s, NULL).lost, 0);
	snprintf(path, sizeof(path), "%s/g3", s.work);
	TT_REQUIRE(t, unlink(path) == 0);
	TT_CHECK_EQ(t, check_upto(t, &s, NULL).lost, 1);
	/* Not yet owed at mark 5 (op 4): the rename of op 5 was not synced. */
	TT_CHECK_EQ(t, check_upto(t, &s, "m000005").lost, 0);
	snprintf(path, sizeof(path), "%s/d7", s.work);
	TT_REQUIRE(t, mkdir(path, 0755) == 0);
	TT_CHECK_EQ(t, check_upto(t, &s, NULL).lost, 2);
	/* Before the rename of op 2 synced, f0 and d1 may be back. */
	snprintf(path, sizeof(path), "%s/f0", s.work);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	TT_REQUIRE(t, fd >= 0);
	close(fd);
	TT_CHECK_EQ(t, check_upto(t, &s, "m000002").lost, 0);
	TT_CHECK_EQ(t, check_upto(t, &s, "m000003").lost, 1);
	scratch_remove(&s);
}

/* A failed op's promises, unmarked at the end: it may have happened. */
static void t_check_pending_op(struct tt *t)
{
	struct scratch s;
	char from[128], to[128];
	FILE *f;

	scratch_make(t, &s);
	TT_REQUIRE(t, run_workload(&s, "names", 2, 1) == 0);
	snprintf(from, sizeof(from), "%s/f0", s.work);
	snprintf(to, sizeof(to), "%s/g0", s.work);
	TT_REQUIRE(t, rename(from, to) == 0);
	snprintf(from, sizeof(from), "%s/d1", s.work);
	TT_REQUIRE(t, rmdir(from) == 0);
	TT_CHECK_EQ(t, check_upto(t, &s, NULL).lost, 2);
	f = fopen(s.oracle, "a");
	TT_REQUIRE(t, f != NULL);
	fputs("absent f0\ndata g0 99 0 0 1\nabsent d1\nfailed\n", f);
	fclose(f);
	TT_CHECK_EQ(t, check_upto(t, &s, NULL).lost, 0);
	TT_CHECK_EQ(t, check_upto(t, &s, "m000002").lost, 0);
	/* Another thread's mark after it: still either outcome. */
	f = fopen(s.oracle, "a");
	TT_REQUIRE(t, f != NULL);
	fputs("mark m000003\n", f);
	fclose(f);
	TT_CHECK_EQ(t, check_upto(t, &s, NULL).lost, 0);
	scratch_remove(&s);
}

/* Arming: the values are written once, right after the given mark. */
static void t_arm_after_mark(struct tt *t)
{
	struct scratch s;
	struct cw_work work = {
		.ops = 6, .threads = 1, .seed = 7, .arm_after = 4, .nr_arm = 2,
		.lock = PTHREAD_MUTEX_INITIALIZER,
	};
	char knob[128], knob2[128], buf[16] = "";
	FILE *f;

	scratch_make(t, &s);
	snprintf(knob, sizeof(knob), "%s/knob", s.dir);
	snprintf(knob2, sizeof(knob2), "%s/knob2", s.dir);
	write_file(knob, "");
	write_file(knob2, "");
	work.arm[0] = (struct cw_arm){ knob, "-1" };
	work.arm[1] = (struct cw_arm){ knob2, "1" };
	work.dirfd = open(s.work, O_RDONLY | O_DIRECTORY);
	work.oracle = fopen(s.oracle, "a");
	TT_REQUIRE(t, work.dirfd >= 0 && work.oracle);
	TT_CHECK_EQ(t, cw_workload_find("replace")->run(&work), 0);
	fclose(work.oracle);
	close(work.dirfd);
	TT_CHECK_EQ(t, work.armed_at, 4);
	TT_CHECK_EQ(t, work.next_mark, 6);
	f = fopen(knob, "r");
	TT_REQUIRE(t, f != NULL);
	TT_CHECK(t, fgets(buf, sizeof(buf), f) && !strcmp(buf, "-1"));
	fclose(f);
	f = fopen(knob2, "r");
	TT_REQUIRE(t, f != NULL);
	TT_CHECK(t, fgets(buf, sizeof(buf), f) && !strcmp(buf, "1"));
	fclose(f);
	scratch_remove(&s);
}

/* A knob that cannot be written stops the run right there: exit 3. */
static void t_arm_fails(struct tt *t)
{
	struct scratch s;
	struct cw_work work = {
		.ops = 6, .threads = 1, .seed = 7, .arm_after = 2, .nr_arm = 1,
		.lock = PTHREAD_MUTEX_INITIALIZER,
	};
	struct cw_oracle o;

	scratch_make(t, &s);
	work.arm[0] = (struct cw_arm){ "/nonexistent/knob", "1" };
	work.dirfd = open(s.work, O_RDONLY | O_DIRECTORY);
	work.oracle = fopen(s.oracle, "a");
	TT_REQUIRE(t, work.dirfd >= 0 && work.oracle);
	TT_CHECK_EQ(t, cw_workload_find("append")->run(&work), -1);
	fclose(work.oracle);
	close(work.dirfd);
	TT_CHECK_EQ(t, work.armed_at, 0);
	TT_CHECK_EQ(t, work.next_mark, 2);
	TT_CHECK(t, cw_oracle_load(&o, s.oracle, NULL) == 0);
	TT_CHECK_EQ(t, cw_oracle_due(&o), 2);
	cw_oracle_free(&o);
	scratch_remove(&s);
}

/* The command line: usage errors are exit 2 and say what is wrong. */
static int run_cli(const char *args)
{
	const char *bin = getenv("TOOLS_BIN");
	char cmd[512];
	int status;

	snprintf(cmd, sizeof(cmd), "%s/crashwork %s >/dev/null 2>&1",
		 bin ? bin : ".", args);
	status = system(cmd);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void t_cli_usage(struct tt *t)
{
	TT_CHECK_EQ(t, run_cli(""), 2);
	TT_CHECK_EQ(t, run_cli("--help"), 0);
	TT_CHECK_EQ(t, run_cli("explode"), 2);
	TT_CHECK_EQ(t, run_cli("run nosuchload --dir /tmp --oracle /tmp/o"), 2);
	TT_CHECK_EQ(t, run_cli("run append --dir /tmp"), 2);
	TT_CHECK_EQ(t, run_cli("run append --dir /tmp --oracle /tmp/o -t 0"), 2);
	TT_CHECK_EQ(t, run_cli("run append --dir /tmp --oracle /tmp/o -n x"), 2);
	TT_CHECK_EQ(t, run_cli("check --dir /nonexistent --oracle /nonexistent"), 3);
	TT_CHECK_EQ(t, run_cli("run append --dir /tmp --oracle /tmp/o -A 2"), 2);
	TT_CHECK_EQ(t, run_cli("run append --dir /tmp --oracle /tmp/o -a x=1"), 2);
	TT_CHECK_EQ(t, run_cli("run append --dir /tmp --oracle /tmp/o -A 0 -a x=1"), 2);
	TT_CHECK_EQ(t, run_cli("run append --dir /tmp --oracle /tmp/o -A 1 -a =1"), 2);
	TT_CHECK_EQ(t, run_cli("run append --dir /tmp --oracle /tmp/o -A 1 -a x"), 2);
}

/* From the command line: the summary line, and a fault never armed. */
static void t_cli_arm(struct tt *t)
{
	const char *bin = getenv("TOOLS_BIN");
	struct scratch s;
	char cmd[512], line[256] = "";
	FILE *p;
	int status;

	scratch_make(t, &s);
	snprintf(cmd, sizeof(cmd),
		 "touch %s/k && %s/crashwork run names --dir %s --oracle %s -n 5 "
		 "--arm-after 3 --arm %s/k=on", s.dir, bin ? bin : ".", s.work,
		 s.oracle, s.dir);
	p = popen(cmd, "r");
	TT_REQUIRE(t, p != NULL);
	TT_CHECK(t, fgets(line, sizeof(line), p) != NULL);
	status = pclose(p);
	TT_CHECK(t, WIFEXITED(status) && WEXITSTATUS(status) == 0);
	TT_CHECK(t, !strcmp(line, "crashwork: names: 5 marks, armed after m000003\n"));
	/* Fewer marks than --arm-after: the test would prove nothing. */
	snprintf(cmd, sizeof(cmd), "run names --dir %s --oracle %s -n 2 "
		 "--arm-after 3 --arm %s/k=on", s.work, s.oracle, s.dir);
	scratch_remove(&s);
	scratch_make(t, &s);
	TT_CHECK_EQ(t, run_cli(cmd), 3);
	scratch_remove(&s);
}

/* A mark is "mark NAME" for the target at sector 0 of the named device. */
static void t_dm_message_format(struct tt *t)
{
	union {
		struct dm_ioctl io;
		char bytes[512];
	} buf;
	struct dm_target_msg *msg = (void *)(buf.bytes + sizeof(buf.io));
	char name[DM_NAME_LEN + 1];

	TT_REQUIRE(t, cw_dm_message_format(&buf, sizeof(buf), "lw",
					   "mark m000001") == 0);
	TT_CHECK_EQ(t, buf.io.version[0], DM_VERSION_MAJOR);
	TT_CHECK_EQ(t, buf.io.data_start, sizeof(buf.io));
	TT_CHECK_EQ(t, buf.io.data_size, sizeof(buf));
	TT_CHECK_STR(t, buf.io.name, "lw");
	TT_CHECK_EQ(t, msg->sector, 0);
	TT_CHECK_STR(t, msg->message, "mark m000001");
	/* A device name dm would truncate, a message that does not fit. */
	memset(name, 'x', DM_NAME_LEN);
	name[DM_NAME_LEN] = 0;
	errno = 0;
	TT_CHECK_EQ(t, cw_dm_message_format(&buf, sizeof(buf), name, "mark a"), -1);
	TT_CHECK_EQ(t, errno, EINVAL);
	TT_CHECK_EQ(t, cw_dm_message_format(&buf, sizeof(buf.io) + 8, "lw",
					    "mark m000001"), -1);
}

/* Not a device-mapper control node: an error, never a silent success. */
static void t_dm_mark_fails(struct tt *t)
{
	errno = 0;
	TT_CHECK_EQ(t, cw_dm_mark("/dev/null", "lw", "m000001"), -1);
	TT_CHECK(t, errno == ENOTTY || errno == EINVAL);
	TT_CHECK_EQ(t, cw_dm_mark("/nonexistent/control", "lw", "m1"), -1);
	TT_CHECK_EQ(t, errno, ENOENT);
}

static const struct tt_case record_cases[] = {
	TT_CASE(t_record_roundtrip),
	TT_CASE(t_record_damage),
	TT_CASE(t_record_order),
	{ 0 },
};

static const struct tt_case oracle_cases[] = {
	TT_CASE(t_oracle_upto),
	TT_CASE(t_oracle_failed_op),
	TT_CASE(t_oracle_bad),
	{ 0 },
};

static const struct tt_case check_cases[] = {
	TT_CASE(t_workloads_clean),
	TT_CASE(t_check_truncated_append),
	TT_CASE(t_check_upto_earlier_mark),
	TT_CASE(t_check_foreign_record),
	TT_CASE(t_check_exposed_unsynced),
	TT_CASE(t_check_older_generation),
	TT_CASE(t_check_names),
	TT_CASE(t_check_later_ops_not_yet_due),
	TT_CASE(t_check_replaced_file_missing),
	TT_CASE(t_check_names_workload),
	TT_CASE(t_check_pending_op),
	TT_CASE(t_arm_after_mark),
	TT_CASE(t_arm_fails),
	TT_CASE(t_cli_usage),
	TT_CASE(t_cli_arm),
	TT_CASE(t_dm_message_format),
	TT_CASE(t_dm_mark_fails),
	{ 0 },
};

int main(int argc, char **argv)
{
	const struct tt_suite suites[] = {
		{ "crashwork-record", record_cases },
		{ "crashwork-oracle", oracle_cases },
		{ "crashwork-check", check_cases },
		{ 0 },
	};

	return tt_main(argc, argv, suites);
}
