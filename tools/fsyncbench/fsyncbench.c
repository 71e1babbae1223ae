// SPDX-License-Identifier: GPL-2.0
/*
 * fsyncbench: fsync-heavy workloads for the flush-cost benchmark; prints
 * one key=value line (throughput, p50/p99 latency, sync calls).
 */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "work.h"

/* Exit codes. */
enum { FB_EXIT_OK = 0, FB_EXIT_IO = 1, FB_EXIT_USAGE = 2 };

static void usage(FILE *out)
{
	fprintf(out,
"usage: fsyncbench --workload W --dir DIR (--duration SECS | --ops N) [options]\n"
"\n"
"Run W in DIR with N threads, each on its own file, and print one line:\n"
"  fsyncbench workload=W threads=N bs=B ops=N syncs=N secs=S ops_per_sec=X\n"
"             p50_us=X p99_us=X max_us=X mean_us=X errno=E\n"
"An op is timed from its first call to the return of its last sync;\n"
"syncs counts fsync/fdatasync calls and O_SYNC writes.\n"
"\n"
"workloads:\n"
"  append     write(bs) at the end of the thread's file + fsync\n"
"  meta       create + write(bs) + fsync tmp file, rename over the\n"
"             thread's file, fsync the directory (2 syncs per op)\n"
"  create     as meta without the write: empty files, metadata only\n"
"  fdatasync  overwrite bs in a preallocated file (written and synced\n"
"             before the clock starts) + fdatasync\n"
"  osync      write(bs) at the end of a file opened O_SYNC\n"
"  unpack     a package install: write(bs) to each of --files new tmp\n"
"             files and start its writeback (sync_file_range), then fsync\n"
"             each and rename it into place, then fsync the directory\n"
"             (files + 1 syncs per op)\n"
"\n"
"options:\n"
"  --threads N       threads (default 1, max 256)\n"
"  --duration SECS   run this long (fractions allowed)\n"
"  --ops N           or: N ops per thread\n"
"  --bs BYTES        bytes per write (default 4096; k/m/g suffixes)\n"
"  --file-size BYTES fdatasync: file per thread (default 1m)\n"
"  --files N         unpack: files per op (default 16, max 1024)\n"
"  --think-us US     sleep US microseconds after each op (default 0,\n"
"                    max 1000000): threads that do not fsync again at once\n"
"  --tag WORD        echoed as tag=WORD\n"
"  --prepare-only    create (fdatasync: fill and fsync) the files, run\n"
"                    nothing; a later run reuses a prepared fdatasync file\n"
"\n"
"exit: 0 ok, 1 a system call failed (the line is still printed, with\n"
"errno=E), 2 usage.\n");
}

int main(int argc, char **argv)
{
	struct fb_opts o;
	struct fb_result res;
	char err[256], line[512];
	int rc = fb_parse_args(argc, argv, &o, err, sizeof(err));

	if (rc == 1) {
		usage(stdout);
		return FB_EXIT_OK;
	}
	if (rc < 0) {
		fprintf(stderr, "fsyncbench: %s (see --help)\n", err);
		return FB_EXIT_USAGE;
	}
	rc = fb_run(&o, &res);
	if (o.prepare_only && !rc)
		return FB_EXIT_OK;
	fb_format(&o, &res, line, sizeof(line));
	printf("%s\n", line);
	if (rc) {
		fprintf(stderr, "fsyncbench: %s: %s\n", res.failed, strerror(res.err));
		return FB_EXIT_IO;
	}
	return FB_EXIT_OK;
}
