/* Shared helpers for the encoding tests: status assertions and reference
 * writers (bit by bit, written for clarity rather than speed) that build
 * streams independently of the library's own packers. */
#ifndef TEST_ENCODING_HELPERS_H
#define TEST_ENCODING_HELPERS_H

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "encoding/pq_encoding.h"

#define ASSERT_OK(expr, err)                                                  \
	do {                                                                  \
		pq_status st_ = (expr);                                       \
		ck_assert_msg(st_ == PQ_OK, "%s -> %s: %s", #expr,            \
			      pq_status_name(st_), (err)->msg);               \
	} while (0)

#define ASSERT_STATUS(expr, want, err)                                        \
	do {                                                                  \
		pq_status st_ = (expr);                                       \
		ck_assert_msg(st_ == (want), "%s -> %s (want %s): %s", #expr, \
			      pq_status_name(st_), pq_status_name(want),      \
			      (err)->msg);                                    \
	} while (0)

/* A growable byte string for building test input. */
typedef struct tbuf {
	uint8_t p[1 << 16];
	size_t n;
} tbuf;

static inline void tb_byte(tbuf *b, unsigned v)
{
	ck_assert(b->n < sizeof b->p);
	b->p[b->n++] = (uint8_t)v;
}

static inline void tb_bytes(tbuf *b, const void *p, size_t n)
{
	ck_assert(n <= sizeof b->p - b->n);
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

static inline void tb_uleb(tbuf *b, uint64_t v)
{
	do {
		unsigned c = v & 0x7f;
		v >>= 7;
		tb_byte(b, c | (v ? 0x80 : 0));
	} while (v);
}

static inline void tb_zigzag(tbuf *b, int64_t v)
{
	uint64_t u = (uint64_t)v;
	tb_uleb(b, (u << 1) ^ (v < 0 ? ~(uint64_t)0 : 0));
}

/* n values of bw bits, least significant bit first, bit by bit. */
static inline void tb_pack_lsb(tbuf *b, const uint64_t *v, size_t n, int bw)
{
	size_t bits = n * (size_t)bw, bytes = (bits + 7) / 8;
	ck_assert(bytes <= sizeof b->p - b->n);
	memset(b->p + b->n, 0, bytes);
	size_t bit = 0;
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < bw; k++, bit++)
			if ((v[i] >> k) & 1)
				b->p[b->n + bit / 8] |= (uint8_t)(1u << (bit % 8));
	b->n += bytes;
}

/* xorshift64*: deterministic test data. */
static inline uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

/* A value of at most bw bits, often small or at the edges. */
static inline uint64_t rnd_bits(uint64_t *s, int bw)
{
	if (bw == 0)
		return 0;
	uint64_t mask = bw == 64 ? ~(uint64_t)0 : ((uint64_t)1 << bw) - 1;
	switch (rnd(s) % 4) {
	case 0:
		return mask;
	case 1:
		return rnd(s) & 7 & mask;
	default:
		return rnd(s) & mask;
	}
}

/* Worked examples of Encodings.md re-expressed with block size 128 and 4
 * miniblocks (the spec uses block size 8 for brevity). */
/* Encodings.md: "Hello", "World", "Foobar", "ABCDEF": lengths 5,5,6,6 (first
 * 5, min delta 0, relative 0,1,0 at width 1 = 0x02) then the bytes. */
static const uint8_t dlba_spec[] = {0x80, 0x01, 4, 4, 10, 0, 1, 0, 0, 0, 0x02, 0, 0, 0,
				    'H', 'e', 'l', 'l', 'o', 'W', 'o', 'r', 'l', 'd', 'F',
				    'o', 'o', 'b', 'a', 'r', 'A', 'B', 'C', 'D', 'E', 'F'};

/* Encodings.md: "axis", "axle", "babble", "babyhood": prefixes 0,2,0,3
 * (deltas 2,-2,3: min -2, relative 4,0,5 at width 3 = 0x44 0x01), suffix
 * lengths 4,2,6,5 (deltas -2,4,-1: min -2, relative 0,6,1 = 0x70 0x00),
 * then "axislebabbleyhood". */
static const uint8_t dba_spec[] = {
	0x80, 0x01, 4, 4, 0, 3, 3, 0, 0, 0, 0x44, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0x80, 0x01, 4, 4, 8, 3, 3, 0, 0, 0, 0x70, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	'a', 'x', 'i', 's', 'l', 'e', 'b', 'a', 'b', 'b', 'l', 'e', 'y', 'h', 'o', 'o', 'd'};

#endif
