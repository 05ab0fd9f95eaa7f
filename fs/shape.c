/* The chunk shapes (size_index.h): the entry sizes of a chunk's pages/ and
 * dictionary/ that otherwise need its page headers (its layout) loaded and
 * the header texts rendered, and of its texts read from elsewhere in the
 * file (bloom filter, page index). They are measured once, after a size pass
 * whose sizes go into the size index, and stored with them; a remount
 * loads them with the sizes, so ls -lR of the file loads no layout.
 *
 * Measured with the very functions the entries render with (kinds.c), so
 * a shape is the size of what a read returns; a page whose header does not
 * render is left unknown and measured the usual way. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "kinds.h"
#include "size_index.h"

static uint64_t text_len(pq_status st, const pq_buf *b)
{
	return st == PQ_OK && !b->oom ? b->len : PFS_SHAPE_UNKNOWN;
}

static void page_shape(const pq_file *f, const pq_chunk_layout *l, const pq_page_info *pi,
		       pq_buf *b, pfs_page_shape *out)
{
	pq_error err;
	out->raw = pi->body_len;
	out->data = pi->header.uncompressed_page_size < 0
			    ? PFS_SHAPE_UNKNOWN
			    : (uint64_t)pi->header.uncompressed_page_size;
	out->hdr_txt = text_len(pq_text_page_header(f, l, pi, b, &err), b);
	pq_buf_free(b);
	out->hdr_json = text_len(pq_json_page_header(f, l, pi, b, &err), b);
	pq_buf_free(b);
}

/* dictionary/values.txt: the dictionary decoded and rendered as its entry
 * is (kinds.c's r_page_values, without the cache). */
static uint64_t dict_values(const pq_file *f, const pq_chunk_layout *l, uint32_t col, pq_buf *b)
{
	pq_error err;
	pq_page_data *pd;
	if (pq_page_decode(f, l, l->dict, NULL, &pd, &err) != PQ_OK)
		return PFS_SHAPE_UNKNOWN;
	pq_text_page_values(f, col, pd, b);
	uint64_t n = text_len(PQ_OK, b);
	pq_buf_free(b);
	pq_page_data_unref(pd);
	return n;
}

typedef pq_status (*chunk_text_fn)(const pq_file *f, uint32_t rg, uint32_t col, pq_buf *out,
				   pq_error *err);

/* A chunk text's length, as kinds.c renders it (only when present). */
static uint64_t chunk_text(const pq_file *f, uint32_t rg, uint32_t col, bool present,
			   chunk_text_fn fn)
{
	if (!present)
		return PFS_SHAPE_UNKNOWN;
	pq_buf b = PQ_BUF_INIT;
	pq_error err;
	uint64_t n = text_len(fn(f, rg, col, &b, &err), &b);
	pq_buf_free(&b);
	return n;
}

static void chunk_texts(const pq_file *f, uint32_t rg, uint32_t col, pfs_chunk_shape *c)
{
	bool bloom = pq_chunk_has_bloom_filter(f, rg, col);
	c->bloom_bin = chunk_text(f, rg, col, bloom, pq_bloom_filter_bitset);
	c->bloom_txt = chunk_text(f, rg, col, bloom, pq_text_bloom_filter);
	c->col_index = chunk_text(f, rg, col, pq_chunk_has_column_index(f, rg, col),
				  pq_text_column_index);
	c->off_index = chunk_text(f, rg, col, pq_chunk_has_offset_index(f, rg, col),
				  pq_text_offset_index);
}

static void chunk_shape(pfs_fs *fs, pfs_pf *pf, uint32_t rg, uint32_t col, pfs_chunk_shape *c,
			uint64_t *footprint)
{
	/* a layout in the cache is used; one loaded here is not kept (a
	 * whole file's layouts would push out what the cache holds) */
	pfs_key k = pfs_key_make(pf->gen, PFS_C_LAYOUT, rg, col, 0);
	pfs_cobj *lo = pfs_cache_get(fs->meta, &k);
	pq_chunk_layout *own = NULL;
	pq_error err;
	if (!lo && pq_chunk_layout_load(pf->f, rg, col, &own, &err) != PQ_OK)
		return;
	const pq_chunk_layout *l = lo ? pfs_cobj_obj(lo) : own;
	if ((c->pages = calloc(l->num_pages ? l->num_pages : 1, sizeof *c->pages))) {
		pq_buf b = PQ_BUF_INIT;
		for (uint32_t p = 0; p < l->num_pages; p++)
			page_shape(pf->f, l, &l->pages[p], &b, &c->pages[p]);
		c->has_dict = l->dict != NULL;
		c->dict_values = PFS_SHAPE_UNKNOWN;
		if (l->dict) {
			page_shape(pf->f, l, l->dict, &b, &c->dict);
			c->dict_values = dict_values(pf->f, l, col, &b);
		}
		pq_buf_free(&b);
		chunk_texts(pf->f, rg, col, c);
		c->num_pages = l->num_pages;
		c->known = true;
		*footprint += (uint64_t)l->num_pages * sizeof *c->pages;
	}
	pfs_cache_release(fs->meta, lo);
	pq_chunk_layout_free(own);
}

pfs_file_shapes *pfs_shapes_measure(pfs_fs *fs, pfs_pf *pf)
{
	if (!pf->f)
		return NULL;
	pfs_file_shapes *sh = pfs_shapes_new(pf->nrg, pf->ncol);
	for (uint32_t rg = 0; sh && rg < pf->nrg; rg++) {
		for (uint32_t col = 0; col < pf->ncol; col++) {
			/* a retired generation: what is measured so far is stored
			 * (the rest unknown), nothing more is read */
			if (atomic_load(&pf->sz_cancel))
				return sh;
			chunk_shape(fs, pf, rg, col, &sh->chunks[(size_t)rg * pf->ncol + col],
				    &sh->footprint);
		}
	}
	/* columns/<col>/stats.txt, rendered as kinds.c's r_column_stats does */
	pq_buf b = {0};
	for (uint32_t col = 0; sh && col < pf->ncol && !atomic_load(&pf->sz_cancel); col++) {
		pq_error err;
		sh->col_stats[col] = text_len(pq_text_column_summary(pf->f, col, &b, &err), &b);
		pq_buf_free(&b);
	}
	return sh;
}

/* ---- reading the shapes --------------------------------------------------------------- */

/* The shapes of pf's generation from the size index (held in *held), or
 * NULL: never a pass. */
static const pfs_file_shapes *shapes_of(pfs_fs *fs, pfs_pf *pf, pfs_cobj **held)
{
	*held = NULL;
	if (!pf->f)
		return NULL;
	pfs_key k = pfs_key_make(pf->gen, PFS_C_SHAPES, 0, 0, 0);
	pfs_cobj *o = pfs_cache_get(fs->meta, &k);
	if (!o) {
		/* the shapes come with the sizes: load those (from the index
		 * only, never a pass) */
		pfs_cobj *so;
		if (pfs_sizes_get(fs, pf, false, &so))
			return NULL;
		pfs_cache_release(fs->meta, so);
		if (!(o = pfs_cache_get(fs->meta, &k)))
			return NULL;
	}
	const pfs_file_shapes *sh = pfs_cobj_obj(o);
	if (sh->num_row_groups != pf->nrg || sh->num_columns != pf->ncol) {
		pfs_cache_release(fs->meta, o);
		return NULL;
	}
	*held = o;
	return sh;
}

/* The chunk's shape when the index gave one (held in *held), else NULL. */
static const pfs_chunk_shape *chunk_of(pfs_fs *fs, pfs_pf *pf, uint32_t rg, uint32_t col,
				       pfs_cobj **held)
{
	*held = NULL;
	if (!pf->f || rg >= pf->nrg || col >= pf->ncol)
		return NULL;
	pfs_cobj *o;
	const pfs_file_shapes *sh = shapes_of(fs, pf, &o);
	const pfs_chunk_shape *c = sh ? &sh->chunks[(size_t)rg * pf->ncol + col] : NULL;
	if (!c || !c->known) {
		pfs_cache_release(fs->meta, o);
		return NULL;
	}
	*held = o;
	return c;
}

bool pfs_shape_num_pages(pfs_fs *fs, pfs_pf *pf, uint32_t rg, uint32_t col, uint32_t *n)
{
	pfs_cobj *o;
	const pfs_chunk_shape *c = chunk_of(fs, pf, rg, col, &o);
	if (c)
		*n = c->num_pages;
	pfs_cache_release(fs->meta, o);
	return c != NULL;
}

bool pfs_shape_has_dict(pfs_fs *fs, pfs_pf *pf, uint32_t rg, uint32_t col, bool *has)
{
	pfs_cobj *o;
	const pfs_chunk_shape *c = chunk_of(fs, pf, rg, col, &o);
	if (c)
		*has = c->has_dict;
	pfs_cache_release(fs->meta, o);
	return c != NULL;
}

bool pfs_shape_column_stats(const pfs_kctx *c, uint64_t *size)
{
	pfs_cobj *o;
	const pfs_file_shapes *sh = shapes_of(c->fs, c->pf, &o);
	uint64_t sz = sh && c->k->col < sh->num_columns ? sh->col_stats[c->k->col]
							 : PFS_SHAPE_UNKNOWN;
	pfs_cache_release(c->fs->meta, o);
	if (sz == PFS_SHAPE_UNKNOWN)
		return false;
	*size = sz;
	return true;
}

bool pfs_shape_size(const pfs_kctx *c, uint64_t *size)
{
	pfs_cobj *o;
	const pfs_key *k = c->k;
	const pfs_chunk_shape *cs = chunk_of(c->fs, c->pf, k->rg, k->col, &o);
	if (!cs)
		return false;
	const pfs_page_shape *p = NULL;
	uint64_t sz = PFS_SHAPE_UNKNOWN;
	switch ((pfs_kind)k->kind) {
	case PFS_K_BLOOM_BIN: sz = cs->bloom_bin; break;
	case PFS_K_BLOOM_TXT: sz = cs->bloom_txt; break;
	case PFS_K_COLUMN_INDEX: sz = cs->col_index; break;
	case PFS_K_OFFSET_INDEX: sz = cs->off_index; break;
	default: break;
	}
	bool in_page = pfs_kind_info(k->kind)->parent == PFS_K_PAGE;
	if (in_page && k->page == PFS_DICT)
		p = cs->has_dict ? &cs->dict : NULL;
	else if (in_page && k->page < cs->num_pages)
		p = &cs->pages[k->page];
	if (p) {
		switch ((pfs_kind)k->kind) {
		case PFS_K_PAGE_RAW: sz = p->raw; break;
		case PFS_K_PAGE_DATA: sz = p->data; break;
		case PFS_K_PAGE_HDR_TXT: sz = p->hdr_txt; break;
		case PFS_K_PAGE_HDR_JSON: sz = p->hdr_json; break;
		case PFS_K_PAGE_VALUES:
			if (k->page == PFS_DICT)
				sz = cs->dict_values;
			break;
		default: break;
		}
	}
	pfs_cache_release(c->fs->meta, o);
	if (sz == PFS_SHAPE_UNKNOWN)
		return false;
	*size = sz;
	return true;
}
