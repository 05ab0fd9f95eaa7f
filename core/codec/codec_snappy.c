#include "config.h"

/* SNAPPY: one raw snappy block (no framing format), per Compression.md. */

#define PQ_CODEC_INTERNAL
#include "codec_internal.h"

#include <snappy-c.h>

pq_status pq_snappy_decompress(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len,
			       pq_error *err)
{
	size_t claimed = 0;
	/* The block starts with its uncompressed length as a varint: it must
	 * agree with the page header before anything is decoded. */
	if (snappy_uncompressed_length((const char *)in, in_len, &claimed) != SNAPPY_OK)
		return pq_fail(err, PQ_ECORRUPT,
			       "SNAPPY: bad uncompressed-length prefix in %zu-byte block", in_len);
	PQ_CHECK(claimed == out_len, err, PQ_ECORRUPT,
		 "SNAPPY: block says %zu bytes, page header says %zu", claimed, out_len);
	size_t got = out_len;
	snappy_status st = snappy_uncompress((const char *)in, in_len, (char *)out, &got);
	PQ_CHECK(st == SNAPPY_OK, err, PQ_ECORRUPT,
		 "SNAPPY: corrupt compressed data in %zu-byte block (%s)", in_len,
		 st == SNAPPY_BUFFER_TOO_SMALL ? "output overflow" : "invalid input");
	PQ_CHECK(got == out_len, err, PQ_ECORRUPT,
		 "SNAPPY: decompressed %zu bytes, page header says %zu", got, out_len);
	return PQ_OK;
}

pq_status pq_snappy_compress(int level, const uint8_t *in, size_t in_len, pq_buf *out,
			     pq_error *err)
{
	(void)level;
	size_t bound = snappy_max_compressed_length(in_len);
	if (!pq_buf_grow(out, bound))
		return pq_fail(err, PQ_ENOMEM, "SNAPPY: out of memory for %zu bytes", bound);
	size_t n = bound;
	snappy_status st =
	    snappy_compress((const char *)in, in_len, (char *)out->p + out->len, &n);
	PQ_CHECK(st == SNAPPY_OK, err, PQ_EINVAL, "SNAPPY: compressing %zu bytes failed (status %d)",
		 in_len, (int)st);
	out->len += n;
	return PQ_OK;
}
