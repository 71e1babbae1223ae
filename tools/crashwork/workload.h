/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CRASHWORK_WORKLOAD_H
#define CRASHWORK_WORKLOAD_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

/* A fault to arm after a mark: write @value to @path (e.g. a sysfs knob). */
struct cw_arm {
	const char *path;
	const char *value;
};

#define CW_MAX_ARM	4

struct cw_work {
	int dirfd;			/* work directory on the fs under test */
	FILE *oracle;			/* promises, on another filesystem */
	const char *mark_target;	/* dm-log-writes target, or NULL */
	unsigned long ops;		/* operations (per thread) */
	unsigned int threads;
	uint64_t seed;
	unsigned long arm_after;	/* arm after this many marks; 0: never */
	struct cw_arm arm[CW_MAX_ARM];	/* written in order, under the lock */
	unsigned int nr_arm;

	pthread_mutex_t lock;		/* protects everything below */
	uint64_t next_fileid;
	unsigned long next_mark;
	unsigned long armed_at;		/* the mark the fault was armed at */
	int error;			/* first errno a call returned */
	const char *error_call;		/* the call that returned it */
	int sync_failed;		/* that call was fsync or fdatasync */
};

struct cw_workload {
	const char *name;
	const char *help;
	int (*run)(struct cw_work *work);
};

extern const struct cw_workload cw_workloads[];

const struct cw_workload *cw_workload_find(const char *name);

#endif
