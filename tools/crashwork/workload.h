/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CRASHWORK_WORKLOAD_H
#define CRASHWORK_WORKLOAD_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

struct cw_work {
	int dirfd;			/* work directory on the fs under test */
	FILE *oracle;			/* promises, on another filesystem */
	const char *mark_target;	/* dm-log-writes target, or NULL */
	unsigned long ops;		/* operations (per thread) */
	unsigned int threads;
	uint64_t seed;

	pthread_mutex_t lock;		/* protects everything below */
	uint64_t next_fileid;
	unsigned long next_mark;
	int error;			/* first errno a sync call returned */
};

struct cw_workload {
	const char *name;
	const char *help;
	int (*run)(struct cw_work *work);
};

extern const struct cw_workload cw_workloads[];

const struct cw_workload *cw_workload_find(const char *name);

#endif
