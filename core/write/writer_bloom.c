#include "config.h"

/* Split block bloom filters for the writer (BloomFilter.md): the distinct
 * hashes of a chunk are collected first, so the filter can be sized from
 * the real distinct count and the target false-positive probability, then
 * inserted into a bitset of pq_bloom_optimal_bytes. */

#define PQ_WRITE_INTERNAL
#include "writer_internal.h"

#include <stdlib.h>
#include <string.h>

#include "encoding/pq_bloom.h"
#include "format/pq_metadata_codec.h"

void pq_wbloom_free(pq_wbloom *b)
{
	free(b->slots);
	memset(b, 0, sizeof *b);
}

uint64_t pq_wbloom_hash(const pq_values *v, size_t i)
{
	switch (v->type) {
	case PQ_INT32:
		return pq_bloom_hash_int32(v->v.i32[i]);
	case PQ_INT64:
		return pq_bloom_hash_int64(v->v.i64[i]);
	case PQ_FLOAT:
		return pq_bloom_hash_float(v->v.f32[i]);
	case PQ_DOUBLE:
		return pq_bloom_hash_double(v->v.f64[i]);
	case PQ_BYTE_ARRAY:
		return pq_bloom_hash(v->v.ba[i].p, v->v.ba[i].n);
	case PQ_FIXED_LEN_BYTE_ARRAY:
	case PQ_INT96: {
		size_t w = (size_t)v->type_length;
		return pq_bloom_hash(v->v.fixed + i * w, w);
	}
	default: /* BOOLEAN: one byte, only used by the dictionary */
		return pq_bloom_hash(&v->v.b[i], 1);
	}
}

static size_t slot_of(uint64_t h, size_t cap)
{
	/* The low bits of XXH64 are well mixed. */
	return (size_t)h & (cap - 1);
}

static pq_status grow(pq_wbloom *b, pq_error *err)
{
	size_t cap = b->cap ? b->cap * 2 : 1024;
	PQ_CHECK(cap <= SIZE_MAX / sizeof(uint64_t), err, PQ_ELIMIT,
		 "bloom filter: too many distinct values");
	uint64_t *slots = calloc(cap, sizeof *slots);
	PQ_CHECK(slots, err, PQ_ENOMEM, "bloom filter: out of memory for %zu hashes", cap);
	for (size_t i = 0; i < b->cap; i++) {
		uint64_t h = b->slots[i];
		if (!h)
			continue;
		size_t s = slot_of(h, cap);
		while (slots[s])
			s = (s + 1) & (cap - 1);
		slots[s] = h;
	}
	free(b->slots);
	b->slots = slots;
	b->cap = cap;
	return PQ_OK;
}

pq_status pq_wbloom_add(pq_wbloom *b, uint64_t hash, pq_error *err)
{
	if (hash == 0) {
		b->has_zero = true;
		return PQ_OK;
	}
	if (b->count * 2 >= b->cap)
		PQ_TRY(grow(b, err));
	size_t s = slot_of(hash, b->cap);
	while (b->slots[s]) {
		if (b->slots[s] == hash)
			return PQ_OK;
		s = (s + 1) & (b->cap - 1);
	}
	b->slots[s] = hash;
	b->count++;
	return PQ_OK;
}

pq_status pq_wbloom_finish(pq_writer *w, pq_wbloom *b, double fpp, pq_wmodule_at at,
			   pq_buf *out, pq_error *err)
{
	uint64_t ndv = b->count + (b->has_zero ? 1 : 0);
	size_t nbytes = pq_bloom_optimal_bytes(ndv, fpp);
	uint8_t *bits = calloc(nbytes, 1);
	PQ_CHECK(bits, err, PQ_ENOMEM, "bloom filter: out of memory for %zu bytes", nbytes);
	for (size_t i = 0; i < b->cap; i++)
		if (b->slots[i])
			pq_bloom_insert(bits, nbytes, b->slots[i]);
	if (b->has_zero)
		pq_bloom_insert(bits, nbytes, 0);

	pq_bloom_filter_header h;
	memset(&h, 0, sizeof h);
	h.numBytes = (int32_t)nbytes;
	h.algorithm.has_BLOCK = true;
	h.hash.has_XXHASH = true;
	h.compression.has_UNCOMPRESSED = true;
	pq_buf hdr = PQ_BUF_INIT;
	pq_status st = pq_thrift_encode(PQ_S_BLOOM_FILTER_HEADER, &h, &hdr, err);
	if (st == PQ_OK)
		st = pq_wmodule_put(w, PQ_WM_BLOOM_HEADER, at, hdr.p, hdr.len, out, err);
	if (st == PQ_OK)
		st = pq_wmodule_put(w, PQ_WM_BLOOM_BITSET, at, bits, nbytes, out, err);
	pq_buf_free(&hdr);
	free(bits);
	free(b->slots);
	memset(b, 0, sizeof *b);
	return st;
}
