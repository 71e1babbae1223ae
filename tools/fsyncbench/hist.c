// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "hist.h"

unsigned int fb_hist_index(uint64_t v)
{
	unsigned int e;

	if (v < FB_HIST_EXACT)
		return (unsigned int)v;
	e = 63 - (unsigned int)__builtin_clzll(v);	/* >= 4 */
	return FB_HIST_EXACT + (e - FB_HIST_SUB_BITS - 1) * FB_HIST_SUB +
	       (unsigned int)((v >> (e - FB_HIST_SUB_BITS)) - FB_HIST_SUB);
}

uint64_t fb_hist_low(unsigned int idx)
{
	unsigned int e, sub;

	if (idx < FB_HIST_EXACT)
		return idx;
	e = (idx - FB_HIST_EXACT) / FB_HIST_SUB + FB_HIST_SUB_BITS + 1;
	sub = (idx - FB_HIST_EXACT) % FB_HIST_SUB;
	return (uint64_t)(FB_HIST_SUB + sub) << (e - FB_HIST_SUB_BITS);
}

uint64_t fb_hist_high(unsigned int idx)
{
	if (idx < FB_HIST_EXACT)
		return idx;
	if (idx == FB_HIST_BUCKETS - 1)
		return UINT64_MAX;
	return fb_hist_low(idx + 1) - 1;
}

void fb_hist_add(struct fb_hist *h, uint64_t v)
{
	h->count[fb_hist_index(v)]++;
	h->n++;
	h->sum += v;
	if (v > h->max)
		h->max = v;
}

void fb_hist_merge(struct fb_hist *into, const struct fb_hist *from)
{
	for (unsigned int i = 0; i < FB_HIST_BUCKETS; i++)
		into->count[i] += from->count[i];
	into->n += from->n;
	into->sum += from->sum;
	if (from->max > into->max)
		into->max = from->max;
}

uint64_t fb_hist_quantile(const struct fb_hist *h, double q)
{
	uint64_t rank, seen = 0;

	if (!h->n)
		return 0;
	if (q <= 0)
		q = 0;
	rank = (uint64_t)(q * (double)h->n);
	if ((double)rank < q * (double)h->n)
		rank++;	/* ceil without libm */
	if (rank < 1)
		rank = 1;
	if (rank > h->n)
		rank = h->n;
	for (unsigned int i = 0; i < FB_HIST_BUCKETS; i++) {
		seen += h->count[i];
		if (seen >= rank) {
			uint64_t hi = fb_hist_high(i);

			return hi < h->max ? hi : h->max;
		}
	}
	return h->max;
}
