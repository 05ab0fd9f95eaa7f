#include "config.h"

/* The writer's dictionary for one column chunk: distinct values in first
 * seen order, found again through an open-addressing table keyed by the
 * value's XXH64 (the hash the bloom filter uses too, so it is computed
 * once). Values compare bitwise, so -0.0 and 0.0, and NaNs with different
 * payloads, are different entries, as PLAIN would store them. */

#define PQ_WRITE_INTERNAL
#include "writer_internal.h"

#include <stdlib.h>
#include <string.h>

void pq_wdict_init(pq_wdict *d, int32_t type, int32_t type_length)
{
	memset(d, 0, sizeof *d);
	d->type = type;
	d->type_length = type_length;
}

void pq_wdict_free(pq_wdict *d)
{
	free(d->slots);
	free(d->hashes);
	pq_buf_free(&d->data);
	pq_buf_free(&d->offs);
	pq_wdict_init(d, d->type, d->type_length);
}

void pq_wdict_clear(pq_wdict *d)
{
	if (d->slots)
		memset(d->slots, 0, d->cap * sizeof *d->slots);
	d->count = 0;
	d->data.len = 0;
	d->offs.len = 0;
	d->plain_bytes = 0;
}

/* A slot: the hash's upper 32 bits (the position uses the lower ones) and
 * entry index + 1, so most mismatches are seen without touching entries. */
static uint64_t tag(uint64_t hash, size_t e)
{
	return (hash & 0xffffffff00000000ull) | (uint64_t)(e + 1);
}

static pq_status grow(pq_wdict *d, pq_error *err)
{
	size_t cap = d->cap ? d->cap * 2 : 1024;
	PQ_CHECK(cap / 2 < UINT32_MAX, err, PQ_ELIMIT, "dictionary: too many entries");
	uint64_t *slots = calloc(cap, sizeof *slots);
	uint64_t *hashes = realloc(d->hashes, cap / 2 * sizeof *hashes);
	if (!slots || !hashes) {
		free(slots);
		if (hashes)
			d->hashes = hashes;
		return pq_fail(err, PQ_ENOMEM, "dictionary: out of memory for %zu entries", cap / 2);
	}
	d->hashes = hashes;
	for (size_t e = 0; e < d->count; e++) {
		size_t s = (size_t)d->hashes[e] & (cap - 1);
		while (slots[s])
			s = (s + 1) & (cap - 1);
		slots[s] = tag(d->hashes[e], e);
	}
	free(d->slots);
	d->slots = slots;
	d->cap = cap;
	return PQ_OK;
}

static const uint8_t *entry(const pq_wdict *d, size_t e, size_t *n)
{
	if (d->type == PQ_BYTE_ARRAY) {
		const size_t *offs = (const size_t *)(const void *)d->offs.p;
		*n = offs[e + 1] - offs[e];
		return pq_buf_at(&d->data, offs[e]);
	}
	size_t w = pq_value_width(d->type, d->type_length);
	*n = w;
	return pq_buf_at(&d->data, e * w);
}

pq_status pq_wdict_index(pq_wdict *d, const pq_values *v, size_t i, uint64_t hash,
			 uint32_t *idx, pq_error *err)
{
	const uint8_t *p;
	size_t n;
	if (d->type == PQ_BYTE_ARRAY) {
		p = v->v.ba[i].p;
		n = v->v.ba[i].n;
	} else {
		n = pq_value_width(d->type, d->type_length);
		p = (const uint8_t *)v->v.any + i * n;
	}
	if (d->count * 2 >= d->cap)
		PQ_TRY(grow(d, err));
	size_t s = (size_t)hash & (d->cap - 1);
	uint64_t hi = hash & 0xffffffff00000000ull;
	while (d->slots[s]) {
		size_t e = (size_t)(uint32_t)d->slots[s] - 1;
		if ((d->slots[s] & 0xffffffff00000000ull) == hi) {
			size_t en;
			const uint8_t *ep = entry(d, e, &en);
			if (en == n && (n == 0 || memcmp(ep, p, n) == 0)) {
				*idx = (uint32_t)e;
				return PQ_OK;
			}
		}
		s = (s + 1) & (d->cap - 1);
	}
	if (d->type == PQ_BYTE_ARRAY) {
		if (d->offs.len == 0) {
			size_t zero = 0;
			pq_buf_append(&d->offs, &zero, sizeof zero);
		}
		size_t end = d->data.len + n;
		pq_buf_append(&d->offs, &end, sizeof end);
		d->plain_bytes += 4 + n;
	} else {
		d->plain_bytes += n;
	}
	pq_buf_append(&d->data, p, n);
	PQ_CHECK(!d->data.oom && !d->offs.oom, err, PQ_ENOMEM, "dictionary: out of memory");
	d->hashes[d->count] = hash;
	d->slots[s] = tag(hash, d->count);
	*idx = (uint32_t)d->count++;
	return PQ_OK;
}

pq_status pq_wdict_expand(const pq_wdict *d, const uint32_t *idx, size_t n, pq_buf *vals,
			  pq_buf *lens, pq_error *err)
{
	for (size_t i = 0; i < n; i++) {
		PQ_CHECK(idx[i] < d->count, err, PQ_EINVAL, "dictionary index %u of %zu entries",
			 idx[i], d->count);
		size_t en;
		const uint8_t *ep = entry(d, idx[i], &en);
		if (d->type == PQ_BYTE_ARRAY) {
			PQ_CHECK(en <= INT32_MAX, err, PQ_EINVAL, "value of %zu bytes, over 2^31-1", en);
			uint32_t l = (uint32_t)en;
			pq_buf_append(lens, &l, sizeof l);
		}
		pq_buf_append(vals, ep, en);
	}
	PQ_CHECK(!vals->oom && !lens->oom, err, PQ_ENOMEM, "out of memory for %zu page values", n);
	return PQ_OK;
}

pq_status pq_wdict_values(const pq_wdict *d, pq_values *out, pq_bytes **views, pq_error *err)
{
	memset(out, 0, sizeof *out);
	out->type = d->type;
	out->type_length = d->type_length;
	out->n = d->count;
	*views = NULL;
	if (d->type != PQ_BYTE_ARRAY) {
		out->v.any = d->data.p;
		return PQ_OK;
	}
	pq_bytes *vw = malloc((d->count ? d->count : 1) * sizeof *vw);
	PQ_CHECK(vw, err, PQ_ENOMEM, "dictionary: out of memory for %zu entries", d->count);
	for (size_t e = 0; e < d->count; e++)
		vw[e].p = entry(d, e, &vw[e].n);
	out->v.ba = vw;
	*views = vw;
	return PQ_OK;
}
