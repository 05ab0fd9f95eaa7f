/* The size pass: the exact byte length of every aggregate entry of a file
 * (data.csv, data.jsonl, values.txt and levels.txt at every level,
 * verify.txt), found by one pass over the data that keeps no rendered
 * text. The filesystem reports these sizes from the first stat, so tools
 * that trust st_size (DuckDB, tar, rsync, mmap, tail -c) get everything.
 *
 * The sizes are those of the bytes the renderers of pq_file.h produce
 * (pq_row_reader, pq_text_page_values, pq_text_page_levels,
 * pq_text_verify): the pass measures with the same rules, and tests
 * compare the two for every file they have.
 *
 * A segment that cannot be rendered (a page that does not decode, a key
 * that is missing) has the size PQ_SIZE_FAILED; its status says why. The
 * caller decides what such an entry reports (reading it fails). */
#ifndef PQ_SIZES_H
#define PQ_SIZES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "pq_error.h"
#include "pq_file.h"

#define PQ_SIZE_FAILED UINT64_MAX

/* One data page (file order, as pq_chunk_layout's pages). */
typedef struct pq_page_sizes {
	uint64_t values; /* its values.txt */
	uint64_t levels; /* its levels.txt (0 when the column has no levels) */
} pq_page_sizes;

/* One column chunk. */
typedef struct pq_chunk_sizes {
	pq_status status;      /* PQ_OK, or why the chunk could not be measured */
	uint32_t num_pages;    /* data pages (0 when the layout did not load) */
	pq_page_sizes *pages;  /* num_pages entries; a page that failed: PQ_SIZE_FAILED */
	uint64_t values;       /* the chunk's values.txt (sum of its pages') */
	uint64_t levels;       /* the chunk's levels.txt */
	char *msg;             /* why, when status is not PQ_OK (owned), else NULL */
	bool pages_borrowed;   /* pages belongs to the chunk whose bytes these are */
} pq_chunk_sizes;

typedef struct pq_file_sizes {
	uint32_t num_row_groups, num_columns;
	uint64_t csv_header;   /* the CSV header line (pq_text_csv_header) */
	uint64_t *rg_csv;      /* per row group: its rows as CSV, header NOT included */
	uint64_t *rg_jsonl;    /* per row group: its rows as JSON lines */
	pq_chunk_sizes *chunks; /* [rg * num_columns + col] */
	uint64_t *col_values;  /* per column: columns/<col>/values.txt */
	uint64_t csv;          /* the file's data.csv (header + every row group) */
	uint64_t jsonl;        /* the file's data.jsonl */
	uint64_t verify;       /* verify.txt */
	/* The text of verify.txt (the pass checks what verify.txt checks on
	 * the way), or NULL; owned by this object. */
	uint8_t *verify_text;
	/* Memory this object holds (for the caller's cache accounting). */
	uint64_t footprint;
	/* Work done: distinct pages decoded and pages found shared with one
	 * measured before (row groups pointing at the same bytes). */
	uint64_t pages_measured, pages_shared;
	bool one_column;       /* measured with pq_sizes_options.one_column */
} pq_file_sizes;

typedef struct pq_sizes_options {
	unsigned threads;      /* worker threads (0: one per online CPU) */
	uint64_t mem_max;      /* decoded bytes in flight at once (0: 256 MiB) */
	/* A chunk that needs more than mem_max is measured alone (after
	 * waiting, up to the file budget's wait, for that much room in it:
	 * pq_budget_wait_room), up to chunk_max bytes (0: mem_max); past
	 * chunk_max it fails (PQ_EBUDGET, its msg naming the size) */
	uint64_t chunk_max;
	bool keep_verify_text; /* keep verify.txt's text in verify_text */
	atomic_bool *cancel;   /* set to stop early (PQ_EIO); may be NULL */
	/* measure the chunks of this column only: its values.txt at every
	 * level (col_values[column], its chunks and pages); every other size
	 * is PQ_SIZE_FAILED and the other chunks' status PQ_EINVAL */
	bool one_column;
	uint32_t column;
} pq_sizes_options;

/* Runs the size pass: chunks are measured on opt->threads threads, each
 * distinct chunk once (row groups may point at the same bytes), holding
 * at most opt->mem_max decoded bytes in all (a chunk whose pages need
 * more: alone, up to opt->chunk_max); a chunk needing more than that fails
 * alone (PQ_EBUDGET, its msg naming the size), and verify.txt is then
 * PQ_SIZE_FAILED. The results do not depend on the thread count.
 * opt may be NULL (defaults). */
/* Runs the size pass. Fails only when nothing could be measured (no
 * memory, cancelled); a bad chunk is recorded in its pq_chunk_sizes and
 * makes the aggregates that hold it PQ_SIZE_FAILED. */
pq_status pq_file_measure(const pq_file *f, const pq_sizes_options *opt, pq_file_sizes **out,
			  pq_error *err);
void pq_file_sizes_free(pq_file_sizes *s);

#endif
