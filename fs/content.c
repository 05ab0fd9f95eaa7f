/* The bytes of each entry kind, through core/pq_file.h, and their sizes.
 *
 * Small entries (metadata, headers, page texts, page bodies) are rendered
 * whole and kept in the shared cache under the entry's key, so the getattr
 * that measured them and the read that follows render once. Chunk layouts
 * and decoded pages are cached too; a dictionary page is decoded once and
 * shared by the data pages of its chunk. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pfs_internal.h"

int pfs_status_to_errno(pq_status st)
{
	int e = pq_status_errno(st);
	return e > 0 ? e : EIO;
}

static void text_free(void *p)
{
	pfs_text *t = p;
	if (t) {
		free(t->p);
		free(t);
	}
}

static void layout_free(void *p)
{
	pq_chunk_layout_free(p);
}

static void page_free(void *p)
{
	pq_page_data_unref(p);
}

/* Moves a buffer into the cache as a text object. */
static int cache_text(pfs_fs *fs, const pfs_key *k, pq_buf *b, pfs_cobj **out)
{
	if (b->oom) {
		pq_buf_free(b);
		return -ENOMEM;
	}
	pfs_text *t = calloc(1, sizeof *t);
	if (!t) {
		pq_buf_free(b);
		return -ENOMEM;
	}
	t->p = pq_buf_take(b, &t->len);
	/* give back the buffer's slack: the cache counts len bytes */
	uint8_t *shrunk = t->len ? realloc(t->p, t->len) : NULL;
	if (shrunk)
		t->p = shrunk;
	*out = pfs_cache_put(pfs_cache_for(fs, (pfs_kind)k->kind), k, t, t->len, text_free);
	return *out ? 0 : -ENOMEM;
}

int pfs_layout_get(pfs_fs *fs, pfs_pf *pf, uint32_t rg, uint32_t col, pfs_cobj **out,
		   pq_error *err)
{
	pfs_key k = pfs_key_make(pf->gen, PFS_C_LAYOUT, rg, col, 0);
	if ((*out = pfs_cache_get(fs->meta, &k)))
		return 0;
	if (!pf->f)
		return -EIO;
	pq_chunk_layout *l;
	pq_status st = pq_chunk_layout_load(pf->f, rg, col, &l, err);
	if (st != PQ_OK)
		return -pfs_status_to_errno(st);
	*out = pfs_cache_put(fs->meta, &k, l, pq_arena_footprint(&l->arena) + sizeof *l, layout_free);
	return *out ? 0 : -ENOMEM;
}

const pq_page_info *pfs_layout_page(const pq_chunk_layout *l, uint32_t page)
{
	if (page == PFS_DICT)
		return l->dict;
	return page < l->num_pages ? &l->pages[page] : NULL;
}

/* A decoded page (held cache entry). lo: the chunk's layout when the
 * caller holds it (loops over pages), else NULL. */
static int page_get(pfs_fs *fs, pfs_pf *pf, pfs_cobj *lo, uint32_t rg, uint32_t col,
		    uint32_t page, pfs_cobj **out, pq_error *err)
{
	pfs_key k = pfs_key_make(pf->gen, PFS_C_PAGE_DATA, rg, col, page);
	if ((*out = pfs_cache_get(fs->cache, &k)))
		return 0;
	pfs_cobj *own = NULL;
	int rc = 0;
	if (!lo && (rc = pfs_layout_get(fs, pf, rg, col, &own, err)))
		return rc;
	const pq_chunk_layout *l = pfs_cobj_obj(lo ? lo : own);
	const pq_page_info *pi = pfs_layout_page(l, page);
	pfs_cobj *dict = NULL;
	if (!pi) {
		rc = -pfs_status_to_errno(pq_fail(err, PQ_EINVAL, "no page %u", page));
		goto out;
	}
	if (page != PFS_DICT && l->dict) {
		pq_error derr;
		if (page_get(fs, pf, lo ? lo : own, rg, col, PFS_DICT, &dict, &derr))
			dict = NULL; /* dictionary-encoded pages then fail with their own message */
	}
	pq_page_data *pd;
	pq_status st = pq_page_decode(pf->f, l, pi, dict ? pfs_cobj_obj(dict) : NULL, &pd, err);
	if (st != PQ_OK) {
		rc = -pfs_status_to_errno(st);
		goto out;
	}
	*out = pfs_cache_put(fs->cache, &k, pd, pq_arena_footprint(&pd->arena) + sizeof *pd,
			     page_free);
	rc = *out ? 0 : -ENOMEM;
out:
	pfs_cache_release(fs->cache, dict);
	pfs_cache_release(fs->cache, own);
	return rc;
}

/* ---- error.txt of chunks and pages ---------------------------------------------- */

/* Appends what is wrong with a chunk (nothing when it is sound). */
static void chunk_check(pfs_fs *fs, pfs_pf *pf, uint32_t rg, uint32_t col, pq_buf *msg)
{
	pq_error err = {0};
	uint64_t off, len;
	if (pq_chunk_range(pf->f, rg, col, &off, &len, &err) != PQ_OK) {
		pq_buf_printf(msg, "%s\n", err.msg);
		return;
	}
	pfs_cobj *lo;
	if (pfs_layout_get(fs, pf, rg, col, &lo, &err)) {
		pq_buf_printf(msg, "%s\n", err.msg);
		return;
	}
	const pq_chunk_layout *l = pfs_cobj_obj(lo);
	for (uint32_t p = 0; p < l->num_pages; p++) {
		pfs_cobj *pd;
		if (page_get(fs, pf, lo, rg, col, p, &pd, &err)) {
			pq_buf_printf(msg, "%s\n", err.msg);
			break;
		}
		pfs_cache_release(fs->cache, pd);
	}
	pfs_cache_release(fs->cache, lo);
}

static void page_check(pfs_fs *fs, pfs_pf *pf, uint32_t rg, uint32_t col, uint32_t page,
		       pq_buf *msg)
{
	pq_error err = {0};
	pfs_cobj *pd;
	if (page_get(fs, pf, NULL, rg, col, page, &pd, &err))
		pq_buf_printf(msg, "%s\n", err.msg);
	else
		pfs_cache_release(fs->cache, pd);
}

/* error.txt presence, remembered in the error node's size (0: sound). */
static bool error_known(pfs_fs *fs, pfs_pf *pf, pfs_kind kind, uint32_t rg, uint32_t col,
			uint32_t page)
{
	pfs_key k = pfs_key_make(pf->gen, kind, rg, col, page);
	pfs_node *n = pfs_inode_get(fs->inodes, &k, pf->src);
	if (!n)
		return false;
	uint64_t sz = atomic_load(&n->size);
	if (sz != PFS_SIZE_UNKNOWN)
		return sz > 0;
	pq_buf b = PQ_BUF_INIT;
	if (kind == PFS_K_CHUNK_ERROR)
		chunk_check(fs, pf, rg, col, &b);
	else
		page_check(fs, pf, rg, col, page, &b);
	sz = b.len;
	pfs_cobj *t;
	if (sz && cache_text(fs, &k, &b, &t) == 0)
		pfs_cache_release(fs->cache, t);
	pq_buf_free(&b);
	atomic_store(&n->size, sz);
	return sz > 0;
}

bool pfs_chunk_error(pfs_fs *fs, pfs_pf *pf, uint32_t rg, uint32_t col)
{
	return pf->f && error_known(fs, pf, PFS_K_CHUNK_ERROR, rg, col, 0);
}

bool pfs_page_error(pfs_fs *fs, pfs_pf *pf, uint32_t rg, uint32_t col, uint32_t page)
{
	return pf->f && error_known(fs, pf, PFS_K_PAGE_ERROR, rg, col, page);
}

/* ---- whole texts ------------------------------------------------------------------ */

static int render_page(pfs_fs *fs, pfs_pf *pf, pfs_cobj *held, const pfs_key *k, pq_buf *out,
		       pq_error *err)
{
	if (k->kind == PFS_K_PAGE_VALUES || k->kind == PFS_K_PAGE_LEVELS) {
		pfs_cobj *pd;
		int rc = page_get(fs, pf, held, k->rg, k->col, k->page, &pd, err);
		if (rc)
			return rc;
		if (k->kind == PFS_K_PAGE_VALUES)
			pq_text_page_values(pf->f, k->col, pfs_cobj_obj(pd), out);
		else
			pq_text_page_levels(pfs_cobj_obj(pd), out);
		pfs_cache_release(fs->cache, pd);
		return 0;
	}
	pfs_cobj *lo = held;
	int rc = held ? 0 : pfs_layout_get(fs, pf, k->rg, k->col, &lo, err);
	if (rc)
		return rc;
	const pq_chunk_layout *l = pfs_cobj_obj(lo);
	const pq_page_info *pi = pfs_layout_page(l, k->page);
	pq_status st = PQ_OK;
	if (!pi) {
		st = pq_fail(err, PQ_EINVAL, "no page %u", k->page);
	} else if (k->kind == PFS_K_PAGE_HDR_TXT) {
		st = pq_text_page_header(pf->f, l, pi, out, err);
	} else if (k->kind == PFS_K_PAGE_HDR_JSON) {
		st = pq_json_page_header(pf->f, l, pi, out, err);
	} else { /* PFS_K_PAGE_DATA */
		uint8_t *body;
		size_t len;
		st = pq_page_body(pf->f, l, pi, &body, &len, err);
		if (st == PQ_OK) {
			pq_buf_free(out);
			out->p = body;
			out->len = out->cap = len;
		}
	}
	if (!held)
		pfs_cache_release(fs->cache, lo);
	return st == PQ_OK ? 0 : -pfs_status_to_errno(st);
}

static int render(pfs_fs *fs, pfs_pf *pf, pfs_cobj *held, const pfs_key *k, pq_buf *out,
		  pq_error *err)
{
	const pq_file *f = pf->f;
	pq_status st = PQ_OK;
	if (k->kind == PFS_K_FILE_ERROR) {
		pq_buf_printf(out, "%s\n", pf->msg ? pf->msg : "cannot open the file");
		return 0;
	}
	if (!f)
		return -EIO;
	switch ((pfs_kind)k->kind) {
	case PFS_K_SCHEMA: pq_text_schema(f, out); break;
	case PFS_K_META_TXT: pq_text_file_metadata(f, out); break;
	case PFS_K_META_JSON: pq_json_file_metadata(f, out); break;
	case PFS_K_VERIFY: pq_text_verify(f, out); break;
	case PFS_K_RG_META_TXT: pq_text_row_group_metadata(f, k->rg, out); break;
	case PFS_K_RG_META_JSON: pq_json_row_group_metadata(f, k->rg, out); break;
	case PFS_K_CHUNK_META_TXT: pq_text_chunk_metadata(f, k->rg, k->col, out); break;
	case PFS_K_CHUNK_META_JSON: pq_json_chunk_metadata(f, k->rg, k->col, out); break;
	case PFS_K_COLUMN_INDEX: st = pq_text_column_index(f, k->rg, k->col, out, err); break;
	case PFS_K_OFFSET_INDEX: st = pq_text_offset_index(f, k->rg, k->col, out, err); break;
	case PFS_K_BLOOM_BIN: st = pq_bloom_filter_bitset(f, k->rg, k->col, out, err); break;
	case PFS_K_BLOOM_TXT: st = pq_text_bloom_filter(f, k->rg, k->col, out, err); break;
	case PFS_C_CSV_HEADER: pq_text_csv_header(f, out); break;
	case PFS_K_CHUNK_ERROR: chunk_check(fs, pf, k->rg, k->col, out); break;
	case PFS_K_PAGE_ERROR: page_check(fs, pf, k->rg, k->col, k->page, out); break;
	case PFS_K_PAGE_HDR_TXT:
	case PFS_K_PAGE_HDR_JSON:
	case PFS_K_PAGE_DATA:
	case PFS_K_PAGE_VALUES:
	case PFS_K_PAGE_LEVELS:
		return render_page(fs, pf, held, k, out, err);
	default:
		return -EINVAL;
	}
	return st == PQ_OK ? 0 : -pfs_status_to_errno(st);
}

int pfs_page_text(pfs_fs *fs, pfs_pf *pf, pfs_cobj *layout, const pfs_key *k, pfs_cobj **out)
{
	if ((*out = pfs_cache_get(pfs_cache_for(fs, (pfs_kind)k->kind), k)))
		return 0;
	pq_buf b = PQ_BUF_INIT;
	pq_error err = {0};
	int rc = render(fs, pf, layout, k, &b, &err);
	if (rc) {
		pq_buf_free(&b);
		if (err.msg[0])
			pfs_log(LOG_DEBUG, "%s: %s", pf->src->path, err.msg);
		return rc;
	}
	return cache_text(fs, k, &b, out);
}

int pfs_page_render(pfs_fs *fs, pfs_pf *pf, pfs_cobj *layout, const pfs_key *k, pq_buf *out)
{
	pfs_cobj *t = pfs_cache_get(pfs_cache_for(fs, (pfs_kind)k->kind), k);
	if (t) {
		const pfs_text *tx = pfs_cobj_obj(t);
		pq_buf_append(out, tx->p, tx->len);
		pfs_cache_release(fs->cache, t);
		return out->oom ? -ENOMEM : 0;
	}
	size_t mark = out->len;
	pq_error err = {0};
	int rc = render(fs, pf, layout, k, out, &err);
	if (rc == 0 && out->oom)
		rc = -ENOMEM;
	if (rc) {
		out->len = mark;
		if (err.msg[0])
			pfs_log(LOG_DEBUG, "%s: %s", pf->src->path, err.msg);
	}
	return rc;
}

int pfs_content_text(pfs_fs *fs, pfs_pf *pf, const pfs_key *k, pfs_cobj **out)
{
	return pfs_page_text(fs, pf, NULL, k, out);
}

int pfs_content_range(pfs_fs *fs, pfs_pf *pf, const pfs_key *k, uint64_t *off, uint64_t *len)
{
	pq_error err = {0};
	if (!pf->f)
		return -EIO;
	if (k->kind == PFS_K_CHUNK_BIN) {
		pq_status st = pq_chunk_range(pf->f, k->rg, k->col, off, len, &err);
		return st == PQ_OK ? 0 : -pfs_status_to_errno(st);
	}
	pfs_cobj *lo;
	int rc = pfs_layout_get(fs, pf, k->rg, k->col, &lo, &err);
	if (rc)
		return rc;
	const pq_page_info *pi = pfs_layout_page(pfs_cobj_obj(lo), k->page);
	if (pi) {
		*off = pi->body_offset;
		*len = pi->body_len;
	}
	pfs_cache_release(fs->cache, lo);
	return pi ? 0 : -ENOENT;
}

/* ---- sizes --------------------------------------------------------------------------- */

bool pfs_kind_is_aggregate(pfs_kind k)
{
	return k == PFS_K_CSV || k == PFS_K_JSONL || k == PFS_K_RG_CSV || k == PFS_K_RG_JSONL ||
	       k == PFS_K_COLUMN_VALUES || k == PFS_K_VERIFY;
}

bool pfs_kind_is_stream(pfs_kind k)
{
	return k == PFS_K_CSV || k == PFS_K_JSONL || k == PFS_K_RG_CSV || k == PFS_K_RG_JSONL ||
	       k == PFS_K_COLUMN_VALUES || k == PFS_K_CHUNK_VALUES || k == PFS_K_CHUNK_LEVELS;
}

void pfs_node_set_size(pfs_fs *fs, pfs_node *n, uint64_t size)
{
	uint64_t old = atomic_exchange(&n->size, size);
	if (old != size && pfs_kind_is_aggregate((pfs_kind)n->key.kind))
		pfs_notify_inode(fs->notify, n->ino);
}

/* A data page's levels.txt size from its header alone (ls -l of every
 * page would otherwise decode every page). */
static bool levels_size(pfs_fs *fs, pfs_pf *pf, pfs_cobj *layout, const pfs_key *k,
			uint64_t *size)
{
	pfs_cobj *lo = layout;
	pq_error err;
	if (!lo && pfs_layout_get(fs, pf, k->rg, k->col, &lo, &err) != 0)
		return false;
	const pq_page_info *pi = pfs_layout_page(pfs_cobj_obj(lo), k->page);
	bool ok = pi &&
		  (pi->header.type == PQ_PAGE_DATA || pi->header.type == PQ_PAGE_DATA_V2) &&
		  pq_page_levels_size(pf->f, k->col, pi, size);
	if (!layout)
		pfs_cache_release(fs->cache, lo);
	return ok;
}

/* Size of a whole-text entry: render it (once; the text stays cached).
 * layout: the chunk's, when the caller holds it. */
static int text_size(pfs_fs *fs, pfs_pf *pf, pfs_cobj *layout, pfs_node *n, uint64_t *size)
{
	uint64_t sz = atomic_load(&n->size);
	if (sz != PFS_SIZE_UNKNOWN) {
		*size = sz;
		return 0;
	}
	if (n->key.kind == PFS_K_PAGE_LEVELS && pf->f && levels_size(fs, pf, layout, &n->key, size)) {
		atomic_store(&n->size, *size);
		return 0;
	}
	pfs_cobj *t;
	int rc = pfs_page_text(fs, pf, layout, &n->key, &t);
	if (rc)
		return rc;
	*size = ((const pfs_text *)pfs_cobj_obj(t))->len;
	pfs_cache_release(fs->cache, t);
	atomic_store(&n->size, *size);
	return 0;
}

int pfs_chunk_text_size(pfs_fs *fs, pfs_pf *pf, pfs_kind kind, uint32_t rg, uint32_t col,
			uint64_t *size)
{
	pfs_key k = pfs_key_make(pf->gen, kind, rg, col, 0);
	pfs_node *n = pfs_inode_get(fs->inodes, &k, pf->src);
	if (!n)
		return -ENOMEM;
	uint64_t sz = atomic_load(&n->size);
	if (sz != PFS_SIZE_UNKNOWN) {
		*size = sz;
		return 0;
	}
	pq_error err;
	pfs_cobj *lo;
	int rc = pfs_layout_get(fs, pf, rg, col, &lo, &err);
	if (rc)
		return rc;
	uint32_t np = ((const pq_chunk_layout *)pfs_cobj_obj(lo))->num_pages;
	pfs_kind pk = kind == PFS_K_CHUNK_VALUES ? PFS_K_PAGE_VALUES : PFS_K_PAGE_LEVELS;
	sz = 0;
	for (uint32_t p = 0; p < np && rc == 0; p++) {
		pfs_key pkey = pfs_key_make(pf->gen, pk, rg, col, p);
		pfs_node *pn = pfs_inode_get(fs->inodes, &pkey, pf->src);
		uint64_t psz = 0;
		rc = pn ? text_size(fs, pf, lo, pn, &psz) : -ENOMEM;
		sz += psz;
	}
	pfs_cache_release(fs->cache, lo);
	if (rc)
		return rc;
	atomic_store(&n->size, sz);
	*size = sz;
	return 0;
}

uint64_t pfs_content_size(pfs_fs *fs, pfs_pf *pf, pfs_node *n)
{
	const pfs_key *k = &n->key;
	pfs_kind kind = (pfs_kind)k->kind;
	uint64_t sz = 0, off;
	if (pfs_kind_is_dir(kind))
		return 0;
	if (pfs_kind_is_aggregate(kind)) {
		sz = atomic_load(&n->size);
		return sz == PFS_SIZE_UNKNOWN ? 0 : sz;
	}
	switch (kind) {
	case PFS_K_FOOTER:
		return pf->f ? pq_file_footer_bytes(pf->f).n : 0;
	case PFS_K_CHUNK_BIN:
	case PFS_K_PAGE_RAW:
		return pfs_content_range(fs, pf, k, &off, &sz) ? 0 : sz;
	case PFS_K_CHUNK_VALUES:
	case PFS_K_CHUNK_LEVELS:
		return pfs_chunk_text_size(fs, pf, kind, k->rg, k->col, &sz) ? 0 : sz;
	case PFS_K_CHUNK_ERROR:
		pfs_chunk_error(fs, pf, k->rg, k->col);
		sz = atomic_load(&n->size);
		return sz == PFS_SIZE_UNKNOWN ? 0 : sz;
	case PFS_K_PAGE_ERROR:
		pfs_page_error(fs, pf, k->rg, k->col, k->page);
		sz = atomic_load(&n->size);
		return sz == PFS_SIZE_UNKNOWN ? 0 : sz;
	default:
		return text_size(fs, pf, NULL, n, &sz) ? 0 : sz;
	}
}
