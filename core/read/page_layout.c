/* Walking the page headers of a column chunk: where each page is, without
 * reading bodies. Pages are read until the chunk's num_values are covered,
 * not until its byte range ends: real files get total_compressed_size
 * wrong, and the contract shows pages as they are. */
#include "config.h"

#define PQ_READ_INTERNAL
#include "file_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A window over the file so that small headers do not cost a pread each. */
typedef struct window {
	const pq_file *f;
	uint8_t *buf;
	size_t cap, len;
	uint64_t start; /* file offset of buf[0] */
	size_t first;   /* size of the first read: about the chunk's size */
	size_t want;    /* size of a header's read: first, or HEADER_WINDOW */
} window;

/* A local chunk of big pages (DuckDB writes one page per chunk) needs a
 * header, not its body: reading `first` bytes (up to 1 MiB) for 25 bytes
 * of header cost a copy and fresh pages per chunk. So a local file's
 * headers are read this much at a time until the pages prove small, and
 * after every page larger than it. A far source keeps `first`: there one
 * request for header and body together is the cheaper. */
#define HEADER_WINDOW ((size_t)64 << 10)

static pq_status window_load(window *w, uint64_t off, size_t want, pq_error *err)
{
	if (off >= w->f->size)
		return pq_fail(err, PQ_ECORRUPT, "offset %llu is past the end of the file",
			       (unsigned long long)off);
	size_t n = w->f->size - off < want ? (size_t)(w->f->size - off) : want;
	if (n > w->cap) {
		uint8_t *p = realloc(w->buf, n);
		PQ_CHECK(p, err, PQ_ENOMEM, "no memory for a %zu-byte read", n);
		w->buf = p;
		w->cap = n;
	}
	PQ_TRY(pq_file_pread(w->f, w->buf, n, off, err));
	w->start = off;
	w->len = n;
	return PQ_OK;
}

static void relocate(pq_bytes *b, const uint8_t *from, const uint8_t *to, size_t n)
{
	if (b->p >= from && b->p + b->n <= from + n)
		b->p = to + (b->p - from);
}

static void relocate_stats(pq_statistics *s, const uint8_t *from, const uint8_t *to, size_t n)
{
	relocate(&s->min, from, to, n);
	relocate(&s->max, from, to, n);
	relocate(&s->min_value, from, to, n);
	relocate(&s->max_value, from, to, n);
}

/* A decoded header points into the read window, which the next read
 * reuses: its bytes move to the layout's arena (statistics are the only
 * binary fields of a PageHeader). */
static pq_status keep_header_bytes(pq_page_header *h, const uint8_t *raw, size_t n,
				   pq_arena *arena, pq_error *err)
{
	uint8_t *copy = pq_arena_memdup(arena, raw, n);
	PQ_CHECK(copy, err, PQ_ENOMEM, "no memory for a %zu-byte page header", n);
	relocate_stats(&h->data_page_header.statistics, raw, copy, n);
	relocate_stats(&h->data_page_header_v2.statistics, raw, copy, n);
	return PQ_OK;
}

/* Decodes the page header at off. The window holds 1 MiB so that runs of
 * small pages cost one pread; a header that does not fit (huge statistics)
 * is retried from its own offset with a window eight times larger. */
static pq_status read_header(window *w, uint64_t off, pq_page_header *h, uint32_t *hlen,
			     pq_arena *arena, pq_error *err)
{
	size_t want = w->want;
	if (off < w->start || off >= w->start + w->len)
		PQ_TRY(window_load(w, off, want, err));
	for (;;) {
		size_t avail = (size_t)(w->start + w->len - off);
		size_t used = 0;
		memset(h, 0, sizeof *h);
		pq_error e2;
		pq_error_clear(&e2);
		pq_status st = pq_thrift_decode(PQ_S_PAGE_HEADER, w->buf + (off - w->start), avail,
						h, &used, arena, &e2);
		if (st == PQ_OK) {
			*hlen = (uint32_t)used;
			return keep_header_bytes(h, w->buf + (off - w->start), used, arena, err);
		}
		/* A decode cut short by the window's end may just need more bytes. */
		if (w->start + w->len >= w->f->size || want >= PQ_MAX_PAGE_HEADER_BYTES) {
			*err = e2;
			return st;
		}
		want = (avail > want ? avail : want) * 8;
		PQ_TRY(window_load(w, off, want, err));
	}
}

/* The page header of an encrypted chunk: a module (4-byte length, nonce,
 * ciphertext, tag) holding the PageHeader. Decrypted into the layout's
 * arena, so the header's statistics can point into it. */
static pq_status read_enc_header(window *w, uint32_t rg, uint32_t col, pq_module_type type,
				 uint32_t ordinal, uint64_t off, pq_page_header *h, uint32_t *hlen,
				 pq_arena *arena, pq_error *err)
{
	if (off < w->start || off + PQ_CRYPTO_LEN_BYTES > w->start + w->len)
		PQ_TRY(window_load(w, off, w->first, err));
	uint64_t size;
	PQ_TRY(pq_module_stored_size(w->buf + (off - w->start), (size_t)(w->start + w->len - off),
				     PQ_CIPHER_GCM, PQ_MAX_PAGE_HEADER_BYTES, &size, err));
	if (off + size > w->start + w->len) {
		PQ_CHECK(size <= w->f->size - off, err, PQ_ECORRUPT,
			 "encrypted page header of %llu bytes runs past the end of the file",
			 (unsigned long long)size);
		PQ_TRY(window_load(w, off, (size_t)size, err));
	}
	uint8_t *plain = pq_arena_alloc(arena, (size_t)size);
	PQ_CHECK(plain, err, PQ_ENOMEM, "no memory for a %llu-byte page header", (unsigned long long)size);
	size_t n, used = 0;
	PQ_TRY(pq_chunk_decrypt(w->f, rg, col, type, ordinal, w->buf + (off - w->start), (size_t)size,
				plain, &n, err));
	memset(h, 0, sizeof *h);
	pq_status st = pq_thrift_decode(PQ_S_PAGE_HEADER, plain, n, h, &used, arena, err);
	if (st != PQ_OK)
		return pq_context(err, "decrypted page header");
	*hlen = (uint32_t)size;
	return PQ_OK;
}

/* The stored size of an encrypted page body, from its module's length
 * field: Arrow and parquet-mr count the whole module in
 * compressed_page_size, DuckDB only the plaintext, so the field decides. */
static pq_status enc_body_len(window *w, uint64_t off, uint32_t *len, pq_error *err)
{
	PQ_CHECK(off < w->f->size, err, PQ_ECORRUPT, "encrypted page body at offset %llu is past the end of the file",
		 (unsigned long long)off);
	if (off < w->start || off + PQ_CRYPTO_LEN_BYTES > w->start + w->len)
		PQ_TRY(window_load(w, off, w->first, err));
	uint64_t size;
	PQ_TRY(pq_module_stored_size(w->buf + (off - w->start), (size_t)(w->start + w->len - off),
				     w->f->crypto->page_cipher, w->f->size - off, &size, err));
	PQ_CHECK(size <= UINT32_MAX, err, PQ_ELIMIT, "encrypted page body of %llu bytes",
		 (unsigned long long)size);
	*len = (uint32_t)size;
	return PQ_OK;
}

/* Which header an encrypted page starts with is known only after it is
 * decrypted, and the AAD depends on it: the first page is a dictionary
 * page header when the metadata says the chunk has one; if that does not
 * authenticate, the other kind is tried (writers set the offset loosely). */
static pq_status read_header_any(window *w, const pq_chunk_layout *l, const pq_column_meta_data *m,
				 bool first, uint64_t off, pq_page_header *h, uint32_t *hlen,
				 pq_arena *arena, pq_error *err)
{
	if (!pq_file_chunk_crypto(w->f, l->rg, l->col))
		return read_header(w, off, h, hlen, arena, err);
	bool dict_first = first && m->has_dictionary_page_offset;
	pq_module_type t1 = dict_first ? PQ_MOD_DICT_PAGE_HEADER : PQ_MOD_DATA_PAGE_HEADER;
	pq_status st = read_enc_header(w, l->rg, l->col, t1, l->num_pages, off, h, hlen, arena, err);
	if (st != PQ_EAUTH || !first)
		return st;
	pq_error e2;
	pq_error_clear(&e2);
	pq_module_type t2 = dict_first ? PQ_MOD_DATA_PAGE_HEADER : PQ_MOD_DICT_PAGE_HEADER;
	if (read_enc_header(w, l->rg, l->col, t2, 0, off, h, hlen, arena, &e2) == PQ_OK)
		return PQ_OK;
	return st; /* the first message: the kind the metadata announced */
}

pq_status pq_chunk_layout_load(const pq_file *f, uint32_t rg, uint32_t col,
			       pq_chunk_layout **out, pq_error *err)
{
	*out = NULL;
	const pq_column_meta_data *m;
	PQ_TRY(pq_file_chunk_meta_checked(f, rg, col, &m, err));
	uint64_t off, len;
	PQ_TRY(pq_chunk_range(f, rg, col, &off, &len, err));
	const pq_leaf *leaf = pq_schema_leaf(f->schema, col);
	char where[256];
	pq_file_where(f, rg, col, where, sizeof where);
	PQ_CHECK(m->num_values >= 0, err, PQ_ECORRUPT, "%s: negative num_values %lld",
		 where, (long long)m->num_values);

	pq_chunk_layout *l = calloc(1, sizeof *l);
	PQ_CHECK(l, err, PQ_ENOMEM, "%s: no memory for the page list", where);
	l->rg = rg;
	l->col = col;
	pq_arena_init(&l->arena, 0);
	/* Small chunks are read with one small pread; a header that does not
	 * fit (a lying range, big statistics) grows the window below. */
	uint64_t first = len + 4096;
	window w = {f, NULL, 0, 0, 0, first > (1u << 20) ? (1u << 20) : (size_t)first, 0};
	bool near = !pq_source_far(f->src);
	w.want = near && w.first > HEADER_WINDOW ? HEADER_WINDOW : w.first;
	size_t cap = 0;
	pq_page_info *pages = NULL;
	pq_status st = PQ_OK;
	uint64_t pos = off, rows = 0;
	/* Bodies can't outnumber bytes: bounds the loop on hostile headers. */
	while (l->num_slots < (uint64_t)m->num_values) {
		pq_page_info pi;
		memset(&pi, 0, sizeof pi);
		pi.header_offset = pos;
		st = read_header_any(&w, l, m, !l->dict && !l->num_pages && !l->num_index_pages, pos,
				     &pi.header, &pi.header_len, &l->arena, err);
		if (st != PQ_OK) {
			pq_context(err, "%s, page header at offset %llu", where,
				   (unsigned long long)pos);
			break;
		}
		const pq_page_header *h = &pi.header;
		if (h->compressed_page_size < 0 || h->uncompressed_page_size < 0) {
			st = pq_fail(err, PQ_ECORRUPT,
				     "%s, page at offset %llu: negative page size (%d compressed, %d uncompressed)",
				     where, (unsigned long long)pos, h->compressed_page_size,
				     h->uncompressed_page_size);
			break;
		}
		pi.body_offset = pos + pi.header_len;
		pi.body_len = (uint32_t)h->compressed_page_size;
		if (pq_file_chunk_crypto(f, rg, col) &&
		    (st = enc_body_len(&w, pi.body_offset, &pi.body_len, err)) != PQ_OK) {
			pq_context(err, "%s, page at offset %llu", where, (unsigned long long)pos);
			break;
		}
		if (pi.body_offset > f->size || pi.body_len > f->size - pi.body_offset) {
			st = pq_fail(err, PQ_ECORRUPT,
				     "%s, page at offset %llu: body of %u bytes runs past the end of the file",
				     where, (unsigned long long)pos, pi.body_len);
			break;
		}
		pos = pi.body_offset + pi.body_len;
		if (near && w.first > HEADER_WINDOW)
			w.want = pi.header_len + (uint64_t)pi.body_len >= HEADER_WINDOW ? HEADER_WINDOW
											: w.first;
		if (h->type == PQ_PAGE_INDEX) {
			l->num_index_pages++;
			continue;
		}
		if (h->type == PQ_PAGE_DICTIONARY) {
			if (!h->has_dictionary_page_header || l->dict || l->num_pages) {
				st = pq_fail(err, PQ_ECORRUPT,
					     "%s, page at offset %llu: %s", where,
					     (unsigned long long)pi.header_offset,
					     !h->has_dictionary_page_header ? "dictionary page without its header"
					     : "a second or late dictionary page");
				break;
			}
			l->dict = pq_arena_memdup(&l->arena, &pi, sizeof pi);
			if (!l->dict) {
				st = pq_fail(err, PQ_ENOMEM, "%s: no memory", where);
				break;
			}
			continue;
		}
		int32_t nv;
		if (h->type == PQ_PAGE_DATA && h->has_data_page_header) {
			nv = h->data_page_header.num_values;
			pi.rows_known = leaf && leaf->max_rep == 0;
			pi.num_rows = pi.rows_known ? (uint32_t)(nv < 0 ? 0 : nv) : 0;
		} else if (h->type == PQ_PAGE_DATA_V2 && h->has_data_page_header_v2) {
			nv = h->data_page_header_v2.num_values;
			pi.rows_known = h->data_page_header_v2.num_rows >= 0;
			pi.num_rows = (uint32_t)(pi.rows_known ? h->data_page_header_v2.num_rows : 0);
		} else {
			st = pq_fail(err, PQ_ECORRUPT,
				     "%s, page at offset %llu: page type %d without a matching header",
				     where, (unsigned long long)pi.header_offset, h->type);
			break;
		}
		if (nv < 0) {
			st = pq_fail(err, PQ_ECORRUPT, "%s, page at offset %llu: negative num_values %d",
				     where, (unsigned long long)pi.header_offset, nv);
			break;
		}
		pi.num_slots = (uint32_t)nv;
		pi.first_slot = l->num_slots;
		pi.first_row = rows;
		rows += pi.num_rows;
		l->num_slots += (uint64_t)nv;
		if (l->num_pages == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			pq_page_info *np = realloc(pages, ncap * sizeof *np);
			if (!np) {
				st = pq_fail(err, PQ_ENOMEM, "%s: no memory for %zu pages", where, ncap);
				break;
			}
			pages = np;
			cap = ncap;
		}
		pages[l->num_pages++] = pi;
		/* An empty page at the end of data would loop forever on a file
		 * whose counts never add up; the file end stops us instead. */
		if (pos + 8 > f->size && l->num_slots < (uint64_t)m->num_values) {
			st = pq_fail(err, PQ_ECORRUPT,
				     "%s: pages end at offset %llu with %llu of %lld values",
				     where, (unsigned long long)pos,
				     (unsigned long long)l->num_slots, (long long)m->num_values);
			break;
		}
	}
	free(w.buf);
	if (st == PQ_OK && l->num_pages) {
		l->pages = pq_arena_memdup(&l->arena, pages, l->num_pages * sizeof *pages);
		if (!l->pages)
			st = pq_fail(err, PQ_ENOMEM, "%s: no memory", where);
	}
	free(pages);
	if (st != PQ_OK) {
		pq_chunk_layout_free(l);
		return st;
	}
	*out = l;
	return PQ_OK;
}

void pq_chunk_layout_free(pq_chunk_layout *l)
{
	if (!l)
		return;
	pq_arena_free(&l->arena);
	free(l);
}

/* ---- One page, located through the offset index ---------------------------
 * Reading one page of a remote file must not fetch the chunk's pages before
 * it: the offset index says where the page is. It is trusted only as far as
 * it agrees with the chunk's metadata and with the page's own header;
 * anything else is left to the walk above, whose pages are the contract. */

typedef struct index_view {
	pq_arena arena;
	pq_offset_index oi;
	uint64_t off, len; /* the chunk's range */
	int64_t rows;      /* the row group's */
} index_view;

/* Loads the offset index into x and checks that it can stand in for the
 * walk: plaintext chunk, pages back to back from data_page_offset to the
 * chunk's end, first rows from 0 strictly increasing within the row group,
 * and (flat column: one slot a row) num_values equal to the rows, so the
 * walk would end at the index's last page. x->arena is always set up. */
static bool index_usable(const pq_file *f, uint32_t rg, uint32_t col, index_view *x)
{
	pq_arena_init(&x->arena, 0);
	memset(&x->oi, 0, sizeof x->oi);
	pq_error e;
	const pq_column_meta_data *m;
	const pq_leaf *leaf = pq_schema_leaf(f->schema, col);
	if (!leaf || pq_file_chunk_crypto(f, rg, col) || !pq_chunk_has_offset_index(f, rg, col) ||
	    pq_file_chunk_meta_checked(f, rg, col, &m, &e) != PQ_OK ||
	    pq_chunk_range(f, rg, col, &x->off, &x->len, &e) != PQ_OK)
		return false;
	const pq_column_chunk *c = pq_file_chunk(f, rg, col);
	pq_arena_free(&x->arena);
	pq_arena_init(&x->arena, (size_t)c->offset_index_length * 64 + (1u << 20));
	if (pq_chunk_offset_index_read(f, rg, col, &x->oi, &x->arena, &e) != PQ_OK)
		return false;
	x->rows = f->md.row_groups.v[rg].num_rows;
	uint32_t n = x->oi.page_locations.n;
	const pq_page_location *v = x->oi.page_locations.v;
	if (n == 0 || x->rows <= 0 || (leaf->max_rep == 0 && m->num_values != x->rows) ||
	    v[0].offset != m->data_page_offset || (uint64_t)v[0].offset < x->off ||
	    v[0].first_row_index != 0 || v[n - 1].first_row_index >= x->rows)
		return false;
	uint64_t at = (uint64_t)v[0].offset, end = x->off + x->len;
	for (uint32_t i = 0; i < n; i++) {
		if (v[i].offset < 0 || (uint64_t)v[i].offset != at || v[i].compressed_page_size <= 0 ||
		    (i && v[i].first_row_index <= v[i - 1].first_row_index))
			return false;
		at += (uint64_t)v[i].compressed_page_size;
		if (at > end)
			return false;
	}
	return at == end;
}

pq_status pq_chunk_index_num_pages(const pq_file *f, uint32_t rg, uint32_t col, uint32_t *n,
				   pq_error *err)
{
	index_view x;
	bool ok = index_usable(f, rg, col, &x);
	*n = ok ? x.oi.page_locations.n : 0;
	pq_arena_free(&x.arena);
	return ok ? PQ_OK : pq_fail(err, PQ_EUNSUPPORTED, "no offset index to count pages by");
}

bool pq_page_wants_dict(const pq_page_info *page)
{
	const pq_page_header *h = &page->header;
	int32_t enc = h->type == PQ_PAGE_DATA_V2 ? h->data_page_header_v2.encoding
		    : h->type == PQ_PAGE_DATA   ? h->data_page_header.encoding
						: -1;
	return enc == PQ_ENC_PLAIN_DICTIONARY || enc == PQ_ENC_RLE_DICTIONARY;
}

/* The data page header read at loc against its index entry (rows: the
 * rows the index gives it). Fills pi as the walk would. */
static pq_status index_page_check(const pq_leaf *leaf, const pq_page_location *loc, int64_t rows,
				  pq_page_info *pi, pq_error *err)
{
	const pq_page_header *h = &pi->header;
	int32_t nv;
	if (h->type == PQ_PAGE_DATA && h->has_data_page_header) {
		nv = h->data_page_header.num_values;
		pi->rows_known = leaf->max_rep == 0;
		pi->num_rows = pi->rows_known ? (uint32_t)(nv < 0 ? 0 : nv) : 0;
	} else if (h->type == PQ_PAGE_DATA_V2 && h->has_data_page_header_v2) {
		nv = h->data_page_header_v2.num_values;
		pi->rows_known = h->data_page_header_v2.num_rows >= 0;
		pi->num_rows = (uint32_t)(pi->rows_known ? h->data_page_header_v2.num_rows : 0);
	} else {
		return pq_fail(err, PQ_ECORRUPT, "the offset index points at a page of type %d", h->type);
	}
	PQ_CHECK(nv >= 0 && h->compressed_page_size >= 0 && h->uncompressed_page_size >= 0, err,
		 PQ_ECORRUPT, "negative counts in the page header the offset index points at");
	PQ_CHECK((int64_t)pi->header_len + h->compressed_page_size == loc->compressed_page_size, err,
		 PQ_ECORRUPT, "page of %u + %d bytes, the offset index says %d", pi->header_len,
		 h->compressed_page_size, loc->compressed_page_size);
	PQ_CHECK(!pi->rows_known || (int64_t)pi->num_rows == rows, err, PQ_ECORRUPT,
		 "page of %u rows, the offset index says %lld", pi->num_rows, (long long)rows);
	pi->body_offset = pi->header_offset + pi->header_len;
	pi->body_len = (uint32_t)h->compressed_page_size;
	pi->num_slots = (uint32_t)nv;
	pi->first_row = (uint64_t)loc->first_row_index;
	/* one slot a row in a flat column; unknown in a nested one */
	pi->first_slot = leaf->max_rep == 0 ? pi->first_row : 0;
	return PQ_OK;
}

/* The dictionary page filling [off, off + len), the bytes before the
 * first data page. */
static pq_status index_dict(window *w, uint64_t off, uint64_t len, pq_page_info *d,
			    pq_arena *arena, pq_error *err)
{
	memset(d, 0, sizeof *d);
	d->header_offset = off;
	w->first = len > (1u << 20) ? (1u << 20) : (size_t)len;
	w->want = w->first;
	PQ_TRY(read_header(w, off, &d->header, &d->header_len, arena, err));
	const pq_page_header *h = &d->header;
	PQ_CHECK(h->type == PQ_PAGE_DICTIONARY && h->has_dictionary_page_header &&
			 h->compressed_page_size >= 0 && h->uncompressed_page_size >= 0 &&
			 (uint64_t)d->header_len + (uint64_t)h->compressed_page_size == len,
		 err, PQ_ECORRUPT, "the %llu bytes before the first data page are not one dictionary page",
		 (unsigned long long)len);
	d->body_offset = off + d->header_len;
	d->body_len = (uint32_t)h->compressed_page_size;
	return PQ_OK;
}

pq_status pq_chunk_layout_load_page(const pq_file *f, uint32_t rg, uint32_t col, uint32_t page,
				    pq_chunk_layout **out, pq_error *err)
{
	*out = NULL;
	index_view x;
	bool ok = index_usable(f, rg, col, &x) && page < x.oi.page_locations.n;
	pq_page_location loc = {0};
	int64_t rows = 0;
	uint64_t dict_off = x.off, dict_len = 0;
	if (ok) {
		const pq_page_location *v = x.oi.page_locations.v;
		loc = v[page];
		rows = (page + 1 < x.oi.page_locations.n ? v[page + 1].first_row_index : x.rows) -
		       loc.first_row_index;
		dict_len = (uint64_t)v[0].offset - x.off;
	}
	pq_arena_free(&x.arena);
	if (!ok)
		return pq_fail(err, PQ_EUNSUPPORTED, "no offset index to locate page %u by", page);

	pq_chunk_layout *l = calloc(1, sizeof *l);
	PQ_CHECK(l, err, PQ_ENOMEM, "no memory for a page layout");
	l->rg = rg;
	l->col = col;
	l->first_page = page;
	pq_arena_init(&l->arena, 0);
	/* the page's whole bytes in one read: the body's read follows at once */
	uint64_t size = (uint64_t)loc.compressed_page_size;
	size_t wsz = size > (1u << 20) ? (1u << 20) : (size_t)size;
	window w = {f, NULL, 0, 0, 0, wsz, wsz};
	pq_page_info pi;
	memset(&pi, 0, sizeof pi);
	pi.header_offset = (uint64_t)loc.offset;
	pq_status st = read_header(&w, pi.header_offset, &pi.header, &pi.header_len, &l->arena, err);
	if (st == PQ_OK)
		st = index_page_check(pq_schema_leaf(f->schema, col), &loc, rows, &pi, err);
	pq_page_info d;
	if (st == PQ_OK && pq_page_wants_dict(&pi) && dict_len > 0 &&
	    (st = index_dict(&w, dict_off, dict_len, &d, &l->arena, err)) == PQ_OK &&
	    !(l->dict = pq_arena_memdup(&l->arena, &d, sizeof d)))
		st = pq_fail(err, PQ_ENOMEM, "no memory");
	free(w.buf);
	if (st == PQ_OK && !(l->pages = pq_arena_memdup(&l->arena, &pi, sizeof pi)))
		st = pq_fail(err, PQ_ENOMEM, "no memory");
	if (st != PQ_OK) {
		pq_chunk_layout_free(l);
		return st;
	}
	l->num_pages = 1;
	l->num_slots = pi.num_slots;
	*out = l;
	return PQ_OK;
}
