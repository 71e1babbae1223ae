// SPDX-License-Identifier: GPL-2.0
/*
 * Bounded, deterministic fuzzing: random mutations of a valid synthetic
 * log must be either rejected with a message or handled in full (states
 * enumerated, applied), never crash; under the asan variant any memory or
 * UB error fails the case.
 */
#include "../apply.h"
#include "logbuild.h"
#include "tinytest.h"

#include <unistd.h>

#define FUZZ_ITERATIONS		400
#define FUZZ_CLI_ITERATIONS	40
#define FUZZ_DEV_SECTORS	64

static const uint64_t interesting[] = {
	0, 1, 2, 7, 8, 16, 31, 32, 511, 512, 4096, 65536, 131072,
	UINT64_MAX, UINT64_MAX - 1, 1ULL << 32, 1ULL << 55, 1ULL << 63,
};

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* Header offsets of the unmutated log, to aim mutations at fields. */
struct fuzz_base {
	unsigned char *buf;
	size_t len;
	uint64_t *hdr;
	size_t nr_hdr;
};

static void fuzz_base_init(struct fuzz_base *fb, struct logbuild *b)
{
	struct lw_entry *e = lb_entries(b);

	fb->buf = lb_serialize(b, &fb->len);
	fb->nr_hdr = b->n + 1;
	fb->hdr = calloc(fb->nr_hdr, sizeof(*fb->hdr));
	for (size_t i = 0; i < b->n; i++)
		fb->hdr[i + 1] = e[i].offset;	/* hdr[0]: the super */
	free(e);
}

static void mutate_once(unsigned char *buf, size_t *len,
			const struct fuzz_base *fb, uint64_t *rng)
{
	uint64_t r = crash_splitmix64(rng);
	size_t nr_int = sizeof(interesting) / sizeof(interesting[0]);
	size_t at;

	switch (r % 5) {
	case 0:		/* flip a bit anywhere */
		at = (size_t)(crash_splitmix64(rng) % *len);
		buf[at] ^= (unsigned char)(1u << (r >> 8) % 8);
		break;
	case 1:		/* a header field gets an interesting value */
	case 2:
		at = (size_t)fb->hdr[crash_splitmix64(rng) % fb->nr_hdr] +
		     8 * (size_t)((r >> 8) % 4);
		if (at + 8 <= *len)
			put64(buf + at, interesting[(r >> 16) % nr_int]);
		break;
	case 3:		/* a header field gets a small random value */
		at = (size_t)fb->hdr[crash_splitmix64(rng) % fb->nr_hdr] +
		     8 * (size_t)((r >> 8) % 4);
		if (at + 8 <= *len)
			put64(buf + at, (r >> 16) % 80);
		break;
	case 4:		/* truncate */
		*len = (size_t)(crash_splitmix64(rng) % (*len + 1));
		break;
	}
}

static void mutate(unsigned char *buf, size_t *len, const struct fuzz_base *fb,
		   uint64_t seed)
{
	uint64_t rng = seed;
	unsigned n = 1 + (unsigned)(crash_splitmix64(&rng) % 4);

	for (unsigned i = 0; i < n && *len > 0; i++)
		mutate_once(buf, len, fb, &rng);
}

/* Use an accepted log fully: every state, a few applied to a DEV file. */
static bool exercise(struct tt *t, struct lw_log *log, const char *dev_path)
{
	struct crash_model m;
	struct crash_iter it;
	struct crash_state s;
	struct lw_dev dev;
	struct idx_list plan = { 0 };
	char err[LW_ERRLEN];
	size_t n = 0;
	int got;

	if (!TT_CHECK(t, crash_model_init(&m, log->entries, log->nr_entries) == 0))
		return false;
	TT_CHECK(t, dev_open(dev_path, &dev, err, sizeof(err)) == 0);
	bool fits = lwlog_check_fits(log, dev.size, err, sizeof(err)) == 0;

	crash_iter_init(&it, &m, 4, 1);
	while ((got = crash_iter_next(&it, &s)) == 1 && n++ < 300) {
		if (fits && n % 16 == 0 &&
		    crash_durable_plan(&m, -1, s.point, &plan) == 0)
			TT_CHECK(t, dev_apply_plan(&dev, log, &plan, NULL, err,
						   sizeof(err)) == APPLY_OK);
	}
	TT_CHECK(t, got >= 0);
	crash_iter_free(&it);
	idx_list_free(&plan);
	dev_close(&dev);
	crash_model_free(&m);
	return true;
}

static void fuzz_setup(struct logbuild *b, struct fuzz_base *fb, char **dir,
		       char **log_path, char **dev_path)
{
	unsigned char *zero = calloc(FUZZ_DEV_SECTORS, 512);

	lb_init(b, 512);
	lb_random(b, 1234, FUZZ_DEV_SECTORS, 40);
	fuzz_base_init(fb, b);
	*dir = tu_tmpdir();
	*log_path = tu_path(*dir, "log");
	*dev_path = tu_path(*dir, "dev");
	tu_write_file(*dev_path, zero, FUZZ_DEV_SECTORS * 512);
	free(zero);
}

static void t_fuzz_parse_and_use(struct tt *t)
{
	struct logbuild b;
	struct fuzz_base fb;
	char *dir, *log_path, *dev_path;
	unsigned char *buf = NULL;
	size_t accepted = 0;

	fuzz_setup(&b, &fb, &dir, &log_path, &dev_path);
	for (uint64_t i = 0; i < FUZZ_ITERATIONS; i++) {
		struct lw_log log;
		char err[LW_ERRLEN] = "";
		size_t len = fb.len;

		buf = realloc(buf, fb.len);
		memcpy(buf, fb.buf, fb.len);
		mutate(buf, &len, &fb, i);
		tu_write_file(log_path, buf, len);
		if (lwlog_open(log_path, &log, err, sizeof(err)) < 0) {
			TT_CHECK(t, err[0] != '\0');
			continue;
		}
		accepted++;
		exercise(t, &log, dev_path);
		lwlog_close(&log);
	}
	/* the mutations must leave some logs valid, or this tests little */
	TT_CHECK(t, accepted > FUZZ_ITERATIONS / 20);
	TT_CHECK(t, accepted < FUZZ_ITERATIONS);
	free(buf);
	free(fb.buf);
	free(fb.hdr);
	free(log_path);
	free(dev_path);
	lb_free(&b);
	/* the runner removes its TMPDIR, and dir with it */
	free(dir);
}

/* Through the binary: exit 0 or 3 only, a message with 3, no signal. */
static void t_fuzz_cli(struct tt *t)
{
	struct logbuild b;
	struct fuzz_base fb;
	char *dir, *log_path, *dev_path;
	unsigned char *buf = malloc(1);

	fuzz_setup(&b, &fb, &dir, &log_path, &dev_path);
	for (uint64_t i = 0; i < FUZZ_CLI_ITERATIONS; i++) {
		size_t len = fb.len;
		struct tu_cmd r;

		buf = realloc(buf, fb.len);
		memcpy(buf, fb.buf, fb.len);
		mutate(buf, &len, &fb, 1000 + i);
		tu_write_file(log_path, buf, len);
		if (i % 2)
			tu_lwreplay(&r, "info", log_path, "--entries", NULL);
		else
			tu_lwreplay(&r, "states", log_path, "--budget=3", NULL);
		TT_CHECK(t, r.status == 0 || r.status == 3);
		if (r.status == 3)
			TT_CHECK_CONTAINS(t, r.err, "lwreplay: ");
		tu_cmd_free(&r);
		tu_lwreplay(&r, "apply", log_path, dev_path, "0:all", NULL);
		TT_CHECK(t, r.status == 0 || r.status == 2 || r.status == 3);
		tu_cmd_free(&r);
	}
	free(buf);
	free(fb.buf);
	free(fb.hdr);
	free(log_path);
	free(dev_path);
	free(dir);
	lb_free(&b);
}

const struct tt_case fuzz_cases[] = {
	TT_CASE(t_fuzz_parse_and_use),
	TT_CASE(t_fuzz_cli),
	{ 0 },
};
