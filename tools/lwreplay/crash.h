/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Crash states of a dm-log-writes log under a volatile write cache.
 * Pure logic: no I/O, so every rule here is unit-testable on its own.
 *
 * A crash point p is an entry index: entries 0..p were issued, the rest
 * never happened.  Let f be the last FLUSH entry at or before p.  Then a
 * write (or discard) e <= p is
 *   durable    if e < f, or e carries FUA;
 *   unflushed  otherwise: it may or may not have reached the media.
 * (A FLUSH entry that carries data is a preflush then a write: the flush
 * covers what came before it, its own data is unflushed unless FUA.)
 *
 * A state is a crash point plus a rule choosing which unflushed writes
 * survived; its contents are: apply, in log order, every durable write and
 * every chosen unflushed write (a later write to a block wins).
 */
#ifndef LWREPLAY_CRASH_H
#define LWREPLAY_CRASH_H

#include "lwlog.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A growable list of entry indices, always in increasing order here. */
struct idx_list {
	uint64_t *v;
	size_t n;
	size_t cap;
};

int idx_list_push(struct idx_list *l, uint64_t v);
void idx_list_free(struct idx_list *l);

enum crash_rule_kind {
	CRASH_NONE,	/* no unflushed write survived */
	CRASH_ALL,	/* every unflushed write survived */
	CRASH_DROP,	/* all but the arg-th (0-based) unflushed write */
	CRASH_PREFIX,	/* the first arg unflushed writes, in log order */
	CRASH_RAND,	/* each kept with probability 1/2, PRNG seeded by arg */
};

struct crash_rule {
	enum crash_rule_kind kind;
	uint64_t arg;
};

struct crash_state {
	uint64_t point;
	struct crash_rule rule;
};

/* What the enumeration needs to know about a log, indexed once. */
struct crash_model {
	const struct lw_entry *entries;
	uint64_t n;
	int64_t *last_flush;	/* last FLUSH entry at or before i, or -1 */
	int64_t *last_mark;	/* last MARK entry at or before i, or -1 */
	struct idx_list points;	/* crash points, increasing */
};

/* Returns -1 only when out of memory. */
int crash_model_init(struct crash_model *m, const struct lw_entry *entries,
		     uint64_t n);
void crash_model_free(struct crash_model *m);

bool crash_is_durable(const struct crash_model *m, uint64_t e, uint64_t p);

/* The unflushed writes at point p, in log order. */
int crash_unflushed(const struct crash_model *m, uint64_t p,
		    struct idx_list *out);

/* Bitset helpers for a subset of the unflushed list. */
size_t crash_mask_words(size_t nr_unflushed);
static inline bool crash_mask_test(const uint64_t *mask, size_t i)
{
	return (mask[i / 64] >> (i % 64)) & 1;
}

/*
 * Fill mask (crash_mask_words(nr) words) with the writes rule keeps at
 * point p.  Returns -1 with a message if the rule does not fit, e.g.
 * drop:5 when only 3 writes are unflushed.
 */
int crash_rule_mask(const struct crash_rule *r, uint64_t p, size_t nr,
		    uint64_t *mask, char *err, size_t errlen);

/*
 * The rules tried at point p, in order: none, all, then drop/prefix/rand
 * chosen from seed, at most max(budget, 2) in all, no two keeping the
 * same subset.  *rules is malloc'd.
 */
int crash_point_rules(uint64_t p, size_t nr_unflushed, unsigned budget,
		      uint64_t seed, struct crash_rule **rules, size_t *count);

/*
 * Entries to apply, in order, to bring DEV from the durable state of
 * point from (-1: the base image) to that of point to (to >= from).
 */
int crash_durable_plan(const struct crash_model *m, int64_t from, uint64_t to,
		       struct idx_list *plan);

/*
 * Entries to apply, in order, on top of the durable state of point p so
 * that DEV holds the state (p, mask); unflushed is crash_unflushed(p).
 */
int crash_subset_plan(const struct crash_model *m, uint64_t p,
		      const struct idx_list *unflushed, const uint64_t *mask,
		      struct idx_list *plan);

/* "<point>:<rule>", e.g. "1234:drop:3".  Returns chars needed. */
int crash_format_recipe(char *buf, size_t len, const struct crash_state *s);
int crash_parse_recipe(const char *str, struct crash_state *s,
		       char *err, size_t errlen);

/*
 * Walks every state in the order run uses: crash points increasing, and
 * at each point the rules of crash_point_rules().
 */
struct crash_iter {
	const struct crash_model *m;
	unsigned budget;
	uint64_t seed;
	size_t point_idx;	/* into m->points */
	struct crash_rule *rules;
	size_t nr_rules;
	size_t rule_idx;
	struct idx_list unflushed;	/* at the current point */
};

void crash_iter_init(struct crash_iter *it, const struct crash_model *m,
		     unsigned budget, uint64_t seed);
/* 1: *s is the next state; 0: no more; -1: out of memory. */
int crash_iter_next(struct crash_iter *it, struct crash_state *s);
void crash_iter_free(struct crash_iter *it);

/* Deterministic PRNG (splitmix64), so results depend on the seed only. */
uint64_t crash_splitmix64(uint64_t *state);

#endif /* LWREPLAY_CRASH_H */
