// SPDX-License-Identifier: GPL-2.0
/* Applying states to a file-backed DEV, and taking them back. */
#include "../apply.h"
#include "logbuild.h"
#include "tinytest.h"

#include <unistd.h>

/* A saved log, opened, with its model and a DEV file holding base. */
struct dev_fixture {
	struct logbuild b;
	char *dir, *log_path, *dev_path;
	struct lw_log log;
	struct crash_model m;
	struct lw_dev dev;
	unsigned char *base;
	size_t dev_size;
};

static bool fixture_open(struct dev_fixture *f, size_t dev_size)
{
	char err[LW_ERRLEN];

	f->dir = tu_tmpdir();
	f->log_path = tu_path(f->dir, "log");
	f->dev_path = tu_path(f->dir, "dev");
	f->dev_size = dev_size;
	f->base = tu_pattern(dev_size, 7);
	if (lb_save(&f->b, f->log_path) < 0 ||
	    tu_write_file(f->dev_path, f->base, dev_size) < 0 ||
	    lwlog_open(f->log_path, &f->log, err, sizeof(err)) < 0 ||
	    crash_model_init(&f->m, f->log.entries, f->log.nr_entries) < 0 ||
	    dev_open(f->dev_path, &f->dev, err, sizeof(err)) < 0) {
		fprintf(stderr, "  fixture: %s\n", err);
		return false;
	}
	return true;
}

static void fixture_close(struct dev_fixture *f)
{
	dev_close(&f->dev);
	crash_model_free(&f->m);
	lwlog_close(&f->log);
	unlink(f->log_path);
	unlink(f->dev_path);
	rmdir(f->dir);
	free(f->base);
	free(f->log_path);
	free(f->dev_path);
	free(f->dir);
	lb_free(&f->b);
}

static bool dev_equals(struct dev_fixture *f, const unsigned char *want)
{
	size_t len;
	unsigned char *got = tu_read_file(f->dev_path, &len);
	bool ok = got && len == f->dev_size && !memcmp(got, want, len);

	free(got);
	return ok;
}

static bool reset_dev(struct dev_fixture *f)
{
	return tu_write_file(f->dev_path, f->base, f->dev_size) == 0;
}

static enum apply_result apply(struct dev_fixture *f, const struct idx_list *plan,
			       struct undo_log *undo)
{
	char err[LW_ERRLEN];
	enum apply_result r = dev_apply_plan(&f->dev, &f->log, plan, undo,
					     err, sizeof(err));

	if (r != APPLY_OK)
		fprintf(stderr, "  apply: %s\n", err);
	return r;
}

/* Mask for a rule at point p (unflushed list filled in u). */
static uint64_t *rule_mask(struct dev_fixture *f, const struct crash_state *s,
			   struct idx_list *u)
{
	uint64_t *mask;
	char err[LW_ERRLEN];

	crash_unflushed(&f->m, s->point, u);
	mask = calloc(crash_mask_words(u->n), sizeof(*mask));
	crash_rule_mask(&s->rule, s->point, u->n, mask, err, sizeof(err));
	return mask;
}

/* Fresh base, durable plan from -1, subset plan: what 'apply' does. */
static bool apply_from_base(struct dev_fixture *f, const struct crash_state *s)
{
	struct idx_list u = { 0 }, plan = { 0 };
	uint64_t *mask = rule_mask(f, s, &u);
	bool ok = reset_dev(f) &&
		  crash_durable_plan(&f->m, -1, s->point, &plan) == 0 &&
		  apply(f, &plan, NULL) == APPLY_OK &&
		  crash_subset_plan(&f->m, s->point, &u, mask, &plan) == 0 &&
		  apply(f, &plan, NULL) == APPLY_OK;

	free(mask);
	idx_list_free(&u);
	idx_list_free(&plan);
	return ok;
}

static bool matches_reference(struct dev_fixture *f, const struct crash_state *s)
{
	unsigned char *want = ref_image(&f->b, f->base, f->dev_size, s->point,
					&s->rule);
	bool ok = dev_equals(f, want);
	char recipe[80];

	if (!ok) {
		crash_format_recipe(recipe, sizeof(recipe), s);
		fprintf(stderr, "  DEV differs from the reference at %s\n", recipe);
	}
	free(want);
	return ok;
}

static void t_apply_matches_reference(struct tt *t)
{
	for (uint64_t seed = 1; seed <= 4; seed++) {
		struct dev_fixture f;
		struct crash_iter it;
		struct crash_state s;

		lb_init(&f.b, seed == 4 ? 4096 : 512);
		lb_random(&f.b, seed, 32, 60);
		TT_REQUIRE(t, fixture_open(&f, 32 * f.b.sectorsize));
		crash_iter_init(&it, &f.m, 6, seed);
		while (crash_iter_next(&it, &s) == 1) {
			TT_REQUIRE(t, apply_from_base(&f, &s));
			TT_CHECK(t, matches_reference(&f, &s));
		}
		crash_iter_free(&it);
		fixture_close(&f);
	}
}

/* One state the way run does it: durable forward, subset with undo. */
static bool run_step(struct tt *t, struct dev_fixture *f, int64_t *durable_at,
		     const struct crash_state *s, struct undo_log *undo)
{
	struct idx_list u = { 0 }, plan = { 0 };
	uint64_t *mask = rule_mask(f, s, &u);
	struct crash_state durable = { s->point, { CRASH_NONE, 0 } };
	char err[LW_ERRLEN];
	bool ok = crash_durable_plan(&f->m, *durable_at, s->point, &plan) == 0 &&
		  apply(f, &plan, NULL) == APPLY_OK;

	*durable_at = (int64_t)s->point;
	ok = ok && TT_CHECK(t, matches_reference(f, &durable));
	ok = ok && crash_subset_plan(&f->m, s->point, &u, mask, &plan) == 0 &&
	     apply(f, &plan, undo) == APPLY_OK &&
	     dev_sync(&f->dev, err, sizeof(err)) == APPLY_OK;
	ok = ok && TT_CHECK(t, matches_reference(f, s));
	ok = ok && dev_undo(&f->dev, undo, err, sizeof(err)) == APPLY_OK;
	ok = ok && TT_CHECK(t, matches_reference(f, &durable));
	ok = ok && TT_CHECK_EQ(t, undo->n, 0) && TT_CHECK_EQ(t, undo->bytes, 0);
	free(mask);
	idx_list_free(&u);
	idx_list_free(&plan);
	return ok;
}

/* The incremental path of run reaches exactly the reference states. */
static void t_run_sequence_matches_reference(struct tt *t)
{
	for (uint64_t seed = 10; seed <= 14; seed++) {
		struct dev_fixture f;
		struct crash_iter it;
		struct crash_state s;
		struct undo_log undo = { 0 };
		int64_t durable_at = -1;

		lb_init(&f.b, 512);
		lb_random(&f.b, seed, 24, 120);
		TT_REQUIRE(t, fixture_open(&f, 24 * 512));
		crash_iter_init(&it, &f.m, 5, seed);
		while (crash_iter_next(&it, &s) == 1 &&
		       run_step(t, &f, &durable_at, &s, &undo))
			;
		crash_iter_free(&it);
		undo_free(&undo);
		fixture_close(&f);
	}
}

/* DEV returns byte-identical after undo, even with overlapping writes. */
static void t_undo_roundtrip(struct tt *t)
{
	struct dev_fixture f;
	struct idx_list all = { 0 };
	struct undo_log undo = { 0 };
	char err[LW_ERRLEN];

	lb_init(&f.b, 512);
	lb_random(&f.b, 77, 16, 200);
	TT_REQUIRE(t, fixture_open(&f, 16 * 512));
	for (uint64_t e = 0; e < f.log.nr_entries; e++)
		idx_list_push(&all, e);
	TT_REQUIRE(t, apply(&f, &all, &undo) == APPLY_OK);
	TT_CHECK(t, !dev_equals(&f, f.base));
	TT_CHECK(t, undo.n > 0);
	TT_REQUIRE(t, dev_undo(&f.dev, &undo, err, sizeof(err)) == APPLY_OK);
	TT_CHECK(t, dev_equals(&f, f.base));
	undo_free(&undo);
	idx_list_free(&all);
	fixture_close(&f);
}

static void t_discard_writes_zeroes(struct tt *t)
{
	struct dev_fixture f;
	struct idx_list plan = { 0 };
	unsigned char *want;

	lb_init(&f.b, 512);
	lb_discard(&f.b, 2, 3);
	TT_REQUIRE(t, fixture_open(&f, 8 * 512));
	idx_list_push(&plan, 0);
	TT_REQUIRE(t, apply(&f, &plan, NULL) == APPLY_OK);
	want = malloc(f.dev_size);
	memcpy(want, f.base, f.dev_size);
	memset(want + 2 * 512, 0, 3 * 512);
	TT_CHECK(t, dev_equals(&f, want));
	free(want);
	idx_list_free(&plan);
	fixture_close(&f);
}

static void t_large_write_chunks(struct tt *t)
{
	struct dev_fixture f;
	struct crash_state s = { 1, { CRASH_ALL, 0 } };

	/* 3 MiB write: crosses the 1 MiB copy chunk */
	lb_init(&f.b, 4096);
	lb_write(&f.b, 1, 768);
	lb_flush(&f.b);
	TT_REQUIRE(t, fixture_open(&f, 800 * 4096));
	TT_REQUIRE(t, apply_from_base(&f, &s));
	TT_CHECK(t, matches_reference(&f, &s));
	fixture_close(&f);
}

static void t_dev_open_errors(struct tt *t)
{
	struct lw_dev dev;
	char err[LW_ERRLEN] = "";

	TT_CHECK(t, dev_open("/nonexistent/dev", &dev, err, sizeof(err)) < 0);
	TT_CHECK_CONTAINS(t, err, "cannot open DEV /nonexistent/dev");
	TT_CHECK(t, dev_open("/dev/null", &dev, err, sizeof(err)) < 0);
	TT_CHECK_CONTAINS(t, err, "need a regular file or a block device");
}

const struct tt_case apply_cases[] = {
	TT_CASE(t_apply_matches_reference),
	TT_CASE(t_run_sequence_matches_reference),
	TT_CASE(t_undo_roundtrip),
	TT_CASE(t_discard_writes_zeroes),
	TT_CASE(t_large_write_chunks),
	TT_CASE(t_dev_open_errors),
	{ 0 },
};
