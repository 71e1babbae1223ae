// SPDX-License-Identifier: GPL-2.0
/*
 * Checking a recovered filesystem against the oracle.
 *
 * Two properties, reported separately:
 *  - lost: a promise made before the crash point does not hold (a synced
 *    record is missing, older than promised, or not what was written; a
 *    synced directory is missing; an unlinked name is back);
 *  - exposed: a file holds a record that no write to that file put there
 *    (a torn record, garbage, or another file's old data), which is what
 *    replaying metadata before its data reached the media looks like.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "record.h"

#define CW_NO_RECORD UINT64_MAX

/* Count a problem; print the first max_report of them. */
static void cw_report(struct cw_check *check, unsigned long *counter,
		      const char *what, const char *path, uint64_t index,
		      const char *why)
{
	(*counter)++;
	if (check->reported++ >= check->max_report)
		return;
	if (index == CW_NO_RECORD)
		fprintf(stderr, "%s: %s: %s\n", what, path, why);
	else
		fprintf(stderr, "%s: %s record %" PRIu64 ": %s\n", what, path,
			index, why);
}

/* Why record @index of @path does not satisfy @want, or NULL if it does. */
static const char *cw_record_problem(int fd, const struct cw_record_id *want)
{
	static char buf[CW_RECORD_SIZE] __attribute__((aligned(64)));
	struct cw_record_id have;
	ssize_t got;

	got = pread(fd, buf, sizeof(buf), want->index * CW_RECORD_SIZE);
	if (got < 0)
		return "read error";
	if (got < (ssize_t)sizeof(buf))
		return "file too short";
	switch (cw_record_parse(buf, &have)) {
	case CW_RECORD_ZERO:
		return "zeroes instead of synced data";
	case CW_RECORD_GARBAGE:
		return "torn or foreign content";
	case CW_RECORD_VALID:
		break;
	}
	if (have.pathid != want->pathid || have.index != want->index)
		return "another file's or record's data";
	if (!cw_record_newer_or_same(&have, want))
		return "older than synced";
	return NULL;
}

/* Does @path hold, as record 0, a file written for it after @fileid? */
static bool cw_replaced_later(int fd, const struct cw_record_id *want)
{
	static char buf[CW_RECORD_SIZE] __attribute__((aligned(64)));
	struct cw_record_id have;

	if (pread(fd, buf, sizeof(buf), 0) != sizeof(buf) ||
	    cw_record_parse(buf, &have) != CW_RECORD_VALID)
		return false;
	return have.pathid == want->pathid && have.index == 0 &&
	       have.fileid > want->fileid;
}

/* Operations after the crash point's mark that may have reached media. */
enum cw_later_op {
	CW_LATER_NONE,
	CW_LATER_REPLACE,	/* a rename over the name: a newer file or @p */
	CW_LATER_UNLINK,	/* the name may be gone */
};

static void cw_check_data(struct cw_check *check, const struct cw_promise *p,
			  enum cw_later_op later_op)
{
	struct cw_record_id want = {
		.pathid = cw_path_id(p->path),
		.fileid = p->fileid,
		.gen = p->gen,
	};
	int fd = openat(check->dirfd, p->path, O_RDONLY);

	if (fd < 0) {
		if (later_op != CW_LATER_UNLINK)
			cw_report(check, &check->lost, "lost", p->path,
				  CW_NO_RECORD, "synced file is missing");
		return;
	}
	if (later_op != CW_LATER_NONE && cw_replaced_later(fd, &want)) {
		close(fd);
		return;
	}
	for (want.index = p->first; want.index < p->first + p->count; want.index++) {
		const char *why = cw_record_problem(fd, &want);

		if (why)
			cw_report(check, &check->lost, "lost", p->path,
				  want.index, why);
		check->records++;
	}
	close(fd);
}

static void cw_check_name(struct cw_check *check, const struct cw_promise *p,
			  enum cw_later_op later_op)
{
	struct stat st;
	int ret = fstatat(check->dirfd, p->path, &st, AT_SYMLINK_NOFOLLOW);

	/* A directory removed by a later operation may be gone already. */
	if (p->kind == CW_PROMISE_DIR && ret && later_op == CW_LATER_UNLINK)
		return;
	if (p->kind == CW_PROMISE_DIR && (ret || !S_ISDIR(st.st_mode)))
		cw_report(check, &check->lost, "lost", p->path, CW_NO_RECORD,
			  "synced directory is missing");
	if (p->kind == CW_PROMISE_ABSENT && !ret)
		cw_report(check, &check->lost, "lost", p->path, CW_NO_RECORD,
			  "unlinked name came back");
}

static int cw_by_path_then_seq(const void *a, const void *b)
{
	const struct cw_promise *p = *(const struct cw_promise * const *)a;
	const struct cw_promise *q = *(const struct cw_promise * const *)b;
	int ret = strcmp(p->path, q->path);

	if (ret)
		return ret;
	return p->seq < q->seq ? -1 : p->seq > q->seq;
}

/*
 * Does a later promise about the same name replace @p? An unlink does, and
 * so does a data promise for another file (renamed over the name). Later
 * records of the same file (appends, overwrites) add to @p instead.
 */
static bool cw_superseded(const struct cw_promise *p,
			  const struct cw_promise *later)
{
	if (later->kind == CW_PROMISE_ABSENT)
		return true;
	return later->kind == CW_PROMISE_DATA && p->kind == CW_PROMISE_DATA &&
	       later->fileid != p->fileid;
}

/*
 * Check every due promise that no later due promise about its name
 * replaced. A replacing operation that was not yet due may or may not
 * have reached the media: accept either outcome.
 */
int cw_check_promises(struct cw_check *check, const struct cw_oracle *oracle)
{
	const struct cw_promise **sorted;
	size_t i, j;

	sorted = calloc(oracle->nr ? oracle->nr : 1, sizeof(*sorted));
	if (!sorted)
		return -1;
	for (i = 0; i < oracle->nr; i++)
		sorted[i] = &oracle->promises[i];
	qsort(sorted, oracle->nr, sizeof(*sorted), cw_by_path_then_seq);

	for (i = 0; i < oracle->nr; i++) {
		const struct cw_promise *p = sorted[i];
		enum cw_later_op later_op = CW_LATER_NONE;
		bool replaced = false;

		if (!p->due)
			continue;
		for (j = i + 1; j < oracle->nr && !replaced &&
		     !strcmp(sorted[j]->path, p->path); j++) {
			if (!cw_superseded(p, sorted[j]))
				continue;
			if (sorted[j]->due)
				replaced = true;
			else if (sorted[j]->kind == CW_PROMISE_ABSENT)
				later_op = CW_LATER_UNLINK;
			else if (later_op == CW_LATER_NONE)
				later_op = CW_LATER_REPLACE;
		}
		if (replaced)
			continue;
		if (p->kind == CW_PROMISE_DATA)
			cw_check_data(check, p, later_op);
		else
			cw_check_name(check, p, later_op);
	}
	free(sorted);
	return 0;
}

/* The name a file's records were written for: "x.tmp" is written for "x". */
static uint64_t cw_expected_pathid(const char *relpath)
{
	char name[CW_PATH_MAX * 2];
	size_t len;

	snprintf(name, sizeof(name), "%s", relpath);
	len = strlen(name);
	if (len > 4 && !strcmp(name + len - 4, ".tmp"))
		name[len - 4] = '\0';
	return cw_path_id(name);
}

/* Why a record found in a file was not written there, or NULL. */
static const char *cw_scan_problem(const void *buf, uint64_t pathid,
				   uint64_t index)
{
	struct cw_record_id id;

	switch (cw_record_parse(buf, &id)) {
	case CW_RECORD_ZERO:
		return NULL;
	case CW_RECORD_GARBAGE:
		return "torn or foreign content";
	case CW_RECORD_VALID:
		break;
	}
	if (id.pathid != pathid || id.index != index)
		return "another file's or record's data";
	return NULL;
}

static void cw_scan_file(struct cw_check *check, const char *relpath,
			 off_t size)
{
	static char buf[CW_RECORD_SIZE] __attribute__((aligned(64)));
	uint64_t pathid = cw_expected_pathid(relpath);
	int fd = openat(check->dirfd, relpath, O_RDONLY);

	if (fd < 0)
		return;
	for (uint64_t i = 0; i < (uint64_t)size / CW_RECORD_SIZE; i++) {
		const char *why = NULL;

		if (pread(fd, buf, sizeof(buf), i * CW_RECORD_SIZE) != sizeof(buf))
			why = "read error";
		else
			why = cw_scan_problem(buf, pathid, i);
		if (why)
			cw_report(check, &check->exposed, "exposed", relpath,
				  i, why);
	}
	close(fd);
}

/* nftw() has no user pointer: the walk is single-threaded, one at a time. */
static struct cw_check *cw_walk_check;
static size_t cw_walk_prefix;

static int cw_walk_one(const char *path, const struct stat *st, int type,
		       struct FTW *ftw)
{
	(void)ftw;
	if (type == FTW_F && S_ISREG(st->st_mode) &&
	    strlen(path) > cw_walk_prefix)
		cw_scan_file(cw_walk_check, path + cw_walk_prefix, st->st_size);
	return 0;
}

int cw_scan_files(struct cw_check *check, const char *dir)
{
	int ret;

	cw_walk_check = check;
	cw_walk_prefix = strlen(dir) + 1;
	ret = nftw(dir, cw_walk_one, 16, FTW_PHYS | FTW_MOUNT);
	cw_walk_check = NULL;
	if (ret)
		perror(dir);
	return ret;
}
