/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CRC32C (Castagnoli, reflected polynomial 0x82f63b78) as jbd2 uses it:
 * jbd2_chksum() returns the raw running value, with no final inversion,
 * and every caller passes its own seed (~0, or the journal's UUID seed).
 */
#ifndef JFUZZ_CRC32C_H
#define JFUZZ_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* The running CRC after @len bytes of @buf, starting from @crc. */
uint32_t crc32c(uint32_t crc, const void *buf, size_t len);

#endif /* JFUZZ_CRC32C_H */
