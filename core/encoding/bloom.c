#include "config.h"

/* Split block Bloom filter primitives, written from BloomFilter.md. */

#include "pq_bloom.h"

#include <math.h>
#include <string.h>
#include <xxhash.h>

/* The eight odd salts of the spec; word i of a block uses salt i. */
static const uint32_t salt[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
				 0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};

uint64_t pq_bloom_hash(const void *p, size_t n)
{
	static const uint8_t empty[1];
	return (uint64_t)XXH64(n ? p : empty, n, 0);
}

uint64_t pq_bloom_hash_int32(int32_t v)
{
	uint32_t u = (uint32_t)v;
	uint8_t b[4] = {(uint8_t)u, (uint8_t)(u >> 8), (uint8_t)(u >> 16), (uint8_t)(u >> 24)};
	return pq_bloom_hash(b, sizeof b);
}

uint64_t pq_bloom_hash_int64(int64_t v)
{
	uint64_t u = (uint64_t)v;
	uint8_t b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(u >> (8 * i));
	return pq_bloom_hash(b, sizeof b);
}

uint64_t pq_bloom_hash_float(float v)
{
	uint32_t u;
	memcpy(&u, &v, sizeof u);
	return pq_bloom_hash_int32((int32_t)u);
}

uint64_t pq_bloom_hash_double(double v)
{
	uint64_t u;
	memcpy(&u, &v, sizeof u);
	return pq_bloom_hash_int64((int64_t)u);
}

bool pq_bloom_size_ok(size_t nbytes)
{
	return nbytes >= PQ_BLOOM_BLOCK_BYTES && nbytes % PQ_BLOOM_BLOCK_BYTES == 0 &&
	       nbytes <= PQ_BLOOM_MAX_BYTES;
}

/* Byte offset of the hash's block: ((hash >> 32) * z) >> 32 for z blocks.
 * z is capped at 2^32 so the 64-bit product cannot overflow (a real
 * filter is far smaller: numBytes is an i32). */
static size_t block_offset(uint64_t hash, size_t nbytes)
{
	uint64_t z = nbytes / PQ_BLOOM_BLOCK_BYTES;
	if (z > ((uint64_t)1 << 32))
		z = (uint64_t)1 << 32;
	return (size_t)(((hash >> 32) * z) >> 32) * PQ_BLOOM_BLOCK_BYTES;
}

/* Bit (0..31) that the key sets in word i: (key * salt[i]) >> 27. Bit b of
 * a little-endian word is bit b % 8 of its byte b / 8, so the bitset is
 * tested byte-wise, independent of host byte order. */
static inline unsigned mask_bit(uint32_t key, int i)
{
	return (uint32_t)(key * salt[i]) >> 27;
}

bool pq_bloom_check(const uint8_t *bitset, size_t nbytes, uint64_t hash)
{
	if (nbytes < PQ_BLOOM_BLOCK_BYTES)
		return true;
	const uint8_t *block = bitset + block_offset(hash, nbytes);
	uint32_t key = (uint32_t)hash;
	for (int i = 0; i < 8; i++) {
		unsigned b = mask_bit(key, i);
		if (!(block[4 * i + (b >> 3)] & (1u << (b & 7))))
			return false;
	}
	return true;
}

void pq_bloom_insert(uint8_t *bitset, size_t nbytes, uint64_t hash)
{
	if (nbytes < PQ_BLOOM_BLOCK_BYTES)
		return;
	uint8_t *block = bitset + block_offset(hash, nbytes);
	uint32_t key = (uint32_t)hash;
	for (int i = 0; i < 8; i++) {
		unsigned b = mask_bit(key, i);
		block[4 * i + (b >> 3)] |= (uint8_t)(1u << (b & 7));
	}
}

size_t pq_bloom_optimal_bytes(uint64_t ndv, double fpp)
{
	if (!(fpp > 0.0))
		return PQ_BLOOM_MAX_BYTES;
	if (fpp >= 1.0 || ndv == 0)
		return PQ_BLOOM_MIN_BYTES;
	double bits = -8.0 * (double)ndv / log(1.0 - pow(fpp, 1.0 / 8.0));
	double bytes = bits / 8.0;
	if (!(bytes < (double)PQ_BLOOM_MAX_BYTES)) /* also catches NaN and inf */
		return PQ_BLOOM_MAX_BYTES;
	size_t n = PQ_BLOOM_MIN_BYTES;
	while ((double)n < bytes)
		n <<= 1;
	return n;
}

size_t pq_bloom_bits_set(const uint8_t *bitset, size_t nbytes)
{
	size_t count = 0;
	size_t i = 0;
	for (; i + 8 <= nbytes; i += 8) {
		uint64_t w;
		memcpy(&w, bitset + i, sizeof w);
#if defined(__GNUC__)
		count += (size_t)__builtin_popcountll(w);
#else
		for (; w; w &= w - 1)
			count++;
#endif
	}
	for (; i < nbytes; i++)
		for (unsigned v = bitset[i]; v; v &= v - 1)
			count++;
	return count;
}
