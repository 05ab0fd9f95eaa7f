#include "config.h"

/* BROTLI: one RFC 7932 stream. Decoded with the streaming decoder so the
 * output can be bounded by the page header's size. */

#define PQ_CODEC_INTERNAL
#include "codec_internal.h"

#include <brotli/decode.h>
#include <brotli/encode.h>

/* Arrow's and parquet-mr's default quality: far faster than 11, nearly as small. */
#define BROTLI_PQ_DEFAULT_QUALITY 8

pq_status pq_brotli_decompress(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len,
			       pq_error *err)
{
	BrotliDecoderState *s = BrotliDecoderCreateInstance(NULL, NULL, NULL);
	if (!s)
		return pq_fail(err, PQ_ENOMEM, "BROTLI: cannot create a decoder");
	const uint8_t *next_in = in;
	size_t avail_in = in_len;
	uint8_t *next_out = out;
	size_t avail_out = out_len;
	/* Once out is full, output goes here; any byte that lands means the
	 * stream is longer than the page header says. */
	uint8_t spill[64];
	bool spilled = false;
	pq_status st = PQ_OK;
	for (;;) {
		if (avail_out == 0 && !spilled) {
			next_out = spill;
			avail_out = sizeof spill;
			spilled = true;
		}
		BrotliDecoderResult r = BrotliDecoderDecompressStream(s, &avail_in, &next_in, &avail_out,
								      &next_out, NULL);
		if (spilled && avail_out != sizeof spill) {
			st = pq_fail(err, PQ_ECORRUPT,
				     "BROTLI: data decompresses to more than the page header's %zu bytes",
				     out_len);
			break;
		}
		if (r == BROTLI_DECODER_RESULT_SUCCESS) {
			if (avail_in != 0)
				st = pq_fail(err, PQ_ECORRUPT,
					     "BROTLI: %zu bytes of trailing data after the stream at byte %zu",
					     avail_in, in_len - avail_in);
			break;
		}
		if (r == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT) {
			if (!spilled)
				continue; /* out is full: the next round spills */
			/* Spill had room yet nothing came: never loop on it. */
			st = pq_fail(err, PQ_ECORRUPT, "BROTLI: decoder made no progress at byte %zu",
				     in_len - avail_in);
			break;
		}
		if (r == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT) {
			st = pq_fail(err, PQ_ECORRUPT,
				     "BROTLI: input ends inside the stream after %zu bytes (truncated)",
				     in_len);
			break;
		}
		BrotliDecoderErrorCode code = BrotliDecoderGetErrorCode(s);
		/* -30..-21 are the decoder's allocation failures (decode.h). */
		bool oom = code >= BROTLI_DECODER_ERROR_ALLOC_BLOCK_TYPE_TREES &&
			   code <= BROTLI_DECODER_ERROR_ALLOC_CONTEXT_MODES;
		st = pq_fail(err, oom ? PQ_ENOMEM : PQ_ECORRUPT, "BROTLI: near byte %zu: %s",
			     in_len - avail_in, BrotliDecoderErrorString(code));
		break;
	}
	size_t produced = spilled ? out_len : out_len - avail_out;
	BrotliDecoderDestroyInstance(s);
	if (st != PQ_OK)
		return st;
	PQ_CHECK(produced == out_len, err, PQ_ECORRUPT,
		 "BROTLI: decompressed %zu bytes, page header says %zu", produced, out_len);
	return PQ_OK;
}

pq_status pq_brotli_compress(int level, const uint8_t *in, size_t in_len, pq_buf *out,
			     pq_error *err)
{
	PQ_CHECK(level >= 0 && level <= BROTLI_MAX_QUALITY, err, PQ_EINVAL,
		 "BROTLI: compression level %d outside 1..%d", level, BROTLI_MAX_QUALITY);
	size_t bound = BrotliEncoderMaxCompressedSize(in_len);
	if (bound == 0 || !pq_buf_grow(out, bound))
		return pq_fail(err, PQ_ENOMEM, "BROTLI: out of memory compressing %zu bytes", in_len);
	size_t n = bound;
	BROTLI_BOOL ok = BrotliEncoderCompress(level ? level : BROTLI_PQ_DEFAULT_QUALITY,
					       BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC, in_len, in,
					       &n, out->p + out->len);
	PQ_CHECK(ok, err, PQ_EINVAL, "BROTLI: compressing %zu bytes failed", in_len);
	out->len += n;
	return PQ_OK;
}
