/* The size index: the results of a file's size pass kept on disk, one
 * small file per Parquet file, so that a later mount knows every size
 * without a pass (doc/design.md, "The size pass"). A cache: a missing,
 * stale or damaged entry is ignored (and rewritten after the next pass);
 * a directory that cannot be written only costs the next mount a pass. */
#ifndef PFS_SIZE_INDEX_H
#define PFS_SIZE_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "pq_io.h"
#include "pq_sizes.h"

/* 2: the chunk shapes (the page layouts' entry sizes); 3: the column
 * summaries' (columns/<col>/stats.txt) */
#define PFS_INDEX_VERSION 3u

/* Not known: the entry is measured the usual way (rendered, or its layout
 * loaded). */
#define PFS_SHAPE_UNKNOWN UINT64_MAX

/* What ls -lR of a chunk needs beyond the pass's text sizes, so that a
 * remount with the index lists and sizes the chunk's pages/ and
 * dictionary/ without loading its page headers (doc/design.md, "The size
 * pass"). Any field may be PFS_SHAPE_UNKNOWN. */
typedef struct pfs_page_shape {
	uint64_t raw;      /* raw.bin: the stored body's length */
	uint64_t data;     /* data.bin: the header's uncompressed_page_size */
	uint64_t hdr_txt;  /* header.txt */
	uint64_t hdr_json; /* header.json */
} pfs_page_shape;

typedef struct pfs_chunk_shape {
	bool known;          /* false: its layout did not load (nothing here is used) */
	bool has_dict;
	uint32_t num_pages;  /* data pages */
	pfs_page_shape dict; /* with has_dict */
	uint64_t dict_values; /* dictionary/values.txt */
	/* chunk entries read from the file at their first render */
	uint64_t bloom_bin, bloom_txt, col_index, off_index;
	pfs_page_shape *pages;
} pfs_chunk_shape;

typedef struct pfs_file_shapes {
	uint32_t num_row_groups, num_columns;
	pfs_chunk_shape *chunks; /* rg * num_columns + col */
	/* columns/<col>/stats.txt, which renders from every chunk's layout
	 * (PFS_SHAPE_UNKNOWN: not measured) */
	uint64_t *col_stats;
	uint64_t footprint;      /* bytes held, for the cache */
} pfs_file_shapes;

/* An empty set of shapes (every chunk unknown), or NULL without memory. */
pfs_file_shapes *pfs_shapes_new(uint32_t nrg, uint32_t ncol);
void pfs_shapes_free(pfs_file_shapes *s);

/* What names an entry: everything the sizes depend on. */
typedef struct pfs_index_key {
	uint8_t hash[16];   /* XXH3-128 of the fields below */
	char name[40];      /* its file name in the index directory: hex of hash + ".sz" */
} pfs_index_key;

/* The key of a file: the identity of its bytes, its path under SOURCE and
 * the fingerprint of the keys that decrypt it (zeros: none). */
void pfs_index_key_make(const pq_identity *id, const char *rel, const uint8_t key_fp[16],
			pfs_index_key *out);

/* The sizes and shapes stored for key, when the entry exists and is sound
 * for a file of nrg row groups and ncol columns: 0; -ENOENT when there is
 * none, -EINVAL when it is damaged or stale (the caller runs a pass and
 * rewrites it). shapes may be NULL (not wanted). */
int pfs_index_load(const char *dir, const pfs_index_key *key, uint32_t nrg, uint32_t ncol,
		   pq_file_sizes **out, pfs_file_shapes **shapes);
/* Writes the entry atomically (a temporary file renamed over it): 0, or
 * -errno (nothing is left behind). shapes: NULL stores every chunk as
 * unknown; else of the same row groups and columns as s. */
int pfs_index_store(const char *dir, const pfs_index_key *key, const pq_file_sizes *s,
		    const pfs_file_shapes *shapes);

/* ---- the bound (-o index_size; size_index_lru.c) -------------------------------------- */

/* A mount's count of the bytes it stored into one index directory. */
typedef struct pfs_index_lru pfs_index_lru;

/* limit: the bound in bytes (at most PFS_INDEX_SIZE_MAX). NULL without memory
 * (the index is then not bounded by this mount). */
pfs_index_lru *pfs_index_lru_new(uint64_t limit);
void pfs_index_lru_free(pfs_index_lru *b);
/* The bytes key's entry takes on disk (its blocks, at least its length);
 * 0 when there is none. */
uint64_t pfs_index_taken(const char *dir, const pfs_index_key *key);
/* After pfs_index_store wrote key's entry over one that took `before`
 * bytes (pfs_index_taken before the store): counts what it added and,
 * when the count passes the bound, removes the least recently used
 * entries of dir down to 3/4 of it (one listing per quarter of the bound
 * stored). An entry larger than the whole bound is removed at once. b may
 * be NULL. */
void pfs_index_lru_stored(pfs_index_lru *b, const char *dir, const pfs_index_key *key,
			  uint64_t before);
/* After key's entry served a load: it is the most recently used (its
 * mtime set to now; best effort). */
void pfs_index_touch(const char *dir, const pfs_index_key *key);
/* Removes the least recently used entries of dir (oldest mtime first)
 * until they take at most target bytes, and temporaries older than an
 * hour; other files are left alone. Returns the bytes the entries left
 * take. */
uint64_t pfs_index_evict(const char *dir, uint64_t target);

#endif
