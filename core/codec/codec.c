#include "config.h"

/* The codec registry: one table entry per parquet.thrift CompressionCodec,
 * and the checks every codec shares (size limits, empty input, unknown ids)
 * so the per-codec files only deal with their library. */

#define PQ_CODEC_INTERNAL
#include "codec_internal.h"
#include "pq_metadata.h"

#include <string.h>

typedef struct pq_codec_entry {
	const char *name;
	pq_decompress_fn decompress; /* NULL: known but unsupported */
	pq_compress_fn compress;
} pq_codec_entry;

static pq_status uncompressed_decompress(const uint8_t *in, size_t in_len, uint8_t *out,
					 size_t out_len, pq_error *err)
{
	PQ_CHECK(in_len == out_len, err, PQ_ECORRUPT,
		 "UNCOMPRESSED: page body is %zu bytes, page header says %zu", in_len, out_len);
	memcpy(out, in, in_len);
	return PQ_OK;
}

static pq_status uncompressed_compress(int level, const uint8_t *in, size_t in_len, pq_buf *out,
				       pq_error *err)
{
	(void)level;
	if (!pq_buf_grow(out, in_len))
		return pq_fail(err, PQ_ENOMEM, "UNCOMPRESSED: out of memory for %zu bytes", in_len);
	pq_buf_append(out, in, in_len);
	return PQ_OK;
}

static const pq_codec_entry codecs[] = {
	[PQ_CODEC_UNCOMPRESSED] = {.name = "UNCOMPRESSED",
				   .decompress = uncompressed_decompress,
				   .compress = uncompressed_compress},
	[PQ_CODEC_SNAPPY] = {.name = "SNAPPY",
			     .decompress = pq_snappy_decompress,
			     .compress = pq_snappy_compress},
	[PQ_CODEC_GZIP] = {.name = "GZIP",
			   .decompress = pq_gzip_decompress,
			   .compress = pq_gzip_compress},
	[PQ_CODEC_LZO] = {.name = "LZO"},
	[PQ_CODEC_BROTLI] = {.name = "BROTLI",
			     .decompress = pq_brotli_decompress,
			     .compress = pq_brotli_compress},
	[PQ_CODEC_LZ4] = {.name = "LZ4",
			  .decompress = pq_lz4_hadoop_decompress,
			  .compress = pq_lz4_hadoop_compress},
	[PQ_CODEC_ZSTD] = {.name = "ZSTD",
			   .decompress = pq_zstd_decompress,
			   .compress = pq_zstd_compress},
	[PQ_CODEC_LZ4_RAW] = {.name = "LZ4_RAW",
			      .decompress = pq_lz4_raw_decompress,
			      .compress = pq_lz4_raw_compress},
};

static const pq_codec_entry *lookup(int32_t codec)
{
	if (codec < 0 || (size_t)codec >= sizeof codecs / sizeof codecs[0])
		return NULL;
	return codecs[codec].name ? &codecs[codec] : NULL;
}

static pq_status unsupported(int32_t codec, const pq_codec_entry *e, pq_error *err)
{
	if (e)
		return pq_fail(err, PQ_EUNSUPPORTED, "unsupported codec %s", e->name);
	return pq_fail(err, PQ_EUNSUPPORTED, "unsupported codec %d (unknown compression codec id)",
		       (int)codec);
}

const char *pq_codec_name(int32_t codec)
{
	const pq_codec_entry *e = lookup(codec);
	return e ? e->name : NULL;
}

bool pq_codec_supported(int32_t codec)
{
	const pq_codec_entry *e = lookup(codec);
	return e && e->decompress && e->compress;
}

pq_status pq_decompress(int32_t codec, const uint8_t *in, size_t in_len, uint8_t *out,
			size_t out_len, pq_error *err)
{
	const pq_codec_entry *e = lookup(codec);
	if (!e || !e->decompress)
		return unsupported(codec, e, err);
	PQ_CHECK(in_len <= PQ_CODEC_MAX_PAGE && out_len <= PQ_CODEC_MAX_PAGE, err, PQ_ELIMIT,
		 "%s: page of %zu bytes compressed, %zu uncompressed exceeds the 2 GiB page limit",
		 e->name, in_len, out_len);
	PQ_CHECK(in || !in_len, err, PQ_EINVAL, "%s: no input buffer", e->name);
	PQ_CHECK(out || !out_len, err, PQ_EINVAL, "%s: no output buffer", e->name);
	if (in_len == 0) {
		PQ_CHECK(out_len == 0, err, PQ_ECORRUPT,
			 "%s: page body is empty, page header says %zu bytes uncompressed", e->name,
			 out_len);
		return PQ_OK;
	}
	/* Libraries may reject a NULL destination even with zero capacity. */
	uint8_t none[1];
	return e->decompress(in, in_len, out ? out : none, out_len, err);
}

pq_status pq_compress(int32_t codec, int level, const uint8_t *in, size_t in_len, pq_buf *out,
		      pq_error *err)
{
	const pq_codec_entry *e = lookup(codec);
	if (!e || !e->compress)
		return unsupported(codec, e, err);
	PQ_CHECK(in_len <= PQ_CODEC_MAX_PAGE, err, PQ_ELIMIT,
		 "%s: page of %zu bytes exceeds the 2 GiB page limit", e->name, in_len);
	PQ_CHECK(in || !in_len, err, PQ_EINVAL, "%s: no input buffer", e->name);
	static const uint8_t empty[1];
	size_t before = out->len;
	pq_status st = e->compress(level, in ? in : empty, in_len, out, err);
	if (st != PQ_OK)
		out->len = before;
	return st;
}
