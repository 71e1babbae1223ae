/* SPDX-License-Identifier: GPL-2.0 */
#ifndef FSYNCBENCH_WORK_H
#define FSYNCBENCH_WORK_H

#include <stdint.h>

#include "args.h"
#include "hist.h"

struct fb_result {
	uint64_t ops;		/* completed operations (one latency sample each) */
	uint64_t syncs;		/* fsync + fdatasync calls, O_SYNC writes */
	double secs;		/* wall time of the measured phase */
	struct fb_hist hist;	/* per-op latency, ns */
	int err;		/* first errno seen, 0 if none */
	const char *failed;	/* the call that failed */
};

/* Prepare files, run the workload, fill res. 0 ok, -1 a call failed. */
int fb_run(const struct fb_opts *o, struct fb_result *res);
/* The key=value line (no newline) into buf. */
void fb_format(const struct fb_opts *o, const struct fb_result *res,
	       char *buf, size_t len);

#endif
