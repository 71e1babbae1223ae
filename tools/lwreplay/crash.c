// SPDX-License-Identifier: GPL-2.0
#include "crash.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY_FLAGS	(LW_FLAG_FLUSH | LW_FLAG_FUA | LW_FLAG_MARK)

int idx_list_push(struct idx_list *l, uint64_t v)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		uint64_t *nv = realloc(l->v, cap * sizeof(*nv));

		if (!nv)
			return -1;
		l->v = nv;
		l->cap = cap;
	}
	l->v[l->n++] = v;
	return 0;
}

void idx_list_free(struct idx_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

uint64_t crash_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Seed a PRNG from a seed and a crash point, so points get unrelated streams. */
static uint64_t mix_seed(uint64_t seed, uint64_t point)
{
	uint64_t s = point * 0xd1342543de82ef95ULL + 1;

	return seed ^ crash_splitmix64(&s);
}

static bool is_key_entry(const struct lw_entry *e)
{
	return e->flags & KEY_FLAGS;
}

/* Middle and last entry of a run of writes between key entries. */
static int add_run_points(struct idx_list *pts, uint64_t start, uint64_t end)
{
	uint64_t mid;

	if (start == end)
		return 0;
	mid = start + (end - start - 1) / 2;
	if (idx_list_push(pts, mid) < 0)
		return -1;
	if (end - 1 != mid && idx_list_push(pts, end - 1) < 0)
		return -1;
	return 0;
}

/*
 * Every FLUSH, FUA and MARK entry, and for each run of plain writes
 * between them its middle write and its last write (the last write
 * before a flush is where the most writes are in flight).
 */
static int find_points(struct crash_model *m)
{
	uint64_t run_start = 0;

	for (uint64_t i = 0; i < m->n; i++) {
		if (!is_key_entry(&m->entries[i]))
			continue;
		if (add_run_points(&m->points, run_start, i) < 0 ||
		    idx_list_push(&m->points, i) < 0)
			return -1;
		run_start = i + 1;
	}
	return add_run_points(&m->points, run_start, m->n);
}

static void index_flushes_and_marks(struct crash_model *m)
{
	int64_t flush = -1, mark = -1;

	for (uint64_t i = 0; i < m->n; i++) {
		if (m->entries[i].flags & LW_FLAG_FLUSH)
			flush = (int64_t)i;
		if (m->entries[i].flags & LW_FLAG_MARK)
			mark = (int64_t)i;
		m->last_flush[i] = flush;
		m->last_mark[i] = mark;
	}
}

int crash_model_init(struct crash_model *m, const struct lw_entry *entries,
		     uint64_t n)
{
	memset(m, 0, sizeof(*m));
	m->entries = entries;
	m->n = n;
	m->last_flush = calloc(n ? n : 1, sizeof(*m->last_flush));
	m->last_mark = calloc(n ? n : 1, sizeof(*m->last_mark));
	if (!m->last_flush || !m->last_mark)
		goto fail;
	index_flushes_and_marks(m);
	if (find_points(m) < 0)
		goto fail;
	return 0;
fail:
	crash_model_free(m);
	return -1;
}

void crash_model_free(struct crash_model *m)
{
	free(m->last_flush);
	free(m->last_mark);
	idx_list_free(&m->points);
	memset(m, 0, sizeof(*m));
}

bool crash_is_durable(const struct crash_model *m, uint64_t e, uint64_t p)
{
	const struct lw_entry *ent = &m->entries[e];

	if (e > p || !lw_entry_changes_dev(ent))
		return false;
	return (int64_t)e < m->last_flush[p] || (ent->flags & LW_FLAG_FUA);
}

/* First entry that can be unflushed at p: nothing before the last flush. */
static uint64_t unflushed_start(const struct crash_model *m, uint64_t p)
{
	return m->last_flush[p] < 0 ? 0 : (uint64_t)m->last_flush[p];
}

int crash_unflushed(const struct crash_model *m, uint64_t p,
		    struct idx_list *out)
{
	out->n = 0;
	for (uint64_t e = unflushed_start(m, p); e <= p; e++) {
		if (!lw_entry_changes_dev(&m->entries[e]) ||
		    crash_is_durable(m, e, p))
			continue;
		if (idx_list_push(out, e) < 0)
			return -1;
	}
	return 0;
}

size_t crash_mask_words(size_t nr_unflushed)
{
	return nr_unflushed ? (nr_unflushed + 63) / 64 : 1;
}

static void mask_set(uint64_t *mask, size_t i)
{
	mask[i / 64] |= 1ULL << (i % 64);
}

static void mask_fill_prefix(uint64_t *mask, size_t count)
{
	for (size_t i = 0; i < count; i++)
		mask_set(mask, i);
}

static void mask_fill_rand(uint64_t *mask, size_t nr, uint64_t seed,
			   uint64_t p)
{
	uint64_t state = mix_seed(seed, p);

	for (size_t i = 0; i < nr; i++) {
		if (crash_splitmix64(&state) >> 63)
			mask_set(mask, i);
	}
}

int crash_rule_mask(const struct crash_rule *r, uint64_t p, size_t nr,
		    uint64_t *mask, char *err, size_t errlen)
{
	memset(mask, 0, crash_mask_words(nr) * sizeof(*mask));
	switch (r->kind) {
	case CRASH_NONE:
		return 0;
	case CRASH_ALL:
		mask_fill_prefix(mask, nr);
		return 0;
	case CRASH_DROP:
		if (r->arg >= nr)
			break;
		mask_fill_prefix(mask, nr);
		mask[r->arg / 64] &= ~(1ULL << (r->arg % 64));
		return 0;
	case CRASH_PREFIX:
		if (r->arg > nr)
			break;
		mask_fill_prefix(mask, (size_t)r->arg);
		return 0;
	case CRASH_RAND:
		mask_fill_rand(mask, nr, r->arg, p);
		return 0;
	}
	snprintf(err, errlen,
		 "rule needs more unflushed writes than the %zu at point %" PRIu64
		 " (drop:K needs K < %zu, prefix:K needs K <= %zu)",
		 nr, p, nr, nr);
	return -1;
}

/* Candidates beyond none/all: every drop:K and prefix:K, and rand seeds. */
static int build_pool(uint64_t p, size_t nr, size_t slots, uint64_t seed,
		      struct crash_rule **pool, size_t *count)
{
	size_t n = 0, total = nr + (nr ? nr - 1 : 0) + slots;
	uint64_t state = mix_seed(seed, p);

	*pool = calloc(total ? total : 1, sizeof(**pool));
	if (!*pool)
		return -1;
	for (size_t k = 0; k < nr; k++)
		(*pool)[n++] = (struct crash_rule){ CRASH_DROP, k };
	for (size_t k = 1; k < nr; k++)
		(*pool)[n++] = (struct crash_rule){ CRASH_PREFIX, k };
	for (size_t i = 0; i < slots; i++) {
		uint64_t s = crash_splitmix64(&state) & 0xffffffffULL;

		(*pool)[n++] = (struct crash_rule){ CRASH_RAND, s };
	}
	*count = n;
	return 0;
}

/* Fisher-Yates with our own PRNG: same seed, same order, on any libc. */
static void shuffle_rules(struct crash_rule *r, size_t n, uint64_t seed,
			  uint64_t p)
{
	uint64_t state = mix_seed(seed ^ 0x5851f42d4c957f2dULL, p);

	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)(crash_splitmix64(&state) % i);
		struct crash_rule t = r[i - 1];

		r[i - 1] = r[j];
		r[j] = t;
	}
}

static bool mask_seen(const uint64_t *masks, size_t nr_masks,
		      const uint64_t *mask, size_t words)
{
	for (size_t i = 0; i < nr_masks; i++) {
		if (!memcmp(masks + i * words, mask, words * sizeof(*mask)))
			return true;
	}
	return false;
}

/*
 * Append r to out if its subset is new; masks holds the subsets taken so
 * far and has room for one more.
 */
static void take_if_new(uint64_t p, size_t nr, const struct crash_rule *r,
			struct crash_rule *out, size_t *count, uint64_t *masks)
{
	size_t words = crash_mask_words(nr);
	uint64_t *mask = masks + *count * words;
	char err[8];

	if (crash_rule_mask(r, p, nr, mask, err, sizeof(err)) < 0)
		return;
	if (mask_seen(masks, *count, mask, words))
		return;
	out[(*count)++] = *r;
}

int crash_point_rules(uint64_t p, size_t nr_unflushed, unsigned budget,
		      uint64_t seed, struct crash_rule **rules, size_t *count)
{
	size_t max = budget < 2 ? 2 : budget;
	size_t slots = max - 2, nr_pool = 0, nr_fixed;
	struct crash_rule *pool = NULL, *out;
	const struct crash_rule none = { CRASH_NONE, 0 }, all = { CRASH_ALL, 0 };
	uint64_t *masks;

	*count = 0;
	out = calloc(max, sizeof(*out));
	masks = calloc(max * crash_mask_words(nr_unflushed), sizeof(*masks));
	if (!out || !masks || build_pool(p, nr_unflushed, slots, seed,
					 &pool, &nr_pool) < 0)
		goto fail;
	/* Keep drop/prefix in natural order when they all fit. */
	nr_fixed = nr_pool - slots;
	if (nr_fixed > slots)
		shuffle_rules(pool, nr_pool, seed, p);
	take_if_new(p, nr_unflushed, &none, out, count, masks);
	take_if_new(p, nr_unflushed, &all, out, count, masks);
	for (size_t i = 0; i < nr_pool && *count < max; i++)
		take_if_new(p, nr_unflushed, &pool[i], out, count, masks);
	free(pool);
	free(masks);
	*rules = out;
	return 0;
fail:
	free(pool);
	free(masks);
	free(out);
	return -1;
}

/* First entry in [start, to] durable at to but not at from (-1: base). */
static int64_t first_newly_durable(const struct crash_model *m, int64_t from,
				   uint64_t to)
{
	uint64_t start = from < 0 ? 0 : unflushed_start(m, (uint64_t)from);

	for (uint64_t e = start; e <= to; e++) {
		if (!crash_is_durable(m, e, to))
			continue;
		if (from < 0 || !crash_is_durable(m, e, (uint64_t)from))
			return (int64_t)e;
	}
	return -1;
}

/*
 * Why re-apply from the first new write rather than only new writes: a
 * write that becomes durable now may precede, in log order, an already
 * applied FUA write to the same block, which must still win.  Replaying
 * every durable write from that point on keeps log order exact.
 */
int crash_durable_plan(const struct crash_model *m, int64_t from, uint64_t to,
		       struct idx_list *plan)
{
	int64_t k = first_newly_durable(m, from, to);

	plan->n = 0;
	if (k < 0)
		return 0;
	for (uint64_t e = (uint64_t)k; e <= to; e++) {
		if (crash_is_durable(m, e, to) && idx_list_push(plan, e) < 0)
			return -1;
	}
	return 0;
}

/* Same reasoning as crash_durable_plan(), starting at the first kept write. */
int crash_subset_plan(const struct crash_model *m, uint64_t p,
		      const struct idx_list *unflushed, const uint64_t *mask,
		      struct idx_list *plan)
{
	size_t u = 0;

	plan->n = 0;
	while (u < unflushed->n && !crash_mask_test(mask, u))
		u++;
	if (u == unflushed->n)
		return 0;
	for (uint64_t e = unflushed->v[u]; e <= p; e++) {
		bool kept = false;

		if (u < unflushed->n && unflushed->v[u] == e)
			kept = crash_mask_test(mask, u++);
		if ((kept || crash_is_durable(m, e, p)) &&
		    idx_list_push(plan, e) < 0)
			return -1;
	}
	return 0;
}

void crash_iter_init(struct crash_iter *it, const struct crash_model *m,
		     unsigned budget, uint64_t seed)
{
	memset(it, 0, sizeof(*it));
	it->m = m;
	it->budget = budget;
	it->seed = seed;
}

static int iter_load_point(struct crash_iter *it)
{
	uint64_t p = it->m->points.v[it->point_idx];

	free(it->rules);
	it->rules = NULL;
	it->rule_idx = 0;
	if (crash_unflushed(it->m, p, &it->unflushed) < 0)
		return -1;
	return crash_point_rules(p, it->unflushed.n, it->budget, it->seed,
				 &it->rules, &it->nr_rules);
}

int crash_iter_next(struct crash_iter *it, struct crash_state *s)
{
	if (it->rules && it->rule_idx == it->nr_rules)
		it->point_idx++;
	if (it->point_idx >= it->m->points.n)
		return 0;
	if ((!it->rules || it->rule_idx == it->nr_rules) &&
	    iter_load_point(it) < 0)
		return -1;
	s->point = it->m->points.v[it->point_idx];
	s->rule = it->rules[it->rule_idx++];
	return 1;
}

void crash_iter_free(struct crash_iter *it)
{
	free(it->rules);
	idx_list_free(&it->unflushed);
	memset(it, 0, sizeof(*it));
}

static const char *const rule_names[] = {
	[CRASH_NONE] = "none", [CRASH_ALL] = "all", [CRASH_DROP] = "drop",
	[CRASH_PREFIX] = "prefix", [CRASH_RAND] = "rand",
};

int crash_format_recipe(char *buf, size_t len, const struct crash_state *s)
{
	const char *name = rule_names[s->rule.kind];

	if (s->rule.kind == CRASH_NONE || s->rule.kind == CRASH_ALL)
		return snprintf(buf, len, "%" PRIu64 ":%s", s->point, name);
	return snprintf(buf, len, "%" PRIu64 ":%s:%" PRIu64, s->point, name,
			s->rule.arg);
}

/* Decimal digits only: no sign, no spaces, no overflow. */
static int parse_u64(const char *s, size_t len, uint64_t *v)
{
	uint64_t r = 0;

	if (len == 0 || len > 20)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (__builtin_mul_overflow(r, 10, &r) ||
		    __builtin_add_overflow(r, (uint64_t)(s[i] - '0'), &r))
			return -1;
	}
	*v = r;
	return 0;
}

static int parse_rule(const char *s, struct crash_rule *r)
{
	const char *colon = strchr(s, ':');
	size_t name_len = colon ? (size_t)(colon - s) : strlen(s);

	for (size_t k = 0; k < sizeof(rule_names) / sizeof(rule_names[0]); k++) {
		if (strlen(rule_names[k]) != name_len ||
		    strncmp(s, rule_names[k], name_len))
			continue;
		r->kind = (enum crash_rule_kind)k;
		r->arg = 0;
		if (k == CRASH_NONE || k == CRASH_ALL)
			return colon ? -1 : 0;
		if (!colon)
			return -1;
		return parse_u64(colon + 1, strlen(colon + 1), &r->arg);
	}
	return -1;
}

int crash_parse_recipe(const char *str, struct crash_state *s,
		       char *err, size_t errlen)
{
	const char *colon = strchr(str, ':');

	if (!colon || parse_u64(str, (size_t)(colon - str), &s->point) < 0 ||
	    parse_rule(colon + 1, &s->rule) < 0) {
		snprintf(err, errlen,
			 "bad recipe '%s' (want POINT:none, POINT:all, POINT:drop:K, POINT:prefix:K or POINT:rand:SEED)",
			 str);
		return -1;
	}
	return 0;
}
