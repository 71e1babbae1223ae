/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Mutations of a walked journal.  Each is a deterministic function of the
 * journal and a seed: a plan of whole journal blocks to write, and one
 * line that says what changed (class, journal block, field, old -> new).
 */
#ifndef JFUZZ_MUTATE_H
#define JFUZZ_MUTATE_H

#include "journal.h"

enum jf_class {
	JF_C_TAG,		/* bit flip in a descriptor tag */
	JF_C_COMMIT,		/* bit flip in a commit block field */
	JF_C_REVOKE,		/* bit flip in r_count or a revoke record */
	JF_C_JSB,		/* bit flip in a journal super block field */
	JF_C_TRUNCATE,		/* zero/garbage the tail of a transaction */
	JF_C_TID,		/* duplicated or out-of-order transaction IDs */
	JF_C_ABSURD,		/* absurd counts and block numbers */
	JF_C_MAGIC,		/* wrong magic */
	JF_C_SEMANTIC,		/* checksum-valid but semantically wrong */
	JF_NCLASSES,
};

struct jf_class_info {
	const char *name;
	const char *what;
};
extern const struct jf_class_info jf_classes[JF_NCLASSES];

/* Class number of @name, or -1. */
int jf_class_by_name(const char *name);

/* One block to write: the whole journal block @jblock. */
struct jf_write {
	uint32_t jblock;
	uint8_t *buf;
};

struct jf_plan {
	struct jf_write *w;
	size_t n, cap;
	enum jf_class cls;
	char desc[400];		/* "class=... jblock=... field=... old -> new" */
};

/*
 * Can class @cls mutate anything in @j?  Needs a non-empty log for every
 * class; then e.g. a revoke block for "revoke".
 */
bool jf_class_applies(const struct jf_journal *j, enum jf_class cls);

/*
 * Plan one mutation of @j: class @cls, or if @cls is -1 one of the
 * classes that apply, chosen by @seed.  Returns 0 (the plan is in @p),
 * 1 if nothing can be mutated, -1 on error (message in @err).
 */
int jf_mutate(const struct jf_journal *j, int cls, uint64_t seed,
	      struct jf_plan *p, char *err, size_t errlen);

/* Write the plan's blocks into @img (same journal layout); 0 or -1. */
int jf_plan_apply(const struct jf_plan *p, const struct jf_image *img);
void jf_plan_free(struct jf_plan *p);

#endif /* JFUZZ_MUTATE_H */
