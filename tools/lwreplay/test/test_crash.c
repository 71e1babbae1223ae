// SPDX-License-Identifier: GPL-2.0
/* Crash-state enumeration: pure logic, no files. */
#include "logbuild.h"
#include "tinytest.h"

struct model_fixture {
	struct logbuild b;
	struct lw_entry *entries;
	struct crash_model m;
};

static bool fixture_init(struct model_fixture *f)
{
	f->entries = lb_entries(&f->b);
	return crash_model_init(&f->m, f->entries, f->b.n) == 0;
}

static void fixture_free(struct model_fixture *f)
{
	crash_model_free(&f->m);
	free(f->entries);
	lb_free(&f->b);
}

static bool list_is(const struct idx_list *l, const uint64_t *want, size_t n)
{
	if (l->n != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (l->v[i] != want[i])
			return false;
	return true;
}

#define LIST_IS(l, ...) \
	list_is((l), (const uint64_t[]){ __VA_ARGS__ }, \
		sizeof((const uint64_t[]){ __VA_ARGS__ }) / sizeof(uint64_t))

static void t_points(struct tt *t)
{
	struct model_fixture f;

	lb_init(&f.b, 512);
	for (int i = 0; i < 6; i++)
		lb_write(&f.b, (uint64_t)i, 1);	/* 0..5 */
	lb_flush(&f.b);				/* 6 */
	lb_mark(&f.b, "x");			/* 7 */
	lb_fua(&f.b, 0, 1);			/* 8 */
	lb_write(&f.b, 1, 1);			/* 9 */
	lb_write(&f.b, 2, 1);			/* 10 */
	TT_REQUIRE(t, fixture_init(&f));
	/* run 0..5: middle 2, last 5; keys 6 7 8; run 9..10: middle 9, last 10 */
	TT_CHECK(t, LIST_IS(&f.m.points, 2, 5, 6, 7, 8, 9, 10));
	fixture_free(&f);
}

static void t_points_empty_and_single(struct tt *t)
{
	struct model_fixture f;

	lb_init(&f.b, 512);
	TT_REQUIRE(t, fixture_init(&f));
	TT_CHECK_EQ(t, f.m.points.n, 0);
	fixture_free(&f);
	lb_init(&f.b, 512);
	lb_write(&f.b, 0, 1);
	TT_REQUIRE(t, fixture_init(&f));
	TT_CHECK(t, LIST_IS(&f.m.points, 0));
	fixture_free(&f);
}

/* 0 W, 1 W, 2 F, 3 W, 4 FUA, 5 W, 6 F+data, 7 W, 8 F, 9 M */
static void durable_log(struct logbuild *b)
{
	lb_init(b, 512);
	lb_write(b, 0, 1);
	lb_write(b, 1, 1);
	lb_flush(b);
	lb_write(b, 2, 1);
	lb_fua(b, 3, 1);
	lb_write(b, 4, 1);
	lb_add(b, 5, 1, LW_FLAG_FLUSH);
	lb_write(b, 6, 1);
	lb_flush(b);
	lb_mark(b, "end");
}

static void durable_set(const struct crash_model *m, uint64_t p,
			struct idx_list *out)
{
	out->n = 0;
	for (uint64_t e = 0; e < m->n; e++)
		if (crash_is_durable(m, e, p))
			idx_list_push(out, e);
}

static void t_durable_and_unflushed(struct tt *t)
{
	struct model_fixture f;
	struct idx_list d = { 0 }, u = { 0 };

	durable_log(&f.b);
	TT_REQUIRE(t, fixture_init(&f));
	durable_set(&f.m, 1, &d);
	crash_unflushed(&f.m, 1, &u);
	TT_CHECK(t, d.n == 0 && LIST_IS(&u, 0, 1));
	durable_set(&f.m, 2, &d);
	crash_unflushed(&f.m, 2, &u);
	TT_CHECK(t, LIST_IS(&d, 0, 1) && u.n == 0);
	durable_set(&f.m, 5, &d);
	crash_unflushed(&f.m, 5, &u);
	TT_CHECK(t, LIST_IS(&d, 0, 1, 4) && LIST_IS(&u, 3, 5));
	/* a flush with data: covers what came before, not its own data */
	durable_set(&f.m, 6, &d);
	crash_unflushed(&f.m, 6, &u);
	TT_CHECK(t, LIST_IS(&d, 0, 1, 3, 4, 5) && LIST_IS(&u, 6));
	crash_unflushed(&f.m, 7, &u);
	TT_CHECK(t, LIST_IS(&u, 6, 7));
	durable_set(&f.m, 9, &d);
	crash_unflushed(&f.m, 9, &u);
	TT_CHECK(t, LIST_IS(&d, 0, 1, 3, 4, 5, 6, 7) && u.n == 0);
	TT_CHECK_EQ(t, f.m.last_mark[8], -1);
	TT_CHECK_EQ(t, f.m.last_mark[9], 9);
	idx_list_free(&d);
	idx_list_free(&u);
	fixture_free(&f);
}

static uint64_t mask_of(const struct crash_rule *r, uint64_t p, size_t nr,
			int *rc)
{
	uint64_t mask[2] = { 0, 0 };
	char err[LW_ERRLEN];

	*rc = crash_rule_mask(r, p, nr, mask, err, sizeof(err));
	return mask[0];
}

static void t_rule_masks(struct tt *t)
{
	int rc;

	TT_CHECK_EQ(t, mask_of(&(struct crash_rule){ CRASH_NONE, 0 }, 1, 5, &rc), 0);
	TT_CHECK_EQ(t, mask_of(&(struct crash_rule){ CRASH_ALL, 0 }, 1, 5, &rc), 0x1f);
	TT_CHECK_EQ(t, mask_of(&(struct crash_rule){ CRASH_DROP, 2 }, 1, 5, &rc), 0x1b);
	TT_CHECK_EQ(t, mask_of(&(struct crash_rule){ CRASH_DROP, 0 }, 1, 5, &rc), 0x1e);
	TT_CHECK_EQ(t, mask_of(&(struct crash_rule){ CRASH_PREFIX, 3 }, 1, 5, &rc), 0x7);
	TT_CHECK_EQ(t, mask_of(&(struct crash_rule){ CRASH_PREFIX, 5 }, 1, 5, &rc), 0x1f);
	TT_CHECK(t, rc == 0);
	mask_of(&(struct crash_rule){ CRASH_DROP, 5 }, 1, 5, &rc);
	TT_CHECK(t, rc < 0);
	mask_of(&(struct crash_rule){ CRASH_PREFIX, 6 }, 1, 5, &rc);
	TT_CHECK(t, rc < 0);
	/* drop across a word boundary */
	uint64_t big[2];
	char err[LW_ERRLEN];

	TT_CHECK(t, crash_rule_mask(&(struct crash_rule){ CRASH_DROP, 70 }, 0, 100,
				    big, err, sizeof(err)) == 0);
	TT_CHECK_EQ(t, big[0], UINT64_MAX);
	TT_CHECK_EQ(t, big[1], ((1ULL << 36) - 1) & ~(1ULL << 6));
}

static size_t popcount_mask(const uint64_t *m, size_t nr)
{
	size_t c = 0;

	for (size_t i = 0; i < nr; i++)
		c += crash_mask_test(m, i);
	return c;
}

static void t_rule_rand(struct tt *t)
{
	enum { NR = 1000, W = (NR + 63) / 64 };
	uint64_t a[W], b[W], c[W], d[W];
	char err[LW_ERRLEN];
	struct crash_rule r = { CRASH_RAND, 12345 };

	crash_rule_mask(&r, 7, NR, a, err, sizeof(err));
	crash_rule_mask(&r, 7, NR, b, err, sizeof(err));
	TT_CHECK(t, !memcmp(a, b, sizeof(a)));		/* deterministic */
	crash_rule_mask(&r, 8, NR, c, err, sizeof(err));
	TT_CHECK(t, memcmp(a, c, sizeof(a)) != 0);	/* point mixed in */
	r.arg = 12346;
	crash_rule_mask(&r, 7, NR, d, err, sizeof(err));
	TT_CHECK(t, memcmp(a, d, sizeof(a)) != 0);	/* seed matters */
	TT_CHECK(t, popcount_mask(a, NR) > 400 && popcount_mask(a, NR) < 600);
	/* bits past nr stay clear, so masks compare as subsets */
	TT_CHECK_EQ(t, a[W - 1] >> (NR % 64), 0);
}

static bool rules_equal(const struct crash_rule *a, size_t na,
			const struct crash_rule *b, size_t nb)
{
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++)
		if (a[i].kind != b[i].kind || a[i].arg != b[i].arg)
			return false;
	return true;
}

static bool all_subsets_distinct(const struct crash_rule *r, size_t n,
				 uint64_t p, size_t nr)
{
	size_t words = crash_mask_words(nr);
	uint64_t *m = calloc(n * words, sizeof(*m));
	char err[LW_ERRLEN];
	bool ok = true;

	for (size_t i = 0; i < n; i++)
		ok &= crash_rule_mask(&r[i], p, nr, m + i * words, err,
				      sizeof(err)) == 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < i; j++)
			ok &= memcmp(m + i * words, m + j * words,
				     words * sizeof(*m)) != 0;
	free(m);
	return ok;
}

static void t_point_rules_small(struct tt *t)
{
	struct crash_rule *r;
	size_t n;

	TT_REQUIRE(t, crash_point_rules(3, 0, 8, 1, &r, &n) == 0);
	TT_CHECK(t, n == 1 && r[0].kind == CRASH_NONE);	/* none == all */
	free(r);
	TT_REQUIRE(t, crash_point_rules(3, 1, 8, 1, &r, &n) == 0);
	TT_CHECK(t, n == 2 && r[0].kind == CRASH_NONE && r[1].kind == CRASH_ALL);
	free(r);
	/* 3 writes, room for all: drops and prefixes in order, then rand */
	TT_REQUIRE(t, crash_point_rules(3, 3, 100, 1, &r, &n) == 0);
	TT_CHECK(t, n >= 6 && n <= 8);
	TT_CHECK(t, r[2].kind == CRASH_DROP && r[2].arg == 0);
	TT_CHECK(t, r[4].kind == CRASH_DROP && r[4].arg == 2);
	TT_CHECK(t, r[5].kind == CRASH_PREFIX && r[5].arg == 1);
	TT_CHECK(t, all_subsets_distinct(r, n, 3, 3));
	free(r);
}

static void t_point_rules_budget(struct tt *t)
{
	struct crash_rule *r;
	size_t n;

	for (unsigned budget = 0; budget <= 2; budget++) {
		TT_REQUIRE(t, crash_point_rules(9, 50, budget, 1, &r, &n) == 0);
		TT_CHECK_EQ(t, n, 2);
		free(r);
	}
	TT_REQUIRE(t, crash_point_rules(9, 50, 5, 1, &r, &n) == 0);
	TT_CHECK_EQ(t, n, 5);
	TT_CHECK(t, r[0].kind == CRASH_NONE && r[1].kind == CRASH_ALL);
	free(r);
}

static void t_point_rules_deterministic(struct tt *t)
{
	struct crash_rule *a, *b;
	size_t na, nb;
	int differ = 0;

	TT_REQUIRE(t, crash_point_rules(9, 50, 8, 42, &a, &na) == 0);
	TT_REQUIRE(t, crash_point_rules(9, 50, 8, 42, &b, &nb) == 0);
	TT_CHECK(t, rules_equal(a, na, b, nb));
	free(b);
	for (uint64_t seed = 43; seed < 48; seed++) {
		TT_REQUIRE(t, crash_point_rules(9, 50, 8, seed, &b, &nb) == 0);
		differ += !rules_equal(a, na, b, nb);
		free(b);
	}
	TT_CHECK(t, differ >= 4);
	free(a);
}

/* Property: never a duplicate subset, never over budget, none/all first. */
static void t_point_rules_properties(struct tt *t)
{
	for (size_t nr = 0; nr < 40; nr++) {
		for (unsigned budget = 0; budget < 20; budget += 3) {
			struct crash_rule *r;
			size_t n, max = budget < 2 ? 2 : budget;

			TT_REQUIRE(t, crash_point_rules(nr, nr, budget, nr * 7,
							&r, &n) == 0);
			TT_CHECK(t, n <= max && n >= 1);
			TT_CHECK(t, r[0].kind == CRASH_NONE);
			TT_CHECK(t, nr == 0 || r[1].kind == CRASH_ALL);
			TT_CHECK(t, all_subsets_distinct(r, n, nr, nr));
			free(r);
		}
	}
}

static void t_recipe_roundtrip(struct tt *t)
{
	static const char *const good[] = {
		"0:none", "1234:all", "1234:drop:3", "7:prefix:0",
		"18446744073709551615:rand:4294967295",
	};
	char buf[80], err[LW_ERRLEN];
	struct crash_state s;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		TT_CHECK(t, crash_parse_recipe(good[i], &s, err, sizeof(err)) == 0);
		crash_format_recipe(buf, sizeof(buf), &s);
		TT_CHECK_STR(t, buf, good[i]);
	}
	crash_parse_recipe("1234:drop:3", &s, err, sizeof(err));
	TT_CHECK(t, s.point == 1234 && s.rule.kind == CRASH_DROP && s.rule.arg == 3);
}

static void t_recipe_bad(struct tt *t)
{
	static const char *const bad[] = {
		"", "12", ":none", "x:none", "12:none:3", "12:all:", "12:drop",
		"12:drop:", "12:drop:x", "-1:none", "12:bogus", "12:prefix:-1",
		"99999999999999999999:none", "12 :none", "12:none ",
		"12:rand:1:2", "0x10:none", "12:NONE",
	};
	char err[LW_ERRLEN];
	struct crash_state s;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (!TT_CHECK(t, crash_parse_recipe(bad[i], &s, err, sizeof(err)) < 0))
			fprintf(stderr, "  accepted '%s'\n", bad[i]);
		TT_CHECK_CONTAINS(t, err, "bad recipe");
	}
}

/*
 * An unflushed write W then a FUA write U to the same block: when W turns
 * durable, U must be written again after it (log order: U wins).
 */
static void t_plans_keep_log_order(struct tt *t)
{
	struct model_fixture f;
	struct idx_list plan = { 0 }, u = { 0 };
	uint64_t keep_all = 1;

	lb_init(&f.b, 512);
	lb_write(&f.b, 5, 1);	/* 0 */
	lb_fua(&f.b, 5, 1);	/* 1 */
	lb_flush(&f.b);		/* 2 */
	TT_REQUIRE(t, fixture_init(&f));
	crash_durable_plan(&f.m, -1, 1, &plan);
	TT_CHECK(t, LIST_IS(&plan, 1));
	crash_durable_plan(&f.m, 1, 2, &plan);
	TT_CHECK(t, LIST_IS(&plan, 0, 1));
	crash_durable_plan(&f.m, 2, 2, &plan);
	TT_CHECK_EQ(t, plan.n, 0);
	crash_unflushed(&f.m, 1, &u);
	crash_subset_plan(&f.m, 1, &u, &keep_all, &plan);
	TT_CHECK(t, LIST_IS(&plan, 0, 1));
	idx_list_free(&plan);
	idx_list_free(&u);
	fixture_free(&f);
}

static void t_iter_order(struct tt *t)
{
	struct model_fixture f;
	struct crash_iter it;
	struct crash_state s;
	uint64_t last = 0, count = 0, expect = 0;
	int got;

	lb_init(&f.b, 512);
	lb_random(&f.b, 99, 64, 300);
	TT_REQUIRE(t, fixture_init(&f));
	crash_iter_init(&it, &f.m, 6, 3);
	while ((got = crash_iter_next(&it, &s)) == 1) {
		TT_CHECK(t, s.point >= last);
		last = s.point;
		count++;
	}
	TT_CHECK_EQ(t, got, 0);
	TT_CHECK_EQ(t, crash_iter_next(&it, &s), 0);	/* stays done */
	crash_iter_free(&it);
	for (size_t i = 0; i < f.m.points.n; i++) {
		struct idx_list u = { 0 };
		struct crash_rule *r;
		size_t n;

		crash_unflushed(&f.m, f.m.points.v[i], &u);
		crash_point_rules(f.m.points.v[i], u.n, 6, 3, &r, &n);
		expect += n;
		free(r);
		idx_list_free(&u);
	}
	TT_CHECK_EQ(t, count, expect);
	fixture_free(&f);
}

const struct tt_case crash_cases[] = {
	TT_CASE(t_points),
	TT_CASE(t_points_empty_and_single),
	TT_CASE(t_durable_and_unflushed),
	TT_CASE(t_rule_masks),
	TT_CASE(t_rule_rand),
	TT_CASE(t_point_rules_small),
	TT_CASE(t_point_rules_budget),
	TT_CASE(t_point_rules_deterministic),
	TT_CASE(t_point_rules_properties),
	TT_CASE(t_recipe_roundtrip),
	TT_CASE(t_recipe_bad),
	TT_CASE(t_plans_keep_log_order),
	TT_CASE(t_iter_order),
	{ 0 },
};
