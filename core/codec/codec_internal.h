/* Private to core/codec*.c: the per-codec entry points that core/codec/codec.c
 * registers in its table. Everything else goes through pq_codec.h. */
#ifndef PQ_CODEC_INTERNAL_H
#define PQ_CODEC_INTERNAL_H
#ifndef PQ_CODEC_INTERNAL
#error "codec_internal.h is private to core/codec/"
#endif


#include "pq_codec.h"

/* What pq_decompress guarantees before it calls a codec:
 * 1 <= in_len <= PQ_CODEC_MAX_PAGE, out_len <= PQ_CODEC_MAX_PAGE, and out is
 * writable for out_len bytes and never NULL (even when out_len is 0).
 * The codec must produce exactly out_len bytes and write nothing beyond. */
typedef pq_status (*pq_decompress_fn)(const uint8_t *in, size_t in_len, uint8_t *out,
				      size_t out_len, pq_error *err);
/* in_len <= PQ_CODEC_MAX_PAGE and in never NULL; appends to out and on
 * failure leaves out->len as it was. */
typedef pq_status (*pq_compress_fn)(int level, const uint8_t *in, size_t in_len, pq_buf *out,
				    pq_error *err);

pq_status pq_snappy_decompress(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len,
			       pq_error *err);
pq_status pq_snappy_compress(int level, const uint8_t *in, size_t in_len, pq_buf *out,
			     pq_error *err);
pq_status pq_gzip_decompress(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len,
			     pq_error *err);
pq_status pq_gzip_compress(int level, const uint8_t *in, size_t in_len, pq_buf *out,
			   pq_error *err);
pq_status pq_brotli_decompress(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len,
			       pq_error *err);
pq_status pq_brotli_compress(int level, const uint8_t *in, size_t in_len, pq_buf *out,
			     pq_error *err);
pq_status pq_lz4_hadoop_decompress(const uint8_t *in, size_t in_len, uint8_t *out,
				   size_t out_len, pq_error *err);
pq_status pq_lz4_hadoop_compress(int level, const uint8_t *in, size_t in_len, pq_buf *out,
				 pq_error *err);
pq_status pq_lz4_raw_decompress(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len,
				pq_error *err);
pq_status pq_lz4_raw_compress(int level, const uint8_t *in, size_t in_len, pq_buf *out,
			      pq_error *err);
pq_status pq_zstd_decompress(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len,
			     pq_error *err);
pq_status pq_zstd_compress(int level, const uint8_t *in, size_t in_len, pq_buf *out,
			   pq_error *err);

#endif
