/* Every view the filesystem shows of a file, rendered through the core
 * read APIs fs/ uses: shared by the fuzz targets, the allocation-failure
 * test and the robustness test. Each view's outcome can be recorded, so
 * a caller can compare a run against a reference run. */
#ifndef FUZZ_VIEWS_H
#define FUZZ_VIEWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_error.h"
#include "pq_file.h"

/* View kinds: the high byte of an outcome's key (fuzz_key). */
enum {
	V_OPEN = 1, V_SCHEMA, V_META, V_META_JSON, V_VERIFY, V_CSV_HEADER, V_ROWS_CSV,
	V_ROWS_JSONL, V_RG_META, V_RG_META_JSON, V_CHUNK_META, V_CHUNK_META_JSON,
	V_COLUMN_INDEX, V_OFFSET_INDEX, V_BLOOM, V_BLOOM_BITSET, V_LAYOUT, V_PAGE_HEADER,
	V_PAGE_HEADER_JSON, V_PAGE_BODY, V_PAGE_CRC, V_DICT, V_PAGE_DECODE, V_VALUES,
	V_LEVELS, V_SUMMARY, V_SIZES
};

/* An outcome's key: the view kind, its row group, column and page. */
uint64_t fuzz_key(unsigned kind, uint32_t rg, uint32_t col, uint32_t page);
#define FUZZ_KIND(key) ((unsigned)((key) >> 56))

/* One view's outcome: which view, its status, whether its output ran out
 * of memory, and a digest of its bytes. */
typedef struct fuzz_outcome {
	uint64_t key;      /* view kind, row group, column, page */
	pq_status status;
	bool oom;
	uint64_t len, digest;
} fuzz_outcome;

typedef struct fuzz_log {
	fuzz_outcome *v;
	size_t n, cap;
	bool overflow;     /* the log itself could not grow */
} fuzz_log;

/* Bounds that keep one input cheap (a fuzzer runs thousands a second). */
#define FUZZ_MAX_PAGES 8
#define FUZZ_MAX_ROWS_BYTES (4u << 20)
#define FUZZ_PAGE_BUDGET (64u << 20)

/* Renders every view of f; log may be NULL. */
void fuzz_views(pq_file *f, fuzz_log *log);
/* Opens the bytes from memory (with keys, may be NULL) and renders every
 * view; the open's own status is the log's first outcome. */
pq_status fuzz_file_bytes(const uint8_t *p, size_t n, const pq_keyring *keys, fuzz_log *log);

#endif
