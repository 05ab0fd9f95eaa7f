/* pq_source over bytes in memory (fuzz targets, tests, and the bytes a
 * container source has already unpacked). No descriptor: no zero-copy. */
#include "config.h"

#include "pq_io.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

typedef struct mem_source {
	const uint8_t *p;
	size_t n;
	uint8_t *copy; /* owned bytes (p points here), or NULL */
} mem_source;

static pq_status mem_pread(void *impl, void *buf, size_t len, uint64_t off, pq_error *err)
{
	(void)err; /* pq_source_pread has checked the range */
	const mem_source *s = impl;
	memcpy(buf, s->p + off, len);
	return PQ_OK;
}

static uint64_t mem_size(void *impl)
{
	return ((const mem_source *)impl)->n;
}

/* The bytes themselves stand for the identity: the same bytes in two
 * buffers are the same file, for a cache keyed by identity. */
static void mem_identity(void *impl, pq_identity *out)
{
	const mem_source *s = impl;
	static const uint8_t empty[1];
	uint64_t v[3] = {0x6d656d /* "mem" */, (uint64_t)s->n,
			 (uint64_t)XXH64(s->n ? (const void *)s->p : empty, s->n, 0)};
	pq_identity_set(out, v, sizeof v);
}

static void mem_close(void *impl)
{
	mem_source *s = impl;
	free(s->copy);
	free(s);
}

static const pq_source_ops mem_ops = {
	.pread = mem_pread,
	.size = mem_size,
	.identity = mem_identity,
	.close = mem_close,
};

pq_status pq_source_mem_new(const void *p, size_t n, bool copy, pq_source **out,
			    pq_error *err)
{
	*out = NULL;
	mem_source *s = calloc(1, sizeof *s);
	if (!s)
		return pq_fail(err, PQ_ENOMEM, "no memory for a source");
	if (copy) {
		s->copy = malloc(n ? n : 1);
		if (!s->copy) {
			free(s);
			return pq_fail(err, PQ_ENOMEM, "no memory to copy %zu bytes", n);
		}
		if (n)
			memcpy(s->copy, p, n);
		p = s->copy;
	}
	s->p = p;
	s->n = n;
	return pq_source_new(&mem_ops, s, out, err);
}
