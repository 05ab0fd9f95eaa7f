/* The virtual tree of one Parquet file (interface.md, "The tree of one
 * Parquet file"): which names a directory holds and what they are.
 *
 * A directory holds the kinds whose parent it is in the table of kinds
 * (kinds.c): fixed names, present when their condition holds (evaluated
 * only for the name listed or looked up, so looking up chunk.bin never
 * decodes the chunk), and generated names: row groups and pages as decimal
 * numbers, columns by the escaped leaf directory name core's schema gives. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kinds.h"
#include "pq_schema.h"

/* The key of child kind `kind` below dir: the same coordinates, or the
 * key its row names (dictionary/ is the page PFS_DICT of its chunk). */
static pfs_key child_key(const pfs_key *dir, uint32_t kind)
{
	pfs_key k = *dir;
	const pfs_kind_desc *d = pfs_kind_info(kind);
	k.kind = kind;
	if (d->key_kind != PFS_K_NONE) {
		k.kind = (uint32_t)d->key_kind;
		k.page = d->key_page;
	}
	return k;
}

static uint32_t num_pages(const pfs_kctx *c)
{
	pfs_cobj *lo;
	pq_error err;
	uint32_t n;
	/* from the size index's shapes when it has them: no page header read */
	if (pfs_shape_num_pages(c->fs, c->pf, c->k->rg, c->k->col, &n))
		return n;
	if (pfs_layout_get(c->fs, c->pf, c->k->rg, c->k->col, &lo, &err))
		return 0;
	n = ((const pq_chunk_layout *)pfs_cobj_obj(lo))->num_pages;
	pfs_cache_release(c->fs->cache, lo);
	return n;
}

static const char *col_dir(const pfs_pf *pf, uint32_t col)
{
	const pq_leaf *l = pq_schema_leaf(pq_file_schema(pf->f), col);
	return l ? l->dir : NULL;
}

/* How many entries a generated kind has below c->k; *coord is the key
 * field that numbers them. */
static uint32_t gen_count(const pfs_kctx *c, pfs_naming naming, pfs_key *k, uint32_t **coord)
{
	switch (naming) {
	case PFS_NAME_COLUMN: *coord = &k->col; return c->pf->ncol;
	case PFS_NAME_RG: *coord = &k->rg; return c->pf->nrg;
	case PFS_NAME_PAGE: *coord = &k->page; return num_pages(c);
	default: *coord = NULL; return 0;
	}
}

/* The entries of a generated kind below c->k. */
static int list_generated(const pfs_kctx *c, uint32_t kind, pfs_tree_fn fn, void *arg)
{
	const pfs_kind_desc *d = pfs_kind_info(kind);
	if (!c->pf->f)
		return -ENOENT;
	pfs_key k = child_key(c->k, kind);
	uint32_t *coord;
	uint32_t n = gen_count(c, d->naming, &k, &coord);
	int rc = 0;
	char num[16];
	for (uint32_t i = 0; i < n && rc == 0; i++) {
		*coord = i;
		const char *name = num;
		if (d->naming == PFS_NAME_COLUMN)
			name = col_dir(c->pf, i);
		else
			snprintf(num, sizeof num, "%u", i);
		if (name && *name)
			rc = fn(arg, name, &k);
	}
	return rc;
}

/* dir lists the kinds whose parent it is, in table order. */
int pfs_tree_list(pfs_fs *fs, pfs_pf *pf, const pfs_key *dir, pfs_tree_fn fn, void *arg)
{
	pfs_kctx c = {fs, pf, NULL, dir, NULL, false};
	if (!pfs_kind_is_dir((pfs_kind)dir->kind))
		return -ENOTDIR;
	int rc = 0;
	for (uint32_t kind = 0; kind < PFS_K_COUNT && rc == 0; kind++) {
		const pfs_kind_desc *d = pfs_kind_info(kind);
		if (d->parent != (pfs_kind)dir->kind)
			continue;
		if (d->naming != PFS_NAME_FIXED) {
			rc = list_generated(&c, kind, fn, arg);
		} else if (!d->present || d->present(&c)) {
			pfs_key k = child_key(dir, kind);
			rc = fn(arg, d->name, &k);
		}
	}
	return rc;
}

/* A decimal number as the tree writes it: no sign, no leading zero. */
static bool parse_index(const char *s, uint32_t *out)
{
	if (!*s || (s[0] == '0' && s[1]) || strlen(s) > 10)
		return false;
	uint64_t v = 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (v >= UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

/* The entry of a generated kind named name below c->k. */
static int lookup_generated(const pfs_kctx *c, uint32_t kind, const char *name, pfs_key *out)
{
	const pfs_kind_desc *d = pfs_kind_info(kind);
	if (!c->pf->f)
		return -ENOENT;
	pfs_key k = child_key(c->k, kind);
	uint32_t i;
	if (d->naming == PFS_NAME_COLUMN) {
		const pq_leaf *l = pq_schema_leaf_by_dir(pq_file_schema(c->pf->f), name);
		if (!l)
			return -ENOENT;
		k.col = l->index;
	} else {
		uint32_t *coord, n = 0;
		/* parse first: counting pages may load the chunk's layout. A page
		 * is looked up by the offset index's count when it can say, so
		 * reaching one page reads none of the others (pfs_page_count). */
		if (!parse_index(name, &i))
			return -ENOENT;
		if (d->naming == PFS_NAME_PAGE) {
			coord = &k.page;
			(void)pfs_page_count(c->fs, c->pf, c->k->rg, c->k->col, &n);
		} else {
			n = gen_count(c, d->naming, &k, &coord);
		}
		if (i >= n)
			return -ENOENT;
		*coord = i;
	}
	*out = k;
	return 0;
}

int pfs_tree_lookup(pfs_fs *fs, pfs_pf *pf, const pfs_key *dir, const char *name,
		    pfs_key *out)
{
	pfs_kctx c = {fs, pf, NULL, dir, NULL, false};
	if (!pfs_kind_is_dir((pfs_kind)dir->kind))
		return -ENOTDIR;
	for (uint32_t kind = 0; kind < PFS_K_COUNT; kind++) {
		const pfs_kind_desc *d = pfs_kind_info(kind);
		if (d->parent != (pfs_kind)dir->kind)
			continue;
		if (d->naming != PFS_NAME_FIXED) {
			int rc = lookup_generated(&c, kind, name, out);
			if (rc != -ENOENT)
				return rc;
		} else if (!strcmp(d->name, name)) {
			if (d->present && !d->present(&c))
				return -ENOENT;
			*out = child_key(dir, kind);
			return 0;
		}
	}
	return -ENOENT;
}
