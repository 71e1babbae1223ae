// SPDX-License-Identifier: GPL-2.0
/*
 * lwreplay: replay a dm-log-writes log into crash states and check each.
 *
 * DEV is only ever changed here: moved forward through the durable state
 * of each crash point once, and for each state the unflushed writes it
 * keeps are applied with an undo log and taken back after the checker ran.
 */
#include "apply.h"
#include "cliopt.h"
#include "crash.h"
#include "lwlog.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum exit_code {
	EX_OK = 0,
	EX_FAILURES = 1,
	EX_USAGE = 2,
	EX_BADLOG = 3,
	EX_DEVIO = 4,
	EX_CHECKER = 5,
	EX_INTERRUPTED = 6,
};

/* Checker verdicts, by exit code. */
enum verdict {
	V_CONSISTENT = 0,
	V_MOUNT_FAILED = 1,
	V_FSCK_CORRUPT = 2,
	V_DATA_LOST = 3,
	V_COUNT,
};

static const char *const verdict_names[V_COUNT] = {
	"consistent", "mount-failed", "fsck-corrupt", "data-lost",
};

#define DEFAULT_BUDGET		8
/* Bounds the subset masks kept per point: budget x unflushed bits. */
#define MAX_BUDGET		1024
#define DEFAULT_PROGRESS	100

static const char usage_text[] =
"usage: lwreplay info LOG [--entries]\n"
"       lwreplay states LOG [--budget N] [--seed S]\n"
"       lwreplay apply LOG DEV RECIPE [--seed S]\n"
"       lwreplay run LOG DEV [--budget N] [--seed S] [--max-states M]\n"
"                    [--progress] [--progress-every N] -- CHECKER [ARGS...]\n"
"\n"
"Replays a dm-log-writes log (LOG) onto DEV under a volatile write cache\n"
"model and checks every crash state.  DEV must hold the base image (the\n"
"device as it was when logging started); apply and run change it.\n"
"\n"
"Crash model: at crash point P (an entry index) every write before the\n"
"last FLUSH at or before P, and every FUA write up to P, is on media; the\n"
"other writes up to P are unflushed and may or may not be.  Discards are\n"
"writes of zeroes.  Crash points: every FLUSH, FUA and MARK entry, and\n"
"the middle and last write of each run of writes between them.\n"
"\n"
"A state is a recipe POINT:RULE, RULE choosing the unflushed writes kept:\n"
"  none, all, drop:K (all but the K-th, from 0), prefix:K (first K),\n"
"  rand:SEED (each kept with probability 1/2).  Recipes are self-contained:\n"
"  'lwreplay apply LOG DEV RECIPE' on a fresh base image rebuilds one.\n"
"\n"
"commands:\n"
"  info     super block, entry counts, marks, number of crash points;\n"
"           --entries lists every entry\n"
"  states   every recipe run would check, in order; last line the count\n"
"  apply    bring DEV from the base image to the state RECIPE\n"
"  run      for each state: prepare DEV, run CHECKER, take the state back.\n"
"           CHECKER gets LWR_RECIPE, LWR_POINT, LWR_MARK (last mark at or\n"
"           before the point, empty if none), LWR_DEV and LWR_LOG in its\n"
"           environment; its stdout goes to our stderr.  It exits\n"
"           0 consistent, 1 mount/recovery failed, 2 fsck found corruption,\n"
"           3 acknowledged data lost; anything else aborts the run.\n"
"           Prints 'FAILURE <class> <recipe>' per failure and a summary on\n"
"           stdout.  DEV is left at the durable state of the last point.\n"
"\n"
"options:\n"
"  --budget N          subsets tried per crash point, none and all\n"
"                      included (default 8, at least 2, at most 1024)\n"
"  --seed S            seed for choosing subsets (default 0); apply\n"
"                      accepts and ignores it (recipes are self-contained)\n"
"  --max-states M      stop after M states (default: all)\n"
"  --progress          progress line on stderr every 100 states\n"
"  --progress-every N  progress line every N states\n"
"  -h, --help          this text\n"
"\n"
"exit codes:\n"
"  0  success (run: no failures)\n"
"  1  run: the checker reported failures\n"
"  2  usage error (bad option, bad recipe, recipe not valid for the log)\n"
"  3  bad log (bad magic/version/sectorsize, truncated or invalid entry,\n"
"     a zero-length write, an entry past the end of DEV)\n"
"  4  I/O error on DEV (or out of memory while applying)\n"
"  5  the checker could not run or exited with another code\n"
"  6  interrupted (SIGINT/SIGTERM); the current state was taken back\n";

/* Options, as bits, so each command can refuse the ones it ignores. */
enum option_bit {
	OPT_ENTRIES = 1 << 0,
	OPT_BUDGET = 1 << 1,
	OPT_SEED = 1 << 2,
	OPT_MAX_STATES = 1 << 3,
	OPT_PROGRESS = 1 << 4,
};

static const char *const option_names[] = {
	"--entries", "--budget", "--seed", "--max-states", "--progress",
};

struct options {
	const char *cmd;
	unsigned given;		/* enum option_bit */
	const char *args[3];	/* LOG, DEV, RECIPE as the command needs */
	int nr_args;
	unsigned budget;
	uint64_t seed;
	uint64_t max_states;	/* 0: no limit */
	uint64_t progress_every; /* 0: no progress lines */
	bool entries;
	char **checker;		/* NULL-terminated, after "--" */
};

/*
 * Set from the signal handler only; a handler can reach nothing but a
 * global, so this is the one piece of file-scope state.
 */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static int usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("lwreplay: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n(try 'lwreplay --help')\n", stderr);
	return EX_USAGE;
}

static int error_exit(int code, const char *msg)
{
	fprintf(stderr, "lwreplay: %s\n", msg);
	return code;
}

static int out_of_memory(void)
{
	return error_exit(EX_DEVIO, "out of memory");
}

/* Unsigned decimal or 0x hex, whole string, no sign. */
static int parse_number(const char *opt, const char *s, uint64_t max,
			uint64_t *v)
{
	char *end;
	unsigned long long r;

	errno = 0;
	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return usage_error("%s needs a number", opt);
	r = strtoull(s, &end, 0);
	if (errno || *end || r > max)
		return usage_error("bad value '%s' for %s", s, opt);
	*v = r;
	return 0;
}

static int parse_valued_option(int argc, char **argv, int *i,
			       struct options *o, bool *matched)
{
	const char *v;
	uint64_t n;
	int r;

	*matched = true;
	if (option_value(argc, argv, i, "--budget", &v)) {
		o->given |= OPT_BUDGET;
		r = parse_number("--budget", v, MAX_BUDGET, &n);
		o->budget = (unsigned)n;
		return r;
	}
	if (option_value(argc, argv, i, "--seed", &v)) {
		o->given |= OPT_SEED;
		return parse_number("--seed", v, UINT64_MAX, &o->seed);
	}
	if (option_value(argc, argv, i, "--max-states", &v)) {
		o->given |= OPT_MAX_STATES;
		return parse_number("--max-states", v, UINT64_MAX,
				    &o->max_states);
	}
	if (option_value(argc, argv, i, "--progress-every", &v)) {
		o->given |= OPT_PROGRESS;
		r = parse_number("--progress-every", v, UINT64_MAX,
				 &o->progress_every);
		if (!r && !o->progress_every)
			return usage_error("--progress-every must be at least 1");
		return r;
	}
	*matched = false;
	return 0;
}

static int parse_option(int argc, char **argv, int *i, struct options *o)
{
	const char *a = argv[*i];
	bool matched;
	int r = parse_valued_option(argc, argv, i, o, &matched);

	if (matched)
		return r;
	if (!strcmp(a, "--entries")) {
		o->given |= OPT_ENTRIES;
		o->entries = true;
	} else if (!strcmp(a, "--progress")) {
		o->given |= OPT_PROGRESS;
		o->progress_every = o->progress_every ? o->progress_every
						      : DEFAULT_PROGRESS;
	} else {
		return usage_error("unknown option '%s'", a);
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct options *o)
{
	memset(o, 0, sizeof(*o));
	o->budget = DEFAULT_BUDGET;
	o->cmd = argv[1];
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		int r;

		if (!strcmp(a, "--")) {
			o->checker = &argv[i + 1];
			break;
		}
		if (a[0] == '-' && a[1] != '\0') {
			r = parse_option(argc, argv, &i, o);
			if (r)
				return r;
			continue;
		}
		if (o->nr_args == 3)
			return usage_error("too many arguments ('%s')", a);
		o->args[o->nr_args++] = a;
	}
	return 0;
}

static bool wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return false;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help") ||
		    (i == 1 && !strcmp(argv[i], "help")))
			return true;
	}
	return false;
}

/* Arguments and options a command takes; anything else is a usage error. */
static int check_command_args(const struct options *o, int nr_args,
			      unsigned allowed, bool takes_checker)
{
	unsigned extra = o->given & ~allowed;

	for (unsigned b = 0; extra; b++) {
		if (extra & (1u << b))
			return usage_error("%s does not take %s", o->cmd,
					   option_names[b]);
	}
	if (o->nr_args != nr_args)
		return usage_error("%s takes %d argument%s, got %d", o->cmd,
				   nr_args, nr_args == 1 ? "" : "s", o->nr_args);
	if (takes_checker && (!o->checker || !o->checker[0]))
		return usage_error("run needs '-- CHECKER [ARGS...]'");
	if (!takes_checker && o->checker)
		return usage_error("%s does not run a checker", o->cmd);
	return 0;
}

/* Log and its crash model, opened together and closed together. */
struct replay {
	struct lw_log log;
	struct crash_model model;
	const char *log_path;
};

static int replay_open(struct replay *r, const char *path)
{
	char err[LW_ERRLEN];

	r->log_path = path;
	if (lwlog_open(path, &r->log, err, sizeof(err)) < 0)
		return error_exit(EX_BADLOG, err);
	if (crash_model_init(&r->model, r->log.entries, r->log.nr_entries) < 0) {
		lwlog_close(&r->log);
		return error_exit(EX_DEVIO, "out of memory indexing the log");
	}
	return 0;
}

static void replay_close(struct replay *r)
{
	crash_model_free(&r->model);
	lwlog_close(&r->log);
}

/* Marks and the like come from the log: show them without control bytes. */
static void print_text(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
}

static void print_entry(const struct lw_log *log, uint64_t i)
{
	const struct lw_entry *e = &log->entries[i];
	char flags[64];

	printf("%8" PRIu64 " %12" PRIu64 " %12" PRIu64 " %8" PRIu64 " %-18s ",
	       i, e->offset, e->sector, e->nr_sectors,
	       lw_flags_name(e->flags, flags, sizeof(flags)));
	if (e->mark)
		print_text(stdout, e->mark);
	putchar('\n');
}

struct entry_counts {
	uint64_t writes, fua, discards, flushes, flush_data, marks, metadata;
	uint64_t bytes;		/* bytes of DEV written or discarded */
	uint64_t end;		/* byte after the last entry in the log */
};

static void count_entry(const struct lw_log *log, const struct lw_entry *e,
			struct entry_counts *c)
{
	bool changes = lw_entry_changes_dev(e);

	c->marks += !!(e->flags & LW_FLAG_MARK);
	c->flushes += !!(e->flags & LW_FLAG_FLUSH);
	c->flush_data += (e->flags & LW_FLAG_FLUSH) && changes;
	c->metadata += !!(e->flags & LW_FLAG_METADATA);
	c->discards += changes && (e->flags & LW_FLAG_DISCARD);
	c->writes += changes && !(e->flags & LW_FLAG_DISCARD);
	c->fua += changes && (e->flags & LW_FLAG_FUA);
	c->bytes += lw_entry_dev_length(log, e);
	c->end = lw_entry_data_offset(log, e) +
		 (changes && !(e->flags & LW_FLAG_DISCARD) ?
		  lw_entry_dev_length(log, e) : 0);
}

static void print_counts(const struct lw_log *log)
{
	struct entry_counts c = { .end = log->sectorsize };

	for (uint64_t i = 0; i < log->nr_entries; i++)
		count_entry(log, &log->entries[i], &c);
	printf("entries:      %" PRIu64 "\n", log->nr_entries);
	printf("  writes:     %" PRIu64 " (FUA %" PRIu64 ")\n", c.writes, c.fua);
	printf("  discards:   %" PRIu64 "\n", c.discards);
	printf("  flushes:    %" PRIu64 " (with data %" PRIu64 ")\n",
	       c.flushes, c.flush_data);
	printf("  marks:      %" PRIu64 "\n", c.marks);
	printf("  metadata:   %" PRIu64 "\n", c.metadata);
	printf("DEV bytes changed: %" PRIu64 "\n", c.bytes);
	printf("log bytes used:    %" PRIu64 " of %" PRIu64 "\n", c.end,
	       log->size);
}

static void print_marks(const struct lw_log *log)
{
	printf("marks (entry text):\n");
	for (uint64_t i = 0; i < log->nr_entries; i++) {
		if (!log->entries[i].mark)
			continue;
		printf("  %" PRIu64 " ", i);
		print_text(stdout, log->entries[i].mark);
		putchar('\n');
	}
}

static int cmd_info(const struct options *o)
{
	struct replay r;
	int rc = check_command_args(o, 1, OPT_ENTRIES, false);

	if (rc || (rc = replay_open(&r, o->args[0])))
		return rc;
	printf("log:          %s\n", o->args[0]);
	printf("version:      %" PRIu64 "\n", r.log.version);
	printf("sectorsize:   %u\n", r.log.sectorsize);
	print_counts(&r.log);
	print_marks(&r.log);
	printf("crash points: %zu\n", r.model.points.n);
	if (o->entries) {
		printf("%8s %12s %12s %8s %-18s %s\n", "index", "log-offset",
		       "sector", "sectors", "flags", "mark");
		for (uint64_t i = 0; i < r.log.nr_entries; i++)
			print_entry(&r.log, i);
	}
	replay_close(&r);
	return EX_OK;
}

static int cmd_states(const struct options *o)
{
	struct replay r;
	struct crash_iter it;
	struct crash_state s;
	uint64_t count = 0;
	int rc = check_command_args(o, 1, OPT_BUDGET | OPT_SEED, false), got;
	char recipe[80];

	if (rc || (rc = replay_open(&r, o->args[0])))
		return rc;
	crash_iter_init(&it, &r.model, o->budget, o->seed);
	while ((got = crash_iter_next(&it, &s)) == 1) {
		crash_format_recipe(recipe, sizeof(recipe), &s);
		printf("%s\n", recipe);
		count++;
	}
	crash_iter_free(&it);
	replay_close(&r);
	if (got < 0)
		return error_exit(EX_DEVIO, "out of memory enumerating states");
	printf("%" PRIu64 " states\n", count);
	return EX_OK;
}

static int apply_result_exit(enum apply_result r, const char *err)
{
	return error_exit(r == APPLY_ERR_LOG ? EX_BADLOG : EX_DEVIO, err);
}

/* Open DEV and refuse a log that writes past its end. */
static int open_dev(const struct replay *r, const char *path,
		    struct lw_dev *dev)
{
	char err[LW_ERRLEN];

	if (dev_open(path, dev, err, sizeof(err)) < 0)
		return error_exit(EX_DEVIO, err);
	if (lwlog_check_fits(&r->log, dev->size, err, sizeof(err)) < 0) {
		dev_close(dev);
		return error_exit(EX_BADLOG, err);
	}
	return 0;
}

/* The mask a recipe selects, checked against the log. */
static int recipe_mask(const struct replay *r, const struct crash_state *s,
		       struct idx_list *unflushed, uint64_t **mask)
{
	char err[LW_ERRLEN];

	if (s->point >= r->log.nr_entries)
		return usage_error("recipe point %" PRIu64
				   " is past the last entry (%" PRIu64 " entries)",
				   s->point, r->log.nr_entries);
	if (crash_unflushed(&r->model, s->point, unflushed) < 0)
		return out_of_memory();
	*mask = calloc(crash_mask_words(unflushed->n), sizeof(**mask));
	if (!*mask)
		return out_of_memory();
	if (crash_rule_mask(&s->rule, s->point, unflushed->n, *mask,
			    err, sizeof(err)) < 0)
		return usage_error("%s", err);
	return 0;
}

/* Apply plan to DEV; with undo non-NULL it can be taken back. */
static int apply_plan(const struct replay *r, struct lw_dev *dev,
		      const struct idx_list *plan, struct undo_log *undo)
{
	char err[LW_ERRLEN];
	enum apply_result ar = dev_apply_plan(dev, &r->log, plan, undo,
					      err, sizeof(err));

	return ar == APPLY_OK ? 0 : apply_result_exit(ar, err);
}

static int sync_dev(struct lw_dev *dev)
{
	char err[LW_ERRLEN];
	enum apply_result ar = dev_sync(dev, err, sizeof(err));

	return ar == APPLY_OK ? 0 : apply_result_exit(ar, err);
}

/* From the base image straight to one state, without undo. */
static int apply_state(const struct replay *r, struct lw_dev *dev,
		       const struct crash_state *s)
{
	struct idx_list unflushed = { 0 }, plan = { 0 };
	uint64_t *mask = NULL;
	int rc = recipe_mask(r, s, &unflushed, &mask);

	if (!rc && crash_durable_plan(&r->model, -1, s->point, &plan) < 0)
		rc = out_of_memory();
	if (!rc)
		rc = apply_plan(r, dev, &plan, NULL);
	if (!rc && crash_subset_plan(&r->model, s->point, &unflushed, mask,
				     &plan) < 0)
		rc = out_of_memory();
	if (!rc)
		rc = apply_plan(r, dev, &plan, NULL);
	if (!rc)
		rc = sync_dev(dev);
	free(mask);
	idx_list_free(&unflushed);
	idx_list_free(&plan);
	return rc;
}

static int cmd_apply(const struct options *o)
{
	struct replay r;
	struct lw_dev dev;
	struct crash_state s;
	char err[LW_ERRLEN];
	/* --seed is accepted so a run's options can be reused; recipes carry
	 * their own rand seeds and need no other. */
	int rc = check_command_args(o, 3, OPT_SEED, false);

	if (rc)
		return rc;
	if (crash_parse_recipe(o->args[2], &s, err, sizeof(err)) < 0)
		return usage_error("%s", err);
	if ((rc = replay_open(&r, o->args[0])))
		return rc;
	rc = open_dev(&r, o->args[1], &dev);
	if (!rc) {
		rc = apply_state(&r, &dev, &s);
		dev_close(&dev);
	}
	replay_close(&r);
	if (!rc)
		fprintf(stderr, "lwreplay: DEV %s now holds state %s\n",
			o->args[1], o->args[2]);
	return rc;
}

/* Everything one run carries from state to state. */
struct run_ctx {
	const struct options *o;
	struct replay *r;
	struct lw_dev *dev;
	int64_t durable_at;	/* DEV holds the durable state of this point */
	struct undo_log undo;
	struct idx_list plan;
	uint64_t *mask;
	size_t mask_words;
	uint64_t total, done;
	uint64_t counts[V_COUNT];
	struct timespec start;
};

static double seconds_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
	       (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static int count_states(struct run_ctx *c)
{
	struct crash_iter it;
	struct crash_state s;
	int got;

	crash_iter_init(&it, &c->r->model, c->o->budget, c->o->seed);
	while ((got = crash_iter_next(&it, &s)) == 1)
		c->total++;
	crash_iter_free(&it);
	if (c->o->max_states && c->total > c->o->max_states)
		c->total = c->o->max_states;
	return got < 0 ? out_of_memory() : 0;
}

static void child_exec_checker(const struct run_ctx *c,
			       const struct crash_state *s, const char *recipe)
{
	int64_t mark = c->r->model.last_mark[s->point];
	char point[24];

	snprintf(point, sizeof(point), "%" PRIu64, s->point);
	setenv("LWR_RECIPE", recipe, 1);
	setenv("LWR_POINT", point, 1);
	setenv("LWR_MARK", mark < 0 ? "" : c->r->log.entries[mark].mark, 1);
	setenv("LWR_DEV", c->dev->path, 1);
	setenv("LWR_LOG", c->r->log_path, 1);
	/* Our stdout is the machine-readable result; keep it clean. */
	dup2(STDERR_FILENO, STDOUT_FILENO);
	execvp(c->o->checker[0], c->o->checker);
	fprintf(stderr, "lwreplay: cannot run checker %s: %s\n",
		c->o->checker[0], strerror(errno));
	_exit(127);
}

/* The checker's exit code, or -1 (message printed) if it did not exit. */
static int run_checker(const struct run_ctx *c, const struct crash_state *s,
		       const char *recipe)
{
	int status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "lwreplay: cannot fork: %s\n", strerror(errno));
		return -1;
	}
	if (pid == 0)
		child_exec_checker(c, s, recipe);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "lwreplay: waitpid: %s\n", strerror(errno));
			return -1;
		}
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (!interrupted)
		fprintf(stderr, "lwreplay: checker killed by signal %d at %s\n",
			WTERMSIG(status), recipe);
	return -1;
}

/* Move DEV forward to the durable state of point p. */
static int advance_durable(struct run_ctx *c, uint64_t p)
{
	int rc;

	if (c->durable_at == (int64_t)p)
		return 0;
	if (crash_durable_plan(&c->r->model, c->durable_at, p, &c->plan) < 0)
		return out_of_memory();
	rc = apply_plan(c->r, c->dev, &c->plan, NULL);
	if (!rc)
		c->durable_at = (int64_t)p;
	return rc;
}

static int ensure_mask(struct run_ctx *c, size_t nr_unflushed)
{
	size_t words = crash_mask_words(nr_unflushed);
	uint64_t *m;

	if (words <= c->mask_words)
		return 0;
	m = realloc(c->mask, words * sizeof(*m));
	if (!m)
		return out_of_memory();
	c->mask = m;
	c->mask_words = words;
	return 0;
}

/* Apply the state's kept writes on top of the durable state, with undo. */
static int apply_subset(struct run_ctx *c, const struct crash_iter *it,
			const struct crash_state *s)
{
	char err[LW_ERRLEN];
	int rc;

	if (ensure_mask(c, it->unflushed.n))
		return EX_DEVIO;
	/* The iterator only yields rules that fit, so this cannot fail. */
	crash_rule_mask(&s->rule, s->point, it->unflushed.n, c->mask,
			err, sizeof(err));
	if (crash_subset_plan(&c->r->model, s->point, &it->unflushed, c->mask,
			      &c->plan) < 0)
		return out_of_memory();
	rc = apply_plan(c->r, c->dev, &c->plan, &c->undo);
	return rc ? rc : sync_dev(c->dev);
}

static int take_back(struct run_ctx *c)
{
	char err[LW_ERRLEN];
	enum apply_result ar = dev_undo(c->dev, &c->undo, err, sizeof(err));

	return ar == APPLY_OK ? 0 : apply_result_exit(ar, err);
}

/* Record a verdict; returns non-zero to abort the run. */
static int record_verdict(struct run_ctx *c, int code, const char *recipe)
{
	if (code < 0 && interrupted)
		return EX_INTERRUPTED;
	if (code < 0 || code >= V_COUNT) {
		if (code >= 0)
			fprintf(stderr,
				"lwreplay: checker exited with %d at %s (expected 0-3)\n",
				code, recipe);
		return error_exit(EX_CHECKER, "aborting: checker error");
	}
	c->counts[code]++;
	if (code != V_CONSISTENT) {
		printf("FAILURE %s %s\n", verdict_names[code], recipe);
		fflush(stdout);
	}
	return 0;
}

static uint64_t failures(const struct run_ctx *c)
{
	return c->done - c->counts[V_CONSISTENT];
}

static void report_progress(const struct run_ctx *c)
{
	uint64_t every = c->o->progress_every;

	if (!every || (c->done % every && c->done != c->total))
		return;
	fprintf(stderr, "lwreplay: %" PRIu64 "/%" PRIu64
		" states, %" PRIu64 " failures so far\n",
		c->done, c->total, failures(c));
}

static int check_one_state(struct run_ctx *c, const struct crash_iter *it,
			   const struct crash_state *s)
{
	char recipe[80];
	int rc, code;

	crash_format_recipe(recipe, sizeof(recipe), s);
	rc = advance_durable(c, s->point);
	if (!rc)
		rc = apply_subset(c, it, s);
	code = rc ? -1 : run_checker(c, s, recipe);
	/* Take the state back whatever happened, so DEV stays durable. */
	if (take_back(c) && !rc)
		rc = EX_DEVIO;
	if (rc)
		return rc;
	rc = record_verdict(c, code, recipe);
	if (!rc) {
		c->done++;
		report_progress(c);
	}
	return rc;
}

static void print_summary(const struct run_ctx *c)
{
	double secs = seconds_since(&c->start);

	printf("states checked: %" PRIu64 " of %" PRIu64 "\n", c->done, c->total);
	for (int v = 0; v < V_COUNT; v++)
		printf("%-15s %" PRIu64 "\n", verdict_names[v], c->counts[v]);
	printf("failures:       %" PRIu64 "\n", failures(c));
	printf("elapsed:        %.3f s (%.1f states/s)\n", secs,
	       secs > 0 ? (double)c->done / secs : 0.0);
}

static int run_states(struct run_ctx *c)
{
	struct crash_iter it;
	struct crash_state s;
	int got = 0, rc = 0;

	crash_iter_init(&it, &c->r->model, c->o->budget, c->o->seed);
	while (!rc && c->done < c->total) {
		got = crash_iter_next(&it, &s);
		if (got != 1)
			break;
		rc = check_one_state(c, &it, &s);
		if (!rc && interrupted)
			rc = EX_INTERRUPTED;
	}
	crash_iter_free(&it);
	return !rc && got < 0 ? out_of_memory() : rc;
}

static void install_signal_handlers(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static int run_all(const struct options *o, struct replay *r,
		   struct lw_dev *dev)
{
	struct run_ctx c = { .o = o, .r = r, .dev = dev, .durable_at = -1 };
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &c.start);
	rc = count_states(&c);
	if (!rc) {
		install_signal_handlers();
		rc = run_states(&c);
	}
	if (rc == EX_INTERRUPTED)
		fprintf(stderr, "lwreplay: interrupted; DEV holds the durable state of point %" PRId64 "\n",
			c.durable_at);
	print_summary(&c);
	undo_free(&c.undo);
	idx_list_free(&c.plan);
	free(c.mask);
	if (rc)
		return rc;
	return failures(&c) ? EX_FAILURES : EX_OK;
}

static int cmd_run(const struct options *o)
{
	struct replay r;
	struct lw_dev dev;
	int rc = check_command_args(o, 2, OPT_BUDGET | OPT_SEED |
				    OPT_MAX_STATES | OPT_PROGRESS, true);

	if (rc || (rc = replay_open(&r, o->args[0])))
		return rc;
	rc = open_dev(&r, o->args[1], &dev);
	if (!rc) {
		rc = run_all(o, &r, &dev);
		dev_close(&dev);
	}
	replay_close(&r);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(const struct options *o);
	} cmds[] = {
		{ "info", cmd_info }, { "states", cmd_states },
		{ "apply", cmd_apply }, { "run", cmd_run },
	};
	struct options o;
	int rc;

	if (argc < 2)
		return usage_error("missing command");
	if (wants_help(argc, argv)) {
		fputs(usage_text, stdout);
		return EX_OK;
	}
	rc = parse_args(argc, argv, &o);
	if (rc)
		return rc;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (!strcmp(o.cmd, cmds[i].name))
			return cmds[i].fn(&o);
	}
	return usage_error("unknown command '%s'", o.cmd);
}
