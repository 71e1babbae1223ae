// SPDX-License-Identifier: GPL-2.0
/*
 * Crash workloads: each one syncs, then records what the sync promised in
 * the oracle and writes a mark into the dm-log-writes log, in that order
 * and under one lock, so that a crash point after mark N keeps every
 * promise listed before "mark N".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "dmmark.h"
#include "record.h"
#include "workload.h"

/* Promises of one operation, handed to cw_commit() after its syncs. */
struct cw_promises {
	char text[1024];
	size_t len;
};

static uint64_t cw_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void cw_promise(struct cw_promises *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	p->len += vsnprintf(p->text + p->len, sizeof(p->text) - p->len, fmt, ap);
	va_end(ap);
	if (p->len >= sizeof(p->text))
		abort();	/* a workload promising this much is a bug */
}

static uint64_t cw_new_fileid(struct cw_work *work)
{
	uint64_t id;

	pthread_mutex_lock(&work->lock);
	id = ++work->next_fileid;
	pthread_mutex_unlock(&work->lock);
	return id;
}

static int cw_fail(struct cw_work *work, const char *what, const char *path)
{
	bool sync = !strcmp(what, "fsync") || !strcmp(what, "fdatasync");
	int err = errno;

	fprintf(stderr, "crashwork: %s %s: %s\n", what, path, strerror(err));
	pthread_mutex_lock(&work->lock);
	/*
	 * The run reports its first failure, but the first failed sync
	 * over any other: with threads, another one may hit the aborted
	 * journal (EROFS) before the sync that saw the fault returns.
	 */
	if (!work->error || (sync && !work->sync_failed)) {
		work->error = err;
		work->error_call = what;
		work->sync_failed = sync;
	}
	pthread_mutex_unlock(&work->lock);
	return -1;
}

/* Write each armed value to its file: the fault starts here. */
static int cw_arm_fault(struct cw_work *work)
{
	for (unsigned int i = 0; i < work->nr_arm; i++) {
		const struct cw_arm *a = &work->arm[i];
		size_t len = strlen(a->value);
		int fd = open(a->path, O_WRONLY);

		if (fd < 0 || write(fd, a->value, len) != (ssize_t)len) {
			fprintf(stderr, "crashwork: cannot arm %s=%s: %s\n",
				a->path, a->value, strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
		close(fd);
	}
	work->armed_at = work->next_mark;
	return 0;
}

/*
 * Publish what the syncs that just returned promised, then mark the log.
 * Both under the lock, so the oracle's order is the log's order.
 */
static int cw_commit(struct cw_work *work, const struct cw_promises *p)
{
	char name[32];
	int ret = 0;

	pthread_mutex_lock(&work->lock);
	snprintf(name, sizeof(name), "m%06lu", ++work->next_mark);
	fprintf(work->oracle, "%.*smark %s\n", (int)p->len, p->text, name);
	fflush(work->oracle);
	if (work->mark_target &&
	    cw_dm_mark(CW_DM_CONTROL, work->mark_target, name)) {
		fprintf(stderr, "crashwork: cannot mark %s in %s: %s\n", name,
			work->mark_target, strerror(errno));
		ret = -1;
	}
	/* A fault armed after mark N: promises up to mark N are owed. */
	if (!ret && work->arm_after && work->next_mark == work->arm_after &&
	    cw_arm_fault(work))
		ret = -1;
	pthread_mutex_unlock(&work->lock);
	return ret;
}

/*
 * An operation whose sync failed was never acknowledged, but what it did
 * before may have reached the disk (a rename, an unlink): write its
 * promises closed by "failed", so the checker accepts either outcome
 * whatever mark another thread writes next.
 */
static void cw_pending(struct cw_work *work, const struct cw_promises *p)
{
	pthread_mutex_lock(&work->lock);
	fprintf(work->oracle, "%.*sfailed\n", (int)p->len, p->text);
	fflush(work->oracle);
	pthread_mutex_unlock(&work->lock);
}

static int cw_write_records(struct cw_work *work, int fd, const char *name,
			    const struct cw_record_id *first, uint64_t count)
{
	static __thread char buf[CW_RECORD_SIZE] __attribute__((aligned(64)));
	struct cw_record_id id = *first;

	for (; id.index < first->index + count; id.index++) {
		cw_record_fill(buf, &id);
		if (pwrite(fd, buf, sizeof(buf), id.index * CW_RECORD_SIZE) !=
		    sizeof(buf))
			return cw_fail(work, "write", name);
	}
	return 0;
}

static int cw_sync(struct cw_work *work, int fd, const char *name, int data)
{
	if ((data ? fdatasync(fd) : fsync(fd)) == 0)
		return 0;
	return cw_fail(work, data ? "fdatasync" : "fsync", name);
}

static int cw_sync_dir(struct cw_work *work)
{
	return cw_sync(work, work->dirfd, ".", 0);
}

/* Write @count records of a new file @name (written for @final), synced. */
static int cw_create_file(struct cw_work *work, const char *name,
			  const char *final, uint64_t fileid, uint64_t count)
{
	struct cw_record_id id = {
		.pathid = cw_path_id(final), .fileid = fileid, .gen = 1,
	};
	int fd, ret;

	fd = openat(work->dirfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return cw_fail(work, "create", name);
	ret = cw_write_records(work, fd, name, &id, count);
	if (!ret)
		ret = cw_sync(work, fd, name, 0);
	close(fd);
	return ret;
}

/* One of the -t threads of a workload: its number and its result. */
struct cw_worker {
	struct cw_work *work;
	unsigned int nr;
	int ret;
};

/* Run @fn in work->threads threads (at most 64); -1 if any failed. */
static int cw_run_threads(struct cw_work *work, void *(*fn)(void *))
{
	unsigned int n = work->threads ? work->threads : 1;
	struct cw_worker w[64];
	pthread_t tid[64];
	int ret = 0;

	if (n > 64)
		n = 64;
	for (unsigned int i = 0; i < n; i++) {
		w[i] = (struct cw_worker){ .work = work, .nr = i };
		if (pthread_create(&tid[i], NULL, fn, &w[i])) {
			n = i;
			ret = -1;
			break;
		}
	}
	for (unsigned int i = 0; i < n; i++) {
		pthread_join(tid[i], NULL);
		ret |= w[i].ret;
	}
	return ret;
}

/* Create thread @nr's own file, @prefix and its number, for @id. */
static int cw_create_own_file(struct cw_work *work, char prefix,
			      unsigned int nr, char *name, size_t size,
			      struct cw_record_id *id)
{
	snprintf(name, size, "%c%u", prefix, nr);
	id->pathid = cw_path_id(name);
	id->fileid = cw_new_fileid(work);
	return openat(work->dirfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
}

/* (a) append + fsync on several files; one thread per file with -t. */
static void *cw_append_thread(void *arg)
{
	struct cw_worker *a = arg;
	struct cw_work *work = a->work;
	uint64_t rng = work->seed ^ (0x1000ULL * (a->nr + 1));
	struct cw_record_id id = { .gen = 1 };
	char name[16];
	int fd;

	fd = cw_create_own_file(work, 'a', a->nr, name, sizeof(name), &id);
	if (fd < 0 || cw_sync(work, fd, name, 0) || cw_sync_dir(work)) {
		a->ret = fd < 0 ? cw_fail(work, "create", name) : -1;
		goto out;
	}
	for (unsigned long op = 0; op < work->ops && !a->ret; op++) {
		struct cw_promises p = { .len = 0 };
		uint64_t count = 1 + cw_rand(&rng) % 4;

		a->ret = cw_write_records(work, fd, name, &id, count);
		if (!a->ret)
			a->ret = cw_sync(work, fd, name, 0);
		if (a->ret)
			break;
		cw_promise(&p, "data %s %" PRIu64 " %" PRIu64 " %" PRIu64 " 1\n",
			   name, id.fileid, id.index, count);
		a->ret = cw_commit(work, &p);
		id.index += count;
	}
out:
	if (fd >= 0)
		close(fd);
	return NULL;
}

static int cw_run_append(struct cw_work *work)
{
	return cw_run_threads(work, cw_append_thread);
}

/*
 * (b) the atomic-replace pattern: write x.tmp, fsync it, rename it over x,
 * fsync the directory. Also create and later unlink files, and mkdir.
 */
static int cw_replace_op(struct cw_work *work, uint64_t *rng, unsigned long op,
			 struct cw_promises *p)
{
	char name[24], tmp[32];
	uint64_t fileid = cw_new_fileid(work);
	uint64_t count = 1 + cw_rand(rng) % 3;

	snprintf(name, sizeof(name), "r%u", (unsigned int)(cw_rand(rng) % 4));
	snprintf(tmp, sizeof(tmp), "%s.tmp", name);
	if (cw_create_file(work, tmp, name, fileid, count))
		return -1;
	if (renameat(work->dirfd, tmp, work->dirfd, name))
		return cw_fail(work, "rename", tmp);
	cw_promise(p, "data %s %" PRIu64 " 0 %" PRIu64 " 1\n", name, fileid,
		   count);

	if (op % 4 == 0) {
		snprintf(name, sizeof(name), "u%lu", op);
		fileid = cw_new_fileid(work);
		if (cw_create_file(work, name, name, fileid, 1))
			return -1;
		cw_promise(p, "data %s %" PRIu64 " 0 1 1\n", name, fileid);
	}
	if (op % 4 == 2) {
		snprintf(name, sizeof(name), "u%lu", op - 2);
		if (unlinkat(work->dirfd, name, 0))
			return cw_fail(work, "unlink", name);
		cw_promise(p, "absent %s\n", name);
	}
	if (op % 8 == 5) {
		snprintf(name, sizeof(name), "d%lu", op);
		if (mkdirat(work->dirfd, name, 0755))
			return cw_fail(work, "mkdir", name);
		cw_promise(p, "dir %s\n", name);
	}
	/* One directory fsync makes the rename, create, unlink, mkdir stick. */
	return cw_sync_dir(work);
}

static int cw_run_replace(struct cw_work *work)
{
	uint64_t rng = work->seed;

	for (unsigned long op = 0; op < work->ops; op++) {
		struct cw_promises p = { .len = 0 };

		if (cw_replace_op(work, &rng, op, &p)) {
			cw_pending(work, &p);
			return -1;
		}
		if (cw_commit(work, &p))
			return -1;
	}
	return 0;
}

/*
 * (c) many small synced transactions, for a filesystem with the smallest
 * journal: create a one-record file, unlink the one made 8 ops earlier.
 */
static int cw_run_churn(struct cw_work *work)
{
	for (unsigned long op = 0; op < work->ops; op++) {
		struct cw_promises p = { .len = 0 };
		uint64_t fileid = cw_new_fileid(work);
		char name[24];

		snprintf(name, sizeof(name), "w%lu", op);
		if (cw_create_file(work, name, name, fileid, 1))
			return -1;
		cw_promise(&p, "data %s %" PRIu64 " 0 1 1\n", name, fileid);
		if (op >= 8) {
			snprintf(name, sizeof(name), "w%lu", op - 8);
			if (unlinkat(work->dirfd, name, 0))
				return cw_fail(work, "unlink", name);
			cw_promise(&p, "absent %s\n", name);
		}
		if (cw_sync_dir(work)) {
			cw_pending(work, &p);
			return -1;
		}
		if (cw_commit(work, &p))
			return -1;
	}
	return 0;
}

/*
 * (f) metadata only: create empty files, mkdir, rename, rmdir, each op
 * made durable by one directory fsync. No data block is written in place,
 * so with journal checksums every commit may be checksum-ordered. With -t
 * the threads share the directory, each with its own names (prefix "N."),
 * so that their fsyncs meet in the journal.
 */
static int cw_names_op(struct cw_work *work, const char *pfx,
		       unsigned long op, struct cw_promises *p)
{
	char name[48], old[48];
	int fd;

	switch (op % 3) {
	case 0:
		snprintf(name, sizeof(name), "f%s%lu", pfx, op);
		fd = openat(work->dirfd, name, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0)
			return cw_fail(work, "create", name);
		close(fd);
		cw_promise(p, "data %s %" PRIu64 " 0 0 1\n", name,
			   cw_new_fileid(work));
		break;
	case 1:
		snprintf(name, sizeof(name), "d%s%lu", pfx, op);
		if (mkdirat(work->dirfd, name, 0755))
			return cw_fail(work, "mkdir", name);
		cw_promise(p, "dir %s\n", name);
		break;
	case 2:
		/* f(op-2) becomes g(op-2); d(op-1) goes. */
		snprintf(old, sizeof(old), "f%s%lu", pfx, op - 2);
		snprintf(name, sizeof(name), "g%s%lu", pfx, op - 2);
		if (renameat(work->dirfd, old, work->dirfd, name))
			return cw_fail(work, "rename", old);
		cw_promise(p, "absent %s\ndata %s %" PRIu64 " 0 0 1\n", old,
			   name, cw_new_fileid(work));
		snprintf(name, sizeof(name), "d%s%lu", pfx, op - 1);
		if (unlinkat(work->dirfd, name, AT_REMOVEDIR))
			return cw_fail(work, "rmdir", name);
		cw_promise(p, "absent %s\n", name);
		break;
	}
	return cw_sync_dir(work);
}

static void *cw_names_thread(void *arg)
{
	struct cw_worker *w = arg;
	struct cw_work *work = w->work;
	char pfx[16] = "";

	if (work->threads > 1)
		snprintf(pfx, sizeof(pfx), "%u.", w->nr);
	for (unsigned long op = 0; op < work->ops; op++) {
		struct cw_promises p = { .len = 0 };

		if (cw_names_op(work, pfx, op, &p)) {
			cw_pending(work, &p);
			w->ret = -1;
			break;
		}
		if (cw_commit(work, &p)) {
			w->ret = -1;
			break;
		}
	}
	return NULL;
}

static int cw_run_names(struct cw_work *work)
{
	return cw_run_threads(work, cw_names_thread);
}

/*
 * (g) fast-commit ineligibility under load: with -t 2 or more, thread 0
 * sets an xattr on its own file and fsyncs the directory, over and over.
 * An xattr change makes ext4's fast commits ineligible until a full commit
 * of its transaction; the directory fsync forces one through jbd2 (ext4
 * fast-commits regular files only), so the flag stays set while that
 * commit runs. The other threads create files and fsync them, so their
 * changes and fast commits race with those full commits. Thread 0 pauses 10 ms after each fsync, so that the next
 * transactions can be eligible again (a new xattr change right away would
 * send every fsync to a full commit). It promises only that its file exists.
 */
static void *cw_xattr_thread(void *arg)
{
	struct cw_worker *a = arg;
	struct cw_work *work = a->work;
	const struct timespec pause = { .tv_nsec = 10 * 1000 * 1000 };
	uint64_t fileid = cw_new_fileid(work);
	int fd;

	fd = openat(work->dirfd, "x", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		a->ret = cw_fail(work, "create", "x");
		return NULL;
	}
	for (unsigned long op = 0; op < work->ops && !a->ret; op++) {
		struct cw_promises p = { .len = 0 };

		if (fsetxattr(fd, "user.crashwork", &op, sizeof(op), 0)) {
			a->ret = cw_fail(work, "setxattr", "x");
			break;
		}
		a->ret = cw_sync_dir(work);
		if (a->ret)
			break;
		cw_promise(&p, "data x %" PRIu64 " 0 0 1\n", fileid);
		a->ret = cw_commit(work, &p);
		nanosleep(&pause, NULL);
	}
	close(fd);
	return NULL;
}

/*
 * The other threads of (g): create a new file, write 1-4 records, fsync
 * the file (not the directory: ext4 makes the new name durable with the
 * file, and a fast commit records it as a dentry update).
 */
static void *cw_create_thread(void *arg)
{
	struct cw_worker *a = arg;
	struct cw_work *work = a->work;
	uint64_t rng = work->seed ^ (0x1000ULL * (a->nr + 1));

	for (unsigned long op = 0; op < work->ops && !a->ret; op++) {
		struct cw_promises p = { .len = 0 };
		uint64_t fileid = cw_new_fileid(work);
		uint64_t count = 1 + cw_rand(&rng) % 4;
		char name[32];

		snprintf(name, sizeof(name), "c%u.%lu", a->nr, op);
		a->ret = cw_create_file(work, name, name, fileid, count);
		if (a->ret)
			break;
		cw_promise(&p, "data %s %" PRIu64 " 0 %" PRIu64 " 1\n", name,
			   fileid, count);
		a->ret = cw_commit(work, &p);
	}
	return NULL;
}

static void *cw_fcmix_thread(void *arg)
{
	struct cw_worker *a = arg;

	if (a->nr == 0 && a->work->threads > 1)
		return cw_xattr_thread(arg);
	return cw_create_thread(arg);
}

static int cw_run_fcmix(struct cw_work *work)
{
	return cw_run_threads(work, cw_fcmix_thread);
}

/* (e) the database pattern: overwrite records of a preallocated file. */
#define CW_DB_RECORDS	64

static int cw_run_dbsync(struct cw_work *work)
{
	struct cw_record_id id = { .pathid = cw_path_id("db"), .gen = 1 };
	uint64_t gen[CW_DB_RECORDS], rng = work->seed;
	struct cw_promises p = { .len = 0 };
	int fd, ret = -1;

	id.fileid = cw_new_fileid(work);
	fd = openat(work->dirfd, "db", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return cw_fail(work, "create", "db");
	if (fallocate(fd, 0, 0, CW_DB_RECORDS * CW_RECORD_SIZE)) {
		cw_fail(work, "fallocate", "db");
		goto out;
	}
	if (cw_write_records(work, fd, "db", &id, CW_DB_RECORDS) ||
	    cw_sync(work, fd, "db", 0) || cw_sync_dir(work))
		goto out;
	cw_promise(&p, "data db %" PRIu64 " 0 %d 1\n", id.fileid, CW_DB_RECORDS);
	if (cw_commit(work, &p))
		goto out;
	for (int i = 0; i < CW_DB_RECORDS; i++)
		gen[i] = 1;
	for (unsigned long op = 0; op < work->ops; op++) {
		id.index = cw_rand(&rng) % CW_DB_RECORDS;
		id.gen = ++gen[id.index];
		p.len = 0;
		if (cw_write_records(work, fd, "db", &id, 1) ||
		    cw_sync(work, fd, "db", 1))
			goto out;
		cw_promise(&p, "data db %" PRIu64 " %" PRIu64 " 1 %" PRIu64 "\n",
			   id.fileid, id.index, id.gen);
		if (cw_commit(work, &p))
			goto out;
	}
	ret = 0;
out:
	close(fd);
	return ret;
}

/*
 * (d') in-place overwrites + fsync; one file per thread (-t), written in
 * full and synced first. Each fsync has a metadata change (the mtime) to
 * commit but no block to allocate: nothing orders its data write before
 * the commit's cache flush except the order the fsync does things in.
 */
static void *cw_owsync_thread(void *arg)
{
	struct cw_worker *a = arg;
	struct cw_work *work = a->work;
	uint64_t rng = work->seed ^ (0x2000ULL * (a->nr + 1));
	uint64_t gen[CW_DB_RECORDS];
	struct cw_record_id id = { .gen = 1 };
	struct cw_promises p = { .len = 0 };
	char name[16];
	int fd;

	fd = cw_create_own_file(work, 'o', a->nr, name, sizeof(name), &id);
	if (fd < 0) {
		a->ret = cw_fail(work, "create", name);
		return NULL;
	}
	a->ret = cw_write_records(work, fd, name, &id, CW_DB_RECORDS);
	if (!a->ret && (cw_sync(work, fd, name, 0) || cw_sync_dir(work)))
		a->ret = -1;
	if (!a->ret) {
		cw_promise(&p, "data %s %" PRIu64 " 0 %d 1\n", name, id.fileid,
			   CW_DB_RECORDS);
		a->ret = cw_commit(work, &p);
	}
	for (int i = 0; i < CW_DB_RECORDS; i++)
		gen[i] = 1;
	for (unsigned long op = 0; op < work->ops && !a->ret; op++) {
		id.index = cw_rand(&rng) % CW_DB_RECORDS;
		id.gen = ++gen[id.index];
		p.len = 0;
		a->ret = cw_write_records(work, fd, name, &id, 1);
		if (!a->ret)
			a->ret = cw_sync(work, fd, name, 0);
		if (a->ret)
			break;
		cw_promise(&p, "data %s %" PRIu64 " %" PRIu64 " 1 %" PRIu64 "\n",
			   name, id.fileid, id.index, id.gen);
		a->ret = cw_commit(work, &p);
	}
	close(fd);
	return NULL;
}

static int cw_run_owsync(struct cw_work *work)
{
	return cw_run_threads(work, cw_owsync_thread);
}

/*
 * (h) a package manager's syncs over files that already exist: overwrite
 * a record of each of CW_PKG_FILES files and start its writeback
 * (sync_file_range()), then fdatasync each one and promise its record.
 * Nothing is allocated, so only cache flushes make the records durable;
 * the first fdatasync sends one, and ext4 lets a later one go without if
 * its write completed before that flush was sent (ext4_fsync_flush()). A
 * write that completed while the flush was in flight is not covered.
 * Every other round the first file is fsynced instead: that commits the
 * files' new mtimes, and the commit's own flush is the one that may cover
 * the later fdatasyncs.
 */
#define CW_PKG_FILES	8
#define CW_PKG_RECORDS	16

static int cw_run_pkgsync(struct cw_work *work)
{
	uint64_t gen[CW_PKG_FILES][CW_PKG_RECORDS], rng = work->seed;
	struct cw_record_id id[CW_PKG_FILES];
	struct cw_promises p = { .len = 0 };
	char name[CW_PKG_FILES][16];
	int fd[CW_PKG_FILES], n, i, ret = -1;

	for (n = 0; n < CW_PKG_FILES; n++) {
		id[n] = (struct cw_record_id){ .gen = 1 };
		fd[n] = cw_create_own_file(work, 'p', n, name[n], sizeof(name[n]),
					   &id[n]);
		if (fd[n] < 0) {
			cw_fail(work, "create", name[n]);
			goto out;
		}
		if (cw_write_records(work, fd[n], name[n], &id[n], CW_PKG_RECORDS) ||
		    cw_sync(work, fd[n], name[n], 0)) {
			n++;
			goto out;
		}
		cw_promise(&p, "data %s %" PRIu64 " 0 %d 1\n", name[n],
			   id[n].fileid, CW_PKG_RECORDS);
		for (i = 0; i < CW_PKG_RECORDS; i++)
			gen[n][i] = 1;
	}
	if (cw_sync_dir(work) || cw_commit(work, &p))
		goto out;
	for (unsigned long op = 0; op < work->ops; op++) {
		for (i = 0; i < n; i++) {
			id[i].index = cw_rand(&rng) % CW_PKG_RECORDS;
			id[i].gen = ++gen[i][id[i].index];
			if (cw_write_records(work, fd[i], name[i], &id[i], 1))
				goto out;
			if (sync_file_range(fd[i], 0, 0, SYNC_FILE_RANGE_WRITE)) {
				cw_fail(work, "sync_file_range", name[i]);
				goto out;
			}
		}
		for (i = 0; i < n; i++) {
			bool commit = i == 0 && op % 2 == 0;

			if (cw_sync(work, fd[i], name[i], !commit))
				goto out;
			p.len = 0;
			cw_promise(&p, "data %s %" PRIu64 " %" PRIu64 " 1 %" PRIu64 "\n",
				   name[i], id[i].fileid, id[i].index, id[i].gen);
			if (cw_commit(work, &p))
				goto out;
		}
	}
	ret = 0;
out:
	for (i = 0; i < n; i++)
		close(fd[i]);
	return ret;
}

const struct cw_workload cw_workloads[] = {
	{ "append", "append + fsync; one file per thread (-t)", cw_run_append },
	{ "replace", "write tmp, fsync, rename over, fsync dir; unlink, mkdir",
	  cw_run_replace },
	{ "churn", "create + fsync dir, unlink older; wraps a small journal",
	  cw_run_churn },
	{ "dbsync", "fdatasync overwrites of a preallocated file", cw_run_dbsync },
	{ "owsync", "in-place overwrite + fsync; one file per thread (-t)",
	  cw_run_owsync },
	{ "names", "create empty, mkdir, rename, rmdir + fsync dir: metadata only; one name prefix per thread (-t)",
	  cw_run_names },
	{ "fcmix", "create + write + fsync the file; with -t thread 0 sets an xattr + fsync dir instead (fast-commit ineligible)",
	  cw_run_fcmix },
	{ "pkgsync", "overwrite a record of each of 8 files + start writeback, then fdatasync each (fsync the first every other round)",
	  cw_run_pkgsync },
	{ NULL, NULL, NULL },
};

const struct cw_workload *cw_workload_find(const char *name)
{
	for (const struct cw_workload *w = cw_workloads; w->name; w++)
		if (!strcmp(w->name, name))
			return w;
	return NULL;
}
