/* The bytes of the entries and their sizes, each kind as its row in the
 * table of kinds says (kinds.c renders them through core/include/pq_file.h).
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

#include "kinds.h"

int pfs_status_to_errno(pq_status st)
{
	int e = pq_status_errno(st);
	return e > 0 ? e : EIO;
}

void pfs_text_free(void *p)
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

/* Why a render failed: a page that does not fit the memory budget is the
 * daemon's limit, not the file's fault, and a page whose CRC does not
 * match fails reads that would otherwise succeed: both are worth a line
 * in the log. */
static void log_failure(const pfs_pf *pf, const pfs_key *k, const pq_error *err)
{
	bool daemons = err->status == PQ_ELIMIT || err->status == PQ_EBUDGET ||
		       err->status == PQ_ENOMEM || err->status == PQ_EIO;
	const char *name = pfs_kind_info(k->kind)->name;
	if (err->msg[0])
		pfs_log(daemons ? pfs_memory_log_level()
			: err->status == PQ_ECHECKSUM ? LOG_NOTICE : LOG_DEBUG,
			"%s: %s: %s", pf->src->path, name ? name : "an entry", err->msg);
}

/* Moves a buffer into the cache as a text object. */
static int cache_text(pfs_fs *fs, const pfs_key *k, pq_buf *b, pfs_cobj **out)
{
	if (b->refused) {
		pfs_log(pfs_memory_log_level(),
			"a text of more than %zu bytes does not fit the memory budget (cache_size "
			"%llu bytes, %llu in use): its read fails", b->cap + b->refused,
			(unsigned long long)pq_budget_limit(fs->budget),
			(unsigned long long)pq_budget_used(fs->budget));
		pq_buf_free(b);
		return -EIO;
	}
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
	*out = pfs_cache_put(pfs_cache_for(fs, (pfs_kind)k->kind), k, t, t->len, pfs_text_free);
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
	atomic_fetch_add(&fs->layout_loads, 1);
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
	/* a one-page layout (pq_chunk_layout_load_page) holds page first_page */
	if (page < l->first_page || page - l->first_page >= l->num_pages)
		return NULL;
	return &l->pages[page - l->first_page];
}

/* Decodes page (or PFS_DICT) of layout l into the cache. The dictionary
 * is decoded only for a page that is dictionary-encoded: a plain page
 * needs none (the other pages of a chunk often fall back to plain). */
static int page_decode(pfs_fs *fs, pfs_pf *pf, const pq_chunk_layout *l, const pfs_key *k,
		       uint32_t page, pfs_cobj **out, pq_error *err)
{
	const pq_page_info *pi = pfs_layout_page(l, page);
	if (!pi)
		return -pfs_status_to_errno(pq_fail(err, PQ_EINVAL, "no page %u", page));
	pfs_cobj *dict = NULL;
	if (page != PFS_DICT && l->dict && pq_page_wants_dict(pi)) {
		pfs_key dk = pfs_key_make(pf->gen, PFS_C_PAGE_DATA, k->rg, k->col, PFS_DICT);
		pq_error derr;
		int drc;
		if (!(dict = pfs_cache_get(fs->cache, &dk)) &&
		    (drc = page_decode(fs, pf, l, &dk, PFS_DICT, &dict, &derr))) {
			/* the page fails as its dictionary did: a damaged one (its
			 * CRC) names itself, a missing key stays EACCES */
			*err = derr;
			return drc;
		}
	}
	pq_page_data *pd;
	pq_status st = pq_page_decode(pf->f, l, pi, dict ? pfs_cobj_obj(dict) : NULL, &pd, err);
	pfs_cache_release(fs->cache, dict);
	if (st != PQ_OK)
		return -pfs_status_to_errno(st);
	/* its arena is charged to the budget already */
	*out = pfs_cache_put_counted(fs->cache, k, pd,
				     pq_arena_footprint(&pd->arena) + sizeof *pd, page_free);
	return *out ? 0 : -ENOMEM;
}

/* A decoded page (held cache entry). lo: the chunk's layout when the
 * caller holds it (loops over pages), else NULL. Without a layout in the
 * cache, a data page is located through the chunk's offset index and read
 * alone (a remote file then fetches that page, not the chunk before it);
 * when the index cannot say, the chunk's headers are walked. */
int pfs_page_get(pfs_fs *fs, pfs_pf *pf, pfs_cobj *lo, uint32_t rg, uint32_t col,
		    uint32_t page, pfs_cobj **out, pq_error *err)
{
	pfs_key k = pfs_key_make(pf->gen, PFS_C_PAGE_DATA, rg, col, page);
	if ((*out = pfs_cache_get(fs->cache, &k)))
		return 0;
	if (lo)
		return page_decode(fs, pf, pfs_cobj_obj(lo), &k, page, out, err);
	if (!pf->f)
		return -EIO;
	pfs_key lk = pfs_key_make(pf->gen, PFS_C_LAYOUT, rg, col, 0);
	pfs_cobj *own = pfs_cache_get(fs->meta, &lk);
	pq_chunk_layout *one = NULL;
	pq_error ierr;
	if (!own && page != PFS_DICT &&
	    pq_chunk_layout_load_page(pf->f, rg, col, page, &one, &ierr) == PQ_OK) {
		int rc = page_decode(fs, pf, one, &k, page, out, err);
		pq_chunk_layout_free(one);
		return rc;
	}
	int rc = own ? 0 : pfs_layout_get(fs, pf, rg, col, &own, err);
	if (rc)
		return rc;
	rc = page_decode(fs, pf, pfs_cobj_obj(own), &k, page, out, err);
	pfs_cache_release(fs->cache, own);
	return rc;
}

/* How many pages a chunk has, for looking one up by number: the layout's
 * when it is cached, else the offset index's when it can stand in for the
 * walk (a lookup then reads no page header), else the walked layout's. */
int pfs_page_count(pfs_fs *fs, pfs_pf *pf, uint32_t rg, uint32_t col, uint32_t *n)
{
	*n = 0;
	if (!pf->f)
		return -EIO;
	pfs_key lk = pfs_key_make(pf->gen, PFS_C_LAYOUT, rg, col, 0);
	pfs_cobj *lo = pfs_cache_get(fs->meta, &lk);
	pq_error err;
	if (!lo && pq_chunk_index_num_pages(pf->f, rg, col, n, &err) == PQ_OK)
		return 0;
	int rc = lo ? 0 : pfs_layout_get(fs, pf, rg, col, &lo, &err);
	if (rc)
		return rc;
	*n = ((const pq_chunk_layout *)pfs_cobj_obj(lo))->num_pages;
	pfs_cache_release(fs->cache, lo);
	return 0;
}

/* ---- error.txt of chunks and pages ---------------------------------------------- */

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
	/* Sound by the size pass: nothing to decode. A chunk's error.txt also
	 * says when its byte range lies outside the file (metadata only). */
	uint64_t off, len;
	if (pfs_pass_chunk_sound(fs, pf, rg, col) &&
	    (kind == PFS_K_PAGE_ERROR || pq_chunk_range(pf->f, rg, col, &off, &len, NULL) == PQ_OK)) {
		atomic_store(&n->size, 0);
		return false;
	}
	/* the kind's renderer is its check: it appends what is wrong */
	pq_buf b = PQ_BUF_INIT;
	pfs_kctx c = {fs, pf, NULL, &k, NULL, false};
	(void)pfs_kind_info(kind)->render(&c, &b);
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

/* A text entry rendered into out by its kind's renderer. held: the
 * chunk's layout when the caller holds it. */
static int render(pfs_fs *fs, pfs_pf *pf, pfs_cobj *held, const pfs_key *k, pq_buf *out,
		  bool once, pq_error *err)
{
	const pfs_kind_desc *d = pfs_kind_info(k->kind);
	if (d->body != PFS_BODY_TEXT || !d->render)
		return -EINVAL;
	if (!pf->f && !d->without_file)
		return -EIO;
	pfs_kctx c = {fs, pf, held, k, err, once};
	return d->render(&c, out);
}

int pfs_page_text(pfs_fs *fs, pfs_pf *pf, pfs_cobj *layout, const pfs_key *k, pfs_cobj **out)
{
	if ((*out = pfs_cache_get(pfs_cache_for(fs, (pfs_kind)k->kind), k)))
		return 0;
	pq_buf b = PQ_BUF_INIT;
	b.budget = fs->budget; /* rendering stops where the budget says no */
	pq_error err = {0};
	int rc = render(fs, pf, layout, k, &b, false, &err);
	if (rc && !b.refused) {
		pq_buf_free(&b);
		log_failure(pf, k, &err);
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
	int rc = render(fs, pf, layout, k, out, true, &err);
	if (rc == 0 && out->oom)
		rc = -ENOMEM;
	if (rc) {
		out->len = mark;
		log_failure(pf, k, &err);
	}
	return rc;
}

int pfs_content_text(pfs_fs *fs, pfs_pf *pf, const pfs_key *k, pfs_cobj **out)
{
	return pfs_page_text(fs, pf, NULL, k, out);
}

/* ---- sizes --------------------------------------------------------------------------- */

void pfs_node_set_size(pfs_fs *fs, pfs_node *n, uint64_t size)
{
	(void)fs;
	uint64_t old = PFS_SIZE_UNKNOWN;
	if (!atomic_compare_exchange_strong(&n->size, &old, size) && old != size)
		pfs_log(LOG_WARNING, "%s: inode %llu: %llu bytes measured, %llu rendered",
			n->src ? n->src->path : "?", (unsigned long long)n->ino,
			(unsigned long long)old, (unsigned long long)size);
}

static int text_size(pfs_fs *fs, pfs_pf *pf, pfs_cobj *layout, pfs_node *n, uint64_t *size);

/* An aggregate's size from the size pass (run: may run it). */
static int pass_size(pfs_fs *fs, pfs_pf *pf, pfs_node *n, bool run, uint64_t *size)
{
	uint64_t sz = atomic_load(&n->size);
	if (sz != PFS_SIZE_UNKNOWN) {
		*size = sz;
		return 0;
	}
	if (run && n->key.kind == PFS_K_COLUMN_VALUES) {
		int crc = pfs_sizes_column(fs, pf, n->key.col, &sz);
		if (crc == 0) {
			pfs_node_set_size(fs, n, sz);
			*size = sz;
			return 0;
		}
		if (crc != -EAGAIN)
			return crc;
	}
	pfs_cobj *so;
	int rc = pfs_sizes_get(fs, pf, run, &so);
	if (rc)
		return rc;
	bool ok = pfs_sizes_entry(pfs_cobj_obj(so), &n->key, &sz);
	pfs_cache_release(fs->meta, so);
	/* verify.txt reports problems rather than failing: if the pass could
	 * not tell its size, rendering it can */
	if (!ok && n->key.kind == PFS_K_VERIFY)
		return text_size(fs, pf, NULL, n, size);
	if (!ok)
		return -EIO;
	atomic_store(&n->size, sz);
	*size = sz;
	return 0;
}

bool pfs_content_size_ready(pfs_fs *fs, pfs_pf *pf, pfs_node *n)
{
	uint64_t sz;
	return pfs_kind_info(n->key.kind)->size != PFS_SZ_PASS || !pf || !pf->f ||
	       pass_size(fs, pf, n, false, &sz) == 0;
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
	const pfs_kind_desc *d = pfs_kind_info(n->key.kind);
	pfs_kctx c = {fs, pf, layout, &n->key, NULL, false};
	if (d->quick_size && d->quick_size(&c, size)) {
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
	/* from the size pass when it ran (ls -lR after one renders nothing);
	 * never a pass for one chunk's sake */
	pfs_cobj *so;
	if (pfs_sizes_get(fs, pf, false, &so) == 0) {
		sz = pfs_sizes_chunk_text(pfs_cobj_obj(so), kind == PFS_K_CHUNK_LEVELS, rg, col);
		pfs_cache_release(fs->meta, so);
		if (sz != PQ_SIZE_FAILED) {
			atomic_store(&n->size, sz);
			*size = sz;
			return 0;
		}
	}
	pq_error err;
	pfs_cobj *lo;
	int rc = pfs_layout_get(fs, pf, rg, col, &lo, &err);
	if (rc)
		return rc;
	uint32_t np = ((const pq_chunk_layout *)pfs_cobj_obj(lo))->num_pages;
	pfs_kind pk = pfs_kind_info(kind)->segment; /* its pages' texts */
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

static uint64_t plain_size(pfs_fs *fs, pfs_pf *pf, pfs_node *n)
{
	const pfs_key *k = &n->key;
	const pfs_kind_desc *d = pfs_kind_info(k->kind);
	pfs_kctx c = {fs, pf, NULL, k, NULL, false};
	pq_error err = {0};
	const uint8_t *p;
	uint64_t sz = 0, off;
	switch (d->size) {
	case PFS_SZ_NONE:
		return 0;
	case PFS_SZ_PASS:
		return 0; /* pfs_content_size's */
	case PFS_SZ_EXTENT:
		if (d->quick_size && d->quick_size(&c, &sz))
			return sz;
		c.err = &err;
		if (d->body == PFS_BODY_MEM)
			return d->mem(&c, &p, &sz) ? 0 : sz;
		return d->range(&c, &off, &sz) ? 0 : sz;
	case PFS_SZ_PAGES:
		return pfs_chunk_text_size(fs, pf, (pfs_kind)k->kind, k->rg, k->col, &sz) ? 0 : sz;
	case PFS_SZ_CHECK:
		if (pf->f)
			error_known(fs, pf, (pfs_kind)k->kind, k->rg, k->col, k->page);
		sz = atomic_load(&n->size);
		return sz == PFS_SIZE_UNKNOWN ? 0 : sz;
	case PFS_SZ_TEXT:
		return text_size(fs, pf, NULL, n, &sz) ? 0 : sz;
	}
	return 0;
}

int pfs_content_size(pfs_fs *fs, pfs_pf *pf, pfs_node *n, uint64_t *size)
{
	*size = 0;
	if (pfs_kind_info(n->key.kind)->size != PFS_SZ_PASS) {
		*size = plain_size(fs, pf, n);
		return 0;
	}
	if (!pf->f)
		return 0;
	return pass_size(fs, pf, n, true, size);
}
