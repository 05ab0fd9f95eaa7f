/* pq_source: the generic part of the read seam (pq_io.h): reference
 * counting, bounds, identities, and the Parquet magic. */
#include "config.h"

#include "pq_io.h"

#include <stdlib.h>
#include <string.h>

struct pq_source {
	const pq_source_ops *ops;
	void *impl;
	int refs;
	uint64_t size;        /* taken once: the bytes of a source never change */
	pq_identity identity;
};

void pq_identity_set(pq_identity *id, const void *p, size_t n)
{
	if (n > PQ_IDENTITY_MAX)
		n = PQ_IDENTITY_MAX;
	memset(id, 0, sizeof *id);
	if (n)
		memcpy(id->bytes, p, n);
	id->len = (uint8_t)n;
}

bool pq_identity_eq(const pq_identity *a, const pq_identity *b)
{
	return a->len && a->len == b->len && !memcmp(a->bytes, b->bytes, a->len);
}

int pq_identity_cmp(const pq_identity *a, const pq_identity *b)
{
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	return memcmp(a->bytes, b->bytes, a->len);
}

pq_status pq_source_new(const pq_source_ops *ops, void *impl, pq_source **out, pq_error *err)
{
	*out = NULL;
	pq_source *s = calloc(1, sizeof *s);
	if (!s) {
		ops->close(impl);
		return pq_fail(err, PQ_ENOMEM, "no memory for a source");
	}
	s->ops = ops;
	s->impl = impl;
	s->refs = 1;
	s->size = ops->size(impl);
	ops->identity(impl, &s->identity);
	*out = s;
	return PQ_OK;
}

void pq_source_ref(pq_source *s)
{
	__atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED);
}

void pq_source_unref(pq_source *s)
{
	if (!s || __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	s->ops->close(s->impl);
	free(s);
}

/* Every offset and length comes from a file: bounded here, once, for
 * every implementation. */
static pq_status in_range(const pq_source *s, size_t len, uint64_t off, pq_error *err)
{
	if (off > s->size || len > s->size - off)
		return pq_fail(err, PQ_ECORRUPT,
			       "range %llu+%zu lies outside the file (%llu bytes)",
			       (unsigned long long)off, len, (unsigned long long)s->size);
	return PQ_OK;
}

pq_status pq_source_pread(const pq_source *s, void *buf, size_t len, uint64_t off,
			  pq_error *err)
{
	PQ_TRY(in_range(s, len, off, err));
	if (len == 0)
		return PQ_OK;
	return s->ops->pread(s->impl, buf, len, off, err);
}

pq_status pq_source_borrow(const pq_source *s, size_t len, uint64_t off, const void **out,
			   void **hold, pq_error *err)
{
	*out = NULL;
	*hold = NULL;
	PQ_TRY(in_range(s, len, off, err));
	if (len == 0 || !s->ops->borrow)
		return PQ_OK;
	return s->ops->borrow(s->impl, len, off, out, hold, err);
}

void pq_source_release(const pq_source *s, void *hold)
{
	if (hold && s->ops->release)
		s->ops->release(s->impl, hold);
}

bool pq_source_advises(const pq_source *s)
{
	return s->ops->advise != NULL;
}

void pq_source_advise(const pq_source *s, uint64_t off, uint64_t len)
{
	uint64_t size = pq_source_size(s);
	if (!s->ops->advise || off >= size || len == 0)
		return;
	s->ops->advise(s->impl, off, len > size - off ? size - off : len);
}

void pq_source_keep(const pq_source *s, bool on)
{
	if (s->ops->keep)
		s->ops->keep(s->impl, on);
}

bool pq_source_far(const pq_source *s)
{
	return s->ops->far;
}

uint64_t pq_source_size(const pq_source *s)
{
	return s->size;
}

const pq_identity *pq_source_identity(const pq_source *s)
{
	return &s->identity;
}

pq_status pq_source_check(const pq_source *s, pq_error *err)
{
	if (!s->ops->current)
		return PQ_OK;
	pq_identity now;
	PQ_TRY(s->ops->current(s->impl, &now, err));
	PQ_CHECK(pq_identity_eq(&now, &s->identity), err, PQ_EIO,
		 "the file changed while it was open");
	return PQ_OK;
}

int pq_source_fd(const pq_source *s)
{
	return s->ops->fd ? s->ops->fd(s->impl) : -1;
}

bool pq_magic_is_parquet(const void *p, size_t n)
{
	return n >= PQ_MAGIC_LEN && (!memcmp(p, "PAR1", PQ_MAGIC_LEN) ||
				     !memcmp(p, "PARE", PQ_MAGIC_LEN));
}

void *pq_source_impl(const pq_source *s, const pq_source_ops *ops)
{
	return s->ops == ops ? s->impl : NULL;
}
