// SPDX-License-Identifier: GPL-2.0
/* The lwreplay command line: output, exit codes, messages, run. */
#include "logbuild.h"
#include "tinytest.h"

#include <sys/stat.h>
#include <unistd.h>

/* A directory with a log, a DEV holding the base image, and scripts. */
struct cli_fixture {
	struct logbuild b;
	char *dir, *log, *dev;
	unsigned char *base;
	size_t dev_size;
};

static bool cli_open(struct cli_fixture *f, size_t dev_sectors)
{
	f->dir = tu_tmpdir();
	f->log = tu_path(f->dir, "log");
	f->dev = tu_path(f->dir, "dev");
	f->dev_size = dev_sectors * f->b.sectorsize;
	f->base = tu_pattern(f->dev_size, 3);
	return lb_save(&f->b, f->log) == 0 &&
	       tu_write_file(f->dev, f->base, f->dev_size) == 0;
}

static void cli_close(struct cli_fixture *f)
{
	struct tu_cmd r;
	char *argv[] = { "/bin/rm", "-rf", f->dir, NULL };

	tu_run(&r, argv);
	tu_cmd_free(&r);
	free(f->dir);
	free(f->log);
	free(f->dev);
	free(f->base);
	lb_free(&f->b);
}

static char *write_script(struct cli_fixture *f, const char *name,
			  const char *body)
{
	char *path = tu_path(f->dir, name);

	tu_write_file(path, body, strlen(body));
	chmod(path, 0755);
	return path;
}

static bool reset_dev(struct cli_fixture *f)
{
	return tu_write_file(f->dev, f->base, f->dev_size) == 0;
}

static bool dev_is(struct cli_fixture *f, const char *path, uint64_t point,
		   struct crash_rule rule)
{
	unsigned char *want = ref_image(&f->b, f->base, f->dev_size, point, &rule);
	size_t len;
	unsigned char *got = tu_read_file(path, &len);
	bool ok = got && len == f->dev_size && !memcmp(got, want, len);

	free(want);
	free(got);
	return ok;
}

/* 0 W, 1 F, 2 M mkfs, 3 W(8), 4 W(1), 5 FUA(2), 6 F, 7 W(3), 8 M end */
static void small_log(struct logbuild *b)
{
	lb_init(b, 512);
	lb_write(b, 0, 1);
	lb_flush(b);
	lb_mark(b, "mkfs");
	lb_write(b, 8, 1);
	lb_write(b, 1, 2);
	lb_fua(b, 2, 1);
	lb_flush(b);
	lb_write(b, 3, 1);
	lb_mark(b, "end");
}

static size_t count_lines(const char *s, const char *prefix)
{
	size_t n = 0, plen = strlen(prefix);

	for (const char *p = s; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		n += !strncmp(p, prefix, plen);
	return n;
}

static void t_help(struct tt *t)
{
	struct tu_cmd r;

	TT_CHECK_EQ(t, tu_lwreplay(&r, "--help", NULL), 0);
	TT_CHECK_CONTAINS(t, r.out, "exit codes:");
	TT_CHECK_CONTAINS(t, r.out, "5  the checker");
	tu_cmd_free(&r);
	TT_CHECK_EQ(t, tu_lwreplay(&r, "run", "-h", NULL), 0);
	TT_CHECK_CONTAINS(t, r.out, "usage:");
	tu_cmd_free(&r);
}

struct usage_case {
	const char *args[8];
	const char *message;
};

static void t_usage_errors(struct tt *t)
{
	static const struct usage_case cases[] = {
		{ { NULL }, "missing command" },
		{ { "frob", "x", NULL }, "unknown command 'frob'" },
		{ { "info", NULL }, "info takes 1 argument, got 0" },
		{ { "info", "a", "b", NULL }, "info takes 1 argument, got 2" },
		{ { "states", "LOG", "--bogus", NULL }, "unknown option '--bogus'" },
		{ { "states", "LOG", "--budget", "x", NULL }, "bad value 'x' for --budget" },
		{ { "states", "LOG", "--budget", NULL }, "--budget needs a number" },
		{ { "states", "LOG", "--budget=-1", NULL }, "--budget needs a number" },
		{ { "states", "LOG", "--seed", "12z", NULL }, "bad value '12z' for --seed" },
		{ { "run", "LOG", "DEV", NULL }, "run needs '-- CHECKER" },
		{ { "run", "LOG", "DEV", "--", NULL }, "run needs '-- CHECKER" },
		{ { "info", "LOG", "--", "x", NULL }, "info does not run a checker" },
		{ { "apply", "LOG", "DEV", "12:frob", NULL }, "bad recipe '12:frob'" },
		{ { "info", "LOG", "--budget", "3", NULL }, "info does not take --budget" },
		{ { "apply", "L", "D", "0:none", "--progress", NULL },
		  "apply does not take --progress" },
		{ { "states", "LOG", "--budget", "2000", NULL }, "bad value '2000' for --budget" },
		{ { "run", "L", "D", "--progress-every", "0", "--", "true", NULL },
		  "--progress-every must be at least 1" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *const *a = cases[i].args;
		struct tu_cmd r;

		tu_lwreplay(&r, a[0], a[1], a[2], a[3], a[4], a[5], a[6], NULL);
		if (!TT_CHECK_EQ(t, r.status, 2) |
		    !TT_CHECK_CONTAINS(t, r.err, cases[i].message))
			fprintf(stderr, "  usage case %zu\n", i);
		tu_cmd_free(&r);
	}
}

static void t_info(struct tt *t)
{
	struct cli_fixture f;
	struct tu_cmd r;

	small_log(&f.b);
	TT_REQUIRE(t, cli_open(&f, 16));
	TT_CHECK_EQ(t, tu_lwreplay(&r, "info", f.log, NULL), 0);
	TT_CHECK_CONTAINS(t, r.out, "sectorsize:   512");
	TT_CHECK_CONTAINS(t, r.out, "entries:      9");
	TT_CHECK_CONTAINS(t, r.out, "writes:     5 (FUA 1)");
	TT_CHECK_CONTAINS(t, r.out, "flushes:    2");
	TT_CHECK_CONTAINS(t, r.out, "\n  2 mkfs\n  8 end\n");
	/* points: 0 | 1 2 | run 3,4: 3 4 | 5 6 | 7 | 8 */
	TT_CHECK_CONTAINS(t, r.out, "crash points: 9");
	TT_CHECK(t, !strstr(r.out, "log-offset"));
	tu_cmd_free(&r);
	TT_CHECK_EQ(t, tu_lwreplay(&r, "info", "--entries", f.log, NULL), 0);
	TT_CHECK_CONTAINS(t, r.out, "log-offset");
	TT_CHECK_CONTAINS(t, r.out, "FLUSH");
	TT_CHECK_CONTAINS(t, r.out, "MARK               mkfs");
	tu_cmd_free(&r);
	cli_close(&f);
}

static void t_states(struct tt *t)
{
	struct cli_fixture f;
	struct tu_cmd a, b, c;

	lb_init(&f.b, 512);
	lb_random(&f.b, 5, 64, 200);
	TT_REQUIRE(t, cli_open(&f, 64));
	TT_CHECK_EQ(t, tu_lwreplay(&a, "states", f.log, "--seed", "9", NULL), 0);
	TT_CHECK_EQ(t, tu_lwreplay(&b, "states", "--seed=9", f.log, NULL), 0);
	TT_CHECK_EQ(t, tu_lwreplay(&c, "states", f.log, "--seed", "10",
				   "--budget", "3", NULL), 0);
	TT_CHECK_STR(t, a.out, b.out);		/* deterministic */
	TT_CHECK(t, strcmp(a.out, c.out) != 0);
	/* budget 3: at most 3 per point */
	TT_CHECK(t, count_lines(c.out, "") < count_lines(a.out, ""));
	char want[64];
	size_t n = count_lines(a.out, "") - 1;

	snprintf(want, sizeof(want), "\n%zu states\n", n);
	TT_CHECK_CONTAINS(t, a.out, want);
	tu_cmd_free(&a);
	tu_cmd_free(&b);
	tu_cmd_free(&c);
	cli_close(&f);
}

/* Every recipe states prints, applied with the CLI, equals the reference. */
static void t_apply_matches_reference(struct tt *t)
{
	struct cli_fixture f;
	struct tu_cmd r, s;
	char *line, *save = NULL;
	size_t checked = 0;

	lb_init(&f.b, 512);
	lb_random(&f.b, 8, 16, 40);
	TT_REQUIRE(t, cli_open(&f, 16));
	TT_REQUIRE(t, tu_lwreplay(&s, "states", f.log, "--budget", "4", NULL) == 0);
	for (line = strtok_r(s.out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct crash_state st;
		char err[LW_ERRLEN];

		if (crash_parse_recipe(line, &st, err, sizeof(err)) < 0)
			continue;	/* the count line */
		TT_REQUIRE(t, reset_dev(&f));
		TT_CHECK_EQ(t, tu_lwreplay(&r, "apply", f.log, f.dev, line, NULL), 0);
		if (!TT_CHECK(t, dev_is(&f, f.dev, st.point, st.rule)))
			fprintf(stderr, "  recipe %s\n", line);
		tu_cmd_free(&r);
		checked++;
	}
	TT_CHECK(t, checked > 20);
	tu_cmd_free(&s);
	cli_close(&f);
}

static void t_apply_recipe_errors(struct tt *t)
{
	struct cli_fixture f;
	struct tu_cmd r;

	small_log(&f.b);
	TT_REQUIRE(t, cli_open(&f, 16));
	TT_CHECK_EQ(t, tu_lwreplay(&r, "apply", f.log, f.dev, "9:none", NULL), 2);
	TT_CHECK_CONTAINS(t, r.err, "recipe point 9 is past the last entry (9 entries)");
	tu_cmd_free(&r);
	/* at point 4 entries 3 and 4 are unflushed */
	TT_CHECK_EQ(t, tu_lwreplay(&r, "apply", f.log, f.dev, "4:drop:2", NULL), 2);
	TT_CHECK_CONTAINS(t, r.err, "more unflushed writes than the 2 at point 4");
	tu_cmd_free(&r);
	TT_CHECK_EQ(t, tu_lwreplay(&r, "apply", f.log, f.dev, "4:drop:1", NULL), 0);
	TT_CHECK(t, dev_is(&f, f.dev, 4, (struct crash_rule){ CRASH_DROP, 1 }));
	tu_cmd_free(&r);
	cli_close(&f);
}

/* Of the states run will check, how many hold marker at byte off. */
static size_t states_holding(struct cli_fixture *f, const unsigned char *marker,
			     size_t len, size_t off, size_t *states)
{
	struct tu_cmd r;
	size_t n = 0;

	*states = 0;
	tu_lwreplay(&r, "states", f->log, NULL);
	for (char *save = NULL, *l = strtok_r(r.out, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		struct crash_state s;
		char err[LW_ERRLEN];
		unsigned char *img;

		if (crash_parse_recipe(l, &s, err, sizeof(err)) < 0)
			continue;
		img = ref_image(&f->b, f->base, f->dev_size, s.point, &s.rule);
		n += !memcmp(img + off, marker, len);
		(*states)++;
		free(img);
	}
	tu_cmd_free(&r);
	return n;
}

/* A checker that logs its environment; exit 2 if sector 8 holds marker. */
static char *marker_checker(struct cli_fixture *f, const char *marker_path)
{
	char body[1024];

	snprintf(body, sizeof(body),
		 "#!/bin/sh\n"
		 "echo \"$LWR_RECIPE|$LWR_POINT|$LWR_MARK\" >> %s/env\n"
		 "cmp -s -i 4096:0 -n 512 \"$LWR_DEV\" %s && exit 2\n"
		 "exit 0\n", f->dir, marker_path);
	return write_script(f, "check.sh", body);
}

static void check_checker_env(struct tt *t, struct cli_fixture *f)
{
	char *env_path = tu_path(f->dir, "env");
	size_t len;
	char *env = (char *)tu_read_file(env_path, &len);

	/* point 2 is the mkfs mark, point 0 comes before any mark */
	TT_CHECK_CONTAINS(t, env, "2:none|2|mkfs\n");
	TT_CHECK_CONTAINS(t, env, "0:none|0|\n");
	TT_CHECK_CONTAINS(t, env, "8:none|8|end\n");
	free(env);
	free(env_path);
}

/* Checker: corruption (exit 2) whenever sector 8 holds entry 3's data. */
static void t_run_marker(struct tt *t)
{
	struct cli_fixture f;
	struct tu_cmd r;
	unsigned char marker[512];
	char *script, *marker_path, want[64];
	size_t want_failures, states;

	small_log(&f.b);
	TT_REQUIRE(t, cli_open(&f, 16));
	for (size_t j = 0; j < 512; j++)
		marker[j] = lb_data_byte(3, j);
	marker_path = tu_path(f.dir, "marker");
	tu_write_file(marker_path, marker, sizeof(marker));
	script = marker_checker(&f, marker_path);
	want_failures = states_holding(&f, marker, 512, 4096, &states);
	TT_CHECK(t, want_failures > 0 && want_failures < states);
	TT_CHECK_EQ(t, tu_lwreplay(&r, "run", f.log, f.dev, "--", script, NULL), 1);
	TT_CHECK_EQ(t, count_lines(r.out, "FAILURE fsck-corrupt "), want_failures);
	TT_CHECK_CONTAINS(t, r.out, "fsck-corrupt   ");
	TT_CHECK_CONTAINS(t, r.out, "states/s)");
	snprintf(want, sizeof(want), "states checked: %zu of %zu", states, states);
	TT_CHECK_CONTAINS(t, r.out, want);
	tu_cmd_free(&r);
	check_checker_env(t, &f);
	free(script);
	free(marker_path);
	cli_close(&f);
}

/* Snapshots of DEV taken by the checker equal the reference states. */
static void t_run_snapshots_match_reference(struct tt *t)
{
	struct cli_fixture f;
	struct tu_cmd r;
	char body[512], *script;
	size_t checked = 0;

	lb_init(&f.b, 512);
	lb_random(&f.b, 21, 16, 80);
	TT_REQUIRE(t, cli_open(&f, 16));
	snprintf(body, sizeof(body),
		 "#!/bin/sh\ncp \"$LWR_DEV\" \"%s/snap-$LWR_RECIPE\"\n", f.dir);
	script = write_script(&f, "snap.sh", body);
	TT_CHECK_EQ(t, tu_lwreplay(&r, "run", f.log, f.dev, "--budget", "5",
				   "--seed", "3", "--", script, NULL), 0);
	tu_cmd_free(&r);
	TT_REQUIRE(t, tu_lwreplay(&r, "states", f.log, "--budget", "5",
				  "--seed", "3", NULL) == 0);
	for (char *save = NULL, *l = strtok_r(r.out, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		struct crash_state s;
		char err[LW_ERRLEN], name[128], *snap;

		if (crash_parse_recipe(l, &s, err, sizeof(err)) < 0)
			continue;
		snprintf(name, sizeof(name), "snap-%s", l);
		snap = tu_path(f.dir, name);
		if (!TT_CHECK(t, dev_is(&f, snap, s.point, s.rule)))
			fprintf(stderr, "  snapshot %s\n", l);
		free(snap);
		checked++;
	}
	TT_CHECK(t, checked > 30);
	/* DEV ends at the durable state of the last point */
	uint64_t last = f.b.n - 1;

	TT_CHECK(t, dev_is(&f, f.dev, last, (struct crash_rule){ CRASH_NONE, 0 }));
	tu_cmd_free(&r);
	free(script);
	cli_close(&f);
}

static void t_run_checker_errors(struct tt *t)
{
	struct cli_fixture f;
	struct tu_cmd r;
	char *bad;

	small_log(&f.b);
	TT_REQUIRE(t, cli_open(&f, 16));
	bad = write_script(&f, "bad.sh", "#!/bin/sh\nexit 7\n");
	TT_CHECK_EQ(t, tu_lwreplay(&r, "run", f.log, f.dev, "--", bad, NULL), 5);
	TT_CHECK_CONTAINS(t, r.err, "checker exited with 7 at 0:none");
	/* the state was taken back: DEV is the durable state of point 0 */
	TT_CHECK(t, dev_is(&f, f.dev, 0, (struct crash_rule){ CRASH_NONE, 0 }));
	tu_cmd_free(&r);
	TT_CHECK_EQ(t, tu_lwreplay(&r, "run", f.log, f.dev, "--",
				   "/nonexistent/checker", NULL), 5);
	TT_CHECK_CONTAINS(t, r.err, "cannot run checker /nonexistent/checker");
	tu_cmd_free(&r);
	TT_CHECK_EQ(t, tu_lwreplay(&r, "run", f.log, f.dev, "--", "/bin/sh",
				   "-c", "kill -9 $$", NULL), 5);
	TT_CHECK_CONTAINS(t, r.err, "checker killed by signal 9");
	tu_cmd_free(&r);
	free(bad);
	cli_close(&f);
}

static void t_run_classes_progress_max(struct tt *t)
{
	struct cli_fixture f;
	struct tu_cmd r;
	char *chk;

	small_log(&f.b);
	TT_REQUIRE(t, cli_open(&f, 16));
	/* point 0 mount fails, point 1 data lost, the rest fine */
	chk = write_script(&f, "c.sh",
			   "#!/bin/sh\necho checker-output\n"
			   "case $LWR_POINT in 0) exit 1;; 1) exit 3;; esac\nexit 0\n");
	TT_CHECK_EQ(t, tu_lwreplay(&r, "run", f.log, f.dev, "--max-states", "4",
				   "--progress-every", "2", "--", chk, NULL), 1);
	TT_CHECK_CONTAINS(t, r.out, "FAILURE mount-failed 0:");
	TT_CHECK_CONTAINS(t, r.out, "FAILURE data-lost 1:");
	TT_CHECK_CONTAINS(t, r.out, "states checked: 4 of 4");
	TT_CHECK(t, !strstr(r.out, "checker-output"));	/* stdout stays clean */
	TT_CHECK_CONTAINS(t, r.err, "checker-output");
	TT_CHECK_CONTAINS(t, r.err, "2/4 states");
	TT_CHECK_CONTAINS(t, r.err, "4/4 states");
	tu_cmd_free(&r);
	free(chk);
	cli_close(&f);
}

static void t_run_empty_log(struct tt *t)
{
	struct cli_fixture f;
	struct tu_cmd r;

	lb_init(&f.b, 512);
	TT_REQUIRE(t, cli_open(&f, 4));
	TT_CHECK_EQ(t, tu_lwreplay(&r, "run", f.log, f.dev, "--", "/bin/false",
				   NULL), 0);
	TT_CHECK_CONTAINS(t, r.out, "states checked: 0 of 0");
	tu_cmd_free(&r);
	cli_close(&f);
}

static void corrupt(const char *path, size_t off, unsigned char v)
{
	size_t len;
	unsigned char *buf = tu_read_file(path, &len);

	if (off < len)
		buf[off] = v;
	tu_write_file(path, buf, len);
	free(buf);
}

static void t_bad_input_exit_codes(struct tt *t)
{
	struct cli_fixture f;
	struct tu_cmd r;
	char *missing;

	small_log(&f.b);
	TT_REQUIRE(t, cli_open(&f, 8));	/* entry 3 writes sector 8: too big */
	TT_CHECK_EQ(t, tu_lwreplay(&r, "apply", f.log, f.dev, "0:none", NULL), 3);
	TT_CHECK_CONTAINS(t, r.err, "entry 3 at byte");
	TT_CHECK_CONTAINS(t, r.err, "past the end of DEV (4096 bytes)");
	tu_cmd_free(&r);
	TT_CHECK_EQ(t, tu_lwreplay(&r, "run", f.log, f.dev, "--", "true", NULL), 3);
	TT_CHECK_CONTAINS(t, r.err, "past the end of DEV");
	tu_cmd_free(&r);
	missing = tu_path(f.dir, "nodev");
	TT_CHECK_EQ(t, tu_lwreplay(&r, "apply", f.log, missing, "0:none", NULL), 4);
	TT_CHECK_CONTAINS(t, r.err, "cannot open DEV");
	tu_cmd_free(&r);
	corrupt(f.log, 512 + 8, 0);	/* entry 0: zero-length write */
	TT_CHECK_EQ(t, tu_lwreplay(&r, "info", f.log, NULL), 3);
	TT_CHECK_CONTAINS(t, r.err, "entry 0 at byte 512: zero-length write");
	tu_cmd_free(&r);
	corrupt(f.log, 3, 0xff);	/* magic */
	TT_CHECK_EQ(t, tu_lwreplay(&r, "states", f.log, NULL), 3);
	TT_CHECK_CONTAINS(t, r.err, "bad magic");
	tu_cmd_free(&r);
	TT_CHECK_EQ(t, tu_lwreplay(&r, "info", missing, NULL), 3);
	TT_CHECK_CONTAINS(t, r.err, "cannot open log");
	tu_cmd_free(&r);
	free(missing);
	cli_close(&f);
}

/* SIGTERM mid-run: the state is taken back, exit 6, summary printed. */
static void t_run_interrupted(struct tt *t)
{
	struct cli_fixture f;
	struct tu_cmd r;
	char *chk;

	small_log(&f.b);
	TT_REQUIRE(t, cli_open(&f, 16));
	chk = write_script(&f, "term.sh",
			   "#!/bin/sh\n"
			   "[ \"$LWR_RECIPE\" = 4:all ] && kill -TERM $PPID\n"
			   "exit 0\n");
	TT_CHECK_EQ(t, tu_lwreplay(&r, "run", f.log, f.dev, "--", chk, NULL), 6);
	TT_CHECK_CONTAINS(t, r.err, "interrupted; DEV holds the durable state of point 4");
	TT_CHECK_CONTAINS(t, r.out, "states checked:");
	TT_CHECK(t, dev_is(&f, f.dev, 4, (struct crash_rule){ CRASH_NONE, 0 }));
	tu_cmd_free(&r);
	free(chk);
	cli_close(&f);
}

const struct tt_case cli_cases[] = {
	TT_CASE(t_help),
	TT_CASE(t_usage_errors),
	TT_CASE(t_info),
	TT_CASE(t_states),
	TT_CASE(t_apply_matches_reference),
	TT_CASE(t_apply_recipe_errors),
	TT_CASE(t_run_marker),
	TT_CASE(t_run_snapshots_match_reference),
	TT_CASE(t_run_checker_errors),
	TT_CASE(t_run_classes_progress_max),
	TT_CASE(t_run_empty_log),
	TT_CASE(t_run_interrupted),
	TT_CASE(t_bad_input_exit_codes),
	{ 0 },
};
