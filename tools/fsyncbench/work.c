// SPDX-License-Identifier: GPL-2.0
/*
 * The workloads. Each thread works on its own file(s) in the directory;
 * an operation is timed from its first call to the return of its last
 * sync:
 *   append     write(bs) at the end of the thread's file, fsync
 *   meta       create tmp, write(bs), fsync, rename over the thread's
 *              file, fsync the directory (2 syncs per op)
 *   create     the same without the write (metadata-only commits)
 *   fdatasync  overwrite bs in a preallocated (written, synced) file,
 *              sequentially and wrapping, fdatasync
 *   osync      write(bs) at the end of a file opened O_SYNC
 *   unpack     write(bs) to each of N new tmp files and start its
 *              writeback, then fsync each and rename it into place,
 *              then fsync the directory (N + 1 syncs per op)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "work.h"

/*
 * State shared by the threads of one fb_run(): the start gate and the stop
 * flag live here, not in globals, so runs are independent of each other.
 */
struct fb_ctx {
	const struct fb_opts *o;
	int dirfd;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int ready;	/* threads done preparing, waiting at the gate */
	bool go;		/* the gate is open (the clock has started) */
	atomic_bool stop;	/* duration over, or a thread failed */
};

struct fb_thread {
	pthread_t tid;
	unsigned int id;
	struct fb_ctx *ctx;
	const struct fb_opts *o;
	int dirfd, fd;
	char *buf;
	uint64_t ops, syncs;
	struct fb_hist hist;
	int err;
	const char *failed;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#define CALL(th, what, expr) \
	do { if ((expr) < 0) { (th)->err = errno; (th)->failed = (what); return -1; } } while (0)

static int write_all(struct fb_thread *th, int fd, off_t off, bool append)
{
	size_t done = 0;

	while (done < th->o->bs) {
		ssize_t n = append ? write(fd, th->buf + done, th->o->bs - done)
				   : pwrite(fd, th->buf + done, th->o->bs - done,
					    off + (off_t)done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			th->err = errno;
			th->failed = "write";
			return -1;
		}
		done += (size_t)n;
	}
	return 0;
}

/* Files before the start line: not measured. */
static int prepare(struct fb_thread *th)
{
	const struct fb_opts *o = th->o;
	char name[64];
	int flags = O_WRONLY | O_CREAT | O_TRUNC | O_APPEND;
	struct stat st;

	if (o->workload == FB_META || o->workload == FB_CREATE ||
	    o->workload == FB_UNPACK)
		return 0;
	if (o->workload == FB_OSYNC)
		flags |= O_SYNC;
	if (o->workload == FB_FDATASYNC)
		flags = O_WRONLY | O_CREAT;	/* a file prepared earlier is reused */
	snprintf(name, sizeof(name), "fb-%s-%u", fb_workload_name(o->workload), th->id);
	CALL(th, "open", th->fd = openat(th->dirfd, name, flags, 0644));
	CALL(th, "fstat", fstat(th->fd, &st));
	if (o->workload == FB_FDATASYNC && st.st_size < (off_t)o->file_size) {
		for (off_t off = 0; off + (off_t)o->bs <= (off_t)o->file_size; off += (off_t)o->bs)
			if (write_all(th, th->fd, off, false))
				return -1;
		CALL(th, "fsync", fsync(th->fd));
	}
	return 0;
}

/*
 * unpack: how a package manager installs files. Writing all of them and
 * starting their writeback first lets their blocks be allocated in one
 * transaction, so the first fsync commits them all and the later ones
 * only need their data on media.
 */
static int unpack_op(struct fb_thread *th)
{
	const struct fb_opts *o = th->o;
	char tmp[64], final[64];
	int fds[FB_MAX_FILES];
	unsigned int n, i;
	int ret = -1;

	for (n = 0; n < o->files; n++) {
		snprintf(tmp, sizeof(tmp), "fb-unpack-%u-%u.tmp", th->id, n);
		fds[n] = openat(th->dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fds[n] < 0) {
			th->failed = "open";
			goto fail;
		}
		/* On failure from here on, n++: fds[n] is open, close it too. */
		if (write_all(th, fds[n], 0, true)) {
			n++;
			goto out;	/* write_all() recorded the error */
		}
		if (sync_file_range(fds[n], 0, 0, SYNC_FILE_RANGE_WRITE) < 0) {
			th->failed = "sync_file_range";
			n++;
			goto fail;
		}
	}
	for (i = 0; i < n; i++) {
		snprintf(tmp, sizeof(tmp), "fb-unpack-%u-%u.tmp", th->id, i);
		snprintf(final, sizeof(final), "fb-unpack-%u-%u", th->id, i);
		if (fsync(fds[i]) < 0) {
			th->failed = "fsync";
			goto fail;
		}
		th->syncs++;
		if (renameat(th->dirfd, tmp, th->dirfd, final) < 0) {
			th->failed = "rename";
			goto fail;
		}
	}
	if (fsync(th->dirfd) < 0) {
		th->failed = "fsync dir";
		goto fail;
	}
	th->syncs++;
	ret = 0;
	goto out;
fail:
	th->err = errno;
out:
	for (i = 0; i < n; i++)
		close(fds[i]);
	return ret;
}

static int one_op(struct fb_thread *th)
{
	const struct fb_opts *o = th->o;
	char tmp[64], final[64];
	off_t off;
	int fd;

	switch (o->workload) {
	case FB_APPEND:
		if (write_all(th, th->fd, 0, true))
			return -1;
		CALL(th, "fsync", fsync(th->fd));
		th->syncs++;
		break;
	case FB_META:
	case FB_CREATE:
		snprintf(tmp, sizeof(tmp), "fb-%s-%u.tmp", fb_workload_name(o->workload), th->id);
		snprintf(final, sizeof(final), "fb-%s-%u", fb_workload_name(o->workload), th->id);
		CALL(th, "open", fd = openat(th->dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644));
		/* create: no data, so every commit is metadata only */
		if (o->workload == FB_META && write_all(th, fd, 0, true)) {
			close(fd);
			return -1;
		}
		if (fsync(fd) < 0) {
			th->err = errno;
			th->failed = "fsync";
			close(fd);
			return -1;
		}
		close(fd);
		CALL(th, "rename", renameat(th->dirfd, tmp, th->dirfd, final));
		CALL(th, "fsync dir", fsync(th->dirfd));
		th->syncs += 2;
		break;
	case FB_FDATASYNC:
		off = (off_t)((th->ops * o->bs) % (o->file_size - o->file_size % o->bs));
		if (write_all(th, th->fd, off, false))
			return -1;
		CALL(th, "fdatasync", fdatasync(th->fd));
		th->syncs++;
		break;
	case FB_OSYNC:
		if (write_all(th, th->fd, 0, true))
			return -1;
		th->syncs++;
		break;
	case FB_UNPACK:
		return unpack_op(th);
	}
	return 0;
}

/* Wait until every thread has prepared and main has taken the start time. */
static void gate_wait(struct fb_ctx *c)
{
	pthread_mutex_lock(&c->lock);
	c->ready++;
	pthread_cond_broadcast(&c->cond);
	while (!c->go)
		pthread_cond_wait(&c->cond, &c->lock);
	pthread_mutex_unlock(&c->lock);
}

static void gate_open(struct fb_ctx *c, unsigned int started, uint64_t *t0)
{
	pthread_mutex_lock(&c->lock);
	while (c->ready < started)
		pthread_cond_wait(&c->cond, &c->lock);
	*t0 = now_ns();
	c->go = true;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
}

/*
 * Pause between ops, outside the timed op: a thread that does not fsync
 * again at once, as in an application with work between its fsyncs.
 */
static void think(unsigned long us)
{
	struct timespec d = { .tv_sec = us / 1000000, .tv_nsec = (long)(us % 1000000) * 1000 };

	if (us)
		nanosleep(&d, NULL);
}

static void *thread_main(void *arg)
{
	struct fb_thread *th = arg;
	struct fb_ctx *c = th->ctx;
	int ready = prepare(th);

	if (ready)
		atomic_store(&c->stop, true);	/* the run has failed: end it */
	gate_wait(c);
	if (ready || th->o->prepare_only)
		return NULL;
	while (!atomic_load(&c->stop) && (!th->o->ops || th->ops < th->o->ops)) {
		uint64_t t0 = now_ns();

		if (one_op(th)) {
			atomic_store(&c->stop, true);
			break;
		}
		fb_hist_add(&th->hist, now_ns() - t0);
		th->ops++;
		think(th->o->think_us);
	}
	return NULL;
}

/* Sleep for the run's duration, or until a thread fails. */
static void wait_duration(struct fb_ctx *c, uint64_t t0)
{
	uint64_t end = t0 + (uint64_t)(c->o->duration * 1e9);

	for (;;) {
		uint64_t now = now_ns(), left;
		struct timespec d;

		if (now >= end || atomic_load(&c->stop))
			break;
		left = end - now;
		if (left > 10000000u)
			left = 10000000u;	/* look at stop every 10 ms */
		d.tv_sec = 0;
		d.tv_nsec = (long)left;
		nanosleep(&d, NULL);
	}
	atomic_store(&c->stop, true);
}

int fb_run(const struct fb_opts *o, struct fb_result *res)
{
	struct fb_ctx c = { .o = o, .dirfd = -1 };
	struct fb_thread *th;
	unsigned int started = 0;
	uint64_t t0;
	int ret = 0;

	memset(res, 0, sizeof(*res));
	th = calloc(o->threads, sizeof(*th));
	if (!th) {
		res->err = ENOMEM;
		res->failed = "calloc";
		return -1;
	}
	c.dirfd = open(o->dir, O_RDONLY | O_DIRECTORY);
	if (c.dirfd < 0) {
		res->err = errno;
		res->failed = "open dir";
		free(th);
		return -1;
	}
	pthread_mutex_init(&c.lock, NULL);
	pthread_cond_init(&c.cond, NULL);
	atomic_init(&c.stop, false);
	for (unsigned int i = 0; i < o->threads; i++) {
		int err;

		th[i] = (struct fb_thread){ .id = i, .ctx = &c, .o = o,
					    .dirfd = c.dirfd, .fd = -1 };
		th[i].buf = malloc(o->bs);
		if (!th[i].buf) {
			res->err = ENOMEM;
			res->failed = "malloc";
			break;
		}
		memset(th[i].buf, 'a' + (int)(i % 26), o->bs);
		th[i].buf[o->bs - 1] = '\n';
		err = pthread_create(&th[i].tid, NULL, thread_main, &th[i]);
		if (err) {
			free(th[i].buf);
			th[i].buf = NULL;
			res->err = err;
			res->failed = "pthread_create";
			break;
		}
		started++;
	}
	if (res->err) {
		ret = -1;
		atomic_store(&c.stop, true);	/* started threads do nothing */
	}
	gate_open(&c, started, &t0);
	if (!ret && !o->ops && !o->prepare_only)
		wait_duration(&c, t0);
	for (unsigned int i = 0; i < started; i++)
		pthread_join(th[i].tid, NULL);
	res->secs = (double)(now_ns() - t0) / 1e9;
	for (unsigned int i = 0; i < started; i++) {
		res->ops += th[i].ops;
		res->syncs += th[i].syncs;
		fb_hist_merge(&res->hist, &th[i].hist);
		if (th[i].err && !res->err) {
			res->err = th[i].err;
			res->failed = th[i].failed;
			ret = -1;
		}
		if (th[i].fd >= 0)
			close(th[i].fd);
		free(th[i].buf);
	}
	pthread_cond_destroy(&c.cond);
	pthread_mutex_destroy(&c.lock);
	close(c.dirfd);
	free(th);
	return ret;
}

void fb_format(const struct fb_opts *o, const struct fb_result *res,
	       char *buf, size_t len)
{
	const struct fb_hist *h = &res->hist;

	snprintf(buf, len,
		 "fsyncbench workload=%s threads=%u bs=%lu%s%s ops=%llu syncs=%llu "
		 "secs=%.3f ops_per_sec=%.1f p50_us=%.1f p99_us=%.1f max_us=%.1f "
		 "mean_us=%.1f errno=%d",
		 fb_workload_name(o->workload), o->threads, o->bs,
		 o->tag ? " tag=" : "", o->tag ? o->tag : "",
		 (unsigned long long)res->ops, (unsigned long long)res->syncs,
		 res->secs, res->secs > 0 ? (double)res->ops / res->secs : 0.0,
		 (double)fb_hist_quantile(h, 0.50) / 1e3,
		 (double)fb_hist_quantile(h, 0.99) / 1e3, (double)h->max / 1e3,
		 h->n ? (double)h->sum / (double)h->n / 1e3 : 0.0, res->err);
}
