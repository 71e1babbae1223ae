// SPDX-License-Identifier: GPL-2.0
#include "crc32c.h"

#define CRC32C_POLY	0x82f63b78u

/*
 * Bit at a time: jfuzz checksums a handful of blocks per run, so speed
 * does not matter, and there is no table to keep as global state.
 */
uint32_t crc32c(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (crc & 1 ? CRC32C_POLY : 0);
	}
	return crc;
}
