/* SPDX-License-Identifier: GPL-2.0 */
#ifndef FSYNCBENCH_ARGS_H
#define FSYNCBENCH_ARGS_H

#include <stdbool.h>
#include <stddef.h>

enum fb_workload { FB_APPEND, FB_META, FB_FDATASYNC, FB_OSYNC, FB_CREATE, FB_UNPACK };

#define FB_MAX_THREADS	256
#define FB_MAX_THINK_US	1000000
#define FB_MAX_FILES	1024

struct fb_opts {
	enum fb_workload workload;
	const char *dir;
	unsigned int threads;
	double duration;		/* seconds; 0: run --ops */
	unsigned long ops;		/* per thread; 0: run --duration */
	unsigned long bs;		/* bytes per write */
	unsigned long file_size;	/* fdatasync: preallocated bytes per thread */
	const char *tag;		/* free text echoed as tag=... */
	unsigned long think_us;		/* sleep after each op; 0: none */
	unsigned int files;		/* unpack: files per op */
	bool prepare_only;		/* create the files, run nothing */
};

const char *fb_workload_name(enum fb_workload w);
/* 0: run, 1: --help, -1: bad arguments (message in err). */
int fb_parse_args(int argc, char **argv, struct fb_opts *o, char *err, size_t errlen);

#endif
