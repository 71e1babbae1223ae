/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny unit test framework: no dependencies, one header.
 *
 * Each case runs in its own child process (with a timeout), so a crash or
 * a sanitizer abort fails that case only.  Output, one line per case:
 *   PASS <variant>/<suite>/<case>      or      FAIL ...
 * where <variant> comes from $TEST_VARIANT ("host" if unset).  A failed
 * check prints file:line and the expression on stderr.
 *
 *   static void t_parse(struct tt *t) { TT_CHECK(t, 1 + 1 == 2); }
 *   const struct tt_case my_cases[] = { TT_CASE(t_parse), { 0 } };
 *   ...
 *   int main(int argc, char **argv)
 *   {
 *           const struct tt_suite suites[] = { { "my", my_cases }, { 0 } };
 *           return tt_main(argc, argv, suites);
 *   }
 *
 * tt_main(argc, argv, ...) runs only cases whose full name contains
 * argv[1], when given.
 */
#ifndef TOOLS_TINYTEST_H
#define TOOLS_TINYTEST_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define TT_TIMEOUT_SECONDS	120

struct tt {
	const char *name;
	int failed;
};

struct tt_case {
	const char *name;
	void (*fn)(struct tt *t);
};

struct tt_suite {
	const char *name;
	const struct tt_case *cases;	/* ends with a { 0 } entry */
};

#define TT_CASE(fn)	{ #fn, fn }

static inline bool tt_check(struct tt *t, bool ok, const char *expr,
			    const char *file, int line)
{
	if (!ok) {
		fprintf(stderr, "  %s:%d: %s: check failed: %s\n", file, line,
			t->name, expr);
		t->failed++;
	}
	return ok;
}

static inline bool tt_check_u64(struct tt *t, uint64_t a, uint64_t b,
				const char *ea, const char *eb,
				const char *file, int line)
{
	if (a != b) {
		fprintf(stderr, "  %s:%d: %s: %s == %s: %" PRIu64 " != %" PRIu64 "\n",
			file, line, t->name, ea, eb, a, b);
		t->failed++;
	}
	return a == b;
}

static inline bool tt_check_str(struct tt *t, const char *a, const char *b,
				const char *ea, const char *file, int line)
{
	bool ok = a && b && !strcmp(a, b);

	if (!ok) {
		fprintf(stderr, "  %s:%d: %s: %s is \"%s\", expected \"%s\"\n",
			file, line, t->name, ea, a ? a : "(null)",
			b ? b : "(null)");
		t->failed++;
	}
	return ok;
}

static inline bool tt_check_contains(struct tt *t, const char *hay,
				     const char *needle, const char *ehay,
				     const char *file, int line)
{
	bool ok = hay && needle && strstr(hay, needle);

	if (!ok) {
		fprintf(stderr, "  %s:%d: %s: %s does not contain \"%s\": \"%s\"\n",
			file, line, t->name, ehay, needle ? needle : "(null)",
			hay ? hay : "(null)");
		t->failed++;
	}
	return ok;
}

#define TT_CHECK(t, cond) \
	tt_check((t), !!(cond), #cond, __FILE__, __LINE__)
#define TT_CHECK_EQ(t, a, b) \
	tt_check_u64((t), (uint64_t)(a), (uint64_t)(b), #a, #b, __FILE__, __LINE__)
#define TT_CHECK_STR(t, a, b) \
	tt_check_str((t), (a), (b), #a, __FILE__, __LINE__)
#define TT_CHECK_CONTAINS(t, hay, needle) \
	tt_check_contains((t), (hay), (needle), #hay, __FILE__, __LINE__)
/* Stop the case at the first failed requirement. */
#define TT_REQUIRE(t, cond) \
	do { if (!TT_CHECK(t, cond)) return; } while (0)

static inline void tt_child(const struct tt_case *c, const char *full)
{
	struct tt t = { .name = full, .failed = 0 };

	alarm(TT_TIMEOUT_SECONDS);
	c->fn(&t);
	fflush(NULL);
	_exit(t.failed ? 1 : 0);
}

/* Runs one case in a child; true if it passed. */
static inline bool tt_run_case(const struct tt_case *c, const char *full)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return false;
	}
	if (pid == 0)
		tt_child(c, full);
	if (waitpid(pid, &status, 0) < 0) {
		perror("waitpid");
		return false;
	}
	if (WIFSIGNALED(status))
		fprintf(stderr, "  %s: killed by signal %d\n", full,
			WTERMSIG(status));
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static inline int tt_main(int argc, char **argv, const struct tt_suite *suites)
{
	const char *variant = getenv("TEST_VARIANT");
	const char *filter = argc > 1 ? argv[1] : NULL;
	int failed = 0;
	char full[256];

	if (!variant || !*variant)
		variant = "host";
	for (const struct tt_suite *s = suites; s->name; s++) {
		for (const struct tt_case *c = s->cases; c->name; c++) {
			snprintf(full, sizeof(full), "%s/%s/%s", variant,
				 s->name, c->name);
			if (filter && !strstr(full, filter))
				continue;
			bool ok = tt_run_case(c, full);

			printf("%s %s\n", ok ? "PASS" : "FAIL", full);
			fflush(stdout);
			failed += !ok;
		}
	}
	return failed ? 1 : 0;
}

#endif /* TOOLS_TINYTEST_H */
