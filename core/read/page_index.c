/* Page index (ColumnIndex, OffsetIndex) and bloom filters of a chunk:
 * located through the footer, read with one pread each, decoded lazily. */
#include "config.h"

#define PQ_READ_INTERNAL
#include "file_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pq_assemble.h"
#include "encoding/pq_bloom.h"
#include "format/pq_metadata_codec.h"
#include "pq_render.h"

bool pq_chunk_has_column_index(const pq_file *f, uint32_t rg, uint32_t col)
{
	const pq_column_chunk *c = pq_file_chunk(f, rg, col);
	return c && c->has_column_index_offset && c->has_column_index_length &&
	       c->column_index_length > 0;
}

bool pq_chunk_has_offset_index(const pq_file *f, uint32_t rg, uint32_t col)
{
	const pq_column_chunk *c = pq_file_chunk(f, rg, col);
	return c && c->has_offset_index_offset && c->has_offset_index_length &&
	       c->offset_index_length > 0;
}

bool pq_chunk_has_bloom_filter(const pq_file *f, uint32_t rg, uint32_t col)
{
	const pq_column_meta_data *m = pq_file_chunk_meta(f, rg, col);
	return m && m->has_bloom_filter_offset && m->bloom_filter_offset >= 4;
}

/* Reads and decodes one index structure stored at [off, off+len); in an
 * encrypted chunk that range is one module, decrypted first. */
static pq_status read_struct(const pq_file *f, uint32_t rg, uint32_t col, pq_module_type mod,
			     pq_struct_kind kind, int64_t off, int64_t len, void *out,
			     pq_arena *arena, uint8_t **raw, const char *what, pq_error *err)
{
	PQ_CHECK(off >= 0 && len > 0 && (uint64_t)off <= f->size &&
			 (uint64_t)len <= f->size - (uint64_t)off,
		 err, PQ_ECORRUPT, "%s at %lld (%lld bytes) lies outside the file", what,
		 (long long)off, (long long)len);
	PQ_CHECK(len <= (int64_t)PQ_MAX_FOOTER_BYTES, err, PQ_ELIMIT, "%s of %lld bytes is too large",
		 what, (long long)len);
	size_t n = (size_t)len;
	if (pq_file_chunk_crypto(f, rg, col)) {
		uint64_t stored;
		PQ_TRY(pq_chunk_read_module(f, rg, col, mod, 0, (uint64_t)off, (uint64_t)len, raw, &n,
					    &stored, err));
	} else {
		*raw = malloc(n);
		PQ_CHECK(*raw, err, PQ_ENOMEM, "no memory for %s", what);
		PQ_TRY(pq_file_pread(f, *raw, n, (uint64_t)off, err));
	}
	size_t used;
	pq_status st = pq_thrift_decode(kind, *raw, n, out, &used, arena, err);
	if (st != PQ_OK)
		return pq_context(err, "%s at offset %lld", what, (long long)off);
	return PQ_OK;
}

pq_status pq_text_column_index(const pq_file *f, uint32_t rg, uint32_t col, pq_buf *out,
			       pq_error *err)
{
	if (!pq_chunk_has_column_index(f, rg, col))
		return PQ_OK;
	const pq_column_chunk *c = pq_file_chunk(f, rg, col);
	const pq_leaf *leaf = pq_schema_leaf(f->schema, col);
	pq_arena a;
	pq_arena_init(&a, (size_t)c->column_index_length * 64 + (1u << 20));
	pq_column_index ci = {0};
	uint8_t *raw = NULL;
	pq_status st = read_struct(f, rg, col, PQ_MOD_COLUMN_INDEX, PQ_S_COLUMN_INDEX, c->column_index_offset,
				   c->column_index_length, &ci, &a, &raw, "column index", err);
	if (st == PQ_OK) {
		uint32_t n = ci.null_pages.n;
		if (ci.min_values.n != n || ci.max_values.n != n ||
		    (ci.has_null_counts && ci.null_counts.n != n) ||
		    (ci.has_nan_counts && ci.nan_counts.n != n)) {
			st = pq_fail(err, PQ_ECORRUPT,
				     "column index: list lengths disagree (%u null_pages, %u min, %u max)",
				     n, ci.min_values.n, ci.max_values.n);
		} else {
			const char *bo = pq_boundary_order_name(ci.boundary_order);
			pq_buf_printf(out, "boundary_order: %s\n", bo ? bo : "?");
			pq_buf_puts(out, ci.has_null_counts ? "page\tnull_page\tmin\tmax\tnull_count"
							    : "page\tnull_page\tmin\tmax");
			pq_buf_puts(out, ci.has_nan_counts ? "\tnan_count\n" : "\n");
			for (uint32_t i = 0; i < n; i++) {
				pq_buf_printf(out, "%" PRIu32 "\t%s\t", i, ci.null_pages.v[i] ? "true" : "false");
				if (ci.null_pages.v[i])
					pq_buf_puts(out, "\\N\t\\N");
				else {
					pq_text_bound(out, leaf, ci.min_values.v[i]);
					pq_buf_putc(out, '\t');
					pq_text_bound(out, leaf, ci.max_values.v[i]);
				}
				if (ci.has_null_counts)
					pq_buf_printf(out, "\t%" PRId64, ci.null_counts.v[i]);
				if (ci.has_nan_counts)
					pq_buf_printf(out, "\t%" PRId64, ci.nan_counts.v[i]);
				pq_buf_putc(out, '\n');
			}
		}
	}
	free(raw);
	pq_arena_free(&a);
	return st;
}

pq_status pq_text_offset_index(const pq_file *f, uint32_t rg, uint32_t col, pq_buf *out,
			       pq_error *err)
{
	if (!pq_chunk_has_offset_index(f, rg, col))
		return PQ_OK;
	const pq_column_chunk *c = pq_file_chunk(f, rg, col);
	pq_arena a;
	pq_arena_init(&a, (size_t)c->offset_index_length * 64 + (1u << 20));
	pq_offset_index oi = {0};
	uint8_t *raw = NULL;
	pq_status st = read_struct(f, rg, col, PQ_MOD_OFFSET_INDEX, PQ_S_OFFSET_INDEX, c->offset_index_offset,
				   c->offset_index_length, &oi, &a, &raw, "offset index", err);
	if (st == PQ_OK) {
		bool ub = oi.has_unencoded_byte_array_data_bytes &&
			  oi.unencoded_byte_array_data_bytes.n == oi.page_locations.n;
		pq_buf_puts(out, ub ? "page\toffset\tcompressed_page_size\tfirst_row_index\tunencoded_byte_array_data_bytes\n"
				    : "page\toffset\tcompressed_page_size\tfirst_row_index\n");
		for (uint32_t i = 0; i < oi.page_locations.n; i++) {
			const pq_page_location *p = &oi.page_locations.v[i];
			pq_buf_printf(out, "%" PRIu32 "\t%" PRId64 "\t%" PRId32 "\t%" PRId64, i, p->offset,
				      p->compressed_page_size, p->first_row_index);
			if (ub)
				pq_buf_printf(out, "\t%" PRId64, oi.unencoded_byte_array_data_bytes.v[i]);
			pq_buf_putc(out, '\n');
		}
	}
	free(raw);
	pq_arena_free(&a);
	return st;
}

static pq_status check_bloom_header(const pq_bloom_filter_header *h, pq_error *err)
{
	PQ_CHECK(h->numBytes > 0 && h->numBytes % 32 == 0 && (uint64_t)h->numBytes <= (128u << 20),
		 err, PQ_ECORRUPT, "bloom filter: numBytes %d is not a positive multiple of 32 up to 128 MiB",
		 h->numBytes);
	PQ_CHECK(h->algorithm.has_BLOCK && h->hash.has_XXHASH && h->compression.has_UNCOMPRESSED,
		 err, PQ_EUNSUPPORTED, "bloom filter: only split-block, XXHASH, uncompressed filters are known");
	return PQ_OK;
}

/* Reads the bloom filter header and locates its bitset. In an encrypted
 * chunk the header and the bitset are two modules, one after the other:
 * *bitset_len is then the bitset module's stored size. */
static pq_status read_bloom(const pq_file *f, uint32_t rg, uint32_t col, pq_bloom_filter_header *h,
			    uint32_t *hlen, uint64_t *bitset_off, uint64_t *bitset_len, pq_arena *a,
			    pq_error *err)
{
	const pq_column_meta_data *m = pq_file_chunk_meta(f, rg, col);
	uint64_t off = (uint64_t)m->bloom_filter_offset;
	PQ_CHECK(off < f->size, err, PQ_ECORRUPT, "bloom filter offset %llu lies outside the file",
		 (unsigned long long)off);
	size_t used;
	pq_status st;
	if (pq_file_chunk_crypto(f, rg, col)) {
		uint8_t *plain;
		size_t n;
		uint64_t stored;
		PQ_TRY(pq_chunk_read_module(f, rg, col, PQ_MOD_BLOOM_HEADER, 0, off, 1u << 20, &plain,
					    &n, &stored, err));
		st = pq_thrift_decode(PQ_S_BLOOM_FILTER_HEADER, plain, n, h, &used, a, err);
		free(plain); /* the header holds no pointers */
		used = (size_t)stored;
	} else {
		uint8_t buf[256];
		size_t n = f->size - off < sizeof buf ? (size_t)(f->size - off) : sizeof buf;
		PQ_TRY(pq_file_pread(f, buf, n, off, err));
		st = pq_thrift_decode(PQ_S_BLOOM_FILTER_HEADER, buf, n, h, &used, a, err);
	}
	if (st != PQ_OK)
		return pq_context(err, "bloom filter header at offset %llu", (unsigned long long)off);
	PQ_TRY(check_bloom_header(h, err));
	*hlen = (uint32_t)used;
	*bitset_off = off + used;
	*bitset_len = (uint64_t)h->numBytes;
	if (pq_file_chunk_crypto(f, rg, col)) {
		uint8_t lenb[PQ_CRYPTO_LEN_BYTES];
		PQ_CHECK(*bitset_off <= f->size && f->size - *bitset_off >= sizeof lenb, err, PQ_ECORRUPT,
			 "bloom filter bitset runs past the end of the file");
		PQ_TRY(pq_file_pread(f, lenb, sizeof lenb, *bitset_off, err));
		PQ_TRY(pq_module_stored_size(lenb, sizeof lenb, PQ_CIPHER_GCM, f->size - *bitset_off,
					     bitset_len, err));
		PQ_CHECK(*bitset_len == (uint64_t)h->numBytes + PQ_CRYPTO_GCM_OVERHEAD, err, PQ_ECORRUPT,
			 "bloom filter: an encrypted bitset of %llu bytes does not hold numBytes %d",
			 (unsigned long long)*bitset_len, h->numBytes);
	}
	PQ_CHECK(*bitset_off <= f->size && *bitset_len <= f->size - *bitset_off, err,
		 PQ_ECORRUPT, "bloom filter bitset of %d bytes runs past the end of the file", h->numBytes);
	if (m->has_bloom_filter_length)
		PQ_CHECK((uint64_t)m->bloom_filter_length == used + *bitset_len, err, PQ_ECORRUPT,
			 "bloom filter: bloom_filter_length %d but header + bitset are %llu bytes",
			 m->bloom_filter_length, (unsigned long long)(used + *bitset_len));
	return PQ_OK;
}

/* Header and bitset of a chunk's bloom filter; bits may be NULL. */
static pq_status load_bloom(const pq_file *f, uint32_t rg, uint32_t col, pq_bloom_filter_header *h,
			    uint32_t *hlen, uint64_t *boff, pq_buf *bits, pq_error *err)
{
	pq_arena a;
	pq_arena_init(&a, 1u << 20);
	uint64_t blen;
	pq_status st = read_bloom(f, rg, col, h, hlen, boff, &blen, &a, err);
	pq_arena_free(&a); /* the header holds no pointers we keep */
	PQ_TRY(st);
	if (!bits)
		return PQ_OK;
	PQ_CHECK(pq_buf_grow(bits, (size_t)h->numBytes), err, PQ_ENOMEM, "no memory for the bloom filter");
	if (pq_file_chunk_crypto(f, rg, col)) {
		uint8_t *plain;
		size_t n;
		uint64_t stored;
		PQ_TRY(pq_chunk_read_module(f, rg, col, PQ_MOD_BLOOM_BITSET, 0, *boff, blen, &plain, &n,
					    &stored, err));
		memcpy(bits->p + bits->len, plain, n);
		free(plain);
	} else {
		PQ_TRY(pq_file_pread(f, bits->p + bits->len, (size_t)h->numBytes, *boff, err));
	}
	bits->len += (size_t)h->numBytes;
	return PQ_OK;
}

pq_status pq_bloom_filter_bitset(const pq_file *f, uint32_t rg, uint32_t col, pq_buf *out,
				 pq_error *err)
{
	if (!pq_chunk_has_bloom_filter(f, rg, col))
		return PQ_OK;
	pq_bloom_filter_header h = {0};
	uint32_t hlen;
	uint64_t boff;
	return load_bloom(f, rg, col, &h, &hlen, &boff, out, err);
}

pq_status pq_text_bloom_filter(const pq_file *f, uint32_t rg, uint32_t col, pq_buf *out,
			       pq_error *err)
{
	if (!pq_chunk_has_bloom_filter(f, rg, col))
		return PQ_OK;
	pq_bloom_filter_header h = {0};
	uint32_t hlen;
	uint64_t boff;
	pq_buf bits = PQ_BUF_INIT;
	pq_status st = load_bloom(f, rg, col, &h, &hlen, &boff, &bits, err);
	if (st == PQ_OK) {
		size_t set = pq_bloom_bits_set(bits.p, bits.len);
		uint64_t total = (uint64_t)bits.len * 8;
		pq_buf_printf(out, "offset: %lld\nheader_size: %" PRIu32 "\nnum_bytes: %d\n",
			      (long long)(boff - hlen), hlen, h.numBytes);
		pq_buf_printf(out, "algorithm: BLOCK\nhash: XXHASH\ncompression: UNCOMPRESSED\n");
		pq_buf_printf(out, "blocks: %zu\nbits_set: %zu of %" PRIu64 " (%.2f%%)\n", bits.len / 32, set,
			      total, total ? 100.0 * (double)set / (double)total : 0.0);
	}
	pq_buf_free(&bits);
	return st;
}

void pq_text_page_values(const pq_file *f, uint32_t col, const pq_page_data *p, pq_buf *out)
{
	const pq_leaf *leaf = pq_schema_leaf(f->schema, col);
	if (leaf)
		pq_render_values_txt(leaf, p->def, p->nslots ? p->nslots : p->values.n, &p->values, out);
}

void pq_text_page_levels(const pq_page_data *p, pq_buf *out)
{
	pq_render_levels_txt(p->rep, p->def, p->nslots, out);
}

bool pq_page_levels_size(const pq_file *f, uint32_t col, const pq_page_info *pi, uint64_t *size)
{
	const pq_leaf *leaf = pq_schema_leaf(f->schema, col);
	/* "r d\n" is 4 bytes per slot when both levels are single digits; the
	 * slot count is the header's (the decoder decodes exactly that many,
	 * or the page fails). Beyond the decoder's slot cap, let it fail. */
	if (!leaf || leaf->max_rep > 9 || leaf->max_def > 9 || pi->num_slots > PQ_MAX_PAGE_SLOTS)
		return false;
	*size = 4 * (uint64_t)pi->num_slots;
	return true;
}

bool pq_column_has_levels(const pq_file *f, uint32_t col)
{
	const pq_leaf *leaf = pq_schema_leaf(f->schema, col);
	return leaf && (leaf->max_def > 0 || leaf->max_rep > 0);
}

pq_status pq_chunk_offset_index_read(const pq_file *f, uint32_t rg, uint32_t col,
				     pq_offset_index *oi, pq_arena *a, pq_error *err)
{
	memset(oi, 0, sizeof *oi);
	PQ_CHECK(pq_chunk_has_offset_index(f, rg, col), err, PQ_EINVAL, "no offset index");
	const pq_column_chunk *c = pq_file_chunk(f, rg, col);
	uint8_t *raw = NULL;
	pq_status st = read_struct(f, rg, col, PQ_MOD_OFFSET_INDEX, PQ_S_OFFSET_INDEX,
				   c->offset_index_offset, c->offset_index_length, oi, a, &raw,
				   "offset index", err);
	free(raw); /* the decoded lists live in a */
	return st;
}

pq_status pq_chunk_offset_index_pages(const pq_file *f, uint32_t rg, uint32_t col, uint32_t *n,
				      int64_t *first_offset, pq_error *err)
{
	PQ_CHECK(pq_chunk_has_offset_index(f, rg, col), err, PQ_EINVAL, "no offset index");
	const pq_column_chunk *c = pq_file_chunk(f, rg, col);
	pq_arena a;
	pq_arena_init(&a, (size_t)c->offset_index_length * 64 + (1u << 20));
	pq_offset_index oi;
	pq_status st = pq_chunk_offset_index_read(f, rg, col, &oi, &a, err);
	if (st == PQ_OK) {
		*n = oi.page_locations.n;
		*first_offset = oi.page_locations.n ? oi.page_locations.v[0].offset : -1;
	}
	pq_arena_free(&a);
	return st;
}
