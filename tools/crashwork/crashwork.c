// SPDX-License-Identifier: GPL-2.0
/*
 * crashwork: fsync workloads that say what each sync promised, and the
 * checker that holds a recovered filesystem to those promises.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "oracle.h"
#include "workload.h"

/* Exit codes. */
enum {
	CW_EXIT_OK = 0,
	CW_EXIT_LOST = 1,	/* check: a promise was broken */
	CW_EXIT_USAGE = 2,
	CW_EXIT_ERROR = 3,	/* run: a syscall failed; check: cannot check */
	CW_EXIT_EXPOSED = 4,	/* check: no promise broken, foreign data seen */
	CW_EXIT_SYNC = 5,	/* run: an fsync/fdatasync failed (the oracle
				 * holds what was acknowledged before it) */
};

static void usage(FILE *out)
{
	fprintf(out,
"usage: crashwork run WORKLOAD --dir DIR --oracle FILE [options]\n"
"       crashwork check --dir DIR --oracle FILE [--upto MARK] [options]\n"
"\n"
"run: run WORKLOAD in DIR (on the filesystem under test). After each\n"
"fsync/fdatasync returns, append what it promised to FILE (keep it on\n"
"another filesystem) and mark the dm-log-writes log.\n"
"  -m, --mark-target NAME  dm-log-writes device to mark (a DM_TARGET_MSG\n"
"                          ioctl, as dmsetup message NAME 0 mark)\n"
"  -n, --ops N             operations per thread (default 50)\n"
"  -t, --threads N         threads, append and names (default 1, max 64)\n"
"  -s, --seed N            random seed (default 1)\n"
"  -A, --arm-after N       after mark N, write the --arm values: a fault\n"
"                          starts at a known point (mark N closes the\n"
"                          promises made before the fault)\n"
"  -a, --arm FILE=VALUE    what to write (at offset 0; up to 4, in order),\n"
"                          e.g. /sys/module/flushcost/parameters/fail_flush=-1\n"
"The run stops at the first failing call; promises are only written for\n"
"operations whose syncs all returned 0.\n"
"\n"
"check: hold the files in DIR to the promises made before mark MARK\n"
"(all of them without --upto, none with an empty MARK), then look in\n"
"every file for records no write to it put there.\n"
"  -u, --upto MARK         last mark before the crash point\n"
"  -r, --max-report N      problems printed (default 10)\n"
"\n"
"workloads:\n");
	for (const struct cw_workload *w = cw_workloads; w->name; w++)
		fprintf(out, "  %-9s %s\n", w->name, w->help);
	fprintf(out,
"\n"
"exit: 0 ok, 1 a promise was broken (check), 2 usage, 3 error (run: a\n"
"system call failed; check: cannot check), 4 foreign data in a file but\n"
"no promise broken (check), 5 an fsync or fdatasync failed (run; the\n"
"summary line says which and why).\n");
}

struct cw_args {
	const char *dir, *oracle, *mark_target, *upto;
	unsigned long ops, max_report, arm_after;
	struct cw_arm arm[CW_MAX_ARM];
	unsigned int nr_arm;
	unsigned int threads;
	unsigned long long seed;
};

static int parse_number(const char *arg, const char *opt,
			unsigned long long max, unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(arg, &end, 0);
	if (errno || end == arg || *end || *out > max || arg[0] == '-') {
		fprintf(stderr, "crashwork: bad value '%s' for %s\n", arg, opt);
		return -1;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct cw_args *args)
{
	static const struct option options[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "oracle", required_argument, NULL, 'o' },
		{ "mark-target", required_argument, NULL, 'm' },
		{ "ops", required_argument, NULL, 'n' },
		{ "threads", required_argument, NULL, 't' },
		{ "seed", required_argument, NULL, 's' },
		{ "upto", required_argument, NULL, 'u' },
		{ "max-report", required_argument, NULL, 'r' },
		{ "arm-after", required_argument, NULL, 'A' },
		{ "arm", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long v;
	int c;

	*args = (struct cw_args){ .ops = 50, .threads = 1, .seed = 1,
				  .max_report = 10 };
	while ((c = getopt_long(argc, argv, "d:o:m:n:t:s:u:r:A:a:h", options,
				NULL)) != -1) {
		switch (c) {
		case 'd': args->dir = optarg; break;
		case 'o': args->oracle = optarg; break;
		case 'm': args->mark_target = optarg; break;
		case 'u': args->upto = optarg; break;
		case 'n':
			if (parse_number(optarg, "--ops", 10000000, &v))
				return -1;
			args->ops = v;
			break;
		case 't':
			if (parse_number(optarg, "--threads", 64, &v) || !v) {
				fprintf(stderr, "crashwork: --threads is 1..64\n");
				return -1;
			}
			args->threads = v;
			break;
		case 's':
			if (parse_number(optarg, "--seed", ~0ULL, &args->seed))
				return -1;
			break;
		case 'r':
			if (parse_number(optarg, "--max-report", 1000000, &v))
				return -1;
			args->max_report = v;
			break;
		case 'A':
			if (parse_number(optarg, "--arm-after", 10000000, &v) || !v) {
				fprintf(stderr, "crashwork: --arm-after is 1..10000000\n");
				return -1;
			}
			args->arm_after = v;
			break;
		case 'a': {
			char *eq = strchr(optarg, '=');

			if (!eq || eq == optarg || args->nr_arm == CW_MAX_ARM) {
				fprintf(stderr, "crashwork: --arm FILE=VALUE, at most %d\n",
					CW_MAX_ARM);
				return -1;
			}
			*eq = '\0';
			args->arm[args->nr_arm++] = (struct cw_arm){ optarg, eq + 1 };
			break;
		}
		case 'h':
			usage(stdout);
			exit(CW_EXIT_OK);
		default:
			return -1;
		}
	}
	if (!args->dir || !args->oracle) {
		fprintf(stderr, "crashwork: --dir and --oracle are required\n");
		return -1;
	}
	if (!args->arm_after != !args->nr_arm) {
		fprintf(stderr, "crashwork: --arm-after and --arm go together\n");
		return -1;
	}
	return 0;
}

static int cmd_run(const struct cw_workload *w, const struct cw_args *args)
{
	struct cw_work work = {
		.mark_target = args->mark_target,
		.ops = args->ops,
		.threads = args->threads,
		.seed = args->seed,
		.arm_after = args->arm_after,
		.nr_arm = args->nr_arm,
		.lock = PTHREAD_MUTEX_INITIALIZER,
	};
	int ret;

	memcpy(work.arm, args->arm, sizeof(work.arm));
	work.dirfd = open(args->dir, O_RDONLY | O_DIRECTORY);
	if (work.dirfd < 0) {
		perror(args->dir);
		return CW_EXIT_ERROR;
	}
	work.oracle = fopen(args->oracle, "a");
	if (!work.oracle) {
		perror(args->oracle);
		close(work.dirfd);
		return CW_EXIT_ERROR;
	}
	ret = w->run(&work);
	fclose(work.oracle);
	close(work.dirfd);
	/* One line for scripts: marks, where the fault was armed, what failed. */
	printf("crashwork: %s: %lu marks", w->name, work.next_mark);
	if (work.armed_at)
		printf(", armed after m%06lu", work.armed_at);
	if (ret && work.error)
		printf(", failed: %s: %s", work.error_call, strerror(work.error));
	else if (ret)
		printf(", failed");
	printf("\n");
	if (!ret && work.arm_after && !work.armed_at) {
		fprintf(stderr, "crashwork: only %lu marks: the fault was never armed\n",
			work.next_mark);
		return CW_EXIT_ERROR;
	}
	if (ret)
		return work.sync_failed ? CW_EXIT_SYNC : CW_EXIT_ERROR;
	return CW_EXIT_OK;
}

static int cmd_check(const struct cw_args *args)
{
	struct cw_check check = { .max_report = args->max_report };
	struct cw_oracle oracle;
	size_t due;
	int ret;

	if (cw_oracle_load(&oracle, args->oracle, args->upto))
		return CW_EXIT_ERROR;
	check.dirfd = open(args->dir, O_RDONLY | O_DIRECTORY);
	if (check.dirfd < 0) {
		perror(args->dir);
		cw_oracle_free(&oracle);
		return CW_EXIT_ERROR;
	}
	due = cw_oracle_due(&oracle);
	ret = cw_check_promises(&check, &oracle);
	if (!ret)
		ret = cw_scan_files(&check, args->dir);
	close(check.dirfd);
	cw_oracle_free(&oracle);
	if (ret)
		return CW_EXIT_ERROR;
	printf("crashwork: %zu promises due, %lu records checked: %lu lost, %lu exposed\n",
	       due, check.records, check.lost, check.exposed);
	if (check.lost)
		return CW_EXIT_LOST;
	return check.exposed ? CW_EXIT_EXPOSED : CW_EXIT_OK;
}

int main(int argc, char **argv)
{
	const struct cw_workload *w = NULL;
	struct cw_args args;
	const char *cmd;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? CW_EXIT_USAGE : CW_EXIT_OK;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "run")) {
		if (argc < 3 || !(w = cw_workload_find(argv[2]))) {
			fprintf(stderr, "crashwork: run needs a workload (see --help)\n");
			return CW_EXIT_USAGE;
		}
		argv += 2;
		argc -= 2;
	} else if (!strcmp(cmd, "check")) {
		argv += 1;
		argc -= 1;
	} else {
		fprintf(stderr, "crashwork: unknown command '%s' (see --help)\n", cmd);
		return CW_EXIT_USAGE;
	}
	if (parse_args(argc, argv, &args))
		return CW_EXIT_USAGE;
	return w ? cmd_run(w, &args) : cmd_check(&args);
}
