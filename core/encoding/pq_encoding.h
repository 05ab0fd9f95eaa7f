/* Parquet value and level encodings (Encodings.md): decoders that turn page
 * bytes into typed arrays in batches, and encoders for the writer.
 *
 * Conventions for every function here:
 *  - p/len is the encoded input. Every count, length and width read from it
 *    is checked against len before use; nothing outside p[0..len) is read.
 *  - n is the number of values the caller wants (it knows it from the page
 *    header and the levels). A stream holding fewer fails; extra values in a
 *    stream (padding, a last run longer than needed) are ignored.
 *  - *used (may be NULL) receives the number of input bytes consumed.
 *  - Output arrays are allocated in the arena. BYTE_ARRAY values from PLAIN and
 *    DELTA_LENGTH_BYTE_ARRAY are views into p, so p must outlive them;
 *    DELTA_BYTE_ARRAY values are rebuilt in arena memory. Fixed-width values
 *    (INT96, FIXED_LEN_BYTE_ARRAY) are always copied.
 *  - Failures: PQ_ECORRUPT when the bytes break the format, PQ_ENOMEM when the
 *    arena refuses, PQ_ELIMIT when output would exceed PQ_ENCODING_MAX_OUTPUT,
 *    PQ_EINVAL for bad arguments to an encoder; the pq_error message names the
 *    encoding and the byte offset (relative to p) where the problem is.
 *  - Encoders append to a pq_buf and return PQ_ENOMEM if it ran out of memory
 *    (the buffer's sticky flag stays set). After any failure the buffer may
 *    hold part of an encoding: callers discard it.
 */
#ifndef PQ_ENCODING_H
#define PQ_ENCODING_H
#ifndef PQ_CORE_BUILD
#error "pq_encoding.h is private to core/: outside it, use core/include"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_arena.h"
#include "pq_buf.h"
#include "pq_error.h"
#include "pq_metadata.h" /* enum pq_type */
#include "pq_values.h"

/* Decoders that rebuild data (DELTA_BYTE_ARRAY) refuse to produce more than
 * this many bytes for one call: a few bytes of prefix lengths can otherwise
 * ask for gigabytes. */
#define PQ_ENCODING_MAX_OUTPUT ((size_t)1 << 30)

/* Number of bits needed to store max_value (0 for 0, 64 for >= 2^63). */
int pq_bit_width(uint64_t max_value);

/* ---- RLE / bit-packing hybrid (RLE = 3), levels, dictionary indices ---- */

/* Streaming decoder for the hybrid encoding without a length prefix, so a
 * caller can decode a page in batches into a small buffer. */
typedef struct pq_rle_decoder {
	const uint8_t *p;
	size_t len;
	size_t pos;          /* next run header; the current run lies before it */
	int bit_width;
	bool packed;         /* the current run is bit-packed */
	uint32_t value;      /* the value of the current RLE run */
	uint64_t left;       /* values left in the current run */
	const uint8_t *run;  /* bit-packed run: its data, run_avail bytes present */
	size_t run_avail;
	uint64_t run_next;   /* bit-packed run: index of its next value */
	size_t run_hdr;      /* byte offset of the current run's header */
} pq_rle_decoder;

/* Fails (PQ_ECORRUPT) when bit_width is not in 0..32. */
pq_status pq_rle_decoder_init(pq_rle_decoder *d, const uint8_t *p, size_t len, int bit_width,
			      pq_error *err);
/* Decodes exactly n more values into out. */
pq_status pq_rle_decoder_next(pq_rle_decoder *d, uint32_t *out, size_t n, pq_error *err);
/* Bytes consumed so far: through the end of the current run (or the end of
 * the input, if a last bit-packed run is cut short). */
static inline size_t pq_rle_decoder_used(const pq_rle_decoder *d)
{
	return d->pos;
}

/* The run the next value comes from, loaded if need be: *rle_left values
 * of *value left in an RLE run, or *rle_left 0 when it is bit-packed. A
 * caller that wants runs, not values (sizes of long runs), takes them with
 * pq_rle_decoder_skip_rle in O(1). Fails as pq_rle_decoder_next at the
 * end of the input. */
pq_status pq_rle_decoder_peek(pq_rle_decoder *d, uint64_t *rle_left, uint32_t *value,
			      pq_error *err);
/* Consumes n values of the current RLE run (n <= what peek returned). */
void pq_rle_decoder_skip_rle(pq_rle_decoder *d, uint64_t n);

/* Decodes exactly n values of bit_width (0..32) into out. Runs may hold more
 * values than needed (the rest is ignored); a bit-packed run may end early
 * with the input provided the values needed are present. Zero-length runs
 * are skipped. Error if the input ends early, a run header is over 32 bits,
 * a run claims more than 2^31-1 values, or an RLE value exceeds bit_width. */
pq_status pq_rle_decode_u32(const uint8_t *p, size_t len, int bit_width, uint32_t *out, size_t n,
			    size_t *used, pq_error *err);
/* Same for repetition/definition levels (bit_width 0..16). */
pq_status pq_rle_decode_levels(const uint8_t *p, size_t len, int bit_width, uint16_t *out,
			       size_t n, size_t *used, pq_error *err);
/* Deprecated BIT_PACKED (= 4) levels: n values of bit_width (0..16) packed
 * from the most significant bit; *used = ceil(n * bit_width / 8). */
pq_status pq_bitpacked_decode_levels(const uint8_t *p, size_t len, int bit_width, uint16_t *out,
				     size_t n, size_t *used, pq_error *err);
/* RLE-encoded BOOLEAN values of a data page: 4-byte little-endian length,
 * then the hybrid with bit width 1. out->v.b gets n bytes of 0/1.
 * *used = 4 + the length. */
pq_status pq_decode_rle_bool(const uint8_t *p, size_t len, size_t n, pq_values *out, size_t *used,
			     pq_arena *arena, pq_error *err);

/* ---- dictionary ---- */

/* Dictionary indices of a data page: one byte of bit width (<= 32), then
 * the hybrid. Indices are not checked against a dictionary here. */
pq_status pq_decode_dict_indices(const uint8_t *p, size_t len, uint32_t *out, size_t n,
				 size_t *used, pq_error *err);
/* out[i] = dict[idx[i]], each idx checked against dict->n; out gets dict's
 * type. BYTE_ARRAY values are copies of the dictionary's views. */
pq_status pq_dict_gather(const pq_values *dict, const uint32_t *idx, size_t n, pq_values *out,
			 pq_arena *arena, pq_error *err);
/* A whole RLE_DICTIONARY / PLAIN_DICTIONARY value section: indices decoded
 * and gathered in batches without an index array. */
pq_status pq_decode_rle_dictionary(const pq_values *dict, const uint8_t *p, size_t len, size_t n,
				   pq_values *out, size_t *used, pq_arena *arena, pq_error *err);

/* ---- PLAIN (= 0) ---- */

/* n values of a physical type. BOOLEAN: bits LSB first, *used = ceil(n/8).
 * INT96 always has 12-byte values (type_length is ignored and set to 12);
 * FIXED_LEN_BYTE_ARRAY uses type_length (>= 0). BYTE_ARRAY: 4-byte length
 * then bytes, lengths over 2^31-1 are corrupt. */
pq_status pq_decode_plain(int32_t type, int32_t type_length, const uint8_t *p, size_t len, size_t n,
			  pq_values *out, size_t *used, pq_arena *arena, pq_error *err);
/* PLAIN values of a fixed-width type as a view of p's own bytes, no copy,
 * where the host's byte order and p's alignment allow (p must then outlive
 * out); false: decode with pq_decode_plain. */
bool pq_plain_view(int32_t type, int32_t type_length, const uint8_t *p, size_t len, size_t n,
		   pq_values *out, size_t *used);

/* ---- DELTA_BINARY_PACKED (= 5) and the byte-array deltas ---- */

/* INT32 or INT64 values. The header must be valid per the spec (block size
 * a positive multiple of 128 up to 2^31, miniblocks of a multiple of 32
 * values) and its total count must be >= n; the first n values are decoded.
 * Arithmetic wraps modulo 2^32 (INT32) or 2^64 (INT64). *used is the end of
 * the whole stream as its header describes it (so data that follows, as in
 * DELTA_LENGTH_BYTE_ARRAY, can be found). Miniblock bit widths over 32
 * (INT32) or 64 (INT64) are corrupt, except in miniblocks no value uses. The
 * last miniblock may lack its padding if the input ends there. */
pq_status pq_decode_delta_binary_packed(int32_t type, const uint8_t *p, size_t len, size_t n,
					pq_values *out, size_t *used, pq_arena *arena,
					pq_error *err);
/* BYTE_ARRAY values: delta-packed lengths (count >= n, each >= 0), then the
 * bytes. Values are views into p; *used ends after the n-th value. */
pq_status pq_decode_delta_length_byte_array(const uint8_t *p, size_t len, size_t n,
					    pq_values *out, size_t *used, pq_arena *arena,
					    pq_error *err);
/* BYTE_ARRAY values from prefix lengths + DELTA_LENGTH_BYTE_ARRAY suffixes.
 * A prefix longer than the previous value (or non-zero for the first) is
 * corrupt. Values are rebuilt back to back in one arena block. */
pq_status pq_decode_delta_byte_array(const uint8_t *p, size_t len, size_t n, pq_values *out,
				     size_t *used, pq_arena *arena, pq_error *err);
/* The same for FIXED_LEN_BYTE_ARRAY: every value must be type_length bytes;
 * out is a FIXED_LEN_BYTE_ARRAY pq_values (v.fixed). */
pq_status pq_decode_delta_byte_array_fixed(int32_t type_length, const uint8_t *p, size_t len,
					   size_t n, pq_values *out, size_t *used,
					   pq_arena *arena, pq_error *err);

/* ---- BYTE_STREAM_SPLIT (= 9) ---- */

/* FLOAT, DOUBLE, INT32, INT64 or FIXED_LEN_BYTE_ARRAY (type_length >= 1).
 * p/len must be exactly the page's value section: the K streams are each
 * len / K bytes long (len must be a multiple of K), and n <= len / K. */
pq_status pq_decode_byte_stream_split(int32_t type, int32_t type_length, const uint8_t *p,
				      size_t len, size_t n, pq_values *out, pq_arena *arena,
				      pq_error *err);

/* ---- encoders ---- */

/* Hybrid without length prefix: RLE runs for 8 or more repeats, bit-packed
 * groups otherwise (the last group padded with zeros). Values must fit in
 * bit_width (0..32), else PQ_EINVAL. */
pq_status pq_rle_encode_u32(const uint32_t *v, size_t n, int bit_width, pq_buf *out,
			    pq_error *err);
pq_status pq_rle_encode_levels(const uint16_t *v, size_t n, int bit_width, pq_buf *out,
			       pq_error *err);
/* Deprecated BIT_PACKED levels, most significant bit first. */
pq_status pq_bitpacked_encode_levels(const uint16_t *v, size_t n, int bit_width, pq_buf *out,
				     pq_error *err);
/* BOOLEAN values as RLE with the 4-byte length prefix (data page form). */
pq_status pq_encode_rle_bool(const pq_values *in, pq_buf *out, pq_error *err);
/* PLAIN for in->type (BOOLEAN, INT32, INT64, INT96, FLOAT, DOUBLE,
 * BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY). */
pq_status pq_encode_plain(const pq_values *in, pq_buf *out, pq_error *err);
/* DELTA_BINARY_PACKED for INT32 / INT64: blocks of 128, 4 miniblocks. */
pq_status pq_encode_delta_binary_packed(const pq_values *in, pq_buf *out, pq_error *err);
/* The bytes pq_encode_delta_binary_packed writes for n INT32 (is64
 * false) or INT64 values, without writing them: the values are v[i], or
 * v[idx[i]] when idx is not NULL (a dictionary's entries and a page's
 * indices). */
size_t pq_delta_encoded_size(bool is64, const void *v, const uint32_t *idx, size_t n);
/* DELTA_LENGTH_BYTE_ARRAY for BYTE_ARRAY (values up to 2^31-1 bytes). */
pq_status pq_encode_delta_length_byte_array(const pq_values *in, pq_buf *out, pq_error *err);
/* DELTA_BYTE_ARRAY for BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY. */
pq_status pq_encode_delta_byte_array(const pq_values *in, pq_buf *out, pq_error *err);
/* BYTE_STREAM_SPLIT for FLOAT, DOUBLE, INT32, INT64, FIXED_LEN_BYTE_ARRAY. */
pq_status pq_encode_byte_stream_split(const pq_values *in, pq_buf *out, pq_error *err);

#endif
