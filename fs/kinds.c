/* The entry kinds: one row each (kinds.h says what the columns mean), and
 * the small functions the rows name: renderers of the text entries, byte
 * ranges of the binary ones, and the conditions under which a fixed name
 * is listed. A condition is evaluated only for the name being listed or
 * looked up, so looking up chunk.bin never decodes the chunk.
 *
 * A directory lists the kinds whose parent it is, in the order of this
 * table (the enum's order). */
#include "config.h"

#include <errno.h>

#include "kinds.h"
#include "pq_aruna.h"

static int st_rc(pq_status st)
{
	return st == PQ_OK ? 0 : -pfs_status_to_errno(st);
}

/* ---- conditions (c->k is the directory) --------------------------------------------- */

static bool file_ok(const pfs_kctx *c) { return c->pf->f != NULL; }
static bool file_bad(const pfs_kctx *c) { return c->pf->f == NULL; }
/* A container that does not open still shows file.parquet, whose reads
 * fail (EIO; EACCES without its key), as the contract's "data entries". */
static bool file_or_container(const pfs_kctx *c)
{
	return c->pf->f != NULL || pq_aruna_name(c->pf->src->name);
}

static bool chunk_bad(const pfs_kctx *c)
{
	return pfs_chunk_error(c->fs, c->pf, c->k->rg, c->k->col);
}

static bool col_levels(const pfs_kctx *c)
{
	return pq_column_has_levels(c->pf->f, c->k->col);
}

static bool has_dict(const pfs_kctx *c)
{
	pfs_cobj *lo;
	pq_error err;
	bool has;
	if (pfs_shape_has_dict(c->fs, c->pf, c->k->rg, c->k->col, &has))
		return has;
	if (pfs_layout_get(c->fs, c->pf, c->k->rg, c->k->col, &lo, &err))
		return false;
	has = ((const pq_chunk_layout *)pfs_cobj_obj(lo))->dict != NULL;
	pfs_cache_release(c->fs->cache, lo);
	return has;
}

static bool has_colindex(const pfs_kctx *c)
{
	return pq_chunk_has_column_index(c->pf->f, c->k->rg, c->k->col);
}

static bool has_offindex(const pfs_kctx *c)
{
	return pq_chunk_has_offset_index(c->pf->f, c->k->rg, c->k->col);
}

static bool has_bloom(const pfs_kctx *c)
{
	return pq_chunk_has_bloom_filter(c->pf->f, c->k->rg, c->k->col);
}

static bool page_bad(const pfs_kctx *c)
{
	return pfs_page_error(c->fs, c->pf, c->k->rg, c->k->col, c->k->page);
}

static bool page_levels(const pfs_kctx *c)
{
	return c->k->page != PFS_DICT && pq_column_has_levels(c->pf->f, c->k->col);
}

/* ---- metadata texts (the file is open: content.c checks) ------------------------------ */

static int r_file_error(const pfs_kctx *c, pq_buf *out)
{
	pq_buf_printf(out, "%s\n", c->pf->msg ? c->pf->msg : "cannot open the file");
	return 0;
}

static int r_schema(const pfs_kctx *c, pq_buf *out)
{
	pq_text_schema(c->pf->f, out);
	return 0;
}

static int r_meta_txt(const pfs_kctx *c, pq_buf *out)
{
	pq_text_file_metadata(c->pf->f, out);
	return 0;
}

static int r_meta_json(const pfs_kctx *c, pq_buf *out)
{
	pq_json_file_metadata(c->pf->f, out);
	return 0;
}

/* (a check that could not be made fails the read: content.c logs why) */
static int r_verify(const pfs_kctx *c, pq_buf *out)
{
	pq_status st = pq_text_verify(c->pf->f, out, c->err);
	return st == PQ_OK ? 0 : -pfs_status_to_errno(st);
}

static int r_csv_header(const pfs_kctx *c, pq_buf *out)
{
	pq_text_csv_header(c->pf->f, out);
	return 0;
}

static int r_rg_meta_txt(const pfs_kctx *c, pq_buf *out)
{
	pq_text_row_group_metadata(c->pf->f, c->k->rg, out);
	return 0;
}

static int r_rg_meta_json(const pfs_kctx *c, pq_buf *out)
{
	pq_json_row_group_metadata(c->pf->f, c->k->rg, out);
	return 0;
}

static int r_chunk_meta_txt(const pfs_kctx *c, pq_buf *out)
{
	pq_text_chunk_metadata(c->pf->f, c->k->rg, c->k->col, out);
	return 0;
}

static int r_chunk_meta_json(const pfs_kctx *c, pq_buf *out)
{
	pq_json_chunk_metadata(c->pf->f, c->k->rg, c->k->col, out);
	return 0;
}

static int r_column_index(const pfs_kctx *c, pq_buf *out)
{
	return st_rc(pq_text_column_index(c->pf->f, c->k->rg, c->k->col, out, c->err));
}

static int r_offset_index(const pfs_kctx *c, pq_buf *out)
{
	return st_rc(pq_text_offset_index(c->pf->f, c->k->rg, c->k->col, out, c->err));
}

static int r_bloom_bin(const pfs_kctx *c, pq_buf *out)
{
	return st_rc(pq_bloom_filter_bitset(c->pf->f, c->k->rg, c->k->col, out, c->err));
}

static int r_bloom_txt(const pfs_kctx *c, pq_buf *out)
{
	return st_rc(pq_text_bloom_filter(c->pf->f, c->k->rg, c->k->col, out, c->err));
}

static int r_column_stats(const pfs_kctx *c, pq_buf *out)
{
	atomic_fetch_add(&c->fs->summaries, 1);
	return st_rc(pq_text_column_summary(c->pf->f, c->k->col, out, c->err));
}

/* ---- error.txt of chunks and pages: what is wrong (nothing when sound) ------------------ */

/* A page's failure as error.txt says it; a damaged page (its CRC) also
 * says how to read it anyway. */
static void put_page_failure(pq_buf *msg, const pq_error *err)
{
	pq_buf_printf(msg, "%s%s\n", err->msg,
		      err->status == PQ_ECHECKSUM ? " (the page is damaged; -o crc_check=off serves "
						    "it as decoded)" : "");
}

static int r_chunk_error(const pfs_kctx *c, pq_buf *msg)
{
	pq_error err = {0};
	uint64_t off, len;
	uint32_t rg = c->k->rg, col = c->k->col;
	if (pq_chunk_range(c->pf->f, rg, col, &off, &len, &err) != PQ_OK) {
		pq_buf_printf(msg, "%s\n", err.msg);
		return 0;
	}
	pfs_cobj *lo;
	if (pfs_layout_get(c->fs, c->pf, rg, col, &lo, &err)) {
		pq_buf_printf(msg, "%s\n", err.msg);
		return 0;
	}
	const pq_chunk_layout *l = pfs_cobj_obj(lo);
	for (uint32_t p = 0; p < l->num_pages; p++) {
		pfs_cobj *pd;
		if (pfs_page_get(c->fs, c->pf, lo, rg, col, p, &pd, &err)) {
			put_page_failure(msg, &err);
			break;
		}
		pfs_cache_release(c->fs->cache, pd);
	}
	pfs_cache_release(c->fs->cache, lo);
	return 0;
}

static int r_page_error(const pfs_kctx *c, pq_buf *msg)
{
	pq_error err = {0};
	pfs_cobj *pd;
	if (pfs_page_get(c->fs, c->pf, NULL, c->k->rg, c->k->col, c->k->page, &pd, &err))
		put_page_failure(msg, &err);
	else
		pfs_cache_release(c->fs->cache, pd);
	return 0;
}

/* ---- pages ---------------------------------------------------------------------------- */

/* Done with a decoded page: kept in the cache, or not when a stream reads
 * each page once. */
static void pfs_page_done(const pfs_kctx *c, pfs_cobj *pd)
{
	if (c->once)
		pfs_cache_release_drop(c->fs->cache, pd);
	else
		pfs_cache_release(c->fs->cache, pd);
}

static int r_page_values(const pfs_kctx *c, pq_buf *out)
{
	pfs_cobj *pd;
	int rc = pfs_page_get(c->fs, c->pf, c->layout, c->k->rg, c->k->col, c->k->page, &pd,
			      c->err);
	if (rc)
		return rc;
	pq_text_page_values(c->pf->f, c->k->col, pfs_cobj_obj(pd), out);
	pfs_page_done(c, pd);
	return 0;
}

static int r_page_levels(const pfs_kctx *c, pq_buf *out)
{
	pfs_cobj *pd;
	int rc = pfs_page_get(c->fs, c->pf, c->layout, c->k->rg, c->k->col, c->k->page, &pd,
			      c->err);
	if (rc)
		return rc;
	pq_text_page_levels(pfs_cobj_obj(pd), out);
	pfs_page_done(c, pd);
	return 0;
}

typedef pq_status (*page_fn)(const pfs_kctx *c, const pq_chunk_layout *l,
			     const pq_page_info *pi, pq_buf *out);

/* Renders from the page's header in the chunk layout (held, or loaded). */
static int with_page(const pfs_kctx *c, pq_buf *out, page_fn fn)
{
	pfs_cobj *lo = c->layout;
	int rc = lo ? 0 : pfs_layout_get(c->fs, c->pf, c->k->rg, c->k->col, &lo, c->err);
	if (rc)
		return rc;
	const pq_chunk_layout *l = pfs_cobj_obj(lo);
	const pq_page_info *pi = pfs_layout_page(l, c->k->page);
	pq_status st = pi ? fn(c, l, pi, out) : pq_fail(c->err, PQ_EINVAL, "no page %u", c->k->page);
	if (!c->layout)
		pfs_cache_release(c->fs->cache, lo);
	return st_rc(st);
}

static pq_status hdr_txt(const pfs_kctx *c, const pq_chunk_layout *l, const pq_page_info *pi,
			 pq_buf *out)
{
	return pq_text_page_header(c->pf->f, l, pi, out, c->err);
}

static pq_status hdr_json(const pfs_kctx *c, const pq_chunk_layout *l, const pq_page_info *pi,
			  pq_buf *out)
{
	return pq_json_page_header(c->pf->f, l, pi, out, c->err);
}

/* The decompressed body replaces out's bytes (out is empty here). */
static pq_status body(const pfs_kctx *c, const pq_chunk_layout *l, const pq_page_info *pi,
		      pq_buf *out)
{
	uint8_t *p;
	size_t len;
	pq_status st = pq_page_body(c->pf->f, l, pi, &p, &len, c->err);
	if (st == PQ_OK) {
		pq_buf_free(out);
		out->p = p;
		out->len = out->cap = len;
	}
	return st;
}

static int r_page_hdr_txt(const pfs_kctx *c, pq_buf *out) { return with_page(c, out, hdr_txt); }
static int r_page_hdr_json(const pfs_kctx *c, pq_buf *out) { return with_page(c, out, hdr_json); }
static int r_page_data(const pfs_kctx *c, pq_buf *out) { return with_page(c, out, body); }

/* A data page's levels.txt size from its header alone (ls -l of every
 * page would otherwise decode every page). */
typedef bool (*header_size_fn)(const pfs_kctx *c, const pq_page_info *pi, uint64_t *size);

/* A size from the page's header in the chunk layout (held, or loaded). */
static bool from_header(const pfs_kctx *c, header_size_fn fn, uint64_t *size)
{
	if (!c->pf->f)
		return false;
	pfs_cobj *lo = c->layout;
	pq_error err;
	if (!lo && pfs_layout_get(c->fs, c->pf, c->k->rg, c->k->col, &lo, &err) != 0)
		return false;
	const pq_page_info *pi = pfs_layout_page(pfs_cobj_obj(lo), c->k->page);
	bool ok = pi && fn(c, pi, size);
	if (!c->layout)
		pfs_cache_release(c->fs->cache, lo);
	return ok;
}

static bool levels_from_header(const pfs_kctx *c, const pq_page_info *pi, uint64_t *size)
{
	return (pi->header.type == PQ_PAGE_DATA || pi->header.type == PQ_PAGE_DATA_V2) &&
	       pq_page_levels_size(c->pf->f, c->k->col, pi, size);
}

static bool levels_size(const pfs_kctx *c, uint64_t *size)
{
	return from_header(c, levels_from_header, size);
}

/* data.bin's size is the header's uncompressed_page_size: core's body is
 * exactly that many bytes or fails (and then so does the open), so ls -l
 * of every page decompresses nothing. */
static bool body_from_header(const pfs_kctx *c, const pq_page_info *pi, uint64_t *size)
{
	(void)c;
	if (pi->header.uncompressed_page_size < 0)
		return false;
	*size = (uint64_t)pi->header.uncompressed_page_size;
	return true;
}

static bool body_size(const pfs_kctx *c, uint64_t *size)
{
	return pfs_shape_size(c, size) || from_header(c, body_from_header, size);
}

/* From the size pass when it ran, else from the page header. */
static bool page_levels_size(const pfs_kctx *c, uint64_t *size)
{
	return pfs_pass_page_size(c, size) || levels_size(c, size);
}

/* A page's values.txt: the size pass's (data pages), the shape's
 * (dictionary pages), else rendered. */
static bool page_values_size(const pfs_kctx *c, uint64_t *size)
{
	return pfs_pass_page_size(c, size) || pfs_shape_size(c, size);
}

/* ---- binary entries --------------------------------------------------------------------- */

static int m_footer(const pfs_kctx *c, const uint8_t **p, uint64_t *len)
{
	if (!c->pf->f)
		return -EIO;
	pq_bytes b = pq_file_footer_bytes(c->pf->f);
	*p = b.p;
	*len = b.n;
	return 0;
}

static int x_chunk(const pfs_kctx *c, uint64_t *off, uint64_t *len)
{
	if (!c->pf->f)
		return -EIO;
	return st_rc(pq_chunk_range(c->pf->f, c->k->rg, c->k->col, off, len, c->err));
}

/* The whole source file, as the pq_file reads it. */
static int x_file(const pfs_kctx *c, uint64_t *off, uint64_t *len)
{
	/* A container that opened serves its plaintext even when that is not
	 * Parquet; one that did not fails (EACCES without its key). */
	bool plain = c->pf->f || (c->pf->io && pq_aruna_is(c->pf->io));
	if (!plain)
		return st_rc(c->pf->status == PQ_EKEY ? PQ_EKEY : PQ_EIO);
	*off = 0;
	*len = pq_source_size(c->pf->f ? pq_file_source(c->pf->f) : c->pf->io);
	return 0;
}

static int x_page_raw(const pfs_kctx *c, uint64_t *off, uint64_t *len)
{
	if (!c->pf->f)
		return -EIO;
	pfs_cobj *lo;
	int rc = pfs_layout_get(c->fs, c->pf, c->k->rg, c->k->col, &lo, c->err);
	if (rc)
		return rc;
	const pq_page_info *pi = pfs_layout_page(pfs_cobj_obj(lo), c->k->page);
	if (pi) {
		*off = pi->body_offset;
		*len = pi->body_len;
	}
	pfs_cache_release(c->fs->cache, lo);
	return pi ? 0 : -ENOENT;
}

/* ---- the table ------------------------------------------------------------------------- */

#define DIR(nm, par) .name = (nm), .parent = (par), .dir = true
#define TEXT(fn) .body = PFS_BODY_TEXT, .size = PFS_SZ_TEXT, .render = (fn)
#define STREAM(fn, seg) .body = PFS_BODY_STREAM, .stream = (fn), .segment = (seg)

static const pfs_kind_desc pfs_kinds[PFS_K_COUNT] = {
	/* PFS_K_NONE: all zero */
	[PFS_K_SRC_DIR] = {.dir = true, .source = true},
	[PFS_K_FILE] = {.dir = true, .source = true},
	[PFS_K_STG_DIR] = {.dir = true, .staging = true},
	[PFS_K_STG_FILE] = {.staging = true},
	[PFS_K_STG_ERROR] = {.staging = true},

	/* file level */
	[PFS_K_FILE_ERROR] = {"error.txt", PFS_K_FILE, .present = file_bad, .without_file = true,
			      TEXT(r_file_error)},
	[PFS_K_SCHEMA] = {"schema.txt", PFS_K_FILE, .present = file_ok, TEXT(r_schema)},
	[PFS_K_META_TXT] = {"metadata.txt", PFS_K_FILE, .present = file_ok, TEXT(r_meta_txt)},
	[PFS_K_META_JSON] = {"metadata.json", PFS_K_FILE, .present = file_ok, TEXT(r_meta_json)},
	[PFS_K_FOOTER] = {"footer.bin", PFS_K_FILE, .present = file_ok, .body = PFS_BODY_MEM,
			  .size = PFS_SZ_EXTENT, .mem = m_footer},
	/* its size and text come from the size pass (which checks what it
	 * checks); the text is rendered again only when evicted */
	[PFS_K_VERIFY] = {"verify.txt", PFS_K_FILE, .present = file_ok, .pool = PFS_POOL_DATA,
			  .body = PFS_BODY_TEXT, .size = PFS_SZ_PASS, .render = r_verify},
	[PFS_K_CSV] = {"data.csv", PFS_K_FILE, .present = file_ok, .size = PFS_SZ_PASS,
		       STREAM(pfs_stream_csv, PFS_K_RG_CSV)},
	[PFS_K_JSONL] = {"data.jsonl", PFS_K_FILE, .present = file_ok, .size = PFS_SZ_PASS,
			 STREAM(pfs_stream_jsonl, PFS_K_RG_JSONL)},
	[PFS_K_FILE_PARQUET] = {"file.parquet", PFS_K_FILE, .present = file_or_container,
				.body = PFS_BODY_RANGE, .size = PFS_SZ_EXTENT, .range = x_file},
	[PFS_K_COLUMNS] = {DIR("columns", PFS_K_FILE), .present = file_ok},
	[PFS_K_COLUMN] = {DIR(NULL, PFS_K_COLUMNS), .naming = PFS_NAME_COLUMN},
	[PFS_K_COLUMN_VALUES] = {"values.txt", PFS_K_COLUMN, .size = PFS_SZ_PASS,
				 STREAM(pfs_stream_pages, PFS_K_CHUNK_VALUES)},
	[PFS_K_COLUMN_STATS] = {"stats.txt", PFS_K_COLUMN, TEXT(r_column_stats),
				.quick_size = pfs_shape_column_stats},
	[PFS_K_RGS] = {DIR("row_groups", PFS_K_FILE), .present = file_ok},

	/* row group level */
	[PFS_K_RG] = {DIR(NULL, PFS_K_RGS), .naming = PFS_NAME_RG},
	[PFS_K_RG_META_TXT] = {"metadata.txt", PFS_K_RG, TEXT(r_rg_meta_txt)},
	[PFS_K_RG_META_JSON] = {"metadata.json", PFS_K_RG, TEXT(r_rg_meta_json)},
	[PFS_K_RG_CSV] = {"data.csv", PFS_K_RG, .size = PFS_SZ_PASS,
			  STREAM(pfs_stream_csv, PFS_K_RG_CSV)},
	[PFS_K_RG_JSONL] = {"data.jsonl", PFS_K_RG, .size = PFS_SZ_PASS,
			    STREAM(pfs_stream_jsonl, PFS_K_RG_JSONL)},
	[PFS_K_RG_COLUMNS] = {DIR("columns", PFS_K_RG)},

	/* chunk level */
	[PFS_K_CHUNK] = {DIR(NULL, PFS_K_RG_COLUMNS), .naming = PFS_NAME_COLUMN},
	[PFS_K_CHUNK_ERROR] = {"error.txt", PFS_K_CHUNK, .present = chunk_bad,
			       .body = PFS_BODY_TEXT, .size = PFS_SZ_CHECK, .render = r_chunk_error},
	[PFS_K_CHUNK_META_TXT] = {"metadata.txt", PFS_K_CHUNK, TEXT(r_chunk_meta_txt)},
	[PFS_K_CHUNK_META_JSON] = {"metadata.json", PFS_K_CHUNK, TEXT(r_chunk_meta_json)},
	/* exact sizes (the sum of its pages'), streamed page by page */
	[PFS_K_CHUNK_VALUES] = {"values.txt", PFS_K_CHUNK, .size = PFS_SZ_PAGES,
				STREAM(pfs_stream_pages, PFS_K_PAGE_VALUES)},
	[PFS_K_CHUNK_LEVELS] = {"levels.txt", PFS_K_CHUNK, .present = col_levels,
				.size = PFS_SZ_PAGES, STREAM(pfs_stream_pages, PFS_K_PAGE_LEVELS)},
	[PFS_K_CHUNK_BIN] = {"chunk.bin", PFS_K_CHUNK, .body = PFS_BODY_RANGE,
			     .size = PFS_SZ_EXTENT, .range = x_chunk},
	[PFS_K_DICT] = {DIR("dictionary", PFS_K_CHUNK), .present = has_dict,
			.key_kind = PFS_K_PAGE, .key_page = PFS_DICT},
	[PFS_K_PAGES] = {DIR("pages", PFS_K_CHUNK)},
	/* (sizes from the size index's shapes, when it has them: these
	 * texts are read from elsewhere in the file) */
	[PFS_K_COLUMN_INDEX] = {"column_index.txt", PFS_K_CHUNK, .present = has_colindex,
				TEXT(r_column_index), .quick_size = pfs_shape_size},
	[PFS_K_OFFSET_INDEX] = {"offset_index.txt", PFS_K_CHUNK, .present = has_offindex,
				TEXT(r_offset_index), .quick_size = pfs_shape_size},
	[PFS_K_BLOOM_BIN] = {"bloom_filter.bin", PFS_K_CHUNK, .present = has_bloom,
			     .pool = PFS_POOL_DATA, TEXT(r_bloom_bin), .quick_size = pfs_shape_size},
	[PFS_K_BLOOM_TXT] = {"bloom_filter.txt", PFS_K_CHUNK, .present = has_bloom,
			     TEXT(r_bloom_txt), .quick_size = pfs_shape_size},

	/* page level (page = PFS_DICT for dictionary/) */
	[PFS_K_PAGE] = {DIR(NULL, PFS_K_PAGES), .naming = PFS_NAME_PAGE},
	[PFS_K_PAGE_ERROR] = {"error.txt", PFS_K_PAGE, .present = page_bad,
			      .body = PFS_BODY_TEXT, .size = PFS_SZ_CHECK, .render = r_page_error},
	/* header sizes from the size index's shapes, when it has them */
	[PFS_K_PAGE_HDR_TXT] = {"header.txt", PFS_K_PAGE, TEXT(r_page_hdr_txt),
				.quick_size = pfs_shape_size},
	[PFS_K_PAGE_HDR_JSON] = {"header.json", PFS_K_PAGE, TEXT(r_page_hdr_json),
				 .quick_size = pfs_shape_size},
	[PFS_K_PAGE_RAW] = {"raw.bin", PFS_K_PAGE, .body = PFS_BODY_RANGE, .size = PFS_SZ_EXTENT,
			    .range = x_page_raw, .quick_size = pfs_shape_size},
	[PFS_K_PAGE_DATA] = {"data.bin", PFS_K_PAGE, .pool = PFS_POOL_DATA, TEXT(r_page_data),
			     .quick_size = body_size},
	[PFS_K_PAGE_VALUES] = {"values.txt", PFS_K_PAGE, .pool = PFS_POOL_DATA,
			       TEXT(r_page_values), .quick_size = page_values_size},
	[PFS_K_PAGE_LEVELS] = {"levels.txt", PFS_K_PAGE, .present = page_levels,
			       .pool = PFS_POOL_DATA, TEXT(r_page_levels),
			       .quick_size = page_levels_size},

	/* cache-only objects */
	[PFS_C_LAYOUT] = {.cache_only = true},
	[PFS_C_PAGE_DATA] = {.cache_only = true, .pool = PFS_POOL_DATA},
	[PFS_C_CSV_HEADER] = {.cache_only = true, .body = PFS_BODY_TEXT, .render = r_csv_header},
	[PFS_C_SIZES] = {.cache_only = true},
	[PFS_C_SHAPES] = {.cache_only = true},
};

const pfs_kind_desc *pfs_kind_info(uint32_t kind)
{
	return &pfs_kinds[kind < PFS_K_COUNT ? kind : PFS_K_NONE];
}

bool pfs_kind_is_dir(pfs_kind k)
{
	return pfs_kind_info(k)->dir;
}

bool pfs_kind_is_stream(pfs_kind k)
{
	return pfs_kind_info(k)->body == PFS_BODY_STREAM;
}

bool pfs_kind_is_aggregate(pfs_kind k)
{
	return pfs_kind_info(k)->size == PFS_SZ_PASS;
}

bool pfs_kind_is_staging(pfs_kind k)
{
	return pfs_kind_info(k)->staging;
}

pfs_cache *pfs_cache_for(pfs_fs *fs, pfs_kind kind)
{
	return pfs_kind_info(kind)->pool == PFS_POOL_DATA ? fs->cache : fs->meta;
}
