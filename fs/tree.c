/* The virtual tree of one Parquet file (interface.md, "The tree of one
 * Parquet file"): which names a directory holds and what they are.
 *
 * Fixed entries are tables of (name, kind, condition); the condition is
 * evaluated only when the entry is listed or looked up, so looking up
 * chunk.bin never decodes the chunk. Numbered directories (row groups,
 * pages) and column directories are generated. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pfs_internal.h"
#include "pq_schema.h"

typedef struct ctx {
	pfs_fs *fs;
	pfs_pf *pf;
	const pfs_key *dir;
} ctx;

typedef bool (*cond_fn)(const ctx *c);

typedef struct entry {
	const char *name;
	pfs_kind kind;
	cond_fn cond; /* NULL: always present */
} entry;

static bool file_ok(const ctx *c) { return c->pf->f != NULL; }
static bool file_bad(const ctx *c) { return c->pf->f == NULL; }

static bool chunk_bad(const ctx *c)
{
	return pfs_chunk_error(c->fs, c->pf, c->dir->rg, c->dir->col);
}

static bool col_levels(const ctx *c)
{
	return pq_column_has_levels(c->pf->f, c->dir->col);
}

static bool has_dict(const ctx *c)
{
	pfs_cobj *lo;
	pq_error err;
	if (pfs_layout_get(c->fs, c->pf, c->dir->rg, c->dir->col, &lo, &err))
		return false;
	bool has = ((const pq_chunk_layout *)pfs_cobj_obj(lo))->dict != NULL;
	pfs_cache_release(c->fs->cache, lo);
	return has;
}

static bool has_colindex(const ctx *c)
{
	return pq_chunk_has_column_index(c->pf->f, c->dir->rg, c->dir->col);
}

static bool has_offindex(const ctx *c)
{
	return pq_chunk_has_offset_index(c->pf->f, c->dir->rg, c->dir->col);
}

static bool has_bloom(const ctx *c)
{
	return pq_chunk_has_bloom_filter(c->pf->f, c->dir->rg, c->dir->col);
}

static bool page_bad(const ctx *c)
{
	return pfs_page_error(c->fs, c->pf, c->dir->rg, c->dir->col, c->dir->page);
}

static bool page_levels(const ctx *c)
{
	return c->dir->page != PFS_DICT && pq_column_has_levels(c->pf->f, c->dir->col);
}

static const entry file_entries[] = {
	{"error.txt", PFS_K_FILE_ERROR, file_bad},
	{"schema.txt", PFS_K_SCHEMA, file_ok},
	{"metadata.txt", PFS_K_META_TXT, file_ok},
	{"metadata.json", PFS_K_META_JSON, file_ok},
	{"footer.bin", PFS_K_FOOTER, file_ok},
	{"verify.txt", PFS_K_VERIFY, file_ok},
	{"data.csv", PFS_K_CSV, file_ok},
	{"data.jsonl", PFS_K_JSONL, file_ok},
	{"columns", PFS_K_COLUMNS, file_ok},
	{"row_groups", PFS_K_RGS, file_ok},
	{NULL, 0, NULL},
};

static const entry column_entries[] = {
	{"values.txt", PFS_K_COLUMN_VALUES, NULL},
	{NULL, 0, NULL},
};

static const entry rg_entries[] = {
	{"metadata.txt", PFS_K_RG_META_TXT, NULL},
	{"metadata.json", PFS_K_RG_META_JSON, NULL},
	{"data.csv", PFS_K_RG_CSV, NULL},
	{"data.jsonl", PFS_K_RG_JSONL, NULL},
	{"columns", PFS_K_RG_COLUMNS, NULL},
	{NULL, 0, NULL},
};

static const entry chunk_entries[] = {
	{"error.txt", PFS_K_CHUNK_ERROR, chunk_bad},
	{"metadata.txt", PFS_K_CHUNK_META_TXT, NULL},
	{"metadata.json", PFS_K_CHUNK_META_JSON, NULL},
	{"values.txt", PFS_K_CHUNK_VALUES, NULL},
	{"levels.txt", PFS_K_CHUNK_LEVELS, col_levels},
	{"chunk.bin", PFS_K_CHUNK_BIN, NULL},
	{"dictionary", PFS_K_PAGE, has_dict},
	{"pages", PFS_K_PAGES, NULL},
	{"column_index.txt", PFS_K_COLUMN_INDEX, has_colindex},
	{"offset_index.txt", PFS_K_OFFSET_INDEX, has_offindex},
	{"bloom_filter.bin", PFS_K_BLOOM_BIN, has_bloom},
	{"bloom_filter.txt", PFS_K_BLOOM_TXT, has_bloom},
	{NULL, 0, NULL},
};

static const entry page_entries[] = {
	{"error.txt", PFS_K_PAGE_ERROR, page_bad},
	{"header.txt", PFS_K_PAGE_HDR_TXT, NULL},
	{"header.json", PFS_K_PAGE_HDR_JSON, NULL},
	{"raw.bin", PFS_K_PAGE_RAW, NULL},
	{"data.bin", PFS_K_PAGE_DATA, NULL},
	{"values.txt", PFS_K_PAGE_VALUES, NULL},
	{"levels.txt", PFS_K_PAGE_LEVELS, page_levels},
	{NULL, 0, NULL},
};

static const entry *table_of(pfs_kind k)
{
	switch (k) {
	case PFS_K_FILE: return file_entries;
	case PFS_K_COLUMN: return column_entries;
	case PFS_K_RG: return rg_entries;
	case PFS_K_CHUNK: return chunk_entries;
	case PFS_K_PAGE: return page_entries;
	default: return NULL;
	}
}

/* The key of a fixed entry below dir: the same coordinates, but the
 * dictionary directory is the page PFS_DICT of its chunk. */
static pfs_key child_key(const ctx *c, pfs_kind kind)
{
	pfs_key k = *c->dir;
	k.kind = (uint32_t)kind;
	if (c->dir->kind == PFS_K_CHUNK && kind == PFS_K_PAGE)
		k.page = PFS_DICT;
	return k;
}

static uint32_t num_pages(const ctx *c)
{
	pfs_cobj *lo;
	pq_error err;
	if (pfs_layout_get(c->fs, c->pf, c->dir->rg, c->dir->col, &lo, &err))
		return 0;
	uint32_t n = ((const pq_chunk_layout *)pfs_cobj_obj(lo))->num_pages;
	pfs_cache_release(c->fs->cache, lo);
	return n;
}

static const char *col_dir(const pfs_pf *pf, uint32_t col)
{
	const pq_leaf *l = pq_schema_leaf(pq_file_schema(pf->f), col);
	return l ? l->dir : NULL;
}

int pfs_tree_list(pfs_fs *fs, pfs_pf *pf, const pfs_key *dir, pfs_tree_fn fn, void *arg)
{
	ctx c = {fs, pf, dir};
	const entry *t = table_of((pfs_kind)dir->kind);
	int rc = 0;
	if (t) {
		for (; t->name && rc == 0; t++)
			if (!t->cond || t->cond(&c)) {
				pfs_key k = child_key(&c, t->kind);
				rc = fn(arg, t->name, &k);
			}
		return rc;
	}
	if (!pf->f)
		return -ENOENT;
	char num[16];
	switch ((pfs_kind)dir->kind) {
	case PFS_K_COLUMNS:
	case PFS_K_RG_COLUMNS:
		for (uint32_t i = 0; i < pf->ncol && rc == 0; i++) {
			const char *name = col_dir(pf, i);
			pfs_kind kind = dir->kind == PFS_K_COLUMNS ? PFS_K_COLUMN : PFS_K_CHUNK;
			pfs_key k = pfs_key_make(dir->gen, kind, dir->rg, i, 0);
			if (name && *name)
				rc = fn(arg, name, &k);
		}
		return rc;
	case PFS_K_RGS:
		for (uint32_t i = 0; i < pf->nrg && rc == 0; i++) {
			snprintf(num, sizeof num, "%u", i);
			pfs_key k = pfs_key_make(dir->gen, PFS_K_RG, i, 0, 0);
			rc = fn(arg, num, &k);
		}
		return rc;
	case PFS_K_PAGES: {
		uint32_t n = num_pages(&c);
		for (uint32_t i = 0; i < n && rc == 0; i++) {
			snprintf(num, sizeof num, "%u", i);
			pfs_key k = pfs_key_make(dir->gen, PFS_K_PAGE, dir->rg, dir->col, i);
			rc = fn(arg, num, &k);
		}
		return rc;
	}
	default:
		return -ENOTDIR;
	}
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

int pfs_tree_lookup(pfs_fs *fs, pfs_pf *pf, const pfs_key *dir, const char *name,
		    pfs_key *out)
{
	ctx c = {fs, pf, dir};
	const entry *t = table_of((pfs_kind)dir->kind);
	if (t) {
		for (; t->name; t++)
			if (!strcmp(t->name, name)) {
				if (t->cond && !t->cond(&c))
					return -ENOENT;
				*out = child_key(&c, t->kind);
				return 0;
			}
		return -ENOENT;
	}
	if (!pf->f)
		return -ENOENT;
	uint32_t i;
	switch ((pfs_kind)dir->kind) {
	case PFS_K_COLUMNS:
	case PFS_K_RG_COLUMNS: {
		const pq_leaf *l = pq_schema_leaf_by_dir(pq_file_schema(pf->f), name);
		if (!l)
			return -ENOENT;
		pfs_kind kind = dir->kind == PFS_K_COLUMNS ? PFS_K_COLUMN : PFS_K_CHUNK;
		*out = pfs_key_make(dir->gen, kind, dir->rg, l->index, 0);
		return 0;
	}
	case PFS_K_RGS:
		if (!parse_index(name, &i) || i >= pf->nrg)
			return -ENOENT;
		*out = pfs_key_make(dir->gen, PFS_K_RG, i, 0, 0);
		return 0;
	case PFS_K_PAGES:
		if (!parse_index(name, &i) || i >= num_pages(&c))
			return -ENOENT;
		*out = pfs_key_make(dir->gen, PFS_K_PAGE, dir->rg, dir->col, i);
		return 0;
	default:
		return -ENOTDIR;
	}
}

bool pfs_kind_is_dir(pfs_kind k)
{
	switch (k) {
	case PFS_K_SRC_DIR:
	case PFS_K_FILE:
	case PFS_K_STG_DIR:
	case PFS_K_COLUMNS:
	case PFS_K_COLUMN:
	case PFS_K_RGS:
	case PFS_K_RG:
	case PFS_K_RG_COLUMNS:
	case PFS_K_CHUNK:
	case PFS_K_PAGES:
	case PFS_K_PAGE:
		return true;
	default:
		return false;
	}
}
