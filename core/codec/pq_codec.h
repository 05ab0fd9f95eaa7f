/* Page compression codecs (Compression.md) and the page CRC.
 *
 * Codec ids are the parquet.thrift CompressionCodec values (enum pq_codec_id
 * in pq_metadata.h). Decompression is exact: the page header states the
 * uncompressed size and a page that decodes to any other size is corrupt. */
#ifndef PQ_CODEC_H
#define PQ_CODEC_H
#ifndef PQ_CORE_BUILD
#error "pq_codec.h is private to core/: outside it, use core/include"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_buf.h"
#include "pq_error.h"

/* Page sizes are i32 in the page header; larger buffers are refused
 * (PQ_ELIMIT) so no length ever overflows a library's int or uInt. */
#define PQ_CODEC_MAX_PAGE ((size_t)INT32_MAX)

/* Decompresses in[0..in_len) into exactly out_len bytes at out (the page
 * header's uncompressed size; the caller allocates out). Never writes past
 * out_len: data that would decompress to more, or to less, is PQ_ECORRUPT.
 * A zero-length input is never handed to a library: it decodes to out_len 0
 * or fails. LZO and unknown ids are PQ_EUNSUPPORTED. */
pq_status pq_decompress(int32_t codec, const uint8_t *in, size_t in_len, uint8_t *out,
			size_t out_len, pq_error *err);

/* Compresses in[0..in_len) and appends the result to out (for the writer).
 * level is codec-specific, 0 = the codec's default:
 *   GZIP 1..9, BROTLI 1..11, ZSTD its negative fast levels .. 22,
 *   LZ4/LZ4_RAW 1..12 (high-compression mode), SNAPPY/UNCOMPRESSED ignore it.
 * LZ4 writes the Hadoop framing that Arrow and parquet-mr read. On failure
 * out keeps its previous length. */
pq_status pq_compress(int32_t codec, int level, const uint8_t *in, size_t in_len, pq_buf *out,
		      pq_error *err);

/* "UNCOMPRESSED", "SNAPPY", ..., "LZ4_RAW"; NULL for an unknown id. */
const char *pq_codec_name(int32_t codec);
/* Whether pq_decompress/pq_compress handle this codec (false for LZO). */
bool pq_codec_supported(int32_t codec);

/* ---- streaming decompression of a whole file (codec_stream.c) ---------- */

/* A gzip (RFC 1952, members one after another) or zstd (frames) stream,
 * decoded block by block: memory is the library's window, whatever the
 * size of the file or of its output. */
typedef enum pq_unpack_kind { PQ_UNPACK_GZIP, PQ_UNPACK_ZSTD } pq_unpack_kind;
typedef struct pq_unpack pq_unpack;
pq_status pq_unpack_new(pq_unpack_kind kind, pq_unpack **out, pq_error *err);
void pq_unpack_free(pq_unpack *u);
/* Back to the start of a stream (a second pass over the same file). */
pq_status pq_unpack_reset(pq_unpack *u, pq_error *err);
/* Decodes from *in (advanced, *in_len decreased by what was consumed) into
 * out[0..out_cap); *produced bytes written. Progress is guaranteed while
 * input and room remain; bad data is PQ_ECORRUPT ("gzip: ..."). */
pq_status pq_unpack_run(pq_unpack *u, const uint8_t **in, size_t *in_len, uint8_t *out,
			size_t out_cap, size_t *produced, pq_error *err);
/* At the end of the input: PQ_OK when the stream ended at a member or
 * frame boundary, else PQ_ECORRUPT (a truncated file, or no stream). */
pq_status pq_unpack_finish(const pq_unpack *u, pq_error *err);

/* Standard CRC-32 (zlib's polynomial), as Parquet page headers store it:
 * computed over the page body as stored (after compression/encryption). */
uint32_t pq_crc32(const uint8_t *p, size_t n);
/* Continues a CRC over more bytes: pq_crc32_update(pq_crc32(a), b) equals
 * the CRC of a followed by b. Start value 0. */
uint32_t pq_crc32_update(uint32_t crc, const uint8_t *p, size_t n);

#endif
