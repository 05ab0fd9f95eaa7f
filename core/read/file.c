/* Opening a Parquet file: magic, footer, FileMetaData, schema. */
#include "config.h"

#define PQ_READ_INTERNAL
#include "file_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/pq_footer.h"

/* A read starting within the first bytes of a file whose leading magic
 * is not checked yet: read from offset 0 in the same request, check the
 * magic as opening would have (the same message), then serve the read. */
static pq_status pread_checking_head(const pq_file *f, void *buf, size_t len, uint64_t offset,
				     pq_error *err)
{
	PQ_CHECK(len <= SIZE_MAX - (size_t)offset, err, PQ_ELIMIT, "read of %zu bytes", len);
	size_t n = (size_t)offset + len;
	uint8_t *tmp = malloc(n > PQ_MAGIC_LEN ? n : PQ_MAGIC_LEN);
	PQ_CHECK(tmp, err, PQ_ENOMEM, "no memory for a %zu-byte read", n);
	pq_status st = pq_source_pread(f->src, tmp, n, 0, err);
	pq_footer_loc loc;
	if (st == PQ_OK && n < PQ_MAGIC_LEN)
		st = pq_source_pread(f->src, tmp, PQ_MAGIC_LEN, 0, err);
	if (st == PQ_OK)
		st = pq_footer_locate(tmp, f->end8, f->size, &loc, err);
	if (st == PQ_OK) {
		memcpy(buf, tmp + offset, len);
		__atomic_store_n(&((pq_file *)f)->head_ok, true, __ATOMIC_RELEASE);
	}
	free(tmp);
	return st;
}

pq_status pq_file_pread(const pq_file *f, void *buf, size_t len, uint64_t offset,
			pq_error *err)
{
	if (offset <= PQ_HEAD_REACH && !__atomic_load_n(&f->head_ok, __ATOMIC_ACQUIRE))
		return pread_checking_head(f, buf, len, offset, err);
	return pq_source_pread(f->src, buf, len, offset, err);
}

static pq_status check_row_groups(pq_file *f, pq_error *err)
{
	for (uint32_t r = 0; r < f->md.row_groups.n; r++) {
		const pq_row_group *rg = &f->md.row_groups.v[r];
		PQ_CHECK(rg->columns.n == f->num_columns, err, PQ_ECORRUPT,
			 "row group %u has %u column chunks but the schema has %u leaf columns",
			 r, rg->columns.n, f->num_columns);
		PQ_CHECK(rg->num_rows >= 0, err, PQ_ECORRUPT,
			 "row group %u has a negative row count (%lld)", r,
			 (long long)rg->num_rows);
	}
	return PQ_OK;
}

/* The footer's raw bytes (loc->length at loc->offset) in a malloc'd
 * buffer: copied from the tail already read where they lie in it, the
 * part before it (a footer longer than the tail) read in one more piece. */
static pq_status footer_raw(pq_file *f, const pq_footer_loc *loc, const uint8_t *tail,
			    size_t tail_len, uint8_t **out, pq_error *err)
{
	uint8_t *raw = malloc(loc->length ? loc->length : 1);
	PQ_CHECK(raw, err, PQ_ENOMEM, "no memory for a %u-byte footer", loc->length);
	uint64_t tail_off = f->size - tail_len;
	uint64_t end = loc->offset + loc->length; /* <= size - 8: inside the tail */
	uint64_t from = loc->offset > tail_off ? loc->offset : tail_off;
	pq_status st = PQ_OK;
	if (from > loc->offset)
		st = pq_file_pread(f, raw, (size_t)(from - loc->offset), loc->offset, err);
	if (st != PQ_OK) {
		free(raw);
		return st;
	}
	memcpy(raw + (from - loc->offset), tail + (from - tail_off), (size_t)(end - from));
	*out = raw;
	return PQ_OK;
}

/* One speculative read of the file's tail usually holds the footer (and,
 * for a small file, the leading magic): opening costs one or two reads,
 * one from a far source (its leading magic is checked later, see
 * pq_file_pread: a remote object's metadata.txt takes one GET, and a
 * container's chunk 0 is not decrypted just for four bytes). */
static pq_status open_footer(pq_file *f, const pq_keyring *keys, pq_error *err)
{
	PQ_CHECK(f->size >= 12, err, PQ_ECORRUPT,
		 "not a Parquet file: %llu bytes is too small (at least 12 are needed)",
		 (unsigned long long)f->size);
	size_t tail_len = f->size < PQ_OPEN_TAIL_BYTES ? (size_t)f->size : PQ_OPEN_TAIL_BYTES;
	uint8_t *tail = malloc(tail_len);
	PQ_CHECK(tail, err, PQ_ENOMEM, "no memory to open a file");
	uint8_t head[4];
	f->head_ok = true; /* opening's own reads go straight to the source */
	pq_status st = pq_file_pread(f, tail, tail_len, f->size - tail_len, err);
	if (st == PQ_OK)
		memcpy(f->end8, tail + tail_len - 8, 8);
	f->head_ok = tail_len == f->size || !pq_source_far(f->src);
	if (st == PQ_OK && tail_len == f->size)
		memcpy(head, tail, 4);
	else if (st == PQ_OK && f->head_ok)
		st = pq_file_pread(f, head, 4, 0, err);
	else if (st == PQ_OK)
		memcpy(head, tail + tail_len - 4, 4); /* stands in until checked */
	pq_footer_loc loc;
	if (st == PQ_OK)
		st = pq_footer_locate(head, tail + tail_len - 8, f->size, &loc, err);
	if (st == PQ_OK && loc.length > PQ_MAX_FOOTER_BYTES)
		st = pq_fail(err, PQ_ELIMIT, "footer of %u bytes exceeds the %u-byte limit",
			     loc.length, PQ_MAX_FOOTER_BYTES);
	uint8_t *raw = NULL;
	if (st == PQ_OK) {
		/* Decoded metadata can't be far larger than its encoding: every
		 * list element costs at least a byte, and C structs are bounded. */
		pq_arena_init(&f->arena, (size_t)loc.length * 1024 + (16u << 20));
		st = footer_raw(f, &loc, tail, tail_len, &raw, err);
	}
	free(tail);
	PQ_TRY(st);
	if (loc.encrypted) {
		PQ_TRY(pq_crypto_open_encrypted_footer(f, &loc, raw, keys, err));
	} else {
		f->footer = raw;
		f->footer_len = loc.length;
	}
	size_t used = 0;
	st = pq_thrift_decode(PQ_S_FILE_META_DATA, f->footer, f->footer_len,
					&f->md, &used, &f->arena, err);
	if (st != PQ_OK)
		return pq_context(err, "footer (FileMetaData at offset %llu, %u bytes%s)",
				  (unsigned long long)loc.offset, loc.length,
				  loc.encrypted ? ", decrypted" : "");
	/* A plaintext footer of an encrypted file is signed. */
	if (!loc.encrypted && f->md.has_encryption_algorithm)
		PQ_TRY(pq_crypto_open_plaintext_footer(f, used, keys, err));
	PQ_TRY(pq_schema_build(&f->md, &f->schema, err));
	f->num_columns = (uint32_t)pq_schema_num_leaves(f->schema);
	PQ_TRY(check_row_groups(f, err));
	return f->crypto ? pq_crypto_setup_chunks(f, keys, err) : PQ_OK;
}

pq_status pq_file_open(pq_source *src, const char *name, const pq_keyring *keys,
		       pq_file **out, pq_error *err)
{
	*out = NULL;
	pq_file *f = calloc(1, sizeof *f);
	PQ_CHECK(f, err, PQ_ENOMEM, "no memory to open %s", name);
	pq_source_ref(src);
	f->src = src;
	f->size = pq_source_size(src);
	f->name = strdup(name ? name : "");
	pq_arena_init(&f->arena, 0);
	f->page_budget = PQ_DEFAULT_PAGE_BUDGET;
	f->page_window = PQ_PAGE_WINDOW_SLOTS;
	f->crc_check = true;
	pq_status st = f->name ? open_footer(f, keys, err)
			       : pq_fail(err, PQ_ENOMEM, "no memory to open a file");
	if (st != PQ_OK) {
		pq_file_free(f);
		return st;
	}
	*out = f;
	return PQ_OK;
}

pq_status pq_file_open_fd(int fd, const char *name, const pq_keyring *keys, pq_file **out,
			  pq_error *err)
{
	*out = NULL;
	pq_source *src;
	PQ_TRY(pq_source_fd_new(fd, false, &src, err));
	pq_status st = pq_file_open(src, name, keys, out, err);
	pq_source_unref(src);
	return st;
}

void pq_file_set_page_window(pq_file *f, size_t slots)
{
	f->page_window = slots == 0 ? 1 : slots > PQ_PAGE_WINDOW_SLOTS ? PQ_PAGE_WINDOW_SLOTS : slots;
}

void pq_file_set_page_budget(pq_file *f, uint64_t bytes)
{
	f->page_budget = bytes;
}

void pq_file_set_budget(pq_file *f, pq_budget *b)
{
	f->budget = b;
}

void pq_file_set_crc_check(pq_file *f, bool on)
{
	f->crc_check = on;
}

void pq_file_free(pq_file *f)
{
	if (!f)
		return;
	if (f->schema)
		pq_schema_free(f->schema);
	pq_crypto_free(f->crypto);
	pq_arena_free(&f->arena);
	free(f->footer);
	free(f->name);
	pq_source_unref(f->src);
	free(f);
}

const pq_file_meta_data *pq_file_metadata(const pq_file *f) { return &f->md; }
const pq_schema *pq_file_schema(const pq_file *f) { return f->schema; }
uint32_t pq_file_num_row_groups(const pq_file *f) { return f->md.row_groups.n; }
uint32_t pq_file_num_columns(const pq_file *f) { return f->num_columns; }
pq_source *pq_file_source(const pq_file *f) { return f->src; }

pq_bytes pq_file_footer_bytes(const pq_file *f)
{
	pq_bytes b = {f->footer, f->footer_len};
	return b;
}

const pq_column_chunk *pq_file_chunk(const pq_file *f, uint32_t rg, uint32_t col)
{
	if (rg >= f->md.row_groups.n || col >= f->md.row_groups.v[rg].columns.n)
		return NULL;
	return &f->md.row_groups.v[rg].columns.v[col];
}

const pq_column_meta_data *pq_file_chunk_meta(const pq_file *f, uint32_t rg, uint32_t col)
{
	const pq_column_chunk *c = pq_file_chunk(f, rg, col);
	return c && c->has_meta_data ? &c->meta_data : NULL;
}

void pq_file_where(const pq_file *f, uint32_t rg, uint32_t col, char *buf, size_t len)
{
	const pq_leaf *leaf = pq_schema_leaf(f->schema, col);
	snprintf(buf, len, "row group %u, column %s", rg, leaf ? leaf->path : "?");
}

pq_status pq_file_chunk_meta_checked(const pq_file *f, uint32_t rg, uint32_t col,
				     const pq_column_meta_data **out, pq_error *err)
{
	const pq_column_chunk *c = pq_file_chunk(f, rg, col);
	const pq_chunk_crypto *cc = pq_file_chunk_crypto(f, rg, col);
	if (c && c->has_meta_data && !c->has_file_path && (!cc || cc->status == PQ_OK)) {
		*out = &c->meta_data; /* the common case formats no message */
		return PQ_OK;
	}
	/* A chunk of an encrypted file that cannot be read (missing key,
	 * metadata that did not authenticate) says so in its own words. */
	if (cc && cc->status != PQ_OK)
		return pq_fail(err, cc->status, "%s", cc->msg);
	char where[256];
	pq_file_where(f, rg, col, where, sizeof where);
	PQ_CHECK(c, err, PQ_EINVAL, "%s: no such column chunk", where);
	if (!c->has_meta_data) {
		if (c->has_encrypted_column_metadata || c->has_crypto_metadata)
			return pq_fail(err, PQ_EKEY, "%s: column metadata is encrypted and no key is available", where);
		return pq_fail(err, PQ_ECORRUPT, "%s: column chunk has no metadata", where);
	}
	return pq_fail(err, PQ_EUNSUPPORTED,
		       "%s: column data lives in another file (file_path '%.*s')", where,
		       (int)(c->file_path.n > 200 ? 200 : c->file_path.n),
		       (const char *)c->file_path.p);
}

pq_status pq_chunk_range(const pq_file *f, uint32_t rg, uint32_t col,
			 uint64_t *offset, uint64_t *length, pq_error *err)
{
	const pq_column_meta_data *m;
	PQ_TRY(pq_file_chunk_meta_checked(f, rg, col, &m, err));
	char where[256];
	pq_file_where(f, rg, col, where, sizeof where);
	/* The contract: the smaller of the set offsets that are at least 4. */
	int64_t start = -1;
	if (m->data_page_offset >= 4)
		start = m->data_page_offset;
	if (m->has_dictionary_page_offset && m->dictionary_page_offset >= 4 &&
	    (start < 0 || m->dictionary_page_offset < start))
		start = m->dictionary_page_offset;
	PQ_CHECK(start >= 0, err, PQ_ECORRUPT,
		 "%s: no valid page offset (data_page_offset %lld)", where,
		 (long long)m->data_page_offset);
	PQ_CHECK(m->total_compressed_size >= 0, err, PQ_ECORRUPT,
		 "%s: negative total_compressed_size %lld", where,
		 (long long)m->total_compressed_size);
	uint64_t s = (uint64_t)start, n = (uint64_t)m->total_compressed_size;
	PQ_CHECK(s <= f->size && n <= f->size - s, err, PQ_ECORRUPT,
		 "%s: chunk bytes %llu..%llu lie outside the file (%llu bytes)", where,
		 (unsigned long long)s, (unsigned long long)(s + n),
		 (unsigned long long)f->size);
	*offset = s;
	*length = n;
	return PQ_OK;
}

pq_status pq_row_group_extent(const pq_file *f, uint32_t rg, uint64_t *offset, uint64_t *length,
			      pq_error *err)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	for (uint32_t c = 0; c < f->num_columns; c++) {
		uint64_t o, n;
		pq_error e;
		if (pq_chunk_range(f, rg, c, &o, &n, &e) != PQ_OK)
			continue;
		lo = o < lo ? o : lo;
		hi = o + n > hi ? o + n : hi;
	}
	PQ_CHECK(hi > lo, err, PQ_ECORRUPT, "row group %u: no column chunk has a byte range", rg);
	*offset = lo;
	*length = hi - lo;
	return PQ_OK;
}

uint32_t pq_row_groups_run(const pq_file *f, uint32_t rg, uint32_t max_n, uint64_t max_bytes,
			   uint64_t *off, uint64_t *len)
{
	uint32_t n = 0;
	*off = *len = 0;
	for (; n < max_n && rg + n < f->md.row_groups.n; n++) {
		uint64_t o, l;
		pq_error err;
		if (pq_row_group_extent(f, rg + n, &o, &l, &err) != PQ_OK ||
		    (n > 0 && o != *off + *len) || l > max_bytes - *len)
			break;
		if (n == 0)
			*off = o;
		*len += l;
	}
	return n;
}

/* Row groups advised together go out as one range (one request) when they
 * lie end to end and together within this; else each on its own. */
#define ADVISE_TOGETHER_MAX ((uint64_t)8 << 20)

void pq_file_advise_row_groups(const pq_file *f, uint32_t rg, uint32_t n)
{
	if (!pq_source_far(f->src) || !pq_source_advises(f->src))
		return;
	while (n > 0 && rg < f->md.row_groups.n) {
		uint64_t off, len;
		uint32_t k = pq_row_groups_run(f, rg, n, ADVISE_TOGETHER_MAX, &off, &len);
		pq_error err;
		if (k == 0) { /* one larger than the limit (or no range): on its own */
			if (pq_row_group_extent(f, rg, &off, &len, &err) == PQ_OK)
				pq_source_advise(f->src, off, len);
			k = 1;
		} else {
			pq_source_advise(f->src, off, len);
		}
		rg += k;
		n -= k;
	}
}

void pq_file_advise_row_group(const pq_file *f, uint32_t rg)
{
	pq_file_advise_row_groups(f, rg, 1);
}
