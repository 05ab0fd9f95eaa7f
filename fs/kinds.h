/* The table of entry kinds (kinds.c): one row per pfs_kind says where the
 * entry is listed, whether it is a directory, which cache pool holds it,
 * how its bytes are produced and how its size is known. tree.c, content.c,
 * ops.c, stream.c, cache pools and source.c decide by the row, so adding an
 * entry kind is one row plus its renderer. */
#ifndef PFS_KINDS_H
#define PFS_KINDS_H

#include "pfs_internal.h"

/* How a kind's entries are named in their parent directory. */
typedef enum pfs_naming {
	PFS_NAME_FIXED = 0, /* desc->name */
	PFS_NAME_COLUMN,    /* one per leaf column: its escaped directory name (key.col) */
	PFS_NAME_RG,        /* one per row group: decimal (key.rg) */
	PFS_NAME_PAGE,      /* one per page of the chunk: decimal (key.page) */
} pfs_naming;

/* The cache pool of a kind's objects (doc/design.md, "Caching"). */
typedef enum pfs_pool {
	PFS_POOL_META = 0,  /* layouts and metadata texts: small, never evicted by streaming */
	PFS_POOL_DATA,      /* decoded pages, page texts and bodies, bitsets, verify.txt */
} pfs_pool;

/* Where the bytes of an entry come from. */
typedef enum pfs_body {
	PFS_BODY_NONE = 0,  /* directories; staging (staging.c serves it); cache-only */
	PFS_BODY_TEXT,      /* rendered whole by render(), cached */
	PFS_BODY_MEM,       /* bytes core holds in memory: mem() */
	PFS_BODY_RANGE,     /* a byte range of the source file, spliced: range() */
	PFS_BODY_STREAM,    /* rendered in segments (stream.c): stream() */
} pfs_body;

/* How st_size is known. */
typedef enum pfs_sizing {
	PFS_SZ_NONE = 0,  /* directories, staging, cache-only: not ours to say */
	PFS_SZ_TEXT,      /* the rendered text's length (rendered once, kept cached;
			     * quick_size() may know it without rendering) */
	PFS_SZ_EXTENT,    /* exact from metadata: the length of mem() / range()
			     * (quick_size() may know it without range()) */
	PFS_SZ_PAGES,     /* the sum of the chunk's page texts (its segment kind) */
	PFS_SZ_CHECK,     /* an error.txt: the length of the check's message,
			     * remembered in the node (0: sound, and not listed) */
	PFS_SZ_PASS,      /* an aggregate: exact from the file's size pass
			     * (size_pass.c: the size index, else one pass over
			     * the whole file at the first stat that needs it) */
} pfs_sizing;

/* What a kind's functions see. k is the entry's key (for present(): the
 * key of the directory it would be listed in). */
typedef struct pfs_kctx {
	pfs_fs *fs;
	pfs_pf *pf;
	pfs_cobj *layout;   /* the chunk's layout when the caller holds it, else NULL */
	const pfs_key *k;
	pq_error *err;      /* details of a failure, for the debug log */
	/* a stream renders it, reading each page once: the decoded page is
	 * not kept in the cache, so its memory serves the next page */
	bool once;
} pfs_kctx;

/* Appends the whole entry to out: 0 or -errno. */
typedef int (*pfs_render_fn)(const pfs_kctx *c, pq_buf *out);
typedef int (*pfs_range_fn)(const pfs_kctx *c, uint64_t *off, uint64_t *len);
typedef int (*pfs_mem_fn)(const pfs_kctx *c, const uint8_t **p, uint64_t *len);
/* The size without rendering, when cheap to know (false: render). */
typedef bool (*pfs_quick_size_fn)(const pfs_kctx *c, uint64_t *size);
/* Whether a fixed name is in the directory c->k (NULL: always). */
typedef bool (*pfs_present_fn)(const pfs_kctx *c);
/* Sets up an open stream for its kind's segments (stream.c). */
typedef int (*pfs_stream_fn)(pfs_stream *s);

typedef struct pfs_kind_desc {
	const char *name;         /* fixed name; NULL: generated (naming) or not listed */
	pfs_kind parent;          /* directory kind it is listed in; PFS_K_NONE: not
				   * part of a Parquet file's tree (SOURCE, staging,
				   * cache-only objects) */
	pfs_naming naming;
	pfs_present_fn present;   /* fixed names only */
	bool dir;
	bool source;              /* SOURCE's namespace: key.gen is a source id */
	bool staging;             /* staging/'s namespace: key.gen is a staging id */
	bool cache_only;          /* an object of the cache, never an inode */
	bool without_file;        /* readable when the file could not be opened */
	/* A directory entry that is not a key kind of its own: the dictionary
	 * directory of a chunk is the page PFS_DICT of kind PFS_K_PAGE. */
	pfs_kind key_kind;
	uint32_t key_page;        /* with key_kind: the page it names (PFS_DICT) */
	pfs_pool pool;
	pfs_body body;
	pfs_sizing size;
	pfs_render_fn render;     /* BODY_TEXT, and the check of SIZE_CHECK */
	pfs_mem_fn mem;           /* BODY_MEM */
	pfs_range_fn range;       /* BODY_RANGE */
	pfs_stream_fn stream;     /* BODY_STREAM */
	pfs_quick_size_fn quick_size;
	/* Streams: the kind whose recorded sizes are this entry's segments
	 * (row group texts of a data.csv, chunk texts of a column's values,
	 * page texts of a chunk's values or levels). */
	pfs_kind segment;
} pfs_kind_desc;

/* The row of a kind (PFS_K_NONE's for values out of range). */
const pfs_kind_desc *pfs_kind_info(uint32_t kind);

/* An entry inside a Parquet file (not SOURCE's, not a layer's). */
static inline bool pfs_in_file(const pfs_node *n)
{
	return pfs_kind_info(n->key.kind)->parent != PFS_K_NONE;
}

/* size_pass.c: a data page's values.txt / levels.txt size from the size
 * pass, when it ran (a quick_size). */
bool pfs_pass_page_size(const pfs_kctx *c, uint64_t *size);

/* shape.c: the chunk shapes of the size index (size_index.h). Measured
 * after a pass (NULL without memory or file); read: false when the index
 * gave no shape for the chunk (the caller loads its layout). */
struct pfs_file_shapes *pfs_shapes_measure(pfs_fs *fs, pfs_pf *pf);
bool pfs_shape_num_pages(pfs_fs *fs, pfs_pf *pf, uint32_t rg, uint32_t col, uint32_t *n);
bool pfs_shape_has_dict(pfs_fs *fs, pfs_pf *pf, uint32_t rg, uint32_t col, bool *has);
/* A page entry's size (raw.bin, data.bin, header.txt, header.json,
 * dictionary/values.txt) from the chunk's shape (a quick_size). */
bool pfs_shape_size(const pfs_kctx *c, uint64_t *size);
/* columns/<col>/stats.txt's size from the shapes (a quick_size). */
bool pfs_shape_column_stats(const pfs_kctx *c, uint64_t *size);

/* stream.c's set-ups, named by the table. */
int pfs_stream_csv(pfs_stream *s);
int pfs_stream_jsonl(pfs_stream *s);
int pfs_stream_pages(pfs_stream *s);

/* content.c: a decoded page, held (lo: the chunk's layout when held). */
int pfs_page_get(pfs_fs *fs, pfs_pf *pf, pfs_cobj *lo, uint32_t rg, uint32_t col,
		 uint32_t page, pfs_cobj **out, pq_error *err);

#endif
