/* Split block Bloom filters (BloomFilter.md): the bitset primitives.
 *
 * A filter is nbytes of bitset, a whole number of 32-byte blocks of eight
 * little-endian 32-bit words. Values are hashed with XXH64 (seed 0) over
 * their plain encoding; the hash's upper 32 bits pick the block, its lower
 * 32 bits set or test one bit in each word. Reading the BloomFilterHeader
 * that precedes the bitset in a file is the metadata reader's job. */
#ifndef PQ_BLOOM_H
#define PQ_BLOOM_H
#ifndef PQ_CORE_BUILD
#error "pq_bloom.h is private to core/: outside it, use core/include"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PQ_BLOOM_BLOCK_BYTES 32
/* Size bounds for filters we build, as parquet-mr uses: one block to 128 MiB.
 * A bitset read from a file larger than the maximum should be ignored. */
#define PQ_BLOOM_MIN_BYTES 32
#define PQ_BLOOM_MAX_BYTES ((size_t)128 * 1024 * 1024)

/* XXH64 with seed 0 of n bytes (n may be 0, p then may be NULL). */
uint64_t pq_bloom_hash(const void *p, size_t n);

/* Hashes of plain-encoded values (little-endian bytes) per the spec.
 * BYTE_ARRAY values hash their bytes without the length prefix, and
 * FIXED_LEN_BYTE_ARRAY / INT96 their bytes: use pq_bloom_hash for those. */
uint64_t pq_bloom_hash_int32(int32_t v);
uint64_t pq_bloom_hash_int64(int64_t v);
uint64_t pq_bloom_hash_float(float v);   /* the IEEE bits, so -0.0 != 0.0 */
uint64_t pq_bloom_hash_double(double v);

/* Whether a bitset of nbytes is one a reader may use: a non-zero multiple
 * of 32 bytes, at most PQ_BLOOM_MAX_BYTES. */
bool pq_bloom_size_ok(size_t nbytes);

/* Whether the value with this hash may be in the filter. false means
 * certainly absent. Trailing bytes short of a whole block are ignored; a
 * bitset without one whole block excludes nothing (returns true). */
bool pq_bloom_check(const uint8_t *bitset, size_t nbytes, uint64_t hash);
/* Adds the hash to the filter (a no-op without one whole block). */
void pq_bloom_insert(uint8_t *bitset, size_t nbytes, uint64_t hash);

/* Bitset size for ndv distinct values at false-positive probability fpp, by
 * the spec's formula (-8 / ln(1 - fpp^(1/8)) bits per value), rounded up to
 * a power of two and clamped to [PQ_BLOOM_MIN_BYTES, PQ_BLOOM_MAX_BYTES].
 * fpp <= 0 (or NaN) gives the maximum, fpp >= 1 the minimum. */
size_t pq_bloom_optimal_bytes(uint64_t ndv, double fpp);

/* Number of bits set in the bitset (for diagnostics and statistics). */
size_t pq_bloom_bits_set(const uint8_t *bitset, size_t nbytes);

#endif
