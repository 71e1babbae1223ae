/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Latency histogram, HDR-like: exact below 16 ns, then 8 sub-buckets per
 * power of two (every bucket within 12.5% of its values). Values in ns.
 */
#ifndef FSYNCBENCH_HIST_H
#define FSYNCBENCH_HIST_H

#include <stdint.h>

#define FB_HIST_SUB_BITS	3
#define FB_HIST_SUB		(1u << FB_HIST_SUB_BITS)	/* 8 */
#define FB_HIST_EXACT		(2u * FB_HIST_SUB)		/* 16 */
/* Up to 2^63: 16 exact + (63 - 4 + 1) powers x 8. */
#define FB_HIST_BUCKETS		(FB_HIST_EXACT + 60 * FB_HIST_SUB)

struct fb_hist {
	uint64_t count[FB_HIST_BUCKETS];
	uint64_t n, max, sum;
};

unsigned int fb_hist_index(uint64_t v);
uint64_t fb_hist_low(unsigned int idx);		/* smallest value of a bucket */
uint64_t fb_hist_high(unsigned int idx);	/* largest value of a bucket */
void fb_hist_add(struct fb_hist *h, uint64_t v);
void fb_hist_merge(struct fb_hist *into, const struct fb_hist *from);
/* Value at quantile q (0..1]: upper bound of the bucket holding the
 * ceil(q*n)-th smallest value, capped at the maximum; 0 if empty. */
uint64_t fb_hist_quantile(const struct fb_hist *h, double q);

#endif
