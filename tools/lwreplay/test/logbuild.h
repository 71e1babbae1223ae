/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test helpers: build synthetic dm-log-writes logs, compute expected crash
 * states from the definition (independently of crash.c's plans), and run
 * the lwreplay binary.
 */
#ifndef LWREPLAY_TEST_LOGBUILD_H
#define LWREPLAY_TEST_LOGBUILD_H

#include "testutil.h"
#include "../crash.h"
#include "../lwlog.h"

#include <stddef.h>
#include <stdint.h>

struct lb_entry {
	uint64_t sector;
	uint64_t nr_sectors;
	uint64_t flags;
	char mark[64];
};

struct logbuild {
	uint32_t sectorsize;
	struct lb_entry *v;
	size_t n;
	size_t cap;
};

void lb_init(struct logbuild *b, uint32_t sectorsize);
void lb_free(struct logbuild *b);
size_t lb_add(struct logbuild *b, uint64_t sector, uint64_t nr, uint64_t flags);
size_t lb_write(struct logbuild *b, uint64_t sector, uint64_t nr);
size_t lb_fua(struct logbuild *b, uint64_t sector, uint64_t nr);
size_t lb_discard(struct logbuild *b, uint64_t sector, uint64_t nr);
size_t lb_flush(struct logbuild *b);
size_t lb_mark(struct logbuild *b, const char *text);

/*
 * A random but valid log over a device of dev_sectors sectors: writes,
 * FUA writes, discards, flushes (some with data), marks; small ranges so
 * writes overlap often.
 */
void lb_random(struct logbuild *b, uint64_t seed, uint64_t dev_sectors,
	       size_t nr_entries);

/* Byte j of the data of entry idx: distinct for every entry. */
unsigned char lb_data_byte(size_t idx, uint64_t j);

/* The log file image; nr_entries in the super is b->n. malloc'd. */
unsigned char *lb_serialize(const struct logbuild *b, size_t *len);
int lb_save(const struct logbuild *b, const char *path);

/* lw_entry view of the builder (mark points into b), for crash.c tests. */
struct lw_entry *lb_entries(const struct logbuild *b);

/*
 * Expected DEV contents for state (point, rule), straight from the crash
 * model's definition.  malloc'd copy of base with the writes applied.
 */
unsigned char *ref_image(const struct logbuild *b, const unsigned char *base,
			 size_t dev_size, uint64_t point,
			 const struct crash_rule *rule);

/* Files and commands (the rest in testutil.h). */
unsigned char *tu_pattern(size_t len, unsigned seed);	/* base images */
/* Run $TOOLS_BIN/lwreplay with the NULL-terminated arguments. */
int tu_lwreplay(struct tu_cmd *r, ...);

#endif /* LWREPLAY_TEST_LOGBUILD_H */
